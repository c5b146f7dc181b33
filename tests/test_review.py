"""Issue 16: review a log decision by decision, and play against the optimal computer.

The checks the issue names: a decision's loss is the difference of the two choices' values
from `advise` for the same situation; a log of optimal play loses nothing; a bot with a
known flaw (bank at 300 or more) loses, over 10 000 simulated turns, (exact optimal mean -
exact bot mean) x turns within 4 standard errors."""

import json
from pathlib import Path

import numpy as np
import pytest

import dicesolver as ds
from dicesolver import rules as R

from .clirun import yahtzee, zilch
from .solvers import preset_file


def _log(tmp_path, lines, name="log.jsonl"):
    p = tmp_path / name
    p.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return str(p)


def _after(rules, line, keep):
    """The state after setting `keep` aside, as `advise --roll` lists it."""
    rank = ds.advise(rules, dice=line["dice"], turn=line["turn"], roll=line["roll"])
    o = next(o for o in rank.options if o.keep == sorted(keep))
    dice = o.dice_left or rank.ruleset.dice
    return rank, {"dice": dice, "turn": o.turn, "permanent": o.permanent}


def _advised_loss(rules, line, game=None):
    """best - chosen, both from `advise`: by expected points the roll's ranking and the
    chosen state's values; by P(win) (game: score and opponents) every listed set-aside's
    state valued with the scores."""
    rank, chosen_at = _after(rules, line, line["keep"])
    if game is None:
        v = ds.advise(rules, **chosen_at).values
        best = rank.options[0].value
    else:
        v = ds.advise(rules, **chosen_at, **game).p_win
        best = max(
            ds.advise(rules, **_after(rules, line, o.keep)[1], **game).p_win.best
            for o in rank.options
        )
    return best - (v.roll if line["then"] == "roll" else v.bank)


POINTS_LINES = [
    ("farkle", {"dice": 6, "turn": 0, "roll": [1, 1, 5, 3, 4, 6], "keep": [1], "then": "roll"}),
    (
        "farkle",
        {"dice": 6, "turn": 0, "roll": [1, 1, 5, 3, 4, 6], "keep": [1, 1, 5], "then": "bank"},
    ),
    ("farkle", {"dice": 3, "turn": 500, "roll": [1, 5, 5], "keep": [1, 5, 5], "then": "bank"}),
    ("farkle", {"dice": 3, "turn": 500, "roll": [1, 5, 5], "keep": [1, 5, 5], "then": "roll"}),
    ("zilch", {"dice": 3, "turn": 250, "roll": [5, 2, 3], "keep": [5], "then": "roll"}),
    ("zonk-chicago", {"dice": 2, "turn": 300, "roll": [1, 4], "keep": [1], "then": "bank"}),
]


@pytest.mark.parametrize("preset, line", POINTS_LINES)
def test_loss_is_the_difference_of_advises_values(preset, line, tmp_path):
    """Expected points: the loss is advise --roll's best value minus advise's value of the
    chosen move in the state after the chosen set-aside (hot dice included)."""
    a = ds.review(_log(tmp_path, [dict(line, rules=preset)]))
    assert a.objective == "points" and a.decisions == 1
    assert a.items[0].loss == pytest.approx(_advised_loss(preset, line), abs=1e-9)
    assert a.items[0].loss >= 0


def test_loss_by_the_probability_of_winning_is_advises_difference(tmp_path):
    """By P(win) with the two-player game table stored (farkle to 2000), and in a final
    round (no table needed): the loss is the difference of advise's P(win) values."""
    rules = preset_file(tmp_path, "farkle", 2000)
    ds.game(rules)  # (solves and stores the game table)
    cases = [
        ({"score": 500, "opponents": [1200]}, [1, 1, 5, 3, 4, 6], [1], "roll"),
        ({"score": 1500, "opponents": [1500]}, [1, 1, 5, 3, 4, 6], [1, 1, 5], "bank"),
        ({"score": 900, "opponents": [2050]}, [1, 1, 5, 3, 4, 6], [1, 1], "bank"),  # last turn
    ]
    for game, roll, keep, then in cases:
        line = {"dice": 6, "turn": 0, "roll": roll, "keep": keep, "then": then}
        a = ds.review(_log(tmp_path, [dict(line, rules=rules, **game)]), objective="game")
        assert a.objective == "game"
        assert a.items[0].loss == pytest.approx(_advised_loss(rules, line, game), abs=1e-12)
    # auto: every line has the scores and the table is stored -> the game
    line = dict(cases[0][0], rules=rules, dice=6, turn=0, roll=[2, 2, 2, 1, 5, 5], keep=[2, 2, 2])
    assert ds.review(_log(tmp_path, [dict(line, then="roll")])).objective == "game"


