"""An approximate P(win) among three players or more, at once, where the exact N-player
table (nplayer_game.py) is not stored: the mover's turn is solved exactly (the turn solver,
his zilch and every bank valued), the final round exactly (final_round.py: a bank that
reaches the target is worth what the exact table would say), and only the chances after a
bank or a zilch that stays below the target are approximated, from the exact two-player
table W of the same rules and target:

    w_ij = W[s_i, s_j] where seat i moves before seat j (from the mover: i < j),
           1 - W[s_j, s_i] otherwise: i's chance in the race of the two alone;
    P_i  = 1 / (1 + sum_j (1 - w_ij) / w_ij), normalised to sum to 1.

This is the Bradley-Terry reading of the pairwise chances (each seat a strength, a pair's
odds the ratio of theirs), from seat i's own odds against each of the others: it is exact
for two players (P_0 = w_01) and the race "first of N" of independent exponential-like
finishing times.  Measured against exact tables in docs/method.md and bench/bench_approx.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..outcomes.model import TurnModel
from ..rules import RuleSet
from .final_round import solve_final_round
from .nplayer_game import BatchTurns, FinalTable, bank_values, rotate, solve_turns
from .plain_game import bank_minimums

METHOD = "pairwise-two-player"  # (the answers' "method")


def pairwise_chances(W: np.ndarray, states: np.ndarray) -> np.ndarray:
    """(M, N) every seat's approximate chance at score tuples `states` ((M, N), units below
    R, the mover first) from the two-player table W (R, R)."""
    states = np.asarray(states)
    M, N = states.shape
    if N == 2:
        p = W[states[:, 0], states[:, 1]]
        return np.stack([p, 1.0 - p], axis=1)
    out = np.empty((M, N))
    tiny = 1e-300
    for i in range(N):
        inv = np.zeros(M)
        for j in range(N):
            if j == i:
                continue
            a, b = states[:, i], states[:, j]
            w = W[a, b] if i < j else 1.0 - W[b, a]
            inv += (1.0 - w) / np.maximum(w, tiny)
        out[:, i] = 1.0 / (1.0 + inv)
    return out / out.sum(axis=1, keepdims=True)


def final_key(rules: RuleSet, others: np.ndarray) -> np.ndarray:
    """The final round's keys of the others' scores (M, N - 1): shifted down as far as keeps
    every board flag (nplayer_game.FinalTable's keys)."""
    lowest = others.min(axis=1)
    if rules.min_bank(False) != rules.min_bank(True):
        shift = np.where(lowest > 0, lowest - 1, 0)
    else:
        shift = lowest
    return np.asarray(others - shift[:, None])


def finals_for(model: TurnModel, R: int, D: int, rows: np.ndarray) -> FinalTable:
    """The exact final round for the keys of `rows` only ((B, N), units): one solve per key
    (final_round.solve_final_round, as the exact table's final_rows), its leader scores
    only those the rows' banks reach: from the target (R .. R + D) up to the mover's
    score + D (his reach: beyond it, less than the truncation's chance).  The leaders above
    that copy the highest solved (never read by a turn within its reach), and each later
    player only against the leaders he can reach (solve_final_round's within_reach): the
    exact table's values within the truncation's chance (1e-13), at half the cost or less
    for four players (from the start 0.36 s against 0.80 s)."""
    rules = model.rules
    rows = np.asarray(rows)
    N = rows.shape[1]
    others = rows[:, 1:]
    shifted = final_key(rules, others)
    keys, inv = np.unique(shifted, axis=0, return_inverse=True)
    if rules.end == "instant":
        return FinalTable.of(rules, R, D, keys, None)
    shift = (others - shifted)[:, 0]
    low = np.full(len(keys), R)
    np.minimum.at(low, inv.reshape(-1), R - shift)
    high = np.full(len(keys), 0)
    np.maximum.at(high, inv.reshape(-1), rows[:, 0] + D - shift)
    u = rules.unit
    rel = np.zeros((len(keys), R + D + 1, N))
    for i, key in enumerate(keys):
        lead = int(low[i])
        spread = max(0, min(int(high[i]), R + D) - lead)
        fr = solve_final_round(
            model,
            lead * u,
            1,
            [int(x) * u for x in key],
            D,
            spread=spread,
            within_reach=True,
            starts_only=True,
        )
        assert fr.by_leader is not None
        rel[i, lead : lead + spread + 1] = fr.by_leader
        rel[i, lead + spread + 1 :] = fr.by_leader[-1]
    return FinalTable.of(rules, R, D, keys, rel)


@dataclass(frozen=True, eq=False)
class ApproxTurns:
    """The movers' turns of a batch of states against the approximate chances after them:
    the turns (BatchTurns: the policy, its zilch chance, the banking parts) and every seat's
    chance at the start of the turn (V, (B, N))."""

    turns: BatchTurns
    V: np.ndarray


def approx_turns(
    model: TurnModel, W: np.ndarray, finals: FinalTable, rows: np.ndarray
) -> ApproxTurns:
    """The optimal turns from the score tuples `rows` ((B, N), units below R) with the
    chances after a bank below the target and after a zilch by pairwise_chances, after a
    bank reaching it by the exact final round (finals: covering the rows' keys)."""
    rows = np.asarray(rows).reshape(len(rows), -1)
    N = rows.shape[1]
    R = W.shape[0]

    def lookup(t: np.ndarray) -> np.ndarray:
        return pairwise_chances(W, t)

    U = bank_values(rows, R, lookup, finals, bank_minimums(model.rules, rows[:, 0]))
    after_zilch = pairwise_chances(W, rotate(rows))
    z = np.ascontiguousarray(after_zilch[:, N - 1])
    turns = solve_turns(model, rows, U, z)
    V = turns.A + turns.g[:, None] * np.roll(after_zilch, 1, axis=1)
    return ApproxTurns(turns, V)
