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
from fractions import Fraction
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

    @property
    def out_dice(self) -> np.ndarray:
        """(O,) the dice count of each outcome."""
        return np.repeat(np.arange(1, self.dice + 1),
                         np.diff(np.append(self.out_start, len(self.prob))))

    @property
    def single_choice(self) -> bool:
        """Every outcome has exactly one choice (forced set-aside)."""
        return len(self.shift) == len(self.prob)

    def roll_dice(self, s: int) -> int:
        return self.dice if s == 0 else s


MODEL_FIELDS = ("prob", "out_start", "opt_start", "opt_outcome", "shift", "perm", "target",
                "p_zilch")


@lru_cache(maxsize=32)
def build_model(rules: RuleSet) -> TurnModel:
    """The model of a rule set, kept in tables/ like any table: enumerating and scoring
    every roll takes ~0.2 s, which a query should not pay each time."""
    from pathlib import Path

    from . import tables
    path = Path(tables.table_dir()) / tables.file_name(rules.name, rules.digest(), "model")
    _, arrays = tables.cached(path, {"objective": "model", "rules_hash": rules.digest()},
                              lambda: ({}, _model_arrays(rules)))
    hot = 0 if rules.hot_dice == "mandatory" else rules.dice
    # copies: aligned, and not tied to the mapped file (they go to the C kernel)
    return TurnModel(rules.dice, rules.unit, hot, *(np.array(arrays[k]) for k in MODEL_FIELDS))


def _model_arrays(rules: RuleSet) -> dict[str, np.ndarray]:
    """Outcomes with the same set of choices are merged (their probabilities add): the value
    of a roll is a sum over outcomes of a max over their choices, so only the distinct choice
    sets matter.  Forced set-aside leaves a few dozen per dice count instead of hundreds."""
    unit, n_dice = rules.unit, rules.dice
    hot = 0 if rules.hot_dice == "mandatory" else n_dice
    prob, out_start, opt_start, opt_outcome, shift, perm, target = [], [], [], [], [], [], []
    for n in range(1, n_dice + 1):
        out_start.append(len(prob))
        merged: dict[tuple, Fraction] = {}
        for so in scored(rules, n):
            if not so.choices:
                continue
            key = tuple(sorted({((c.points - c.permanent) // unit, c.permanent // unit,
                                 c.left if c.left else hot) for c in so.choices}))
            merged[key] = merged.get(key, Fraction(0)) + so.outcome.prob
        for key in sorted(merged):
            opt_start.append(len(shift))
            for h, pm, t in key:
                opt_outcome.append(len(prob))
                shift.append(h)
                perm.append(pm)
                target.append(t)
            prob.append(float(merged[key]))
    pz = [1.0] + [float(p_zilch(rules, n)) for n in range(1, n_dice + 1)]
    arr = lambda x, t=np.int64: np.asarray(x, dtype=t)
    return dict(zip(MODEL_FIELDS, (arr(prob, float), arr(out_start), arr(opt_start),
                                   arr(opt_outcome), arr(shift), arr(perm), arr(target),
                                   arr(pz, float))))


@dataclass(frozen=True, eq=False)
class Payoff:
    """What ending the turn is worth, per batch row (see the module docstring)."""
    bank: object                 # callable: r (units, int array) -> (B, len(r)), -inf: not
                                 # allowed; or (B, S, len(r)) where it depends on the state
                                 # (the dice left: Zonk's piggyback offer to the next player)
    tail_slope: np.ndarray       # (B,) bank(r) = slope * r + intercept for r >= tail_from
    tail_intercept: np.ndarray   # (B,)
    tail_from: int
    zilch: np.ndarray            # (B,)
    perm_bonus: float = 0.0      # value added per permanent unit of a choice
    perm_sources: dict = field(default_factory=dict)  # permanent units -> TurnSolution
    extras: tuple = ()           # Extra payoffs to evaluate under the optimal policy
    forced_tail: object = None   # callable r -> (B, len(r)): exact values of the must-roll
                                 # state beyond the cap (where the payoff is not affine)
    above: Above | None = None   # rows known past a boundary (see Above)

    @property
    def batch(self) -> int:
        return len(self.zilch)


@dataclass(frozen=True, eq=False)
class Extra:
    """Another payoff of ending the turn, evaluated under the optimal policy (not optimised):
    e.g. the chance of ending below a leader, or another player's chance of winning."""
    bank: object                 # callable r -> (B, len(r)), finite
    tail_slope: np.ndarray
    tail_intercept: np.ndarray
    zilch: np.ndarray


