"""The rooms on disk: one SQLite file (the standard library's sqlite3, WAL mode, synchronous
FULL) in the server's state folder.  A room is its set-up (rules, target, seats, seed), its
seats' names and tokens, and its records in order: the host's change of the seats before
the start, each person's or computer's move (the engine's actions), an undo, a seat handed
to a computer, the game ended.  A record is
written (and committed) before the move is shown to anyone, so a server killed at any
moment restarts with every room at its last move: the game is replayed from the records
with the room's seed (rooms.py).

Several worker processes (`zilch serve --workers N`) share the file: every write also
appends a row to `changes` (the room and what changed) in its transaction, which each
worker watches (room_hub.py: `pragma data_version`, then the rows since the last seen) to
bring its rooms in memory up to date and push them to its phones; a change of a room is
made holding the room against every other process (`room_lock`: a byte of `rooms.lock`),
the room first brought up to date, so two workers never give one seat or one move number
twice."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import struct
import threading
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FILE = "rooms.sqlite"
SCHEMA = """
create table if not exists rooms (
    code text primary key,
    host text not null,
    spec text not null,
    seed integer not null,
    created real not null,
    touched real not null,
    started integer not null default 0,
    finished integer not null default 0,
    next_code text
);
create table if not exists seats (
    code text not null references rooms(code) on delete cascade,
    k integer not null,
    name text,
    token text,
    primary key (code, k)
);
create table if not exists records (
    code text not null references rooms(code) on delete cascade,
    n integer not null,
    kind text not null,
    seat integer,
    body text not null,
    at real not null,
    primary key (code, n)
);
create table if not exists changes (
    seq integer primary key autoincrement,
    code text not null,
    kind text not null,
    at real not null
);
create index if not exists changes_of_room on changes (code, seq);
"""
LOCKS = "rooms.lock"  # (byte 0: the writers' turn; a byte per room beyond)
ROOM_LOCKS = 1 << 20
CHANGES_KEPT = 3600.0  # seconds a change row is kept (workers read them within a second)


@dataclass
class RoomRow:
    """A room as stored: its set-up, the seats' names and tokens, its records."""

    code: str
    host: str
    spec: dict[str, Any]
    seed: int
    created: float
    touched: float
    started: bool
    finished: bool
    next_code: str | None
    names: list[str | None]
    tokens: list[str | None]
    records: list[dict[str, Any]]
    seen: int = 0  # (the room's last change as read: RoomStore.changed)


@dataclass
class _Pending:
    """A write waiting for its commit (group commit: RoomStore._write)."""

    statements: list[tuple[str, tuple[Any, ...]]]
    done: bool = False
    error: BaseException | None = None


def state_folder(tables_folder: Path) -> Path:
    """The default state folder: beside the tables folder, named `state`."""
    return tables_folder.parent / "state"


