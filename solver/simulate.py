"""Vectorised Monte Carlo play of whole turns, for a batch of players at once.

Dice are rolled as physical dice (numpy Generator), not drawn from the enumerated outcome
distribution, so a simulation checks dice.py's probabilities as well as the solver; under
zonk-detroit dice 2k and 2k+1 form a colour pair.  A rolled hand is mapped to its scoring
outcome through a table indexed by the base-7 code of its face counts.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .policy import ScorePolicy
from .rules import RuleSet
from .scoring import scored
from .turn import TurnSolution

FACES = 6


@dataclass(frozen=True, eq=False)
class Engine:
    """Lookup tables for rolling and for the choices of each outcome."""
    rules: RuleSet
    lookup: np.ndarray       # (2, N+1, 7**6): [matched, n, code] -> outcome index, -1 zilch
    options: np.ndarray      # (O, K) choice indices of each outcome, -1 padding
    shift: np.ndarray        # (K_all,) at-risk units of each choice
    perm: np.ndarray
    target: np.ndarray
    points: np.ndarray       # (K_all,) points of each choice (units)


def engine(rules: RuleSet) -> Engine:
    N, unit = rules.dice, rules.unit
    hot = 0 if rules.hot_dice == "mandatory" else N
    lookup = np.full((2, N + 1, 7 ** FACES), -1, np.int32)
    per_outcome = []
    for n in range(1, N + 1):
        for so in scored(rules, n):
            code = sum(c * 7 ** f for f, c in enumerate(so.outcome.counts))
            idx = -1
            if so.choices:
                idx = len(per_outcome)
                per_outcome.append(so.choices)
            if so.outcome.matched:
                lookup[1, n, code] = idx
            else:
                lookup[0, n, code] = idx
                if not (rules.colour_pairs and n == 6):
                    lookup[1, n, code] = idx
    width = max(len(c) for c in per_outcome)
    options = np.full((len(per_outcome), width), -1, np.int64)
    shift, perm, target = [], [], []
    for o, choices in enumerate(per_outcome):
        for k, c in enumerate(choices):
            options[o, k] = len(shift)
            shift.append((c.points - c.permanent) // unit)
            perm.append(c.permanent // unit)
            target.append(c.left if c.left else hot)
    shift, perm, target = (np.asarray(x, np.int64) for x in (shift, perm, target))
    return Engine(rules, lookup, options, shift, perm, target, shift + perm)


def _values(sol: TurnSolution, row, s, r):
    """(roll, bank) of a solution at states s and at-risk r (arrays), grid or affine tail."""
    L = sol.roll.shape[2]
    inside = r < L
    rc = np.minimum(r, L - 1)
    roll = np.where(inside, sol.roll[row, s, rc], sol.roll_a[row, s] * r + sol.roll_b[row, s])
    bank_tail = np.where(s == 0, -np.inf, sol.bank_a[row] * r + sol.bank_b[row])
    bank = np.where(inside, sol.bank[row, s, rc], bank_tail)
    return roll, bank


def optimal_values(pol: ScorePolicy, on_board: bool):
    """Value functions of the expected-score policy for the simulator: f(s, r, p) -> (roll,
    bank), with p the permanent units already held."""
    row = int(on_board)
    u = pol.rules.unit

    def f(s, r, p):
        roll, bank = _values(pol.main, row, s, r)
        if pol.secured is not None and np.any(p > 0):
            sr, sb = _values(pol.secured, 0, s, r)
            roll = np.where(p > 0, sr + p * u, roll)
            bank = np.where(p > 0, sb + p * u, bank)
        return roll, bank
    return f


def play_turns(eng: Engine, values, n_turns: int, rng: np.random.Generator,
               on_board: bool = True, start=None) -> np.ndarray:
    """Banked points of n_turns turns played by `values` (choose the choice with the best
    value, then bank when banking is worth at least rolling).  `start`: (s, r) to begin at."""
    rules = eng.rules
    N, u = rules.dice, rules.unit
    s = np.zeros(n_turns, np.int64)
    r = np.zeros(n_turns, np.int64)
    if start is not None:
        s[:], r[:] = start
    p = np.zeros(n_turns, np.int64)
    result = np.zeros(n_turns, np.int64)
    active = np.arange(n_turns)
    pow7 = 7 ** np.arange(FACES)
    min_bank = rules.min_bank(on_board)
    while len(active):
        sa, ra, pa = s[active], r[active], p[active]
        n = np.where(sa == 0, N, sa)
        dice = rng.integers(0, FACES, (len(active), N))
        live = np.arange(N)[None, :] < n[:, None]
        code = (pow7[dice] * live).sum(axis=1)
        if rules.colour_pairs:
            matched = ((dice[:, 0::2] == dice[:, 1::2]).all(axis=1) & (n == 6)).astype(np.int64)
        else:
            matched = np.zeros(len(active), np.int64)
        out = eng.lookup[matched, n, code]
        zilch = out < 0
        # a zilch records the permanent points (each is worth at least the minimum to bank)
        zp = pa[zilch]
        result[active[zilch]] = np.where(zp * u >= min_bank, zp * u, 0)
        keep = ~zilch
        act, ra, pa, out = active[keep], ra[keep], pa[keep], out[keep]
        opts = eng.options[out]                                  # (A, K)
        valid = opts >= 0
        oc = np.where(valid, opts, 0)
        t, nr, npm = eng.target[oc], ra[:, None] + eng.shift[oc], pa[:, None] + eng.perm[oc]
        vr, vb = values(t.ravel(), nr.ravel(), npm.ravel())
        v = np.maximum(vr, vb).reshape(t.shape)
        v = np.where(t == 0, vr.reshape(t.shape), v)
        v = np.where(valid, v, -np.inf)
        pick = np.argmax(v, axis=1)
        rows = np.arange(len(act))
        s2, r2, p2 = t[rows, pick], nr[rows, pick], npm[rows, pick]
        vr2, vb2 = vr.reshape(t.shape)[rows, pick], vb.reshape(t.shape)[rows, pick]
        bank = (s2 != 0) & (vb2 >= vr2)
        result[act[bank]] = (r2[bank] + p2[bank]) * u
        cont = ~bank
        active = act[cont]
        s[active], r[active], p[active] = s2[cont], r2[cont], p2[cont]
    return result


def level_values(levels, row: int, step: int | None):
    """Value functions of an end-game solution (levels of permanent points, one batch row)
    for play_turns: f(s, r, p) -> (roll, bank)."""
    def f(s, r, p):
        k = p // step if step else np.zeros_like(p)
        roll = np.ones(len(s))
        bank = np.ones(len(s))
        for lv in np.unique(k):
            sel = k == lv
            if lv < len(levels):
                ro, ba = _values(levels[lv], row, s[sel], r[sel])
                roll[sel], bank[sel] = ro, ba
        return roll, bank
    return f
