"""Exact policy evaluation, the simulator, and verifying someone else's simulator."""

import json

import numpy as np
import pytest

from dicesolver import InputError, rules
from dicesolver.play.policies import load_policy
from dicesolver.rules import from_dict
from dicesolver.turn import TurnState

from .clirun import zilch as run
from .solvers import evaluate, play, policy, score_policy

POLICY = """
[bank]
thresholds = { 6 = 3000, 5 = 2000, 4 = 1000, 3 = 400, 2 = 300, 1 = 300 }
entry = 500
[set_aside]
rule = "%s"
"""


SLOW_PRESETS = {
    "zilch-online",
    "zilch-pyramiding",
    "zilch-10000",
    "zilch-challenge",
    "zilch-overtaking",
}


@pytest.mark.parametrize(  # (slow: the largest turns, permanent points, zilch's variants)
    "name",
    [
        pytest.param(n, marks=pytest.mark.slow) if n in SLOW_PRESETS else n
        for n in rules.preset_names()
    ],
)
def test_exact_evaluation_of_the_optimum_is_the_solvers_value(name):
    """Two independent computations: backward induction (solver) and forward mass (here)."""
    rs = rules.load(name)
    for on_board in (True, False):
        d = evaluate(rs, policy(rs, "optimal", on_board), on_board)
        assert abs(d.probs.sum() - 1) < 1e-12
        assert d.mean == pytest.approx(score_policy(rs).expected_turn_score(on_board), rel=1e-12)


@pytest.mark.parametrize("rule", ["all", "per_die", "max_points"])
@pytest.mark.parametrize("name", ["farkle", "zilch", "zilch-online"])
def test_user_policy_exact_distribution_matches_simulation(tmp_path, name, rule):
    rs = rules.load(name)
    f = tmp_path / "p.toml"
    f.write_text(POLICY % rule)
    pol = load_policy(str(f), rs)
    d = evaluate(rs, pol, True)
    assert abs(d.probs.sum() - 1) < 1e-12
    res = play(rs, pol, 200_000, np.random.default_rng(5), True)
    se = res.std(ddof=1) / np.sqrt(len(res))
    assert abs(res.mean() - d.mean) < 4 * se
    zil = d.p_zilch
    assert (
        abs((res == 0).mean() - d.as_dict().get(0, 0))
        < 4 * np.sqrt(zil * (1 - zil) / len(res)) + 1e-3
    )


def test_evaluation_from_a_state_and_banking_immediately():
    rs = rules.load("farkle")
    d = evaluate(rs, policy(rs), True, dice=3, turn=450)
    assert d.as_dict() == {450: 1.0}  # the optimum banks 450 with 3 dice
    d = evaluate(rs, policy(rs), True, dice=3, turn=400)
    roll = score_policy(rs).value_at(TurnState(3, 400)).roll
    assert d.mean == pytest.approx(roll, rel=1e-12)


@pytest.mark.parametrize(
    "text, key",
    [
        ("[bank]\nthresholds = { 7 = 100 }\n", "bank.thresholds.7"),
        ("[bank]\nthresholds = { 6 = -1 }\ndefault = 300\n", "bank.thresholds.6"),
        ("[bank]\nthresholds = { 6 = 300 }\n", "bank.thresholds.1"),
        ('[bank]\ndefault = 300\n[set_aside]\nrule = "greedy"\n', "set_aside.rule"),
        ("[bank]\ndefault = 300\nentr = 5\n", "bank.entr"),
        ("[nope]\n", "nope"),
    ],
)
def test_bad_policy_files(tmp_path, text, key):
    f = tmp_path / "p.toml"
    f.write_text(text)
    with pytest.raises(InputError) as e:
        load_policy(str(f), rules.load("farkle"))
    assert f"'{key}'" in str(e.value) and str(f) in str(e.value)


def test_cli_evaluate_and_simulate_json(tmp_path):
    d = json.loads(run("evaluate", "--rules", "farkle", "--json").stdout)
    assert {"mean", "std", "p_zilch", "distribution"} <= set(d)
    assert abs(sum(d["distribution"].values()) - 1) < 1e-12
    a = json.loads(
        run(
            "simulate", "--rules", "zonk-detroit", "--turns", "20000", "--seed", "3", "--json"
        ).stdout
    )
    b = json.loads(
        run(
            "simulate", "--rules", "zonk-detroit", "--turns", "20000", "--seed", "3", "--json"
        ).stdout
    )
    assert a == b and {"mean", "stderr", "exact_mean", "turns"} <= set(a)
    assert abs(a["mean"] - a["exact_mean"]) < 4 * a["stderr"]


def _write(path, values):
    path.write_text("score\n" + "\n".join(map(str, values)) + "\n")


def test_verify_own_simulator_passes_and_a_wrong_rule_fails(tmp_path):
    """Samples of the project's own simulator pass; a simulator that forgets three pairs
    (750) fails with a tiny p-value."""
    rs = rules.load("farkle")
    good = play(rs, policy(rs), 300_000, np.random.default_rng(8))
    f = tmp_path / "good.csv"
    _write(f, good)
    d = json.loads(
        run(
            "verify", "--rules", "farkle", "--results", str(f), "--column", "score", "--json"
        ).stdout
    )
    assert d["consistent"] is True and d["n"] == 300_000 and d["p_value"] > 0.001
    src = rules.canonical_source("farkle")
    src["patterns"] = [p for p in src["patterns"] if p["kind"] != "three_pairs"]
    wrong = from_dict(src, "wrong.toml")
    bad = play(wrong, policy(wrong), 300_000, np.random.default_rng(8))
    f = tmp_path / "bad.csv"
    _write(f, bad)
    res = run("verify", "--rules", "farkle", "--results", str(f), "--json", code=1)
    d = json.loads(res.stdout)
    assert d["consistent"] is False and d["p_value"] < 1e-6
    assert (
        "NOT CONSISTENT" in run("verify", "--rules", "farkle", "--results", str(f), code=1).stdout
    )


def test_verify_rolls_fair_and_loaded_dice(tmp_path):
    rng = np.random.default_rng(4)
    fair = rng.integers(1, 7, (60_000, 6))
    f = tmp_path / "fair.txt"
    f.write_text("\n".join(",".join(map(str, r)) for r in fair))
    d = json.loads(
        run("verify", "--rules", "farkle", "--rolls", "--results", str(f), "--json").stdout
    )
    assert d["consistent"] is True
    loaded = rng.choice(np.arange(1, 7), size=(60_000, 6), p=[0.2, 0.16, 0.16, 0.16, 0.16, 0.16])
    f.write_text("\n".join(" ".join(map(str, r)) for r in loaded))
    d = json.loads(
        run("verify", "--rules", "farkle", "--rolls", "--results", str(f), "--json", code=1).stdout
    )
    assert d["consistent"] is False


@pytest.mark.parametrize("content", ["", "score\n", "12\nabc\n", "300\n1.5\n"])
def test_verify_malformed_files_exit_2(tmp_path, content):
    f = tmp_path / "x.csv"
    f.write_text(content)
    err = run("verify", "--rules", "farkle", "--results", str(f), code=2).stderr.strip()
    assert "error" in err and "\n" not in err


def test_plot_distribution(tmp_path):
    pytest.importorskip("matplotlib")
    f = tmp_path / "s.csv"
    _write(
        f, play(rules.load("farkle"), policy(rules.load("farkle")), 5000, np.random.default_rng(1))
    )
    out = tmp_path / "d.png"
    run("plot", "distribution", "--rules", "farkle", "--out", str(out), "--results", str(f))
    assert out.read_bytes()[:4] == b"\x89PNG"
