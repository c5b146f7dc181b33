"""`zilch serve`: the app under uvicorn, its address printed (on a LAN: a warning, the
address phones open, and a QR code of it in the terminal); with --workers N, N worker
processes on one port, each device steered to one of them by its address (below)."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from typing import Any

LOOPBACK_NAMES = ["127.0.0.1", "localhost", "::1", "[::1]"]


def loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def lan_address() -> str | None:
    """This machine's address on its network (the route out; no packet is sent)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # (TEST-NET-1: connecting a UDP socket sends nothing)
            return str(s.getsockname()[0])
    except OSError:
        return None


def url_of(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}/"


def qr_text(url: str) -> str:
    """The QR code of `url` as text for a terminal (two modules per character)."""
    import io

    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out, compact=True, border=2)
    return out.getvalue()


def announce(host: str, port: int, say: Callable[[str], None]) -> str:
    """What `zilch serve` prints before serving; the address a browser opens."""
    url = url_of(host, port)
    if loopback(host):
        say(f"dicesolver: serving on {url}  (this machine only; Ctrl-C stops)")
        return url
    wide = host in ("0.0.0.0", "::", "")
    lan = lan_address() if wide else host
    open_at = url_of(lan, port) if lan else url
    say(
        f"warning: --host {host} serves every device that can reach this machine, with no "
        "password: use it on a network you trust (a table at home), not a public one"
    )
    say(f"dicesolver: serving on {url}; phones at the table open {open_at}")
    say(qr_text(open_at))
    return open_at


def served_names(host: str, allow: Sequence[str] = ()) -> list[str]:
    """The host names the app answers to (issue 36, against DNS rebinding): the loopback
    names, the address it listens on, the LAN address it prints (on 0.0.0.0 or ::), and
    the names given with --allow-host.  (The app also answers to the address a request
    reached it at: origin.HostGuard.)"""
    names = [*LOOPBACK_NAMES]
    if host.strip("[]") not in ("0.0.0.0", "::", ""):
        names.append(host.strip("[]"))
    else:
        lan = lan_address()
        if lan:
            names.append(lan)
    return names + [n for n in allow if n not in names]


def serve(
    host: str,
    port: int,
    tables: str | None,
    open_browser: bool,
    say: Callable[[str], None],
    allow_hosts: Sequence[str] = (),
    state: str | None = None,
    workers: int = 1,
) -> None:
    """Serve until Ctrl-C; workers > 1: that many processes (workers.py: each phone kept
    to one by its address, the rooms shared through their SQLite file: below)."""
    import secrets

    from .app import create_app

    hosts = served_names(host, allow_hosts)  # (against DNS rebinding)
    secret = secrets.token_bytes(32)  # (the form tokens' key: one for every worker)
    if workers > 1:
        from ..errors import InputError

        try:
            socks = sticky_sockets(host.strip("[]"), port, workers)
        except OSError as e:
            raise InputError(
                f"--workers {workers}: cannot listen on {url_of(host, port)} ({e.strerror or e})"
            ) from None
        url = announce(host, port, say)
        say(f"dicesolver: {workers} worker processes (each device kept to one, by its address)")
        serve_workers(
            socks,
            lambda: create_app(tables, hosts, state, secret),
            say,
            lambda: _open_later(url, open_browser),
        )
        return
    app = create_app(tables, hosts, state, secret)
    url = announce(host, port, say)
    _open_later(url, open_browser)
    run(app, host.strip("[]"), port, say)


def _open_later(url: str, open_browser: bool) -> None:
    if open_browser:
        import threading
        import webbrowser

        threading.Timer(1.0, webbrowser.open, (url,)).start()


# --- running and stopping (issue 36 items 3 and 10) ----------------------------------------
STOP_SECONDS = 5.0  # a build's wait to reach its next step when the server stops
GRACE_SECONDS = 3.0  # requests in progress finish within it when the server stops


