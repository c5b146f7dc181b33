"""The exact distribution of the final score under optimal play: a forward pass over the
levels of boxes filled, carrying for every state the distribution of its points so far
(compiled with numba; imported only by `yahtzee evaluate`).

A state's points so far split into a part the state itself tells (the upper total below the
threshold, or the threshold and the bonus once reached) and the rest x (lower boxes, Yahtzee
bonuses, the upper total beyond the threshold); only x's distribution is carried, in a flat
array with one segment per state, long enough for the largest x the state's boxes can hold.
One turn moves a state's mass, hand by hand along the solver's own policy (its keeps and
boxes, ties broken as its max breaks them), to the next level's states, shifted by the
points the turn adds to x.

A turn's moves: acc[b, pts, extra] = P(the turn scores pts in box b, extra: with a Yahtzee
bonus), pts up to most_points.
"""

from __future__ import annotations

import numba
import numpy as np

from .numba_kernel import HELPERS, compiled
from .widget import NEG, RuleArrays, best_keeps, extra_points, roll_rest, upper_step, widget


def most_points(r: RuleArrays) -> int:
    """The most points one box can score (ordinary or joker)."""
    base, joker = r.base, r.joker
    top = 0
    for b in range(base.shape[0]):
        for o in range(base.shape[1]):
            top = max(top, base[b, o])
        top = max(top, joker[b])
    return top


def follow_keeps(w: np.ndarray, A: np.ndarray, r: RuleArrays, arg: np.ndarray, last: int) -> None:
    """One roll of the keeps' masses w, each hand's mass then moved to the keep the
    policy of A takes (arg: scratch)."""
    roll_keep = r.roll_keep
    roll_rest(w, r.add, last)
    best_keeps(A, r.remove, arg)
    for o in range(roll_keep.shape[0]):
        k = roll_keep[o]
        m = w[k]
        w[k] = 0.0
        w[arg[k]] += m


def turn_moves(mask: int, up: int, yf: int, E: np.ndarray, r: RuleArrays, acc: np.ndarray) -> None:
    """One state's turn under the optimal policy: acc, its moves (zeroed by the caller)."""
    nb, n_out, nk = r.base.shape[0], r.base.shape[1], r.add.shape[0]
    last = r.size_start[r.size_start.shape[0] - 2]
    VB = np.empty((n_out, nb))
    A1 = np.empty(nk)
    A2 = np.empty(nk)
    widget(mask, up, yf, E, r, VB, A1, A2)
    arg = np.empty(nk, np.int64)
    w = np.zeros(nk)
    w[0] = 1.0  # no die kept: all of them rolled
    follow_keeps(w, A2, r, arg, last)
    follow_keeps(w, A1, r, arg, last)
    roll_rest(w, r.add, last)
    y_filled = r.ybox >= 0 and (mask >> r.ybox) & 1 == 1
    roll_keep, five, base = r.roll_keep, r.five, r.base
    extra_pts = np.empty(nb, np.int64)
    for o in range(n_out):
        q = w[roll_keep[o]]
        if q == 0.0:
            continue
        best = NEG
        bb = -1
        for b in range(nb):  # the box the widget's max takes: the first best
            if VB[o, b] > best:
                best = VB[o, b]
                bb = b
        if y_filled and five[o] >= 0:  # an extra Yahtzee: its joker points, its bonus
            extra_points(mask, o, r, extra_pts)
            acc[bb, extra_pts[bb], yf] += q
        else:
            acc[bb, base[bb, o], 0] += q


def scatter_part(
    lo: int,
    hi: int,
    count: bool,
    src: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    nxt_index: np.ndarray,
    nxt_offsets: np.ndarray,
    Q: np.ndarray,
    r: RuleArrays,
    box_hits: np.ndarray,
    box_points: np.ndarray,
) -> int:
    """Q[lo:hi] += each state's distribution (src: states, offsets, P and moves: its segment
    of P) moved by each of its moves to the next state's segment, shifted by the points the
    state does not tell; with count, box_hits[b] += P(box b scores > 0 points) and
    box_points[b] += its mean points.  Returns 1 where a segment is too short (a bound of
    distribution.widths is wrong), else 0.  (One call for all the states: a call per state
    would cost numba its references' counts.)"""
    states, offsets, P, moves = src
    upper_face, threshold, ybox, ybonus = r.upper_face, r.threshold, r.ybox, r.ybonus
    overflow = 0
    for i in range(states.shape[0]):
        mask, up, yf = states[i, 0], states[i, 1], states[i, 2]
        seg = P[offsets[i] : offsets[i + 1]]
        mass = seg.sum() if count else 0.0
        for b in range(moves.shape[1]):
            for pts in range(moves.shape[2]):
                for extra in range(2):
                    q = moves[i, b, pts, extra]
                    if q == 0.0:
                        continue
                    nup = upper_step(up, pts, upper_face[b], threshold, 0)[0]
                    nyf = (1 if pts > 0 else 0) if b == ybox else yf
                    j = nxt_index[mask | (1 << b), nup, nyf]
                    start = nxt_offsets[j] + pts + extra * ybonus - (nup - up)
                    if start + seg.shape[0] > nxt_offsets[j + 1]:
                        overflow = 1
                        continue
                    for row in range(max(start, lo), min(start + seg.shape[0], hi)):
                        Q[row] += q * seg[row - start]
                    if count:
                        box_hits[b] += q * mass if pts > 0 else 0.0
                        box_points[b] += q * mass * pts
    return overflow


