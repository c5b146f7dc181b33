"""Where a turn stands, as a user states it, and how the solver indexes it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..limits import check_points
from ..rules import RuleSet


@dataclass(frozen=True)
class TurnState:
    """Dice to roll, the turn total so far (points) and its permanent part; under
    pyramiding also the dice frozen since the last pick-up (counts per face, () = none)."""

    dice: int
    turn: int = 0
    permanent: int = 0
    frozen: tuple[int, ...] = ()

    def index(self, rules: RuleSet) -> int:
        """The solver's state: 0 where all dice must be rolled (the start of the turn, or hot
        dice where they are mandatory), else the dice to roll (free to roll or bank); with
        frozen groups that can still grow, their own state (outcomes/frozen.py)."""
        if self.dice == rules.dice and (self.turn == 0 or rules.hot_dice == "mandatory"):
            return 0
        if any(self.frozen):
            from ..outcomes.frozen import turn_states

            return turn_states(rules).index(self.dice, self.frozen)
        return self.dice

    def at_risk(self, rules: RuleSet) -> int:
        """Units a zilch would lose."""
        return (self.turn - self.permanent) // rules.unit

    def level(self, rules: RuleSet) -> int:
        """Permanent combinations held: the turn's level (levels.py)."""
        step = rules.perm_step
        return self.permanent // (step * rules.unit) if step else 0

    def check(
        self, rules: RuleSet, reach: np.ndarray | None = None, held: np.ndarray | None = None
    ) -> None:
        """InputError unless the rules can produce this state (reach[s, r]: the states of
        turns without permanent points, held[s, r]: of turns holding some; reach.py)."""
        if not 1 <= self.dice <= rules.dice:
            raise InputError(
                f"dice must be 1..{rules.dice} under {rules.name}, got {self.dice}", "dice"
            )
        if self.frozen:
            from ..outcomes.frozen import check_frozen

            check_frozen(rules, self.frozen, self.dice)
        check_points(self.turn, "turn total")
        check_points(self.permanent, "permanent points")
        if self.turn < 0 or self.turn % rules.unit:
            raise InputError(
                f"turn total {self.turn} is impossible under {rules.name}: "
                f"totals are non-negative multiples of {rules.unit}"
            )
        if self.permanent:
            perms = rules.permanent_amounts
            if (
                not perms
                or self.permanent < 0
                or self.permanent % perms[0]
                or self.permanent > self.turn
            ):
                raise InputError(
                    f"permanent points {self.permanent} are impossible with turn "
                    f"total {self.turn} under {rules.name}"
                )
            reach = held
        s, u = self.index(rules), self.at_risk(rules)
        if reach is not None and u < reach.shape[1] and not reach[s, u]:
            part = f" ({self.permanent} of it permanent)" if self.permanent else ""
            left = "1 die" if self.dice == 1 else f"{self.dice} dice"
            frozen = ""
            if rules.pyramiding:
                faces = [str(f + 1) for f, c in enumerate(self.frozen) for _ in range(c)]
                frozen = f" and {','.join(faces) or 'no dice'} frozen"
            raise InputError(
                f"no turn under {rules.name} reaches a total of {self.turn}{part} with "
                f"{left} left to roll{frozen}"
            )


@dataclass(frozen=True)
class StateValues:
    """What each move is worth in one state: rolling, and banking (None: not allowed)."""

    roll: float
    bank: float | None

    @classmethod
    def of(cls, roll: float, bank: float) -> StateValues:
        """From solver values (a bank of -inf: not allowed)."""
        return cls(float(roll), float(bank) if np.isfinite(bank) else None)

    @property
    def action(self) -> str:
        return "bank" if self.bank is not None and self.bank >= self.roll else "roll"

    @property
    def best(self) -> float:
        return self.roll if self.bank is None else max(self.roll, self.bank)

    @property
    def margin(self) -> float | None:
        return None if self.bank is None else abs(self.roll - self.bank)

    def plus(self, points: float) -> StateValues:
        return StateValues(self.roll + points, None if self.bank is None else self.bank + points)
