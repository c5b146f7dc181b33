"""Playing to reach (or beat) a score, exactly: the threshold tables of the Yahtzee family.

For every state between turns (boxes filled, upper total capped at the threshold, Yahtzee
flag) and every number of points still needed t, the largest chance of making them
(docs/method.md, "Reaching a score"):
  "atleast"  W(s, t) = max P(points to come >= t); the full sheet: 1 if t <= 0, else 0
  "beat"     W(s, t) = max P(to come > t) + P(to come = t) / 2 (a tie counts half); the full
             sheet: 1 if t < 0, 1/2 if t = 0, else 0
A state's vector holds t = lo .. lo + n - 1 (lo = 1 for atleast, 0 for beat): below lo the
value is 1, past max_points(s) (the most points the state can still make) it is 0.  The
levels (boxes filled) are solved from the full sheet back, every state of a level at once
(_threshold.c on every core; numba where it was not built): one widget pass per state gives
every t, each choice the elementwise max over t.

Stored one file per level (objective yahtzee-atleast-L<k> / yahtzee-beat-L<k>): the level's
states, offsets and vectors in float64, with the digest of every MiB of them in the header
(threshold_store.py); a build resumes from the levels already stored, and a query maps only
the level it reads and checks only the blocks of it that it reads (state_level, next_level).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..progress import Progress
from ..store import Arrays, Store
from . import threshold_store as TS
from .box_scores import tables
from .solve import (
    keep_order,
    level_states,
    reachable_upper,
    rule_arrays,
    table_shape,
    threads,
    upper_mask,
)
from .yahtzee_rules import YahtzeeRules

KINDS = {"atleast": 1, "beat": 0}  # the kind of table -> lo, its first t stored
BLOCK = 64  # t values the numba fallback works out at once

# level(states, data, off, index, next_off, next_data, lo): a level's vectors in place
Kernel = Callable[
    [np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int], None
]


@dataclass(frozen=True, eq=False)
class Level:
    """The vectors of one level: state row i's values at t = lo .. at data[off[i]:off[i+1]]."""

    filled: int
    lo: int
    states: np.ndarray  # (n, 3) int64: mask, capped upper total, Yahtzee flag
    off: np.ndarray  # (n + 1,) int64
    data: np.ndarray  # float64
    blocks: TS.Blocks | None = None  # mapped for a query: the blocks' digests, checked as read

    def index(self, rules: YahtzeeRules) -> np.ndarray:
        """index[mask, up, yf]: each state's row (-1: not in this level)."""
        idx = np.full(table_shape(rules), -1, np.int64)
        s = self.states
        idx[s[:, 0], s[:, 1], s[:, 2]] = np.arange(len(s))
        return idx

    def at(self, row: int, t: int) -> float:
        if t < self.lo:
            return 1.0
        i = t - self.lo
        return float(self.data[self.off[row] + i]) if i < self.off[row + 1] - self.off[row] else 0.0


def max_points(rules: YahtzeeRules, states: np.ndarray) -> np.ndarray:
    """For each state (mask, up, yf) a bound on the points still to come: every open box at
    its most (joker points too), the upper bonus where the open upper boxes can still reach
    it, and a Yahtzee bonus on every turn after the Yahtzee box holds its points.  At the
    empty sheet it is the rules' highest score (yahtzee: 1575)."""
    st = tables(rules)
    most = np.maximum(st.base.max(axis=1), st.joker)
    opened = 1 - ((states[:, :1] >> np.arange(rules.n_boxes)) & 1)
    upper = st.upper_face > 0
    top = opened[:, upper] @ most[upper]
    reach = (states[:, 1] < rules.threshold) & (states[:, 1] + top >= rules.threshold)
    total = opened @ most + np.where(reach, rules.upper_bonus, 0)
    yb = rules.yahtzee_box
    if yb >= 0 and rules.yahtzee_bonus > 0:
        n_open = opened.sum(axis=1)
        turns = np.where(opened[:, yb] == 1, n_open - 1, np.where(states[:, 2] == 1, n_open, 0))
        total = total + rules.yahtzee_bonus * turns
    return total.astype(np.int64)


def highest(rules: YahtzeeRules) -> int:
    """The rules' highest final score (max_points of the empty sheet)."""
    return int(max_points(rules, np.zeros((1, 3), np.int64))[0])


def layout(rules: YahtzeeRules, filled: int, lo: int) -> tuple[np.ndarray, np.ndarray]:
    """(states, off) of a level: each state's vector t = lo .. max_points."""
    states = level_states(rules, filled, reachable_upper(rules))
    n = np.maximum(max_points(rules, states) - lo + 1, 0)
    return states, np.concatenate([[0], np.cumsum(n)]).astype(np.int64)


