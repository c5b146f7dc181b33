"""Issue 2 figures: solving each preset's expected-score table (with its stored model, and
from nothing: enumerating and scoring every roll too), reloading it, and a whole
`zilch advise` process with a stored table.  Run: python bench/bench_core.py"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

from dicesolver import rules
from dicesolver.objectives.score import solve_score
from dicesolver.outcomes import dice, scoring
from dicesolver.outcomes.model import TurnModel, model_arrays
from dicesolver.store import Store
from dicesolver.tables import Tables


def timed(f, runs=5):
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        f()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def from_nothing(rs):
    """Every cache cleared: outcomes, scoring, the model, the solve."""
    dice.outcomes.cache_clear()
    scoring.scored.cache_clear()
    solve_score(TurnModel.from_arrays(rs, model_arrays(rs)))


def main():
    store = Store(tempfile.mkdtemp())
    print(
        f"{'preset':14} {'solve (model stored)':>21} {'from nothing':>13} {'reload':>9}"
        "   (medians of 5)"
    )
    for name in rules.preset_names():
        rs = rules.load(name)
        tab = Tables(rs, store)
        _ = tab.score  # stores the model and the table
        solve = timed(lambda: solve_score(Tables(rs, store).model))
        nothing = timed(lambda: from_nothing(rs))
        reload = timed(lambda: Tables(rs, store).score, runs=20)
        print(
            f"{name:14} {solve * 1000:18.1f} ms {nothing * 1000:10.0f} ms {reload * 1000:6.2f} ms"
        )
    env = dict(os.environ, DICESOLVER_TABLES=str(store.folder))
    cmd = [
        sys.executable,
        "-m",
        "dicesolver",
        "advise",
        "--rules",
        "farkle",
        "--dice",
        "3",
        "--turn",
        "400",
    ]
    times = []
    for _ in range(10):
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    print(
        f"zilch advise as a whole process (stored table): median {statistics.median(times):.3f} s"
        f", max {max(times):.3f} s over 10 runs"
    )


if __name__ == "__main__":
    main()
