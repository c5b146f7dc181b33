"""Issue 39 figures: where a three-player solve's time goes, and the turn kernel's rows one
or four at a time (game_starts' AVX2 lanes).

1. The split: the game solved in this process (nplayer_game.solve_serial, the final round
   first), with timers around the kernel's start values (turn.starts.solve_starts), the bank
   payoffs (bank_values) and the cuts (turn_cuts), and the turn solves per state.
2. The kernel alone: a sample of the solve's batches (3 %) replayed with DICESOLVER_LANES=0
   and 1 in turn, one thread, CPU time per turn solve (min and median of REPS rounds), and
   whether every value is the same bit for bit.

Run: python bench/bench_kernel_lanes.py [PRESET TARGET [PLAYERS [REPS]]]  (default farkle
2000 3 5).  Timings on a shared machine are noisy: the load is printed with each figure."""

import dataclasses
import os
import sys
import tempfile
import time

import numpy as np

from dicesolver import rules
from dicesolver.objectives import nplayer_game as NG
from dicesolver.store import Store
from dicesolver.tables import Tables
from dicesolver.turn import starts as ST

TIMES = {"kernel": 0.0, "bank": 0.0, "cuts": 0.0, "rows": 0}


def _timed(mod, name, key, count_rows=False):
    fn = getattr(mod, name)

    def wrapper(*a, **k):
        t = time.perf_counter()
        out = fn(*a, **k)
        TIMES[key] += time.perf_counter() - t
        if count_rows:
            TIMES["rows"] += len(a[2])
        return out

    setattr(mod, name, wrapper)


def split(model, R, N, D, calls):
    rng = np.random.default_rng(1)
    parts = NG.turn_parts

    def capture(model, states, U, z, *slack):
        if rng.random() < 0.03:
            calls.append((states.copy(), np.ascontiguousarray(U).copy(), z.copy()))
        return parts(model, states, U, z, *slack)

    _timed(ST, "solve_starts", "kernel", count_rows=True)
    _timed(ST, "turn_cuts", "cuts")
    _timed(NG, "bank_values", "bank")
    NG.turn_parts = capture
    t0 = time.perf_counter()
    fin = NG.solve_finals(model, R, N, D)
    t1 = time.perf_counter()
    NG.solve_serial(model, R, N, fin)
    t2 = time.perf_counter()
    NG.turn_parts = parts
    print(
        f"split: final round {t1 - t0:.1f} s, game {t2 - t1:.1f} s: kernel's start values "
        f"{TIMES['kernel']:.1f} s, bank payoffs {TIMES['bank']:.1f} s, cuts {TIMES['cuts']:.1f} s; "
        f"{TIMES['rows']} turn solves, {TIMES['rows'] / R**N:.2f} per state "
        f"(load {os.getloadavg()[0]:.1f})",
        flush=True,
    )


def lanes_ab(model, calls, reps):
    os.environ["DICESOLVER_THREADS"] = "1"
    rows = sum(len(c[0]) for c in calls)
    times, outs = {"0": [], "1": []}, {}
    for _ in range(reps):
        for flag in ("0", "1"):
            os.environ["DICESOLVER_LANES"] = flag
            TIMES["kernel"] = 0.0
            t = time.process_time()
            outs[flag] = [NG.turn_parts(model, *c) for c in calls]
            times[flag].append(time.process_time() - t)
    same = all(
        np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
        for a, b in zip(outs["0"], outs["1"], strict=True)
    )
    for flag, label in (("0", "one row at a time"), ("1", "four rows at a time")):
        t = np.array(times[flag]) / rows * 1e6
        print(f"kernel, {label}: {t.min():.1f} us a turn solve (median {np.median(t):.1f})")
    print(f"{rows} turn solves, the same bit for bit: {same} (load {os.getloadavg()[0]:.1f})")


def main():
    args = sys.argv[1:]
    name, target = (args[0], int(args[1])) if len(args) >= 2 else ("farkle", 2000)
    N = int(args[2]) if len(args) > 2 else 3
    reps = int(args[3]) if len(args) > 3 else 5
    rs = dataclasses.replace(rules.load(name), target=target)
    tab = Tables(rs, Store(tempfile.mkdtemp()))
    calls: list = []
    split(tab.model, rs.reach_units(target), N, tab.reach_bound, calls)
    lanes_ab(tab.model, calls, reps)


if __name__ == "__main__":
    main()
