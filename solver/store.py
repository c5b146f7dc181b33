"""Where solved tables live: versioned, checksummed files, written atomically, memory-mapped.

A Store is made once, from ``--tables``, else ``$DICESOLVER_TABLES``, else the project's
``tables/`` in a writable source checkout, else the user's cache folder, and passed down to
whatever keeps a table; nothing else looks a folder up.

Layout of a file: the magic line, one line of JSON header (format and solver versions, the
objective, the rule-set hash, the arrays' names, dtypes and shapes), the arrays' raw bytes,
then the SHA-256 of everything before it.  A file whose checksum, versions or rule-set hash
do not match is never trusted: ``load`` returns None and the caller rebuilds it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import mmap
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import InputError
from .files import replacing

MAGIC = b"DICESOLVER-TABLE\n"
FORMAT_VERSION = 1
# Bumped whenever a change can alter a solved value; stored in every table file.
SOLVER_VERSION = 3
ENV = "DICESOLVER_TABLES"

Arrays = dict[str, np.ndarray]


LONG_INLINE = 2.0  # seconds: an inline build estimated at this or more is said first


def notify(message: str) -> None:
    """What a long wait says (the command line prints it on stderr; the API is silent)."""


# (header, arrays) -> is this table what its reader needs?  (a crafted file can have a valid
# checksum and still not be: it is then rebuilt like a corrupt one)
Check = Callable[[dict, Arrays], bool]
DTYPES = {"<f8", "<i8", "<i4", "|b1"}  # what tables are made of
# a table's file (Store.path): NAME-KEY-OBJECTIVE.dst (or .zarr, a folder), + .partial while
# solving (its checkpoint)
NAME = re.compile(
    r"^(?P<rules>.+)-(?P<key>[0-9a-f]{16})-(?P<objective>[A-Za-z0-9-]+)"
    r"\.(?P<ext>dst|zarr)(?P<partial>\.partial)?$"
)


class Busy(InputError):
    """Another process holds the table's build lock (it is solving it now)."""


@dataclass(frozen=True)
class Entry:
    """A table or a checkpoint in the folder, by its file's name."""

    path: Path
    rules: str
    objective: str
    partial: bool

    @property
    def bytes(self) -> int:
        """Its size on disk (a folder's files summed; 0 where it cannot be read)."""
        with contextlib.suppress(OSError):
            p = self.path
            if p.is_dir():
                return sum(f.stat().st_size for f in p.rglob("*") if f.is_file())
            return p.stat().st_size
        return 0


