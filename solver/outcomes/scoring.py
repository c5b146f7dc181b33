"""Scoring of one roll: the legal set-aside choices of every outcome, compiled per rule set.

A choice sets aside a sub-multiset of the roll whose every die belongs to a scoring
combination of that roll (at most one whole-roll pattern plus groups of equal faces).  It is
worth the best split of those dice into combinations.  Under forced set-aside the only choice
is the split of the roll with the most points (ties: the one using more dice), and exactly its
dice are frozen.  Under free set-aside every choice that is not dominated (fewer points and no
more permanent points for the same dice left) is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import product

from ..rules import Pattern, RuleSet
from .dice import FACES, Outcome, outcomes


@dataclass(frozen=True)
class Choice:
    points: int  # points of the dice set aside (permanent part included)
    permanent: int  # the part kept even after a zilch
    left: int  # dice left to roll (0: all dice scored, "hot dice")
    kept: tuple[int, ...]  # counts of the dice set aside, per face


@dataclass(frozen=True)
class ScoredOutcome:
    outcome: Outcome
    choices: tuple[Choice, ...]  # empty: a zilch

    @property
    def best_points(self) -> int:
        return max((c.points for c in self.choices), default=0)


def face_groups(rules: RuleSet) -> list[list[int]]:
    """best[f][c]: most points from exactly c dice of face f split into groups, -1 if none."""
    best = []
    for f in range(FACES):
        row = [0] + [-1] * rules.dice
        for c in range(1, rules.dice + 1):
            for k in range(1, c + 1):
                pts = rules.faces[f][k - 1]
                if pts and row[c - k] >= 0:
                    row[c] = max(row[c], pts + row[c - k])
        best.append(row)
    return best


def splits(
    rules: RuleSet, groups: list[list[int]], kept: Sequence[int], matched: bool
) -> list[tuple[int, int]]:
    """(points, permanent) of every way to split exactly the dice `kept` into combinations."""
    res = []
    face_pts = [groups[f][c] for f, c in enumerate(kept)]
    if min(face_pts) >= 0:
        res.append((sum(face_pts), 0))
    if rules.patterns:
        size = sum(kept)
        for pat in rules.patterns:
            if size >= pat.size:  # (a pattern needs its dice: most sets kept have fewer)
                res.extend(_with_pattern(pat, groups, kept, matched, size))
    return res


def _with_pattern(
    pat: Pattern, groups: list[list[int]], kept: Sequence[int], matched: bool, size: int
) -> list[tuple[int, int]]:
    """(points, permanent) of the splits of `kept` that use the pattern (at most one)."""
    perm = pat.points if pat.permanent else 0
    if pat.kind == "straight":
        rest = list(kept)
        for f in pat.faces:
            rest[f - 1] -= 1
        if min(rest) < 0:
            return []
        rest_pts = [groups[f][c] for f, c in enumerate(rest)]
        return [(pat.points + sum(rest_pts), perm)] if min(rest_pts) >= 0 else []
    if size == 6 and pat.kind == "colour_pairs":
        return [(pat.points, perm)] if matched else []
    if size == 6 and pat.kind in ("three_pairs", "four_kind_pair", "two_triplets"):
        if tuple(sorted(c for c in kept if c)) in _signatures(pat):
            return [(pat.points, perm)]
    return []


@lru_cache(maxsize=64)
def _signatures(pat: Pattern) -> frozenset[tuple[int, ...]]:
    return frozenset(pat.signatures())


def score_outcome(
    rules: RuleSet, outcome: Outcome, groups: list[list[int]] | None = None
) -> ScoredOutcome:
    groups = groups or face_groups(rules)
    n = sum(outcome.counts)
    found: dict[tuple[int, int, int], tuple[int, ...]] = {}  # (left, points, perm) -> kept
    for kept in product(*(range(c + 1) for c in outcome.counts)):
        if not any(kept):
            continue
        for pts, perm in splits(rules, groups, kept, outcome.matched):
            key = (n - sum(kept), pts, perm)
            found.setdefault(key, kept)
    if not found and n == 6:
        for pat in rules.patterns:
            if pat.kind == "no_score":
                found[(0, pat.points, pat.points if pat.permanent else 0)] = outcome.counts
    if not found:
        return ScoredOutcome(outcome, ())
    if rules.set_aside == "forced":
        # most points, then the split using more dice, then more permanent points
        left, pts, perm = max(found, key=lambda k: (k[1], -k[0], k[2]))
        return ScoredOutcome(outcome, (Choice(pts, perm, left, found[(left, pts, perm)]),))
    keep = []
    for (left, pts, perm), kept in found.items():
        dominated = any(
            l2 == left and p2 >= pts and q2 >= perm and (p2, q2) != (pts, perm)
            for (l2, p2, q2) in found
        )
        if not dominated:
            keep.append(Choice(pts, perm, left, kept))
    keep.sort(key=lambda c: (-c.points, c.left, -c.permanent))
    return ScoredOutcome(outcome, tuple(keep))


@lru_cache(maxsize=64)
def scored(rules: RuleSet, n: int) -> tuple[ScoredOutcome, ...]:
    """Every outcome of n dice with its choices, in the order of dice.outcomes."""
    groups = face_groups(rules)
    return tuple(score_outcome(rules, o, groups) for o in outcomes(n, rules.colour_pairs))


def p_zilch(rules: RuleSet, n: int) -> Fraction:
    return sum((s.outcome.prob for s in scored(rules, n) if not s.choices), Fraction(0))


def parse_roll(rules: RuleSet, faces: list[int], matched: bool = False) -> Outcome:
    counts = [0] * FACES
    for f in faces:
        counts[f - 1] += 1
    for o in outcomes(len(faces), rules.colour_pairs):
        if o.counts == tuple(counts) and o.matched == matched:
            return o
    return Outcome(tuple(counts), Fraction(0), matched)
