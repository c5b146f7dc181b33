"""Every state's distribution of points still to come under score-blind play, by one
backward pass over the levels of boxes filled (docs/method.md, "The heuristic, by
simulation"): what final_scores.to_come gives for one start by a forward pass, for all of
them at once.  Simulated games against players who play for the expected score look their
sheets up here instead of running a forward pass per sheet (tens of seconds each early in
a game of `yahtzee`), and so do the seats of `yahtzee play` and the review of a log once
it is stored (stored: built once, checksummed; read back as a memory map).

A state's segment holds P(to come = x) for x = 0 .. its bound (widths): the open boxes at
their most, the upper bonus while unpaid, a Yahtzee bonus for each box left after the
Yahtzee box (yatzy: 1.4 million states, 2.3 GB; yahtzee: 0.5 million, 2.4 GB).  A full
sheet's segment is [1].  The policy is the table's (theta 0: expected-score play), its ties
broken as the forward pass breaks them, so both give the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..progress import Progress
from ..store import Arrays, Store
from .box_scores import tables
from .final_scores import State
from .solitaire import reported
from .solve import level_states, reachable_upper, rule_arrays, table_shape
from .yahtzee_rules import YahtzeeRules

OBJECTIVE = "yahtzee-to-come"  # (expected-score play's; other thetas are not stored)
LAYOUT = 1  # the layout below (index, off, widths' bound): a table of another is built again


@dataclass(frozen=True, eq=False)
class ToCome:
    index: np.ndarray  # [mask, up, yf] -> the state's row, -1 where not reachable
    off: np.ndarray  # the row's segment of data: off[row] .. off[row + 1]
    data: np.ndarray  # the segments, P(points to come = x)

    def of(self, state: State) -> np.ndarray:
        """p[x] = P(points still to come from `state` = x)."""
        j = int(self.index[state])
        if j < 0:
            raise KeyError(f"no game reaches the state {state}")
        return np.trim_zeros(self.data[self.off[j] : self.off[j + 1]], "b")


def widths(rules: YahtzeeRules, filled: int, states: np.ndarray) -> np.ndarray:
    """1 + the most points a state still can score: its open boxes at their most, the upper
    bonus unless paid, and a Yahtzee bonus for every box after the Yahtzee box's turn."""
    st = tables(rules)
    most = np.maximum(st.base.max(axis=1), st.joker)
    bits = (states[:, :1] >> np.arange(rules.n_boxes)) & 1
    open_most = (1 - bits) @ most
    bonus = np.where(states[:, 1] < rules.threshold, rules.upper_bonus, 0)
    left = rules.n_boxes - filled
    yb = rules.yahtzee_box
    if yb >= 0 and rules.yahtzee_bonus:
        done = (states[:, 0] >> yb) & 1
        extra = rules.yahtzee_bonus * np.where(done == 1, states[:, 2] * left, max(left - 1, 0))
    else:
        extra = np.zeros(len(states), np.int64)
    return (open_most + bonus + extra + 1).astype(np.int64)


def build(
    rules: YahtzeeRules,
    table: np.ndarray,
    theta: float = 0.0,
    step: Callable[[int], None] | None = None,
) -> ToCome:
    """The points to come of every reachable state under the policy of `table` (the game
    table at theta 0, else the utility table of theta): from the full sheet back."""
    from .distribution import check_size
    from .utility_numba import jit_level_back

    check_size(rules)  # (maxi-yatzy: refused in one line, as the forward pass is)
    nb = rules.n_boxes
    ok = reachable_upper(rules)
    levels = [level_states(rules, k, ok) for k in range(nb + 1)]
    index = np.full(table_shape(rules), -1, np.int64)
    sizes = []
    row = 0
    for k, S in enumerate(levels):
        index[S[:, 0], S[:, 1], S[:, 2]] = row + np.arange(len(S))
        sizes.append(widths(rules, k, S))
        row += len(S)
    off = np.concatenate([[0], np.cumsum(np.concatenate(sizes))]).astype(np.int64)
    data = np.zeros(int(off[-1]))
    full = levels[nb]
    data[off[index[full[:, 0], full[:, 1], full[:, 2]]]] = 1.0  # nothing left to come
    r = rule_arrays(rules)
    for k in range(nb - 1, -1, -1):
        bad = np.zeros(len(levels[k]), np.int64)
        jit_level_back(levels[k], index, off, data, table, r, float(theta), bad)
        if bad.any():
            raise AssertionError(
                "a state's points to come outgrew its segment (widths) or left the levels"
            )
        if step:
            step(nb - k)
    return ToCome(index, off, data)


def stored(
    rules: YahtzeeRules,
    store: Store,
    table: np.ndarray,
    progress: Progress | None = None,
    missing: str = "build",
) -> ToCome | None:
    """Expected-score play's table (`table` the game table) from the store, or built and
    stored (missing "build", reported to progress), or None (missing "none").  InputError
    where the rules have too many states (distribution.check_size)."""

    def make() -> tuple[dict, Arrays]:
        label = f"the points to come of {rules.name} from every sheet (first use, about 30 s)"
        tc = reported(progress, label, rules.n_boxes, lambda step: build(rules, table, 0, step))
        return {"rules_name": rules.name}, {"index": tc.index, "off": tc.off, "data": tc.data}

    def sound(h: dict, a: Arrays) -> bool:
        index, off, data = a.get("index"), a.get("off"), a.get("data")
        if index is None or off is None or data is None:
            return False
        return (
            index.shape == table_shape(rules)
            and index.dtype == off.dtype == np.int64
            and data.dtype == np.float64
            and len(off) == int((index >= 0).sum()) + 1
            and int(index.max()) == len(off) - 2
            and int(off[0]) == 0
            and bool((np.diff(off) > 0).all())
            and int(off[-1]) == len(data)
        )

    expect = {"to_come_layout": LAYOUT}
    if missing == "build":
        _, a = store.cached(rules.name, rules.digest(), OBJECTIVE, make, expect, sound)
    else:
        got = store.load(rules.name, rules.digest(), OBJECTIVE, expect, sound)
        if got is None:
            return None
        a = got[1]
    return ToCome(a["index"], a["off"], a["data"])
