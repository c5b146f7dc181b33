"""Exact evaluation of any strategy: the distribution of the points a turn records.

A forward pass over the turn's states (permanent units p ascending, then at-risk units r
ascending: both only grow) carries probability mass from the start state; mass that banks
or zilches lands on the recorded total.  It stops when the mass still in play is below
1e-18 (reported as `residual`), so the probabilities sum to 1 within that.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..outcomes.model import TurnModel
from ..rules import RuleSet
from ..turn import TurnState
from .policies import Policy

RESIDUAL = 1e-18
# (permanent level, at-risk total) pairs a pass carries mass through before the policy is
# refused as too slow to end: zilch-online's optimal turn needs 38 126, a policy that never
# banks there runs on past a million (its permanent points only grow until a zilch)
MAX_CELLS = 200_000


@dataclass(frozen=True)
class Distribution:
    totals: np.ndarray  # recorded points, ascending
    probs: np.ndarray
    p_zilch: float  # probability the turn ends in a zilch
    residual: float  # mass left in play when the pass stopped

    @property
    def mean(self) -> float:
        return float(self.totals @ self.probs)

    @property
    def std(self) -> float:
        return float(np.sqrt(max((self.totals**2) @ self.probs - self.mean**2, 0.0)))

    def quantile(self, q: float) -> int:
        c = np.cumsum(self.probs)
        return int(self.totals[min(int(np.searchsorted(c, q - 1e-15)), len(c) - 1)])

    def as_dict(self) -> dict[int, float]:
        return {int(t): float(p) for t, p in zip(self.totals, self.probs)}


def evaluate(
    model: TurnModel,
    policy: Policy,
    on_board: bool = True,
    state: TurnState | None = None,
    penalty: tuple[int, int] = (0, 0),
) -> Distribution:
    """The distribution of the points recorded by a turn played by `policy` from `state`
    (default: a fresh turn); penalty: points a zilch costs on top (the third in a row), as
    it records nothing and as it records permanent points (the player is then on the
    board)."""
    rules = model.rules
    S, u = model.states, rules.unit
    min_bank = rules.min_bank(on_board)
    state = TurnState(rules.dice) if state is None else state
    s0, r0, p0 = state.index(rules), state.at_risk(rules), state.permanent // u
    mass: dict[int, np.ndarray] = {p0: np.zeros((S, r0 + 64))}
    mass[p0][s0, r0] = 1.0
    dist: dict[int, float] = {}
    p_zilch = 0.0
    remaining = 1.0
    cells = 0
    while mass and remaining > RESIDUAL:
        p = min(mass)
        M = mass.pop(p)
        r = 0
        while r < M.shape[1]:
            m = M[:, r]
            if not m.any():
                r += 1
                continue
            bank = policy.banks(np.arange(S), np.full(S, r), np.full(S, p))
            banked = m[bank].sum()
            if banked:
                t = (r + p) * u
                dist[t] = dist.get(t, 0.0) + banked
                remaining -= banked
            mr = np.where(bank, 0.0, m)
            mn = mr[1:].copy()  # mass by group: state 0 rolls state N's
            mn[model.zero_group] += mr[0]
            z = mn @ model.p_zilch[1:]
            if z:
                rec = _zilch_record(p * u, min_bank, penalty)
                dist[rec] = dist.get(rec, 0.0) + z
                p_zilch += z
                remaining -= z
            om = mn[model.out_group] * model.prob
            live = om > 0
            if live.any():
                cells = _counted(cells, rules, r + p, remaining)
                M = _carry(model, policy, M, mass, r, p, om, live)
            M[:, r] = 0.0
            r += 1
            if remaining <= RESIDUAL:
                break
    totals = np.array(sorted(dist), dtype=np.int64)
    probs = np.array([dist[t] for t in totals])
    return Distribution(totals, probs, float(p_zilch), float(max(remaining, 0.0)))


def _zilch_record(permanent: int, min_bank: int, penalty: tuple[int, int]) -> int:
    """What a zilch records: the permanent points where they meet the minimum, less the
    penalty (penalty[1] where it records them, penalty[0] where it records nothing)."""
    rec = permanent if permanent >= min_bank else 0
    return rec - (penalty[1] if rec else penalty[0])


def _counted(cells: int, rules: RuleSet, units: int, remaining: float) -> int:
    """One more cell of mass carried on; past MAX_CELLS the turn is refused as endless."""
    if cells + 1 > MAX_CELLS:
        raise InputError(_too_long(rules, units, remaining))
    return cells + 1


def _too_long(rules: RuleSet, units: int, remaining: float) -> str:
    return (
        f"this policy's turn is still going at {units * rules.unit} points with probability "
        f"{remaining:.1e} after {MAX_CELLS} of its states: it banks too rarely (or never: then "
        "only a zilch ends a turn) for its distribution to be summed exactly; give it bank "
        "thresholds that turns reach"
    )


def _carry(
    model: TurnModel,
    policy: Policy,
    M: np.ndarray,
    mass: dict[int, np.ndarray],
    r: int,
    p: int,
    om: np.ndarray,
    live: np.ndarray,
) -> np.ndarray:
    """The mass om (by outcome; live: where it is not 0) rolled at (r, p) carried to the
    states its choices lead to: on level p into M, on a level above into `mass` (new, or
    grown where too short); returns M (grown where too short)."""
    S = model.states
    pick = policy.choose(model, None, r, p)
    tgt, r2, p2 = model.target[pick], r + model.shift[pick], p + model.perm[pick]
    for pp in np.unique(p2[live]):
        sel = live & (p2 == pp)
        dest = M if pp == p else mass.setdefault(int(pp), np.zeros((S, 64)))
        need = int(r2[sel].max()) + 1
        if need > dest.shape[1]:
            grown = np.zeros((S, max(need, 2 * dest.shape[1])))
            grown[:, : dest.shape[1]] = dest
            dest = grown
            if pp == p:
                M = dest
            else:
                mass[int(pp)] = dest
        np.add.at(dest, (tgt[sel], r2[sel]), om[sel])
    return M
