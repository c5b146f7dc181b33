"""Expected points of one turn: the strategy card ("should I roll?" without scores).

Both on-board flags are solved in one pass (batch rows 0: not on the board, 1: on it).  With
permanent combinations (zilch-online's straight) a turn that holds permanent points P is
worth P plus the "secured" problem's value of its at-risk part: the utility is linear and a
permanent combination is worth at least every minimum (rules.py checks it), so from then on
minimums no longer bind.  That keeps the state exact without a permanent-points axis.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from ..outcomes.frozen import faces_of, turn_states
from ..outcomes.model import TurnModel
from ..rules import RuleSet
from ..turn.solution import TurnSolution
from ..turn.state import StateValues, TurnState

if TYPE_CHECKING:
    from ..turn.payoff import Extra, Payoff


def score_payoff(
    rules: RuleSet,
    minimums: list[int],
    sources: Mapping[int, TurnSolution] | None = None,
    zilch: np.ndarray | None = None,
    extras: Sequence[Extra] = (),
) -> Payoff:
    """Bank r units for r * unit points (where the row's minimum, in points, allows it); a
    zilch is worth `zilch` per row (default 0: the points it records come on top)."""
    from ..turn.payoff import Payoff, Permanent, Tail  # (reading a stored card builds none)

    u = rules.unit
    mins = np.array([rules.units_up(m) for m in minimums])
    return Payoff(
        bank=lambda r: np.where(r[None, :] >= mins[:, None], r[None, :] * float(u), -np.inf),
        zilch=np.zeros(len(minimums)) if zilch is None else np.asarray(zilch, float),
        tail=Tail(np.full(len(minimums), float(u)), np.zeros(len(minimums)), int(mins.max())),
        extras=tuple(extras),
        permanent=Permanent(float(u), sources or {}),
    )


def solve_score(model: TurnModel) -> tuple[TurnSolution, TurnSolution | None]:
    """(main, secured): main rows = [not on board, on board]; secured is None without
    permanent combinations."""
    from ..turn.engine import solve_turn  # (a query reading the stored card does not solve)

    rules = model.rules
    minimums = [rules.min_bank(False), rules.min_bank(True)]
    if not rules.has_permanent:
        return solve_turn(model, score_payoff(rules, minimums)), None
    secured = solve_turn(model, score_payoff(rules, [0]))
    amounts = sorted({int(p) for p in model.perm if p})
    main = solve_turn(model, score_payoff(rules, minimums, {a: secured for a in amounts}))
    return main, secured


@dataclass(frozen=True)
class Relative:
    """The long-run average g and the relative values h(k, on board), h(0, on) = 0."""

    average: float
    on: tuple[float, float, float]
    off: tuple[float, float, float]

    def h(self, k: int, on_board: bool) -> float:
        return (self.on if on_board else self.off)[k]

    def to_array(self) -> np.ndarray:
        return np.array([self.average, *self.on, *self.off])

    @classmethod
    def from_array(cls, a: np.ndarray) -> Relative:
        v = [float(x) for x in a]
        return cls(v[0], (v[1], v[2], v[3]), (v[4], v[5], v[6]))


@dataclass(frozen=True)
class FrozenThreshold:
    dice: int
    frozen: list[int]  # faces frozen since the last pick-up (that can still grow)
    bank_from: int | None


@dataclass(frozen=True, eq=False)
class ScorePolicy:
    rules: RuleSet
    main: TurnSolution
    secured: TurnSolution | None
    reach: np.ndarray  # reach[s, r]: turns without permanent points (turn/reach.py)
    header: Mapping = field(default_factory=dict)  # where it was stored, if it was
    # With a penalty for the third zilch in a row (average.py): the long-run solution, main's
    # rows 2k + b and secured's rows k for k zilches in a row; card(k) takes one k's rows.
    relative: Relative | None = None
    zilches: int | None = None  # the card's k (None: every k, or no penalty)

    @property
    def dice(self) -> int:
        return self.rules.dice

    def card(self, zilches: int = 0) -> ScorePolicy:
        """The policy of a turn played with `zilches` zilches in a row (without a penalty
        the count changes nothing: this policy)."""
        if self.relative is None:
            return self
        assert self.zilches is None, "card() of a card"
        k = np.array([zilches])
        return replace(
            self,
            main=self.main.take(np.array([2 * zilches, 2 * zilches + 1])),
            secured=None if self.secured is None else self.secured.take(k),
            zilches=zilches,
        )

    def value_at(self, state: TurnState, on_board: bool = True) -> StateValues:
        """Expected points banked this turn by rolling and by banking (None: not allowed)."""
        s, r = state.index(self.rules), state.at_risk(self.rules)
        if state.permanent:
            assert self.secured is not None
            roll, bank = self.secured.at(s, r)
            return StateValues.of(roll[0], bank[0]).plus(state.permanent)
        roll, bank = self.main.at(s, r)
        return StateValues.of(roll[int(on_board)], bank[int(on_board)])

    def values(
        self, row: int | np.ndarray, s: np.ndarray, r: np.ndarray, p: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Vectorised (roll, bank) for the simulator and the evaluator: row 0/1 (not on / on
        the board), state s, at-risk r and permanent p units (arrays)."""
        roll, bank = self.main.at_rows(row, s, r)
        if self.secured is not None and np.any(p > 0):
            u = self.rules.unit
            sr, sb = self.secured.at_rows(0, s, r)
            roll = np.where(p > 0, sr + p * u, roll)
            bank = np.where(p > 0, sb + p * u, bank)
        return roll, bank

    @property
    def cap(self) -> int:
        """At-risk units past which every decision is the asymptotic one."""
        return max(self.main.cap, self.secured.cap if self.secured is not None else 0)

    def expected_turn_score(self, on_board: bool = True) -> float:
        """Expected points of a fresh turn (with a penalty: the turn's long-run value, the
        average per turn plus the relative value of this card's state)."""
        return self.value_at(TurnState(self.dice), on_board).roll

    def bank_thresholds(self, on_board: bool = True) -> dict[int, int | None]:
        """Per dice count: the smallest reachable turn total from which banking is optimal at
        every reachable total (None: never a free choice, e.g. mandatory hot dice, or never
        optimal)."""
        out: dict[int, int | None] = {}
        for n in range(self.dice, 0, -1):
            if n == self.dice and self.rules.hot_dice == "mandatory":
                out[n] = None
                continue
            out[n] = self.bank_from(n, on_board)
        return out

    def bank_from(self, s: int, on_board: bool = True) -> int | None:
        """State s's smallest reachable turn total from which banking is optimal at every
        reachable total (None: never optimal, or never reached)."""
        row = int(on_board)
        L = self.reach.shape[1]
        reach = self.reach[s, :L].copy()
        reach[0] = False
        rolls = reach & ~(self.main.bank[row, s, :L] >= self.main.roll[row, s, :L])
        last_roll = np.nonzero(rolls)[0]
        start = last_roll.max() + 1 if len(last_roll) else 0
        later = np.nonzero(reach[start:])[0]
        return int((start + later[0]) * self.rules.unit) if len(later) else None

    def frozen_thresholds(self, on_board: bool = True) -> list[FrozenThreshold]:
        """Pyramiding: bank_from of every reachable state holding frozen groups."""
        states = turn_states(self.rules)
        return [
            FrozenThreshold(states.dice[s], faces_of(states.frozen[s]), self.bank_from(s, on_board))
            for s in range(self.dice + 1, len(states))
            if self.reach[s].any()
        ]
