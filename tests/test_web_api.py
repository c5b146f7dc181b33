"""Issue 27: the JSON API beside the pages.  `POST /api/<name>` with the Python API's
keyword arguments answers exactly that function's to_json() (bad input: HTTP 400 and the
command line's JSON error object; a missing table: 409 and its TableMissing.to_dict()),
over many cases for every name; a missing table is built as a background job."""

import json
import time
from pathlib import Path

import pytest
from starlette.testclient import TestClient

import dicesolver as ds
from dicesolver.errors import flagged
from dicesolver.rules import preset_names

from .clirun import zilch
from .solvers import preset_file


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    return str(tmp_path_factory.getbasetemp() / "tables")  # (conftest's folder)


@pytest.fixture(scope="module")
def client(tables):
    from dicesolver.web import create_app

    ds.game("zonk-chicago", target=1000, tables=tables)  # (the game cases read it)
    app = create_app(tables)
    with TestClient(app) as c:
        yield c
    app.state.web.jobs.shutdown()


def expected(name, kwargs, tables):
    """What the Python API gives: (200, to_json()) or (status, the CLI's error object)."""
    import inspect

    fn = getattr(ds, name)
    extra = {"tables": tables} if "tables" in inspect.signature(fn).parameters else {}
    try:
        a = fn(**kwargs, **extra)
    except ds.TableMissing as e:
        return 409, e.to_dict()
    except ds.InputError as e:
        return 400, {"error": " ".join(flagged(e).split()), "exit_code": 2}
    return 200, json.loads(json.dumps(a.to_json()))


def _cases():
    out = []
    for r in preset_names():
        out.append(("strategy", dict(rules=r)))
        out.append(("strategy", dict(rules=r, not_on_board=True)))
        out.append(("describe_rules", dict(name=r)))
        for n in range(1, 7):
            out.append(("odds", dict(rules=r, dice=n)))
        out.append(("advise", dict(rules=r, dice=3, turn=400)))
        out.append(("advise", dict(rules=r, dice=6, roll=[1, 1, 5, 3, 4, 6])))
        out.append(("endgame", dict(rules=r, deficit=1000, dice=2, turn=600)))
    out += [
        ("describe_rules", {}),
        ("yahtzee_rules", {}),
        ("advise", dict(rules="farkle", dice=3, turn=400)),
        ("advise", dict(rules="zilch", dice=4, turn=550, roll="1,5,2,2")),
        (
            "advise",
            dict(rules="zilch-online", dice=2, turn=1750, permanent=1500, not_on_board=True),
        ),
        ("advise", dict(rules="zonk-chicago", take_over="3,200")),
        (
            "advise",
            dict(rules="zilch-online", dice=2, turn=250, score=4900, opponents=[4950, 5000]),
        ),
        (
            "advise",
            dict(rules="farkle", dice=3, turn=600, score=9000, opponents="10200", last_turn=True),
        ),
        ("advise", dict(rules="farkle", dice=3, turn=600, score=9000, opponents=[9500])),
        ("advise", dict(rules="zilch", dice=3, turn=300, zilches=2)),
        ("advise", dict(rules="zilch-overtaking", dice=3, turn=300, beat=500)),
        ("advise", dict(rules="zilch-pyramiding", dice=4, turn=300, frozen="5,5")),
        ("advise", dict(rules="farkle", dice=7)),
        ("advise", dict(rules="farkle", dice=3, roll=[1, 2])),
        ("advise", dict(rules="farkle", roll=[1, 7, 2, 3, 4, 5])),
        ("advise", dict(rules="farkle", final_round=True, last_turn=True)),
        ("endgame", dict(rules="farkle", final_round=True, scores="10000,7500,9500,9800")),
        ("endgame", dict(rules="zilch", deficit=-5)),
        ("game", dict(rules="zonk-chicago", target=1000, scores=[100, 300])),
        ("game", dict(rules="zonk-chicago", target=1000, fairness=True)),
        ("game", dict(rules="zonk-chicago", target=1000, scores=[100])),
        ("evaluate", dict(rules="zilch", dice=3, turn=300, not_on_board=True)),
        ("evaluate", dict(rules="farkle", policy="optimal", dice=2, turn=450)),
        ("yahtzee_advise", dict(dice=[2, 2, 2, 5, 5])),
        ("yahtzee_advise", dict(dice="1,2,3,4,6", rolls_left=1, filled=["chance"])),
        ("yahtzee_advise", dict(dice=[2, 2, 2, 5, 5], rolls_left=0, filled="ones,twos")),
        ("yahtzee_advise", dict(rules="yatzy", dice=[6, 6, 6, 6, 7], rolls_left=0)),
        ("evaluate", dict(rules="zonk-chicago", dice=2, turn=300)),
        ("yahtzee_advise", dict(dice=[1, 2, 3])),
        ("yahtzee_value", dict(filled=["ones", "yahtzee"], upper=3)),
        ("yahtzee_value", dict(filled=["nonsense"])),
    ]
    return out


