"""Box scores of a five-dice hand, and the tables the solver reads (RULES.md).

American boxes: upper = face x count; three/four of a kind = sum; full house 25 (a 3+2 of
different faces: five of a kind is one only as a joker); small straight 30; large 40;
Yahtzee 50; chance = sum.  Scandinavian: one pair = 2 x the highest pair; two pairs of
different faces = 2a + 2b; three/four of a kind = 3v/4v; 1-2-3-4-5 = 15; 2-3-4-5-6 = 20;
full house (3+2, different faces) = sum; chance = sum; yatzy 50.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .dice import keep_graph
from .rules import UPPER, YahtzeeRules

JOKER_VALUES = {"full_house": 25, "small_straight": 30, "large_straight": 40}


def _run(counts, length: int) -> bool:
    run = 0
    for c in counts:
        run = run + 1 if c else 0
        if run >= length:
            return True
    return False


def box_score(box: str, counts) -> int:
    """The ordinary (non-joker) American score of a hand given by its face counts."""
    total = sum((f + 1) * c for f, c in enumerate(counts))
    top = max(counts)
    if box in UPPER:
        f = UPPER.index(box)
        return (f + 1) * counts[f]
    scores = {
        "three_kind": total if top >= 3 else 0,
        "four_kind": total if top >= 4 else 0,
        "full_house": 25 if sorted(c for c in counts if c) == [2, 3] else 0,
        "small_straight": 30 if _run(counts, 4) else 0,
        "large_straight": 40 if _run(counts, 5) else 0,
        "yahtzee": 50 if top == 5 else 0,
        "chance": total,
    }
    return scores[box]


def yatzy_score(box: str, counts) -> int:
    total = sum((f + 1) * c for f, c in enumerate(counts))
    sig = sorted(c for c in counts if c)
    pairs = [f + 1 for f in range(6) if counts[f] >= 2]
    if box in UPPER:
        f = UPPER.index(box)
        return (f + 1) * counts[f]
    if box == "one_pair":
        return 2 * max(pairs) if pairs else 0
    if box == "two_pairs":
        return 2 * (pairs[-1] + pairs[-2]) if len(pairs) >= 2 else 0
    if box == "three_kind":
        v = [f + 1 for f in range(6) if counts[f] >= 3]
        return 3 * v[0] if v else 0
    if box == "four_kind":
        v = [f + 1 for f in range(6) if counts[f] >= 4]
        return 4 * v[0] if v else 0
    if box == "small_straight":
        return 15 if tuple(counts) == (1, 1, 1, 1, 1, 0) else 0
    if box == "large_straight":
        return 20 if tuple(counts) == (0, 1, 1, 1, 1, 1) else 0
    if box == "full_house":
        return total if sig == [2, 3] else 0
    if box == "chance":
        return total
    if box == "yatzy":
        return 50 if max(counts) == 5 else 0
    raise ValueError(box)


def score(rules: YahtzeeRules, box: str, counts) -> int:
    return yatzy_score(box, counts) if rules.family == "scandinavian" else box_score(box, counts)


@dataclass(frozen=True, eq=False)
class ScoreTables:
    base: np.ndarray  # (boxes, 252) ordinary scores
    upper_face: np.ndarray  # (boxes,) face 1..6 of an upper box, 0 for a lower box
    joker: np.ndarray  # (boxes,) joker score of full house / straights, -1 otherwise
    five: np.ndarray  # (252,) face 0..5 of a five-of-a-kind hand, -1 otherwise
    yahtzee_box: int  # index of the Yahtzee box (-1 if none: no bonus, no joker)


@lru_cache(maxsize=16)
def tables(rules: YahtzeeRules) -> ScoreTables:
    kg = keep_graph()
    base = np.array(
        [[score(rules, b, tuple(c)) for c in kg.roll_counts] for b in rules.boxes], np.int64
    )
    upper_face = np.array([UPPER.index(b) + 1 if b in UPPER else 0 for b in rules.boxes], np.int64)
    joker = np.array([JOKER_VALUES.get(b, -1) for b in rules.boxes], np.int64)
    five = np.array([int(np.argmax(c)) if max(c) == 5 else -1 for c in kg.roll_counts], np.int64)
    ybox = rules.boxes.index("yahtzee") if rules.joker and "yahtzee" in rules.boxes else -1
    return ScoreTables(base, upper_face, joker, five, ybox)
