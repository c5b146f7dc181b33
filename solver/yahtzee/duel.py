"""Two-player Yahtzee solved exactly (issue 37, item 4): both sheets and the score difference
as the state, the mover's chance of winning (a tie counts half) under optimal play by both.

  V(a, b)(d)   the mover's largest P(win), the mover's sheet a, the other's b, d = the
               mover's score - the other's
A turn is the threshold widget's turn (threshold_widget.py, _threshold.c) over the vector
t = -d: rolls average, keeps and boxes take the elementwise max, and scoring g points leads
to the other player's turn at (b, a'), where the other's difference is -(d + g) = t - g:
  V(a, b)(d) = turn over boxes of 1 - V(b, a')(-(d + g))
With both sheets full the game is over: 1, 1/2 or 0 by the sign of d.

Layers: s = boxes filled on both sheets (a game alternates, so the mover has floor(s / 2)
and the other ceil(s / 2)); layer s needs only layer s + 1, solved from the full sheets (s
= 2n) back to the empty ones.  Row (b, a) of a layer (the other's sheet outer, the mover's
inner) holds t = -max_points(b) .. max_points(a): below, the mover wins for sure (1); past
it, loses for sure (0).  The kernel is the threshold tables' own, run once per sheet b of
the other player: its "next level" is the vectors Q(b, a')(x) = 1 - V(b, a')(x) over x = the
next mover's difference, the reversed complement of layer s + 1's rows (b, a') (every lo
the same, -max_points(b)).  So one widget pass gives every score difference at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from .solve import level_states, reachable_upper, table_shape
from .threshold import Kernel, kernel, max_points
from .yahtzee_rules import YahtzeeRules


@dataclass(frozen=True, eq=False)
class Layout:
    """Layer s's rows: the other player's sheets (outer) by the mover's (inner)."""

    rules: YahtzeeRules
    s: int

    @cached_property
    def movers(self) -> np.ndarray:
        return level_states(self.rules, self.s // 2, reachable_upper(self.rules))

    @cached_property
    def others(self) -> np.ndarray:
        return level_states(self.rules, (self.s + 1) // 2, reachable_upper(self.rules))

    @cached_property
    def most_movers(self) -> np.ndarray:
        return max_points(self.rules, self.movers)

    @cached_property
    def most_others(self) -> np.ndarray:
        return max_points(self.rules, self.others)

    @cached_property
    def off(self) -> np.ndarray:
        """(len(others) * len(movers) + 1,): row (i, j) (other i, mover j) at i * n + j."""
        n = self.most_others[:, None] + self.most_movers[None, :] + 1
        return np.concatenate([[0], np.cumsum(n.ravel())]).astype(np.int64)

    @property
    def entries(self) -> int:
        return int(self.off[-1])

    def index(self, states: np.ndarray) -> np.ndarray:
        """index[mask, up, yf]: each state's row among `states` (-1: none)."""
        idx = np.full(table_shape(self.rules), -1, np.int64)
        idx[states[:, 0], states[:, 1], states[:, 2]] = np.arange(len(states))
        return idx

    def row(self, mover: tuple[int, int, int], other: tuple[int, int, int]) -> int:
        """The row of (mover's sheet, other's sheet); ValueError where either is not one."""
        j = _find(self.movers, mover)
        i = _find(self.others, other)
        return i * len(self.movers) + j


@lru_cache(maxsize=64)
def layout(rules: YahtzeeRules, s: int) -> Layout:
    """Layout(rules, s), kept: its arrays built once (the evaluation and the simulated games
    ask for a layer's many times)."""
    return Layout(rules, s)


def _find(states: np.ndarray, state: tuple[int, int, int]) -> int:
    hit = np.nonzero((states == np.array(state)).all(axis=1))[0]
    if len(hit) == 0:
        raise ValueError(f"no state {state}")
    return int(hit[0])


def layer_count(rules: YahtzeeRules) -> int:
    """Layers 0 .. 2n (2n: both sheets full)."""
    return 2 * rules.n_boxes + 1


def terminal(rules: YahtzeeRules) -> np.ndarray:
    """Both sheets full: every row is t = 0 alone (d = 0: a tie, 1/2)."""
    return np.full(Layout(rules, 2 * rules.n_boxes).entries, 0.5)


def complements(nxt: Layout, data: np.ndarray, i: int) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, values) of Q(b, a')(x) = 1 - V(b, a')(x) for every sheet a' of the next
    layer's others, b its mover i: its rows (a', b) reversed and complemented, so that x =
    -max_points(b) .. max_points(a') (the reversed complement of t = -x)."""
    n_mov = len(nxt.movers)
    rows = np.arange(len(nxt.others)) * n_mov + i
    start, stop = nxt.off[rows], nxt.off[rows + 1]
    lengths = stop - start
    q_off = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    within = np.arange(int(q_off[-1])) - np.repeat(q_off[:-1], lengths)
    src = np.repeat(stop - 1, lengths) - within
    return q_off, 1.0 - data[src]


def solve_part(
    rules: YahtzeeRules, s: int, nxt_data: np.ndarray, others: range, run: Kernel | None = None
) -> np.ndarray:
    """Layer s's rows of the others `others` (a range of their index), from layer s + 1's
    values: one kernel call per other sheet b."""
    lay, nxt = Layout(rules, s), Layout(rules, s + 1)
    run = run or kernel(rules)
    n_mov = len(lay.movers)
    a, b = int(lay.off[others.start * n_mov]), int(lay.off[others.stop * n_mov])
    out = np.empty(b - a)
    # the next layer's mover is this layer's other: b is mover i there
    nxt_index = nxt.index(nxt.others)
    for i in others:
        q_off, q = complements(nxt, nxt_data, i)
        off = lay.off[i * n_mov : (i + 1) * n_mov + 1]
        block = np.empty(int(off[-1] - off[0]))
        lo = -int(lay.most_others[i])
        run(lay.movers, block, off - off[0], nxt_index, q_off, q, lo)
        out[int(off[0]) - a : int(off[-1]) - a] = block
    return out


def solve_layer(
    rules: YahtzeeRules, s: int, nxt_data: np.ndarray, run: Kernel | None = None
) -> np.ndarray:
    """Layer s whole, in this process."""
    return solve_part(rules, s, nxt_data, range(len(Layout(rules, s).others)), run)


def solve(rules: YahtzeeRules, step: Callable[[int], None] | None = None) -> list[np.ndarray]:
    """Every layer in memory (small rule files: the tests and the bench), top first back to
    0; layers[s] is layer s."""
    run = kernel(rules)
    top = 2 * rules.n_boxes
    layers: list[np.ndarray] = [np.empty(0)] * (top + 1)
    layers[top] = terminal(rules)
    for s in range(top - 1, -1, -1):
        layers[s] = solve_layer(rules, s, layers[s + 1], run)
        if step:
            step(top - s)
    return layers


def value(lay: Layout, data: np.ndarray, row: int, d: int) -> float:
    """V at score difference d of a layer's row (1 / 0 beyond its range)."""
    i = row // len(lay.movers)
    t, lo = -d, -int(lay.most_others[i])
    if t < lo:
        return 1.0
    a, b = int(lay.off[row]), int(lay.off[row + 1])
    return float(data[a + t - lo]) if t - lo < b - a else 0.0


# ---- size -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Size:
    """The whole two-player table: its pairs of sheets, its entries (pairs x score
    differences, float64 each) and its largest two adjacent layers (held at once)."""

    sheets: int  # sheet states between turns, every level (the full sheet too)
    pairs: int
    entries: int
    peak_entries: int

    @property
    def bytes(self) -> int:
        return 8 * self.entries

    @property
    def peak_bytes(self) -> int:
        return 8 * self.peak_entries


def size(rules: YahtzeeRules) -> Size:
    """Counted without building a layer (sums over the levels' states)."""
    ok = reachable_upper(rules)
    levels = [level_states(rules, k, ok) for k in range(rules.n_boxes + 1)]
    most = [max_points(rules, s) for s in levels]
    pairs, per = 0, []
    for s in range(2 * rules.n_boxes + 1):
        m, o = most[s // 2], most[(s + 1) // 2]
        pairs += len(m) * len(o)
        per.append(len(o) * int(m.sum()) + len(m) * int(o.sum()) + len(m) * len(o))
    peak = max(per[s] + per[s + 1] for s in range(len(per) - 1))
    return Size(sum(len(s) for s in levels), pairs, sum(per), peak)
