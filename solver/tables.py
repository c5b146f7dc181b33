"""Versioned, checksummed table files, written atomically.

Layout of a file: the magic line, one line of JSON header (format and solver versions, the
objective, the rule-set hash, the arrays' names, dtypes and shapes), the arrays' raw bytes,
then the SHA-256 of everything before it.  A file whose checksum, versions or rule-set hash
do not match is never trusted: ``load`` returns None and the caller rebuilds it.
"""
from __future__ import annotations

import hashlib
import json
import mmap
import os
import tempfile
from pathlib import Path

import numpy as np

from . import SOLVER_VERSION

MAGIC = b"DICESOLVER-TABLE\n"
FORMAT_VERSION = 1
ENV = "DICESOLVER_TABLES"


def table_dir(override: str | None = None) -> Path:
    """Where tables live: --tables, $DICESOLVER_TABLES, the project's tables/ in a writable
    source checkout, else the user's cache directory."""
    if override or os.environ.get(ENV):
        return Path(override or os.environ[ENV])
    root = Path(__file__).resolve().parent.parent
    here = root / "tables"
    # only in a source checkout: an installed package's neighbour "tables" is someone else's
    if (root / "pyproject.toml").is_file() and here.is_dir() and os.access(here, os.W_OK):
        return here
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "dicesolver" / "tables"


def file_name(rules_name: str, digest: str, objective: str) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in rules_name)
    return f"{safe}-{digest[:16]}-{objective}.dst"


def save(path: Path, meta: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write atomically: a temporary file in the same folder, fsync, then rename over.
    The arrays are streamed (and hashed) one by one: no copy of the whole table in memory."""
    arrays = {name: np.ascontiguousarray(arr) for name, arr in arrays.items()}
    layout = [{"name": name, "dtype": arr.dtype.str, "shape": list(arr.shape)}
              for name, arr in arrays.items()]
    header = dict(meta, format=FORMAT_VERSION, solver=SOLVER_VERSION, layout=layout)
    head = MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            digest = hashlib.sha256()
            for part in [head] + [memoryview(arr).cast("B") for arr in arrays.values()]:
                f.write(part)
                digest.update(part)
            f.write(digest.digest())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load(path: Path, expect: dict) -> tuple[dict, dict[str, np.ndarray]] | None:
    """The header and arrays, or None if the file is missing, corrupt or stale.

    The file is memory-mapped: the checksum is computed over the mapping and the arrays
    are read-only views of it (no copy; pages come from the OS cache as they are used).
    Files are only ever replaced, never rewritten in place, so a mapping stays valid."""
    try:
        with open(path, "rb") as f:
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):           # missing, unreadable or empty
        return None
    if len(data) < len(MAGIC) + 32 or data[:len(MAGIC)] != MAGIC:
        return None
    view = memoryview(data)
    body, digest = view[:-32], view[-32:]
    if hashlib.sha256(body).digest() != digest:
        return None
    nl = data.find(b"\n", len(MAGIC))
    try:
        header = json.loads(data[len(MAGIC):nl])
    except ValueError:
        return None
    if header.get("format") != FORMAT_VERSION or header.get("solver") != SOLVER_VERSION:
        return None
    if any(header.get(k) != v for k, v in expect.items()):
        return None
    arrays, pos = {}, nl + 1
    for item in header["layout"]:
        dt = np.dtype(item["dtype"])
        count = int(np.prod(item["shape"], dtype=np.int64))
        arrays[item["name"]] = np.frombuffer(body, dt, count, pos).reshape(item["shape"])
        pos += count * dt.itemsize
    if pos != len(body):
        return None
    return header, arrays


def cached(path: Path, expect: dict, build):
    """Load a table, or build (meta, arrays) with ``build()``, store it and return it.

    Storing is best effort: a read-only folder still answers the query.
    """
    got = load(path, expect)
    if got is not None:
        return got
    meta, arrays = build()
    meta = dict(meta, **expect)
    try:
        save(path, meta, arrays)
    except OSError:
        pass  # a folder we cannot write to still answers from memory
    return dict(meta, format=FORMAT_VERSION, solver=SOLVER_VERSION), arrays
