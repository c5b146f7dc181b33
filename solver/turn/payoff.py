"""What ending a turn is worth: the one input that differs between questions.

Banking at r units at risk is worth ``bank(r)`` (``-inf`` where a minimum forbids it), a zilch
``zilch``; both per batch row, so one pass solves many utilities at once (on and off the
board, every deficit of a last turn, ...).  Past ``tail.start`` the bank payoff is affine in
r, which lets the solver find the exact values beyond its grid (see engine.py).  Choices
with permanent points are valued through ``permanent``; ``extras`` are other payoffs
evaluated under the optimal policy (not optimised).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# r (at-risk units, an int array) -> (B, len(r)); or (B, S, len(r)) where the payoff depends
# on the state (the dice left: Zonk's piggyback offer to the next player)
Bank = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True, eq=False)
class Tail:
    """bank(r) = slope * r + intercept for r >= start (per row).  forced: where the payoff is
    cut short of being affine (a game turn stops where banking is certain), the exact values
    of the must-roll state past the grid, r -> (B, len(r))."""

    slope: np.ndarray
    intercept: np.ndarray
    start: int = 0
    forced: Bank | None = None

    @classmethod
    def constant(cls, values: np.ndarray, start: int = 0, forced: Bank | None = None) -> Tail:
        values = np.asarray(values, float)
        return cls(np.zeros(len(values)), values, start, forced)


@dataclass(frozen=True, eq=False)
class Extra:
    """Another payoff of ending the turn, evaluated under the optimal policy: e.g. the
    chance of ending below a leader, or another player's chance of winning.  Finite."""

    bank: Bank
    zilch: np.ndarray
    tail: Tail  # its start is the payoff's

    @classmethod
    def zilch_chance(cls, B: int, worth: float = 1.0) -> Extra:
        """`worth` at a zilch, 0 at a bank: (worth times) the chance the turn ends in a
        zilch under the optimal policy."""
        return cls(lambda r: np.zeros((B, len(r))), np.full(B, worth), Tail.constant(np.zeros(B)))


@dataclass(frozen=True, eq=False)
class Permanent:
    """How a choice with permanent points is valued: ``bonus`` per permanent unit added to
    this same problem's value (a linear utility: expected points), or the solved problem
    that follows it, by permanent units (``sources``: a TurnSolution, or an object with its
    tails that fills its values into a row solve, see rows.py)."""

    bonus: float = 0.0
    sources: Mapping[int, Any] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Payoff:
    bank: Bank
    zilch: np.ndarray  # (B,)
    tail: Tail
    extras: tuple[Extra, ...] = ()
    permanent: Permanent = field(default_factory=Permanent)

    @property
    def batch(self) -> int:
        return len(self.zilch)
