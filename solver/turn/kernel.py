"""The compiled backward pass (_kernel.c, built by pip install) and its helpers.

The extension is optional: without a C compiler the package installs without it and the
callers run the same loop in numpy (``compiled`` returns None).
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np


def threads(work: int) -> int:
    """Threads for a backward pass of `work` (row, total) pairs: its rows are independent,
    so every core this process may use shares them, once the pass is big enough to
    repay starting them (~0.1 ms)."""
    if work < 20_000:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cap = os.environ.get("DICESOLVER_THREADS", "")  # a cluster's worker: one thread each
    return max(1, min(cores or 1, 8, int(cap) if cap.isdigit() and int(cap) else 8))


def lanes() -> bool:
    """Whether game_starts may solve its rows four at a time (AVX2 lanes, where the CPU has
    it: the same bits as one at a time); DICESOLVER_LANES=0 turns it off (the comparison)."""
    return os.environ.get("DICESOLVER_LANES", "1") != "0"


def compiled(name: str = "backward") -> Callable[..., None] | None:
    """A function of solver/_kernel.c (built at install), or None: numpy does it instead."""
    try:
        from . import _kernel
    except ImportError:  # installed without a C compiler
        return None
    return getattr(_kernel, name)


def copy_runs(
    dst: np.ndarray,
    dpos: np.ndarray,
    src: np.ndarray,
    spos: np.ndarray,
    n: np.ndarray,
    zsrc: np.ndarray | None = None,
    coef: np.ndarray | None = None,
) -> None:
    """dst[dpos[t] + i] = src[spos[t] + i] (+ coef[t] * zsrc[spos[t] + i]) for i < n[t]:
    rows of different lengths moved as whole runs (flat float64 arrays; C where built)."""
    args = [np.ascontiguousarray(x, np.int64) for x in (dpos, spos, n)]
    extra: tuple = () if zsrc is None else (zsrc, np.ascontiguousarray(coef, float))
    fn = compiled("copy_runs")
    if fn is not None:
        fn(dst, args[0], src, args[1], args[2], *extra)
        return
    dp, sp, nn = args
    t = np.repeat(np.arange(len(nn)), nn)
    i = np.arange(len(t)) - np.repeat(np.cumsum(nn) - nn, nn)
    v = src[sp[t] + i]
    dst[dp[t] + i] = v if zsrc is None else v + extra[1][t] * zsrc[sp[t] + i]
