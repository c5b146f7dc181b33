"""One turn of the Yahtzee family (the "widget"): roll, keep, roll, keep, roll, score.

Plain Python over numpy arrays and ints (any number of dice: the keep graph's), with no
calls out but to this module: numba_kernel.py compiles it with numba and runs it for every state
of a level in parallel; queries (advise) run this same code uncompiled for a single state,
so they never wait for a compiler.

The rules come as one RuleArrays (solve.rule_arrays builds it once per rule set), which
numba takes as one argument and _widget.c reads by its field names.
  E[mask, up, yf]  value of the state between turns (boxes filled, upper total capped at
                   the threshold, Yahtzee box holding its points); E of the full sheet is 0.
Outputs, filled in place:
  VB[o, b]  hand o scored in box b (-inf where not allowed): points + bonuses + E(next)
  A1[k]     keeping k with one roll left;  A2[k]: with two rolls left
  returns   the value of the state at the start of its turn.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

NEG = -1e300


class RuleArrays(NamedTuple):
    """A rule set as the widget reads it: the score tables (box_scores.ScoreTables) and the
    keep graph (hands.KeepGraph) of its dice, arrays int64 but roll_prob, read-only."""

    base: np.ndarray  # (boxes, hands) ordinary points of a hand in a box
    upper_face: np.ndarray  # (boxes,) face 1..6 of an upper box, 0 for a lower box
    joker: np.ndarray  # (boxes,) an extra Yahtzee's joker points, -1: its ordinary ones
    five: np.ndarray  # (hands,) face 0..5 of a hand of all dice alike, -1 otherwise
    add: np.ndarray  # (keeps, 6) the keep plus one die of face f (-1: all dice kept)
    remove: np.ndarray  # (keeps, 6) the keep less one die of face f (-1: none)
    roll_keep: np.ndarray  # (hands,) the keep of each hand of all the dice
    size_start: np.ndarray  # (dice + 2,) keeps of j dice: [size_start[j], size_start[j+1])
    roll_prob: np.ndarray  # (hands,) float64: each hand's chance on one roll of all dice
    ybox: int  # the Yahtzee box where its bonus or joker applies, else -1
    joker_mode: int  # 0: none, 1: forced, 2: free
    upper_bonus: int
    threshold: int  # (0 without an upper bonus)
    ybonus: int  # each extra Yahtzee's bonus
    forced: int  # 1: the boxes are filled in their order (only the first open one scores)


def first_open(mask: int, forced: int) -> int:
    """Forced order: the one box that may score (the first open); -1: any open box."""
    if forced != 1:
        return -1
    only = 0
    while (mask >> only) & 1 == 1:
        only += 1
    return only


def upper_step(up: int, pts: int, face: int, threshold: int, upper_bonus: int) -> tuple[int, int]:
    """(the next upper total, the upper bonus it pays) of pts scored in a box of face
    (0: a lower box, which leaves the total)."""
    if face == 0:
        return up, 0
    nup = up + pts
    if nup < threshold:
        return nup, 0
    return threshold, upper_bonus if up < threshold else 0


def forced_joker(mask: int, face: int, r: RuleArrays, pts: np.ndarray) -> None:
    """The official joker on pts (an extra Yahtzee of face's points per box): the upper box
    of its face if open, else an open lower box (a house or straight at its joker points),
    else an upper box for 0; -1 in the boxes it forbids."""
    upper_face, joker = r.upper_face, r.joker
    forced_upper = -1
    lower_open = False
    for b in range(pts.shape[0]):
        if (mask >> b) & 1 == 0:
            if upper_face[b] == face:
                forced_upper = b
            elif upper_face[b] == 0:
                lower_open = True
    for b in range(pts.shape[0]):
        if forced_upper >= 0:
            pts[b] = pts[b] if b == forced_upper else -1
        elif not lower_open:
            pts[b] = 0
        elif upper_face[b] != 0:
            pts[b] = -1
        elif joker[b] >= 0:
            pts[b] = joker[b]


def extra_points(mask: int, o: int, r: RuleArrays, pts: np.ndarray) -> None:
    """pts[b]: the points of hand o, an extra Yahtzee (the Yahtzee box filled), in box b
    under the joker rule, -1 where that rule forbids b (the one place the joker rules live:
    the solver, the evaluator, advise and score_box read them here)."""
    base, joker = r.base, r.joker
    face = r.five[o] + 1
    for b in range(pts.shape[0]):
        pts[b] = base[b, o]
    if r.joker_mode == 1:
        forced_joker(mask, face, r, pts)
    elif r.joker_mode == 2:
        # free joker: the fixed points only once the upper box of its face is filled
        for b2 in range(pts.shape[0]):
            if r.upper_face[b2] == face and (mask >> b2) & 1 == 1:
                for b in range(pts.shape[0]):
                    if joker[b] >= 0:
                        pts[b] = joker[b]


def score_hands(
    mask: int, up: int, yf: int, E: np.ndarray, r: RuleArrays, VB: np.ndarray, F: np.ndarray
) -> None:
    """0 rolls left: VB[o, b] each hand scored in each box, F[o] its best, by the ordinary
    rules (score_extras then puts the extra Yahtzees right).  The hot loop of the solver,
    written out: numba counts a reference at each read of one of r's arrays and at each
    call given r, so the arrays are read once and no call is made in the loop."""
    base, upper_face = r.base, r.upper_face
    ybox, threshold, upper_bonus = r.ybox, r.threshold, r.upper_bonus
    only = first_open(mask, r.forced)
    for o in range(base.shape[1]):
        best = NEG
        for b in range(base.shape[0]):
            VB[o, b] = NEG
            if (mask >> b) & 1 == 1 or (only >= 0 and b != only):
                continue
            pts = base[b, o]
            gain = float(pts)
            nup = up
            if upper_face[b] > 0:
                nup = up + pts
                if nup >= threshold:
                    nup = threshold
                    if up < threshold:
                        gain += upper_bonus
            nyf = (1 if pts > 0 else 0) if b == ybox else yf
            v = gain + E[mask | (1 << b), nup, nyf]
            VB[o, b] = v
            if v > best:
                best = v
        F[o] = best


def score_extras(
    mask: int, up: int, yf: int, E: np.ndarray, r: RuleArrays, VB: np.ndarray, F: np.ndarray
) -> None:
    """score_hands' VB and F again for the extra Yahtzees (the Yahtzee box filled, a hand of
    all dice alike): their joker points (extra_points) and the Yahtzee bonus while the box
    holds its points (yf)."""
    ybox, five, upper_face = r.ybox, r.five, r.upper_face
    if ybox < 0 or (mask >> ybox) & 1 == 0:
        return
    only = first_open(mask, r.forced)
    bonus = r.ybonus if yf == 1 else 0
    pts = np.empty(VB.shape[1], np.int64)
    for o in range(five.shape[0]):
        if five[o] < 0:
            continue
        extra_points(mask, o, r, pts)
        best = NEG
        for b in range(VB.shape[1]):
            VB[o, b] = NEG
            if (mask >> b) & 1 == 1 or (only >= 0 and b != only) or pts[b] < 0:
                continue
            nup, paid = upper_step(up, pts[b], upper_face[b], r.threshold, r.upper_bonus)
            # (b is open, so not the Yahtzee box: the flag stays)
            v = float(pts[b] + bonus + paid) + E[mask | (1 << b), nup, yf]
            VB[o, b] = v
            if v > best:
                best = v
        F[o] = best


def roll_means(A: np.ndarray, add: np.ndarray, last: int) -> None:
    """A[k] for the keeps of fewer than all the dice: the mean over one more die (from the
    most dice down, so each mean reads finished ones)."""
    for k in range(last - 1, -1, -1):
        s = 0.0
        for f in range(6):
            s += A[add[k, f]]
        A[k] = s / 6.0


def keep_roll(A: np.ndarray, F: np.ndarray, r: RuleArrays, last: int) -> None:
    """One roll back: A[k] the value of keeping k given F[o] (each hand's value after the
    roll); then F[o] the best keep within hand o (every sub-multiset, the hand itself too)."""
    roll_keep, remove = r.roll_keep, r.remove
    for o in range(roll_keep.shape[0]):
        A[roll_keep[o]] = F[o]
    roll_means(A, r.add, last)
    M = np.empty(remove.shape[0])  # best keep within each multiset
    for k in range(remove.shape[0]):
        m = A[k]
        for f in range(6):
            j = remove[k, f]
            if j >= 0 and M[j] > m:
                m = M[j]
        M[k] = m
    for o in range(roll_keep.shape[0]):
        F[o] = M[roll_keep[o]]


def widget(
    mask: int,
    up: int,
    yf: int,
    E: np.ndarray,
    r: RuleArrays,
    VB: np.ndarray,
    A1: np.ndarray,
    A2: np.ndarray,
) -> float:
    """The value of state (mask, up, yf) at the start of its turn; VB, A1, A2 filled."""
    last = r.size_start[r.size_start.shape[0] - 2]  # the first keep of all the dice
    F = np.empty(r.base.shape[1])
    score_hands(mask, up, yf, E, r, VB, F)
    score_extras(mask, up, yf, E, r, VB, F)
    keep_roll(A1, F, r, last)
    keep_roll(A2, F, r, last)
    # the start of the turn: all the dice rolled
    tmp = np.empty(r.add.shape[0])
    roll_keep = r.roll_keep
    for o in range(roll_keep.shape[0]):
        tmp[roll_keep[o]] = F[o]
    roll_means(tmp, r.add, last)
    return float(tmp[0])


def best_keeps(A: np.ndarray, remove: np.ndarray, arg: np.ndarray) -> None:
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


def roll_rest(w: np.ndarray, add: np.ndarray, last: int) -> None:
    """Keep masses w (over keeps) rolled on to hands: each die added is one of six faces;
    on return w[hand keeps] holds the probability of each hand."""
    for k in range(last):  # keeps by size: a keep's mass moves on to its keeps + 1 die
        m = w[k] / 6.0
        if m != 0.0:
            for f in range(6):
                w[add[k, f]] += m
        w[k] = 0.0