CASES = _cases()
# zilch's whole evaluation off the board (8 s): the slow tier (farkle's and zonk's stay quick)
SLOW = {("evaluate", "zilch")}
PARAMS = [
    pytest.param(n, k, marks=pytest.mark.slow) if (n, k.get("rules")) in SLOW else (n, k)
    for n, k in CASES
]


@pytest.mark.parametrize("name, kwargs", PARAMS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_the_api_answers_what_the_python_api_answers(client, tables, name, kwargs):
    status, want = expected(name, kwargs, tables)
    r = client.post(f"/api/{name}", json=kwargs)
    assert (r.status_code, r.json()) == (status, want)


def test_the_issue_example_equals_the_command_line(client):
    """POST /api/advise {"rules": "farkle", "dice": 3, "turn": 400} = zilch advise --json."""
    printed = json.loads(
        zilch("advise", "--rules", "farkle", "--dice", "3", "--turn", "400", "--json").stdout
    )
    r = client.post("/api/advise", json={"rules": "farkle", "dice": 3, "turn": 400})
    assert r.status_code == 200 and r.json() == printed


def test_bad_input_is_the_command_lines_json_error(client):
    printed = json.loads(zilch("advise", "--dice", "7", "--json", code=2).stderr)
    r = client.post("/api/advise", json={"dice": 7})
    assert (r.status_code, r.json()) == (400, printed)
    args = ["advise", "--rules", "zilch-overtaking", "--dice", "3", "--turn", "300"]
    printed = json.loads(zilch(*args, "--beat", "75", "--json", code=2).stderr)
    body = {"rules": "zilch-overtaking", "dice": 3, "turn": 300, "beat": 75}
    r = client.post("/api/advise", json=body)
    assert (r.status_code, r.json()) == (400, printed)


def _zilch_log(tmp_path, tables):
    log = tmp_path / "game.jsonl"
    ds.simulate("farkle", turns=40, seed=3, log=str(log), tables=tables)
    return log


def test_review_of_an_uploaded_log_is_the_review_of_the_file(client, tables, tmp_path):
    """The log uploaded as text is read by the same parser as the file: the same review
    (its "log": the upload's name, not a path on the server)."""
    log = _zilch_log(tmp_path, tables)
    want = ds.review(str(log), rules="farkle", tables=tables).to_dict()
    want["log"] = "game.jsonl"
    body = {"log_text": log.read_text(), "log_name": "game.jsonl", "rules": "farkle"}
    r = client.post("/api/review", json=body)
    assert r.status_code == 200 and r.json() == json.loads(json.dumps(want))
    for objective in ("points", "game"):
        status, got = expected("review", dict(log=str(log), objective=objective), tables)
        r = client.post("/api/review", json=dict(body, objective=objective))
        if status == 200:
            got["log"] = "game.jsonl"
        else:  # (an error names the log: the upload's name, as the file's path for the file)
            got["error"] = got["error"].replace(str(log), "game.jsonl")
        assert (r.status_code, r.json()) == (status, got)


def test_a_bad_log_names_the_upload_not_a_temporary_file(client):
    r = client.post(
        "/api/review", json={"log_text": '{"dice": 6}\nnot json\n', "log_name": "mine.jsonl"}
    )
    assert r.status_code == 400
    assert "mine.jsonl" in r.json()["error"] and "/tmp" not in r.json()["error"]


def test_yahtzee_review_of_an_uploaded_log(client, tables, tmp_path):
    lines = [
        {"dice": [2, 2, 2, 5, 5], "rolls_left": 2, "keep": [2, 2, 2]},
        {"dice": [2, 2, 2, 5, 5], "rolls_left": 0, "filled": ["ones"], "box": "fullhouse"},
        {"dice": [1, 2, 3, 4, 6], "rolls_left": 1, "keep": [6]},
    ]
    log = tmp_path / "y.jsonl"
    log.write_text("".join(json.dumps(x) + "\n" for x in lines))
    want = ds.yahtzee_review(str(log), tables=tables).to_dict()
    want["log"] = "y.jsonl"
    r = client.post(
        "/api/yahtzee_review", json={"log_text": log.read_text(), "log_name": "y.jsonl"}
    )
    assert r.status_code == 200 and r.json() == json.loads(json.dumps(want))


def test_an_uploaded_rule_file_is_the_file(client, tables, tmp_path):
    """rules_text is read as rules.load reads a file: the same answers."""
    path = Path(preset_file(tmp_path, "farkle", 2000))
    for name, kwargs in [
        ("advise", dict(dice=3, turn=400)),
        ("strategy", {}),
        ("odds", dict(dice=5)),
        ("endgame", dict(deficit=500)),
        ("describe_rules", {}),
    ]:
        key = "name" if name == "describe_rules" else "rules"
        status, want = expected(name, dict(kwargs, **{key: str(path)}), tables)
        r = client.post(f"/api/{name}", json=dict(kwargs, rules_text=path.read_text()))
        assert (r.status_code, r.json()) == (status, want), name


def test_a_missing_table_is_409_then_a_background_job_builds_it(client, tables, tmp_path):
    """A request never waits on a solve: 409 with TableMissing's object, the build as a
    job (one per table: a second request joins it), then the same answer as the API's."""
    path = preset_file(tmp_path, "farkle", 650)
    text = Path(path).read_text()
    question = {"rules_text": text, "scores": [100, 200]}
    r = client.post("/api/game", json=question)
    assert r.status_code == 409
    body = r.json()
    assert set(body) == {"error", "exit_code", "solve_with"} and body["exit_code"] == 3
    assert "zilch game" in body["solve_with"]
    first = client.post("/api/jobs", json={"name": "game", "kwargs": question})
    again = client.post("/api/jobs", json={"name": "game", "kwargs": dict(question, scores=[0, 0])})
    assert first.status_code == 202 and again.json()["id"] == first.json()["id"]
    job = first.json()
    deadline = time.monotonic() + 300
    while job["state"] in ("queued", "running"):
        assert time.monotonic() < deadline
        time.sleep(0.2)
        job = client.get(f"/api/jobs/{job['id']}").json()
    assert job["state"] == "done", job
    assert job["total"] > 0 and job["done"] == job["total"]
    r = client.post("/api/game", json=question)
    want = ds.game(path, scores=[100, 200], tables=tables).to_dict()
    assert (r.status_code, r.json()) == (200, json.loads(json.dumps(want)))
    stored = client.post("/api/jobs", json={"name": "game", "kwargs": question})
    assert stored.json()["state"] == "stored"


def test_work_beyond_the_machine_is_refused_with_its_estimate(client, monkeypatch):
    from dicesolver.web import jobs

    monkeypatch.setattr(jobs, "estimate", lambda name, kwargs, store: (1e15, 1e9))
    text = (Path(ds.__file__).parent / "rulesets" / "farkle.toml").read_text()
    text = text.replace("target = 10000", "target = 9950")
    r = client.post("/api/jobs", json={"name": "game", "kwargs": {"rules_text": text}})
    assert r.status_code == 400
    assert "more than this machine gives a solve" in r.json()["error"]


def test_keywords_naming_server_paths_are_refused(client, tmp_path):
    secret = tmp_path / "secret.toml"
    secret.write_text((Path(ds.__file__).parent / "rulesets" / "farkle.toml").read_text())
    for name, body in [
        ("advise", {"rules": str(secret)}),
        ("describe_rules", {"name": str(secret)}),
        ("advise", {"tables": str(tmp_path)}),
        ("game", {"rules": "farkle", "target": 500, "solve": True}),
        ("game", {"rules": "farkle", "workers": 2}),
        ("review", {"log": str(secret)}),
        ("evaluate", {"policy": str(secret)}),
        ("review", {"log_text": json.dumps({"rules": str(secret), "dice": 6}) + "\n"}),
    ]:
        r = client.post(f"/api/{name}", json=body)
        assert r.status_code == 400, (name, body, r.text)
        assert r.json()["exit_code"] == 2 and "Traceback" not in r.text


def test_every_api_name_is_reachable(client):
    """Each whitelisted name answers (no name of the list is left unserved)."""
    from dicesolver.web.calls import NAMES

    for name in NAMES:
        r = client.post(f"/api/{name}", json={})
        assert r.status_code in (200, 400, 409), (name, r.text)
        assert isinstance(r.json(), (dict, list))


def test_a_game_builds_estimate_is_the_solvers(tmp_path):
    """The offer's estimate is the solver's own (the figures the command line refuses by).
    (Its own empty tables folder: a shared one may hold farkle to 1000 from another test.)"""
    from dicesolver.objectives.game_run import GameRun
    from dicesolver.objectives.plain_game import estimate as solver_estimate
    from dicesolver.store import Store
    from dicesolver.tables import Tables
    from dicesolver.web.jobs import estimate, estimate_text

    store = Store(tmp_path)
    got = estimate("game", {"rules": "farkle", "target": 1000}, store)
    tab = Tables(ds.rules.load("farkle"), store)
    assert got == solver_estimate(GameRun(tab.model, tab.reach_bound, 1000))
    assert estimate_text(got).startswith("under a minute on this machine")
    assert estimate("yahtzee_advise", {}, store) is None