@dataclass(frozen=True)
class Store:
    folder: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "folder", Path(self.folder))  # a str is welcome too

    @classmethod
    def resolve(cls, option: str | os.PathLike | None = None) -> Store:
        """--tables, $DICESOLVER_TABLES, the project's tables/ in a writable source checkout,
        else the user's cache folder."""
        if option or os.environ.get(ENV):
            folder = Path(option or os.environ[ENV])
            if folder.exists() and not folder.is_dir():
                what = "tables" if option else f"${ENV}"
                raise InputError(f"{what} {folder}: not a folder", "tables")
            return cls(folder)
        root = Path(__file__).resolve().parent.parent
        here = root / "tables"
        # only in a source checkout: an installed package's neighbour "tables" is someone
        # else's
        if (root / "pyproject.toml").is_file() and here.is_dir() and os.access(here, os.W_OK):
            return cls(here)
        cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        return cls(cache / "dicesolver" / "tables")

    def path(self, rules_name: str, digest: str, objective: str, suffix: str = ".dst") -> Path:
        safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in rules_name)
        return self.folder / f"{safe}-{digest[:16]}-{objective}{suffix}"

    def find(self, rules_name: str, digest: str, objective: str, suffix: str = ".dst") -> Path:
        """The table's file: under this name, else under any other name with the same
        definition (a copy of a preset under another name finds the preset's tables), else
        the path a new one gets."""
        path = self.path(rules_name, digest, objective, suffix)
        if path.exists():
            return path
        with contextlib.suppress(OSError):
            for other in sorted(self.folder.glob(f"*-{digest[:16]}-{objective}{suffix}")):
                return other
        return path

    def load(
        self,
        rules_name: str,
        digest: str,
        objective: str,
        expect: dict | None = None,
        check: Check | None = None,
    ) -> tuple[dict, Arrays] | None:
        """A stored table, or None if it is missing, corrupt, stale or not what `check`
        needs."""
        got = load(
            self.find(rules_name, digest, objective),
            dict(expect or {}, objective=objective, rules_hash=digest),
        )
        return got if got is None or _passes(check, got) else None

    def cached(
        self,
        rules_name: str,
        digest: str,
        objective: str,
        build: Callable[[], tuple[dict, Arrays]],
        expect: dict | None = None,
        check: Check | None = None,
    ) -> tuple[dict, Arrays]:
        """Load a table, or build (meta, arrays) with ``build()``, store it and return it.
        A process building a table holds its lock: another one wanting it waits, then
        loads it.  Storing is best effort: a folder we cannot write to still answers."""
        expect = dict(expect or {}, objective=objective, rules_hash=digest)
        path = self.find(rules_name, digest, objective)
        got = load(path, expect)
        if got is not None and _passes(check, got):
            return got
        with self.lock(path):
            got = load(path, expect)  # built meanwhile by the process we waited for?
            if got is not None and _passes(check, got):
                return got
            meta, arrays = build()
            meta = dict(meta, **expect)
            try:
                save(path, meta, arrays)
            except OSError:
                pass
        return dict(meta, format=FORMAT_VERSION, solver=SOLVER_VERSION), arrays

    def inline(self, rules_name: str, digest: str, objective: str, seconds: float) -> None:
        """A build estimated at `seconds` is about to run in this thread: said where it is
        long (the command line prints it on stderr); the web's store (web/guard.py) makes
        it a background job past its bound instead (issue 36 item 4)."""
        if seconds >= LONG_INLINE:
            from .limits import duration

            notify(f"building the {rules_name} table {objective!r}: about {duration(seconds)} ...")

    @contextlib.contextmanager
    def lock(self, path: Path) -> Iterator[None]:
        """Hold `path`'s lock (a `.lock` file beside it) while building it; then remove
        what an interrupted save left (its temporary files).  Best effort: without a
        writable folder (or on a system without flock) the build goes on unlocked."""
        try:
            import fcntl

            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o666)
        except (ImportError, OSError):
            yield
            return
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                notify(f"waiting for another process building {path.name} ...")
                fcntl.flock(fd, fcntl.LOCK_EX)
            for old in path.parent.glob(path.name + "*.tmp"):
                with contextlib.suppress(OSError):
                    old.unlink()
            yield
        finally:
            os.close(fd)

    def entries(self) -> list[Entry]:
        """Every table and checkpoint in the folder, by name (none: no such folder)."""
        try:
            paths = sorted(self.folder.iterdir())
        except OSError:
            return []
        found = [(p, NAME.match(p.name)) for p in paths]
        return [Entry(p, m["rules"], m["objective"], bool(m["partial"])) for p, m in found if m]

    def remove(self, entries: list[Entry]) -> list[str]:
        """Delete tables and checkpoints, all or none: every one's build lock is taken first
        (Busy, nothing deleted, where another process is solving one of them now), then each
        is deleted in turn; the names deleted.  An error on the way (a file that cannot be
        deleted) says which were deleted before it."""
        done: list[str] = []
        with self._locked(
            [e.path.with_name(e.path.name.removesuffix(".partial")) for e in entries]
        ):
            for e in entries:
                try:
                    if e.path.is_dir() and not e.path.is_symlink():
                        import shutil

                        shutil.rmtree(e.path)
                    else:
                        e.path.unlink()
                except OSError as err:
                    gone = f" (removed before it: {', '.join(done)})" if done else ""
                    raise InputError(
                        f"{e.path.name}: cannot remove it ({err.strerror}){gone}"
                    ) from None
                done.append(e.path.name)
        return done

    @contextlib.contextmanager
    def _locked(self, tables: list[Path]) -> Iterator[None]:
        """Every table's build lock held (without waiting: Busy names those another process
        holds); a table without a lock file is being built by nobody."""
        import fcntl

        fds: list[int] = []
        busy: list[str] = []
        try:
            for table in dict.fromkeys(tables):
                try:
                    fd = os.open(table.with_name(table.name + ".lock"), os.O_RDWR)  # (lock()'s)
                except OSError:
                    continue
                fds.append(fd)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    busy.append(table.name)
            if busy:
                raise Busy(f"{', '.join(busy)}: another process is solving it now")
            yield
        finally:
            for fd in fds:
                os.close(fd)

    def checkpoint(self, rules_name: str, digest: str, objective: str) -> Checkpoint:
        """Where a long solve of that table saves its progress."""
        return Checkpoint(self.find(rules_name, digest, objective, ".dst.partial"))


