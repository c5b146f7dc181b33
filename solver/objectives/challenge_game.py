"""The two-player game with the challenge rule (issue 14).

Twice per game, once while his score is below the threshold and once at or above it, a
player may announce before rolling that this turn is a challenge: a bank of t adds t to him
and takes t from the opponent; a zilch costs him the challenge's price.  A player's status
s = f + 4 on: f, the challenges left (bit 1: the one below, bit 2: the one above), and where
the rules have an entry minimum whether he is on the board (without one, s = f and everybody
is).  W[sa, sb, a - lo, b - lo]: the mover's chance at scores (a, b) (units); the scores go
down to the lowest score lo, a bound (a score below it counts as lo; the default is low
enough that its effect is below the solve's precision, measured in the tests).

Order of solution.  A challenge uses up a bit of f for good, so the classes of mask pairs
{(fa, fb), (fb, fa)} are solved from the fewest challenges left up: a challenge turn (its
bank keeps the score sum, its zilch lowers it) reads only classes already solved.  Within a
class the game is the plain game: banks raise the sum, a zilch swaps the players at the
same sum, so the sums go from the top down and the two orders of each state are coupled
only through their zilches (Newton on the pairs, game.newton_by_rows).  The mover's value
is max(plain turn, challenge turn), the challenge turn a constant of the sum's solve: the
max is piecewise linear in the zilch value like the turn itself, and its slope is the plain
turn's zilch chance where the plain turn is chosen, else 0.

End: a bank reaching the target either wins at once or gives the opponent his last turn, in
which he may challenge too if he has the right one left: then his bank x also comes off the
leader, and he wins where 2x beats the deficit (ChallengeFinals).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypedDict

import numpy as np

from ..errors import InputError
from ..outcomes.model import TurnModel
from ..rules import RuleSet
from ..turn import TurnSolution, solve_turn
from ..turn.kernel import copy_runs
from ..turn.starts import ChainRows, chain_table, settle_levels, settle_table
from .game_run import GameRun, SumCheckpoints
from .last_turn import last_turn_payoff, last_turn_starts
from .plain_game import (
    FromLowest,
    check_constant_sum,
    first_iterate,
    game_starts,
    newton_by_rows,
    turn_payoff,
)

BELOW, ABOVE = 1, 2  # the bits of the challenges left
BOTH = BELOW | ABOVE


def check_supported(rules: RuleSet) -> None:
    if rules.target is None:
        raise InputError(f"{rules.name} has no target: there is no game to solve")
    if not rules.challenge:
        raise InputError(f"{rules.name} has no challenge rule (the rule key is challenge = true)")
    check_constant_sum(rules)


def exact_lowest(rules: RuleSet, target: int | None = None) -> int:
    """The lowest score (units) any player can have in a game from 0-0: the score sum only
    falls by the zilches of challenges (at most both of each player's), and the other
    score stays below the target, so a score is above -(R + 2 (c_below + c_above))."""
    R = rules.reach_units(target)
    return -(R - 1) - 2 * sum(c // rules.unit for c in rules.challenge_costs)


def used_costs(rules: RuleSet, left: int | np.ndarray) -> np.ndarray:
    """Units the challenges used so far can have cost (left: the challenges left, bits)."""
    below, above = (c // rules.unit for c in rules.challenge_costs)
    used = 3 & ~np.asarray(left)
    return np.where(used & BELOW, below, 0) + np.where(used & ABOVE, above, 0)


def lowest_sum(
    rules: RuleSet, lo: int, fa: int | np.ndarray, fb: int | np.ndarray, target: int | None = None
) -> np.ndarray:
    """The lowest score sum (units) the table keeps with challenges left fa and fb: where lo
    is the exact lowest, the lowest a game from 0-0 reaches, -(the costs of the challenges
    used) (the sum falls only by a challenge's zilch); else every sum of scores from lo."""
    if lo != exact_lowest(rules, target):
        return 2 * lo + 0 * np.asarray(fa)
    return np.maximum(2 * lo, -(used_costs(rules, fa) + used_costs(rules, fb)))


def lowest_units(rules: RuleSet, lowest: int | None, target: int | None = None) -> int:
    """The lowest score (units): `lowest` points, a non-positive multiple of the unit; by
    default exact_lowest (no state of a game from 0-0 is cut)."""
    if lowest is not None and (isinstance(lowest, bool) or not isinstance(lowest, int)):
        raise InputError(f"lowest must be a whole number of points, got {lowest!r}", "lowest")
    if lowest is None:
        return exact_lowest(rules, target)
    if lowest > 0 or lowest % rules.unit:
        raise InputError(
            f"lowest must be a multiple of {rules.unit} at or below 0, got {lowest}", "lowest"
        )
    return lowest // rules.unit


@dataclass(frozen=True)
class Statuses:
    """The status encoding of one rule set: s = f + 4 on (S = 8) or s = f (S = 4, no entry
    minimum: everybody is on the board)."""

    S: int
    thr: int  # the threshold in units: a score at or above it uses the challenge above

    @classmethod
    def of(cls, rules: RuleSet) -> Statuses:
        return cls(8 if rules.entry_minimum else 4, rules.units_up(rules.challenge_threshold))

    def code(self, left: int, on: bool) -> int:
        return left + 4 * bool(on) if self.S == 8 else left

    def on(self, s: int | np.ndarray) -> np.ndarray:
        return (np.asarray(s) >= 4) | (self.S == 4)

    def usable(self, score: int | np.ndarray, s: int | np.ndarray) -> np.ndarray:
        """The bit of the challenge a player with this score and status may use now (0:
        none)."""
        bit = np.where(np.asarray(score) < self.thr, BELOW, ABOVE)
        return np.where(np.asarray(s) & bit, bit, 0)

    def banked(self, s: int | np.ndarray) -> np.ndarray:
        """The status after a bank: on the board."""
        return np.asarray(s) | 4 if self.S == 8 else np.asarray(s)


def challenge_last_payoff(tie: float, deficits: np.ndarray, H: int) -> np.ndarray:
    """U[d, x]: a last turn that challenges the leader: its bank x also comes off him, so
    it wins where 2x > d and ties where 2x = d."""
    x2 = 2 * np.arange(H)[None, :]
    d = deficits[:, None]
    return np.where(x2 > d, 1.0, np.where(x2 == d, tie, 0.0))


@dataclass(frozen=True, eq=False)
class ChallengeFinals:
    """The opponent's chance in his last turn once the mover's bank reached the target:
    by deficit (units, 0..D), board flag, and whether he may challenge (None: reaching the
    target wins at once)."""

    plain: dict[bool, np.ndarray] | None
    challenge: dict[bool, np.ndarray] | None
    st: Statuses
    span: int  # the totals a turn's payoff covers: from lo to the target's reach beyond
    built: dict = field(default_factory=dict)  # the chain tables, once built (chains)

    @classmethod
    def solve(cls, model: TurnModel, R: int, lo: int, reach_bound: int) -> ChallengeFinals:
        rules = model.rules
        st = Statuses.of(rules)
        span = R + reach_bound - lo + 1  # (banks from lo up to R + reach_bound)
        if rules.end == "instant":  # (beyond the payoff's end a bank is worth 1: a win)
            return cls(None, None, st, span)
        # deficits: no turn adds more than reach_bound units but with probability below
        # TRUNCATION (last_turn.reach_bound), so a challenge's 2x beats 2 reach_bound + 2
        # only with that probability: deficits past D count as D
        D = 2 * reach_bound + 2
        d = np.arange(D + 1)
        flags = {rules.on_board(0), rules.on_board(1)}
        tie = rules.share(2)
        plain = {f: last_turn_starts(model, last_turn_payoff(tie, d, D + 1), f) for f in flags}
        H = D // 2 + 2
        chal = {f: last_turn_starts(model, challenge_last_payoff(tie, d, H), f) for f in flags}
        return cls(plain, chal, st, span)

    def chains(self, model: TurnModel, rows: np.ndarray, R: int) -> ChainRows | None:
        """The must-roll state past the cut of the plain turns from rows (a, b, sa, sb) from
        chain tables (game.Finals.chains): past the target a bank of t is worth 1 - the
        opponent's last turn at the deficit a + t - b (deficits past D count as D), by his
        board flag and whether he may challenge then (his score b, his status sb)."""
        return self._chains(model, rows, R, 1)

    def challenge_chains(self, model: TurnModel, rows: np.ndarray, R: int) -> ChainRows | None:
        """As chains, for the challenge turns from rows: a bank of t takes t off the
        opponent too, so the deficit is a - b + 2t (the tables by steps of 2), and whether
        he may challenge in his last turn changes where his score b - t falls below the
        threshold: the tables from there on (the turn's own recursion below)."""
        return self._chains(model, rows, R, 2)

    def _chains(self, model: TurnModel, rows: np.ndarray, R: int, stride: int) -> ChainRows | None:
        if not (model.single_choice and model.rules.hot_dice == "mandatory"):
            return None
        a, b, sb = rows[:, 0], rows[:, 1], rows[:, 3]
        at = R - a  # the first total reaching the target
        if stride == 2:  # (from where the opponent's score b - t is below the threshold)
            at = np.maximum(at, b - self.st.thr + 1)
        if self.plain is None or self.challenge is None:  # it wins at once: the limit
            none = np.zeros(len(rows), np.int64)
            return ChainRows(np.zeros(1), np.zeros(1), at, none, none)
        D = len(next(iter(self.plain.values()))) - 1
        n = 3 * self.span + D + 2 * model.max_shift + 4  # every deficit a row's grid reaches
        key = ("tables", stride)
        if self.built.get(("model", stride)) is not model:
            d = np.minimum(np.arange(n), D)
            parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
            first: dict[tuple[bool, bool], int] = {}
            for flag in sorted(self.plain):
                for may in (False, True):
                    plain = self.plain[flag][d]
                    opp = np.maximum(plain, self.challenge[flag][d]) if may else plain
                    first[flag, may] = len(parts)
                    u = 1.0 - opp
                    al, be = chain_table(model, u, stride)
                    parts.append((al, be, settle_table(model, u, al, be, stride)))
            alpha, beta = (np.concatenate([p[i] for p in parts]) for i in (0, 1))
            settle = settle_levels([p[2] for p in parts])
            self.built.update({("model", stride): model, key: (alpha, beta, settle, first)})
        alpha, beta, settle, first = self.built[key]
        on = np.broadcast_to(self.st.on(sb), b.shape)
        y = b - at if stride == 2 else b  # the opponent's score at the table's first total
        can = self.st.usable(y, sb) > 0
        part = np.zeros(len(rows), np.int64)
        for (flag, c), k in first.items():
            part[(on == flag) & (can == c)] = k
        d0 = a - b + stride * at  # the deficit at the table's first total
        pos = part * n + d0
        return ChainRows(alpha, beta, at, pos, n - d0, stride, settle, 4.0 * part)

    def last_turns(self, y: np.ndarray, sy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(table, starts): the opponent's chance in his last turn (his score y, status sy)
        at deficit d is table[starts + d], for every d up to 2 span (past D as at D): one
        run per board flag and whether he may challenge (opp, as runs)."""
        n = 2 * self.span + 2
        if self.plain is None or self.challenge is None:
            return np.zeros(n), np.zeros(np.shape(y), np.int64)
        if "last" not in self.built:
            d = np.minimum(np.arange(n), len(next(iter(self.plain.values()))) - 1)
            keys = [(f, may) for f in sorted(self.plain) for may in (False, True)]
            runs = [
                np.maximum(self.plain[f][d], self.challenge[f][d]) if may else self.plain[f][d]
                for f, may in keys
            ]
            self.built["last"] = np.concatenate(runs), {k: i * n for i, k in enumerate(keys)}
        table, first = self.built["last"]
        on, may = np.broadcast_to(self.st.on(sy), np.shape(y)), self.st.usable(y, sy) > 0
        starts = np.zeros(np.shape(y), np.int64)
        for (f, m), at in first.items():
            starts[(on == f) & (may == m)] = at
        return table, starts


class Choice(TypedDict):
    """P(win) from the start of the mover's turn: without a challenge, and with one (None:
    none left for his score)."""

    plain: float
    challenge: float | None


@dataclass(frozen=True, eq=False)
class ChallengeGame(FromLowest):
    model: TurnModel
    target: int  # points
    lo: int  # the lowest score (units)
    W: np.ndarray  # (S, S, N, N): W[sa, sb, a - lo, b - lo]
    finals: ChallengeFinals

    @property
    def st(self) -> Statuses:
        return self.finals.st

    def state(
        self,
        me: int,
        opp: int,
        left_me: int,
        left_opp: int,
        on_me: bool | None,
        on_opp: bool | None,
    ) -> np.ndarray:
        """(1, 4) state row (a, b, sa, sb) from points; board flags default to "has a
        positive score"."""
        u, rules = self.rules.unit, self.rules
        on_me = rules.on_board(me) if on_me is None else on_me
        on_opp = rules.on_board(opp) if on_opp is None else on_opp
        s = (self.st.code(left_me, on_me), self.st.code(left_opp, on_opp))
        return np.array([[me // u, opp // u, *s]])

    def p_win(
        self,
        me: int,
        opp: int,
        left_me: int = BOTH,
        left_opp: int = BOTH,
        on_me: bool | None = None,
        on_opp: bool | None = None,
    ) -> float:
        a, b, sa, sb = self.state(me, opp, left_me, left_opp, on_me, on_opp)[0]
        return float(self.W[sa, sb, a - self.lo, b - self.lo])

    def choices(
        self,
        me: int,
        opp: int,
        left_me: int = BOTH,
        left_opp: int = BOTH,
        on_me: bool | None = None,
        on_opp: bool | None = None,
    ) -> Choice:
        """{"plain": P(win) without a challenge, "challenge": with one (None: none left for
        this score)} from the start of the mover's turn."""
        states = self.state(me, opp, left_me, left_opp, on_me, on_opp)
        plain = self.turns(states, challenge=False).roll[0, 0, 0]
        usable = self.st.usable(states[:, 0], states[:, 2])[0]
        chal = self.turns(states, challenge=True).roll[0, 0, 0] if usable else None
        return {"plain": float(plain), "challenge": None if chal is None else float(chal)}

    def turns(self, states: np.ndarray, challenge: bool) -> TurnSolution:
        """The turns from states (a, b, sa, sb) (units; (n, 4)), plain or challenging (each
        state must have a challenge it may use)."""
        if challenge:
            return _challenge_turns(self.model, self.W, self.finals, self.R, self.lo, states)
        a, b, sa, sb = states.T
        z = 1.0 - self.W[sb, sa, b - self.lo, a - self.lo]
        return _plain_turns(self.model, self.W, self.finals, self.R, self.lo, states, z)


def _plain_starts(
    model: TurnModel, W: np.ndarray, finals: ChallengeFinals, R: int, lo: int, states: np.ndarray
) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """solve(z, rows) -> (values, zilch chances) at the start of the plain turns from
    states[rows], a zilch worth z (their bank payoffs once: they do not depend on z)."""
    U, mins = _plain_banks(model, W, finals, R, lo, states)
    chains = finals.chains(model, states, R)

    def solve(z: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        some = chains if chains is None else chains.take(rows)
        return game_starts(model, U[rows], z, mins[rows], some)

    return solve


def _plain_turns(
    model: TurnModel,
    W: np.ndarray,
    finals: ChallengeFinals,
    R: int,
    lo: int,
    states: np.ndarray,
    z: np.ndarray,
) -> TurnSolution:
    """Plain turns: banking t moves the mover to a + t (on the board), a zilch is worth z."""
    U, mins = _plain_banks(model, W, finals, R, lo, states)
    return solve_turn(model, turn_payoff(model, U, z, mins))


def _plain_banks(
    model: TurnModel, W: np.ndarray, finals: ChallengeFinals, R: int, lo: int, states: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(U, the bank minimums) of plain turns: the same for every zilch value.  A row's
    payoffs are two runs: below the target 1 - W[sb, sa2, b, a + t] (a run of W's last
    axis), past it 1 - the opponent's last turn at the deficits R - b, R - b + 1, ... (a run
    of finals.last_turns) — copied as runs (kernel.copy_runs)."""
    st = finals.st
    a, b, sa, sb = states.T
    B, span, (S, N) = len(states), finals.span, W.shape[1:3]
    inside = R - a  # the totals that stay below the target
    at = np.arange(B) * span
    flat = np.empty(B * span)
    copy_runs(flat, at, W.reshape(-1), ((sb * S + st.banked(sa)) * N + b - lo) * N + a - lo, inside)
    table, starts = finals.last_turns(b, sb)
    copy_runs(flat, at + inside, table, starts + R - b, span - inside)
    return (1.0 - flat).reshape(B, span), _minimums(model.rules, st, sa)


def _minimums(rules: RuleSet, st: Statuses, s: np.ndarray) -> np.ndarray:
    """Units a bank needs, by the banking player's status."""
    return np.where(st.on(s), rules.min_bank_units(True), rules.min_bank_units(False))


def _challenge_turns(
    model: TurnModel, W: np.ndarray, finals: ChallengeFinals, R: int, lo: int, states: np.ndarray
) -> TurnSolution:
    """Challenge turns: banking t moves the mover to a + t and the opponent to b - t (at
    least lo); a zilch costs the mover the challenge's price; the challenge is used up."""
    return solve_turn(
        model, turn_payoff(model, *_challenge_payoffs(model, W, finals, R, lo, states))
    )


def _challenge_starts(
    model: TurnModel, W: np.ndarray, finals: ChallengeFinals, R: int, lo: int, states: np.ndarray
) -> np.ndarray:
    """The values at the start of the challenge turns from states (_challenge_turns)."""
    U, z, mins = _challenge_payoffs(model, W, finals, R, lo, states)
    return game_starts(model, U, z, mins, finals.challenge_chains(model, states, R))[0]


def _challenge_payoffs(
    model: TurnModel, W: np.ndarray, finals: ChallengeFinals, R: int, lo: int, states: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(U, z, bank minimums) of the challenge turns from states."""
    rules, st = model.rules, finals.st
    a, b, sa, sb = states.T
    bit = st.usable(a, sa)
    assert bit.all(), "a challenge turn from a state without a challenge to use"
    sa_used = sa & ~bit
    U = _challenge_banks(W, finals, R, lo, states, st.banked(sa_used))
    cost = np.where(bit == BELOW, *(c // rules.unit for c in rules.challenge_costs))
    z = 1.0 - W[sb, sa_used, b - lo, np.maximum(a - cost, lo) - lo]
    return U, z, _minimums(rules, st, sa)


def _challenge_banks(
    W: np.ndarray, finals: ChallengeFinals, R: int, lo: int, states: np.ndarray, sa2: np.ndarray
) -> np.ndarray:
    """U[i, t] of challenge turns: the mover ends at a + t (status sa2[i]), the opponent at
    b - t (status sb[i]): below the target 1 - W[sb, sa2, max(b - t, lo), a + t], past it 1 -
    the opponent's last turn at the deficit a - b + 2t, his score b - t as it is (whether he
    may challenge; ChallengeFinals.last_turns)."""
    a, b, _, sb = states.T
    (S, N), span = W.shape[1:3], finals.span
    t = np.arange(span)[None, :]
    final, y = a[:, None] + t, b[:, None] - t
    row = ((sb * S + sa2) * N)[:, None]
    vin = W.reshape(-1)[(row + np.maximum(y, lo) - lo) * N + np.minimum(final, R - 1) - lo]
    table, starts = finals.last_turns(y, sb[:, None])
    vout = table[starts + np.minimum(final - y, 2 * span + 1)]  # (past D as at D)
    return 1.0 - np.where(final < R, vin, vout)


def _classes() -> list[tuple[int, int]]:
    """The mask classes {fa, fb} (fa <= fb), fewest challenges left first."""
    pairs = [(fa, fb) for fa in range(4) for fb in range(fa, 4)]
    return sorted(pairs, key=lambda p: (bin(p[0]).count("1") + bin(p[1]).count("1"), p))


def _sum_states(st: Statuses, R: int, lo: int, sigma: int, fa: int, fb: int) -> np.ndarray:
    """(n, 4) states (a, b, sa, sb) of score sum sigma and masks {fa, fb}; an off-board
    player never has a positive score (unreachable, left out)."""
    a = np.arange(max(lo, sigma - R + 1), min(sigma - lo, R - 1) + 1)
    pairs = np.stack([a, sigma - a], axis=1)
    masks = {(fa, fb), (fb, fa)}
    ons = (False, True) if st.S == 8 else (False,)
    combos = np.array(
        [(st.code(x, oa), st.code(y, ob)) for x, y in sorted(masks) for oa in ons for ob in ons]
    )
    rows = np.concatenate(
        [np.repeat(pairs, len(combos), axis=0), np.tile(combos, (len(pairs), 1))], axis=1
    )
    if st.S == 8:
        ok = ((rows[:, 2] >= 4) | (rows[:, 0] <= 0)) & ((rows[:, 3] >= 4) | (rows[:, 1] <= 0))
        rows = rows[ok]
    return rows


def _partners(rows: np.ndarray, lo: int, N: int, S: int) -> np.ndarray:
    """Index of each state's zilch partner (b, a, sb, sa) within the same list."""

    def key(a: np.ndarray, b: np.ndarray, sa: np.ndarray, sb: np.ndarray) -> np.ndarray:
        return (((a - lo) * N + (b - lo)) * S + sa) * S + sb

    k = key(*rows.T)
    order = np.argsort(k)
    pk = key(rows[:, 1], rows[:, 0], rows[:, 3], rows[:, 2])
    j = order[np.searchsorted(k[order], pk)]
    assert (k[j] == pk).all()
    return j


def solve_challenge_game(run: GameRun) -> ChallengeGame:
    """W for every pair of scores in [run's lowest, target), every challenges left and
    board flag.  The solve goes class by class, each sum from the top down:
    run.progress(left) with the steps (class, sum) left after each; the run's checkpoint
    saved now and then (as the plain game's), an interrupted solve resumes at the next."""
    model, rules = run.model, run.rules
    check_supported(rules)
    target, R, checkpoint = run.goal, run.R, run.checkpoint
    lo = lowest_units(rules, run.lowest, target)
    N = R - lo
    st = Statuses.of(rules)
    finals = ChallengeFinals.solve(model, R, lo, run.reach_bound)
    W = np.full((st.S, st.S, N, N), np.nan)
    steps = [
        (fa, fb, sigma)
        for fa, fb in _classes()
        for sigma in range(2 * (R - 1), lowest_sum(rules, lo, fa, fb, target) - 1, -1)
    ]
    expect = {
        "objective": "challenge-game-checkpoint",
        "rules_hash": rules.digest(),
        "target": target,
        "lowest": lo,
        "checkpoint_format": 2,
    }
    first = 0  # the next step to solve
    if checkpoint is not None:
        got = checkpoint.load(expect)
        if got is not None:
            first, W = _resume(got, W, len(steps))
    saver = SumCheckpoints(checkpoint, expect, run.checkpoint_every)
    for i in range(first, len(steps)):
        fa, fb, sigma = steps[i]
        rows = _sum_states(st, R, lo, sigma, fa, fb)
        a, b, sa, sb = rows.T
        partner = _partners(rows, lo, N, st.S)
        chal = np.full(len(rows), -np.inf)
        use = np.nonzero(st.usable(a, sa))[0]
        if len(use):
            chal[use] = _challenge_starts(model, W, finals, R, lo, rows[use])
        w = first_iterate(lambda x, y: W[sa, sb, x - lo, y - lo], a, b, R)
        plain = _plain_starts(model, W, finals, R, lo, rows)

        def solve(
            z: np.ndarray,
            rows: np.ndarray,
            plain: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]] = plain,
            chal: np.ndarray = chal,
        ) -> tuple[np.ndarray, np.ndarray]:
            val, g = plain(z, rows)
            take = chal[rows] > val
            return np.where(take, chal[rows], val), np.where(take, 0.0, g)

        val = newton_by_rows(rules, sigma, w, solve, partner)
        W[sa, sb, a - lo, b - lo] = val
        left = len(steps) - 1 - i  # (SumCheckpoints counts down: the steps left)
        saver.after(left, lambda: {"W": W})
        run.step(left)
    saver.done()
    return ChallengeGame(model, target, lo, W, finals)


def _resume(
    got: tuple[dict, dict[str, np.ndarray]], W: np.ndarray, n: int
) -> tuple[int, np.ndarray]:
    """(the next step, W) from a checkpoint (one that does not fit: start afresh)."""
    header, arrays = got
    try:
        left = int(header["next_sum"])  # the steps left after the next one
        if arrays["W"].shape != W.shape or not -1 <= left < n:
            return 0, W
        return n - 1 - left, arrays["W"].copy()
    except (KeyError, ValueError, TypeError):
        return 0, W


# seconds per (state x score kept along an axis, R - lo) of a solve past BASE_SECONDS (the
# process, the model, the reach bound and the final turns), measured on this machine from
# nothing (bench/bench_cold_game.py; tests/test_estimates.py): with chain tables past the cut
# (one choice per outcome, mandatory hot dice) zilch-challenge to 500, 1000, 2000, 3000,
# 15000 in 4.1, 5.4, 8.8, 13.1, 319 s (the last 475 s of CPU: the kernel's two threads);
# without, farkle with the rule book's challenge to 500 (47 872 states, R - lo = 123) 7.6 s
SECONDS_PER_STATE_SCORE = {"chains": 9e-8, "starts": 1.2e-6}
BASE_SECONDS = 2.0


def count_states(rules: RuleSet, target: int | None = None, lowest: int | None = None) -> int:
    """The states a solve keeps: 16 pairs of challenges left over the score pairs whose
    sum is at least lowest_sum, and where the rules have an entry minimum a second board
    flag for every score at or below 0."""
    R = rules.reach_units(target)
    lo = lowest_units(rules, lowest, target)
    scores = np.arange(lo, R)
    flags = 1 + ((scores <= 0) & (Statuses.of(rules).S == 8))
    above = np.append(np.cumsum(flags[::-1])[::-1], 0)  # the flags of the scores from b up
    n = 0
    for fa in range(4):
        for fb in range(4):
            low = int(lowest_sum(rules, lo, fa, fb, target))
            n += int(flags @ above[np.clip(low - scores - lo, 0, len(scores))])
    return n


def estimate(run: GameRun) -> tuple[float, float]:
    """(bytes, seconds) a challenge game solve takes, roughly.  Bytes: the process, W, and
    one score sum's turns (at most 8 (R - lo) rows over the payoff's totals, a few copies):
    zilch-challenge to 500 and 15000 peaked at 97 and 596 MB (bench/bench_cold_game.py).
    Seconds: per state kept and score along an axis (a turn's cut grows with the scores)."""
    from .last_turn import reach_bound
    from .plain_game import BASE_BYTES

    model, rules, R, target, lowest = run.model, run.rules, run.R, run.target, run.lowest
    lo = lowest_units(rules, lowest, target)
    span = R - lo + (0 if rules.end == "instant" else reach_bound(model)) + 1
    S = Statuses.of(rules).S
    N = R - lo
    nbytes = BASE_BYTES + 8.0 * S * S * N * N + 4 * 8.0 * (8 * N) * span
    chains = model.single_choice and rules.hot_dice == "mandatory"
    per = SECONDS_PER_STATE_SCORE["chains" if chains else "starts"]
    return nbytes, BASE_SECONDS + per * count_states(rules, target, lowest) * N
