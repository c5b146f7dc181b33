"""Issue 3 figures: the whole last-turn table of zilch (deficits up to 15000, every dice
count and turn total) and a 4-player final-round query.  Run: python bench/bench_endgame.py"""

import subprocess
import sys
import tempfile

import numpy as np
from bench_core import timed  # (bench/ is on the path of a script run from it)

from dicesolver import rules
from dicesolver.objectives.final_round import solve_final_round
from dicesolver.objectives.last_turn import solve_last_turn
from dicesolver.store import Store
from dicesolver.tables import Tables


def main():
    store = Store(tempfile.mkdtemp())
    z = Tables(rules.load("zilch"), store)
    deficits = np.arange(0, 15001, 50)
    for flag in (True, False):
        t = timed(lambda: solve_last_turn(z.model, deficits, flag), runs=3)
        print(f"zilch last-turn table, {len(deficits)} deficits, on board={flag}: {t:.3f} s")
    for name, scores in [
        ("zilch-online", (5000, [2500, 4900, 4950])),
        ("farkle", (10000, [7500, 9500, 9800])),
        ("zilch", (15050, [12000, 14000, 15000])),
    ]:
        tab = Tables(rules.load(name), store)
        D = tab.reach_bound  # stored model and reach bound
        t = timed(lambda: solve_final_round(tab.model, scores[0], 1, scores[1], D), runs=5)
        arg = ",".join(str(x) for x in [scores[0]] + scores[1])
        cmd = [
            sys.executable,
            "-m",
            "dicesolver",
            "endgame",
            "--rules",
            name,
            "--final-round",
            "--scores",
            arg,
            "--tables",
            str(store.folder),
        ]
        p = timed(lambda: subprocess.run(cmd, check=True, capture_output=True), runs=5)
        print(
            f"{name} final round, 4 players {arg}: {t:.2f} s in-process, "
            f"{p:.2f} s as a whole `zilch endgame` process (medians of 5), "
            f"peak {peak_mib(cmd):.0f} MiB"
        )


def peak_mib(cmd) -> float:
    """Peak resident memory of one run of cmd (from a fresh parent: its children's max)."""
    probe = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
        "capture_output=True); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", probe] + cmd, check=True, capture_output=True)
    return int(out.stdout) / 1024


if __name__ == "__main__":
    main()