@dataclass(frozen=True)
class Checkpoint:
    """An interrupted solve's progress: saved now and then, resumed from, discarded at the
    end.  Best effort, like the tables."""

    path: Path

    def load(self, expect: dict) -> tuple[dict, Arrays] | None:
        return load(self.path, expect)

    def save(self, meta: dict, arrays: Arrays) -> None:
        try:
            save(self.path, meta, arrays)
        except OSError:
            pass

    def discard(self) -> None:
        try:
            self.path.unlink(missing_ok=True)
        except OSError:
            pass


def save(path: Path, meta: dict, arrays: Arrays) -> None:
    """Write atomically: a temporary file in the same folder, fsync, then rename over.
    The arrays are streamed (and hashed) one by one: no copy of the whole table in memory."""
    arrays = {name: np.ascontiguousarray(arr) for name, arr in arrays.items()}
    layout = [
        {"name": name, "dtype": arr.dtype.str, "shape": list(arr.shape)}
        for name, arr in arrays.items()
    ]
    header = dict(meta, format=FORMAT_VERSION, solver=SOLVER_VERSION, layout=layout)
    head = MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path) as f:
        digest = hashlib.sha256()
        parts: list[bytes | memoryview] = [head]
        parts += [arr.data.cast("B") for arr in arrays.values()]
        for part in parts:
            f.write(part)
            digest.update(part)
        f.write(digest.digest())


def load(path: Path, expect: dict, whole: bool = True) -> tuple[dict, Arrays] | None:
    """The header and arrays, or None if the file is missing, corrupt or stale.

    The file is memory-mapped: the checksum is computed over the mapping and the arrays
    are read-only views of it (no copy; pages come from the OS cache as they are used).
    Files are only ever replaced, never rewritten in place, so a mapping stays valid.
    whole=False skips the whole file's checksum: for a reader that checks the parts it
    reads itself, by digests its header lists (yahtzee/threshold_store.py)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a folder, a pipe, a device: no table
            return None
        with open(path, "rb") as f:
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # missing, unreadable or empty
        return None
    if len(data) < len(MAGIC) + 32 or data[: len(MAGIC)] != MAGIC:
        return None
    view = memoryview(data)
    body, digest = view[:-32], view[-32:]
    if whole and hashlib.sha256(body).digest() != digest:
        return None
    nl = data.find(b"\n", len(MAGIC))
    try:
        header = json.loads(data[len(MAGIC) : nl])
    except (ValueError, RecursionError):
        return None
    if not isinstance(header, dict):
        return None
    if header.get("format") != FORMAT_VERSION or header.get("solver") != SOLVER_VERSION:
        return None
    if any(header.get(k) != v for k, v in expect.items()):
        return None
    arrays = _views(body, header.get("layout"), nl + 1)
    if arrays is None:
        return None
    return header, arrays


def _views(body: memoryview, layout: object, pos: int) -> Arrays | None:
    """The arrays a header's layout lists, read-only views of `body` from `pos` on; None
    unless the layout is sound and its arrays fill the rest of the body exactly."""
    if not isinstance(layout, list):
        return None
    arrays = {}
    for item in layout:
        if not _sound(item):
            return None
        dt = np.dtype(item["dtype"])
        count = int(np.prod(item["shape"], dtype=np.int64))
        if pos + count * dt.itemsize > len(body):
            return None
        arrays[item["name"]] = np.frombuffer(body, dt, count, pos).reshape(item["shape"])
        pos += count * dt.itemsize
    if pos != len(body):
        return None
    return arrays


def _sound(item: object) -> bool:
    """One array's entry of a header's layout: a name, a dtype tables use, a shape."""
    return (
        isinstance(item, dict)
        and isinstance(item.get("name"), str)
        and item.get("dtype") in DTYPES
        and isinstance(item.get("shape"), list)
        and len(item["shape"]) <= 8
        and all(isinstance(n, int) and 0 <= n < 1 << 40 for n in item["shape"])
    )


def _passes(check: Check | None, got: tuple[dict, Arrays]) -> bool:
    """Does a loaded table hold what its reader needs?  (an error while checking: no)"""
    if check is None:
        return True
    try:
        return bool(check(*got))
    except (KeyError, IndexError, ValueError, TypeError, AttributeError):
        return False