@pytest.mark.parametrize(
    "preset, not_on_board",
    [
        ("farkle", False),
        ("zilch", False),
        pytest.param("zilch-online", True, marks=pytest.mark.slow),  # (the largest)
    ],
)
def test_a_log_of_optimal_play_loses_nothing(preset, not_on_board, tmp_path):
    """2 000 turns of the optimal policy (zilch simulate --log): every decision is the
    reviewed best, total loss 0 (zilch: forced set-aside, mandatory hot dice, bank minimum;
    zilch-online off the board: the entry minimum, a permanent straight)."""
    log = str(tmp_path / "opt.jsonl")
    ds.simulate(preset, turns=2000, seed=1, log=log, not_on_board=not_on_board)
    a = ds.review(log, preset)
    assert a.decisions > 2000
    assert a.errors == 0 and a.loss_total == pytest.approx(0, abs=1e-9)
    if not_on_board:
        assert all(json.loads(x)["on_board"] is False for x in open(log))


def test_a_flawed_bot_loses_the_exact_difference_of_means(tmp_path):
    """A bot that always banks at 300 or more (set-aside: every scoring die), 10 000
    simulated turns: the sum of its reviewed losses equals (exact optimal mean - exact bot
    mean) x turns within 4 standard errors (the SE of the per-turn loss sums).  The
    expectation is exact: along any trajectory the losses telescope to V* - V(bot)."""
    bot = tmp_path / "bot.toml"
    bot.write_text('name = "bank300"\n[bank]\ndefault = 300\n[set_aside]\nrule = "all"\n')
    log = str(tmp_path / "bot.jsonl")
    turns = 10_000
    ds.simulate("farkle", policy=str(bot), turns=turns, seed=7, log=log)
    a = ds.review(log, "farkle", objective="points")
    turn_of = [json.loads(x)["n"] for x in open(log)]
    per_turn = np.zeros(turns)
    for it in a.items:
        per_turn[turn_of[it.line - 1] - 1] += it.loss
    gap = ds.evaluate("farkle").mean - ds.evaluate("farkle", policy=str(bot)).mean
    se = per_turn.std(ddof=1) * np.sqrt(turns)
    assert gap > 50  # (the flaw costs: a real difference to find)
    assert abs(per_turn.sum() - gap * turns) < 4 * se
    assert a.loss_total == pytest.approx(per_turn.sum())
    assert a.blunders > 0 and len(a.costliest) == 5
    assert a.costliest[0].loss == max(i.loss for i in a.items)


def test_cli_review_json_and_text(tmp_path):
    lines = [
        {"dice": 6, "turn": 0, "roll": [1, 1, 5, 3, 4, 6], "keep": [1, 1, 5], "then": "bank"},
        {"dice": 5, "turn": 100, "roll": [2, 3, 4, 6, 6], "then": "zilch"},
        {"dice": 6, "turn": 0, "roll": [2, 2, 2, 1, 5, 5], "keep": [2, 2, 2], "then": "roll"},
        {"take_over": [3, 450], "then": "fresh", "rules": "zonk-chicago"},
    ]
    log = _log(tmp_path, lines)
    d = json.loads(zilch("review", log, "--json").stdout)
    assert d["decisions"] == 3  # (a zilch is not a decision)
    assert [i["line"] for i in d["items"]] == [1, 3, 4]
    assert d["items"][0]["best"] == {"keep": [1], "then": "roll"}
    assert d["items"][0]["chosen"] == {"keep": [1, 1, 5], "then": "bank"}
    assert d["loss_total"] == pytest.approx(sum(i["loss"] for i in d["items"]))
    take = ds.advise("zonk-chicago", take_over="3,450")
    assert d["items"][2]["loss"] == pytest.approx(take.values.take_over - take.values.fresh) or (
        d["items"][2]["loss"] == 0 and take.action == "fresh"
    )
    out = zilch("review", log).stdout
    assert "3 decisions" in out and "line 3" in out


