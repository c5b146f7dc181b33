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
"""

from __future__ import annotations

import numba
import numpy as np

from .kernel import HELPERS, compiled
from .widget import NEG, best_keeps, box_move, first_open, roll_rest, widget


def turn_moves(
    mask,
    up,
    yf,
    E,
    base,
    upper_face,
    joker,
    five,
    ybox,
    joker_mode,
    upper_bonus,
    threshold,
    ybonus,
    forced,
    add,
    remove,
    roll_keep,
    size_start,
    roll_prob,
    VB,
    A1,
    A2,
    arg,
    w,
    acc,
):
    """One state's turn under the optimal policy: acc[b, pts, extra] = P(the turn scores pts
    in box b, extra: with a Yahtzee bonus) (acc zeroed by the caller; VB..w scratch)."""
    nb, n_out = base.shape[0], base.shape[1]
    last = size_start[size_start.shape[0] - 2]
    widget(
        mask,
        up,
        yf,
        E,
        base,
        upper_face,
        joker,
        five,
        ybox,
        joker_mode,
        upper_bonus,
        threshold,
        ybonus,
        forced,
        add,
        remove,
        roll_keep,
        size_start,
        VB,
        A1,
        A2,
    )
    w[:] = 0.0
    w[0] = 1.0  # no die kept: all of them rolled
    for A in (A2, A1):
        roll_rest(w, add, last)
        best_keeps(A, remove, arg)
        for o in range(n_out):  # each hand's mass moves to the keep the policy takes
            k = roll_keep[o]
            m = w[k]
            w[k] = 0.0
            w[arg[k]] += m
    roll_rest(w, add, last)
    only = first_open(mask, forced)
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
        gain, pts, nup, nyf = box_move(
            mask,
            up,
            yf,
            o,
            bb,
            base,
            upper_face,
            joker,
            five,
            ybox,
            joker_mode,
            upper_bonus,
            threshold,
            ybonus,
            only,
        )
        extra = 1 if (ybox >= 0 and (mask >> ybox) & 1 == 1 and five[o] >= 0 and yf == 1) else 0
        acc[bb, pts, extra] += q


def level_pass(
    states,
    offsets,
    P,
    nxt_index,
    nxt_offsets,
    Q,
    E,
    base,
    upper_face,
    joker,
    five,
    ybox,
    joker_mode,
    upper_bonus,
    threshold,
    ybonus,
    forced,
    add,
    remove,
    roll_keep,
    size_start,
    roll_prob,
    box_hits,
    box_points,
    overflow,
):
    """Q (the next level's distributions) += every state's turn applied to P; box_hits[b] +=
    P(box b scores > 0 points), box_points[b] += its mean points.  The states are split
    into parts (one per thread, overflow[t] its error flag), each scattering into the rows it
    owns: no two threads write the same row."""
    nb, n_out = base.shape[0], base.shape[1]
    nk = add.shape[0]
    maxpts = 0
    for b in range(nb):
        for o in range(n_out):
            if base[b, o] > maxpts:
                maxpts = base[b, o]
    for b in range(nb):
        if joker[b] > maxpts:
            maxpts = joker[b]
    n = states.shape[0]
    # first the moves of every state (in parallel), then the scatter by rows owned
    moves = np.zeros((n, nb, maxpts + 1, 2))
    for i in numba.prange(n):
        VB = np.empty((n_out, nb))
        A1 = np.empty(nk)
        A2 = np.empty(nk)
        arg = np.empty(nk, np.int64)
        w = np.empty(nk)
        turn_moves(
            states[i, 0],
            states[i, 1],
            states[i, 2],
            E,
            base,
            upper_face,
            joker,
            five,
            ybox,
            joker_mode,
            upper_bonus,
            threshold,
            ybonus,
            forced,
            add,
            remove,
            roll_keep,
            size_start,
            roll_prob,
            VB,
            A1,
            A2,
            arg,
            w,
            moves[i],
        )
    rows = Q.shape[0]
    parts = overflow.shape[0]
    for t in numba.prange(parts):
        lo, hi = rows * t // parts, rows * (t + 1) // parts
        for i in range(n):
            mask, up, yf = states[i, 0], states[i, 1], states[i, 2]
            src = P[offsets[i] : offsets[i + 1]]
            mass = src.sum()
            for b in range(nb):
                for pts in range(maxpts + 1):
                    for extra in range(2):
                        q = moves[i, b, pts, extra]
                        if q == 0.0:
                            continue
                        nup = up
                        if upper_face[b] > 0:
                            nup = min(up + pts, threshold)
                        nyf = yf
                        if b == ybox:
                            nyf = 1 if pts > 0 else 0
                        shift = pts + extra * ybonus - (nup - up)
                        j = nxt_index[mask | (1 << b), nup, nyf]
                        start = nxt_offsets[j] + shift
                        if start + src.shape[0] > nxt_offsets[j + 1]:
                            overflow[t] = 1  # (a bound of forward.widths is wrong)
                            continue
                        a = max(start, lo)
                        z = min(start + src.shape[0], hi)
                        for r in range(a, z):
                            Q[r] += q * src[r - start]
                        if t == 0:
                            box_hits[b] += q * mass if pts > 0 else 0.0
                            box_points[b] += q * mass * pts


HELPERS["turn_moves"] = compiled(turn_moves)
_level_pass = compiled(level_pass, parallel=True)


def level_moments(
    states,
    M1,
    M2,
    E,
    base,
    upper_face,
    joker,
    five,
    ybox,
    joker_mode,
    upper_bonus,
    threshold,
    ybonus,
    forced,
    add,
    remove,
    roll_keep,
    size_start,
    roll_prob,
):
    """M1, M2[state] = the first two moments of the points still to come under the optimal
    policy, for the states of one level (those of the next level known): the second
    backward pass, E[(g + R')^2] = E[g^2 + 2 g M1' + M2'] over the turn's moves."""
    nb, n_out = base.shape[0], base.shape[1]
    nk = add.shape[0]
    maxpts = 0
    for b in range(nb):
        for o in range(n_out):
            maxpts = max(maxpts, base[b, o])
        maxpts = max(maxpts, joker[b])
    for i in numba.prange(states.shape[0]):
        mask, up, yf = states[i, 0], states[i, 1], states[i, 2]
        VB = np.empty((n_out, nb))
        A1 = np.empty(nk)
        A2 = np.empty(nk)
        arg = np.empty(nk, np.int64)
        w = np.empty(nk)
        moves = np.zeros((nb, maxpts + 1, 2))
        turn_moves(
            mask,
            up,
            yf,
            E,
            base,
            upper_face,
            joker,
            five,
            ybox,
            joker_mode,
            upper_bonus,
            threshold,
            ybonus,
            forced,
            add,
            remove,
            roll_keep,
            size_start,
            roll_prob,
            VB,
            A1,
            A2,
            arg,
            w,
            moves,
        )
        m1 = 0.0
        m2 = 0.0
        for b in range(nb):
            for pts in range(maxpts + 1):
                for extra in range(2):
                    q = moves[b, pts, extra]
                    if q == 0.0:
                        continue
                    nup = up
                    g = pts + extra * ybonus
                    if upper_face[b] > 0:
                        nup = min(up + pts, threshold)
                        if up < threshold <= up + pts:
                            g += upper_bonus
                    nyf = yf
                    if b == ybox:
                        nyf = 1 if pts > 0 else 0
                    n1 = M1[mask | (1 << b), nup, nyf]
                    n2 = M2[mask | (1 << b), nup, nyf]
                    m1 += q * (g + n1)
                    m2 += q * (g * g + 2.0 * g * n1 + n2)
        M1[mask, up, yf] = m1
        M2[mask, up, yf] = m2


_level_moments = compiled(level_moments, parallel=True)
