"""The Yahtzee table (stored like the Zilch tables) and the questions asked of it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from ..errors import InputError
from ..progress import Progress, steps
from ..store import Arrays, Store
from .box_scores import tables as score_tables
from .hands import keep_graph
from .solve import level_states, reachable_upper, rule_arrays, solve, table_shape
from .widget import NEG, widget
from .yahtzee_rules import YahtzeeRules

T = TypeVar("T")
Step = Callable[[int], None]  # advances a report by one level
WidgetRun = tuple[np.ndarray, np.ndarray, np.ndarray, float]  # run_widget's (VB, A1, A2, v)

OBJECTIVE = "yahtzee"
ALIASES = {
    "fh": "full_house",
    "fullhouse": "full_house",
    "ss": "small_straight",
    "smallstraight": "small_straight",
    "sm": "small_straight",
    "ls": "large_straight",
    "largestraight": "large_straight",
    "lg": "large_straight",
    "3k": "three_kind",
    "threekind": "three_kind",
    "threeofakind": "three_kind",
    "4k": "four_kind",
    "fourkind": "four_kind",
    "fourofakind": "four_kind",
    "yatzee": "yahtzee",
    "pair": "one_pair",
    "onepair": "one_pair",
    "twopairs": "two_pairs",
    "twopair": "two_pairs",
    "1s": "ones",
    "2s": "twos",
    "3s": "threes",
    "4s": "fours",
    "5s": "fives",
    "6s": "sixes",
}


def reported(
    progress: Progress | None, label: str, total: int, work: Callable[[Step | None], T]
) -> T:
    """work(step) within a bar of `total` steps (progress.steps: abandoned where the work
    stops early; progress None: no report); step(level) advances it by one."""
    if progress is None:
        return work(None)
    with steps(progress, label, total):
        return work(lambda _: progress.advance(1))


def game_table(rules: YahtzeeRules, store: Store, progress: Progress | None = None) -> np.ndarray:
    """E[mask, up, yf], from the store or solved and stored; solving, it reports to
    progress from its start, its label with the estimate."""
    from .solve import estimate

    label = f"solving {rules.name} (first use, about {estimate(rules)})"

    def build() -> tuple[dict, Arrays]:
        return {"rules_name": rules.name, "upper_counts": rules.dice + 1}, {
            "E": reported(progress, label, rules.n_boxes, lambda step: solve(rules, step))
        }

    def sound(h: dict, a: Arrays) -> bool:
        # six dice: a table solved before every upper total of six alike was a state (issue
        # 36, item 15: those states were left at 0) is solved again
        fits = a["E"].shape == table_shape(rules) and a["E"].dtype == np.float64
        return fits and (rules.dice <= 5 or h.get("upper_counts") == rules.dice + 1)

    _, arrays = store.cached(rules.name, rules.digest(), OBJECTIVE, build, check=sound)
    return arrays["E"]


def score_distribution(
    rules: YahtzeeRules, store: Store, progress: Progress | None = None
) -> dict[str, Any]:
    """The exact distribution of the final score under optimal play (distribution.py),
    from the store or computed (from the game table) and stored: p[x] = P(score = x), the
    chance of the upper bonus, each box's chance of scoring and its mean points.  Computing,
    it reports to progress from its start (numba's compilation included)."""
    from .distribution import Distribution, check_size, distribution, estimate

    def build() -> tuple[dict, Arrays]:
        check_size(rules)
        E = game_table(rules, store, progress)
        label = f"the exact score distribution of {rules.name} (first use, about {estimate(rules)})"

        def work(step: Step | None) -> Distribution:
            from . import forward  # noqa: F401  (compiled here: inside the report)

            return distribution(rules, E, step)

        d = reported(progress, label, rules.n_boxes, work)
        meta = {"rules_name": rules.name, "peak_bytes": d.peak_bytes, "table_value": E[0, 0, 0]}
        arrays = {
            "p": d.p,
            "p_upper_bonus": np.array([d.p_upper_bonus]),
            "box_hits": d.box_hits,
            "box_points": d.box_points,
        }
        return meta, arrays

    meta, arrays = store.cached(rules.name, rules.digest(), "yahtzee-distribution", build)
    return dict(arrays, peak_bytes=meta["peak_bytes"], table_value=meta["table_value"])


def box_name(rules: YahtzeeRules, text: str) -> int:
    key = text.strip().lower().replace("_", "").replace("-", "").replace(" ", "")
    names = {b.replace("_", ""): i for i, b in enumerate(rules.boxes)}
    if key in names:
        return names[key]
    if key in ALIASES and ALIASES[key] in rules.boxes:
        return rules.boxes.index(ALIASES[key])
    alike = [i for i, b in enumerate(rules.specs) if b.kind == "yahtzee"]
    if key in ("yahtzee", "yatzy", "yatzee") and len(alike) == 1:
        return alike[0]
    raise InputError(f"unknown box {text!r} under {rules.name}; boxes: {', '.join(rules.boxes)}")


@dataclass(frozen=True)
class SheetState:
    mask: int
    upper: int  # exact upper total
    yf: int  # the Yahtzee box holds its points

    def capped(self, rules: YahtzeeRules) -> int:
        return min(self.upper, rules.threshold)


def parse_state(
    rules: YahtzeeRules, filled: str | None, upper: int, yahtzee_bonus: bool
) -> SheetState:
    mask = 0
    for name in (filled or "").split(","):
        if not name.strip():
            continue
        b = box_name(rules, name)
        if mask >> b & 1:
            raise InputError(f"box {rules.boxes[b]!r} is named twice in --filled")
        mask |= 1 << b
    st = score_tables(rules)
    faces = [int(f) for i, f in enumerate(st.upper_face) if f and mask >> i & 1]
    sums = {0}
    for f in faces:
        sums = {s + f * k for s in sums for k in range(rules.dice + 1)}
    if upper not in sums:
        raise InputError(
            f"--upper {upper} cannot be made by the filled upper boxes "
            f"({', '.join(_upper_filled(rules, mask)) or 'none'})"
        )
    if yahtzee_bonus and (st.yahtzee_box < 0 or not mask >> st.yahtzee_box & 1):
        raise InputError(
            "--yahtzee-bonus needs the Yahtzee box filled (with its points) and rules with a "
            "Yahtzee bonus or joker"
        )
    if mask == (1 << rules.n_boxes) - 1:
        raise InputError("every box is filled: the game is over")
    if rules.order == "forced" and mask & (mask + 1):
        k = bin(mask).count("1")
        raise InputError(
            f"--filled: {rules.name} fills its boxes in order, so {k} filled boxes are "
            f"{', '.join(rules.boxes[:k])}"
        )
    return SheetState(mask, upper, int(yahtzee_bonus))


def policy(rules: YahtzeeRules, E: np.ndarray, state: SheetState) -> dict[str, np.ndarray]:
    """The solver's own policy at a state (its max's choices, ties included), per hand
    (keep_graph's roll index): "keep2"/"keep1" the keep index with two/one rolls left,
    "box" the box of the final hand.  What the evaluator follows; the tests' recursion too."""
    from .widget import best_keeps

    kg = keep_graph(rules.dice)
    VB, A1, A2, _ = run_widget(rules, E, state)
    out = {"box": VB.argmax(axis=1)}  # (argmax: the first best, as the widget's max)
    for name, A in (("keep2", A2), ("keep1", A1)):
        arg = np.empty(len(A), np.int64)
        best_keeps(A, kg.remove, arg)
        out[name] = arg[kg.roll_keep]
    return out


def _upper_filled(rules: YahtzeeRules, mask: int) -> list[str]:
    st = score_tables(rules)
    return [b for i, b in enumerate(rules.boxes) if st.upper_face[i] and mask >> i & 1]


def run_widget(rules: YahtzeeRules, E: np.ndarray, state: SheetState) -> WidgetRun:
    """(VB, A1, A2, start value) of one state, by the uncompiled widget."""
    kg = keep_graph(rules.dice)
    VB = np.empty((len(kg.roll_keep), rules.n_boxes))
    A1 = np.empty(len(kg.add))
    A2 = np.empty(len(kg.add))
    v = widget(state.mask, state.capped(rules), state.yf, E, rule_arrays(rules), VB, A1, A2)
    return VB, A1, A2, v


def _keep_index(n: int) -> dict[tuple[int, ...], int]:
    kg = keep_graph(n)
    return {tuple(c): i for i, c in enumerate(kg.counts)}


def advise(
    rules: YahtzeeRules,
    E: np.ndarray,
    state: SheetState,
    dice: tuple[int, ...],
    rolls_left: int,
    widget: WidgetRun | None = None,
) -> list[dict]:
    """Every keep (or, with no rolls left, every open box) with the expected score from now
    to the end of the game, best first (widget: the state's run_widget, where known)."""
    if rolls_left not in (0, 1, 2):
        raise InputError(f"--rolls-left is 0, 1 or 2, got {rolls_left}")
    if len(dice) != rules.dice:
        raise InputError(f"--dice: a hand of {rules.name} has {rules.dice} dice, got {len(dice)}")
    VB, A1, A2, _ = widget or run_widget(rules, E, state)
    counts = tuple(dice.count(f) for f in range(1, 7))
    opts: list[dict] = []
    if rolls_left == 0:
        o = hand_index(dice)
        for b in range(rules.n_boxes):
            if VB[o, b] > NEG / 2:
                opts.append({"box": rules.boxes[b], "value": float(VB[o, b])})
    else:
        A = A1 if rolls_left == 1 else A2
        idx = _keep_index(rules.dice)
        seen = set()
        for sub in np.ndindex(*(c + 1 for c in counts)):
            if sub in seen:
                continue
            seen.add(sub)
            keep = [f + 1 for f in range(6) for _ in range(sub[f])]
            opts.append({"keep": keep, "value": float(A[idx[sub]])})
    opts.sort(key=lambda d: -d["value"])
    for d in opts:
        d["loss"] = opts[0]["value"] - d["value"]
    return opts


def hand_index(dice: tuple[int, ...]) -> int:
    """The widget's index of a hand of all the dice (keep_graph's roll_counts)."""
    counts = [dice.count(f) for f in range(1, 7)]
    hands = keep_graph(len(dice)).roll_counts
    return int(np.nonzero((hands == counts).all(axis=1))[0][0])


def score_box(
    rules: YahtzeeRules, state: SheetState, dice: tuple[int, ...], box: int
) -> tuple[int, SheetState]:
    """The points of scoring the hand in the box (bonuses included) and the state after,
    read from the widget itself (the one place the joker and bonus rules live): run over a
    probe table of zeros its value is the points; over a table numbering the states, the
    state after.  InputError where the box is filled or the joker rule forbids it."""
    shape = table_shape(rules)
    probe = (np.arange(np.prod(shape), dtype=np.float64).reshape(shape) + 1) * 1e4
    o = hand_index(dice)
    gain = run_widget(rules, np.zeros(shape), state)[0][o, box]
    if gain <= NEG / 2:
        raise InputError(f"the hand cannot be scored in {rules.boxes[box]} here")
    code = int(round((run_widget(rules, probe, state)[0][o, box] - gain) / 1e4)) - 1
    mask, up, yf = np.unravel_index(code, shape)
    # the exact upper total: the box's points (no Yahtzee bonus, no upper bonus) added
    st = score_tables(rules)
    pts = int(round(gain))
    if st.yahtzee_box >= 0 and state.mask >> st.yahtzee_box & 1 and st.five[o] >= 0:
        pts -= rules.yahtzee_bonus * state.yf  # (an extra Yahtzee's bonus)
    if st.upper_face[box] and up == rules.threshold and state.upper < rules.threshold:
        pts -= rules.upper_bonus
    upper = state.upper + pts if st.upper_face[box] else state.upper
    return int(round(gain)), SheetState(int(mask), upper, int(yf))


def value(rules: YahtzeeRules, E: np.ndarray, state: SheetState) -> float:
    return float(E[state.mask, state.capped(rules), state.yf])


def export_rows(rules: YahtzeeRules, E: np.ndarray) -> dict[str, list]:
    """One row per reachable state between turns."""
    ok = reachable_upper(rules)
    cols: dict[str, list] = {"filled": [], "upper": [], "yahtzee_bonus": [], "value": []}
    for filled in range(rules.n_boxes):
        st = level_states(rules, filled, ok)
        cols["filled"] += [
            "+".join(b for i, b in enumerate(rules.boxes) if m >> i & 1) for m in st[:, 0].tolist()
        ]
        cols["upper"] += st[:, 1].tolist()
        cols["yahtzee_bonus"] += st[:, 2].astype(bool).tolist()
        cols["value"] += E[st[:, 0], st[:, 1], st[:, 2]].tolist()
    return cols


def simulate(
    rules: YahtzeeRules, E: np.ndarray, games: int, rng: np.random.Generator
) -> np.ndarray:
    """Final scores of `games` games of optimal play, all games in lockstep."""
    from .numba_kernel import batch

    n = rules.dice
    kg = keep_graph(n)
    st = score_tables(rules)
    r = rule_arrays(rules)
    nb = rules.n_boxes
    code_of = {tuple(c): o for o, c in enumerate(kg.roll_counts.tolist())}
    pow7 = 7 ** np.arange(6)
    lookup = np.full(7**6, -1, np.int64)
    for c, o in code_of.items():
        lookup[int(np.dot(c, pow7))] = o
    idx = _keep_index(n)
    subkeeps = np.full((len(kg.roll_keep), 1 << n), -1, np.int64)
    for o, c in enumerate(kg.roll_counts.tolist()):
        subs = sorted({idx[s] for s in np.ndindex(*(x + 1 for x in c))})
        subkeeps[o, : len(subs)] = subs
    mask = np.zeros(games, np.int64)
    up = np.zeros(games, np.int64)
    yf = np.zeros(games, np.int64)
    total = np.zeros(games, np.int64)
    g = np.arange(games)
    for _ in range(nb):
        key = np.stack([mask, np.minimum(up, rules.threshold), yf], axis=1)
        uniq, which = np.unique(key, axis=0, return_inverse=True)
        which = which.ravel()
        VB = np.empty((len(uniq), len(kg.roll_keep), nb))
        A1 = np.empty((len(uniq), len(kg.add)))
        A2 = np.empty((len(uniq), len(kg.add)))
        batch(uniq, E, r, VB, A1, A2)
        counts = np.zeros((games, 6), np.int64)
        for A in (A2, A1, None):
            new = rng.integers(0, 6, (games, n))
            have = counts.sum(axis=1)
            for d in range(n):
                add_die = d >= have  # only the dice not kept
                counts[g[add_die], new[add_die, d]] += 1
            o = lookup[counts @ pow7]
            if A is None:
                break
            cand = subkeeps[o]
            vals = np.where(cand >= 0, A[which[:, None], np.maximum(cand, 0)], -np.inf)
            k = cand[g, np.argmax(vals, axis=1)]
            counts = kg.counts[k].copy()
        b = np.argmax(VB[which, o, :], axis=1)
        pts = st.base[b, o]
        upper_box = st.upper_face[b] > 0
        nmask = mask | (1 << b)
        nup = np.where(upper_box, up + pts, up)
        nyf = np.where(b == st.yahtzee_box, (pts > 0).astype(np.int64), yf)
        gain = VB[which, o, b] - E[nmask, np.minimum(nup, rules.threshold), nyf]
        total += np.rint(gain).astype(np.int64)
        mask, up, yf = nmask, nup, nyf
    return total