@pytest.mark.parametrize(
    "line, says",
    [
        (
            '{"dice": 6, "roll": [1,2,3,4,6,6], "keep": [1], "then": "roll"',
            "not valid JSON",
        ),
        ('{"dice": 6, "roll": [1,1,3,4,6,6], "kepe": [1], "then": "roll"}', "unknown key 'kepe'"),
        ('{"dice": 6, "roll": [1,1,3,4,6,6], "keep": [5], "then": "roll"}', "not among the dice"),
        ('{"dice": 6, "roll": [1,1,3,4,6,6], "keep": [1,3], "then": "roll"}', "does not score"),
        (
            '{"rules": "zilch", "dice": 6, "roll": [1,1,3,4,6,6], "keep": [1,1], "then": "bank"}',
            "not allowed",
        ),
        (
            '{"rules": "zilch", "dice": 6, "roll": [1,1,3,4,6,6], "keep": [1], "then": "roll"}',
            "forces the set-aside",
        ),
        ('{"dice": 5, "turn": 50, "roll": [1,1,3,4,6,6], "keep": [1], "then": "roll"}', "6 dice"),
        ('{"dice": 6, "turn": 25, "roll": [1,3,3,4,6,6], "keep": [1], "then": "roll"}', "25"),
        ('{"dice": 6, "roll": [2,3,3,4,6,6], "keep": [], "then": "roll"}', "scores nothing"),
        ('{"dice": 6, "roll": [1,3,3,4,6,6], "then": "zilch"}', "scores under"),
        ('{"dice": 6, "roll": [1,3,3,4,6,6], "keep": [1], "then": "stay"}', "'then' must be"),
        (
            '{"dice": 6, "roll": [1,3,3,4,6,6], "keep": [1], "then": "roll", "rules": "nope"}',
            "nope",
        ),
        ("[1, 2]", "expected a JSON object"),
        (
            '{"dice": 6, "roll": [1,3,3,4,6,6], "keep": [1], "then": "roll", "opponents": []}',
            "together",
        ),
        ('{"dice": 6, "roll": [1,3,3,4,6,6], "score": 500, "opponents": null}', "is null"),
        ('{"take_over": null, "then": "take"}', "is null"),
        (
            '{"dice": 6, "roll": [1,3,3,4,6,6], "keep": [1], "then": "roll", "score": 12000, '
            '"opponents": [0]}',
            "reached the target",
        ),
        (
            '{"dice": 6, "roll": [1,3,3,4,6,6], "keep": [1], "then": "roll", "score": 500, '
            '"opponents": [0], "on_board": false}',
            "'on_board' with 'score'",
        ),
    ],
)
def test_bad_lines_are_one_line_naming_the_line(line, says, tmp_path):
    p = tmp_path / "bad.jsonl"
    p.write_text('{"dice": 6, "roll": [2,3,4,6,6,2], "then": "zilch"}\n' + line + "\n")
    res = zilch("review", str(p), code=2)
    err = res.stderr.strip()
    assert "\n" not in err and says in err and "line 2" in err, err


def test_game_objective_without_scores_or_table_is_refused(tmp_path):
    line = {"dice": 6, "roll": [1, 3, 3, 4, 6, 6], "keep": [1], "then": "roll"}
    err = zilch("review", _log(tmp_path, [line]), "--objective", "game", code=2).stderr
    assert "needs 'score' and 'opponents'" in err
    # with scores but no game table stored: auto falls back to points and says why
    d = json.loads(
        zilch("review", _log(tmp_path, [dict(line, score=500, opponents=[900])]), "--json").stdout
    )
    assert d["objective"] == "points" and "zilch game" in d["note"]
    # auto does not depend on the order of the lines: a last turn (P(win) without a table)
    # and a turn of the game going on (none without it) -> points, either way round
    last = dict(line, score=500, opponents=[10050])
    outside = dict(line, score=500, opponents=[900])
    for order in ([last, outside], [outside, last]):
        d = json.loads(zilch("review", _log(tmp_path, order), "--json").stdout)
        assert d["objective"] == "points" and d["decisions"] == 2
        assert "line " in d["note"]


