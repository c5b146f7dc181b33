"""Issue 2 figures: solving each preset's expected-score table from nothing, reloading it,
and a whole `zilch advise` process with a stored table.  Run: python bench/bench_core.py"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

from solver import dice, rules, scoring, turn
from solver.policy import reachable, score_policy, solve_score


def from_nothing(rs):
    """Solve with every cache cleared: outcomes, scoring, model, solver."""
    dice.outcomes.cache_clear()
    scoring.scored.cache_clear()
    turn.build_model.cache_clear()
    t0 = time.perf_counter()
    main, _ = solve_score(rs)
    reachable(rs, main.roll.shape[2])
    return time.perf_counter() - t0


def main():
    folder = tempfile.mkdtemp()
    print(f"{'preset':14} {'solve from nothing (median of 5)':>34} {'reload':>10}")
    for name in rules.preset_names():
        rs = rules.load(name)
        solve = statistics.median(from_nothing(rs) for _ in range(5))
        score_policy(rs, folder)
        t0 = time.perf_counter()
        for _ in range(20):
            score_policy(rs, folder)
        reload = (time.perf_counter() - t0) / 20
        print(f"{name:14} {solve * 1000:31.1f} ms {reload * 1000:7.2f} ms")
    env = dict(os.environ, DICESOLVER_TABLES=folder)
    cmd = [sys.executable, "-c", "from cli import main; main()", "advise", "--rules", "farkle",
           "--dice", "3", "--turn", "400"]
    times = []
    for _ in range(10):
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    print(f"zilch advise as a whole process (stored table): median {statistics.median(times):.3f} s"
          f", max {max(times):.3f} s over 10 runs")


if __name__ == "__main__":
    main()