def terminal(rules: YahtzeeRules, lo: int) -> Level:
    """The full sheet: nothing more to come (beat: 1/2 at t = 0, the tie)."""
    states, off = layout(rules, rules.n_boxes, lo)
    return Level(rules.n_boxes, lo, states, off, np.full(int(off[-1]), 0.5))


def compiled_level() -> Callable | None:
    """The C build of a level (_threshold.c, built by pip install), or None: numba then."""
    try:
        from . import _threshold
    except ImportError:
        return None
    return _threshold.level


def kernel(rules: YahtzeeRules) -> Kernel:
    """The level kernel: C on every core, else numba."""
    c_level = compiled_level()
    if c_level is None:
        from .threshold_numba import level

        r = rule_arrays(rules)
        return lambda s, d, o, i, no, nd, lo: level(s, d, o, i, no, nd, r, lo, BLOCK)
    rc, n = keep_order(rule_arrays(rules)), threads()
    return lambda s, d, o, i, no, nd, lo: c_level(s, d, o, i, no, nd, rc, lo, n)


def solve_level(rules: YahtzeeRules, filled: int, nxt: Level, run: Kernel) -> Level:
    """Level `filled` from the next one's vectors."""
    states, off = layout(rules, filled, nxt.lo)
    data = np.empty(int(off[-1]))
    run(states, data, off, nxt.index(rules), nxt.off, nxt.data, nxt.lo)
    return Level(filled, nxt.lo, states, off, data)


def solve(rules: YahtzeeRules, kind: str = "atleast") -> list[Level]:
    """Every level in memory (small rule files: the tests), from the full sheet back."""
    run = kernel(rules)
    levels = [terminal(rules, KINDS[kind])]
    for filled in range(rules.n_boxes - 1, -1, -1):
        levels.append(solve_level(rules, filled, levels[-1], run))
    return levels[::-1]


def objective(kind: str, filled: int) -> str:
    return f"yahtzee-{kind}-L{filled}"


def _arrays(level: Level) -> Arrays:
    return {"states": level.states, "off": level.off, "data": level.data}


def expect(lo: int) -> dict:
    """What a level file's header must say (beside its objective and rule-set hash): files
    of an older layout (without block digests) are rebuilt."""
    return {"lo": lo, "block_bytes": TS.BLOCK}


def _stored(rules: YahtzeeRules, store: Store, kind: str, filled: int) -> Level | None:
    """A level from the store, checked whole against the states and lengths it must have."""
    lo = KINDS[kind]
    got = store.load(rules.name, rules.digest(), objective(kind, filled), expect(lo))
    if got is None:
        return None
    a = got[1]
    states, off = layout(rules, filled, lo)
    sound = (
        a["states"].shape == states.shape
        and np.array_equal(a["states"], states)
        and np.array_equal(a["off"], off)
        and a["data"].shape == (int(off[-1]),)
        and a["data"].dtype == np.float64
    )
    return Level(filled, lo, a["states"], a["off"], a["data"]) if sound else None


def level(
    rules: YahtzeeRules,
    store: Store,
    kind: str,
    filled: int,
    step: Callable[[int], None] | None = None,
) -> Level:
    """Level `filled` of the table, stored or solved: the levels from the deepest one stored
    (or the full sheet) back to it are solved and stored one by one (a build stopped midway
    resumes there); step(levels solved) after each."""
    if filled >= rules.n_boxes:
        return terminal(rules, KINDS[kind])
    got = _stored(rules, store, kind, filled)
    if got is not None:
        return got
    deep, nxt = filled + 1, None
    while deep < rules.n_boxes and (nxt := _stored(rules, store, kind, deep)) is None:
        deep += 1
    done = nxt if nxt is not None else terminal(rules, KINDS[kind])
    run = kernel(rules)
    for k in range(deep - 1, filled - 1, -1):
        meta = dict(expect(done.lo), rules_name=rules.name, level=k)

        def build(prev: Level = done, k: int = k) -> tuple[dict, Arrays]:
            arrays = _arrays(solve_level(rules, k, prev, run))
            return dict(meta, blocks=TS.digests(arrays)), arrays

        _, a = store.cached(rules.name, rules.digest(), objective(kind, k), build, meta)
        done = Level(k, done.lo, a["states"], a["off"], a["data"])
        if step:
            step(deep - k)
    return done


def levels_missing(rules: YahtzeeRules, store: Store, kind: str) -> int:
    """Levels a query of the empty sheet would solve (0: all stored), by the files alone."""
    digest = rules.digest()
    return sum(
        not store.find(rules.name, digest, objective(kind, k)).exists()
        for k in range(rules.n_boxes)
    )


