"""The single-turn MDP of the Zilch family, solved for any payoff of ending the turn.

States.  ``s = 0``: the player must roll all N dice (start of the turn, or hot dice where
they are mandatory); ``s = n`` (1..N): n dice to roll, free to roll or bank.  The second
coordinate ``r`` is the turn total *at risk* (the points a zilch loses), in the rule set's
unit; permanent points are kept apart (see ``perm_sources``), so without permanent
combinations r is simply the turn total.  Every choice adds at least one unit to r or adds
permanent points, so the states are solved by backward induction over r.

Payoff.  ``bank(r)`` is the value of banking at r (``-inf`` where a minimum forbids it),
``zilch`` the value of a zilch; both per batch row b, so one pass solves many utilities at
once (on/off the board, every deficit of a last turn, ...).  A choice with permanent points
leads either to this same problem with ``perm_bonus`` per permanent unit added to its value
(linear utilities: expected points) or to another solved problem (``perm_sources``).

The cap on r.  Beyond the point where the payoff is affine in r (``tail_from``), every
value is affine in r too: the asymptotic policy is found by policy iteration on
(slope, intercept) pairs compared lexicographically, and each decision of that policy beats
every alternative for all r past the alternatives' crossing point.  The grid ends at the
largest crossing point (and ``tail_from``), so the affine tail is the exact solution there:
the cap is not a guess and costs nothing in exactness.  ``tests/test_turn.py`` checks it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .rules import RuleSet
from .scoring import p_zilch, scored

EPS = 1e-12


@dataclass(frozen=True, eq=False)
class TurnModel:
    """The roll outcomes and choices of a rule set as flat arrays (scoring outcomes only)."""
    dice: int
    unit: int
    hot_state: int          # state after hot dice: 0 (must roll) or N (free)
    prob: np.ndarray        # (O,) probability of each scoring outcome, grouped by dice count
    out_start: np.ndarray   # (N,) index of the first outcome of 1..N dice
    opt_start: np.ndarray   # (O,) index of the first choice of each outcome
    opt_outcome: np.ndarray  # (K,) outcome of each choice
    shift: np.ndarray       # (K,) at-risk units the choice adds
    perm: np.ndarray        # (K,) permanent units the choice adds
    target: np.ndarray      # (K,) state after the choice
    p_zilch: np.ndarray     # (N+1,) index n: probability that n dice score nothing

    @property
    def states(self) -> int:
        return self.dice + 1

    @property
    def max_shift(self) -> int:
        return int(self.shift.max())

    def roll_dice(self, s: int) -> int:
        return self.dice if s == 0 else s


@lru_cache(maxsize=32)
def build_model(rules: RuleSet) -> TurnModel:
    unit, n_dice = rules.unit, rules.dice
    hot = 0 if rules.hot_dice == "mandatory" else n_dice
    prob, out_start, opt_start, opt_outcome, shift, perm, target = [], [], [], [], [], [], []
    for n in range(1, n_dice + 1):
        out_start.append(len(prob))
        for so in scored(rules, n):
            if not so.choices:
                continue
            opt_start.append(len(shift))
            for c in so.choices:
                opt_outcome.append(len(prob))
                shift.append((c.points - c.permanent) // unit)
                perm.append(c.permanent // unit)
                target.append(c.left if c.left else hot)
            prob.append(float(so.outcome.prob))
    pz = [1.0] + [float(p_zilch(rules, n)) for n in range(1, n_dice + 1)]
    arr = lambda x, t=np.int64: np.asarray(x, dtype=t)
    return TurnModel(n_dice, unit, hot, arr(prob, float), arr(out_start), arr(opt_start),
                     arr(opt_outcome), arr(shift), arr(perm), arr(target), arr(pz, float))


@dataclass(frozen=True, eq=False)
class Payoff:
    """What ending the turn is worth, per batch row (see the module docstring)."""
    bank: object                 # callable: r (units, int array) -> (B, len(r)), -inf: not allowed
    tail_slope: np.ndarray       # (B,) bank(r) = slope * r + intercept for r >= tail_from
    tail_intercept: np.ndarray   # (B,)
    tail_from: int
    zilch: np.ndarray            # (B,)
    perm_bonus: float = 0.0      # value added per permanent unit of a choice
    perm_sources: dict = field(default_factory=dict)  # permanent units -> TurnSolution

    @property
    def batch(self) -> int:
        return len(self.zilch)


@dataclass(frozen=True, eq=False)
class TurnSolution:
    model: TurnModel
    cap: int                 # grid r in [0, cap + max_shift]; values affine beyond cap
    roll: np.ndarray         # (B, S, L) value of rolling
    bank: np.ndarray         # (B, S, L) value of banking (-inf: not allowed; s = 0 never)
    tail_a: np.ndarray       # (B, S) value = tail_a * r + tail_b for r >= cap
    tail_b: np.ndarray
    roll_a: np.ndarray       # (B, S) roll value = roll_a * r + roll_b for r >= cap
    roll_b: np.ndarray
    bank_a: np.ndarray       # (B,) bank payoff = bank_a * r + bank_b for r >= cap
    bank_b: np.ndarray

    @property
    def value(self) -> np.ndarray:
        return np.maximum(self.roll, self.bank)

    def extended(self, length: int) -> np.ndarray:
        """Values (B, S, length): the grid, then the affine tail."""
        v = self.value
        if length <= v.shape[2]:
            return v[:, :, :length]
        r = np.arange(v.shape[2], length)
        ext = self.tail_a[:, :, None] * r + self.tail_b[:, :, None]
        return np.concatenate([v, ext], axis=2)

    def at(self, s: int, r: int) -> tuple[np.ndarray, np.ndarray]:
        """(roll, bank) values per batch row at state s and at-risk units r, any r >= 0."""
        if r < self.roll.shape[2]:
            return self.roll[:, s, r], self.bank[:, s, r]
        bank = self.bank_a * r + self.bank_b if s else np.full_like(self.bank_a, -np.inf)
        return self.roll_a[:, s] * r + self.roll_b[:, s], bank


def _lexmax_choice(a, b, starts, size):
    """Per segment of the last axis, the first index of the lexicographically largest (a, b)."""
    amax = np.maximum.reduceat(a, starts, axis=-1)
    seg = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, size)))
    ok = a >= amax[..., seg] - EPS
    bb = np.where(ok, b, -np.inf)
    bmax = np.maximum.reduceat(bb, starts, axis=-1)
    ok &= bb >= bmax[..., seg] - EPS * np.maximum(1.0, np.abs(bmax[..., seg]))
    # first True of each segment: the largest index minus a cumulative count trick
    idx = np.where(ok, np.arange(size), size)
    return np.minimum.reduceat(idx, starts, axis=-1), seg


def _tail(model: TurnModel, pay: Payoff, src_tails):
    """Asymptotic (r -> infinity) values: policy iteration on affine functions of r.

    Returns (a, b) per state for the optimum, the roll parts (ra, rb) and the largest
    crossing point of any decision against its alternatives (units of r).
    """
    B, S, N = pay.batch, model.states, model.dice
    K = len(model.shift)
    ba, bi = pay.tail_slope.astype(float), pay.tail_intercept.astype(float)
    a = np.repeat(ba[:, None], S, axis=1)
    b = np.repeat(bi[:, None], S, axis=1)
    out_dice = np.repeat(np.arange(1, N + 1), np.diff(np.append(model.out_start, len(model.prob))))
    bonus = pay.perm_bonus * model.perm
    own = np.ones(K, bool)
    ext_a = np.zeros((B, K))
    ext_b = np.zeros((B, K))
    for units, (sa, sb) in src_tails.items():
        sel = model.perm == units
        own &= ~sel
        ext_a[:, sel] = sa[:, model.target[sel]]
        ext_b[:, sel] = sa[:, model.target[sel]] * model.shift[sel] + sb[:, model.target[sel]]
    policy = None
    for _ in range(100):
        oa = np.where(own, a[:, model.target], ext_a)
        ob = np.where(own, a[:, model.target] * model.shift + b[:, model.target], ext_b) + bonus
        pick, seg = _lexmax_choice(oa, ob, model.opt_start, K)
        rows = np.arange(B)[:, None]
        pa, pb = oa[rows, pick], ob[rows, pick]
        w = model.prob
        ra = np.add.reduceat(pa * w, model.out_start, axis=1)             # (B, N)
        rb = np.add.reduceat(pb * w, model.out_start, axis=1) + model.p_zilch[1:] * pay.zilch[:, None]
        rla = np.concatenate([ra[:, -1:], ra], axis=1)                    # (B, S) roll, by state
        rlb = np.concatenate([rb[:, -1:], rb], axis=1)
        bank = (rla < ba[:, None] - EPS) | ((np.abs(rla - ba[:, None]) <= EPS) & (rlb <= bi[:, None]))
        bank[:, 0] = False
        new_policy = (pick.tobytes(), bank.tobytes())
        if new_policy == policy:
            break
        policy = new_policy
        # evaluate: V = c + P V for slopes, then intercepts
        P = np.zeros((B, S, S))
        ca = np.where(bank, ba[:, None], 0.0)
        cb = np.where(bank, bi[:, None], 0.0)
        picked_own = own[pick]
        tgt = model.target[pick]
        sh = model.shift[pick]
        for st in range(S):
            if st == 0:
                n = N
            else:
                n = st
            mask = out_dice == n
            roll_rows = ~bank[:, st]
            wgt = np.where(picked_own[:, mask], w[mask], 0.0) * roll_rows[:, None]
            np.add.at(P, (np.repeat(np.arange(B), mask.sum()), st, tgt[:, mask].ravel()),
                      wgt.ravel())
            ext = ~picked_own[:, mask]
            ca[:, st] += roll_rows * (np.where(ext, pa[:, mask], 0.0) @ w[mask])
            cb[:, st] += roll_rows * ((np.where(ext, pb[:, mask], bonus[pick][:, mask])) @ w[mask]
                                      + model.p_zilch[n] * pay.zilch)
        I = np.eye(S)[None]
        a = np.linalg.solve(I - P, ca[..., None])[..., 0]
        # intercept of an own choice: a_target * shift + b_target (+ bonus, already in cb)
        shift_term = np.zeros((B, S))
        for st in range(S):
            n = N if st == 0 else st
            mask = out_dice == n
            term = np.where(picked_own[:, mask], np.take_along_axis(a, tgt[:, mask], 1) * sh[:, mask], 0.0)
            shift_term[:, st] = (term @ w[mask]) * ~bank[:, st]
        b = np.linalg.solve(I - P, (cb + shift_term)[..., None])[..., 0]
    else:
        raise RuntimeError("asymptotic policy iteration did not converge")
    # crossing points of every alternative against the chosen one
    cross = 0.0
    rows = np.arange(B)[:, None]
    ca_, cb_ = oa[rows, pick][..., seg], ob[rows, pick][..., seg]
    steeper = ca_ - oa > EPS
    if steeper.any():
        cross = max(cross, float(np.max(np.where(steeper, (ob - cb_) / np.where(steeper, ca_ - oa, 1), 0))))
    roll_steeper = rla - ba[:, None]
    free = np.ones(S, bool)
    free[0] = False
    with np.errstate(divide="ignore", invalid="ignore"):
        x1 = np.where(bank & (ba[:, None] - rla > EPS), (rlb - bi[:, None]) / (ba[:, None] - rla), 0)
        x2 = np.where(~bank & (roll_steeper > EPS) & free, (bi[:, None] - rlb) / roll_steeper, 0)
    cross = max(cross, float(np.max(x1)), float(np.max(x2)))
    return a, b, rla, rlb, bank, cross


def solve_turn(model: TurnModel, pay: Payoff) -> TurnSolution:
    B, S = pay.batch, model.states
    src_list = sorted(pay.perm_sources.items())
    src_tails = {u: (sol.tail_a, sol.tail_b) for u, sol in src_list}
    a, b, rla, rlb, bank_tail, cross = _tail(model, pay, src_tails)
    cap = max(pay.tail_from, math.floor(cross) + 1, *(sol.cap for _, sol in src_list))
    L = cap + model.max_shift + 1
    r_all = np.arange(L)
    bank_pay = np.asarray(pay.bank(r_all), float).reshape(B, L)
    bank = np.repeat(bank_pay[:, None, :], S, axis=1)
    bank[:, 0, :] = -np.inf
    nsrc = 1 + len(src_list)
    SRC = np.empty((B, nsrc, S, L))
    for i, (_, sol) in enumerate(src_list, start=1):
        SRC[:, i] = np.broadcast_to(sol.extended(L), (B, S, L))
    V = SRC[:, 0]
    roll = np.empty((B, S, L))
    tail_r = r_all[cap:]
    roll[:, :, cap:] = rla[:, :, None] * tail_r + rlb[:, :, None]
    V[:, :, cap:] = np.where(bank_tail[:, :, None], bank[:, :, cap:], roll[:, :, cap:])
    # flat gather index of every choice: source block, target state, r + shift
    src_of = np.zeros(len(model.shift), np.int64)
    bonus = pay.perm_bonus * model.perm
    for i, (units, _) in enumerate(src_list, start=1):
        src_of[model.perm == units] = i
    base = (src_of * S + model.target) * L + model.shift
    flat = SRC.reshape(B, -1)
    pzZ = model.p_zilch[1:] * pay.zilch[:, None]
    self_loop = bool(np.any((src_of == 0) & (model.shift == 0)))
    lower = np.minimum(pay.zilch.min(), 0.0)
    for r in range(cap - 1, -1, -1):
        if self_loop:
            V[:, :, r] = np.maximum(bank[:, :, r], lower)
        for _ in range(500 if self_loop else 1):
            g = flat[:, base + r] + bonus
            best = np.maximum.reduceat(g, model.opt_start, axis=1)
            R = np.add.reduceat(best * model.prob, model.out_start, axis=1) + pzZ
            roll[:, 1:, r] = R
            roll[:, 0, r] = R[:, -1]
            new = np.maximum(roll[:, :, r], bank[:, :, r])
            if self_loop and np.array_equal(new, V[:, :, r]):
                break
            V[:, :, r] = new
    return TurnSolution(model, cap, roll, bank, a, b, rla, rlb,
                        pay.tail_slope.astype(float), pay.tail_intercept.astype(float))
