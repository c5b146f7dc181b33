"""Issue 4 figures: simulated turns per second (optimal policy, physical dice) and the exact
evaluation time.  Run: python bench/bench_simulate.py"""

import tempfile
import time

import numpy as np

from dicesolver import rules
from dicesolver.answers.checks import resolve_policy
from dicesolver.play.evaluate import evaluate
from dicesolver.play.simulate import play_turns
from dicesolver.store import Store
from dicesolver.tables import Tables


def main():
    store = Store(tempfile.mkdtemp())
    for name in ("farkle", "zilch", "zonk-detroit"):
        tab = Tables(rules.load(name), store)
        strat = resolve_policy("optimal", tab)
        fast = strat.compile(tab.model)
        rng = np.random.default_rng(0)
        play_turns(tab.model, fast, 10_000, rng)
        n = 2_000_000
        t0 = time.perf_counter()
        for _ in range(n // 250_000):
            play_turns(tab.model, fast, 250_000, rng)
        dt = time.perf_counter() - t0
        t0 = time.perf_counter()
        evaluate(tab.model, strat)
        ev = time.perf_counter() - t0
        print(
            f"{name:13} simulate {n / dt / 1e6:.2f} M turns/s (2M turns in batches of 250k); "
            f"exact evaluation {ev:.2f} s"
        )


if __name__ == "__main__":
    main()
