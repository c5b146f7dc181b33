"""Issue 37, the part left: a Yahtzee-family rule file uploaded on /rules is offered in the
play screen's Yahtzee rules field too, and plays there as a preset does: solitaire and a
game of several, its tables found or offered as a background build as the Yahtzee screen
offers them.  Its engines are keyed by the rule set's hash, never its name; an upload gone
from the session is refused with one line and 400.  Rooms take uploads too, of either
family (the room keeps the file's text, so a restart resumes the same game).  On
tests/data/duel-3.toml (three boxes: its tables build in well under a second)."""

import html
import re

import pytest
from starlette.testclient import TestClient

from dicesolver.match import YahtzeeMatch
from dicesolver.match.yahtzee_seats import YahtzeeSeats

from . import test_web_yahtzee_upload as up
from .yahtzee_small import job_done

DUEL3 = up.DUEL3
# (the same name, another box: fours instead of sixes; its own hash and tables)
FOURS = DUEL3.read_text().replace("sixes", "fours").replace("face = 6", "face = 4")

# the fixtures of the Yahtzee screen's upload tests (a fresh store and browser per test)
tables, app, client = up.tables, up.app, up.client


def uploaded(client, text):
    """The rules field's value of `text` uploaded on /rules."""
    r = up.upload(client, text)
    assert r.status_code == 303, r.text[:800]
    return html.unescape(r.headers["location"].split("=", 1)[1].replace("%3A", ":"))


def play_options(client):
    """The play screen's Yahtzee rules field: (value, name) of each choice."""
    text = client.get("/play/setup?mode=yahtzee").text
    return re.findall(r'<option value="([^"]+)"[^>]*>([^<]+)</option>', text)


def started(client, **form):
    """A Yahtzee game started with `form`, its tables built first where the page offers
    them (each build's page links back to the set-up form, posted again): its page."""
    data = dict(mode="yahtzee", seed="5", **form)
    for _ in range(4):
        r = client.post("/play/setup", data=dict(data, csrf=up.csrf(client)))
        if "/play/g/" in str(r.url):
            return r
        assert "This needs a table not built yet" in r.text, up.line(r.text) or r.text[:800]
        token = re.search(r'name="token" value="([^"]+)"', r.text)[1]
        job = client.post("/build", data={"token": token, "csrf": up.csrf(client)})
        assert re.search(r'href="(/play/setup\?[^"]+)"', job_done(client, str(job.url), 60))
    raise AssertionError("the tables were offered again and again")


def where(r):
    """(phase, move number) the game page shows."""
    m = re.search(r'data-phase="(\w+)"(?: data-seat="\d+")? data-version="(\d+)"', r.text)
    assert m, r.text[:2000]
    return m[1], m[2]


def post(client, r, **move):
    url = str(r.url).split("#")[0]
    return client.post(url, data=dict(move, at=where(r)[1], csrf=up.csrf(client)))


def test_an_uploaded_yahtzee_rule_file_is_offered_on_the_play_screen(client):
    """Rule: the play screen's Yahtzee rules field lists the presets, then this session's
    Yahtzee uploads as "NAME (uploaded)" (their value chosen when the address names it)."""
    value = uploaded(client, DUEL3.read_text())
    options = play_options(client)
    assert options[0] == ("yahtzee", "yahtzee") and options[-1] == (value, "duel-3 (uploaded)")
    page = client.get("/play/setup?mode=yahtzee&yahtzee_rules=" + value).text
    assert f'<option value="{value}" selected>duel-3 (uploaded)</option>' in page


def test_a_solitaire_game_under_an_upload_plays_to_its_end_as_the_engine(client, tables):
    """Rule: a solitaire game under an uploaded rule set (its table offered as a build
    first) plays to the end as the step engine under the same file plays with the same
    seed: the same final score on the page, and the review of its decisions by the
    uploaded rules (the engine's own: a name no preset has)."""
    r = started(client, yahtzee_rules=uploaded(client, DUEL3.read_text()))
    assert "fives" in r.text and "sixes" in r.text
    while where(r)[0] != "over":
        r = post(client, r, do="roll" if where(r)[0] == "roll" else "best")
        assert r.status_code == 200 and "Not allowed" not in r.text, r.text[:2000]
    eng = YahtzeeMatch(str(DUEL3), tables)
    s = eng.start(5).state
    while s.phase != "over":
        s = eng.apply(s, "roll" if s.phase == "roll" else "best").state
    assert f"Final score {s.total}" in r.text
    got = eng.review(s)
    assert got is not None and got.decisions > 0 and got.errors == 0  # (best throughout)
    assert f"Your review: {got.decisions} decisions: 0 errors" in html.unescape(r.text)


