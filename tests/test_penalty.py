"""Issue 13: the third zilch in a row costs a penalty.  The long-run average points per turn
(objectives/average.py): Busche's published optimum, an exact brute force, the penalty-free
limit, simulations, and the commands that take --zilches."""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from dicesolver import rules
from dicesolver.answers.checks import resolve_policy, simulate_long_run, zilch_cost
from dicesolver.objectives.average import row, solve_average
from dicesolver.objectives.game_run import GameRun
from dicesolver.objectives.score import solve_score
from dicesolver.outcomes.model import turn_model
from dicesolver.play.evaluate import evaluate
from dicesolver.play.long_run import chain
from dicesolver.rules import from_dict
from dicesolver.turn.reach import sweep

from . import bruteforce
from .clirun import zilch
from .solvers import tables
from .test_hardening import _toml


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


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(BUSCHE, marks=pytest.mark.slow),
        pytest.param("zilch-online", marks=pytest.mark.slow),
        "zilch",
    ],
)  # (slow: zilch-online's, the largest, and Busche's three cards)
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


@pytest.mark.slow  # a big simulation
def test_long_run_simulation_matches_the_exact_average():
    """Turns played one after another with physical dice by the three cards (the counter
    moving, the penalty charged): the average per turn within 4 standard errors of the exact
    long-run average."""
    a = simulate_long_run(BUSCHE, turns=300_000, seed=7)
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
    a = simulate_long_run(BUSCHE, policy=str(f), turns=200_000, seed=3)
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


# --- the two-player game with the penalty ----------------------------------------------------
def _penalty_game(rs, target, lowest):
    from dicesolver.objectives.last_turn import reach_bound
    from dicesolver.objectives.penalty_game import solve_penalty_game

    model = turn_model(rs)
    return solve_penalty_game(GameRun(model, reach_bound(model), target, lowest))


@pytest.mark.slow  # the value iteration
@pytest.mark.parametrize("penalty, lowest", [(100, -200), (150, None)])
def test_penalty_game_equals_plain_value_iteration(penalty, lowest):
    """Issue 13: at a small target (farkle to 200, its final round included) the sweeps'
    fixed point agrees to 1e-9 with a plain value iteration over the whole state space,
    both players' counts included: scores down to -200, or stopping at zero."""
    from . import game_valueiteration as VI

    below = lowest is not None
    rs = _with_penalty("farkle", penalty, penalty_below_zero=below)
    R, Tm = rs.reach_units(200), 60
    lo = lowest // rs.unit if below else 0
    finals = VI.last_turn(rs, R - lo + Tm + 130)
    W_vi = VI.penalty_game(rs, R, lo, Tm, finals)
    g = _penalty_game(rs, 200, lowest)
    assert g.lo == lo and g.W.shape == W_vi.shape
    assert np.abs(g.W - W_vi).max() < 1e-9
    # the counts matter: after two zilches a player's chance is lower
    assert np.all(g.W[2, 0] <= g.W[0, 0] + 1e-12) and np.any(g.W[2, 0] < g.W[0, 0] - 1e-3)


def test_penalty_game_without_penalty_is_the_game():
    """A penalty of 0: every count's chances are the penalty-free game's (to 1e-12), the
    states below zero never reached."""
    from .solvers import solve_game

    rs = _with_penalty("farkle", 0)
    g = _penalty_game(rs, 1000, -100)
    W = solve_game(rules.load("farkle"), 1000).W
    for ka in range(3):
        for kb in range(3):
            np.testing.assert_allclose(g.W[ka, kb, -g.lo :, -g.lo :], W, rtol=0, atol=1e-12)


@pytest.mark.slow  # three penalty games solved
def test_first_players_chance_converges_as_the_lowest_score_is_lowered():
    """Where the penalty may take a score below zero the table keeps scores down to a
    bound; lowering it by 500 points moves the first player's chance by 3e-4 (0 to -500),
    then by about 2e-8 (-500 to -1000): farkle with a 500 penalty to 500."""
    rs = _with_penalty("farkle")
    p = [_penalty_game(rs, 500, low).p_win(0, 0) for low in (0, -500, -1000)]
    d1, d2 = abs(p[1] - p[0]), abs(p[2] - p[1])
    assert 1e-5 < d1 < 1e-3 and d2 < 1e-7 and d2 < d1 / 1000, (p, d1, d2)


@pytest.mark.slow  # a big simulation
def test_simulated_penalty_games_match_the_table():
    """Games played with physical dice by the table's turns (the counts moving, the
    penalty charged, the lowest score kept, the opponent's last turn): the first player's
    results within 4 standard errors of the table's chance (farkle, 500 penalty, to 500)."""
    from .game_sim import play_penalty_games

    rs = _with_penalty("farkle")
    g = _penalty_game(rs, 500, -1000)
    res = play_penalty_games(g, 20_000, np.random.default_rng(13))
    se = res.std() / np.sqrt(len(res))
    assert abs(res.mean() - g.p_win(0, 0)) < 4 * se, (res.mean(), g.p_win(0, 0), se)


