"""Issue 39: the approximate P(win) among three players or more where the exact table is not
stored (objectives/approx_game.py, answers/approx_chance.py): exact where it must be (two
players, the final round), labelled in JSON and text, what `zilch play`'s computers and
hints use, and its error against exact tables within bounds (play/approx_measure.py)."""

import numpy as np
import pytest

import dicesolver as ds
from dicesolver.answers import decisions as D
from dicesolver.match import ZilchMatch
from dicesolver.objectives import nplayer_game as NG
from dicesolver.objectives.approx_game import (
    METHOD,
    approx_turns,
    finals_for,
    pairwise_chances,
)
from dicesolver.render import text
from dicesolver.rules import load
from dicesolver.store import Store
from dicesolver.tables import Tables
from dicesolver.turn.state import TurnState

from .solvers import game_table, preset_file


@pytest.fixture(scope="module")
def farkle500(tmp_path_factory):
    """farkle to 500 (a rule file) with its two-player table stored, no N-player one."""
    folder = tmp_path_factory.mktemp("approx")
    path = preset_file(folder, "farkle", 500)
    tables = folder / "tables"
    tab = Tables(load(path), Store(tables))
    game_table(tab)
    return path, str(tables), tab


def test_two_players_stay_exact(farkle500):
    """With two players the approximation is the two-player table itself: its chances are
    W, and its turn (solved against W, the final round exact) gives back W at every state
    (W is the fixed point) to 1e-9."""
    _, _, tab = farkle500
    W = game_table(tab, solve=False).W
    R = W.shape[0]
    rows = np.indices((R, R)).reshape(2, -1).T
    assert np.array_equal(pairwise_chances(W, rows)[:, 0], W[rows[:, 0], rows[:, 1]])
    D_ = tab.reach_bound
    got = approx_turns(tab.model, W, finals_for(tab.model, R, D_, rows), rows)
    assert np.abs(got.V[:, 0] - W[rows[:, 0], rows[:, 1]]).max() < 1e-9
    assert np.abs(got.V.sum(axis=1) - 1).max() < 1e-9


def test_the_final_round_is_the_exact_tables(farkle500):
    """A bank reaching the target is valued by the exact final round: the approximation's
    (only the keys it needs, the leaders its mover can reach: his score + D, each player
    against the leaders he can reach) equals the exact table's final_rows within the
    truncation's chance (1e-13) of the rows left out, and not bit for bit (they are left)."""
    _, _, tab = farkle500
    rs = tab.rules
    R, D_ = rs.reach_units(), tab.reach_bound
    rows = np.array([[5, 3, 0]])  # (farkle: the others' key is their scores)
    got = finals_for(tab.model, R, D_, rows).from_target(rows[:, 1:])
    keys = np.array([[3, 0]])
    assert all((k == NG.final_keys(rs, R, 3)).all(axis=1).any() for k in keys)
    exact = NG.FinalTable.of(rs, R, D_, keys, NG.final_rows(tab.model, R, D_, keys))
    want = exact.from_target(rows[:, 1:])
    reach = 5 + D_ - R + 1  # leaders R .. 5 + D
    assert 0 < reach < D_ + 1
    assert np.abs(got - want).max() < 1e-12
    assert not np.array_equal(got[:, reach:], want[:, reach:])  # (not solved there)


def test_advice_among_three_is_labelled_approximate(farkle500):
    """advise with two opponents and no 3-player table: P(win) by the approximation, said in
    JSON (exact false, the method) and text; the seats' chances sum to 1; a roll's ranking
    too; two players and the final round carry no such label (exact)."""
    path, tables, _ = farkle500
    a = ds.advise(path, dice=3, turn=150, score=100, opponents="200,0", tables=tables)
    d = a.to_dict()
    assert d["exact"] is False and d["method"] == METHOD and d["situation"] == "game"
    assert abs(sum(d["p_win_seats"]) - 1) < 1e-9
    assert "APPROXIMATE P(win)" in text.endgame_advice(a)
    r = ds.advise(path, roll="1,5,2", turn=150, dice=3, score=100, opponents="200,0", tables=tables)
    assert r.to_dict()["exact"] is False and "APPROXIMATE" in text.ranking(r)
    two = ds.advise(path, dice=3, turn=150, score=100, opponents="200", tables=tables)
    assert "exact" not in two.to_dict()
    final = ds.advise(path, dice=3, turn=150, score=100, opponents="0,550", tables=tables)
    assert final.situation == "final round" and "exact" not in final.to_dict()


def test_without_the_two_player_table_it_says_how(tmp_path):
    """No two-player table either: TableMissing names the command that builds it."""
    path = preset_file(tmp_path, "farkle", 550)
    with pytest.raises(ds.TableMissing) as e:
        ds.advise(path, dice=6, score=100, opponents="200,0", tables=str(tmp_path / "t"))
    assert "approximate P(win) among 3 players" in str(e.value)
    assert "zilch game --rules" in e.value.solve_with


