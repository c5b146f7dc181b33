"""Review at scale and under hostile logs (issue 26, findings 6-9; issue 25, point 7's
review part): each distinct decision valued once, memory bounded whatever the log's length,
progress by line; values a log cannot hold refused at their line, naming the key, quoted
at a readable length; output always valid JSON and encodable text; the costliest distinct
decisions with their roll, losses as positive numbers."""

import json

import pytest

import dicesolver as ds
from dicesolver.answers import decisions as D
from dicesolver.answers import review as RV

from .clirun import yahtzee, zilch
from .solvers import Recorder

LINE = {"dice": 6, "turn": 0, "roll": [1, 1, 5, 3, 4, 6], "keep": [1, 1, 5], "then": "bank"}
OTHER = {"dice": 3, "turn": 500, "roll": [1, 5, 5], "keep": [1, 5, 5], "then": "bank"}
BEST = {"dice": 3, "turn": 500, "roll": [1, 5, 5], "keep": [1, 5, 5], "then": "roll"}


def _write(tmp_path, lines, name="log.jsonl"):
    p = tmp_path / name
    p.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return str(p)


# --- finding 6: scale ---------------------------------------------------------------------
def test_each_distinct_decision_is_valued_once(tmp_path, monkeypatch):
    """A log repeating three decisions 400 times (the dice in any order): the roll's
    options are valued three times, not 1 200; every line still counts, with its own
    number, and the figures equal those of the three lines reviewed one by one."""
    calls = []
    options = D.options
    monkeypatch.setattr(D, "options", lambda *a: calls.append(1) or options(*a))
    shuffled = dict(LINE, roll=[6, 4, 3, 5, 1, 1], keep=[5, 1, 1])
    lines = [LINE, shuffled, OTHER, BEST] * 300
    a = ds.review(_write(tmp_path, lines))
    assert len(calls) == 3
    assert a.decisions == 1200 and [i.line for i in a.items[:5]] == [1, 2, 3, 4, 5]
    one = ds.review(_write(tmp_path, [LINE, OTHER, BEST], "one.jsonl"))
    loss = {i.line: i.loss for i in one.items}
    assert a.loss_total == pytest.approx(300 * (2 * loss[1] + loss[2] + loss[3]))
    assert a.errors == 300 * (2 * (one.items[0].grade is not None) + 1)


def test_memory_does_not_grow_with_the_log(tmp_path, monkeypatch):
    """The answer keeps the first MAX_ITEMS items (here 10) and says so; the totals, the
    grades and the costliest count every decision (so a log of any length reviews in
    bounded memory); the lines are read one at a time, each reviewed before the next is
    read (never all held)."""
    monkeypatch.setattr(RV, "MAX_ITEMS", 10)
    events = []
    read = RV.read_log

    def spy(*args):
        for ln in read(*args):
            events.append(("read", ln.number))
            yield ln

    monkeypatch.setattr(RV, "read_log", spy)
    log = _write(tmp_path, [LINE, OTHER] * 50)
    seen = lambda ln: events.append(("seen", ln.number)) or True  # noqa: E731
    a = ds.review(log, objective="points", where=seen)
    assert events == [(e, n) for n in range(1, 101) for e in ("read", "seen")]
    assert a.decisions == 100 and len(a.items) == 10
    assert "the first 10 of 100 decisions" in a.note
    one = ds.review(_write(tmp_path, [LINE, OTHER], "one.jsonl"))
    assert a.errors == 50 * one.errors and a.blunders == 50 * one.blunders
    assert a.loss_total == pytest.approx(50 * one.loss_total)
    assert a.costliest[0].times == 50


@pytest.mark.parametrize("api", ["review", "yahtzee_review"])
def test_review_reports_progress_by_line(api, tmp_path, monkeypatch):
    """Progress: the lines counted first, then steps of lines (every STEP, here 7) that add
    up to them, and the end."""
    monkeypatch.setattr(RV, "STEP", 7)
    y = {"dice": [1, 3, 3, 5, 6], "rolls_left": 2, "keep": [3, 3]}
    lines = [LINE, "", OTHER] * 10 if api == "review" else [y] * 30
    log = _write(tmp_path, lines)
    getattr(ds, api)(log)  # (the tables solved, and their own bars drawn, before)
    bar = Recorder()
    getattr(ds, api)(log, progress=bar)
    assert bar.calls[0] == ("start", "reviewing", len(lines)) and bar.calls[-1] == ("finish",)
    steps = [c[1] for c in bar.calls if c[0] == "advance"]
    assert all(s >= 7 for s in steps) and 0 <= len(lines) - sum(steps) < 7


