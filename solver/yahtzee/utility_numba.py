"""The exponential-utility turn (utility.py) compiled by numba, with the three passes over
a level it takes: the backward solve of the certainty equivalents, the forward pass of the
final-score distribution under a policy (forward.py's, its turn the utility widget's; theta
0: the expected-score widget, so one pass serves every score-blind policy) and the backward
pass of every state's points still to come (to_come_table.py)."""

from __future__ import annotations

import numba
import numpy as np

from . import utility as U
from .forward import follow_keeps, most_points, move_step, scatter_part
from .numba_kernel import HELPERS, compiled
from .utility import uwidget
from .widget import NEG, RuleArrays, extra_points, roll_rest

# the names these functions call are compiled ones: numba reads a function's globals with
# HELPERS over them (forward.py registered follow_keeps, scatter_part, most_points)
for _name in ("exp_mean", "uroll_means", "ukeep_roll", "uwidget"):
    HELPERS[_name] = compiled(getattr(U, _name))


def level(states: np.ndarray, C: np.ndarray, r: RuleArrays, theta: float) -> None:
    """C[mask, up, yf] for every state of one level, in parallel."""
    nb, n_out, nk = r.base.shape[0], r.base.shape[1], r.add.shape[0]
    for i in numba.prange(states.shape[0]):
        mask, up, yf = states[i, 0], states[i, 1], states[i, 2]
        VB = np.empty((n_out, nb))
        A1 = np.empty(nk)
        A2 = np.empty(nk)
        C[mask, up, yf] = uwidget(mask, up, yf, C, r, VB, A1, A2, theta)


def uturn_moves(
    mask: int, up: int, yf: int, C: np.ndarray, r: RuleArrays, acc: np.ndarray, theta: float
) -> None:
    """forward.turn_moves under the policy of the utility widget over C."""
    nb, n_out, nk = r.base.shape[0], r.base.shape[1], r.add.shape[0]
    last = r.size_start[r.size_start.shape[0] - 2]
    VB = np.empty((n_out, nb))
    A1 = np.empty(nk)
    A2 = np.empty(nk)
    uwidget(mask, up, yf, C, r, VB, A1, A2, theta)
    arg = np.empty(nk, np.int64)
    w = np.zeros(nk)
    w[0] = 1.0
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
        for b in range(nb):
            if VB[o, b] > best:
                best = VB[o, b]
                bb = b
        if y_filled and five[o] >= 0:
            extra_points(mask, o, r, extra_pts)
            acc[bb, extra_pts[bb], yf] += q
        else:
            acc[bb, base[bb, o], 0] += q


def level_pass(
    src: tuple[np.ndarray, np.ndarray, np.ndarray],
    nxt_index: np.ndarray,
    nxt_offsets: np.ndarray,
    Q: np.ndarray,
    C: np.ndarray,
    r: RuleArrays,
    theta: float,
    overflow: np.ndarray,
) -> None:
    """forward.level_pass under the utility policy (src: states, offsets, P)."""
    states, offsets, P = src
    n = states.shape[0]
    moves = np.zeros((n, r.base.shape[0], most_points(r) + 1, 2))
    for i in numba.prange(n):
        uturn_moves(states[i, 0], states[i, 1], states[i, 2], C, r, moves[i], theta)
    rows = Q.shape[0]
    parts = overflow.shape[0]
    hits = np.zeros(r.base.shape[0])
    points = np.zeros(r.base.shape[0])
    for t in numba.prange(parts):
        lo, hi = rows * t // parts, rows * (t + 1) // parts
        if scatter_part(
            lo, hi, False, (states, offsets, P, moves), nxt_index, nxt_offsets, Q, r, hits, points
        ):
            overflow[t] = 1


def level_back(
    states: np.ndarray,
    index: np.ndarray,
    off: np.ndarray,
    D: np.ndarray,
    C: np.ndarray,
    r: RuleArrays,
    theta: float,
    bad: np.ndarray,
) -> None:
    """D's segment of every state of one level (those of the next level known): the
    distribution of its points still to come, sum over the turn's moves of q x the next
    state's segment shifted by the points the move adds (to_come_table.py).  bad[i] = 1
    where a segment is too short (a bound of to_come_table.widths is wrong) or a move
    leads out of the levels."""
    top = most_points(r)
    for i in numba.prange(states.shape[0]):
        mask, up, yf = states[i, 0], states[i, 1], states[i, 2]
        moves = np.zeros((r.base.shape[0], top + 1, 2))
        uturn_moves(mask, up, yf, C, r, moves, theta)
        j = index[mask, up, yf]
        lo, hi = off[j], off[j + 1]
        for b in range(moves.shape[0]):
            for pts in range(moves.shape[1]):
                for extra in range(2):
                    q = moves[b, pts, extra]
                    if q == 0.0:
                        continue
                    g, nup, nyf = move_step(up, yf, b, pts, extra, r)
                    k = index[mask | (1 << b), nup, nyf]
                    if k < 0:  # (a move to a state the levels do not hold)
                        bad[i] = 1
                        continue
                    n_lo, n_hi = off[k], off[k + 1]
                    if lo + g + n_hi - n_lo > hi:
                        bad[i] = 1
                        continue
                    for x in range(n_hi - n_lo):
                        D[lo + g + x] += q * D[n_lo + x]


HELPERS["uturn_moves"] = compiled(uturn_moves)
jit_level = compiled(level, parallel=True)
jit_level_pass = compiled(level_pass, parallel=True)
jit_level_back = compiled(level_back, parallel=True)
