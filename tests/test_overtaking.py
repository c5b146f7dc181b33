"""Overtaking (RULES.md, the optional rules of `zilch`; issue 14): a bank must also beat the
previous player's banked turn total, except after his zilch.  A turn with a total to beat
(--beat) is solved exactly; the game and a final round with more than one player still to
play are refused in one line until their state carries the previous bank."""

import dataclasses

import numpy as np
import pytest

import dicesolver as ds
from dicesolver import rules
from dicesolver.errors import InputError
from dicesolver.objectives.score import solve_score
from dicesolver.outcomes.model import turn_model
from dicesolver.turn.reach import sweep

from . import bruteforce
from .clirun import zilch


def _small(dice, set_aside, hot, bank=0):
    faces = {
        str(f): (
            [100 if f == 1 else 50 if f == 5 else 0, 0, 1000 if f == 1 else 100 * f]
            + [0] * (dice - 3)
        )[:dice]
        for f in range(1, 7)
    }
    d = {
        "dice": dice,
        "set_aside": set_aside,
        "hot_dice": hot,
        "bank_minimum": bank,
        "faces": faces,
        "game": {"target": 1000, "overtaking": True},
    }
    return rules.from_dict(d, "small-overtaking.toml")


def _farkle_overtaking():
    src = rules.canonical_source("farkle")
    src["game"]["overtaking"] = True
    return rules.from_dict(src, "farkle-overtaking.toml")


