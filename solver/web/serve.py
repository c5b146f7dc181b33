"""`zilch serve`: the app under uvicorn, its address printed (on a LAN: a warning, the
address phones open, and a QR code of it in the terminal)."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable

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


def serve(
    host: str, port: int, tables: str | None, open_browser: bool, say: Callable[[str], None]
) -> None:
    import uvicorn

    from .app import create_app

    hosts = LOOPBACK_NAMES if loopback(host) else None  # (against DNS rebinding)
    app = create_app(tables, hosts)
    url = announce(host, port, say)
    if open_browser:
        import threading
        import webbrowser

        threading.Timer(1.0, webbrowser.open, (url,)).start()
    uvicorn.run(app, host=host.strip("[]"), port=port, log_level="warning", access_log=False)