@dataclass(frozen=True, eq=False)
class Above:
    """Rows whose values are already known past a boundary (the end-game: above its leader
    every row of a player is one of a few "class" problems).  For r > boundary[b] row b's
    values are row cls[b] of `sol` (solved on the full grid: its cap and tails are the
    row's), its extra j those of sol plus zconst[j, b] times sol's last extra (the chance
    of ending in a class-wide event whose extra payoff is row-specific, e.g. a zilch
    below the leader).  Rows sorted by boundary, each boundary below sol.cap: only
    r <= boundary is solved, each row keeping only the totals it needs (Ragged); what is
    returned holds each row's values for r <= boundary[b], to be laid over its class's
    (endgame.LeaderRows does); past it they are unset."""
    boundary: np.ndarray         # (B,) at-risk units, ascending
    sol: "TurnSolution"
    cls: np.ndarray              # (B,)
    zconst: np.ndarray           # (E, B)


def class_rows(arr: np.ndarray, cls: np.ndarray, zconst: np.ndarray) -> np.ndarray:
    """A class solution's extras (arr: (E + 1, classes, ...), the last the chance of the
    class-wide event) as the rows' own E extras: row b's extra j is its class's plus
    zconst[j, b] times that chance (see Above)."""
    z = zconst.reshape(zconst.shape + (1,) * (arr.ndim - 2))
    return arr[:-1][:, cls] + z * arr[-1][cls]


def copy_runs(dst: np.ndarray, dpos, src: np.ndarray, spos, n, zsrc=None, coef=None) -> None:
    """dst[dpos[t] + i] = src[spos[t] + i] (+ coef[t] * zsrc[spos[t] + i]) for i < n[t]:
    rows of different lengths moved as whole runs (flat float64 arrays; C where built)."""
    args = [np.ascontiguousarray(x, np.int64) for x in (dpos, spos, n)]
    extra = () if zsrc is None else (zsrc, np.ascontiguousarray(coef, float))
    fn = _compiled("copy_runs")
    if fn is not None:
        fn(dst, args[0], src, args[1], args[2], *extra)
        return
    dp, sp, nn = args
    t = np.repeat(np.arange(len(nn)), nn)
    i = np.arange(len(t)) - np.repeat(np.cumsum(nn) - nn, nn)
    v = src[sp[t] + i]
    dst[dp[t] + i] = v if zsrc is None else v + extra[1][t] * zsrc[sp[t] + i]


def class_fill(ALL: np.ndarray, dst: np.ndarray, sol: "TurnSolution", V: np.ndarray,
               rows: np.ndarray, zc: np.ndarray | None, r0: np.ndarray, n: np.ndarray) -> None:
    """ALL (1 + E, total): from dst (B, S), the flat position of (row b, state s, total
    r0[b]), the values of sol's row rows[b] (V = its values, max of roll and bank) on the
    totals r0[b] .. r0[b] + n[b] - 1 of each state (past the grid: the affine tails), then
    the extras; zc (E, B): sol has one extra more, added zc[j] times (see Above)."""
    S, Lg = V.shape[1], V.shape[2]
    s = np.arange(S)
    grid = np.clip(Lg - r0, 0, n)                                # totals on sol's grid
    spos = ((rows[:, None] * S + s) * Lg + r0[:, None]).ravel()
    nn = np.repeat(grid, S)
    copy_runs(ALL[0], dst.ravel(), V.reshape(-1), spos, nn)
    E = len(ALL) - 1
    last = sol.extras[E].reshape(-1) if zc is not None else None
    for j in range(E):
        copy_runs(ALL[1 + j], dst.ravel(), sol.extras[j].reshape(-1), spos, nn, last,
                  None if zc is None else np.repeat(zc[j], S))
    far = np.nonzero(grid < n)[0]                                # rows reaching past it
    if len(far):
        m = n[far] - grid[far]
        b = np.repeat(far, m)
        r = (r0 + grid)[b] + np.arange(len(b)) - np.repeat(np.cumsum(m) - m, m)
        c = rows[b]
        for st in range(S):
            at = dst[b, st] + r - r0[b]
            ALL[0, at] = sol.tail_a[c, st] * r + sol.tail_b[c, st]
            z = 0.0 if zc is None else sol.extras_a[E][c, st] * r + sol.extras_b[E][c, st]
            for j in range(E):
                ALL[1 + j, at] = sol.extras_a[j][c, st] * r + sol.extras_b[j][c, st] + \
                    (0.0 if zc is None else zc[j, b] * z)


