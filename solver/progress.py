"""Progress of long work (light: the command line imports it before any solver).

Every piece of work that can take more than a couple of seconds reports here: `note` first
(what it is, and its estimate: time, memory, disk), then `start`/`advance`/`finish` of its
steps.  The command line draws a bar on a terminal and prints a line at the start and the
end elsewhere (cli/common.py: Bar); the API is silent unless given a Progress."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator


class Progress:
    """Reports long work: the command line draws a bar on stderr (cli/common.py); the API is
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
