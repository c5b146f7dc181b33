"""Issue 11: the Python API has the command line's shape.  Each function's answer prints, as
to_dict(), exactly what the command prints with --json; the package imports lazily."""

import json
import subprocess
import sys

import pytest

import dicesolver as ds

from .clirun import yahtzee, zilch

CASES = [
    (ds.advise, dict(rules="farkle", dice=3, turn=400), ["advise", "--dice", "3", "--turn", "400"]),
    (
        ds.advise,
        dict(rules="zilch-online", dice=2, turn=1750, permanent=1500, not_on_board=True),
        [
            "advise",
            "--rules",
            "zilch-online",
            "--dice",
            "2",
            "--turn",
            "1750",
            "--permanent",
            "1500",
            "--not-on-board",
        ],
    ),
    (
        ds.advise,
        dict(rules="farkle", dice=6, roll=[1, 1, 5, 3, 4, 6]),
        ["advise", "--dice", "6", "--roll", "1,1,5,3,4,6"],
    ),
    (
        ds.advise,
        dict(rules="zonk-chicago", take_over="3,200"),
        ["advise", "--rules", "zonk-chicago", "--take-over", "3,200"],
    ),
    (
        ds.advise,
        dict(rules="zilch-online", dice=2, turn=250, score=4900, opponents=[4950, 5000, 5100]),
        [
            "advise",
            "--rules",
            "zilch-online",
            "--dice",
            "2",
            "--turn",
            "250",
            "--score",
            "4900",
            "--opponents",
            "4950,5000,5100",
        ],
    ),
    (
        ds.advise,
        dict(rules="farkle", dice=3, turn=600, score=9000, opponents="10200", last_turn=True),
        [
            "advise",
            "--dice",
            "3",
            "--turn",
            "600",
            "--score",
            "9000",
            "--opponents",
            "10200",
            "--last-turn",
        ],
    ),
    (
        ds.strategy,
        dict(rules="zilch", not_on_board=True),
        ["strategy", "--rules", "zilch", "--not-on-board"],
    ),
    (ds.odds, dict(rules="zonk-detroit", dice=6), ["odds", "--rules", "zonk-detroit"]),
    (ds.describe_rules, dict(name="zilch-online"), ["rules", "zilch-online"]),
    (ds.describe_rules, dict(), ["rules"]),
    (
        ds.endgame,
        dict(rules="zilch", deficit=1000, dice=2, turn=600),
        ["endgame", "--rules", "zilch", "--deficit", "1000", "--dice", "2", "--turn", "600"],
    ),
    (
        ds.endgame,
        dict(rules="farkle", final_round=True, scores="10000,7500,9500,9800"),
        ["endgame", "--final-round", "--scores", "10000,7500,9500,9800"],
    ),
    (
        ds.game,
        dict(rules="zonk-chicago", target=1000, scores=[100, 300]),
        ["game", "--rules", "zonk-chicago", "--target", "1000", "--scores", "100,300"],
    ),
    (
        ds.game,
        dict(rules="zonk-chicago", target=1000, fairness=True),
        ["game", "--rules", "zonk-chicago", "--target", "1000", "--fairness"],
    ),
    (
        ds.evaluate,
        dict(rules="zilch", dice=3, turn=300),
        ["evaluate", "--rules", "zilch", "--dice", "3", "--turn", "300"],
    ),
    (
        ds.simulate,
        dict(rules="zonk-detroit", turns=3000, seed=7),
        ["simulate", "--rules", "zonk-detroit", "--turns", "3000", "--seed", "7"],
    ),
]


@pytest.mark.parametrize("fn, kwargs, args", CASES, ids=lambda x: getattr(x, "__name__", None))
def test_an_answer_is_what_the_command_prints(fn, kwargs, args):
    """ds.F(...).to_dict() equals `zilch F ... --json` (a listing: to_json())."""
    printed = json.loads(zilch(*args, "--json").stdout)
    assert fn(**kwargs).to_json() == printed


def test_verify_answer_is_what_the_command_prints(tmp_path):
    f = tmp_path / "s.csv"
    f.write_text("score\n" + "\n".join(["0", "300", "350", "0", "500"] * 40) + "\n")
    printed = json.loads(zilch("verify", "--results", str(f), "--json", code=1).stdout)
    assert ds.verify("farkle", results=str(f)).to_dict() == printed


def test_yahtzee_answers_are_what_the_command_prints():
    printed = json.loads(
        yahtzee(
            "advise", "--dice", "2,2,2,5,5", "--rolls-left", "0", "--filled", "ones", "--json"
        ).stdout
    )
    assert (
        ds.yahtzee_advise(dice=[2, 2, 2, 5, 5], rolls_left=0, filled=["ones"]).to_dict() == printed
    )
    printed = json.loads(yahtzee("value", "--rules", "yatzy", "--json").stdout)
    assert ds.yahtzee_value("yatzy").to_dict() == printed
    assert ds.yahtzee_rules().to_json() == json.loads(yahtzee("rules", "--json").stdout)


def test_bad_input_raises_the_same_one_line_error():
    with pytest.raises(ds.InputError) as e:
        ds.advise("farkle", dice=7)
    assert str(e.value) in zilch("advise", "--dice", "7", code=2).stderr


def test_importing_the_package_is_cheap():
    """`import dicesolver` loads no solver (numpy, the answers) until a function is used."""
    code = (
        "import sys, dicesolver; print('numpy' in sys.modules, "
        "'dicesolver.answers.advise' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["False", "False"]


def test_a_cold_strategy_query_imports_only_what_it_needs(tmp_path):
    """Issue 29's cold `zilch strategy` process: no compiler (numba), no numpy.ma (np.unique
    imports it: ~11 ms), no importlib.resources (~4 ms) on the way to the card (modules the
    interpreter's own start-up loaded, as a site .pth may, do not count)."""
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "from dicesolver.cli.zilch_commands import main\n"
        f"sys.argv = ['zilch', 'strategy', '--rules', 'farkle', '--tables', {str(tmp_path)!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print([m for m in ('numba', 'numpy.ma', 'importlib.resources')"
        " if m in sys.modules and m not in before])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "worth 548.8576 points" in out  # the card itself (M. Busche's fresh turn)
    assert out.splitlines()[-1] == "[]"
