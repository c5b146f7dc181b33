"""The optimal player against a fixed, score-blind turn policy (the expected-points optimum,
say), where reaching the target wins at once: the exact "versus" table, and simulated games
that must reproduce it.  A test oracle for the game solver."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dicesolver.objectives.plain_game import (
    NEWTON_TOL,
    bank_minimums,
    check_supported,
    turn_payoff,
)
from dicesolver.play.policies import OptimalPolicy
from dicesolver.play.simulate import play_turns
from dicesolver.turn import TurnLevels, solve_turn


@dataclass(frozen=True, eq=False)
class VersusTable:
    """The optimal player against a fixed turn policy, where reaching the target wins at
    once.  X[a, b]: the optimal player moves with a against b; Y[b, a]: the other moves
    with b against a.  Both are the optimal player's chance of winning."""

    model: object
    X: np.ndarray
    Y: np.ndarray


def solve_versus(model, turn_points: dict[int, float], target: int | None = None) -> VersusTable:
    """turn_points: the other player's turn, points recorded -> probability (any score-blind
    policy, e.g. the expected-points optimum from evaluate.py).  Sums from the top; at each
    sum Y = c + P(0) X and X = f(Y) for the zilch payoff: Newton with f's slope."""
    rules = model.rules
    check_supported(rules)
    assert rules.end == "instant", "the versus solver covers rules where reaching the target wins"
    target = rules.target if target is None else target
    R = rules.reach_units(target)
    u = rules.unit
    xs = np.array(sorted(turn_points), dtype=np.int64) // u
    ps = np.array([turn_points[k] for k in sorted(turn_points)])
    p0 = float(ps[xs == 0].sum())
    X = np.full((R, R), np.nan)
    Y = np.full((R, R), np.nan)
    for sigma in range(2 * (R - 1), -1, -1):
        rows = [(a, sigma - a) for a in range(max(0, sigma - R + 1), min(sigma, R - 1) + 1)]
        a = np.array([r[0] for r in rows])
        b = np.array([r[1] for r in rows])
        # Y[b, a] = P(0) X[a, b] + sum over x > 0 of P(x) X[a, b + x] (0 where b + x wins)
        c = np.zeros(len(rows))
        for x, p in zip(xs, ps):
            if x > 0:
                nb = b + x
                ok = nb < R
                c[ok] += p * X[a[ok], nb[ok]]
        span = R + 1
        final = a[:, None] + np.arange(span)[None, :]
        inside = final < R
        U = np.ones(final.shape)
        U[inside] = Y[np.broadcast_to(b[:, None], final.shape)[inside], final[inside]]
        w = np.array([X[aa, bb + 1] if bb + 1 < R else 0.5 for aa, bb in rows])
        for _ in range(60):
            z = c + p0 * w
            sol = solve_turn(model, turn_payoff(model, U, z, bank_minimums(rules, a)))
            val = sol.roll[:, 0, 0]
            if np.max(np.abs(val - w)) < NEWTON_TOL:
                break
            g = sol.extras[0][:, 0, 0]
            w = (val + g * (c - z)) / (1.0 - g * p0)
        else:
            raise RuntimeError(f"no convergence at score sum {sigma}")
        X[a, b] = val
        Y[b, a] = c + p0 * val
    return VersusTable(model, X, Y)


def play_versus(
    v: VersusTable, strategy, n_games: int, rng: np.random.Generator, optimal_first: bool = True
) -> np.ndarray:
    """The optimal player against `strategy` (a turn policy, see play/policies.py): 1 where
    the optimal player wins."""
    model = v.model
    rules = model.rules
    R = v.X.shape[0]
    rows = np.array([(a, b) for a in range(R) for b in range(R)])
    a, b = rows[:, 0], rows[:, 1]
    final = a[:, None] + np.arange(R + 1)[None, :]
    inside = final < R
    U = np.ones(final.shape)
    U[inside] = v.Y[np.broadcast_to(b[:, None], final.shape)[inside], final[inside]]
    sol = solve_turn(model, turn_payoff(model, U, v.Y[b, a], bank_minimums(rules, a)))
    optimal = OptimalPolicy(TurnLevels(rules, (sol,)).values, None, sol.cap, 1)
    other = strategy.compile(model)
    score = np.zeros((n_games, 2), np.int64)  # [optimal, other]
    winner = np.full(n_games, -1)
    mover = 0 if optimal_first else 1
    while (winner < 0).any():
        act = np.nonzero(winner < 0)[0]
        if mover == 0:
            pts = play_turns(
                model, optimal, len(act), rng, True, rows=score[act, 0] * R + score[act, 1]
            ).points
        else:
            pts = play_turns(model, other, len(act), rng, True).points
        score[act, mover] += pts
        winner[act[score[act, mover] >= R]] = mover
        mover = 1 - mover
    return (winner == 0).astype(np.int64)
