"""Turns played one after another, where the third zilch in a row costs a penalty.

A turn's policy depends on k, the zilches in a row before it (0, 1, 2).  Given each k's
turn (its mean recorded points, the penalty included at k = 2, and its chance of a
zilch), the count is a three-state Markov chain and the long-run average g and relative
values h follow exactly from g + h(k) = mean(k) + q(k) h(k + 1 mod 3) + (1 - q(k)) h(0),
h(0) = 0: ``chain``.  ``play_long_run`` plays it with physical dice for many players at
once; a player's (points + h(k at the end) - h(k at the start)) / turns has expectation
exactly g, whatever the number of turns (the relative values absorb the start).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..outcomes.model import TurnModel
from ..progress import Progress, steps
from .policies import Policy
from .simulate import play_turns


def chain(means: Sequence[float], p_zilch: Sequence[float]) -> tuple[float, np.ndarray]:
    """(g, h) of the count of zilches in a row under turns with these means and chances of
    a zilch, by k."""
    M = np.zeros((3, 3))  # unknowns g, h(1), h(2)
    for k in range(3):
        nk = (k + 1) % 3
        M[k, 0] = 1.0
        if k:
            M[k, k] += 1.0
        if nk:
            M[k, nk] -= p_zilch[k]
    x = np.linalg.solve(M, np.asarray(means, float))
    return float(x[0]), np.array([0.0, x[1], x[2]])


def play_long_run(
    model: TurnModel,
    policies: Sequence[Policy],
    players: int,
    turns: int,
    rng: np.random.Generator,
    penalty: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Each of `players` players plays `turns` turns on the board, starting with no zilch
    in a row, turn k by policies[k]; penalty in units.  (points in units, final k) per
    player."""
    points = np.zeros(players, np.int64)
    k = np.zeros(players, np.int64)
    for _ in range(turns):
        new_k = np.zeros(players, np.int64)
        for kk in range(3):
            who = np.nonzero(k == kk)[0]
            if not len(who):
                continue
            cost = penalty if kk == 2 else 0
            played = play_turns(model, policies[kk], len(who), rng, True, penalty=cost)
            points[who] += played.points
            # a zilch recorded nothing, or only its permanent points, or the penalty: the
            # simulator marks it by the state it ended in, so it is asked directly
            new_k[who] = np.where(played.zilched, (kk + 1) % 3, 0)
        k = new_k
    return points, k


def play_players(
    model: TurnModel,
    policies: list[Policy],
    players: int,
    each: int,
    rng: np.random.Generator,
    penalty: int,
    progress: Progress,
) -> tuple[np.ndarray, np.ndarray]:
    """Each of `players` players' points (units) and zilches in a row at the end after
    `each` turns one after another (play_long_run, in groups of 2000: the bar moves)."""
    points = np.zeros(players, np.int64)
    k_end = np.zeros(players, np.int64)
    with steps(progress, "simulating", players * each):
        for lo in range(0, players, 2000):
            n = min(2000, players - lo)
            pts, ks = play_long_run(model, policies, n, each, rng, penalty)
            points[lo : lo + n], k_end[lo : lo + n] = pts, ks
            progress.advance(n * each)
    return points, k_end
