"""Playing against other players' sheets: the opponents' best final score and the chance of
beating it (docs/method.md, "Against other players").

  best_of      the distribution of the best of independent final scores
  win_share    my exact chance of winning with my final-score distribution against
               independent opponents' ones, a tie at the top split evenly among all tied
  option_vectors / state_vector
               the beat table's chance W(t) = max P(to come > t) + P(to come = t) / 2 for
               every t of a range, per option of a turn (threshold.py's tables, the turn of
               threshold_widget.py) or for a state between turns
  heuristic    sum over i of P(the opponents' best = i) x W(i - my score): the chance of
               winning of play that re-chooses its threshold play at every decision
               (Pawlewicz's heuristic)
"""

from __future__ import annotations

import numpy as np

from ..progress import Progress
from ..store import Store
from . import threshold as TH
from .solve import rule_arrays
from .yahtzee_rules import YahtzeeRules

State = tuple[int, int, int]  # mask, upper total capped at the threshold, Yahtzee flag


def best_of(dists: list[np.ndarray]) -> np.ndarray:
    """P(max = i) of independent scores, each dists[j][i] = P(score j = i)."""
    n = max(len(d) for d in dists)
    cdf = np.ones(n)
    for d in dists:
        cdf = cdf * np.minimum(np.cumsum(np.pad(d, (0, n - len(d)))), 1.0)
    return np.diff(np.concatenate([[0.0], cdf]))


def win_share(mine: np.ndarray, others: list[np.ndarray]) -> float:
    """E[my share of the win]: 1 above every opponent, 1 / (k + 1) tied at the top with k
    of them, 0 below one; all final scores independent.  At my score m the share is the
    integral over z in [0, 1] of prod_j (P(j < m) + z P(j = m)) (the k-th coefficient of
    the product is P(exactly k tied, none above), and the integral of z^k is 1 / (k + 1))."""
    n = max([len(mine)] + [len(d) for d in others])
    poly = np.ones((n, 1))  # poly[m, k]: the coefficient of z^k at my score m
    for d in others:
        p = np.pad(d, (0, n - len(d)))
        below = np.concatenate([[0.0], np.cumsum(p)[:-1]])
        nxt = np.zeros((n, poly.shape[1] + 1))
        nxt[:, :-1] += poly * below[:, None]
        nxt[:, 1:] += poly * p[:, None]
        poly = nxt
    share = poly @ (1.0 / np.arange(1, poly.shape[1] + 1))
    return float(np.pad(mine, (0, n - len(mine))) @ share)


def state_vector(
    rules: YahtzeeRules, store: Store, state: State, t0: int, nt: int, progress: Progress | None
) -> np.ndarray:
    """W(state, t) for t = t0 .. t0 + nt - 1: the beat table of a state between turns."""
    lv, row = TH.state_level(rules, store, "beat", state, progress)  # (its blocks checked)
    return np.array([lv.at(row, t0 + j) for j in range(nt)])


Next = tuple[tuple[np.ndarray, np.ndarray, np.ndarray], int]  # (index, off, data), lo


def next_arrays(
    rules: YahtzeeRules,
    store: Store,
    mask: int,
    progress: Progress | None = None,
    whole: bool = False,
) -> Next:
    """The beat table's level after a state of boxes `mask`, as the threshold turn reads it:
    the blocks of the states one box more reaches checked, or (whole: for a reader that
    keeps the level for every mask) every block of the level."""
    if whole:
        k = bin(mask).count("1") + 1
        every = lambda lv: np.arange(len(lv.states))  # noqa: E731
        nxt = TH.read_level(rules, store, "beat", k, every, progress)
    else:
        nxt = TH.next_level(rules, store, "beat", mask, progress)
    return (nxt.index(rules), nxt.off, nxt.data), nxt.lo


def option_vectors(
    rules: YahtzeeRules,
    store: Store,
    state: State,
    hand: int,
    rolls_left: int,
    span: tuple[int, int],
    progress: Progress | None = None,
    nxt: Next | None = None,
) -> np.ndarray:
    """W at t = t0 .. t0 + nt - 1 (span) of each option of the turn: with rolls left, per
    keep (keep_graph's index), by the compiled threshold turn over the whole span at once;
    with none, per box of hand `hand` (-1 where it may not go).  nxt: next_arrays(state's
    mask), where the caller keeps them."""
    from .threshold_numba import box_span

    arrays, lo = nxt or next_arrays(rules, store, state[0], progress)
    if rolls_left:
        return keep_vectors(rules, state, span, (arrays, lo))[rolls_left - 1]
    t0, nt = span
    out = np.empty((rules.n_boxes, nt))
    box_span(*state, hand, t0, rule_arrays(rules), arrays, lo, out)
    return out


def keep_vectors(
    rules: YahtzeeRules, state: State, span: tuple[int, int], nxt: Next
) -> tuple[np.ndarray, np.ndarray]:
    """option_vectors' keeps with one roll left and with two: one threshold turn gives both."""
    from .threshold_numba import twidget

    t0, nt = span
    r = rule_arrays(rules)
    A1, A2 = np.empty((len(r.add), nt)), np.empty((len(r.add), nt))
    twidget(*state, t0, r, *nxt, A1, A2, np.empty(nt))
    return A1, A2


# the opponents' best final scores past a tail this light are left out of the sums (a
# change below 1e-16 in any P(win)); the tails of `yahtzee` (its bonuses) reach past 1500
# points at chances far below it, and a turn's threshold pass costs in proportion to the
# scores it covers
TAIL = 1e-16


def support(best: np.ndarray) -> tuple[int, int]:
    """[lo, hi): best's final scores from its first possible one (the opponents' scores so
    far) to where the rest weighs less than TAIL."""
    nz = np.flatnonzero(best)
    lo = int(nz[0]) if len(nz) else 0
    tail = np.cumsum(best[::-1])[::-1]  # tail[i] = P(best >= i)
    heavy = np.flatnonzero(tail >= TAIL)
    hi = int(heavy[-1]) + 1 if len(heavy) else lo + 1
    return lo, max(hi, lo + 1)


def heuristic(best: np.ndarray, score: int, vectors: np.ndarray) -> np.ndarray:
    """Each row's sum over i of best[i] x W(i - score), vectors over the t of
    span(best, score)."""
    lo, hi = support(best)
    return vectors @ best[lo:hi]


def span(best: np.ndarray, score: int) -> tuple[int, int]:
    """The t range (t0, nt) that covers the final scores i of best's support: t = i - score."""
    lo, hi = support(best)
    return lo - score, hi - lo