def test_simulate_log_lines_replay_the_turns(tmp_path):
    """Every turn of the log ends in a bank or a zilch, its totals add up, and the banked
    totals are the simulated turn scores (--out) in order."""
    log, out = tmp_path / "l.jsonl", tmp_path / "s.csv"
    zilch("simulate", "--turns", "300", "--seed", "2", "--log", str(log), "--out", str(out))
    scores = [int(x) for x in out.read_text().split()[1:]]
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    got, turn = [], None
    rs = R.load("farkle")
    for ln in lines:
        if ln["n"] != turn:
            assert ln["turn"] == 0 and ln["dice"] == 6
            turn = ln["n"]
        if ln["then"] == "zilch":
            got.append(0)
        elif ln["then"] == "bank":
            got.append(-1)  # (the total after the set-aside: from advise's ranking)
            rank = ds.advise(rs, dice=ln["dice"], turn=ln["turn"], roll=ln["roll"])
            got[-1] = next(o.turn for o in rank.options if o.keep == ln["keep"])
    assert got == scores


# --- play -----------------------------------------------------------------------------------
def _script(answers):
    it = iter(answers)
    shown = []

    def ask(prompt):
        try:
            a = next(it)
        except StopIteration:
            raise EOFError from None
        shown.append(prompt + a)
        return a

    return ask, shown


def test_play_best_moves_lose_nothing_and_the_log_reviews(tmp_path):
    """A scripted person who always answers 'best' (the computer's move) in a 3-player game
    to 1000: the game ends, the log has every player's decisions, and the person's review
    (by expected points before the final round, by P(win) in it) loses nothing."""
    rules = preset_file(tmp_path, "farkle", 1000)
    ask, shown = _script(["hint"] + ["best"] * 500)
    said = []
    log = str(tmp_path / "p.jsonl")
    reviews = ds.play_game(rules, players=3, seed=11, log=log, ask=ask, say=said.append)
    text = "\n".join(said)
    assert any(w in text for w in (" win (", " wins (", " tie ("))
    assert "(expected points)" in text  # the hint's table
    lines = [json.loads(x) for x in open(log)]
    assert {ln["player"] for ln in lines} == {"you", "computer 1", "computer 2"}
    assert reviews and all(r.loss_total == 0 and r.errors == 0 for r in reviews)
    assert sum(r.decisions for r in reviews) == sum(
        1 for ln in lines if ln["player"] == "you" and ln["then"] != "zilch"
    )
    # the whole log reviews too (every player), by expected points
    assert ds.review(log, rules, objective="points").decisions > reviews[0].decisions


def test_play_reviews_a_persons_mistakes_as_advise_values_them(tmp_path):
    """A scripted person who keeps every 1 and 5 and banks whenever allowed: the review at
    the end finds losses, and each by expected points is advise's difference."""
    import re

    rules = preset_file(tmp_path, "farkle", 1000)
    said = []

    def ask(prompt):
        if "keep which dice" in prompt:
            roll = re.findall(r"you rolled ([\d ]+) \(", "\n".join(said))[-1].split()
            keep = [f for f in roll if f in "15"]
            return ",".join(keep) if keep else "best"
        return "b"

    checked = 0
    for seed in range(1, 9):  # (games until five decisions are checked: the person's
        if checked >= 5:  # games are short, the computer reaching 1000 first)
            break
        log = str(tmp_path / f"m{seed}.jsonl")
        reviews = ds.play_game(rules, seed=seed, log=log, ask=ask, say=said.append)
        by_points = [r for r in reviews if r.objective == "points"][0]
        assert by_points.loss_total > 0 and by_points.errors > 0
        lines = [json.loads(x) for x in open(log)]
        for item in by_points.items:
            line = lines[item.line - 1]
            assert line["player"] == "you"
            plain = {k: line[k] for k in ("dice", "turn", "roll", "keep", "then")}
            listed = ds.advise(rules, dice=line["dice"], turn=line["turn"], roll=line["roll"])
            if not any(o.keep == sorted(line["keep"]) for o in listed.options):
                continue  # (a split advise lists by other dice: 1,5,5 is listed as 2,2,2)
            # (farkle has no entry minimum: every score is on the board, advise's default)
            assert item.loss == pytest.approx(_advised_loss(rules, plain), abs=1e-9)
            checked += 1
    assert checked >= 5


