"""The values at the start of many turns at once, in C, without the grid of whole solutions:
what a game solve reads of each turn (the chance at its start and the zilch chance, Newton's
slope).  The payoff of banking is at most 1, so past a cut where it reaches what any roll
can be worth every free state banks (turn_cuts); below it, the backward pass of solve_turn;
past it, where hot dice are mandatory, the must-roll state's own recursion, free states
banking, or (one choice per outcome) the same from chain tables that many rows share.
solve_starts returns None where the kernel is not built: callers then solve whole turns.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ..outcomes.model import TurnModel
from . import kernel


def turn_cuts(model: TurnModel, U: np.ndarray, z: np.ndarray, mins: np.ndarray) -> np.ndarray:
    """Each row's cut: the total from which on banking is certainly optimal in every free
    state, at least the bank minimum mins[b].  U (B, span) or (B, S, span, by state): the
    payoff of banking, at most 1 everywhere; z (B): a zilch.  A roll is worth at most
    (1 - pz_n) + pz_n z (every value is at most 1), so once the banking payoff reaches that
    for every dice count n and every larger total the turn banks."""
    span = U.shape[-1]
    sure = np.asarray(U >= roll_bound(model, z, U.ndim) - 1e-15)
    if U.ndim == 3:  # every state that can bank (s = 0 cannot)
        sure = np.asarray(sure[:, 1:].all(axis=1))
    last_unsure = np.where(~sure.all(axis=1), span - 1 - np.argmax(~sure[:, ::-1], axis=1), -1)
    return np.maximum(last_unsure + 1, mins)


def roll_bound(model: TurnModel, z: np.ndarray, ndim: int = 2) -> np.ndarray:
    """turn_cuts' bound on a roll's worth, (1 - pz) + pz z at the least zilch chance pz,
    shaped to broadcast against a payoff of `ndim` dimensions."""
    pz = model.p_zilch[1:].min()
    zb = z[:, None, None] if ndim == 3 else z[:, None]
    return 1.0 - pz * (1.0 - zb)


@lru_cache(maxsize=16)  # (per model: every kernel call asks; a model is hashed by identity)
def chain_facts(model: TurnModel) -> tuple[np.ndarray, float]:
    """Where hot dice are mandatory: (hot, p_hot) of the must-roll state past a game turn's
    cut, every free state banking: hot[k], choice k rolls all dice again; p_hot, the chance
    of a roll of all dice whose every choice does (free states worth 1, the state's value
    is then (1 - pz - p_hot + pz z) / (1 - p_hot), the limit far out)."""
    hot = model.target == 0
    N = model.zero_group
    outs = np.nonzero(model.out_group == N)[0]
    counts = np.diff(np.append(model.opt_start, len(model.shift)))
    all_hot = np.array(
        [hot[model.opt_start[o] : model.opt_start[o] + counts[o]].all() for o in outs], bool
    )
    hot.flags.writeable = False  # (shared by the callers)
    return hot, float(model.prob[outs[all_hot]].sum()) if len(outs) else 0.0


def chain_table(model: TurnModel, u: np.ndarray, stride: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(alpha, beta): the must-roll state's value past a game turn's cut, alpha + beta z (z:
    what a zilch is worth), where every outcome has one choice (forced set-aside) and every
    free state banks: u[i] is the payoff of banking at position i, a choice adding h units
    moves to i + stride h (stride 2: a challenge, whose bank also comes off the opponent),
    and past the end of u banking is worth u[-1].  beta is the chance the chain ends in a
    zilch.  Shared by every row whose payoff past its cut is u from some position on."""
    assert model.single_choice
    hot, p_hot = chain_facts(model)
    sel = np.nonzero(model.out_group == model.zero_group)[0]  # outcome = choice here
    p, h, is_hot = model.prob[sel], stride * model.shift[sel], hot[sel]
    pz = model.p_zilch[model.zero_group + 1]
    n = len(u)
    top = n + int(h.max()) + 1
    alpha, beta = np.empty(top), np.empty(top)
    alpha[n:] = (1.0 - pz - p_hot) * u[-1] / (1.0 - p_hot)
    beta[n:] = pz / (1.0 - p_hot)
    ufull = np.full(top, float(u[-1]))
    ufull[:n] = u
    block = int(h[is_hot].min()) if is_hot.any() else n  # a block reads only above itself
    hi = n - 1
    while hi >= 0:
        ds = np.arange(max(hi - block + 1, 0), hi + 1)
        nxt = ds[:, None] + h[None, :]
        alpha[ds] = np.where(is_hot, alpha[nxt], ufull[nxt]) @ p
        beta[ds] = np.where(is_hot, beta[nxt], 0.0) @ p + pz
        hi = ds[0] - 1
    return alpha[:n], beta[:n]