@dataclass(frozen=True, eq=False)
class Ragged:
    """Rows of their own lengths in one flat array: row b's value of state s at total r of
    source i (0: the row's own problem, then its permanent-points sources) is at
    offset[b] + (i * S + s) * length[b] + r."""
    offset: np.ndarray           # (B,)
    length: np.ndarray           # (B,)
    S: int

    def index(self, b, i: int, s, r):
        return self.offset[b] + (i * self.S + s) * self.length[b] + r


@dataclass(eq=False)
class RowValues:
    """solve_turn(values_only=True) of rows solved up to their boundaries (pay.above): V
    and the extras of row b, state s, total r <= boundary[b] at layout.index(b, 0, s, r)."""
    layout: Ragged
    value: np.ndarray        # (total,)
    extras: np.ndarray       # (E, total)


def _extend(v: np.ndarray, a: np.ndarray, b: np.ndarray, length: int) -> np.ndarray:
    """v (B, S, L) on the grid, then a * r + b: the first `length` totals."""
    if length <= v.shape[2]:
        return v[:, :, :length]
    r = np.arange(v.shape[2], length)
    return np.concatenate([v, a[:, :, None] * r + b[:, :, None]], axis=2)


@dataclass(eq=False)
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
    extras: np.ndarray | None = None     # (E, B, S, L) extras under the optimal policy
    extras_a: np.ndarray | None = None   # (E, B, S) their affine tails
    extras_b: np.ndarray | None = None

    def extended_extra(self, j: int, length: int) -> np.ndarray:
        return _extend(self.extras[j], self.extras_a[j], self.extras_b[j], length)

    @property
    def value(self) -> np.ndarray:
        return np.maximum(self.roll, self.bank)

    def extended(self, length: int) -> np.ndarray:
        """Values (B, S, length): the grid, then the affine tail."""
        return _extend(self.value, self.tail_a, self.tail_b, length)

    ARRAYS = ("roll", "bank", "tail_a", "tail_b", "roll_a", "roll_b", "bank_a", "bank_b")

    def padded(self, length: int) -> "TurnSolution":
        """The same solution with its grid extended to `length` by the affine tails."""
        L = self.roll.shape[2]
        if length <= L:
            return self
        r = np.arange(L, length)
        roll = np.concatenate([self.roll, self.roll_a[:, :, None] * r + self.roll_b[:, :, None]],
                              axis=2)
        bank_ext = np.repeat((self.bank_a[:, None] * r + self.bank_b[:, None])[:, None, :],
                             self.roll.shape[1], axis=1)
        bank_ext[:, 0] = -np.inf
        sol = TurnSolution(self.model, self.cap, roll,
                           np.concatenate([self.bank, bank_ext], axis=2),
                           *(getattr(self, k) for k in self.ARRAYS[2:]))
        if self.extras is not None:
            sol.extras = np.stack([self.extended_extra(j, length)
                                   for j in range(len(self.extras))])
            sol.extras_a, sol.extras_b = self.extras_a, self.extras_b
        return sol

    @classmethod
    def concat(cls, parts: list["TurnSolution"]) -> "TurnSolution":
        """Batch rows of several solutions, one after the other (grids padded to the
        longest; each row's values past its own cap are its exact affine tail)."""
        length = max(p.roll.shape[2] for p in parts)
        parts = [p.padded(length) for p in parts]
        sol = cls(parts[0].model, max(p.cap for p in parts),
                  *(np.concatenate([getattr(p, k) for p in parts]) for k in cls.ARRAYS))
        if parts[0].extras is not None:
            sol.extras = np.concatenate([p.extras for p in parts], axis=1)
            sol.extras_a = np.concatenate([p.extras_a for p in parts], axis=1)
            sol.extras_b = np.concatenate([p.extras_b for p in parts], axis=1)
        return sol

    def take(self, rows: np.ndarray) -> "TurnSolution":
        """The solution of the batch rows `rows` (repeats allowed)."""
        if len(rows) == self.roll.shape[0] and np.array_equal(rows, np.arange(len(rows))):
            return self
        sol = TurnSolution(self.model, self.cap, *(getattr(self, k)[rows] for k in self.ARRAYS))
        if self.extras is not None:
            sol.extras = self.extras[:, rows]
            sol.extras_a = self.extras_a[:, rows]
            sol.extras_b = self.extras_b[:, rows]
        return sol

    def to_arrays(self, prefix: str) -> dict[str, np.ndarray]:
        """For a table file: every array under `prefix.`, the cap included."""
        d = {f"{prefix}.{k}": getattr(self, k) for k in self.ARRAYS}
        d[f"{prefix}.cap"] = np.array([self.cap])
        return d

    @classmethod
    def from_arrays(cls, prefix: str, arrays: dict) -> "TurnSolution":
        return cls(None, int(arrays[f"{prefix}.cap"][0]),
                   *(arrays[f"{prefix}.{k}"] for k in cls.ARRAYS))

    @classmethod
    def constant(cls, model: TurnModel, value: np.ndarray) -> "TurnSolution":
        """Every state worth `value` (B,): e.g. a turn whose outcome is already decided."""
        B, S, L = len(value), model.states, model.max_shift + 1
        roll = np.broadcast_to(value[:, None, None], (B, S, L)).copy()
        bank = roll.copy()
        bank[:, 0] = -np.inf
        const = np.repeat(value[:, None], S, axis=1)
        zero = np.zeros((B, S))
        return cls(model, 0, roll, bank, zero, const, zero, const, np.zeros(B), value.copy())

    def with_constant_extras(self, values: np.ndarray) -> "TurnSolution":
        """values (E, B): extras that are constant too (a decided turn)."""
        E, B = values.shape
        S, L = self.roll.shape[1], self.roll.shape[2]
        self.extras = np.broadcast_to(values[:, :, None, None], (E, B, S, L)).copy()
        self.extras_a = np.zeros((E, B, S))
        self.extras_b = np.repeat(values[:, :, None], S, axis=2)
        return self

    def fill(self, ALL: np.ndarray, lay: "Ragged", i: int) -> None:
        """As a permanent-points source: V and the extras of every row into source i of the
        rows laid out as `lay` (ALL (1 + E, total))."""
        B = len(lay.length)
        class_fill(ALL, lay.index(np.arange(B)[:, None], i, np.arange(lay.S), 0), self,
                   self.value, np.arange(B), None, np.zeros(B, np.int64), lay.length)

    def at(self, s: int, r: int) -> tuple[np.ndarray, np.ndarray]:
        """(roll, bank) values per batch row at state s and at-risk units r, any r >= 0."""
        if r < self.roll.shape[2]:
            return self.roll[:, s, r], self.bank[:, s, r]
        bank = self.bank_a * r + self.bank_b if s else np.full_like(self.bank_a, -np.inf)
        return self.roll_a[:, s] * r + self.roll_b[:, s], bank


