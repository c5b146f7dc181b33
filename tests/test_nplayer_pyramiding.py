"""Pyramiding among three players (the frozen groups are turn states: the N-player game takes
the rule as the two-player game does), and the final round's leader rows by their start
values alone (final_round._leader_starts), which it needs: zilch-pyramiding's 1 982 leader
rows of 82 turn states took 8.7 GB as whole turns."""

import tomllib
from pathlib import Path

import numpy as np
import pytest

from dicesolver.objectives import final_round as FR
from dicesolver.objectives import nplayer_game as NG
from dicesolver.rules import from_dict
from dicesolver.store import Store
from dicesolver.tables import Tables

from . import nplayer_valueiteration as NP
from .solvers import game_table, small_rules, three_player_advice
from .test_nplayer import _serial, _solved_with_mixed

DATA = Path(__file__).parent / "data"


def _pyramid(target, end, hot=None):
    """tests/data/pyramid-3.toml (3 dice, forced set-aside, bank minimum 150, a frozen 1
    with two rolled 1s adds 900) with a game to `target`; hot: its hot dice, if given."""
    src = tomllib.loads((DATA / "pyramid-3.toml").read_text())
    src["game"] = {"target": target, "end": end}
    if hot:
        src["hot_dice"] = hot
    return from_dict(src, "pyramid-3.toml")


@pytest.mark.parametrize(
    "end, hot", [("instant", None), ("final_round", "optional")]
)  # (the value iteration's final round takes optional hot dice only)
def test_three_players_with_pyramiding_equal_the_plain_value_iteration(end, hot):
    """Pyramiding among three players to 500: every state's three chances equal the plain
    value iteration over scores, turn states with their frozen groups and turn totals
    (tests/nplayer_valueiteration.py on game_valueiteration's pyramiding moves) to 1e-9
    (measured 6.7e-13 and 1.3e-13).  With a final round the movers of (3, 3, 5) mix: the
    iteration holds the solver's mix there, and each mover's best pure reply is worth his
    chance in it (measured 6e-17)."""
    rs = _pyramid(500, end, hot)
    R = rs.reach_units()
    g, mixed = _solved_with_mixed(rs, 3)
    got = NP.nplayer_game(rs, R, R + 6, 3, fixed=mixed)
    ref, best = got if mixed else (got, None)
    assert np.abs(g.V - ref).max() < 1e-9
    assert np.abs(g.V.sum(-1) - 1).max() < 1e-12
    if mixed:
        held = np.array(list(mixed.values()))
        assert np.abs(best[:, 0] - held[:, 0]).max() < 1e-9


def test_two_players_with_pyramiding_through_the_nplayer_path_equal_the_two_player_solver(
    tmp_path,
):
    """N = 2 through the N-player path, pyramiding with mandatory hot dice and a final round
    (which the value iteration does not model): the two-player game table to 1e-12."""
    rs = _pyramid(1000, "final_round")
    V = _serial(rs, 2)
    W = game_table(Tables(rs, Store(tmp_path))).W
    assert np.abs(V[..., 0] - W).max() < 1e-12


@pytest.mark.parametrize(
    "rules, N",
    [
        (small_rules(3, "any", "optional", game={"target": 500, "end": "final_round"}), 3),
        (small_rules(3, "forced", "optional", bank=100, game={"target": 500}), 3),
        (small_rules(3, "any", "optional", game={"target": 300, "end": "final_round"}), 4),
        (_pyramid(300, "final_round"), 3),
    ],
)
def test_leader_rows_by_start_values_equal_the_whole_turns(rules, N, monkeypatch):
    """The final-round table (every key, every leader row) from the leader rows' start
    values equals the one from their whole turns (solve_leader_rows' classes and rows) to
    1e-12 (measured 2e-16 .. 4e-15): optional hot dice with and without a bank minimum, four
    players, and pyramiding with mandatory hot dice (there with the start values forced:
    by default whole turns, the quicker, unless they would take WHOLE_ROWS_BYTES)."""
    tab = Tables(rules, Store.resolve())
    R, D = rules.reach_units(), tab.reach_bound
    calls = []
    orig = FR._leader_starts

    def counted(*args):
        got = orig(*args)
        calls.append(got is not None)
        return got

    monkeypatch.setattr(FR, "WHOLE_ROWS_BYTES", 0.0)
    monkeypatch.setattr(FR, "_leader_starts", counted)
    starts = NG.solve_finals(tab.model, R, N, D).rel
    assert calls and all(calls)
    monkeypatch.setattr(FR, "_leader_starts", lambda *a: None)
    whole = NG.solve_finals(tab.model, R, N, D).rel
    assert np.abs(starts - whole).max() < 1e-12


def test_cli_game_and_advice_among_three_with_pyramiding(tmp_path):
    """zilch game --players 3 solves a pyramiding rule file (no longer refused), and advise
    with two opponents and --frozen answers from that table: the seats' chances from 0-0-0
    sum to 1; with 100 at risk (below the bank minimum of 150) banking is not allowed."""
    path = tmp_path / "p3.toml"
    path.write_text(
        (DATA / "pyramid-3.toml").read_text() + '\n[game]\ntarget = 500\nend = "final_round"\n'
    )
    adv = three_player_advice(
        path, tmp_path / "t", "--score", "300", "--opponents", "350,400", "--dice", "2",
        "--turn", "100", "--frozen", "1",
    )  # fmt: skip
    assert adv["action"] == "roll" and adv["p_win"]["bank"] is None
    assert abs(sum(adv["p_win_seats"]) - 1) < 1e-12
