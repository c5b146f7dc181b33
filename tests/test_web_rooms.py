"""Issue 38's game rooms through their JSON API, against a real `zilch serve` process over
its own tables and state folders (SQLite on real files): create, join, start, state,
moves (kept dice, roll or bank, the best move), stale and repeated moves (409), another
seat's token (403), hints kept private, the host's undo recorded, the live stream
delivering a move to a second client, the decision log that `zilch review` reads, the
rooms listed by `zilch serve --rooms`; and the bounds (rooms, joins) on the Rooms
themselves.  A kill -9 of the server and its restart: every room at its last move."""

import json
import os
import queue
import re
import signal
import subprocess
import threading
import time

import httpx2 as httpx
import pytest

import dicesolver as ds

from .webserver import free_port, server_process, zilch_command

TARGET = 500  # farkle to 500: a short game; its two-player table built in about a second
JSON = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    folder = str(tmp_path_factory.getbasetemp() / "tables")
    ds.game("farkle", target=TARGET, tables=folder)
    return folder


def serve_cmd(tables, state, port):
    return [*zilch_command(), "serve", "--port", str(port), "--tables", tables, "--state", state]


@pytest.fixture(scope="module")
def live(tables, tmp_path_factory):
    """A `zilch serve` process with its own state folder; the computers play at once."""
    state = str(tmp_path_factory.mktemp("state"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {"DICESOLVER_ROOM_PACE": "0"}
    with server_process(serve_cmd(tables, state, port), url, env) as served:
        yield url, state, served


@pytest.fixture
def api(live):
    with httpx.Client(base_url=live[0], timeout=30) as c:
        yield c


def new_room(api, seats=("person", "person"), **more):
    r = api.post(
        "/api/rooms", json={"rules": "farkle", "target": TARGET, "seats": list(seats), **more}
    )
    assert r.status_code == 200, r.text
    return r.json()


def ready(api, seats=("person", "person"), names=("Ann", "Bob"), **more):
    """A started room: its code, the host's token, each person's token by seat."""
    room = new_room(api, seats, **more)
    tokens = {}
    for name in names:
        got = api.post(f"/api/rooms/{room['code']}/join", json={"name": name}).json()
        tokens[got["seat"]] = got["token"]
    r = api.post(f"/api/rooms/{room['code']}/start", json={"token": room["host"]})
    assert r.status_code == 200, r.text
    return room["code"], room["host"], tokens


def state(api, code):
    r = api.get(f"/api/rooms/{code}")
    assert r.status_code == 200, r.text
    return r.json()


def settle(api, code, tries=200):
    """The state once no computer is to move (they play by themselves)."""
    for _ in range(tries):
        s = state(api, code)
        if s["finished"] or not s["seats"][s["turn"]].get("computer"):
            return s
        time.sleep(0.05)
    raise AssertionError("the computers did not finish their turn")


def move(api, code, body):
    return api.post(f"/api/rooms/{code}/move", json=body)


def test_create_join_start_and_the_state_fields(api):
    room = new_room(api, ["person", "computer", "person"])
    code = room["code"]
    assert len(code) == 6 and code.isalnum() and code.isupper() and len(room["host"]) >= 30
    s = state(api, code)
    assert s["move"] == 0 and s["turn"] is None and not s["started"] and not s["finished"]
    assert [x["kind"] for x in s["seats"]] == ["person", "person", "computer"]  # (people first)
    assert api.post(f"/api/rooms/{code}/start", json={"token": room["host"]}).status_code == 409
    a = api.post(f"/api/rooms/{code}/join", json={"name": "Ann"}).json()
    assert a["seat"] == 0 and len(a["token"]) >= 30
    assert api.post(f"/api/rooms/{code}/join", json={"name": "ann"}).status_code == 409
    b = api.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()
    assert b["seat"] == 1
    assert api.post(f"/api/rooms/{code}/join", json={"name": "Cy"}).status_code == 409  # full
    assert api.post(f"/api/rooms/{code}/start", json={"token": a["token"]}).status_code == 403
    s = api.post(f"/api/rooms/{code}/start", json={"token": room["host"]}).json()
    assert s["started"] and s["turn"] == 0 and s["move"] == 0 and s["scores"] == [0, 0, 0]
    assert s["phase"] == "roll" and s["dice"] == [] and s["dice_to_roll"] == 6
    assert [x["name"] for x in s["seats"]] == ["Ann", "Bob", "computer 1"]
    assert api.post(f"/api/rooms/{code}/start", json={"token": room["host"]}).status_code == 409


def test_refusals_of_bad_input(api, live):
    bad = [
        {"rules": "no-such-rules", "seats": ["person", "person"]},
        {"rules": "farkle", "seats": ["person"]},
        {"rules": "farkle", "seats": ["person", "dragon"]},
        {"rules": "farkle", "seats": ["computer", "computer"]},
        {"rules": "farkle", "target": "lots", "seats": ["person", "person"]},
        {"rules": "farkle", "seats": ["person", "person"], "extra": 1},
    ]
    for body in bad:
        r = api.post("/api/rooms", json=body)
        assert r.status_code == 400 and "error" in r.json(), (body, r.text)
    form = api.post("/api/rooms", data={"rules": "farkle"})
    assert form.status_code == 415
    other = api.post(
        "/api/rooms",
        json={"seats": ["person", "person"]},
        headers={"origin": "http://evil.example"},
    )
    assert other.status_code == 403
    assert api.get("/api/rooms/ZZZZZZ").status_code == 404
    assert api.get("/api/rooms/not-a-code").status_code == 404


def test_moves_stale_repeated_other_seats_and_the_best_move(api):
    code, host, tokens = ready(api)
    s = state(api, code)
    assert move(api, code, {"token": tokens[1], "move": 0, "then": "roll"}).status_code == 403
    assert move(api, code, {"token": host, "move": 0, "then": "roll"}).status_code == 403
    assert move(api, code, {"token": "forged-token-xyz", "move": 0}).status_code == 403
    r = move(api, code, {"token": tokens[0], "move": 0, "then": "roll"})
    assert r.status_code == 200, r.text
    s = r.json()
    assert s["move"] == 1 and [e["kind"] for e in s["events"]][0] == "roll"
    again = move(api, code, {"token": tokens[0], "move": 0, "then": "roll"})  # (repeated)
    assert again.status_code == 409
    assert move(api, code, {"token": tokens[0], "move": 7, "best": True}).status_code == 409
    if s["phase"] == "keep":
        bad = move(api, code, {"token": tokens[0], "move": 1, "keep": [9], "then": "roll"})
        assert bad.status_code == 400 and state(api, code)["move"] == 1
        keep = s["choices"][0]
        r = move(api, code, {"token": tokens[0], "move": 1, "keep": keep, "then": "bank"})
        assert r.status_code in (200, 400), r.text  # (a bank below the minimum: refused)
    s = state(api, code)
    r = move(api, code, {"token": tokens[s["turn"]], "move": s["move"], "best": True})
    assert r.status_code == 200 and r.json()["move"] == s["move"] + 1


def play_out(api, code, tokens, most=500):
    for _ in range(most):
        s = settle(api, code)
        if s["finished"]:
            return s
        r = move(api, code, {"token": tokens[s["turn"]], "move": s["move"], "best": True})
        assert r.status_code == 200, r.text
    raise AssertionError("the game did not end")


def test_a_game_against_a_computer_to_the_end_and_its_log(api, tmp_path):
    code, _, tokens = ready(api, ("person", "computer"), ("Ann",))
    s = play_out(api, code, tokens)
    assert s["finished"] and s["winners"] and max(s["scores"]) >= TARGET
    assert s["seats"][1]["computer"] and s["seats"][1]["name"] == "computer 1"
    r = api.get(f"/api/rooms/{code}/log")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    lines = [json.loads(x) for x in r.text.splitlines()]
    assert {x["player"] for x in lines} == {"Ann", "computer 1"}
    path = tmp_path / "room.jsonl"
    path.write_text(r.text)
    got = ds.review(str(path), player="Ann", tables=os.environ["DICESOLVER_TABLES"])
    assert got.to_dict()["decisions"] > 0
    after = move(api, code, {"token": tokens[0], "move": s["move"], "best": True})
    assert after.status_code == 409  # (over)


def test_hints_are_private_and_change_nothing(api):
    code, _, tokens = ready(api)
    move(api, code, {"token": tokens[0], "move": 0, "then": "roll"})
    s = state(api, code)
    turn = tokens[s["turn"]]
    r = api.post(f"/api/rooms/{code}/hint", json={"token": turn})
    assert r.status_code == 200 and r.json()["options"] and r.json()["unit"]
    assert state(api, code)["move"] == s["move"]
    other = tokens[1 - s["turn"]]
    assert api.post(f"/api/rooms/{code}/hint", json={"token": other}).status_code == 403


def test_the_host_undoes_the_last_move_recorded_as_an_undo(api):
    code, host, tokens = ready(api)
    before = state(api, code)
    r = move(api, code, {"token": tokens[0], "move": 0, "then": "roll"})
    assert r.status_code == 200
    assert api.post(f"/api/rooms/{code}/undo", json={"token": tokens[0]}).status_code == 403
    r = api.post(f"/api/rooms/{code}/undo", json={"token": host})
    assert r.status_code == 200, r.text
    s = r.json()
    assert s["move"] == 2 and s["turn"] == before["turn"] and s["phase"] == "roll"
    assert s["scores"] == before["scores"] and s["dice"] == []
    assert s["events"][-1]["kind"] == "undo" and "undone" in s["events"][-1]["text"]
    again = move(api, code, {"token": tokens[0], "move": 2, "then": "roll"}).json()
    assert again["dice"] == r.json()["dice"] or again["move"] == 3  # (the same seeded dice)
    assert api.post(f"/api/rooms/{code}/undo", json={"token": host}).status_code == 200
    assert api.post(f"/api/rooms/{code}/undo", json={"token": host}).status_code == 409


def test_a_companion_room_corrects_a_typed_roll(api):
    code, _, tokens = ready(api, ("companion", "companion"))
    r = move(api, code, {"token": tokens[0], "move": 0, "dice": [2, 3, 4, 6, 6, 1]})
    assert r.status_code == 200 and r.json()["dice"] == [2, 3, 4, 6, 6, 1]
    assert api.post(f"/api/rooms/{code}/undo", json={"token": tokens[1]}).status_code == 403
    r = api.post(f"/api/rooms/{code}/undo", json={"token": tokens[0]})  # (the player's own)
    assert r.status_code == 200 and r.json()["phase"] == "roll"
    r = move(api, code, {"token": tokens[0], "move": 2, "dice": "1 1 1 5 2 3"})
    assert r.status_code == 200 and r.json()["dice"] == [1, 1, 1, 5, 2, 3]


def test_a_move_repeated_after_its_zilch_passed_the_turn_is_stale_not_forbidden(api):
    """Issue 38: "a stale or repeated move 409" also once the turn has passed (a zilch
    typed by a companion seat): the seat's own token, the old move number."""
    code, _, tokens = ready(api, ("companion", "companion"))
    r = move(api, code, {"token": tokens[0], "move": 0, "dice": [2, 3, 4, 6, 6, 2]})
    assert r.status_code == 200 and r.json()["turn"] == 1, r.text  # (a zilch: Bob's turn)
    again = move(api, code, {"token": tokens[0], "move": 0, "dice": [2, 3, 4, 6, 6, 2]})
    assert again.status_code == 409, again.text
    assert move(api, code, {"token": tokens[0], "move": 1, "dice": [1] * 6}).status_code == 403
    assert move(api, code, {"token": "forged-token-xyz", "move": 0}).status_code == 403


def listener(live, code, got, stop):
    """Each event's kind of the room's stream, until stop (or the server's end)."""
    try:
        with httpx.Client(base_url=live[0], timeout=60) as c:
            with c.stream("GET", f"/api/rooms/{code}/events") as r:
                for line in r.iter_lines():
                    if line.startswith("data: "):
                        got.put(json.loads(line[6:])["kind"])
                    if stop.is_set():
                        return
    except httpx.HTTPError:
        return


def test_the_stream_delivers_a_move_to_a_second_client(api, live):
    code, _, tokens = ready(api)
    other_code, _, _ = ready(api)
    got: queue.Queue = queue.Queue()
    elsewhere: queue.Queue = queue.Queue()
    stop = threading.Event()
    threading.Thread(target=listener, args=(live, other_code, elsewhere, stop), daemon=True).start()
    assert elsewhere.get(timeout=10) == "state"

    def listen():
        with httpx.Client(base_url=live[0], timeout=30) as c:
            with c.stream("GET", f"/api/rooms/{code}/events") as r:
                got.put(r.headers["content-type"])
                kind = None
                for line in r.iter_lines():
                    if line.startswith("event: "):
                        kind = line[7:]
                    elif line.startswith("data: "):
                        got.put((kind, json.loads(line[6:])))
                        if kind == "move":
                            return

    t = threading.Thread(target=listen, daemon=True)
    t.start()
    assert got.get(timeout=10).startswith("text/event-stream")
    first = got.get(timeout=10)
    assert first[0] == "state" and first[1]["state"]["move"] == 0
    t0 = time.perf_counter()
    move(api, code, {"token": tokens[0], "move": 0, "then": "roll"})
    kind, msg = got.get(timeout=10)
    assert kind == "move" and msg["state"]["move"] == 1 and msg["events"][0]["kind"] == "roll"
    assert time.perf_counter() - t0 < 2
    t.join(5)
    with pytest.raises(queue.Empty):  # (the other room's stream never sees this room's move)
        elsewhere.get(timeout=1)
    stop.set()


def test_end_and_rematch_keep_the_seats(api):
    code, host, tokens = ready(api)
    assert api.post(f"/api/rooms/{code}/end", json={"token": tokens[0]}).status_code == 403
    s = api.post(f"/api/rooms/{code}/end", json={"token": host}).json()
    assert s["finished"] and s["left"]
    r = api.post(f"/api/rooms/{code}/rematch", json={"token": host})
    assert r.status_code == 200
    new = r.json()["code"]
    s = state(api, new)
    assert s["started"] and [x["name"] for x in s["seats"]] == ["Ann", "Bob"]
    assert state(api, code)["next"] == new
    ok = move(api, new, {"token": tokens[0], "move": 0, "then": "roll"})
    assert ok.status_code == 200  # (the same token, the same seat)


def test_zilch_serve_rooms_lists_them(live, api, tables):
    _, state_dir, _ = live
    new_room(api)  # (its own room: under xdist this worker's server may hold none yet)
    out = subprocess.run(
        [*zilch_command(), "serve", "--rooms", "--tables", tables, "--state", state_dir],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "room(s) in" in out.stdout and "farkle to 500" in out.stdout


# --- the bounds, on the Rooms themselves (real SQLite files) ---------------------------------
def hub(tables, folder, **limits):
    from dicesolver.web.app_state import Web
    from dicesolver.web.room_hub import Rooms
    from dicesolver.web.rooms import Limits

    return Rooms(Web(tables), folder, Limits(**limits))


def test_rooms_are_bounded_in_number_and_expire(tables, tmp_path):
    from dicesolver.web.rooms import RoomError

    rooms = hub(tables, tmp_path, rooms=2)
    body = {"rules": "farkle", "seats": ["person", "person"]}
    rooms.create(body)
    rooms.create(body)
    with pytest.raises(RoomError) as e:
        rooms.create(body)
    assert e.value.http_status == 503
    assert (tmp_path / "rooms.sqlite").is_file()
    assert rooms.store.db.execute("pragma journal_mode").fetchone()[0] == "wal"
    later = hub(tables, tmp_path, rooms=2, idle_hours=-1)  # (every room idle too long)
    code, _ = later.create(body)
    assert [r["code"] for r in later.store.listing()] == [code]


def test_joins_are_rate_limited_per_client(tables, tmp_path):
    from dicesolver.web.rooms import RoomError

    rooms = hub(tables, tmp_path, joins_per_minute=10)
    statuses = []
    for i in range(1000):
        try:
            rooms.join("ABCDEF", f"p{i}", "10.0.0.9")
            statuses.append(200)
        except RoomError as e:
            statuses.append(e.http_status)
    assert statuses.count(404) <= 10 and statuses.count(429) >= 980
    code, _ = rooms.create({"rules": "farkle", "seats": ["person", "person"]})
    assert rooms.join(code, "Ann", "10.0.0.10")[0] == 0  # (another client)


def test_a_move_is_on_disk_before_it_is_shown(tables, tmp_path):
    rooms = hub(tables, tmp_path)
    code, host = rooms.create({"rules": "farkle", "seats": ["person", "person"], "seed": 5})
    seat, token = rooms.join(code, "Ann", None)
    rooms.join(code, "Bob", None)
    rooms.start(code, host)
    room, msg = rooms.move(code, {"token": token, "move": 0, "then": "roll"})
    other = hub(tables, tmp_path)  # (another process's view: the file alone)
    again = other.get(code)
    assert other.summary(again)["dice"] == msg["state"]["dice"] and again.version == 1


# --- kill -9 and a restart (about 2 s: the quick tier) ---------------------------------------
def test_kill_9_and_a_restart_resume_every_room(tables, tmp_path):
    state_dir, port = str(tmp_path / "state"), free_port()
    url = f"http://127.0.0.1:{port}"
    env = {"DICESOLVER_ROOM_PACE": "0"}
    with server_process(serve_cmd(tables, state_dir, port), url, env) as served:
        c = httpx.Client(base_url=url, timeout=30)
        rooms = [ready(c), ready(c, ("person", "computer"), ("Cy",))]
        for code, _, tokens in rooms:
            for _ in range(3):
                s = settle(c, code)
                if s["finished"]:  # (a short game may end within three moves)
                    break
                move(c, code, {"token": tokens[s["turn"]], "move": s["move"], "best": True})
        before = [settle(c, code) for code, _, _ in rooms]
        os.kill(served.proc.pid, signal.SIGKILL)
        served.proc.wait(10)
    with server_process(serve_cmd(tables, state_dir, port), url, env):
        c = httpx.Client(base_url=url, timeout=30)
        for (code, _, tokens), was in zip(rooms, before, strict=True):
            now = state(c, code)
            for key in ("move", "turn", "scores", "dice", "kept", "phase", "finished"):
                assert now[key] == was[key], (key, now[key], was[key])
            if not now["finished"]:
                r = move(c, code, {"token": tokens[now["turn"]], "move": now["move"], "best": True})
                assert r.status_code == 200
        play_out(c, rooms[1][0], rooms[1][2])


def test_hostile_tokens_rooms_and_origins(api, live):
    a_code, a_host, a_tokens = ready(api)
    b_code, b_host, b_tokens = ready(api)
    for token in (a_tokens[0], a_host, "x" * 64, "", None, 5, ["list"]):
        r = move(api, b_code, {"token": token, "move": 0, "then": "roll"})
        assert r.status_code == 403, (token, r.text)
    assert api.post(f"/api/rooms/{b_code}/undo", json={"token": a_host}).status_code in (403, 409)
    assert api.post(f"/api/rooms/{b_code}/end", json={"token": a_host}).status_code == 403
    cross = api.post(
        f"/api/rooms/{b_code}/move",
        json={"token": b_tokens[0], "move": 0, "then": "roll"},
        headers={"origin": "http://evil.example"},
    )
    assert cross.status_code == 403
    plain = api.post(
        f"/api/rooms/{b_code}/move",
        content=json.dumps({"token": b_tokens[0], "move": 0, "then": "roll"}),
        headers={"content-type": "text/plain"},
    )
    assert plain.status_code == 415
    # the page's form without this browser's CSRF token: refused, nothing moves
    with phone(live, {f"dicesolver_room_{b_code}": b_tokens[0]}) as p:
        assert p.post(f"/r/{b_code}", data={"do": "roll", "at": "0"}).status_code == 403
    assert state(api, b_code)["move"] == 0
    for body in ({"token": b_tokens[0], "move": True}, {"token": b_tokens[0], "move": "0"}):
        assert move(api, b_code, body).status_code == 400
    assert move(api, b_code, {"token": b_tokens[0], "move": 0, "keep": "x"}).status_code in (
        400,
        200,
    )


def phone(live, cookies):
    return httpx.Client(base_url=live[0], timeout=30, cookies=cookies)


def test_the_pages_of_a_room(api, live):
    code, host, tokens = ready(api)
    home = api.get("/rooms")
    assert home.status_code == 200 and "Open the room" in home.text
    assert "Join" in api.get(f"/join?code={code}").text
    with phone(live, {f"dicesolver_room_{code}": tokens[0]}) as p:
        mine = p.get(f"/r/{code}")
    assert mine.status_code == 200 and "Your turn" in mine.text and "Roll 6 dice" in mine.text
    with phone(live, {f"dicesolver_room_{code}": tokens[1]}) as p:
        other = p.get(f"/r/{code}")
    assert "Ann&#39;s turn" in other.text and "Roll 6 dice" not in other.text
    assert 'src="/static/room.js"' in other.text and "Refresh" in other.text
    confirm = api.get(f"/r/{code}/confirm?what=end")
    assert "End the game?" in confirm.text and "No, back to the game" in confirm.text
    assert api.get("/r/NOSUCH").status_code == 404


def test_the_host_hands_a_seat_to_a_computer(api):
    code, host, tokens = ready(api, ("person", "person", "computer"), ("Ann", "Bob"))
    hand = {"token": tokens[0], "seat": 1}
    assert api.post(f"/api/rooms/{code}/hand", json=hand).status_code == 403
    r = api.post(f"/api/rooms/{code}/hand", json={"token": host, "seat": 1})
    assert r.status_code == 200 and r.json()["seats"][1]["computer"]
    assert r.json()["events"][-1]["kind"] == "hand"
    assert api.post(f"/api/rooms/{code}/hand", json={"token": host, "seat": 1}).status_code == 409
    s = play_out(api, code, {0: tokens[0]})  # (Bob's seat played by the computer now)
    assert s["finished"]
    assert move(api, code, {"token": tokens[1], "move": s["move"], "best": True}).status_code in (
        403,
        409,
    )


def test_a_room_under_a_rule_files_text(api):
    from importlib import resources

    text = (resources.files("dicesolver") / "rulesets" / "farkle.toml").read_text()
    room = api.post(
        "/api/rooms", json={"rules_text": text, "target": 300, "seats": ["person", "computer"]}
    )
    assert room.status_code == 200, room.text
    code, host = room.json()["code"], room.json()["host"]
    token = api.post(f"/api/rooms/{code}/join", json={"name": "Ann"}).json()["token"]
    assert api.post(f"/api/rooms/{code}/start", json={"token": host}).status_code == 200
    s = play_out(api, code, {0: token})
    assert s["finished"] and s["target"] == 300
    bad = api.post("/api/rooms", json={"rules_text": "not = [toml", "seats": ["person", "person"]})
    assert bad.status_code == 400


# --- the host's seats before the start; handing a seat from the host's page -----------------
def seats(api, code, body):
    return api.post(f"/api/rooms/{code}/seats", json=body)


def test_the_host_adds_and_removes_seats_before_the_start(api):
    room = new_room(api, ("person", "computer"))
    code, host = room["code"], room["host"]
    ann = api.post(f"/api/rooms/{code}/join", json={"name": "Ann"}).json()
    r = seats(api, code, {"token": host, "add": "person"})
    assert r.status_code == 200, r.text
    assert [x["kind"] for x in r.json()["seats"]] == ["person", "person", "computer"]
    assert r.json()["events"][-1]["kind"] == "seats" and r.json()["move"] == 1
    kinds = [
        x["kind"] for x in seats(api, code, {"token": host, "add": "computer"}).json()["seats"]
    ]
    assert kinds == ["person", "person", "computer", "computer"]
    assert seats(api, code, {"token": host, "remove": 3}).status_code == 200
    # not the host: 403; beyond 2..6, bad input, a taken seat without "force": 400
    assert seats(api, code, {"token": ann["token"], "add": "person"}).status_code == 403
    assert seats(api, code, {"token": None, "remove": 1}).status_code == 403
    for body in (
        {"add": "dragon"},
        {"remove": 9},
        {"remove": True},
        {},
        {"add": "person", "remove": 1},
        {"remove": 0},  # (Ann's: taken)
        {"add": "person", "extra": 1},
    ):
        assert seats(api, code, {"token": host, **body}).status_code == 400, body
    for _ in range(3):
        assert seats(api, code, {"token": host, "add": "companion"}).status_code == 200
    assert len(state(api, code)["seats"]) == 6
    assert seats(api, code, {"token": host, "add": "computer"}).status_code == 400
    for k in (5, 4, 3, 2):
        assert seats(api, code, {"token": host, "remove": k}).status_code == 200
    two = state(api, code)["seats"]
    assert [x["kind"] for x in two] == ["person", "person"]
    assert seats(api, code, {"token": host, "remove": 1}).status_code == 400  # (2 at least)
    r = seats(api, code, {"token": host, "remove": 0, "force": True})  # (Ann's seat goes)
    assert r.status_code == 400  # (... but then one seat: still refused)
    assert seats(api, code, {"token": host, "add": "computer"}).status_code == 200
    r = seats(api, code, {"token": host, "remove": 0, "force": True})
    assert r.status_code == 200 and not r.json()["seats"][0]["joined"]
    assert move(api, code, {"token": ann["token"], "move": 0, "then": "roll"}).status_code in (
        403,
        409,
    )
    bob = api.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()
    r = api.post(f"/api/rooms/{code}/start", json={"token": host})
    assert r.status_code == 200, r.text
    assert seats(api, code, {"token": host, "add": "person"}).status_code == 409
    assert seats(api, code, {"token": host, "remove": 1}).status_code == 409
    s = play_out(api, code, {bob["seat"]: bob["token"]})
    assert s["finished"]


def test_the_changed_seats_are_kept_through_a_restart(tables, tmp_path):
    state_dir, port = str(tmp_path / "state"), free_port()
    url = f"http://127.0.0.1:{port}"
    env = {"DICESOLVER_ROOM_PACE": "0"}
    with server_process(serve_cmd(tables, state_dir, port), url, env) as served:
        c = httpx.Client(base_url=url, timeout=30)
        room = new_room(c, ("person", "person"))
        code, host = room["code"], room["host"]
        ann = c.post(f"/api/rooms/{code}/join", json={"name": "Ann"}).json()
        assert seats(c, code, {"token": host, "add": "computer"}).status_code == 200
        assert seats(c, code, {"token": host, "remove": 1}).status_code == 200
        before = state(c, code)
        os.kill(served.proc.pid, signal.SIGKILL)
        served.proc.wait(10)
    with server_process(serve_cmd(tables, state_dir, port), url, env):
        c = httpx.Client(base_url=url, timeout=30)
        now = state(c, code)
        assert now["seats"] == before["seats"] and now["move"] == before["move"] == 2
        assert [x["kind"] for x in now["seats"]] == ["person", "computer"]
        assert c.post(f"/api/rooms/{code}/start", json={"token": host}).status_code == 200
        assert play_out(c, code, {0: ann["token"]})["finished"]
    listed = subprocess.run(
        [*zilch_command(), "serve", "--rooms", "--tables", tables, "--state", state_dir],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert code in listed and "over" in listed


def page_token(text):
    """The CSRF token of a page's forms (or, on a page without a form, of its meta tag)."""
    got = re.search(r'name="csrf" value="([\w-]+)"', text)
    return (got or re.search(r'name="csrf-token" content="([\w-]+)"', text)).group(1)


def test_the_host_changes_seats_and_hands_one_from_the_pages(api, live):
    room = new_room(api, ("person", "person"))
    code, host = room["code"], room["host"]
    host_cookie = {f"dicesolver_host_{code}": host}
    with phone(live, host_cookie) as p:
        lobby = p.get(f"/r/{code}")
        assert "Add a computer" in lobby.text and 'value="remove"' not in lobby.text  # (2 seats)
        csrf = page_token(lobby.text)
        r = p.post(f"/r/{code}", data={"do": "add_computer", "at": "0", "csrf": csrf})
        assert r.status_code == 303
        assert [x["kind"] for x in state(api, code)["seats"]] == ["person", "person", "computer"]
        assert p.post(f"/r/{code}", data={"do": "add_person"}).status_code == 403  # (no token)
        assert 'value="remove"' in p.get(f"/r/{code}").text
        r = p.post(f"/r/{code}", data={"do": "remove", "seat": "1", "csrf": csrf})
        assert r.status_code == 303 and len(state(api, code)["seats"]) == 2
    tokens = {}
    for name in ("Ann",):
        got = api.post(f"/api/rooms/{code}/join", json={"name": name}).json()
        tokens[got["seat"]] = got["token"]
    with phone(live, {f"dicesolver_room_{code}": tokens[0]}) as p:  # (not the host's phone)
        assert "Add a computer" not in p.get(f"/r/{code}").text
        csrf = page_token(p.get(f"/r/{code}").text)
        p.post(f"/r/{code}", data={"do": "add_person", "csrf": csrf})
        assert len(state(api, code)["seats"]) == 2
    assert api.post(f"/api/rooms/{code}/start", json={"token": host}).status_code == 200
    with phone(live, host_cookie) as p:
        game = p.get(f"/r/{code}")
        assert "Hand Ann's seat to a computer" in game.text
        asked = p.get(f"/r/{code}/confirm?what=hand&seat=0")
        assert "Hand Ann's seat to a computer?" in asked.text
        assert 'name="seat" value="0"' in asked.text
        r = p.post(f"/r/{code}", data={"do": "hand", "seat": "0", "csrf": page_token(asked.text)})
        assert r.status_code == 303
    s = settle(api, code)
    assert s["seats"][0]["computer"] and s["finished"]
