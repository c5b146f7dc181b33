"""Pyramiding (issue 14, RULES.md `zilch`, optional rules): frozen dice combine with later
rolls.  The worked examples of RULES.md, an exact brute force on reduced games, the C
kernel against numpy, simulation against the exact figures, and every command's answer
or refusal."""

import csv
import dataclasses
import io
import json
import tomllib
from pathlib import Path

import numpy as np
import pytest

from dicesolver import InputError, rules
from dicesolver.objectives.score import solve_score
from dicesolver.outcomes.dice import Outcome
from dicesolver.outcomes.frozen import NONE, choices, turn_states
from dicesolver.outcomes.model import turn_model
from dicesolver.play.policies import load_policy
from dicesolver.turn import TurnState

from . import bruteforce_pyramid
from . import game_valueiteration as VI
from .clirun import zilch as run
from .solvers import (
    evaluate,
    game_table,
    play,
    policy,
    score_policy,
    solve_game,
    solve_last_turn,
    tables,
)

DATA = Path(__file__).parent / "data"
ZP = "zilch-pyramiding"


def _counts(faces):
    return tuple(faces.count(f) for f in range(1, 7))


def _choices(name, frozen, roll):
    rs = rules.load(name) if isinstance(name, str) else name
    return choices(rs, Outcome(_counts(roll), None), _counts(frozen))  # type: ignore[arg-type]


def _pyramiding(name):
    """A preset with pyramiding switched on (the documented way for any preset)."""
    d = rules.canonical_source(name)
    d["pyramiding"] = True
    return rules.from_dict(d, f"{name}+pyramiding")


# --- the rule key ---------------------------------------------------------------------------
def test_rule_key_off_leaves_every_existing_hash_and_is_part_of_it_when_on():
    """A new key must not change stored tables: off, it is not in the digest."""
    for name in rules.preset_names():
        rs = rules.load(name)
        assert "pyramiding" not in rs.canonical() or rs.pyramiding
        if rs.pyramiding or rs.overtaking or rs.challenge:  # (refused with pyramiding)
            continue
        on = dataclasses.replace(rs, pyramiding=True)
        assert on.digest() != rs.digest()
    zp, z = rules.load(ZP), rules.load("zilch")
    assert zp.pyramiding and not z.pyramiding
    assert dataclasses.replace(zp, pyramiding=False).digest() == z.digest()


def test_rule_key_is_validated_and_combinations_it_cannot_carry_are_refused(tmp_path):
    d = rules.canonical_source("zilch")
    d["pyramiding"] = "yes"
    with pytest.raises(InputError, match="key 'pyramiding': expected true or false"):
        rules.from_dict(d, "x.toml")
    for name, clash in (("zilch-online", "permanent"), ("zonk-chicago", "piggyback")):
        d = rules.canonical_source(name)
        d["pyramiding"] = True
        with pytest.raises(InputError, match=f"pyramiding with {clash}"):
            rules.from_dict(d, "x.toml")


# --- RULES.md's worked examples -------------------------------------------------------------
def test_frozen_5_and_two_rolled_5s_add_450_and_both_must_be_frozen():
    """RULES.md: '5 frozen + 5-5 rolled adds 450' (three 5s, 500, instead of 150)."""
    (c,) = _choices(ZP, [5], [5, 5, 3])
    assert (c.points, c.left, c.kept) == (450, 1, _counts([5, 5]))
    (c,) = _choices("zilch", [], [5, 5, 3])  # without pyramiding: two singles
    assert c.points == 100


def test_three_frozen_2s_and_a_rolled_2_add_3800_in_zilch():
    """RULES.md: 'in zilch three 2s frozen + one rolled 2 adds 4000 - 200'; the 2 is a
    counter although it would not score alone, so forced set-aside freezes it."""
    (c,) = _choices(ZP, [2, 2, 2], [2, 3, 4])
    assert (c.points, c.left) == (3800, 2)
    assert c.frozen == _counts([2, 2, 2, 2])


