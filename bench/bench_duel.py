"""Two-player Yahtzee, exactly (yahtzee/duel.py): solve times and state counts on small rule
files (tests/data/duel-2.toml .. duel-5.toml), and the P(win) of fixed strategies in the
exact game (duel_eval.py): the heuristic (`advise --opponents`) against the optimal and the
expected-score opponent, expected-score play against the optimal; per seat and averaged
over the two, in P(win) points (percent).

    nice python bench/bench_duel.py [2|3|4|5|all]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from dicesolver.store import Store
from dicesolver.yahtzee import duel as D
from dicesolver.yahtzee import duel_eval as DE
from dicesolver.yahtzee import threshold as TH
from dicesolver.yahtzee.yahtzee_rules import load

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
BOXES = ("2", "3", "4", "5")
PAIRS = (("heuristic", "optimal"), ("heuristic", "expected"), ("expected", "optimal"))


def bench(boxes: str, store: Store) -> None:
    rules = load(str(DATA / f"duel-{boxes}.toml"))
    sz = D.size(rules)
    t = time.perf_counter()
    TH.solve(rules, "beat")
    t_th = time.perf_counter() - t
    t = time.perf_counter()
    L = D.solve(rules)
    t_duel = time.perf_counter() - t
    v = D.value(D.Layout(rules, 0), L[0], 0, 0)
    print(
        f"{rules.name}: {rules.n_boxes} boxes, {sz.sheets} sheet states, {sz.pairs:,} pairs, "
        f"{sz.entries:,} states with d ({sz.bytes / 1e6:.1f} MB); solve {t_duel:.2f} s "
        f"({t_duel / sz.entries * 1e6:.2f} us a state; the beat table {t_th:.2f} s); "
        f"P(first player wins) {v:.9f}",
        flush=True,
    )
    t, cpu = time.perf_counter(), time.process_time()
    ctx = DE.context(rules, store, L)
    E = DE.evaluate_pairs(ctx, PAIRS)
    took, cpu = time.perf_counter() - t, time.process_time() - cpu
    for p, q in PAIRS:
        first, second = DE.seats(rules, E, p, q)
        avg = (first + second) / 2
        print(
            f"  {p} vs {q}: P(win) first {first:.6f}, second {second:.6f}, mean {avg:.6f} "
            f"({100 * (avg - 0.5):+.3f} points against 1/2)"
        )
    per = cpu / (3 * sz.entries) * 1e6
    print(
        f"  evaluated in {took:.1f} s, {cpu:.1f} s of CPU (all threads; {per:.1f} us a state "
        f"and strategy); load {_load()}"
    )


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    which = sys.argv[1] if len(sys.argv) > 1 else "2"
    with tempfile.TemporaryDirectory() as tmp:
        for boxes in BOXES if which == "all" else [which]:
            bench(boxes, Store(tmp))


if __name__ == "__main__":
    main()