# --- findings 7-9: hostile values ------------------------------------------------------------
DEEP = "[" * 500 + "]" * 500
HOSTILE = [
    # finding 7: nested deep, not text, not a number JSON allows
    ('"player": ' + DEEP, "line 2: 'player' must be a name or a number"),
    ('"player": "\\ud800"', "line 2: 'player' is not text (a lone surrogate)"),
    ('"player": "ok", "_note": NaN', "line 2: NaN is not a number JSON allows"),
    ('"game": Infinity', "line 2: Infinity is not a number JSON allows"),
    ('"n": -Infinity', "line 2: -Infinity is not a number JSON allows"),
    ('"n": 1e999', "line 2: the number '1e999' is beyond any float"),
    ('"game": {"a": 1}', "line 2: 'game' must be a name or a number"),
    ('"permanent": ' + DEEP, "line 2: 'permanent' must be a flat list"),
    ('"\\udfff": 1', "line 2: unknown key '\\udfff'"),
    # finding 8: opp_zilches checked under expected points; duplicate keys
    ('"opp_zilches": "x"', "line 2: 'opp_zilches' must be a whole number, got 'x'"),
    ('"opp_zilches": 7', "line 2: 'opp_zilches' is the count of zilches in a row"),
    ('"opp_zilches": -1', "line 2: 'opp_zilches' must be at least 0"),
    ('"opp_zilches": 1000000000000000000000000000000', "line 2: 'opp_zilches' is 1000000"),
    ('"opp_zilches": true', "line 2: 'opp_zilches' must be a whole number, got True"),
    ('"opp_zilches": [1]', "line 2: 'opp_zilches' must be a whole number, got [1]"),
    ('"opp_zilches": 1', "line 2: 'opp_zilches' 1: farkle has no penalty"),
    ('"then": "roll"', "line 2: the key 'then' is given twice"),
    # finding 9: megabytes of input quoted at a readable length, with the line and the key
    ('"rules": "' + "x" * 10**6 + '"', "line 2: 'rules' is 1000000 characters long"),
    ('"player": "' + "y" * 10**5 + '"', "line 2: 'player' is 100000 characters long"),
    ('"opponents": [' + ",".join(["0"] * 10**5) + "]", "line 2: 'opponents' has 100000 items"),
    ('"beat": "' + "z" * 4000 + '"', "line 2: 'beat' must be a whole number, got 'zzzz"),
    ('"turn": 1' + "0" * 5000, "line 2: not valid JSON"),
]


@pytest.mark.parametrize("extra, says", HOSTILE, ids=[s for _, s in HOSTILE])
def test_a_hostile_value_is_refused_at_its_line(extra, says, tmp_path):
    """One line on stderr naming the line and the key, at most a few hundred characters
    whatever the input's size, ASCII (encodable anywhere); with --json one valid JSON
    object; never a traceback."""
    good = json.dumps(LINE)
    bad = good[:-1] + ", " + extra + "}"
    log = _write(tmp_path, [good, bad])
    res = zilch("review", log, "--rules", "farkle", code=2)
    err = res.stderr
    assert err.count("\n") == 1 and says in err and len(err) < 400 and err.isascii(), err
    out = zilch("review", log, "--json", code=2).stderr
    assert json.loads(out)["exit_code"] == 2 and says in json.loads(out)["error"]


def test_a_keep_of_a_million_dice_is_refused_in_a_short_line(tmp_path):
    """Finding 9's case: a keep list of 10^6 dice (its line 3 MB): one line naming the line
    and the key (its items beyond what any line holds), not the dice."""
    bad = json.dumps(dict(LINE, keep=[1] * 10**6))
    err = zilch("review", _write(tmp_path, [json.dumps(LINE), bad]), code=2).stderr
    assert "line 2: 'keep' has 1000000 items" in err and len(err) < 300


def test_a_keep_longer_than_the_roll_is_refused_by_its_count(tmp_path):
    err = zilch("review", _write(tmp_path, [dict(LINE, keep=[1] * 40)]), code=2).stderr
    assert "line 1: 'keep' has 40 dice, more than the 6 rolled" in err


def test_a_piggyback_line_with_a_roll_is_refused(tmp_path):
    """Finding 8's kin: a key that would be ignored (a roll in a piggyback offer's line)."""
    line = {"take_over": [3, 450], "then": "fresh", "rules": "zonk-chicago", "roll": [1]}
    err = zilch("review", _write(tmp_path, [line]), code=2).stderr
    assert "line 1: 'roll' has no place in a piggyback offer's line" in err


def test_notes_in_any_script_print_and_give_valid_json(tmp_path):
    """A player named in another script, a game by number: the text prints them, the JSON
    is valid and strict (no NaN anywhere), both from one log."""
    lines = [dict(LINE, player="Zoë ☃", game=3, n=1), dict(OTHER, player="Zoë ☃", n=2)]
    log = _write(tmp_path, lines)
    d = json.loads(zilch("review", log, "--json").stdout, parse_constant=pytest.fail)
    assert d["items"][0]["player"] == "Zoë ☃" and d["items"][0]["game"] == 3
    assert "(Zoë ☃)" in zilch("review", log).stdout


# --- issue 25, point 7: the costliest five ---------------------------------------------------
def test_the_costliest_are_distinct_decisions_with_their_roll_and_a_positive_loss(tmp_path):
    """Six copies of one mistake and two others: the costliest lists each decision once
    (its first line, how often it occurs), with the roll and the turn total, and the loss
    as a positive number called a loss."""
    lines = [LINE] * 6 + [OTHER, dict(LINE, keep=[1], then="bank")]
    a = ds.review(_write(tmp_path, lines))
    assert [i.line for i in a.costliest] == sorted({1, 7, 8}, key=lambda n: -a.items[n - 1].loss)
    assert next(i for i in a.costliest if i.line == 1).times == 6
    assert all(i.loss > 0 for i in a.costliest)
    text = zilch("review", _write(tmp_path, lines)).stdout
    assert "rolled 1,1,3,4,5,6 at turn total 0" in text and "6 times in the log" in text
    assert "loss " in text and ": -" not in text
    d = json.loads(zilch("review", _write(tmp_path, lines), "--json").stdout)
    assert len(d["costliest"]) == 3 and d["costliest"][0]["loss"] > 0


def test_yahtzee_costliest_show_the_hand(tmp_path):
    """yahtzee review: the same, with the hand and the rolls left."""
    lines = [{"dice": [1, 3, 3, 5, 6], "rolls_left": 2, "keep": [1]}] * 3
    text = yahtzee("review", _write(tmp_path, lines)).stdout
    assert "dice 1,3,3,5,6, 2 rolls left" in text and "3 times in the log" in text
    assert ": -" not in text
