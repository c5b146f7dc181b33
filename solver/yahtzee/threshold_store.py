"""The threshold tables' level files, read in part (issue 37: a cold query from any state in
at most a second, where a level's vectors take up to half a GB).

A level file is an ordinary table file of the store (store.py: written atomically, the
SHA-256 of the whole file at its end) whose header also lists the SHA-256 of every BLOCK
bytes of each of its arrays.  A build reads the next level whole and checks the whole file;
a query maps the file, checks the small arrays (states, offsets) whole and, of the vectors,
only the blocks holding the rows it reads (a few MiB).  A block that does not match its
digest makes the level corrupt: the query rebuilds it as it would a missing one.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..store import Arrays, load

BLOCK = 1 << 20  # the bytes one digest covers


def block_sums(arr: np.ndarray) -> list[str]:
    """The SHA-256 (hex) of each BLOCK bytes of an array's raw bytes (the last block
    shorter)."""
    raw = np.ascontiguousarray(arr).data.cast("B")
    return [hashlib.sha256(raw[i : i + BLOCK]).hexdigest() for i in range(0, len(raw), BLOCK)]


def digests(arrays: Arrays) -> dict:
    """The header's entry "blocks": each array's block digests."""
    return {"size": BLOCK, "sha256": {name: block_sums(a) for name, a in arrays.items()}}


@dataclass(eq=False)
class Blocks:
    """A mapped level's vectors and their block digests: a block is checked once, the first
    time a query reads it."""

    data: np.ndarray
    sums: list[str]
    good: set[int] = field(default_factory=set)

    def check(self, starts: np.ndarray, stops: np.ndarray) -> bool:
        """Do data[starts[i] : stops[i]] (element indices) lie in blocks that match their
        digests?"""
        per = BLOCK // self.data.itemsize
        wanted: set[int] = set()
        for a, b in zip(starts.tolist(), stops.tolist()):
            if b > a:
                wanted.update(range(a // per, (b - 1) // per + 1))
        raw = self.data.data.cast("B")
        for k in sorted(wanted - self.good):
            part = raw[k * BLOCK : (k + 1) * BLOCK]
            if k >= len(self.sums) or hashlib.sha256(part).hexdigest() != self.sums[k]:
                return False
            self.good.add(k)
        return True


def _sums(header: dict, arrays: Arrays) -> dict[str, list[str]] | None:
    """The header's block digests, if they are what such a header holds: a list of the
    right length per array."""
    blocks = header.get("blocks")
    if not isinstance(blocks, dict) or blocks.get("size") != BLOCK:
        return None
    sums = blocks.get("sha256")
    if not isinstance(sums, dict) or set(sums) != set(arrays):
        return None
    for name, arr in arrays.items():
        got = sums[name]
        n = -(-arr.nbytes // BLOCK)
        if not isinstance(got, list) or len(got) != n or not all(isinstance(s, str) for s in got):
            return None
    return sums


def _sound(a: Arrays) -> bool:
    """states (n, 3) and off (n + 1,) int64, off rising from 0 to the length of data."""
    s, off, data = a.get("states"), a.get("off"), a.get("data")
    if s is None or off is None or data is None:
        return False
    return (
        s.ndim == 2
        and s.shape[1] == 3
        and s.dtype == np.int64
        and off.shape == (len(s) + 1,)
        and off.dtype == np.int64
        and data.ndim == 1
        and data.dtype == np.float64
        and int(off[0]) == 0
        and int(off[-1]) == len(data)
        and bool((np.diff(off) >= 0).all())
    )


def open_level(path: Path, expect: dict) -> tuple[dict, Arrays, Blocks] | None:
    """A level file mapped for a query: its header (checked against `expect`), its arrays
    (states and off checked whole) and the digests of its vectors' blocks; None where it is
    missing, stale, of an older layout or corrupt in what was checked."""
    got = load(path, expect, whole=False)
    if got is None:
        return None
    header, arrays = got
    sums = _sums(header, arrays)
    if sums is None or not _sound(arrays):
        return None
    if any(block_sums(arrays[name]) != sums[name] for name in ("states", "off")):
        return None
    return header, arrays, Blocks(arrays["data"], sums["data"])
