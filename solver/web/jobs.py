"""Background builds: a table a question needs (TableMissing.api) solved in a worker thread
while the page shows its progress.  One job per table (a second request for the same build
joins the first; another process building it holds the store's lock, and the job waits
for it); work beyond the machine is refused with its estimate before it is queued, as the
command line refuses it.

Capped, so that no visitor takes the server from the others (issue 36 item 1): builds run
in two lanes, one for those estimated under a minute (FAST) and one for the rest, each with
its own workers and a queue of at most `queue` builds; a build longer than the server's
limit, one whose table would not fit on the disk (with the builds queued before it), and a
client's builds past `per_client` are refused (429 or 503, and the reason in one line).
The limits: Limits (environment variables DICESOLVER_BUILD_*, docs/serve.md)."""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import re
import secrets
import shutil
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import store as store_module
from ..errors import InputError, TableMissing
from ..limits import check_memory, check_time, duration, size
from ..progress import Progress
from ..rules import RuleSet
from ..store import Store

if TYPE_CHECKING:
    from ..answers.game_tables import GameTableStatus

KEPT = 64  # finished jobs remembered (for their pages), the oldest forgotten first
FAST = 60.0  # seconds: a build estimated under this goes to the fast lane
_current = threading.local()  # the job a worker thread runs (for the store's lock message)


@dataclass(frozen=True)
class Limits:
    """What one server builds at once and in all (the environment can change each)."""

    queue: int = 8  # builds waiting in each lane
    builds: int = 1  # long builds at once (the fast lane has one worker of its own)
    per_client: int = 3  # builds one client address has queued or running
    seconds: float = 3600.0  # the longest build this server starts (its estimate)
    disk_reserve: float = 1e9  # bytes of the disk left free by the builds

    @classmethod
    def from_env(cls) -> Limits:
        """DICESOLVER_BUILD_QUEUE, _BUILDS, _PER_CLIENT, _MINUTES, _DISK_RESERVE_MB."""
        got: dict[str, Any] = {}
        for name, key, scale in (
            ("queue", "QUEUE", 1),
            ("builds", "BUILDS", 1),
            ("per_client", "PER_CLIENT", 1),
            ("seconds", "MINUTES", 60),
            ("disk_reserve", "DISK_RESERVE_MB", 1e6),
        ):
            raw = os.environ.get(f"DICESOLVER_BUILD_{key}", "").strip()
            if raw:
                try:
                    value = float(raw)
                except ValueError:
                    raise InputError(f"DICESOLVER_BUILD_{key}={raw!r} is not a number") from None
                if value < 0:
                    raise InputError(f"DICESOLVER_BUILD_{key}={raw!r} is below 0")
                got[name] = value * scale if scale != 1 else int(value)
        return cls(**got)


class Capacity(InputError):
    """A build refused for the server's capacity (not for its input): 429 where the
    client has enough builds of its own, 503 where the server has no room for it."""

    def __init__(self, message: str, http_status: int = 503) -> None:
        super().__init__(message)
        self.http_status = http_status


class Stopped(KeyboardInterrupt):
    """Raised in a build's thread at its next step when the server stops (the solvers
    save their checkpoint on it as on Ctrl-C)."""


@dataclass
class Job:
    id: str
    key: str
    name: str
    kwargs: dict[str, Any]
    solve_with: str
    estimate: str | None
    state: str = "queued"  # queued, running, done, failed, stopped
    label: str = ""
    done: int = 0
    total: int = 0
    message: str | None = None
    error: str | None = None
    started: float = field(default_factory=time.time)
    lane: str = "long"  # fast (estimated under FAST seconds) or long
    client: str | None = None  # the address that asked for it
    seconds: float | None = None  # its estimate
    disk: float = 0.0  # bytes its table takes (estimated)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def to_dict(self) -> dict[str, Any]:
        with self.lock:
            return {
                "id": self.id,
                "state": self.state,
                "label": self.label,
                "done": self.done,
                "total": self.total,
                "message": self.message,
                "error": self.error,
                "estimate": self.estimate,
                "solve_with": self.solve_with,
                "lane": self.lane,
            }


