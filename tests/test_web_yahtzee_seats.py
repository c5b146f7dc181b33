"""Issue 37 item 5 on the phone page: Yahtzee for two to four (match.YahtzeeSeats) over HTTP,
the forms a page posts.  On a three-box rule file (tests/test_yahtzee_threshold.py's
PLAIN3, put among the presets for this module: its tables build in seconds): the beat table
offered as a background build, then a game against a computer played to the end with
hints by P(win) (the expected final beside, labelled approximate), ending as the engine
driven directly with the same seed ends, with the review; hot seat (hints by the expected
score: "Play now"), a stale tap refused; real dice typed for every seat."""

import html
import re

import pytest

import dicesolver as ds
from dicesolver.match.yahtzee_seats import YahtzeeSeats

from .test_yahtzee_threshold import PLAIN3
from .yahtzee_small import job_done, preset_client

RULES = PLAIN3.name  # threes, chance, three_kind: no bonus


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("yseats") / "tables")
    ds.yahtzee_advise(PLAIN3, [1, 1, 1, 1, 1], tables=folder)  # (the expected-score table)
    return folder


@pytest.fixture(scope="module")
def client(tables):
    with preset_client(tables, RULES, PLAIN3) as c:
        yield c


def token(client):
    """This browser's form token (the same for every form while the server runs)."""
    if not hasattr(client, "csrf"):
        page = client.get("/play/setup?mode=yahtzee").text
        client.csrf = re.search(r'name="csrf" value="([^"]+)"', page)[1]
    return client.csrf


def where(r):
    """(phase, seat, move number) the game page shows."""
    m = re.search(r'data-phase="(\w+)" data-seat="(\d)" data-version="(\d+)"', r.text)
    assert m, r.text[:3000]
    return m[1], int(m[2]), m[3]


def problem(r):
    m = re.search(r'class="problem" role="alert"><strong>[^<]*</strong> (.*?)</div>', r.text)
    return m and html.unescape(m[1])


def setup(client, **form):
    data = dict(mode="yahtzee", yahtzee_rules=RULES, players="2", people="1") | form
    return client.post("/play/setup", data=dict(data, csrf=token(client)))


def build_offered(client, r, seconds=120):
    """Build the table the set-up offers; the set-up page its job links back to."""
    assert "This needs a table not built yet" in r.text, problem(r) or r.text[:3000]
    assert "Play now: hints and computers by the expected score" in r.text
    offer = re.search(r'name="token" value="([^"]+)"', r.text)[1]
    started = client.post(
        "/build", data={"token": offer, "csrf": token(client)}, follow_redirects=False
    )
    job_page = job_done(client, started.headers["location"], seconds)
    return html.unescape(re.search(r'href="(/play/setup\?[^"]+)"', job_page)[1])


def move(client, r, **form):
    url = str(r.url).split("#")[0]
    return client.post(url, data=dict(form, at=where(r)[2], csrf=token(client)))


def totals(r):
    return [int(x) for x in re.findall(r'board-score">(\d+)', r.text)]


def hint_rows(text):
    """The hint's rows as shown: (keep or box, P(win), expected final)."""
    body = text.split('class="hint-box"', 1)[1].split("</tbody>", 1)[0].split("<tbody>", 1)[1]
    out = []
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S):
        cells = re.findall(r"<td>(.*?)</td>", re.sub(r' <span class="badge">.*?</span>', "", row))
        label = re.search(r'aria-label="dice ([\d ]+)"', cells[0])
        out.append((label[1] if label else re.sub(r"<[^>]+>", "", cells[0]).strip(), *cells[1:]))
    return out


def shown(o):
    label = " ".join(map(str, o["keep"])) if o.get("keep") else o.get("box", "reroll all")
    return (
        label.replace("_", " "),
        f"{100 * o['p_win']:.2f}\u202f%",
        f"{o['expected_final']:,.2f}",
    )


def hand(r):
    return [int(f) for f in re.findall(r"keep the (\d) \(die", r.text)]


