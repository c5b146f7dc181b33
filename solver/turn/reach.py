"""Which states a turn can reach: reach[s, r] for turns without permanent points."""

from __future__ import annotations

import numpy as np

from ..outcomes.model import TurnModel


def sweep(model: TurnModel, length: int) -> np.ndarray:
    """reach[s, r] for r < length: a forward sweep from the start (~40 ms in Python; the
    store keeps it)."""
    S = model.states
    reach = np.zeros((S, length + model.max_shift + 1), bool)
    reach[0, 0] = True
    moves = []
    for s in range(S):
        sel = (model.out_dice[model.opt_outcome] == model.roll_dice(s)) & (model.perm == 0)
        moves.append(np.unique(np.stack([model.target[sel], model.shift[sel]]), axis=1))
    for r in range(length):
        for state in np.nonzero(reach[:, r])[0]:
            t, h = moves[state]
            reach[t, r + h] = True
    return reach[:, :length]


def bucket(length: int) -> int:
    """Sweeps are stored at powers of two: one serves every length up to it."""
    return 1 << max(length - 1, 1).bit_length()
