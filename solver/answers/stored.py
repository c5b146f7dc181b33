"""`zilch tables`: what the tables folder holds — every stored table and every checkpoint of
an interrupted solve, with its rules, kind, target, size and state — and removing what the
user names (a table being built by another process is left alone)."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import InputError
from ..store import Busy, Entry, Store
from .answer import Answer
from .inputs import Tables_

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


def listing(store: Store) -> list[tuple[Entry, StoredTable]]:
    """Every table and checkpoint in the folder, by name."""
    return [(e, _table(e)) for e in store.entries()]


def _table(e: Entry) -> StoredTable:
    """What the file's name says of it: the rules, the kind of table, its game."""
    obj = e.objective
    base = re.sub(r"[0-9]+", "", obj.split("-")[0])
    numbers = dict(re.findall(r"([a-z]+)(-?[0-9]+)", obj))
    target = numbers.get("game") or numbers.get("lastturn")
    players = numbers.get("players")
    lowest = numbers.get("lowest")
    return StoredTable(
        e.path.name,
        e.rules,
        KINDS.get(base, base),
        int(target) if target else None,
        int(players) if players else (2 if base == "game" else None),
        int(lowest) if lowest else None,
        e.bytes,
        "partial" if e.partial else "complete",
    )


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
        try:
            removed = store.remove([e for e, _ in chosen])
        except Busy as busy:
            raise InputError(
                f"--remove {busy} (leave it, or stop that process first); nothing was removed"
            ) from None
        found = listing(store)
    entries = tuple(t for _, t in found)
    return StoredTables(str(store.folder), entries, sum(t.bytes for t in entries), removed)
