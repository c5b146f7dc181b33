"""The solve's own estimate (what `zilch game` prints before a long solve, and refuses by)
within a factor of two of the time measured (issue 29): the estimators' formulas and
constants against figures measured on this machine at small and full sizes.  No time is
measured here: the figures below were, from nothing and the whole process, with
`python bench/bench_cold_game.py PRESET:TARGET` (wall time; 2 cores, the machine quiet but
for a little other work; the rules that are no preset in-process, with the bench named)."""

import dataclasses

import pytest

from dicesolver import rules
from dicesolver.variants import of

from .solvers import tables


def _with(name: str, **game) -> rules.RuleSet:
    src = rules.canonical_source(name)
    src["game"].update(game)
    return rules.from_dict(src, f"{name}-{'-'.join(game)}.toml")


def _challenge(name: str) -> rules.RuleSet:
    return _with(name, challenge=True, challenge_threshold=5000, challenge_costs=[600, 2000])


# (rules, target, seconds measured)
MEASURED = [
    (lambda: rules.load("zilch"), 5000, 0.8),
    (lambda: rules.load("zilch"), 10000, 2.2),
    (lambda: rules.load("zilch"), 15000, 4.6),
    (lambda: rules.load("farkle"), 10000, 5.8),
    (lambda: rules.load("zilch-online"), 1500, 7.3),
    (lambda: rules.load("zilch-online"), 5000, 53.4),
    (lambda: rules.load("zilch-pyramiding"), 1500, 2.9),
    (lambda: rules.load("zilch-pyramiding"), 4000, 6.7),
    (lambda: rules.load("zilch-pyramiding"), 15000, 40.7),
    (lambda: rules.load("zilch-overtaking"), 4000, 1.1),
    (lambda: rules.load("zilch-overtaking"), 15000, 16.6),
    # bench/bench_overtaking.py farkle 1500 3000 (in-process)
    (lambda: _with("farkle", overtaking=True), 1500, 1.7),
    (lambda: _with("farkle", overtaking=True), 3000, 10.5),
    (lambda: rules.load("zilch-challenge"), 500, 4.1),
    (lambda: rules.load("zilch-challenge"), 1000, 5.4),
    (lambda: rules.load("zilch-challenge"), 2000, 8.8),
    (lambda: rules.load("zilch-challenge"), 3000, 13.1),
    (lambda: rules.load("zilch-challenge"), 15000, 318.6),
    # bench/same_tables.py small, farkle-challenge-500-2-None (in-process)
    (lambda: _challenge("farkle"), 500, 7.6),
]
# (rules, target, lowest, seconds measured): farkle with the 500 penalty (the rule file
# of bench/bench_game_rows.py), scores down to `lowest`
PENALTY = lambda: _with("farkle", three_zilch_penalty=500)  # noqa: E731
MEASURED_LOWEST = [
    (PENALTY, 2000, -500, 6.1),
    (PENALTY, 5000, -1000, 29.1),
    (PENALTY, 10000, -2000, 141.3),
]


@pytest.mark.parametrize("make, target, seconds", MEASURED)
def test_the_estimate_is_within_two_of_the_measured_time(make, target, seconds):
    rs = dataclasses.replace(make(), target=target)
    variant = of(rs, 2)
    cost = variant.estimate(tables(rs), variant.key(2, None))
    assert seconds / 2 <= cost.seconds <= 2 * seconds, (rs.name, target, cost.seconds)


@pytest.mark.parametrize("make, target, lowest, seconds", MEASURED_LOWEST)
def test_the_penalty_games_estimate_is_within_two_of_the_measured_time(
    make, target, lowest, seconds
):
    rs = dataclasses.replace(make(), target=target)
    variant = of(rs, 2)
    cost = variant.estimate(tables(rs), variant.key(2, lowest))
    assert seconds / 2 <= cost.seconds <= 2 * seconds, (rs.name, target, cost.seconds)


# (preset, target, players, seconds measured with two workers): bench/bench_game_rows.py's
# way (`zilch game --players N --workers 2` from nothing)
MEASURED_PLAYERS = [
    ("farkle", 3000, 3, 43.5),
    ("farkle", 5000, 3, 145.0),
    ("farkle", 10000, 3, 1165.3),
    ("zilch", 1000, 3, 15.3),
    ("zilch", 2000, 3, 46.7),
    ("farkle", 1000, 4, 200.2),
]


@pytest.mark.parametrize("name, target, players, seconds", MEASURED_PLAYERS)
def test_the_n_player_estimate_is_within_two_of_the_measured_time(name, target, players, seconds):
    rs = dataclasses.replace(rules.load(name), target=target)
    variant = of(rs, players)
    cost = variant.estimate(tables(rs), variant.key(players, None), workers=2)
    assert seconds / 2 <= cost.seconds <= 2 * seconds, (name, target, players, cost.seconds)
