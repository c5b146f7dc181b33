"""The compiled solver kernel (numba): imported only when a table is solved, never by a
query.  Compiled functions are cached on disk by numba (cache=True), so only the first
solve on a machine pays for compilation; where no cache folder is writable (no writable
home, a read-only install) they are compiled in memory instead, each process anew."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from . import widget as W
from .widget import RuleArrays


def jit(fn: Callable | None = None, **options: Any) -> Any:
    """numba.njit with its disk cache where numba finds a folder for it, else without."""
    if fn is None:
        return lambda f: jit(f, **options)
    try:
        return numba.njit(cache=True, **options)(fn)
    except RuntimeError:  # "cannot cache function ...: no locator available"
        return numba.njit(cache=False, **options)(fn)


def compiled(fn: Callable, **options: Any) -> Any:
    """fn compiled, with the helpers it calls (HELPERS: the widget module's) compiled too
    (numba reads a function's globals when it compiles it): register a helper before the
    functions that call it."""
    scope = dict(fn.__globals__, **HELPERS)
    return jit(types.FunctionType(fn.__code__, scope, fn.__name__), **options)


HELPERS: dict[str, Any] = {}
# the widget's helpers, each after those it calls; the two smallest inlined in their callers
for name in ("first_open", "upper_step"):
    HELPERS[name] = compiled(getattr(W, name), inline="always")
for name in (
    "forced_joker",
    "extra_points",
    "score_hands",
    "score_extras",
    "roll_means",
    "keep_roll",
    "best_keeps",
    "roll_rest",
):
    HELPERS[name] = compiled(getattr(W, name))
widget = compiled(W.widget, nogil=True)
HELPERS["widget"] = widget


@jit(parallel=True)
def level(states: np.ndarray, E: np.ndarray, r: RuleArrays) -> None:
    """E[mask, up, yf] for every state of one level, in parallel."""
    nb, n_out, nk = r.base.shape[0], r.base.shape[1], r.add.shape[0]
    for i in numba.prange(states.shape[0]):
        mask, up, yf = states[i, 0], states[i, 1], states[i, 2]
        VB = np.empty((n_out, nb))
        A1 = np.empty(nk)
        A2 = np.empty(nk)
        E[mask, up, yf] = widget(mask, up, yf, E, r, VB, A1, A2)


@jit(parallel=True)
def batch(
    states: np.ndarray,
    E: np.ndarray,
    r: RuleArrays,
    VB: np.ndarray,
    A1: np.ndarray,
    A2: np.ndarray,
) -> None:
    """The widget's outputs (VB, A1, A2) for many states at once (the simulator)."""
    for i in numba.prange(states.shape[0]):
        widget(states[i, 0], states[i, 1], states[i, 2], E, r, VB[i], A1[i], A2[i])
