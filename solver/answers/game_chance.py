"""The whole game: `zilch game` — P(the player to move wins) between two players, every
seat's chance among more, the fairest head start.  The variant of the game (plain,
piggyback, penalty, overtaking, challenge, N players) is looked up (variants/), never
branched on here: this module parses the position, asks the variant's table and answers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ..position import Position
from ..progress import SILENT, Progress
from .answer import Answer, optional
from .inputs import Rules, Tables_, rule_set, tables_of
from .position_options import aimed, game_scores, position_of

if TYPE_CHECKING:
    from ..tables import Tables
    from ..variants import Where
    from .versus import VersusChance


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


TWO_PLAYER_ONLY = ("zilches", "opp_zilches", "lowest", "beat", "challenges", "on_board")


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
    timeout: float | None = None,
    policy: str | None = None,
    vs: str | None = None,
) -> GameChance | Fairness | SeatChances | SeatFairness | VersusChance:
    """The whole game: the probability that the player to move wins (solved and stored on
    first use, with progress).  scores: the mover's and the opponent's (one per seat among
    more players, the mover first).  Where the third zilch in a row costs a penalty: after
    `zilches` and `opp_zilches` zilches in a row, scores down to `lowest` (points).  With
    overtaking: `beat`, the opponent's last banked turn total (0: he zilched, or nobody has
    played).  With the challenge rule: `challenges` left ("MINE,OPP", each both, below,
    above or none), `on_board` ("yes,no"), and the answer says whether to challenge.
    players: more than two, every seat's chance, solved on Dask (`workers` of a local
    cluster, or the cluster at `scheduler`), waiting at most `timeout` seconds (default 60)
    for a scheduler to answer or a worker to join.  policy, vs: the chance of the player
    to move playing `policy` against an opponent playing `vs` (optimal, points or a policy
    file; answers/versus.py)."""
    if policy is not None or vs is not None:  # one policy against another: answers/versus.py
        from .versus import NOT_WITH_POLICY
        from .versus import game as versus

        options = dict(locals())
        others = {k: options[k] for k in NOT_WITH_POLICY}
        return versus(rules, target, scores, policy, vs, tables, progress, **others)
    rs = aimed(rule_set(rules), target)
    if players != 2 or workers is not None or scheduler is not None or timeout is not None:
        given: dict[str, Any] = dict(zip(TWO_PLAYER_ONLY, (zilches, opp_zilches, lowest, beat)))
        _check_seats(players, dict(given, challenges=challenges, on_board=on_board))
    rs = rs.beating(beat)
    if fairness and scores is not None:
        raise InputError("--fairness is about the start of the game: leave out --scores")
    seats = game_scores(scores, players)
    pos = position_of(
        rs, seats, None, zilches, opp_zilches, beat, challenges, on_board, lowest=lowest
    )
    tab = tables_of(rs, tables)
    from ..variants import Where

    return game_at(tab, pos, players, fairness, progress, Where(workers, scheduler, timeout))


def _check_seats(players: int, given: dict[str, Any]) -> None:
    """Among three players or more: none of the two-player game's options."""
    if players == 2:
        raise InputError(
            "--workers/--scheduler/--timeout solve the game among three players or more"
        )
    for name, v in given.items():
        if v is not None and (v != 0 or name in ("lowest", "challenges", "on_board")):
            flag = "--" + name.replace("_", "-")
            raise InputError(f"{flag} is an option of the two-player game, not of --players")


def game_at(
    tab: Tables,
    pos: Position,
    players: int = 2,
    fairness: bool = False,
    progress: Progress = SILENT,
    where: Where | None = None,
) -> GameChance | Fairness | SeatChances | SeatFairness:
    """The game's answer at a position (its scores one per seat): the variant's table,
    solved first where missing (scores checked before)."""
    from dataclasses import replace

    from .. import variants

    rs = replace(tab.rules, beat=0)
    v = variants.of(rs, players)
    key = v.key(players, pos.lowest)
    if fairness:
        given = [
            name
            for name, on in (
                ("--beat", pos.beat),
                ("--zilches", any(pos.zilches)),
                ("--challenges and --on-board", pos.challenges or pos.boards),
            )
            if on
        ]
        if given:
            raise InputError(f"--fairness is about the start of the game: leave out {given[0]}")
    else:
        v.check_scores(key, pos)
    g = tab.game_table(key, progress, True, where)
    assert g is not None  # (solved where missing)
    if players > 2:
        seats = g.seat_chances(pos)
        if fairness:
            return SeatFairness(rs.name, key.target, players, seats, seats[0] - 1.0 / players)
        return SeatChances(rs.name, key.target, players, list(pos.scores), seats)
    if fairness:
        return Fairness(rs.name, key.target, *g.fairness())
    return GameChance(rs.name, key.target, list(pos.scores), **g.chance(pos))