def _threads(work: int) -> int:
    """Threads for a backward pass of `work` (row, total) pairs: its rows are independent,
    so every core this process may use shares them, once the pass is big enough to
    repay starting them (~0.1 ms)."""
    if work < 20_000:
        return 1
    import os
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cores or 1, 8))


def _compiled(name: str = "backward"):
    """A function of solver/_kernel.c (built at install), or None: numpy does it instead."""
    try:
        from . import _kernel
    except ImportError:          # installed without a C compiler
        return None
    return getattr(_kernel, name)


def state_index(rules: RuleSet, dice: int, turn: int) -> int:
    """The solver's state for `dice` to roll at turn total `turn` (0: must roll all)."""
    if dice == rules.dice and (turn == 0 or rules.hot_dice == "mandatory"):
        return 0
    return dice


def _lexmax_choice(a, b, starts, size):
    """Per segment of the last axis, the first index of the lexicographically largest (a, b)."""
    amax = np.maximum.reduceat(a, starts, axis=-1)
    seg = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, size)))
    ok = a >= amax[..., seg] - EPS
    bb = np.where(ok, b, -np.inf)
    bmax = np.maximum.reduceat(bb, starts, axis=-1)
    ok &= bb >= bmax[..., seg] - EPS * np.maximum(1.0, np.abs(bmax[..., seg]))
    # the first index of each segment that reaches the maximum
    idx = np.where(ok, np.arange(size), size)
    return np.minimum.reduceat(idx, starts, axis=-1), seg


