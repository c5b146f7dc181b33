"""Pyramiding (rule key ``pyramiding``): the frozen groups a turn carries, and a roll's
choices when its dice may join them.

Under pyramiding the dice of each face frozen since the last pick-up of all dice form one
group; a rolled die of that face joins it when that raises the group's score, and the roll
adds score(group after) - score(group before), a group scored as the best split of its dice
(``face_groups``).  Of a group only one thing matters for the rest of the turn: what it adds
to j = 1..n more dice of its face, n the dice still to roll.  So a group is replaced by the
smallest count that adds the same (its *canonical* count), 0 where it adds exactly what the
dice would score alone.  A turn state is (dice to roll, canonical count per face): the states
with nothing that can grow are the classic ones, 0 (must roll all N) and 1..N, at their
usual indices; the others follow, N-1 dice down to 1.  Whole-roll patterns never take frozen
dice, and the dice they take join no group (a six-dice pattern is hot dice anyway).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import product

import numpy as np

from ..errors import InputError
from ..lazy import lazy
from ..rules import RuleSet
from .dice import FACES, Outcome
from .scoring import face_groups

NONE = (0,) * FACES


def adds(best: list[int], g: int, n: int) -> tuple[int, ...]:
    """What a frozen group of g dice (best[c]: the score of c dice of its face) adds with
    j = 1..n more dice of its face; -1 where they would not raise it (they do not join)."""
    return tuple(
        best[g + j] - best[g] if g + j < len(best) and best[g + j] > best[g] else -1
        for j in range(1, n + 1)
    )


@dataclass(frozen=True)
class TurnStates:
    """The states of a turn: dice[s] to roll and frozen[s] (canonical counts per face)."""

    rules: RuleSet
    dice: tuple[int, ...]
    frozen: tuple[tuple[int, ...], ...]

    def __len__(self) -> int:
        return len(self.dice)

    @lazy
    def dice_array(self) -> np.ndarray:
        return np.array(self.dice)

    @property
    def best(self) -> list[list[int]]:
        return face_groups(self.rules)

    def canonical(self, frozen: Sequence[int], n: int) -> tuple[int, ...]:
        """Each face's group replaced by the smallest count that adds the same to n dice."""
        best = self.best
        return tuple(
            next(
                h
                for h in range(g + 1)
                if (h == 0 or best[f][h] > 0) and adds(best[f], h, n) == adds(best[f], g, n)
            )
            for f, g in enumerate(frozen)
        )

    def index(self, n: int, frozen: Sequence[int], must_roll: bool = False) -> int:
        """The state of n dice to roll with these frozen groups (raw counts)."""
        pyr = self.rules.pyramiding and n < self.rules.dice
        key = self.canonical(frozen, n) if pyr else NONE
        if key == NONE:
            return 0 if must_roll else n
        return _index(self)[(n, key)]


@lru_cache(maxsize=32)
def _index(states: TurnStates) -> dict[tuple[int, tuple[int, ...]], int]:
    return {(n, f): s for s, (n, f) in enumerate(zip(states.dice, states.frozen)) if s > 0}


@lru_cache(maxsize=32)
def turn_states(rules: RuleSet) -> TurnStates:
    """Every state: the classic 0..N, then (pyramiding) every canonical set of frozen groups
    that N - n frozen dice can hold, by dice to roll (descending) and counts.  Some may be
    unreachable (the reach sweep knows); they cost a little time and nothing else."""
    N = rules.dice
    dice = [N] + list(range(1, N + 1))
    frozen = [NONE] * (N + 1)
    if rules.pyramiding:
        st = TurnStates(rules, (), ())
        best = st.best
        counts = [[0] + [g for g in range(1, N) if best[f][g] > 0] for f in range(FACES)]
        for n in range(N - 1, 0, -1):
            for fz in product(*counts):
                if fz != NONE and sum(fz) <= N - n and st.canonical(fz, n) == fz:
                    dice.append(n)
                    frozen.append(fz)
    return TurnStates(rules, tuple(dice), tuple(frozen))


def check_frozen(rules: RuleSet, counts: tuple[int, ...], dice: int) -> None:
    """InputError unless `counts` (per face) can be frozen with `dice` dice left to roll."""
    if any(counts) and not rules.pyramiding:
        raise InputError(
            f"frozen needs pyramiding; {rules.name} has none (rule key pyramiding = true)",
            "frozen",
        )
    if len(counts) != FACES or any(c < 0 for c in counts):
        raise InputError(f"frozen: expected counts of the six faces, got {counts}", "frozen")
    if sum(counts) + dice > rules.dice:
        raise InputError(
            f"frozen: {sum(counts)} frozen dice and {dice} to roll are more than the "
            f"{rules.dice} dice of {rules.name}",
            "frozen",
        )
    best = face_groups(rules)
    for f, g in enumerate(counts):
        if g and best[f][g] <= 0:
            raise InputError(
                f"frozen: {g} x {f + 1} is impossible under {rules.name}: no group of them scores",
                "frozen",
            )


