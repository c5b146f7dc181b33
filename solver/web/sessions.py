"""Server-side sessions: an unguessable id in a cookie, the data on the server, bounded in
number (the least recently used forgotten first) and in idle time.  A session sees only
its own data; an unknown or expired id is no session at all.  (Today they keep a person's
uploaded rule files; the play screens keep their games in them.)"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.responses import Response

COOKIE = "dicesolver_session"
LIMIT = 2000  # sessions kept at once
IDLE = 2 * 3600.0  # seconds a session lives unused
RULE_FILES = 8  # uploaded rule sets one session keeps (the newest)


@dataclass
class Session:
    id: str
    seen: float
    data: dict[str, Any] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


class Sessions:
    def __init__(
        self, limit: int = LIMIT, idle: float = IDLE, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit, self.idle, self.clock = limit, idle, clock
        self._lock = threading.Lock()
        self._all: OrderedDict[str, Session] = OrderedDict()

    def __len__(self) -> int:
        with self._lock:
            return len(self._all)

    def new(self) -> Session:
        s = Session(secrets.token_urlsafe(32), self.clock())
        with self._lock:
            self._sweep()
            self._all[s.id] = s
            while len(self._all) > self.limit:
                self._all.popitem(last=False)
        return s

    def get(self, sid: str | None) -> Session | None:
        """The live session of that id (touched), or None."""
        if not sid or len(sid) > 64:
            return None
        with self._lock:
            s = self._all.get(sid)
            if s is None:
                return None
            now = self.clock()
            if now - s.seen > self.idle:
                del self._all[sid]
                return None
            s.seen = now
            self._all.move_to_end(sid)
            return s

    def _sweep(self) -> None:
        """Forget the sessions idle too long (the oldest are first)."""
        now = self.clock()
        while self._all:
            first = next(iter(self._all.values()))
            if now - first.seen <= self.idle:
                break
            self._all.popitem(last=False)


def set_session_cookie(response: Response, sid: str) -> None:
    """The session's cookie on a response: HTTP only, this site only."""
    response.set_cookie(COOKIE, sid, httponly=True, samesite="strict", path="/")
