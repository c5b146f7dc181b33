"""The step engines of the games (match/): whole games to the end through the engine
(against computers, hot seat of 2 and 6, companion with typed dice, Yahtzee solitaire), the
computer's moves as decisions.py's best, simulated games against the game table's P(win),
illegal moves refused in one line, every state's JSON round trip, seeded games replayed."""

import json
from pathlib import Path

import numpy as np
import pytest

from dicesolver.answers import decisions as D
from dicesolver.errors import InputError
from dicesolver.match import Session, YahtzeeMatch, YahtzeeState, ZilchMatch, ZilchState
from dicesolver.outcomes.scoring import parse_roll
from dicesolver.turn.state import TurnState

from .solvers import game_table, preset_file

DUEL3 = Path(__file__).parent / "data" / "duel-3.toml"


def _round_trip(s):
    again = type(s).from_json(json.loads(json.dumps(s.to_json())))
    assert again == s
    return again


def _play(eng, step, person, limit=5000):
    """The game to its end: person(engine, state) gives each person's action; the
    computers play their turns.  Every state is checked to round-trip through JSON, every
    step's log lines to be the state's new ones.  The last state and all steps."""
    steps = [step]
    s = step.state
    for _ in range(limit):
        if s.phase == "over":
            return s, steps
        v = eng.view(s)
        action = "play" if v["computer"] and s.dice_from == "seed" else person(eng, s)
        step = eng.apply(s, action)
        assert step.state.log == s.log + step.log
        json.dumps(step.to_dict())  # (what a page is sent)
        s = _round_trip(step.state)
        steps.append(step)
    raise AssertionError("the game did not end")


def _best(eng, s):
    return "roll" if s.phase == "roll" else "best"


def _simple(eng, s):
    """A person who keeps the set-aside worth most and banks from 300 (where allowed)."""
    if s.phase == "roll":
        return "roll"
    if s.phase == "keep":
        return {"action": "keep", "dice": eng.view(s)["choices"][0]}
    return "bank" if eng.view(s)["turn_total"] >= 300 else "roll"


@pytest.fixture(scope="module")
def farkle1000(tmp_path_factory):
    return preset_file(tmp_path_factory.mktemp("rules"), "farkle", 1000)


@pytest.fixture(scope="module")
def farkle500(tmp_path_factory):
    """farkle to 500 with its two-player game table stored (solved in a second)."""
    path = preset_file(tmp_path_factory.mktemp("rules"), "farkle", 500)
    # (into the session's table folder: conftest sets it for each test, after this fixture)
    game_table(ZilchMatch(path, str(tmp_path_factory.getbasetemp() / "tables")).tab)
    return path


@pytest.fixture(scope="module")
def zilch1000(tmp_path_factory):
    return preset_file(tmp_path_factory.mktemp("rules"), "zilch", 1000)


# --- whole games ------------------------------------------------------------------------
def test_a_person_against_three_computers_plays_to_the_end(farkle1000):
    """You and three computers (no 4-player table: by expected points, the final round by
    P(win)): the game ends with winners at the top score, every seat's decisions logged,
    the person (best moves) reviewed without a loss."""
    eng = ZilchMatch(farkle1000)
    first = eng.start(["you"], computers=3, seed=5)
    assert "by expected points" in first.texts[0]
    s, steps = _play(eng, first, _best)
    assert not s.left and s.winners
    top = max(x.score for x in s.seats)
    assert all(s.seats[i].score == top for i in s.winners) and eng.rules.reached(top)
    assert {x["player"] for x in s.log} == {"you", "computer 1", "computer 2", "computer 3"}
    reviews = eng.reviews(s)
    assert set(reviews) == {"you"}
    assert all(r.loss_total == 0 and r.errors == 0 for r in reviews["you"])
    assert sum(r.decisions for r in reviews["you"]) == sum(
        1 for x in s.log if x["player"] == "you" and x["then"] != "zilch"
    )
    assert steps[-1].events[-1]["kind"] == "over"


def test_a_computers_turn_is_shown_roll_by_roll(farkle1000):
    """play: the computer's whole turn as steps, a roll event for each roll, each followed
    by its set-aside and decision (or the zilch), one log line per roll."""
    eng = ZilchMatch(farkle1000)
    s = eng.start([], computers=2, seed=2).state
    for _ in range(6):
        step = eng.apply(s, "play")
        kinds = [e["kind"] for e in step.events]
        rolls = kinds.count("roll")
        assert rolls == len(step.log) >= 1
        for k, e in enumerate(step.events):
            if e["kind"] == "roll":
                assert step.events[k + 1]["kind"] in ("set_aside", "zilch")
        assert kinds.count("bank") + kinds.count("zilch") == 1
        s = step.state
        if s.phase == "over":
            break


