"""Issue 27 figures: `zilch serve` under load on loopback.  50 concurrent clients x 200
requests each of advice and rankings from stored tables (should I roll, which dice,
Yahtzee keeps, the pages that show them): errors, p50/p99 latency, requests per second;
then the server's resident memory while 10 000 sessions are opened (each uploads a rule
file) and abandoned, and 10 000 play sessions (each starts a game and rolls once).  The
server is a `zilch serve` process of its own; the clients share the machine with it (2
cores here).
Run: python bench/bench_web.py [--clients 50] [--requests 200] [--sessions 10000]"""

import argparse
import asyncio
import os
import re
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


async def client(base: str, n: int, k: int, latencies: list[float], errors: list[str]) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=60) as c:
        for i in range(n):
            method, path, body = QUESTIONS[(i + k) % len(QUESTIONS)]
            t = time.perf_counter()
            try:
                r = await c.request(method, path, json=body)
                if r.status_code != 200:
                    errors.append(f"{path}: {r.status_code}")
            except httpx.HTTPError as e:
                errors.append(f"{path}: {type(e).__name__}")
            latencies.append(time.perf_counter() - t)


async def load(base: str, clients: int, requests: int) -> None:
    latencies: list[float] = []
    errors: list[str] = []
    t = time.perf_counter()
    await asyncio.gather(*(client(base, requests, k, latencies, errors) for k in range(clients)))
    wall = time.perf_counter() - t
    latencies.sort()
    p = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1e3  # noqa: E731
    print(
        f"{clients} clients x {requests} requests = {len(latencies)}: {len(errors)} errors; "
        f"p50 {p(0.50):.1f} ms, p99 {p(0.99):.1f} ms, max {latencies[-1] * 1e3:.0f} ms; "
        f"{len(latencies) / wall:.0f} requests/s ({wall:.1f} s)"
    )
    if errors:
        print("  first errors:", errors[:5])


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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--sessions", type=int, default=10_000)
    args = ap.parse_args()
    tables = tempfile.mkdtemp(prefix="bench-web-")
    for rules in ("farkle", "zilch"):  # (the stored tables the questions read)
        ds.strategy(rules, tables=tables)
    ds.yahtzee_advise(dice=[1, 1, 1, 1, 1], tables=tables)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "dicesolver", "serve", "--port", str(port), "--tables", tables],
        stdout=subprocess.DEVNULL,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(base + "/", timeout=2)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.2)
        asyncio.run(load(base, 5, 20))  # (warm: every question once, caches filled)
        print(f"server RSS after warm-up: {rss_kib(proc.pid) / 1024:.1f} MiB")
        asyncio.run(load(base, args.clients, args.requests))
        print(f"server RSS after the load: {rss_kib(proc.pid) / 1024:.1f} MiB")
        asyncio.run(sessions(base, proc.pid, args.sessions))
        asyncio.run(play_sessions(base, proc.pid, args.sessions))
    finally:
        proc.terminate()
        proc.wait(30)


if __name__ == "__main__":
    main()
