"""Answers from stored tables, kept (issue 38, answers in milliseconds): the same question
asked again is answered from memory, on the event loop, without a worker thread, reading
no table and hashing no file.

An answer depends on its question and on which tables are stored (a game table built
since may change what a question with scores answers): the key holds the tables folder's
modification time, which every table stored or removed changes (files are written beside
and renamed in).  Only plain questions are kept (JSON values, no uploaded text); refusals
and missing tables are never kept."""

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