def _affine_eval(model: TurnModel, pick, bank, slope, intercept, zilch, src_tails, bonus):
    """Affine values (a, b) per state of a fixed policy far out in r, and its roll parts.

    pick (B, O): the choice of every outcome; bank (B, S): banks in the tail; the payoff of
    banking is slope * r + intercept; src_tails: permanent units -> (a, b) of that source.
    """
    B, S, N = bank.shape[0], model.states, model.dice
    rows = np.arange(B)[:, None]
    tgt, sh, pm = model.target[pick], model.shift[pick], model.perm[pick]
    own = pm == 0 if src_tails else np.ones_like(pick, bool)
    ea = np.zeros(pick.shape)
    eb = np.zeros(pick.shape)
    for units, (sa, sb) in src_tails.items():
        sel = pm == units
        ta = np.take_along_axis(sa, tgt, 1)
        ea = np.where(sel, ta, ea)
        eb = np.where(sel, ta * sh + np.take_along_axis(sb, tgt, 1), eb)
    w = model.prob
    dice_of = model.out_dice - 1
    n_of_state = np.array([N] + list(range(1, N + 1))) - 1
    Wn = np.zeros((B, N, S))
    np.add.at(Wn, (np.repeat(np.arange(B), pick.shape[1]), np.tile(dice_of, B), tgt.ravel()),
              (np.where(own, w, 0.0)).ravel())
    roll = ~bank
    P = Wn[:, n_of_state, :] * roll[:, :, None]
    ext_a = np.zeros((B, N))
    np.add.at(ext_a, (rows, dice_of), np.where(own, 0.0, ea) * w)
    ext_b = np.zeros((B, N))
    np.add.at(ext_b, (rows, dice_of), (np.where(own, 0.0, eb) + bonus[pick]) * w)
    ext_b += model.p_zilch[1:] * zilch[:, None]
    I = np.eye(S)[None]
    ca = np.where(bank, slope[:, None], ext_a[:, n_of_state])
    a = np.linalg.solve(I - P, ca[..., None])[..., 0]
    shift_term = np.zeros((B, N))
    np.add.at(shift_term, (rows, dice_of), np.where(own, np.take_along_axis(a, tgt, 1) * sh, 0.0) * w)
    cb = np.where(bank, intercept[:, None], (ext_b + shift_term)[:, n_of_state])
    b = np.linalg.solve(I - P, cb[..., None])[..., 0]
    # roll parts: the value of rolling from each state under the policy
    own_a = np.where(own, np.take_along_axis(a, tgt, 1), ea)
    own_b = np.where(own, np.take_along_axis(a, tgt, 1) * sh + np.take_along_axis(b, tgt, 1),
                     eb) + bonus[pick]
    ra = np.zeros((B, N))
    rb = np.zeros((B, N))
    np.add.at(ra, (rows, dice_of), own_a * w)
    np.add.at(rb, (rows, dice_of), own_b * w)
    rb += model.p_zilch[1:] * zilch[:, None]
    return a, b, ra[:, n_of_state], rb[:, n_of_state]


def _tail(model: TurnModel, pay: Payoff, src_tails):
    """Asymptotic (r -> infinity) values: policy iteration on affine functions of r.

    Returns (a, b) per state for the optimum, the roll parts, the tail's bank flags and
    choices, and the largest crossing point of any decision against its alternatives.
    """
    B, S = pay.batch, model.states
    K = len(model.shift)
    ba, bi = pay.tail_slope.astype(float), pay.tail_intercept.astype(float)
    a = np.repeat(ba[:, None], S, axis=1)
    b = np.repeat(bi[:, None], S, axis=1)
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
        w = model.prob
        ra = np.add.reduceat(oa[rows, pick] * w, model.out_start, axis=1)
        rb = np.add.reduceat(ob[rows, pick] * w, model.out_start, axis=1) \
            + model.p_zilch[1:] * pay.zilch[:, None]
        rla = np.concatenate([ra[:, -1:], ra], axis=1)                    # (B, S) roll, by state
        rlb = np.concatenate([rb[:, -1:], rb], axis=1)
        bank = (rla < ba[:, None] - EPS) | ((np.abs(rla - ba[:, None]) <= EPS) & (rlb <= bi[:, None]))
        bank[:, 0] = False
        new_policy = (pick.tobytes(), bank.tobytes())
        if new_policy == policy:
            break
        policy = new_policy
        a, b, _, _ = _affine_eval(model, pick, bank, ba, bi, pay.zilch, src_tails, bonus)
    else:
        raise RuntimeError("asymptotic policy iteration did not converge")
    # crossing points of every alternative against the chosen one
    cross = 0.0
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
    return a, b, rla, rlb, bank, pick, cross


