"""Rule sets: presets as data, user files, and one-line errors that name the file and key."""

import pytest

from dicesolver import InputError, rules

EXAMPLE = """
name = "house"
description = "Farkle with 5-dice straights, 4 of a kind flat 1000, a no-score bonus"
dice = 6
set_aside = "any"
hot_dice = "mandatory"
entry_minimum = 500
bank_minimum = 300

[faces]
1 = [100, 0, 1000, 1000, 2000, 3000]
2 = [0, 0, 200, 1000, 2000, 3000]
3 = [0, 0, 300, 1000, 2000, 3000]
4 = [0, 0, 400, 1000, 2000, 3000]
5 = [50, 0, 500, 1000, 2000, 3000]
6 = [0, 0, 600, 1000, 2000, 3000]

[[patterns]]
kind = "straight"
faces = [1, 2, 3, 4, 5]
points = 500

[[patterns]]
kind = "straight"
faces = [1, 2, 3, 4, 5, 6]
points = 1500

[[patterns]]
kind = "three_pairs"
points = 1500

[[patterns]]
kind = "four_kind_pair"
points = 1500

[[patterns]]
kind = "two_triplets"
points = 2500
distinct = true

[[patterns]]
kind = "no_score"
points = 500

[game]
target = 10000
end = "final_round"
reach = "at_least"
tie = 0.5
three_zilch_penalty = 500
"""


def test_every_preset_loads_with_unit_50():
    names = rules.preset_names()
    assert set(names) >= {
        "zilch",
        "zilch-10000",
        "zilch-5000",
        "zilch-pyramiding",
        "zilch-online",
        "zonk-chicago",
        "zonk-detroit",
        "farkle",
    }
    for n in names:
        rs = rules.load(n)
        assert rs.name == n and rs.unit == 50


def test_preset_decisions_of_RULES_md():
    z = rules.load("zilch")
    assert (z.set_aside, z.hot_dice, z.entry_minimum, z.bank_minimum) == (
        "forced",
        "mandatory",
        500,
        350,
    )
    assert (z.target, z.reach, z.end) == (15000, "more_than", "final_round")
    online = rules.load("zilch-online")
    assert online.has_permanent and online.hot_dice == "optional" and online.target == 5000
    assert rules.load("zonk-chicago").dice == 5 and rules.load("zonk-detroit").colour_pairs
    f = rules.load("farkle")
    assert f.faces[1] == (0, 0, 200, 400, 600, 800) and f.faces[0][3] == 2000


def test_user_file_example_from_docs_loads(tmp_path):
    p = tmp_path / "house.toml"
    p.write_text(EXAMPLE)
    rs = rules.load(str(p))
    assert rs.name == "house" and len(rs.patterns) == 6 and rs.three_zilch_penalty == 500


def test_docs_example_is_the_tested_one():
    """docs/rules-format.md shows exactly the file this module tests."""
    from pathlib import Path

    doc = (Path(__file__).parent.parent / "docs" / "rules-format.md").read_text()
    assert EXAMPLE.strip() in doc


def test_the_documented_keys_are_the_schema():
    """docs/rules-format.md's table of keys is the schema the loader reads by (one row per
    key: its value, default and meaning), so neither can drift from the other."""
    from pathlib import Path

    doc = (Path(__file__).parent.parent / "docs" / "rules-format.md").read_text()
    assert rules.schema_table() in doc
    # and every key the loader takes is a row of it
    documented = {line.split("`")[1] for line in doc.splitlines() if line.startswith("| `")}
    assert documented >= {k.name for k in rules.SCHEMA}


def test_digest_ignores_name_but_not_rules(tmp_path):
    p = tmp_path / "a.toml"
    p.write_text(EXAMPLE)
    q = tmp_path / "b.toml"
    q.write_text(EXAMPLE.replace('name = "house"', 'name = "other"'))
    r = tmp_path / "c.toml"
    r.write_text(EXAMPLE.replace("bank_minimum = 300", "bank_minimum = 350"))
    a, b, c = (rules.load(str(x)) for x in (p, q, r))
    assert a.digest() == b.digest() != c.digest()


@pytest.mark.parametrize(
    "edit, key",
    [
        (("dice = 6\n", ""), "dice"),
        (("dice = 6", "dice = 9"), "dice"),
        (("1 = [100, 0, 1000, 1000, 2000, 3000]", "1 = [100, 0]"), "faces.1"),
        (("2 = [0, 0, 200,", "2 = [0, -5, 200,"), "faces.2[1]"),
        (("2 = [0, 0, 200, 1000, 2000, 3000]\n", ""), "faces.2"),  # (every face listed)
        (('kind = "no_score"', 'kind = "rainbow"'), "patterns[5].kind"),
        (("faces = [1, 2, 3, 4, 5]\n", "faces = [1, 1, 9]\n"), "patterns[0].faces"),
        (('set_aside = "any"', 'set_aside = "some"'), "set_aside"),
        (("tie = 0.5", "tie = 2"), "game.tie"),
        (("target = 10000", "targte = 10000"), "game.targte"),
        (("bank_minimum = 300", "bank_minimum = 300\ncolour = 1"), "colour"),
    ],
)
def test_bad_rule_file_names_file_and_key(tmp_path, edit, key):
    p = tmp_path / "bad.toml"
    p.write_text(EXAMPLE.replace(*edit, 1))
    with pytest.raises(InputError) as e:
        rules.load(str(p))
    msg = str(e.value)
    assert "\n" not in msg and str(p) in msg and f"'{key}'" in msg


def test_not_toml_and_missing_file_and_unknown_preset(tmp_path):
    p = tmp_path / "x.toml"
    p.write_text("dice = [")
    with pytest.raises(InputError, match="not valid TOML"):
        rules.load(str(p))
    with pytest.raises(InputError, match="cannot read"):
        rules.load(str(tmp_path / "missing.toml"))
    with pytest.raises(InputError, match="unknown preset"):
        rules.load("farkel")
