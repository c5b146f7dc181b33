"""A turn whose payoff is a function of the points it adds, with levels of permanent points.

Near the end of a game (and in a game turn with permanent points) what ending the turn is
worth depends on the points x it adds to the player's score: U[b, x] for x < H, U_inf[b]
beyond (batch rows b: deficits, leader states, score pairs).  Permanent points (zilch-online)
are levels: level k holds k permanent combinations; each level is solved with the level
above as the source of its permanent choices, from the top down (above H every end of the
turn is worth U_inf: the top level is constant).
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from ..outcomes.model import TurnModel
from .engine import solve_turn
from .payoff import Extra, Payoff, Permanent, Tail
from .solution import TurnLevels, TurnSolution


def solve_levels(
    model: TurnModel,
    U: np.ndarray,
    U_inf: np.ndarray,
    on_board: bool,
    EU: np.ndarray | None = None,
    EU_inf: np.ndarray | None = None,
    chunks: int = 4,
) -> TurnLevels:
    """The optimal turn for payoffs U (B, H) / U_inf (B,) over the points added.

    EU (E, B, H) / EU_inf (E, B): other payoffs of the turn's end, evaluated under the
    optimal policy (solution.extras).  Rows whose payoffs are constant past a short horizon
    (a last turn: everything beyond the deficit wins) are solved in chunks of similar
    horizon, each on a grid no longer than it needs."""
    B, H = U.shape
    diff = U != U_inf[:, None]
    if EU is not None:
        assert EU_inf is not None
        diff |= (EU != EU_inf[:, :, None]).any(axis=0)
    horizon = np.where(diff.any(axis=1), H - np.argmax(diff[:, ::-1], axis=1), 1)
    if chunks > 1 and B >= 2 * chunks and horizon.min() < 0.6 * horizon.max():
        order = np.argsort(horizon, kind="stable")
        parts = np.array_split(order, chunks)
        solved = []
        for rows in parts:
            h = int(horizon[rows].max())
            solved.append(
                solve_levels(
                    model,
                    U[rows, :h],
                    U_inf[rows],
                    on_board,
                    None if EU is None else EU[:, rows, :h],
                    None if EU_inf is None else EU_inf[:, rows],
                    chunks=1,
                )
            )
        depth = max(len(lv) for lv in solved)
        inverse = np.empty(B, np.int64)
        inverse[np.concatenate(parts)] = np.arange(B)
        levels = []
        for k in range(depth):
            # a chunk with fewer levels is decided beyond its last one: its top level
            merged = TurnSolution.concat([lv[min(k, len(lv) - 1)] for lv in solved])
            levels.append(merged.take(inverse))
        return TurnLevels(model.rules, tuple(levels))
    return _solve(model, U, U_inf, on_board, EU, EU_inf)


def _solve(
    model: TurnModel,
    U: np.ndarray,
    U_inf: np.ndarray,
    on_board: bool,
    EU: np.ndarray | None,
    EU_inf: np.ndarray | None,
) -> TurnLevels:
    """Every level from the top down, each the permanent-points source of the one below."""
    rules = model.rules
    B, H = U.shape
    m = rules.min_bank_units(on_board)
    step = rules.perm_step
    top = math.ceil(H / step) if step else 0
    if EU is None or EU_inf is None:  # no extras: E = 0
        EU, EU_inf = np.zeros((0, B, H)), np.zeros((0, B))
    levels: dict[int, TurnSolution] = {}
    key = np.zeros(B)  # rows with equal keys have equal solutions at the level
    for k in range(top, -1, -1):
        p = k * (step or 0)
        if p >= H:
            levels[k], key = _beyond(model, U_inf, EU_inf)
            continue
        zx = p if p >= m else 0
        first, inverse = _distinct_rows(U, U_inf, EU, EU_inf, key, p, zx)
        sources = {step: levels[k + 1].take(first)} if step else {}
        pay = _level_payoff(
            U[first], U_inf[first], EU[:, first], EU_inf[:, first], p, zx, m, sources
        )
        levels[k] = solve_turn(model, pay).take(inverse)
        key = inverse.astype(float)
    return TurnLevels(rules, tuple(levels[k] for k in range(top + 1)))


def _beyond(
    model: TurnModel, U_inf: np.ndarray, EU_inf: np.ndarray
) -> tuple[TurnSolution, np.ndarray]:
    """A level whose permanent points alone pass every payoff's horizon: worth U_inf
    (extras EU_inf) whatever happens; and each row's key (equal keys, equal solutions)."""
    sol = TurnSolution.constant(model, U_inf.astype(float))
    if len(EU_inf):
        sol.with_constant_extras(EU_inf.astype(float))
    alike = np.column_stack([U_inf] + ([EU_inf.T] if len(EU_inf) else []))
    return sol, np.unique(alike, axis=0, return_inverse=True)[1].ravel().astype(float)


