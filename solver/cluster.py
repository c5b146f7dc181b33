"""Where the N-player game is solved: its work as tasks on Dask distributed.

A LocalCluster started here (`workers` processes, one thread each: the turn kernel runs
one thread per worker), or an existing cluster at `scheduler`.  The client walks the score
sums from the top; a sum's orbits, in batches (nplayer_game.orbit_batches: at most 256
orbits, and with several workers at least four tasks each; an orbit's values do not depend
on its batch, so any number of workers gives the same table bit for bit), are tasks; the
client writes each solved sum into the table's partial folder (layer_store) before the
next.  A worker keeps every value it has read in memory and reads only the sums added
since (from the folder: on several machines, a shared filesystem).  Tasks are pure: one
lost with its worker is run again by Dask, with the same result.  The final-round table
is solved first, its keys in tasks too.
"""

from __future__ import annotations

import contextlib
import logging
import os
import uuid
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from .errors import InputError
from .layer_store import LayerStore, layer_offsets, read_partial_final, read_partial_rows
from .objectives import nplayer_game as NG
from .outcomes.model import TurnModel, turn_model
from .rules import RuleSet

BATCH = NG.ORBITS_PER_TASK
FINAL_KEYS = 8  # final-round keys per task
TASKS_PER_WORKER = 4  # a sum in at least this many tasks per worker (where it has the orbits)


def default_workers() -> int:
    n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, n or 1)


def check_workers(workers: int | None) -> int:
    """--workers, checked (default: this machine's cores)."""
    if workers is not None and workers < 1:
        raise InputError(f"--workers must be at least 1, not {workers}")
    return default_workers() if workers is None else workers


@contextlib.contextmanager
def client_for(workers: int | None = None, scheduler: str | None = None) -> Iterator:
    """A Dask client: of an existing cluster at `scheduler`, else of a LocalCluster of
    `workers` processes (default: this machine's cores), closed on exit."""
    from distributed import Client, LocalCluster

    if scheduler:
        if workers is not None:
            raise InputError("--workers starts a local cluster: leave it out with --scheduler")
        try:
            client = Client(scheduler, timeout="5s")
        except Exception as e:  # noqa: BLE001  (a bad address, refused, timed out, ...)
            raise InputError(f"--scheduler {scheduler}: cannot reach it ({e})") from None
        with client:
            yield client
        return
    n = check_workers(workers)
    # (the scheduler's HTTP server moves to a free port where 8787 is taken: not news)
    warnings.filterwarnings("ignore", message="Port .* is already in use")
    with (
        LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
            env={"DICESOLVER_THREADS": "1", "OMP_NUM_THREADS": "1"},
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


# --- on the workers ---------------------------------------------------------------------------
@dataclass
class _Known:
    """A worker's copy of a partial table: every sum read so far (dense), the finals."""

    model: TurnModel
    V: np.ndarray
    finals: NG.FinalTable
    rows: int  # values rows read (from the top sum down)
    sigma: int  # the lowest sum read


_KNOWN: dict[str, _Known] = {}


def _known(path: str, run: str, rules: RuleSet, N: int, R: int, D: int, sigma: int) -> _Known:
    """The worker's values of every sum above sigma (read from the folder as needed)."""
    key = f"{path}#{run}"
    k = _KNOWN.get(key)
    if k is None:
        _KNOWN.clear()  # one table at a time per worker
        keys, rel = read_partial_final(path)
        finals = NG.FinalTable.of(rules, R, D, keys, rel)
        V = np.full((R,) * N + (N,), np.nan)
        k = _KNOWN[key] = _Known(turn_model(rules), V, finals, 0, N * (R - 1) + 1)
    if k.sigma > sigma + 1:  # read the sums k.sigma - 1 .. sigma + 1, stored after k.rows
        stop = int(layer_offsets(R, N)[sigma])  # (the rows of every sum above sigma)
        NG.fill_sums(k.V, read_partial_rows(path, k.rows, stop), k.sigma - 1, sigma + 1)
        k.rows, k.sigma = stop, sigma + 1
    return k


def _layer_task(
    path: str, run: str, rules: RuleSet, N: int, R: int, D: int, sigma: int, states: np.ndarray
) -> np.ndarray:
    k = _known(path, run, rules, N, R, D, sigma)
    V = k.V
    return NG.solve_batch(k.model, states, R, lambda s: V[tuple(s.T)], k.finals)


def _final_task(rules: RuleSet, R: int, D: int, keys: np.ndarray) -> np.ndarray:
    return NG.final_rows(turn_model(rules), R, D, keys)


# --- on the client ----------------------------------------------------------------------------
def solve_nplayer(
    rules: RuleSet,
    N: int,
    R: int,
    D: int,
    store: LayerStore,
    client,
    progress: Callable[[int], None] | None = None,
    batch: int = BATCH,
    final_progress: Callable[[int, int], None] | None = None,
) -> None:
    """Solve the N-player table into store (resuming its partial folder), then put it in
    place.  final_progress(done, total) after each task of the final-round table,
    progress(sigma) after each score sum."""
    g = store.open_partial()
    if "run" not in g.attrs:
        g.attrs["run"] = uuid.uuid4().hex
    run = str(g.attrs["run"])
    path = str(store.partial.resolve())  # (the workers' view of it: an absolute path)
    if not g.attrs["final_done"]:
        keys = NG.final_keys(rules, R, N)
        rel = None
        if rules.end != "instant":
            parts = [keys[i : i + FINAL_KEYS] for i in range(0, len(keys), FINAL_KEYS)]
            futs = client.map(
                _final_task,
                [rules] * len(parts),
                [R] * len(parts),
                [D] * len(parts),
                parts,
                retries=3,
            )
            rel = np.concatenate(_gathered(client, futs, final_progress))
        store.write_final(g, keys, rel)
    workers = sum(client.nthreads().values()) or 1
    tasks = TASKS_PER_WORKER * workers if workers > 1 else 1
    for sigma in range(int(g.attrs["done_below"]) - 1, -1, -1):
        layer = NG.layer_states(sigma, R, N)
        batches = NG.orbit_batches(sigma, R, N, batch, tasks)
        k = len(batches)
        futs = client.map(
            _layer_task,
            [path] * k,
            [run] * k,
            [rules] * k,
            [N] * k,
            [R] * k,
            [D] * k,
            [sigma] * k,
            batches,
            retries=3,
            pure=False,
        )
        values = np.full((len(layer), N), np.nan)
        for states, got in zip(batches, _gathered(client, futs)):
            values[NG.positions(layer, states, R)] = got
        store.write_layer(g, sigma, values)
        if progress:
            progress(sigma)
    store.complete(g)


def _gathered(client, futs, progress: Callable[[int, int], None] | None = None) -> list:
    """The tasks' results, in order (progress(done, total) as each one ends); a task that
    failed on the cluster for a reason of its own (a worker without this package or
    without the table's folder, ...) is one clear error."""
    try:
        if progress is not None:
            from distributed import as_completed

            for done, _ in enumerate(as_completed(futs), start=1):
                progress(done, len(futs))
        return client.gather(futs)
    except InputError:
        raise
    except Exception as e:  # noqa: BLE001  (whatever the worker raised)
        raise InputError(f"a task failed on the cluster: {type(e).__name__}: {e}") from None
