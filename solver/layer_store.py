"""The N-player game's table on disk: a Zarr group of chunked arrays, filled layer by layer.

`values` (states, N): every state's chances, the score sums from the top down (the order of
solution), each sum's states in lexicographic order (nplayer_game.layer_states); `final_keys`
and `final_rel`: the final-round table (nplayer_game.FinalTable; no `final_rel`, and no keys,
where reaching the target wins at once).  The attributes say what the table is (rules hash,
players, target, ...) and how far it is solved.

A solve writes into `NAME.zarr.partial` (its checkpoint) and renames it to `NAME.zarr` once
complete.  Nothing is trusted that its checksum does not cover:
- the checkpoint records the SHA-256 of each layer as the client holds it (and of the
  final-round members); a resumed solve reads every layer back, and the first one that does
  not match (or does not decode) is solved again with every layer after it;
- the complete table carries the SHA-256 of every member, and the members' names, shapes,
  dtypes and chunks are checked against what the table must hold before any is read: a
  reader only ever uses a complete, whole table (a damaged one is rebuilt, or refused by a
  query that never solves).
Every worker of a cluster reads the same folder: on several machines it must be on a
filesystem they share (docs/scaling.md).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import InputError
from .store import SOLVER_VERSION

if TYPE_CHECKING:
    import zarr

    from .rules import RuleSet

LAYOUT = 2  # 2: a checksum per member and per checkpoint layer (1: of `values` only)
CHUNK = 1 << 16  # states per chunk of `values`


class Damaged(Exception):
    """A checkpoint's layer read back other than it was written (found by a worker catching
    up on the layers above its task's: the client checks the checkpoint and solves again)."""


def layer_sizes(R: int, N: int) -> np.ndarray:
    """sizes[sigma]: how many score tuples of N scores below R sum to sigma."""
    sizes = np.ones(1, np.int64)
    for _ in range(N):
        sizes = np.convolve(sizes, np.ones(R, np.int64))
    return sizes


def layer_offsets(R: int, N: int) -> np.ndarray:
    """offsets[sigma]: where sum sigma's states start in `values` (top sum first)."""
    sizes = layer_sizes(R, N)
    after = np.cumsum(sizes[::-1])[::-1]  # states of sums >= sigma
    return after - sizes


Spec = tuple[tuple[int, ...], str, tuple[int, ...]]  # a member's shape, dtype and chunks
# What a table is (its attributes, as JSON): values of several types by key (Any)
Meta = dict[str, Any]


def members(meta: Meta) -> dict[str, Spec]:
    """Every member a table of `meta` holds: name -> (shape, dtype, chunks)."""
    R, N, D, K = (int(meta[k]) for k in ("R", "players", "D", "keys"))
    n = int(layer_sizes(R, N).sum())
    got: dict[str, Spec] = {
        "values": ((n, N), "<f8", (min(CHUNK, n), N)),
        "final_keys": ((K, N - 1), "<i8", (max(K, 1), N - 1)),
    }
    if meta["final_round"]:
        got["final_rel"] = ((K, R + D + 1, N), "<f8", (1, R + D + 1, N))
    return got


