"""Progress of long work (light: the command line imports it before any solver).

Every piece of work that can take more than a couple of seconds reports here: `note` first
(what it is, and its estimate: time, memory, disk), then `start`/`advance`/`finish` of its
steps.  The command line draws a bar on a terminal and prints a line at the start and the
end elsewhere (cli/command_parts.py: Bar); the API is silent unless given a Progress."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator


class Progress:
    """Reports long work: the command line draws a bar on stderr (cli/command_parts.py); the API is
    silent unless given one."""

    def note(self, text: str) -> None:
        """A line about the work: what starts and its estimate, where a checkpoint is."""

    def start(self, label: str, total: int) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass

    def finish(self) -> None:
        pass

    def abandon(self) -> None:
        """The work stopped before its end (an interruption, an error): its bar ends."""
        self.finish()


SILENT = Progress()


@contextlib.contextmanager
def steps(progress: Progress, label: str, total: int) -> Iterator[Progress]:
    """A bar of `total` steps around a piece of work: finished when the work ends, abandoned
    where it stops early (Ctrl-C, an error: "stopped after", never "done in")."""
    progress.start(label, total)
    try:
        yield progress
    except BaseException:
        progress.abandon()
        raise
    progress.finish()


@contextlib.contextmanager
def started_by_first_step(
    progress: Progress, label: str, total: Callable[[int], int]
) -> Iterator[Callable[[int], None]]:
    """A step callback for work that may not run at all (its table is stored): the bar
    starts at the first step, with total(that step's report) steps, and finishes only if
    it started."""
    started: list[bool] = []

    def step(report: int) -> None:
        if not started:
            progress.start(label, total(report))
            started.append(True)
        progress.advance(1)

    try:
        yield step
    except BaseException:
        if started:
            progress.abandon()
            started.clear()
        raise
    finally:
        if started:
            progress.finish()


class Resumable(Progress):
    """A Progress whose bar other work may interrupt: paused() ends the bar drawn while
    that work draws its own, then draws it again where it was; waiting(seconds, limit)
    (a cluster without a worker, cluster.Watch) is such work: a bar of the seconds up to
    the time-out, ended by waiting(None, limit)."""

    def __init__(self, inner: Progress) -> None:
        self.inner = inner
        self.bar: list | None = None  # [label, total, done] of the bar drawn
        self.wait: contextlib.AbstractContextManager | None = None  # (a wait drawn)
        self.waited = 0

    def note(self, text: str) -> None:
        getattr(self.inner, "note", lambda _: None)(text)  # (a Progress of its own making

    def start(self, label: str, total: int) -> None:
        self.bar = [label, total, 0]
        self.inner.start(label, total)

    def advance(self, n: int = 1) -> None:
        if self.bar is not None:
            self.bar[2] += n
        self.inner.advance(n)

    def finish(self) -> None:
        self.bar = None
        self.inner.finish()

    def abandon(self) -> None:  # may have no note or abandon: the defaults then)
        self.bar = None
        getattr(self.inner, "abandon", self.inner.finish)()

    @contextlib.contextmanager
    def paused(self) -> Iterator[Progress]:
        held, self.bar = self.bar, None
        if held is not None:
            self.inner.finish()
        try:
            yield self.inner
        finally:
            if held is not None:
                self.start(held[0], held[1])
                if held[2]:
                    self.advance(held[2])

    def waiting(self, seconds: float | None, limit: float) -> None:
        if seconds is not None:
            if self.wait is None:
                self.wait = self.paused()
                self.wait.__enter__()
                label = f"waiting for workers (at most {limit:g} s: --timeout)"
                self.inner.start(label, math.ceil(limit))
                self.waited = 0
            if int(seconds) > self.waited:
                self.inner.advance(int(seconds) - self.waited)
                self.waited = int(seconds)
        elif self.wait is not None:
            self.inner.finish()
            wait, self.wait = self.wait, None
            wait.__exit__(None, None, None)
