"""The single-turn solver: published thresholds, exact brute force, the cap, invariants, and
a simulation cross-check for every preset."""

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicesolver import rules
from dicesolver.answers.checks import resolve_policy
from dicesolver.objectives.score import score_payoff, solve_score
from dicesolver.outcomes.model import turn_model
from dicesolver.play.simulate import play_turns
from dicesolver.rules import from_dict
from dicesolver.turn import TurnState, solve_turn
from dicesolver.turn.reach import sweep

from . import bruteforce
from .solvers import score_policy, tables
from .solvers import small_rules as _small


def _longer(pay, start):
    """The same payoff with its affine tail declared further out: a longer grid."""
    return dataclasses.replace(pay, tail=dataclasses.replace(pay.tail, start=start))


def test_busche_farkle_bank_thresholds():
    """M. Busche's Farkle strategy tables: the smallest turn total at which banking beats
    rolling is 16400 with 6 dice, 3050 with 5, 1050 with 4, 450 with 3, 250 with 2, 300 with
    1."""
    pol = score_policy(rules.load("farkle"))
    assert pol.bank_thresholds(True) == {6: 16400, 5: 3050, 4: 1050, 3: 450, 2: 250, 1: 300}
    # and banking there beats rolling strictly, while one step below rolling is better
    for n, t in pol.bank_thresholds(True).items():
        v = pol.value_at(TurnState(n, t))
        assert v.bank > v.roll
        v = pol.value_at(TurnState(n, t - 50))
        assert v.roll > v.bank


@pytest.mark.parametrize(
    "rs, min_bank",
    [
        (_small(3, "any", "optional", straight=[1, 2, 3]), 0),
        (_small(3, "forced", "mandatory", bank=150), 150),
        (_small(4, "forced", "optional", entry=300), 300),
    ],
)
def test_fast_solver_equals_exact_brute_force_on_every_reachable_state(rs, min_bank):
    """DESIGN.md: an independent naive solver over ordered dice in Fractions agrees on every
    reachable state of a reduced game."""
    value, T = bruteforce.solve(rs, min_bank)
    main, _ = solve_score(turn_model(rs))
    row = 1 if min_bank == rs.bank_minimum else 0
    u = rs.unit
    reach = sweep(turn_model(rs), T // u)
    checked = 0
    for s in range(rs.dice + 1):
        for r in np.nonzero(reach[s])[0]:
            forced = s == 0
            n = rs.dice if forced else s
            exact = value(n, int(r) * u, forced)
            roll, bank = main.at(s, int(r))
            fast = max(roll[row], bank[row])
            assert fast == pytest.approx(float(exact), rel=1e-12, abs=1e-9), (s, r)
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("name", rules.preset_names())
def test_cap_is_exact_extending_the_grid_changes_nothing(name):
    """turn.py's cap: solving on a grid three times longer gives the same values."""
    rs = rules.load(name)
    model = turn_model(rs)
    main, secured = solve_score(model)
    pay = score_payoff(
        rs,
        [rs.min_bank(False), rs.min_bank(True)],
        {a: secured for a in {int(p) for p in model.perm if p}},
    )
    long = solve_turn(model, _longer(pay, 3 * main.cap))
    assert long.cap >= 3 * main.cap
    L = main.roll.shape[2]
    np.testing.assert_allclose(long.value[:, :, :L], main.value, rtol=1e-12, atol=1e-9)
    # beyond the cap banking is optimal wherever it is a free choice
    assert np.all(main.bank[:, 1:, main.cap :] >= main.roll[:, 1:, main.cap :])


@pytest.mark.parametrize("name", rules.preset_names())
def test_invariants_of_the_expected_score_tables(name):
    rs = rules.load(name)
    pol = score_policy(rs)
    v = np.maximum(pol.main.roll, pol.main.bank)
    # more points at risk never hurt a free state ... and never beat banking them
    assert np.all(np.diff(v[:, 1:, :], axis=2) >= -1e-9)
    assert np.all(v[:, 1:, :] >= pol.main.bank[:, 1:, :])
    # a fresh turn is worth more on the board (no entry minimum) than off it
    assert pol.expected_turn_score(True) >= pol.expected_turn_score(False) - 1e-12
    assert 0 < pol.expected_turn_score(True) < 2000


@pytest.mark.parametrize("name", rules.preset_names())
@pytest.mark.parametrize("on_board", [True, False])
def test_simulated_mean_within_4_standard_errors_of_exact(name, on_board):
    """The optimal policy played with physical dice for 200,000 turns."""
    rs = rules.load(name)
    pol = score_policy(rs)
    tab = tables(rs)
    res = (
        play_turns(
            tab.model,
            resolve_policy("optimal", tab, on_board),
            200_000,
            np.random.default_rng(2026),
            on_board,
        ).points
        * rs.unit
    )
    exact = pol.expected_turn_score(on_board)
    se = res.std(ddof=1) / np.sqrt(len(res))
    assert abs(res.mean() - exact) < 4 * se


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    dice=st.integers(2, 6),
    single1=st.sampled_from([100, 200]),
    single5=st.sampled_from([0, 50]),
    triple=st.sampled_from([0, 100, 300]),
    mandatory=st.booleans(),
    forced=st.booleans(),
    minimum=st.sampled_from([0, 300]),
)
def test_random_house_rules_solve_consistently(
    dice, single1, single5, triple, mandatory, forced, minimum
):
    """Property: for any house rules the grid solution satisfies the Bellman equation past
    the cap (a longer grid agrees) and values are monotone in the turn total."""
    faces = {str(f): [0] * dice for f in range(1, 7)}
    faces["1"][0], faces["5"][0] = single1, single5
    if dice >= 3 and triple:
        for f in range(2, 7):
            faces[str(f)][2] = triple * f // 2 // 50 * 50 or 50
    rs = from_dict(
        {
            "dice": dice,
            "faces": faces,
            "set_aside": "forced" if forced else "any",
            "hot_dice": "mandatory" if mandatory else "optional",
            "entry_minimum": minimum,
            "bank_minimum": 0,
        },
        "prop.toml",
    )
    main, _ = solve_score(turn_model(rs))
    pay = score_payoff(rs, [rs.min_bank(False), rs.min_bank(True)])
    long = solve_turn(turn_model(rs), _longer(pay, 2 * main.cap + 10))
    L = main.roll.shape[2]
    np.testing.assert_allclose(long.value[:, :, :L], main.value, rtol=1e-12, atol=1e-9)
    v = main.value
    assert np.all(np.diff(v[:, 1:, :], axis=2) >= -1e-9)