def solve_turn(model: TurnModel, pay: Payoff,
               values_only: bool = False) -> TurnSolution | RowValues:
    """Optimal values of every state, and the extras' values under that optimal policy.
    Rows known past a boundary (pay.above) are solved by _solve_rows; values_only (only
    there): their V and extras only, as RowValues (rolling and banking not kept apart)."""
    if pay.above is not None:
        return _solve_rows(model, pay, values_only)
    assert not values_only
    B, S = pay.batch, model.states
    src_list = sorted(pay.perm_sources.items())
    src_tails = {u: (sol.tail_a, sol.tail_b) for u, sol in src_list}
    a, b, rla, rlb, bank_tail, pick_tail, cross = _tail(model, pay, src_tails)
    cap = max(pay.tail_from, math.floor(cross) + 1, *(sol.cap for _, sol in src_list))
    start = np.full(B, cap - 1)             # each row's first r to solve
    L = cap + model.max_shift + 1
    r_all = np.arange(L)
    nsrc = 1 + len(src_list)
    ne = len(pay.extras)
    bonus = pay.perm_bonus * model.perm
    if ne:
        assert not pay.perm_bonus, "extras are evaluated without a permanent-points bonus"
    # V and the extras (other payoffs evaluated under the optimal policy) of every state:
    # ALL[v, b, source, s, r], source 0 this problem, then the permanent-points sources
    ALL = np.empty((1 + ne, B, nsrc, S, L))
    bank_pay, extra_bank = _bank_payoffs(pay, B, L)
    for i, (_, sol) in enumerate(src_list, start=1):
        ALL[0, :, i] = sol.extended(L)
        for j in range(ne):
            ALL[1 + j, :, i] = sol.extended_extra(j, L)
    roll = np.empty((B, S, L))
    tail_r = r_all[cap:]
    roll[:, :, cap:] = rla[:, :, None] * tail_r + rlb[:, :, None]     # past the cap: the tails
    if pay.forced_tail is not None:
        roll[:, 0, cap:] = np.asarray(pay.forced_tail(tail_r), float).reshape(B, -1)
    ALL[0, :, 0, :, cap:] = np.where(bank_tail[:, :, None], bank_pay[:, :, cap:],
                                     roll[:, :, cap:])
    ex_tails = []
    if ne:                      # every extra under the same tail policy: one batch
        cat = lambda xs: np.concatenate([np.broadcast_to(x, (B,) + np.shape(x)[1:])
                                         for x in xs])
        ea, eb, _, _ = _affine_eval(
            model, np.tile(pick_tail, (ne, 1)), np.tile(bank_tail, (ne, 1)),
            cat([e.tail_slope for e in pay.extras]),
            cat([e.tail_intercept for e in pay.extras]), cat([e.zilch for e in pay.extras]),
            {u: (cat(sol.extras_a), cat(sol.extras_b)) for u, sol in src_list}, 0.0 * bonus)
        ea, eb = ea.reshape(ne, B, S), eb.reshape(ne, B, S)
        ex_tails = list(zip(ea, eb))
        ALL[1:, :, 0, :, cap:] = ea[..., None] * tail_r + eb[..., None]
    row = nsrc * S * L
    _backward(model, pay, src_list, ALL.reshape(1 + ne, B * row), roll, bank_pay, extra_bank,
              start, Ragged(np.arange(B) * row, np.full(B, L), S), L,
              lambda: ALL, lambda full: None)
    bank = np.array(np.broadcast_to(bank_pay, (B, S, L)))
    bank[:, 0] = -np.inf
    sol = TurnSolution(model, cap, roll, bank, a, b, rla, rlb,
                       pay.tail_slope.astype(float), pay.tail_intercept.astype(float))
    if ne:
        sol.extras = np.ascontiguousarray(ALL[1:, :, 0])
        sol.extras_a = np.stack([t[0] for t in ex_tails])
        sol.extras_b = np.stack([t[1] for t in ex_tails])
    return sol


def _bank_payoffs(pay: Payoff, B: int, L: int) -> tuple[np.ndarray, np.ndarray]:
    """The payoffs of banking on totals 0..L-1: (B, 1, L) (or (B, S, L) where it depends
    on the state) and the extras' (E, B, L)."""
    r = np.arange(L)
    bank = np.ascontiguousarray(np.asarray(pay.bank(r), float).reshape(B, -1, L))
    extra = np.ascontiguousarray(np.stack([np.broadcast_to(e.bank(r), (B, L))
                                           for e in pay.extras]), float) \
        if pay.extras else np.zeros((0, B, L))
    return bank, extra


