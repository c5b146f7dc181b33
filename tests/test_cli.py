"""The zilch CLI: JSON contracts, human output, exports, and one-line errors (exit 2)."""

import csv
import io
import json

import pytest

from .clirun import zilch as run


def js(*args):
    return json.loads(run(*args, "--json").stdout)


def test_odds_json_has_exact_p_zilch():
    d = js("odds", "--rules", "farkle", "--dice", "6")
    assert d["p_zilch"] == "5/216"
    assert abs(sum(v["decimal"] for v in d["best_points"].values()) - 1) < 1e-12
    names = {c["combination"] for c in d["combinations"]}
    assert {"single 1", "three 2s", "straight 1-2-3-4-5-6", "three pairs"} <= names
    assert js("odds", "--rules", "zilch", "--dice", "1")["p_zilch"] == "2/3"


def test_advise_before_rolling_json():
    d = js("advise", "--rules", "farkle", "--dice", "3", "--turn", "400")
    assert d["action"] == "roll" and set(d["values"]) == {"roll", "bank"}
    assert d["values"]["bank"] == 400
    d = js("advise", "--rules", "farkle", "--dice", "3", "--turn", "450")
    assert d["action"] == "bank"
    d = js("advise", "--rules", "zilch", "--dice", "2", "--turn", "300")
    assert d["action"] == "roll" and d["values"]["bank"] is None  # below the 350 minimum
    d = js("advise", "--rules", "zilch", "--dice", "3", "--turn", "400", "--not-on-board")
    assert d["values"]["bank"] is None  # entry minimum 500


def test_advise_with_a_roll_ranks_choices():
    d = js("advise", "--rules", "farkle", "--dice", "6", "--roll", "1,1,5,3,4,6")
    keeps = [o["keep"] for o in d["options"]]
    assert sorted(map(tuple, keeps)) == [(1,), (1, 1), (1, 1, 5)]
    assert d["options"][0]["loss"] == 0
    assert all(a["value"] >= b["value"] for a, b in zip(d["options"], d["options"][1:]))
    d = js(
        "advise", "--rules", "zilch-online", "--dice", "5", "--turn", "100", "--roll", "2,2,3,3,4"
    )
    assert d["zilch"] and d["options"] == []
    out = run("advise", "--rules", "farkle", "--dice", "6", "--roll", "1,1,5,3,4,6").stdout
    assert "set aside" in out


def test_advise_permanent_points_and_take_over():
    d = js(
        "advise", "--rules", "zilch-online", "--dice", "6", "--turn", "1500", "--permanent", "1500"
    )
    assert d["action"] == "roll" and d["values"]["roll"] > 1500
    d = js("advise", "--rules", "zonk-chicago", "--take-over", "3,200")
    assert d["action"] in ("take_over", "fresh") and set(d["values"]) == {"take_over", "fresh"}


def test_strategy_json_contract():
    d = js("strategy", "--rules", "farkle")
    assert d["bank_thresholds"] == {"6": 16400, "5": 3050, "4": 1050, "3": 450, "2": 250, "1": 300}
    assert isinstance(d["expected_turn_score"], float)
    assert js("strategy", "--rules", "zilch")["bank_thresholds"]["6"] is None


def test_rules_list_and_show():
    names = [r["name"] for r in js("rules")]
    assert "zonk-detroit" in names
    d = js("rules", "zilch")
    assert d["target"] == 15000 and d["rules_hash"]
    assert "face 1" in run("rules", "zilch").stdout


def test_export_csv_json_parquet(tmp_path):
    out = run("export", "--rules", "farkle", "--format", "csv").stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    assert set(rows[0]) == {
        "dice",
        "turn_total",
        "permanent",
        "on_board",
        "action",
        "value_roll",
        "value_bank",
    }
    six = [r for r in rows if r["dice"] == "6" and r["turn_total"] == "16400"]
    assert six and all(r["action"] == "bank" for r in six)
    p = tmp_path / "f.json"
    run("export", "--rules", "zilch-online", "--format", "json", "--out", str(p))
    d = json.loads(p.read_text())
    assert d["meta"]["rules"] == "zilch-online"
    assert any(r["permanent"] == 1500 for r in d["rows"])
    pq = pytest.importorskip("pyarrow.parquet")
    p = tmp_path / "f.parquet"
    run("export", "--rules", "zilch", "--format", "parquet", "--out", str(p))
    t = pq.read_table(p)
    assert t.num_rows > 100 and "value_bank" in t.column_names


@pytest.mark.parametrize(
    "args",
    [
        ["advise", "--rules", "farkle", "--dice", "6", "--roll", "1,2,7,3,4,5"],  # a die showing 7
        ["advise", "--rules", "farkle", "--dice", "7"],  # seven dice
        ["advise", "--rules", "zonk-chicago", "--dice", "6"],
        ["advise", "--rules", "farkle", "--dice", "3", "--turn", "30"],  # not producible
        ["advise", "--rules", "farkle", "--dice", "6", "--turn", "50"],
        ["advise", "--rules", "farkle", "--dice", "6", "--roll", "1,2"],
        ["advise", "--rules", "nosuchpreset"],
        ["advise", "--bogus"],
        ["odds", "--dice", "0"],
        ["advise", "--rules", "farkle", "--take-over", "3,300"],  # no piggyback
        ["advise", "--rules", "zilch-online", "--turn", "100", "--permanent", "1500"],
        ["export", "--format", "parquet"],
    ],
)
def test_bad_input_is_one_line_and_exit_2(args):
    res = run(*args, code=2)
    err = res.stderr.strip()
    assert err.startswith("zilch") and "error" in err and "\n" not in err
    assert "Traceback" not in res.output


def test_bad_rule_file_exit_2(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text("dice = 6\n[faces]\n1 = [100]\n")
    err = run("advise", "--rules", str(p), code=2).stderr.strip()
    assert str(p) in err and "faces.1" in err and "\n" not in err
