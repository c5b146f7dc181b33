"""Issue 14 figures, overtaking: the two-player game with the opponent's last bank in the
state (objectives/overtaking_game.py) — time, states kept and the first player's chance,
against the plain game of the same rules.  Peak memory: run it under /usr/bin/time -v.

Run: python bench/bench_overtaking.py [PRESET] [TARGET ...]  (default: farkle to 1000, 2000,
4000, with overtaking switched on)"""

import sys
import time

import numpy as np

from dicesolver import rules
from dicesolver.objectives.game_run import GameRun
from dicesolver.objectives.last_turn import reach_bound
from dicesolver.objectives.overtaking_game import solve_overtaking_game
from dicesolver.objectives.plain_game import solve_game
from dicesolver.outcomes.model import turn_model


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "farkle"
    targets = [int(x) for x in sys.argv[2:]] or [1000, 2000, 4000]
    src = rules.canonical_source(name)
    plain = rules.from_dict(src, f"{name}.toml")
    src["game"]["overtaking"] = True
    over = rules.from_dict(src, f"{name}-overtaking.toml")
    for target in targets:
        row = []
        for rs, solve in ((plain, solve_game), (over, solve_overtaking_game)):
            m = turn_model(rs)
            D = 0 if rs.end == "instant" else reach_bound(m)
            t0 = time.perf_counter()
            g = solve(GameRun(m, D, target))
            took = time.perf_counter() - t0
            W = g.W
            p = float(W[(0,) * W.ndim])
            row.append(f"{int(np.sum(~np.isnan(W)))} states, {took:.1f} s, first player {p:.9f}")
        print(f"{name} to {target}: plain {row[0]}; overtaking {row[1]}", flush=True)


if __name__ == "__main__":
    main()
