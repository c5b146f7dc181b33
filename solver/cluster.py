"""Where the N-player game is solved: its work as tasks on Dask distributed.

A local cluster started here (`workers` processes, one thread each: the turn kernel runs
one thread per worker), or an existing cluster at `scheduler`.  The client walks the score
sums from the top; a sum's orbits, in batches (nplayer_game.orbit_batches: at most 256
orbits, and with several workers at least four tasks each; an orbit's values do not depend
on its batch, so any number of workers gives the same table bit for bit), are tasks; the
client writes each solved sum into the table's partial folder (layer_store) before the
next.  A worker keeps every value it has read in memory and reads only the sums added
since (from the folder: on several machines, a shared filesystem), each checked against
its checksum.  Tasks are pure: one lost with its worker is run again by Dask, with the same
result.  The final-round table is solved first, its keys in tasks too.

The local workers are subprocesses (`python -m distributed.cli.dask_spec`, each a Nanny
that restarts its worker if it dies), not children spawned by multiprocessing: those
re-import the caller's main module, which in a plain script without a `__main__` guard
(or a script on standard input) runs the script again.  They sit in a session of their
own, so a Ctrl-C reaches only this process, which shuts them down without a word.

Nothing waits forever: a scheduler must answer within `timeout` seconds (checked by a
handshake of our own: a port that accepts and never answers stalls distributed's), and
the cluster must have a worker within `timeout` seconds, at the start and whenever it
loses its last one; the time-out names the option that sets it (--timeout).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import math
import os
import queue
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import InputError
from .layer_store import Damaged, LayerStore, read_partial_final, read_partial_rows
from .objectives import nplayer_game as NG
from .objectives.game_run import GameRun, Where
from .outcomes.model import TurnModel, turn_model
from .rules import RuleSet

if TYPE_CHECKING:
    import zarr
    from distributed import Client, Future, SpecCluster
    from distributed.deploy.subprocess import SubprocessWorker

BATCH = NG.ORBITS_PER_TASK
# final-round keys per task, in suffix order (NG.final_rows solves each suffix's later
# players once per task: 32 keys come within 3 % of sharing them all, four players)
FINAL_KEYS = 32
TASKS_PER_WORKER = 4  # a sum in at least this many tasks per worker (where it has the orbits)
TIMEOUT = 60.0  # seconds for a scheduler to answer, for a worker to join (--timeout)
GRACE = 2.0  # seconds of waiting for workers before it is reported (a local start takes ~1)
POLL = 1.0  # seconds between looks at the cluster's workers while no task ends
SOLVES = 3  # solves of a table whose layers keep reading back damaged, before giving up

# waiting(seconds waited, time-out) while the cluster has no worker; waiting(None, time-out)
# once one joined
Waiting = Callable[[float | None, float], None]


def default_workers() -> int:
    n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, n or 1)


def check_workers(workers: int | None) -> int:
    """--workers, checked (default: this machine's cores)."""
    if workers is not None and workers < 1:
        raise InputError(f"--workers must be at least 1, not {workers}")
    return default_workers() if workers is None else workers


def check_timeout(timeout: float | None) -> float:
    """--timeout, checked (default TIMEOUT seconds)."""
    if timeout is None:
        return TIMEOUT
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise InputError(f"--timeout must be a number of seconds, not {timeout!r}")
    if not (math.isfinite(timeout) and timeout > 0):
        raise InputError(f"--timeout must be a positive number of seconds, not {timeout}")
    return float(timeout)


@dataclass
class Watch:
    """The cluster's workers, looked at while the client waits: where it has none, the wait
    is reported (after GRACE seconds) and ends in a time-out of one line."""

    client: Client
    where: str  # "the local cluster" or "the cluster at ADDRESS"
    timeout: float = TIMEOUT
    waiting: Waiting | None = None
    logs: Callable[[], str] = lambda: ""  # what the local workers said (on a time-out)
    since: float | None = None
    reported: bool = False

    def threads(self, want: int = 1) -> int:
        """The cluster's worker threads, once it has at least `want` workers (waiting up to
        the time-out from when it had too few)."""
        while True:
            try:
                nthreads = self.client.nthreads(callback_timeout=self.timeout)
            except TimeoutError:
                raise InputError(
                    f"{self.where}: its scheduler did not answer within {self.timeout:g} s "
                    "(--timeout SECONDS sets how long to wait)"
                ) from None
            if len(nthreads) >= want:
                self._joined()
                return sum(nthreads.values())
            now = time.monotonic()
            self.since = now if self.since is None else self.since
            waited = now - self.since
            if waited >= self.timeout:
                self._joined()  # (the wait's report ends: the error says the rest)
                said = self.logs()
                raise InputError(
                    f"{self.where} has no worker: none joined within {self.timeout:g} s "
                    "(--timeout SECONDS sets how long to wait)" + (f"; {said}" if said else "")
                )
            if self.waiting is not None and waited >= min(GRACE, self.timeout / 2):
                self.waiting(waited, self.timeout)
                self.reported = True
            time.sleep(min(0.2, self.timeout - waited))

    def _joined(self) -> None:
        if self.reported and self.waiting is not None:
            self.waiting(None, self.timeout)
        self.since, self.reported = None, False


@contextlib.contextmanager
def client_for(
    workers: int | None = None,
    scheduler: str | None = None,
    timeout: float | None = None,
    waiting: Waiting | None = None,
) -> Iterator[Client]:
    """A Dask client: of an existing cluster at `scheduler`, else of a local cluster of
    `workers` processes (default: this machine's cores), closed on exit; its workers there
    (at least one, every local one) within `timeout` seconds."""
    with _cluster(workers, scheduler, timeout, waiting) as (client, _):
        yield client


@contextlib.contextmanager
def _cluster(
    workers: int | None, scheduler: str | None, timeout: float | None, waiting: Waiting | None
) -> Iterator[tuple[Client, Watch]]:
    from distributed import Client

    limit = check_timeout(timeout)
    if scheduler:
        if workers is not None:
            raise InputError("--workers starts a local cluster: leave it out with --scheduler")
        probe(scheduler, limit)
        try:
            client = Client(scheduler, timeout=f"{limit}s")
        except Exception as e:  # noqa: BLE001  (refused, timed out, ... since the probe)
            raise InputError(f"--scheduler {scheduler}: cannot reach it ({e})") from None
        with _Quiet() as quiet, client, quiet.on_error():
            watch = Watch(client, f"the cluster at {scheduler}", limit, waiting)
            watch.threads()
            yield client, watch
        return
    n = check_workers(workers)
    # (the scheduler's HTTP server moves to a free port where 8787 is taken: not news)
    warnings.filterwarnings("ignore", message="Port .* is already in use")
    with (
        _Quiet() as quiet,
        local_cluster(n) as cluster,
        Client(cluster) as client,
        quiet.on_error(),
    ):
        watch = Watch(client, "the local cluster", limit, waiting, lambda: _said(cluster))
        watch.threads(n)
        yield client, watch


class _Quiet:
    """A cluster's own log is not news: below errors never (a worker's comm closed as the
    cluster shuts down), and closing it after Ctrl-C (or an error) logs the tasks it drops.
    Entered before the cluster (its log levels restored once the cluster is closed), with
    on_error() inside the client (silent from the moment an error leaves the work)."""

    NAMES = ("distributed", "tornado", "asyncio")

    def __enter__(self) -> _Quiet:
        self.levels = {name: logging.getLogger(name).level for name in self.NAMES}
        for name in self.NAMES:
            logging.getLogger(name).setLevel(max(logging.ERROR, self.levels[name]))
        return self

    def __exit__(self, *exc: object) -> None:
        for name, level in self.levels.items():
            logging.getLogger(name).setLevel(level)

    @contextlib.contextmanager
    def on_error(self) -> Iterator[None]:
        try:
            yield
        except BaseException:
            for name in self.NAMES:
                logging.getLogger(name).setLevel(logging.CRITICAL + 1)
            raise


def local_cluster(n: int) -> SpecCluster:
    """A scheduler in this process and n workers, each a subprocess of its own (a Nanny and
    its worker process, one thread), quiet: their log goes to a temporary file."""
    from distributed import Scheduler, SpecCluster

    path = [p for p in sys.path if p]  # (what spawned workers would inherit)
    env = {"DICESOLVER_THREADS": "1", "OMP_NUM_THREADS": "1"}
    options = {
        "nthreads": 1,
        "env": env,
        "silence_logs": logging.ERROR,
        "death_timeout": TIMEOUT,  # (orphans, should this process die without a word)
    }
    spec = {"cls": _quiet_worker_class(), "options": {"worker_kwargs": options, "path": path}}
    return SpecCluster(
        scheduler={
            "cls": Scheduler,
            "options": {"dashboard": False, "host": "127.0.0.1", "port": 0},
        },
        workers={i: spec for i in range(n)},
        silence_logs=logging.ERROR,
        name="dicesolver",
    )


@functools.cache
def _quiet_worker_class() -> type[SubprocessWorker]:
    from distributed.deploy.subprocess import SubprocessWorker

    class _QuietWorker(SubprocessWorker):
        """A SubprocessWorker in a session of its own (no Ctrl-C from the terminal), its
        output in a temporary file, with this process's sys.path."""

        # (kwargs: SubprocessWorker's own, passed on as they come: Any)
        def __init__(self, scheduler: str, path: list[str] | None = None, **kwargs: Any) -> None:
            super().__init__(scheduler, **kwargs)
            self.path = path or []
            self.log = tempfile.TemporaryFile()

        async def _start(self) -> None:
            spec = {"cls": self.worker_class, "opts": dict(self.worker_kwargs, name=self.name)}
            cmd = [sys.executable, "-m", "distributed.cli.dask_spec", self.scheduler]
            env = dict(os.environ, PYTHONPATH=os.pathsep.join(self.path))
            self.process = await asyncio.create_subprocess_exec(
                *cmd,
                "--spec",
                json.dumps(spec),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=self.log,
                stderr=self.log,
                env=env,
                start_new_session=True,
            )

        async def close(self) -> None:
            with contextlib.suppress(Exception):  # (gone already: nothing to kill)
                await super().close()
            self.log.close()

    return _QuietWorker


def _said(cluster: SpecCluster) -> str:
    """The last line the local workers wrote (why none joined, where one said)."""
    last = ""
    for w in list(getattr(cluster, "workers", {}).values()):
        log = getattr(w, "log", None)
        if log is None or log.closed:
            continue
        log.seek(0)
        lines = [ln for ln in log.read().decode(errors="replace").splitlines() if ln.strip()]
        last = lines[-1].strip()[:300] if lines else last
    return f"a worker said: {last}" if last else ""


def _reachable(address: str, timeout: float) -> None:
    """InputError at once where nothing listens at a tcp:// address (distributed's connect
    tries again until its time-out)."""
    import socket

    from distributed.comm import parse_address, parse_host_port

    try:
        scheme, loc = parse_address(address)
        host, port = parse_host_port(loc) if scheme == "tcp" else (None, None)
    except (ValueError, TypeError) as e:
        raise InputError(f"--scheduler {address}: not an address of a scheduler ({e})") from None
    if host is None:
        return
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except TimeoutError:
        raise InputError(
            f"--scheduler {address}: no answer within {timeout:g} s (--timeout SECONDS sets "
            "how long to wait)"
        ) from None
    except OSError as e:
        raise InputError(f"--scheduler {address}: cannot reach it ({e.strerror or e})") from None


def probe(address: str, timeout: float) -> None:
    """InputError unless a Dask scheduler answers at `address` within `timeout` seconds
    (distributed's own connect waits forever for the handshake of a port that accepts and
    never answers).  In a thread of its own: the caller may be inside an event loop."""
    _reachable(address, timeout)
    got: dict[str, Any] = {}

    async def identity() -> Any:
        from distributed.comm import connect

        comm = await connect(address, timeout=timeout)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    def run() -> None:
        try:
            got["id"] = asyncio.run(asyncio.wait_for(identity(), timeout))
        except BaseException as e:  # noqa: BLE001  (reported below, in the caller's thread)
            got["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout + 5)
    e = got.get("error")
    if "id" not in got and (e is None or isinstance(e, TimeoutError)):
        raise InputError(
            f"--scheduler {address}: no Dask scheduler answered within {timeout:g} s "
            "(--timeout SECONDS sets how long to wait)"
        )
    if e is not None:
        why = " ".join(str(e).split())[:200] or type(e).__name__
        hint = "; --timeout SECONDS sets how long to wait" if "Timed out" in why else ""
        raise InputError(
            f"--scheduler {address}: cannot reach a Dask scheduler there ({why}){hint}"
        )
    kind = got["id"].get("type") if isinstance(got["id"], dict) else None
    if kind != "Scheduler":
        raise InputError(
            f"--scheduler {address}: not a Dask scheduler (it answered as "
            f"{kind or 'something else'})"
        )


# --- on the workers ---------------------------------------------------------------------------
@dataclass
class _Known:
    """A worker's copy of a partial table: every sum read so far (dense), the finals."""

    model: TurnModel
    V: np.ndarray
    finals: NG.FinalTable
    sigma: int  # the lowest sum read


_KNOWN: dict[str, _Known] = {}


def _known(path: str, run: str, rules: RuleSet, N: int, R: int, D: int, sigma: int) -> _Known:
    """The worker's values of every sum above sigma (read from the folder as needed, each
    sum checked against its checksum: Damaged where one does not match).  A new run of
    the same folder (a checkpoint cut back to its sound layers) drops what was read."""
    key = f"{path}#{run}"
    k = _KNOWN.get(key)
    if k is None:
        _KNOWN.clear()  # one table at a time per worker
        keys, rel = read_partial_final(path)
        finals = NG.FinalTable.of(rules, R, D, keys, rel)
        V = np.full((R,) * N + (N,), np.nan)
        k = _KNOWN[key] = _Known(turn_model(rules), V, finals, N * (R - 1) + 1)
    if k.sigma > sigma + 1:  # read the sums k.sigma - 1 .. sigma + 1
        NG.fill_sums(
            k.V, read_partial_rows(path, k.sigma - 1, sigma + 1, R, N), k.sigma - 1, sigma + 1
        )
        k.sigma = sigma + 1
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
def solve(
    run: GameRun,
    N: int,
    store: LayerStore,
    where: Where = Where(),
    final_progress: Callable[[int, int], None] | None = None,
    waiting: Waiting | None = None,
) -> None:
    """The table of the game among N players solved into store (the run's checkpoint: an
    interrupted solve resumes from its partial folder) on a local cluster of
    where.workers or the cluster at where.scheduler (paths in the table's way refused
    first: one line naming the path)."""
    store.check_paths()
    with _cluster(where.workers, where.scheduler, where.timeout, waiting) as (client, watch):
        solve_nplayer(run, N, store, client, BATCH, final_progress, watch)


def solve_nplayer(
    run: GameRun,
    N: int,
    store: LayerStore,
    client: Client,
    batch: int = BATCH,
    final_progress: Callable[[int, int], None] | None = None,
    watch: Watch | None = None,
) -> None:
    """Solve the N-player table into store (resuming its partial folder down to its last
    sound layer), then put it in place.  final_progress(done, total) after each task of the
    final-round table, run.progress(sigma) after each score sum.  A layer found damaged on
    the way (by a worker reading it, or as the table is completed) is solved again, with
    every layer after it."""
    watch = watch or Watch(client, "the cluster")
    rules, R, D, progress = run.rules, run.R, run.reach_bound, run.progress
    for _ in range(SOLVES):
        g = store.open_partial()
        try:
            _fill(rules, N, R, D, store, g, watch, progress, batch, final_progress)
        except Damaged:
            continue  # (open_partial checks the layers again and cuts the damaged ones)
        if store.complete(g):
            return
    raise InputError(
        f"{store.partial}: its layers keep reading back other than they were written "
        f"({SOLVES} solves): is the disk failing?"
    )


def _fill(
    rules: RuleSet,
    N: int,
    R: int,
    D: int,
    store: LayerStore,
    g: zarr.Group,
    watch: Watch,
    progress: Callable[[int], None] | None,
    batch: int,
    final_progress: Callable[[int, int], None] | None,
) -> None:
    """The final round (unless done) and every score sum below those done, into g."""
    client = watch.client
    run = str(g.attrs["run"])
    path = str(store.partial.resolve())  # (the workers' view of it: an absolute path)
    if not g.attrs["final_done"]:
        keys = NG.final_keys(rules, R, N) if rules.end != "instant" else np.zeros((0, N - 1))
        rel = None
        if rules.end != "instant":
            # tasks of keys sharing suffixes (their later players solved once a task), the
            # rows put back in the stored keys' order
            order = NG.suffix_order(keys)
            parts = [keys[order[i : i + FINAL_KEYS]] for i in range(0, len(keys), FINAL_KEYS)]
            futs = client.map(
                _final_task,
                [rules] * len(parts),
                [R] * len(parts),
                [D] * len(parts),
                parts,
                retries=3,
            )
            rel = np.empty((len(keys), R + D + 1, N))
            rel[order] = np.concatenate(_gathered(futs, watch, final_progress))
        store.write_final(g, keys, rel)
    workers = watch.threads()
    tasks = TASKS_PER_WORKER * workers if workers > 1 else 1
    done_below: Any = g.attrs["done_below"]  # (JSON, typed loosely: an int, as written)
    for sigma in range(int(done_below) - 1, -1, -1):
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
        for states, got in zip(batches, _gathered(futs, watch)):
            values[NG.positions(layer, states, R)] = got
        store.write_layer(g, sigma, values)
        if progress:
            progress(sigma)


def _gathered(
    futs: list[Future], watch: Watch, progress: Callable[[int, int], None] | None = None
) -> list[np.ndarray]:
    """The tasks' results, in order (progress(done, total) as each one ends).  While none
    ends the cluster's workers are looked at (none for the time-out: one line).  A task
    that failed on the cluster for a reason of its own (a worker without this package or
    without the table's folder, ...) is one clear error; Damaged (a layer read back other
    than written) is the solver's to mend."""
    from concurrent.futures import CancelledError

    ended: queue.Queue = queue.Queue()
    for f in futs:
        f.add_done_callback(ended.put)
    try:
        for done in range(1, len(futs) + 1):
            while True:
                try:
                    f = ended.get(timeout=POLL)
                    break
                except queue.Empty:
                    watch.threads()
            if f.status != "finished":
                break  # (gather raises its error)
            if progress is not None:
                progress(done, len(futs))
        return watch.client.gather(futs)
    except (InputError, Damaged):
        raise
    except (Exception, CancelledError, asyncio.CancelledError) as e:  # noqa: BLE001
        raise InputError(f"a task failed on the cluster: {type(e).__name__}: {e}") from None
