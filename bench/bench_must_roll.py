"""Issue 39 figures: the N-player score sums with and without the must-roll state's tables
(nplayer_game.must_roll_space: mandatory hot dice, one choice per outcome), alternating, in
this process with one kernel thread (the final round solved first, not timed): CPU seconds,
turn solves per state, and how far apart the two tables are.

Run: python bench/bench_must_roll.py [PRESET TARGET [ROUNDS [PLAYERS]]]  (default zilch 2000 2 3)"""

import os
import sys
import time

import numpy as np

from dicesolver import rules
from dicesolver.objectives import nplayer_game as NG
from dicesolver.store import Store
from dicesolver.tables import Tables


def main():
    args = sys.argv[1:]
    preset, target = (args[0], int(args[1])) if len(args) >= 2 else ("zilch", 2000)
    rounds = int(args[2]) if len(args) > 2 else 2
    N = int(args[3]) if len(args) > 3 else 3
    os.environ.setdefault("DICESOLVER_THREADS", "1")  # (as a worker's kernel calls run)
    rs = rules.load(preset).aimed(target)
    tab = Tables(rs, Store.resolve())
    model, R = tab.model, rs.reach_units()
    fin = NG.solve_finals(model, R, N, 0 if rs.end == "instant" else tab.reach_bound)
    space, parts, count = NG.must_roll_space, NG.turn_parts, [0]

    def counted(model, states, *rest):
        count[0] += len(states)
        return parts(model, states, *rest)

    NG.turn_parts = counted
    tables = {}
    for _ in range(rounds):
        for name in ("without", "with"):
            NG.must_roll_space = space if name == "with" else (lambda *a: None)
            count[0] = 0
            t = time.process_time()
            tables[name] = NG.solve_serial(model, R, N, fin)
            print(
                f"{preset} to {target}, {N} players, {name} the tables: "
                f"{time.process_time() - t:.1f} s CPU, {count[0] / R**N:.2f} turn solves "
                f"per state (load {os.getloadavg()[0]:.1f})",
                flush=True,
            )
    apart = np.abs(tables["with"] - tables["without"]).max()
    print(f"the tables {apart:.1e} apart; from the start {tables['with'][(0,) * N]}")


if __name__ == "__main__":
    main()
