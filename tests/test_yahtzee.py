"""The Yahtzee family: published optima, exact brute force on reduced games, the CLI."""

import json

import numpy as np
import pytest

from dicesolver.store import Store
from dicesolver.yahtzee.game import game_table, parse_state, run_widget
from dicesolver.yahtzee.rules import PRESETS, YahtzeeRules
from dicesolver.yahtzee.solve import level_states, reachable_upper, solve

from . import yahtzee_bruteforce
from .clirun import yahtzee as run


@pytest.mark.parametrize(
    "name, published",
    [
        ("yahtzee", 254.5877287),  # official forced joker
        ("yahtzee-free-joker", 254.5896095),  # T. Verhoeff's free joker
        ("yatzy", 248.4399894),  # Scandinavian, 15 boxes (not the buggy 248.63)
    ],
)
def test_published_optimum(name, published):
    E = game_table(PRESETS[name], Store.resolve())
    assert E[0, 0, 0] == pytest.approx(published, abs=1e-6)


REDUCED = [
    YahtzeeRules(
        "mini-forced",
        "",
        ("fives", "sixes", "full_house", "yahtzee"),
        "american",
        "forced",
        35,
        20,
        100,
    ),
    YahtzeeRules(
        "mini-free",
        "",
        ("fives", "sixes", "small_straight", "yahtzee"),
        "american",
        "free",
        35,
        20,
        100,
    ),
    YahtzeeRules(
        "mini-yatzy",
        "",
        ("twos", "two_pairs", "full_house", "yatzy"),
        "scandinavian",
        None,
        50,
        6,
        0,
    ),
]


@pytest.mark.parametrize("rules", REDUCED, ids=lambda r: r.name)
def test_widget_equals_exact_brute_force_on_every_reachable_state(rules):
    """DESIGN.md: a naive solver in Fractions agrees on every state of a reduced game (the
    thresholds are lowered so the upper bonus, the Yahtzee bonus and the joker all occur)."""
    E = solve(rules)
    exact = yahtzee_bruteforce.solve(rules)
    ok = reachable_upper(rules)
    checked = 0
    for filled in range(rules.n_boxes):
        for mask, up, yf in level_states(rules, filled, ok):
            boxes = frozenset(b for i, b in enumerate(rules.boxes) if mask >> i & 1)
            want = exact(boxes, int(up), bool(yf))
            assert E[mask, up, yf] == pytest.approx(float(want), rel=1e-12, abs=1e-9)
            checked += 1
    assert checked >= 20


def test_widget_outputs_agree_with_the_state_value():
    """advise's per-box and per-keep values are the solver's: the best final choice of a
    hand equals the value of keeping all of it with no roll left, and so on."""
    rs = PRESETS["yahtzee"]
    E = game_table(rs, Store.resolve())
    state = parse_state(rs, "ones,full_house", 3, False)
    VB, A1, A2, v = run_widget(rs, E, state)
    assert v == pytest.approx(E[state.mask, 3, 0], abs=1e-9)
    from dicesolver.yahtzee.dice import keep_graph

    kg = keep_graph()
    assert np.allclose(VB.max(axis=1), A1[kg.roll_keep])


def test_cli_advise_json_keeps_and_boxes():
    d = json.loads(run("advise", "--dice", "1,3,3,5,6", "--rolls-left", "2", "--json").stdout)
    opts = d["options"]
    assert all("keep" in o and "value" in o for o in opts) and len(opts) == 24
    assert opts[0]["keep"] == [3, 3] and opts[0]["loss"] == 0
    # on the first turn the value is the expected final score: below the optimum, near it
    assert 240 < opts[0]["value"] < 254.5877287
    d = json.loads(
        run(
            "advise",
            "--dice",
            "2,2,2,5,5",
            "--rolls-left",
            "0",
            "--filled",
            "ones,fullhouse",
            "--upper",
            "2",
            "--json",
        ).stdout
    )
    boxes = [o["box"] for o in d["options"]]
    assert "full_house" not in boxes and "ones" not in boxes and len(boxes) == 11


def test_cli_forced_joker_goes_to_its_upper_box():
    """Official joker: an extra Yahtzee of 4s with fours open must go in fours."""
    d = json.loads(
        run(
            "advise",
            "--dice",
            "4,4,4,4,4",
            "--rolls-left",
            "0",
            "--filled",
            "yahtzee",
            "--yahtzee-bonus",
            "--json",
        ).stdout
    )
    assert [o["box"] for o in d["options"]] == ["fours"]
    d = json.loads(
        run(
            "advise",
            "--rules",
            "yahtzee-free-joker",
            "--dice",
            "4,4,4,4,4",
            "--rolls-left",
            "0",
            "--filled",
            "yahtzee",
            "--json",
        ).stdout
    )
    assert len(d["options"]) == 12


def test_cli_value_and_simulate():
    assert json.loads(run("value", "--json").stdout)["value"] == pytest.approx(
        254.5877287, abs=1e-6
    )
    d = json.loads(
        run("value", "--rules", "yatzy", "--filled", "ones,twos", "--upper", "5", "--json").stdout
    )
    assert 0 < d["value"] < 248.44
    d = json.loads(run("simulate", "--games", "4000", "--seed", "2", "--json").stdout)
    assert abs(d["mean"] - d["exact_mean"]) < 4 * d["stderr"]


def test_cli_export(tmp_path):
    out = tmp_path / "y.csv"
    run("export", "--rules", "yahtzee-free-joker", "--out", str(out))
    lines = out.read_text().splitlines()
    assert lines[0] == "filled,upper,yahtzee_bonus,value" and len(lines) > 100_000


@pytest.mark.parametrize(
    "args",
    [
        ["advise", "--dice", "1,2,3,4,5,6"],  # six dice
        ["advise", "--dice", "1,2,3,4,9"],
        ["advise", "--dice", "1,2,3,4,5", "--filled", "ones,ones"],  # a box twice
        ["advise", "--dice", "1,2,3,4,5", "--filled", "twos", "--upper", "3"],  # impossible upper
        ["advise", "--dice", "1,2,3,4,5", "--filled", "tens"],
        ["advise", "--dice", "1,2,3,4,5", "--rolls-left", "3"],
        ["value", "--yahtzee-bonus"],
        ["value", "--rules", "yahtzeee"],
    ],
)
def test_cli_bad_states_exit_2(args):
    err = run(*args, code=2).stderr.strip()
    assert err.startswith("yahtzee") and "error" in err and "\n" not in err