@dataclass(frozen=True, eq=False)
class ChainRows:
    """Which rows of solve_starts read chain tables (chain_table; alpha, beta: the tables
    one after the other): row b's must-roll value at totals r >= at[b] is the table's at
    pos[b] + (r - at[b]) * stride, for `length[b]` entries (then the limit)."""

    alpha: np.ndarray
    beta: np.ndarray
    at: np.ndarray
    pos: np.ndarray
    length: np.ndarray
    stride: Any = 1
    # settle_table's tables one after the other, table k raised by 4 k (one sorted array),
    # and each row's 4 k; None: cuts by turn_cuts alone
    settle: np.ndarray | None = None
    level: np.ndarray | None = None
    # the tables of extras 1..E-1 (E - 1, len(alpha)): extra j at entry i is ex_alpha[j - 1,
    # i] + beta[i] times its zilch payoff (must_roll_tables); None: the zilch chance alone
    ex_alpha: np.ndarray | None = None

    def take(self, rows: np.ndarray) -> ChainRows:
        """These rows only (the tables shared)."""
        stride = self.stride if np.ndim(self.stride) == 0 else np.asarray(self.stride)[rows]
        at, pos, length = self.at[rows], self.pos[rows], self.length[rows]
        level = None if self.level is None else self.level[rows]
        return ChainRows(
            self.alpha, self.beta, at, pos, length, stride, self.settle, level, self.ex_alpha
        )

    def cuts(self, z: np.ndarray) -> np.ndarray | None:
        """Each row's first total from which banking is optimal in every free state by the
        settle tables (a zilch worth z; past the end of the row's table: beyond any
        total), or None without them."""
        if self.settle is None or self.level is None:
            return None
        i = np.maximum(np.searchsorted(self.settle, z + self.level), self.pos)
        steps = -(-(i - self.pos) // np.asarray(self.stride))
        return np.where(i < self.pos + self.length, self.at + steps, np.iinfo(np.int64).max)


def tables_space(model: TurnModel, B: int, E: int, span: int) -> np.ndarray | None:
    """solve_starts' tables_out for B rows, E extras, a grid of span: where the kernel runs
    and the must-roll state past the cut has one choice per outcome (must_roll_tables);
    None elsewhere."""
    if kernel.compiled("game_starts") is None or not model.single_choice:
        return None
    if np.any(model.shift == 0) or np.any(model.perm) or not chain_facts(model)[0].any():
        return None
    return np.zeros((B, 1 + E, span))


def must_roll_tables(out: np.ndarray, z: np.ndarray, stops: np.ndarray) -> ChainRows:
    """The must-roll state's values past each row's cut, as solve_starts wrote them
    (out (B, 1 + E, span): the value and extras from stops[b] on, extra 0 the zilch chance,
    a zilch worth z[b]), as chain tables for the next solves of the same payoffs: with one
    choice per outcome the value is alpha + beta z (beta: the zilch chance) whatever z, and
    each extra alpha_j + beta times its zilch payoff (0 here: the N-player game's seats).
    Each row reads its own table from its cut on; a later cut below it is solved down to."""
    B, _, span = out.shape
    keep = np.arange(span)[None, :] >= stops[:, None]
    beta = out[:, 1][keep]
    alpha = out[:, 0][keep] - beta * np.repeat(z, span - stops)
    ex_alpha = (
        np.stack([out[:, j][keep] for j in range(2, out.shape[1])]) if out.shape[1] > 2 else None
    )
    length = (span - stops).astype(np.int64)
    pos = np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64)
    return ChainRows(alpha, beta, stops.astype(np.int64), pos, length, ex_alpha=ex_alpha)


