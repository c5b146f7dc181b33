"""What this machine can do: work is estimated before it starts and refused, with the
estimate and the option that changes it, where it would not fit.

The figures are upper estimates from the sizes of the arrays a solve allocates (float64)
and, for the game, from its measured cost per turn state.
"""

from __future__ import annotations

import os

from .errors import InputError

# Largest combination, minimum or per-turn step of a rule set, in its units: every turn grid
# grows with them.
MAX_UNITS = 20_000
# Largest score, turn total, deficit or target anyone asks about, in points.
MAX_POINTS = 10**9
# Players in a final round (each one more multiplies the leader states the later ones face).
MAX_PLAYERS = 8
# Longest solve started on request (seconds): beyond it the answer is refused, not started.
MAX_SECONDS = 24 * 3600
# Simulated turns (games) per second, measured on this machine: zilch simulate ~3 M turns/s,
# yahtzee simulate ~20 k games/s.
TURNS_PER_SECOND = 2e6
GAMES_PER_SECOND = 1e4


def memory() -> int:
    """Bytes a solve may take: a third of this machine's physical memory (its arrays are
    estimated, not every temporary: the rest is room for those)."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        total = 8 << 30
    return total // 3


def size(nbytes: float) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if nbytes >= scale:
            return f"{nbytes / scale:.1f} {unit}"
    return f"{nbytes / 1e3:.0f} kB"


def duration(seconds: float) -> str:
    if seconds >= 2 * 86400:
        return f"{seconds / 86400:.0f} days"
    if seconds >= 2 * 3600:
        return f"{seconds / 3600:.0f} hours"
    if seconds < 90:
        return f"{max(seconds, 1):.0f} seconds"
    return f"{seconds / 60:.0f} minutes"


def check_memory(nbytes: float, what: str, hint: str) -> None:
    """InputError where `what` would need more memory than a solve may take."""
    if nbytes > memory():
        raise InputError(
            f"{what} needs about {size(nbytes)} of memory, more than this machine "
            f"gives a solve ({size(memory())}); {hint}"
        )


def check_time(seconds: float, what: str, hint: str) -> None:
    if seconds > MAX_SECONDS:
        raise InputError(f"{what} would take about {duration(seconds)} on this machine; {hint}")


def check_points(value: int, what: str, field: str | None = None) -> None:
    """InputError for a score, total or deficit beyond any game (and beyond 64 bits)."""
    if abs(value) > MAX_POINTS:
        raise InputError(
            f"{what} {value} is beyond what the solver takes (at most {MAX_POINTS} points)",
            field,
        )


def check_players(n: int) -> None:
    if n > MAX_PLAYERS:
        raise InputError(
            f"a final round of {n} players: the solver takes up to {MAX_PLAYERS} "
            "(each one more multiplies the leader states the later ones face)"
        )


def turn_bytes(rows: int, states: int, length: int, extras: int = 0) -> float:
    """A turn solve of `rows` batch rows on a grid of `length` totals: its values, the
    roll/bank solution and the extras, float64."""
    return 8.0 * rows * states * length * (4 + 2 * extras)
