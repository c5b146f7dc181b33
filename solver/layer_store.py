"""The N-player game's table on disk: a Zarr group of chunked arrays, filled layer by layer.

`values` (states, N): every state's chances, the score sums from the top down (the order of
solution), each sum's states in lexicographic order (nplayer_game.layer_states); `final_keys`
and `final_rel`: the final-round table (nplayer_game.FinalTable).  The attributes say what
the table is (rules hash, players, target, ...) and how far it is solved.

A solve writes into `NAME.zarr.partial` (its checkpoint: the layers done are kept, a resumed
solve starts below them) and renames it to `NAME.zarr` once complete, with the SHA-256 of
its values: a reader only ever opens a complete table, and one whose attributes, shapes or
checksum do not match is not trusted (rebuilt, or refused by a query that never solves).
Every worker of a cluster reads the same folder: on several machines it must be on a
filesystem they share (docs/scaling.md).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .store import SOLVER_VERSION

LAYOUT = 1
CHUNK = 1 << 16  # states per chunk of `values`


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


@dataclass(frozen=True)
class LayerStore:
    """One N-player table's folder (complete) and its partial twin (while solving)."""

    path: Path
    meta: dict  # what the table is: rules hash, players, target, R, D, batch

    @property
    def partial(self) -> Path:
        return self.path.with_name(self.path.name + ".partial")

    def _expect(self) -> dict:
        return dict(self.meta, layout=LAYOUT, solver=SOLVER_VERSION)

    # --- solving -----------------------------------------------------------------------
    def open_partial(self):
        """The partial table to fill: resumed where its attributes match, else new."""
        import zarr

        if self.partial.exists():
            try:
                g = zarr.open_group(str(self.partial), mode="r+")
                if all(g.attrs.get(k) == v for k, v in self._expect().items()) and _sound(g):
                    return g
            except Exception:  # noqa: BLE001  (whatever a broken folder raises: start afresh)
                pass
            shutil.rmtree(self.partial, ignore_errors=True)
        self.partial.parent.mkdir(parents=True, exist_ok=True)
        g = zarr.open_group(str(self.partial), mode="w")
        R, N = int(self.meta["R"]), int(self.meta["players"])
        n = int(layer_sizes(R, N).sum())
        g.create_array(
            "values", shape=(n, N), chunks=(min(CHUNK, n), N), dtype="f8", fill_value=np.nan
        )
        g.attrs.update(dict(self._expect(), done_below=N * (R - 1) + 1, final_done=False))
        return g

    @staticmethod
    def write_final(g, keys: np.ndarray, rel: np.ndarray | None) -> None:
        g.create_array("final_keys", data=keys, overwrite=True)
        if rel is not None:
            g.create_array("final_rel", data=rel, chunks=(1,) + rel.shape[1:], overwrite=True)
        g.attrs["final_done"] = True

    def write_layer(self, g, sigma: int, values: np.ndarray) -> None:
        """Sum sigma's values (its states in order), then the mark that it is done."""
        R, N = int(self.meta["R"]), int(self.meta["players"])
        off = int(layer_offsets(R, N)[sigma])
        g["values"][off : off + len(values)] = values
        g.attrs["done_below"] = sigma

    def complete(self, g) -> None:
        """Checksum the values and move the partial table into place (a rename)."""
        values = np.asarray(g["values"][:])
        if np.isnan(values).any():  # (never: every sum was written)
            raise RuntimeError(f"{self.partial}: a solved table with values missing")
        g.attrs["sha256"] = _digest(values)
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(self.path)
        os.replace(self.partial, self.path)

    # --- reading -----------------------------------------------------------------------
    def read(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | None:
        """(values, final keys, final rel) of the complete table, or None where it is
        missing, of other rules or layout, or damaged."""
        import zarr

        if not self.path.is_dir():
            return None
        try:
            g = zarr.open_group(str(self.path), mode="r")
            if any(g.attrs.get(k) != v for k, v in self._expect().items()):
                return None
            R, N = int(self.meta["R"]), int(self.meta["players"])
            values = np.asarray(_member(g, "values")[:])
            if values.shape != (int(layer_sizes(R, N).sum()), N):
                return None
            if g.attrs.get("sha256") != _digest(values):
                return None
            keys = np.asarray(_member(g, "final_keys")[:])
            rel = np.asarray(_member(g, "final_rel")[:]) if "final_rel" in g else None
            return values, keys, rel
        except ImportError:
            raise
        except Exception:  # noqa: BLE001  (a damaged table, whatever its damage: not trusted)
            return None


def _sound(g) -> bool:
    """Do the sums marked done read back whole (a chunk written while the solve was killed
    would not)?  A partial table that fails is started afresh."""
    R, N = int(g.attrs["R"]), int(g.attrs["players"])
    done = int(g.attrs["done_below"])
    stop = int(layer_offsets(R, N)[done]) if done <= N * (R - 1) else 0
    if not g.attrs.get("final_done"):
        return stop == 0
    return not np.isnan(np.asarray(g["values"][:stop])).any()


def nplayer_meta(rules, players: int, target: int, R: int, D: int, batch: int) -> dict:
    """What an N-player table is (its attributes; a table with others is not this one)."""
    return {
        "objective": "nplayer-game",
        "rules_hash": rules.digest(),
        "players": players,
        "target": target,
        "R": R,
        "D": D,
        "batch": batch,
    }


def read_partial_rows(path: str, start: int, stop: int) -> np.ndarray:
    """Rows [start, stop) of a partial table's values (a worker catching up on layers)."""
    import zarr

    return np.asarray(zarr.open_array(str(Path(path) / "values"), mode="r")[start:stop])


def read_partial_final(path: str) -> tuple[np.ndarray, np.ndarray | None]:
    import zarr

    g = zarr.open_group(str(path), mode="r")
    rel = np.asarray(_member(g, "final_rel")[:]) if "final_rel" in g else None
    return np.asarray(_member(g, "final_keys")[:]), rel


def _member(g, name: str) -> Any:
    """An array of a Zarr group (typed loosely: the group's members may be groups too)."""
    return g[name]


def _digest(values: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(values, "<f8").tobytes()).hexdigest()
