"""Yahtzee games of two to four seats (issue 37, item 5): the engine (match/yahtzee_seats.py)
played to the end by computers on three-box rule files; each computer's choice against the
independent query path (`yahtzee advise --opponents` at that state); the hints' P(win)
against answers.yahtzee_versus.opponents_advice; the review by P(win) (nothing lost by the
computer's moves, a bad move's loss its hint's); the state as JSON; the terminal game and
bad input (one line, exit 2)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from dicesolver.answers.review import yahtzee_win_review
from dicesolver.answers.yahtzee_versus import opponents_advice
from dicesolver.answers.yahtzee_win import sheet_text
from dicesolver.cli import yahtzee_main
from dicesolver.match.yahtzee_seats import TableState, YahtzeeSeats
from dicesolver.yahtzee.solitaire import SheetState

from .clirun import yahtzee as run
from .yahtzee_small import PLAIN3_TOML, bonus3_toml


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("table")
    (d / "t-bonus3.toml").write_text(bonus3_toml())
    (d / "t-plain3.toml").write_text(PLAIN3_TOML)
    return {"bonus3": str(d / "t-bonus3.toml"), "plain3": str(d / "t-plain3.toml")}, str(
        d / "tables"
    )


@pytest.fixture(scope="module")
def engines(files):
    paths, tables = files
    return {k: YahtzeeSeats(p, tables) for k, p in paths.items()}


def _computers(eng, n, seed):
    """A game of n computers to the end, the state through JSON at every step."""
    step = eng.start([], n, seed=seed)
    states = [step.state]
    while not step.view["over"]:
        step = eng.apply(step.state, "play")
        states.append(TableState.from_json(json.loads(json.dumps(step.state.to_json()))))
        assert states[-1] == step.state
    return step, states


GAMES = {"bonus3": (2, 1), "plain3": (3, 2)}  # rule file: (seats, seed)


@pytest.fixture(scope="module")
def games(engines):
    """A game of computers to the end on each rule file (played once for the module)."""
    return {k: _computers(engines[k], n, seed)[0] for k, (n, seed) in GAMES.items()}


@pytest.mark.parametrize("which", list(GAMES))
def test_computers_play_to_the_end(games, which):
    n = GAMES[which][0]
    step = games[which]
    v = step.view
    totals = [x["score"] for x in v["seats"]]
    assert v["over"] and all(x["finished"] for x in v["seats"]) and len(totals) == n
    assert v["winners"] == [x["name"] for x in v["seats"] if x["score"] == max(totals)]
    log = step.state.log
    assert {x["player"] for x in log} == {f"computer {i}" for i in range(1, n + 1)}
    assert all(len(x["opponents"]) == n - 1 for x in log)
    boxes = [x for x in log if "box" in x]
    assert len(boxes) == 3 * n  # (every seat fills its three boxes)
    assert boxes[0]["opponents"] == ["new"] * (n - 1)
    # the last decision: every other seat has finished, its sheet their final score
    assert boxes[-1]["opponents"] == [str(t) for t in totals[:-1]]


def _advise_args(path, tables, line):
    args = ["advise", "--rules", path, "--tables", tables, "--json"]
    args += ["--dice", ",".join(map(str, line["dice"])), "--rolls-left", str(line["rolls_left"])]
    args += ["--score", str(line["score"]), "--opponents", ";".join(line["opponents"])]
    args += ["--upper", str(line["upper"])]
    if line["filled"]:
        args += ["--filled", ",".join(line["filled"])]
    return args + (["--yahtzee-bonus"] if line["yahtzee_bonus"] else [])


def _check_choices(path, tables, lines):
    for line in lines:
        got = json.loads(run(*_advise_args(path, tables, line)).stdout)
        top = got["options"][0]
        choice = line.get("keep", line.get("box"))
        mine = [o for o in got["options"] if o.get("keep", o.get("box")) == choice]
        assert mine and mine[0]["p_win"] == pytest.approx(top["p_win"], abs=1e-12), line


def test_the_computers_choice_is_advise_against_the_opponents(files, games):
    """Decisions of a two-seat game (the first, a middle one, each seat's last box): the
    computer's keep or box is the top of `yahtzee advise --opponents` at that state (a tie
    at the top: the same P(win))."""
    paths, tables = files
    log = games["bonus3"].state.log
    _check_choices(paths["bonus3"], tables, [log[0], log[len(log) // 2], log[-4], log[-1]])


@pytest.mark.slow
def test_every_choice_of_a_three_seat_game_is_advise(files, engines):
    """As above, every decision of a three-seat game."""
    paths, tables = files
    step, _ = _computers(engines["bonus3"], 3, 7)
    _check_choices(paths["bonus3"], tables, step.state.log)


def test_hints_equal_opponents_advice_and_say_what_they_are(files, engines):
    """Each decision's hint: P(win) and the expected final of every option as
    opponents_advice gives them from the same sheets; not exact while an opponent plays,
    exact once all have finished (their best alone at the top)."""
    _, tables = files
    eng = engines["plain3"]
    step = eng.start(["Ann", "Bob"], 0, seed=4)  # (people playing "best": every decision)
    states = [step.state]
    while not step.view["over"]:
        step = eng.apply(step.state, "roll" if step.view["phase"] == "roll" else "best")
        states.append(step.state)
    seen = set()
    for s in states:
        if s.over or s.game.phase not in ("keep", "box"):
            continue
        h = eng.hint(s)
        g = s.game
        other = s.seats[1 - s.seat].game
        sheets = [sheet_text(eng.rules, SheetState(other.mask, other.upper, other.yf), other.total)]
        want = opponents_advice(
            eng.rules,
            SheetState(g.mask, g.upper, g.yf),
            g.hand,
            g.rolls_left,
            g.total,
            sheets,
            tables,
        )
        by = lambda opts: {json.dumps(o.get("keep", o.get("box"))): o for o in opts}  # noqa: E731
        a, b = by(h.options), by(want.options)
        assert a.keys() == b.keys()
        for k in a:
            assert a[k]["p_win"] == pytest.approx(b[k]["p_win"], abs=1e-12)
            assert a[k]["expected_final"] == pytest.approx(b[k]["expected_final"], abs=1e-9)
        assert (h.exact, h.method) == (want.exact, want.method)
        done = other.phase == "over"
        assert h.method == ("exact-final-scores" if done else "pawlewicz-heuristic")
        assert h.exact is done
        seen.add(done)
    assert seen == {False, True}


def _log(tmp_path, lines, name="g.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return str(path)


def test_review_by_p_win_zero_for_best_moves_positive_for_a_bad_one(files, engines, tmp_path):
    """Ann (a person) against a computer: best moves but one, the worst option of a hint
    with a positive loss; the review by P(win) of her lines loses exactly that, the
    computer's lines nothing."""
    paths, tables = files
    eng = engines["bonus3"]
    step = eng.start(["Ann"], 1, seed=11)
    bad = None
    while not step.view["over"]:
        s = step.state
        if step.view["computer"]:
            action = "play"
        elif s.game.phase == "roll":
            action = "roll"
        else:
            h = eng.hint(s)
            worst = h.options[-1]
            if bad is None and worst["loss"] > 1e-3:
                bad = (len(s.log), worst["loss"])
                action = (
                    {"action": "box", "box": worst["box"]}
                    if "box" in worst
                    else {"action": "keep", "dice": worst["keep"]}
                )
            else:
                action = "best"
        step = eng.apply(s, action)
    assert bad is not None
    log = _log(tmp_path, step.state.log)
    r = yahtzee_win_review(log, paths["bonus3"], "Ann", tables)
    assert r.objective == "game" and r.decisions == sum(
        x["player"] == "Ann" for x in step.state.log
    )
    losses = {it.line: it.loss for it in r.items}
    assert losses.pop(bad[0] + 1) == pytest.approx(bad[1], abs=1e-12)
    assert max(abs(x) for x in losses.values()) < 1e-12
    comp = yahtzee_win_review(log, paths["bonus3"], "computer 1", tables)
    assert comp.decisions > 0 and abs(comp.loss_total) < 1e-12
    # the engine's own review of the person, and the command's (auto: by P(win))
    assert eng.reviews(step.state)["Ann"].loss_total == pytest.approx(r.loss_total, abs=1e-12)
    got = json.loads(run("review", log, "--player", "Ann", "--tables", tables, "--json").stdout)
    assert got["loss_total"] == pytest.approx(bad[1], abs=1e-12) and got["objective"] == "game"


