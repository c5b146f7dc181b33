"""Issue 5 figures: the full table from nothing (cold: numba compiling into an empty cache;
warm: compiled code cached), its peak memory, and the reload.  Run: python bench/bench_yahtzee.py"""

import os
import subprocess
import sys
import tempfile

CHILD = r"""
import resource, sys, time
from dicesolver.yahtzee.rules import load
from dicesolver.yahtzee.solve import solve
t0 = time.perf_counter()
E = solve(load(sys.argv[1]))
dt = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{dt:.2f} {peak:.0f} {E[0, 0, 0]:.7f}")
"""

RELOAD = r"""
import sys, tempfile, time
from dicesolver.store import Store
from dicesolver.yahtzee.rules import load
from dicesolver.yahtzee.game import game_table
rs, d = load(sys.argv[1]), Store(tempfile.mkdtemp())
game_table(rs, d)
t0 = time.perf_counter()
game_table(rs, d)
print(f"{time.perf_counter() - t0:.3f}")
"""


def run(code, name, env):
    out = subprocess.run(
        [sys.executable, "-c", code, name], env=env, check=True, capture_output=True, text=True
    ).stdout.split()
    return out


def main():
    cache = tempfile.mkdtemp()
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    for name in ("yahtzee", "yahtzee-free-joker", "yatzy"):
        cold = run(CHILD, name, env)
        warm = run(CHILD, name, env)
        reload = run(RELOAD, name, env)
        print(
            f"{name:19} optimum {warm[2]}  from nothing: cold {cold[0]} s (with compile), "
            f"warm {warm[0]} s; peak memory {warm[1]} MiB; reload {reload[0]} s"
        )


if __name__ == "__main__":
    main()
