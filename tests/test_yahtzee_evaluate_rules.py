"""Issue 36, item 15: `yahtzee evaluate --rules F` with `upper_threshold = 10000` stopped on
"AssertionError: a state's points outgrew its segment" (exit 1) while `yahtzee value` answered.
The cause: with six dice an upper box scores up to 6 x its face, but the solver's upper totals
counted at most five alike, so a total such as six sixes (36) was no state: `yahtzee value` read
it as worth 0 (a value a little low) and the exact distribution found no segment for it.  Below
the threshold every upper total is a state, so a threshold out of reach shows it at once."""

import json

import pytest

from dicesolver.yahtzee.solitaire import parse_state
from dicesolver.yahtzee.solve import level_states, reachable_upper, solve
from dicesolver.yahtzee.yahtzee_rules import from_dict, load

from . import yahtzee_bruteforce
from .clirun import yahtzee as run

SIX_DICE = """\
name = "six-dice-far-bonus"
dice = 6
upper_bonus = 50
upper_threshold = 10000

[[boxes]]
name = "ones"
kind = "upper"
face = 1

[[boxes]]
name = "sixes"
kind = "upper"
face = 6

[[boxes]]
name = "three_pairs"
kind = "pairs"
count = 3

[[boxes]]
name = "maxi_yatzy"
kind = "yahtzee"
points = 100
"""


def _rule_file(tmp_path, text=SIX_DICE):
    path = tmp_path / "six-dice-far-bonus.toml"
    path.write_text(text)
    return path


def test_item15_six_alike_is_an_upper_total(tmp_path):
    """Issue 36, item 15: with six dice the upper totals include six alike (6 x face), and
    a sheet state with such a total is accepted; with five dice five alike stays the top."""
    rules = load(str(_rule_file(tmp_path)))
    ok = reachable_upper(rules)
    assert ok[1 << 5, 36] and ok[1 << 0, 6] and ok[(1 << 5) | 1, 42]
    assert parse_state(rules, "sixes", 36, False).upper == 36
    text = SIX_DICE.replace("dice = 6", "dice = 5").replace("count = 3", "count = 2")
    five = load(str(_rule_file(tmp_path, text)))
    ok5 = reachable_upper(five)
    assert ok5[1 << 5, 30] and not ok5[1 << 5, 36]


def test_item15_evaluate_with_a_threshold_out_of_reach(tmp_path):
    """Issue 36, item 15: `yahtzee evaluate --rules F` (six dice, upper_threshold = 10000)
    answers, exit 0, with the table's value as its mean, as `yahtzee value` does."""
    path = _rule_file(tmp_path)
    tables = str(tmp_path / "tables")
    d = json.loads(run("evaluate", "--rules", str(path), "--tables", tables, "--json").stdout)
    assert d["mean"] == pytest.approx(d["table_value"], abs=1e-9)
    assert d["mean"] == pytest.approx(38.8275898, abs=1e-6)  # (38.8190 before: 36 no state)
    out = run("value", "--rules", str(path), "--tables", tables).stdout
    assert "38.8275898" in out


@pytest.mark.slow
def test_item15_six_dice_values_equal_the_brute_force_on_every_state(tmp_path):
    """Issue 36, item 15: the solver's value of every reachable state of a six-dice sheet
    (three boxes, the bonus out of reach) equals the brute force's in Fractions, the states
    of six alike included."""
    rules = from_dict(
        {
            "name": "six-dice-three-boxes",
            "dice": 6,
            "upper_bonus": 50,
            "upper_threshold": 10000,
            "boxes": [
                {"name": "ones", "kind": "upper", "face": 1},
                {"name": "sixes", "kind": "upper", "face": 6},
                {"name": "maxi_yatzy", "kind": "yahtzee", "points": 100},
            ],
        },
        "six-dice-three-boxes.toml",
    )
    E = solve(rules)
    exact = yahtzee_bruteforce.solve(rules)
    ok = reachable_upper(rules)
    seen = set()
    for filled in range(rules.n_boxes):
        for mask, up, yf in level_states(rules, filled, ok):
            boxes = frozenset(b for i, b in enumerate(rules.boxes) if mask >> i & 1)
            want = exact(boxes, int(up), bool(yf))
            assert E[mask, up, yf] == pytest.approx(float(want), rel=1e-12, abs=1e-9)
            seen.add(int(up))
    assert {6, 36, 42} <= seen
