"""The turn of a fixed strategy in the exact two-player game (duel_eval.py), compiled by
numba (cached on disk, as numba_kernel.py's): one mover sheet's columns (the other's sheet,
the score difference) in blocks of B, in parallel.

Each column's turn chooses by the strategy's criterion (ties by the expected score: the
larger tie key, then the first option) and carries the evaluations of the chosen options:
  boxes   leaf l (hand leaf_o[l] in box leaf_x[l]) has criterion CR[leaf_u[l], c], tie key
          VB[o, x] and evaluation EV[ch, leaf_u[l], c] per channel ch (one per opponent's
          strategy evaluated at once: the choices are the same, the values differ)
  keeps   criterion by mode: 0 the mean of the chosen options' criteria (the optimum: the
          exact game's values roll back as they do in the solve), 1 none (expected-score
          play: the tie key alone), 2 given (K[rolls - 1]: the heuristic's sums); tie key
          At[rolls - 1]; evaluations the mean of the chosen options'
out[ch, c] is each channel's value of the turn: the hands' mean of the chosen options'.
"""

from __future__ import annotations

import numba
import numpy as np

from .numba_kernel import jit
from .widget import RuleArrays

B = 16  # columns a block


@jit
def choose_leaves(
    c0: int,
    w: int,
    leaf_o: np.ndarray,
    leaf_x: np.ndarray,
    leaf_u: np.ndarray,
    CR: np.ndarray,
    VB: np.ndarray,
    Fc: np.ndarray,
    Ft: np.ndarray,
    lf: np.ndarray,
) -> None:
    """Per hand and column the chosen leaf (its criterion, tie key, index)."""
    Fc[:, :w] = -np.inf
    Ft[:, :w] = -np.inf
    for k in range(leaf_o.shape[0]):
        o, u = leaf_o[k], leaf_u[k]
        tk = VB[o, leaf_x[k]]
        for c in range(w):
            cc = CR[u, c0 + c]
            if cc > Fc[o, c] or (cc == Fc[o, c] and tk > Ft[o, c]):
                Fc[o, c] = cc
                Ft[o, c] = tk
                lf[o, c] = k


@jit
def roll_back(F: np.ndarray, A: np.ndarray, r: RuleArrays, w: int) -> None:
    """A[k] for every keep: the hands' F at the keeps of all the dice, then the mean over
    one more die (threshold_widget.roll_means)."""
    for o in range(r.roll_keep.shape[0]):
        for c in range(w):
            A[r.roll_keep[o], c] = F[o, c]
    last = r.size_start[r.size_start.shape[0] - 2]
    for k in range(last - 1, -1, -1):
        for c in range(w):
            s = 0.0
            for f in range(6):
                s += A[r.add[k, f], c]
            A[k, c] = s / 6.0


@jit
def chain(
    Ac: np.ndarray,
    At: np.ndarray,
    remove: np.ndarray,
    Mc: np.ndarray,
    Mt: np.ndarray,
    arg: np.ndarray,
    w: int,
) -> None:
    """arg[k, c]: the keep chosen from keep k (itself or one of its sub-keeps, the largest
    criterion, then tie key, then the first), Mc and Mt its criterion and tie key."""
    for k in range(remove.shape[0]):
        for c in range(w):
            Mc[k, c] = Ac[k, c]
            Mt[k, c] = At[k]
            arg[k, c] = k
        for f in range(6):
            q = remove[k, f]
            if q < 0:
                continue
            for c in range(w):
                if Mc[q, c] > Mc[k, c] or (Mc[q, c] == Mc[k, c] and Mt[q, c] > Mt[k, c]):
                    Mc[k, c] = Mc[q, c]
                    Mt[k, c] = Mt[q, c]
                    arg[k, c] = arg[q, c]


