"""The last turn of a game: P(win) against every deficit, and reaching a target this turn.

A last turn is the turn solver over the points x it adds (turn/levels.py) with the payoff
"1 if x beats the deficit, the tie value if it equals it, else 0", batched over every
deficit at once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..limits import MAX_UNITS, check_memory
from ..outcomes.model import TurnModel
from ..rules import RuleSet
from ..turn import StateValues, TurnLevels, TurnState, solve_levels
from ..turn.starts import solve_starts, turn_cuts

# Leader scores (final round) and deficits (game) are truncated where every player's chance
# of getting there is below this (computed by reach_bound, not assumed).
TRUNCATION = 1e-13


def last_turn_payoff(tie: float, deficits: np.ndarray, H: int) -> np.ndarray:
    """U[d, x] = 1 if x > d, the tie value if x == d, else 0 (units)."""
    x = np.arange(H)[None, :]
    d = deficits[:, None]
    return np.where(x > d, 1.0, np.where(x == d, tie, 0.0))


def solve_last_turn(
    model: TurnModel, deficits: np.ndarray | Sequence[int], on_board: bool = True, tied: int = 1
) -> TurnLevels:
    """P(win) of a last turn against each deficit (points, multiples of the unit), behind
    `tied` leaders (ending level with them shares the win among tied + 1 players)."""
    rules = model.rules
    d = np.asarray(deficits, dtype=np.int64) // rules.unit
    H = int(d.max()) + 1
    U = last_turn_payoff(rules.share(tied + 1), d, H)
    return solve_levels(model, U, np.ones(len(d)), on_board)


# Bytes a last-turn solve takes per (deficit, turn state, turn total) of its grid, at its peak
# (the chunks' solutions, their concatenation and its reordering, float64): measured 45 on
# zilch-pyramiding (1 973 deficits, 82 states, 2 077 totals: 15.2 GB peak resident)
LAST_TURN_BYTES = 48.0
BATCH_BYTES = 1e9  # at most this much for one batch of a last turns' starts (last_turn_starts)


def last_turn_bytes(model: TurnModel, rows: int, deficit: int) -> float:
    """The peak memory of solve_last_turn for `rows` deficits up to `deficit` units, an
    upper estimate: its grid goes to the deficit and a roll past it; each level of
    permanent points adds a quarter (rows repeat at the levels above and are solved once:
    zilch-online to 5000, 17 levels, measured 349 MB against this 410 MB)."""
    step = model.rules.perm_step
    levels = 1 + (math.ceil((deficit + 1) / step) / 4 if step else 0)
    return LAST_TURN_BYTES * rows * model.states * (deficit + model.max_shift + 2) * levels


def last_turn_starts(model: TurnModel, U: np.ndarray, on_board: bool) -> np.ndarray:
    """P(win) at the start of last turns whose payoffs are U (B, H) over the points added
    (1 beyond H: past the deficit the turn has won), what a game solve reads of them: the
    start values alone (turn.starts, in C) where the rules have no permanent points, else
    the levels' whole solution — in batches of rows where one solve would take more than
    BATCH_BYTES (zilch-pyramiding: 15 GB for its 1 973 deficits; a batch's values agree
    with the one solve's to an ulp, its grid being its own)."""
    rules = model.rules
    B, H = U.shape
    if not rules.has_permanent:
        U1 = np.concatenate([U, np.ones((B, 1))], axis=1)  # (a cut at H is inside the grid)
        z = U[:, 0]  # a zilch adds nothing
        mins = np.full(B, rules.min_bank_units(on_board))
        stops = np.clip(turn_cuts(model, U1, z, mins), 1, H)
        got = solve_starts(model, U1, z, mins, stops, np.zeros((0, B, 1)), np.zeros((0, B)))
        if got is not None:
            return got[0]
    # (a copy: a view would keep the whole solution alive)
    start = lambda u: solve_levels(model, u, np.ones(len(u)), on_board)[0].roll[:, 0, 0].copy()  # noqa: E731
    n = max(1, int(BATCH_BYTES // last_turn_bytes(model, 1, H - 1)))
    if B <= n:
        return start(U)
    return np.concatenate([start(U[i : i + n]) for i in range(0, B, n)])


def last_turn_start(model: TurnModel, deficits: np.ndarray, on_board: bool = True) -> np.ndarray:
    """P(win) at the start of a last turn (all dice, nothing at risk) against each deficit
    (points), behind one leader: solve_last_turn(...)[0].roll[:, 0, 0] (last_turn_starts)."""
    rules = model.rules
    d = np.asarray(deficits, dtype=np.int64) // rules.unit
    return last_turn_starts(model, last_turn_payoff(rules.share(2), d, int(d.max()) + 1), on_board)


def reach_target_turn(model: TurnModel, need: int, on_board: bool) -> TurnLevels:
    """P(a turn adds at least `need` points): where reaching a target wins at once."""
    u = model.unit
    H = max(need // u, 0) + 1
    U = (np.arange(H) >= need // u).astype(float)[None, :]
    return solve_levels(model, U, np.ones(1), on_board)


def reach_bound(model: TurnModel, eps: float = TRUNCATION) -> int:
    """Units D such that no turn, however played, adds more than D units with probability
    above eps (from the best "beat D" play)."""
    rules = model.rules
    model.check_bounded()
    D = 64
    while True:
        levels = solve_last_turn(model, [D * rules.unit], on_board=True)
        if levels[0].roll[0, 0, 0] < eps:
            # the chance to beat a deficit only falls as it grows: bisect down to the smallest
            lo, hi = D // 2, D
            while hi - lo > 8:
                mid = (lo + hi) // 2
                v = solve_last_turn(model, [mid * rules.unit])[0].roll[0, 0, 0]
                lo, hi = (lo, mid) if v < eps else (mid, hi)
            return hi
        D *= 2
        if D > 1 << 14:
            raise InputError(f"{rules.name}: turns can score without bound (no truncation)")


def board_flags(rules: RuleSet) -> tuple[bool, ...]:
    """The on-board flags whose last turns differ (one where the minimums are the same)."""
    return (False, True) if rules.min_bank(False) != rules.min_bank(True) else (True,)


def check_deficit(rules: RuleSet, deficit: int) -> None:
    """InputError for a deficit beyond what a last turn is solved for: the table's (up to
    the target) and MAX_UNITS more units solved on demand."""
    top = ((rules.target or 0) // rules.unit + MAX_UNITS) * rules.unit
    if deficit > top:
        raise InputError(
            f"a last turn {deficit} points behind: the solver takes deficits "
            f"up to {top} under {rules.name}"
        )


@dataclass(frozen=True, eq=False)
class LastTurnTable:
    """P(win) of a last turn for every deficit 0..max_deficit (units), both board flags."""

    model: TurnModel
    max_deficit: int
    levels: dict[bool, TurnLevels]  # batch row = deficit

    @property
    def rules(self) -> RuleSet:
        return self.model.rules

    @classmethod
    def solve(cls, model: TurnModel) -> LastTurnTable:
        """Every deficit up to the target."""
        rules = model.rules
        if rules.target is None:
            raise InputError(f"{rules.name} has no target: there is no last turn")
        D = rules.target // rules.unit
        check_memory(
            8.0 * (D + 1) * (D + 1) * (2 + model.states * 4),
            f"the last-turn table of a game to {rules.target} ({D + 1} deficits)",
            "a rule set with a lower game.target",
        )
        deficits = np.arange(D + 1) * rules.unit
        levels = {flag: solve_last_turn(model, deficits, flag) for flag in board_flags(rules)}
        levels.setdefault(False, levels[True])
        return cls(model, D, levels)

    def lookup(self, deficit: int, on_board: bool = True, tied: int = 1) -> tuple[TurnLevels, int]:
        """(levels, row) for a deficit in points behind `tied` leaders: the table's (one
        leader), or solved on demand (more leaders, or beyond the table up to MAX_UNITS
        more units)."""
        check_deficit(self.rules, deficit)
        d = deficit // self.rules.unit
        if d <= self.max_deficit and tied == 1:
            return self.levels[on_board], d
        return solve_last_turn(self.model, [deficit], on_board, tied), 0

    def value_at(
        self, deficit: int, state: TurnState, on_board: bool = True, tied: int = 1
    ) -> StateValues:
        """P(win) if rolling, and if banking (None where banking is not allowed)."""
        if deficit < 0:  # already ahead: whatever happens, the player wins
            return StateValues(1.0, None if state.index(self.rules) == 0 else 1.0)
        levels, row = self.lookup(deficit, on_board, tied)
        return levels.value_at(state, row)