@dataclass(frozen=True)
class LayerStore:
    """One N-player table's folder (complete) and its partial twin (while solving)."""

    path: Path
    meta: Meta  # what the table is: rules hash, players, target, R, D, batch, keys, ...

    @property
    def partial(self) -> Path:
        return self.path.with_name(self.path.name + ".partial")

    @property
    def top(self) -> int:
        """The highest score sum."""
        return int(self.meta["players"]) * (int(self.meta["R"]) - 1)

    def _expect(self) -> Meta:
        return dict(self.meta, layout=LAYOUT, solver=SOLVER_VERSION)

    def check_paths(self) -> None:
        """InputError, naming the path, where something other than a table's folder is in
        the way of the table or its checkpoint (checked before a solve: a FIFO there would
        hang it, a file fail it at the end)."""
        in_the_way(self.path, links=True)
        in_the_way(self.partial, links=False)

    # --- solving -----------------------------------------------------------------------
    def open_partial(self) -> zarr.Group:
        """The partial table to fill: resumed where its attributes match, down to the last
        layer that reads back as it was written; else new."""
        import zarr

        in_the_way(self.partial, links=False)
        if self.partial.is_dir():
            try:
                g = zarr.open_group(str(self.partial), mode="r+")
                if self._resumable(g):
                    return g
            except Exception:  # noqa: BLE001  (whatever a broken folder raises: start afresh)
                pass
            shutil.rmtree(self.partial, ignore_errors=True)
        self.partial.parent.mkdir(parents=True, exist_ok=True)
        g = zarr.open_group(str(self.partial), mode="w")
        shape, dtype, chunks = members(self.meta)["values"]
        g.create_array("values", shape=shape, chunks=chunks, dtype=dtype, fill_value=np.nan)
        g.attrs.update(
            dict(
                self._expect(),
                done_below=self.top + 1,
                final_done=False,
                layers={},
                checksums={},
                run=uuid.uuid4().hex,
            )
        )
        return g

    def _resumable(self, g: zarr.Group) -> bool:
        """Is the partial table at g this table's, its final round whole?  Its layers are
        then checked (the first damaged one and those after it are dropped)."""
        attrs: Meta = g.attrs.asdict()
        if any(attrs.get(k) != v for k, v in self._expect().items()):
            return False
        if not isinstance(attrs.get("layers"), dict) or not isinstance(
            attrs.get("checksums"), dict
        ):
            return False
        done = attrs.get("done_below")
        if not isinstance(done, int) or not 0 <= done <= self.top + 1:
            return False
        shapes = members(self.meta)
        if not _fits(g, "values", shapes["values"]):
            return False
        if attrs.get("final_done") is not True:
            return done == self.top + 1
        if _whole(g, shapes, attrs["checksums"], skip="values") is None:
            return False
        good, _ = self._good_below(g, attrs)
        if good != done:  # a layer read back other than written: solve it again, and below
            self.truncate(g, good)
        return True

    def _good_below(self, g: zarr.Group, attrs: Meta) -> tuple[int, np.ndarray]:
        """The lowest sum down to which every layer marked done reads back as written, and
        the rows read."""
        done = int(attrs["done_below"])
        rows = _readable_rows(_member(g, "values"), self._rows_above(done))
        for sigma in range(self.top, done - 1, -1):
            a, b = self._rows_above(sigma + 1), self._rows_above(sigma)
            if b > len(rows) or attrs["layers"].get(str(sigma)) != _digest(rows[a:b]):
                return sigma + 1, rows
        return done, rows

    def _rows_above(self, below: int) -> int:
        """Rows of `values` that hold the sums from the top down to `below`."""
        R, N = int(self.meta["R"]), int(self.meta["players"])
        return int(layer_sizes(R, N)[below:].sum())

    def truncate(self, g: zarr.Group, below: int) -> None:
        """Keep the layers above `below` only: the rest of `values` is rewritten empty
        (whole chunks: a chunk that no longer decodes is never read), and a new run id
        makes every worker drop what it read of the old layers."""
        N = int(self.meta["players"])
        keep = self._rows_above(below)
        arr = _member(g, "values")
        start = keep - keep % CHUNK
        head = np.asarray(arr[start:keep]) if keep > start else np.empty((0, N))
        tail = np.full((arr.shape[0] - start, N), np.nan)
        tail[: len(head)] = head
        arr[start:] = tail
        layers = {k: v for k, v in _attr(g, "layers").items() if int(k) >= below}
        g.attrs.update(done_below=below, layers=layers, run=uuid.uuid4().hex)

    def write_final(self, g: zarr.Group, keys: np.ndarray, rel: np.ndarray | None) -> None:
        shapes = members(self.meta)
        sums = {}
        for name, data in (("final_keys", keys), ("final_rel", rel)):
            if name not in shapes:
                continue
            shape, dtype, chunks = shapes[name]
            data = np.ascontiguousarray(data, dtype)
            assert data.shape == shape, (name, data.shape, shape)
            g.create_array(name, data=data, chunks=chunks, overwrite=True)
            sums[name] = _digest(data)
        g.attrs.update(checksums=sums, final_done=True)

    def write_layer(self, g: zarr.Group, sigma: int, values: np.ndarray) -> None:
        """Sum sigma's values (its states in order), then its checksum and the mark that it
        is done."""
        R, N = int(self.meta["R"]), int(self.meta["players"])
        off = int(layer_offsets(R, N)[sigma])
        try:
            _member(g, "values")[off : off + len(values)] = values
        except Exception as e:  # noqa: BLE001  (a chunk shared with the sums above, damaged)
            raise Damaged(f"{self.partial}: score sum {sigma} cannot be written ({e})") from e
        layers = dict(_attr(g, "layers"), **{str(sigma): _digest(values)})
        g.attrs.update(layers=layers, done_below=sigma)

    def complete(self, g: zarr.Group) -> bool:
        """Check every layer as it reads back, then checksum the values and move the partial
        table into place (a rename).  False (the damaged layers dropped: solve them again)
        where a layer does not read back as it was written."""
        good, values = self._good_below(g, g.attrs.asdict())
        if good != 0:
            self.truncate(g, good)
            return False
        g.attrs["checksums"] = dict(_attr(g, "checksums"), values=_digest(values))
        in_the_way(self.path, links=True)  # (anything put there during the solve)
        if self.path.is_symlink():
            self.path.unlink()
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(self.path)
        os.replace(self.partial, self.path)
        return True

    # --- reading -----------------------------------------------------------------------
    def read(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | None:
        """(values, final keys, final rel) of the complete table, or None where it is
        missing, of other rules or layout, or damaged (any member, its shape or its
        checksum); InputError where something else is in the way of its folder."""
        in_the_way(self.path, links=True)
        if not self.path.is_dir() or not _plain_tree(self.path):
            return None
        import zarr  # (here: 0.16 s a cold query pays only where such a table is stored)

        try:
            g = zarr.open_group(str(self.path), mode="r")
            attrs = g.attrs.asdict()
            if any(attrs.get(k) != v for k, v in self._expect().items()):
                return None
            shapes = members(self.meta)
            got = _whole(g, shapes, _attr_dict(g, "checksums"))
            if got is None:
                return None
            return got["values"], got["final_keys"], got.get("final_rel")
        except ImportError:
            raise
        except Exception:  # noqa: BLE001  (a damaged table, whatever its damage: not trusted)
            return None


def _readable_rows(arr: zarr.Array, stop: int) -> np.ndarray:
    """Rows [0, stop) of `arr`, chunk by chunk, up to the first chunk that does not decode."""
    out = np.empty((stop,) + tuple(arr.shape[1:]), arr.dtype)
    step = int(arr.chunks[0])
    for a in range(0, stop, step):
        try:
            out[a : a + step] = arr[a : min(a + step, stop)]
        except Exception:  # noqa: BLE001  (a damaged chunk: the rows from here are lost)
            return out[:a]
    return out


def _fits(g: zarr.Group, name: str, spec: Spec) -> bool:
    """Is member `name` of g an array of exactly the shape, dtype and chunks it must have
    (from its metadata alone: nothing is read yet)?"""
    import zarr

    shape, dtype, chunks = spec
    try:
        arr = g[name]
    except KeyError:
        return False
    return (
        isinstance(arr, zarr.Array)
        and tuple(arr.shape) == shape
        and np.dtype(arr.dtype) == np.dtype(dtype)
        and tuple(arr.chunks) == chunks
    )


def _whole(
    g: zarr.Group, shapes: dict[str, Spec], sums: dict[str, Any], skip: str | None = None
) -> dict[str, np.ndarray] | None:
    """The members of g, read, where g holds exactly the members `shapes` names, each of
    its shape and (but `skip`, not read) of the checksum recorded; else None."""
    if set(g.keys()) != set(shapes):
        return None
    if not all(_fits(g, name, spec) for name, spec in shapes.items()):
        return None  # (before anything is read)
    got = {}
    for name in shapes:
        if name != skip:
            got[name] = np.asarray(_member(g, name)[:])
            if sums.get(name) != _digest(got[name]):
                return None
    return got


def _plain_tree(folder: Path) -> bool:
    """Only folders and regular files in a table's folder (no link, FIFO or device that
    reading would follow or block on)."""
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            mode = os.lstat(os.path.join(root, name)).st_mode
            if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
                return False
    return True


def in_the_way(path: Path, links: bool) -> None:
    """InputError where `path` exists and is not a folder (with links: or a link to one)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}; remove it") from None
    what = _kind(st.st_mode)
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.stat(path)
        except OSError as e:
            broken = "a symbolic link loop" if e.errno == 40 else "a dangling symbolic link"
            raise InputError(f"{path}: {broken} is in the way of the table; remove it") from None
        if links and stat.S_ISDIR(target.st_mode):
            return
        what = f"a symbolic link to {_kind(target.st_mode)}"
    elif stat.S_ISDIR(st.st_mode):
        return
    raise InputError(f"{path}: {what} is in the way of the table; remove it")


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISREG, "a file"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISLNK, "a symbolic link"),
    ):
        if test(mode):
            return name
    return "a device"


def nplayer_meta(rules: RuleSet, players: int, target: int, R: int, D: int, batch: int) -> Meta:
    """What an N-player table is (its attributes; a table with others is not this one)."""
    from .objectives.nplayer_game import final_key_count

    return {
        "objective": "nplayer-game",
        "rules_hash": rules.digest(),
        "players": players,
        "target": target,
        "R": R,
        "D": D,
        "batch": batch,
        "final_round": rules.end != "instant",
        "keys": final_key_count(rules, R, players),
    }


def read_partial_rows(path: str, top: int, low: int, R: int, N: int) -> np.ndarray:
    """The rows of sums top down to low of a partial table's values (a worker catching up on
    layers), each checked against its layer's checksum (Damaged where one does not match)."""
    import zarr

    g = zarr.open_group(str(path), mode="r")
    layers = _attr_dict(g, "layers")
    offsets = layer_offsets(R, N)
    start, stop = int(offsets[top]), int(offsets[low]) + int(layer_sizes(R, N)[low])
    rows = np.asarray(_member(g, "values")[start:stop])
    for sigma in range(top, low - 1, -1):
        a = int(offsets[sigma]) - start
        b = a + int(layer_sizes(R, N)[sigma])
        if layers.get(str(sigma)) != _digest(rows[a:b]):
            raise Damaged(f"{path}: score sum {sigma} reads back other than it was written")
    return rows


