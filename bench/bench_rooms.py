"""Issue 38 figures: game rooms under load.  A `zilch serve` process of its own; 20 rooms
of four phones each play at once (each phone one live stream, GET /api/rooms/CODE/events;
whoever's turn it is posts the best move; each phone and each room's mover from a
loopback address of its own, so that with --workers the phones of a room are served by
different workers); for every move, the time from its POST being
sent to each phone of the room receiving it on its stream: p50, p99, max, and the moves'
own answer times.  The clients share the machine with the server (2 cores here).
Run: python bench/bench_rooms.py [--rooms 20] [--phones 4] [--moves 40]"""

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2 as httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.webserver import free_port, zilch_command  # noqa: E402


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] * 1000 if xs else float("nan")


ADDRESSES = iter(range(10**9))


def address() -> str:
    """A loopback address of its own (a phone of its own: the workers steer by address)."""
    k = next(ADDRESSES)
    return f"127.0.{1 + k // 240 % 250}.{10 + k % 240}"


def from_address(base: str, timeout: float | None) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=address())
    return httpx.AsyncClient(base_url=base, timeout=timeout, transport=transport)


async def phone(base: str, code: str, seen: dict[int, list[float]], ready: asyncio.Event) -> None:
    """One phone's stream: the time each move number arrived."""
    async with from_address(base, None) as c:
        async with c.stream("GET", f"/api/rooms/{code}/events") as r:
            ready.set()
            async for line in r.aiter_lines():
                if line.startswith("data: "):
                    msg = json.loads(line[6:])
                    seen.setdefault(msg["state"]["move"], []).append(time.perf_counter())


async def room(base: str, phones: int, moves: int, out: dict[str, list[float]]) -> None:
    async with from_address(base, 60) as c:
        body = {"rules": "farkle", "seats": ["person"] * phones}
        made = (await c.post("/api/rooms", json=body)).json()
        code, tokens = made["code"], {}
        for i in range(phones):
            got = (await c.post(f"/api/rooms/{code}/join", json={"name": f"p{i}"})).json()
            tokens[got["seat"]] = got["token"]
        seen: dict[int, list[float]] = {}
        readies = [asyncio.Event() for _ in range(phones)]
        streams = [asyncio.create_task(phone(base, code, seen, e)) for e in readies]
        await asyncio.gather(*(e.wait() for e in readies))
        s = (await c.post(f"/api/rooms/{code}/start", json={"token": made["host"]})).json()
        for _ in range(moves):
            if s["finished"]:
                break
            sent = time.perf_counter()
            body = {"token": tokens[s["turn"]], "move": s["move"], "best": True}
            r = await c.post(f"/api/rooms/{code}/move", json=body)
            out["answer"].append(time.perf_counter() - sent)
            if r.status_code != 200:
                out["errors"].append(r.status_code)
                s = (await c.get(f"/api/rooms/{code}")).json()
                continue
            s = r.json()
            deadline = time.perf_counter() + 10
            while len(seen.get(s["move"], [])) < phones and time.perf_counter() < deadline:
                await asyncio.sleep(0.005)
            arrived = seen.get(s["move"], [])
            out["delivery"] += [t - sent for t in arrived]
            out["missed"] += [1] * (phones - len(arrived))
        for t in streams:
            t.cancel()


async def load(base: str, rooms: int, phones: int, moves: int) -> None:
    out: dict[str, list] = {"answer": [], "delivery": [], "errors": [], "missed": []}
    t = time.perf_counter()
    await asyncio.gather(*(room(base, phones, moves, out) for _ in range(rooms)))
    took = time.perf_counter() - t
    d, a = out["delivery"], out["answer"]
    print(
        f"{rooms} rooms x {phones} phones, {len(a)} moves in {took:.1f} s: "
        f"{len(out['errors'])} errors, {len(out['missed'])} deliveries missed; "
        f"a move to every phone of its room: p50 {pct(d, 0.5):.1f} ms, p99 {pct(d, 0.99):.1f} ms, "
        f"max {pct(d, 1.0):.0f} ms ({len(d)} deliveries); the move's answer: "
        f"p50 {pct(a, 0.5):.1f} ms, p99 {pct(a, 0.99):.1f} ms"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rooms", type=int, default=20)
    ap.add_argument("--phones", type=int, default=4)
    ap.add_argument("--moves", type=int, default=40)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        cmd = [*zilch_command(), "serve", "--port", str(port), "--state", d + "/state"]
        cmd += ["--tables", d + "/tables", "--workers", str(args.workers)]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            for _ in range(600):
                try:
                    httpx.get(base + "/static/die.svg", timeout=2)
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            print(f"zilch serve --workers {args.workers}; load average {os.getloadavg()}")
            asyncio.run(load(base, args.rooms, args.phones, args.moves))
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(30)


if __name__ == "__main__":
    main()
