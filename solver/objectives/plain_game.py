"""The whole two-player game: the probability that the player to move wins.

W[a, b]: the player to move has a, the opponent b (units, both below the target).  A turn
from (a, b) is the turn solver with payoff "1 - W[b, a + t]" for banking t, "the opponent's
last turn fails" once a + t reaches the target (final round; or 1 where reaching it wins at
once), and "1 - W[b, a]" for a zilch.  Banks raise the score sum and a zilch swaps the
players at the same sum, so the sums are solved from the top down; the two orders {(a, b),
(b, a)} of a sum are coupled only through their zilch payoffs: Newton's method on the pair,
with the slope dW/dz = P(the turn ends in a zilch) evaluated under the optimal policy (an
extra of the same solve), lands on the fixed point exactly once the policy settles.

Scores of 0 are "not on the board" where the rules have an entry minimum (a bank is at
least that minimum, so a positive score is always on the board).

Zonk's piggyback: a player who banks t with n dice left offers them to the opponent, who
may take them over (roll those n dice from t) or start fresh.  O[x, y, n, t] is the mover's
chance if he takes the offer: the roll value of state (n, t) in the turn from (x, y), which
the same solve gives (its grid then covers every total up to y).  Banking is then worth
1 - max(W[b, a + t], O[b, a + t, n, t]), a payoff by dice left; both terms come from higher
score sums, so the order of solution is unchanged.  Only the offers worth taking are kept
(Offers); any other take-over value is its turn's, solved on demand.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar, overload

import numpy as np

from ..errors import InputError
from ..outcomes.model import TurnModel
from ..rules import RuleSet
from ..turn import Extra, Payoff, StateValues, Tail, TurnLevels, TurnState, solve_levels, solve_turn
from ..turn.starts import ChainRows, chain_table, turn_cuts, zilch_starts
from .game_run import GameRun, SumCheckpoints
from .last_turn import last_turn_start

NEWTON_TOL = 1e-14
Turns = TypeVar("Turns")  # what a sum's solve returns besides the values (newton_on_pairs)


def sums_to_one(rules: RuleSet) -> bool:
    """Every outcome's chances sum to 1: tied players share one win (a tie worth half a
    win), or no final round (no ties)."""
    return rules.end == "instant" or rules.tie == 0.5


def check_constant_sum(rules: RuleSet) -> None:
    """InputError for a two-player game whose chances do not sum to 1 (sums_to_one).
    This solver counts the opponent's chance as 1 - the mover's; the N-player solver
    (zilch game --players 3 and more) carries every seat's chance and takes such ties."""
    if not sums_to_one(rules):
        raise InputError(
            f"{rules.name}: a tie worth {rules.tie:g} of a win (not half) makes the two "
            "players' chances sum to more or less than 1; the two-player game is solved for "
            "ties worth half a win (the game among three players or more takes such ties)"
        )


def check_supported(rules: RuleSet) -> None:
    if rules.target is None:
        raise InputError(f"{rules.name} has no target: there is no game to solve")
    check_constant_sum(rules)
    if rules.three_zilch_penalty:  # (its own solver: penalty_game.py)
        raise InputError(
            f"{rules.name} charges a penalty for the third zilch in a row: this game table "
            "leaves it out (zilch game solves the game with it)"
        )
    if rules.challenge:  # (its own solver: challenge_game.py)
        raise InputError(
            f"{rules.name} has the challenge rule: this game table leaves it out (zilch game "
            "solves the game with it)"
        )
    if rules.overtaking:
        raise InputError(
            f"{rules.name}: the game with overtaking is not solved yet (the previous "
            "player's banked turn total is part of its state); the turn and last-turn "
            "questions take it as the total to beat"
        )
    if rules.has_permanent:
        _ = rules.perm_step  # one permanent amount (refused otherwise, clearly)
    if rules.piggyback and (rules.end != "instant" or rules.has_permanent):
        raise InputError(
            f"{rules.name}: piggyback is solved where reaching the target wins "
            "at once and without permanent points"
        )


@dataclass(frozen=True, eq=False)
class Offers:
    """Piggyback take-over values O[x, y, n, t] (taking over n dice and total t, moving with
    x against y) where they beat a fresh start, at sorted flat indices into `shape`: the
    only ones the game needs (banking is worth 1 - max(W, O)).  Zonk-chicago to 10000:
    about 14 M of the 16 M possible offers (165 MB stored)."""

    shape: tuple
    idx: np.ndarray
    val: np.ndarray

    @classmethod
    def dense(cls, O: np.ndarray, W: np.ndarray) -> Offers:
        with np.errstate(invalid="ignore"):
            idx = np.flatnonzero(O > W[:, :, None, None])  # NaN: no such offer
        small = O.size < 2**31  # 4-byte indices where they fit
        return cls(O.shape, idx.astype(np.int32) if small else idx, O.ravel()[idx])

    def lookup(self, x: np.ndarray, y: np.ndarray, n: np.ndarray, t: np.ndarray) -> np.ndarray:
        """O where stored, NaN elsewhere (a fresh start is at least as good there)."""
        flat = np.ravel_multi_index((x, y, n, t), self.shape)
        if not len(self.idx):
            return np.full(np.shape(flat), np.nan)
        pos = np.minimum(np.searchsorted(self.idx, flat), len(self.idx) - 1)
        return np.where(self.idx[pos] == flat, self.val[pos], np.nan)


