"""Issue 39 figures: the approximate P(win) among N players (objectives/approx_game.py)
against the exact table (both stored in FOLDER: `zilch game --players N` and the two-player
`zilch game`, same rules and target).

Over every state optimal play reaches from the start (each weighted by its expected visits
in a game; states visited less than FLOOR times a game left out, their share said) and over
a uniform sample of states: the largest and the mean P(win) error (the mover's, and every
seat's), the share of decisions (roll/bank, set-aside) equal to the exact table's, and the
loss of playing the approximation against exact play in points of a percent (the review's
measure: per game with every player following it, and per player).  Then the time of a
cold `zilch advise` by the approximation (a new process, its tables stored) at the start.

Where the states reached are too many to take all (three players to 10000: millions),
GAMES=N estimates the reached figures from N games played exactly from the start (each
state met measured once; approx_measure.sampled, which agrees with the full pass at farkle
to 1000 and 2000: tests/test_approx_pwin.py), the loss per game with its standard error.

Run: python bench/bench_approx.py PRESET TARGET PLAYERS FOLDER [UNIFORM [FLOOR]]
(UNIFORM: states in the uniform sample, default 2000; FLOOR default 1e-6; GAMES=N in the
environment: the simulated games instead of every reached state)"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dicesolver import variants
from dicesolver.answers.inputs import tables_of
from dicesolver.answers.position_options import aimed
from dicesolver.play.approx_measure import reached, sampled, uniform
from dicesolver.rules import load


def _cold(preset: str, target: int, players: int, folder: str) -> float:
    """Wall seconds of a new `zilch advise` process at the start by the approximation: in a
    folder holding the two-player table (and the reach bound its build stores) only."""
    alone = tempfile.mkdtemp(prefix="approx-cold-")
    for f in [*Path(folder).glob(f"*-game{target}.dst"), *Path(folder).glob("*-reach.dst")]:
        shutil.copy(f, alone)
    others = ",".join(["0"] * (players - 1))
    cmd = ["zilch", "advise", "--rules", preset, "--target", str(target), "--score", "0"]
    cmd += ["--opponents", others, "--tables", alone, "--json"]
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    took = time.perf_counter() - t
    got = json.loads(out.stdout)
    print(f"  cold advise: {took:.2f} s, exact={got.get('exact')}, method={got.get('method')}")
    shutil.rmtree(alone, ignore_errors=True)
    return took


def main() -> None:
    preset, target, players, folder = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    count = int(sys.argv[5]) if len(sys.argv) > 5 else 2000
    floor = float(sys.argv[6]) if len(sys.argv) > 6 else 1e-6
    rs = aimed(load(preset), target)
    tab = tables_of(rs, folder)
    exact = tab.game_table(variants.of(rs, players).key(players))
    pair = tab.game_table(variants.of(rs, 2).key(2))
    if exact is None or pair is None:
        sys.exit(f"{folder}: build the {players}-player and the two-player tables first")
    game, W = exact.game, pair.game.W  # type: ignore[attr-defined]
    print(f"{preset} to {target}, {players} players (load {os.getloadavg()[0]:.1f})")
    t = time.perf_counter()
    games = int(os.environ.get("GAMES", "0"))
    if games:
        s = sampled(game, W, games)
        print(
            f"{games} games played exactly from the start ({time.perf_counter() - t:.0f} s; "
            f"states met {s.totals.states}; loss per game's standard error {s.loss_se:.4f})"
        )
        print(json.dumps(s.totals.figures(players), indent=1))
    else:
        r = reached(game, W, floor=floor)
        print(
            f"reached from the start ({time.perf_counter() - t:.0f} s; turns a game kept: "
            f"{r.weight:.3f})"
        )
        print(json.dumps(r.figures(players), indent=1))
    t = time.perf_counter()
    u = uniform(game, W, count)
    print(f"uniform sample ({time.perf_counter() - t:.0f} s)")
    figs = u.figures(players)
    for k in ("loss_per_game", "loss_per_player"):  # (a game's: the reached states only)
        figs.pop(k)
    print(json.dumps(figs, indent=1))
    _cold(preset, target, players, folder)
    print(f"load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
