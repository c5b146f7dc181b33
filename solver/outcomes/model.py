"""The one flat encoding of a rule set's rolls that the solver, the evaluator and the
simulator all read: every scoring outcome of 1..N dice with its choices, as arrays.

Outcomes with the same set of choices are merged (their probabilities add): the value of a
roll is a sum over outcomes of a max over their choices, so only the distinct choice sets
matter.  Forced set-aside leaves a few dozen per dice count instead of hundreds.  A rolled
hand (its face counts, and the colour match under zonk-detroit) maps to its merged outcome
through ``lands``: the simulator rolls physical dice and reads the same choices.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..lazy import lazy
from ..rules import RuleSet

if TYPE_CHECKING:
    from .dice import Outcome

FIELDS = (
    "prob",
    "out_start",
    "opt_start",
    "opt_outcome",
    "shift",
    "perm",
    "target",
    "p_zilch",
    "outcome_of",
)
# Stored with the model; raised when the arrays above change (a stored model is rebuilt).
FORMAT = 2
# Stored only under pyramiding, whose states are more than the classic 0..N.
STATE_FIELDS = ("state_dice", "frozen")


@dataclass(frozen=True, eq=False)
class TurnModel:
    """The roll outcomes and choices of a rule set as flat arrays (scoring outcomes only).

    Each free state s >= 1 rolls its own *group* of outcomes, s - 1; the must-roll state 0
    rolls the group of state N (all dice, nothing frozen).  Without pyramiding the states
    are 0..N and group n - 1 is simply "n dice"; with it the states N+1.. (frozen groups,
    outcomes/frozen.py) add a group each."""

    rules: RuleSet
    prob: np.ndarray  # (O,) probability of each scoring outcome, grouped by group
    out_start: np.ndarray  # (G,) index of the first outcome of each group
    opt_start: np.ndarray  # (O,) index of the first choice of each outcome
    opt_outcome: np.ndarray  # (K,) outcome of each choice
    shift: np.ndarray  # (K,) at-risk units the choice adds
    perm: np.ndarray  # (K,) permanent units the choice adds
    target: np.ndarray  # (K,) state after the choice
    p_zilch: np.ndarray  # (G+1,) index g + 1: probability that group g scores nothing
    outcome_of: np.ndarray  # every distinct roll of each group's dice (dice.outcomes order,
    # group after group): its merged outcome, -1 for a zilch
    # (S,) dice each state rolls and (S, 6) its frozen groups; None: the classic 0..N
    state_dice: np.ndarray | None = None
    frozen: np.ndarray | None = None

    @classmethod
    def from_arrays(cls, rules: RuleSet, arrays: dict[str, np.ndarray]) -> TurnModel:
        # copies: aligned, and not tied to a mapped file (they go to the C kernel)
        extra = {k: np.array(arrays[k]) for k in STATE_FIELDS if k in arrays}
        return cls(rules, *(np.array(arrays[k]) for k in FIELDS), **extra)

    @property
    def dice(self) -> int:
        return self.rules.dice

    def check_bounded(self) -> None:
        """InputError where no roll ever zilches: a turn may roll on forever."""
        if not self.p_zilch[1:].any():
            raise InputError(endless(self.rules))

    @property
    def unit(self) -> int:
        return self.rules.unit

    @property
    def hot_state(self) -> int:
        return self.rules.hot_state

    @property
    def states(self) -> int:
        return len(self.out_start) + 1

    @lazy
    def dice_of_state(self) -> np.ndarray:
        """(S,) the dice each state rolls."""
        if self.state_dice is not None:
            return self.state_dice
        return np.array([self.dice] + list(range(1, self.dice + 1)))

    @lazy
    def state_group(self) -> np.ndarray:
        """(S,) the group of outcomes each state rolls (state 0: the group of state N)."""
        return np.append(self.dice - 1, np.arange(self.states - 1))

    @property
    def zero_group(self) -> int:
        return self.dice - 1

    @lazy
    def out_group(self) -> np.ndarray:
        """(O,) the group of each outcome."""
        return np.repeat(
            np.arange(len(self.out_start)), np.diff(np.append(self.out_start, len(self.prob)))
        )

    @property
    def max_shift(self) -> int:
        return int(self.shift.max())

    @lazy
    def out_dice(self) -> np.ndarray:
        """(O,) the dice count of each outcome."""
        return self.dice_of_state[1:][self.out_group]

    @property
    def single_choice(self) -> bool:
        """Every outcome has exactly one choice (forced set-aside)."""
        return len(self.shift) == len(self.prob)

    def roll_dice(self, s: int) -> int:
        return int(self.dice_of_state[s])

    # --- what a playing policy sees of each choice -----------------------------------------
    @lazy
    def left(self) -> np.ndarray:
        """(K,) dice left to roll after the choice (0: hot dice)."""
        return np.where(self.target == self.hot_state, 0, self.dice_of_state[self.target])

    @lazy
    def kept(self) -> np.ndarray:
        """(K,) dice the choice sets aside."""
        return self.out_dice[self.opt_outcome] - self.left

    @lazy
    def points(self) -> np.ndarray:
        """(K,) units the choice scores (permanent part included)."""
        return self.shift + self.perm

    @lazy
    def options(self) -> np.ndarray:
        """(O, W) the choices of each outcome, -1 padding, most points first (then fewer
        dice left, then more permanent points): the order in which a policy's ties go."""
        counts = np.diff(np.append(self.opt_start, len(self.shift)))
        opts = np.full((len(self.prob), int(counts.max())), -1, np.int64)
        for o, (a, n) in enumerate(zip(self.opt_start, counts)):
            k = np.arange(a, a + n)
            order = np.lexsort((-self.perm[k], self.left[k], -self.points[k]))
            opts[o, :n] = k[order]
        return opts

    @lazy
    def padded(self) -> dict[str, np.ndarray]:
        """(O, W) over each outcome's choices in `options` order: the choice ("choice", -1
        padding), "valid", and the choice's points, kept, target, shift and perm (padding
        repeats choice 0's: read them where valid)."""
        opts = self.options
        valid = opts >= 0
        oc = np.where(valid, opts, 0)
        out = {"choice": opts, "valid": valid}
        for k in ("points", "kept", "target", "shift", "perm"):
            out[k] = getattr(self, k)[oc]
        return out

    @lazy
    def roll_rank(self) -> np.ndarray:
        """(2, N+1, 7**6) [colour-matched, dice, base-7 code of the face counts] -> the
        roll's place among the distinct rolls of that many dice (dice.outcomes order)."""
        from .dice import FACES, outcomes

        N, colour = self.dice, self.rules.colour_pairs
        lookup = np.full((2, N + 1, 7**FACES), -1, np.int32)
        pow7 = 7 ** np.arange(FACES)
        for n in range(1, N + 1):
            outs = outcomes(n, colour)
            rank = np.arange(len(outs), dtype=np.int32)
            code = np.array([o.counts for o in outs]) @ pow7
            matched = np.array([o.matched for o in outs])
            lookup[1, n, code[matched]] = rank[matched]
            lookup[0, n, code[~matched]] = rank[~matched]
            if not (colour and n == 6):  # colours only matter for six dice
                lookup[1, n, code[~matched]] = rank[~matched]
        return lookup

    @lazy
    def rolls_start(self) -> np.ndarray:
        """(G,) where each group's rolls begin in outcome_of."""
        from .dice import outcomes

        sizes = [len(outcomes(int(n), self.rules.colour_pairs)) for n in self.dice_of_state[1:]]
        return np.cumsum([0] + sizes[:-1]).astype(np.int64)

    def lands(self, s: np.ndarray, matched: np.ndarray | int, code: np.ndarray) -> np.ndarray:
        """The merged outcome (-1: a zilch) where a hand rolled in states s lands: its
        colour match, its base-7 code of face counts."""
        rank = self.roll_rank[matched, self.dice_of_state[s], code]
        return self.outcome_of[self.rolls_start[self.state_group[s]] + rank]


