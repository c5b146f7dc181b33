"""One turn of the Yahtzee family played to reach a number of points: the widget of
widget.py over a vector of "points still needed" t instead of one expected score.

Plain Python over numpy arrays and ints: numba compiles it (threshold_numba.py) where the C
kernel (_threshold.c) was not built; queries (advise) run it uncompiled for one state at one
t.  The same decisions as widget.py (keep, then score a box), the values
  W(state, t) = the largest P(points still to come >= t)   (at-least tables, lo = 1)
  W(state, t) = the largest P(to come > t) + P(to come = t) / 2   (beat tables, lo = 0)
Every choice takes the elementwise max over t, a roll the mean; scoring g points (box,
upper bonus and Yahtzee bonus) reads the next state's vector at t - g.

A level's vectors: `data` flat, state row i holding t = lo .. lo + n_i - 1 at
data[off[i] : off[i + 1]]; below lo the value is 1, past the end 0 (threshold.max_points
bounds the points a state can still make).  `index[mask, up, yf]` is a state's row in
its own level.
"""

from __future__ import annotations

import numpy as np

from .widget import RuleArrays, extra_points, first_open, upper_step


def at(data: np.ndarray, off: np.ndarray, row: int, lo: int, t: int) -> float:
    """A stored vector's value at t (1 below its range, 0 past it)."""
    if t < lo:
        return 1.0
    i = t - lo
    if i >= off[row + 1] - off[row]:
        return 0.0
    return float(data[off[row] + i])


def move(
    mask: int, up: int, yf: int, o: int, b: int, r: RuleArrays, pts_buf: np.ndarray
) -> tuple[int, int, int]:
    """(points gained, next upper total, next flag) of hand o scored in open box b; points
    -1 where the joker rule forbids it.  The points count every bonus the move pays."""
    bonus = 0
    if r.ybox >= 0 and (mask >> r.ybox) & 1 == 1 and r.five[o] >= 0:
        extra_points(mask, o, r, pts_buf)  # an extra Yahtzee: the joker rule's points
        pts = pts_buf[b]
        if pts < 0:
            return -1, 0, 0
        if yf == 1:
            bonus = r.ybonus
    else:
        pts = r.base[b, o]
    nup, paid = upper_step(up, pts, r.upper_face[b], r.threshold, r.upper_bonus)
    nyf = yf
    if b == r.ybox:
        nyf = 1 if pts > 0 else 0
    return pts + bonus + paid, nup, nyf


def score_block(
    mask: int,
    up: int,
    yf: int,
    t0: int,
    r: RuleArrays,
    nxt: tuple[np.ndarray, np.ndarray, np.ndarray],
    lo: int,
    F: np.ndarray,
) -> None:
    """F[o, j]: the best box for hand o at t = t0 + j, over the next level's vectors
    nxt = (index, off, data)."""
    index, off, data = nxt
    nb, hands, nt = r.base.shape[0], r.base.shape[1], F.shape[1]
    only = first_open(mask, r.forced)
    pts_buf = np.empty(nb, np.int64)
    for o in range(hands):
        for j in range(nt):
            F[o, j] = -1.0
        for b in range(nb):
            if (mask >> b) & 1 == 1 or (only >= 0 and b != only):
                continue
            g, nup, nyf = move(mask, up, yf, o, b, r, pts_buf)
            if g < 0:
                continue
            row = index[mask | (1 << b), nup, nyf]
            for j in range(nt):
                v = at(data, off, row, lo, t0 + j - g)
                if v > F[o, j]:
                    F[o, j] = v


def box_values(
    mask: int,
    up: int,
    yf: int,
    o: int,
    t: int,
    r: RuleArrays,
    nxt: tuple[np.ndarray, np.ndarray, np.ndarray],
    lo: int,
) -> np.ndarray:
    """The value at t of hand o scored in each box (-1: not allowed): advise's last roll."""
    index, off, data = nxt
    nb = r.base.shape[0]
    only = first_open(mask, r.forced)
    pts_buf = np.empty(nb, np.int64)
    out = np.full(nb, -1.0)
    for b in range(nb):
        if (mask >> b) & 1 == 1 or (only >= 0 and b != only):
            continue
        g, nup, nyf = move(mask, up, yf, o, b, r, pts_buf)
        if g >= 0:
            out[b] = at(data, off, index[mask | (1 << b), nup, nyf], lo, t - g)
    return out


def box_span(
    mask: int,
    up: int,
    yf: int,
    o: int,
    t0: int,
    r: RuleArrays,
    nxt: tuple[np.ndarray, np.ndarray, np.ndarray],
    lo: int,
    out: np.ndarray,
) -> None:
    """out[b, j] = box_values(..., t0 + j)[b] for j = 0 .. out.shape[1] - 1 (one call for
    a span of t: the simulated games' last rolls)."""
    for j in range(out.shape[1]):
        out[:, j] = box_values(mask, up, yf, o, t0 + j, r, nxt, lo)


def roll_means(A: np.ndarray, add: np.ndarray, last: int) -> None:
    """A[k, :] for the keeps of fewer than all the dice: the mean over one more die."""
    nt = A.shape[1]
    for k in range(last - 1, -1, -1):
        for j in range(nt):
            s = 0.0
            for f in range(6):
                s += A[add[k, f], j]
            A[k, j] = s / 6.0


def keep_roll(A: np.ndarray, F: np.ndarray, r: RuleArrays, last: int) -> None:
    """One roll back (widget.keep_roll, elementwise over t)."""
    roll_keep, remove = r.roll_keep, r.remove
    nt = A.shape[1]
    for o in range(roll_keep.shape[0]):
        for j in range(nt):
            A[roll_keep[o], j] = F[o, j]
    roll_means(A, r.add, last)
    M = np.empty((remove.shape[0], nt))
    for k in range(remove.shape[0]):
        for j in range(nt):
            m = A[k, j]
            for f in range(6):
                q = remove[k, f]
                if q >= 0 and M[q, j] > m:
                    m = M[q, j]
            M[k, j] = m
    for o in range(roll_keep.shape[0]):
        for j in range(nt):
            F[o, j] = M[roll_keep[o], j]


def twidget(
    mask: int,
    up: int,
    yf: int,
    t0: int,
    r: RuleArrays,
    nxt: tuple[np.ndarray, np.ndarray, np.ndarray],
    lo: int,
    A1: np.ndarray,
    A2: np.ndarray,
    out: np.ndarray,
) -> None:
    """out[j]: the state's value at t = t0 + j at the start of its turn; A1, A2 (keeps, nt):
    each keep's value with one and two rolls left."""
    last = r.size_start[r.size_start.shape[0] - 2]
    nt = out.shape[0]
    F = np.empty((r.base.shape[1], nt))
    score_block(mask, up, yf, t0, r, nxt, lo, F)
    keep_roll(A1, F, r, last)
    keep_roll(A2, F, r, last)
    for j in range(nt):
        s = 0.0
        for o in range(F.shape[0]):
            s += r.roll_prob[o] * F[o, j]
        out[j] = s