@pytest.mark.slow  # (a full-size reference: the slow tier)
def test_hot_seat_of_two_and_six_people(farkle1000):
    """Every seat a person on one device: 2 and 6 players play to the end, each reviewed."""
    eng = ZilchMatch(farkle1000)
    for names in (["Ann", "Bob"], ["A", "B", "C", "D", "E", "F"]):
        first = eng.start(names, computers=0, seed=8)
        assert "computer" not in first.texts[0]
        s, _ = _play(eng, first, _simple)
        assert s.winners and [x.name for x in s.seats] == names
        assert {x["player"] for x in s.log} == set(names)
        reviews = eng.reviews(s)
        assert set(reviews) <= set(names) and len(reviews) >= 2
        for name, rs in reviews.items():
            assert all(i.player == name for r in rs for i in r.items)


def test_companion_with_typed_dice(farkle1000):
    """Companion mode: every seat a person, every roll's faces typed (here from a generator
    the engine does not see); the score sheet is kept to the end, and a roll of the wrong
    number of dice is refused."""
    eng = ZilchMatch(farkle1000)
    rng = np.random.default_rng(4)
    first = eng.start(["Ann", "Bob", "Cy"], computers=0, dice_from="input", seed=1)
    s = first.state
    with pytest.raises(InputError, match="type the faces of the 6 dice"):
        eng.apply(s, "roll")
    with pytest.raises(InputError, match="6 dice were rolled, not 2"):
        eng.apply(s, {"action": "roll", "dice": [1, 5]})

    def person(eng, s):
        if s.phase == "roll":
            return {"action": "roll", "dice": [int(x) for x in rng.integers(1, 7, s.at.dice)]}
        return _simple(eng, s)

    s, steps = _play(eng, first, person)
    assert s.rolls == 0 and s.winners  # (no engine roll)
    banked = {n: 0 for n in ("Ann", "Bob", "Cy")}
    for st in steps:
        for e in st.events:
            if e["kind"] == "bank":
                banked[e["player"]] = e["score"]
    assert banked == {x.name: x.score for x in s.seats}


def test_companion_for_a_computer_types_its_dice_too(farkle1000):
    """Dice from input with a computer: its roll is typed, and it answers at once."""
    eng = ZilchMatch(farkle1000)
    s = eng.start(["you"], computers=1, dice_from="input", seed=1).state
    s = eng.apply(s, {"action": "roll", "dice": "2 3 4 6 6 2"}).state  # (zilch)
    assert s.seat == 1 and eng.allowed(s) == ["roll", "quit"]
    step = eng.apply(s, {"action": "roll", "dice": [1, 1, 1, 2, 3, 4]})
    assert step.log[0]["player"] == "computer 1" and step.log[0]["keep"][:3] == [1, 1, 1]


# --- the computer's moves -----------------------------------------------------------------
def test_the_computers_moves_are_decisions_best(farkle500, farkle1000):
    """Every computer decision of games by P(win) (the table stored) and by expected points
    (none stored) is decisions.options' best for the line's situation."""
    from dicesolver.answers.inputs import rule_set, tables_of

    for path, how in ((farkle500, "game"), (farkle1000, "points")):
        eng = ZilchMatch(path)
        first = eng.start([], computers=2, seed=11)
        assert ("(the game table is stored)" in first.texts[0]) == (how == "game")
        s, _ = _play(eng, first, _best)
        tab = tables_of(rule_set(path), None)
        rs = tab.rules
        checked = 0
        for ln in s.log:
            if ln["then"] == "zilch":
                continue
            final = any(rs.reached(o) for o in ln["opponents"])
            values = (
                D.game_values(tab, ln["score"], ln["opponents"])
                if how == "game" or final
                else D.points_values(tab, rs.on_board(ln["score"]))
            )
            state = TurnState(ln["dice"], ln["turn"], ln.get("permanent", 0))
            best = D.options(rs, values, state, parse_roll(rs, ln["roll"]))[0]
            assert (ln["keep"], ln["then"]) == (best.keep, best.values.action)
            checked += 1
        assert checked >= 10


@pytest.mark.slow  # the three-player table solved on Dask
def test_three_computers_play_by_the_nplayer_table(farkle500, tmp_path_factory):
    """With the 3-player table stored the computers play by P(win) from it: every move of
    two games is decisions.options' best by decisions.game_values (the N-player table, then
    the final round)."""
    from dicesolver.answers.inputs import rule_set, tables_of

    folder = str(tmp_path_factory.getbasetemp() / "tables")
    tab = tables_of(rule_set(farkle500), folder)
    game_table(tab, 3, workers=1)
    eng = ZilchMatch(farkle500, folder)
    rs = tab.rules
    checked = 0
    for seed in (1, 2):
        first = eng.start([], computers=3, seed=seed)
        assert "(the game table is stored)" in first.texts[0]
        s, _ = _play(eng, first, _best)
        for ln in s.log:
            if ln["then"] == "zilch":
                continue
            values = D.game_values(tab, ln["score"], ln["opponents"])
            state = TurnState(ln["dice"], ln["turn"])
            best = D.options(rs, values, state, parse_roll(rs, ln["roll"]))[0]
            assert (ln["keep"], ln["then"]) == (best.keep, best.values.action)
            checked += 1
    assert checked >= 10


