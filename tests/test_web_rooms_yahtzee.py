"""Yahtzee rooms' remaining parts (issue 38), in process (Starlette's TestClient) on the
three-box rule file PLAIN3 put among the Yahtzee presets for this module (its tables build
in well under a second): a Yahtzee room opened from the /rooms form (a form posted with its
CSRF token, as a browser does) and joined by code and name; companion seats whose typed
dice are played, the last typed roll corrected by its player before the next move; the
host handing a person's seat to a computer mid-game, the computer then playing it; a
rematch of a finished room keeping its seats (and its hints)."""

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
    from dicesolver.web.pages import yahtzee_presets

    folder = tmp_path_factory.mktemp("yrooms-more")
    tables = str(folder / "tables")
    ds.yahtzee_advise(PLAIN3, [1, 1, 1, 1, 1], tables=tables)
    ds.yahtzee_value(PLAIN3, score=0, beat=1, tables=tables)  # (the beat table: P(win))
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(PRESETS, RULES, PLAIN3)
        mp.setenv("DICESOLVER_ROOM_PACE", "0")
        yahtzee_presets.cache_clear()  # (the pages' list of presets: PLAIN3 among them)
        app = create_app(tables, state=str(folder / "state"))
        with TestClient(app) as c:
            yield c
        app.state.web.jobs.shutdown()
        yahtzee_presets.cache_clear()


def phone(api, cookies=None):
    """Another phone (its own cookies) on the same server."""
    return TestClient(api.app, cookies=cookies or {})


def post(api, path, **body):
    return api.post(path, content=json.dumps(body), headers={"content-type": "application/json"})


def state(api, code):
    r = api.get(f"/api/rooms/{code}")
    assert r.status_code == 200, r.text
    return r.json()


def ready(api, seats, names=("Ann", "Bob"), **more):
    """A started Yahtzee room: its code, the host's token, each person's token by seat."""
    r = post(api, "/api/rooms", rules=RULES, seats=list(seats), **more)
    assert r.status_code == 200, r.text
    code, host = r.json()["code"], r.json()["host"]
    tokens = {}
    for name in names:
        got = post(api, f"/api/rooms/{code}/join", name=name).json()
        tokens[got["seat"]] = got["token"]
    assert post(api, f"/api/rooms/{code}/start", token=host).status_code == 200
    return code, host, tokens


def settled(api, code, seconds=120):
    """The state once no computer is to move (they play by themselves, in the background;
    the time limit only catches a hang)."""
    deadline = time.monotonic() + seconds
    while True:
        st = state(api, code)
        if st["finished"] or not st["seats"][st["turn"]]["computer"]:
            return st
        assert time.monotonic() < deadline, st
        time.sleep(0.02)


def best(api, code, token, st):
    """The seat's next move by the API's best move (a roll at a turn's start)."""
    body = {"token": token, "move": st["move"]} | ({"best": True} if st["phase"] != "roll" else {})
    r = post(api, f"/api/rooms/{code}/move", **body)
    assert r.status_code == 200, r.text
    return r.json()


def page_token(text):
    return re.search(r'name="csrf" value="([\w-]+)"', text).group(1)


def form_post(client, path, to=None, **data):
    """A form of the page at `path` posted (to `to`, or the page's own path) with the
    page's CSRF token, as a browser submits it."""
    page = client.get(path)
    assert page.status_code == 200, page.text[:500]
    data["csrf"] = page_token(page.text)
    return client.post(to or path.split("?")[0], data=data, follow_redirects=False)


# --- the /rooms form ------------------------------------------------------------------------
def test_a_yahtzee_room_is_opened_from_the_rooms_form_and_joined(api):
    host = phone(api)
    home = host.get("/rooms")
    assert home.status_code == 200 and 'label="Yahtzee family' in home.text
    assert f'<option value="{RULES}"' in home.text and '<option value="farkle"' in home.text
    no_token = host.post("/rooms", data={"rules": RULES, "people": "2"}, follow_redirects=False)
    assert no_token.status_code == 403
    r = form_post(host, "/rooms", rules=RULES, people="2", computers="1", hints="expected")
    assert r.status_code == 303, r.text[:500]
    code = re.fullmatch(r"/r/([A-Z0-9]{6})", r.headers["location"]).group(1)
    assert host.cookies.get(f"dicesolver_host_{code}")
    st = state(api, code)
    assert st["game"] == "yahtzee" and st["rules"] == RULES and st["hints"] == "expected"
    assert [x["kind"] for x in st["seats"]] == ["person", "person", "computer"]
    ann, bob = phone(api), phone(api)
    for client, name in ((ann, "Ann"), (bob, "Bob")):
        joined = form_post(client, f"/join?code={code}", code=code, name=name)
        assert joined.status_code == 303 and joined.headers["location"] == f"/r/{code}"
    assert [x["name"] for x in state(api, code)["seats"]][:2] == ["Ann", "Bob"]
    started = form_post(host, f"/r/{code}", do="start", at="0")
    assert started.status_code == 303 and state(api, code)["phase"] == "roll"
    mine = ann.get(f"/r/{code}").text
    assert "Your turn" in mine and "Roll 5 dice" in mine and "hints by the expected score" in mine
    assert "Roll 5 dice" not in bob.get(f"/r/{code}").text


