"""Issue 14 figures, challenge: the two-player game with the challenges left and board flags
in the state (objectives/challenge_game.py) — time, states, the first player's chance and
whether he should challenge at 0-0, against the plain game of the same rules; and what a
higher --lowest changes.  Peak memory: run it under /usr/bin/time -v.

Run: python bench/bench_challenge.py PRESET TARGET [LOWEST ...]  (default: farkle to 1000
with the rule book's challenge switched on; LOWEST: points, default the exact bound)"""

import sys
import time
from dataclasses import replace

import numpy as np

from dicesolver import rules
from dicesolver.objectives.challenge_game import BOTH, solve_challenge_game
from dicesolver.objectives.game_run import GameRun
from dicesolver.objectives.last_turn import reach_bound
from dicesolver.objectives.plain_game import solve_game
from dicesolver.outcomes.model import turn_model


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "farkle"
    target = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    lowests = [int(x) for x in sys.argv[3:]] or [None]
    src = rules.canonical_source(name)
    src["game"].update(challenge=True, challenge_threshold=5000, challenge_costs=[600, 2000])
    rs = rules.from_dict(src, f"{name}-challenge.toml")
    m = turn_model(rs)
    D = 0 if rs.end == "instant" else reach_bound(m)
    plain = replace(m, rules=replace(rs, challenge=False))
    t0 = time.perf_counter()
    g0 = solve_game(GameRun(plain, D, target))
    print(
        f"{name} to {target}: plain game {time.perf_counter() - t0:.1f} s, first player "
        f"{g0.W[0, 0]:.9f}",
        flush=True,
    )
    for lowest in lowests:
        t0 = time.perf_counter()
        g = solve_challenge_game(GameRun(m, D, target, lowest))
        took = time.perf_counter() - t0
        states = int(np.sum(~np.isnan(g.W)))
        ch = g.choices(0, 0, BOTH, BOTH)
        print(
            f"  challenge, lowest {g.lo * rs.unit}: {states} states, {took:.1f} s "
            f"({1e3 * took / states:.3f} ms per state), first player "
            f"{g.p_win(0, 0):.12f} (challenge at 0-0: {ch['challenge']:.9f}), W "
            f"{g.W.nbytes / 2**20:.0f} MB",
            flush=True,
        )


if __name__ == "__main__":
    main()
