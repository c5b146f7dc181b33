"""Yahtzee rooms (issue 38 with issue 37 item 5) through the rooms' JSON API, in process
(Starlette's TestClient) on a three-box rule file put among the presets for this module
(tests/test_yahtzee_threshold.py's PLAIN3: its tables build in seconds): a room of two
people and a computer created, joined by two tokens, started and played to the end with
keeps, boxes and the best move, the computer playing by itself; a stale move 409, another
seat's token 403, the private hint by P(win) (labelled), the host's undo, each seat's sheet
and the score to beat in the state, the decision log; bad set-ups refused (400)."""

import json
import re
import time

import pytest
from starlette.testclient import TestClient

import dicesolver as ds
from dicesolver.yahtzee.yahtzee_rules import PRESETS

from .test_yahtzee_threshold import PLAIN3

RULES = PLAIN3.name


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    from dicesolver.web.app import create_app

    folder = tmp_path_factory.mktemp("yrooms")
    tables = str(folder / "tables")
    ds.yahtzee_advise(PLAIN3, [1, 1, 1, 1, 1], tables=tables)
    ds.yahtzee_value(PLAIN3, score=0, beat=1, tables=tables)  # (the beat table: P(win))
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(PRESETS, RULES, PLAIN3)
        mp.setenv("DICESOLVER_ROOM_PACE", "0")
        app = create_app(tables, state=str(folder / "state"))
        with TestClient(app) as c:
            yield c
        app.state.web.jobs.shutdown()


def post(api, path, **body):
    return api.post(path, content=json.dumps(body), headers={"content-type": "application/json"})


def state(api, code):
    r = api.get(f"/api/rooms/{code}")
    assert r.status_code == 200, r.text
    return r.json()


def person_turn(api, code, seconds=30):
    """The state once the computer has played (it plays by itself, in the background)."""
    deadline = time.monotonic() + seconds
    while True:
        st = state(api, code)
        if st["finished"] or not st["seats"][st["turn"]]["computer"]:
            return st
        assert time.monotonic() < deadline, st
        time.sleep(0.02)


def test_a_yahtzee_room_played_to_the_end(api):
    r = post(api, "/api/rooms", rules=RULES, seats=["person", "computer", "person"])
    assert r.status_code == 200, r.text
    code, host = r.json()["code"], r.json()["host"]
    tokens = {}
    for name in ("Ann", "Bob"):
        got = post(api, f"/api/rooms/{code}/join", name=name).json()
        tokens[got["seat"]] = got["token"]
    assert sorted(tokens) == [0, 1]  # (the people first in turn order)
    st = post(api, f"/api/rooms/{code}/start", token=host).json()
    assert st["game"] == "yahtzee" and st["hints"] == "win" and st["phase"] == "roll"
    assert [x["name"] for x in st["seats"]] == ["Ann", "Bob", "computer 1"]
    # another seat's token: 403; a stale move number: 409; nothing moves
    assert post(api, f"/api/rooms/{code}/move", token=tokens[1], move=st["move"]).status_code == 403
    stale = post(api, f"/api/rooms/{code}/move", token=tokens[0], move=st["move"] - 1)
    assert stale.status_code == 409 and state(api, code)["move"] == st["move"]
    st = post(api, f"/api/rooms/{code}/move", token=tokens[0], move=st["move"]).json()
    assert st["phase"] == "keep" and len(st["dice"]) == 5 and st["rolls_left"] == 2
    hint = post(api, f"/api/rooms/{code}/hint", token=tokens[0]).json()
    assert hint["objective"] == "win" and hint["method"] == "pawlewicz-heuristic"
    assert hint["exact"] is False and {"p_win", "expected_final"} <= set(hint["options"][0])
    assert post(api, f"/api/rooms/{code}/hint", token=tokens[1]).status_code == 403
    # keep the dice the hint says (or all), the others rolled; then the host undoes it
    keep = hint["options"][0].get("keep", st["dice"])
    moved = post(api, f"/api/rooms/{code}/move", token=tokens[0], move=st["move"], keep=keep)
    assert moved.status_code == 200, moved.text
    assert moved.json()["rolls_left"] == 1
    undone = post(api, f"/api/rooms/{code}/undo", token=host).json()
    assert undone["rolls_left"] == 2 and undone["dice"] == st["dice"]
    # a box by name: its points on Ann's sheet, the turn Bob's, to beat Ann's total
    st = undone
    box = st["boxes"][0]
    moved = post(api, f"/api/rooms/{code}/move", token=tokens[0], move=st["move"], box=box["box"])
    st = moved.json()
    ann = st["seats"][0]
    assert [b["points"] for b in ann["sheet"] if b["box"] == box["box"]] == [box["points"]]
    assert st["turn"] == 1 and st["to_beat"] == ann["score"] == box["points"]
    while not st["finished"]:
        k = st["turn"]
        body = {"token": tokens[k], "move": st["move"]}
        if st["phase"] != "roll":
            body["best"] = True
        r = post(api, f"/api/rooms/{code}/move", **body)
        assert r.status_code == 200, r.text
        st = person_turn(api, code)
    totals = [x["score"] for x in st["seats"]]
    assert all(len([b for b in x["sheet"] if b["points"] is not None]) == 3 for x in st["seats"])
    assert st["winners"] == [x["name"] for x in st["seats"] if x["score"] == max(totals)]
    late = post(api, f"/api/rooms/{code}/move", token=tokens[0], move=st["move"])
    assert late.status_code == 409
    log = api.get(f"/api/rooms/{code}/log")
    assert "yahtzee-room" in log.headers["content-disposition"]
    lines = [json.loads(x) for x in log.text.splitlines()]
    assert {x["player"] for x in lines} == {"Ann", "Bob", "computer 1"}
    assert all(len(x["opponents"]) == 2 for x in lines)