class JobProgress(Progress):
    """A build's bars (one after another: e.g. the final round's, then the score sums')."""

    def __init__(self, job: Job, stopping: threading.Event | None = None) -> None:
        self.job = job
        self.stopping = stopping or threading.Event()

    def note(self, text: str) -> None:
        with self.job.lock:
            self.job.message = text

    def start(self, label: str, total: int) -> None:
        self._check()
        with self.job.lock:
            self.job.label, self.job.total, self.job.done = label, int(total), 0
            self.job.message = None

    def advance(self, n: int = 1) -> None:
        with self.job.lock:
            self.job.done = min(self.job.done + int(n), self.job.total)
        self._check()

    def _check(self) -> None:
        """The server stops: the build stops here (at its next step)."""
        if self.stopping.is_set():
            raise Stopped()

    def finish(self) -> None:
        with self.job.lock:
            self.job.done = self.job.total


def _notify(message: str) -> None:
    """The store's word while it waits for another process's lock: on the job's page."""
    job = getattr(_current, "job", None)
    if job is not None:
        with job.lock:
            job.message = message


def key_of(name: str, kwargs: dict[str, Any]) -> str:
    """One key per build: an uploaded rule set (either family's) by its definition's hash."""
    from ..yahtzee.yahtzee_rules import YahtzeeRules

    plain = {
        k: f"ruleset:{v.digest()}" if isinstance(v, (RuleSet, YahtzeeRules)) else v
        for k, v in kwargs.items()
    }
    return json.dumps([name, plain], sort_keys=True, default=str)


def _status(name: str, kwargs: dict[str, Any], store: Store) -> GameTableStatus | None:
    """The game table's status (stored, or its estimated memory, time and disk) where the
    build is a game table's, else None; None too where the call is wrong (the build itself
    says what is wrong)."""
    if name != "game":
        return None
    import dicesolver as ds

    try:
        return ds.game_table_status(
            kwargs.get("rules", "farkle"),
            kwargs.get("target"),
            kwargs.get("players", 2),
            kwargs.get("lowest"),
            tables=store,
        )
    except (InputError, TypeError, ValueError):
        return None


def estimate(name: str, kwargs: dict[str, Any], store: Store) -> tuple[float, float] | None:
    """(bytes, seconds) of a build where the solver estimates it (the game tables, by their
    variant: variants/), else None.  (The solve checks the same figures before it starts.)"""
    status = _status(name, kwargs, store)
    if status is None or status.memory is None or status.seconds is None:
        return None  # (not a game table, or stored meanwhile)
    return status.memory, status.seconds


THRESHOLD = re.compile(r"yahtzee-(atleast|beat)-L\d+")  # a threshold table's level


def threshold_cost(e: TableMissing, store: Store) -> tuple[float, float, float] | None:
    """(bytes, seconds, disk) of building the levels of a Yahtzee threshold table not stored
    (the one a query missed: its objective, yahtzee/threshold.py's build_cost, counted in
    milliseconds), else None."""
    found = THRESHOLD.fullmatch(str(getattr(e, "objective", "")))
    if found is None:
        return None
    from ..answers.yahtzee_answers import yahtzee_rule_set
    from ..yahtzee import threshold as TH

    try:
        rules = yahtzee_rule_set(e.api[1].get("rules", "yahtzee"))
    except (InputError, TypeError, ValueError, OSError):
        return None  # (the build itself says what is wrong)
    kind, digest = found[1], rules.digest()
    todo = [
        k
        for k in range(rules.n_boxes)
        if not store.find(rules.name, digest, TH.objective(kind, k)).exists()
    ]
    if not todo:
        return None
    seconds, memory, disk = TH.build_cost(rules, kind, todo)
    return memory, seconds, disk


def cost_of(e: TableMissing, store: Store) -> tuple[float, float, float] | None:
    """(bytes, seconds, disk) of the build `e` needs where the solver estimates it: a game
    table (by its variant) or a Yahtzee threshold table; else None."""
    name, kwargs = e.api
    cost = estimate(name, kwargs, store)
    if cost is None:
        return threshold_cost(e, store)
    status = _status(name, kwargs, store)
    return cost[0], cost[1], float(0.0 if status is None else status.disk or 0.0)