def test_play_refuses_illegal_input_and_asks_again(tmp_path):
    rules = preset_file(tmp_path, "farkle", 1000)
    ask, shown = _script(["7", "2,2,2,2", "1,3", "quit"])
    said = []
    # (left before any decision: no review)
    assert (
        ds.play_game(rules, seed=1, log=str(tmp_path / "q.jsonl"), ask=ask, say=said.append) == []
    )
    text = "\n".join(said)
    assert "dice are faces 1..6" in text and "game left" in text
    assert len(shown) == 4


def test_cli_play_from_standard_input(tmp_path):
    """zilch play with a script on standard input: the prompts and answers are echoed (a
    transcript), the computer's turns shown, the review printed at the end."""
    rules = preset_file(tmp_path, "farkle", 1000)
    from click.testing import CliRunner

    from dicesolver.cli import main

    log = tmp_path / "c.jsonl"
    res = CliRunner().invoke(
        main,
        ["play", "--rules", rules, "--seed", "4", "--log", str(log)],
        input="best\n" * 400,
    )
    assert res.exit_code == 0, res.output
    assert "keep which dice?" in res.output and "> best" in res.output
    assert "computer 1 rolled" in res.output and "your review:" in res.output
    assert log.exists()


def test_cli_play_dice_from_input(tmp_path):
    """--dice-from-input: the person types the dice of every roll (the computer's too)."""
    rules = preset_file(tmp_path, "farkle", 1000)
    from click.testing import CliRunner

    from dicesolver.cli import main

    # you: 1,1,1,2,3,4 -> keep 1,1,1 (1000: the target) and bank; final round: computer
    # rolls 2,3,4,6,6,2 -> zilch
    script = "1,1,1,2,3,4\n1,1,1\nb\n2,3,4,6,6,2\n"
    res = CliRunner().invoke(
        main,
        ["play", "--rules", rules, "--dice-from-input", "--log", str(tmp_path / "d.jsonl")],
        input=script,
    )
    assert res.exit_code == 0, res.output
    assert "you bank 1000" in res.output and "zilch" in res.output
    assert "you win (you 1000, computer 1 0)" in res.output


# --- Yahtzee --------------------------------------------------------------------------------
def test_yahtzee_review_loss_is_advises_difference(tmp_path):
    lines = [
        {"dice": [1, 3, 3, 5, 6], "rolls_left": 2, "keep": [3, 3]},
        {"dice": [2, 2, 2, 5, 5], "rolls_left": 0, "filled": ["ones"], "box": "twos"},
        {"dice": [2, 2, 2, 5, 5], "rolls_left": 0, "filled": ["ones"], "box": "fullhouse"},
    ]
    a = ds.yahtzee_review(_log(tmp_path, lines))
    for item, line in zip(a.items, lines):
        adv = ds.yahtzee_advise(
            dice=line["dice"], rolls_left=line["rolls_left"], filled=line.get("filled")
        ).options
        key = "keep" if "keep" in line else "box"
        want = line[key] if key == "keep" else "full_house" if line[key] == "fullhouse" else "twos"
        mine = next(o for o in adv if o[key] == want)
        assert item.loss == pytest.approx(adv[0]["value"] - mine["value"], abs=1e-9)
    d = json.loads(yahtzee("review", _log(tmp_path, lines), "--json").stdout)
    assert d["decisions"] == 3 and d["objective"] == "yahtzee"
    bad = _log(
        tmp_path, [{"dice": [1, 3, 3, 5, 6], "rolls_left": 0, "box": "ones", "filled": ["ones"]}]
    )
    assert "line 1" in yahtzee("review", bad, code=2).stderr