SECONDS_PER_ENTRY = 1.4e-6  # the widget's cost per entry (measured: yahtzee in C, 2 cores)


def open_sum(masks: np.ndarray, values: np.ndarray, bits: int = 10) -> np.ndarray:
    """For each mask the sum of values[b] over its open boxes b (bit b clear), by tables of
    `bits` boxes at a time (a few passes over the masks, not one per box)."""
    out = np.zeros(len(masks), np.int64)
    for lo in range(0, len(values), bits):
        part = values[lo : lo + bits].astype(np.int64)
        sub = np.arange(1 << len(part))
        table = ((1 - ((sub[:, None] >> np.arange(len(part))) & 1)) * part).sum(axis=1)
        out += table[(masks >> lo) & ((1 << len(part)) - 1)]
    return out


def level_sizes(rules: YahtzeeRules, lo: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(states, entries) of each level 0 .. n_boxes - 1: layout()'s rows and off[-1],
    counted per mask without making the states (a web page states a build's cost within a
    request: layout() of every level takes 85 s for maxi-yatzy, this a fraction of one).  A
    state's width is max_points - lo + 1, max_points a sum of parts by mask, upper total
    and flag, so each part is counted once per mask."""
    nb, st = rules.n_boxes, tables(rules)
    if rules.order == "forced":
        masks = np.array([(1 << k) - 1 for k in range(nb)], np.int64)
    else:
        masks = np.arange((1 << nb) - 1, dtype=np.int64)
    most = np.maximum(st.base.max(axis=1), st.joker).astype(np.int64)
    base = open_sum(masks, most)
    top = open_sum(masks, most * (st.upper_face > 0))
    n_open = open_sum(masks, np.ones(nb, np.int64))
    ok = reachable_upper(rules)
    T = rules.threshold
    cum = np.concatenate([np.zeros((len(ok), 1), np.int64), np.cumsum(ok, axis=1)], axis=1)
    um = upper_mask(rules, masks)
    n_ok = cum[um, T + 1]
    n_reach = cum[um, T] - cum[um, np.clip(T - top, 0, T)] if T > 0 else 0 * n_ok
    width = n_ok * (base + 1 - lo) + rules.upper_bonus * n_reach  # (yf = 0, no bonus)
    yb, bonus = rules.yahtzee_box, rules.yahtzee_bonus if rules.yahtzee_box >= 0 else 0
    y_open = (masks >> yb) & 1 == 0 if yb >= 0 else np.ones(len(masks), bool)
    states, entries = n_ok.copy(), width + np.where(y_open, bonus * n_ok * (n_open - 1), 0)
    if st.yahtzee_box >= 0:  # the Yahtzee box filled: a second state, yf = 1
        two = (masks >> st.yahtzee_box) & 1 == 1
        states += np.where(two, n_ok, 0)
        entries += np.where(two, width + bonus * n_ok * n_open, 0)
    level = nb - n_open
    return (
        np.bincount(level, states, minlength=nb).astype(np.int64),
        np.bincount(level, entries, minlength=nb).astype(np.int64),
    )


def build_cost(
    rules: YahtzeeRules, kind: str = "atleast", missing: list[int] | None = None
) -> tuple[float, float, float]:
    """(seconds, bytes of memory, bytes on disk) of building the levels `missing` (all by
    default) of the table: its entries times the widget's cost per entry; two levels and
    the state index in memory at once; each level's states, offsets and vectors on disk."""
    states, entries = level_sizes(rules, KINDS[kind])
    todo = list(range(rules.n_boxes)) if missing is None else missing
    per = 8.0 * entries + 32.0 * states  # float64 vectors; (mask, up, yf) + off in int64
    pair = np.append(per, 0.0)  # (the full sheet after the last level: one entry a state)
    memory = max((float(per[k] + pair[k + 1]) for k in todo), default=0.0)
    memory += 8.0 * float(np.prod(table_shape(rules)))
    seconds = float(entries[todo].sum()) * SECONDS_PER_ENTRY / threads() + 1
    return seconds, memory, float(per[todo].sum())


def estimate(rules: YahtzeeRules) -> str:
    """The whole build's time, roughly (build_cost)."""
    from .solve import seconds

    return seconds(build_cost(rules)[0])


def popcount(mask: int) -> int:
    return bin(mask).count("1")


def built_level(
    rules: YahtzeeRules, store: Store, kind: str, filled: int, progress: Progress | None
) -> Level:
    """level(), its build (where levels are missing) reported to progress."""
    from .solitaire import reported

    todo = sum(
        not store.find(rules.name, rules.digest(), objective(kind, k)).exists()
        for k in range(filled, rules.n_boxes)
    )
    if todo == 0 or progress is None:
        return level(rules, store, kind, filled)
    label = f"solving the {kind} table of {rules.name} (first use, about {estimate(rules)})"
    return reported(progress, label, todo, lambda step: level(rules, store, kind, filled, step))


def mapped(rules: YahtzeeRules, store: Store, kind: str, filled: int) -> Level | None:
    """Level `filled` mapped from its file for a query, its header, states and offsets
    checked (its vectors block by block as they are read: read_level); None where it is
    missing, stale or corrupt in those."""
    lo, name = KINDS[kind], objective(kind, filled)
    path = store.find(rules.name, rules.digest(), name)
    got = TS.open_level(path, dict(expect(lo), objective=name, rules_hash=rules.digest()))
    if got is None:
        return None
    _, a, blocks = got
    s = a["states"]
    if len(s) and ((s < 0).any() or (s.max(axis=0) >= np.array(table_shape(rules))).any()):
        return None
    return Level(filled, lo, s, a["off"], a["data"], blocks)


def read_level(
    rules: YahtzeeRules,
    store: Store,
    kind: str,
    filled: int,
    rows: Callable[[Level], np.ndarray],
    progress: Progress | None = None,
) -> Level:
    """Level `filled` for a query that reads the vectors of rows(level): mapped, only the
    blocks those lie in checked (a cold query reads a few MiB of a level of up to half a GB);
    where the file is missing, stale or a block is corrupt, the level is (re)built as
    built_level does (checked whole, from the deepest sound level)."""
    if filled >= rules.n_boxes:
        return terminal(rules, KINDS[kind])
    lv = mapped(rules, store, kind, filled)
    if lv is not None and lv.blocks is not None:
        r = rows(lv)
        if lv.blocks.check(lv.off[r], lv.off[r + 1]):
            return lv
    return built_level(rules, store, kind, filled, progress)


def row_of(lv: Level, state: tuple[int, int, int]) -> np.ndarray:
    """The state's row in its level (none: not a state of it)."""
    return np.nonzero((lv.states == np.array(state)).all(axis=1))[0][:1]


def state_level(
    rules: YahtzeeRules,
    store: Store,
    kind: str,
    state: tuple[int, int, int],
    progress: Progress | None = None,
) -> tuple[Level, int]:
    """The state's level and its row there (its vector's blocks checked)."""
    lv = read_level(rules, store, kind, popcount(state[0]), lambda lv: row_of(lv, state), progress)
    return lv, int(row_of(lv, state)[0])


def next_level(
    rules: YahtzeeRules, store: Store, kind: str, mask: int, progress: Progress | None = None
) -> Level:
    """The level after a state of boxes `mask`, the vectors of every state one box more
    reaches checked (advise's turn reads them)."""
    masks = [mask | 1 << b for b in range(rules.n_boxes) if not mask >> b & 1]

    def rows(lv: Level) -> np.ndarray:
        return np.nonzero(np.isin(lv.states[:, 0], masks))[0]

    return read_level(rules, store, kind, popcount(mask) + 1, rows, progress)


def chance(
    rules: YahtzeeRules,
    store: Store,
    kind: str,
    state: tuple[int, int, int],
    t: int,
    progress: Progress | None = None,
) -> float:
    """W(state, t): the largest chance of t more points (beat: more than t, a tie half)."""
    lv, row = state_level(rules, store, kind, state, progress)
    return lv.at(row, t)


def option_chances(
    rules: YahtzeeRules,
    store: Store,
    kind: str,
    state: tuple[int, int, int],
    t: int,
    hand: int,
    rolls_left: int,
    progress: Progress | None = None,
) -> np.ndarray:
    """Each option's chance at t: with rolls left, per keep (keep_graph's index); with none,
    per box of the hand (keep_graph's roll index `hand`; -1 where it may not go)."""
    from .threshold_widget import box_values, twidget

    mask, up, yf = state
    nxt = next_level(rules, store, kind, mask, progress)
    arrays = (nxt.index(rules), nxt.off, nxt.data)
    r = rule_arrays(rules)
    if rolls_left == 0:
        return box_values(mask, up, yf, hand, t, r, arrays, nxt.lo)
    A1, A2 = np.empty((len(r.add), 1)), np.empty((len(r.add), 1))
    twidget(mask, up, yf, t, r, arrays, nxt.lo, A1, A2, np.empty(1))
    return (A1 if rolls_left == 1 else A2)[:, 0]
