"""`zilch serve`: the app under uvicorn, its address printed (on a LAN: a warning, the
address phones open, and a QR code of it in the terminal)."""

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
) -> None:
    from .app import create_app

    hosts = served_names(host, allow_hosts)  # (against DNS rebinding)
    app = create_app(tables, hosts, state)
    url = announce(host, port, say)
    if open_browser:
        import threading
        import webbrowser

        threading.Timer(1.0, webbrowser.open, (url,)).start()
    run(app, host.strip("[]"), port, say)


# --- running and stopping (issue 36 items 3 and 10) ----------------------------------------
STOP_SECONDS = 5.0  # a build's wait to reach its next step when the server stops
GRACE_SECONDS = 3.0  # requests in progress finish within it when the server stops


def run(app: Any, host: str, port: int, say: Callable[[str], None]) -> None:
    """Serve `app` until Ctrl-C: connections bounded (connections.py); then builds stop at
    their next step and the partial tables left are named; KeyboardInterrupt (exit 130).
    A second Ctrl-C while they stop ends the process at once, without a traceback."""
    import asyncio

    import uvicorn

    from .connections import Bounded, cap_of, quiet_accept_errors, raise_file_limit

    Bounded.cap = cap_of(raise_file_limit())

    class Server(uvicorn.Server):
        async def serve(self, sockets: Any = None) -> None:
            quiet_accept_errors(asyncio.get_running_loop())
            await super().serve(sockets)

    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        http=Bounded,
        loop="asyncio",
        timeout_keep_alive=5,
        timeout_graceful_shutdown=int(GRACE_SECONDS),
    )
    try:
        Server(config).run()
    except KeyboardInterrupt:
        stop(app, say)
        raise
    stop(app, say)


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
    web = app.state.web
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
