"""The two-player table (duel.py) in the store: one file per layer (objective
yahtzee-duel-S<s>), like the threshold tables' levels: store.py writes each atomically with
the SHA-256 of the whole file, a read checks it whole and against the layout the rules give
(rows and lengths), and a build resumes from the deepest layer stored.

Why not the N-player Zilch game's Zarr table (layer_store.py) and its Dask solve
(cluster.py): that table's layout is fixed to score tuples (R^N states, N chances each, the
sums of scores as layers, a final-round table); the duel's layers are pairs of sheets with
a vector of score differences each, of varying length.  The rule files the duel fits (a
table of at most MAX_BYTES) solve in seconds to minutes in one process, where a cluster's
start alone takes seconds; docs/scaling.md says what the whole game would need.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import InputError
from ..limits import memory
from ..limits import size as nbytes
from ..progress import Progress
from ..store import Arrays, Store
from . import duel as D
from .yahtzee_rules import YahtzeeRules

MAX_BYTES = 1 << 30  # the largest two-player table solved (on disk; two layers in memory)
SECONDS_PER_ENTRY = 5e-6  # measured: a four-box rule file, C kernel, two threads


def objective(s: int) -> str:
    return f"yahtzee-duel-S{s}"


def check_size(rules: YahtzeeRules) -> D.Size:
    """The table's size; InputError (one line) where it is too large to solve here."""
    sz = D.size(rules)
    if sz.bytes > MAX_BYTES or 2 * sz.peak_bytes > memory():
        raise InputError(
            f"rules {rules.name}: the exact two-player game has {sz.pairs:,} pairs of sheets "
            f"and {sz.entries:,} states with the score difference ({nbytes(sz.bytes)}), more "
            f"than a solve here keeps ({nbytes(MAX_BYTES)}); rule files of about five boxes "
            "fit (docs/scaling.md, two-player Yahtzee)",
            "rules",
        )
    return sz


def estimate(sz: D.Size) -> str:
    from .solve import seconds

    return seconds(sz.entries * SECONDS_PER_ENTRY + 1)


def _stored(rules: YahtzeeRules, store: Store, s: int) -> np.ndarray | None:
    got = store.load(rules.name, rules.digest(), objective(s), {"layer": s})
    if got is None:
        return None
    data = got[1].get("data")
    n = D.Layout(rules, s).entries
    if data is None or data.shape != (n,) or data.dtype != np.float64:
        return None
    return data


def layer(
    rules: YahtzeeRules, store: Store, s: int, step: Callable[[int], None] | None = None
) -> np.ndarray:
    """Layer s, stored or solved: the layers from the deepest one stored (or the full
    sheets) back to s are solved and stored one by one; step(layers solved) after each."""
    top = 2 * rules.n_boxes
    if s >= top:
        return D.terminal(rules)
    got = _stored(rules, store, s)
    if got is not None:
        return got
    check_size(rules)
    deep, nxt = s + 1, None
    while deep < top and (nxt := _stored(rules, store, deep)) is None:
        deep += 1
    done = nxt if nxt is not None else D.terminal(rules)
    run = D.kernel(rules)
    for k in range(deep - 1, s - 1, -1):
        meta = {"rules_name": rules.name, "layer": k}

        def build(prev: np.ndarray = done, k: int = k) -> tuple[dict, Arrays]:
            return meta, {"data": D.solve_layer(rules, k, prev, run)}

        done = store.cached(rules.name, rules.digest(), objective(k), build, meta)[1]["data"]
        if step:
            step(deep - k)
    return done


def layers_missing(rules: YahtzeeRules, store: Store, s: int) -> int:
    digest = rules.digest()
    return sum(
        not store.find(rules.name, digest, objective(k)).exists()
        for k in range(s, 2 * rules.n_boxes)
    )


def built_layer(rules: YahtzeeRules, store: Store, s: int, progress: Progress | None) -> np.ndarray:
    """layer(), its build (where layers are missing) reported to progress."""
    from .solitaire import reported

    todo = layers_missing(rules, store, s)
    if todo == 0 or progress is None:
        return layer(rules, store, s)
    sz = check_size(rules)
    label = (
        f"solving the two-player game of {rules.name} ({sz.pairs:,} pairs of sheets, "
        f"{nbytes(sz.bytes)}, about {estimate(sz)})"
    )
    return reported(progress, label, todo, lambda step: layer(rules, store, s, step))
