"""The must-roll state's tables of an N-player batch (nplayer_game.must_roll_space, issue 39):
where hot dice are mandatory and every outcome has one choice (the zilch presets), a batch's
first turn solve writes the must-roll state's values past each cut out of the kernel, and
the later solves read them as chain tables (alpha + beta z whatever z) instead of running
that recursion again (zilch to 2000 among three: the score sums 69-76 -> 42 CPU seconds)."""

import dataclasses

import numpy as np
import pytest

from dicesolver.objectives import nplayer_game as NG
from dicesolver.rules import load
from dicesolver.store import Store
from dicesolver.tables import Tables
from dicesolver.turn import starts as ST

from .solvers import small_rules


def _solved(rs, N, tables):
    tab = Tables(rs, Store.resolve())
    R = rs.reach_units()
    fin = NG.solve_finals(tab.model, R, N, 0 if rs.end == "instant" else tab.reach_bound)
    space = NG.must_roll_space
    built = []

    def counted(model, U):
        got = space(model, U) if tables else None
        built.append(got is not None)
        return got

    NG.must_roll_space = counted
    try:
        return NG.solve_serial(tab.model, R, N, fin), built
    finally:
        NG.must_roll_space = space


@pytest.mark.parametrize(
    "N, kw, end",
    [(3, {"entry": 300}, "instant"), (3, {"bank": 100}, "final_round"), (4, {}, "final_round")],
)
def test_the_tables_change_no_chance(N, kw, end):
    """Three dice, forced set-aside, mandatory hot dice (one choice per outcome): the table
    solved with the must-roll tables equals the one without to 1e-12 (measured 3e-16 at
    three players), and every batch built them."""
    rs = small_rules(3, "forced", "mandatory", **kw, game={"target": 400, "end": end})
    with_tables, built = _solved(rs, N, True)
    without, _ = _solved(rs, N, False)
    assert built and all(built)
    assert np.abs(with_tables - without).max() < 1e-12


def _leader_chances(states: np.ndarray, R: int) -> np.ndarray:
    """Smooth stand-in chances (each seat's share of exp(8 score / R)): the payoffs of a
    turn only need to be chances, not the table's, for the tables to be checked."""
    w = np.exp(8.0 * np.asarray(states, float) / R)
    return w / w.sum(axis=1, keepdims=True)


@pytest.fixture(scope="module")
def zilch_batch(tmp_path_factory):
    """zilch to 1000 among three, instantly ended (no final round to solve): a batch of 40
    states' bank payoffs and zilch payoffs from smooth stand-in chances."""
    rs = dataclasses.replace(load("zilch"), target=1000, end="instant")
    tab = Tables(rs, Store(tmp_path_factory.mktemp("tables")))
    R = rs.reach_units()
    fin = NG.solve_finals(tab.model, R, 3, 0)
    states = np.random.default_rng(5).integers(0, R, size=(40, 3))
    U = NG.bank_values(states, R, lambda t: _leader_chances(t, R), fin)
    z = _leader_chances(NG.rotate(states), R)[:, 2].copy()
    return tab.model, states, U, z


@pytest.mark.parametrize("lanes", ["0", "1"])
def test_a_solve_from_the_tables_is_the_solve_without_them(zilch_batch, monkeypatch, lanes):
    """zilch to 1000 among three (stand-in payoffs): tables written at one zilch payoff z and
    read at another (z + 0.05, so some cuts move) give each turn's start value, zilch
    chance and the others' chances of a solve without tables to 1e-13, and the same slack
    (the tables hold no decision: one choice per outcome), one row or four at a time."""
    monkeypatch.setenv("DICESOLVER_LANES", lanes)
    model, states, U, z = zilch_batch
    out = NG.must_roll_space(model, U)
    assert out is not None
    NG.turn_parts(model, states, U, z, None, None, out)
    chains = ST.must_roll_tables(out, z, NG.turn_stops(model, states, U, z))
    z2 = np.clip(z + 0.05, 0.0, 1.0)
    moved = NG.turn_stops(model, states, U, z2) != NG.turn_stops(model, states, U, z)
    assert moved.any()
    slack, slack_ref = np.empty(len(z)), np.empty(len(z))
    A, g = NG.turn_parts(model, states, U, z2, slack, chains)
    A_ref, g_ref = NG.turn_parts(model, states, U, z2, slack_ref)
    assert np.abs(A - A_ref).max() < 1e-13 and np.abs(g - g_ref).max() < 1e-13
    assert np.abs(slack - slack_ref).max() < 1e-13 and (slack > 0).any()


def test_no_tables_where_the_must_roll_state_has_choices():
    """Free set-aside with mandatory hot dice (the must-roll state's choices depend on z:
    not alpha + beta z) and optional hot dice (no must-roll state past the cut): none."""
    for rs in (
        small_rules(3, "any", "mandatory", game={"target": 400}),
        small_rules(3, "forced", "optional", game={"target": 400}),
    ):
        model = Tables(rs, Store.resolve()).model
        assert NG.must_roll_space(model, np.zeros((2, 30, 3))) is None