@pytest.mark.slow  # (its beat table built: 15 s cold; the solitaire game stays quick)
def test_a_game_of_two_against_a_computer_under_an_upload(client, tables):
    """Rule: a game of two (you and a computer) under an uploaded rule set, hints by
    P(win) (its beat table offered as a build first), plays to the end as the engine
    under the same file with the same seed: the same final scores on the board, and the
    person's review by P(win) under the upload."""
    value = uploaded(client, DUEL3.read_text())
    r = started(client, yahtzee_rules=value, players="2", people="1")
    assert "hints by P(win)" in r.text
    while where(r)[0] != "over":
        computer = 'class="banner computer"' in r.text
        phase = where(r)[0]
        r = post(client, r, do="skip" if computer else "roll" if phase == "roll" else "best")
        assert r.status_code == 200 and "Not allowed" not in r.text, r.text[:2000]
    eng = YahtzeeSeats(str(DUEL3), tables, "win")
    s = eng.start(["you"], 1, 5).state
    while s.phase != "over":
        act = "play" if s.seats[s.seat].computer else "roll" if s.phase == "roll" else "best"
        s = eng.apply(s, act).state
    scores = [str(x["score"]) for x in eng.view(s)["seats"]]
    assert re.findall(r'board-score">(\d+)<', r.text) == scores
    # the person's review by P(win) under the upload (best throughout: no error)
    got = eng.reviews(s)["you"]
    assert got.objective == "game" and got.decisions > 0 and got.errors == 0
    assert f"Your review: {got.decisions} decisions: 0 errors" in html.unescape(r.text)


def test_two_uploads_of_one_name_never_share_an_engine(client, app):
    """Rule: the play screen's engines are keyed by the rule set's hash: two uploads both
    named duel-3 (sixes in one, fours in the other) play their own boxes, with their own
    hints, from two engines."""
    sixes, fours = uploaded(client, DUEL3.read_text()), uploaded(client, FOURS)
    assert sixes != fours
    names = [name for value, name in play_options(client) if value in (sixes, fours)]
    assert names == ["duel-3 (uploaded)", "duel-3 (uploaded)"]
    games = [started(client, yahtzee_rules=v) for v in (sixes, fours)]
    sheets = [re.findall(r'<th scope="row">(\w+)</th><td>', g.text) for g in games]
    assert sheets[0][:3] == ["fives", "sixes", "yahtzee"]
    assert sheets[1][:3] == ["fives", "fours", "yahtzee"]
    hints = [post(client, g, do="hint").text for g in games]
    values = [re.findall(r"<td>([\d,]+\.\d\d)</td>", h) for h in hints]
    assert values[0] and values[1] and values[0] != values[1]
    engines = [e for k, e in app.state.web.engines._all.items() if k[0] == "yahtzee"]
    assert sorted(e.rules.boxes for e in engines) == [
        ("fives", "fours", "yahtzee"),
        ("fives", "sixes", "yahtzee"),
    ]


def test_an_upload_gone_from_the_session_is_refused_with_one_line(client, app):
    """Rule: a Yahtzee rules value naming an upload this session does not hold (another
    browser's, or one gone) starts no game: 400 and one line, no traceback."""
    value = uploaded(client, DUEL3.read_text())
    with TestClient(app) as other:
        other.get("/")
        for players in ("1", "2"):
            data = dict(mode="yahtzee", yahtzee_rules=value, players=players)
            r = other.post("/play/setup", data=dict(data, csrf=up.csrf(other)))
            assert r.status_code == 400 and "Traceback" not in r.text
            assert up.line(r.text) == (
                "the uploaded rules are gone (the session ended): upload them again"
            )


# --- rooms under an uploaded Yahtzee rule file (issue 37: refused before) -------------------
def _json(client, path, **body):
    return client.post(path, json=body, headers={"origin": "http://testserver"})


