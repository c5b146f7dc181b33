"""Final-score distributions of score-blind play from any state: expected-score play (the
game table) or exponential-utility play (utility.py), by distribution.py's forward pass
started at one state between turns instead of the empty sheet (docs/method.md, "Against
other players" and "Strategies against each other").

Only the states a game from the start can reach are carried: more boxes filled (a superset
of its mask), an upper total at least its own, its Yahtzee flag once its Yahtzee box is
filled.  The distribution returned is of the points still to come; a sheet's final score is
its points so far plus them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..progress import Progress
from ..store import Arrays, Store
from .distribution import CHUNK, check_size, known, widths
from .solitaire import Step, game_table, reported
from .solve import estimate, level_states, reachable_upper, rule_arrays, table_shape
from .yahtzee_rules import YahtzeeRules

State = tuple[int, int, int]  # mask, upper total capped at the threshold, Yahtzee flag


def utility_solve(rules: YahtzeeRules, theta: float, progress: Step | None = None) -> np.ndarray:
    """C[mask, up, yf]: the certainty equivalent log E[exp(theta X)] / theta of the points
    still to come under the best exponential-utility play (theta 0: the expected score)."""
    from .utility_numba import jit_level

    C = np.zeros(table_shape(rules))
    ok = reachable_upper(rules)
    r = rule_arrays(rules)
    for filled in range(rules.n_boxes - 1, -1, -1):
        jit_level(level_states(rules, filled, ok), C, r, float(theta))
        if progress:
            progress(rules.n_boxes - filled)
    return C


def policy_table(
    rules: YahtzeeRules, theta: float, store: Store, progress: Progress | None = None
) -> np.ndarray:
    """The table a score-blind policy plays by: the game table at theta 0, else the
    utility table of theta, stored (objective yahtzee-utility-<theta>)."""
    if theta == 0.0:
        return game_table(rules, store, progress)
    label = f"solving {rules.name} for utility theta {theta:g} (about {estimate(rules)} + compile)"

    def build() -> tuple[dict, Arrays]:
        C = reported(progress, label, rules.n_boxes, lambda step: utility_solve(rules, theta, step))
        return {"rules_name": rules.name, "theta": float(theta)}, {"C": C}

    def sound(h: dict, a: Arrays) -> bool:
        return a["C"].shape == table_shape(rules) and h.get("theta") == float(theta)

    objective = f"yahtzee-utility-{float(theta)!r}"
    _, arrays = store.cached(rules.name, rules.digest(), objective, build, check=sound)
    return arrays["C"]


def reachable_from(rules: YahtzeeRules, states: np.ndarray, start: State) -> np.ndarray:
    """The rows of `states` a game from `start` can reach (a superset of them: enough)."""
    m0, u0, y0 = start
    keep = ((states[:, 0] & m0) == m0) & (states[:, 1] >= u0)
    yb = rules.yahtzee_box
    if yb >= 0 and m0 >> yb & 1:
        keep &= states[:, 2] == y0
    return states[keep]


def to_come(
    rules: YahtzeeRules,
    table: np.ndarray,
    theta: float,
    start: State = (0, 0, 0),
    step: Callable[[int], None] | None = None,
) -> np.ndarray:
    """p[x] = P(points still to come from `start` = x) under the policy of `table` (theta 0:
    the game table's expected-score play; else the utility table of theta)."""
    from .utility_numba import jit_level_pass

    check_size(rules)
    nb = rules.n_boxes
    ok = reachable_upper(rules)
    r = rule_arrays(rules)
    index = np.full(table_shape(rules), -1, np.int64)
    S = np.array([start], np.int64)
    off = np.array([0, 1], np.int64)
    P = np.ones(1)
    overflow = np.zeros(2, np.int64)
    for filled in range(bin(start[0]).count("1"), nb):
        S1 = reachable_from(rules, level_states(rules, filled + 1, ok), start)
        index[S1[:, 0], S1[:, 1], S1[:, 2]] = np.arange(len(S1))
        off1 = np.concatenate([[0], np.cumsum(widths(rules, filled + 1, S1))]).astype(np.int64)
        Q = np.zeros(int(off1[-1]))
        for c in range(0, len(S), CHUNK):
            part = slice(c, min(c + CHUNK, len(S)))
            src = (S[part], off[c : part.stop + 1], P)
            jit_level_pass(src, index, off1, Q, table, r, float(theta), overflow)
        if overflow.any():
            raise AssertionError("a state's points outgrew its segment (distribution.widths)")
        S, off, P = S1, off1, Q
        if step:
            step(filled + 1)
    base = known(rules, S) - int(known(rules, np.array([start], np.int64))[0])
    p = np.zeros(int((base + (off[1:] - off[:-1])).max()))
    for j in range(len(S)):
        p[base[j] : base[j] + off[j + 1] - off[j]] += P[off[j] : off[j + 1]]
    return np.trim_zeros(p, "b")


def final_score(
    rules: YahtzeeRules,
    store: Store,
    start: State,
    score: int,
    theta: float = 0.0,
    progress: Progress | None = None,
) -> np.ndarray:
    """p[x] = P(final score = x) of a sheet at `start` with `score` points on it, played
    by the score-blind policy of theta (0: expected-score play)."""
    table = policy_table(rules, theta, store, progress)
    label = f"the final-score distribution of {rules.name} from a sheet"
    todo = rules.n_boxes - bin(start[0]).count("1")
    p = reported(progress, label, todo, lambda step: to_come(rules, table, theta, start, step))
    return np.concatenate([np.zeros(score), p])