def endless(rules: RuleSet) -> str:
    return (
        f"{rules.name}: a turn can go on forever without a zilch (every roll scores), so "
        "its value has no bound: these rules cannot be solved"
    )


def sound(rules: RuleSet, arrays: dict[str, np.ndarray]) -> bool:
    """Do stored arrays make a model of these rules (every index within its array)?"""
    from .frozen import turn_states

    a = arrays
    O, K = len(a["prob"]), len(a["shift"])
    S = len(turn_states(rules))
    ints = ("out_start", "opt_start", "opt_outcome", "shift", "perm", "target", "outcome_of")
    return (
        all(a[k].ndim == 1 and a[k].dtype == np.int64 for k in ints)
        and a["prob"].dtype == np.float64
        and a["p_zilch"].shape == (S,)
        and a["out_start"].shape == (S - 1,)
        and a["opt_start"].shape == (O,)
        and K >= O > 0
        and all(len(a[k]) == K for k in ("opt_outcome", "perm", "target"))
        and bool(np.all((a["opt_outcome"] >= 0) & (a["opt_outcome"] < O)))
        and bool(np.all((a["target"] >= 0) & (a["target"] < S)))
        and bool(np.all((a["opt_start"] >= 0) & (a["opt_start"] < K)))
        and bool(np.all((a["out_start"] >= 0) & (a["out_start"] <= O)))
        and bool(np.all((a["shift"] >= 0) & (a["perm"] >= 0)))
        and bool(np.all(a["outcome_of"] < O))
        and all((k in a) == rules.pyramiding for k in STATE_FIELDS)
        and (not rules.pyramiding or (a["state_dice"].shape, a["frozen"].shape) == ((S,), (S, 6)))
    )


