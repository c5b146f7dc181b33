"""The two-player game under overtaking (issue 14): a bank must also beat the previous
player's banked turn total, unless he zilched.

A state is (a, b, T): the scores of the player to move and of the opponent (units) and T,
the opponent's last banked turn total (0: he zilched, or nobody has played yet);
W[a, b, T] is the mover's chance.  His turn is the game's turn (game.turn_payoff) with the
minimum raised to T + 1 where T > 0; banking t leads to (b, a + t, t) — the opponent must
beat t — and a zilch to (b, a, 0).  Once a + t reaches the target the opponent's last turn
must beat the deficit d and t: where t < d that is the plain last turn (he needs more than
d anyway), else his chance of banking more than t (the last turn against deficit t with a
tie worth nothing).  Where reaching the target wins at once it is 1.

Order: a bank raises the score sum; a zilch keeps it and leads to a state with T = 0.  Per
sum, the T = 0 states pair up by their zilches and are solved as the plain game's pairs
(Newton on the pair); then every state with T > 0 is one turn, its zilch worth
1 - W[b, a, 0] from the pair just solved.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from ..outcomes.model import TurnModel
from ..rules import RuleSet
from ..turn import solve_turn
from ..turn.starts import ChainRows, FirstPassage, chain_table, solve_starts, turn_cuts
from .game_run import GameRun, SumCheckpoints
from .last_turn import last_turn_start
from .plain_game import (
    BASE_SECONDS,
    Finals,
    check_supported,
    game_starts,
    newton_on_pairs,
    score_pairs,
    turn_payoff,
)

if TYPE_CHECKING:
    from ..turn import TurnSolution

ROWS = 1024  # turns solved at once (the bank payoffs of a batch are rows x totals)


def check_overtaking(rules: RuleSet) -> None:
    """The game with overtaking: the plain game's conditions besides (the rules refuse
    overtaking with permanent points, piggyback, a penalty or pyramiding)."""
    check_supported(replace(rules, overtaking=False))


@dataclass(frozen=True, eq=False)
class OvertakingFinals:
    """The opponent's last turn once a bank of t reaches the target with deficit d: the
    plain last turn where t < d, else strict[t], his chance of banking more than t (by his
    board flag); None where reaching the target wins at once."""

    plain: Finals
    strict: dict[bool, np.ndarray] | None

    @classmethod
    def solve(cls, model: TurnModel, R: int, reach_bound: int) -> OvertakingFinals:
        plain = Finals.solve(model, R, reach_bound)
        if plain.opp is None:
            return cls(plain, None)
        rules = model.rules
        no_tie = replace(model, rules=replace(rules, tie=0.0))
        totals = np.arange(len(next(iter(plain.opp.values())))) * rules.unit
        strict = {flag: last_turn_start(no_tie, totals, flag) for flag in plain.opp}
        return cls(plain, strict)

    def chains(self, model: TurnModel, rows: np.ndarray) -> ChainRows | None:
        """The must-roll state past the cut of the turns from rows (a, b) from chain tables
        (Finals.chains): past the target a bank of t is worth 1 - the opponent's plain last
        turn by the deficit where a > b (then t < d always), else 1 - strict[t], by t."""
        plain = self.plain.chains(model, rows)
        if plain is None or self.strict is None:
            return plain
        a, b = rows[:, 0], rows[:, 1]
        if self.plain.built.get("strict model") is not model:
            strict = [self.strict.get(f, self.strict[True]) for f in (False, True)]
            parts = [chain_table(model, np.append(1.0 - x, 1.0)) for x in strict]
            self.plain.built.update({"strict model": model, "strict": parts})
        sa, sb = self.plain.built["strict"]  # (flags False, True; as in Finals._tables)
        n = len(plain.alpha)
        alpha = np.concatenate([plain.alpha, sa[0], sb[0]])
        beta = np.concatenate([plain.beta, sa[1], sb[1]])
        on = (b > 0) | (not self.plain.rules.entry_minimum)
        t0 = self.plain.R - a  # the first bank reaching the target
        base = np.where(on, n + len(sa[0]), n)
        pos = np.where(a > b, plain.pos, base + t0)
        length = np.where(a > b, plain.length, len(sa[0]) - t0)
        return ChainRows(alpha, beta, plain.at, pos, length)

    def mine(self, final: np.ndarray, opp_score: np.ndarray, t: np.ndarray) -> np.ndarray:
        """The banker's chance with his score `final` against opp_score, having banked t."""
        if self.strict is None or self.plain.opp is None:
            return np.ones(final.shape)
        on = (opp_score > 0) | (self.plain.rules.entry_minimum == 0)  # rules.on_board
        d = final - opp_score
        chance = np.zeros(final.shape)
        for flag, opp in self.plain.opp.items():
            strict = self.strict[flag]
            c = np.where(
                t < d,
                np.where(d < len(opp), opp[np.minimum(d, len(opp) - 1)], 0.0),
                np.where(t < len(strict), strict[np.minimum(t, len(strict) - 1)], 0.0),
            )
            chance = np.where(on == flag, c, chance)
        return 1.0 - chance


