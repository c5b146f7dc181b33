"""`zilch serve`'s app under uvicorn in a thread, on a free loopback port: for the browser
tests and the load benchmark."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Debian's Chromium, driven by Playwright (no browser download exists on these machines)
CHROMIUM = "/usr/bin/chromium"


def skip_without_chromium() -> None:
    """A browser test's first step: skipped, saying how to install it, where Debian's
    Chromium is missing (CI installs it: .ci/run)."""
    import shutil

    import pytest

    if shutil.which(CHROMIUM) is None:
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")


def snap(page, path: str) -> None:
    """A full-page screenshot of a page that its room script may be reloading just now
    (a capture begun as a navigation commits can wait forever, seen on a loaded CI
    machine): after the page has loaded, with a bounded wait, tried again if it times out."""
    from playwright.sync_api import TimeoutError as Timeout

    for attempt in range(3):
        try:
            page.wait_for_load_state()
            page.screenshot(path=str(path), full_page=True, timeout=15_000)
            return
        except Timeout:
            if attempt == 2:
                raise


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
    from dicesolver.web import create_app
    from dicesolver.web.serve import LOOPBACK_NAMES

    port = port or free_port()
    app = create_app(tables, LOOPBACK_NAMES)
    try:
        with in_thread(app, port):
            yield f"http://127.0.0.1:{port}"
    finally:
        app.state.web.jobs.shutdown()


@contextlib.contextmanager
def in_thread(app: Any, port: int, **config: Any) -> Iterator[None]:
    """An ASGI app under uvicorn (config: more uvicorn.Config settings) on 127.0.0.1:port,
    in a thread, once it has started; stopped when the block ends."""
    import uvicorn

    cfg = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **config)
    server = uvicorn.Server(cfg)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    try:
        yield
    finally:
        server.should_exit = True
        thread.join(10)


def zilch_command() -> list[str]:
    """`zilch` as installed beside this Python, else `python -m dicesolver`."""
    exe = Path(sys.executable).parent / "zilch"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "dicesolver"]


@dataclass
class Served:
    """A server process and what it said (stdout, stderr) once it ended."""

    proc: subprocess.Popen[str]
    output: list[str] = field(default_factory=list)


@contextlib.contextmanager
def server_process(
    cmd: list[str],
    url: str,
    env: dict[str, str] | None = None,
    preexec_fn: Callable[[], None] | None = None,
) -> Iterator[Served]:
    """A real server process (`zilch serve ...`, uvicorn) until the block ends, once it
    answers at `url`; then stopped (SIGTERM, SIGKILL after 30 s) where the block left it
    running, and its output read."""
    import httpx2 as httpx

    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, **(env or {})),
        preexec_fn=preexec_fn,
    )
    served = Served(proc)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(url + "/static/die.svg", timeout=5)
                break
            except httpx.TransportError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    proc.kill()
                    raise RuntimeError(proc.communicate()[1]) from None
                time.sleep(0.1)
        yield served
    finally:
        if proc.poll() is None:
            proc.terminate()
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        except ValueError:  # (the test read its output already)
            out, err = "", ""
        served.output += [out or "", err or ""]