def _distinct_rows(
    U: np.ndarray,
    U_inf: np.ndarray,
    EU: np.ndarray,
    EU_inf: np.ndarray,
    key: np.ndarray,
    p: int,
    zx: int,
) -> tuple[np.ndarray, np.ndarray]:
    """(first, inverse): rows whose payoffs from level p on (and whose level above) agree
    are solved once: at a high level most leaders are already beaten by the permanent
    points alone.  zx: where a zilch ends."""
    feats = [U[:, p:], U[:, zx : zx + 1], U_inf[:, None], key[:, None]]
    for j in range(len(EU)):
        feats += [EU[j][:, p:], EU[j][:, zx : zx + 1], EU_inf[j][:, None]]
    return unique_rows(np.concatenate(feats, axis=1))


def unique_rows(F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first, inverse) of the distinct rows of F, as np.unique(axis=0) groups them, by a
    1-d sort of a random projection of the rows (a game's rows are mostly distinct, and
    the sort over every column cost a third of a level's time): every group is checked to
    hold equal rows only, else the sort over every column decides."""
    if len(F) > 1 and np.isfinite(F).all():
        w = np.random.default_rng(0).random(F.shape[1]) + 0.5
        _, first, inverse = np.unique(F @ w, return_index=True, return_inverse=True)
        if np.array_equal(F, F[first][inverse.ravel()]):
            return first, inverse.ravel()
    _, first, inverse = np.unique(F, axis=0, return_index=True, return_inverse=True)
    return first, inverse.ravel()


def _level_payoff(
    U: np.ndarray,
    U_inf: np.ndarray,
    EU: np.ndarray,
    EU_inf: np.ndarray,
    p: int,
    zx: int,
    m: int,
    sources: dict[int, TurnSolution],
) -> Payoff:
    """The turn at level p (units of permanent points, m the bank minimum): banking r at
    risk ends at r + p points added, a zilch at zx."""
    H = U.shape[1]
    extras = tuple(
        Extra(
            bank=partial(_bank_at, EU[j], EU_inf[j], p),
            zilch=_at(EU[j], EU_inf[j], np.array([zx]))[:, 0],
            tail=Tail.constant(EU_inf[j]),
        )
        for j in range(len(EU))
    )
    return Payoff(
        bank=partial(_bank_from, U, U_inf, p, m),
        zilch=_at(U, U_inf, np.array([zx]))[:, 0],
        tail=Tail.constant(U_inf, start=max(H - p, m - p, 0)),
        permanent=Permanent(sources=sources),
        extras=extras,
    )


def _at(arr: np.ndarray, inf: np.ndarray, x: np.ndarray) -> np.ndarray:
    """arr (B, H) at the points added x, inf (B,) past H: (B, len(x))."""
    return np.where(
        x[None, :] < arr.shape[1], arr[:, np.minimum(x, arr.shape[1] - 1)], inf[:, None]
    )


def _bank_at(arr: np.ndarray, inf: np.ndarray, p: int, r: np.ndarray) -> np.ndarray:
    """Banking with r units at risk on level p (units) is worth arr at r + p."""
    return _at(arr, inf, r + p)


def _bank_from(arr: np.ndarray, inf: np.ndarray, p: int, m: int, r: np.ndarray) -> np.ndarray:
    """As _bank_at, where at least m units (the minimum) are banked."""
    return np.where(r[None, :] + p >= m, _at(arr, inf, r + p), -np.inf)
