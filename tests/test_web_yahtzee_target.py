"""Issue 37 item 5: the phone page's "Yahtzee" screen plays to win: beside the sheet and the
dice it takes the opponents (finished totals like 236, or sheets still playing) or a score
to reach, and ranks the keeps by P(win) / P(reach) with the expected final score beside,
exactly as `yahtzee_advise(..., score=, opponents= | at_least=)` answers.  A table not
stored yet is offered as a background build (never solved inside a request).  On a
four-box rule set (tests/test_yahtzee_threshold.py's HOUSE4), put among the presets for
this module, so that its tables build in a second; the browser test plays the last turns
of a real Yahtzee game to beat 236."""

import html
import re

import pytest

import dicesolver as ds

from .test_yahtzee_threshold import HOUSE4
from .yahtzee_small import job_done, preset_client

RULES = HOUSE4.name  # fours, sixes, full_house, yahtzee (bonus 35 at 16, joker, bonus 100)
DICE = [6, 6, 6, 4, 4]
APPROXIMATE = "Approximate (Pawlewicz's heuristic: opponents playing for the expected score)"


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    return str(tmp_path_factory.mktemp("ytarget") / "tables")


@pytest.fixture(scope="module")
def client(tables):
    with preset_client(tables, RULES, HOUSE4) as c:
        yield c


def csrf(client):
    r = client.get("/yahtzee")
    return re.search(r'name="csrf" value="([^"]+)"', r.text)[1]


def ask(client, **fields):
    data = dict(yahtzee_rules=RULES, dice=",".join(map(str, DICE)), rolls_left="2", ask="1")
    data.update(fields)
    return client.post("/yahtzee", data=dict(data, csrf=csrf(client)))


def build_offered(client, r, seconds=60):
    """Build the table the page offers; the page its job links back to, once built."""
    assert r.status_code == 200, r.text
    assert "This needs a table not built yet" in r.text
    token = re.search(r'name="token" value="([^"]+)"', r.text)[1]
    started = client.post(
        "/build", data={"token": token, "csrf": csrf(client)}, follow_redirects=False
    )
    assert started.status_code == 303
    job_page = job_done(client, started.headers["location"], seconds)
    back = re.search(r'href="(/yahtzee\?[^"]+)"', job_page)[1]
    return client.get(html.unescape(back))


def rows(text):
    """The options table as shown: (the keep or box, the chance, the expected final)."""
    body = text.split('<table class="options">', 1)[1].split("</table>", 1)[0]
    out = []
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body.split("<tbody>", 1)[1], re.S):
        cells = re.findall(
            r"<td>(.*?)</td>", re.sub(r' <span class="badge">.*?</span>', "", row), re.S
        )
        label = re.search(r'aria-label="dice ([\d ]+)"', cells[0])
        out.append((label[1] if label else re.sub(r"<[^>]+>", "", cells[0]).strip(), *cells[1:]))
    return out


def shown(o, field):
    label = " ".join(map(str, o["keep"])) if o.get("keep") else o.get("box", "reroll all")
    label = label.replace("_", " ")
    return (label, f"{100 * o[field]:.2f}\u202f%", f"{o['expected_final']:,.2f}")


def test_against_a_finished_opponent_the_build_is_offered_then_p_win_is_the_apis(client, tables):
    r = ask(client, score="0", opponents="60")
    page = build_offered(client, r)
    assert page.status_code == 200
    want = ds.yahtzee_advise(RULES, DICE, 2, score=0, opponents="60", tables=tables)
    assert want.exact and want.options[0]["p_win"] < 1.0
    assert rows(page.text) == [shown(o, "p_win") for o in want.options[:12]]
    assert f"{100 * want.p_win:.2f}\u202f%" in page.text
    assert "Exact: every opponent has finished." in page.text
    assert "Chance to win" in page.text
    # the same question through the JSON API beside it
    api = client.post(
        "/api/yahtzee_advise",
        json={"rules": RULES, "dice": DICE, "score": 0, "opponents": "60"},
    )
    assert api.status_code == 200
    assert api.json()["options"] == want.to_json()["options"]
    # two finished opponents typed as a line of totals, and as one a line: the same
    two = ds.yahtzee_advise(RULES, DICE, 2, score=0, opponents="60;75", tables=tables)
    for typed in ("60, 75", "60\n75", " 60 ;\r\n 75 "):
        r = ask(client, score="0", opponents=typed)
        assert rows(r.text) == [shown(o, "p_win") for o in two.options[:12]], typed


def test_at_least_a_score_and_a_sheet_part_filled(client, tables):
    fields = dict(score="59", at_least="120", upper="24", filled=["fours", "sixes"])
    r = ask(client, **fields)
    page = build_offered(client, r) if "not built yet" in r.text else r
    want = ds.yahtzee_advise(
        RULES, DICE, 2, ["fours", "sixes"], 24, score=59, at_least=120, tables=tables
    )
    assert rows(page.text) == [shown(o, "p_at_least") for o in want.options[:12]]
    assert "Chance of 120 or more" in page.text
    assert f"{want.points_needed} points still needed" in page.text
    # no roll left: the boxes by P(final >= 90)
    r = ask(client, **dict(fields, rolls_left="0"))
    want = ds.yahtzee_advise(
        RULES, DICE, 0, ["fours", "sixes"], 24, score=59, at_least=120, tables=tables
    )
    assert rows(r.text) == [shown(o, "p_at_least") for o in want.options]
    assert rows(r.text)[0][0] == want.options[0]["box"].replace("_", " ")