def level_pass(
    states: np.ndarray,
    offsets: np.ndarray,
    P: np.ndarray,
    nxt_index: np.ndarray,
    nxt_offsets: np.ndarray,
    Q: np.ndarray,
    E: np.ndarray,
    r: RuleArrays,
    box_hits: np.ndarray,
    box_points: np.ndarray,
    overflow: np.ndarray,
) -> None:
    """Q (the next level's distributions) += every state's turn applied to P; box_hits and
    box_points as scatter_part.  The moves of every state first (in parallel), then the
    scatter in parts of Q's rows (one per thread, overflow[t] its error flag): no two
    threads write the same row."""
    n = states.shape[0]
    moves = np.zeros((n, r.base.shape[0], most_points(r) + 1, 2))
    for i in numba.prange(n):
        turn_moves(states[i, 0], states[i, 1], states[i, 2], E, r, moves[i])
    rows = Q.shape[0]
    parts = overflow.shape[0]
    for t in numba.prange(parts):
        lo, hi = rows * t // parts, rows * (t + 1) // parts
        count = t == 0  # (one thread tallies the boxes)
        src = (states, offsets, P, moves)
        if scatter_part(lo, hi, count, src, nxt_index, nxt_offsets, Q, r, box_hits, box_points):
            overflow[t] = 1


def move_step(
    up: int, yf: int, b: int, pts: int, extra: int, r: RuleArrays
) -> tuple[int, int, int]:
    """A move of turn_moves (box b, pts points, extra: a bonus Yahtzee) from upper total up
    and Yahtzee flag yf: (the points the turn adds, bonuses included; the upper total and
    the flag after)."""
    nup, paid = upper_step(up, pts, r.upper_face[b], r.threshold, r.upper_bonus)
    nyf = (1 if pts > 0 else 0) if b == r.ybox else yf
    return pts + extra * r.ybonus + paid, nup, nyf


def state_moments(
    mask: int, up: int, yf: int, moves: np.ndarray, M1: np.ndarray, M2: np.ndarray, r: RuleArrays
) -> tuple[float, float]:
    """The first two moments of the points still to come from a state, given its moves and
    the next level's moments: E[(g + R')^2] = E[g^2 + 2 g M1' + M2']."""
    m1 = 0.0
    m2 = 0.0
    for b in range(moves.shape[0]):
        for pts in range(moves.shape[1]):
            for extra in range(2):
                q = moves[b, pts, extra]
                if q == 0.0:
                    continue
                g, nup, nyf = move_step(up, yf, b, pts, extra, r)
                n1 = M1[mask | (1 << b), nup, nyf]
                n2 = M2[mask | (1 << b), nup, nyf]
                m1 += q * (g + n1)
                m2 += q * (g * g + 2.0 * g * n1 + n2)
    return m1, m2


def level_moments(
    states: np.ndarray, M1: np.ndarray, M2: np.ndarray, E: np.ndarray, r: RuleArrays
) -> None:
    """M1, M2[state] = the first two moments of the points still to come under the optimal
    policy, for the states of one level (those of the next level known): the second
    backward pass."""
    top = most_points(r)
    for i in numba.prange(states.shape[0]):
        mask, up, yf = states[i, 0], states[i, 1], states[i, 2]
        moves = np.zeros((r.base.shape[0], top + 1, 2))
        turn_moves(mask, up, yf, E, r, moves)
        M1[mask, up, yf], M2[mask, up, yf] = state_moments(mask, up, yf, moves, M1, M2, r)


for helper in (most_points, follow_keeps, turn_moves, scatter_part, move_step, state_moments):
    HELPERS[helper.__name__] = compiled(helper)
jit_level_pass = compiled(level_pass, parallel=True)
jit_level_moments = compiled(level_moments, parallel=True)
