"""dicesolver: exact solvers for dice games of the Zilch family and Yahtzee.

The Python API has the command line's shape: one function per command, keyword arguments
named like its options, returning a frozen answer whose ``to_dict()`` is exactly what the
command prints with ``--json``::

    import dicesolver as ds
    ds.advise("farkle", dice=3, turn=400).action          # 'roll'
    ds.strategy("zilch").to_dict()["bank_thresholds"]

The functions are imported on first use, so ``import dicesolver`` stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .errors import InputError, TableMissing

__version__ = "0.2.0"

# name -> the module that defines it (the answers; the terminal games are the command line's)
_API = {
    "describe_rules": "answers.card",
    "odds": "answers.card",
    "strategy": "answers.card",
    "advise": "answers.advise",
    "endgame": "answers.endgame",
    "game": "answers.game_chance",
    "export": "answers.export",
    "evaluate": "answers.checks",
    "simulate": "answers.checks",
    "simulate_long_run": "answers.checks",
    "verify": "answers.checks",
    "plot_endgame": "render.pictures",
    "plot_game": "render.pictures",
    "plot_distribution": "render.pictures",
    "yahtzee_rules": "answers.yahtzee_answers",
    "yahtzee_advise": "answers.yahtzee_answers",
    "yahtzee_value": "answers.yahtzee_answers",
    "yahtzee_simulate": "answers.yahtzee_answers",
    "yahtzee_evaluate": "render.pictures",
    "yahtzee_export": "answers.yahtzee_answers",
    "yahtzee_versus": "answers.yahtzee_versus",
    "yahtzee_duel": "answers.yahtzee_duel",
    "review": "answers.review",
    "stored_tables": "answers.stored",
    "game_table_status": "answers.game_tables",
    "yahtzee_review": "answers.review",
    "yahtzee_win_review": "answers.review",
    "play_game": "cli.play_zilch",
    "yahtzee_play": "cli.play_yahtzee",
}
__all__ = [
    "InputError",
    "Store",
    "TableMissing",
    "__version__",
    "advise",
    "describe_rules",
    "endgame",
    "evaluate",
    "export",
    "game",
    "game_table_status",
    "odds",
    "plot_distribution",
    "plot_endgame",
    "plot_game",
    "play_game",
    "review",
    "simulate",
    "simulate_long_run",
    "stored_tables",
    "strategy",
    "verify",
    "yahtzee_advise",
    "yahtzee_duel",
    "yahtzee_evaluate",
    "yahtzee_export",
    "yahtzee_play",
    "yahtzee_review",
    "yahtzee_rules",
    "yahtzee_simulate",
    "yahtzee_value",
    "yahtzee_versus",
    "yahtzee_win_review",
]

if TYPE_CHECKING:
    from .answers.advise import advise
    from .answers.card import describe_rules, odds, strategy
    from .answers.checks import evaluate, simulate, simulate_long_run, verify
    from .answers.endgame import endgame
    from .answers.export import export
    from .answers.game_chance import game
    from .answers.game_tables import game_table_status
    from .answers.review import review, yahtzee_review, yahtzee_win_review
    from .answers.stored import stored_tables
    from .answers.yahtzee_answers import (
        yahtzee_advise,
        yahtzee_export,
        yahtzee_rules,
        yahtzee_simulate,
        yahtzee_value,
    )
    from .answers.yahtzee_duel import yahtzee_duel
    from .answers.yahtzee_versus import yahtzee_versus
    from .cli.play_yahtzee import yahtzee_play
    from .cli.play_zilch import play_game
    from .render.pictures import (
        plot_distribution,
        plot_endgame,
        plot_game,
        yahtzee_evaluate,
    )
    from .store import Store


def __getattr__(name: str) -> Any:
    if name in _API:
        return getattr(import_module(f".{_API[name]}", __name__), name)
    if name == "Store":
        return import_module(".store", __name__).Store
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
