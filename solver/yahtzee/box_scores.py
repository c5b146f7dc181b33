"""Box points of a hand, and the tables the solver reads (docs/rules-format.md, RULES.md).

A box scores by its kind: upper (face x count), kind (k dice of one face), pairs (k pairs of
different faces), house (groups of two different faces, 3+2 a full house), straight (a run
of consecutive faces, or exactly the faces listed), yahtzee (all dice alike), chance; its
points are fixed, "all" (the sum of all dice) or "group" (the dice of the combination, the
best such group: Yatzy's three of a kind is 3v of the highest face tripled).  The house
rules: a house with five_alike also takes its a + b dice of one face (five alike), a
two-pairs box with four_alike four of one face (4v).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .hands import keep_graph
from .yahtzee_rules import Box, YahtzeeRules


def _points(box: Box, counts: Sequence[int], group: int) -> int:
    """A box's points once its combination is there: fixed, all dice, or the group's."""
    if isinstance(box.points, int):
        return box.points
    return sum((f + 1) * c for f, c in enumerate(counts)) if box.points == "all" else group


def box_points(box: Box, counts: Sequence[int]) -> int:
    """The ordinary (non-joker) points of a hand, given by its face counts, in a box."""
    faces = range(6, 0, -1)  # highest first: a player takes the best group
    have = lambda k: [f for f in faces if counts[f - 1] >= k]  # noqa: E731
    if box.kind == "upper":
        return box.face * counts[box.face - 1]
    if box.kind == "chance":
        return sum((f + 1) * c for f, c in enumerate(counts))
    if box.kind == "kind":
        v = have(box.count)
        return _points(box, counts, box.count * v[0]) if v else 0
    if box.kind == "pairs":
        v = have(2)
        best = [2 * sum(v[: box.count])] if len(v) >= box.count else []
        if box.four_alike:  # (count 2) four of one face are two pairs of it: 4v
            best += [4 * x for x in have(4)]
        return _points(box, counts, max(best)) if best else 0
    if box.kind == "house":
        a, b = box.groups
        best = [a * x + b * y for x in have(a) for y in have(b) if x != y]
        if box.five_alike:  # all the house's dice of one face count too: (a + b)v
            best += [(a + b) * x for x in have(a + b)]
        return _points(box, counts, max(best)) if best else 0
    if box.kind == "straight":
        if box.run:
            present = "".join("1" if c else "0" for c in counts)
            return _points(box, counts, 0) if "1" * box.run in present else 0
        ok = all(counts[f - 1] for f in box.faces)
        return _points(box, counts, sum(box.faces)) if ok else 0
    if box.kind == "yahtzee":
        alike = max(counts) == sum(counts)
        return _points(box, counts, sum(counts) * (counts.index(max(counts)) + 1)) if alike else 0
    raise ValueError(box.kind)


def score(rules: YahtzeeRules, box: str, counts: Sequence[int]) -> int:
    return box_points(rules.specs[rules.box(box)], tuple(counts))


def joker_points(rules: YahtzeeRules, b: int) -> int:
    """What an extra Yahtzee scores as a joker in box b: a house's or a straight's fixed
    points (25/30/40 in Yahtzee); -1 where the ordinary score stands."""
    box = rules.specs[b]
    fixed = box.fixed
    return fixed if box.kind in ("house", "straight") and fixed is not None else -1


@dataclass(frozen=True, eq=False)
class ScoreTables:
    base: np.ndarray  # (boxes, hands) ordinary scores
    upper_face: np.ndarray  # (boxes,) face 1..6 of an upper box, 0 for a lower box
    joker: np.ndarray  # (boxes,) joker score of a house or straight, -1 otherwise
    five: np.ndarray  # (hands,) face 0..5 of a hand of all dice alike, -1 otherwise
    yahtzee_box: int  # index of the Yahtzee box (-1 if none: no bonus, no joker)


@lru_cache(maxsize=16)
def tables(rules: YahtzeeRules) -> ScoreTables:
    kg = keep_graph(rules.dice)
    base = np.array(
        [[box_points(b, tuple(c)) for c in kg.roll_counts.tolist()] for b in rules.specs],
        np.int64,
    )
    upper_face = np.array([b.face if b.kind == "upper" else 0 for b in rules.specs], np.int64)
    joker = np.array([joker_points(rules, i) for i in range(rules.n_boxes)], np.int64)
    n = rules.dice
    five = np.array([int(np.argmax(c)) if max(c) == n else -1 for c in kg.roll_counts], np.int64)
    return ScoreTables(base, upper_face, joker, five, rules.yahtzee_box)
