"""The turn kernel's rows four at a time (game_starts' AVX2 lanes, issue 39): the same bits
as one row at a time (DICESOLVER_LANES=0), for two, three and four players, with and
without mandatory hot dice (the must-roll state's own recursion past the cut)."""

import dataclasses

import numpy as np
import pytest

from dicesolver.objectives import nplayer_game as NG
from dicesolver.rules import load
from dicesolver.store import Store
from dicesolver.tables import Tables
from dicesolver.turn import kernel

from .solvers import small_rules

pytestmark = pytest.mark.skipif(
    kernel.compiled("game_starts") is None, reason="the turn kernel is not built"
)


SLOW = pytest.mark.slow


def _table(rs, N, monkeypatch, lanes):
    monkeypatch.setenv("DICESOLVER_LANES", "1" if lanes else "0")
    tab = Tables(rs, Store.resolve())
    R = rs.reach_units()
    fin = NG.solve_finals(tab.model, R, N, tab.reach_bound)
    return NG.solve_serial(tab.model, R, N, fin)


def _small(set_aside, hot, target):
    return small_rules(3, set_aside, hot, game={"target": target, "end": "final_round"})


@pytest.mark.slow  # (a full-size reference: the slow tier)
@pytest.mark.parametrize(
    "rules, N",
    [
        (lambda: _small("any", "optional", 1500), 3),
        (lambda: _small("any", "mandatory", 1500), 3),  # the must-roll state past the cut
        (lambda: _small("forced", "mandatory", 1500), 3),  # chain tables: one choice each
        (lambda: _small("any", "optional", 1000), 2),
        pytest.param(lambda: _small("any", "optional", 500), 4, marks=SLOW),
        pytest.param(lambda: dataclasses.replace(load("farkle"), target=600), 3, marks=SLOW),
        pytest.param(lambda: dataclasses.replace(load("zilch"), target=500), 3, marks=SLOW),
        pytest.param(lambda: dataclasses.replace(load("farkle"), target=400), 4, marks=SLOW),
    ],
)
def test_rows_in_lanes_give_the_same_table_bit_for_bit(rules, N, monkeypatch):
    rs = rules()
    one = _table(rs, N, monkeypatch, lanes=False)
    four = _table(rs, N, monkeypatch, lanes=True)
    assert np.array_equal(one, four)


@SLOW  # (4 s; the small tables above keep the lanes in the quick tier)
def test_rows_in_lanes_give_the_same_turns_bit_for_bit(monkeypatch):
    """A batch whose rows' cuts differ (a group runs from its highest) and whose count is
    not a multiple of four (the last group repeats a row)."""
    rs = dataclasses.replace(load("farkle"), target=600)
    tab = Tables(rs, Store.resolve())
    R, N = rs.reach_units(), 3
    fin = NG.solve_finals(tab.model, R, N, tab.reach_bound)
    V = NG.solve_serial(tab.model, R, N, fin)
    lookup = lambda s: V[tuple(s.T)]  # noqa: E731
    states = NG.orbit_batches(15, R, N, NG.ORBITS_PER_TASK)[0][:-1]
    U = NG.bank_values(states, R, lookup, fin)
    z = V[tuple(NG.rotate(states).T)][:, N - 1]
    got = {}
    for lanes in (False, True):
        monkeypatch.setenv("DICESOLVER_LANES", "1" if lanes else "0")
        got[lanes] = NG.turn_parts(tab.model, states, U, z)
    assert len(states) % 4 and np.array_equal(got[False][0], got[True][0])
    assert np.array_equal(got[False][1], got[True][1])


@SLOW
def test_rows_in_lanes_give_the_same_table_at_farkle_1500(monkeypatch):
    rs = dataclasses.replace(load("farkle"), target=1500)
    assert np.array_equal(
        _table(rs, 3, monkeypatch, lanes=False), _table(rs, 3, monkeypatch, lanes=True)
    )