def test_the_rooms_form_keeps_the_zilch_family_and_refuses_a_yahtzee_room_of_five(api):
    host = phone(api)
    r = form_post(host, "/rooms", rules="farkle", people="2", computers="0", target="500")
    assert r.status_code == 303
    st = state(api, r.headers["location"].rsplit("/", 1)[1])
    assert st["game"] == "zilch" and st["rules"] == "farkle" and st["target"] == 500
    too_many = form_post(host, "/rooms", rules=RULES, people="3", computers="2")
    assert too_many.status_code == 400 and "2 to 4" in too_many.text
    real = form_post(host, "/rooms", rules=RULES, people="2", computers="0", real_dice="1")
    st = state(api, real.headers["location"].rsplit("/", 1)[1])
    assert st["game"] == "yahtzee" and [x["kind"] for x in st["seats"]] == ["companion"] * 2
    assert st["hints"] == "win"  # (no hints chosen: by P(win), its beat table stored)


def test_the_play_set_up_still_opens_a_yahtzee_room(api):
    host = phone(api)
    setup = "/play/setup?mode=yahtzee"
    fields = {"mode": "yahtzee", "yahtzee_rules": RULES, "players": "3", "people": "2"}
    r = form_post(host, setup, "/rooms", **fields)
    assert r.status_code == 303, r.text[:500]
    st = state(api, r.headers["location"].rsplit("/", 1)[1])
    assert st["game"] == "yahtzee" and st["rules"] == RULES
    assert [x["kind"] for x in st["seats"]] == ["person", "person", "computer"]


# --- companion seats: the typed dice played, the last roll corrected --------------------------
def test_a_companion_seat_plays_the_typed_dice_and_corrects_its_last_roll(api):
    code, _, tokens = ready(api, ["companion", "companion"])
    ann = phone(api, {f"dicesolver_room_{code}": tokens[0]})
    page = ann.get(f"/r/{code}").text
    assert "Enter the roll" in page and "Roll 5 dice" not in page
    assert form_post(ann, f"/r/{code}", do="roll", dice="1 2 3 4 5", at="0").status_code == 303
    st = state(api, code)
    assert sorted(st["dice"]) == [1, 2, 3, 4, 5] and st["phase"] == "keep"
    kept = post(api, f"/api/rooms/{code}/move", token=tokens[0], move=st["move"], keep=[5])
    assert kept.status_code == 200 and kept.json()["phase"] == "roll"
    assert kept.json()["dice"] == [5] and kept.json()["dice_to_roll"] == 4
    typo = post(api, f"/api/rooms/{code}/move", token=tokens[0], move=2, dice="6 6 6 6")
    assert sorted(typo.json()["dice"]) == [5, 6, 6, 6, 6]
    # the last typed roll corrected: not by another seat; by its player, from the page
    assert post(api, f"/api/rooms/{code}/undo", token=tokens[1]).status_code == 403
    assert "Correct my last roll (undo)" in ann.get(f"/r/{code}").text
    assert form_post(ann, f"/r/{code}", do="undo", at="3").status_code == 303
    st = state(api, code)
    assert st["phase"] == "roll" and st["dice"] == [5] and st["events"][-1]["kind"] == "undo"
    st = post(api, f"/api/rooms/{code}/move", token=tokens[0], move=st["move"], dice=[5] * 4)
    st = st.json()
    assert st["dice"] == [5] * 5  # (the corrected roll is the one played)
    st = post(api, f"/api/rooms/{code}/move", token=tokens[0], move=st["move"], box="chance")
    assert st.json()["seats"][0]["score"] == 25 and st.json()["turn"] == 1
    bob = post(api, f"/api/rooms/{code}/move", token=tokens[1], move=st.json()["move"], dice="1")
    assert bob.status_code == 400  # (five dice typed, not one: nothing moves)
    assert state(api, code)["move"] == st.json()["move"]
    typed = [2, 2, 3, 3, 4]
    bob = post(api, f"/api/rooms/{code}/move", token=tokens[1], move=st.json()["move"], dice=typed)
    assert sorted(bob.json()["dice"]) == typed
    # after the next seat's move, Ann's roll is no longer hers to correct
    assert post(api, f"/api/rooms/{code}/undo", token=tokens[0]).status_code == 403


