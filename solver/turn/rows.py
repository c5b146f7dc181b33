"""Rows whose values are already known past a boundary: the final round's leader rows.

Above its leader every row of a final-round player is one of a few "class" problems
(objectives/final_round.py), so each row is solved only from 0 up to its boundary, reading
its class's values above it, and keeps only the totals it needs (Ragged: rows of their own
lengths in one flat array, filled and read as whole runs by kernel.copy_runs).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Protocol

import numpy as np

from ..limits import check_memory
from ..outcomes.model import TurnModel
from . import engine
from .kernel import copy_runs
from .payoff import Payoff
from .solution import TurnSolution


@dataclass(frozen=True, eq=False)
class Above:
    """Rows whose values are already known past a boundary (the end-game: above its leader
    every row of a player is one of a few "class" problems).  For r > boundary[b] row b's
    values are row cls[b] of `sol` (solved on the full grid: its cap and tails are the
    row's), its extra j those of sol plus zconst[j, b] times sol's last extra (the chance
    of ending in a class-wide event whose extra payoff is row-specific, e.g. a zilch
    below the leader).  Rows sorted by boundary, each boundary below sol.cap: only
    r <= boundary is solved, each row keeping only the totals it needs (Ragged); what is
    returned holds each row's values for r <= boundary[b], to be laid over its class's
    (final_round.LeaderRows does); past it they are unset."""

    boundary: np.ndarray  # (B,) at-risk units, ascending
    sol: TurnSolution
    cls: np.ndarray  # (B,)
    zconst: np.ndarray  # (E, B)


def class_rows(arr: np.ndarray, cls: np.ndarray, zconst: np.ndarray) -> np.ndarray:
    """A class solution's extras (arr: (E + 1, classes, ...), the last the chance of the
    class-wide event) as the rows' own E extras: row b's extra j is its class's plus
    zconst[j, b] times that chance (see Above)."""
    z = zconst.reshape(zconst.shape + (1,) * (arr.ndim - 2))
    return arr[:-1][:, cls] + z * arr[-1][cls]


def class_fill(
    ALL: np.ndarray,
    dst: np.ndarray,
    sol: TurnSolution,
    V: np.ndarray,
    rows: np.ndarray,
    zc: np.ndarray | None,
    r0: np.ndarray,
    n: np.ndarray,
) -> None:
    """ALL (1 + E, total): from dst (B, S), the flat position of (row b, state s, total
    r0[b]), the values of sol's row rows[b] (V = its values, max of roll and bank) on the
    totals r0[b] .. r0[b] + n[b] - 1 of each state (past the grid: the affine tails), then
    the extras; zc (E, B): sol has one extra more, added zc[j] times (see Above)."""
    S, Lg = V.shape[1], V.shape[2]
    s = np.arange(S)
    grid = np.clip(Lg - r0, 0, n)  # totals on sol's grid
    spos = ((rows[:, None] * S + s) * Lg + r0[:, None]).ravel()
    nn = np.repeat(grid, S)
    copy_runs(ALL[0], dst.ravel(), V.reshape(-1), spos, nn)
    E = len(ALL) - 1
    last = sol.extras[E].reshape(-1) if zc is not None else None
    for j in range(E):
        copy_runs(
            ALL[1 + j],
            dst.ravel(),
            sol.extras[j].reshape(-1),
            spos,
            nn,
            last,
            None if zc is None else np.repeat(zc[j], S),
        )
    far = np.nonzero(grid < n)[0]  # rows reaching past it
    if len(far):
        m = n[far] - grid[far]
        b = np.repeat(far, m)
        r = (r0 + grid)[b] + np.arange(len(b)) - np.repeat(np.cumsum(m) - m, m)
        c = rows[b]
        for st in range(S):
            at = dst[b, st] + r - r0[b]
            ALL[0, at] = sol.tail_a[c, st] * r + sol.tail_b[c, st]
            z = 0.0 if zc is None else sol.extras_a[E][c, st] * r + sol.extras_b[E][c, st]
            for j in range(E):
                ALL[1 + j, at] = (
                    sol.extras_a[j][c, st] * r
                    + sol.extras_b[j][c, st]
                    + (0.0 if zc is None else zc[j, b] * z)
                )


@dataclass(frozen=True, eq=False)
class Ragged:
    """Rows of their own lengths in one flat array: row b's value of state s at total r of
    source i (0: the row's own problem, then its permanent-points sources) is at
    offset[b] + (i * S + s) * length[b] + r."""

    offset: np.ndarray  # (B,)
    length: np.ndarray  # (B,)
    S: int

    def index(self, b: np.ndarray, i: int, s: int | np.ndarray, r: int | np.ndarray) -> np.ndarray:
        return self.offset[b] + (i * self.S + s) * self.length[b] + r


@dataclass(eq=False)
class RowValues:
    """solve_row_values: V and the extras of row b, state s, total r <= boundary[b] at
    layout.index(b, 0, s, r)."""

    layout: Ragged
    value: np.ndarray  # (total,)
    extras: np.ndarray  # (E, total)


class FillsRows(Protocol):
    """A permanent-points source that lays its own values into rows (final_round's level
    sources)."""

    def fill(self, ALL: np.ndarray, lay: Ragged, i: int) -> None: ...


def fill_source(src: TurnSolution | FillsRows, ALL: np.ndarray, lay: Ragged, i: int) -> None:
    """A permanent-points source's V and extras into source i of the rows laid out as `lay`
    (ALL (1 + E, total)): a TurnSolution (every row its own), or an object that fills
    itself (final_round's level sources)."""
    if not isinstance(src, TurnSolution):
        src.fill(ALL, lay, i)
        return
    B = len(lay.length)
    class_fill(
        ALL,
        lay.index(np.arange(B)[:, None], i, np.arange(lay.S), 0),
        src,
        src.value,
        np.arange(B),
        None,
        np.zeros(B, np.int64),
        lay.length,
    )


def solve_rows(model: TurnModel, pay: Payoff, above: Above) -> TurnSolution:
    """solve_turn for rows known past their boundaries: rectangular, as any solution, but
    totals past a row's boundary are unset (they are its class's)."""
    sol = _solve(model, pay, above, values_only=False)
    assert isinstance(sol, TurnSolution)
    return sol


def solve_row_values(model: TurnModel, pay: Payoff, above: Above) -> RowValues:
    """solve_rows keeping only V and the extras, each row in its own Ragged run (rolling
    and banking not kept apart: rows are many)."""
    vals = _solve(model, pay, above, values_only=True)
    assert isinstance(vals, RowValues)
    return vals


def _solve(model: TurnModel, pay: Payoff, ab: Above, values_only: bool) -> TurnSolution | RowValues:
    """Each row keeps only the totals r <= boundary + max_shift (Ragged): its own part, and
    what that looks up."""
    assert ab.boundary[-1] < ab.sol.cap and np.all(np.diff(ab.boundary) >= 0)
    B, S, W = pay.batch, model.states, model.max_shift
    src_list = sorted(pay.permanent.sources.items())
    nsrc, ne = 1 + len(src_list), len(pay.extras)
    start = ab.boundary.astype(np.int64)
    length = start + W + 1
    lay = Ragged(np.concatenate([[0], np.cumsum(nsrc * S * length)[:-1]]), length, S)
    L = int(length.max())
    check_memory(
        8.0 * (1 + ne) * nsrc * S * float(length.sum()) * 2,
        f"a turn solve of {B} leader rows",
        "ask about fewer players or closer scores",
    )
    ALL = np.empty((1 + ne, int(nsrc * S * length.sum())))
    for i, (_, src) in enumerate(src_list, start=1):
        fill_source(src, ALL, lay, i)
    _lay_class_above(ALL, lay, ab, W)
    bank_pay, extra_bank = engine.bank_payoffs(pay, B, L)
    roll = np.empty((0,) if values_only else (B, S, L))
    runs = _Runs(lay, nsrc, L)
    engine.backward(
        model,
        pay,
        src_list,
        ALL,
        roll,
        bank_pay,
        extra_bank,
        start,
        lay.offset,
        lay.length,
        L,
        partial(runs.to_grid, ALL),
        partial(runs.from_grid, ALL),
    )
    if values_only:
        return RowValues(lay, ALL[0], ALL[1:])
    return _rectangular(model, pay, ab, runs, ALL, roll, bank_pay)


def _lay_class_above(ALL: np.ndarray, lay: Ragged, ab: Above, W: int) -> None:
    """Past its boundary a row is its class: the W totals its solve looks up there are
    laid in (ALL (1 + E, total))."""
    g, B = ab.sol, len(ab.boundary)
    start = ab.boundary.astype(np.int64)
    class_fill(
        ALL,
        lay.index(np.arange(B)[:, None], 0, np.arange(lay.S), start[:, None] + 1),
        g,
        np.maximum(g.roll, g.bank),
        ab.cls,
        ab.zconst,
        start + 1,
        np.full(B, W),
    )


@dataclass(frozen=True, eq=False)
class _Runs:
    """The rows' runs (row b, source i, state s) of a Ragged layout, and where they sit on
    a rectangular grid (B, sources, S, L): the numpy loop's, and a whole solution's."""

    lay: Ragged
    nsrc: int
    L: int

    @property
    def n(self) -> np.ndarray:
        """Each run's length (B S,)."""
        return np.repeat(self.lay.length, self.lay.S)

    def at(self, i: int) -> np.ndarray:
        """The runs of source i in the Ragged layout."""
        rows, s = np.arange(len(self.lay.length))[:, None], np.arange(self.lay.S)
        return self.lay.index(rows, i, s, 0).ravel()

    def on_grid(self, i: int, nsrc: int) -> np.ndarray:
        """The runs of source i on a rectangular grid of nsrc sources."""
        rows, s, S = np.arange(len(self.lay.length))[:, None], np.arange(self.lay.S), self.lay.S
        return (((rows * nsrc + i) * S + s) * self.L).ravel()

    def to_grid(self, ALL: np.ndarray) -> np.ndarray:
        """The numpy loop's rectangular grid (1 + E, B, sources, S, L) from the rows."""
        B, S = len(self.lay.length), self.lay.S
        full = np.empty((len(ALL), B, self.nsrc, S, self.L))
        for v in range(len(ALL)):
            for i in range(self.nsrc):
                copy_runs(
                    full[v].reshape(-1), self.on_grid(i, self.nsrc), ALL[v], self.at(i), self.n
                )
        return full

    def from_grid(self, ALL: np.ndarray, full: np.ndarray) -> None:
        """The rows' own values (source 0) back from the rectangular grid."""
        for v in range(len(ALL)):
            copy_runs(ALL[v], self.at(0), full[v].reshape(-1), self.on_grid(0, self.nsrc), self.n)


def _rectangular(
    model: TurnModel,
    pay: Payoff,
    ab: Above,
    runs: _Runs,
    ALL: np.ndarray,
    roll: np.ndarray,
    bank_pay: np.ndarray,
) -> TurnSolution:
    """The rows as any solution, rectangular: totals past a row's own are unset (its
    class's); its tails are its class's."""
    g, cls = ab.sol, ab.cls
    extras = np.empty((len(ALL) - 1,) + roll.shape)
    for j in range(len(extras)):
        copy_runs(extras[j].reshape(-1), runs.on_grid(0, 1), ALL[1 + j], runs.at(0), runs.n)
    sol = TurnSolution(
        model,
        g.cap,
        roll,
        engine.bank_values(bank_pay, roll.shape),
        g.tail_a[cls],
        g.tail_b[cls],
        g.roll_a[cls],
        g.roll_b[cls],
        pay.tail.slope.astype(float),
        pay.tail.intercept.astype(float),
    )
    sol.extras = extras
    sol.extras_a = class_rows(g.extras_a, cls, ab.zconst)
    sol.extras_b = class_rows(g.extras_b, cls, ab.zconst)
    return sol