@dataclass(frozen=True, eq=False)
class Finals:
    """P(win) for the player who banks to a + t >= target: the opponent's last turn, by
    deficit and board flag (opp), or 1 where reaching the target wins at once."""

    rules: RuleSet
    R: int
    opp: dict[bool, np.ndarray] | None
    built: dict = field(default_factory=dict)  # the chain tables, once built (chains)

    @classmethod
    def solve(cls, model: TurnModel, R: int, reach_bound: int) -> Finals:
        rules = model.rules
        if rules.end == "instant":
            return cls(rules, R, None)
        deficits = np.arange(R + reach_bound + 1) * rules.unit
        # the opponent's chance in his last turn, by deficit, on and off the board
        return cls(
            rules,
            R,
            {
                flag: last_turn_start(model, deficits, flag)
                for flag in {rules.on_board(0), rules.on_board(1)}
            },
        )

    @property
    def D(self) -> int:
        return 0 if self.opp is None else len(next(iter(self.opp.values()))) - self.R - 1

    def chains(self, model: TurnModel, rows: np.ndarray) -> ChainRows | None:
        """Where every outcome has one choice and hot dice are mandatory: the must-roll
        state past each row's cut from the chain tables of the opponent's last turn (a
        bank of a + t >= R is worth 1 - opp[a + t - b], the same for every row by the
        deficit), from the row's first total reaching the target on."""
        if not (model.single_choice and model.rules.hot_dice == "mandatory"):
            return None
        a, b = rows[:, 0], rows[:, 1]
        at = self.R - a
        if self.opp is None:  # reaching the target wins: the limit from there on
            none = np.zeros(len(rows), np.int64)
            return ChainRows(np.zeros(1), np.zeros(1), at, none, none)
        alpha, beta, first = self._tables(model)
        on = (b > 0) | (not self.rules.entry_minimum)
        base = np.where(on, first[True], first[False])
        d0 = self.R - b  # the deficit of the first total reaching the target
        size = len(next(iter(self.opp.values()))) + 1
        return ChainRows(alpha, beta, at, base + d0, size - d0)

    def _tables(self, model: TurnModel) -> tuple[np.ndarray, np.ndarray, dict[bool, int]]:
        """The chain tables by the opponent's board flag, one after the other, and where
        each begins (built once per model)."""
        if self.built.get("model") is not model:
            assert self.opp is not None
            parts, first, at = [], {}, 0
            for flag in (False, True):
                opp = self.opp.get(flag, self.opp[True])
                u = np.append(1.0 - opp, 1.0)  # (1 past the last deficit)
                parts.append(chain_table(model, u))
                first[flag] = at
                at += len(u)
            alpha, beta = (np.concatenate([p[i] for p in parts]) for i in (0, 1))
            self.built.update(model=model, tables=(alpha, beta, first))
        return self.built["tables"]

    def mine(self, final: np.ndarray, opp_score: int | np.ndarray) -> np.ndarray:
        """The banker's chance with `final` against the opponent's score(s) (an int, or an
        array of final's shape)."""
        if self.opp is None:
            return np.ones(np.shape(final))
        d = final - opp_score
        out = np.zeros(np.shape(final))
        on = (np.broadcast_to(opp_score, np.shape(final)) > 0) | (not self.rules.entry_minimum)
        for flag, opp in self.opp.items():
            sel = (on == flag) & (d < len(opp))
            out[sel] = opp[d[sel]]
        return 1.0 - out