# --- a seat handed to a computer mid-game ----------------------------------------------------
@pytest.mark.slow  # (a whole game with the computer's beat tables: 16 s cold)
def test_the_host_hands_a_yahtzee_person_seat_to_a_computer_mid_game(api):
    code, host, tokens = ready(api, ["person", "person"])
    st = state(api, code)
    while st["turn"] == 0:  # (Ann's first turn, by the best moves)
        st = best(api, code, tokens[0], st)
    st = best(api, code, tokens[1], st)  # (Bob rolls: his turn under way)
    assert st["turn"] == 1 and st["phase"] == "keep"
    assert post(api, f"/api/rooms/{code}/hand", token=tokens[0], seat=1).status_code == 403
    host_phone = phone(api, {f"dicesolver_host_{code}": host})
    assert "Hand Bob's seat to a computer" in host_phone.get(f"/r/{code}").text
    asked = f"/r/{code}/confirm?what=hand&seat=1"
    assert "Hand Bob's seat to a computer?" in host_phone.get(asked).text
    assert form_post(host_phone, asked, f"/r/{code}", do="hand", seat="1").status_code == 303
    st = settled(api, code)  # (the computer finishes Bob's turn by itself)
    assert st["seats"][1]["computer"] and st["seats"][1]["name"] == "Bob"
    assert st["turn"] == 0 and any(e["kind"] == "hand" for e in st["events"])
    assert len([b for b in st["seats"][1]["sheet"] if b["points"] is not None]) == 1
    late = post(api, f"/api/rooms/{code}/move", token=tokens[1], move=st["move"])
    assert late.status_code == 403  # (Bob's token moves no seat's turn now)
    while not st["finished"]:  # (Ann by the best moves; Bob's seat by the computer)
        best(api, code, tokens[0], st)
        st = settled(api, code)
    assert st["finished"] and all(x["finished"] for x in st["seats"])
    assert all(b["points"] is not None for b in st["seats"][1]["sheet"])


# --- a rematch ---------------------------------------------------------------------------------
def test_a_rematch_of_a_finished_yahtzee_room_keeps_the_seats(api):
    code, host, tokens = ready(api, ["person", "computer"], names=("Ann",), hints="expected")
    st = state(api, code)
    while not st["finished"]:
        best(api, code, tokens[0], st)
        st = settled(api, code)
    assert st["finished"] and st["winners"]
    assert post(api, f"/api/rooms/{code}/rematch", token=tokens[0]).status_code == 403
    host_phone = phone(api, {f"dicesolver_host_{code}": host, f"dicesolver_room_{code}": tokens[0]})
    assert "Rematch" in host_phone.get(f"/r/{code}").text
    r = form_post(host_phone, f"/r/{code}", do="rematch", at=str(st["move"]))
    assert r.status_code == 303 and r.headers["location"] == f"/r/{code}/next"
    new = state(api, code)["next"]
    moved = host_phone.get(f"/r/{code}/next", follow_redirects=False)
    assert moved.headers["location"] == f"/r/{new}"
    again = state(api, new)
    assert again["started"] and again["game"] == "yahtzee" and again["rules"] == RULES
    assert [(x["name"], x["kind"]) for x in again["seats"]] == [
        ("Ann", "person"),
        ("computer 1", "computer"),
    ]
    assert again["hints"] == "expected"  # (the room's hints, not the default by P(win))
    assert again["move"] == 0 and all(x["score"] == 0 for x in again["seats"])
    ok = post(api, f"/api/rooms/{new}/move", token=tokens[0], move=0)  # (Ann's token, her seat)
    assert ok.status_code == 200 and len(ok.json()["dice"]) == 5
    assert post(api, f"/api/rooms/{new}/end", token=host).status_code == 200  # (the same host)
