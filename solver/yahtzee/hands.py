"""n dice (five: the 252 roll outcomes and the 462 keeps, sub-multisets of 0..5 dice), with
the index arrays the widget walks: a keep plus one die, and a keep minus one die."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement

import numpy as np

from ..outcomes.dice import outcomes

DICE = 5


@dataclass(frozen=True, eq=False)
class KeepGraph:
    counts: np.ndarray  # (K, 6) counts of each keep, sizes 0..5 in order
    size: np.ndarray  # (K,)
    add: np.ndarray  # (K, 6) keep + one die of face f (-1 when the keep has all dice)
    remove: np.ndarray  # (K, 6) keep - one die of face f (-1 when there is none)
    roll_keep: np.ndarray  # (hands,) the keep index of each outcome of all the dice
    roll_counts: np.ndarray  # (hands, 6)
    roll_prob: np.ndarray  # (hands,)
    size_start: np.ndarray  # (n + 2,) keeps of size j are [size_start[j], size_start[j+1])


@lru_cache(maxsize=6)
def keep_graph(n: int = DICE) -> KeepGraph:
    counts = []
    for j in range(n + 1):
        for combo in combinations_with_replacement(range(6), j):
            counts.append(tuple(combo.count(f) for f in range(6)))
    index = {c: i for i, c in enumerate(counts)}
    K = len(counts)
    add = np.full((K, 6), -1, np.int64)
    remove = np.full((K, 6), -1, np.int64)
    for i, c in enumerate(counts):
        for f in range(6):
            if sum(c) < n:
                add[i, f] = index[c[:f] + (c[f] + 1,) + c[f + 1 :]]
            if c[f]:
                remove[i, f] = index[c[:f] + (c[f] - 1,) + c[f + 1 :]]
    outs = outcomes(n)
    roll_counts = np.array([o.counts for o in outs], np.int64)
    roll_keep = np.array([index[o.counts] for o in outs], np.int64)
    roll_prob = np.array([float(o.prob) for o in outs])
    sizes = np.array([sum(c) for c in counts], np.int64)
    size_start = np.searchsorted(sizes, np.arange(n + 2))
    return KeepGraph(
        np.array(counts, np.int64),
        sizes,
        add,
        remove,
        roll_keep,
        roll_counts,
        roll_prob,
        size_start,
    )
