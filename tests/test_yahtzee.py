"""The Yahtzee family: published optima, exact brute force on reduced games, the CLI."""

import json
from pathlib import Path

import numpy as np
import pytest

import dicesolver
from dicesolver.progress import Progress
from dicesolver.store import Store
from dicesolver.yahtzee.distribution import distribution, moments
from dicesolver.yahtzee.hands import keep_graph
from dicesolver.yahtzee.solitaire import (
    SheetState,
    game_table,
    hand_index,
    parse_state,
    policy,
    run_widget,
)
from dicesolver.yahtzee.solve import level_states, reachable_upper, solve
from dicesolver.yahtzee.yahtzee_rules import BOX_KEYS, KEYS, PRESETS, UPPER, from_dict

from . import yahtzee_bruteforce
from .clirun import yahtzee as run


@pytest.mark.parametrize(
    "name, published",
    [
        ("yahtzee", 254.5877287),  # official forced joker
        ("yahtzee-free-joker", 254.5896095),  # T. Verhoeff's free joker
        # Scandinavian, 15 boxes (not the buggy 248.63); slow: one more whole table
        pytest.param("yatzy", 248.4399894, marks=pytest.mark.slow),
    ],
)
def test_published_optimum(name, published):
    E = game_table(PRESETS[name], Store.resolve())
    assert E[0, 0, 0] == pytest.approx(published, abs=1e-6)


def _rules(name, boxes, **keys):
    """A reduced rule set, written as a rule file would be (docs/rules-format.md)."""
    return from_dict({"name": name, "boxes": boxes, **keys}, f"{name}.toml")


UP = lambda f: {"name": UPPER[f - 1], "kind": "upper", "face": f}  # noqa: E731
YAHTZEE = {"name": "yahtzee", "kind": "yahtzee", "points": 50}
REDUCED = [
    _rules(
        "mini-forced",
        [
            UP(5),
            UP(6),
            {"name": "full_house", "kind": "house", "groups": [3, 2], "points": 25},
            YAHTZEE,
        ],
        upper_bonus=35,
        upper_threshold=20,
        yahtzee_bonus=100,
        joker="forced",
    ),
    _rules(
        "mini-free",
        [
            UP(5),
            UP(6),
            {"name": "small_straight", "kind": "straight", "run": 4, "points": 30},
            YAHTZEE,
        ],
        upper_bonus=35,
        upper_threshold=20,
        yahtzee_bonus=100,
        joker="free",
    ),
    _rules(
        "mini-yatzy",
        [
            UP(2),
            {"name": "two_pairs", "kind": "pairs", "count": 2},
            {"name": "full_house", "kind": "house", "groups": [3, 2]},
            {"name": "yatzy", "kind": "yahtzee", "points": 50},
        ],
        upper_bonus=50,
        upper_threshold=6,
    ),
    _rules(  # Scandinavian forced order: the boxes in their order, a bonus without a joker
        "mini-forced-order",
        [UP(6), {"name": "three_kind", "kind": "kind", "count": 3}, UP(5), YAHTZEE],
        upper_bonus=50,
        upper_threshold=20,
        yahtzee_bonus=100,
        order="forced",
    ),
    _rules(  # Maxi Yatzy's six dice and its boxes
        "mini-maxi",
        [
            UP(6),
            {"name": "three_pairs", "kind": "pairs", "count": 3},
            {"name": "castle", "kind": "house", "groups": [3, 3]},
            {
                "name": "full_straight",
                "kind": "straight",
                "faces": [1, 2, 3, 4, 5, 6],
                "points": 21,
            },
            {"name": "maxi_yatzy", "kind": "yahtzee", "points": 100},
        ],
        dice=6,
        upper_bonus=50,
        upper_threshold=18,
    ),
]


# the reduced games, the quickest (mini-forced-order) in the quick run, the others slow (the
# brute force and the plain recursion at their larger sizes)
TIERED = [
    r if r.name == "mini-forced-order" else pytest.param(r, marks=pytest.mark.slow, id=r.name)
    for r in REDUCED
]


@pytest.mark.parametrize("rules", TIERED, ids=lambda r: r.name)
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
    from dicesolver.yahtzee.hands import keep_graph

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


@pytest.mark.slow  # a big simulation
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


@pytest.mark.slow  # a whole table of another preset, written as CSV
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
        ["value", "--rules", "yatzy-forced", "--filled", "twos"],  # forced order: ones first
        ["value", "--rules", "yahtzeee"],
    ],
)
def test_cli_bad_states_exit_2(args):
    err = run(*args, code=2).stderr.strip()
    assert err.startswith("yahtzee") and "error" in err and "\n" not in err


