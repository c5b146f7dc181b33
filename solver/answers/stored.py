"""`zilch tables`: what the tables folder holds — every stored table and every checkpoint of
an interrupted solve, with its rules, kind, target, size and state — and removing what the
user names (a table being built by another process is left alone)."""

from __future__ import annotations

import contextlib
import fnmatch
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..store import Store
from .base import Answer, Tables_

# a table's file: NAME-KEY-OBJECTIVE.dst (or .zarr, a folder), + .partial while solving
_NAME = re.compile(
    r"^(?P<rules>.+)-(?P<key>[0-9a-f]{16})-(?P<objective>[A-Za-z0-9-]+)"
    r"\.(?P<ext>dst|zarr)(?P<partial>\.partial)?$"
)
KINDS = {  # objective (without its numbers) -> what the table is
    "model": "roll outcomes",
    "reach": "reach bound",
    "reachable": "reachable states",
    "held": "reachable states (permanent points held)",
    "score": "strategy card",
    "lastturn": "last turn",
    "game": "game",
}


@dataclass(frozen=True)
class StoredTable:
    name: str  # the file (or folder) in the tables folder
    rules: str
    kind: str
    target: int | None
    players: int | None
    lowest: int | None  # the lowest score a game keeps (penalty, challenge)
    bytes: int
    state: str  # "complete" or "partial" (an interrupted solve's checkpoint)


@dataclass(frozen=True)
class StoredTables(Answer):
    folder: str
    tables: tuple[StoredTable, ...]
    total_bytes: int
    removed: list[str] | None = None


def listing(store: Store) -> list[tuple[Path, StoredTable]]:
    """Every table and checkpoint in the folder, by name."""
    found = []
    try:
        entries = sorted(store.folder.iterdir())
    except OSError:
        return []
    for p in entries:
        m = _NAME.match(p.name)
        if not m:
            continue
        obj = m["objective"]
        base = re.sub(r"[0-9]+", "", obj.split("-")[0])
        numbers = dict(re.findall(r"([a-z]+)(-?[0-9]+)", obj))
        target = numbers.get("game") or numbers.get("lastturn")
        players = numbers.get("players")
        kind = KINDS.get(base, base)
        lowest = numbers.get("lowest")
        found.append(
            (
                p,
                StoredTable(
                    p.name,
                    m["rules"],
                    kind,
                    int(target) if target else None,
                    int(players) if players else (2 if base == "game" else None),
                    int(lowest) if lowest else None,
                    _size(p),
                    "partial" if m["partial"] else "complete",
                ),
            )
        )
    return found


def _size(p: Path) -> int:
    with contextlib.suppress(OSError):
        if p.is_dir():
            return sum(f.stat().st_size for f in p.rglob("*") if f.is_file())
        return p.stat().st_size
    return 0


def stored_tables(
    tables: Tables_ = None,
    remove: Sequence[str] = (),
    remove_partial: bool = False,
) -> StoredTables:
    """The tables folder's contents; remove: names (or shell patterns such as
    "farkle-*") of tables and checkpoints to delete; remove_partial: every checkpoint."""
    store = tables if isinstance(tables, Store) else Store.resolve(tables)
    found = listing(store)
    removed: list[str] | None = None
    if remove or remove_partial:
        chosen = [
            (p, t)
            for p, t in found
            if (remove_partial and t.state == "partial")
            or any(fnmatch.fnmatchcase(t.name, pat) for pat in remove)
        ]
        unknown = [
            pat for pat in remove if not any(fnmatch.fnmatchcase(t.name, pat) for _, t in found)
        ]
        if unknown:
            raise InputError(
                f"--remove {unknown[0]!r}: no stored table of that name in {store.folder} "
                "(zilch tables lists them)"
            )
        removed = []
        for p, t in chosen:
            _remove(store, p)
            removed.append(t.name)
        found = listing(store)
    entries = tuple(t for _, t in found)
    return StoredTables(str(store.folder), entries, sum(t.bytes for t in entries), removed)


def _remove(store: Store, p: Path) -> None:
    """Delete a table or checkpoint, unless another process holds its build lock."""
    import fcntl

    table = p.with_name(p.name.removesuffix(".partial"))
    lock = table.with_name(table.name + ".lock")  # (Store.lock's, of the table's path)
    fd = None
    with contextlib.suppress(OSError):
        fd = os.open(lock, os.O_RDWR)
    try:
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise InputError(
                    f"--remove {p.name}: another process is solving it now (leave it, or stop "
                    "that process first)"
                ) from None
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        else:
            p.unlink()
    finally:
        if fd is not None:
            os.close(fd)
