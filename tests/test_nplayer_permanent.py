"""Permanent points among three players or more (issue 39: zilch-online's game, refused
among three before): a zilch that kept x permanent units moves to the state a bank of x
moves to, so the N-player turn is the two-player game's turn over the points it adds
(nplayer_game._permanent_batch, plain_game.permanent_turns) and x = 0 the plain zilch of
the rotation's cycle.  Checked: N = 2 through the N-player path equals the two-player
table; on rules without permanent points that turn equals the plain turn; among three,
games played with physical dice reproduce every seat's chance; the commands answer."""

import numpy as np
import pytest

from dicesolver.objectives import nplayer_game as NG
from dicesolver.rules import load, parse
from dicesolver.store import Store
from dicesolver.tables import Tables

from .game_sim import play_nplayer_games
from .solvers import game_table, small_rules, three_player_advice
from .test_nplayer import _serial

SLOW = pytest.mark.slow  # (the three-player games to 500, whole commands; the slow tier)

PERMANENT3 = """name = "permanent-3"
dice = 3
set_aside = "forced"
hot_dice = "optional"
entry_minimum = 300
bank_minimum = 0

[faces]
1 = [100, 0, 1000]
2 = [0, 0, 200]
3 = [0, 0, 300]
4 = [0, 0, 400]
5 = [50, 0, 500]
6 = [0, 0, 600]

[[patterns]]
kind = "straight"
points = 300
faces = [1, 2, 3]
permanent = true
"""


def permanent_text(target, end="final_round"):
    """3 dice (singles 1 and 5, triples), a permanent straight 1-2-3 of 300 (kept by a zilch
    later in the turn), 300 to get on the board: zilch-online's rules in small."""
    return PERMANENT3 + f'\n[game]\ntarget = {target}\nend = "{end}"\n'


def permanent3(target, end="final_round"):
    return parse(permanent_text(target, end), "permanent-3.toml")


@pytest.mark.parametrize("end", [pytest.param("final_round", marks=SLOW), "instant"])
def test_two_players_through_the_nplayer_path_equal_the_two_player_game(end, tmp_path):
    """N = 2 by the N-player path (the levels turn, the rotation's cycle, the final round
    from final_round.solve_final_round) against the two-player game's own solve
    (plain_game, its permanent path): to 1e-12 in every state; below, zilch-online itself
    to 500 (six dice, 500 to get on the board, the straight of 1500)."""
    rs = permanent3(600, end)
    assert rs.has_permanent
    V = _serial(rs, 2)
    W = game_table(Tables(rs, Store(tmp_path))).W
    assert V.shape == W.shape + (2,)
    assert np.abs(V[..., 0] - W).max() < 1e-12
    assert np.abs(V.sum(-1) - 1).max() < 1e-12


@SLOW
def test_zilch_online_through_the_nplayer_path_equals_the_two_player_game(tmp_path):
    rs = load("zilch-online").aimed(500)
    V = _serial(rs, 2)
    W = game_table(Tables(rs, Store(tmp_path))).W
    assert np.abs(V[..., 0] - W).max() < 1e-12


def test_the_levels_turn_equals_the_plain_turn_without_permanent_points(tmp_path):
    """On rules without permanent points the turn over the points added (x = 0 the zilch)
    must give the plain turn's banking parts A and zilch chance g: every state of a
    three-player table, to 1e-12 (the plumbing: the zilch's payoff at x = 0, the others'
    chances 0 there, the last seat's part from the rest)."""
    rs = small_rules(3, "any", "optional", entry=100, game={"target": 400, "end": "final_round"})
    g = _serial(rs, 3, game=True)
    states = np.indices((g.R,) * 3).reshape(3, -1).T
    lookup = lambda t: g.V[tuple(t.T)]  # noqa: E731
    U = NG.bank_values(states, g.R, lookup, g.finals, NG.bank_minimums(rs, states[:, 0]))
    z = g.V[tuple(NG.rotate(states).T)][:, 2]
    plain = NG.solve_turns(g.model, states, U, z)
    seats = list(NG._seats(rs, 3))
    others = np.ascontiguousarray(U[..., seats].transpose(2, 0, 1))
    levels = NG._permanent_batch(g.model, states, U, z, others)
    assert np.abs(levels.A - plain.A).max() < 1e-12
    assert np.abs(levels.g - plain.g).max() < 1e-12
    assert np.abs(levels.sol.roll[:, 0, 0] - plain.sol.roll[:, 0, 0]).max() < 1e-12


@pytest.mark.parametrize(
    "target, end", [(300, "instant"), pytest.param(500, "final_round", marks=SLOW)]
)
def test_three_players_with_permanent_points_sum_to_one_and_are_a_game(target, end, tmp_path):
    """Among three on the Dask path (one worker, the Zarr table): every state's chances sum
    to 1 and lie in [0, 1]; the table equals the same solve in one process bit for bit; the
    mover's chance grows with his score (his score raised, the others fixed)."""
    rs = permanent3(target, end)
    g = game_table(Tables(rs, Store(tmp_path)), 3, workers=1)
    assert np.abs(g.V.sum(-1) - 1).max() < 1e-12
    assert g.V.min() >= -1e-15 and g.V.max() <= 1 + 1e-15
    assert np.array_equal(g.V, _serial(rs, 3))
    assert (np.diff(g.V[..., 0], axis=0) > -1e-12).all()


@SLOW  # (a big simulation)
def test_simulated_games_with_permanent_points_reproduce_each_seats_chance(tmp_path):
    """10 000 three-player games with physical dice, a zilch recording the straight it kept
    (play/simulate.py), each turn the mover's solved turn over its levels: each seat's share
    of wins within 4 standard errors of the table's chance from 0-0-0."""
    rs = permanent3(500)
    g = game_table(Tables(rs, Store(tmp_path)), 3, workers=1)
    res = play_nplayer_games(g, 10_000, np.random.default_rng(39))
    mean, se = res.mean(0), res.std(0) / np.sqrt(len(res))
    exact = g.p_win([0, 0, 0])
    assert np.all(np.abs(mean - exact) < 4 * se), (mean, exact, se)


@SLOW
def test_cli_game_and_advice_among_three_with_permanent_points(tmp_path):
    """zilch game --players 3 takes a rule file with a permanent straight (refused before),
    and advise with two opponents and --permanent answers from that table by P(win): the
    seats' chances sum to 1; a turn of 300 all permanent, off the board, may bank."""
    path = tmp_path / "perm.toml"
    path.write_text(permanent_text(500))
    adv = three_player_advice(
        path, tmp_path / "t", "--score", "0", "--opponents", "350,400", "--dice", "3",
        "--turn", "300", "--permanent", "300",
    )  # fmt: skip
    assert adv["action"] in ("roll", "bank")
    assert abs(sum(adv["p_win_seats"]) - 1) < 1e-12
    assert adv["p_win"]["bank"] is not None
