"""The threshold tables' level kernel compiled by numba (threshold_widget.py): only where the
C kernel (_threshold.c) was not built.  Compiled on first use, cached on disk."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from . import threshold_widget as TW
from .numba_kernel import HELPERS as WIDGET_HELPERS
from .numba_kernel import jit
from .widget import RuleArrays

HELPERS: dict[str, Any] = dict(WIDGET_HELPERS)


def compiled(fn: Callable, **options: Any) -> Any:
    """fn compiled with the helpers it calls (numba reads a function's globals)."""
    scope = dict(fn.__globals__, **HELPERS)
    return jit(types.FunctionType(fn.__code__, scope, fn.__name__), **options)


for name in ("at", "move", "score_block", "roll_means", "keep_roll", "twidget"):
    HELPERS[name] = compiled(getattr(TW, name))
for name in ("box_values", "box_span"):
    HELPERS[name] = compiled(getattr(TW, name))
twidget = HELPERS["twidget"]
box_span = HELPERS["box_span"]


@jit(parallel=True)
def level(
    states: np.ndarray,
    data: np.ndarray,
    off: np.ndarray,
    index: np.ndarray,
    next_off: np.ndarray,
    next_data: np.ndarray,
    r: RuleArrays,
    lo: int,
    block: int,
) -> None:
    """Every state's vector of one level (threshold_widget.twidget), block by block of t."""
    nk = r.add.shape[0]
    nxt = (index, next_off, next_data)
    for i in numba.prange(states.shape[0]):
        A1 = np.empty((nk, block))
        A2 = np.empty((nk, block))
        out = np.empty(block)
        n = off[i + 1] - off[i]
        for start in range(0, n, block):
            twidget(states[i, 0], states[i, 1], states[i, 2], lo + start, r, nxt, lo, A1, A2, out)
            for j in range(min(block, n - start)):
                data[off[i] + start + j] = out[j]
