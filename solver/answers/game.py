"""The two-player game: `zilch game` (P(the player to move wins), the fairest head start)."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InputError
from ..limits import check_memory, check_points, check_time
from .base import (
    Answer,
    Rules,
    Tables_,
    int_list,
    optional,
    rule_set,
    tables_of,
    zilches_of,
)
from .progress import SILENT, Progress, started_by_first_step

if TYPE_CHECKING:
    from ..tables import Tables
    from .nplayer import SeatChances, SeatFairness


# --- zilch game ----------------------------------------------------------------------------
PIGGYBACK_NOTE = (
    "piggyback included: a bank offers the dice left and the turn total to the other player"
)


@dataclass(frozen=True)
class GameChance(Answer):
    rules: str
    target: int
    scores: list[int]
    p_win: float
    note: str | None
    zilches: list[int] | None = optional()  # (with a penalty: mine, the opponent's)
    lowest: int | None = optional()  # (with a penalty below zero: the lowest score)
    beat: int | None = optional()  # (overtaking: the opponent's last bank, to beat)
    # (the challenge rule: challenges left and board flags of both players, P(win) without
    # and with a challenge this turn (None: none to use at this score), and whether to)
    challenges: list[str] | None = optional()
    on_board: list[bool] | None = optional()
    p_win_no_challenge: float | None = optional()
    p_win_challenge: float | None = optional()
    challenge: bool | None = optional()


@dataclass(frozen=True)
class Fairness(Answer):
    rules: str
    target: int
    head_start: int
    p_win_first: float
    p_win_first_no_head_start: float
    note: str | None


def game(
    rules: Rules = "farkle",
    target: int | None = None,
    scores: str | Sequence[int] | None = None,
    fairness: bool = False,
    zilches: int = 0,
    opp_zilches: int = 0,
    lowest: int | None = None,
    beat: int = 0,
    challenges: str | Sequence[str] | None = None,
    on_board: str | Sequence[str] | None = None,
    tables: Tables_ = None,
    progress: Progress = SILENT,
    players: int = 2,
    workers: int | None = None,
    scheduler: str | None = None,
) -> GameChance | Fairness | SeatChances | SeatFairness:
    """Two players, the whole game: the probability that the player to move wins (solved
    and stored on first use, with progress by score sum).  Where the third zilch in a row
    costs a penalty: after `zilches` and `opp_zilches` zilches in a row, scores down to
    `lowest` (points; where the penalty may take a score below zero).  With overtaking:
    `beat`, the opponent's last banked turn total (0: he zilched, or nobody has played),
    which the mover's bank must beat.  With the challenge rule: `challenges` left to each
    player ("MINE,OPP", each both, below, above or none; default both,both), `on_board`
    ("yes,no": where a score at or below zero may be on the board), and the answer says
    whether to challenge this turn.  players: more than two, every seat's chance from
    `scores` (one per seat, the mover first), solved on Dask (`workers` of a LocalCluster,
    or the cluster at `scheduler`; answers/nplayer.py)."""
    rs = rule_set(rules)
    if players != 2 or workers is not None or scheduler is not None:
        _check_target(rs, target)
        if players == 2:
            raise InputError("--workers/--scheduler solve the game among three players or more")
        given = [
            name
            for name, v in (
                ("--zilches", zilches),
                ("--opp-zilches", opp_zilches),
                ("--lowest", lowest),
                ("--beat", beat),
                ("--challenges", challenges),
                ("--on-board", on_board),
            )
            if v is not None and (v != 0 or name in ("--lowest", "--challenges", "--on-board"))
        ]
        if given:
            raise InputError(f"{given[0]} is an option of the two-player game, not of --players")
        from . import nplayer

        return nplayer.game(
            tables_of(rs, tables), players, target, scores, fairness, progress, workers, scheduler
        )
    rs.beating(beat)  # (checked as every --beat is)
    tab = tables_of(rs, tables)
    _check_target(rs, target)
    if fairness and scores is not None:
        raise InputError("--fairness is about the start of the game: leave out --scores")
    pair = _score_pair(scores)
    if rs.challenge:
        from . import challenge

        zilches_of(rs, zilches), zilches_of(rs, opp_zilches, "--opp-zilches")
        return challenge.game(
            rs, tab, target, pair, fairness, challenges, on_board, lowest, progress
        )
    if challenges is not None or on_board is not None:
        from .challenge import boards_of, challenges_of

        challenges_of(rs, challenges), boards_of(rs, on_board, pair)
    if rs.three_zilch_penalty:
        return _penalty_game(
            rs, tab, target, pair, fairness, zilches, opp_zilches, lowest, progress
        )
    if lowest is not None:
        raise InputError(f"--lowest: {rs.name} has no penalty or challenge that lowers a score")
    zilches_of(rs, zilches), zilches_of(rs, opp_zilches, "--opp-zilches")
    if rs.overtaking:
        return _overtaking_game(rs, tab, target, pair, fairness, beat, progress)
    if not fairness:
        goal = rs.target if target is None else target
        for what, v in zip(("--scores (mine)", "--scores (the opponent's)"), pair):
            rs.check_score(what, v)
            if goal is not None and v >= rs.reach_units(goal) * rs.unit:
                raise InputError(f"{what} {v}: a game to {goal} is over there")
    from ..objectives.game import fairest_head_start

    g = solve_game_table(tab, target, progress)
    note = PIGGYBACK_NOTE if g.O is not None else None
    if fairness:
        h, p = fairest_head_start(g)
        return Fairness(rs.name, g.target, h, p, float(g.W[0, 0]), note)
    me, opp = pair
    return GameChance(rs.name, g.target, [me, opp], g.p_win(me, opp), note)


def _check_target(rs, target: int | None) -> None:
    if target is not None:
        check_points(target, "--target")
        if target <= 0 or target % rs.unit:
            raise InputError(f"--target must be a positive multiple of {rs.unit}")


def check_scores_from(rs, pair, lo: int, top: int, floor: str) -> None:
    """--scores of a game whose scores run from a lowest score lo (points) to below top."""
    for what, v in zip(("--scores (mine)", "--scores (the opponent's)"), pair):
        check_points(v, what)
        if v % rs.unit or not lo <= v < top:
            raise InputError(
                f"{what} {v}: scores of this game are multiples of {rs.unit} from {lo} "
                f"({floor}) to below {top} (the target)"
            )


def _score_pair(scores) -> list[int]:
    pair = int_list("0,0" if scores is None else scores, "--scores")
    if len(pair) != 2:
        raise InputError("--scores expects ME,OPP such as 0,0")
    return pair


def solve_game_table(tab: Tables, target: int | None, progress: Progress):
    """The stored game table, solved first if missing (progress by score sum), where this
    machine can: the solve's memory and time are estimated first."""
    from ..objectives.game import check_supported, estimate

    check_supported(tab.rules)
    g = tab.game(target, solve_if_missing=False)
    if g is not None:
        return g
    what = f"the {tab.rules.name} game to {target or tab.rules.target}"
    g = _by_score_sums(
        estimate(tab.model, target), what, progress, lambda step: tab.game(target, step)
    )
    assert g is not None
    return g


