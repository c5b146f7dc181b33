"""Simulated two-player games with physical dice (rules where reaching the target wins at
once): optimal against optimal, and optimal against a fixed turn policy — the checks of the
game tables."""
from __future__ import annotations

import numpy as np

from . import InputError
from .game import GameTable, VersusTable, _bank_minimums, _Finals, _pair_payoff, turn_payoff
from .simulate import FACES, engine, play_turns
from .turn import build_model, solve_turn


class _OptimalTurns:
    """Whole turns of the optimal player for many games at once, from the turn solutions of
    every score pair (row a * R + b)."""

    def __init__(self, rules, sol, R):
        self.rules, self.R = rules, R
        self.V = np.maximum(sol.roll, sol.bank)
        self.roll, self.bank = sol.roll, sol.bank
        self.eng = engine(rules)
        self.valid = self.eng.options >= 0
        self.oc = np.where(self.valid, self.eng.options, 0)

    def play(self, me: np.ndarray, opp: np.ndarray, rng) -> np.ndarray:
        """Points banked (0 after a zilch) by a turn from each (me, opp)."""
        eng, N, L = self.eng, self.rules.dice, self.V.shape[2]
        n_games = len(me)
        row = me * self.R + opp
        s = np.zeros(n_games, np.int64)
        r = np.zeros(n_games, np.int64)
        points = np.zeros(n_games, np.int64)
        active = np.arange(n_games)
        pow7 = 7 ** np.arange(FACES)
        while len(active):
            n = np.where(s[active] == 0, N, s[active])
            dice = rng.integers(0, FACES, (len(active), N))
            code = np.where(np.arange(N)[None, :] < n[:, None], pow7[dice], 0).sum(axis=1)
            out = eng.lookup[0, n, code]
            zil = out < 0
            o = np.maximum(out, 0)
            tgt = eng.target[self.oc[o]]
            rr = r[active][:, None] + eng.shift[self.oc[o]]
            rw = row[active][:, None]
            vals = np.where(self.valid[o] & (rr < L), self.V[rw, tgt, np.minimum(rr, L - 1)],
                            np.where(self.valid[o], 1.0, -np.inf))  # past the grid: bank, win
            k = np.argmax(vals, axis=1)
            idx = np.arange(len(active))
            s2, r2 = tgt[idx, k], rr[idx, k]
            rc = np.minimum(r2, L - 1)
            ra = row[active]
            banks = ~zil & (s2 != 0) & ((r2 >= L) | (self.bank[ra, s2, rc] >= self.roll[ra, s2, rc]))
            points[active[banks]] = r2[banks]
            cont = ~(zil | banks)
            s[active[cont]], r[active[cont]] = s2[cont], r2[cont]
            active = active[cont]
        return points


def _instant(rules):
    if rules.end != "instant":
        raise InputError("simulated games cover rules where reaching the target wins at once")


def play_games(g: GameTable, n_games: int, rng: np.random.Generator) -> np.ndarray:
    """Both players optimal: 1 where the player who moves first wins, 0 where he loses."""
    rules = g.rules
    _instant(rules)
    R = g.W.shape[0]
    model = build_model(rules)
    rows = [(a, b) for a in range(R) for b in range(R)]
    z = np.array([1.0 - g.W[b, a] for a, b in rows])
    turns = _OptimalTurns(rules, solve_turn(model, _pair_payoff(
        rules, model, g.W, _Finals(rules, R, g.finals), rows, z, R)), R)
    score = np.zeros((n_games, 2), np.int64)
    winner = np.full(n_games, -1)
    mover = 0
    while (winner < 0).any():
        act = np.nonzero(winner < 0)[0]
        pts = turns.play(score[act, mover], score[act, 1 - mover], rng)
        score[act, mover] += pts
        winner[act[score[act, mover] >= R]] = mover
        mover = 1 - mover
    return (winner == 0).astype(np.int64)


def play_versus(v: VersusTable, strategy, n_games: int, rng: np.random.Generator,
                optimal_first: bool = True) -> np.ndarray:
    """The optimal player against `strategy` (a turn policy, see strategies.py): 1 where the
    optimal player wins."""
    rules = v.rules
    _instant(rules)
    R = v.X.shape[0]
    model = build_model(rules)
    rows = [(a, b) for a in range(R) for b in range(R)]
    a = np.array([r[0] for r in rows])
    b = np.array([r[1] for r in rows])
    final = a[:, None] + np.arange(R + 1)[None, :]
    inside = final < R
    U = np.ones(final.shape)
    U[inside] = v.Y[np.broadcast_to(b[:, None], final.shape)[inside], final[inside]]
    z = v.Y[b, a]
    turns = _OptimalTurns(rules, solve_turn(model, turn_payoff(
        rules, model, U, z, _bank_minimums(rules, a))), R)
    eng = engine(rules)
    tables = strategy.compile(eng, rules, True)
    score = np.zeros((n_games, 2), np.int64)       # [optimal, other]
    winner = np.full(n_games, -1)
    mover = 0 if optimal_first else 1
    while (winner < 0).any():
        act = np.nonzero(winner < 0)[0]
        if mover == 0:
            pts = turns.play(score[act, 0], score[act, 1], rng)
        else:
            pts = play_turns(eng, strategy, len(act), rng, True, tables=tables) // rules.unit
        score[act, mover] += pts
        winner[act[score[act, mover] >= R]] = mover
        mover = 1 - mover
    return (winner == 0).astype(np.int64)