class RoomStore:
    """The rooms' SQLite file; every write is committed before it returns."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / FILE
        self._lock = threading.RLock()
        self._watchers: list[sqlite3.Connection] = []
        self._reads = 0  # (a reading() block open on the thread holding _lock)
        self._locks = os.open(folder / LOCKS, os.O_RDWR | os.O_CREAT, 0o600)
        self._turn = threading.Condition()  # (group commit: the writes waiting, the leader)
        self._pending: list[_Pending] = []
        self._committing = False
        self.db = sqlite3.connect(
            self.path, check_same_thread=False, isolation_level=None, timeout=30
        )
        self.db.execute("pragma journal_mode=wal")
        self.db.execute("pragma synchronous=full")
        self.db.execute("pragma foreign_keys=on")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self.db.close()
            os.close(self._locks)

    @contextlib.contextmanager
    def room_lock(self, code: str) -> Iterator[None]:
        """The room held against every other store (process) of the file: a byte of
        `rooms.lock` of its own (the threads of this one hold the room's own lock)."""
        offset = 1 + zlib.crc32(code.encode()) % ROOM_LOCKS
        self._byte(offset, fcntl.F_WRLCK)
        try:
            yield
        finally:
            self._byte(offset, fcntl.F_UNLCK)

    def _byte(self, offset: int, kind: int) -> None:
        """Byte `offset` of `rooms.lock` locked (F_WRLCK, waited for) or let go: an open
        file description's lock (this store's own, whatever the process)."""
        flock = struct.pack("hh4xqqi4x", kind, os.SEEK_SET, offset, 1, 0)
        fcntl.fcntl(self._locks, fcntl.F_OFD_SETLKW, flock)

    def _write(
        self, statements: list[tuple[str, tuple[Any, ...]]], change: tuple[str, str] | None
    ) -> None:
        """The statements committed (each call all or nothing), with `change` (the room's
        code, what changed) noted for the other workers.  Group commit: the calls waiting
        while a commit is made go together in the next (one fsync for all, in savepoints:
        one refused leaves the others); processes take turns on byte 0 of `rooms.lock` (a
        waiting process wakes as it is let go; SQLite's own wait sleeps up to 100 ms)."""
        if change is not None:
            statements = [
                *statements,
                ("insert into changes (code, kind, at) values (?, ?, ?)", (*change, time.time())),
            ]
        job = _Pending(statements)
        with self._turn:
            self._pending.append(job)
            while not job.done:
                if self._committing:
                    self._turn.wait()
                    continue
                self._committing = True
                batch, self._pending = self._pending, []
                self._turn.release()
                try:
                    self._commit(batch)
                finally:
                    self._turn.acquire()
                    self._committing = False
                    self._turn.notify_all()
        if job.error is not None:
            raise job.error

    def _commit(self, batch: list[_Pending]) -> None:
        with self._lock:
            self._byte(0, fcntl.F_WRLCK)
            try:
                self.db.execute("begin immediate")
                for k, job in enumerate(batch):
                    self.db.execute(f"savepoint w{k}")
                    try:
                        for sql, args in job.statements:
                            self.db.execute(sql, args)
                    except Exception as e:
                        self.db.execute(f"rollback to w{k}")
                        job.error = e
                    self.db.execute(f"release w{k}")
                self.db.execute("commit")
            except BaseException as e:
                if self.db.in_transaction:
                    self.db.execute("rollback")
                for job in batch:
                    job.error = job.error or e
                raise
            finally:
                self._byte(0, fcntl.F_UNLCK)
                for job in batch:
                    job.done = True

    def changed(self, code: str) -> int:
        """The room's last change (its number in `changes`; 0: none noted)."""
        with self._lock:
            row = self.db.execute("select max(seq) from changes where code = ?", (code,)).fetchone()
        return int(row[0] or 0)

    def watcher(self) -> sqlite3.Connection:
        """A connection of its own for a worker's watch of the changes (on its event loop):
        `pragma data_version` on it moves when another connection commits."""
        conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._watchers.append(conn)
        return conn

    def close_watchers(self) -> None:
        while self._watchers:
            self._watchers.pop().close()

    def changes_since(self, code: str, seq: int) -> list[str]:
        """What changed in the room after change `seq`, in order (the kinds)."""
        with self._lock:
            rows = self.db.execute(
                "select kind from changes where code = ? and seq > ? order by seq", (code, seq)
            ).fetchall()
        return [str(r[0]) for r in rows]

    def create(self, code: str, host: str, spec: dict[str, Any], seed: int, seats: int) -> None:
        now = time.time()
        rows: list[tuple[str, tuple[Any, ...]]] = [
            (
                "insert into rooms (code, host, spec, seed, created, touched) "
                "values (?, ?, ?, ?, ?, ?)",
                (code, host, json.dumps(spec), seed, now, now),
            )
        ]
        rows += [("insert into seats (code, k) values (?, ?)", (code, k)) for k in range(seats)]
        self._write(rows, (code, "create"))

    def seat(self, code: str, k: int, name: str | None, token: str | None) -> None:
        self._write(
            [
                (
                    "update seats set name = ?, token = ? where code = ? and k = ?",
                    (name, token, code, k),
                ),
                ("update rooms set touched = ? where code = ?", (time.time(), code)),
            ],
            (code, "join" if token else "leave"),
        )

    def reseat(
        self,
        code: str,
        n: int,
        spec: dict[str, Any],
        seats: list[tuple[str | None, str | None]],
        body: Any,
    ) -> None:
        """The host's change of the seats before the start, in one transaction: the room's
        seats now (its set-up, each seat's name and token) and record n saying what changed."""
        now = time.time()
        rows: list[tuple[str, tuple[Any, ...]]] = [
            (
                "update rooms set spec = ?, touched = ? where code = ?",
                (json.dumps(spec), now, code),
            ),
            ("delete from seats where code = ?", (code,)),
            *[
                ("insert into seats (code, k, name, token) values (?, ?, ?, ?)", (code, k, *seat))
                for k, seat in enumerate(seats)
            ],
            (
                "insert into records (code, n, kind, seat, body, at) values (?, ?, ?, ?, ?, ?)",
                (code, n, "seats", None, json.dumps(body), now),
            ),
        ]
        self._write(rows, (code, "seats"))

    def started(self, code: str) -> None:
        self._write(
            [("update rooms set started = 1, touched = ? where code = ?", (time.time(), code))],
            (code, "start"),
        )

    def record(
        self, code: str, n: int, kind: str, seat: int | None, body: Any, finished: bool
    ) -> None:
        """Record n of the room (its number: the records before it); finished: the game is
        over after it."""
        now = time.time()
        self._write(
            [
                (
                    "insert into records (code, n, kind, seat, body, at) values (?, ?, ?, ?, ?, ?)",
                    (code, n, kind, seat, json.dumps(body), now),
                ),
                (
                    "update rooms set touched = ?, finished = ? where code = ?",
                    (now, int(finished), code),
                ),
            ],
            (code, kind),
        )

    def set_host(self, code: str, host: str) -> None:
        self._write([("update rooms set host = ? where code = ?", (host, code))], (code, "host"))

    def set_next(self, code: str, next_code: str) -> None:
        self._write(
            [("update rooms set next_code = ? where code = ?", (next_code, code))],
            (code, "rematch"),
        )

    def load(self, code: str) -> RoomRow | None:
        with self.reading():
            row = self.db.execute(
                "select code, host, spec, seed, created, touched, started, finished, next_code "
                "from rooms where code = ?",
                (code,),
            ).fetchone()
            if row is None:
                return None
            seats = self.db.execute(
                "select name, token from seats where code = ? order by k", (code,)
            ).fetchall()
            records = self.db.execute(
                "select n, kind, seat, body, at from records where code = ? order by n", (code,)
            ).fetchall()
            seen = self.changed(code)
        return RoomRow(
            row[0],
            row[1],
            json.loads(row[2]),
            int(row[3]),
            float(row[4]),
            float(row[5]),
            bool(row[6]),
            bool(row[7]),
            row[8],
            [s[0] for s in seats],
            [s[1] for s in seats],
            [
                {"n": r[0], "kind": r[1], "seat": r[2], "body": json.loads(r[3]), "at": r[4]}
                for r in records
            ],
            seen,
        )

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """One read transaction (a room's rows as of one moment, whoever writes); nested
        blocks join the outer one."""
        with self._lock:
            if self._reads:
                yield
                return
            self.db.execute("begin")
            self._reads = 1
            try:
                yield
            finally:
                self._reads = 0
                self.db.execute("commit")

    def listing(self) -> list[dict[str, Any]]:
        """Every room: code, rules, seats, records, started, finished, created, touched."""
        with self._lock:
            rows = self.db.execute(
                "select r.code, r.spec, r.started, r.finished, r.created, r.touched, "
                "(select count(*) from records x where x.code = r.code), "
                "(select group_concat(coalesce(s.name, '-'), ', ') from seats s "
                "where s.code = r.code) from rooms r order by r.touched desc"
            ).fetchall()
        out = []
        for code, spec, started, finished, created, touched, n, names in rows:
            s = json.loads(spec)
            out.append(
                {
                    "code": code,
                    "rules": s.get("rules_name") or s.get("rules"),
                    "target": s.get("target"),
                    "seats": s.get("seats"),
                    "names": names,
                    "records": n,
                    "started": bool(started),
                    "finished": bool(finished),
                    "created": created,
                    "touched": touched,
                }
            )
        return out

    def count(self) -> int:
        with self._lock:
            return int(self.db.execute("select count(*) from rooms").fetchone()[0])

    def expire(self, idle_seconds: float) -> list[str]:
        """Forget the rooms untouched for idle_seconds: their codes."""
        cutoff = time.time() - idle_seconds
        with self._lock:
            gone = [
                r[0]
                for r in self.db.execute(
                    "select code from rooms where touched < ?", (cutoff,)
                ).fetchall()
            ]
        kept = ("delete from changes where at < ?", (time.time() - CHANGES_KEPT,))
        self._write([*[("delete from rooms where code = ?", (c,)) for c in gone], kept], None)
        return gone


def listing_lines(tables: str | None, state: str | None) -> list[str]:
    """`zilch serve --rooms`: a line per room kept (newest first), or why there is none."""
    from datetime import datetime

    from ..store import Store

    folder = Path(state) if state else state_folder(Store.resolve(tables).folder)
    if not (folder / FILE).is_file():
        return [f"no rooms: {folder / FILE} does not exist yet"]
    store = RoomStore(folder)
    try:
        rows = store.listing()
    finally:
        store.close()
    lines = [f"{len(rows)} room(s) in {folder / FILE}"]
    for r in rows:
        when = datetime.fromtimestamp(r["touched"]).strftime("%Y-%m-%d %H:%M")
        status = "over" if r["finished"] else "playing" if r["started"] else "waiting"
        target = f" to {r['target']}" if r["target"] else ""
        lines.append(
            f"{r['code']}  {r['rules']}{target}  {status:7}  {r['records']:5} moves  "
            f"last {when}  seats: {r['names']}"
        )
    return lines
