"""The N-player game's mixed equilibria (objectives/nplayer_game.mixed_orbit): an orbit
whose movers' best replies cycle is settled by a stationary equilibrium in which no mover
has a better reply."""

from pathlib import Path

import numpy as np
import pytest

from dicesolver.errors import InputError
from dicesolver.objectives import nplayer_game as NG
from dicesolver.outcomes.model import turn_model
from dicesolver.rules import load

ORBIT = Path(__file__).parent / "data" / "orbit-4p-farkle2000-6-20-24-36.npz"


def _orbit():
    """Four players, farkle to 2000, the orbit of scores (6, 20, 24, 36) (units of 50): the
    movers' bank payoffs U (from the exact table's higher sums and final round), and the
    turn policies (A, g) each tried while the solver's best replies cycled (saved from
    `zilch game --players 4 --target 2000`, where this orbit stopped the whole solve)."""
    d = np.load(ORBIT)
    options = [[(A, float(g)) for A, g in zip(d[f"A{i}"], d[f"g{i}"])] for i in range(4)]
    return turn_model(load("farkle").aimed(2000)), d["states"], d["U"], d["nxt"], options


def _gains(model, states, U, nxt, V):
    """Each mover's best pure reply to V less his chance in V."""
    z = V[nxt, states.shape[1] - 1]
    bA, bg = NG.turn_parts(model, states, U, z)
    return bA[:, 0] + bg * z - V[:, 0]


def test_four_players_farkle_2000_orbit_6_20_24_36_has_an_equilibrium():
    """The orbit that stopped the four-player farkle-to-2000 solve ("no stationary
    equilibrium the solver finds"): the search of 4 rounds of better replies finds none,
    the longer second search finds one where no mover gains by a pure reply (1e-12) and
    the four chances of each state sum to 1."""
    model, states, U, nxt, options = _orbit()
    first = [list(o) for o in options]
    assert NG._search_supports(model, states, U, nxt, first, rounds=4, replace=False) is None
    V = NG.mixed_orbit(model, states, U, nxt, options)
    assert _gains(model, states, U, nxt, V).max() < 1e-12
    assert np.abs(V.sum(axis=1) - 1).max() < 1e-12


def test_an_orbit_with_no_equilibrium_found_is_refused_in_one_line(monkeypatch):
    """Where neither search finds an equilibrium, InputError names the rules and the
    scores (one line for the command, exit 2)."""
    model, states, U, nxt, options = _orbit()
    monkeypatch.setattr(NG, "_search_supports", lambda *a, **k: None)
    with pytest.raises(InputError, match=r"^farkle: the 4-player game at scores \(6, 20, 24, 36\)"):
        NG.mixed_orbit(model, states, U, nxt, options)


def test_supports_are_only_policies_best_at_some_zilch_payoff():
    """A mover's chance under a policy is a line a + g z in his zilch payoff z: only the
    lines on the upper envelope over [0, 1] (and pairs meeting on it) can be his part of an
    equilibrium.  Lines 0.5, 0.3 + 0.4 z, 0.1 + 0.9 z, 0.2 + 0.1 z: the second and the
    fourth are never best; the first and third meet at z = 4/9."""
    lines = [(0.5, 0.0), (0.3, 0.4), (0.1, 0.9), (0.2, 0.1)]
    options = [(np.array([a, 1 - a]), g) for a, g in lines]
    assert NG._choices(options) == [(0,), (2,), (0, 2)]
    twin = [*options, (np.array([0.5, 0.3]), 0.0)]  # (the first line again: mixable with it)
    assert (0, 4) in NG._choices(twin)
