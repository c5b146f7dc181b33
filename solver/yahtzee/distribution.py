"""The exact distribution of the final score under optimal play (`yahtzee evaluate`).

docs/method.md: a forward pass over the levels of boxes filled (forward.py, compiled),
each state carrying the distribution of its points so far; memory: two levels at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .box_scores import tables
from .solve import level_states, reachable_upper, rule_arrays, seconds, table_shape, upper_mask
from .yahtzee_rules import YahtzeeRules

CHUNK = 2048  # states whose turns are worked out at once (their moves: ~20 MB)


@dataclass(frozen=True, eq=False)
class Distribution:
    p: np.ndarray  # p[x] = P(final score = x), x = 0..max
    p_upper_bonus: float  # P(the upper bonus is paid)
    box_hits: np.ndarray  # (boxes,) P(the box scores more than 0)
    box_points: np.ndarray  # (boxes,) its mean points
    peak_bytes: int  # the largest two levels' arrays held at once


MAX_STATES = 5_000_000  # the forward pass's states: ~2 million (yatzy) take ~0.8 GB


def check_size(rules: YahtzeeRules) -> None:
    """InputError where the forward pass would not fit in memory (maxi-yatzy: 57.5 million
    states, tens of GB of distributions)."""
    ok = reachable_upper(rules)
    if rules.order == "forced":
        states = (rules.n_boxes + 1) * (rules.threshold + 1) * 2  # (at most)
    else:
        ups = ok.sum(axis=1)[upper_mask(rules, np.arange(1 << rules.n_boxes))]
        states = int(ups.sum()) * (2 if rules.yahtzee_box >= 0 else 1)  # (at most)
    if states > MAX_STATES:
        raise InputError(
            f"the exact distribution of {rules.name} is refused: {states} states, more than "
            f"{MAX_STATES} (their distributions would take tens of GB); yahtzee simulate "
            "samples it"
        )


def estimate(rules: YahtzeeRules) -> str:
    """The forward pass's time, roughly: numba's compilation (~15 s), then per state a
    widget and the scatter of its points (yahtzee: ~40 s on this 2-core machine)."""
    ok = reachable_upper(rules)
    states = sum(len(level_states(rules, k, ok)) for k in range(rules.n_boxes))
    return seconds(15 + states * (1 + rules.yahtzee_bonus / 50) * 2.5e-5)


def widths(rules: YahtzeeRules, filled: int, states: np.ndarray) -> np.ndarray:
    """1 + the largest part of the points so far that a state does not tell: the lower boxes
    filled at their most, the upper total beyond the threshold, the Yahtzee bonuses."""
    st = tables(rules)
    most = np.maximum(st.base.max(axis=1), st.joker)
    bits = (states[:, :1] >> np.arange(rules.n_boxes)) & 1
    upper = st.upper_face > 0
    lower = bits[:, ~upper] @ most[~upper]
    top = bits[:, upper] @ most[upper]
    beyond = np.where(states[:, 1] == rules.threshold, np.maximum(top - rules.threshold, 0), 0)
    bonuses = rules.yahtzee_bonus * max(filled - 1, 0) * states[:, 2]
    return (lower + beyond + bonuses + 1).astype(np.int64)


def known(rules: YahtzeeRules, states: np.ndarray) -> np.ndarray:
    """The points so far that a state tells: its upper total, and the bonus once reached."""
    reached = (states[:, 1] == rules.threshold) & (rules.upper_bonus > 0)
    return states[:, 1] + rules.upper_bonus * reached


def distribution(
    rules: YahtzeeRules, E: np.ndarray, progress: Callable[[int], None] | None = None
) -> Distribution:
    """The exact distribution of the final score from the empty sheet under the policy of
    the table E (ties broken as the solver breaks them)."""
    from .forward import jit_level_pass

    nb = rules.n_boxes
    ok = reachable_upper(rules)
    r = rule_arrays(rules)
    index = np.full(table_shape(rules), -1, np.int64)
    S = level_states(rules, 0, ok)
    off = np.array([0, 1], np.int64)
    P = np.ones(1)
    hits = np.zeros(nb)
    points = np.zeros(nb)
    peak = 0
    overflow = np.zeros(2, np.int64)  # one row range per thread
    for filled in range(nb):
        S1 = level_states(rules, filled + 1, ok)
        index[S1[:, 0], S1[:, 1], S1[:, 2]] = np.arange(len(S1))
        off1 = np.concatenate([[0], np.cumsum(widths(rules, filled + 1, S1))])
        Q = np.zeros(int(off1[-1]))
        peak = max(peak, P.nbytes + Q.nbytes)
        for c in range(0, len(S), CHUNK):
            part = slice(c, min(c + CHUNK, len(S)))
            jit_level_pass(
                S[part], off[c : part.stop + 1], P, index, off1, Q, E, r, hits, points, overflow
            )
        if overflow.any():
            raise AssertionError("a state's points outgrew its segment (distribution.widths)")
        S, off, P = S1, off1, Q
        if progress:
            progress(filled + 1)
    # the full sheet: its own points so far (x) plus what the state tells
    base = known(rules, S)
    top = int((base + (off[1:] - off[:-1])).max())
    p = np.zeros(top)
    for j in range(len(S)):
        p[base[j] : base[j] + off[j + 1] - off[j]] += P[off[j] : off[j + 1]]
    reached = np.nonzero((S[:, 1] == rules.threshold) & (rules.upper_bonus > 0))[0]
    p_bonus = float(sum(P[off[j] : off[j + 1]].sum() for j in reached))
    return Distribution(np.trim_zeros(p, "b"), p_bonus, hits, points, peak)


def moments(
    rules: YahtzeeRules, E: np.ndarray, progress: Callable[[int], None] | None = None
) -> tuple[float, float]:
    """Mean and standard deviation of the final score under the policy of E, by a second
    backward pass over the levels (the first two moments of the points to come; memory:
    two tables like E).  Independent of the forward pass: the tests compare the two."""
    from .forward import jit_level_moments

    ok = reachable_upper(rules)
    r = rule_arrays(rules)
    M1 = np.zeros(table_shape(rules))
    M2 = np.zeros(table_shape(rules))
    for filled in range(rules.n_boxes - 1, -1, -1):
        jit_level_moments(level_states(rules, filled, ok), M1, M2, E, r)
        if progress:
            progress(rules.n_boxes - filled)
    m1, m2 = float(M1[0, 0, 0]), float(M2[0, 0, 0])
    return m1, float(np.sqrt(max(m2 - m1 * m1, 0.0)))