def test_yahtzee_box_points_are_the_widgets():
    """score_box reads the points and the next state from the widget; its points plus the
    next state's value are the widget's value of scoring there (bonuses, jokers)."""
    from dicesolver.store import Store
    from dicesolver.yahtzee import solitaire as Y
    from dicesolver.yahtzee.hands import keep_graph
    from dicesolver.yahtzee.yahtzee_rules import UPPER, load

    rng = np.random.default_rng(0)
    for name in ("yahtzee", "yatzy"):
        rs = load(name)
        E = Y.game_table(rs, Store.resolve())
        kg = keep_graph()
        for _ in range(12):
            filled = [b for b in rs.boxes if rng.random() < 0.5][: rs.n_boxes - 1]
            bonus = "yahtzee" in filled and rng.random() < 0.5
            sums = {0}
            for b in filled:
                if b in UPPER:
                    sums = {s + (UPPER.index(b) + 1) * k for s in sums for k in range(6)}
            up = sorted(sums)[rng.integers(len(sums))]
            st = Y.parse_state(rs, ",".join(filled), up, bonus)
            hand = tuple(sorted(int(x) for x in rng.integers(1, 7, 5)))
            if rng.random() < 0.2:
                hand = (hand[0],) * 5  # (extra Yahtzees: bonus and joker rules)
            VB = Y.run_widget(rs, E, st)[0]
            counts = [hand.count(f) for f in range(1, 7)]
            o = int(np.nonzero((kg.roll_counts == counts).all(axis=1))[0][0])
            for b in range(rs.n_boxes):
                if VB[o, b] < -1e299:
                    continue
                gain, nxt = Y.score_box(rs, st, hand, b)
                assert gain + Y.value(rs, E, nxt) == pytest.approx(VB[o, b], abs=1e-9)
                if nxt.mask != (1 << rs.n_boxes) - 1:  # (the exact upper total is possible)
                    names = [x for i, x in enumerate(rs.boxes) if nxt.mask >> i & 1]
                    Y.parse_state(rs, ",".join(names), nxt.upper, bool(nxt.yf))


def test_yahtzee_play_best_moves_lose_nothing(tmp_path):
    ask, shown = _script(["hint"] + ["best"] * 60)
    said = []
    a = ds.yahtzee_play(seed=5, log=str(tmp_path / "y.jsonl"), ask=ask, say=said.append)
    assert "final score" in "\n".join(said)
    assert a.decisions == 39 and a.loss_total == 0
    lines = [json.loads(x) for x in open(tmp_path / "y.jsonl")]
    assert sum("box" in ln for ln in lines) == 13


def test_yahtzee_review_of_a_rule_files_log_takes_the_file(tmp_path):
    """Rule (issue 37, a game under uploaded rules reviewed): a log whose lines name a rule
    file's rule set ("duel-3", no preset) is reviewed with `--rules FILE` by that file; without
    it, one line naming the unknown rule set, exit 2."""
    from dicesolver.match import YahtzeeMatch

    duel = str(Path(__file__).parent / "data" / "duel-3.toml")
    eng = YahtzeeMatch(duel, tmp_path / "tables")
    s = eng.start(seed=5).state
    while s.phase != "over":
        s = eng.apply(s, "roll" if s.phase == "roll" else "best").state
    log = tmp_path / "duel.jsonl"
    log.write_text("".join(json.dumps(x) + "\n" for x in s.log))
    assert {x["rules"] for x in s.log} == {"duel-3"}
    tabs = ("--tables", str(tmp_path / "tables"))
    got = json.loads(yahtzee("review", str(log), "--rules", duel, *tabs, "--json").stdout)
    assert got["decisions"] == len(s.log) and got["loss_total"] == 0
    err = yahtzee("review", str(log), *tabs, code=2).stderr
    assert "unknown rule set 'duel-3'" in err and len(err.strip().splitlines()) == 1