@pytest.mark.slow  # a big simulation
def test_simulated_games_agree_with_the_game_tables_p_win(farkle500):
    """Two computers by P(win) at farkle to 500: the first seat's share of 1500 games
    through the engine (ties half) is the table's P(win) at 0-0 within 4 standard errors."""
    eng = ZilchMatch(farkle500)
    p = game_table(eng.tab).p_win(0, 0)
    n, won = 1500, 0.0
    for seed in range(n):
        s = eng.start([], computers=2, seed=seed).state
        while s.phase != "over":
            s = eng.apply(s, "play").state
        won += 1.0 if s.winners == (0,) else 0.5 if 0 in s.winners else 0.0
    se = np.sqrt(p * (1 - p) / n)
    assert abs(won / n - p) < 4 * se, (won / n, p, se)


def test_hints_by_p_win_where_the_table_is_stored_else_by_points(farkle500, farkle1000):
    """A hint lists every set-aside of the roll best first, each valued as advise values the
    state after it: by P(win) with the scores where the two-player table is stored, else by
    expected points, saying why (the command that builds the table)."""
    import dicesolver as ds

    roll = [1, 1, 5, 3, 4, 6]
    for path, unit in ((farkle500, "probability of winning"), (farkle1000, "expected points")):
        eng = ZilchMatch(path)
        s = eng.start(["you"], 1, dice_from="input").state
        s = eng.apply(s, {"action": "roll", "dice": roll}).state
        h = eng.hint(s)
        assert h.unit == unit and h.phase == "keep" and h.player == "you"
        assert [o["value"] for o in h.options] == sorted(
            (o["value"] for o in h.options), reverse=True
        )
        ranked = ds.advise(path, dice=6, turn=0, roll=roll)
        assert sorted(o["keep"] for o in h.options) == sorted(o.keep for o in ranked.options)
        for o in h.options:
            if unit == "expected points":
                mine = next(r for r in ranked.options if r.keep == o["keep"])
                assert o["value"] == pytest.approx(mine.value, abs=1e-9)
            else:
                at = {"dice": o["dice_left"], "turn": o["turn_total"]}
                v = ds.advise(path, **at, score=0, opponents=[0]).p_win
                assert (o["roll"], o["bank"]) == pytest.approx((v.roll, v.bank), abs=1e-12)
        assert ("zilch game --rules" in h.how) == (unit == "expected points")
        step = eng.apply(s, "hint")
        assert step.state == s and step.events[0]["kind"] == "hint"
        s = eng.apply(s, {"action": "keep", "dice": [1]}).state
        assert eng.hint(s).options[0]["keep"] == [1]  # (the move after the set-aside)


# --- the forced cases say why -------------------------------------------------------------
def test_forced_set_aside_and_must_roll_say_why(zilch1000, farkle1000):
    """zilch: every scoring die is set aside by the rules (no question); a bank below the
    entry minimum, and hot dice, make the roll forced, each with its reason; farkle: the
    only scoring die is taken."""
    eng = ZilchMatch(zilch1000)
    s = eng.start(["you"], computers=1, dice_from="input", seed=1).state
    step = eng.apply(s, {"action": "roll", "dice": [1, 2, 3, 4, 6, 6]})
    e = {x["kind"]: x for x in step.events}
    assert "zilch sets every scoring die aside" in e["set_aside"]["text"]
    assert (
        "the entry minimum: a first bank needs 500, the turn total is 100" in e["must_roll"]["why"]
    )
    assert step.log[0]["then"] == "roll" and step.state.phase == "roll"
    with pytest.raises(InputError, match="you must roll: the entry minimum"):
        eng.apply(step.state, "bank")
    step = eng.apply(step.state, {"action": "roll", "dice": [1, 1, 1, 5, 5]})
    assert "hot dice: all 6 dice scored" in step.events[-1]["why"]
    assert step.state.at == TurnState(6, 1200, 0)
    # the bank minimum once on the board
    on = eng.start(["you"], 1, dice_from="input").state
    on = eng.apply(on, {"action": "roll", "dice": [1, 1, 1, 2, 3, 4]}).state
    assert on.phase == "move"
    on = eng.apply(on, "bank").state
    on = eng.apply(on, {"action": "roll", "dice": [2, 3, 4, 6, 6, 2]}).state  # computer zilch
    step = eng.apply(on, {"action": "roll", "dice": [1, 2, 3, 4, 6, 6]})
    assert "the bank minimum: a bank needs 350, the turn total is 100" in step.events[-1]["why"]
    f = ZilchMatch(farkle1000)
    s = f.start(["you"], 1, dice_from="input").state
    step = f.apply(s, {"action": "roll", "dice": [1, 2, 3, 4, 6, 6]})
    assert "the only dice that score" in step.events[1]["text"] and step.state.phase == "move"