# --- rule files ---------------------------------------------------------------------------


def _doc_rows(marker):
    """The rows (cells, backticks dropped) of the table after an HTML comment marker."""
    text = (Path(__file__).parent.parent / "docs" / "rules-format.md").read_text()
    lines = text[text.index(marker) :].splitlines()[3:]
    rows = []
    for ln in lines:
        if not ln.startswith("|"):
            break
        rows.append([c.strip().replace("`", "") for c in ln.strip("|").split("|")])
    return rows


@pytest.mark.parametrize("marker, schema", [("yahtzee-keys", KEYS), ("yahtzee-box-keys", BOX_KEYS)])
def test_rules_format_doc_equals_the_schema(marker, schema):
    """docs/rules-format.md's Yahtzee tables list the schema's keys: name, type, what each
    accepts and its default, in the schema's order."""
    rows = _doc_rows(marker)
    doc = [(r[0].strip("[]"), r[1], r[2], r[3].replace('""', "")) for r in rows]
    want = [(k.name, k.type, k.accepts, str(k.default)) for k in schema]
    assert doc == want


def test_presets_are_files_and_load_by_path(tmp_path):
    """Every preset is a rule file; a copy of one under another name is the same rule set
    (the same hash: the same stored table)."""
    from dicesolver.yahtzee.yahtzee_rules import load, preset_names

    assert {"yahtzee", "yahtzee-free-joker", "yatzy", "yatzy-forced", "maxi-yatzy"} <= set(
        preset_names()
    )
    src = Path(dicesolver.__file__).parent / "yahtzee" / "rulesets" / "yatzy.toml"
    copy = tmp_path / "mine.toml"
    copy.write_text(
        src.read_text().replace('name = "yatzy"\ndescription', 'name = "mine"\ndescription')
    )
    assert load(str(copy)).name == "mine" and load(str(copy)).digest() == PRESETS["yatzy"].digest()
    maxi = PRESETS["maxi-yatzy"]
    assert maxi.dice == 6 and maxi.n_boxes == 20 and (maxi.upper_bonus, maxi.threshold) == (100, 84)


def test_preset_values_unchanged_by_rule_files():
    """The three presets read from files equal the tables solved before them to 1e-9 (and the
    compiled peer yatzy-solver 1.0.0 to the last digit shown: 254.58772873449593,
    254.58960948196315, 248.4399893778553)."""
    for name, before in (
        ("yahtzee", 254.58772873449593),
        ("yahtzee-free-joker", 254.58960948196315),
        ("yatzy", 248.4399893778553),
    ):
        assert game_table(PRESETS[name], Store.resolve())[0, 0, 0] == pytest.approx(
            before, abs=1e-9
        )


def test_forced_yatzy_optimum():
    """Forced Yatzy (the boxes in sheet order): 122.55852739642387. No published figure was
    found; this is the value of an independent solver, the Rust package yatzy-solver 1.0.0,
    variant "yatzy-scandinavian+forced" (Solver.build(...).state_value("upper 0 | filled -"),
    printed 122.55852739642387), with the same sheet and bonus."""
    E = game_table(PRESETS["yatzy-forced"], Store.resolve())
    assert E[0, 0, 0] == pytest.approx(122.55852739642387, abs=1e-9)


BAD_FILES = [
    ("dice = 7\n[[boxes]]\nname='c'\nkind='chance'\n", "key 'dice'"),
    ("order = 'up'\n[[boxes]]\nname='c'\nkind='chance'\n", "key 'order'"),
    ("joker = 'forced'\n[[boxes]]\nname='c'\nkind='chance'\n", "key 'joker'"),
    ("colour = 1\n[[boxes]]\nname='c'\nkind='chance'\n", "key 'colour'"),
    ("dice = 5\n", "key 'boxes'"),
    ("[[boxes]]\nname='c'\nkind='poker'\n", "key 'boxes[0].kind'"),
    ("[[boxes]]\nname='h'\nkind='house'\ngroups=[3, 3]\n", "key 'boxes[0].groups'"),
    ("[[boxes]]\nname='k'\nkind='kind'\n", "key 'boxes[0].count'"),
    ("[[boxes]]\nname='u'\nkind='upper'\nface=7\n", "key 'boxes[0].face'"),
    ("[[boxes]]\nname='u'\nkind='upper'\nface=1\npoints=3\n", "key 'boxes[0].points'"),
    ("[[boxes]]\nname='s'\nkind='straight'\nrun=4\nfaces=[1,2,3,4]\n", "key 'boxes[0].run'"),
    ("[[boxes]]\nname='c'\nkind='chance'\n[[boxes]]\nname='c'\nkind='chance'\n", "names two"),
    ("[[boxes]]\nname='a b'\nkind='chance'\n", "key 'boxes[0].name'"),
    ("upper_bonus = 35\n[[boxes]]\nname='c'\nkind='chance'\n", "key 'upper_bonus'"),
    ("dice = [5\n", "not valid TOML"),
]