def test_a_roll_that_only_raises_a_frozen_group_is_not_a_zilch():
    """RULES.md: 'A roll that neither scores alone nor raises a frozen group is a zilch'."""
    assert _choices(ZP, [2, 2, 2], [2, 3])  # the 2 raises the group
    assert not _choices(ZP, [2, 2, 2], [3, 4])  # nothing raises, nothing scores: a zilch
    assert not _choices("zilch", [], [2, 3])


def test_whole_roll_patterns_never_take_frozen_dice():
    """A frozen 1 and a rolled 2-3-4-5-6 are no straight; frozen 5-5 and a rolled 2-2-3-3
    are no three pairs (a zilch)."""
    (c,) = _choices(ZP, [1], [2, 3, 4, 5, 6])
    assert (c.points, c.left) == (50, 4)
    assert not _choices(ZP, [5, 5], [2, 2, 3, 3])


def test_hot_dice_clear_the_groups():
    """The sixth die frozen: the groups are gone, the next roll of six starts afresh."""
    (c,) = _choices(ZP, [1, 1, 1, 5, 5], [5])
    assert (c.points, c.left, c.frozen) == (400, 0, NONE)
    assert c.state == 0  # mandatory hot dice: the must-roll state, nothing frozen


def test_a_die_that_does_not_raise_its_group_does_not_join_it():
    """zilch-5000 has no four of a kind: a fourth 2 adds nothing, so it is no counter
    even with three 2s frozen (a zilch)."""
    rs = _pyramiding("zilch-5000")
    assert not _choices(rs, [2, 2, 2], [2, 3])
    (c,) = _choices(rs, [2, 2, 2], [2, 2, 2])  # six 2s: two triples, 400 - 200
    assert c.points == 200


def test_free_set_aside_keeps_choices_that_differ_only_in_what_stays_frozen():
    """Under set_aside = "any" one 5 (50, the group at two) and two 5s (450) lead to
    different futures; both are offered."""
    d = rules.canonical_source("zilch")
    d.update(pyramiding=True, set_aside="any")
    rs = rules.from_dict(d, "free.toml")
    pts = sorted(c.points for c in _choices(rs, [5], [5, 5, 3, 4]))
    assert pts == [50, 450]


# --- the exact solve ------------------------------------------------------------------------
def _rule(file, **change):
    d = tomllib.loads((DATA / file).read_text())
    d.update(change)
    return rules.from_dict(d, file)


