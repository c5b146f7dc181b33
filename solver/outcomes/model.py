"""The one flat encoding of a rule set's rolls that the solver, the evaluator and the
simulator all read: every scoring outcome of 1..N dice with its choices, as arrays.

Outcomes with the same set of choices are merged (their probabilities add): the value of a
roll is a sum over outcomes of a max over their choices, so only the distinct choice sets
matter.  Forced set-aside leaves a few dozen per dice count instead of hundreds.  A rolled
hand (its face counts, and the colour match under zonk-detroit) maps to its merged outcome
through ``roll_index``: the simulator rolls physical dice and reads the same choices.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache

import numpy as np

from ..errors import InputError
from ..rules import RuleSet

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


@dataclass(frozen=True, eq=False)
class TurnModel:
    """The roll outcomes and choices of a rule set as flat arrays (scoring outcomes only)."""

    rules: RuleSet
    prob: np.ndarray  # (O,) probability of each scoring outcome, grouped by dice count
    out_start: np.ndarray  # (N,) index of the first outcome of 1..N dice
    opt_start: np.ndarray  # (O,) index of the first choice of each outcome
    opt_outcome: np.ndarray  # (K,) outcome of each choice
    shift: np.ndarray  # (K,) at-risk units the choice adds
    perm: np.ndarray  # (K,) permanent units the choice adds
    target: np.ndarray  # (K,) state after the choice
    p_zilch: np.ndarray  # (N+1,) index n: probability that n dice score nothing
    outcome_of: np.ndarray  # every distinct roll of 1..N dice (dice.outcomes order, by n):
    # its merged outcome, -1 for a zilch

    @classmethod
    def from_arrays(cls, rules: RuleSet, arrays: dict[str, np.ndarray]) -> TurnModel:
        # copies: aligned, and not tied to a mapped file (they go to the C kernel)
        return cls(rules, *(np.array(arrays[k]) for k in FIELDS))

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
        return self.dice + 1

    @property
    def max_shift(self) -> int:
        return int(self.shift.max())

    @cached_property
    def out_dice(self) -> np.ndarray:
        """(O,) the dice count of each outcome."""
        return np.repeat(
            np.arange(1, self.dice + 1), np.diff(np.append(self.out_start, len(self.prob)))
        )

    @property
    def single_choice(self) -> bool:
        """Every outcome has exactly one choice (forced set-aside)."""
        return len(self.shift) == len(self.prob)

    def roll_dice(self, s: int) -> int:
        return self.dice if s == 0 else s

    # --- what a playing policy sees of each choice -----------------------------------------
    @cached_property
    def left(self) -> np.ndarray:
        """(K,) dice left to roll after the choice (0: hot dice)."""
        return np.where(self.target == self.hot_state, 0, self.target)

    @cached_property
    def kept(self) -> np.ndarray:
        """(K,) dice the choice sets aside."""
        return self.out_dice[self.opt_outcome] - self.left

    @cached_property
    def points(self) -> np.ndarray:
        """(K,) units the choice scores (permanent part included)."""
        return self.shift + self.perm

    @cached_property
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

    @cached_property
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

    @cached_property
    def roll_index(self) -> np.ndarray:
        """(2, N+1, 7**6) [colour-matched, dice, base-7 code of the face counts] -> merged
        outcome (-1: a zilch): where a physically rolled hand lands."""
        from .dice import FACES, outcomes

        N, colour = self.dice, self.rules.colour_pairs
        lookup = np.full((2, N + 1, 7**FACES), -1, np.int32)
        pow7 = 7 ** np.arange(FACES)
        at = 0
        for n in range(1, N + 1):
            outs = outcomes(n, colour)
            idx = self.outcome_of[at : at + len(outs)]
            at += len(outs)
            code = np.array([o.counts for o in outs]) @ pow7
            matched = np.array([o.matched for o in outs])
            lookup[1, n, code[matched]] = idx[matched]
            lookup[0, n, code[~matched]] = idx[~matched]
            if not (colour and n == 6):  # colours only matter for six dice
                lookup[1, n, code[~matched]] = idx[~matched]
        return lookup


def endless(rules: RuleSet) -> str:
    return (
        f"{rules.name}: a turn can go on forever without a zilch (every roll scores), so "
        "its value has no bound: these rules cannot be solved"
    )


def sound(rules: RuleSet, arrays: dict[str, np.ndarray]) -> bool:
    """Do stored arrays make a model of these rules (every index within its array)?"""
    a = arrays
    O, K, N = len(a["prob"]), len(a["shift"]), rules.dice
    ints = ("out_start", "opt_start", "opt_outcome", "shift", "perm", "target", "outcome_of")
    return (
        all(a[k].ndim == 1 and a[k].dtype == np.int64 for k in ints)
        and a["prob"].dtype == np.float64
        and a["p_zilch"].shape == (N + 1,)
        and a["out_start"].shape == (N,)
        and a["opt_start"].shape == (O,)
        and K >= O > 0
        and all(len(a[k]) == K for k in ("opt_outcome", "perm", "target"))
        and bool(np.all((a["opt_outcome"] >= 0) & (a["opt_outcome"] < O)))
        and bool(np.all((a["target"] >= 0) & (a["target"] <= N)))
        and bool(np.all((a["opt_start"] >= 0) & (a["opt_start"] < K)))
        and bool(np.all((a["out_start"] >= 0) & (a["out_start"] <= O)))
        and bool(np.all((a["shift"] >= 0) & (a["perm"] >= 0)))
        and bool(np.all(a["outcome_of"] < O))
    )


def model_arrays(rules: RuleSet) -> dict[str, np.ndarray]:
    """Enumerate and score every roll (~0.2 s): the arrays of the rule set's TurnModel."""
    from .scoring import p_zilch, scored  # (a stored model needs no scoring)

    unit, n_dice, hot = rules.unit, rules.dice, rules.hot_state
    prob: list[float] = []
    lists: list[list[int]] = [[] for _ in range(7)]
    out_start, opt_start, opt_outcome, shift, perm, target, outcome_of = lists
    for n in range(1, n_dice + 1):
        out_start.append(len(prob))
        merged: dict[tuple, Fraction] = {}
        keys = []
        for so in scored(rules, n):
            key = tuple(
                sorted(
                    {
                        (
                            (c.points - c.permanent) // unit,
                            c.permanent // unit,
                            c.left if c.left else hot,
                        )
                        for c in so.choices
                    }
                )
            )
            keys.append(key)
            if key:
                merged[key] = merged.get(key, Fraction(0)) + so.outcome.prob
        index = {key: len(prob) + i for i, key in enumerate(sorted(merged))}
        outcome_of += [index.get(key, -1) for key in keys]
        for key in sorted(merged):
            opt_start.append(len(shift))
            for h, pm, t in key:
                opt_outcome.append(len(prob))
                shift.append(h)
                perm.append(pm)
                target.append(t)
            prob.append(float(merged[key]))
    pz = [1.0] + [float(p_zilch(rules, n)) for n in range(1, n_dice + 1)]
    ints = [
        np.asarray(x, np.int64) for x in (out_start, opt_start, opt_outcome, shift, perm, target)
    ]
    return dict(
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


@lru_cache(maxsize=32)
def turn_model(rules: RuleSet) -> TurnModel:
    """The model, built in this process (the store keeps it on disk for queries)."""
    return TurnModel.from_arrays(rules, model_arrays(rules))
