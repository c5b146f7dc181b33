"""Fewer turn solves per state in the N-player game (issue 39): the first guess from the
solved corners of the cube above a state (nplayer_game.corner_guess, three players), and
the kernel's slack (SLACK in turn/_kernel.c): how far a mover's zilch payoff may move with
his turn's policy still optimal, by which an orbit settles without the solve that would
only confirm its policies (nplayer_game.settled_within_room)."""

import dataclasses
import itertools

import numpy as np
import pytest

from dicesolver.objectives import nplayer_game as NG
from dicesolver.rules import load
from dicesolver.store import Store
from dicesolver.tables import Tables
from dicesolver.turn import kernel

pytestmark = pytest.mark.skipif(
    kernel.compiled("game_starts") is None, reason="the turn kernel is not built"
)


def _poly(R, with_all_three):
    """V (R, R, R, 3): smooth chances-like functions of three scores, quadratic with cross
    terms of two scores (and, if asked, a term in all three)."""
    s = np.indices((R, R, R)).astype(float) / R
    V = np.stack(
        [
            0.3 + 0.2 * s[0] - 0.1 * s[1] ** 2 + 0.05 * s[1] * s[2],
            0.4 - 0.3 * s[2] + 0.07 * s[0] * s[1] + 0.02 * s[0] ** 2,
            0.1 + 0.1 * s[1] - 0.04 * s[0] * s[2],
        ],
        axis=-1,
    )
    if with_all_three:
        V[..., 0] += 0.5 * s[0] * s[1] * s[2]
    return V


def test_the_corner_guess_is_exact_without_a_term_in_all_three_scores():
    """The alternating sum over the cube's corners cancels every polynomial term that
    leaves out one score: exact for quadratics with cross terms of two scores; a term in
    all three is what it misses (so its error is of third order in the step)."""
    R = 7
    states = np.array(list(itertools.product(range(R - 1), repeat=3)))

    def guess(V):
        return NG.corner_guess(states, R, lambda t: V[tuple(t.T)], np.zeros((len(states), 3)))

    V = _poly(R, with_all_three=False)
    assert np.abs(guess(V) - V[tuple(states.T)]).max() < 1e-12
    W = _poly(R, with_all_three=True)
    assert np.abs(guess(W) - W[tuple(states.T)]).max() > 1e-3


def test_the_corner_guess_takes_the_neighbour_where_a_corner_is_at_the_reach():
    R = 5
    V = _poly(R, with_all_three=True)
    states = np.array([[0, 1, R - 1], [R - 1, 0, 0], [2, R - 1, 0], [1, R - 2, 2]])
    fallback = np.full((4, 3), -1.0)
    got = NG.corner_guess(states, R, lambda t: V[tuple(t.T)], fallback)
    assert np.array_equal(got[0], V[0, 2, R - 1])  # the next player's neighbour
    assert np.array_equal(got[1], V[R - 1, 1, 0])
    assert np.array_equal(got[2], fallback[2])  # that neighbour at R too
    assert not np.array_equal(got[3], V[1, R - 1, 2])  # every corner below R: the cube's


@pytest.fixture(scope="module")
def farkle_1000(tmp_path_factory):
    rs = dataclasses.replace(load("farkle"), target=1000)
    tab = Tables(rs, Store(tmp_path_factory.mktemp("tables")))
    R = rs.reach_units()
    fin = NG.solve_finals(tab.model, R, 3, tab.reach_bound)
    return tab.model, R, fin, NG.solve_serial(tab.model, R, 3, fin)


def _rows(farkle_1000, n=60):
    model, R, fin, V = farkle_1000
    states = np.random.default_rng(3).integers(0, R, size=(n, 3))
    U = NG.bank_values(states, R, lambda t: V[tuple(t.T)], fin)
    z = V[tuple(NG.rotate(states).T)][:, 2].copy()
    return model, states, U, z


@pytest.mark.parametrize("lanes", ["0", "1"])
def test_the_policy_stays_optimal_within_the_slack(farkle_1000, monkeypatch, lanes):
    """Farkle to 1000, three players: at a zilch payoff moved by 0.9 of the slack either
    way, each turn's policy is the same (the same zilch chance and banking parts, to
    rounding: start values on the same line in z); the slack is the same one row or four
    rows at a time."""
    monkeypatch.setenv("DICESOLVER_LANES", lanes)
    model, states, U, z = _rows(farkle_1000)
    slack = np.empty(len(z))
    A, g = NG.turn_parts(model, states, U, z, slack)
    assert np.all(slack > 0) and np.all(np.isfinite(slack))
    for sign in (-1, 1):
        z2 = np.clip(z + sign * 0.9 * slack, 0.0, 1.0)
        A2, g2 = NG.turn_parts(model, states, U, z2)
        assert np.abs(g2 - g).max() < 1e-12
        assert np.abs(A2 - A).max() < 1e-12
    monkeypatch.setenv("DICESOLVER_LANES", "0" if lanes == "1" else "1")
    other = np.empty(len(z))
    NG.turn_parts(model, states, U, z, other)
    assert np.array_equal(other, slack)


def test_the_slack_is_not_loose(farkle_1000):
    """Moved well past its slack, some turn's policy does change: the slack is a margin of
    the decisions, not a bound that holds anyway."""
    model, states, U, z = _rows(farkle_1000)
    slack = np.empty(len(z))
    A, g = NG.turn_parts(model, states, U, z, slack)
    z2 = np.clip(z + 50 * slack, 0.0, 1.0)
    A2, g2 = NG.turn_parts(model, states, U, z2)
    assert np.abs(g2 - g).max() > 1e-9


def test_settling_within_the_slack_gives_the_same_table(farkle_1000, monkeypatch):
    """The orbits settled by the slack are the equilibria the confirming solve would have
    settled: the table without the shortcut is the same to rounding."""
    model, R, fin, V = farkle_1000
    monkeypatch.setattr(NG, "settled_within_room", lambda *a: False)
    without = NG.solve_serial(model, R, 3, fin)
    assert np.abs(without - V).max() < 1e-13