def test_a_split_is_counted_at_its_best(farkle1000):
    """Dice that split several ways (1 1 1 as a triple or three singles): the set-aside
    counts the split worth most."""
    eng = ZilchMatch(farkle1000)
    s = eng.start(["you"], 1, dice_from="input").state
    s = eng.apply(s, {"action": "roll", "dice": [1, 1, 1, 2, 3, 4]}).state
    s = eng.apply(s, {"action": "keep", "dice": "1 1 1"}).state
    assert s.after == TurnState(3, 1000, 0)
    s = eng.apply(s, {"action": "keep", "dice": [1]}).state  # (another set-aside instead)
    assert s.after == TurnState(5, 100, 0)


# --- illegal moves ---------------------------------------------------------------------
def test_every_illegal_move_is_refused_with_one_clear_line(farkle1000, zilch1000):
    eng = ZilchMatch(farkle1000)
    s0 = eng.start(["you"], computers=1, seed=1).state
    keep = eng.apply(s0, "roll").state
    assert keep.phase == "keep"
    move = eng.apply(keep, {"action": "keep", "dice": eng.view(keep)["choices"][0]}).state
    comp = eng.apply(move, "bank").state
    over = eng.apply(s0, "quit").state
    cases = [
        (s0, "bank", "a turn starts with a roll"),
        (s0, {"action": "keep", "dice": [1]}, "no dice to set aside"),
        (s0, "best", "nothing to decide"),
        (s0, "play", "not a computer's"),
        (s0, {"action": "roll", "dice": [1] * 6}, "the engine rolls the dice"),
        (keep, "bank", "set dice aside first"),
        (keep, "roll", "set dice aside first"),
        (keep, {"action": "keep", "dice": [7]}, "faces 1..6"),
        (keep, {"action": "keep", "dice": []}, "no dice given"),
        (keep, {"action": "keep", "dice": "x"}, "faces 1..6"),
        (keep, {"action": "keep", "dice": [True]}, "faces 1..6"),
        (keep, {"action": "keep"}, "faces 1..6"),
        (keep, {"action": "keep", "dice": [1], "then": "bank"}, "unknown argument 'then'"),
        (comp, "bank", "the computer plays it"),
        (comp, {"action": "keep", "dice": [1]}, "the computer plays it"),
        (over, "roll", "the game is over"),
        (s0, "dance", "unknown action 'dance'"),
        (s0, {"dice": [1]}, "unknown action None"),
        (s0, 7, "an action is a name or an object"),
    ]
    faces = keep.roll
    absent = next(f for f in range(1, 7) if f not in faces)
    cases.append((keep, {"action": "keep", "dice": [absent]}, "not among the dice rolled"))
    dead = next((f for f in faces if f not in (1, 5)), None)
    if dead is not None and faces.count(dead) < 3:
        cases.append((keep, {"action": "keep", "dice": [dead]}, "does not score"))
    for state, action, message in cases:
        with pytest.raises(InputError, match=message):
            eng.apply(state, action)
    z = ZilchMatch(zilch1000)
    zs = z.start(["you"], 1, dice_from="input").state
    with pytest.raises(InputError, match="other rules"):
        z.apply(s0, "roll")
    with pytest.raises(InputError, match="not a zilch game state"):
        z.apply({"phase": "roll"}, "roll")
    zs = z.apply(zs, {"action": "roll", "dice": [1, 5, 5, 2, 3, 3]}).state  # (forced: 1 5 5)
    with pytest.raises(
        InputError, match="you must roll: the entry minimum: a first bank needs 500"
    ):
        z.apply(zs, "bank")


def test_bad_games_are_refused(farkle1000, tmp_path):
    eng = ZilchMatch(farkle1000)
    for args, message in (
        ((["you"], 0), "2 to 6 players, got 1"),
        ((["you"], 6), "1 to 6 players, got 7"),
        ((["Ann", "ann"], 0), "two players are named 'ann'"),
        ((["computer 1"], 1), "two players are named 'computer 1'"),
        (([""], 1), "1 to 40 printable"),
        ((["you"], -1), "a count from 0"),
    ):
        with pytest.raises(InputError, match=message):
            eng.start(*args)
    with pytest.raises(InputError, match="dice_from"):
        eng.start(["you"], 1, dice_from="table")
    with pytest.raises(InputError, match="seed"):
        eng.start(["you"], 1, seed=-1)
    with pytest.raises(InputError, match="no target"):
        ZilchMatch(_no_target(tmp_path))
    with pytest.raises(InputError, match="piggyback"):
        ZilchMatch("zonk-chicago")