def test_yahtzee_rooms_refuse_what_they_cannot_play(api):
    r = post(api, "/api/rooms", rules=RULES, seats=["person"] * 5)
    assert r.status_code == 400 and "2 to 4" in r.json()["error"]
    r = post(api, "/api/rooms", rules=RULES, seats=["person", "computer"], target=300)
    assert r.status_code == 400 and "target" in r.json()["error"]
    r = post(api, "/api/rooms", rules=RULES, seats=["person", "computer"], hints="best")
    assert r.status_code == 400
    code = post(api, "/api/rooms", rules=RULES, seats=["person", "person"]).json()["code"]
    host = None  # (another room: its host token)
    assert post(api, f"/api/rooms/{code}/start", token="x" * 32).status_code == 403
    del host


# --- two phones in a Yahtzee room (Chromium) ---------------------------------------------------
@pytest.mark.slow
def test_two_phones_play_a_yahtzee_room(tmp_path_factory):
    """Two 390 x 844 touch phones: the host opens a Yahtzee room (two people and a
    computer) from the play set-up, both take seats, the host starts; each phone plays its
    turns by taps (a hint asked on the host's phone), the computer by itself; every phone
    ends on the winner and its person's review.  Screenshots in yahtzee-room/ of the
    screenshots' folder (conftest: the session's own, or $DICESOLVER_SCREENS)."""
    import os

    sync_api = pytest.importorskip("playwright.sync_api")
    from .test_web_browser import PHONE, screens, submit
    from .webserver import ARGS, CHROMIUM, running, skip_without_chromium, snap

    skip_without_chromium()
    shots = screens() / "yahtzee-room"
    shots.mkdir(exist_ok=True)
    tables = str(tmp_path_factory.mktemp("yroom-browser") / "tables")
    ds.yahtzee_advise(PLAIN3, [1, 1, 1, 1, 1], tables=tables)
    ds.yahtzee_value(PLAIN3, score=0, beat=1, tables=tables)
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(PRESETS, RULES, PLAIN3)
        mp.setenv("DICESOLVER_ROOM_PACE", "0.1")
        from dicesolver.web.pages import yahtzee_presets

        yahtzee_presets.cache_clear()
        with running(tables) as base, sync_api.sync_playwright() as p:
            b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ann, bob = (b.new_context(**PHONE).new_page() for _ in range(2))
            ann.goto(base + "/play/setup?mode=yahtzee")
            ann.select_option("#yahtzee_rules", RULES)
            ann.locator("input[name=players][value='3']").check()
            ann.locator("input[name=people][value='2']").check()
            ann.get_by_role("button", name="Open as a room").tap()
            ann.wait_for_url(re.compile(r"/r/[A-Z0-9]{6}$"))
            code = ann.url.rsplit("/", 1)[1]
            ann.fill("#name", "Ann")
            submit(ann, "Take a seat")
            ann.get_by_role("button", name="Start the game").wait_for()
            snap(ann, f"{shots}/1-host-waiting.png")
            bob.goto(f"{base}/join?code={code}")
            bob.fill("#name", "Bob")
            with bob.expect_navigation():
                bob.get_by_role("button", name=re.compile("Join|Take")).first.tap()
            bob.wait_for_url(re.compile(f"/r/{code}$"))
            room = f"{base}/r/{code}"

            def fresh(page):
                """The room's page drawn anew (its script may be reloading it just now)."""
                for _ in range(5):
                    try:
                        page.goto(room, wait_until="load")
                        return
                    except sync_api.Error:
                        time.sleep(0.2)

            fresh(ann)
            ann.get_by_role("button", name="Start the game").tap()
            asked = False
            for _ in range(200):
                fresh(bob)
                fresh(ann)
                if ann.locator(".play-end").count() and bob.locator(".play-end, .result").count():
                    break
                for page, name in ((ann, "Ann"), (bob, "Bob")):
                    roll = page.get_by_role("button", name=re.compile(r"^Roll \d"))
                    if roll.count():
                        roll.tap()
                        page.wait_for_load_state()
                    elif page.get_by_role("button", name="Best move").count():
                        if name == "Ann" and not asked:
                            page.get_by_role("button", name="Hint").tap()
                            page.wait_for_selector(".hint-box")
                            snap(page, f"{shots}/2-ann-hint.png")
                            fresh(bob)
                            snap(bob, f"{shots}/3-bob-waiting.png")
                            asked = True
                        page.get_by_role("button", name="Best move").tap()
                        page.wait_for_load_state()
                time.sleep(0.1)
            snap(ann, f"{shots}/4-ann-end.png")
            snap(bob, f"{shots}/5-bob-end.png")
            assert asked
            for page in (ann, bob):
                text = page.inner_text("main")
                assert re.search(r"(wins|tie|You win!)", text), text[:2000]
                assert "Score sheets" in text and "Total" in text
            assert "Review of Ann" in ann.inner_text("main") or "review" in ann.inner_text("main")
            b.close()
        yahtzee_presets.cache_clear()
    assert sorted(os.listdir(shots))[:1] == ["1-host-waiting.png"]