def _solve_rows(model: TurnModel, pay: Payoff, values_only: bool) -> TurnSolution | RowValues:
    """solve_turn for rows known past their boundaries (pay.above): each row keeps only the
    totals r <= boundary + max_shift (Ragged): its own part, and what that looks up."""
    ab = pay.above
    g, cls = ab.sol, ab.cls
    assert ab.boundary[-1] < g.cap and np.all(np.diff(ab.boundary) >= 0)
    B, S, W = pay.batch, model.states, model.max_shift
    src_list = sorted(pay.perm_sources.items())
    nsrc, ne = 1 + len(src_list), len(pay.extras)
    start = ab.boundary.astype(np.int64)
    length = start + W + 1
    lay = Ragged(np.concatenate([[0], np.cumsum(nsrc * S * length)[:-1]]), length, S)
    L = int(length.max())
    ALL = np.empty((1 + ne, int(nsrc * S * length.sum())))
    for i, (_, src) in enumerate(src_list, start=1):
        src.fill(ALL, lay, i)
    # past its boundary a row is its class: the totals its solve looks up are laid in
    rows, s = np.arange(B)[:, None], np.arange(S)
    class_fill(ALL, lay.index(rows, 0, s, start[:, None] + 1), g, np.maximum(g.roll, g.bank),
               cls, ab.zconst, start + 1, np.full(B, W))
    bank_pay, extra_bank = _bank_payoffs(pay, B, L)
    roll = np.empty((0,) if values_only else (B, S, L))
    # the rows' runs (row b, source i, state s) and where they sit on a rectangular grid
    runs = lambda i: lay.index(rows, i, s, 0).ravel()
    grid = lambda i: (((rows * nsrc + i) * S + s) * L).ravel()
    n = np.repeat(length, S)

    def rect():             # the numpy loop's rectangular grid (B, nsrc, S, L) from the rows
        full = np.empty((1 + ne, B, nsrc, S, L))
        for v in range(1 + ne):
            for i in range(nsrc):
                copy_runs(full[v].reshape(-1), grid(i), ALL[v], runs(i), n)
        return full

    def unrect(full):
        for v in range(1 + ne):
            copy_runs(ALL[v], runs(0), full[v].reshape(-1), grid(0), n)
    _backward(model, pay, src_list, ALL, roll, bank_pay, extra_bank, start, lay, L, rect,
              unrect)
    if values_only:
        return RowValues(lay, ALL[0], ALL[1:])
    # rectangular, as any solution: totals past a row's own are unset (its class's)
    extras = np.empty((ne, B, S, L))
    for j in range(ne):
        copy_runs(extras[j].reshape(-1), ((rows * S + s) * L).ravel(), ALL[1 + j], runs(0), n)
    bank = np.array(np.broadcast_to(bank_pay, (B, S, L)))
    bank[:, 0] = -np.inf
    sol = TurnSolution(model, g.cap, roll, bank, g.tail_a[cls], g.tail_b[cls], g.roll_a[cls],
                       g.roll_b[cls], pay.tail_slope.astype(float),
                       pay.tail_intercept.astype(float))
    sol.extras = extras
    sol.extras_a = class_rows(g.extras_a, cls, ab.zconst)
    sol.extras_b = class_rows(g.extras_b, cls, ab.zconst)
    return sol


def _backward(model, pay, src_list, ALL, roll, bank_pay, extra_bank, start, lay, L, rect,
              unrect):
    """The backward pass over ALL (1 + E, total) laid out as `lay`: the C kernel, or the
    numpy loop on the rectangular grid rect() (results put back by unrect)."""
    S = model.states
    src_of = np.zeros(len(model.shift), np.int64)
    for i, (units, _) in enumerate(src_list, start=1):
        src_of[model.perm == units] = i
    bonus = pay.perm_bonus * model.perm
    self_loop = bool(np.any((src_of == 0) & (model.shift == 0)))
    assert not (len(pay.extras) and self_loop), \
        "extras need an acyclic turn (no permanent self-loops)"
    zil = np.stack([pay.zilch] + [e.zilch for e in pay.extras]).astype(float)   # (1+E, B)
    fn = None if self_loop or np.any(bonus) else _compiled()
    if fn is not None:
        fn(ALL[0], src_of * S + model.target, model.shift, model.opt_start,
           np.append(model.opt_start[1:], len(model.shift)), model.out_dice - 1, model.prob,
           model.p_zilch, zil[0], bank_pay, roll, start, lay.offset.astype(np.int64),
           lay.length.astype(np.int64), S, L, ALL[1:], extra_bank, zil[1:],
           _threads(int((start + 1).sum())))
    else:
        full = rect()
        base = (src_of * S + model.target) * L + model.shift
        _sweep_numpy(model, full, roll, bank_pay, extra_bank, zil, base, bonus, start,
                     self_loop)
        unrect(full)


