"""What every game solve takes (GameRun: the turn model, the reach bound, the target, the
lowest score kept, the solver's steps, the checkpoint) and how a solve sum by sum saves its
progress (SumCheckpoints).  The two-player games (plain, penalty, overtaking, challenge), a
fixed policy's game and the N-player game are each `solve_...(run)`."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..outcomes.model import TurnModel
from ..rules import RuleSet

Step = Callable[..., None]  # a solver's progress: its own steps (a score sum, a sweep, ...)


class Checkpoint(Protocol):
    """Where an interrupted solve saves the score sums done (store.Checkpoint)."""

    def load(self, expect: dict) -> tuple[dict, dict[str, np.ndarray]] | None: ...
    def save(self, meta: dict, arrays: dict[str, np.ndarray]) -> None: ...
    def discard(self) -> None: ...


@dataclass(frozen=True)
class GameRun:
    """One game solve's arguments.  reach_bound: units a turn adds with probability above
    last_turn.TRUNCATION, the deficits a final turn covers (0: no final round, or an
    estimate without it).  target: points (None: the rules').  lowest: the lowest score
    kept, points (the penalty and challenge games; None: their default).  progress: called
    after each of the solver's steps.  checkpoint: where an interrupted solve saves its work
    and resumes from (every `checkpoint_every` seconds; SumCheckpoints)."""

    model: TurnModel
    reach_bound: int = 0
    target: int | None = None
    lowest: int | None = None
    progress: Step | None = None
    checkpoint: Checkpoint | None = None
    checkpoint_every: float | None = None

    @property
    def rules(self) -> RuleSet:
        return self.model.rules

    @property
    def goal(self) -> int:
        """The target, points."""
        target = self.rules.target if self.target is None else self.target
        assert target is not None  # (the solvers refuse rules without a target first)
        return target

    @property
    def R(self) -> int:
        """The scores below the target, units."""
        return self.rules.reach_units(self.target)

    def step(self, *done: object) -> None:
        if self.progress is not None:
            self.progress(*done)


@dataclass(frozen=True)
class Where:
    """Where a solve runs: this process, or (the N-player game) Dask workers: a local
    cluster of `workers`, or the cluster at `scheduler`, waited for at most `timeout` s."""

    workers: int | None = None
    scheduler: str | None = None
    timeout: float | None = None


class SumCheckpoints:
    """A solve sum by sum saving its progress now and then: every 10 s by default, and at
    least ten times what the last save took (a big table is saved less often); `every`
    seconds if given (0: after every sum).  Nothing without a checkpoint."""

    def __init__(self, checkpoint: Checkpoint | None, expect: dict, every: float | None):
        self.checkpoint, self.expect, self.fixed = checkpoint, expect, every is not None
        self.every = 10.0 if every is None else every
        self.saved = time.monotonic()

    def after(self, sigma: int, arrays: Callable[[], dict[str, np.ndarray]]) -> None:
        """Sum sigma is solved: save (the next sum to solve, arrays()) if it is time."""
        if self.checkpoint is None or time.monotonic() - self.saved < self.every:
            return
        t0 = time.monotonic()
        self.checkpoint.save(dict(self.expect, next_sum=sigma - 1), arrays())
        self.saved = time.monotonic()
        if not self.fixed:
            self.every = max(self.every, 10 * (self.saved - t0))

    def done(self) -> None:
        if self.checkpoint is not None:
            self.checkpoint.discard()
