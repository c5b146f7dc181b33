"""The compiled solver kernel (numba): imported only when a table is solved, never by a
query.  Compiled functions are cached on disk by numba (cache=True), so only the first
solve on a machine pays for compilation; where no cache folder is writable (no writable
home, a read-only install) they are compiled in memory instead, each process anew."""

import types

import numba
import numpy as np

from . import widget as W


def jit(fn=None, **options):
    """numba.njit with its disk cache where numba finds a folder for it, else without."""
    if fn is None:
        return lambda f: jit(f, **options)
    try:
        return numba.njit(cache=True, **options)(fn)
    except RuntimeError:  # "cannot cache function ...: no locator available"
        return numba.njit(cache=False, **options)(fn)


def compiled(fn, **options):
    """fn compiled, with the helpers it calls (HELPERS: the widget module's) compiled too
    (numba reads a function's globals when it compiles it)."""
    scope = dict(fn.__globals__, **HELPERS)
    return jit(types.FunctionType(fn.__code__, scope, fn.__name__), **options)


HELPERS = {}
HELPERS["first_open"] = jit(W.first_open, inline="always")
HELPERS["box_move"] = jit(W.box_move, inline="always")
HELPERS["best_keeps"] = jit(W.best_keeps)
HELPERS["roll_rest"] = jit(W.roll_rest)
_widget = compiled(W.widget, nogil=True)
HELPERS["widget"] = _widget


@jit(parallel=True)
def level(
    states,
    E,
    base,
    upper_face,
    joker,
    five,
    ybox,
    joker_mode,
    upper_bonus,
    threshold,
    ybonus,
    forced,
    add,
    remove,
    roll_keep,
    size_start,
):
    """E[mask, up, yf] for every state of one level, in parallel."""
    nb, n_out, nk = base.shape[0], base.shape[1], add.shape[0]
    for i in numba.prange(states.shape[0]):
        mask, up, yf = states[i, 0], states[i, 1], states[i, 2]
        VB = np.empty((n_out, nb))
        A1 = np.empty(nk)
        A2 = np.empty(nk)
        E[mask, up, yf] = _widget(
            mask,
            up,
            yf,
            E,
            base,
            upper_face,
            joker,
            five,
            ybox,
            joker_mode,
            upper_bonus,
            threshold,
            ybonus,
            forced,
            add,
            remove,
            roll_keep,
            size_start,
            VB,
            A1,
            A2,
        )


@jit(parallel=True)
def batch(
    states,
    E,
    base,
    upper_face,
    joker,
    five,
    ybox,
    joker_mode,
    upper_bonus,
    threshold,
    ybonus,
    forced,
    add,
    remove,
    roll_keep,
    size_start,
    VB,
    A1,
    A2,
):
    """The widget's outputs (VB, A1, A2) for many states at once (the simulator)."""
    for i in numba.prange(states.shape[0]):
        _widget(
            states[i, 0],
            states[i, 1],
            states[i, 2],
            E,
            base,
            upper_face,
            joker,
            five,
            ybox,
            joker_mode,
            upper_bonus,
            threshold,
            ybonus,
            forced,
            add,
            remove,
            roll_keep,
            size_start,
            VB[i],
            A1[i],
            A2[i],
        )