@pytest.mark.parametrize(
    "rs, beat",
    [
        (_small(3, "any", "optional"), 200),
        (_small(3, "forced", "mandatory", bank=150), 300),
        (_small(4, "any", "optional", bank=100), 450),
    ],
)
def test_a_turn_to_beat_equals_exact_brute_force(rs, beat):
    """The independent naive solver in Fractions, told only that a bank needs a total above
    `beat` (beat + 1 points), agrees with the solver's turn for --beat on every reachable
    state."""
    value, T = bruteforce.solve(rs, max(rs.bank_minimum, beat + 1))
    turn_rules = rs.beating(beat)
    main, _ = solve_score(turn_model(turn_rules))
    u = rs.unit
    reach = sweep(turn_model(rs), T // u)
    checked = 0
    for s in range(rs.dice + 1):
        for r in np.nonzero(reach[s])[0]:
            forced = s == 0
            exact = value(rs.dice if forced else s, int(r) * u, forced)
            roll, bank = main.at(s, int(r))
            assert max(roll[1], bank[1]) == pytest.approx(float(exact), rel=1e-12, abs=1e-9)
            checked += 1
    assert checked > 50


def test_nothing_to_beat_is_the_plain_card_and_the_key_changes_only_its_own_hash():
    """--beat 0 (the previous player zilched, or nobody has played) is zilch's own card;
    without the key every rules hash stays what it was (the key is left out of it)."""
    plain, over = rules.load("zilch"), rules.load("zilch-overtaking")
    assert over.beating(0) is over
    assert dataclasses.replace(over, name="zilch", overtaking=False).digest() == plain.digest()
    assert "overtaking" not in plain.canonical() and over.canonical()["overtaking"] is True
    a = ds.strategy("zilch")
    b = ds.strategy("zilch-overtaking")
    assert a.bank_thresholds == b.bank_thresholds
    assert a.expected_turn_score == b.expected_turn_score


def test_the_cards_by_total_to_beat():
    """export --objective beat: one card per total to beat; a higher total can only lower
    the turn's value, and no card banks at or below the total it must beat."""
    t = ds.export("zilch-overtaking", objective="beat", max_beat=3000)
    c = t.columns
    assert t.meta["objective"] == "beat" and t.meta["max_beat"] == 3000
    beats = sorted(set(c["beat"]))
    assert beats == [0, *range(350, 3001, 50)]
    for on in (False, True):
        value = {b: v for b, o, v in zip(c["beat"], c["on_board"], c["expected_points"]) if o == on}
        vs = [value[b] for b in beats]
        assert all(x >= y for x, y in zip(vs, vs[1:])) and vs[-1] < vs[0]
    for b, f in zip(c["beat"], c["bank_from"]):
        assert f is None or b == 0 or f > b
    # the card of one total is the strategy card with --beat
    s = ds.strategy("zilch-overtaking", beat=1000)
    got = {
        d: f
        for b, o, d, f in zip(c["beat"], c["on_board"], c["dice"], c["bank_from"])
        if b == 1000 and o
    }
    assert got == s.bank_thresholds
    assert s.beat == 1000 and s.expected_turn_score < ds.strategy("zilch").expected_turn_score


def test_simulated_turns_to_beat_match_the_exact_distribution():
    """Turns played with physical dice by the --beat card: the mean within 4 standard errors
    of the exact mean, which is the card's value (zilch-overtaking, beat 1000)."""
    a = ds.simulate("zilch-overtaking", beat=1000, turns=200_000, seed=5)
    card = ds.strategy("zilch-overtaking", beat=1000)
    assert a.exact_mean == pytest.approx(card.expected_turn_score, rel=1e-12)
    assert abs(a.z) < 4, a


def test_a_last_turn_to_beat():
    """A last turn must beat the previous bank too: below the deficit that changes nothing
    (the player needs more than the deficit anyway); at or above it, the tie and every total
    up to the bank to beat are lost."""
    rs = _farkle_overtaking()
    d = 1000
    base = ds.endgame(rs, deficit=d).p_win
    assert ds.endgame(rs, deficit=d, beat=950).p_win == pytest.approx(base, abs=1e-12)
    higher = [ds.endgame(rs, deficit=d, beat=b).p_win for b in (1000, 1500, 2000)]
    assert base > higher[0] > higher[1] > higher[2] > 0


@pytest.mark.parametrize(
    "args, said",
    [
        (["advise", "--rules", "zilch", "--beat", "400"], "zilch has no overtaking rule"),
        (["advise", "--rules", "zilch-overtaking", "--beat", "375"], "not a turn total"),
        (["advise", "--rules", "zilch-overtaking", "--beat", "300"], "from 350"),
        (["strategy", "--rules", "zilch-overtaking", "--beat", "-50"], "not a turn total"),
        (["game", "--rules", "zilch-overtaking"], "the game with overtaking is not solved"),
        (
            ["advise", "--rules", "zilch-overtaking", "--score", "5000", "--opponents", "4000"],
            "the game with overtaking is not solved",
        ),
        (
            [
                "endgame",
                "--rules",
                "zilch-overtaking",
                "--final-round",
                "--scores",
                "15400,14000,13000",
            ],
            "more than one player still to play",
        ),
        (["export", "--rules", "zilch", "--objective", "beat"], "no overtaking rule"),
        (["export", "--rules", "zilch-overtaking", "--max-beat", "500"], "--objective beat"),
        (
            ["export", "--rules", "zilch-overtaking", "--objective", "beat", "--beat", "400"],
            "leave out --beat",
        ),
        (
            ["export", "--rules", "zilch-overtaking", "--objective", "beat", "--max-beat", "375"],
            "--max-beat",
        ),
    ],
)
def test_what_cannot_be_answered_is_refused_in_one_line(args, said):
    res = zilch(*args, code=2)
    assert said in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr


def test_the_combinations_not_solved_are_refused_at_the_key():
    """Overtaking with permanent points, piggyback or a penalty for the third zilch: the
    rules file is refused, never answered without the option."""
    for preset, extra in (
        ("zilch-online", {}),
        ("zonk-chicago", {}),
        ("farkle", {"three_zilch_penalty": 500}),
    ):
        src = rules.canonical_source(preset)
        src["game"].update(extra, overtaking=True)
        with pytest.raises(InputError, match="overtaking with"):
            rules.from_dict(src, f"{preset}.toml")
    with pytest.raises(InputError, match="needs overtaking"):
        dataclasses.replace(rules.load("zilch"), beat=400)


def test_the_commands_take_the_total_to_beat():
    """advise says why a bank is not allowed; the JSON carries the total to beat; the text
    card says it; rules shows the option."""
    out = zilch(
        "advise", "--rules", "zilch-overtaking", "--dice", "3", "--turn", "600", "--beat", "1000"
    ).stdout
    assert "ROLL" in out and "a bank must beat 1000" in out
    import json

    j = json.loads(
        zilch(
            "advise",
            "--rules",
            "zilch-overtaking",
            "--turn",
            "1100",
            "--dice",
            "2",
            "--beat",
            "1000",
            "--json",
        ).stdout
    )
    assert j["beat"] == 1000 and j["values"]["bank"] == 1100
    assert (
        "a bank must beat 1000"
        in zilch("strategy", "--rules", "zilch-overtaking", "--beat", "1000").stdout
    )
    assert "overtaking" in zilch("rules", "zilch-overtaking").stdout
    assert "beat" not in json.loads(zilch("advise", "--rules", "zilch", "--json").stdout)
