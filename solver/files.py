"""A user's files: a regular file (not a folder, a device or a pipe), of a bounded size where
it is read whole, as UTF-8 text; every other case is one clear InputError.  And the one way
a file is written: beside its path, then renamed over it (tables, exports, pictures)."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from .errors import InputError

SMALL = 1 << 20  # rule and policy files: 1 MB is far more than any needs
_UMASK = os.umask(0)
os.umask(_UMASK)  # (read once: files are written with the user's umask)


def regular(path: str, what: str) -> os.stat_result:
    """The file's status, or InputError unless it is a regular file we can read."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise InputError(f"{what} {path}: cannot read it ({e.strerror})") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"{what} {path}: is a folder, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{what} {path}: not a regular file (a device or a pipe)")
    return st


def read_text(path: str, what: str, limit: int = SMALL) -> str:
    """A small text file, whole."""
    st = regular(path, what)
    if st.st_size > limit:
        raise InputError(
            f"{what} {path}: {st.st_size} bytes, more than such a file can be ({limit})"
        )
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise InputError(f"{what} {path}: cannot read it ({e.strerror})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{what} {path}: not UTF-8 text (byte {e.start})") from None


def open_binary(path: str, what: str) -> BinaryIO:
    """A data file of any size, to read in chunks."""
    regular(path, what)
    try:
        return open(path, "rb")
    except OSError as e:
        raise InputError(f"{what} {path}: cannot read it ({e.strerror})") from None


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[BinaryIO]:
    """A file written beside `path` (PATH...tmp), flushed to disk and renamed over `path`
    once complete: never half-written (an error or Ctrl-C removes it), and with the user's
    umask like any file they write (the temporary file's own mode is 0600)."""
    import tempfile

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