def _by_score_sums(cost: tuple[float, float], what: str, progress: Progress, solve):
    """solve(step) where this machine can: its (bytes, seconds) estimated first; progress
    by score sum (solved from the top down: the first one reported gives their number)."""
    nbytes, seconds = cost
    check_memory(nbytes, what, "choose a lower --target")
    check_time(seconds, what, "choose a lower --target")
    with started_by_first_step(progress, "solving score sums", lambda sigma: sigma + 1) as step:
        return solve(step)


def _overtaking_game(rs, tab, target, pair, fairness, beat, progress):
    """The game under overtaking (objectives/overtaking_game.py): the opponent's last
    bank is part of the state."""
    from ..objectives.game import closest_to_even
    from ..objectives.overtaking_game import estimate

    goal = rs.target if target is None else target
    top = rs.reach_units(goal) * rs.unit
    if fairness and beat:
        raise InputError("--fairness is about the start of the game: leave out --beat")
    if not fairness:
        for what, v in zip(("--scores (mine)", "--scores (the opponent's)"), pair):
            rs.check_score(what, v)
            if v >= top:
                raise InputError(f"{what} {v}: a game to {goal} is over there")
        rs.beating(beat).check_previous_bank(pair[1])
    g = tab.overtaking_game(target, solve_if_missing=False)
    if g is None:
        what = f"the {rs.name} game to {goal} with overtaking"
        g = _by_score_sums(
            estimate(tab.model, goal),
            what,
            progress,
            lambda step: tab.overtaking_game(target, step),
        )
    assert g is not None
    if fairness:
        h, p = closest_to_even(g.W[0, :, 0], rs.unit)
        return Fairness(rs.name, g.target, h, p, float(g.W[0, 0, 0]), None)
    me, opp = pair
    return GameChance(rs.name, g.target, [me, opp], g.p_win(me, opp, beat), None, beat=beat)