def parse_frozen(faces: list[int]) -> tuple[int, ...]:
    """Counts per face of the frozen dice a user lists (``--frozen 5,5``)."""
    return tuple(faces.count(f) for f in range(1, FACES + 1))


def faces_of(counts: Sequence[int]) -> list[int]:
    return [f + 1 for f, c in enumerate(counts) for _ in range(c)]


@dataclass(frozen=True)
class FrozenChoice:
    points: int  # points the dice add (permanent part included)
    permanent: int
    left: int  # dice left to roll (0: hot dice)
    kept: tuple[int, ...]  # dice set aside, per face
    frozen: tuple[int, ...]  # frozen counts after (raw; none after hot dice)
    state: int  # the turn's state after (hot dice: rules.hot_state)


def choices(rules: RuleSet, outcome: Outcome, frozen: tuple[int, ...]) -> list[FrozenChoice]:
    """The legal set-asides of `outcome` with groups `frozen`: forced, the one with the most
    points (then more dice, then more permanent points); free, every one that no other
    choice to the same state beats on points and permanent points."""
    states = turn_states(rules)
    found = pyramid_choices(rules, states.best, outcome, frozen)
    out: dict[tuple[int, int, int], FrozenChoice] = {}  # the first per (state, points)
    for (left, pts, perm, after), kept in found.items():
        s = states.index(left, after) if left else rules.hot_state
        out.setdefault(
            (s, pts, perm), FrozenChoice(pts, perm, left, kept, after if left else NONE, s)
        )
    if rules.set_aside == "forced" and out:
        return [max(out.values(), key=lambda c: (c.points, -c.left, c.permanent, -c.state))]
    return [
        c
        for c in out.values()
        if not any(
            d.state == c.state
            and d.points >= c.points
            and d.permanent >= c.permanent
            and (d.points, d.permanent) != (c.points, c.permanent)
            for d in out.values()
        )
    ]


def pyramid_choices(
    rules: RuleSet, best: list[list[int]], outcome: Outcome, frozen: tuple[int, ...]
) -> dict[tuple, tuple[int, ...]]:
    """Every way to set aside dice of `outcome` with groups `frozen`: (dice left, points,
    permanent points, frozen counts after) -> the dice kept per face, the first found per
    key (as scoring.score_outcome; with no frozen group the same choices)."""
    k = outcome.counts
    n = sum(k)
    # per face, the legal numbers of its rolled dice to freeze, with the points they add
    per_face = []
    for f in range(FACES):
        gain = adds(best[f], frozen[f], k[f])
        per_face.append(
            [(0, 0)] + [(j, gain[j - 1]) for j in range(1, k[f] + 1) if gain[j - 1] >= 0]
        )
    found: dict[tuple, tuple[int, ...]] = {}

    def add_groups(
        base_pts: int, perm: int, taken: tuple[int, ...], opts: list[list[tuple[int, int]]]
    ) -> None:
        for pick in product(*opts):
            j = tuple(c for c, _ in pick)
            kept = tuple(a + b for a, b in zip(taken, j))
            if not any(kept):
                continue
            pts = base_pts + sum(p for _, p in pick)
            after = tuple(a + b for a, b in zip(frozen, j))
            found.setdefault((n - sum(kept), pts, perm, after), kept)

    add_groups(0, 0, NONE, per_face)
    for pat in rules.patterns:
        perm = pat.points if pat.permanent else 0
        if pat.kind == "straight":
            taken = tuple(int(f + 1 in pat.faces) for f in range(FACES))
            if any(t > c for t, c in zip(taken, k)):
                continue
            opts = [[o for o in per_face[f] if o[0] <= k[f] - taken[f]] for f in range(FACES)]
            add_groups(pat.points, perm, taken, opts)
        elif n == 6 and (
            (pat.kind == "colour_pairs" and outcome.matched)
            or (
                pat.kind in ("three_pairs", "four_kind_pair", "two_triplets")
                and tuple(sorted(c for c in k if c)) in pat.signatures()
            )
        ):
            found.setdefault((0, pat.points, perm, frozen), k)
    if not found and n == 6:
        for pat in rules.patterns:
            if pat.kind == "no_score":
                found[(0, pat.points, pat.points if pat.permanent else 0, frozen)] = k
    return found
