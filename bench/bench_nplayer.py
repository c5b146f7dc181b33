"""Issue 15 figures: the game among N players on Dask (objectives/nplayer_game.py,
cluster.py, layer_store.py) — wall time of the final-round table and of the score sums,
states per second per worker against the two-player solver's, peak memory of every
process, the table's size on disk, and each seat's chance from the start.

Run: python bench/bench_nplayer.py PRESET TARGET PLAYERS WORKERS [FOLDER]
(FOLDER: where the table goes, default a new temporary folder; an existing partial table
there is resumed)"""

import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from dicesolver import cluster, rules
from dicesolver.layer_store import LayerStore, layer_sizes, nplayer_meta
from dicesolver.objectives import nplayer_game as NG
from dicesolver.objectives.game_run import GameRun
from dicesolver.objectives.plain_game import solve_game
from dicesolver.store import Store
from dicesolver.tables import Tables


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main():
    name, target, N, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    folder = Path(sys.argv[5] if len(sys.argv) > 5 else tempfile.mkdtemp())
    rs = rules.load(name)
    NG.check_supported(rs, N)
    tab = Tables(rs, Store(folder))
    R = rs.reach_units(target)
    D = 0 if rs.end == "instant" else tab.reach_bound
    states = int(layer_sizes(R, N).sum())
    meta = nplayer_meta(rs, N, target, R, D, cluster.BATCH)  # (the table zilch game builds)
    store = LayerStore(folder / f"bench-{name}-{target}-{N}.zarr", meta)
    t0 = time.perf_counter()
    g2 = solve_game(GameRun(tab.model, D, target))
    two = time.perf_counter() - t0
    print(
        f"{name} to {target}: two-player game {two:.1f} s ({R * R / two:.0f} states/s, "
        f"first player {g2.W[0, 0]:.9f})",
        flush=True,
    )
    marks = {}

    def progress(sigma):
        if sigma == N * (R - 1) or sigma % 50 == 0:
            marks[sigma] = time.perf_counter()
            print(f"  sum {sigma}: {marks[sigma] - t0:.0f} s", flush=True)

    t0 = time.perf_counter()
    with cluster.client_for(workers) as client:
        cluster.solve_nplayer(GameRun(tab.model, D, progress=progress), N, store, client)
        peaks = client.run(_peak_mb)
    wall = time.perf_counter() - t0
    first = marks.get(N * (R - 1), t0) - t0  # the final-round table and the top sum
    values, keys, rel = store.read()
    fin = NG.FinalTable.of(rs, R, D, keys, rel)
    g = NG.NPlayerGame.from_values(tab.model, target, N, R, values, fin)
    disk = sum(f.stat().st_size for f in store.path.rglob("*") if f.is_file())
    print(
        f"{N} players, {name} to {target}, {workers} worker(s): {states} states, "
        f"{wall:.1f} s wall (final-round table and top sum {first:.1f} s); "
        f"{states / (wall - first) / workers:.0f} states/s per worker "
        f"(two-player solver in one process: {R * R / two:.0f})"
    )
    print(
        f"  peak memory: client {_peak_mb():.0f} MB, workers "
        + ", ".join(f"{v:.0f} MB" for v in peaks.values())
        + f"; all {_peak_mb() + sum(peaks.values()):.0f} MB"
    )
    print(
        f"  table on disk: {disk / 2**20:.1f} MB ({store.path}); in memory "
        f"{g.V.nbytes / 2**20:.0f} MB"
    )
    print(f"  from 0s: {np.array2string(g.p_win([0] * N), precision=9)}")


if __name__ == "__main__":
    main()