@jit
def follow(F: np.ndarray, A: np.ndarray, arg: np.ndarray, r: RuleArrays, w: int) -> None:
    """One roll back of an evaluation along the chosen keeps: F[o] = the mean at the keep
    chosen from hand o."""
    roll_back(F, A, r, w)
    for o in range(r.roll_keep.shape[0]):
        k = r.roll_keep[o]
        for c in range(w):
            F[o, c] = A[arg[k, c], c]


@jit
def keep_crits(
    mode: int, Fc: np.ndarray, K: np.ndarray, c0: int, r: RuleArrays, w: int, Ac: np.ndarray
) -> None:
    """Ac[k, c]: every keep's criterion by the mode (module docstring)."""
    if mode == 0:
        roll_back(Fc, Ac, r, w)
    elif mode == 1:
        Ac[:, :] = 0.0
    else:
        for k in range(Ac.shape[0]):
            for c in range(w):
                Ac[k, c] = K[k, c0 + c]


@jit
def block(
    c0: int,
    leaves: tuple[np.ndarray, np.ndarray, np.ndarray],
    CR: np.ndarray,
    EV: np.ndarray,
    K: np.ndarray,
    ties: tuple[np.ndarray, np.ndarray],
    mode: int,
    r: RuleArrays,
    out: np.ndarray,
) -> None:
    """Columns c0 .. c0 + B - 1 (fewer at the end) of turns()."""
    leaf_o, leaf_x, leaf_u = leaves
    VB, At = ties
    w = min(B, CR.shape[1] - c0)
    nh, nk, nch = r.roll_keep.shape[0], r.add.shape[0], EV.shape[0]
    Fc, Ft = np.empty((nh, B)), np.empty((nh, B))
    lf = np.zeros((nh, B), np.int64)
    choose_leaves(c0, w, leaf_o, leaf_x, leaf_u, CR, VB, Fc, Ft, lf)
    Fe = np.empty((nch, nh, B))
    for ch in range(nch):
        for o in range(nh):
            for c in range(w):
                Fe[ch, o, c] = EV[ch, leaf_u[lf[o, c]], c0 + c]
    Ac, Ae, Mc, Mt = np.empty((nk, B)), np.empty((nk, B)), np.empty((nk, B)), np.empty((nk, B))
    arg = np.empty((nk, B), np.int64)
    for rolls in range(2):
        keep_crits(mode, Fc, K[rolls], c0, r, w, Ac)
        chain(Ac, At[rolls], r.remove, Mc, Mt, arg, w)
        for o in range(nh):
            for c in range(w):
                Fc[o, c] = Mc[r.roll_keep[o], c]
        for ch in range(nch):
            follow(Fe[ch], Ae, arg, r, w)
    for ch in range(nch):
        for c in range(w):
            s = 0.0
            for o in range(nh):
                s += r.roll_prob[o] * Fe[ch, o, c]
            out[ch, c0 + c] = s


@jit(parallel=True)
def turns(
    leaves: tuple[np.ndarray, np.ndarray, np.ndarray],
    CR: np.ndarray,
    EV: np.ndarray,
    K: np.ndarray,
    ties: tuple[np.ndarray, np.ndarray],
    mode: int,
    r: RuleArrays,
    out: np.ndarray,
) -> None:
    """out[ch, c]: every column's turn (module docstring), blocks in parallel."""
    n = (CR.shape[1] + B - 1) // B
    for i in numba.prange(n):
        block(i * B, leaves, CR, EV, K, ties, mode, r, out)


@jit
def beat_sums(
    p: np.ndarray, data: np.ndarray, start: int, n: int, v0: int, out: np.ndarray
) -> None:
    """out[k] = sum over x of p[x] W(x + v0 + k), W a beat-table row (data[start:start +
    n] at 0 .. n - 1; 1 below, 0 past it): the heuristic's value of a box scored, at every
    score difference of one other sheet."""
    for k in range(out.shape[0]):
        s = 0.0
        for x in range(p.shape[0]):
            y = x + v0 + k
            if y < 0:
                s += p[x]
            elif y < n:
                s += p[x] * data[start + y]
        out[k] = s
