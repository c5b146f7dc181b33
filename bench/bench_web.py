"""Issue 27 and 38 figures: `zilch serve` under load on loopback.  50 concurrent clients (each
its own loopback address, as phones have, and one keep-alive connection) asking advice and
rankings from stored tables (should I roll, which dice, Yahtzee keeps, the pages that show
them): errors, p50/p99 latency, requests per second, beside a minimal ASGI endpoint served
the same way (the same uvicorn settings and worker processes) in alternate rounds of the
same run, and the ratio (what holds on a noisy machine); first each question alone (one
client, one request at a time: what a request costs); then once with each client asking again
as soon as it is answered, once paced (--pace);
then the server's resident memory while 10 000 sessions are opened (each uploads a rule
file) and abandoned, and 10 000 play sessions (each starts a game and rolls once).  The
server is a `zilch serve` process of its own; the clients share the machine with it (2
cores here).
Run: python bench/bench_web.py [--clients 50] [--requests 300] [--workers 2] [--sessions 0]"""

import argparse
import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

import httpx2 as httpx

import dicesolver as ds

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.webserver import free_port  # noqa: E402

QUESTIONS = [  # (method, path, JSON body or None): advice and rankings, API and pages
    ("POST", "/api/advise", {"rules": "farkle", "dice": 3, "turn": 400}),
    ("POST", "/api/advise", {"rules": "zilch", "dice": 4, "turn": 550, "roll": [1, 5, 2, 2]}),
    ("POST", "/api/advise", {"rules": "farkle", "dice": 6, "roll": [1, 1, 5, 3, 4, 6]}),
    ("POST", "/api/yahtzee_advise", {"dice": [2, 2, 2, 5, 5], "rolls_left": 1}),
    ("GET", "/roll?ask=1&rules=farkle&dice=3&turn=400", None),
    ("GET", "/dice?ask=1&rules=zilch&roll=1,5,2,2&turn=550", None),
]


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


# --- the latency load: 50 clients, each its own address and keep-alive connection ------------
async def asked(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, port: int, q: tuple
) -> int:
    """One request on the connection, its answer read whole: the status."""
    method, path, body = q
    data = json.dumps(body).encode() if body is not None else b""
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
    if body is not None:
        head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
    writer.write(head.encode() + b"\r\n" + data)
    top = await reader.readuntil(b"\r\n\r\n")
    length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", top)
    await reader.readexactly(int(length.group(1)) if length else 0)
    return int(top.split(b" ", 2)[1])


async def client(
    port: int,
    k: int,
    n: int,
    pace: float,
    questions: list,
    lat: list,
    errors: list,
    delay: float = 0.0,
) -> None:
    """Client k: n questions in turn on one keep-alive connection from 127.0.0.(10+k) (a
    phone of its own: the workers steer by address), `pace` seconds apart (0: at once), the
    first `delay` seconds after the start."""
    local = f"127.0.0.{10 + k % 240}"
    conn = None
    start = time.perf_counter() + delay
    for i in range(n):
        if pace:
            await asyncio.sleep(max(0.0, start + i * pace - time.perf_counter()))
        q = questions[(i + k) % len(questions)]
        t = time.perf_counter()
        try:
            if conn is None:
                conn = await asyncio.open_connection("127.0.0.1", port, local_addr=(local, 0))
            status = await asked(*conn, port, q)
            if status != 200:
                errors.append(f"{q[1]}: {status}")
        except (OSError, asyncio.IncompleteReadError, ValueError) as e:
            errors.append(f"{q[1]}: {type(e).__name__}")
            conn = None
        lat.append(time.perf_counter() - t)
    if conn is not None:
        conn[1].close()


async def load(
    port: int, clients: int, requests: int, questions: list, pace: float = 0.0
) -> tuple[list[float], list[str], float]:
    lat: list[float] = []
    errors: list[str] = []
    t = time.perf_counter()
    # (the clients' first questions spread over one pace: phones do not ask in step, and
    # all at the same instant would queue 50 questions behind each other every time)
    await asyncio.gather(
        *(
            client(port, k, requests, pace, questions, lat, errors, pace * k / clients)
            for k in range(clients)
        )
    )
    return lat, errors, time.perf_counter() - t


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] * 1e3 if xs else float("nan")


