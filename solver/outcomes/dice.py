"""Exact roll outcomes: every multiset of faces for n dice with its multinomial probability.

Dice are interchangeable except under a colour-pairs rule (zonk-detroit), where a six-dice
roll whose faces could form three same-colour pairs is split into "colour-matched" and
"not matched" outcomes with their exact probabilities.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement
from math import factorial, prod

FACES = 6


@dataclass(frozen=True)
class Outcome:
    counts: tuple[int, ...]  # counts[f-1] = dice showing face f
    prob: Fraction
    matched: bool = False  # colour-matched (both dice of each colour pair equal)

    @property
    def faces(self) -> tuple[int, ...]:
        return tuple(f + 1 for f, c in enumerate(self.counts) for _ in range(c))


def multinomial(counts: Sequence[int]) -> int:
    return factorial(sum(counts)) // prod(factorial(c) for c in counts)


def colour_match_probability(counts: Sequence[int]) -> Fraction:
    """P(three colour pairs each show one face | the six faces shown).

    Colourings of the multiset: 6!/prod(c!); matched ones assign the pair-faces
    (c/2 of each face) to the three colours: 3!/prod((c/2)!).  Three distinct pairs: 6/90.
    """
    if sum(counts) != 6 or any(c % 2 for c in counts):
        return Fraction(0)
    matched = factorial(3) // prod(factorial(c // 2) for c in counts)
    return Fraction(matched, multinomial(counts))


@cache
def outcomes(n: int, colour_pairs: bool = False) -> tuple[Outcome, ...]:
    """All distinct outcomes of rolling n dice; probabilities sum to exactly 1."""
    total = FACES**n
    out = []
    for combo in combinations_with_replacement(range(FACES), n):
        counts = tuple(combo.count(f) for f in range(FACES))
        p = Fraction(multinomial(counts), total)
        q = colour_match_probability(counts) if colour_pairs and n == 6 else Fraction(0)
        if q:
            out.append(Outcome(counts, p * q, True))
        if q != 1:
            out.append(Outcome(counts, p * (1 - q), False))
    return tuple(out)
