"""The final round: everyone's chance, each player still to play maximising his own.

A player ending at F wins if F beats the leader and no later player beats F (k tied players
share a win: each gets 2 * tie / k, a half each for two with the default tie = 0.5).
Processing the players from the last one back, Q_j(F, c) is the share of each of the c
players tied at F before player j: Q_j(F, c) = P_j(< F) Q_{j+1}(F, c) + P_j(= F)
Q_{j+1}(F, c + 1), with P_j from player j's optimal turn against (F, c) (its final-score
distribution, forward pass).  Player j's payoff for ending at F_j > F is Q_{j+1}(F_j, 1).
Leader scores are truncated where every player's chance of getting there is below
last_turn.TRUNCATION (computed, not assumed: the caller passes reach_bound's D).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from ..errors import InputError
from ..limits import MAX_UNITS
from ..outcomes.model import TurnModel
from ..rules import RuleSet
from ..turn import Extra, Payoff, Permanent, Tail, TurnLevels, TurnSolution, solve_turn
from ..turn.kernel import copy_runs
from ..turn.rows import (
    Above,
    Ragged,
    RowValues,
    class_fill,
    class_rows,
    solve_row_values,
    solve_rows,
)
from ..turn.starts import solve_starts, turn_cuts


def need_space_ok(rules: RuleSet, score_units: int) -> bool:
    """Can the last player's turn be solved in "points still needed" (one row per tie count
    instead of one per leader score)?  Banking allowed at any total, or no permanent points
    (then the few totals below the bank minimum are solved per row: _below_minimum)."""
    return rules.min_bank(rules.on_board(score_units)) == 0 or rules.perm_step is None


def _below_minimum(
    model: TurnModel,
    sol: TurnSolution,
    X: int,
    d: np.ndarray,
    ci: np.ndarray,
    m: int,
    low: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The last player's start for deficits d (units) when banking needs m units: from
    r >= m on, row d is the need-space solution at r' = X - d + r (row ci of sol: its tie
    count); below m the player cannot bank, so those few totals are solved per row.
    Returns (value, leaders' share) at the start of the turn, per row."""
    B, S = len(d), model.states
    L = X + model.max_shift + m + 1
    V = sol.extended(L)
    Ev = sol.extended_extra(0, L)
    W = np.zeros((m, S, B))
    WE = np.zeros((m, S, B))
    cols = np.arange(B)[None, :]
    tgt = model.target[:, None]
    # flat indices (numpy's take: much faster than 3-d fancy indexing) of each choice's
    # next state, per row, at r = 0: the need-space solution past m, W below it
    late_at = ((ci[None, :] * S + tgt) * L + X - d[None, :] + model.shift[:, None]).ravel()
    V, Ev = V.reshape(-1), Ev.reshape(-1)
    prob = model.prob[:, None]
    single = model.single_choice
    for r in range(m - 1, -1, -1):
        nxt = (r + model.shift)[:, None]  # (K, 1)
        late = (nxt >= m).ravel()
        w_at = ((np.minimum(nxt, m - 1) * S + tgt) * B + cols).ravel()
        g = np.where(np.repeat(late, B), V.take(late_at + r), W.reshape(-1).take(w_at))
        ge = np.where(np.repeat(late, B), Ev.take(late_at + r), WE.reshape(-1).take(w_at))
        g, ge = g.reshape(-1, B), ge.reshape(-1, B)
        if single:  # forced set-aside: each outcome's one choice
            best, ebest = g, ge
        else:
            best = np.maximum.reduceat(g, model.opt_start, axis=0)
            idx = np.where(g >= best[model.opt_outcome], np.arange(len(g))[:, None], len(g))
            ebest = ge[np.minimum.reduceat(idx, model.opt_start, axis=0), cols]  # (O, B)
        R = np.add.reduceat(best * prob, model.out_start, axis=0)  # a zilch loses
        Re = (
            np.add.reduceat(ebest * prob, model.out_start, axis=0)
            + model.p_zilch[1:, None] * low[ci][None, :]
        )
        W[r] = R[model.state_group]  # no bank below m
        WE[r] = Re[model.state_group]
    return W[0, 0], WE[0, 0]