def run(
    app: Any, host: str, port: int, say: Callable[[str], None], sockets: list[Any] | None = None
) -> None:
    """Serve `app` until Ctrl-C: connections bounded (connections.py); then builds stop at
    their next step and the partial tables left are named; KeyboardInterrupt (exit 130).
    A second Ctrl-C while they stop ends the process at once, without a traceback.
    sockets: listening sockets made already (a worker's: workers.py), else host and port."""
    import asyncio
    import signal

    import uvicorn

    from .connections import Guarded, Protocol, cap_of, quiet_accept_errors, raise_file_limit

    Guarded.cap = cap_of(raise_file_limit())

    class Server(uvicorn.Server):
        interrupted = False

        def handle_exit(self, sig: int, frame: Any) -> None:
            self.interrupted = self.interrupted or sig == signal.SIGINT
            super().handle_exit(sig, frame)

        async def serve(self, sockets: Any = None) -> None:
            quiet_accept_errors(asyncio.get_running_loop())
            await super().serve(sockets)

        async def shutdown(self, sockets: Any = None) -> None:
            rooms = getattr(getattr(app, "state", None), "rooms", None)
            if rooms is not None:  # (the live streams end now: not cut at the grace's end)
                rooms.close_streams()
            await super().shutdown(sockets)

    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        http=Protocol,
        loop="asyncio",
        timeout_keep_alive=5,
        timeout_graceful_shutdown=int(GRACE_SECONDS),
    )
    server = Server(config)
    try:
        server.run(sockets=sockets)
    except KeyboardInterrupt:
        stop(app, say)
        raise
    stop(app, say)
    if server.interrupted:  # (uvicorn raises the Ctrl-C again; under load that was lost once)
        raise KeyboardInterrupt


def stop(app: Any, say: Callable[[str], None]) -> None:
    """The builds stopped (waited for STOP_SECONDS at most) and the partial tables left
    said; a second Ctrl-C meanwhile: exit 130 at once, in one line."""
    import os
    import signal
    import threading

    def at_once(sig: int, frame: object) -> None:
        say("dicesolver: stopped at once; a build's partial table may remain")
        os._exit(130)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, at_once)
    web = getattr(getattr(app, "state", None), "web", None)
    if web is None:  # (an app of another kind: nothing of ours to stop)
        return
    running = [j for j in web.jobs.stopped() if j.state == "running"]
    if running:
        say(f"dicesolver: stopping {len(running)} build(s) at their next step ...")
    for job in web.jobs.shutdown(STOP_SECONDS):
        state = "still running" if job.state == "running" else "stopped"
        said = f"; {job.message}" if job.message else ""
        say(f"dicesolver: build {state}: {job.label or job.name}{said}")
    partial = [e for e in web.store.entries() if e.partial]
    if partial:
        say(
            "dicesolver: partial tables remain (a build resumes from them; zilch tables "
            "--remove removes them):"
        )
        for e in partial:
            say(f"  {e.path}")


# --- several worker processes (issue 38: answers in milliseconds under load) ---------------
# Each worker serves its own listening socket of one SO_REUSEPORT group on the port; a
# classic BPF program on the group hands each new connection to the socket its client's
# address picks (the address's last 32 bits modulo the workers), so a device's every
# connection reaches the same worker: its session, its games, its uploaded rules, its
# builds' pages and its rate limits live there, as in one process.  The form tokens' key is
# the master's (one for all); the rooms are shared through their SQLite file (room_hub.py).
# The master keeps every socket open (a worker that dies leaves its place, and connections
# wait in its backlog until it is started again) and passes Ctrl-C on, once.
SO_ATTACH_REUSEPORT_CBPF = 51  # (Linux, <asm-generic/socket.h>)
SKF_NET_OFF = -0x100000  # (classic BPF: offsets from the network header)
RESTART_AFTER = 10.0  # seconds a worker must have run to be started again when it dies