def test_game_commands_take_the_counts(tmp_path):
    """zilch game --zilches/--opp-zilches/--lowest, the game's export with both counts, and
    advice with scores from the stored table (after two zilches a roll risks the penalty:
    it is worth less, banking the same)."""
    src = rules.canonical_source("farkle")
    src["game"].update(target=300, three_zilch_penalty=500)
    f = str(tmp_path / "pen.toml")
    (tmp_path / "pen.toml").write_text(_toml(src))
    folder = str(tmp_path / "tables")
    d0 = js("game", "--rules", f, "--lowest", "-500", "--tables", folder)
    assert d0["zilches"] == [0, 0] and d0["lowest"] == -500
    d2 = js("game", "--rules", f, "--lowest", "-500", "--zilches", "2", "--tables", folder)
    assert d2["p_win"] < d0["p_win"]
    neg = js("game", "--rules", f, "--lowest", "-500", "--scores", "-500,250", "--tables", folder)
    assert 0 < neg["p_win"] < d0["p_win"]
    # where the penalty stops at zero there is no bound; advice reads the stored table
    src["game"]["penalty_below_zero"] = False
    (tmp_path / "pen.toml").write_text(_toml(src))
    assert "lowest" not in js("game", "--rules", f, "--tables", folder)
    zilch("game", "--rules", f, "--lowest", "-500", "--tables", folder, code=2)
    bad = zilch("game", "--rules", f, "--opp-zilches", "3", "--tables", folder, code=2)
    assert bad.stderr.startswith("zilch: error: --opp-zilches is the count")
    at = ["advise", "--rules", f, "--score", "100", "--opponents", "150", "--dice", "3"]
    fresh = js(*at, "--turn", "150", "--tables", folder)
    late = js(*at, "--turn", "150", "--zilches", "2", "--tables", folder)
    assert fresh["situation"] == "game" and fresh["zilches"] == [0, 0] and late["zilches"] == [2, 0]
    assert late["p_win_game"] < fresh["p_win_game"]
    assert late["p_win"]["roll"] < fresh["p_win"]["roll"]  # a zilch now costs the penalty
    assert late["p_win"]["bank"] == pytest.approx(fresh["p_win"]["bank"], abs=1e-15)
    out = tmp_path / "g.csv"
    zilch("export", "--rules", f, "--objective", "game", "--out", str(out), "--tables", folder)
    head = out.read_text().splitlines()[0]
    assert head == "score,opponent,zilches,opponent_zilches,p_win"


@pytest.mark.parametrize(
    "args",
    [
        ["game", "--rules", "farkle", "--lowest", "-500"],
        ["game", "--rules", BUSCHE, "--zilches", "3"],
        ["game", "--rules", BUSCHE, "--scores", "-2500,0"],
        ["advise", "--rules", BUSCHE, "--opp-zilches", "1"],
    ],
)
def test_bad_game_input_is_one_line_and_exit_2(args):
    p = zilch(*args, code=2)
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr


def test_unsupported_game_rules_are_refused(tmp_path):
    """The game with a penalty is solved without an entry minimum, permanent points or
    piggyback: such rules are refused in one line, never answered without the penalty."""
    for name in ("zilch-5000", "zilch-online", "zonk-chicago"):
        src = rules.canonical_source(name)
        src["game"]["three_zilch_penalty"] = 500
        f = tmp_path / f"{name}.toml"
        f.write_text(_toml(src))
        p = zilch("game", "--rules", str(f), code=2)
        assert "three_zilch_penalty" in p.stderr and p.stderr.count("\n") == 1


def test_rules_built_in_python_are_checked_too():
    """A RuleSet made in Python (not read from a file) with a penalty off the points' grid
    is refused, like the file would be."""
    with pytest.raises(rules.InputError, match="multiple of 50"):
        _with_penalty("farkle", 25)


def test_a_policy_file_cannot_set_counts_where_they_change_nothing(tmp_path):
    f = tmp_path / "p.toml"
    f.write_text("[bank]\ndefault = 300\n[bank.zilches.0]\ndefault = 1000\n")
    p = zilch("evaluate", "--rules", "farkle", "--policy", str(f), code=2)
    assert "bank.zilches" in p.stderr and p.stderr.count("\n") == 1


def test_the_penalty_free_game_table_refuses_rules_with_a_penalty():
    """The penalty-free game table (variants.plain) never answers for rules with a penalty:
    it refuses instead of leaving the penalty out, and the registry gives such rules the
    game with the penalty."""
    from dicesolver import variants
    from dicesolver.variants.penalty import Penalty
    from dicesolver.variants.plain import Plain

    rs = _with_penalty("farkle")
    with pytest.raises(rules.InputError, match="penalty"):
        Plain(rs).key()
    assert isinstance(variants.of(rs), Penalty)


def test_scores_below_zero_in_the_end_game_are_the_same_deficits(tmp_path):
    """Where the penalty may take a score below zero, the last turn and the final round
    take such scores: a last turn from -500 against 1050 is the one from 0 against 1550
    (the same deficit), a final round likewise; below the game's lowest score, refused."""
    src = rules.canonical_source("farkle")
    src["game"].update(target=1000, three_zilch_penalty=500)
    pen = tmp_path / "pen.toml"
    pen.write_text(_toml(src))
    src["game"].update(target=1500, three_zilch_penalty=0)
    plain = tmp_path / "plain.toml"
    plain.write_text(_toml(src))
    turn = ["--dice", "3", "--turn", "300"]
    for mine, theirs, shift in ((-500, "1050", "1550"), (200, "-500,1050", "0,1550")):
        a = js("advise", "--rules", str(pen), "--score", str(mine), "--opponents", theirs, *turn)
        score = str(mine + 500)
        b = js("advise", "--rules", str(plain), "--score", score, "--opponents", shift, *turn)
        assert a["p_win"] == b["p_win"] and a["situation"] == b["situation"]
    p = zilch("advise", "--rules", str(pen), "--score", "-100000", "--opponents", "0", code=2)
    assert p.stderr.count("\n") == 1