@pytest.mark.parametrize("text, key", BAD_FILES, ids=[k for _, k in BAD_FILES])
def test_malformed_rule_file_is_one_line_exit_2(tmp_path, text, key):
    f = tmp_path / "house.toml"
    f.write_text(text)
    err = run("value", "--rules", str(f), code=2).stderr.strip()
    assert "\n" not in err and "house.toml" in err and key in err


def test_cli_rule_file_and_six_dice(tmp_path):
    """A user's file works wherever a preset name does, with six dice where it says so."""
    f = tmp_path / "tiny.toml"
    f.write_text(
        "dice = 6\n[[boxes]]\nname = 'sixes'\nkind = 'upper'\nface = 6\n"
        "[[boxes]]\nname = 'maxi'\nkind = 'yahtzee'\npoints = 100\n"
    )
    d = json.loads(run("advise", "--rules", str(f), "--dice", "6,6,6,6,6,1", "--json").stdout)
    assert d["options"][0]["keep"] == [6, 6, 6, 6, 6]
    err = run("advise", "--rules", str(f), "--dice", "6,6,6,6,6", code=2).stderr
    assert "6 dice" in err


# --- the exact distribution of the final score -----------------------------------------------


def _choose(rules, E):
    """The solver's policy (yahtzee.solitaire.policy) as functions of sorted hands, by state."""
    kg = keep_graph(rules.dice)
    face = lambda c: tuple(f + 1 for f in range(6) for _ in range(c[f]))  # noqa: E731
    keeps = [face(c) for c in kg.counts.tolist()]

    def choose(filled, up, y50):
        mask = sum(1 << i for i, b in enumerate(rules.boxes) if b in filled)
        pol = policy(rules, E, SheetState(mask, up, int(y50)))
        of = lambda h: hand_index(h)  # noqa: E731
        return (
            lambda h: keeps[pol["keep2"][of(h)]],
            lambda h: keeps[pol["keep1"][of(h)]],
            lambda h: rules.boxes[pol["box"][of(h)]],
        )

    return choose


@pytest.mark.parametrize("rules", TIERED, ids=lambda r: r.name)
def test_exact_distribution_equals_a_plain_recursion(rules):
    """issue 28: the forward pass's distribution of the final score equals, to 1e-12 at
    every score, a plain recursion over every roll of every turn along the same policy (the
    bonus, joker and next-state rules written again in the brute force); its mean is the
    table's value and its standard deviation the second backward pass's, to 1e-9."""
    E = solve(rules)
    d = distribution(rules, E)
    R = yahtzee_bruteforce.remaining_distribution(rules, _choose(rules, E))(frozenset(), 0, False)
    want = np.zeros(max(max(R) + 1, len(d.p)))
    for x, q in R.items():
        want[x] += q
    assert np.abs(np.pad(d.p, (0, len(want) - len(d.p))) - want).max() < 1e-12
    x = np.arange(len(d.p))
    mean = x @ d.p
    assert mean == pytest.approx(E[0, 0, 0], abs=1e-9)
    m, s = moments(rules, E)
    assert m == pytest.approx(E[0, 0, 0], abs=1e-9)
    assert np.sqrt(((x - mean) ** 2) @ d.p) == pytest.approx(s, abs=1e-9)


@pytest.mark.slow
def test_glenn_standard_deviation_of_optimal_yahtzee():
    """J. Glenn, "An Optimal Strategy for Yahtzee", Loyola College in Maryland, CS-TR-0002
    (May 2006), Table 3: the optimal strategy's expected score 254.59, standard deviation
    59.61 (his P(S, n) forward pass over every state and score).  The second backward pass
    gives 59.6078811 under the official forced joker (the forward pass: the same to 1e-12)."""
    rs = PRESETS["yahtzee"]
    E = game_table(rs, Store.resolve())
    m, s = moments(rs, E)
    assert round(m, 2) == 254.59 and round(s, 2) == 59.61
    assert m == pytest.approx(E[0, 0, 0], abs=1e-9)