@dataclass(frozen=True, eq=False)
class GameTable:
    model: TurnModel
    target: int  # points
    W: np.ndarray  # (R, R): P(the player to move wins), scores in units < R
    finals: Finals
    O: Offers | None = None  # piggyback: the offers worth taking over

    @property
    def rules(self) -> RuleSet:
        return self.model.rules

    def p_win(self, me: int, opp: int) -> float:
        u = self.rules.unit
        return float(self.W[me // u, opp // u])

    def turns(self, rows: np.ndarray) -> GameTurns:
        """The turns from the score pairs `rows` ((B, 2), units), solved on demand."""
        return solve_game_turns(self.model, self.W, self.finals, rows, O=self.O)

    def turn(self, me: int, opp: int) -> TurnLevels:
        """The turn from scores (me, opp) (points), every level of permanent points."""
        u = self.rules.unit
        return self.turns(np.array([[me // u, opp // u]])).levels()

    def take_over(self, me: int, opp: int, dice: int, total: int) -> float:
        """P(win) of taking over `dice` dice and `total` points (piggyback): stored where
        that beats a fresh start, else the turn from (me, opp) solved on demand."""
        assert self.O is not None
        u = self.rules.unit
        got = self.O.lookup(*(np.array([x]) for x in (me // u, opp // u, dice, total // u)))
        if np.isfinite(got[0]):
            return float(got[0])
        return float(self.turn(me, opp)[0].roll[0, dice, total // u])


# --- the turn of the game: one builder for solving, advising, simulating and plotting -----
@dataclass(frozen=True, eq=False)
class GameTurns:
    """The turns from score pairs rows[i] = (a, b) (units), solved.  Where a turn is solved
    over levels of permanent points, rows on and off the board are separate solves (parts:
    their row indices and levels)."""

    rules: RuleSet
    rows: np.ndarray
    parts: tuple[tuple[np.ndarray, TurnLevels], ...]
    U: np.ndarray  # what banking is worth: U[row, t] (U[row, s, t]: piggyback)

    def _gather(self, get: Callable[[TurnLevels], np.ndarray]) -> np.ndarray:
        out = np.empty(len(self.rows))
        for idx, lv in self.parts:
            out[idx] = get(lv)
        return out

    def start(self) -> np.ndarray:
        """P(win) of each row from the start of its turn."""
        return self._gather(lambda lv: lv[0].roll[:, 0, 0])

    def p_zilch(self) -> np.ndarray:
        """P(the turn ends in a plain zilch) under the optimal policy: Newton's slope."""
        return self.extra(0)

    def extra(self, j: int) -> np.ndarray:
        """Extra j of each row from the start of its turn (0: the zilch chance; 1..: the
        payoffs `others` of solve_game_turns), under the optimal policy."""
        return self._gather(lambda lv: lv[0].extras[j][:, 0, 0])

    def levels(self) -> TurnLevels:
        """Every row's turn, in the order of rows."""
        if len(self.parts) == 1:
            return self.parts[0][1]
        order = np.concatenate([idx for idx, _ in self.parts])
        inverse = np.empty(len(order), np.int64)
        inverse[order] = np.arange(len(order))
        depth = max(len(lv) for _, lv in self.parts)
        return TurnLevels(
            self.rules,
            tuple(
                type(self.parts[0][1][0])
                .concat([lv[min(k, len(lv) - 1)] for _, lv in self.parts])
                .take(inverse)
                for k in range(depth)
            ),
        )

    def value_at(self, i: int, state: TurnState) -> StateValues:
        for idx, lv in self.parts:
            at = np.nonzero(idx == i)[0]
            if len(at):
                return lv.value_at(state, int(at[0]))
        raise IndexError(i)


def solve_game_turns(
    model: TurnModel,
    W: np.ndarray,
    finals: Finals,
    rows: np.ndarray,
    z: np.ndarray | None = None,
    O: np.ndarray | Offers | None = None,
    levels: bool | None = None,
    others: np.ndarray | None = None,
) -> GameTurns:
    """The turns from score pairs `rows` given the chances W of the states after them.
    z: what a zilch is worth (default 1 - W[b, a]: the other player's turn; the solve
    passes Newton's iterate).  O: piggyback offers (dense while solving, or Offers).
    levels: solve over levels of permanent points (default: where the rules have them;
    forcing it elsewhere cross-checks the two paths).  others (E, B, span): payoffs of
    ending the turn with x points added (0 beyond span; a plain zilch, x = 0, is worth 0)
    evaluated under this optimal play as extras 1..E (GameTurns.extra): what the turn is
    worth against an opponent who plays otherwise (objectives/policy_game.py)."""
    rules = model.rules
    R = W.shape[0]
    rows = np.asarray(rows).reshape(-1, 2)
    a, b = rows[:, 0], rows[:, 1]
    z = 1.0 - W[b, a] if z is None else z
    if others is not None and O is not None:
        raise InputError(f"{rules.name}: piggyback offers are not evaluated against other play")
    if rules.has_permanent if levels is None else levels:
        U = game_U(rules, W, finals, rows, R)
        U[:, 0] = z  # a plain zilch: the other player's turn
        return GameTurns(rules, rows, permanent_turns(model, U, a, others), U)
    mins = bank_minimums(rules, a)
    if O is None:
        U = game_U(rules, W, finals, rows, R)
        pay = turn_payoff(model, U, z, mins, others=others)
    else:
        U = _offer_U(W, O, rows, R)
        pay = turn_payoff(model, U, z, mins, int(b.max()) + 1)
    sol = solve_turn(model, pay)
    return GameTurns(rules, rows, ((np.arange(len(rows)), TurnLevels(rules, (sol,))),), U)


def bank_minimums(rules: RuleSet, scores: np.ndarray) -> np.ndarray:
    """Units a bank needs, by the banking player's score (0: not on the board)."""
    on, off = rules.min_bank_units(True), rules.min_bank_units(False)
    return np.where((np.asarray(scores) > 0) | (not rules.entry_minimum), on, off)


def game_U(rules: RuleSet, W: np.ndarray, finals: Finals, rows: np.ndarray, R: int) -> np.ndarray:
    """U[row, x]: what ending the turn from (a, b) with a + x points is worth."""
    a, b = rows[:, 0], rows[:, 1]
    span = R + (finals.D if rules.end != "instant" else 0) + 1
    final = a[:, None] + np.arange(span)[None, :]
    inside = final < R
    U = np.empty(final.shape)
    bb = np.broadcast_to(b[:, None], final.shape)
    U[inside] = 1.0 - W[bb[inside], final[inside]]
    out = ~inside
    U[out] = finals.mine(final[out], bb[out])
    return U


def _offer_U(W: np.ndarray, O: np.ndarray | Offers, rows: np.ndarray, R: int) -> np.ndarray:
    """Piggyback (reaching the target wins at once): U[row, s, t] = 1 - max(W[b, a + t],
    O[b, a + t, s, t]).  Banking t with s dice left offers those dice and t to the
    opponent, who takes them over where that beats a fresh start; reaching R wins."""
    a, b = rows[:, :1], rows[:, 1:]
    S = O.shape[2]  # O: the dense table while solving, or Offers
    t = np.arange(R + 1)[None, :]
    final = a + t
    inside = final < R
    f = np.minimum(final, R - 1)
    fresh = W[b, f]
    U = np.ones((len(rows), S, R + 1))
    tt = np.minimum(t, R - 1)
    for s in range(S):
        if not s:
            offer = np.full(final.shape, np.nan)
        elif isinstance(O, Offers):
            offer = O.lookup(*np.broadcast_arrays(b, f, s, tt))
        else:
            offer = O[b, f, s, tt]
        best = np.where(np.isnan(offer) | (t == 0), fresh, np.maximum(fresh, offer))
        U[:, s] = np.where(inside, 1.0 - best, 1.0)
    return U


def permanent_turns(
    model: TurnModel, U: np.ndarray, a: np.ndarray, others: np.ndarray | None = None
) -> tuple[tuple[np.ndarray, TurnLevels], ...]:
    """Turns with permanent points: a game turn is a final turn over the points x it adds
    (turn/levels.py), and a plain zilch is "x = 0", so the zilch indicator is the payoff 1
    at x = 0 only (an extra; then `others`, solve_game_turns).  One solve per board flag."""
    rules = model.rules
    EU = np.zeros((1 + (0 if others is None else len(others)),) + U.shape)
    EU[0, :, 0] = 1.0
    if others is not None:
        EU[1:] = others
        EU[1:, :, 0] = 0.0
    on = np.array([rules.on_board(x) for x in a], bool)
    parts = []
    for flag in (False, True):
        sel = np.nonzero(on == flag)[0]
        if len(sel):
            one = np.ones(len(sel))
            zero = np.zeros((len(EU), len(sel)))
            parts.append((sel, solve_levels(model, U[sel], one, flag, EU[:, sel], zero)))
    return tuple(parts)


def turn_payoff(
    model: TurnModel,
    U: np.ndarray,
    z: np.ndarray,
    mins: np.ndarray,
    cover: int = 0,
    others: np.ndarray | None = None,
) -> Payoff:
    """A turn whose bank at t is worth U[row, t] (1 beyond U's end), a zilch z[row]; with
    the zilch chance under the optimal policy as an extra (Newton's slope).  U[row, s, t]:
    a bank payoff that depends on the dice left (piggyback).  cover: solve every total
    below it (the take-over values of piggyback offers) even where banking is certain.
    others (E, B, span): more payoffs of banking at t (0 beyond their end, 0 at a zilch),
    evaluated under the optimal policy as extras 1..E; with them every extra, the zilch
    chance included, is exact past the cut (the must-roll state's own recursion), not only
    close enough for Newton's slope.

    The grid stops where banking is certainly optimal: a roll is worth at most
    (1 - pz_n) + pz_n z (every value is at most 1), so once the banking payoff reaches that
    for every dice count n and every larger total, the turn banks and is worth exactly its
    payoff; the solver then uses the payoff itself for the free states.  Where hot dice are
    mandatory the must-roll state looks further ahead: its own exact recursion
    (_forced_beyond) gives its values there.
    """
    B, span = U.shape[0], U.shape[-1]
    stop = min(max(int(turn_cuts(model, U, z, mins).max()), 1, cover), span - 1)

    def bank(r: np.ndarray) -> np.ndarray:
        v = np.where(r < span, U[..., np.minimum(r, span - 1)], 1.0)
        ok = r[None, :] >= mins[:, None]
        return np.where(ok[:, None, :] if U.ndim == 3 else ok, v, -np.inf)

    forced = beyond = None
    if model.rules.hot_dice == "mandatory":
        if others is None:
            forced = lambda r: _forced_beyond(model, U, z, r)  # noqa: E731
        else:  # the value and every extra from one recursion
            beyond = _beyond_with(model, U, z, others)
            forced = lambda r: beyond(r)[0]  # noqa: E731
    extras = (Extra.zilch_chance(B),) if others is None else _other_extras(others, beyond)
    return Payoff(
        bank=bank, zilch=z, extras=extras, tail=Tail.constant(np.ones(B), start=stop, forced=forced)
    )


Beyond = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def _beyond_with(model: TurnModel, U: np.ndarray, z: np.ndarray, others: np.ndarray) -> Beyond:
    """r -> (the must-roll state's values, the extras' (1 + E, B, len(r))) past the cut:
    the zilch chance (1 at a zilch, 0 at a bank) and the payoffs `others`, one recursion
    for all of them, kept for the last r asked."""
    B, span = others.shape[1:]
    EU = np.concatenate([np.zeros((1, B, span)), others])
    ez = np.zeros((len(EU), B))
    ez[0] = 1.0
    cache: dict = {}

    def get(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        key = r.tobytes()
        if key not in cache:
            cache.clear()
            cache[key] = _forced_beyond(model, U, z, r, EU, ez)
        return cache[key]

    return get


def _other_extras(others: np.ndarray, beyond: Beyond | None) -> tuple[Extra, ...]:
    """The zilch chance and the payoffs `others` (turn_payoff) as extras; beyond: with
    mandatory hot dice, their must-roll state past the cut (_beyond_with)."""
    B, span = others.shape[1:]

    def bank(k: int) -> Callable[[np.ndarray], np.ndarray]:
        Uk = np.ascontiguousarray(others[k])
        return lambda r: np.where(r < span, Uk[:, np.minimum(r, span - 1)], 0.0)

    def tail(k: int) -> Tail:
        if beyond is None:
            return Tail.constant(np.zeros(B))
        return Tail.constant(np.zeros(B), forced=lambda r: beyond(r)[1][k])

    zil = Extra.zilch_chance(B)
    return (Extra(zil.bank, zil.zilch, tail(0)),) + tuple(
        Extra(bank(k), np.zeros(B), tail(k + 1)) for k in range(len(others))
    )


def game_starts(
    model: TurnModel,
    U: np.ndarray,
    z: np.ndarray,
    mins: np.ndarray,
    chains: ChainRows | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(P(win) at the start of each row's turn, P(the turn ends in a zilch)) of the turns
    turn_payoff(model, U, z, mins) gives: the C kernel's start values where it is built
    (engine.solve_starts: each row from its own cut, no whole solution; chains: the
    must-roll state past the cut from chain tables), else whole turns."""
    span = U.shape[-1]
    if U.ndim == 2:
        stops = turn_cuts(model, U, z, mins)
        settled = None if chains is None else chains.cuts(z)
        if settled is not None:  # banking optimal from there on: a cut too, where the
            # tables' payoffs are the rows' up to turn_cuts' (the grid's end is a win)
            fits = stops + model.max_shift < span
            stops = np.where(fits, np.minimum(stops, np.maximum(settled, mins)), stops)
        got = zilch_starts(model, U, z, mins, stops=np.clip(stops, 1, span - 1), chains=chains)
        if got is not None:
            return got[0], got[1]
    sol = solve_turn(model, turn_payoff(model, U, z, mins))
    return sol.roll[:, 0, 0], sol.extras[0][:, 0, 0]


@overload
def _forced_beyond(
    model: TurnModel, U: np.ndarray, z: np.ndarray, r: np.ndarray, EU: None = None, ez: None = None
) -> np.ndarray: ...
@overload
def _forced_beyond(
    model: TurnModel, U: np.ndarray, z: np.ndarray, r: np.ndarray, EU: np.ndarray, ez: np.ndarray
) -> tuple[np.ndarray, np.ndarray]: ...
def _forced_beyond(
    model: TurnModel,
    U: np.ndarray,
    z: np.ndarray,
    r: np.ndarray,
    EU: np.ndarray | None = None,
    ez: np.ndarray | None = None,
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Values of the must-roll state (hot dice, mandatory) at totals r past the cut, where
    every free state banks at its payoff U: a backward recursion over the totals, from the
    end of U on (beyond it U is 1 up to 1e-13 and the chain's value is its limit).
    EU (E, B, span), ez (E, B): extras' bank and zilch payoffs (0 beyond EU's end), valued
    under the same choices; then returns (values, the extras' (E, B, len(r)))."""
    B, span = U.shape[0], U.shape[-1]
    N = model.dice
    sel = model.out_dice[model.opt_outcome] == N
    opt = np.nonzero(sel)[0]
    out = model.opt_outcome[opt]
    hot = model.target[opt] == 0
    p_out = model.prob
    pz = model.p_zilch[N]
    end = int(r.max()) + 1
    top = max(end, span) + int(model.shift.max()) + 1
    V0 = np.empty((B, top))
    # the limit: free states worth 1, hot dice again with the probability of all-hot rolls
    p_hot = _p_all_hot(p_out, out, hot)
    V0[:, span:] = ((1.0 - pz - p_hot + pz * z) / (1.0 - p_hot))[:, None]
    Ufull = np.ones((B,) + U.shape[1:-1] + (top,))
    Ufull[..., :span] = U
    if EU is None:  # no extras (read only where E > 0)
        EU, ez = np.zeros((0, B, span)), np.zeros((0, B))
    assert ez is not None
    E = len(EU)
    if E:  # the extras' limit: free states worth 0 there
        EX, EUfull = _extras_limit(EU, ez, pz, p_hot, span, top)
    free = model.target[opt]
    outs = np.unique(out)
    starts = np.searchsorted(opt, model.opt_start[outs])
    p_outs = p_out[outs]
    # a hot outcome adds at least `block` units, so the totals of a block of that many read
    # only totals above it: one vectorised step per block
    block = int(model.shift[opt][hot].min()) if hot.any() else span
    shift = model.shift[opt]
    single = len(opt) == len(outs)
    hi = span - 1
    while hi >= int(r.min()):
        ts = np.arange(max(hi - block + 1, int(r.min())), hi + 1)
        nxt = ts[:, None] + shift[None, :]  # (L, K_N)
        vals = np.empty((B, len(ts), len(opt)))  # hot dice roll again, the others bank
        vals[:, :, hot] = V0[:, nxt[:, hot]]
        cold = nxt[:, ~hot]
        vals[:, :, ~hot] = Ufull[:, free[None, ~hot], cold] if U.ndim == 3 else Ufull[:, cold]
        best = np.maximum.reduceat(vals, starts, axis=2)
        V0[:, ts] = best @ p_outs + pz * z[:, None]
        if E:  # each outcome's first best choice, the extras' values under it
            chosen = _chosen_extras(EX, EUfull, vals, best, nxt, hot, starts, single)
            EX[:, :, ts] = chosen @ p_outs + pz * ez[:, :, None]  # (E, B, L)
        hi = ts[0] - 1
    return V0[:, r] if not E else (V0[:, r], EX[:, :, r])


def _p_all_hot(p_out: np.ndarray, out: np.ndarray, hot: np.ndarray) -> float:
    """The probability of a roll of all dice whose every choice is hot dice."""
    best_free = np.zeros(len(p_out), bool)
    np.logical_or.at(best_free, out, ~hot)
    return float(p_out[np.unique(out[~best_free[out]])].sum())


def _extras_limit(
    EU: np.ndarray, ez: np.ndarray, pz: float, p_hot: float, span: int, top: int
) -> tuple[np.ndarray, np.ndarray]:
    """(EX, EUfull) over totals up to `top`: the extras' values, their limit past `span`
    (free states worth 0 there), and their bank payoffs, 0 beyond EU's end."""
    E, B = EU.shape[:2]
    EX = np.empty((E, B, top))
    EX[:, :, span:] = (pz * ez / (1.0 - p_hot))[:, :, None]
    EUfull = np.zeros((E, B, top))
    EUfull[:, :, : EU.shape[-1]] = EU
    return EX, EUfull


def _chosen_extras(
    EX: np.ndarray,
    EUfull: np.ndarray,
    vals: np.ndarray,
    best: np.ndarray,
    nxt: np.ndarray,
    hot: np.ndarray,
    starts: np.ndarray,
    single: bool,
) -> np.ndarray:
    """(E, B, L, K) the extras' values of each choice of the block's totals, where each
    outcome takes its first best choice (hot dice: the extras' own values on; the others:
    their bank payoffs)."""
    E, B = EX.shape[:2]
    L, K = nxt.shape
    cold = nxt[:, ~hot]
    if single:  # (forced set-aside: one choice per outcome, in outcome order)
        chosen = np.empty((E, B, L, K))
        chosen[..., hot] = EX[:, :, nxt[:, hot]]
        chosen[..., ~hot] = EUfull[:, :, cold]
        return chosen
    seg = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, K)))
    idx = np.where(vals >= best[..., seg], np.arange(K), K)
    pick = np.minimum.reduceat(idx, starts, axis=2)  # (B, L, outcomes)
    at = np.take_along_axis(nxt[None], pick, axis=2)
    rows = np.arange(B)[:, None, None]
    result: np.ndarray = np.where(hot[pick], EX[:, rows, at], EUfull[:, rows, at])
    return result


class FromLowest:
    """The rules and the reach R (units) of a game table W[..., a - lo, b - lo] whose
    scores run from a lowest score lo (the penalty and the challenge games)."""

    model: TurnModel
    lo: int
    W: np.ndarray

    @property
    def rules(self) -> RuleSet:
        return self.model.rules

    @property
    def R(self) -> int:
        return self.W.shape[2] + self.lo


def score_pairs(sigma: int, R: int) -> np.ndarray:
    """(n, 2): the score pairs (a, b) of sum sigma, both below R, a ascending (so the pair
    (b, a) of row i is row n - 1 - i)."""
    a = np.arange(max(0, sigma - R + 1), min(sigma, R - 1) + 1)
    return np.stack([a, sigma - a], axis=1)


def first_iterate(
    at: Callable[[np.ndarray, np.ndarray], np.ndarray], a: np.ndarray, b: np.ndarray, R: int
) -> np.ndarray:
    """Newton's first iterate for the score pairs (a, b) of one sum, from the sums above
    (solved; at(x, y): their values, NaN where none is kept): W[a, b + 1] + W[a + 1, b] -
    W[a + 1, b + 1] (W changes smoothly: about a hundred times closer than W[a, b + 1]
    alone, so the first turns' policy is mostly the fixed point's already); a neighbour one
    point up where those are not all there, else one half."""
    a1, b1 = np.minimum(a + 1, R - 1), np.minimum(b + 1, R - 1)
    up = np.where(b + 1 < R, at(a, b1), np.where(a + 1 < R, at(a1, b), 0.5))
    up = np.where(np.isfinite(up), up, 0.5)
    both = (a + 1 < R) & (b + 1 < R)
    w = np.where(both, at(a, b1) + at(a1, b) - at(a1, b1), up)
    return np.where(np.isfinite(w), w, up)


def newton_on_pairs(
    rules: RuleSet,
    sigma: int,
    w: np.ndarray,
    solve: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, Turns]],
    partner: np.ndarray | None = None,
) -> tuple[np.ndarray, Turns]:
    """The chances of one sum's score pairs (score_pairs order), coupled by their zilches
    ((a, b) <-> (b, a)): Newton's method from w.  solve(z) -> (values, zilch chances,
    turns) of the turns with a zilch worth z.  Returns (values, the last turns).
    partner: each state's zilch partner (default: the pair in score_pairs order)."""
    if partner is None:
        partner = len(w) - 1 - np.arange(len(w))
    for _ in range(60):
        z = 1.0 - w[partner]
        val, g, turns = solve(z)
        if np.max(np.abs(val - w)) < NEWTON_TOL:
            return val, turns
        w = _pair_step(val, g, z, partner)
    _check_settled(rules, sigma, val, w, g, g[partner])
    return val, turns


def newton_by_rows(
    rules: RuleSet,
    sigma: int,
    w: np.ndarray,
    solve: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    partner: np.ndarray | None = None,
) -> np.ndarray:
    """newton_on_pairs for turns solved row by row (start values only): each step solves
    again only the pairs not settled yet, a pair settling once both its values moved by
    less than NEWTON_TOL (zilch-challenge: after the second step about a fifth of the rows
    are left, after the third a few hundredths).  solve(z, rows) -> (values, zilch
    chances) of those rows' turns with a zilch worth z.  Returns the values."""
    n = len(w)
    if partner is None:
        partner = n - 1 - np.arange(n)
    val, g = np.empty(n), np.zeros(n)
    live = np.ones(n, bool)
    for _ in range(60):
        rows = np.nonzero(live)[0]
        z = 1.0 - w[partner]
        val[rows], g[rows] = solve(z[rows], rows)
        near = np.zeros(n, bool)
        near[rows] = np.abs(val[rows] - w[rows]) < NEWTON_TOL
        live &= ~(near & near[partner])  # (a pair settles whole: partner is an involution)
        if not live.any():
            return val
        w = np.where(live, _pair_step(val, g, z, partner), w)
    _check_settled(rules, sigma, val[live], w[live], g[live], g[partner][live])
    return val


def _pair_step(val: np.ndarray, g: np.ndarray, z: np.ndarray, partner: np.ndarray) -> np.ndarray:
    """Newton's step: linearised in z, W_i(z') = val_i + g_i (z' - z_i); the pair's fixed
    point."""
    A = val + g * (1.0 - z)
    return (A - g * A[partner]) / (1.0 - g * g[partner])


def _check_settled(
    rules: RuleSet, sigma: int, val: np.ndarray, w: np.ndarray, g: np.ndarray, gp: np.ndarray
) -> None:
    """After Newton's 60 steps: rules whose turns nearly always zilch make the pair
    ill-conditioned (1 - g g' near 0): rounding alone moves w by NEWTON_TOL / (1 - g g'),
    which is then the precision there is; beyond it the game does not settle."""
    slack = NEWTON_TOL / max(float(np.min(1.0 - g * gp)), 1e-300)
    if np.max(np.abs(val - w)) >= slack:
        raise InputError(
            f"{rules.name}: the game does not settle at score sum {sigma} (Newton's method "
            f"on the pair of turns, 60 steps; a turn ends in a zilch with probability up "
            f"to {float(np.max(g)):.6f}): these rules cannot be solved as a game"
        )


def solve_game(run: GameRun, levels: bool | None = None) -> GameTable:
    """W for every pair of scores below the run's target; run.progress(sigma) after each
    score sum (from the top); the run's checkpoint keeps the sums solved (an interrupted
    solve picks up at the next one) and is discarded when done.
    levels: solve turns as final turns over levels of permanent points (default: when the
    rules have permanent points; forcing it elsewhere cross-checks the two paths)."""
    model, rules = run.model, run.rules
    check_supported(rules)
    target, R = run.goal, run.R
    checkpoint = run.checkpoint
    finals = Finals.solve(model, R, run.reach_bound)
    W = np.full((R, R), np.nan)
    O = np.full((R, R, rules.dice + 1, R), np.nan) if rules.piggyback else None
    first = 2 * (R - 1)
    expect = {
        "objective": "game-checkpoint",
        "rules_hash": rules.digest(),
        "target": target,
        "checkpoint_format": 2,
    }
    if checkpoint is not None:
        got = checkpoint.load(expect)
        if got is not None:
            first, W = _resume(got, W, O, first)
    saver = SumCheckpoints(checkpoint, expect, run.checkpoint_every)
    for sigma in range(first, -1, -1):
        rows = score_pairs(sigma, R)
        w = first_iterate(lambda x, y: W[x, y], rows[:, 0], rows[:, 1], R)

        starts = O is None and not (rules.has_permanent if levels is None else levels)
        if starts:  # the start values only (the offers need whole turns), U once per sum
            U, mins = game_U(rules, W, finals, rows, R), bank_minimums(rules, rows[:, 0])
            chains = finals.chains(model, rows)

        def solve(z: np.ndarray) -> tuple[np.ndarray, np.ndarray, GameTurns | None]:
            if starts:
                return (*game_starts(model, U, z, mins, chains), None)
            turns = solve_game_turns(model, W, finals, rows, z, O, levels)
            return turns.start(), turns.p_zilch(), turns

        val, turns = newton_on_pairs(rules, sigma, w, solve)
        W[rows[:, 0], rows[:, 1]] = val
        if O is not None:  # taking over n dice and t <= b: rolling them at (n, t)
            assert turns is not None  # (whole turns where there are offers)
            sol = turns.levels()[0]
            top = rules.dice - (rules.hot_dice == "mandatory")  # never all dice: hot dice
            for i, (a, b) in enumerate(rows):
                O[a, b, 1 : top + 1, 1 : b + 1] = sol.roll[i, 1 : top + 1, 1 : b + 1]
        saver.after(sigma, lambda: _progress(W, O))
        run.step(sigma)
    saver.done()
    return GameTable(model, target, W, finals, None if O is None else Offers.dense(O, W))


# seconds per R**3 (R: the target in units) of a game solve past BASE_SECONDS (the process,
# the model, the reach bound) and the final turns, measured on this machine from nothing
# (bench/bench_cold_game.py; tests/test_estimates.py): the start values in C with chain
# tables past the cut (one choice per outcome, mandatory hot dice), zilch to 5000, 10000,
# 15000 in 0.8, 2.2, 4.6 s; the start values without them, farkle to 10000 5.8 s; whole
# turns (piggyback's offers), farkle to 10000 20 s before the start values; levels of
# permanent points, zilch-online to 1500 and 5000 in 7.3 and 53.4 s
SECONDS_PER_R3 = {"chains": 1.5e-7, "starts": 7.5e-7, "whole": 2.5e-6, "levels": 6e-5}
BASE_SECONDS = 0.5
# and the final turns: per (deficit of the reach bound x turn state) from the start values
# (zilch-pyramiding, 1 952 deficits and 82 turn states, to 1500 in 2.9 s, most of it its
# final turns), per byte of their whole solution by levels (last_turn_bytes)
FINAL_SECONDS = {"starts": 2e-5, "levels": 3e-8}
# installed without the C kernel (turn/kernel.py: numpy does its loops), a solve of whole
# turns in numpy: per R**2 (a score sum's turns, a numpy step per total) on top of the whole
# turns' R**3 (issue 36, item 14: farkle to 3000 and 5000 in 5.8 and 14.9 s, zilch to 3000
# in 7.0 s, from nothing, turn.kernel.compiled patched to None)
NUMPY_SECONDS_PER_R2 = 1.1e-3
BASE_BYTES = 1.2e8  # a game solve's process before its tables (farkle to 500: 115 MB peak)
# the same where the turns are solved by their start values alone (farkle to 500: 45 MB peak)
BASE_BYTES_STARTS = 8e7


def estimate(run: GameRun) -> tuple[float, float]:
    """(bytes, seconds) a game solve to `target` takes, roughly.  Bytes, an upper estimate
    of the peak: the process, W (and the piggyback offers, dense while solving), and the
    larger of the final turns' table (last_turn.last_turn_bytes for the R + D + 1
    deficits, D the reach bound: in batches of at most BATCH_BYTES, last_turn_starts) and
    one score sum's turns (R rows on a grid that ends at most where the finals do, with
    Newton's previous step); where the turns are solved by their start values alone
    (turn.starts: no permanent points, no piggyback) no grid is kept, only the payoffs.
    Against measured peaks (/usr/bin/time, tests/test_game_memory.py): zilch-pyramiding to
    1000 118 MB (estimate 142 MB; 716 MB before the start values), farkle to 10000 50 MB,
    zilch to 10000 64 MB, zilch-online to 2000 289 MB.  Time from measured solves."""
    from ..limits import turn_bytes
    from .last_turn import BATCH_BYTES, last_turn_bytes

    model, rules, R = run.model, run.rules, run.R
    D = 0 if rules.end == "instant" else run.reach_bound
    path = "levels" if rules.has_permanent else "whole" if rules.piggyback else "starts"
    if path == "starts" and model.single_choice and rules.hot_dice == "mandatory":
        path = "chains"
    L = R + D + model.max_shift + 1
    if path in ("starts", "chains"):  # start values only (turn.starts): no turn's grid kept
        finals = 16.0 * (R + D + 1) * (R + D + 2) if D else 0.0  # the last turns' payoffs
        sums = 48.0 * R * L + 2 * turn_bytes(1, model.states, L)  # a sum's payoffs, 2 rows
    else:
        finals = min(last_turn_bytes(model, R + D + 1, R + D), BATCH_BYTES) if D else 0.0
        step = rules.perm_step
        levels = 1 + (math.ceil(L / step) / 4 if step else 0)
        sums = 2 * turn_bytes(R, model.states, L, 1) * levels
    base = BASE_BYTES_STARTS if path in ("starts", "chains") else BASE_BYTES
    nbytes = base + 16.0 * R * R + max(finals, sums)
    if rules.piggyback:
        nbytes += 8.0 * R * R * model.states * R
    # (measured with the classic N + 1 states; a turn's solve grows with its states)
    per_state = model.states / (rules.dice + 1)
    if path == "levels":
        finals_s = FINAL_SECONDS["levels"] * (last_turn_bytes(model, R + D + 1, R + D) if D else 0)
    else:
        finals_s = FINAL_SECONDS["starts"] * D * model.states
    seconds = BASE_SECONDS + finals_s + SECONDS_PER_R3[path] * float(R) ** 3 * per_state
    if path in ("starts", "chains") and not _kernel_built():  # whole turns in numpy
        whole = SECONDS_PER_R3["whole"] * float(R) ** 3 + NUMPY_SECONDS_PER_R2 * float(R) ** 2
        seconds = BASE_SECONDS + finals_s + whole * per_state
    return nbytes, seconds


def _kernel_built() -> bool:
    """Is the C kernel of the turns' start values built (else numpy solves whole turns)?"""
    from ..turn import kernel

    return kernel.compiled("game_starts") is not None


def _resume(
    got: tuple[dict, dict[str, np.ndarray]], W: np.ndarray, O: np.ndarray | None, first: int
) -> tuple[int, np.ndarray]:
    """(the next score sum, W) from a checkpoint; O filled in place with its offers (a
    fresh start where none is kept).  A checkpoint that does not fit: start afresh."""
    header, arrays = got
    try:
        nxt = int(header["next_sum"])
        if arrays["W"].shape != W.shape or not -1 <= nxt <= first:
            return first, W
        if O is not None:
            O.ravel()[arrays["O.idx"]] = arrays["O.val"]
        return nxt, arrays["W"].copy()
    except (KeyError, IndexError, ValueError, TypeError):
        if O is not None:
            O[:] = np.nan
        return first, W


def _progress(W: np.ndarray, O: np.ndarray | None) -> dict[str, np.ndarray]:
    """What a checkpoint keeps: W, and of the offers only those worth taking (no larger
    than the final table: the solve reads an offer only where it beats a fresh start)."""
    if O is None:
        return {"W": W}
    kept = Offers.dense(O, W)
    return {"W": W, "O.idx": kept.idx, "O.val": kept.val}


def fairest_head_start(g: GameTable) -> tuple[int, float]:
    """The head start (points) for the second player that brings the first player's chance
    closest to one half, and that chance."""
    return closest_to_even(g.W[0, :], g.rules.unit)  # the first to move at 0, opponent at h


def closest_to_even(first: np.ndarray, unit: int) -> tuple[int, float]:
    """first[h]: the first player's chance against a head start of h units; the head start
    (points) that brings it closest to one half, and that chance."""
    h = int(np.argmin(np.abs(first - 0.5)))
    return h * unit, float(first[h])
