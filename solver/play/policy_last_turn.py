"""A fixed policy's last turn: its own choices of dice, banking as soon as its score beats
the leader's, and its exact chance for every deficit at once.

In a final round a bank that does not beat the leader loses at once and one that does wins
at once, so every policy plays its last turn to the same stopping rule: roll until the
total beats the deficit (and meets the rules' minimum), then bank; a tie is rolled on.
What still differs is which dice it keeps: the card's choices (by expected points), or a
policy file's set-aside rule (docs/policies.md).  The optimal last turn is the end-game's
(objectives/last_turn.py); this is the same question for a policy that does not optimise.

Backward over the turn's states for all deficits d at once (rows): V[d, s, r] is the chance
of beating d from state s with r units at risk, on the level of p permanent units; levels
from the top down (a permanent choice leads one level up), totals r from the top down (every
choice adds at least one unit, or permanent points).  Past the deficits and the policy's own
settling point (`Policy.fixed_past`) every free state banks and wins, and the must-roll
state (mandatory hot dice) has a constant chance, solved in closed form; at a level whose
permanent points alone beat every deficit, everything wins.
"""

from __future__ import annotations

import numpy as np

from ..outcomes.model import TurnModel
from .policies import Policy

CHUNK_BYTES = 64 << 20  # one block of deficits' values at a time


def beat_chances(
    model: TurnModel, policy: Policy, deficits: np.ndarray, on_board: bool
) -> np.ndarray:
    """P(beat d) + tie * P(end on d) of a last turn played by `policy` (a compiled one:
    its choices, not its banks) against each deficit d (units).  The deficits are solved in
    blocks of similar size, each on a grid of totals no longer than its largest needs (the
    rows are independent): memory stays bounded and the work is about half a square."""
    d = np.asarray(deficits, np.int64)
    order = np.argsort(d, kind="stable")
    L = int(d.max(initial=0)) + policy.fixed_past + 2 * model.max_shift + 2
    rows = max(8, CHUNK_BYTES // (8 * model.states * L))
    out = np.empty(len(d))
    for lo in range(0, len(d), rows):
        sel = order[lo : lo + rows]
        out[sel] = _beat(model, policy, d[sel], on_board)
    return out


def _beat(model: TurnModel, policy: Policy, d: np.ndarray, on_board: bool) -> np.ndarray:
    rules = model.rules
    low = rules.min_bank_units(on_board)
    need = np.maximum(d + 1, low)  # the smallest total that wins (and may be banked)
    step = rules.perm_step or 0
    top_need = int(need.max())
    reach = int(model.perm.max())  # a choice climbs at most this many permanent units
    done: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for p in reversed(range(0, top_need, step) if step else [0]):
        done[p] = _level(model, policy, d, need, p, low, done, top_need)
        if step:  # no choice from below reaches that level
            done.pop(p + reach + step, None)
    return done[0][0][:, 0, 0]


def _level(
    model: TurnModel,
    policy: Policy,
    d: np.ndarray,
    need: np.ndarray,
    p: int,
    low: int,
    done: dict[int, tuple[np.ndarray, np.ndarray]],
    top_need: int,
) -> tuple[np.ndarray, np.ndarray]:
    """(V (rows, S, L), c (rows,)) on level p: c the must-roll state's chance past the grid
    (V holds it there too).  done: the levels above, by permanent units."""
    rules = model.rules
    B, S = len(d), model.states
    free = np.arange(S) != 0
    top = max(top_need - p, policy.fixed_past) + 1  # from here on: constants
    L = top + model.max_shift + 1
    rec = p if p >= low else 0  # a zilch records p where it meets the minimum
    zval = np.where(rec > d, 1.0, np.where(rec == d, rules.tie, 0.0))
    pz = model.p_zilch[1:]

    def gather(V: np.ndarray, tgt: np.ndarray, r2: np.ndarray, pm: np.ndarray) -> np.ndarray:
        """Values (rows, len(tgt)) of the states after the choices: on this level from V,
        a permanent choice's on its level (past its grid: its constants)."""
        vals = np.empty((B, len(tgt)))
        for units in np.unique(pm):
            k = pm == units
            if not units:
                vals[:, k] = V[:, tgt[k], r2[k]]
            elif p + units >= top_need:  # its permanent points alone beat every deficit
                vals[:, k] = 1.0
            else:
                Vu, cu = done[p + int(units)]
                t, rr = tgt[k], r2[k]
                inside = rr < Vu.shape[2]
                got = np.where(free[t], 1.0, cu[:, None])
                got[:, inside] = Vu[:, t[inside], rr[inside]]
                vals[:, k] = got
        return vals

    V = np.empty((B, S, L))
    V[:, free, top:] = 1.0  # free states bank and win
    # past the grid the must-roll state rolls all dice again: c = known + P(hot again) c
    ch = policy.choose(model, None, top, p)
    hot = np.nonzero(model.out_group == model.zero_group)[0]
    tgt, pm, prob = model.target[ch[hot]], model.perm[ch[hot]], model.prob[hot]
    again = (pm == 0) & ~free[tgt]
    V[:, 0, top:] = 0.0  # (again: counted as 0 here, then solved for)
    known = gather(V, tgt, top + model.shift[ch[hot]], pm) @ prob
    c = (known + pz[model.zero_group] * zval) / (1.0 - prob[again].sum())
    V[:, 0, top:] = c[:, None]
    for r in range(top - 1, -1, -1):
        ch = policy.choose(model, None, r, p)
        vals = gather(V, model.target[ch], r + model.shift[ch], model.perm[ch])
        roll = np.add.reduceat(vals * model.prob, model.out_start, axis=1) + pz * zval[:, None]
        wins = free[None, :] & (r + p >= need)[:, None]
        V[:, :, r] = np.where(wins, 1.0, roll[:, model.state_group])
    return V, c
