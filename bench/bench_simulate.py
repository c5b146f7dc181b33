"""Issue 4 figures: simulated turns per second (farkle, optimal policy, physical dice) and
the exact evaluation time.  Run: python bench/bench_simulate.py"""
import time

import numpy as np

from solver import rules
from solver.evaluate import evaluate
from solver.simulate import engine, play_turns
from solver.strategies import resolve


def main():
    for name in ("farkle", "zilch", "zonk-detroit"):
        rs = rules.load(name)
        strat = resolve("optimal", rs)
        eng = engine(rs)
        tables = strat.compile(eng, rs, True)
        rng = np.random.default_rng(0)
        play_turns(eng, strat, 10_000, rng, tables=tables)
        n = 2_000_000
        t0 = time.perf_counter()
        for _ in range(n // 250_000):
            play_turns(eng, strat, 250_000, rng, tables=tables)
        dt = time.perf_counter() - t0
        t0 = time.perf_counter()
        evaluate(rs, strat)
        ev = time.perf_counter() - t0
        print(f"{name:13} simulate {n / dt / 1e6:.2f} M turns/s (2M turns in batches of 250k); "
              f"exact evaluation {ev:.2f} s")


if __name__ == "__main__":
    main()