def estimate_text(cost: tuple[float, float] | None) -> str | None:
    if cost is None:
        return None
    nbytes, seconds = cost
    when = "under a minute" if seconds < 60 else f"about {duration(seconds)}"
    return f"{when} on this machine, about {size(nbytes)} of memory"


def priced(e: TableMissing, store: Store) -> tuple[str | None, str | None]:
    """(the estimate as text, the refusal where the build is beyond this machine): the
    figures and the words the command line refuses with."""
    full = cost_of(e, store)
    cost = None if full is None else full[:2]
    try:
        if cost is not None:
            what = f"building {e.what}"
            check_memory(cost[0], what, "choose a lower target")
            check_time(cost[1], what, "choose a lower target")
    except InputError as err:
        return estimate_text(cost), " ".join(str(err).split())
    return estimate_text(cost), None


def free_disk(folder: Path) -> float:
    """Bytes free where the tables go (its nearest existing folder)."""
    for place in (folder, *folder.parents):
        try:
            return float(shutil.disk_usage(place).free)
        except OSError:
            continue
    return float("inf")


class Jobs:
    def __init__(self, store: Store, limits: Limits | None = None) -> None:
        self.store = store
        self.limits = limits or Limits.from_env()
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._by_id: OrderedDict[str, Job] = OrderedDict()
        self._by_key: dict[str, Job] = {}
        self._queues: dict[str, deque[Job]] = {"fast": deque(), "long": deque()}
        self.stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        workers = {"fast": 1, "long": max(1, self.limits.builds)}
        for lane, n in workers.items():
            for i in range(n):
                t = threading.Thread(
                    target=self._work,
                    args=(lane,),
                    name=f"dicesolver-build-{lane}-{i}",
                    daemon=True,  # (a stopped server never waits on one: see shutdown)
                )
                t.start()
                self._threads.append(t)
        store_module.notify = _notify

    def start(self, e: TableMissing, client: str | None = None) -> Job:
        """The job that builds what `e` needs: the one already queued or running for the
        same table, or a new one; InputError where the work is beyond this machine,
        Capacity where it is beyond this server now."""
        name, kwargs = e.api
        key = getattr(e, "table", None) or key_of(name, kwargs)
        with self._lock:
            job = self._by_key.get(key)
            if job is not None and job.state in ("queued", "running"):
                return job
        shown, refused = priced(e, self.store)
        if refused is not None:
            raise InputError(refused)
        cost = cost_of(e, self.store)
        seconds = cost[1] if cost is not None else getattr(e, "seconds", None)
        if shown is None and seconds is not None:
            when = "under a minute" if seconds < 60 else f"about {duration(seconds)}"
            shown = f"{when} on this machine"
        disk = 0.0 if cost is None else cost[2]
        lane = "fast" if seconds is not None and seconds < FAST else "long"
        with self._lock:
            job = self._by_key.get(key)
            if job is not None and job.state in ("queued", "running"):
                return job
            self._admit(e.what, lane, client, seconds, disk)
            job = Job(secrets.token_urlsafe(16), key, name, kwargs, e.solve_with, shown)
            job.lane, job.client, job.seconds, job.disk = lane, client, seconds, disk
            self._by_id[job.id] = job
            self._by_key[key] = job
            while len(self._by_id) > KEPT:
                old = next(iter(self._by_id.values()))
                if old.state in ("queued", "running"):
                    break
                self._forget(old)
            self._queues[lane].append(job)
            self._wake.notify_all()
        return job

    def _admit(
        self, what: str, lane: str, client: str | None, seconds: float | None, disk: float
    ) -> None:
        """Capacity unless this server takes the build now (self._lock held)."""
        limits = self.limits
        if self.stopping.is_set():
            raise Capacity("the server is stopping: no build starts now")
        if seconds is not None and seconds > limits.seconds:
            raise Capacity(
                f"building {what} would take about {duration(seconds)}, longer than this "
                f"server's limit for one build ({duration(limits.seconds)}): choose a lower "
                "target, or build it with the command line"
            )
        active = [j for j in self._by_id.values() if j.state in ("queued", "running")]
        if disk > 0:
            free = free_disk(self.store.folder) - limits.disk_reserve
            free -= sum(j.disk for j in active)
            if disk > free:
                raise Capacity(
                    f"building {what} needs about {size(disk)} on disk; this server has "
                    f"{size(max(free, 0.0))} to spare (after the builds queued): choose a "
                    "lower target"
                )
        if client is not None:
            mine = sum(1 for j in active if j.client == client)
            if mine >= limits.per_client:
                raise Capacity(
                    f"you have {mine} builds queued or running (at most "
                    f"{limits.per_client}): wait for one to finish",
                    429,
                )
        if len(self._queues[lane]) >= limits.queue:
            kind = "quick builds" if lane == "fast" else "builds of a minute or more"
            raise Capacity(
                f"the queue of {kind} is full ({len(self._queues[lane])} waiting): try again later"
            )

    def _forget(self, job: Job) -> None:
        self._by_id.pop(job.id, None)
        if self._by_key.get(job.key) is job:
            del self._by_key[job.key]

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._by_id.get(job_id)

    def _work(self, lane: str) -> None:
        queue = self._queues[lane]
        while True:
            with self._lock:
                while not queue and not self.stopping.is_set():
                    self._wake.wait()
                if self.stopping.is_set():
                    return
                job = queue.popleft()
            with self._server_turn(lane, job):
                self._run(job)

    @contextlib.contextmanager
    def _server_turn(self, lane: str, job: Job) -> Iterator[None]:
        """The long lane's turn across the worker processes of a server (zilch serve
        --workers): a lock file beside the tables, so their long builds run one at a time
        as one process's do (waited for; given up when the server stops)."""
        if lane != "long" or self.limits.builds != 1:
            yield
            return
        import fcntl

        waiting = "waiting for another worker's build to end"
        try:
            f = open(self.store.folder.parent / f".{self.store.folder.name}-builds.lock", "a")
        except OSError:  # (a folder not ours to write: one process's turn only)
            yield
            return
        with f:
            while not self.stopping.is_set():
                try:
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    with job.lock:
                        job.message = waiting
                    self.stopping.wait(0.5)
            with job.lock:
                job.message = None if job.message == waiting else job.message
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def _run(self, job: Job) -> None:
        import dicesolver as ds

        with job.lock:
            job.state = "running"
        _current.job = job
        fn = getattr(ds, job.name)
        extra: dict[str, Any] = {}
        if "progress" in inspect.signature(fn).parameters:
            extra["progress"] = JobProgress(job, self.stopping)
        try:
            fn(**job.kwargs, tables=self.store, **extra)
            state, error = "done", None
        except KeyboardInterrupt:  # (Stopped: the server stops)
            state, error = "stopped", "stopped: the server stopped"
        except TableMissing as e:  # (a build that needs another first: its own command)
            state, error = "failed", f"{e}"
        except InputError as e:  # (refused: beyond the machine, or the rules say no)
            state, error = "failed", " ".join(str(e).split())
        except Exception as e:  # (a bug: said on the page, not a dead worker)
            import logging

            logging.getLogger("dicesolver.web").error("build failed", exc_info=e)
            state, error = "failed", f"the build failed ({type(e).__name__})"
        finally:
            _current.job = None
        with job.lock:
            job.state, job.error = state, error
            if state == "done":
                job.done = job.total
                job.message = None  # (a wait for another process's lock is over: item 13)

    def stopped(self) -> list[Job]:
        """The jobs a stop interrupted (stopped, or still running)."""
        with self._lock:
            return [j for j in self._by_id.values() if j.state in ("stopped", "running")]

    def shutdown(self, wait: float = 0.0) -> list[Job]:
        """Stop: no build starts, the queued ones are dropped, the running ones stop at
        their next step (waited for up to `wait` seconds); the jobs stopped."""
        with self._lock:
            self.stopping.set()
            for queue in self._queues.values():
                for job in queue:
                    with job.lock:
                        job.state, job.error = "stopped", "stopped before it started"
                queue.clear()
            self._wake.notify_all()
        deadline = time.monotonic() + wait
        for t in self._threads:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            t.join(left)
        with self._lock:
            return [
                j
                for j in self._by_id.values()
                if j.state == "running"
                or (j.state == "stopped" and j.error != "stopped before it started")
            ]
