"""Simulated two-player games, both players optimal (rules where reaching the target wins
at once): the check of the game table by physical dice."""
from __future__ import annotations

import numpy as np

from . import InputError
from .game import GameTable, _Finals, _pair_payoff
from .simulate import FACES, engine
from .turn import build_model, solve_turn


def play_games(g: GameTable, n_games: int, rng: np.random.Generator) -> np.ndarray:
    """1 where the player who moves first wins, 0 where he loses."""
    rules = g.rules
    if rules.end != "instant":
        raise InputError("simulated games cover rules where reaching the target wins at once")
    R, N = g.W.shape[0], rules.dice
    model = build_model(rules)
    rows = [(a, b) for a in range(R) for b in range(R)]
    z = np.array([1.0 - g.W[b, a] for a, b in rows])
    sol = solve_turn(model, _pair_payoff(rules, model, g.W, _Finals(rules, R, g.finals), rows, z, R))
    V = np.maximum(sol.roll, sol.bank)                           # (pairs, S, L)
    L = V.shape[2]
    eng = engine(rules)
    valid = eng.options >= 0
    oc = np.where(valid, eng.options, 0)
    pow7 = 7 ** np.arange(FACES)
    me = np.zeros(n_games, np.int64)
    opp = np.zeros(n_games, np.int64)
    first = np.ones(n_games, bool)          # is the first player the one to move?
    s = np.zeros(n_games, np.int64)
    r = np.zeros(n_games, np.int64)
    winner_first = np.zeros(n_games, np.int64)
    active = np.arange(n_games)
    while len(active):
        row = me[active] * R + opp[active]
        n = np.where(s[active] == 0, N, s[active])
        dice = rng.integers(0, FACES, (len(active), N))
        code = np.where(np.arange(N)[None, :] < n[:, None], pow7[dice], 0).sum(axis=1)
        out = eng.lookup[0, n, code]
        zil = out < 0
        end_turn = zil.copy()
        o = np.maximum(out, 0)
        tgt = eng.target[oc[o]]
        rr = r[active][:, None] + eng.shift[oc[o]]
        vals = np.where(valid[o] & (rr < L), V[row[:, None], tgt, np.minimum(rr, L - 1)],
                        np.where(valid[o], 1.0, -np.inf))          # past the grid: bank, win
        k = np.argmax(vals, axis=1)
        idx = np.arange(len(active))
        s2, r2 = tgt[idx, k], rr[idx, k]
        inside = r2 < L
        banks = ~zil & (s2 != 0) & (~inside | (sol.bank[row, s2, np.minimum(r2, L - 1)]
                                               >= sol.roll[row, s2, np.minimum(r2, L - 1)]))
        act = active
        # bank: add the turn total; reaching the target wins
        b_idx = act[banks]
        me[b_idx] += r2[banks]
        won = b_idx[me[b_idx] >= R]
        winner_first[won] = first[won]
        end_turn |= banks
        cont = ~end_turn
        s[act[cont]], r[act[cont]] = s2[cont], r2[cont]
        # the turn passes: swap the players
        sw = act[end_turn]
        sw = sw[me[sw] < R]
        me[sw], opp[sw] = opp[sw], me[sw].copy()
        first[sw] = ~first[sw]
        s[sw], r[sw] = 0, 0
        done = np.zeros(n_games, bool)
        done[won] = True
        active = act[~done[act]]
    return winner_first
