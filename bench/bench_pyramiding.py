"""Issue 14 figures, pyramiding: the 6-dice turn's states (the classic 0..N and those holding
frozen groups, and how many a turn reaches), its outcomes and choices, and the times of the
strategy card, with and without the option.  Run: python bench/bench_pyramiding.py
[PRESET ...] (default: zilch, and zilch with pyramiding)."""

import sys
import tempfile

from bench_core import from_nothing, timed

from dicesolver import rules
from dicesolver.objectives.score import solve_score
from dicesolver.outcomes import frozen
from dicesolver.store import Store
from dicesolver.tables import Tables


def main(names):
    store = Store(tempfile.mkdtemp())
    print(
        f"{'rules':18} {'states':>7} {'reached':>8} {'outcomes':>9} {'choices':>8} "
        f"{'solve (model stored)':>21} {'from nothing':>13}   (medians of 5)"
    )
    for name in names:
        rs = rules.load(name)
        tab = Tables(rs, store)
        pol = tab.score  # stores the model and the card
        model = tab.model
        reached = int(pol.reach.any(axis=1).sum())

        def cold():
            frozen.turn_states.cache_clear()
            frozen._index.cache_clear()
            from_nothing(rs)

        solve = timed(lambda: solve_score(Tables(rs, store).model))
        nothing = timed(cold)
        print(
            f"{name:18} {model.states:7} {reached:8} {len(model.prob):9} {len(model.shift):8} "
            f"{solve * 1000:18.1f} ms {nothing * 1000:10.0f} ms"
        )
        print(
            f"{'':18} (state, turn total) pairs reached up to the cap {pol.main.cap}: "
            f"{int(pol.reach[:, : pol.main.cap + 1].sum())}; a fresh turn is worth "
            f"{pol.expected_turn_score(True):.4f} points (on the board)"
        )


if __name__ == "__main__":
    main(sys.argv[1:] or ["zilch", "zilch-pyramiding"])
