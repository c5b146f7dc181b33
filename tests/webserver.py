"""`zilch serve`'s app under uvicorn in a thread, on a free loopback port: for the browser
tests and the load benchmark."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

# Debian's Chromium, driven by Playwright (no browser download exists on these machines)
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def running(tables: str, port: int | None = None) -> Iterator[str]:
    """The app over `tables`, served on 127.0.0.1 until the block ends: its address."""
    import uvicorn

    from dicesolver.web import create_app
    from dicesolver.web.serve import LOOPBACK_NAMES

    port = port or free_port()
    app = create_app(tables, LOOPBACK_NAMES)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        app.state.web.jobs.shutdown()