def settle_table(
    model: TurnModel, u: np.ndarray, alpha: np.ndarray, beta: np.ndarray, stride: int = 1
) -> np.ndarray:
    """Where banking in every free state is optimal from position i of a chain table on
    (chain_table's u, alpha, beta): for a zilch worth z <= the table's [i].  The policy
    "bank from here on" is optimal where its values satisfy Bellman's equation, that is
    where each free state's bank u[i] is worth at least one roll and then that policy (the
    must-roll state after hot dice: alpha + beta z): u[i] >= C_n[i] + E_n[i] z, so z <=
    (u - C) / E, for every dice count n a choice leads to (the start values read no
    other), the least over n and over the positions after i (rolls only move on).  Shared
    by every row reading the table, whatever its z: a row's cut is the first position
    where its z is at most this (ChainRows.cuts), far below turn_cuts' bound past the
    target, where the payoff rises slowly (zilch-challenge to 1000: the cut 124 totals
    past the target on average -> 15)."""
    hot, p_hot = chain_facts(model)
    n = len(u)
    top = n + stride * model.max_shift + 1
    pzN = model.p_zilch[model.zero_group + 1]
    A = np.full(top, (1.0 - pzN - p_hot) * u[-1] / (1.0 - p_hot))  # (the limits past n)
    Bz = np.full(top, pzN / (1.0 - p_hot))
    Uf = np.full(top, float(u[-1]))
    A[:n], Bz[:n], Uf[:n] = alpha, beta, u
    zmax = np.full(n, np.inf)
    entered = set(np.unique(model.target[model.target > 0]).tolist())
    for g in range(len(model.out_start)):  # free state g + 1 rolls group g
        if g + 1 not in entered:  # (a free state no choice enters: no turn reads it)
            continue
        sel = np.nonzero(model.out_group == g)[0]
        k = model.opt_start[sel]  # (one choice per outcome)
        p, is_hot = model.prob[sel], hot[k]
        nxt = np.arange(n)[:, None] + stride * model.shift[k][None, :]
        C = np.where(is_hot, A[nxt], Uf[nxt]) @ p
        E = np.where(is_hot, Bz[nxt], 0.0) @ p + model.p_zilch[g + 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(
                E > 0, (u - C) / np.where(E > 0, E, 1.0), np.where(u >= C, np.inf, -np.inf)
            )
        zmax = np.minimum(zmax, z - 1e-12)  # (a margin for rounding: a later cut is safe)
    return np.minimum.accumulate(zmax[::-1])[::-1]


def settle_levels(tables: list[np.ndarray]) -> np.ndarray:
    """settle_table's tables one after the other as one sorted array (ChainRows.settle):
    table k clipped to [-1, 2] (z is within [0, 1]) and raised by 4 k."""
    return np.concatenate([np.clip(t, -1.0, 2.0) + 4.0 * k for k, t in enumerate(tables)])


def solve_starts(
    model: TurnModel,
    U: np.ndarray,
    zilch: np.ndarray,
    mins: np.ndarray,
    stops: np.ndarray,
    ex_bank: np.ndarray,
    ex_zilch: np.ndarray,
    chains: ChainRows | None = None,
    family: tuple[FirstPassage, np.ndarray, np.ndarray] | None = None,
    slack: np.ndarray | None = None,
    tables_out: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The value at the start of each row's turn (must roll, nothing at risk) and the
    extras' there, in C and without a whole solution's grid: the turn banks at U[b, r] (1
    beyond its end) from r >= mins[b], and every free state banks from its cut stops[b] on
    (the caller has shown it, as game.turn_payoff does); where hot dice are mandatory the
    must-roll state past the cut is its own exact recursion.  ex_bank (E, B, span'),
    ex_zilch (E, B): the extras' payoffs, valued under the optimal choices.  None where the
    kernel is not built (or the model has choices that add nothing at risk): the caller
    solves whole turns instead.  The same values as solve_turn's (turn_payoff's payoff) up
    to rounding.  chains: where rows read the must-roll state's values past their cut from
    chain tables (ChainRows; one choice per outcome, and the one extra the zilch chance).
    family (passage, first, count): also each row's value at the start where no bank is
    allowed below m, for m = first[b] .. first[b] + count[b] - 1 (the row's own minimum
    where that is higher; FirstPassage), returned third (else empty), the rows' values one
    after the other.  slack (B,), without a family: filled with each row's least decision
    margin below its cut (the kernel's SLACK: its policy stays optimal for every zilch
    payoff closer to zilch[b] than slack[b]; 0 where a row reads a chain table whose
    must-roll state has choices).  tables_out (B, 1 + E, span), where hot dice are
    mandatory: filled with each row's must-roll value and extras from its cut to span
    (must_roll_tables makes chain tables of them)."""
    fn = kernel.compiled("game_starts")
    if fn is None or np.any(model.shift == 0) or np.any(model.perm):
        return None
    B, span = U.shape
    hot, p_hot = chain_facts(model)
    v, ex = np.empty(B), np.empty((len(ex_bank), B))
    if chains is None:
        chains = _no_chains(model, B, span)
    else:  # (extra 0 the zilch chance; more extras from their own tables)
        assert not ex_bank[0].any() and np.all(ex_zilch[0] == 1)
        assert len(ex_bank) == 1 or chains.ex_alpha is not None
        assert model.single_choice
    fam = _family_args(family)
    fn(
        *_floats(U, zilch),
        *_ints(mins, stops),
        *_model_args(model, hot),
        *_floats(ex_bank, ex_zilch),
        v,
        ex,
        chains.alpha,
        chains.beta,
        *_ints(chains.at, chains.pos, chains.length, np.broadcast_to(chains.stride, (B,))),
        *fam,
        model.states,
        span,
        ex_bank.shape[2],
        model.max_shift,
        p_hot,
        bool(hot.any()),
        model.zero_group,
        kernel.threads(int(stops.sum())),
        kernel.lanes(),
        np.zeros(0) if slack is None else slack,
        np.zeros(0) if tables_out is None else tables_out,
        np.zeros(0) if chains.ex_alpha is None else np.ascontiguousarray(chains.ex_alpha),
    )
    return v, ex, fam[-1]


def _no_chains(model: TurnModel, B: int, span: int) -> ChainRows:
    """No row reads a chain table (each starts beyond every total): the must-roll state
    past a row's cut is the kernel's own recursion."""
    none = np.zeros(B, np.int64)
    return ChainRows(np.zeros(1), np.zeros(1), none + span + model.max_shift, none, none)


def _floats(*xs: np.ndarray) -> tuple[np.ndarray, ...]:
    """The kernel's float arrays: float64, contiguous."""
    return tuple(np.ascontiguousarray(x, float) for x in xs)


def _ints(*xs: np.ndarray) -> tuple[np.ndarray, ...]:
    """The kernel's integer arrays: int64, contiguous."""
    return tuple(np.ascontiguousarray(x, np.int64) for x in xs)


def _model_args(model: TurnModel, hot: np.ndarray) -> tuple[np.ndarray, ...]:
    """The model as the kernel reads it: each choice's target and shift, each outcome's
    choices [start, end), dice count and chance, the zilch chances, the choices that roll
    every die again."""
    return (
        model.target,
        model.shift,
        model.opt_start,
        np.append(model.opt_start[1:], len(model.shift)),
        model.out_group,
        model.prob,
        model.p_zilch,
        hot.astype(np.int64),
    )


def _family_args(
    family: tuple[FirstPassage, np.ndarray, np.ndarray] | None,
) -> tuple[np.ndarray, ...]:
    """solve_starts' family as the kernel reads it: the passage's (q, zq), each row's first
    minimum, count and position among the values, and the array they fill (returned last;
    all empty without a family)."""
    if family is None:
        empty = np.zeros(0)
        return (empty, empty, *(np.zeros(0, np.int64),) * 3, empty)
    passage, first, count = family
    count = np.ascontiguousarray(count, np.int64)
    pos = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
    return (
        passage.q,
        passage.zq,
        np.ascontiguousarray(first, np.int64),
        count,
        pos,
        np.empty(int(count.sum())),
    )


def zilch_starts(
    model: TurnModel,
    U: np.ndarray,
    z: np.ndarray,
    mins: np.ndarray,
    others: np.ndarray | None = None,
    stops: np.ndarray | None = None,
    chains: ChainRows | None = None,
    slack: np.ndarray | None = None,
    tables_out: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """solve_starts with the zilch chance as extra 0 and `others` (K, B, span'), payoffs
    of a bank (nothing at a zilch), as extras 1..K: (the start values, the zilch chances,
    the others' (K, B)), or None where solve_starts is.  stops: each row's cut, by default
    turn_cuts' within the grid.  slack (B,): filled as solve_starts', and lowered to the
    room turn_cuts' cut has (past it every free state banks only while the banking payoff
    stays above a roll's bound, which rises with z by at most 1 per unit of z).  chains,
    tables_out: solve_starts' (the must-roll state's tables, written and read)."""
    B, span = U.shape
    if stops is None:
        stops = np.clip(turn_cuts(model, U, z, mins), 1, span - 1)
    K = 0 if others is None else len(others)
    ex_bank = np.zeros((1 + K, B, others.shape[2] if others is not None and K else 1))
    if others is not None and K:
        ex_bank[1:] = others
    ex_zilch = np.zeros((1 + K, B))
    ex_zilch[0] = 1.0
    got = solve_starts(
        model, U, z, mins, stops, ex_bank, ex_zilch, chains, slack=slack, tables_out=tables_out
    )
    if got is None:
        return None
    if slack is not None:
        np.minimum(slack, cut_room(model, U, z, stops), out=slack)
    return got[0], got[1][0], got[1][1:]


def cut_room(model: TurnModel, U: np.ndarray, z: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """Each row's least room, over the totals from its cut on, of turn_cuts' test: the
    banking payoff U (B, span) over a roll's bound (roll_bound; it rises by pz <= 1 per
    unit of z), so how far z may move with banking still sure past the cut; 0 where the
    test fails there, as it may at a cut clipped to the grid."""
    B, span = U.shape
    at = np.arange(B) * span
    edges = np.stack([at + stops, at + span], axis=1).ravel()[:-1]  # [cut, end) of each row
    least = np.minimum.reduceat(U.ravel(), edges)[::2]
    return np.maximum(least - roll_bound(model, z)[:, 0], 0.0)


@dataclass(frozen=True, eq=False)
class FirstPassage:
    """Where a turn that may not bank below m first reaches m (one choice per outcome, so
    nothing is chosen on the way there): q[m, s, j] the chance of arriving in state s at
    m + j (j <= the largest shift), zq[m] the chance of a zilch before; m = 1 .. M (row 0
    unused).  Overtaking's minimums (more than the previous bank) from one solved turn."""

    q: np.ndarray
    zq: np.ndarray

    @classmethod
    def of(cls, model: TurnModel, M: int) -> FirstPassage:
        assert model.single_choice
        S, H = model.states, model.max_shift
        # (state, outcome) pairs: each free state rolls its group, state 0 the zero group
        pairs = [
            (s, o) for s in range(S) for o in np.nonzero(model.out_group == model.state_group[s])[0]
        ]
        ps = np.array([p[0] for p in pairs], np.int64)
        po = np.array([p[1] for p in pairs], np.int64)
        k = model.opt_start[po]  # the outcome's one choice
        tgt, sh, pr = model.target[k], model.shift[k], model.prob[po]
        f = np.zeros((S, M + H + 1))  # f[s, r]: in state s at total r, never having banked
        f[0, 0] = 1.0
        for r in range(M):
            np.add.at(f, (tgt, r + sh), f[ps, r] * pr)
        q = np.zeros((M + 1, S, H + 1))
        for s, t, h, p in zip(ps, tgt, sh, pr):  # from r = m - h + j < m to m + j
            for j in range(h):
                lo = h - j  # the smallest m with r >= 0
                if lo <= M:
                    q[lo:, t, j] += f[s, : M + 1 - lo] * p
        pz = model.p_zilch[1:][model.state_group]  # by state
        zq = np.zeros(M + 1)
        zq[1:] = np.cumsum(pz @ f[:, :M])
        return cls(np.ascontiguousarray(q), zq)