def _no_target(folder):
    from importlib import resources

    text = resources.files("dicesolver").joinpath("rulesets", "farkle.toml").read_text()
    text = "\n".join(ln for ln in text.splitlines() if not ln.startswith("target"))
    p = folder / "no-target.toml"
    p.write_text(text)
    return str(p)


# --- JSON and seeds ---------------------------------------------------------------------
def test_states_round_trip_through_json_and_bad_json_is_refused(farkle1000):
    eng = ZilchMatch(farkle1000)
    s, _ = _play(eng, eng.start(["you"], 2, seed=9), _best)  # (every state checked there)
    d = s.to_json()
    assert json.loads(json.dumps(d)) == d and d["seats"][0]["name"] == "you"
    for bad, message in (
        ([], "a zilch game state is a JSON object"),
        ({**d, "extra": 1}, "unknown field 'extra'"),
        ({k: v for k, v in d.items() if k != "seats"}, "'seats' is missing"),
        ({**d, "seat": "0"}, "seat must be a whole number"),
        ({**d, "seat": True}, "seat must be a whole number"),
        ({**d, "left": 1}, "left must be true or false"),
        ({**d, "seats": [{"name": "x"}]}, r"seats\[0\]: the field 'computer' is missing"),
        ({**d, "at": [6, 0, 0]}, "at is a JSON object"),
    ):
        with pytest.raises(InputError, match=message):
            ZilchState.from_json(bad)
    s2 = ZilchState.from_json({**d, "seat": 9, "phase": "roll"})
    with pytest.raises(InputError, match="not one this engine makes"):
        eng.apply(s2, "roll")


def test_seeded_games_replay(farkle1000):
    """The same seed and the same actions give the same game, state by state; another seed
    another game."""
    eng = ZilchMatch(farkle1000)
    a, _ = _play(eng, eng.start(["you"], 2, seed=21), _best)
    b, _ = _play(ZilchMatch(farkle1000), ZilchMatch(farkle1000).start(["you"], 2, seed=21), _best)
    c, _ = _play(eng, eng.start(["you"], 2, seed=22), _best)
    assert a == b and a.log == b.log
    assert a.log != c.log


def test_a_session_writes_the_log_as_it_goes(farkle1000, tmp_path):
    """Session: each step's lines written and flushed at once; the file is the state's log
    (zilch review reads it)."""
    import dicesolver as ds

    eng = ZilchMatch(farkle1000)
    path = tmp_path / "s.jsonl"
    with open(path, "w") as out:
        sess = Session(eng, eng.start(["you"], 1, seed=4).state, out)
        while sess.state.phase != "over":
            step = sess.apply("play" if sess.view["computer"] else _best(eng, sess.state))
            assert len(path.read_text().splitlines()) == len(sess.state.log)
            assert not step.log or json.loads(path.read_text().splitlines()[-1]) == step.log[-1]
    assert ds.review(str(path), farkle1000, objective="points", player="you").decisions > 0


# --- Yahtzee ------------------------------------------------------------------------------
def _yahtzee(eng, step, person):
    s = step.state
    steps = [step]
    while s.phase != "over":
        step = eng.apply(s, person(eng, s))
        assert step.state.log == s.log + step.log
        s = _round_trip(step.state)
        steps.append(step)
    return s, steps


def test_yahtzee_solitaire_best_play_to_the_end():
    """13 turns of best play: 39 decisions logged, the review loses nothing, the score is
    the sum of the boxes and bonuses."""
    eng = YahtzeeMatch("yahtzee")
    s, steps = _yahtzee(
        eng, eng.start(seed=5), lambda e, s: "roll" if s.phase == "roll" else "best"
    )
    assert len(s.log) == 39 and sum("box" in x for x in s.log) == 13
    r = eng.review(s)
    assert r.decisions == 39 and r.loss_total == 0
    assert s.total == sum(b.points + b.upper_bonus + b.yahtzee_bonus for b in s.scored)
    assert steps[-1].events[-1]["text"] == f"final score {s.total}"
    chosen = [e for st in steps for e in st.events if e["kind"] == "best" or e.get("best")]
    assert len(chosen) == 39 and all(e["text"].startswith("best: ") for e in chosen)


