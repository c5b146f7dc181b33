"""Issue 13: the third zilch in a row costs a penalty.  The long-run average points per turn
(objectives/average.py): Busche's published optimum, an exact brute force, the penalty-free
limit, simulations, and the commands that take --zilches."""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from dicesolver import rules
from dicesolver.answers.checks import long_run, resolve_policy, zilch_cost
from dicesolver.objectives.average import row, solve_average
from dicesolver.objectives.score import solve_score
from dicesolver.outcomes.model import turn_model
from dicesolver.play.evaluate import evaluate
from dicesolver.play.long_run import chain
from dicesolver.rules import from_dict
from dicesolver.turn.reach import sweep

from . import bruteforce
from .clirun import zilch
from .solvers import tables


def js(*args):
    return json.loads(zilch(*args, "--json").stdout)


BUSCHE = str(Path(__file__).parent / "data" / "zilch-playr-busche.toml")


def _with_penalty(name, penalty=500, **extra):
    return dataclasses.replace(rules.load(name), three_zilch_penalty=penalty, **extra)


def test_busche_zilch_average_620_855_points_per_turn():
    """M. Busche, "Maximizing Expected Scores in the Game of Zilch" (2010): with the three
    cards (0, 1, 2 zilches in a row) "you rack up an average of 620.855 points per turn"."""
    rel = tables(rules.load(BUSCHE)).score.relative
    assert round(rel.average, 3) == 620.855
    # "three successively more conservative turn-play strategies"
    assert 0 == rel.on[0] > rel.on[1] > rel.on[2]
    d = js("strategy", "--rules", BUSCHE)
    assert round(d["average_points_per_turn"], 3) == 620.855
    cards = d["by_zilches"]
    assert set(cards) == {"0", "1", "2"}
    for n in map(str, range(1, 6)):
        th = [cards[k]["bank_thresholds"][n] for k in "012"]
        assert th[0] >= th[1] >= th[2], (n, th)
    assert any(cards["0"]["bank_thresholds"][n] > cards["2"]["bank_thresholds"][n] for n in "345")
    text = zilch("strategy", "--rules", BUSCHE).stdout
    assert "620.8547 points per turn on average" in text and "turn value" in text


def _small(penalty=300, dice=3, bank=0):
    faces = {
        str(f): ([100 if f == 1 else 50 if f == 5 else 0, 0, 1000 if f == 1 else 100 * f])[:dice]
        + [0] * (dice - 3)
        for f in range(1, 7)
    }
    return from_dict(
        {
            "dice": dice,
            "set_aside": "any",
            "hot_dice": "optional",
            "bank_minimum": bank,
            "faces": faces,
            "game": {"three_zilch_penalty": penalty},
        },
        "small.toml",
    )


