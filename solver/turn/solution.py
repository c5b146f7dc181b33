"""A solved turn: the values of rolling and banking in every state of every batch row, on a
grid of at-risk totals r = 0 .. cap + max_shift, with the exact affine tails beyond it; and
TurnLevels, a turn solved per level of permanent points."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from .state import StateValues, TurnState

if TYPE_CHECKING:
    from ..outcomes.model import TurnModel
    from ..rules import RuleSet


def _extend(v: np.ndarray, a: np.ndarray, b: np.ndarray, length: int) -> np.ndarray:
    """v (B, S, L) on the grid, then a * r + b: the first `length` totals."""
    if length <= v.shape[2]:
        return v[:, :, :length]
    r = np.arange(v.shape[2], length)
    return np.concatenate([v, a[:, :, None] * r + b[:, :, None]], axis=2)


@dataclass(eq=False)
class TurnSolution:
    model: TurnModel | None  # None: loaded from a table file
    cap: int  # grid r in [0, cap + max_shift]; values affine beyond cap
    roll: np.ndarray  # (B, S, L) value of rolling
    bank: np.ndarray  # (B, S, L) value of banking (-inf: not allowed; s = 0 never)
    tail_a: np.ndarray  # (B, S) value = tail_a * r + tail_b for r >= cap
    tail_b: np.ndarray
    roll_a: np.ndarray  # (B, S) roll value = roll_a * r + roll_b for r >= cap
    roll_b: np.ndarray
    bank_a: np.ndarray  # (B,) bank payoff = bank_a * r + bank_b for r >= cap
    bank_b: np.ndarray
    # the extras under the optimal policy (None: the payoff had none)
    extras: Any = None  # (E, B, S, L)
    extras_a: Any = None  # (E, B, S) their affine tails
    extras_b: Any = None

    def extended_extra(self, j: int, length: int) -> np.ndarray:
        return _extend(self.extras[j], self.extras_a[j], self.extras_b[j], length)

    @property
    def value(self) -> np.ndarray:
        return np.maximum(self.roll, self.bank)

    def extended(self, length: int) -> np.ndarray:
        """Values (B, S, length): the grid, then the affine tail."""
        return _extend(self.value, self.tail_a, self.tail_b, length)

    ARRAYS = ("roll", "bank", "tail_a", "tail_b", "roll_a", "roll_b", "bank_a", "bank_b")

    def padded(self, length: int) -> TurnSolution:
        """The same solution with its grid extended to `length` by the affine tails."""
        L = self.roll.shape[2]
        if length <= L:
            return self
        r = np.arange(L, length)
        roll = np.concatenate(
            [self.roll, self.roll_a[:, :, None] * r + self.roll_b[:, :, None]], axis=2
        )
        bank_ext = np.repeat(
            (self.bank_a[:, None] * r + self.bank_b[:, None])[:, None, :],
            self.roll.shape[1],
            axis=1,
        )
        bank_ext[:, 0] = -np.inf
        sol = TurnSolution(
            self.model,
            self.cap,
            roll,
            np.concatenate([self.bank, bank_ext], axis=2),
            *(getattr(self, k) for k in self.ARRAYS[2:]),
        )
        if self.extras is not None:
            sol.extras = np.stack([self.extended_extra(j, length) for j in range(len(self.extras))])
            sol.extras_a, sol.extras_b = self.extras_a, self.extras_b
        return sol

    @classmethod
    def concat(cls, parts: list[TurnSolution]) -> TurnSolution:
        """Batch rows of several solutions, one after the other (grids padded to the
        longest; each row's values past its own cap are its exact affine tail)."""
        length = max(p.roll.shape[2] for p in parts)
        parts = [p.padded(length) for p in parts]
        sol = cls(
            parts[0].model,
            max(p.cap for p in parts),
            *(np.concatenate([getattr(p, k) for p in parts]) for k in cls.ARRAYS),
        )
        if parts[0].extras is not None:
            sol.extras = np.concatenate([p.extras for p in parts], axis=1)
            sol.extras_a = np.concatenate([p.extras_a for p in parts], axis=1)
            sol.extras_b = np.concatenate([p.extras_b for p in parts], axis=1)
        return sol

    def take(self, rows: np.ndarray) -> TurnSolution:
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
    def sound(cls, prefix: str, arrays: dict, rows: int, states: int) -> bool:
        """Do `arrays` hold a solution of `rows` rows and `states` states under `prefix`?"""
        roll = arrays[f"{prefix}.roll"]
        L = roll.shape[2]
        shapes = {
            "roll": (rows, states, L),
            "bank": (rows, states, L),
            "bank_a": (rows,),
            "bank_b": (rows,),
        }
        return (
            roll.ndim == 3
            and L >= 1
            and 0 <= int(arrays[f"{prefix}.cap"][0]) < L
            and all(
                arrays[f"{prefix}.{k}"].shape == shapes.get(k, (rows, states))
                and arrays[f"{prefix}.{k}"].dtype == np.float64
                for k in cls.ARRAYS
            )
        )

    @classmethod
    def from_arrays(cls, prefix: str, arrays: dict) -> TurnSolution:
        return cls(
            None, int(arrays[f"{prefix}.cap"][0]), *(arrays[f"{prefix}.{k}"] for k in cls.ARRAYS)
        )

    @classmethod
    def constant(cls, model: TurnModel, value: np.ndarray) -> TurnSolution:
        """Every state worth `value` (B,): e.g. a turn whose outcome is already decided."""
        B, S, L = len(value), model.states, model.max_shift + 1
        roll = np.broadcast_to(value[:, None, None], (B, S, L)).copy()
        bank = roll.copy()
        bank[:, 0] = -np.inf
        const = np.repeat(value[:, None], S, axis=1)
        zero = np.zeros((B, S))
        return cls(model, 0, roll, bank, zero, const, zero, const, np.zeros(B), value.copy())

    def with_constant_extras(self, values: np.ndarray) -> TurnSolution:
        """values (E, B): extras that are constant too (a decided turn)."""
        E, B = values.shape
        S, L = self.roll.shape[1], self.roll.shape[2]
        self.extras = np.broadcast_to(values[:, :, None, None], (E, B, S, L)).copy()
        self.extras_a = np.zeros((E, B, S))
        self.extras_b = np.repeat(values[:, :, None], S, axis=2)
        return self

    def at(self, s: int, r: int) -> tuple[np.ndarray, np.ndarray]:
        """(roll, bank) values per batch row at state s and at-risk units r, any r >= 0."""
        if r < self.roll.shape[2]:
            return self.roll[:, s, r], self.bank[:, s, r]
        bank = self.bank_a * r + self.bank_b if s else np.full_like(self.bank_a, -np.inf)
        return self.roll_a[:, s] * r + self.roll_b[:, s], bank

    def at_rows(
        self, row: int | np.ndarray, s: np.ndarray, r: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(roll, bank) at batch rows, states s and at-risk units r (arrays, any r >= 0)."""
        L = self.roll.shape[2]
        inside = r < L
        rc = np.minimum(r, L - 1)
        roll = np.where(
            inside, self.roll[row, s, rc], self.roll_a[row, s] * r + self.roll_b[row, s]
        )
        bank_tail = np.where(s == 0, -np.inf, self.bank_a[row] * r + self.bank_b[row])
        return roll, np.where(inside, self.bank[row, s, rc], bank_tail)


@dataclass(frozen=True, eq=False)
class TurnLevels(Sequence[TurnSolution]):
    """levels[k]: the optimal turn holding k permanent combinations (one level without
    them), batch rows as solved."""

    rules: RuleSet
    levels: tuple[TurnSolution, ...]

    @overload
    def __getitem__(self, k: int) -> TurnSolution: ...
    @overload
    def __getitem__(self, k: slice) -> tuple[TurnSolution, ...]: ...
    def __getitem__(self, k: int | slice) -> TurnSolution | tuple[TurnSolution, ...]:
        return self.levels[k]

    def __len__(self) -> int:
        return len(self.levels)

    def __iter__(self) -> Iterator[TurnSolution]:
        return iter(self.levels)

    def value_at(self, state: TurnState, row: int = 0) -> StateValues:
        """Rolling and banking in `state` for batch row `row`; permanent points beyond the
        top level are the top level's (constant: the turn is decided there)."""
        k = min(state.level(self.rules), len(self.levels) - 1)
        roll, bank = self.levels[k].at(state.index(self.rules), state.at_risk(self.rules))
        return StateValues.of(roll[row], bank[row])

    def values(
        self, row: int | np.ndarray, s: np.ndarray, r: np.ndarray, p: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Vectorised (roll, bank) at batch rows (one, or one per situation), states s,
        at-risk r and permanent p units (arrays): a playing policy's values."""
        s, r, p = np.broadcast_arrays(s, r, p)
        step = self.rules.perm_step
        k = np.minimum(p // step, len(self.levels) - 1) if step else np.zeros(s.shape, int)
        roll, bank = np.empty(s.shape), np.empty(s.shape)
        for lv in np.unique(k):
            sel = k == lv
            rw = row if np.ndim(row) == 0 else np.broadcast_to(row, s.shape)[sel]
            roll[sel], bank[sel] = self.levels[lv].at_rows(rw, s[sel], r[sel])
        return roll, bank
