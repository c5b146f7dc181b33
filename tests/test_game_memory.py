"""The two-player game's memory bounded before the solve (issue 26, finding 11): `zilch game
--rules zilch-pyramiding --target 1000` grew past 5.5 GB (15.2 GB here at target 100: the
final turns' table, one solve over 1 973 deficits x 82 turn states x 2 077 totals, of which
only each deficit's start is kept).  The final turns are now solved in batches that fit
(last_turn.last_turn_start), and objectives/plain_game.py: estimate bounds the peak; a game
whose estimate exceeds what this machine gives a solve is refused with the figure and the
option.  No memory is measured here: the figures below were, with the command given."""

import numpy as np
import pytest

from dicesolver import limits
from dicesolver.objectives import last_turn
from dicesolver.objectives.game_run import GameRun
from dicesolver.objectives.last_turn import last_turn_start, solve_last_turn
from dicesolver.objectives.plain_game import estimate
from dicesolver.rules import load

from .clirun import zilch
from .solvers import tables

# Peak resident memory of `zilch game --rules R --target T` (an empty tables folder: the
# model, the reach bound and the game; /usr/bin/time -f %M), MB: with the turns' start
# values in C (issue 29), and before them in the comments
MEASURED = [
    ("zilch-pyramiding", 1000, 118),  # 716 before; past 5.5 GB (issue 26); 15.2 GB at 100
    ("zilch-pyramiding", 4000, 122),  # 710 before
    ("zilch-pyramiding", 15000, 136),
    ("farkle", 500, 45),  # 115 before
    ("farkle", 10000, 50),  # 183 before
    ("zilch", 10000, 64),  # 450 before
    ("zilch-online", 2000, 289),  # 284 before (permanent points: the levels' whole turns)
]


@pytest.mark.parametrize("name, target, peak_mb", MEASURED)
def test_the_game_estimate_bounds_the_measured_peak(name, target, peak_mb):
    """The estimate is at least the measured peak, and within 2.5 times it (an estimate
    that refuses what fits would be no better than none)."""
    tab = tables(load(name))
    nbytes, _ = estimate(GameRun(tab.model, tab.reach_bound, target))
    assert peak_mb * 1e6 <= nbytes <= 2.5 * peak_mb * 1e6, nbytes / 1e6


def test_pyramidings_final_turns_are_solved_in_batches():
    """zilch-pyramiding's final turns in one solve would take more than a batch may (it
    took 12.3 GB for one board flag, measured), so they are solved in batches; farkle's,
    zilch's and zilch-online's fit in one (their tables unchanged, bit for bit)."""
    for name, batched in [("zilch-pyramiding", True), ("farkle", False), ("zilch", False)]:
        tab = tables(load(name))
        top = load(name).reach_units(10000) + tab.reach_bound
        big = last_turn.last_turn_bytes(tab.model, top + 1, top) > last_turn.BATCH_BYTES
        assert big == batched, name
    tab = tables(load("zilch-online"))
    top = load("zilch-online").reach_units(5000) + tab.reach_bound
    assert last_turn.last_turn_bytes(tab.model, top + 1, top) < last_turn.BATCH_BYTES


@pytest.mark.parametrize("name", ["zilch-online"])
def test_final_turns_in_batches_equal_the_one_solve(name, monkeypatch):
    """Rules with permanent points solve the final turns whole (the levels): batches of 37
    deficits (BATCH_BYTES made small) give every deficit's chance of the one solve to an
    ulp (measured: 0)."""
    rs = load(name)
    tab = tables(rs)
    deficits = np.arange(rs.reach_units(5000) + tab.reach_bound + 1) * rs.unit
    one = solve_last_turn(tab.model, deficits, True)[0].roll[:, 0, 0]
    assert np.array_equal(last_turn_start(tab.model, deficits, True), one)  # (one solve)
    per_row = last_turn.last_turn_bytes(tab.model, 1, int(deficits[-1]) // rs.unit)
    monkeypatch.setattr(last_turn, "BATCH_BYTES", 37 * per_row)
    assert np.abs(last_turn_start(tab.model, deficits, True) - one).max() <= 2.3e-16


@pytest.mark.parametrize("name", ["zilch", "farkle", "zonk-chicago"])
def test_final_turns_start_values_in_c_equal_the_whole_solve(name):
    """Without permanent points the final turns' starts come from the C kernel alone
    (turn.starts, no whole solution's grid): equal to the whole solve's to 1e-15
    (measured: zilch 2.7e-20, farkle 0, zonk-chicago 1.4e-20)."""
    rs = load(name)
    tab = tables(rs)
    deficits = np.arange(rs.reach_units(5000) + tab.reach_bound + 1) * rs.unit
    one = solve_last_turn(tab.model, deficits, True)[0].roll[:, 0, 0]
    assert np.abs(last_turn_start(tab.model, deficits, True) - one).max() <= 1e-15


def test_a_game_beyond_this_machine_is_refused_with_the_figure(monkeypatch):
    """With 100 MB to give a solve, the issue's game is refused before it starts: one
    line with its estimate and the option that changes it (issue 26's main estimated 4 MB
    and grew past 5.5 GB; it peaks at 118 MB now)."""
    monkeypatch.setattr(limits, "memory", lambda: 100_000_000)
    res = zilch("game", "--rules", "zilch-pyramiding", "--target", "1000", code=2)
    assert "needs about 142.4 MB of memory" in res.stderr and "--target" in res.stderr
    folder = tables(load("zilch-pyramiding")).store.folder
    assert not list(folder.glob("zilch-pyramiding-*game1000*"))  # (nothing solved)