def test_yahtzee_review_of_an_upload_named_like_a_preset_is_by_its_own_rules(tmp_path):
    """Rule (issue 37, reviews under uploaded rules): the engine reviews its game by its
    own rule set, not by the preset its log lines name: duel-3's three boxes renamed
    "yatzy" and played best throughout lose nothing (yatzy's table would rank them
    otherwise, or refuse the sheet)."""
    from dicesolver.yahtzee.yahtzee_rules import load

    path = tmp_path / "yatzy.toml"
    path.write_text(DUEL3.read_text().replace('name = "duel-3"', 'name = "yatzy"'))
    eng = YahtzeeMatch(load(str(path)), tmp_path / "tables")
    s, _ = _yahtzee(eng, eng.start(seed=5), lambda e, s: "roll" if s.phase == "roll" else "best")
    assert s.rules == "yatzy" and len(s.log) == 9
    r = eng.review(s)
    assert r.decisions == 9 and r.loss_total == 0


def test_yahtzee_with_typed_dice_and_a_box_chosen_early():
    """Dice from input: five typed, then the dice rolled again; a box chosen with rolls
    left stops rolling (the log keeps all five for each roll left, then the box)."""
    eng = YahtzeeMatch("yahtzee")
    s = eng.start(dice_from="input", seed=1).state
    with pytest.raises(InputError, match="5 dice were rolled, not 3"):
        eng.apply(s, {"action": "roll", "dice": [1, 2, 3]})
    s = eng.apply(s, {"action": "roll", "dice": [6, 6, 6, 2, 3]}).state
    s = eng.apply(s, {"action": "keep", "dice": "6 6 6"}).state
    assert s.phase == "roll" and s.hand == (6, 6, 6)
    s = eng.apply(s, {"action": "roll", "dice": [6, 1]}).state
    assert s.hand == (1, 6, 6, 6, 6) and s.rolls_left == 1
    step = eng.apply(s, {"action": "box", "box": "4k"})
    assert [x.get("keep") for x in step.log] == [[1, 6, 6, 6, 6], None]
    assert step.log[-1]["box"] == "four_kind" and step.log[-1]["rolls_left"] == 0
    assert step.events[0]["text"] == "four_kind: 25 points, score 25"
    assert step.state.turn == 2 and step.state.phase == "roll"


def test_yahtzee_box_points_and_bonuses_apart():
    """The upper bonus is said apart from the box's points (score_box folds it in): sixes
    reaching 63 score '18 points + 35 upper bonus'; an extra Yahtzee '+ 100 Yahtzee bonus'."""
    from dataclasses import replace

    from dicesolver.yahtzee.box_scores import score

    eng = YahtzeeMatch("yahtzee")
    s = eng.start(dice_from="input", seed=1).state
    rs = eng.rules
    upper5 = sum(1 << rs.boxes.index(b) for b in ("ones", "twos", "threes", "fours", "fives"))
    s = replace(s, mask=upper5, upper=45, turn=6)
    s = eng.apply(s, {"action": "roll", "dice": [6, 6, 6, 2, 3]}).state
    step = eng.apply(s, {"action": "box", "box": "sixes"})
    assert "sixes: 18 points + 35 upper bonus, score 53" in step.texts[0]
    b = step.state.scored[-1]
    assert (b.points, b.upper_bonus, b.yahtzee_bonus) == (18, 35, 0)
    y = 1 << rs.boxes.index("yahtzee")
    s = replace(eng.start(dice_from="input").state, mask=y, yf=1, turn=2)
    s = eng.apply(s, {"action": "roll", "dice": [3, 3, 3, 3, 3]}).state
    step = eng.apply(s, {"action": "box", "box": "threes"})
    b = step.state.scored[-1]
    assert (b.points, b.yahtzee_bonus) == (score(rs, "threes", (0, 0, 5, 0, 0, 0)), 100)
    assert "threes: 15 points + 100 Yahtzee bonus" in step.texts[0]


