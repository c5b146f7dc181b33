"""Issue 36 item 3 and issue 38: `zilch serve`'s connection guards (connections.py) hold on
both of uvicorn's HTTP parsers, h11 (pure Python) and httptools (C, the one served where it
is installed): a request's headers in time or the connection closes, headers longer than
16 KiB refused with 431 (h11 bounds them itself, the C parser does not), keep-alive
requests answered one after another.  A real uvicorn server on a loopback port each."""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator

import pytest

from dicesolver.web import connections

from .webserver import free_port, in_thread

PARSERS = [pytest.param(connections.Bounded, id="h11")]
if connections.HttpToolsProtocol is not None:
    PARSERS.append(pytest.param(connections.BoundedC, id="httptools"))


async def hello(scope, receive, send) -> None:
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    await send(
        {"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"5")]}
    )
    await send({"type": "http.response.body", "body": b"hello"})


@contextlib.contextmanager
def served(protocol: type, header_seconds: float = 1.0) -> Iterator[int]:
    """`hello` under uvicorn with `protocol` (its header deadline shortened): the port."""
    guarded = type("Short", (protocol,), {"header_seconds": header_seconds})
    port = free_port()
    with in_thread(hello, port, http=guarded, loop="asyncio"):
        yield port


def read_all(s: socket.socket, seconds: float = 5.0) -> bytes:
    """Everything the server sends until it closes the connection (or `seconds` pass)."""
    s.settimeout(seconds)
    got = b""
    with contextlib.suppress(TimeoutError, ConnectionResetError):
        while chunk := s.recv(65536):
            got += chunk
    return got


def test_the_served_parser_is_the_c_one_where_httptools_is_installed():
    httptools = pytest.importorskip("httptools")
    assert httptools is not None and connections.Protocol is connections.BoundedC


@pytest.mark.parametrize("protocol", PARSERS)
def test_keep_alive_requests_are_answered_one_after_another(protocol):
    with served(protocol) as port, socket.create_connection(("127.0.0.1", port)) as s:
        s.settimeout(5)
        for _ in range(3):
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            got = b""
            while not got.endswith(b"hello") and (chunk := s.recv(4096)):
                got += chunk
            assert got.startswith(b"HTTP/1.1 200") and got.endswith(b"\r\n\r\nhello"), got


@pytest.mark.parametrize("protocol", PARSERS)
def test_headers_longer_than_16_kib_are_refused_431_and_closed(protocol):
    with served(protocol) as port, socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        with contextlib.suppress(ConnectionResetError, BrokenPipeError):
            for _ in range(40):  # 40 KiB of one header, never ended
                s.sendall(b"X-Long: " + b"a" * 1014 + b"\r\n")
        got = read_all(s)
    assert got.startswith((b"HTTP/1.1 431", b"HTTP/1.1 400")), got[:80]


@pytest.mark.parametrize("protocol", PARSERS)
def test_headers_not_sent_in_time_close_the_connection(protocol):
    """Slowloris: headers begun and never ended; closed after the deadline (1 s here),
    before the 5 s this waits; a request that came whole meanwhile answered."""
    with served(protocol, header_seconds=1.0) as port:
        with socket.create_connection(("127.0.0.1", port)) as slow:
            slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            with socket.create_connection(("127.0.0.1", port)) as whole:
                whole.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                assert read_all(whole).startswith(b"HTTP/1.1 200")
            began = time.monotonic()
            assert read_all(slow) == b""
            assert time.monotonic() - began < 4.5  # (closed by the deadline, not the timeout)