def _sweep_numpy(model, ALL, roll, bank_pay, extra_bank, zil, base, bonus, start, self_loop):
    """The backward pass in numpy, where no compiled one is available (or permanent
    points loop back to the same state, or carry a bonus: expected points).

    Batch last (copies in, results back): a choice's values for every batch row are one
    contiguous vector.  The choices of an outcome are taken one "slot" at a time, outcomes
    with the most choices first: slot j holds the j-th choice of the first n[j] outcomes,
    so the best choice (the first of equals, as the extras need) is a running maximum
    over slots of contiguous gathers, V and the extras together; a 0/1 matrix sums the
    outcomes by dice count."""
    E1, B, _, S, L = ALL.shape
    T = np.ascontiguousarray(ALL.transpose(0, 2, 3, 4, 1))             # (1+E, src, S, L, B)
    all_flat = T.reshape(E1, -1, B)
    V, EX = T[0, 0], T[1:, 0]
    rollT = np.ascontiguousarray(roll.transpose(1, 2, 0)) if roll.size else np.empty((S, L, B))
    bank_full = np.ascontiguousarray(np.broadcast_to(bank_pay, (B, S, L)).transpose(1, 2, 0))
    bank_full[0] = -np.inf
    bank_ex = extra_bank.transpose(0, 2, 1)[:, :, None, :]              # (E, L, 1, B)
    K = len(base)
    counts = np.diff(np.append(model.opt_start, K))
    order = np.argsort(-counts, kind="stable")
    n_slot = [int((counts > j).sum()) for j in range(int(counts.max()))]
    choice = [model.opt_start[order[:n]] + j for j, n in enumerate(n_slot)]
    slot_base = [base[c] for c in choice]
    slot_bonus = [bonus[c][:, None] for c in choice]
    has_bonus = bool(np.any(bonus))
    wsum = (model.out_dice[order][None, :] == np.arange(1, S)[:, None]) * model.prob[order]
    pz_all = model.p_zilch[None, 1:, None] * zil[:, None, :]             # (1+E, N, B)
    lower = min(zil[0].min(), 0.0)
    first_r = int(start.max(initial=-1))
    # rows solved at r: those with start >= r, a suffix when rows are sorted by boundary
    lo_of = np.searchsorted(start, np.arange(first_r + 1), side="left")
    for r in range(first_r, -1, -1):
        lo = lo_of[r]
        bank_r = bank_full[:, r, lo:]                                   # (S, B')
        if self_loop:
            V[:, r] = np.maximum(bank_r, lower)
        for _ in range(500 if self_loop else 1):
            best = all_flat[:, slot_base[0] + r, lo:]                   # (1+E, O, B')
            if has_bonus:
                best[0] += slot_bonus[0]
            for j in range(1, len(n_slot)):
                gj = all_flat[:, slot_base[j] + r, lo:]
                if has_bonus:
                    gj[0] += slot_bonus[j]
                np.copyto(best[:, :n_slot[j]], gj, where=gj[0] > best[0, :n_slot[j]])
            R = np.matmul(wsum, best) + pz_all[:, :, lo:]                # (1+E, N, B')
            rollT[1:, r, lo:] = R[0]
            rollT[0, r, lo:] = R[0, -1]
            new = np.maximum(rollT[:, r, lo:], bank_r)
            if self_loop and np.array_equal(new, V[:, r]):
                break
            V[:, r, lo:] = new
        if E1 > 1:
            Re = np.concatenate([R[1:, -1:], R[1:]], axis=1)            # by state
            EX[:, :, r, lo:] = np.where(bank_r >= rollT[:, r, lo:], bank_ex[:, r, :, lo:], Re)
    if roll.size:
        roll[:] = rollT.transpose(2, 0, 1)
    ALL[:, :, 0] = T[:, 0].transpose(0, 3, 1, 2)