@pytest.mark.parametrize(
    "fields, said",
    [
        ({"opponents": "banana"}, "'banana': a sheet is SCORE"),
        ({"opponents": "60 f=nonsense"}, "sheet 1 ('60 f=nonsense')"),
        ({"opponents": "60;30 f=fours u=8"}, "sheet 2"),
        ({"opponents": "9999"}, "a final score of t-house4 is 0 .. 460"),
        ({"opponents": "60", "at_least": "80"}, "the opponents or a score to reach, not both"),
        ({"at_least": "9999"}, "0 .. 460"),
        ({"score": "abc", "at_least": "80"}, "Your score so far must be a whole number"),
        ({"opponents": "60", "score": "5"}, "--score 5: the filled boxes"),
        ({"opponents": "1" * 1001}, "more than they can be (1000)"),
    ],
)
def test_bad_goals_are_one_line_on_the_page(client, fields, said):
    r = ask(client, **fields)
    assert r.status_code == 400, r.text
    problem = re.search(r'<div class="problem" role="alert">(.*?)</div>', r.text, re.S)[1]
    assert said in html.unescape(problem), problem
    assert "\n" not in problem


@pytest.mark.parametrize(
    "opponents, said",
    [
        ("banana", "sheet 1 ('banana')"),
        (";".join(["60"] * 8), "8 sheets, more than a game has opponents (7)"),
        ([60, {"score": 10, "filled": ["fours"], "upper": 8}], "sheet 2"),
        ([{"score": 60, "colour": "red"}], "a sheet's keys are score, filled, upper"),
        ([True], "must be a whole number"),
        (3.5, "a string of sheets or a list of them"),
    ],
)
def test_bad_opponents_in_json_are_400_with_one_line(client, opponents, said):
    r = client.post(
        "/api/yahtzee_advise",
        json={"rules": RULES, "dice": DICE, "score": 0, "opponents": opponents},
    )
    assert r.status_code == 400, r.text
    assert said in r.json()["error"] and "\n" not in r.json()["error"]
    assert r.json()["exit_code"] == 2


def test_opponents_as_a_json_list_equal_their_text(client, tables):
    want = ds.yahtzee_advise(RULES, DICE, 2, score=0, opponents="60;75;60", tables=tables)
    sheets = [60, "75", {"score": 60}]
    r = client.post(
        "/api/yahtzee_advise",
        json={"rules": RULES, "dice": DICE, "score": 0, "opponents": sheets},
    )
    assert r.status_code == 200, r.text
    assert r.json() == want.to_json()


@pytest.mark.slow  # (the final-score distribution's kernel: compiled on its first use)
def test_an_opponent_still_playing_is_the_heuristic_said_so(client, tables):
    r = ask(client, score="0", opponents="60\n12 f=fours u=12")
    page = build_offered(client, r, 600) if "not built yet" in r.text else r
    want = ds.yahtzee_advise(RULES, DICE, 2, score=0, opponents="60;12 f=fours u=12", tables=tables)
    assert not want.exact and want.method == "pawlewicz-heuristic"
    assert rows(page.text) == [shown(o, "p_win") for o in want.options[:12]]
    assert APPROXIMATE in html.unescape(page.text)
    assert "12 so far, 1 box filled: mean final" in page.text


# ---- on a phone: the last turns of a real Yahtzee game, to beat 236 ----------------------
FILLED = [
    "ones",
    "twos",
    "threes",
    "fours",
    "fives",
    "sixes",
    "three_kind",
    "four_kind",
    "full_house",
    "chance",
]
SCORE = 63 + 35 + 20 + 18 + 25 + 22  # the upper 63 and its bonus, the lower boxes filled


@pytest.mark.slow
def test_on_a_phone_typing_236_as_the_opponent(tmp_path_factory):
    pytest.importorskip("playwright")
    from playwright import sync_api

    from .test_web_browser import screens
    from .webserver import ARGS, CHROMIUM, running, skip_without_chromium, snap

    skip_without_chromium()
    folder = str(tmp_path_factory.mktemp("ytarget-phone") / "tables")
    ds.yahtzee_advise(dice=[1, 1, 1, 1, 1], tables=folder)  # (the expected-score table)
    with running(folder) as url, sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        phone = browser.new_context(
            viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
        )
        page = phone.new_page()
        page.goto(url + "/")
        page.get_by_role("link", name=re.compile("^Yahtzee")).tap()
        page.get_by_label("Your five dice").fill("2,3,4,5,5")
        for box in FILLED:
            page.get_by_label(box.replace("_", " "), exact=True).check()
        page.get_by_label("Upper section total so far").fill("63")
        page.get_by_text("Playing to win?").tap()
        page.get_by_label("Your score so far").fill(str(SCORE))
        page.get_by_label("Opponents").fill("236")
        with page.expect_navigation():
            page.get_by_role("button", name="What now?").tap()
        if page.get_by_role("button", name="Build it now").count():
            with page.expect_navigation():
                page.get_by_role("button", name="Build it now").tap()
            snap(page, str(screens() / "yahtzee-target-build.png"))
            with page.expect_navigation():
                page.get_by_role("link", name="Show the answer").tap(timeout=300_000)
        page.wait_for_selector("[data-chance]", timeout=120_000)
        chance = page.locator("[data-chance]").inner_text()
        snap(page, str(screens() / "yahtzee-target-236.png"))
        browser.close()
    want = ds.yahtzee_advise(
        dice=[2, 3, 4, 5, 5], filled=FILLED, upper=63, score=SCORE, opponents="236", tables=folder
    )
    assert chance == f"{100 * want.p_win:.2f}\u202f%"
    assert 0 < want.p_win < 1
