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

# name -> the module of the answers layer that defines it
_API = {
    "describe_rules": "card",
    "odds": "card",
    "strategy": "card",
    "advise": "advise",
    "endgame": "endgame",
    "game": "game",
    "export": "export",
    "evaluate": "checks",
    "simulate": "checks",
    "simulate_long_run": "checks",
    "verify": "checks",
    "plot_endgame": "pictures",
    "plot_game": "pictures",
    "plot_distribution": "pictures",
    "yahtzee_rules": "yahtzee",
    "yahtzee_advise": "yahtzee",
    "yahtzee_value": "yahtzee",
    "yahtzee_simulate": "yahtzee",
    "yahtzee_evaluate": "yahtzee",
    "yahtzee_export": "yahtzee",
    "review": "review",
    "stored_tables": "stored",
    "yahtzee_review": "review",
    "play_game": "play_zilch",
    "yahtzee_play": "play_yahtzee",
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
    "yahtzee_evaluate",
    "yahtzee_export",
    "yahtzee_play",
    "yahtzee_review",
    "yahtzee_rules",
    "yahtzee_simulate",
    "yahtzee_value",
]

if TYPE_CHECKING:
    from .answers.advise import advise
    from .answers.card import describe_rules, odds, strategy
    from .answers.checks import evaluate, simulate, simulate_long_run, verify
    from .answers.endgame import endgame
    from .answers.export import export
    from .answers.game import game
    from .answers.pictures import plot_distribution, plot_endgame, plot_game
    from .answers.play_yahtzee import yahtzee_play
    from .answers.play_zilch import play_game
    from .answers.review import review, yahtzee_review
    from .answers.stored import stored_tables
    from .answers.yahtzee import (
        yahtzee_advise,
        yahtzee_evaluate,
        yahtzee_export,
        yahtzee_rules,
        yahtzee_simulate,
        yahtzee_value,
    )
    from .store import Store


def __getattr__(name: str) -> Any:
    if name in _API:
        return getattr(import_module(f".answers.{_API[name]}", __name__), name)
    if name == "Store":
        return import_module(".store", __name__).Store
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
