"""Exact roll outcomes: multinomial probabilities summing to exactly 1, colour pairs."""

from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dicesolver.outcomes.dice import colour_match_probability, outcomes


@pytest.mark.parametrize("n, distinct", [(1, 6), (2, 21), (3, 56), (4, 126), (5, 252), (6, 462)])
def test_outcomes_sum_to_exactly_one(n, distinct):
    outs = outcomes(n)
    assert len(outs) == distinct
    assert sum(o.prob for o in outs) == 1


def test_colour_aware_six_dice_sum_to_one():
    outs = outcomes(6, colour_pairs=True)
    assert sum(o.prob for o in outs) == 1
    assert sum(o.prob for o in outs if o.matched) == Fraction(6**3, 6**6)  # 3 pairs match


def test_three_distinct_pairs_colour_matched_6_in_90():
    """RULES.md zonk-detroit: a roll of three distinct pairs is colour-matched w.p. 6/90."""
    assert colour_match_probability((2, 2, 2, 0, 0, 0)) == Fraction(6, 90)
    assert colour_match_probability((4, 2, 0, 0, 0, 0)) == Fraction(3, 15)
    assert colour_match_probability((6, 0, 0, 0, 0, 0)) == 1
    assert colour_match_probability((3, 3, 0, 0, 0, 0)) == 0


def test_colour_probability_by_brute_force_over_ordered_dice():
    """Enumerate all 6**6 ordered rolls, dice (0,1), (2,3), (4,5) being the colour pairs."""
    matched = {}
    total = {}
    for roll in product(range(6), repeat=6):
        key = tuple(roll.count(f) for f in range(6))
        total[key] = total.get(key, 0) + 1
        if roll[0] == roll[1] and roll[2] == roll[3] and roll[4] == roll[5]:
            matched[key] = matched.get(key, 0) + 1
    for o in outcomes(6, colour_pairs=True):
        if o.matched:
            assert o.prob == Fraction(matched[o.counts], 6**6)
        else:
            assert o.prob == Fraction(total[o.counts] - matched.get(o.counts, 0), 6**6)


@given(st.integers(1, 4))
def test_multinomial_matches_ordered_enumeration(n):
    counts = {}
    for roll in product(range(6), repeat=n):
        key = tuple(roll.count(f) for f in range(6))
        counts[key] = counts.get(key, 0) + 1
    for o in outcomes(n):
        assert o.prob == Fraction(counts[o.counts], 6**n)
