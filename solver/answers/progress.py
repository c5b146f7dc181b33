"""Progress of long work (light: the command line imports it before any solver)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator


class Progress:
    """Reports long work: the command line draws a bar on stderr (cli/common.py); the API is
    silent unless given one."""

    def start(self, label: str, total: int) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass

    def finish(self) -> None:
        pass


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
    finally:
        if started:
            progress.finish()
