"""Issue 13 figures: the two-player game where the third zilch in a row costs a penalty —
the time, the sweeps and the first player's chance, and how that chance moves with the
lowest score kept (per 500 points of bound).  Peak memory: run it under /usr/bin/time -v.

Run: python bench/bench_penalty_game.py [PRESET] [TARGET] [LOWEST ...]
(default: farkle with a 500 penalty to 10000, lowest -2000; the issue's case)."""

import dataclasses
import sys
import time

from dicesolver import rules
from dicesolver.objectives.game_run import GameRun
from dicesolver.objectives.last_turn import reach_bound
from dicesolver.objectives.penalty_game import solve_penalty_game
from dicesolver.outcomes.model import turn_model


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "farkle"
    target = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    lows = [int(x) for x in sys.argv[3:]] or [-2000]
    rs = dataclasses.replace(rules.load(name), three_zilch_penalty=500)
    model = turn_model(rs)
    D = reach_bound(model)
    last = None
    for lowest in lows:
        t0 = time.perf_counter()

        def report(sweep, residual):
            print(
                f"  sweep {sweep:3}: largest change {residual:.2e}"
                f" ({time.perf_counter() - t0:.0f} s)",
                flush=True,
            )

        g = solve_penalty_game(GameRun(model, D, target, lowest, report))
        p = g.p_win(0, 0)
        took = time.perf_counter() - t0
        moved = (
            ""
            if last is None
            else f", {abs(p - last[1]) / (abs(lowest - last[0]) / 500):.2e} per 500 points of bound"
        )
        print(
            f"{name} with a 500 penalty to {target}, lowest {lowest}: first player "
            f"{p:.12f}; {g.sweeps} sweeps, {took:.0f} s{moved}",
            flush=True,
        )
        last = (lowest, p)


if __name__ == "__main__":
    main()
