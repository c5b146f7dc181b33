"""Issue 37, "Yahtzee to win" (the part left): a Yahtzee-family rule file uploaded on the
phone page's /rules page (told from a Zilch-family one by its content, `[[boxes]]`) is kept
in the session as a Zilch upload is (the same lifetime, at most RULE_FILES of it) and is
offered in the Yahtzee screen's rules field as "NAME (uploaded)"; its answers are the
API's for the same file, its tables built as a preset's are (a background build offered).
A malformed file gets one line and 400, the upload wants its form token, and a Zilch-family
upload still joins the Zilch lists.  On tests/data/duel-3.toml (three boxes: its tables
build in well under a second)."""

import html
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

import dicesolver as ds
from dicesolver.web.sessions import RULE_FILES

from .test_web_yahtzee_target import rows
from .yahtzee_small import job_done

DATA = Path(__file__).resolve().parent / "data"
DUEL3 = DATA / "duel-3.toml"
FARKLE = (Path(__file__).resolve().parent.parent / "solver/rulesets/farkle.toml").read_text()
DICE = "5,5,5,6,1"
BAD_KIND = '[[boxes]]\nname = "fives"\nkind = "fives"\n'


@pytest.fixture
def tables(tmp_path):
    return str(tmp_path / "tables")  # (each test's own: no table stored before it)


@pytest.fixture
def app(tables):
    from dicesolver.web import create_app

    made = create_app(tables)
    yield made
    made.state.web.jobs.shutdown()


@pytest.fixture
def client(app):
    """A browser of its own (its own cookies: its own session and form token)."""
    with TestClient(app) as c:
        c.get("/")  # (the csrf cookie)
        yield c


def csrf(client):
    return re.search(r'name="csrf" value="([^"]+)"', client.get("/rules").text)[1]


def upload(client, text, token=True, **data):
    """POST /rules with the rule file chosen (its form token unless token=False)."""
    if token:
        data["csrf"] = csrf(client)
    files = {"rules_file": ("house.toml", text.encode())}
    return client.post("/rules", files=files, data=data, follow_redirects=False)


def yahtzee_options(client):
    """The Yahtzee screen's rules field: (value, name) of each choice."""
    return re.findall(r'<option value="([^"]+)"[^>]*>([^<]+)</option>', client.get("/yahtzee").text)


def line(text):
    got = re.search(r"Cannot answer:</strong> (.*?)</div>", text, re.S)
    return html.unescape(got[1]) if got else None


def ask(client, rules, **fields):
    data = dict(yahtzee_rules=rules, dice=DICE, rolls_left="1", ask="1", csrf=csrf(client))
    return client.post("/yahtzee", data=dict(data, **fields))


def built(client, r):
    """The page after building the table the page offers (the page its job links back to)."""
    assert r.status_code == 200 and "This needs a table not built yet" in r.text, r.text[:800]
    token = re.search(r'name="token" value="([^"]+)"', r.text)[1]
    started = client.post(
        "/build", data={"token": token, "csrf": csrf(client)}, follow_redirects=False
    )
    assert started.status_code == 303
    back = re.search(r'href="(/yahtzee\?[^"]+)"', job_done(client, started.headers["location"], 60))
    return client.get(html.unescape(back[1]))


def label(o):
    return " ".join(map(str, o["keep"])) if o.get("keep") else o.get("box", "reroll all")


def test_an_uploaded_yahtzee_rule_file_is_offered_and_answers_as_the_api(client, tables):
    r = upload(client, DUEL3.read_text(), next="/roll")
    assert r.status_code == 303
    assert r.headers["location"].startswith("/yahtzee?yahtzee_rules=upload%3A")
    page = client.get(r.headers["location"]).text
    chosen = re.search(r'<option value="(upload:\w+)" selected>duel-3 \(uploaded\)</option>', page)
    assert chosen, page[:2000]
    assert re.findall(r'name="filled" value="(\w+)"', page) == ["fives", "sixes", "yahtzee"]
    # the table not stored yet: offered as a background build, as for a preset
    r = built(client, ask(client, chosen[1]))
    assert r.status_code == 200 and "Expected final score from here" in r.text
    want = ds.yahtzee_advise(rules=str(DUEL3), dice=DICE, rolls_left=1, tables=tables)
    assert want.rules == "duel-3"
    assert rows(r.text) == [
        (label(o), f"{o['value']:,.2f}", f"{o['loss']:,.2f}") for o in want.options[:12]
    ]


