"""Server-side sessions: an unguessable id in a cookie, the data on the server, bounded in
idle time, per client and in number.  A session sees only its own data; an unknown or
expired id is no session at all.  (They keep a person's uploaded rule files; the play
screens keep their games in them.)

No visitor's new sessions forget another's game (issue 36 item 2): a client address keeps
at most PER_CLIENT sessions (its own least recently used goes first); past LIMIT in all,
only a session holding nothing (no game, no rule file) of another client is forgotten, and
where every one holds something the new session is refused (503) rather than one of them
forgotten.  Idle ones go after IDLE (those holding nothing after EMPTY_IDLE)."""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import InputError

if TYPE_CHECKING:
    from starlette.responses import Response

COOKIE = "dicesolver_session"
LIMIT = 2000  # sessions kept at once
PER_CLIENT = 32  # sessions one client address keeps (a phone's tabs, a few browsers)
IDLE = 2 * 3600.0  # seconds a session lives unused
EMPTY_IDLE = 600.0  # seconds a session holding nothing lives unused
RULE_FILES = 8  # uploaded rule sets one session keeps of each family (the newest)
RULES_SLOT = "rules"  # a session's uploaded Zilch-family rule sets (key -> RuleSet)
YAHTZEE_SLOT = "yahtzee_rules"  # its uploaded Yahtzee-family ones (key -> YahtzeeRules)
TEXTS_SLOT = "rule_texts"  # both families' files as uploaded (key -> text: a room keeps it)


class Full(InputError):
    """No room for another session without forgetting someone's game: 503."""

    http_status = 503


@dataclass
class Session:
    id: str
    seen: float
    data: dict[str, Any] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    client: str | None = None  # the address that made it

    @property
    def holds(self) -> bool:
        """Does it keep anything (a game, a rule file)?  Then no one else's session takes
        its place."""
        return any(bool(v) for v in self.data.copy().values())  # (a copy: atomic)


class Sessions:
    def __init__(
        self,
        limit: int = LIMIT,
        idle: float = IDLE,
        clock: Callable[[], float] = time.monotonic,
        per_client: int = PER_CLIENT,
        empty_idle: float = EMPTY_IDLE,
    ) -> None:
        self.limit, self.idle, self.clock = limit, idle, clock
        self.per_client, self.empty_idle = per_client, min(empty_idle, idle)
        self._lock = threading.Lock()
        self._all: OrderedDict[str, Session] = OrderedDict()

    def __len__(self) -> int:
        with self._lock:
            return len(self._all)

    def new(self, client: str | None = None) -> Session:
        """A new session of `client` (its address); Full where none can be kept without
        forgetting another client's game or rule files."""
        s = Session(secrets.token_urlsafe(32), self.clock(), client=client)
        with self._lock:
            self._sweep()
            mine = [x for x in self._all.values() if x.client == client]  # (oldest first)
            while len(mine) >= self.per_client:
                del self._all[mine.pop(0).id]
            if len(self._all) >= self.limit:
                spare = next((x for x in self._all.values() if not x.holds), None)
                if spare is None:
                    raise Full(
                        f"the server keeps {len(self._all)} sessions with games or rule "
                        "files in them, as many as it can: try again later"
                    )
                del self._all[spare.id]
            self._all[s.id] = s
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
            if now - s.seen > (self.idle if s.holds else self.empty_idle):
                del self._all[sid]
                return None
            s.seen = now
            self._all.move_to_end(sid)
            return s

    def _sweep(self) -> None:
        """Forget the sessions idle too long (those holding nothing sooner)."""
        now = self.clock()
        old = [
            x.id
            for x in self._all.values()
            if now - x.seen > (self.idle if x.holds else self.empty_idle)
        ]
        for sid in old:
            del self._all[sid]


def set_session_cookie(response: Response, sid: str) -> None:
    """The session's cookie on a response: HTTP only, this site only."""
    response.set_cookie(COOKIE, sid, httponly=True, samesite="strict", path="/")