def test_cli_evaluate_forced_yatzy(tmp_path):
    """yahtzee evaluate: JSON (mean = the table's value, P(score >= x) for every x), the
    table as csv/json/parquet, a plot; and yahtzee simulate's z against the exact mean and
    its standard deviation within 4 standard errors of the exact one."""
    d = json.loads(run("evaluate", "--rules", "yatzy-forced", "--json").stdout)
    assert d["mean"] == pytest.approx(122.55852739642387, abs=1e-9)
    assert d["mean"] == pytest.approx(d["table_value"], abs=1e-9)
    p, at_least = np.array(d["p"]), np.array(d["p_at_least"])
    assert p.sum() == pytest.approx(1, abs=1e-12) and at_least[0] == pytest.approx(1, abs=1e-12)
    assert np.allclose(at_least[:-1] - at_least[1:], p[:-1], atol=1e-15)
    cdf = np.cumsum(p)
    for q, x in d["quantiles"].items():
        assert cdf[x] >= int(q) / 100 > (cdf[x - 1] if x else 0)
    assert 0 < d["p_upper_bonus"] < 1 and d["p_yahtzee"] == pytest.approx(
        d["boxes"]["yatzy"]["p_scores"]
    )
    csv = run("evaluate", "--rules", "yatzy-forced", "--format", "csv").stdout.splitlines()
    assert csv[0] == "score,p,p_at_least" and len(csv) == len(p) + 1
    out, png = tmp_path / "d.json", tmp_path / "d.png"
    run(
        "evaluate",
        "--rules",
        "yatzy-forced",
        "--format",
        "json",
        "--out",
        str(out),
        "--plot",
        str(png),
    )
    assert len(json.loads(out.read_text())["rows"]) == len(p) and png.stat().st_size > 1000
    n = 20_000
    sim = json.loads(run("simulate", "--rules", "yatzy-forced", "--games", str(n), "--json").stdout)
    assert sim["exact_std"] == pytest.approx(d["std"], abs=1e-12) and abs(sim["z"]) < 4
    x = np.arange(len(p))
    mu4 = ((x - d["mean"]) ** 4) @ p  # the sample variance's standard error, from the exact law
    se_std = np.sqrt((mu4 - d["std"] ** 4) / n) / (2 * d["std"])
    assert abs(sim["std"] - d["std"]) < 4 * se_std


class Recorder(Progress):
    def __init__(self):
        self.events = []

    def start(self, label, total):
        self.events.append(("start", label, total))

    def advance(self, n=1):
        self.events.append(("advance", n))

    def finish(self):
        self.events.append(("finish",))


def test_first_use_is_never_silent(tmp_path):
    """issue 25 point 5: a build reports from its start (what, and the estimate), a step per
    level, and its end; the exact distribution likewise (before numba compiles it); a table
    stored already reports nothing."""
    rec = Recorder()
    dicesolver.yahtzee_value("yatzy-forced", tables=str(tmp_path), progress=rec)
    assert rec.events[0][0] == "start" and "solving yatzy-forced" in rec.events[0][1]
    assert "about" in rec.events[0][1] and rec.events[0][2] == 15
    assert rec.events[1:] == [("advance", 1)] * 15 + [("finish",)]
    rec = Recorder()
    dicesolver.yahtzee_evaluate("yatzy-forced", tables=str(tmp_path), progress=rec)
    assert rec.events[0][:1] == ("start",) and "distribution" in rec.events[0][1]
    assert "about" in rec.events[0][1] and rec.events[-1] == ("finish",)
    assert len(rec.events) == 17
    rec = Recorder()
    dicesolver.yahtzee_evaluate("yatzy-forced", tables=str(tmp_path), progress=rec)
    dicesolver.yahtzee_advise("yatzy-forced", dice="1,2,3,4,5", tables=str(tmp_path), progress=rec)
    assert rec.events == []


def test_evaluate_refuses_what_would_not_fit(tmp_path):
    """Maxi Yatzy's 57 million states: the exact distribution is refused in one line, before
    any table is built (its game table alone is 680 MiB)."""
    err = run("evaluate", "--rules", "maxi-yatzy", "--tables", str(tmp_path), code=2).stderr
    assert "maxi-yatzy" in err and "refused" in err and "\n" not in err.strip()
    assert not [p for p in tmp_path.glob("*") if not p.name.endswith(".lock")]
