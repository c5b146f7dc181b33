"""Issue 37 figures (item 3): exponential-utility play against expected-score play, exact.
For each rule set and each theta: P(win) of utility:theta against N - 1 expected-score
players (N = 2 and 4; ties at the top split evenly), from the independent exact final-score
distributions (`yahtzee versus`); the best theta of the grid for each N.  With --heuristic
GAMES, also the heuristic against expected-score play by GAMES paired simulated games (its
beat tables are built first, about 2.5 minutes for yatzy, and the opponents' points to come
from every sheet, 30 s; then about 0.15 s a game of two).
Run: python bench/bench_versus_yahtzee.py [--rules yahtzee,yatzy] [--thetas T,T,...]
     [--tables DIR] [--heuristic GAMES]"""

import argparse
import json
import time

import dicesolver as ds
from dicesolver.answers.yahtzee_versus import yahtzee_versus

THETAS = "-0.01,0.005,0.01,0.02,0.03"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rules", default="yahtzee,yatzy")
    ap.add_argument("--thetas", default=THETAS)
    ap.add_argument("--tables", default=None)
    ap.add_argument("--heuristic", type=int, default=0, metavar="GAMES")
    a = ap.parse_args()
    for rules in a.rules.split(","):
        best: dict[int, tuple[float, float]] = {}
        for theta in [float(t) for t in a.thetas.split(",")]:
            for n in (2, 4):
                t0 = time.perf_counter()
                v = yahtzee_versus(rules, f"utility:{theta}", "optimal", n, tables=a.tables)
                row = dict(v.to_dict(), seconds=round(time.perf_counter() - t0, 1))
                print(json.dumps(row), flush=True)
                if n not in best or v.p_win > best[n][1]:
                    best[n] = (theta, v.p_win)
        for n, (theta, p) in best.items():
            print(json.dumps({"rules": rules, "players": n, "best_theta": theta, "p_win": p}))
        if a.heuristic:
            for n in (2, 4):
                t0 = time.perf_counter()
                v = yahtzee_versus(
                    rules, "heuristic", "optimal", n, games=a.heuristic, tables=a.tables
                )
                row = dict(v.to_dict(), seconds=round(time.perf_counter() - t0, 1))
                print(json.dumps(row), flush=True)
    print(json.dumps({"dicesolver": ds.__version__}))


if __name__ == "__main__":
    main()