@dataclass(frozen=True, eq=False)
class OvertakingGame:
    model: TurnModel
    target: int  # points
    W: np.ndarray  # (R, R, R): W[a, b, T], NaN where T cannot be a bank of the opponent
    finals: OvertakingFinals

    @property
    def rules(self) -> RuleSet:
        return self.model.rules

    def p_win(self, me: int, opp: int, beat: int = 0) -> float:
        u = self.rules.unit
        return float(self.W[me // u, opp // u, beat // u])

    def turns(self, states: np.ndarray, z: np.ndarray | None = None) -> TurnSolution:
        """The turns from states (a, b, T) (units; (n, 3)): a TurnSolution, a row each."""
        a, b = states[:, 0], states[:, 1]
        if z is None:
            z = 1.0 - self.W[b, a, 0]
        return _solve_turns(self.model, self.W, self.finals, states, z)

    def turn(self, me: int, opp: int, beat: int = 0) -> TurnSolution:
        u = self.rules.unit
        return self.turns(np.array([[me // u, opp // u, beat // u]]))


def _minimums(rules: RuleSet, a: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Units a bank needs from (a, ., T): the minimum by board flag, and more than T."""
    on = (a > 0) | (rules.entry_minimum == 0)  # rules.on_board
    base = np.where(on, rules.min_bank_units(True), rules.min_bank_units(False))
    return np.where(T > 0, np.maximum(base, T + 1), base)


def _bank_values(W: np.ndarray, finals: OvertakingFinals, states: np.ndarray) -> np.ndarray:
    """U[i, t]: banking t from states[i] = (a, b, ...): the opponent moves from (b, a + t)
    and must beat t; his last turn once a + t reaches the target."""
    R = W.shape[0]
    a, b = states[:, 0], states[:, 1]
    span = R + finals.plain.D + 1
    t = np.arange(span)[None, :]
    final = a[:, None] + t
    inside = final < R
    U = np.empty(final.shape)
    tt = np.broadcast_to(t, final.shape)
    bb = np.broadcast_to(b[:, None], final.shape)
    U[inside] = 1.0 - W[bb[inside], final[inside], np.minimum(tt[inside], R - 1)]
    out = ~inside
    U[out] = finals.mine(final[out], bb[out], tt[out])
    return U


def _solve_turns(
    model: TurnModel, W: np.ndarray, finals: OvertakingFinals, states: np.ndarray, z: np.ndarray
) -> TurnSolution:
    """The turns from states (a, b, T), a zilch worth z, banking as W says."""
    a, T = states[:, 0], states[:, 2]
    U = _bank_values(W, finals, states)
    return solve_turn(model, turn_payoff(model, U, z, _minimums(model.rules, a, T)))


def _previous_banks(rules: RuleSet, b: int) -> np.ndarray:
    """The totals T a previous bank of a player now at b can have had: 0, or from the
    smallest bank up to b."""
    low = max(rules.min_bank_units(True), 1)
    return np.concatenate([[0], np.arange(low, b + 1)])


def solve_overtaking_game(run: GameRun) -> OvertakingGame:
    """W for every pair of scores below the run's target and every previous bank;
    run.progress(sigma) after each score sum; the run's checkpoint as the plain game's
    (plain_game.solve_game)."""
    model, rules = run.model, run.rules
    check_overtaking(rules)
    target, R, checkpoint = run.goal, run.R, run.checkpoint
    finals = OvertakingFinals.solve(model, R, run.reach_bound)
    W = np.full((R, R, R), np.nan)
    first = 2 * (R - 1)
    expect = {
        "objective": "overtaking-checkpoint",
        "rules_hash": rules.digest(),
        "target": target,
        "checkpoint_format": 1,
    }
    got = checkpoint.load(expect) if checkpoint is not None else None
    if got is not None:  # (one that does not fit: start afresh)
        nxt = int(got[0].get("next_sum", first + 1))
        if got[1]["W"].shape == W.shape and -1 <= nxt <= first:
            first, W = nxt, np.array(got[1]["W"])
    saver = SumCheckpoints(checkpoint, expect, run.checkpoint_every)
    passage = FirstPassage.of(model, R) if model.single_choice else None
    for sigma in range(first, -1, -1):
        pairs = score_pairs(sigma, R)
        states = np.concatenate([pairs, np.zeros((len(pairs), 1), int)], axis=1)
        U = _bank_values(W, finals, states)
        mins = _minimums(rules, pairs[:, 0], states[:, 2])
        chains = finals.chains(model, pairs)

        def solve(
            z: np.ndarray,
            U: np.ndarray = U,
            mins: np.ndarray = mins,
            chains: ChainRows | None = chains,
        ) -> tuple[np.ndarray, np.ndarray, None]:
            return (*game_starts(model, U, z, mins, chains), None)

        W[pairs[:, 0], pairs[:, 1], 0], _ = newton_on_pairs(
            rules, sigma, np.full(len(pairs), 0.5), solve
        )
        if not _previous_from_one_turn(model, W, U, mins, chains, pairs, passage):
            rows = np.array(
                [(a, b, T) for a, b in pairs for T in _previous_banks(rules, int(b))[1:]]
            ).reshape(-1, 3)
            for i in range(0, len(rows), ROWS):
                st = rows[i : i + ROWS]
                z = 1.0 - W[st[:, 1], st[:, 0], 0]
                W[st[:, 0], st[:, 1], st[:, 2]] = _solve_turns(model, W, finals, st, z).roll[
                    :, 0, 0
                ]
        saver.after(sigma, lambda: {"W": W})
        run.step(sigma)
    saver.done()
    return OvertakingGame(model, target, W, finals)


def _previous_from_one_turn(
    model: TurnModel,
    W: np.ndarray,
    U: np.ndarray,
    mins: np.ndarray,
    chains: ChainRows | None,
    pairs: np.ndarray,
    passage: FirstPassage | None,
) -> bool:
    """W[a, b, T] for every previous bank T > 0 of the pairs (a, b) of a sum, from one turn
    of each pair (solve_starts' family of minimums): the turn from (a, b, T) is the turn
    from (a, b, 0) with no bank below T + 1, the same payoffs and the same zilch, so past
    T it is that turn, and below it (one choice per outcome) it only rolls: the chances of
    where it first passes T (FirstPassage) weigh the pair's own turn there.  False where
    this does not apply (the kernel not built, or choices to make): whole turns then."""
    if passage is None:
        return False
    rules = model.rules
    a, b = pairs[:, 0], pairs[:, 1]
    z = 1.0 - W[b, a, 0]
    span = U.shape[1]
    low = max(rules.min_bank_units(True), 1)
    count = np.maximum(b - low + 1, 0)
    stops = np.clip(turn_cuts(model, U, z, mins), 1, span - 1)
    ex = np.zeros((1, len(pairs), 1)), np.ones((1, len(pairs)))
    got = solve_starts(model, U, z, mins, stops, *ex, chains, (passage, low + 1 + 0 * b, count))
    if got is None or len(got) < 3:
        return False
    rows = np.repeat(np.arange(len(pairs)), count)
    T = low + np.arange(len(rows)) - np.repeat(np.cumsum(count) - count, count)
    W[a[rows], b[rows], T] = got[2]
    return True


# seconds of a solve past game.BASE_SECONDS, measured on this machine: one choice per
# outcome (every previous bank's turn from the pair's own, FirstPassage), per R**2 (the
# pairs): zilch-overtaking to 4000 and 15000 in 1.1 and 16.6 s from nothing
# (bench/bench_cold_game.py); else per R**4: farkle to 3000 (R = 60) in 8.1 s
SECONDS_PER_R2 = 16.6 / 300**2
SECONDS_PER_R4 = 8.1 / 60**4


def estimate(run: GameRun) -> tuple[float, float]:
    """(bytes, seconds) a solve of the game with overtaking takes, roughly: W (R**3) and
    one batch of turns."""
    model, R = run.model, run.R
    nbytes = 8.0 * R**3 + 8.0 * ROWS * model.states * 4 * (2 * R + 100)
    solve = SECONDS_PER_R2 * R**2 if model.single_choice else SECONDS_PER_R4 * float(R) ** 4
    return nbytes, BASE_SECONDS + solve
