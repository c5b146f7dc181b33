"""`zilch serve --workers N` (issue 38, answers in milliseconds): several worker processes.
Each device is kept to one worker by its address (its session, games, uploads and rate
limits live there); the form tokens' key is one for all; the rooms are shared through
their SQLite file, and a move made through one worker reaches the live streams of every
other.  Two ways: two apps in this process on one state folder, and a real server of two
workers, its clients on loopback addresses of their own (127.0.0.10 and .11 reach the two
workers: the steering takes the address modulo the workers)."""

from __future__ import annotations

import contextlib
import json
import re
import secrets
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from tests.webserver import free_port, zilch_command

FARKLE = (Path(__file__).resolve().parent.parent / "solver/rulesets/farkle.toml").read_text()


@contextlib.contextmanager
def two_apps(tables: Path, state: Path) -> Iterator[tuple[str, str]]:
    """Two apps (two workers' worth) on one tables and one state folder, one form key."""
    import uvicorn

    from dicesolver.web.app import create_app
    from dicesolver.web.serve import LOOPBACK_NAMES

    key = secrets.token_bytes(32)
    servers, threads, apps, urls = [], [], [], []
    for _ in range(2):
        port = free_port()
        app = create_app(str(tables), LOOPBACK_NAMES, state, key)
        server = uvicorn.Server(uvicorn.Config(app, port=port, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        servers.append(server)
        threads.append(thread)
        apps.append(app)
        urls.append(f"http://127.0.0.1:{port}")
    deadline = time.monotonic() + 20
    while not all(s.started for s in servers):
        assert time.monotonic() < deadline, "the servers did not start"
        time.sleep(0.05)
    try:
        yield urls[0], urls[1]
    finally:
        for app in apps:  # (the live streams end, as `zilch serve` ends them: serve.run)
            rooms = app.state.rooms
            if rooms._loop is not None:
                rooms._loop.call_soon_threadsafe(rooms.close_streams)
        for s in servers:
            s.should_exit = True
        for t, app in zip(threads, apps, strict=True):
            t.join(10)
            app.state.web.jobs.shutdown()


class Stream:
    """A room's live stream read in a thread: the messages as they come."""

    def __init__(self, client: httpx.Client, code: str) -> None:
        self.messages: list[dict[str, Any]] = []
        self.client, self.code = client, code
        self.ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        assert self.ready.wait(10), "the stream did not open"

    def _read(self) -> None:
        with contextlib.suppress(httpx.HTTPError):
            with self.client.stream("GET", f"/api/rooms/{self.code}/events") as r:
                for line in r.iter_lines():
                    if line.startswith("data: "):
                        self.messages.append(json.loads(line[6:]))
                        self.ready.set()

    def wait_for(self, move: int, timeout: float = 5.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for m in self.messages:
                if m["state"]["move"] == move and m["kind"] != "state":
                    return m
            time.sleep(0.01)
        raise AssertionError(f"move {move} never reached the stream: {self.messages[-3:]}")


def room_of(c: httpx.Client, other: httpx.Client) -> tuple[str, str, list[str]]:
    """A room of two people (one joined through each client), started: code, host, tokens."""
    made = c.post("/api/rooms", json={"rules": "farkle", "seats": ["person", "person"]}).json()
    code = made["code"]
    tokens = [
        c.post(f"/api/rooms/{code}/join", json={"name": "Ann"}).json()["token"],
        other.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()["token"],
    ]
    return code, made["host"], tokens


def shared_tables() -> Path:
    """The test session's own tables folder (conftest: a temporary one), where the
    farkle card the rooms' moves read is built once."""
    import os

    return Path(os.environ["DICESOLVER_TABLES"])


def form_token(c: httpx.Client) -> str:
    page = c.get("/").text
    found = re.search(r'<meta name="csrf-token" content="([^"]+)"', page)
    assert found
    return found.group(1)


def test_a_move_through_one_app_reaches_the_other_apps_stream(tmp_path: Path) -> None:
    with two_apps(shared_tables(), tmp_path / "state") as (a, b):
        with httpx.Client(base_url=a, timeout=20) as ca, httpx.Client(base_url=b, timeout=20) as cb:
            code, host, tokens = room_of(ca, cb)  # (the second seat joined through B)
            stream = Stream(cb, code)
            s = ca.post(f"/api/rooms/{code}/start", json={"token": host}).json()
            assert stream.wait_for(s["move"])["kind"] == "start"
            t = time.monotonic()
            s = ca.post(
                f"/api/rooms/{code}/move", json={"token": tokens[0], "move": 0, "best": True}
            )
            moved = s.json()
            got = stream.wait_for(moved["move"])
            assert time.monotonic() - t < 2.0
            assert got["state"]["scores"] == moved["scores"] and got["kind"] == "move"
            assert got["state"]["dice"] == moved["dice"]
            # B holds the room as A left it: a stale move number 409, the seat's token moves
            stale = {"token": tokens[moved["turn"]], "move": 0, "best": True}
            assert cb.post(f"/api/rooms/{code}/move", json=stale).status_code == 409
            assert cb.get(f"/api/rooms/{code}").json()["move"] == moved["move"]
            again = cb.post(f"/api/rooms/{code}/move", json=stale | {"move": moved["move"]}).json()
            assert again["move"] > moved["move"]
            assert cb.post(f"/api/rooms/{code}/hint", json={"token": "x" * 32}).status_code == 403


def test_form_tokens_hold_across_apps_of_one_server(tmp_path: Path) -> None:
    with two_apps(tmp_path / "tables", tmp_path / "state") as (a, b):
        with httpx.Client(base_url=a) as ca, httpx.Client(base_url=b) as cb:
            token = form_token(ca)
            cb.cookies = ca.cookies  # (the browser's cookie, its page's token: another worker)
            files = {"rules_file": ("ours.toml", FARKLE.encode())}
            r = cb.post(
                "/rules", files=files, data={"next": "/roll"}, headers={"X-CSRF-Token": token}
            )
            assert r.status_code == 303
            forged = cb.post("/rules", files=files, headers={"X-CSRF-Token": "0" * 40})
            assert forged.status_code == 403


def test_two_stores_hold_a_room_in_turn(tmp_path: Path) -> None:
    """A room's lock excludes another store of the file (another worker), not only
    another thread; the writers' group commit keeps each write all or nothing."""
    from dicesolver.web.room_store import RoomStore

    one, two = RoomStore(tmp_path), RoomStore(tmp_path)
    try:
        one.create("ABCDEF", "host", {"seats": ["person"]}, 1, 1)
        order: list[str] = []
        with one.room_lock("ABCDEF"):
            t = threading.Thread(
                target=lambda: two.room_lock("ABCDEF").__enter__() or order.append("two")
            )
            t.start()
            time.sleep(0.2)
            order.append("one")
        t.join(5)
        assert order == ["one", "two"]

        def record(n: int) -> None:
            with contextlib.suppress(Exception):
                (one if n % 2 else two).record("ABCDEF", n % 20, "move", 0, {"n": n}, False)

        threads = [threading.Thread(target=record, args=(n,)) for n in range(40)]
        for x in threads:
            x.start()
        for x in threads:
            x.join(10)
        row = one.load("ABCDEF")
        assert row is not None and [r["n"] for r in row.records] == list(range(20))
        assert one.changed("ABCDEF") == two.changed("ABCDEF") > 0
    finally:
        one.close()
        two.close()


def client_at(base: str, address: str) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=base, transport=transport, timeout=20)


@pytest.mark.slow
def test_two_worker_processes(tmp_path: Path) -> None:
    """A real `zilch serve --workers 2`: a device keeps its worker (its session on every
    new connection), the other device reaches the other worker; a form token from one
    worker's page holds on the other; a room played through both, live on both; the
    unknown-code limit counts a device's tries on all its connections."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = [*zilch_command(), "serve", "--port", str(port), "--workers", "2"]
    cmd += ["--tables", str(shared_tables()), "--state", str(tmp_path / "state")]
    env = {"DICESOLVER_ROOM_JOINS": "3", "PATH": "/usr/bin:/bin"}
    import os

    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ | env
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(base + "/static/die.svg", timeout=1)
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr
                time.sleep(0.1)
        _two_workers(base)
    finally:
        proc.send_signal(2)
        out, err = proc.communicate(timeout=20)
    assert "2 worker processes" in out
    assert "Traceback" not in err, err[-3000:]


def _two_workers(base: str) -> None:
    with client_at(base, "127.0.0.10") as ann, client_at(base, "127.0.0.11") as bob:
        token = form_token(ann)
        files = {
            "rules_file": (
                "house.toml",
                FARKLE.replace('name = "farkle"', 'name = "house"').encode(),
            )
        }
        r = ann.post("/rules", files=files, data={"next": "/roll"}, headers={"X-CSRF-Token": token})
        assert r.status_code == 303
        for _ in range(6):  # (new connections, the same worker: the session is there)
            with client_at(base, "127.0.0.10") as again:
                again.cookies = ann.cookies
                assert "(uploaded)" in again.get("/roll").text
        bob.cookies = ann.cookies  # (the other worker: no such session; the form token holds)
        assert "(uploaded)" not in bob.get("/roll").text
        r = bob.post("/rules", files=files, data={"next": "/roll"}, headers={"X-CSRF-Token": token})
        assert r.status_code == 303
        bob.cookies.clear()
        code, host, tokens = room_of(ann, bob)
        stream = Stream(bob, code)
        s = ann.post(f"/api/rooms/{code}/start", json={"token": host}).json()
        for _ in range(4):
            mover = ann if s["turn"] == 0 else bob
            body = {"token": tokens[s["turn"]], "move": s["move"], "best": True}
            s = mover.post(f"/api/rooms/{code}/move", json=body).json()
            assert stream.wait_for(s["move"])["state"]["scores"] == s["scores"]
    for k in range(4):  # (the unknown codes a device tries: counted on all its connections)
        with client_at(base, "127.0.0.12") as guess:
            r = guess.get("/api/rooms/ZZZZZZ")
            assert r.status_code == (404 if k < 3 else 429), (k, r.text)


def test_worker_sockets_answer_without_nagles_delay() -> None:
    """Several workers' listening sockets (serve.sticky_sockets) are TCP by name, so asyncio
    sets TCP_NODELAY on every connection they accept: without it each response's body waited
    for the client's delayed ACK (44 ms a request, issue 38's latency)."""
    import asyncio
    import socket

    from dicesolver.web.serve import sticky_sockets

    socks = sticky_sockets("127.0.0.1", free_port(), 2)
    seen: list[int] = []

    class Accepted(asyncio.Protocol):
        def connection_made(self, transport: Any) -> None:
            sock = transport.get_extra_info("socket")
            seen.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            transport.close()

    async def accept_one() -> None:
        loop = asyncio.get_running_loop()
        servers = [await loop.create_server(Accepted, sock=s) for s in socks]
        port = socks[0].getsockname()[1]
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        for _ in range(200):
            if seen:
                break
            await asyncio.sleep(0.01)
        writer.close()
        for server in servers:
            server.close()

    try:
        asyncio.run(accept_one())
    finally:
        for s in socks:
            s.close()
    assert seen and seen[0] != 0, seen