@pytest.mark.parametrize(
    "rs",
    [
        _rule("pyramid-3.toml"),
        _rule("pyramid-3.toml", set_aside="any", hot_dice="optional", bank_minimum=0),
        _rule("pyramid-4.toml"),
        _rule("pyramid-4.toml", set_aside="any", hot_dice="mandatory"),
    ],
    ids=["3-forced-mandatory", "3-free-optional", "4-forced-optional", "4-free-mandatory"],
)
def test_fast_solver_equals_exact_brute_force_on_every_reachable_state(rs):
    """tests/bruteforce_pyramid.py (ordered dice, every subset, raw frozen counts, exact
    Fractions) against the solver's value of every state a turn reaches, to 1e-12."""
    value, states = bruteforce_pyramid.solve(rs, rs.bank_minimum)
    main, _ = solve_score(turn_model(rs))
    worst, frozen_seen = 0.0, 0
    for n, frozen, t, forced in states:
        s = 0 if forced else TurnState(n, t, 0, frozen).index(rs)
        roll, bank = main.at(s, t // rs.unit)
        exact = float(value(n, frozen, t, forced))
        worst = max(worst, abs(max(roll[1], bank[1]) - exact) / max(1.0, abs(exact)))
        frozen_seen += s > rs.dice
    assert worst < 1e-12
    assert len(states) > 150 and frozen_seen > 50  # the frozen states were compared too


@pytest.mark.parametrize("deficit", [600, 1500])
@pytest.mark.parametrize(
    "rs",
    [_rule("pyramid-3.toml"), _rule("pyramid-4.toml", set_aside="any")],
    ids=["3-forced-mandatory", "4-free-optional"],
)
def test_last_turn_equals_exact_brute_force_on_every_reachable_state(rs, deficit):
    """The last turn (P(ending above the deficit)) against the brute force in Fractions,
    every state a turn reaches below the deficit and the minimum, to 1e-12."""
    win, states = bruteforce_pyramid.solve_last_turn(rs, deficit, rs.bank_minimum)
    levels = solve_last_turn(rs, [deficit])
    worst = 0.0
    for n, frozen, t, forced in states:
        s = 0 if forced else TurnState(n, t, 0, frozen).index(rs)
        roll, bank = levels[0].at(s, t // rs.unit)
        worst = max(worst, abs(max(roll[0], bank[0]) - float(win(n, frozen, t, forced))))
    assert worst < 1e-12 and len(states) > 20


@pytest.mark.slow  # a value iteration (7 s): the reference tier
def test_game_equals_plain_value_iteration_under_pyramiding():
    """The two-player game (zonk-chicago to 1000, instant end, without its piggyback) with
    pyramiding against the plain value iteration over every state, whose turns follow the
    brute force's raw frozen counts (tests/game_valueiteration.py), to 1e-9."""
    rs = dataclasses.replace(rules.load("zonk-chicago"), piggyback=False, pyramiding=True)
    W = solve_game(rs, 1000).W
    W_vi = VI.game(rs, rs.reach_units(1000), 60)
    assert np.abs(W - W_vi).max() < 1e-9


def test_compiled_kernel_equals_the_numpy_loop_under_pyramiding(monkeypatch):
    """The C backward pass maps state 0 to the group of all dice (not the last group)."""
    import dicesolver.turn.kernel as T

    assert T.compiled() is not None
    model = turn_model(rules.load(ZP))
    fast, _ = solve_score(model)
    monkeypatch.setattr(T, "compiled", lambda name="backward": None)
    slow, _ = solve_score(model)
    assert np.abs(fast.roll - slow.roll).max() < 1e-9
    assert model.states == len(turn_states(model.rules)) > model.dice + 1


def test_evaluation_from_a_frozen_state_is_the_solvers_value():
    """The forward evaluator from 3 dice with 1,5,5 frozen: its mean is the solver's."""
    rs = rules.load(ZP)
    state = TurnState(3, 600, 0, _counts([1, 5, 5]))
    from dicesolver.play.evaluate import evaluate as run_eval

    d = run_eval(turn_model(rs), policy(rs), True, state)
    assert d.mean == pytest.approx(score_policy(rs).value_at(state).best, rel=1e-12)


# --- simulation with physical dice ----------------------------------------------------------
@pytest.mark.slow  # a big simulation
def test_physical_dice_scored_independently_reproduce_the_exact_value():
    """zilch-pyramiding's optimal turn played with physical dice, each roll scored by the
    brute force's own reading of the rules (raw frozen counts, six-dice patterns) and only
    the bank decision read from the solver: the mean lands within 4 standard errors of the
    solver's value of a fresh turn (checks the model's scoring and state after each roll)."""
    rs = rules.load(ZP)
    score = bruteforce_pyramid.scorer(rs)
    pol = score_policy(rs)
    rng = np.random.default_rng(1414)
    totals = []
    for _ in range(30_000):
        n, frozen, t = rs.dice, NONE, 0
        while True:
            ch = score(tuple(sorted(int(x) for x in rng.integers(1, 7, n))), frozen)
            if not ch:
                totals.append(0)
                break
            ((points, left, frozen),) = ch  # forced set-aside: one choice
            t += points
            n = left or rs.dice
            if left and pol.value_at(TurnState(n, t, 0, frozen)).action == "bank":
                totals.append(t)
                break
    res = np.array(totals, float)
    se = res.std(ddof=1) / np.sqrt(len(res))
    assert abs(res.mean() - pol.expected_turn_score(True)) < 4 * se


def test_user_policy_thresholds_by_dice_apply_to_frozen_states(tmp_path):
    """A policy file's thresholds go by the dice left, frozen groups or not: its exact
    distribution and 200,000 simulated turns agree."""
    rs = rules.load(ZP)
    f = tmp_path / "p.toml"
    f.write_text("[bank]\nthresholds = { 5 = 2000, 4 = 1000, 3 = 600 }\ndefault = 350\n")
    pol = load_policy(str(f), rs)
    d = evaluate(rs, pol, True)
    res = play(rs, pol, 200_000, np.random.default_rng(14), True)
    se = res.std(ddof=1) / np.sqrt(len(res))
    assert abs(res.mean() - d.mean) < 4 * se


@pytest.mark.slow  # simulated turns verified twice
def test_verify_accepts_the_simulators_turns_and_rejects_them_without_pyramiding(tmp_path):
    """zilch verify cross-checks the solver under the option: the simulated turns of
    zilch-pyramiding are consistent with its exact distribution, not with zilch's."""
    out = tmp_path / "turns.csv"
    run("simulate", "--rules", ZP, "--turns", "100000", "--seed", "3", "--out", str(out))
    d = json.loads(run("verify", "--rules", ZP, "--results", str(out), "--json").stdout)
    assert d["consistent"] and abs(d["mean_z"]) < 4
    d = json.loads(
        run("verify", "--rules", "zilch", "--results", str(out), "--json", code=1).stdout
    )
    assert not d["consistent"]


# --- the commands ---------------------------------------------------------------------------
def js(*args):
    return json.loads(run(*args, "--json").stdout)


def test_rules_lists_and_describes_the_preset():
    assert ZP in [p["name"] for p in js("rules")]
    d = js("rules", ZP)
    assert d["pyramiding"] is True
    assert "pyramiding: dice frozen" in run("rules", ZP).stdout
    assert "pyramiding" not in js("rules", "zilch")


def test_advise_with_frozen_dice_and_a_roll():
    d = js("advise", "--rules", ZP, "--dice", "3", "--turn", "600", "--frozen", "1,5,5")
    assert d["frozen"] == [1, 5, 5] and d["values"]["bank"] == 600
    state = TurnState(3, 600, 0, _counts([1, 5, 5]))
    assert d["values"]["roll"] == pytest.approx(score_policy(rules.load(ZP)).value_at(state).roll)
    d = js("advise", "--rules", ZP, "--dice", "1", "--turn", "1000", "--frozen", "2,2,2,1,5")
    d = js(
        "advise", "--rules", ZP, "--dice", "1", "--turn", "1000", "--frozen", "2,2,2,1,5",
        "--roll", "2",
    )  # fmt: skip
    (o,) = d["options"]
    assert (o["points"], o["hot_dice"], o["frozen"]) == (3800, True, [])
    assert "frozen" not in js("advise", "--rules", "zilch", "--dice", "3", "--turn", "400")


@pytest.mark.parametrize(
    "args, message",
    [
        (("--rules", "zilch", "--dice", "3", "--frozen", "5"), "--frozen needs pyramiding"),
        (("--rules", ZP, "--dice", "3", "--frozen", "2"), "1 x 2 is impossible"),
        (("--rules", ZP, "--dice", "2", "--frozen", "1,1,1,1,1"), "more than the 6 dice"),
        (("--rules", ZP, "--dice", "2", "--frozen", "9"), "a die shows 1..6"),
        (("--rules", ZP, "--dice", "3", "--turn", "600"), "and no dice frozen"),
    ],
)
def test_impossible_frozen_dice_are_one_line_and_exit_2(args, message):
    res = run("advise", *args, code=2)
    assert message in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_strategy_lists_the_states_holding_frozen_groups():
    d = js("strategy", "--rules", ZP)
    rows = {(r["dice"], tuple(r["frozen"])): r["bank_from"] for r in d["by_frozen"]}
    pol = score_policy(rules.load(ZP))
    assert d["expected_turn_score"] == pytest.approx(pol.expected_turn_score(True))
    assert (3, (1, 5, 5)) in rows and (4, (5, 5)) in rows
    assert "frozen" in run("strategy", "--rules", ZP).stdout
    assert "by_frozen" not in js("strategy", "--rules", "zilch")


def test_endgame_last_turn_with_frozen_dice_is_the_last_turn_solvers():
    d = js("endgame", "--rules", ZP, "--deficit", "1000", "--dice", "3", "--turn", "600",
           "--frozen", "1,5,5")  # fmt: skip
    levels = solve_last_turn(rules.load(ZP), [1000])
    s = TurnState(3, 600, 0, _counts([1, 5, 5])).index(rules.load(ZP))
    assert d["frozen"] == [1, 5, 5]
    assert d["p_win"] == pytest.approx(float(levels[0].at(s, 12)[0][0]), abs=1e-12)
    assert "frozen 1,5,5" in run("endgame", "--rules", ZP, "--deficit", "1000", "--dice", "3",
                                 "--turn", "600", "--frozen", "1,5,5").stdout  # fmt: skip
    run("endgame", "--rules", "zilch", "--deficit", "1000", "--frozen", "5", code=2)


def test_advice_by_the_chance_of_winning_carries_the_frozen_dice():
    """advise --score: a last turn is endgame --deficit's value; in a final round the
    fresh turn's value is the report's chance of that player (both with pyramiding)."""
    state = ("--dice", "3", "--turn", "600", "--frozen", "1,5,5")
    a = js("advise", "--rules", ZP, *state, "--score", "14000", "--opponents", "15100")
    e = js("endgame", "--rules", ZP, "--deficit", "1100", *state)
    assert a["situation"] == "last turn" and a["frozen"] == [1, 5, 5]
    assert a["p_win"]["roll"] == pytest.approx(e["values"]["roll"], abs=1e-13)
    a = js("advise", "--rules", ZP, "--score", "14000", "--opponents", "13000,15100",
           "--final-round")  # fmt: skip
    r = js("endgame", "--rules", ZP, "--final-round", "--scores", "15100,14000,13000")
    assert a["situation"] == "final round"
    assert a["p_win"]["roll"] == pytest.approx(r["players"][1]["p_win"], abs=1e-12)
    assert "stopping_rule" not in r["players"][1]  # by dice left it would miss the frozen


def test_last_turn_table_and_game_commands_honour_the_option(tmp_path):
    """On the 4-dice game to 1000 (zilch-pyramiding's last-turn table has 3.7 M rows)."""
    src = (DATA / "pyramid-4.toml").read_text() + "\n[game]\ntarget = 1000\n"
    (tmp_path / "p4.toml").write_text(src)
    p4, rs = str(tmp_path / "p4.toml"), rules.load(str(tmp_path / "p4.toml"))
    out = tmp_path / "last.csv"
    run("endgame", "--rules", p4, "--table", "--format", "csv", "--out", str(out))
    with open(out) as f:
        rows = csv.DictReader(f)
        assert rows.fieldnames is not None and rows.fieldnames[:3] == ["deficit", "dice", "frozen"]
        row = next(r for r in rows if r["frozen"] == "1,5" and r["deficit"] == "600")
    s = TurnState(2, int(row["turn_total"]), 0, _counts([1, 5])).index(rs)
    levels = solve_last_turn(rs, [600], on_board=row["on_board"] == "True")
    roll = levels[0].at(s, int(row["turn_total"]) // rs.unit)[0][0]
    assert float(row["p_win_roll"]) == pytest.approx(float(roll), abs=1e-12)
    d = js("game", "--rules", p4, "--scores", "0,0")
    assert d["p_win"] == pytest.approx(float(solve_game(rs, 1000).W[0, 0]), abs=1e-12)
    # a turn of the game with frozen dice, from the stored table
    a = js("advise", "--rules", p4, "--dice", "2", "--turn", "150", "--frozen", "1,5",
           "--score", "0", "--opponents", "0")  # fmt: skip
    v = game_table(tables(rs)).turn(0, 0).value_at(TurnState(2, 150, 0, _counts([1, 5])))
    assert a["situation"] == "game" and a["p_win"]["roll"] == pytest.approx(v.roll, abs=1e-12)


@pytest.mark.slow  # three whole answers of zilch-pyramiding (5 s): the quick tier at its 3 minutes
def test_evaluate_simulate_and_export_honour_the_option():
    d = js("evaluate", "--rules", ZP, "--dice", "3", "--turn", "600", "--frozen", "1,5,5")
    assert d["frozen"] == [1, 5, 5]
    d = js("simulate", "--rules", ZP, "--turns", "20000", "--seed", "1")
    assert abs(d["z"]) < 4
    text = run("export", "--rules", ZP, "--format", "csv").stdout
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {"dice", "frozen"} <= set(rows[0])
    assert any(r["frozen"] == "1,5,5" and r["dice"] == "3" for r in rows)


@pytest.mark.parametrize(
    "args",
    [
        ("plot", "game", "--rules", ZP, "--out", "x.png"),
        ("plot", "endgame", "--rules", ZP, "--out", "x.png"),
        ("odds", "--rules", ZP, "--dice", "3"),
        ("verify", "--rules", ZP, "--rolls", "--results", "x.txt"),
    ],
)
def test_commands_that_cannot_carry_frozen_groups_refuse_in_one_line(args):
    res = run(*args, code=2)
    assert "pyramiding" in res.stderr and len(res.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(  # (slow: the free set-aside's, a game table of its own)
    "free",
    [False, pytest.param(True, marks=pytest.mark.slow)],
    ids=["zilch-pyramiding", "free-set-aside"],
)
def test_a_pyramiding_game_is_played_with_hints_and_reviewed_as_advise_values_it(tmp_path, free):
    """Issue 35: `zilch play` and `zilch review` take pyramiding.  A hot seat of two to its
    end (the game table stored: hints by P(win)), every decision checked against `advise
    --roll` (and `advise` after the set-aside) with the frozen dice: the hint's rows are
    its ranking, row for row; some moves are not the best, and the review grades them
    with the same values, read back from the log file.  The preset forces the set-aside
    (the engine takes it); with a free set-aside every keep is the player's."""
    import dicesolver as ds
    from dicesolver.match import Session, ZilchMatch
    from dicesolver.outcomes.frozen import faces_of

    rs = rules.load(ZP).aimed(1000)
    if free:
        rs = dataclasses.replace(rs, set_aside="free", name="zilch-pyramiding-free")
    folder = str(tmp_path / "tables")
    ds.game(rs, tables=folder)  # (solved and stored: the hints and the review by P(win))
    engine = ZilchMatch(rs, folder)
    keeps = moves = losses = frozen = 0
    for seed in range(35, 60):  # (games until enough decisions of each kind)
        log = tmp_path / f"game{seed}.jsonl"
        with open(log, "w") as out:
            session = Session(engine, engine.start(["Ann", "Bob"], 0, seed=seed).state, out)
            while session.state.phase != "over":
                s = session.state
                scores = dict(score=s.seats[s.seat].score, opponents=s.others())
                if s.phase == "keep":
                    h = engine.hint(s)
                    a = ds.advise(rs, s.at.dice, s.at.turn, s.at.permanent, roll=list(s.roll),
                                  frozen=faces_of(s.at.frozen) or None, tables=folder,
                                  **scores)  # fmt: skip
                    assert h.objective == "game"
                    assert [r["keep"] for r in h.options] == [o.keep for o in a.options]
                    assert [r["value"] for r in h.options] == [o.value for o in a.options]
                    keeps += 1
                    pick = h.options[-1] if keeps % 3 == 0 else h.options[0]  # (not best)
                    session.apply({"action": "keep", "dice": pick["keep"]})
                elif s.phase == "move":
                    after = s.after
                    row = engine.hint(s).options[0]
                    a = ds.advise(rs, after.dice, after.turn, after.permanent, tables=folder,
                                  frozen=faces_of(after.frozen) or None, **scores)  # fmt: skip
                    assert (row["roll"], row["bank"]) == (a.p_win.roll, a.p_win.bank)
                    moves += 1
                    other = "roll" if row["then"] == "bank" else "bank"
                    worse = moves % 4 == 0 and other in engine.allowed(s) and row["bank"]
                    session.apply(other if worse else "best")
                else:
                    session.apply("roll")
        frozen += sum('"frozen"' in ln for ln in log.read_text().splitlines())
        mine = engine.reviews(session.state, str(log))
        for name, (played,) in mine.items():
            read = ds.review(str(log), rs, player=name, tables=folder)
            assert read.objective == played.objective == "game"
            assert [(i.value_best, i.value_chosen) for i in read.items] == [
                (i.value_best, i.value_chosen) for i in played.items
            ]
            losses += sum(i.loss > 0 for i in played.items)
        if moves > 12 and (keeps > 12 or not free):
            break
    assert moves > 12 and (keeps > 12 if free else keeps == 0) and losses > 0
    assert frozen > 0  # (decisions with frozen dice were logged and reviewed)
