"""Issue 39 figures: CPU seconds of the N-player final-round table (nplayer_game.final_rows)
three ways on the same keys:

  per key  one final_round.solve_final_round per key, every later player solved per key,
           the leader rows by whole turns (before the suffixes were shared)
  shared   each suffix of the others' scores solved once, the leader rows by whole turns
  starts   shared, the leader rows by their start values where that pays
           (final_round._leader_starts: optional hot dice, or whole turns too large): now

and how far each table is from the one per key.

A case PLAYERS@TARGET takes every key; PLAYERS@TARGET:N about N keys as the cluster groups
them (cluster.FINAL_KEYS keys a task in suffix order: whole tasks, spread evenly over the
order), the whole table's CPU time then estimated from the keys' average.  CPU time
(time.process_time), not wall time: other jobs may share the machine.

Run: python bench/bench_final_round.py [PRESET] [CASE ...]
(default: farkle 4@1000 4@2000:200 3@10000:100)"""

import sys
import time

import numpy as np

from dicesolver import cluster, rules
from dicesolver.objectives import final_round as FR
from dicesolver.objectives import nplayer_game as NG
from dicesolver.objectives.final_round import solve_final_round
from dicesolver.store import Store
from dicesolver.tables import Tables


def per_key(model, R, D, keys):
    """The table as before: one solve_final_round per key."""
    u = model.rules.unit
    out = np.zeros((len(keys), R + D + 1, keys.shape[1] + 1))
    for i, key in enumerate(keys):
        lead = int(key.max()) + 1
        scores = [int(x) * u for x in key]
        out[i, lead:] = solve_final_round(
            model, lead * u, 1, scores, D, spread=R + D - lead
        ).by_leader
    return out


def cluster_slice(keys, n):
    """About n keys as the cluster's tasks take them: whole tasks of FINAL_KEYS keys in
    suffix order, spread evenly over the tasks."""
    order = NG.suffix_order(keys)
    size = cluster.FINAL_KEYS
    tasks = -(-len(keys) // size)
    pick = np.unique(np.linspace(0, tasks - 1, max(1, min(tasks, -(-n // size)))).astype(int))
    return np.concatenate([order[t * size : (t + 1) * size] for t in pick])


def cpu(f, *args):
    t = time.process_time()
    out = f(*args)
    return out, time.process_time() - t


def case(preset, spec):
    players, _, rest = spec.partition("@")
    target, _, n = rest.partition(":")
    N = int(players)
    rs = rules.load(preset).aimed(int(target))
    tab = Tables(rs, Store.resolve())
    R, D, model = rs.reach_units(), tab.reach_bound, tab.model
    keys = NG.final_keys(rs, R, N)
    sel = keys if not n else keys[cluster_slice(keys, int(n))]
    after, t_after = cpu(NG.final_rows, model, R, D, sel)
    starts, FR._leader_starts = FR._leader_starts, lambda *a: None
    try:
        shared, t_shared = cpu(NG.final_rows, model, R, D, sel)
    finally:
        FR._leader_starts = starts
    before, t_before = cpu(per_key, model, R, D, sel)

    def off(t):
        return "same bits" if np.array_equal(before, t) else f"{np.abs(before - t).max():.1e} off"

    scale = len(keys) / len(sel)
    whole = "" if len(sel) == len(keys) else f" (whole table of {len(keys)} keys, est.)"
    print(
        f"{preset} {N} players to {target} (R {R}, D {D}), {len(sel)} of {len(keys)} keys, "
        f"s CPU{whole}: per key {t_before * scale:.1f}, shared {t_shared * scale:.1f} "
        f"({off(shared)}), starts {t_after * scale:.1f} ({off(after)}; "
        f"{t_after / t_shared:.2f}x shared)",
        flush=True,
    )


def main():
    args = sys.argv[1:]
    preset = args.pop(0) if args and "@" not in args[0] else "farkle"
    for spec in args or ["4@1000", "4@2000:200", "3@10000:100"]:
        case(preset, spec)


if __name__ == "__main__":
    main()