def test_yahtzee_illegal_moves_refused():
    eng = YahtzeeMatch("yahtzee")
    s0 = eng.start(seed=3).state
    keep = eng.apply(s0, "roll").state
    absent = next(f for f in range(1, 7) if f not in keep.hand)
    box = eng.apply(eng.apply(keep, {"action": "keep", "dice": "all"}).state, "best").state
    for state, action, message in (
        (s0, {"action": "keep", "dice": [1]}, "roll first"),
        (s0, {"action": "box", "box": "chance"}, "roll first"),
        (s0, "best", "roll first"),
        (keep, "roll", "keep some, or score a box"),
        (keep, {"action": "keep", "dice": [absent]}, "not among the dice"),
        (keep, {"action": "keep"}, "keep which dice"),
        (keep, {"action": "box", "box": "nope"}, "unknown box 'nope'"),
        (keep, {"action": "box"}, "which box"),
        (keep, {"action": "roll", "dice": [1]}, "keep some, or score a box"),
        (s0, {"action": "roll", "dice": [1, 2, 3, 4, 5]}, "the engine rolls"),
        (box, {"action": "keep", "dice": "all"}, "roll first")
        if box.phase == "roll"
        else (box, {"action": "keep", "dice": "all"}, "no roll is left"),
    ):
        with pytest.raises(InputError, match=message):
            eng.apply(state, action)
    s = eng.apply(s0, "roll").state
    s = eng.apply(s, {"action": "box", "box": "chance"}).state
    s = eng.apply(s, "roll").state
    with pytest.raises(InputError, match="cannot be scored in chance"):
        eng.apply(s, {"action": "box", "box": "chance"})
    over = eng.apply(s, "quit").state
    with pytest.raises(InputError, match="the game is over"):
        eng.apply(over, "roll")
    with pytest.raises(InputError, match="is missing"):
        YahtzeeState.from_json({"rules": "yahtzee"})


def test_yahtzee_seeded_games_replay():
    eng = YahtzeeMatch("yahtzee")

    def best(e, s):
        return "roll" if s.phase == "roll" else "best"

    a, _ = _yahtzee(eng, eng.start(seed=40), best)
    b, _ = _yahtzee(eng, eng.start(seed=40), best)
    c, _ = _yahtzee(eng, eng.start(seed=41), best)
    assert a == b and a.log != c.log


# --- zilch play and yahtzee play in the terminal (issue 25, point 7) ----------------------
def _typed(answers, interrupt=False):
    """ask() answering from the list, then the end of the input (or Ctrl-C); the prompts
    asked are kept."""
    it = iter(answers)
    prompts = []

    def ask(prompt):
        prompts.append(prompt)
        try:
            return next(it)
        except StopIteration:
            raise (KeyboardInterrupt if interrupt else EOFError) from None

    return ask, prompts


def test_play_asks_nothing_of_a_forced_set_aside_and_says_why_you_must_roll(zilch1000, tmp_path):
    """Under forced set-aside the dice are set aside without "keep which dice?"; a roll
    forced by the entry minimum and by hot dice says so."""
    import dicesolver as ds

    script = ["1 2 3 4 6 6", "2 3 4 6 6", "2 3 4 6 6 2", "1 1 1 5 5 5", "2 3 4 6 6 2"]
    ask, prompts = _typed(script)
    said = []
    log = str(tmp_path / "f.jsonl")
    ds.play_game(zilch1000, dice_from_input=True, log=log, ask=ask, say=said.append)
    text = "\n".join(said)
    assert not any("keep which dice" in p for p in prompts)
    assert "you set 1 aside: turn total 100 (zilch sets every scoring die aside)" in text
    assert "you must roll 5 dice: the entry minimum: a first bank needs 500" in text
    assert "you must roll all dice: hot dice: all 6 dice scored" in text
    assert [json.loads(x)["then"] for x in open(log)] == ["roll", "zilch", "zilch", "roll", "zilch"]


def test_play_answers_without_python_list_syntax(farkle1000, tmp_path):
    """A whole game's text (a refused keep, a hint, the computer's turns) shows dice as
    '1 1 5', never as a Python list."""
    import dicesolver as ds

    bad = ["2,2,2,2,2,2,2", "7", "hint"]

    def ask(prompt):
        return bad.pop(0) if bad and "keep which dice" in prompt else "best"

    said = []
    ds.play_game(farkle1000, seed=6, log=str(tmp_path / "l.jsonl"), ask=ask, say=said.append)
    text = "\n".join(said)
    assert "not among the dice rolled" in text and " win" in text
    assert "[" not in text and "]" not in text


@pytest.mark.parametrize("leave", ["quit", "end of input", "Ctrl-C"])
def test_leaving_a_game_still_reviews_the_decisions_made(farkle1000, tmp_path, leave):
    """quit, the end of the input and Ctrl-C leave the game; the person's decisions so far
    are reviewed all the same (zilch play and yahtzee play)."""
    import dicesolver as ds

    answers = ["best"] * 3 + (["quit"] if leave == "quit" else [])
    ask, _ = _typed(answers, interrupt=leave == "Ctrl-C")
    said = []
    reviews = ds.play_game(
        farkle1000, seed=2, log=str(tmp_path / "q.jsonl"), ask=ask, say=said.append
    )
    assert "game left in turn" in "\n".join(said)
    assert reviews and sum(r.decisions for r in reviews) >= 1
    ask, _ = _typed(answers, interrupt=leave == "Ctrl-C")
    r = ds.yahtzee_play(seed=2, log=str(tmp_path / "y.jsonl"), ask=ask, say=said.append)
    assert r is not None and r.decisions >= 3


