"""Three players or more: `zilch game --players N` (every seat's chance) and the N-player
table's answers (advice from it in answers/endgame_advice.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InputError
from ..limits import check_memory, check_points, check_time
from .base import Answer, int_list
from .progress import Progress, started_by_first_step

if TYPE_CHECKING:
    from ..objectives.nplayer_game import NPlayerGame
    from ..tables import Tables

# seconds per state (one worker), by hot dice: farkle to 2000 (three players, 64 000
# states) 0.45 ms; zilch to 1000 (8 000 states) 8.4 ms (mandatory hot dice); each player
# more about doubles it (farkle, four players to 1000: 0.73 ms; five to 400: 2.7 ms)
SECONDS_PER_STATE = {"optional": 4.5e-4, "mandatory": 8.4e-3}
# seconds per final-round key (one worker, one thread) / (players - 1)^2, by hot dice, the
# largest measured: farkle 0.13 s (3 players, to 1000) .. 1.6 s (6 players, to 10000),
# 0.032 .. 0.068 per (players - 1)^2; zilch 0.14 .. 2.3 s, 0.035 .. 0.090
SECONDS_PER_KEY = {"optional": 0.07, "mandatory": 0.1}


@dataclass(frozen=True)
class SeatChances(Answer):
    """Every seat's chance of winning, the player to move first."""

    rules: str
    target: int
    players: int
    scores: list[int]
    p_win: list[float]
    note: str | None = None


@dataclass(frozen=True)
class SeatFairness(Answer):
    """Every seat's chance from the start, and the first seat's edge over an even share."""

    rules: str
    target: int
    players: int
    p_win: list[float]
    first_edge: float


def estimate(tab: Tables, players: int, target: int | None, workers: int) -> tuple[float, float]:
    """(bytes, seconds): each worker and the client keep every state's chances and the
    final-round table (a row of every leader score per key); time from measured solves,
    shared by the workers."""
    from ..objectives.nplayer_game import final_key_count

    rules = tab.rules
    R = rules.reach_units(target)
    states = float(R) ** players
    keys = float(final_key_count(rules, R, players))
    finals = 8.0 * players * keys * (R + (tab.reach_bound if keys else 0) + 1)
    nbytes = (8.0 * players * states + finals) * (workers + 1) + 2e8 * workers
    work = SECONDS_PER_STATE[rules.hot_dice] * 2.0 ** (players - 3) * states
    work += SECONDS_PER_KEY[rules.hot_dice] * (players - 1) ** 2 * keys
    return nbytes, work / max(workers, 1)


def seat_scores(rules, scores: str | Sequence[int] | None, players: int, goal: int) -> list[int]:
    """--scores of an N-player game: one per seat, from the player to move (default 0s)."""
    if scores is None:
        return [0] * players
    got = int_list(scores, "--scores")
    if len(got) != players:
        raise InputError(
            f"--scores: {len(got)} scores given for {players} players (one per seat, the "
            "player to move first)"
        )
    for i, v in enumerate(got):
        what = f"--scores (seat {i + 1})"
        check_points(v, what)
        rules.check_score(what, v)
        if v >= rules.reach_units(goal) * rules.unit:
            raise InputError(f"{what} {v}: a game to {goal} is over there")
    return got


def missing_table(rules, players: int, target: int | None = None) -> str:
    """How to build an N-player table a query needs (a query never starts a solve)."""
    return (
        f"no {players}-player game table for {rules.name} yet: solve it first with zilch game "
        f"--rules {rules.name} --players {players}" + (f" --target {target}" if target else "")
    )


def nplayer_table(
    tab: Tables,
    players: int,
    target: int | None,
    progress: Progress,
    workers: int | None = None,
    scheduler: str | None = None,
) -> NPlayerGame:
    """The stored N-player table, solved first if missing (where this machine can; progress
    by score sum)."""
    from ..cluster import check_workers
    from ..objectives.nplayer_game import check_supported

    check_supported(tab.rules, players)
    n = check_workers(workers)
    g = tab.nplayer_game(players, target, solve_if_missing=False)
    if g is not None:
        return g
    what = f"the {tab.rules.name} game among {players} players to {target or tab.rules.target}"
    if scheduler is None:
        nbytes, seconds = estimate(tab, players, target, n)
        check_memory(nbytes, what, "choose a lower --target, or a cluster (--scheduler)")
        check_time(seconds, what, "choose a lower --target, or a cluster (--scheduler)")

    drawn: list[bool] = []  # the final round's bar, drawn and not finished

    def final_step(done: int, total: int) -> None:  # one bar of its own, before the sums'
        if done == 1:
            progress.start("solving the final round", total)
            drawn.append(True)
        progress.advance(1)
        if done == total:
            progress.finish()
            drawn.clear()

    try:
        with started_by_first_step(progress, "solving score sums", lambda s: s + 1) as step:
            g = tab.nplayer_game(players, target, step, True, workers, scheduler, final_step)
    finally:
        if drawn:  # (interrupted while solving the final round)
            progress.finish()
    assert g is not None
    return g


def game(
    tab: Tables,
    players: int,
    target: int | None,
    scores: str | Sequence[int] | None,
    fairness: bool,
    progress: Progress,
    workers: int | None = None,
    scheduler: str | None = None,
) -> SeatChances | SeatFairness:
    from ..objectives.nplayer_game import check_supported

    rs = tab.rules
    check_supported(rs, players)
    goal = rs.target if target is None else target
    assert goal is not None
    if fairness and scores is not None:
        raise InputError("--fairness is about the start of the game: leave out --scores")
    seats = seat_scores(rs, scores, players, goal)
    g = nplayer_table(tab, players, target, progress, workers, scheduler)
    p = [float(x) for x in g.p_win(seats)]
    if fairness:
        return SeatFairness(rs.name, g.target, players, p, p[0] - 1.0 / players)
    return SeatChances(rs.name, g.target, players, seats, p)