def test_an_uploaded_yahtzee_rule_file_plays_to_reach_a_score_as_the_api(client, tables):
    key = upload(client, DUEL3.read_text()).headers["location"].split("=", 1)[1]
    rules = key.replace("%3A", ":")
    r = ask(client, rules, filled="fives", upper="15", score="15", at_least="60")
    for _ in range(3):  # (the tables it needs, each offered as a background build)
        if "This needs a table not built yet" not in r.text:
            break
        r = built(client, r)
    want = ds.yahtzee_advise(
        rules=str(DUEL3),
        dice=DICE,
        rolls_left=1,
        filled=["fives"],
        upper=15,
        score=15,
        at_least=60,
        tables=tables,
    )
    assert r.status_code == 200, line(r.text)
    assert rows(r.text) == [
        (label(o), f"{100 * o['p_at_least']:.2f}\u202f%", f"{o['expected_final']:,.2f}")
        for o in want.options[:12]
    ]


def test_a_malformed_yahtzee_rule_file_gets_one_line_and_400(client, tmp_path):
    r = upload(client, BAD_KIND)
    assert r.status_code == 400
    # the command line's message of the same file, naming the upload instead of a path
    path = tmp_path / "bad.toml"
    path.write_text(BAD_KIND)
    with pytest.raises(ds.InputError) as said:
        ds.yahtzee_advise(rules=str(path), dice=DICE)
    assert line(r.text) == str(said.value).replace(str(path), "uploaded rules")
    assert "Traceback" not in r.text
    assert [name for _, name in yahtzee_options(client) if "(uploaded)" in name] == []


def test_a_yahtzee_rule_file_past_1_mb_is_refused_as_a_zilch_one(client):
    padded = DUEL3.read_text() + "#" * (1 << 20) + "\n"
    r = upload(client, padded)
    assert r.status_code == 400
    assert line(r.text) == (
        f"the rules file house.toml: {len(padded)} bytes, more than such a file can be (1048576)"
    )
    assert "duel-3 (uploaded)" not in client.get("/yahtzee").text


def test_the_yahtzee_upload_without_its_csrf_token_is_refused(client):
    for token in (None, "0" * 40):
        data = {} if token is None else {"csrf": token}
        r = upload(client, DUEL3.read_text(), token=False, **data)
        assert r.status_code == 403 and "reload the page" in html.unescape(r.text)
    assert "duel-3 (uploaded)" not in client.get("/yahtzee").text
    assert upload(client, DUEL3.read_text()).status_code == 303  # (with it: taken)
    assert "duel-3 (uploaded)" in client.get("/yahtzee").text


def test_a_zilch_upload_still_joins_the_zilch_lists_and_not_the_yahtzee_one(client):
    r = upload(client, FARKLE.replace('name = "farkle"', 'name = "ours"'), next="/dice")
    assert r.status_code == 303 and r.headers["location"].startswith("/dice?rules=upload%3A")
    r = upload(client, FARKLE.replace('name = "farkle"', 'name = "ours"'), next="/yahtzee")
    assert r.headers["location"].startswith("/roll?rules=upload%3A")  # (a Zilch screen's)
    assert upload(client, DUEL3.read_text()).status_code == 303
    for path in ("/roll", "/dice", "/card"):
        text = client.get(path).text
        assert "ours (uploaded)" in text and "duel-3 (uploaded)" not in text, path
    names = [name for _, name in yahtzee_options(client)]
    assert "duel-3 (uploaded)" in names and "ours (uploaded)" not in names


def test_a_session_keeps_the_newest_yahtzee_rule_files_as_zilch_ones(client):
    text = DUEL3.read_text()
    for i in range(RULE_FILES + 1):  # (each another definition: another rule set)
        house = text.replace('name = "duel-3"', f'name = "house{i}"')
        assert upload(client, house.replace("points = 50", f"points = {50 + i}")).status_code == 303
    names = [name for _, name in yahtzee_options(client) if "(uploaded)" in name]
    assert names == [f"house{i} (uploaded)" for i in range(1, RULE_FILES + 1)]


def test_an_uploaded_yahtzee_rule_set_is_this_sessions_only(client, app):
    chosen = upload(client, DUEL3.read_text()).headers["location"].split("=", 1)[1]
    with TestClient(app) as other:
        other.get("/")
        assert "duel-3 (uploaded)" not in other.get("/yahtzee").text
        r = ask(other, chosen.replace("%3A", ":"))
        assert r.status_code == 400
        assert line(r.text) == "the uploaded rules are gone (the session ended): upload them again"
