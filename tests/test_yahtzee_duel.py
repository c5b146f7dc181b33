"""Two-player Yahtzee, exactly (yahtzee/duel.py, `yahtzee duel`): against a plain recursion
written here (the threshold tests' own dice, keeps and box rules: nothing of duel.py), the
game's symmetries, fixed strategies' exact evaluation (duel_eval.py) against the solve and
against simulated games, and bad input refused in one line."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from dicesolver.store import Store
from dicesolver.yahtzee import duel as D
from dicesolver.yahtzee import duel_eval as DE
from dicesolver.yahtzee import duel_games as DG
from dicesolver.yahtzee import threshold as TH
from dicesolver.yahtzee.yahtzee_rules import load

from .clirun import yahtzee as run
from .test_yahtzee_threshold import BONUS3, HANDS, UP, _keeps, _moves, _rules

TWO = _rules("d-two", [UP(6), {"name": "chance", "kind": "chance"}])
DATA = Path(__file__).resolve().parent / "data"


def plain_duel(rules):
    """V(a, b)[d] over d = -2 top - 1 .. 2 top + 1, sheets as (filled set, upper, flag)."""
    T, sub, p_hand = _keeps()
    top = TH.highest(rules)
    ds = np.arange(-2 * top - 1, 2 * top + 2)

    def lose(vec, x):  # 1 - V_other at the other's difference x
        out = np.where(x < ds[0], 1.0, 0.0)
        ok = (x >= ds[0]) & (x <= ds[-1])
        out[ok] = 1.0 - vec[x[ok] - ds[0]]
        return out

    @cache
    def V(a, b):
        if len(a[0]) == rules.n_boxes and len(b[0]) == rules.n_boxes:
            return np.where(ds > 0, 1.0, np.where(ds == 0, 0.5, 0.0))
        F = np.stack(
            [
                np.max([lose(V(b, n), -(ds + g)) for g, n in _moves(rules, *a, h)], axis=0)
                for h in HANDS
            ]
        )
        for _ in range(2):
            F = (T @ F)[sub].max(axis=1)
        return p_hand @ F

    return V, ds


def _sheet(rules, state):
    mask, up, yf = state
    return (frozenset(k for k in range(rules.n_boxes) if mask >> k & 1), up, bool(yf))


def _rows(rules, s):
    lay = D.Layout(rules, s)
    for i, o in enumerate(lay.others.tolist()):
        for j, m in enumerate(lay.movers.tolist()):
            yield lay, i * len(lay.movers) + j, tuple(m), tuple(o)


def _check(rules):
    V, ds = plain_duel(rules)
    layers = D.solve(rules)
    worst = 0.0
    for s in range(2 * rules.n_boxes):
        for lay, row, m, o in _rows(rules, s):
            want = V(_sheet(rules, m), _sheet(rules, o))
            got = np.array([D.value(lay, layers[s], row, int(d)) for d in ds])
            worst = max(worst, float(np.abs(got - want).max()))
    assert worst < 1e-12


def test_two_box_game_equals_plain_recursion_at_every_difference():
    _check(TWO)


@pytest.mark.slow
def test_three_box_game_equals_plain_recursion():
    _check(BONUS3)


def test_symmetries_of_the_two_box_game():
    """Both sheets full: 1, 1/2, 0 by the sign of d; V rises with d everywhere; with the
    other's sheet full, the mover's chance is the solitaire beat table's W(a, -d) (to make
    more than -d points, a tie half), a table solved by other code (threshold.py)."""
    layers = D.solve(TWO)
    for s in range(2 * TWO.n_boxes):
        lay = D.Layout(TWO, s)
        for i in range(len(lay.others)):
            for j in range(len(lay.movers)):
                row = i * len(lay.movers) + j
                v = layers[s][lay.off[row] : lay.off[row + 1]]  # over t = -d rising
                assert np.all(np.diff(v) <= 1e-15)  # falls with t: rises with d
                assert v[0] >= 0 and v[-1] <= 1
    beat = TH.solve(TWO, "beat")
    s = 2 * TWO.n_boxes - 1
    for lay, row, m, _ in _rows(TWO, s):
        lv = beat[TWO.n_boxes - 1]
        r = int(TH.row_of(lv, m)[0])
        for d in range(-80, 10):
            assert abs(D.value(lay, layers[s], row, d) - lv.at(r, -d)) < 1e-12
    end = D.Layout(TWO, 2 * TWO.n_boxes)
    assert [D.value(end, D.terminal(TWO), 0, d) for d in (-1, 0, 1)] == [0.0, 0.5, 1.0]


def test_optimal_play_evaluated_against_itself_is_the_solve(tmp_path):
    layers = D.solve(TWO)
    ctx = DE.context(TWO, Store(tmp_path), layers)
    Eoo, _ = DE.evaluate(ctx, "optimal", "optimal")
    for s in range(2 * TWO.n_boxes):
        assert np.abs(Eoo[s] - layers[s]).max() < 1e-12
    Ehx, Exh = DE.evaluate(ctx, "heuristic", "optimal")
    lay = D.Layout(TWO, 0)
    # no strategy beats the optimum from either seat
    assert D.value(lay, Ehx[0], 0, 0) <= D.value(lay, layers[0], 0, 0) + 1e-12
    assert 1 - D.value(lay, Exh[0], 0, 0) <= 1 - D.value(lay, layers[0], 0, 0) + 1e-12


def _simulated_against_exact(rules, store, games):
    """The heuristic's P(win) against the optimal and the expected-score player from either
    seat, by simulated games (duel_games.py: versus_games' turn and heuristic) and by the
    exact evaluation; each within 4 standard errors of the other."""
    layers = D.solve(rules)
    E = DE.evaluate_pairs(DE.context(rules, store, layers), [("heuristic", q) for q in OPP])
    players = DG.Players(rules, store, layers)
    heur = players.strategy("heuristic")
    for k, q in enumerate(OPP):
        exact = DE.seats(rules, E, "heuristic", q)
        for seat in (0, 1):
            got, se = DG.simulate(
                rules, heur, players.strategy(q), games, 7 + 2 * k + seat, seat == 0
            )
            assert 0 < se and abs(got - exact[seat]) < 4 * se, (q, seat, got, se, exact)


OPP = ("optimal", "expected")


def test_heuristic_simulated_within_4_se_of_its_exact_evaluation(tmp_path):
    _simulated_against_exact(TWO, Store(tmp_path), 40)


@pytest.mark.slow
def test_heuristic_simulated_within_4_se_of_its_exact_evaluation_many_games(tmp_path):
    _simulated_against_exact(TWO, Store(tmp_path), 1000)
    _simulated_against_exact(load(str(DATA / "duel-3.toml")), Store(tmp_path), 300)


def _paired_against_exact(rules, tmp_path, games):
    """`yahtzee versus --policy heuristic` (versus_games.heuristic_game: the heuristic in the
    first seat, a twin of the expected-score player on the same dice, the paired estimate)
    against the exact evaluation of the heuristic against expected-score play from the
    first seat: within 4 standard errors."""
    from dicesolver.answers.yahtzee_versus import yahtzee_versus

    store = Store(tmp_path)
    E = DE.evaluate_pairs(DE.context(rules, store, D.solve(rules)), [("heuristic", "expected")])
    exact = DE.seats(rules, E, "heuristic", "expected")[0]
    got = yahtzee_versus(rules, "heuristic", "expected", 2, games, 5, str(tmp_path))
    assert got.method == "paired-simulated-games" and 0 < got.stderr
    assert abs(got.p_win - exact) < 4 * got.stderr, (got.p_win, got.stderr, exact)


def test_paired_estimate_within_4_se_of_the_exact_evaluation(tmp_path):
    _paired_against_exact(TWO, tmp_path, 300)


@pytest.mark.slow
def test_paired_estimate_within_4_se_of_the_exact_evaluation_many_games(tmp_path):
    _paired_against_exact(load(str(DATA / "duel-3.toml")), tmp_path, 3000)


def test_cli_duel_json_and_refusals(tmp_path):
    rules = tmp_path / "two.toml"
    rules.write_text(
        'name = "two"\ndice = 5\n[[boxes]]\nname = "sixes"\nkind = "upper"\nface = 6\n'
        '[[boxes]]\nname = "chance"\nkind = "chance"\n'
    )
    t = ["--tables", str(tmp_path / "t")]
    got = json.loads(run("duel", "--rules", str(rules), *t, "--json").output)
    assert got["exact"] is True and got["method"] == "two-player-exact"
    assert abs(got["p_win"] - D.value(D.Layout(TWO, 0), D.solve(TWO)[0], 0, 0)) < 1e-12
    adv = json.loads(
        run(
            "duel",
            "--rules",
            str(rules),
            *t,
            "--dice",
            "6,6,6,1,2",
            "--rolls-left",
            "0",
            "--opponent",
            "12 f=sixes u=12",
            "--json",
        ).output
    )
    assert [o["box"] for o in adv["options"]][:1] in (["sixes"], ["chance"])
    assert adv["options"][0]["p_win"] >= adv["options"][-1]["p_win"]
    for bad in (
        ["--rules", "yahtzee"],  # too large: refused before any work
        ["--rules", str(rules), "--opponent", "30 f=sixes,chance"],  # too far ahead
        ["--rules", str(rules), "--opponent", "12 f=sixes u=13"],  # no such upper total
        ["--rules", str(rules), "--score", "3", "--score-diff", "1"],
    ):
        res = run("duel", *bad, *t, code=2)
        assert res.stderr.count("\n") == 1 and "error" in res.stderr