@pytest.mark.parametrize("penalty, bank", [(300, 0), (1000, 150)])
def test_average_reward_optimum_equals_exact_brute_force(penalty, bank):
    """DESIGN.md's independent brute force, in exact rationals on a reduced game (3 dice,
    singles and triples): the long-run average, the relative values and every reachable
    state's value of each count's card agree with the solver."""
    rs = _small(penalty, bank=bank)
    T = 3000
    g, h, value, banks = bruteforce.solve_average(rs, bank, penalty, T)
    # the cut at T binds nowhere: the optimum banks well before it in every free state
    for k in range(3):
        for n in range(1, rs.dice + 1):
            assert all(banks(k, n, t) for t in range(T - 600, T, 50)), (k, n)
    model = turn_model(rs)
    main, _, rel = solve_average(model)
    assert rel.average == pytest.approx(float(g), rel=1e-12)
    for k in range(3):
        assert rel.on[k] == pytest.approx(float(h[k]), abs=1e-9)
    reach = sweep(model, (T - 600) // rs.unit)
    checked = 0
    for k in range(3):
        for s in range(rs.dice + 1):
            for r in np.nonzero(reach[s])[0]:
                forced = s == 0
                exact = value(k, rs.dice if forced else s, int(r) * rs.unit, forced)
                roll, bnk = main.at(s, int(r))
                i = row(k, True)
                assert max(roll[i], bnk[i]) == pytest.approx(float(exact), rel=1e-12, abs=1e-9)
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("name", ["farkle", "zilch-online", "zilch", "zonk-detroit"])
def test_penalty_zero_gives_the_expected_points_solution(name):
    """Without a penalty the long-run average is the expected points of a turn on the board
    and every count's on-board card is today's card: values equal to 1e-12.  (Off the
    board they differ where there is an entry minimum, rightly: in the long run a zilch
    there also costs h(off board) < 0, the price of another turn off the board.  The
    answers for rules without a penalty never take this path: tables.py solves them as
    before.)"""
    rs = rules.load(name)
    model = turn_model(rs)
    main, secured, rel = solve_average(model)
    plain, plain_sec = solve_score(model)
    assert rel.average == pytest.approx(plain.roll[1, 0, 0], rel=1e-12)
    assert max(map(abs, rel.on)) < 1e-12 * rel.average
    if not rs.entry_minimum:
        assert max(map(abs, rel.off)) < 1e-12 * rel.average
    else:
        assert all(h < 0 for h in rel.off)
    L = min(main.roll.shape[2], plain.roll.shape[2])
    for k in range(3):
        for b in (0, 1) if not rs.entry_minimum else (1,):
            got = main.value[row(k, bool(b)), :, :L]
            np.testing.assert_allclose(got, plain.value[b, :, :L], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", [BUSCHE, "zilch-online", "zilch"])
def test_exact_evaluation_of_the_three_cards_gives_the_solver_average(name):
    """A second, independent route to g: the exact distribution of each card's turn
    (play/evaluate.py, a forward pass) and the three-state chain of the count give the
    average that the policy iteration found (with permanent points and entry minimums)."""
    rs = rules.load(name) if name == BUSCHE else _with_penalty(name)
    tab = tables(rs)
    dists = [
        evaluate(
            tab.model, resolve_policy("optimal", tab, True, k), True, None, zilch_cost(rs, k, True)
        )
        for k in range(3)
    ]
    g, h = chain([d.mean for d in dists], [d.p_zilch for d in dists])
    rel = tab.score.relative
    assert g == pytest.approx(rel.average, rel=1e-9)
    np.testing.assert_allclose(h, rel.on, atol=1e-6)


def test_long_run_simulation_matches_the_exact_average():
    """Turns played one after another with physical dice by the three cards (the counter
    moving, the penalty charged): the average per turn within 4 standard errors of the exact
    long-run average."""
    a = long_run(BUSCHE, turns=300_000, seed=7)
    assert a.exact_average == pytest.approx(620.8546722768544, rel=1e-9)
    assert abs(a.z) < 4, a
    assert a.stderr < 2.0


def test_a_user_policy_may_depend_on_the_count(tmp_path):
    """A policy file's [bank.zilches.K] overrides [bank] after K zilches in a row: its exact
    long-run average (the chain) is what a simulation of it finds."""
    f = tmp_path / "careful.toml"
    f.write_text(
        "[bank]\ndefault = 300\nthresholds = { 6 = 5000, 5 = 3000, 4 = 1000, 3 = 400 }\n"
        "[bank.zilches.2]\nthresholds = { 5 = 2000, 4 = 500, 3 = 300 }\n"
    )
    a = long_run(BUSCHE, policy=str(f), turns=200_000, seed=3)
    assert abs(a.z) < 4, a
    assert a.exact_average < 620.855  # not the optimum
    e0 = js("evaluate", "--rules", BUSCHE, "--policy", str(f))
    e2 = js("evaluate", "--rules", BUSCHE, "--policy", str(f), "--zilches", "2")
    assert e2["zilches"] == 2 and e2["distribution"]["-500"] == pytest.approx(e2["p_zilch"])
    assert "-500" not in e0["distribution"]
    assert e2["p_zilch"] < e0["p_zilch"]  # it banks sooner after two zilches


def test_advise_by_the_long_run_average():
    """--zilches K: ROLL/BANK by the long-run average; after two zilches a player banks
    where a fresh one rolls (3 dice, 400: Busche's cards)."""
    fresh = js("advise", "--rules", BUSCHE, "--dice", "3", "--turn", "400")
    after2 = js("advise", "--rules", BUSCHE, "--dice", "3", "--turn", "400", "--zilches", "2")
    assert fresh["action"] == "roll" and after2["action"] == "bank"
    assert after2["objective"] == "long-run average points per turn"
    assert after2["values"]["bank"] == 400.0 and after2["zilches"] == 2
    assert "zilches" not in js("advise", "--rules", "farkle", "--dice", "3", "--turn", "400")


@pytest.mark.parametrize(
    "args",
    [
        ["advise", "--rules", BUSCHE, "--zilches", "3"],
        ["advise", "--rules", BUSCHE, "--zilches", "-1"],
        ["advise", "--rules", "farkle", "--zilches", "1"],
        ["evaluate", "--rules", "farkle", "--zilches", "2"],
        ["simulate", "--rules", "farkle", "--long-run"],
        ["simulate", "--rules", BUSCHE, "--long-run", "--zilches", "1"],
        ["verify", "--rules", BUSCHE, "--rolls", "--results", "x", "--zilches", "1"],
    ],
)
def test_bad_zilches_input_is_one_line_and_exit_2(args):
    p = zilch(*args, code=2)
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr


def test_penalty_keys_are_read_and_checked():
    """Rule keys: the penalty, whether it takes a score below zero, whether it is charged
    before a player is on the board; a penalty off the points' grid is refused.  Without a
    penalty the two flags change nothing, and the rules' hash stays what it was."""
    src = rules.canonical_source("zilch")
    src["game"].update(three_zilch_penalty=500, penalty_below_zero=False, penalty_off_board=False)
    rs = from_dict(src, "x.toml")
    assert (rs.penalty(True), rs.penalty(False), rs.penalty_below_zero) == (500, 0, False)
    src["game"]["three_zilch_penalty"] = 0
    assert from_dict(src, "x.toml").digest() == rules.load("zilch").digest()
    src["game"]["three_zilch_penalty"] = 525
    with pytest.raises(rules.InputError, match="multiple of 50"):
        from_dict(src, "x.toml")
    src["game"]["three_zilch_penalty"] = 500
    src["game"]["penalty_off_board"] = "no"
    with pytest.raises(rules.InputError, match="penalty_off_board"):
        from_dict(src, "x.toml")


def test_export_has_a_row_per_count(tmp_path):
    out = tmp_path / "cards.json"
    zilch("export", "--rules", BUSCHE, "--format", "json", "--out", str(out))
    d = json.loads(out.read_text())
    assert d["columns"][0] == "zilches"
    assert sorted({r["zilches"] for r in d["rows"]}) == [0, 1, 2]
    # the count's card values: a fresh turn after k zilches is worth g + h(k)
    fresh = {
        r["zilches"]: r["value_roll"] for r in d["rows"] if r["turn_total"] == 0 and r["on_board"]
    }
    rel = tables(rules.load(BUSCHE)).score.relative
    assert fresh == pytest.approx({k: rel.average + rel.on[k] for k in range(3)}, rel=1e-12)
