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
    kept: np.ndarray         # (K_all,) dice set aside by each choice


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
    shift, perm, target, kept = [], [], [], []
    for o, choices in enumerate(per_outcome):
        for k, c in enumerate(choices):
            options[o, k] = len(shift)
            shift.append((c.points - c.permanent) // unit)
            perm.append(c.permanent // unit)
            target.append(c.left if c.left else hot)
            kept.append(sum(c.kept))
    shift, perm, target, kept = (np.asarray(x, np.int64) for x in (shift, perm, target, kept))
    return Engine(rules, lookup, options, shift, perm, target, shift + perm, kept)


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


def play_turns(eng: Engine, strategy, n_turns: int, rng: np.random.Generator,
               on_board: bool = True, start=None, tables=None) -> np.ndarray:
    """Recorded points of n_turns turns played by `strategy` (see strategies.py).
    `start`: (s, r, p) to begin at (default: a fresh turn).  `tables`: the strategy's
    compiled lookup tables, to reuse across batches."""
    rules = eng.rules
    N, u = rules.dice, rules.unit
    pick_tab, bank_tab, bank_by, step = tables or strategy.compile(eng, rules, on_board)
    top = len(pick_tab) - 1
    pr, br = pick_tab.shape[2] - 1, bank_tab.shape[2] - 1
    s = np.zeros(n_turns, np.int64)
    r = np.zeros(n_turns, np.int64)
    p = np.zeros(n_turns, np.int64)
    if start is not None:
        s[:], r[:], p[:] = start
    result = np.zeros(n_turns, np.int64)
    active = np.arange(n_turns)
    pow7 = 7 ** np.arange(FACES)
    min_bank = rules.min_bank(on_board)
    if start is not None:       # a start state may be one to bank at already
        bank = strategy.banks(rules, s, r, p, on_board)
        result[bank] = (r[bank] + p[bank]) * u
        active = active[~bank]
    while len(active):
        sa, ra, pa = s[active], r[active], p[active]
        n = np.where(sa == 0, N, sa)
        dice = rng.integers(0, FACES, (len(active), N), dtype=np.int8)
        code = np.where(np.arange(N)[None, :] < n[:, None], pow7[dice], 0).sum(axis=1)
        if rules.colour_pairs:
            matched = ((dice[:, 0::2] == dice[:, 1::2]).all(axis=1) & (n == 6)).astype(np.int64)
        else:
            matched = 0
        out = eng.lookup[matched, n, code]
        zilch = out < 0
        # a zilch records the permanent points (each is worth at least the minimum to bank)
        zp = pa[zilch]
        result[active[zilch]] = np.where(zp * u >= min_bank, zp * u, 0)
        keep = ~zilch
        act, ra, pa, out = active[keep], ra[keep], pa[keep], out[keep]
        held = np.minimum(pa // step, top) if top else 0
        opt = eng.options[out, pick_tab[held, out, np.minimum(ra, pr)]]
        s2, r2, p2 = eng.target[opt], ra + eng.shift[opt], pa + eng.perm[opt]
        idx = r2 if bank_by == "r" else r2 + p2
        held2 = np.minimum(p2 // step, top) if len(bank_tab) > 1 else 0
        bank = bank_tab[held2, s2, np.minimum(idx, br)]
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
