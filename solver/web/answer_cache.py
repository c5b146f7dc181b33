"""Answers from stored tables, kept (issue 38, answers in milliseconds): the same question
asked again is answered from memory, on the event loop, without a worker thread, reading
no table and hashing no file.

An answer depends on its question and on which tables are stored (a game table built
since may change what a question with scores answers): the key holds the tables folder's
modification time, which every table stored or removed changes (files are written beside
and renamed in).  Only plain questions are kept (JSON values, no uploaded text); refusals
and missing tables are never kept.

Two more layers over it, for the questions asked most (issue 38, measured: of a cached
answer's ~2 ms in process, a third was reading the API function's signature, a quarter
turning the answer into JSON; a page's time was two thirds its template): the API's
response bytes by the request's own body (`body_key`), and the lookup pages' HTML
(`PageCache`: rendered once with a stand-in for the form token, which each response gets
back as its own)."""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

SIZE = 4096  # answers kept (the least recently asked forgotten first)
SIZE_ENV = "DICESOLVER_ANSWER_CACHE"  # another size (0: none kept, every answer computed)
LONGEST_KEY = 2048  # a question's JSON longer than this is not kept
UPLOADS = ("rules_text", "log_text", "policy_text", "vs_text")


class AnswerCache:
    def __init__(self, folder: Path, size: int | None = None) -> None:
        if size is None:
            try:
                size = int(os.environ.get(SIZE_ENV, SIZE))
            except ValueError:
                size = SIZE
        self.folder, self.size = folder, size
        self._lock = threading.Lock()
        self._kept: OrderedDict[str, Any] = OrderedDict()
        self.hits = self.misses = 0

    def key(self, name: str, kwargs: dict[str, Any]) -> str | None:
        """The question's key, or None where it is not kept (an upload, a value that is
        not plain JSON, a long question)."""
        if self.size <= 0 or any(k in kwargs for k in UPLOADS):
            return None
        try:
            text = json.dumps([name, kwargs], sort_keys=True, allow_nan=False)
        except (TypeError, ValueError):
            return None
        if len(text) > LONGEST_KEY:
            return None
        try:
            stamp = os.stat(self.folder).st_mtime_ns
        except OSError:
            stamp = 0
        return f"{stamp}:{text}"

    def stamp(self) -> int:
        try:
            return os.stat(self.folder).st_mtime_ns
        except OSError:
            return 0

    def body_key(self, name: str, raw: bytes) -> str | None:
        """The key of a JSON API request's response by its name and body as sent (the
        same bytes parse to the same question); None where nothing is kept."""
        if self.size <= 0 or len(raw) > LONGEST_KEY:
            return None
        return f"{self.stamp()}:api:{name}:{raw.decode('latin-1')}"

    def get(self, key: str) -> Any:
        with self._lock:
            got = self._kept.get(key)
            if got is None:
                self.misses += 1
                return None
            self._kept.move_to_end(key)
            self.hits += 1
            return got

    def put(self, key: str, answer: Any) -> None:
        with self._lock:
            self._kept[key] = answer
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)


PLACEHOLDER = "csrf-stand-in-0f6a3c9e1b7d4e2a8c5f"  # (the form token's place in a kept page)
PAGES = ("roll.html", "dice.html", "card.html", "yahtzee.html")  # (lookups from tables)


class PageCache:
    """The lookup screens' HTML by their address (path and query), the tables folder's
    stamp: kept only for GET pages that answered from stored tables, for a browser with no
    uploaded rules (those lists are the session's), without a build offered (its token is
    the page's own).  The form token is a stand-in, replaced per response."""

    def __init__(self, answers: AnswerCache) -> None:
        self.answers = answers
        self._lock = threading.Lock()
        self._kept: OrderedDict[str, tuple[int, str]] = OrderedDict()

    def key(self, method: str, url: str, template: str) -> str | None:
        if self.answers.size <= 0 or method != "GET" or template not in PAGES:
            return None
        if len(url) > LONGEST_KEY:
            return None
        return f"{self.answers.stamp()}:{template}:{url}"

    def get(self, key: str, token: str) -> tuple[int, str] | None:
        """(status, the page with this browser's form token), or None."""
        with self._lock:
            got = self._kept.get(key)
            if got is None:
                return None
            self._kept.move_to_end(key)
        return got[0], got[1].replace(PLACEHOLDER, token)

    def put(self, key: str, status: int, html: str, ctx: dict[str, Any]) -> None:
        """Kept where the page answered (no build offered on it)."""
        if "answer" not in ctx or "offer" in ctx:
            return
        with self._lock:
            self._kept[key] = (status, html)
            while len(self._kept) > self.answers.size:
                self._kept.popitem(last=False)
