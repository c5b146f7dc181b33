"""`zilch serve`'s connections under uvicorn, bounded (issue 36 item 3: slowloris): a
connection has HEADER_SECONDS to send a request's headers (after its previous response,
too), and at most `cap` are open at once: at the cap a new connection closes the oldest
one that has no request in progress (an idle or half-open one) or, with none, is told
"503 busy" and closed.  The cap stays below the process's file limit (raised to its hard
limit first), so accept() never runs out of descriptors; where it does all the same, the
event loop's complaint is logged once, not once per attempt.  A request's headers are
bounded too (HEADER_BYTES, 431): h11 bounds them itself, the C parser does not.

The parser: httptools (C, llhttp) where it is installed, as the package's dependencies
install it (issue 38: a third less time per request than h11's pure Python), else h11;
the same guards on both (`Guarded`)."""

from __future__ import annotations

import asyncio
import logging
import resource
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

try:  # (the C parser: a dependency, but a machine without it still serves, by h11)
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # pragma: no cover - httptools missing
    HttpToolsProtocol = None  # type: ignore[assignment,misc]

log = logging.getLogger("dicesolver.web")

HEADER_SECONDS = 10.0  # to send a request's headers
HEADER_BYTES = 16 * 1024  # a request's line and headers, at most (h11's own default)
CAP = 2000  # connections open at once (at most; below the file limit)
SPARE_FILES = 128  # descriptors kept for the tables, the logs and the builds
BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\nretry-after: 5\r\ncontent-length: 53\r\n\r\n"
    b"the server has as many connections open as it takes\n"
)
TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; "
    b"charset=utf-8\r\nconnection: close\r\ncontent-length: 31\r\n\r\n"
    b"the request's headers are long\n"
)
_said: set[str] = set()  # what was logged once


def once(key: str, message: str) -> None:
    """Log a warning the first time only (a flood repeats it thousands of times)."""
    if key not in _said:
        _said.add(key)
        log.warning("%s (said once)", message)


def raise_file_limit() -> int:
    """The soft limit of open files raised to the hard one (where allowed): the limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 16)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError):
            pass
    return int(soft) if soft != resource.RLIM_INFINITY else 1 << 20


def cap_of(files: int, cap: int = CAP) -> int:
    """Connections at once: `cap`, below the file limit less the spare."""
    return max(16, min(cap, files - SPARE_FILES))


class Guarded:
    """A header deadline, a header size and a connection cap over one of uvicorn's HTTP
    protocols (a mixin: both keep `cycle`, `connections`, `transport` and `loop`)."""

    cap = CAP
    header_seconds = HEADER_SECONDS
    header_bytes = HEADER_BYTES
    cycle: Any
    connections: set[Any]
    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._unparsed = 0  # bytes received while no request's headers are complete
        self.opened = 0.0

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        self.opened = self.loop.time()
        if len(self.connections) > self.cap and not self._make_room():
            once("busy", f"{len(self.connections)} connections open: new ones refused (503)")
            transport.write(BUSY)
            transport.close()
            return
        self._arm()

    def _make_room(self) -> bool:
        """Close the oldest connection without a request in progress (not this one)."""
        idle = [
            c for c in self.connections if c is not self and isinstance(c, Guarded) and c.idle()
        ]
        if not idle:
            return False
        oldest = min(idle, key=lambda c: c.opened)
        once("evicted", f"{self.cap} connections open: closing idle ones for new ones")
        oldest.transport.close()
        self.connections.discard(oldest)
        return True

    def idle(self) -> bool:
        """No request in progress: before its headers, or between requests."""
        return self.cycle is None or self.cycle.response_complete

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.header_seconds, self._late)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _late(self) -> None:
        """No request's headers in time: closed (a slow client, or slowloris)."""
        self._deadline = None
        if self.idle() and not self.transport.is_closing():
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)  # type: ignore[misc]
        if not self.idle():
            self._unparsed = 0
            self._disarm()  # (the headers came: the request runs)
            return
        self._unparsed += len(data)
        if self._unparsed > self.header_bytes and not self.transport.is_closing():
            self.transport.write(TOO_LARGE)
            self.transport.close()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]
        if not self.transport.is_closing():
            self._arm()  # (the next request's headers, in time too)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)  # type: ignore[misc]


class Bounded(Guarded, H11Protocol):
    """uvicorn's h11 protocol (pure Python), guarded."""


Protocol: type[Any] = Bounded
if HttpToolsProtocol is not None:

    class BoundedC(Guarded, HttpToolsProtocol):
        """uvicorn's httptools protocol (the C parser), guarded."""

    Protocol = BoundedC


def quiet_accept_errors(loop: asyncio.AbstractEventLoop) -> None:
    """The loop's complaints about accept() (out of descriptors: EMFILE) logged once."""
    default = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        message = str(context.get("message", ""))
        if "accept" in message or "out of system resource" in message:
            once("accept", f"{message}: connections wait until some close")
            return
        if default is not None:
            default(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)