def last_player_need_space(
    base: TurnModel,
    X: int,
    ties: list[float],
    below: list[float],
    d: np.ndarray,
    ci: np.ndarray,
    m: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The last player's turn for every deficit d = 1..X-1 at once, per tie count.

    In "points still needed" (r' = X - need) the turn does not depend on the deficit:
    banking with need < 0 wins, at need 0 ties, else loses, and a zilch loses — except on
    the chain of turns whose every point so far is permanent (start, straight, straight...):
    there nothing is at risk, so a zilch at need 0 keeps the tie.  So: the ordinary solve,
    then one backward recursion for that chain (the must-roll start and N dice after
    permanent-only choices), using the ordinary values for every other choice.

    Returns (value, leaders' share) at the start of the turn for deficits d (units, each
    below X) and tie rows ci (indices into ties); m: the bank minimum in units (if any, no
    permanent points: see _below_minimum)."""
    model = dataclasses.replace(base, shift=base.shift + base.perm, perm=np.zeros_like(base.perm))
    ns = _NeedSpace(X, np.asarray(ties, float), np.asarray(below, float))
    B = len(ties)
    leaders = Extra(bank=ns.lead, zilch=ns.low, tail=Tail.constant(np.zeros(B)))
    sol = solve_turn(
        model,
        Payoff(
            bank=ns.bank,
            zilch=np.zeros(B),
            extras=(leaders,),
            tail=Tail.constant(np.ones(B), start=X + 1),
        ),
    )
    if m:
        return _below_minimum(base, sol, X, d, ci, m, ns.low)
    V0, E0 = _permanent_chain(base, model, sol, ns)
    return V0[ci, X - d], E0[ci, X - d]


@dataclass(frozen=True, eq=False)
class _NeedSpace:
    """The last player's payoffs in "points still needed" (r' = X - need), a row per tie
    count: banking past X wins, at X ties (tie), below loses; the leaders' share of it is
    0, tie and low (the share they keep when he ends below)."""

    X: int
    tie: np.ndarray  # (B,)
    low: np.ndarray  # (B,)

    def bank(self, r: np.ndarray) -> np.ndarray:
        X, tie = self.X, self.tie
        return np.where(r[None, :] > X, 1.0, np.where(r[None, :] == X, tie[:, None], 0.0))

    def lead(self, r: np.ndarray) -> np.ndarray:
        X, tie, low = self.X, self.tie, self.low
        return np.where(r[None, :] > X, 0.0, np.where(r[None, :] == X, tie[:, None], low[:, None]))


@dataclass(frozen=True, eq=False)
class _ChainChoices:
    """The choices of a roll of all N dice (the chain's rolls), as columns (n, 1): their
    shift and target in need space, whether they add permanent points only (the chain goes
    on), each outcome's first choice (starts), each choice's outcome (seg), the outcomes'
    chances."""

    sh: np.ndarray
    tg: np.ndarray
    perm_only: np.ndarray
    starts: np.ndarray
    seg: np.ndarray
    p_out: np.ndarray

    @classmethod
    def of(cls, base: TurnModel, model: TurnModel) -> _ChainChoices:
        opts = np.nonzero(model.out_dice[model.opt_outcome] == base.dice)[0]
        perm_only = (base.shift[opts] == 0) & (base.perm[opts] > 0)
        outs, starts = np.unique(model.opt_outcome[opts], return_index=True)
        seg = np.searchsorted(starts, np.arange(len(opts)), side="right") - 1  # -> outcome
        sh, tg = model.shift[opts][:, None], model.target[opts][:, None]
        return cls(sh, tg, perm_only, starts, seg, model.prob[outs])


def _permanent_chain(
    base: TurnModel, model: TurnModel, sol: TurnSolution, ns: _NeedSpace
) -> tuple[np.ndarray, np.ndarray]:
    """The chain of turns whose every point so far is permanent, backward over need
    space's totals r = 0..X (beyond X: ahead, bank, win), every other choice read from the
    ordinary solution sol: (value, leaders' share) (B, X + 1) at the start of the turn."""
    X, tie, low = ns.X, ns.tie, ns.low
    B = len(tie)
    L = sol.roll.shape[2] + int(model.shift.max()) + 1
    V = sol.extended(L)  # (B, S, L), ordinary states
    Ev = sol.extended_extra(0, L)
    ch = _ChainChoices.of(base, model)
    pz = model.p_zilch[base.dice]
    VT = np.ones((B, L))  # N dice, all points permanent
    ET = np.zeros((B, L))
    V0 = np.zeros((B, X + 1))  # the start (must roll)
    E0 = np.zeros((B, X + 1))
    # the chain looks up its own values no nearer than its smallest permanent-only step:
    # that many totals at a time are solved together
    step = int(ch.sh[ch.perm_only].min()) if ch.perm_only.any() else X + 1
    for hi in range(X, -1, -step):
        r = np.arange(max(hi - step + 1, 0), hi + 1)
        nxt = np.minimum(r[None, :] + ch.sh, L - 1)  # (opts, totals)
        vals = np.where(ch.perm_only[:, None], VT[:, nxt], V[:, ch.tg, nxt])  # (B, opts, totals)
        evs = np.where(ch.perm_only[:, None], ET[:, nxt], Ev[:, ch.tg, nxt])
        roll_v, roll_e = _best_rolls(ch, vals, evs)
        at_x = (r == X)[None, :]  # all permanent: a zilch keeps x = t
        rv = roll_v + pz * np.where(at_x, tie[:, None], 0.0)
        re = roll_e + pz * np.where(at_x, tie[:, None], low[:, None])
        bv = ns.bank(r)
        banks = bv >= rv
        VT[:, r] = np.where(banks, bv, rv)
        ET[:, r] = np.where(banks, ns.lead(r), re)
        V0[:, r] = roll_v  # the start: need = d > 0, zilch loses
        E0[:, r] = roll_e + pz * low[:, None]
    return V0, E0


def _best_rolls(
    ch: _ChainChoices, vals: np.ndarray, evs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """A roll of N dice (B, totals) from each choice's value and extra (B, choices,
    totals): each outcome's best choice (the first of equals), weighted by its chance."""
    n = vals.shape[1]
    best = np.maximum.reduceat(vals, ch.starts, axis=1)
    first = np.where(vals >= best[:, ch.seg], np.arange(n)[:, None], n)
    pick = np.minimum.reduceat(first, ch.starts, axis=1)
    roll_v = np.einsum("bot,o->bt", best, ch.p_out)
    roll_e = np.einsum("bot,o->bt", np.take_along_axis(evs, pick, axis=1), ch.p_out)
    return roll_v, roll_e


def _derived(sol: TurnSolution, cls: np.ndarray, zconst: np.ndarray) -> TurnSolution:
    """Rows of a class solution (extras E + 1, the last the chance of a row-specific zilch)
    as rows of their own: extra j plus zconst[j] times that chance."""
    out = TurnSolution(
        sol.model,
        sol.cap,
        sol.roll[cls],
        sol.bank[cls],
        *(getattr(sol, k)[cls] for k in TurnSolution.ARRAYS[2:]),
    )
    out.extras, out.extras_a, out.extras_b = (
        class_rows(x, cls, zconst) for x in (sol.extras, sol.extras_a, sol.extras_b)
    )
    return out


def _at(arr: np.ndarray, inf: float | np.ndarray, x: int | np.ndarray) -> np.ndarray:
    """arr (..., H) at the units x, inf past H (past the top leader)."""
    H = arr.shape[-1]
    return np.where(x < H, arr[..., np.minimum(x, H - 1)], inf)


@dataclass(frozen=True, eq=False)
class _LeaderProblem:
    """The inputs of solve_leader_rows (see there), and the payoffs they define."""

    model: TurnModel
    S: int
    G: np.ndarray
    EG: np.ndarray
    F: np.ndarray
    T: np.ndarray
    ET: np.ndarray
    C: np.ndarray
    m: int  # bank minimum, units
    step: int | None  # permanent units per level

    @classmethod
    def of(
        cls,
        model: TurnModel,
        S: int,
        G: np.ndarray,
        EG: np.ndarray,
        F: np.ndarray,
        T: np.ndarray,
        ET: np.ndarray,
        C: np.ndarray,
        on_board: bool,
    ) -> _LeaderProblem:
        rules = model.rules
        return cls(model, S, G, EG, F, T, ET, C, rules.min_bank_units(on_board), rules.perm_step)

    def rows_payoff(
        self,
        k: int,
        idx: np.ndarray,
        typ: np.ndarray,
        classes: TurnSolution,
        cls: np.ndarray,
        src: TurnSolution | _LevelSource | None,
    ) -> tuple[Payoff, Above]:
        """Level k for the rows idx (zilch type typ, class cls of `classes`), solved only up
        to their leaders (Above); src: level k + 1 of those rows, or None (no permanent
        points)."""
        p = k * (self.step or 0)
        S, G, m, at = self.S, self.G, self.m, _at
        Fi = self.F[idx][:, None]
        b = len(idx)
        C, T, ET = self.C[:, idx], self.T[idx], self.ET[:, idx]

        def split(
            above: np.ndarray, tie: np.ndarray, below: float | np.ndarray, x: np.ndarray
        ) -> np.ndarray:
            fx = S + x[None, :]
            return np.where(fx > Fi, above, np.where(fx == Fi, tie, below))

        def extra_bank(j: int) -> Callable[[np.ndarray], np.ndarray]:
            return lambda r: split(
                at(self.EG[j], 0.0, r + p)[None, :], ET[j][:, None], C[j][:, None], r + p
            )

        extras = tuple(
            Extra(
                bank=extra_bank(j),
                zilch=np.where(typ == 0, ET[j], C[j]),
                tail=Tail.constant(np.zeros(b)),
            )
            for j in range(len(ET))
        )
        pay = Payoff(
            bank=lambda r: np.where(
                r[None, :] + p >= m,
                split(at(G, 1.0, r + p)[None, :], T[:, None], 0.0, r + p),
                -np.inf,
            ),
            zilch=np.where(typ == 0, T, 0.0),
            tail=Tail.constant(np.ones(b)),
            extras=extras,
            permanent=Permanent(sources={self.step: src} if self.step else {}),
        )
        return pay, Above(self.F[idx] - S - p, classes, cls, C)

    def class_payoff(
        self, k: int, prev: np.ndarray, above: TurnSolution | None
    ) -> tuple[np.ndarray, np.ndarray, Payoff]:
        """Level k's class problems: rows alike above their leaders share one (the same
        zilch type, the same class at the level above; a zilch at the leader makes a row its
        own class).  prev: each row's class at level k + 1, of the classes `above` (None: no
        permanent points).  Returns each row's zilch type (below the leader -1, at 0, above
        1), its class, and the classes' payoff."""
        p = k * (self.step or 0)
        G, m, at, H = self.G, self.m, _at, len(self.G)
        B = len(self.F)
        zx = p if p >= m else 0
        typ = np.sign(self.S + zx - self.F)  # a zilch ends below (-1), at (0) or above the leader
        key = np.column_stack([typ, np.where(typ == 0, np.arange(B), -1), prev])
        _, rep, inv = np.unique(key, axis=0, return_index=True, return_inverse=True)
        t, nc = typ[rep], len(rep)
        zU = np.where(t < 0, 0.0, np.where(t == 0, self.T[rep], at(G, 1.0, zx)))
        src = {self.step: above.take(prev[rep])} if self.step and above is not None else {}
        pay = Payoff(
            bank=partial(self._class_bank, G, 1.0, p, nc, m),
            zilch=zU,
            tail=Tail.constant(np.ones(nc), start=max(H - p, m - p, 0)),
            extras=self._class_extras(p, zx, t, rep),
            permanent=Permanent(sources=src),
        )
        return typ, inv.ravel(), pay

    def _class_extras(self, p: int, zx: int, t: np.ndarray, rep: np.ndarray) -> tuple[Extra, ...]:
        """The classes' extras at level p (zilch types t of their rows rep): the rows'
        E, then the chance of a zilch below the leader (its row-specific C: Above)."""
        E, nc = len(self.EG), len(rep)
        extras = []
        for j in range(E + 1):
            if j < E:
                zE = np.where(
                    t < 0, 0.0, np.where(t == 0, self.ET[j, rep], _at(self.EG[j], 0.0, zx))
                )
                bank = partial(self._class_bank, self.EG[j], 0.0, p, nc, None)
            else:  # the chance of a zilch below the leader
                zE = (t < 0).astype(float)
                bank = partial(self._class_bank, np.zeros_like(self.G), 0.0, p, nc, None)
            extras.append(Extra(bank=bank, zilch=zE, tail=Tail.constant(np.zeros(nc))))
        return tuple(extras)

    def _class_bank(
        self, arr: np.ndarray, inf: float, p: int, nc: int, m: int | None, r: np.ndarray
    ) -> np.ndarray:
        """Banking r at risk at level p, in every class alike: arr at r + p (inf past the
        grid); m: where at least m units must be banked (None: no minimum, an extra)."""
        if m is None:
            return np.broadcast_to(_at(arr, inf, r + p), (nc, len(r)))
        return np.broadcast_to(np.where(r + p >= m, _at(arr, inf, r + p), -np.inf), (nc, len(r)))


@dataclass
class LeaderRows:
    """One final-round player's turn against every leader row, level by level (permanent
    points).  At level k, rows at or below their leader (F >= S + p) from first[k] on are
    solved below it; every other state of a row is its class's (classes[k]).  Rows are
    many: of their own parts only the start of the turn is kept (`levels` solves one row
    again in full)."""

    problem: _LeaderProblem
    classes: list[Any]  # TurnSolution per level (filled from the top level down)
    cls: list[Any]  # (B,) class of each row, per level
    typ: list[Any]  # (B,) a zilch at level k ends below/at/above the leader
    first: list[int]
    # (value, extras) at the start of the turn, rows first[0]..B-1
    own_start: tuple[np.ndarray, np.ndarray] | None = None
    _values: dict[int, np.ndarray] = field(default_factory=dict, repr=False)

    def class_value(self, k: int) -> np.ndarray:
        """V of level k's classes (the better of rolling and banking), computed once."""
        if k not in self._values:
            self._values[k] = np.maximum(self.classes[k].roll, self.classes[k].bank)
        return self._values[k]

    def _keep(self, k: int, rows: np.ndarray, n: int) -> np.ndarray:
        """(b, 1, n): the totals of the first n where rows (with an own part at level k)
        are their own (up to their leaders)."""
        return (np.arange(n) <= self._bound(k, rows)[:, None])[:, None, :]

    def _bound(self, k: int, rows: np.ndarray) -> np.ndarray:
        """Units from the start of level k to the leaders of `rows`: their own part."""
        return self.problem.F[rows] - self.problem.S - k * (self.problem.step or 0)

    def levels(self, i: int) -> TurnLevels:
        """Every level of row i, values of rolling and banking apart: its own part solved
        again, from the top level down (each is the next one's source)."""
        pr = self.problem
        idx = np.array([i])
        out: list[TurnSolution] = [None] * len(self.classes)  # type: ignore[list-item]
        for k in range(len(self.classes) - 1, -1, -1):
            sol = _derived(self.classes[k], self.cls[k][idx], pr.C[:, idx])
            if i >= self.first[k]:
                own = solve_rows(
                    pr.model,
                    *pr.rows_payoff(
                        k,
                        idx,
                        self.typ[k][idx],
                        self.classes[k],
                        self.cls[k][idx],
                        out[k + 1] if pr.step else None,
                    ),
                )
                n = min(own.roll.shape[2], sol.roll.shape[2])
                keep = self._keep(k, idx, n)
                np.copyto(sol.roll[:, :, :n], own.roll[:, :, :n], where=keep)
                np.copyto(sol.bank[:, :, :n], own.bank[:, :, :n], where=keep)
                np.copyto(sol.extras[:, :, :, :n], own.extras[:, :, :, :n], where=keep[None])
            out[k] = sol
        return TurnLevels(pr.model.rules, tuple(out))

    def start(self) -> tuple[np.ndarray, np.ndarray]:
        """P(win) and the extras (E, B) of every row from the start of the turn."""
        f, B = self.first[0], len(self.cls[0])
        c = self.classes[0]
        k = self.cls[0][:f]
        C = self.problem.C
        value = np.empty(B)
        ex = np.empty((len(C), B))
        value[:f] = c.roll[k, 0, 0]
        ex[:, :f] = class_rows(c.extras[:, :, 0, 0], k, C[:, :f])
        if f < B:
            assert self.own_start is not None
            value[f:], ex[:, f:] = self.own_start
        return value, ex


@dataclass(frozen=True, eq=False)
class _LevelSource:
    """Level k of the rows idx as a permanent-points source of the level below: each row's
    class, with the rows' own part (own: rows first[k]..B-1) up to their leaders."""

    rows: LeaderRows
    k: int
    idx: np.ndarray
    own: RowValues | None

    def fill(self, ALL: np.ndarray, lay: Ragged, i: int) -> None:
        lr, k, idx = self.rows, self.k, self.idx
        c = lr.classes[k]
        B, S = len(idx), lay.S
        b, s = np.arange(B)[:, None], np.arange(S)
        class_fill(
            ALL,
            lay.index(b, i, s, 0),
            c,
            lr.class_value(k),
            lr.cls[k][idx],
            lr.problem.C[:, idx],
            np.zeros(B, np.int64),
            lay.length,
        )
        if self.own is not None:  # the rows' own part, up to their leaders
            h = int(np.searchsorted(idx, lr.first[k]))
            dst = lay.index(b[h:], i, s, 0).ravel()
            src = self.own.layout.index(idx[h:, None] - lr.first[k], 0, s, 0).ravel()
            n = np.repeat(np.minimum(lr._bound(k, idx[h:]) + 1, lay.length[h:]), S)
            copy_runs(ALL[0], dst, self.own.value, src, n)
            for j in range(len(ALL) - 1):
                copy_runs(ALL[1 + j], dst, self.own.extras[j], src, n)


def solve_leader_rows(
    model: TurnModel,
    S: int,
    G: np.ndarray,
    EG: np.ndarray,
    F: np.ndarray,
    T: np.ndarray,
    ET: np.ndarray,
    C: np.ndarray,
    on_board: bool,
) -> LeaderRows:
    """A final turn from score S (units) against leaders F (B,) (ascending), grid x < H.

    Ending at S + x above the leader is worth G[x] (extras EG[:, x]) whatever the leader,
    beyond H 1 (extras 0); at the leader T (ET), below 0 (extras C).  So above its leader
    a row is one of a few class problems: the bank payoff G everywhere and the same zilch
    payoff at every level from here up (below: 0, with the extras' row-specific C carried by
    one more extra, the chance of such a zilch; at or above the leader: T or G).  Each level
    solves its classes on the whole grid and the rows only up to their leader (Above),
    keeping only their values (rows are many; LeaderRows.levels solves one again in full)."""
    return _solve_leader_problem(_LeaderProblem.of(model, S, G, EG, F, T, ET, C, on_board))


def _solve_leader_problem(pr: _LeaderProblem) -> LeaderRows:
    """solve_leader_rows of the problem pr."""
    model, S, F, step = pr.model, pr.S, pr.F, pr.step
    H, B = len(pr.G), len(F)
    n = (math.ceil(H / step) if step else 0) + 1
    solved = LeaderRows(pr, [None] * n, [None] * n, [None] * n, [B] * n)
    prev = np.zeros(B, np.int64)
    own = None  # the rows' own values at the level above
    for k in range(n - 1, -1, -1):
        if k * (step or 0) >= H:  # the turn is already beyond every reach: a win
            solved.classes[k] = TurnSolution.constant(model, np.ones(1)).with_constant_extras(
                np.zeros((len(pr.EG) + 1, 1))
            )
            solved.cls[k] = prev = np.zeros(B, np.int64)
            solved.typ[k] = np.ones(B, np.int64)
            continue
        typ, prev, pay = pr.class_payoff(k, prev, solved.classes[k + 1] if step else None)
        solved.classes[k], solved.cls[k], solved.typ[k] = solve_turn(model, pay), prev, typ
        # the rows at or below their leader at this level: solved up to it
        solved.first[k] = int(np.searchsorted(F - S - k * (step or 0), 0, side="left"))
        own = _own_rows(solved, k, own) if solved.first[k] < B else None
    if own is not None and solved.first[0] < B:
        starts = own.layout.offset  # (row, state 0, total 0)
        solved.own_start = own.value[starts], own.extras[:, starts]
    return solved


def _own_rows(solved: LeaderRows, k: int, above: RowValues | None) -> RowValues:
    """Level k's rows from first[k] on (at or below their leader), each solved only up to
    it; above: their own values at level k + 1 (the source of their permanent choices)."""
    pr = solved.problem
    idx = np.arange(solved.first[k], len(pr.F))
    level_above = _LevelSource(solved, k + 1, idx, above) if pr.step else None
    return solve_row_values(
        pr.model,
        *pr.rows_payoff(
            k, idx, solved.typ[k][idx], solved.classes[k], solved.cls[k][idx], level_above
        ),
    )


@dataclass
class PlayerTurn:
    score: int  # points
    rows: list[tuple[int, int]]  # (leader F in units, tied count c) of each batch row
    solved: LeaderRows | None  # None: the last player, solved in need-space
    value: np.ndarray  # (rows,) P(win) from the start of the turn

    def row(self, F: int, c: int) -> int:
        return self.rows.index((F, c))

    def levels(self, row: int = 0) -> TurnLevels:
        """The turn against one leader row, every permanent level (one batch row)."""
        assert self.solved is not None
        return self.solved.levels(row)


@dataclass
class FinalRound:
    rules: RuleSet
    leader: int  # points, before the first player still to play
    tied: int  # players sharing the lead then
    players: list[PlayerTurn]  # the players still to play, in turn order
    p_leaders: float  # each tied leader's chance of winning
    p_players: list[float]  # each player's chance, at the start
    # (spread + 1, 1 + players): the same for leaders leader + f * unit (solve's spread)
    by_leader: np.ndarray | None = None

    @property
    def total(self) -> float:
        return self.tied * self.p_leaders + sum(self.p_players)


def check_final_round(rules: RuleSet, leader: int, scores: Sequence[int], turn: int = 0) -> None:
    """InputError for a final round the solver cannot take (before any solve): scores off
    the unit, a player still to play level with or ahead of the leader, or one further
    behind than the deficits solved."""
    u = rules.unit
    if leader % u or any(s % u for s in scores) or turn % u:
        raise InputError(f"scores must be multiples of {u} under {rules.name}")
    if rules.overtaking and len(scores) > 1:
        raise InputError(
            f"{rules.name}: a final round with overtaking and more than one player still to "
            "play is not solved yet (each one's minimum is the previous one's bank); the last "
            "turn is, given the total to beat"
        )
    if any(s >= leader for s in scores):
        raise InputError(
            "a player still to play in the final round cannot be level with or ahead of the leader"
        )
    top = (rules.target or 0) // u + MAX_UNITS
    if any(leader // u - s // u > top for s in scores):
        raise InputError(
            f"a final round more than {top * u} points behind the leader "
            f"({leader}): the solver takes deficits up to that under {rules.name}"
        )


def solve_final_round(
    model: TurnModel,
    leader: int,
    tied: int,
    scores: list[int],
    reach_bound: int,
    turn: int = 0,
    spread: int = 0,
    within_reach: bool = False,
    starts_only: bool = False,
) -> FinalRound:
    """The final round from the moment before the first of `scores` plays: the leader has
    `leader` points, `tied` players share it.  `turn`: the first player's turn total so far
    (a query in the middle of his turn), so that every score he can still reach is covered.

    Backward over the players: player j's turn is solved for every leader state (F, c) he
    may face, and evaluated (extras) for the leaders' share Q_j(F, c) and for every later
    player i's chance Z_i(F, c) of winning from there (play_back).  Player j faces leaders
    up to what the players before him can reach (F_top[j]); above that (probability below
    TRUNCATION) he is taken not to change the outcome, as every player is beyond his own
    reach (reach_bound: last_turn.reach_bound's D, units).  spread: also every leader score
    up to `spread` units above `leader` (FinalRound.by_leader; the N-player game's table).
    within_reach (the approximate P(win)'s, not the tables'): a player is solved only
    against the leaders he can reach (at most reach_bound above him); the others he leaves
    as they are (chance 0 for him: less than the truncation's to change anything).
    starts_only: the chances alone (play_back's; the players' turns are not kept)."""
    rules = model.rules
    u = rules.unit
    check_final_round(rules, leader, scores, turn)
    L0 = leader // u
    reach = [s // u + reach_bound for s in scores]
    reach[0] += turn // u
    F_hi = max([L0 + spread] + reach)
    m = len(scores)
    shares = Shares.start(rules, L0, F_hi, tied + m + 2)
    players: list[PlayerTurn] = []
    for j in range(m - 1, -1, -1):
        F_top = max([L0 + spread] + reach[:j])  # what the players before him can reach
        rows = leader_states(L0, tied, j, F_top, spread)
        if within_reach:
            rows = [(F, c) for F, c in rows if F - scores[j] // u <= reach_bound]
        player, shares = play_back(model, shares, scores[j], j, m, rows, starts_only)
        players.insert(0, player)
    Q, Z = shares.Q, shares.Z
    p_players = [float(Z[j][0, tied]) for j in range(m)]
    by_leader = np.stack([Q[: spread + 1, tied]] + [Z[j][: spread + 1, tied] for j in range(m)], 1)
    return FinalRound(rules, leader, tied, players, float(Q[0, tied]), p_players, by_leader)


@dataclass(frozen=True, eq=False)
class Shares:
    """The final round after the players from some j on: over the leader grid F = L0 ..
    L0 + len(Q) - 1 (units), Q[F - L0, c] each of c tied leaders' share, Z[i][F - L0, c]
    each later player i's chance (i >= j)."""

    L0: int
    Q: np.ndarray
    Z: dict[int, np.ndarray]

    @classmethod
    def start(cls, rules: RuleSet, L0: int, F_hi: int, width: int) -> Shares:
        """After every player: c tied leaders share the win (tie counts 0 .. width - 1)."""
        row = [rules.share(c) if c else 0.0 for c in range(width)]
        return cls(L0, np.array([row] * (F_hi - L0 + 1)), {})

    def from_leader(self, L0: int) -> Shares:
        """The same tables for the leaders from L0 (>= self.L0) on only (views)."""
        k = L0 - self.L0
        return Shares(L0, self.Q[k:], {i: z[k:] for i, z in self.Z.items()})


def play_back(
    model: TurnModel,
    shares: Shares,
    score: int,
    j: int,
    m: int,
    rows: list[tuple[int, int]],
    starts_only: bool = False,
) -> tuple[PlayerTurn, Shares]:
    """Player j (score: points) of the m still to play, against the leader states `rows`
    ((F, c), F >= shares.L0, ascending F), with `shares` after him: his turn and the shares
    before him.  Where every player faces the same top leader (the N-player table: one
    tied, every F_top its R + D), his rows depend only on his and the later players' scores
    and on (F, c), not on L0 (ending above a leader F >= L0 is above L0: _above_leader's
    mask never applies) nor on the rows solved with them: nplayer_game.final_rows solves
    each suffix of the others' scores once.  starts_only: the shares alone are wanted (the
    turn's rows are not kept: _leader_starts, where it applies)."""
    S = score // model.rules.unit
    L0 = shares.L0
    H = L0 + len(shares.Q) - S  # his grid: up to the top leader F_hi
    f = np.array([F - L0 for F, _ in rows], np.int64)
    c = np.array([c for _, c in rows], np.int64)
    last = j == m - 1 and j > 0
    solved, value, ex = _player_turn(model, S, H, L0, shares.Q, shares.Z, f, c, last, starts_only)
    Q, Z = _after_player(shares.Q, shares.Z, j, f, c, value, ex)
    return PlayerTurn(score, rows, solved, value), Shares(L0, Q, Z)


def _player_turn(
    model: TurnModel,
    S: int,
    H: int,
    L0: int,
    Q: np.ndarray,
    Z: dict[int, np.ndarray],
    f: np.ndarray,
    c: np.ndarray,
    last: bool,
    starts_only: bool = False,
) -> tuple[LeaderRows | None, np.ndarray, np.ndarray]:
    """A player at score S (units) against the leader states (L0 + f, c): his rows
    (None where solved in need space, the last player's, or by their start values alone,
    starts_only), his chance from the start of the turn and the extras (E, rows): the
    leaders' share and each later player's chance."""
    rules = model.rules
    if last and need_space_ok(rules, S):
        return None, *_last_player(model, S, H, Q, f + L0 - S, c)
    G, EG = _above_leader(Q, Z, S, H, L0)
    tables = [Q] + [Z[pl] for pl in sorted(Z)]
    ET = np.stack([tb[f, c + 1] for tb in tables])  # ending level with the leaders
    C = np.stack([tb[f, c] for tb in tables])  # below them
    pr = _LeaderProblem.of(model, S, G, EG, f + L0, Q[f, c + 1], ET, C, rules.on_board(S))
    got = _leader_starts(pr) if starts_only and _starts_pay(pr) else None
    if got is not None:
        return None, *got
    solved = _solve_leader_problem(pr)
    return solved, *solved.start()


# Bytes above which the leader rows are solved by their start values even where hot dice are
# mandatory (there the whole turns' classes are quicker: zilch to 1000 among three, 11.1 s
# against 17.0 s; with optional hot dice the start values are, farkle to 1000, 5.1 -> 2.5 s)
WHOLE_ROWS_BYTES = 1e9


def _starts_pay(pr: _LeaderProblem) -> bool:
    """Whether _leader_starts is the quicker (optional hot dice) or the only (whole turns
    past WHOLE_ROWS_BYTES: solve_row_values' grid) way to the rows' start values."""
    model = pr.model
    if model.rules.hot_dice != "mandatory":
        return True
    length = np.maximum(pr.F - pr.S, 0) + model.max_shift + 1
    return 16.0 * (2 + len(pr.ET)) * model.states * float(length.sum()) > WHOLE_ROWS_BYTES


def _leader_starts(pr: _LeaderProblem) -> tuple[np.ndarray, np.ndarray] | None:
    """solve_leader_rows' start(), by the C kernel's start values (turn.starts): each row
    its own problem on the whole grid, no classes and no grid of values kept (zilch-
    pyramiding among three: its 1 982 leader rows of 82 turn states took 8.7 GB as whole
    turns).  The same payoffs: ending at S + x above the row's leader G[x] (extras EG),
    at it T (ET), below 0 (C); 1 beyond the grid (extras 0).  None where it does not apply
    (permanent points, the kernel not built)."""
    model, S, G, EG, F, T, ET, C, m = (
        pr.model, pr.S, pr.G, pr.EG, pr.F, pr.T, pr.ET, pr.C, pr.m
    )  # fmt: skip
    if pr.step is not None:
        return None
    H = max(len(G), m + 1, 2)  # (the cut on the grid: past it the kernel banks at 1)
    x = np.arange(H)
    fx = S + x[None, :]
    above, tie = fx > F[:, None], fx == F[:, None]
    Gx, EGx = _at(G, 1.0, x), _at(EG, 0.0, x)
    U = np.where(above, Gx[None, :], np.where(tie, T[:, None], 0.0))
    ex_bank = np.where(
        above[None], EGx[:, None, :], np.where(tie[None], ET[:, :, None], C[:, :, None])
    )
    typ = np.sign(S - F)  # a zilch ends below (-1), at (0) or above the leader
    z = np.where(typ < 0, 0.0, np.where(typ == 0, T, G[0]))
    ex_zilch = np.where(typ < 0, C, np.where(typ == 0, ET, EG[:, :1]))
    mins = np.full(len(F), m)
    stops = np.clip(turn_cuts(model, U, z, mins), 1, H - 1)
    got = solve_starts(model, U, z, mins, stops, ex_bank, ex_zilch)
    return None if got is None else (got[0], got[1])


def leader_states(L0: int, tied: int, j: int, F_top: int, spread: int) -> list[tuple[int, int]]:
    """The leader states (F, c) player j can face: at the first leader's score L0, the tied
    group plus any of the j players before him; above it, up to F_top, up to j of those
    players tied (and within `spread` of L0 the tied group with them)."""
    return [(L0, c) for c in range(tied, tied + j + 1)] + [
        (L0 + f, c)
        for f in range(1, F_top - L0 + 1)
        for c in sorted(
            set(range(1, j + 1)) | set(range(tied, tied + j + 1) if f <= spread else ())
        )
    ]


def _above_leader(
    Q: np.ndarray, Z: dict[int, np.ndarray], S: int, H: int, L0: int
) -> tuple[np.ndarray, np.ndarray]:
    """Ending above the leader at S + x (x < H) is worth the same for every row: (G, EG)
    the chance that no later player beats it, and each later player's chance (1 + later,
    H) (row 0 unused: the leaders' share there is 0); 0 below L0 (never above)."""
    Fj = S + np.arange(H)
    later = sorted(Z)
    fj = np.clip(Fj - L0, 0, None)
    ok = Fj >= L0
    G = np.where(ok, Q[fj, 1], 0.0)
    EG = np.zeros((1 + len(later), H))
    for e, pl in enumerate(later, start=1):
        EG[e] = np.where(ok, Z[pl][fj, 1], 0.0)
    return G, EG


def _last_player(
    model: TurnModel, S: int, H: int, Q: np.ndarray, d: np.ndarray, c: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The last player at deficits d (units) with c tied leaders, one row per tie count in
    need space: (his chance, the leaders' share (1, rows))."""
    cs = sorted(set(c.tolist()))
    mb = model.rules.min_bank_units(model.rules.on_board(S))
    value, leaders = last_player_need_space(
        model, H, [Q[0, x + 1] for x in cs], [Q[0, x] for x in cs], d, np.searchsorted(cs, c), mb
    )
    return value, leaders[None, :]


def _after_player(
    Q: np.ndarray,
    Z: dict[int, np.ndarray],
    j: int,
    f: np.ndarray,
    c: np.ndarray,
    value: np.ndarray,
    ex: np.ndarray,
) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    """Q and Z before player j: at the leader states (f, c) he faces, the leaders' share and
    every later player's chance under his play (ex), and his own chance (value)."""
    later = sorted(Z)
    newQ = Q.copy()  # leaders beyond F_top[j]: player j changes nothing
    newZ = {pl: Z.get(pl, np.zeros_like(Q)).copy() for pl in later + [j]}
    newQ[f, c] = ex[0]
    newZ[j][f, c] = value
    for e, pl in enumerate(later, start=1):
        newZ[pl][f, c] = ex[e]
    return newQ, newZ


def stopping_rule(
    levels: TurnLevels, reach: np.ndarray, row: int, score: int, leader: int
) -> dict[int, int | None]:
    """Per dice count: the smallest turn total from which banking is optimal at every larger
    total on the grid (no permanent points); None where the player never banks.  reach:
    reach[s, r] for at least the grid's totals (turn/reach.py)."""
    rules = levels.rules
    sol = levels[0]
    L = sol.roll.shape[2]
    reach = reach[:, :L]
    u = rules.unit
    out: dict[int, int | None] = {}
    for n in range(rules.dice, 0, -1):
        if n == rules.dice and rules.hot_dice == "mandatory":
            out[n] = None
            continue
        ok = reach[n].copy()
        ok[0] = False
        rolls = ok & ~(sol.bank[row, n] >= sol.roll[row, n])
        last = np.nonzero(rolls)[0]
        start = last.max() + 1 if len(last) else max(0, (leader - score) // u + 1)
        later = np.nonzero(ok[start:])[0]
        out[n] = int((start + later[0]) * u) if len(later) else None
    return out
