"""One turn of the Yahtzee family (the "widget"): roll, keep, roll, keep, roll, score.

Plain Python over numpy arrays and ints (any number of dice: the keep graph's), with no
calls out: solve.py compiles it with numba and runs it for every state of a level in
parallel; queries (advise) run this same code uncompiled for a single state, so they never
wait for a compiler.

Arrays (see dice.KeepGraph and scoring.ScoreTables):
  E[mask, up, yf]  value of the state between turns (boxes filled, upper total capped at
                   the threshold, Yahtzee box holding its points); E of the full sheet is 0.
  forced           1: the boxes are filled in their order (only the first open one scores)
Outputs, filled in place:
  VB[o, b]  hand o scored in box b (-inf where not allowed): points + bonuses + E(next)
  A1[k]     keeping k with one roll left;  A2[k]: with two rolls left
  returns   the value of the state at the start of its turn.
"""

import numpy as np

NEG = -1e300


def first_open(mask, forced):
    """Forced order: the one box that may score (the first open); -1: any open box."""
    if forced != 1:
        return -1
    only = 0
    while (mask >> only) & 1 == 1:
        only += 1
    return only


def box_move(
    mask,
    up,
    yf,
    o,
    b,
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
):
    """Hand o scored in box b: (gain, points in the box, next upper total, next flag); the
    gain is NEG where the box is filled or the rules forbid it (the one place the bonus and
    joker rules live: the solver, the evaluator, advise and score_box read them here)."""
    nb = base.shape[0]
    if (mask >> b) & 1 == 1 or (only >= 0 and b != only):
        return NEG, 0, up, yf
    pts = base[b, o]
    f5 = five[o]
    extra = ybox >= 0 and (mask >> ybox) & 1 == 1 and f5 >= 0  # an extra Yahtzee
    bonus = ybonus if (extra and yf == 1) else 0
    if extra and joker_mode == 1:
        # forced joker: the upper box of its face if open, else a lower box, else upper 0
        forced_upper = -1
        lower_open = False
        for b2 in range(nb):
            if (mask >> b2) & 1 == 0:
                if upper_face[b2] == f5 + 1:
                    forced_upper = b2
                elif upper_face[b2] == 0:
                    lower_open = True
        if forced_upper >= 0 and b != forced_upper:
            return NEG, 0, up, yf
        if forced_upper < 0:
            if lower_open and upper_face[b] != 0:
                return NEG, 0, up, yf
            if not lower_open:
                pts = 0
            elif joker[b] >= 0:
                pts = joker[b]
    elif extra and joker_mode == 2 and joker[b] >= 0:
        # free joker: the fixed points only once the upper box of its face is filled
        for b2 in range(nb):
            if upper_face[b2] == f5 + 1 and (mask >> b2) & 1 == 1:
                pts = joker[b]
    nup = up
    gain = pts + bonus
    if upper_face[b] > 0:
        nup = up + pts
        if nup >= threshold:
            nup = threshold
            if up < threshold:
                gain += upper_bonus
    nyf = yf
    if b == ybox:
        nyf = 1 if pts > 0 else 0
    return float(gain), pts, nup, nyf


def widget(
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
):
    nb = base.shape[0]
    n_out = base.shape[1]
    nk = add.shape[0]
    F = np.empty(n_out)
    # -- 0 rolls left: score the hand in a box ----------------------------------------------
    only = first_open(mask, forced)
    y_filled = ybox >= 0 and (mask >> ybox) & 1 == 1
    for o in range(n_out):
        best = NEG
        special = y_filled and five[o] >= 0  # an extra Yahtzee: bonus and joker (box_move)
        for b in range(nb):
            VB[o, b] = NEG
            if (mask >> b) & 1 == 1 or (only >= 0 and b != only):
                continue
            if special:
                gain, pts, nup, nyf = box_move(
                    mask,
                    up,
                    yf,
                    o,
                    b,
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
                if gain <= NEG / 2:
                    continue
            else:  # (box_move's ordinary case, written out: the hot loop of the solver)
                pts = base[b, o]
                gain = float(pts)
                nup = up
                if upper_face[b] > 0:
                    nup = up + pts
                    if nup >= threshold:
                        nup = threshold
                        if up < threshold:
                            gain += upper_bonus
                nyf = yf
                if b == ybox:
                    nyf = 1 if pts > 0 else 0
            v = gain + E[mask | (1 << b), nup, nyf]
            VB[o, b] = v
            if v > best:
                best = v
        F[o] = best
    # -- keeps: average over the dice added, best over the dice dropped --------------------
    last = size_start[size_start.shape[0] - 2]  # the first keep of all the dice
    for rolls in range(2):
        A = A1 if rolls == 0 else A2
        for o in range(n_out):
            A[roll_keep[o]] = F[o]
        for k in range(last - 1, -1, -1):  # keeps of fewer dice: mean over one more die
            s = 0.0
            for f in range(6):
                s += A[add[k, f]]
            A[k] = s / 6.0
        M = np.empty(nk)  # best keep within each multiset
        for k in range(nk):
            m = A[k]
            for f in range(6):
                j = remove[k, f]
                if j >= 0 and M[j] > m:
                    m = M[j]
            M[k] = m
        for o in range(n_out):
            F[o] = M[roll_keep[o]]
    # the start of the turn: all five dice rolled
    s = 0.0
    tmp = np.empty(nk)
    for o in range(n_out):
        tmp[roll_keep[o]] = F[o]
    for k in range(last - 1, -1, -1):
        s = 0.0
        for f in range(6):
            s += tmp[add[k, f]]
        tmp[k] = s / 6.0
    return tmp[0]


def best_keeps(A, remove, arg):
    """arg[k]: the keep within multiset k that the widget's max takes (its own value first,
    a smaller keep only where strictly better), so the policy is the solver's, ties and all."""
    nk = A.shape[0]
    M = np.empty(nk)
    for k in range(nk):
        m = A[k]
        a = k
        for f in range(6):
            j = remove[k, f]
            if j >= 0 and M[j] > m:
                m = M[j]
                a = arg[j]
        M[k] = m
        arg[k] = a


def roll_rest(w, add, last):
    """Keep masses w (over keeps) rolled on to hands: each die added is one of six faces;
    on return w[hand keeps] holds the probability of each hand."""
    for k in range(last):  # keeps by size: a keep's mass moves on to its keeps + 1 die
        m = w[k] / 6.0
        if m != 0.0:
            for f in range(6):
                w[add[k, f]] += m
        w[k] = 0.0