def _penalty_game(rs, tab, target, pair, fairness, zilches, opp_zilches, lowest, progress):
    """The game where the third zilch in a row costs a penalty (objectives/penalty_game.py)."""
    from ..objectives.penalty_game import check_supported, lowest_units

    check_supported(rs)
    k = [zilches_of(rs, zilches), zilches_of(rs, opp_zilches, "--opp-zilches")]
    lo = lowest_units(rs, lowest) * rs.unit
    goal = rs.target if target is None else target
    top = rs.reach_units(goal) * rs.unit
    if fairness and any(k):
        raise InputError("--fairness is about the start of the game: leave out --zilches")
    floor = "the lowest score" if rs.penalty_below_zero else "the penalty stops at zero"
    check_scores_from(rs, pair, lo, top, floor)
    g = tab.penalty_game(target, lowest, solve_if_missing=False)
    if g is None:
        from ..objectives.penalty_game import estimate

        nbytes, seconds = estimate(tab.model, goal, lowest)
        what = f"the {rs.name} game to {goal} with the penalty"
        hint = "choose a lower --target or a higher --lowest"
        check_memory(nbytes, what, hint)
        check_time(seconds, what, hint)
        with _sweeps_bar(progress) as step:
            g = tab.penalty_game(target, lowest, step)
    assert g is not None
    low = lo if rs.penalty_below_zero else None
    if fairness:
        from ..objectives.game import closest_to_even

        first = g.W[0, 0, -g.lo, -g.lo :]  # the first to move at 0, opponent at h >= 0
        h, p = closest_to_even(first, rs.unit)
        return Fairness(rs.name, g.target, h, p, float(first[0]), None)
    me, opp = pair
    return GameChance(rs.name, g.target, [me, opp], g.p_win(me, opp, *k), None, k, low)


@contextlib.contextmanager
def _sweeps_bar(progress: Progress):
    """A bar over the sweeps of the game with a penalty: its steps are the digits of the
    largest change a sweep makes, down to the solve's tolerance."""
    from ..objectives.penalty_game import TOL

    digits = int(round(-math.log10(TOL)))
    shown = [0, False]

    def step(sweep: int, residual: float) -> None:
        if not shown[1]:
            progress.start("sweeps (digits settled)", digits)
            shown[1] = True
        got = min(digits, max(0, int(-math.log10(max(residual, 1e-300)))))
        if got > shown[0]:
            progress.advance(got - shown[0])
            shown[0] = got

    try:
        yield step
    finally:
        if shown[1]:
            progress.finish()