def test_against_a_computer_to_the_end_with_hints_by_p_win(client, tables):
    r = setup(client, seed="11", name1="Ann")
    assert r.status_code == 200 and "/play/g/" not in str(r.url)
    back = build_offered(client, r)
    form = dict(client.get(back).request.url.params)  # (the set-up, filled in again)
    assert form["players"] == "2" and form["name1"] == "Ann"
    r = setup(client, **form)
    assert "/play/g/" in str(r.url), problem(r) or r.text[:3000]
    assert "Ann&#39;s turn" in r.text and "To beat <strong>0</strong>" in r.text
    faces = hand(r)
    r = move(client, r, do="hint")
    assert "Hint for Ann" in r.text and '<th scope="col">P(win)</th>' in r.text
    assert "Approximate (Pawlewicz&#39;s heuristic" in r.text
    want = ds.yahtzee_advise(RULES, faces, 2, score=0, opponents="new", tables=tables)
    assert hint_rows(r.text) == [shown(o) for o in want.options[:10]]
    seen_computer = False
    while where(r)[0] != "over":
        phase, seat, _ = where(r)
        if seat == 1:
            seen_computer = True
            assert "Play computer 1's turn" in r.text
            r = move(client, r, do="play")
        else:
            assert f"To beat <strong>{totals(r)[1]}</strong>" in r.text
            r = move(client, r, do="best")
        assert problem(r) is None, problem(r)
    assert seen_computer
    eng = YahtzeeSeats(RULES, tables)
    step = eng.start(["Ann"], 1, seed=11)
    while not step.view["over"]:
        is_computer = step.view["computer"]
        step = eng.apply(
            step.state,
            "play" if is_computer else ("roll" if step.view["phase"] == "roll" else "best"),
        )
    assert totals(r) == [x["score"] for x in step.view["seats"]]
    won = step.view["winners"]
    assert (f"{won[0]} wins" if len(won) == 1 else " and ".join(won) + " tie") in r.text
    assert "Review of Ann" in r.text and "0 errors" in r.text
    log = client.get(str(r.url).split("#")[0] + "/log").text
    assert log.count('"player": "computer 1"') > 0 and log.count('"player": "Ann"') > 0


def test_hot_seat_by_the_expected_score_and_a_stale_tap(client):
    r = setup(client, people="2", name1="Ann", name2="Bob", points="1", seed="3")
    assert "Ann&#39;s turn" in r.text and "hints by the expected final score" in r.text
    first = r
    r = move(client, r, do="hint")
    assert "By the expected final score" in r.text and "P(win)</th>" not in r.text
    r = move(client, r, box="chance")
    assert "Bob&#39;s turn" in r.text and "Pass the phone to Bob." in r.text
    ann = totals(r)[0]
    assert ann > 0 and f"To beat <strong>{ann}</strong>" in r.text
    stale = move(client, first, box="threes")  # (a tap on Ann's old page: refused)
    assert "earlier moment of the game" in problem(stale) and where(stale)[1] == 1
    r = stale
    while where(r)[0] != "over":
        r = move(client, r, do="best")
        assert problem(r) is None, problem(r)
    assert "Review of Ann" in r.text and "Review of Bob" in r.text
    assert len(re.findall(r"<td>\d+</td>", r.text.split("Total</th>", 1)[1].split("</tr>")[0])) == 2


def test_real_dice_typed_for_every_seat(client):
    r = setup(client, real_dice="1", points="1")
    assert where(r)[:2] == ("roll", 0) and "Enter the roll" in r.text
    at = where(r)[2]
    bad = move(client, r, do="roll", dice="3 3")
    assert problem(bad) == "5 dice were rolled, not 2" or "5 dice" in problem(bad)
    assert where(bad)[2] == at
    r = move(client, bad, do="roll", dice="33333")
    r = move(client, r, box="threes")
    assert totals(r) == [15, 0] and "computer 1&#39;s roll of 5 dice" in r.text
    while where(r)[0] != "over":
        phase, seat, _ = where(r)
        if phase == "roll":
            n = int(re.search(r"roll of (\d) di", r.text)[1])
            typed = ("6 6 6 1 2" if seat else "3 3 3 3 3")[: 2 * n]
            r = move(client, r, do="roll", dice=typed)
        elif seat == 1:
            r = move(client, r, do="play")
        else:
            r = move(client, r, do="best")
        assert problem(r) is None, problem(r)
    got = totals(r)
    assert got[0] == 15 + 15 + 15  # (threes, chance and three alike of five threes)
    assert got[1] > 0