def _bpf(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    import struct

    return struct.pack("HBBI", code, jt, jf, k & 0xFFFFFFFF)


def steering(workers: int) -> list[bytes]:
    """The program: the client's address (IPv4's, or an IPv6 address's last 32 bits)
    modulo the workers: the index of the socket in the group."""
    ld_b, ld_w, rsh, jeq, ja, mod, ret_a = 0x30, 0x20, 0x74, 0x15, 0x05, 0x94, 0x16
    return [
        _bpf(ld_b, SKF_NET_OFF),  # the IP header's first byte
        _bpf(rsh, 4),  # its version
        _bpf(jeq, 6, 0, 2),
        _bpf(ld_w, SKF_NET_OFF + 20),  # IPv6: the source address's last 4 bytes
        _bpf(ja, 1),
        _bpf(ld_w, SKF_NET_OFF + 12),  # IPv4: the source address
        _bpf(mod, workers),
        _bpf(ret_a, 0),
    ]


def sticky_sockets(host: str, port: int, workers: int) -> list[socket.socket]:
    """`workers` listening sockets on host:port, a device's connections steered to one
    of them by its address.  OSError (said in one line by the caller) where the port is
    taken or the system cannot steer (not Linux)."""
    import ctypes
    import struct

    family, _, _, _, addr = socket.getaddrinfo(
        host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:  # (taken: by anyone, even a
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # group of our own)
        probe.bind(addr)
    socks: list[socket.socket] = []
    # (IPPROTO_TCP named: asyncio sets TCP_NODELAY only on connections of such sockets;
    # without it Nagle held each response's body for the client's delayed ACK, 44 ms a request)
    for _ in range(workers):
        s = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        if family == socket.AF_INET6:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        s.bind(addr if not socks else (addr[0], socks[0].getsockname()[1], *addr[2:]))
        s.listen(2048)
        s.set_inheritable(True)
        socks.append(s)
    program = b"".join(steering(workers))
    buffer = ctypes.create_string_buffer(program)
    fprog = struct.pack("HL", len(program) // 8, ctypes.addressof(buffer))
    socks[0].setsockopt(socket.SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, fprog)
    return socks


def serve_workers(
    socks: list[socket.socket],
    make_app: Callable[[], Any],
    say: Callable[[str], None],
    started: Callable[[], None] = lambda: None,
) -> None:
    """A worker process per socket (forked: each makes its own app) until Ctrl-C (passed
    on to each once, a second time at once: KeyboardInterrupt, exit 130) or SIGTERM."""
    import multiprocessing
    import multiprocessing.connection
    import os
    import signal
    import time

    ctx = multiprocessing.get_context("fork")
    procs: list[Any] = [None] * len(socks)
    born = [0.0] * len(socks)
    stopping: list[int] = []  # (the signals received)

    def start(k: int) -> None:
        procs[k] = ctx.Process(target=_worker, args=(make_app, socks[k], say), daemon=False)
        procs[k].start()
        born[k] = time.monotonic()

    def passed_on(sig: int, frame: object) -> None:
        stopping.append(sig)
        for p in procs:
            if p is not None and p.is_alive():
                os.kill(p.pid, signal.SIGINT)

    for k in range(len(socks)):
        start(k)
    signal.signal(signal.SIGINT, passed_on)
    signal.signal(signal.SIGTERM, passed_on)
    started()
    while any(p.is_alive() for p in procs):
        multiprocessing.connection.wait([p.sentinel for p in procs if p.is_alive()], 1.0)
        for k, p in enumerate(procs):
            if stopping or p.is_alive():
                continue
            if time.monotonic() - born[k] < RESTART_AFTER:
                say(f"dicesolver: worker {k} stopped at start (exit {p.exitcode}): stopping")
                passed_on(signal.SIGTERM, None)
                break
            say(f"dicesolver: worker {k} stopped (exit {p.exitcode}); started again")
            start(k)
    for s in socks:
        s.close()
    if signal.SIGINT in stopping:
        raise KeyboardInterrupt


def _worker(make_app: Callable[[], Any], sock: socket.socket, say: Callable[[str], None]) -> None:
    """A worker: its own process group (Ctrl-C reaches the master, which passes it on),
    stopped with its master (PR_SET_PDEATHSIG), its app served on its socket."""
    import ctypes
    import os
    import signal
    import sys

    os.setpgrp()
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGINT)  # (PR_SET_PDEATHSIG)
    except (OSError, AttributeError):
        pass
    try:
        run(make_app(), "", 0, say, sockets=[sock])
    except KeyboardInterrupt:
        sys.exit(130)