def test_cli_play_left_at_the_end_of_input_prints_the_review(farkle1000, tmp_path):
    from click.testing import CliRunner

    from dicesolver.cli import main

    args = ["play", "--rules", farkle1000, "--seed", "1", "--log", str(tmp_path / "c.jsonl")]
    res = CliRunner().invoke(main, args, input="best\nbest\n")
    assert res.exit_code == 0, res.output
    assert "game left in turn" in res.output and "your review:" in res.output


def test_cli_play_hot_seat_reviews_each_person(farkle1000, tmp_path):
    from click.testing import CliRunner

    from dicesolver.cli import main

    args = ["play", "--rules", farkle1000, "--people", "Ann,Bob", "--seed", "3"]
    res = CliRunner().invoke(
        main, args + ["--log", str(tmp_path / "h.jsonl")], input="best\n" * 400
    )
    assert res.exit_code == 0, res.output
    assert "Ann: keep which dice?" in res.output and "Bob" in res.output
    assert "review of Ann:" in res.output and "review of Bob:" in res.output
    bad = CliRunner().invoke(main, ["play", "--rules", farkle1000, "--people", "Ann"])
    assert bad.exit_code == 2 and "2 to 6" in bad.output


def test_yahtzee_play_says_the_upper_bonus_apart(tmp_path):
    """yahtzee play with typed dice: the upper boxes three of each face (63), the sixes
    reaching the bonus say '18 points + 35 upper bonus' (they said '53 points')."""
    import dicesolver as ds

    script = []
    for f, box in enumerate(("ones", "twos", "threes", "fours", "fives", "sixes"), 1):
        other = [g for g in (1, 2, 3, 4, 5, 6) if g != f][:2]
        script += [" ".join(map(str, [f, f, f] + other)), "all", "all", box]
    for box in ("three_kind", "four_kind", "full_house", "small_straight", "large_straight"):
        script += ["1 2 3 4 6", "all", "all", box]
    script += ["2 2 3 3 3", "all", "all", "yahtzee", "6 6 6 6 5", "all", "all", "chance"]
    ask, _ = _typed(script)
    said = []
    r = ds.yahtzee_play(
        dice_from_input=True, log=str(tmp_path / "y.jsonl"), ask=ask, say=said.append
    )
    text = "\n".join(said)
    assert "sixes: 18 points + 35 upper bonus, score 98" in text
    assert "fives: 15 points, score 45" in text
    assert "final score 157" in text  # (63 + 35, the small straight 30, chance 29)
    assert r.decisions == 13 * 3


def test_yahtzee_play_takes_a_box_at_the_keep_question(tmp_path):
    """A box typed while rolls are left scores the hand at once (the log: all five kept
    for each roll left, then the box)."""
    import dicesolver as ds

    ask, _ = _typed(["6 6 6 6 5", "four_kind"])
    said = []
    log = tmp_path / "e.jsonl"
    r = ds.yahtzee_play(dice_from_input=True, log=str(log), ask=ask, say=said.append)
    assert "four_kind: 29 points, score 29" in "\n".join(said)
    lines = [json.loads(x) for x in open(log)]
    assert [(x["rolls_left"], x.get("keep"), x.get("box")) for x in lines] == [
        (2, [5, 6, 6, 6, 6], None),
        (1, [5, 6, 6, 6, 6], None),
        (0, None, "four_kind"),
    ]
    assert r.decisions == 3


def test_yahtzee_play_best_says_what_it_kept(tmp_path):
    import dicesolver as ds

    ask, _ = _typed(["best"] * 6)
    said = []
    ds.yahtzee_play(seed=12, log=str(tmp_path / "b.jsonl"), ask=ask, say=said.append)
    bests = [x.strip() for x in said if x.strip().startswith("best:")]
    assert bests and all(b.startswith(("best: keep ", "best: ")) and len(b) > 6 for b in bests)
    assert any(b.startswith("best: keep ") for b in bests)


def test_the_modules_hot_seat_example_runs(farkle1000, capsys):
    """The example at the top of match/ (the API the web drives) runs as written, at
    a small target: a hot seat of two to the end, both reviewed."""
    import textwrap

    from dicesolver import match

    doc = match.__doc__
    start = doc.index("    from dicesolver.match import ZilchMatch")
    end = doc.index("\n", doc.index("    reviews = engine.reviews(step.state)"))
    code = textwrap.dedent(doc[start:end]).replace('ZilchMatch("farkle")', "ZilchMatch(RULES)")
    scope = {"RULES": farkle1000}
    exec(code, scope)
    assert scope["step"].view["over"] and set(scope["reviews"]) == {"Ann", "Bob"}
    out = capsys.readouterr().out
    assert "Ann rolled" in out and "Bob banks" in out and (" wins (" in out or " tie (" in out)
