"""A fixed policy as a side of the two-player game (objectives/policy_game.py's Side): a
policy that does not look at the scores -- the expected-points card, a policy file -- whose
turn from score a is the exact distribution of the points it records (play/evaluate.py), one
per board flag and, with bank_at_target, per goal closer than the totals it banks at anyway;
its last turn the chance of its own choices, banking as soon as it beats the leader, for
every deficit (play/policy_last_turn.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..objectives.plain_game import Finals
from ..outcomes.model import TurnModel
from .evaluate import evaluate
from .policies import GoalPolicy, Policy
from .policy_last_turn import beat_chances


@dataclass(eq=False)
class FixedSide:
    """A policy that does not look at the scores: `policy(on_board)` its compiled play.
    goal: it also banks where the bank reaches the target (bank_at_target), by board flag
    the total (units) from which it banks anyway in every free state (None: no goal)."""

    name: str
    model: TurnModel
    R: int  # the target in units
    D: int  # the deficits a last turn covers past the target (Finals.D)
    policy: Callable[[bool], Policy]
    goal: dict[bool, int] | None = None
    _dists: dict[tuple[bool, int | None], np.ndarray] = field(default_factory=dict)

    def finals(self) -> Finals:
        rules = self.model.rules
        if rules.end == "instant":
            return Finals(rules, self.R, None)
        d = np.arange(self.R + self.D + 1)
        flags = {rules.on_board(0), rules.on_board(1)}
        return Finals(
            rules,
            self.R,
            {f: beat_chances(self.model, self.policy(f), d, f) for f in flags},
        )

    def _key(self, a: int) -> tuple[bool, int | None]:
        """What the turn from score a depends on: the board flag, and the goal (units to
        the target) where it is closer than every total the policy banks anyway."""
        rules = self.model.rules
        flag = rules.on_board(a * rules.unit)
        need = self.R - a
        if self.goal is None or need >= self.goal[flag]:
            return flag, None
        return flag, need

    def distribution(self, flag: bool, need: int | None) -> np.ndarray:
        """P(the turn records x units), x = 0, 1, ... (play/evaluate.py, exact)."""
        key = (flag, need)
        if key not in self._dists:
            pol = self.policy(flag)
            if need is not None:
                pol = GoalPolicy(pol, self.model.rules, flag, need)
            dist = evaluate(self.model, pol, flag)
            x = dist.totals // self.model.rules.unit
            dense = np.zeros(int(x.max()) + 1)
            np.add.at(dense, x, dist.probs)
            self._dists[key] = dense
        return self._dists[key]

    def turn(self, rows: np.ndarray, U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        span = U.shape[1]
        A = np.empty(len(rows))
        g = np.empty(len(rows))
        keys = [self._key(int(a)) for a in rows[:, 0]]
        for key in set(keys):
            sel = np.array([k == key for k in keys])
            dist = self.distribution(*key)
            head = dist[1:span]
            A[sel] = U[sel, 1 : 1 + len(head)] @ head + dist[span:].sum()
            g[sel] = dist[0]
        return A, g
