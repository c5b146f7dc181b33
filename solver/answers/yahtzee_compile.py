"""The numba kernels compiled ahead of the first question (`yahtzee compile`, run by the
README's set-up commands): the Yahtzee family's queries by chance of winning (the hints
against opponents, the final-score distribution, the simulator, versus) run numba code,
which numba compiles at its first call on a machine (about a minute) and then
keeps in its disk cache (numba_kernel.jit).  Here every kernel a query calls is called
once on a four-box rule file in a temporary folder, so that no question waits for the
compiler; the tables it builds are thrown away.  The references the tests check these
against (the moments of the final score, the duel's strategy evaluation) are compiled too,
so that the test run does not pay for them either."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from ..progress import SILENT, Progress
from ..yahtzee.yahtzee_rules import UPPER, YahtzeeRules, from_dict
from .yahtzee_answers import yahtzee_advise, yahtzee_evaluate, yahtzee_simulate
from .yahtzee_versus import yahtzee_versus

BOXES = [{"name": UPPER[f - 1], "kind": "upper", "face": f} for f in (5, 6)] + [
    {"name": "yahtzee", "kind": "yahtzee", "points": 50},
    {"name": "chance", "kind": "chance"},
]


def warm_rules() -> YahtzeeRules:
    """Four boxes with every bonus (upper bonus, Yahtzee bonus, forced joker): each kernel's
    branches compiled, its tables built in a second."""
    spec = {
        "name": "compile-warm",
        "boxes": BOXES,
        "upper_bonus": 35,
        "upper_threshold": 20,
        "yahtzee_bonus": 100,
        "joker": "forced",
    }
    return from_dict(spec, "compile-warm.toml")


def warm(progress: Progress = SILENT) -> list[str]:
    """Every query kernel compiled (and cached on disk where numba can): the questions asked,
    in order."""
    rs, hand, two = warm_rules(), [1, 2, 3, 5, 6], ["new", "new"]
    with tempfile.TemporaryDirectory(prefix="dicesolver-compile-") as d:
        asks: list[tuple[str, Callable[[], object]]] = [
            ("advise", lambda: yahtzee_advise(rs, hand, tables=d)),
            ("distribution", lambda: yahtzee_evaluate(rs, tables=d)),
            ("simulator", lambda: yahtzee_simulate(rs, games=100, tables=d)),
            (
                "against opponents",
                lambda: yahtzee_advise(rs, hand, score=0, opponents=two, tables=d),
            ),
            ("versus", lambda: yahtzee_versus(rs, "heuristic", "optimal", 3, 10, tables=d)),
            ("utility play", lambda: yahtzee_versus(rs, "utility:0.05", "optimal", 2, tables=d)),
            ("the tests' references", lambda: _references(rs, d)),
        ]
        progress.start("compiling the Yahtzee kernels", len(asks))
        for _, ask in asks:
            ask()
            progress.advance()
        progress.finish()
    return [name for name, _ in asks]


def _references(rs: YahtzeeRules, folder: str) -> None:
    """The second backward pass (the moments) and a duel evaluated (two boxes)."""
    from ..store import Store
    from ..yahtzee import duel, duel_eval
    from ..yahtzee.distribution import moments
    from ..yahtzee.solve import solve

    moments(rs, solve(rs))
    two = from_dict({"name": "compile-duel", "boxes": BOXES[1::2]}, "compile-duel.toml")
    layers = duel.solve(two)
    duel_eval.evaluate(duel_eval.context(two, Store(Path(folder)), layers), "heuristic", "optimal")
