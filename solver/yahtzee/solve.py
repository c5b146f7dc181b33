"""Solve the whole game: the value of every reachable state between turns.

States: the boxes filled (bit mask), the upper total capped at the threshold, and whether
the Yahtzee box holds its points.  A state's value needs only states with one more box filled, so
the levels (boxes filled) are solved from the full sheet back to the empty one; within a
level every state is independent and the widget runs for all of them in parallel (in C,
_widget.c; where that was not built, numba, compiled once and cached on disk).  Only upper
totals that the filled upper boxes can make are solved.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from .box_scores import tables
from .hands import keep_graph
from .widget import RuleArrays
from .yahtzee_rules import YahtzeeRules

CLevel = Callable[[np.ndarray, np.ndarray, RuleArrays, int], None]  # _widget.level


def reachable_upper(rules: YahtzeeRules) -> np.ndarray:
    """ok[upper_mask, up]: can the filled upper boxes total `up` (capped at the threshold)?
    A box of face f takes f x k for k = 0 .. dice (six dice: six of a kind too)."""
    T = rules.threshold
    ok = np.zeros((64, T + 1), bool)  # (T = 0 without an upper bonus: one total, 0)
    ok[0, 0] = True
    for umask in range(1, 64):
        f = (umask & -umask).bit_length()  # the lowest face filled, 1..6
        prev = umask & (umask - 1)
        for up in np.nonzero(ok[prev])[0]:
            for k in range(rules.dice + 1):
                ok[umask, min(T, int(up) + f * k)] = True
    return ok


def joker_mode(rules: YahtzeeRules) -> int:
    return {None: 0, "forced": 1, "free": 2}[rules.joker]


def table_shape(rules: YahtzeeRules) -> tuple[int, int, int]:
    """E's shape: boxes filled (mask), upper total capped at the threshold, and whether the
    Yahtzee box holds its points (only where a bonus or joker makes that matter)."""
    return (1 << rules.n_boxes, rules.threshold + 1, 2 if rules.yahtzee_box >= 0 else 1)


def read_only(x: np.ndarray, dtype: type = np.int64) -> np.ndarray:
    """A read-only copy of x in C order (the arrays it is taken from stay writable)."""
    a: np.ndarray = np.array(x, dtype, order="C")
    a.setflags(write=False)
    return a


@lru_cache(maxsize=16)
def rule_arrays(rules: YahtzeeRules) -> RuleArrays:
    """The widget's rules, built once per rule set: read-only copies of the score tables and
    the keep graph (numba compiles the widget for their types: int64, C order)."""
    kg, st = keep_graph(rules.dice), tables(rules)
    return RuleArrays(
        base=read_only(st.base),
        upper_face=read_only(st.upper_face),
        joker=read_only(st.joker),
        five=read_only(st.five),
        add=read_only(kg.add),
        remove=read_only(kg.remove),
        roll_keep=read_only(kg.roll_keep),
        size_start=read_only(kg.size_start),
        roll_prob=read_only(kg.roll_prob, np.float64),
        ybox=rules.yahtzee_box,
        joker_mode=joker_mode(rules),
        upper_bonus=rules.upper_bonus,
        threshold=rules.threshold,
        ybonus=rules.yahtzee_bonus,
        forced=int(rules.order == "forced"),
    )


def upper_mask(rules: YahtzeeRules, masks: np.ndarray) -> np.ndarray:
    """Bit f-1 set when the upper box of face f is filled (boxes may come in any order)."""
    out = np.zeros_like(masks)
    for b, f in enumerate(tables(rules).upper_face):
        if f:
            out |= ((masks >> b) & 1) << (f - 1)
    return out


def level_states(rules: YahtzeeRules, filled: int, ok: np.ndarray) -> np.ndarray:
    """(mask, up, yf) of every reachable state with `filled` boxes filled."""
    nb = rules.n_boxes
    if rules.order == "forced":  # the first `filled` boxes, no other mask
        masks = np.array([(1 << filled) - 1], np.int64)
    else:
        masks = np.arange(1 << nb)
        pop = np.zeros(1 << nb, np.int64)
        for i in range(nb):
            pop += (masks >> i) & 1
        masks = masks[pop == filled]
    m_idx, up = np.nonzero(ok[upper_mask(rules, masks)])
    masks = masks[m_idx]
    ybox = tables(rules).yahtzee_box
    yf = np.zeros(len(masks), np.int64)
    if ybox >= 0:
        two = (masks >> ybox) & 1 == 1  # the Yahtzee box filled: with 0 or its points
        masks = np.concatenate([masks, masks[two]])
        up = np.concatenate([up, up[two]])
        yf = np.concatenate([yf, np.ones(int(two.sum()), np.int64)])
    return np.stack([masks, up, yf], axis=1).astype(np.int64)


def compiled_level() -> CLevel | None:
    """The C build of a level (_widget.c, built by pip install), or None: numba then."""
    try:
        from . import _widget
    except ImportError:
        return None
    return _widget.level


def threads() -> int:
    return max(1, min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1, 8))


def keep_order(r: RuleArrays) -> RuleArrays:
    """r for _widget.c: the hands in the order of their keeps (hand o is keep `last` + o),
    so that its hands' values lie inside its keeps' array."""
    hands = np.argsort(r.roll_keep)
    return r._replace(
        base=read_only(r.base[:, hands]),
        five=read_only(r.five[hands]),
        roll_keep=read_only(r.roll_keep[hands]),
        roll_prob=read_only(r.roll_prob[hands], np.float64),
    )


def level_kernel(rules: YahtzeeRules) -> Callable[[np.ndarray, np.ndarray], None]:
    """level(states, E): E at the states of one level, in C on every core (or, without
    the C kernel, numba)."""
    c_level = compiled_level()
    if c_level is None:
        from .numba_kernel import level

        r = rule_arrays(rules)
        return lambda states, E: level(states, E, r)
    rc, n = keep_order(rule_arrays(rules)), threads()
    return lambda states, E: c_level(states, E, rc, n)


def seconds(secs: float) -> str:
    return f"{max(1, round(secs))} s" if secs < 100 else f"{round(secs / 60)} min"


def state_count(rules: YahtzeeRules, ok: np.ndarray) -> int:
    """The states of every level but the full sheet's (level_states' rows, counted without
    making them: a cold build's estimate is said before it starts)."""
    nb = rules.n_boxes
    if rules.order == "forced":
        masks = np.array([(1 << k) - 1 for k in range(nb)], np.int64)
    else:
        masks = np.arange((1 << nb) - 1, dtype=np.int64)
    per = ok[upper_mask(rules, masks)].sum(axis=1)
    ybox = tables(rules).yahtzee_box
    if ybox >= 0:
        per = per * (1 + ((masks >> ybox) & 1))
    return int(per.sum())


def estimate(rules: YahtzeeRules) -> str:
    """The build's time, roughly: its states times a widget's cost (measured on this
    project's 2-core machine: 536 000 states of yahtzee in ~0.7 s in C; the widget grows
    with the hands and keeps of the dice; numba: slower, and its compilation first)."""
    states = state_count(rules, reachable_upper(rules))
    kg = keep_graph(rules.dice)
    per_state = 2.7e-6 * (len(kg.roll_keep) * rules.n_boxes + 6 * len(kg.add)) / 6000
    if compiled_level() is None:
        return seconds(15 + 3 * per_state * states / threads())
    return seconds(per_state * states / threads())


def solve(rules: YahtzeeRules, progress: Callable[[int], None] | None = None) -> np.ndarray:
    """E[mask, up, yf] for every reachable state (0 elsewhere); E[0, 0, 0] is the optimum;
    progress(levels done) after each level."""
    nb = rules.n_boxes
    ok = reachable_upper(rules)
    E = np.zeros(table_shape(rules))
    level = level_kernel(rules)
    for filled in range(nb - 1, -1, -1):
        level(level_states(rules, filled, ok), E)
        if progress:
            progress(nb - filled)
    return E