def test_cli_game_against_a_computer_scripted(files, tmp_path):
    """yahtzee play --players 2 on a rule file: hints by P(win), best moves, the game to its
    end, the log of both seats, the person's review printed."""
    paths, tables = files
    log = tmp_path / "cli.jsonl"
    args = ["play", "--rules", paths["plain3"], "--tables", tables, "--players", "2"]
    args += ["--seed", "5", "--log", str(log)]
    res = CliRunner().invoke(yahtzee_main, args, input="hint\n" + "best\n" * 20)
    assert res.exit_code == 0, res.output
    assert "P(win)" in res.output and "pawlewicz-heuristic" in res.output
    assert "your review: 9 decisions reviewed by probability of winning" in res.output
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert {x["player"] for x in lines} == {"you", "computer 1"} and len(lines) == 18


def test_cli_hot_seat_with_expected_hints(files, tmp_path):
    """--people Ann,Bob --hints expected: two people at one keyboard, hints by the expected
    score (no beat table), each reviewed."""
    paths, tables = files
    args = ["play", "--rules", paths["plain3"], "--tables", tables, "--people", "Ann,Bob"]
    args += ["--hints", "expected", "--seed", "2", "--log", str(tmp_path / "h.jsonl")]
    res = CliRunner().invoke(yahtzee_main, args, input="hint\n" + "best\n" * 20)
    assert res.exit_code == 0, res.output
    assert "Ann: keep which dice?" in res.output and "Bob: keep which dice?" in res.output
    assert "Ann's review" in res.output and "Bob's review" in res.output
    assert "P(win)" not in res.output