# a roll's choices: (units at risk, permanent units, state after) each, sorted, no repeats
ChoiceKey = tuple[tuple[int, int, int], ...]


def _groups(rules: RuleSet) -> Iterator[list[tuple[Outcome, ChoiceKey]]]:
    """Per group, each roll's (outcome, choices as (units at risk, permanent units, state
    after)): the classic dice counts 1..N, or (pyramiding) every free state's own group."""
    unit, hot = rules.unit, rules.hot_state

    def key(choices: Iterable[tuple[int, int, int]]) -> ChoiceKey:
        return tuple(sorted(set(choices)))

    if not rules.pyramiding:
        from .scoring import scored  # (a stored model needs no scoring)

        for n in range(1, rules.dice + 1):
            yield [
                (
                    so.outcome,
                    key(
                        ((c.points - c.permanent) // unit, c.permanent // unit, c.left or hot)
                        for c in so.choices
                    ),
                )
                for so in scored(rules, n)
            ]
        return
    from .dice import outcomes
    from .frozen import choices, turn_states

    states = turn_states(rules)
    for n, frozen in zip(states.dice[1:], states.frozen[1:]):
        yield [
            (
                o,
                key(
                    ((c.points - c.permanent) // unit, c.permanent // unit, c.state)
                    for c in choices(rules, o, frozen)
                ),
            )
            for o in outcomes(n, rules.colour_pairs)
        ]


def model_arrays(rules: RuleSet) -> dict[str, np.ndarray]:
    """Enumerate and score every roll (~0.2 s; pyramiding, ~1 s): the arrays of the rule
    set's TurnModel."""
    prob: list[float] = []
    pz: list[float] = [1.0]
    lists: list[list[int]] = [[] for _ in range(7)]
    out_start, opt_start, opt_outcome, shift, perm, target, outcome_of = lists
    for group in _groups(rules):
        out_start.append(len(prob))
        merged: dict[tuple, Fraction] = {}
        zilch = Fraction(0)
        for o, key in group:
            if key:
                merged[key] = merged.get(key, Fraction(0)) + o.prob
            else:
                zilch += o.prob
        index = {key: len(prob) + i for i, key in enumerate(sorted(merged))}
        outcome_of += [index.get(key, -1) for _, key in group]
        for key in sorted(merged):
            opt_start.append(len(shift))
            for h, pm, t in key:
                opt_outcome.append(len(prob))
                shift.append(h)
                perm.append(pm)
                target.append(t)
            prob.append(float(merged[key]))
        pz.append(float(zilch))
    ints = [
        np.asarray(x, np.int64) for x in (out_start, opt_start, opt_outcome, shift, perm, target)
    ]
    arrays = dict(
        zip(
            FIELDS,
            [
                np.asarray(prob, float),
                *ints,
                np.asarray(pz, float),
                np.asarray(outcome_of, np.int64),
            ],
        )
    )
    if rules.pyramiding:
        from .frozen import turn_states

        states = turn_states(rules)
        arrays["state_dice"] = np.asarray(states.dice, np.int64)
        arrays["frozen"] = np.asarray(states.frozen, np.int64).reshape(-1, 6)
    return arrays


@lru_cache(maxsize=32)
def turn_model(rules: RuleSet) -> TurnModel:
    """The model, built in this process (the store keeps it on disk for queries)."""
    return TurnModel.from_arrays(rules, model_arrays(rules))
