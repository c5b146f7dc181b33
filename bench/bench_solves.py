"""Issue 39 figures: turn solves per state of the N-player game, and the score sums' time,
three ways in this process (the final round solved first, not timed):

  neighbour  the first guess the next player's neighbour's, every orbit confirmed by a
             solve (the solver before issue 39's corner guess and slack)
  corners    the first guess from the cube's corners (nplayer_game.corner_guess, three
             players), every orbit confirmed by a solve
  slack      the corners, and orbits within their turns' slack settled without the
             confirming solve (nplayer_game.settled_within_room): the solver as it is

and the largest difference of each table from the solver's.  One process, one kernel
thread per call as the workers run it.

Run: python bench/bench_solves.py [PRESET TARGET [PLAYERS]]  (default farkle 3000 3)"""

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

PATHS = ("neighbour", "corners", "slack")


def solve(model, R, N, fin, path):
    count = [0]
    parts, corners, settle = NG.turn_parts, NG.CORNER_PLAYERS, NG.settled_within_room

    def counted(model, states, *rest):
        count[0] += len(states)
        return parts(model, states, *rest)

    NG.turn_parts = counted
    if path == "neighbour":
        NG.CORNER_PLAYERS = 0
    if path != "slack":
        NG.settled_within_room = lambda *a: False
    try:
        t = time.perf_counter()
        V = NG.solve_serial(model, R, N, fin)
        return V, time.perf_counter() - t, count[0] / R**N
    finally:
        NG.turn_parts, NG.CORNER_PLAYERS, NG.settled_within_room = parts, corners, settle


def main():
    args = sys.argv[1:]
    name, target = (args[0], int(args[1])) if len(args) >= 2 else ("farkle", 3000)
    N = int(args[2]) if len(args) > 2 else 3
    os.environ.setdefault("DICESOLVER_THREADS", "1")
    rs = dataclasses.replace(rules.load(name), target=target)
    tab = Tables(rs, Store(tempfile.mkdtemp()))
    R = rs.reach_units(target)
    fin = NG.solve_finals(tab.model, R, N, tab.reach_bound)
    got = {path: solve(tab.model, R, N, fin, path) for path in PATHS}
    for path in PATHS:
        V, seconds, per = got[path]
        diff = np.abs(V - got["slack"][0]).max()
        print(
            f"{name} to {target}, {N} players, {path:9s}: {per:.2f} turn solves per state, "
            f"score sums {seconds:.1f} s, from 0-0-0 {np.round(V[(0,) * N], 9)}, "
            f"largest difference from the solver's table {diff:.1e} "
            f"(load {os.getloadavg()[0]:.1f})",
            flush=True,
        )


if __name__ == "__main__":
    main()