@pytest.mark.parametrize(
    "args, words",
    [
        (["--players", "5"], "2 to 4"),
        (["--players", "0"], "2 to 4"),
        (["--players", "2", "--people", "Ann,Bob,Cy"], "more than the 2 seats"),
        (["--people", "Ann,Bob,Cy,Dee,Eve"], "2 to 4"),
        (["--people", "Ann,ann"], "two players are named"),
        (["--rules", "no-such-rules", "--players", "2"], "unknown rule set"),
    ],
)
def test_cli_bad_input_one_line_exit_2(files, tmp_path, args, words):
    _, tables = files
    full = ["play", "--tables", tables, "--log", str(tmp_path / "x.jsonl"), *args]
    if "--rules" not in args:
        full += ["--rules", files[0]["plain3"]]
    res = CliRunner().invoke(yahtzee_main, full, input="")
    assert res.exit_code == 2, res.output
    err = res.stderr.strip()
    assert words in err and len(err.splitlines()) == 1, err


def test_engine_refuses_what_is_not_the_seats_move(engines):
    eng = engines["plain3"]
    step = eng.start(["Ann"], 1, seed=3)
    with pytest.raises(Exception, match="not a computer"):
        eng.apply(step.state, "play")
    s = eng.apply(step.state, "best" if step.view["phase"] != "roll" else "roll").state
    with pytest.raises(Exception, match="hint|roll first"):
        eng.hint(eng.apply(eng.start([], 2, seed=1).state, "quit").state)
    assert "keep" in eng.allowed(s) and eng.view(s)["to_beat"] == 0