def said(label: str, lat: list[float], errors: list[str], wall: float) -> str:
    line = (
        f"  {label:22} {len(lat):6} requests, {len(errors)} errors: p50 {pct(lat, 0.5):6.1f} ms, "
        f"p99 {pct(lat, 0.99):6.1f} ms, max {pct(lat, 1.0):5.0f} ms; {len(lat) / wall:5.0f} req/s"
    )
    return line + (f"\n    first errors: {errors[:3]}" if errors else "")


def alone(ports: dict[str, int], times: int = 60) -> None:
    """Each question asked `times` times by one client, one after the other: the time a
    request costs with nothing else on the server (the floor under the loaded figures)."""
    print(f"one client, each question {times} times in a row (load {os.getloadavg()[0]:.1f}):")
    asked_of = [(f"{q[0]} {q[1]}", ports["advice"], q) for q in QUESTIONS]
    asked_of.append(("minimal endpoint", ports["minimal endpoint"], MINIMAL[0]))
    for label, port, q in asked_of:
        lat, errors, _ = asyncio.run(load(port, 1, times, [q]))
        print(f"  {label[:58]:58} p50 {pct(lat, 0.5):5.2f} ms, {len(errors)} errors")


def compared(ports: dict[str, int], clients: int, requests: int, rounds: int, pace: float) -> None:
    """The app's questions and the minimal endpoint's, in alternate rounds (the same
    load on the machine for both): each's figures, and the ratio."""
    got: dict[str, tuple[list[float], list[str], float]] = {k: ([], [], 0.0) for k in ports}
    for _ in range(rounds):
        for name, port in ports.items():
            qs = QUESTIONS if name == "advice" else MINIMAL
            lat, errors, wall = asyncio.run(load(port, clients, requests // rounds, qs, pace))
            a, e, w = got[name]
            got[name] = (a + lat, e + errors, w + wall)
    mode = f"each every {pace * 1e3:.0f} ms" if pace else "each at once after its answer"
    print(f"{clients} clients ({mode}), {rounds} alternate rounds; load {os.getloadavg()[0]:.1f}:")
    for name in ports:
        print(said(name, *got[name]))
    (a, _, _), (m, _, _) = got["advice"], got["minimal endpoint"]
    print(
        f"  advice / minimal endpoint: p50 {pct(a, 0.5) / pct(m, 0.5):.2f}x, "
        f"p99 {pct(a, 0.99) / pct(m, 0.99):.2f}x"
    )


async def opened(base: str, pid: int, count: int, what: str, visit) -> None:
    """`count` new visitors, each visit(client) once (True: as it should go), never seen
    again: the server's resident memory at every quarter."""
    marks = {count * i // 4 for i in range(1, 5)}
    print(f"{what} opened and abandoned: server RSS {rss_kib(pid) / 1024:.1f} MiB at 0", end="")
    t = time.perf_counter()
    bad = 0
    sem = asyncio.Semaphore(20)

    async def one() -> None:
        nonlocal bad
        async with sem, httpx.AsyncClient(base_url=base, timeout=60) as c:
            bad += not await visit(c)

    done = 0
    while done < count:
        step = min(500, count - done)
        await asyncio.gather(*(one() for _ in range(step)))
        done += step
        if done in marks or done == count:
            print(f", {rss_kib(pid) / 1024:.1f} MiB at {done}", end="", flush=True)
    print(f" ({bad} failed; {count / (time.perf_counter() - t):.0f} per second)")


async def token(c: httpx.AsyncClient) -> dict[str, str]:
    """The form token a page gives this visitor (its cookie kept by the client): sent as
    X-CSRF-Token with each form post, as the page's own forms send it."""
    page = (await c.get("/")).text
    found = re.search(r'<meta name="csrf-token" content="([^"]+)"', page)
    return {"X-CSRF-Token": found.group(1)} if found else {}


async def sessions(base: str, pid: int, count: int) -> None:
    """Each session a new visitor uploading a rule file."""
    farkle = resources.files("dicesolver").joinpath("rulesets", "farkle.toml").read_text()
    files = {"rules_file": ("ours.toml", farkle.encode())}

    async def visit(c: httpx.AsyncClient) -> bool:
        r = await c.post("/rules", files=files, data={"next": "/roll"}, headers=await token(c))
        return r.status_code == 303 and "dicesolver_session" in r.headers.get("set-cookie", "")

    await opened(base, pid, count, "sessions (a rule file each)", visit)


async def play_sessions(base: str, pid: int, count: int) -> None:
    """Each a new visitor starting a game (hot seat of two, farkle), rolling once and
    leaving it."""
    form = {"mode": "hotseat", "rules": "farkle", "name1": "Ann", "name2": "Bob"}

    async def visit(c: httpx.AsyncClient) -> bool:
        headers = await token(c)
        r = await c.post("/play/setup", data=form, headers=headers)
        if r.status_code != 303 or "dicesolver_session" not in r.headers.get("set-cookie", ""):
            return False
        game = r.headers["location"]
        r = await c.post(game, data={"do": "roll", "at": "0"}, headers=headers)
        return r.status_code == 303 and (await c.get(game)).status_code == 200

    await opened(base, pid, count, "play sessions (a game each)", visit)


MINIMAL = [("POST", "/", {"rules": "farkle", "dice": 3, "turn": 400}), ("GET", "/", None)]


async def minimal(scope, receive, send) -> None:
    """The floor: an ASGI endpoint that reads the request and answers a small JSON."""
    if scope["type"] == "lifespan":
        while True:
            m = await receive()
            kind = m["type"].replace("lifespan.", "")
            await send({"type": f"lifespan.{kind}.complete"})
            if kind == "shutdown":
                return
    more = True
    while more:
        more = (await receive()).get("more_body", False)
    body = b'{"ok": true}'
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json"), (b"content-length", b"12")],
        }
    )
    await send({"type": "http.response.body", "body": body})


def serve_minimal(port: int, workers: int) -> None:
    """The minimal endpoint served as `zilch serve` serves (the same uvicorn settings,
    connection bounds and worker processes)."""
    from dicesolver.web.serve import run, serve_workers, sticky_sockets

    if workers > 1:
        serve_workers(sticky_sockets("127.0.0.1", port, workers), lambda: minimal, print)
    else:
        run(minimal, "127.0.0.1", port, print)


def tree_rss(pid: int) -> int:
    """Resident memory of a process and its children (the workers), KiB."""
    total = rss_kib(pid)
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            total += tree_rss(int(child))
    return total


def started(cmd: list[str], port: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, env=dict(os.environ, PYTHONUNBUFFERED="1")
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=2)
            return proc
        except httpx.TransportError:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise SystemExit("the server did not start") from None
            time.sleep(0.2)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--requests", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--pace", type=float, default=0.1, help="a paced run too: seconds apart")
    ap.add_argument("--sessions", type=int, default=10_000)
    ap.add_argument("--serve-minimal", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve_minimal:
        with contextlib.suppress(KeyboardInterrupt):
            serve_minimal(args.serve_minimal, args.workers)
        return
    tables = tempfile.mkdtemp(prefix="bench-web-")
    for rules in ("farkle", "zilch"):  # (the stored tables the questions read)
        ds.strategy(rules, tables=tables)
    ds.yahtzee_advise(dice=[1, 1, 1, 1, 1], tables=tables)
    port, floor = free_port(), free_port()
    base = f"http://127.0.0.1:{port}"
    me = [sys.executable, __file__, "--workers", str(args.workers)]
    cmd = [sys.executable, "-m", "dicesolver", "serve", "--port", str(port), "--tables", tables]
    cmd += ["--state", tables + "-state", "--workers", str(args.workers)]
    procs = [started(cmd, port), started([*me, "--serve-minimal", str(floor)], floor)]
    pid = procs[0].pid
    try:
        from dicesolver.web.connections import Protocol

        parser = "httptools" if Protocol.__name__ == "BoundedC" else "h11"
        print(
            f"zilch serve --workers {args.workers} ({parser} parser); "
            f"load average {os.getloadavg()}"
        )
        asyncio.run(load(port, 10, 30, QUESTIONS))  # (warm: every question in each worker)
        print(f"server RSS after warm-up (all workers): {tree_rss(pid) / 1024:.1f} MiB")
        ports = {"advice": port, "minimal endpoint": floor}
        alone(ports)
        compared(ports, args.clients, args.requests, args.rounds, 0.0)
        if args.pace:
            compared(ports, args.clients, args.requests, args.rounds, args.pace)
        print(f"server RSS after the load: {tree_rss(pid) / 1024:.1f} MiB")
        if args.sessions:
            asyncio.run(sessions(base, pid, args.sessions))
            asyncio.run(play_sessions(base, pid, args.sessions))
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGINT)
        for proc in procs:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()


if __name__ == "__main__":
    main()