def read_partial_final(path: str) -> tuple[np.ndarray, np.ndarray | None]:
    """The final-round members of a partial table, each checked against its checksum."""
    import zarr

    g = zarr.open_group(str(path), mode="r")
    sums = _attr_dict(g, "checksums")
    got = {}
    for name in ("final_keys", "final_rel"):
        if name in g:
            got[name] = np.asarray(_member(g, name)[:])
            if sums.get(name) != _digest(got[name]):
                raise Damaged(f"{path}: {name} reads back other than it was written")
    return got["final_keys"], got.get("final_rel")


def _attr_dict(g: zarr.Group, name: str) -> dict[str, Any]:
    """A group's attribute that is a dict (else empty: a damaged one matches nothing)."""
    got = g.attrs.asdict().get(name)
    return dict(got) if isinstance(got, dict) else {}


def _attr(g: zarr.Group, name: str) -> Any:
    """An attribute of a Zarr group (JSON: typed loosely, Any; what it must be is checked
    as the table is opened, _resumable)."""
    return g.attrs[name]


def _member(g: zarr.Group, name: str) -> Any:
    """An array of a Zarr group (typed loosely: the group's members may be groups too)."""
    return g[name]


def _digest(values: np.ndarray) -> str:
    """SHA-256 of an array's bytes, little-endian (float64 or int64 as stored)."""
    dtype = "<i8" if np.issubdtype(values.dtype, np.integer) else "<f8"
    return hashlib.sha256(np.ascontiguousarray(values, dtype).tobytes()).hexdigest()
