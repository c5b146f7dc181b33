"""Which states a turn can reach: reach[s, r] (s: the state, r: units at risk)."""

from __future__ import annotations

import numpy as np

from ..outcomes.model import TurnModel


def sweep(model: TurnModel, length: int, held: bool = False) -> np.ndarray:
    """reach[s, r] for r < length, of turns without permanent points (held: of turns that
    hold some): a forward sweep from the start (farkle to 512 units: 3 ms; the store keeps it)."""
    S = model.states
    H = model.max_shift
    width = length + H + 1
    plain = np.zeros((S, width), bool)
    holding = np.zeros((S, width), bool)
    plain[0, 0] = True

    def moves(s: int, permanent: bool) -> np.ndarray:  # (2, moves): target, shift
        sel = (model.out_group[model.opt_outcome] == model.state_group[s]) & (
            (model.perm > 0) if permanent else (model.perm == 0)
        )
        # distinct (target, shift) pairs by a mark per pair: np.unique would import numpy.ma
        # (~11 ms of a cold query process)
        mark = np.zeros((S, H + 1), bool)
        mark[model.target[sel], model.shift[sel]] = True
        return np.stack(np.nonzero(mark))

    own = [moves(s, False) for s in range(S)]
    if not held and all(h.min(initial=1) > 0 for _, h in own):
        return _forward(own, S, width, H, length)
    perm = [moves(s, True) for s in range(S)]
    for r in range(length):
        for state in np.nonzero(plain[:, r])[0].tolist():
            t, h = own[state]
            plain[t, r + h] = True
            t, h = perm[state]
            holding[t, r + h] = True
        if held:  # a permanent choice may add nothing at risk: close over r first
            todo = [int(x) for x in np.nonzero(holding[:, r])[0]]
            done: set[int] = set()
            while todo:
                state = todo.pop()
                if state in done:
                    continue
                done.add(state)
                for t, h in (own[state], perm[state]):
                    holding[t, r + h] = True
                    todo += [int(x) for x in t[h == 0]]
    return (holding if held else plain)[:, :length]


def _forward(own: list[np.ndarray], S: int, width: int, H: int, length: int) -> np.ndarray:
    """sweep's plain reach, a total at a time: every move (state s to t adding h units) in
    flat arrays; the states reached at r mark their moves' r + h at once (one fancy index a
    total: a few microseconds, whatever H; the former S x S(H + 1) product a total took
    ~26 minutes for a rule set of unit 1 with pyramiding, issue 36 item 4)."""
    src = np.concatenate([np.full(len(t), s, np.int64) for s, (t, _) in enumerate(own)])
    to = np.concatenate([t for t, _ in own]).astype(np.int64)
    adds = np.concatenate([h for _, h in own]).astype(np.int64)
    plain = np.zeros((S, width), bool)
    plain[0, 0] = True
    flat = plain.reshape(-1)  # (a view: marks land in plain)
    base = to * width + adds
    for r in range(length):
        v = plain[:, r]
        if v.any():
            flat[base[v[src]] + r] = True
    return plain[:, :length]


def bucket(length: int) -> int:
    """Sweeps are stored at powers of two: one serves every length up to it."""
    return 1 << max(length - 1, 1).bit_length()
