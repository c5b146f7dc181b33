"""Simulated two-player games with physical dice: optimal against optimal (every rule
set: with a final round, the other player then takes his optimal last turn), and optimal
against a fixed turn policy (rules where reaching the target wins at once) — the checks of
the game tables."""
from __future__ import annotations

import numpy as np

from . import InputError
from .game import (GameTable, VersusTable, _bank_minimums, _Finals, _game_U, _pair_payoff,
                   turn_payoff)
from .simulate import FACES, engine, play_turns
from .turn import build_model, solve_turn


class _OptimalTurns:
    """Whole turns of the optimal player for many games at once, from the turn solutions of
    every score pair (row a * R + b)."""

    def __init__(self, rules, sol, R, U=None):
        self.rules, self.R = rules, R
        self.U = U                  # the payoff of banking (rows, totals): past the grid
        self.V = np.maximum(sol.roll, sol.bank)
        self.roll, self.bank = sol.roll, sol.bank
        self.eng = engine(rules)
        self.valid = self.eng.options >= 0
        self.oc = np.where(self.valid, self.eng.options, 0)

    def play(self, me: np.ndarray, opp: np.ndarray, rng, start=None):
        """Units banked (0 after a zilch) by a turn from each (me, opp), and the dice left
        then; start: (dice, total) taken over (piggyback; dice 0: a fresh turn)."""
        return self.play_rows(me * self.R + opp, rng, start)

    def play_rows(self, row: np.ndarray, rng, start=None):
        """Units banked (0 after a zilch) by a turn played by each game's batch row, and the
        dice left when it banked."""
        eng, N, L = self.eng, self.rules.dice, self.V.shape[2]
        n_games = len(row)
        s = np.zeros(n_games, np.int64)
        r = np.zeros(n_games, np.int64)
        if start is not None:       # taken over: roll those dice from that total
            s[:], r[:] = start
        points = np.zeros(n_games, np.int64)
        left = np.zeros(n_games, np.int64)
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
            # past the grid banking is optimal: worth its payoff (1 where the target wins)
            past = 1.0 if self.U is None else np.where(
                rr < self.U.shape[1], self.U[rw, np.minimum(rr, self.U.shape[1] - 1)], 1.0)
            vals = np.where(self.valid[o] & (rr < L), self.V[rw, tgt, np.minimum(rr, L - 1)],
                            np.where(self.valid[o], past, -np.inf))
            k = np.argmax(vals, axis=1)
            idx = np.arange(len(active))
            s2, r2 = tgt[idx, k], rr[idx, k]
            rc = np.minimum(r2, L - 1)
            ra = row[active]
            banks = ~zil & (s2 != 0) & ((r2 >= L) | (self.bank[ra, s2, rc] >= self.roll[ra, s2, rc]))
            points[active[banks]] = r2[banks]
            left[active[banks]] = s2[banks]
            cont = ~(zil | banks)
            s[active[cont]], r[active[cont]] = s2[cont], r2[cont]
            active = active[cont]
        return points, left


def _instant(rules):
    if rules.end != "instant":
        raise InputError("simulated games cover rules where reaching the target wins at once")


def play_games(g: GameTable, n_games: int, rng: np.random.Generator) -> np.ndarray:
    """Both players optimal: the first mover's result per game (1 win, 0 loss, the tie
    value for a tie after a final round)."""
    rules = g.rules
    R = g.W.shape[0]
    model = build_model(rules)
    rows = [(a, b) for a in range(R) for b in range(R)]
    z = np.array([1.0 - g.W[b, a] for a, b in rows])
    finals = _Finals(rules, R, g.finals)
    U = None if rules.end == "instant" else _game_U(rules, g.W, finals, rows, R)
    turns = _OptimalTurns(rules, solve_turn(model, _pair_payoff(
        rules, model, g.W, finals, rows, z, R, g.O)), R, U)
    score = np.zeros((n_games, 2), np.int64)
    offer = np.zeros((n_games, 2), np.int64)    # piggyback: dice left and total banked
    result = np.full(n_games, -1.0)
    mover = 0
    while (result < 0).any():
        act = np.nonzero(result < 0)[0]
        me, opp = score[act, mover], score[act, 1 - mover]
        start = None
        if g.O is not None:         # take the offer where that beats a fresh start
            n, t = offer[act, 0], offer[act, 1]
            take = (t > 0) & np.isfinite(g.O.lookup(me, opp, n, np.minimum(t, R - 1)))
            start = (np.where(take, n, 0), np.where(take, t, 0))
        pts, left = turns.play(me, opp, rng, start)
        offer[act] = np.column_stack([left, pts])
        score[act, mover] += pts
        done = act[score[act, mover] >= R]
        if rules.end == "instant":
            result[done] = 1.0 if mover == 0 else 0.0
        elif len(done):                         # the other player's last turn
            last = score[done, 1 - mover] + _last_turns(
                rules, score[done, mover] - score[done, 1 - mover], score[done, 1 - mover] > 0,
                rng)
            # as the solver counts it: the last player's tie value is taken from the leader
            mine = np.where(score[done, mover] > last, 1.0,
                            np.where(score[done, mover] == last, 1.0 - rules.tie, 0.0))
            result[done] = mine if mover == 0 else 1.0 - mine
        mover = 1 - mover
    return result


def _last_turns(rules, deficits: np.ndarray, on_board: np.ndarray, rng) -> np.ndarray:
    """Units scored by optimal last turns against each deficit (units): the end-game's
    policy, one batch of turns per (deficit, board flag)."""
    from .endgame import perm_step, solve_last_turn
    from .simulate import level_values
    from .strategies import OptimalPolicy
    eng = engine(rules)
    flags = on_board | (not rules.entry_minimum)
    out = np.zeros(len(deficits), np.int64)
    for flag in np.unique(flags):
        games = np.nonzero(flags == flag)[0]
        ds, row = np.unique(deficits[games], return_inverse=True)
        levels = solve_last_turn(rules, ds * rules.unit, bool(flag))   # every deficit at once
        if len(levels) == 1:         # no permanent points: all games at once, by deficit row
            out[games] = _OptimalTurns(rules, levels[0], 0).play_rows(row.ravel(), rng)[0]
            continue
        for i in range(len(ds)):     # permanent levels: the strategy player, per deficit
            sel = games[row.ravel() == i]
            policy = OptimalPolicy(level_values(levels, i, perm_step(rules)),
                                   cap=max(lv.cap for lv in levels), levels=len(levels))
            out[sel] = play_turns(eng, policy, len(sel), rng, bool(flag)) // rules.unit
    return out


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
            pts = turns.play(score[act, 0], score[act, 1], rng)[0]
        else:
            pts = play_turns(eng, strategy, len(act), rng, True, tables=tables) // rules.unit
        score[act, mover] += pts
        winner[act[score[act, mover] >= R]] = mover
        mover = 1 - mover
    return (winner == 0).astype(np.int64)
