"""A user's files: a regular file (not a folder, a device or a pipe), of a bounded size where
it is read whole, as UTF-8 text; every other case is one clear InputError.  The one way a
file is written: beside its path, then renamed over it (tables, exports, pictures).  And the
files a command writes (a picture, an export, a log, a results file): checked before any
long work, and never over a file the command reads."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator, Sequence
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


def write_atomic(path: str, data: bytes) -> None:
    """The whole of data to path, never half-written."""
    with atomic_file(path) as f:
        f.write(data)


@contextlib.contextmanager
def atomic_file(path: str, field: str = "out") -> Iterator[BinaryIO]:
    """A file to write as it comes (replacing: never half-written), or a device or a pipe
    written directly; field: the input that names it (its errors start with it)."""
    p = Path(path)
    if p.exists() and not p.is_file():  # a device or a pipe (/dev/null, a FIFO): write to it
        try:  # (a pipe nobody reads: refused, not waited on)
            fd = os.open(p, os.O_WRONLY | os.O_NONBLOCK)
            os.set_blocking(fd, True)
            with os.fdopen(fd, "wb") as f:
                yield f
        except OSError as e:
            raise InputError(f"{field} {path}: cannot write it ({e.strerror})", field) from None
        return
    try:
        with replacing(p) as f:
            yield f
    except OSError as e:
        raise InputError(f"{field} {path}: cannot write it ({e.strerror})", field) from None


def out_path(path: str, suffix: str | None = None, what: str = "out") -> str:
    """An output file, checked before any long work: its folder exists and it is not a
    folder itself.  suffix: added where the name has none (what the writer would do).
    what: the input that names it (its errors start with it: the field)."""

    if not path or path.endswith(("/", os.sep)) or Path(path).is_dir():
        raise InputError(f"{what} {path!r}: a file name is needed (not a folder)", what)
    p = Path(path)
    if suffix and not p.suffix:
        p = p.with_name(p.name + suffix)
    if p.is_dir():
        raise InputError(f"{what} {path}: is a folder; give a file name", what)
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(f"{what} {path}: the folder {parent} does not exist", what)
    if not p.exists() and not os.access(parent, os.W_OK):
        raise InputError(f"{what} {path}: the folder {parent} cannot be written to", what)
    return str(p)


def new_file(
    path: str,
    what: str = "log",
    force: bool = False,
    append: bool = False,
    reading: Sequence[object] = (),
) -> str:
    """A log or a results file a command writes (out_path's checks first), refused where it
    exists unless asked: force overwrites it, append adds to it; never a file the command
    reads (`reading`: the rule file, the policy file), not even with force.  A device or a
    pipe (/dev/null) holds nothing to lose: written to."""
    import stat

    if force and append:
        raise InputError("`force` overwrites, `append` adds: give one of them")
    path = out_path(path, what=what)
    try:
        st = os.stat(path)
    except OSError:
        return path  # (a new file)
    for other in reading:
        if isinstance(other, str | os.PathLike) and _same_file(path, other):
            raise InputError(
                f"{what} {path} is the file this command reads ({other}): give another file",
                what,
            )
    if stat.S_ISREG(st.st_mode) and not (force or append):
        raise InputError(
            f"{what} {path} exists: give `force` to overwrite it or `append` to add to it",
            what,
        )
    return path


def _same_file(a: str, b: str | os.PathLike) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False