def test_the_computer_plays_the_approximation(farkle500):
    """zilch play among three without the 3-player table: the intro and the hint say
    approximate; the computer's set-aside is the best by the approximate values."""
    path, tables, _ = farkle500
    eng = ZilchMatch(path, tables)
    first = eng.start(["you"], computers=2, seed=11)
    assert "approximate probability of winning" in first.texts[0]
    s = eng.apply(first.state, "roll").state
    h = eng.hint(s)
    assert h.exact is False and h.method == METHOD and h.objective == "game"
    assert "approximate" in h.how
    s = eng.apply(s, "best").state  # (you: the best set-aside, then bank where allowed)
    while eng.view(s)["computer"] is False and s.phase != "over":
        s = eng.apply(s, "bank" if "bank" in eng.allowed(s) else "roll").state
    values, how = eng.values(s)
    assert values.objective == "game" and "approximate" in how
    # the computer's first roll and its set-aside: the approximation's best
    step = eng.apply(s, "play")
    logged = [x for x in step.log if x["then"] != "zilch"]
    for ln in logged[:1]:
        v = D.game_values(eng.tab, ln["score"], ln["opponents"])
        st = TurnState(ln["dice"], ln["turn"])
        from dicesolver.outcomes.scoring import parse_roll

        best = D.options(eng.rules, v, st, parse_roll(eng.rules, ln["roll"]))[0]
        assert sorted(ln["keep"]) == sorted(best.keep)


@pytest.mark.slow
def test_error_against_the_exact_three_player_table(tmp_path):
    """Three players, farkle to 1000 (solved here, in this process): over the states
    optimal play reaches from 0-0-0 the mean error of the mover's P(win) is at most half a
    point, decisions equal the exact ones on at least 99 % of those met, and playing it
    costs at most 0.2 points a game; every seat's error at most 2 points anywhere.  The
    estimate from 300 simulated games (approx_measure.sampled) agrees with those figures."""
    from dicesolver.play.approx_measure import reached, sampled, uniform

    rs = load("farkle").aimed(1000)
    tab = Tables(rs, Store(tmp_path))
    W = game_table(tab).W
    R, D_ = rs.reach_units(), tab.reach_bound
    fin = NG.solve_finals(tab.model, R, 3, D_)
    g = NG.NPlayerGame(tab.model, 1000, NG.solve_serial(tab.model, R, 3, fin), fin)
    f = reached(g, W, floor=1e-4).figures(3)
    assert f["mean_error_mover"] <= 0.5
    assert f["equal_decisions"] >= 0.99
    assert f["loss_per_game"] <= 0.2
    u = uniform(g, W, 300).figures(3)
    assert u["max_error_seats"] <= 2.0 and u["mean_error_seats"] <= 0.5
    # the simulated games' estimate (bench_approx at large targets) agrees with the
    # reached states' figures: the loss within 4 of its standard errors, the rest closely
    s = sampled(g, W, 300)
    e = s.totals.figures(3)
    assert abs(e["loss_per_game"] - f["loss_per_game"]) <= 4 * s.loss_se
    assert abs(e["mean_error_mover"] - f["mean_error_mover"]) <= 0.1
    assert abs(e["equal_decisions"] - f["equal_decisions"]) <= 0.005


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """The web server's folder (conftest's `server`): farkle to 500's two-player table."""
    folder = str(tmp_path_factory.mktemp("web") / "tables")
    ds.game("farkle", target=500, tables=folder)
    return folder


@pytest.mark.slow
def test_the_phone_plays_three_by_the_approximation(server, tables):
    """The phone page, you against two computers, farkle to 500 with no 3-player table: no
    build is offered, the game starts and says the computers play by an approximate
    probability of winning; without the two-player table (to 550) that one is offered."""
    from .test_web_hostile import calm
    from .test_web_play import client, start

    with client(server) as c:
        _, url = start(c, mode="computer", rules="farkle", target="500", computers="2", seed="1")
        assert "approximate probability of winning" in c.get(url).text
        r = c.post(
            "/play/setup",
            data={"mode": "computer", "rules": "farkle", "target": "550", "computers": "2"},
        )
        calm(r)
        assert "/play/setup" in str(r.url) and "not built yet" in r.text
        assert "zilch game --rules farkle --players 2 --target 550" in r.text


@pytest.mark.slow
def test_a_game_among_three_to_the_end_is_reviewed_by_the_approximation(farkle500):
    """You (the best moves) against two computers to the end: your review is by P(win)
    (no decision lost: the same values), its note saying approximate."""
    path, tables, _ = farkle500
    eng = ZilchMatch(path, tables)
    s = eng.start(["you"], computers=2, seed=7).state
    for _ in range(5000):
        if s.phase == "over":
            break
        mine = not eng.view(s)["computer"]
        s = eng.apply(s, ("roll" if s.phase == "roll" else "best") if mine else "play").state
    assert s.phase == "over"
    reviews = eng.reviews(s)["you"]
    assert [r.objective for r in reviews] == ["game"]
    assert reviews[0].loss_total == 0 and "approximate P(win)" in (reviews[0].note or "")
