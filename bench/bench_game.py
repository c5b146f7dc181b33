"""Issue 6 figures: the two-player game to 10000 from nothing — wall time, peak memory,
stored table size, turn states evaluated per second.  Run: python bench/bench_game.py
[preset ...] (farkle by default)."""

import os
import resource
import sys
import tempfile
import time

import dicesolver.turn.engine as engine
from dicesolver import rules
from dicesolver.objectives.plain_game import fairest_head_start
from dicesolver.store import Store
from dicesolver.tables import Tables


def main():
    names = sys.argv[1:] or ["farkle"]
    counted = [0]
    real = engine.backward

    def counting(model, pay, src_list, ALL, roll, bank_pay, extra_bank, start, *rest):
        # every backward pass, whichever module asked for the solve: its (row, total, state)s
        counted[0] += int((start + 1).sum()) * model.states
        return real(model, pay, src_list, ALL, roll, bank_pay, extra_bank, start, *rest)

    engine.backward = counting
    for name in names:
        rs = rules.load(name)
        folder = tempfile.mkdtemp()
        counted[0] = 0
        t0 = time.perf_counter()
        g = Tables(rs, Store(folder)).game_table(solve=True)
        dt = time.perf_counter() - t0
        size = sum(
            os.path.getsize(os.path.join(folder, f))
            for f in os.listdir(folder)
            if f.endswith(f"game{g.target}.dst")
        )
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        h, p = fairest_head_start(g)
        print(
            f"{name} to {g.target}: {dt:.1f} s from nothing, peak memory {peak:.0f} MiB, "
            f"table {size / 1e6:.2f} MB, {counted[0] / dt / 1e6:.1f} M turn states/s "
            f"({counted[0] / 1e6:.0f} M evaluated, Newton iterations included); "
            f"P(first wins) {g.W[0, 0]:.6f}, fairest head start {h}"
        )


if __name__ == "__main__":
    main()