def test_a_yahtzee_room_under_uploaded_rules_plays_to_the_end_and_survives_a_restart(
    client, tables, monkeypatch
):
    """Rule: a Yahtzee room may play an uploaded rule file (`rules_text`, as the Zilch
    family's rooms): the room keeps the text, so it is the same game after a restart (a
    new server process on the same state folder) and in its rematch; its name the file's,
    its computer playing by the file's table; played to the end by the best moves."""
    import time
    import tomllib

    import dicesolver as ds
    from dicesolver.web import create_app
    from dicesolver.yahtzee.yahtzee_rules import from_dict

    monkeypatch.setenv("DICESOLVER_ROOM_PACE", "0")
    text = DUEL3.read_text()
    ds.yahtzee_advise(from_dict(tomllib.loads(text)), [1] * 5, tables=tables)
    r = _json(client, "/api/rooms", game="yahtzee", rules_text=text, seats=["person", "computer"])
    assert r.status_code == 200, r.text
    code, host = r.json()["code"], r.json()["host"]
    token = _json(client, f"/api/rooms/{code}/join", name="Ann").json()["token"]
    st = _json(client, f"/api/rooms/{code}/start", token=host).json()
    assert st["game"] == "yahtzee" and st["rules"] == "duel-3" and st["hints"] == "expected"
    st = _json(client, f"/api/rooms/{code}/move", token=token, move=st["move"], best=True).json()
    moved = st["move"]
    # a new server on the same tables and state folder: the room, at its last move
    again = create_app(tables)
    try:
        with TestClient(again) as other:
            back = other.get(f"/api/rooms/{code}").json()
            assert back["move"] == moved and back["rules"] == "duel-3", back
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                back = other.get(f"/api/rooms/{code}").json()
                if back["finished"]:
                    break
                if back["seats"][back["turn"]]["computer"]:
                    time.sleep(0.02)  # (the computer plays by itself)
                    continue
                body = dict(token=token, move=back["move"], best=True)
                r = _json(other, f"/api/rooms/{code}/move", **body)
                assert r.status_code in (200, 409), r.text
            assert back["finished"] and len(back["scores"]) == 2, back
            # a rematch keeps the seats and the uploaded rules
            r = _json(other, f"/api/rooms/{code}/rematch", token=host)
            assert r.status_code == 200, r.text
            again_st = other.get(f"/api/rooms/{r.json()['code']}").json()
            assert again_st["rules"] == "duel-3" and again_st["started"], again_st
    finally:
        again.state.web.jobs.shutdown()


def test_a_room_opened_from_the_play_screen_keeps_the_uploaded_rules(client, tables):
    """Rule: "Open as a room" on the play screen with an uploaded Yahtzee rule file opens a
    room of that file (its name on the room's page), not a refusal."""
    import tomllib

    import dicesolver as ds
    from dicesolver.yahtzee.yahtzee_rules import from_dict

    ds.yahtzee_advise(from_dict(tomllib.loads(DUEL3.read_text())), [1] * 5, tables=tables)
    value = uploaded(client, DUEL3.read_text())
    form = dict(mode="yahtzee", yahtzee_rules=value, players="2", people="1")
    r = client.post("/rooms", data=dict(form, csrf=up.csrf(client)), follow_redirects=False)
    assert r.status_code == 303 and re.fullmatch(r"/r/[A-Z0-9]{6}", r.headers["location"]), (
        up.line(r.text) or r.text[:800]
    )
    code = r.headers["location"].rsplit("/", 1)[1]
    assert client.get(f"/api/rooms/{code}").json()["rules"] == "duel-3"
    assert "duel-3" in client.get(r.headers["location"]).text


@pytest.mark.parametrize(
    "body, said",
    [
        ({"rules_text": up.FARKLE}, "a Yahtzee-family rule file"),
        ({"rules_text": up.BAD_KIND}, "rules_text: "),
        ({"rules": "yahtzee", "rules_text": "x"}, "without rules"),
        ({"rules_text": 5}, "a rule file's text"),
    ],
    ids=["a-zilch-file", "a-bad-box", "both", "not-text"],
)
def test_a_yahtzee_room_refuses_bad_rules_text_in_one_line(client, body, said):
    r = _json(client, "/api/rooms", game="yahtzee", seats=["person", "computer"], **body)
    assert r.status_code == 400 and said in r.json()["error"], r.text
    assert "\n" not in r.json()["error"]


def test_a_zilch_room_opened_on_the_rooms_page_keeps_an_uploaded_rule_file(client):
    """Rule: /rooms with an uploaded Zilch-family rule file opens a room of that file (its
    text kept by the room, as the API's rules_text), not "a room plays a preset's rules"."""
    house = up.FARKLE.replace('name = "farkle"', 'name = "house-farkle"')
    r = up.upload(client, house, next="/roll")
    assert r.status_code == 303, r.text[:800]
    value = html.unescape(r.headers["location"].split("rules=", 1)[1].replace("%3A", ":"))
    form = dict(rules=value, target="500", people="2", computers="0", csrf=up.csrf(client))
    r = client.post("/rooms", data=form, follow_redirects=False)
    assert r.status_code == 303, up.line(r.text) or r.text[:800]
    code = r.headers["location"].rsplit("/", 1)[1]
    st = client.get(f"/api/rooms/{code}").json()
    assert st["rules"] == "house-farkle" and st["target"] == 500, st
