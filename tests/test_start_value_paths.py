"""Issue 29: the penalty game and the N-player game read their turns' start values from the
C kernel (turn/starts.py) instead of whole turns; where the kernel is not built they solve
whole turns.  Both ways give the same table (the issue: every table equal to 1e-12)."""

import dataclasses

import numpy as np
import pytest

from dicesolver import rules
from dicesolver.objectives import nplayer_game as NG
from dicesolver.objectives.game_run import GameRun
from dicesolver.objectives.last_turn import reach_bound
from dicesolver.objectives.penalty_game import solve_penalty_game
from dicesolver.outcomes.model import turn_model
from dicesolver.turn import starts


def _whole_turns(monkeypatch):
    """As without the compiled kernel: solve_starts says "not built" (both games reach it
    through turn.starts.zilch_starts)."""
    monkeypatch.setattr(starts, "solve_starts", lambda *a, **k: None)


@pytest.mark.slow  # (4 s for farkle's, more for zilch's: the quick tier at its 3 minutes)
@pytest.mark.parametrize("name", ["farkle", "zilch"])
def test_three_players_start_values_equal_whole_turns(name, monkeypatch):
    rs = dataclasses.replace(rules.load(name), target=500)
    model = turn_model(rs)
    R = rs.reach_units()
    finals = NG.solve_finals(model, R, 3, reach_bound(model))
    fast = NG.solve_serial(model, R, 3, finals)
    _whole_turns(monkeypatch)
    whole = NG.solve_serial(model, R, 3, finals)
    assert np.isfinite(fast).all()
    assert np.abs(fast - whole).max() < 1e-12


@pytest.mark.parametrize(
    "name, extra",
    [
        pytest.param("farkle", {}, marks=pytest.mark.slow),  # (8 s: the reference tier)
        # one choice per outcome and mandatory hot dice: the chain tables past the target
        # (slow: the larger)
        pytest.param("zilch", {"entry_minimum": 0}, marks=pytest.mark.slow),
    ],
)
def test_the_penalty_games_start_values_equal_whole_turns(name, extra, monkeypatch):
    rs = dataclasses.replace(rules.load(name), three_zilch_penalty=500, **extra)
    model = turn_model(rs)
    D = reach_bound(model)
    fast = solve_penalty_game(GameRun(model, D, 1000, -500))
    _whole_turns(monkeypatch)
    whole = solve_penalty_game(GameRun(model, D, 1000, -500))
    assert fast.sweeps == whole.sweeps
    assert np.abs(fast.W - whole.W).max() < 1e-12
