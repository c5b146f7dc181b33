"""Yahtzee figures (issues 5, 28, 29).  Run: python bench/bench_yahtzee.py [--runs N] [--evaluate]

1. A cold table build from nothing, whole process (`yahtzee value` into an empty table
   folder, an empty numba cache), against the compiled peer yatzy-solver (Rust; `pip install
   yatzy-solver`, not a dependency), same rules, in the same run, alternating: medians and
   their ratio, with the machine's load average before and after.
2. Each preset: the build's time and peak memory, and the reload of the stored table.
3. With --evaluate: `yahtzee evaluate` from a stored table (the exact score distribution):
   its time and peak memory per preset.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

OURS = "import sys, dicesolver as ds; ds.yahtzee_value(sys.argv[1], tables=sys.argv[2])"
PEER = "import sys, yatzy_solver as ys; ys.Solver.build(ys.Variant(sys.argv[1]))"
PEER_VARIANT = {"yahtzee": "american+forced-joker", "yatzy": "yatzy-scandinavian"}

CHILD = r"""
import resource, sys, tempfile, time
from dicesolver.store import Store
from dicesolver.yahtzee.solitaire import game_table
from dicesolver.yahtzee.yahtzee_rules import load
rs, store = load(sys.argv[1]), Store(tempfile.mkdtemp())
t0 = time.perf_counter()
E = game_table(rs, store)
t1 = time.perf_counter()
game_table(rs, store)
t2 = time.perf_counter()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{t1 - t0:.2f} {peak:.0f} {E[0, 0, 0]:.7f} {t2 - t1:.3f}")
"""

EVALUATE = r"""
import resource, sys, time
import dicesolver as ds
ds.yahtzee_value(sys.argv[1], tables=sys.argv[2])  # the game table, stored first
t0 = time.perf_counter()
a = ds.yahtzee_evaluate(sys.argv[1], tables=sys.argv[2])
dt = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{dt:.1f} {peak:.0f} {a.mean:.7f} {a.std:.7f} {a.quantiles[1]} {a.quantiles[50]} "
      f"{a.quantiles[99]} {a.peak_memory_mib:.0f} {a.p_upper_bonus:.6f} {a.p_yahtzee:.6f}")
"""


def timed(code, *argv, env=None, cpu=None):
    """Wall seconds and the output's words of a child process; cpu: a list that gets its
    CPU seconds (user + system, all its threads)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", code, *argv], env=env, check=True, capture_output=True, text=True
    ).stdout
    dt = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if cpu is not None:
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return dt, out.split()


def cold_env():
    """An empty numba cache: nothing compiled before (the C kernel needs none)."""
    return dict(os.environ, NUMBA_CACHE_DIR=tempfile.mkdtemp())


def versus_peer(runs):
    print(f"load average before: {os.getloadavg()}")
    for name, variant in PEER_VARIANT.items():
        ours, peer, ours_cpu, peer_cpu = [], [], [], []
        for _ in range(runs):
            ours.append(timed(OURS, name, tempfile.mkdtemp(), env=cold_env(), cpu=ours_cpu)[0])
            peer.append(timed(PEER, variant, cpu=peer_cpu)[0])
        mo, mp = statistics.median(ours), statistics.median(peer)
        co, cp = statistics.median(ours_cpu), statistics.median(peer_cpu)
        print(
            f"{name:8} cold build, whole process: dicesolver median {mo:.2f} s "
            f"({' '.join(f'{t:.2f}' for t in ours)}), yatzy-solver {variant} median {mp:.2f} s "
            f"({' '.join(f'{t:.2f}' for t in peer)}): ratio {mo / mp:.2f}; CPU seconds "
            f"(all threads) {co:.2f} against {cp:.2f}: ratio {co / cp:.2f}"
        )
    print(f"load average after: {os.getloadavg()}")


def presets():
    for name in ("yahtzee", "yahtzee-free-joker", "yatzy", "yatzy-forced"):
        _, (dt, peak, value, reload) = timed(CHILD, name, env=cold_env())
        print(f"{name:19} optimum {value}  build {dt} s, peak memory {peak} MiB, reload {reload} s")


def evaluate():
    for name in ("yahtzee", "yahtzee-free-joker", "yatzy", "yatzy-forced"):
        _, out = timed(EVALUATE, name, tempfile.mkdtemp())
        dt, peak, mean, std, q1, q50, q99, arrays, bonus, yahtzee = out
        print(
            f"{name:19} evaluate {dt} s, peak memory {peak} MiB (distributions {arrays} MiB): "
            f"mean {mean} std {std} 1% {q1} median {q50} 99% {q99}; P(upper bonus) {bonus}, "
            f"P(Yahtzee box scored) {yahtzee}"
        )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--evaluate", action="store_true")
    a = ap.parse_args()
    versus_peer(a.runs)
    presets()
    if a.evaluate:
        evaluate()


if __name__ == "__main__":
    main()
