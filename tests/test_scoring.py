"""Scoring of single rolls: every worked example of the seeds and the scoring lists."""

from fractions import Fraction

import pytest

from dicesolver import rules
from dicesolver.outcomes.scoring import p_zilch, parse_roll, score_outcome


def forced(name, faces, matched=False):
    """(points, dice left) of the forced set-aside, or None for a zilch."""
    rs = rules.load(name)
    ch = score_outcome(rs, parse_roll(rs, faces, matched)).choices
    assert len(ch) <= 1
    return (ch[0].points, ch[0].left) if ch else None


# --- seed 001 (zilch-online): every roll of its worked turns ---------------------------------
@pytest.mark.parametrize(
    "faces, expect",
    [
        ([1, 1, 2, 3, 3, 4], (200, 4)),  # "set aside the two ones (200 points)"
        ([1, 2, 3, 3], (100, 3)),  # second roll: 300 in all, not 1000
        ([1, 1, 6, 3, 3, 3], (550, 0)),  # 100+100+50+300 = 550, all six set aside
        ([1, 1, 1, 2, 2, 2], (1200, 0)),  # 1000+200
        ([1, 2, 3, 4, 4, 5], (100, 5)),  # "scores as 100"
        ([2, 2, 3, 3, 4], None),  # zilch: loses 1850
        ([3, 3, 3, 3, 3], (300, 2)),  # Fred: three more dice set aside
        ([6, 5], (50, 1)),  # Fred: 450 in all
        ([4], None),
        ([1, 2, 2, 2, 4, 4], (300, 2)),
        ([2, 2, 3, 3, 4, 5], None),  # fives do not score in zilch-online
        ([2, 2, 3, 6, 6, 6], (600, 3)),
        ([2, 2, 2, 3, 3, 6], (250, 2)),
        ([1, 1, 1, 5, 5, 5], (1500, 0)),
        ([1, 2, 3, 4, 5, 6], (1500, 0)),  # permanent straight
        ([2, 3, 4, 4, 5, 5], None),
        ([1, 1, 1, 6, 6, 5], (1100, 1)),  # "rolls the remaining die"
    ],
)
def test_seed_001_worked_rolls(faces, expect):
    assert forced("zilch-online", faces) == expect


def test_seed_001_straight_is_permanent_and_fred_keeps_2350():
    rs = rules.load("zilch-online")
    ch = score_outcome(rs, parse_roll(rs, [1, 2, 3, 4, 5, 6])).choices[0]
    assert ch.permanent == 1500
    # Fred: 850 banked, then 1500 + straight 1500, then a zilch: 850 + 1500 = 2350
    assert 850 + ch.permanent == 2350


# --- seed 003 (Zonk) --------------------------------------------------------------------------
def test_seed_003_three_2s_a_5_and_a_1_is_350():
    assert forced("zonk-chicago", [2, 2, 2, 5, 1]) == (350, 0)
    assert forced("zonk-detroit", [2, 2, 2, 5, 1, 3]) == (350, 1)


@pytest.mark.parametrize("faces, pts", [([1, 2, 3, 4, 5], 1500), ([2, 3, 4, 5, 6], 1500)])
def test_seed_003_chicago_straights(faces, pts):
    assert forced("zonk-chicago", faces) == (pts, 0)


def test_seed_003_detroit_straight_and_colour_pairs():
    assert forced("zonk-detroit", [1, 2, 3, 4, 5, 6]) == (1000, 0)
    assert forced("zonk-detroit", [2, 2, 3, 3, 4, 4], matched=True) == (1000, 0)
    assert forced("zonk-detroit", [2, 2, 3, 3, 4, 4], matched=False) is None
    # RULES.md: colour-matched 1-1-1-1-2-2 counts four 1s (1100, two dice left)
    assert forced("zonk-detroit", [1, 1, 1, 1, 2, 2], matched=True) == (1100, 2)
    assert forced("zonk-detroit", [1] * 6, matched=True) == (2000, 0)


# --- the zilch scoring list (seeds 000/004) ---------------------------------------------------
@pytest.mark.parametrize(
    "faces, pts",
    [
        ([4] * 6, 6000),
        ([4] * 5 + [2], 5000),
        ([4] * 4 + [2, 3], 4000),
        ([2, 2, 2, 3, 3, 3], 3000),
        ([2, 2, 3, 3, 4, 4], 2000),
        ([1, 2, 3, 4, 5, 6], 1500),
        ([6, 6, 6], 600),
        ([5, 5, 5], 500),
        ([4, 4, 4], 400),
        ([3, 3, 3], 300),
        ([2, 2, 2], 200),
        ([1, 1, 1], 1000),
        ([1], 100),
        ([5], 50),
        ([2, 2, 2, 2, 1, 3], 4100),  # "four 2s plus a 1 = 4000 + 100"
        ([2, 2, 2, 2, 3, 3], 4000),  # four of a kind beats the three pairs it makes
    ],
)
def test_zilch_scoring_list(faces, pts):
    assert forced("zilch", faces)[0] == pts


def test_zilch_variants():
    assert forced("zilch-10000", [2, 2, 2, 2, 3, 3]) == (2000, 0)  # any three pairs
    assert forced("zilch-10000", [4] * 6) == (3000, 0)  # two triplets
    assert forced("zilch-10000", [1, 1, 1, 1]) == (1100, 0)
    assert forced("zilch-10000", [2, 2, 2, 2, 1, 3]) == (300, 2)  # fourth 2 not a counter
    assert forced("zilch-5000", [1] * 6) == (2000, 0)
    assert forced("zilch-5000", [2] * 6) == (400, 0)
    assert forced("zilch-5000", [2, 2, 3, 3, 4, 4]) is None


def test_farkle_scoring():
    def best(faces):
        rs = rules.load("farkle")
        return max(c.points for c in score_outcome(rs, parse_roll(rs, faces)).choices)

    assert best([2, 2, 2, 2]) == 400 and best([2] * 5) == 600 and best([2] * 6) == 800
    assert best([1, 1, 1, 1]) == 2000
    assert best([2, 2, 3, 3, 4, 4]) == 750 and best([1, 2, 3, 4, 5, 6]) == 1500
    assert best([2, 2, 2, 2, 3, 3]) == 400  # four of a kind + pair is not three pairs


def test_farkle_free_choices_are_every_undominated_keep():
    rs = rules.load("farkle")
    ch = score_outcome(rs, parse_roll(rs, [1, 1, 5, 3, 4, 6])).choices
    assert {(c.points, c.left) for c in ch} == {(100, 5), (200, 4), (250, 3)}


def test_six_dice_zilch_probabilities():
    assert p_zilch(rules.load("farkle"), 6) == Fraction(5, 216)
    assert p_zilch(rules.load("zilch-5000"), 6) == Fraction(5, 162)
    for n, p in [(1, Fraction(2, 3)), (2, Fraction(4, 9)), (3, Fraction(5, 18))]:
        assert p_zilch(rules.load("farkle"), n) == p
