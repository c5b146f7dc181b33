"""Risk-seeking or risk-averse play by exponential utility: the turn (widget.py's) that
maximises E[exp(theta * points to come)] (theta > 0: seeks risk) or minimises it (theta < 0:
shuns risk), solved in log space as a certainty equivalent.

The value of a state is C(s) = log E[exp(theta X)] / theta, X the points still to come under
the policy; C is what the expected score E is at theta = 0.  Scoring g points is additive in
C (exp(theta (g + X')) = exp(theta g) exp(theta X')), so the boxes are scored exactly as
widget.score_hands scores them over a table of C; a roll is the exponential mean
log(mean exp(theta C)) / theta, taken around the extreme value so that nothing overflows;
every choice is the max of C (log and 1/theta keep the order of the utility for either sign).

Plain Python like widget.py: utility_numba.py compiles it; docs/method.md "Strategies
against each other".
"""

from __future__ import annotations

import math

import numpy as np

from .widget import RuleArrays, score_extras, score_hands, widget


def exp_mean(vals: np.ndarray, n: int, theta: float) -> float:
    """log(mean over vals[:n] of exp(theta v)) / theta, around the extreme value."""
    c = vals[0]
    for i in range(1, n):
        if (theta > 0.0 and vals[i] > c) or (theta < 0.0 and vals[i] < c):
            c = vals[i]
    s = 0.0
    for i in range(n):
        s += math.exp(theta * (vals[i] - c))
    return c + math.log(s / n) / theta


def uroll_means(A: np.ndarray, add: np.ndarray, last: int, theta: float) -> None:
    """widget.roll_means with the exponential mean over one more die."""
    vals = np.empty(6)
    for k in range(last - 1, -1, -1):
        for f in range(6):
            vals[f] = A[add[k, f]]
        A[k] = exp_mean(vals, 6, theta)


def ukeep_roll(A: np.ndarray, F: np.ndarray, r: RuleArrays, last: int, theta: float) -> None:
    """widget.keep_roll with the exponential mean (the best keep within a hand: its max)."""
    roll_keep, remove = r.roll_keep, r.remove
    for o in range(roll_keep.shape[0]):
        A[roll_keep[o]] = F[o]
    uroll_means(A, r.add, last, theta)
    M = np.empty(remove.shape[0])
    for k in range(remove.shape[0]):
        m = A[k]
        for f in range(6):
            j = remove[k, f]
            if j >= 0 and M[j] > m:
                m = M[j]
        M[k] = m
    for o in range(roll_keep.shape[0]):
        F[o] = M[roll_keep[o]]


def uwidget(
    mask: int,
    up: int,
    yf: int,
    C: np.ndarray,
    r: RuleArrays,
    VB: np.ndarray,
    A1: np.ndarray,
    A2: np.ndarray,
    theta: float,
) -> float:
    """The certainty equivalent of (mask, up, yf) at the start of its turn; VB, A1, A2 as
    widget.widget fills them (over C); theta 0: widget.widget itself."""
    if theta == 0.0:
        return widget(mask, up, yf, C, r, VB, A1, A2)
    last = r.size_start[r.size_start.shape[0] - 2]
    F = np.empty(r.base.shape[1])
    score_hands(mask, up, yf, C, r, VB, F)
    score_extras(mask, up, yf, C, r, VB, F)
    ukeep_roll(A1, F, r, last, theta)
    ukeep_roll(A2, F, r, last, theta)
    tmp = np.empty(r.add.shape[0])
    roll_keep = r.roll_keep
    for o in range(roll_keep.shape[0]):
        tmp[roll_keep[o]] = F[o]
    uroll_means(tmp, r.add, last, theta)
    return float(tmp[0])
