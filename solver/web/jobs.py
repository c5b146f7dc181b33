"""Background builds: a table a question needs (TableMissing.api) solved in a worker thread
while the page shows its progress.  One job per table (a second request for the same build
joins the first; another process building it holds the store's lock, and the job waits
for it), one build at a time on this machine, the rest queued; work beyond the machine is
refused with its estimate before it is queued, as the command line refuses it."""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .. import store as store_module
from ..errors import InputError, TableMissing
from ..limits import check_memory, check_time, duration, size
from ..progress import Progress
from ..rules import RuleSet
from ..store import Store

KEPT = 64  # finished jobs remembered (for their pages), the oldest forgotten first
_current = threading.local()  # the job a worker thread runs (for the store's lock message)


@dataclass
class Job:
    id: str
    key: str
    name: str
    kwargs: dict[str, Any]
    solve_with: str
    estimate: str | None
    state: str = "queued"  # queued, running, done, failed
    label: str = ""
    done: int = 0
    total: int = 0
    message: str | None = None
    error: str | None = None
    started: float = field(default_factory=time.time)
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
            }


class JobProgress(Progress):
    """A build's bars (one after another: e.g. the final round's, then the score sums')."""

    def __init__(self, job: Job) -> None:
        self.job = job

    def start(self, label: str, total: int) -> None:
        with self.job.lock:
            self.job.label, self.job.total, self.job.done = label, int(total), 0
            self.job.message = None

    def advance(self, n: int = 1) -> None:
        with self.job.lock:
            self.job.done = min(self.job.done + int(n), self.job.total)

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
    """One key per build: an uploaded rule set by its definition's hash."""
    plain = {k: f"ruleset:{v.digest()}" if isinstance(v, RuleSet) else v for k, v in kwargs.items()}
    return json.dumps([name, plain], sort_keys=True, default=str)


def estimate(name: str, kwargs: dict[str, Any], store: Store) -> tuple[float, float] | None:
    """(bytes, seconds) of a build where the solver estimates it (the game tables, by their
    variant: variants/), else None.  (The solve checks the same figures before it starts.)"""
    if name != "game":
        return None
    import dicesolver as ds

    try:
        status = ds.game_table_status(
            kwargs.get("rules", "farkle"),
            kwargs.get("target"),
            kwargs.get("players", 2),
            kwargs.get("lowest"),
            tables=store,
        )
    except (InputError, TypeError, ValueError):
        return None  # (the build itself says what is wrong)
    if status.memory is None or status.seconds is None:
        return None  # (stored meanwhile)
    return status.memory, status.seconds


def estimate_text(cost: tuple[float, float] | None) -> str | None:
    if cost is None:
        return None
    nbytes, seconds = cost
    when = "under a minute" if seconds < 60 else f"about {duration(seconds)}"
    return f"{when} on this machine, about {size(nbytes)} of memory"


def priced(e: TableMissing, store: Store) -> tuple[str | None, str | None]:
    """(the estimate as text, the refusal where the build is beyond this machine): the
    figures and the words the command line refuses with."""
    name, kwargs = e.api
    cost = estimate(name, kwargs, store)
    try:
        if cost is not None:
            what = f"building {e.what}"
            check_memory(cost[0], what, "choose a lower target")
            check_time(cost[1], what, "choose a lower target")
    except InputError as err:
        return estimate_text(cost), " ".join(str(err).split())
    return estimate_text(cost), None


class Jobs:
    def __init__(self, store: Store) -> None:
        self.store = store
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dicesolver-build")
        self._lock = threading.Lock()
        self._by_id: OrderedDict[str, Job] = OrderedDict()
        self._by_key: dict[str, Job] = {}
        store_module.notify = _notify

    def start(self, e: TableMissing) -> Job:
        """The job that builds what `e` needs: the one already queued or running for the
        same table, or a new one; InputError where the work is beyond this machine."""
        name, kwargs = e.api
        key = getattr(e, "table", None) or key_of(name, kwargs)
        with self._lock:
            job = self._by_key.get(key)
            if job is not None and job.state in ("queued", "running"):
                return job
        shown, refused = priced(e, self.store)
        if refused is not None:
            raise InputError(refused)
        with self._lock:
            job = self._by_key.get(key)
            if job is not None and job.state in ("queued", "running"):
                return job
            job = Job(secrets.token_urlsafe(16), key, name, kwargs, e.solve_with, None)
            job.estimate = shown
            self._by_id[job.id] = job
            self._by_key[key] = job
            while len(self._by_id) > KEPT:
                old = next(iter(self._by_id.values()))
                if old.state in ("queued", "running"):
                    break
                self._forget(old)
        self._pool.submit(self._run, job)
        return job

    def _forget(self, job: Job) -> None:
        self._by_id.pop(job.id, None)
        if self._by_key.get(job.key) is job:
            del self._by_key[job.key]

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._by_id.get(job_id)

    def _run(self, job: Job) -> None:
        import dicesolver as ds

        with job.lock:
            job.state = "running"
        _current.job = job
        try:
            getattr(ds, job.name)(**job.kwargs, tables=self.store, progress=JobProgress(job))
            state, error = "done", None
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

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
