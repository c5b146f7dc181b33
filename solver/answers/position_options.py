"""A Position (solver/position.py) from what a user gives — the command line's options, the
Python API's keywords, a web form: parsed and checked once, here, before any solve.  Each
option of the game is checked against the rules (a counter the rules do not have is
refused, never dropped), and options that say nothing together are refused in one line."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import InputError
from ..position import Position
from ..rules import RuleSet
from .inputs import int_list, zilches_of

LEFT = {"both": 3, "below": 1, "above": 2, "none": 0}  # the challenges a player has left
NAMES = {v: k for k, v in LEFT.items()}

Scores = str | Sequence[int] | None


def aimed(rs: RuleSet, target: int | None) -> RuleSet:
    """The rules of the game to `target` (--target): every table of a game or an end-game
    is that game's, the very table `zilch game --target` builds."""
    if target is not None and rs.target is None:
        raise InputError(f"--target: {rs.name} has no game (no target in its rules)")
    return rs.aimed(target)


def position_of(
    rs: RuleSet,
    scores: list[int] | None = None,
    mode: str | None = None,
    zilches: int = 0,
    opp_zilches: int = 0,
    beat: int = 0,
    challenges: str | Sequence[str] | None = None,
    on_board: str | Sequence[str] | None = None,
    challenging: bool = False,
    lowest: int | None = None,
    offer: tuple[int, int] | None = None,
    not_on_board: bool = False,
) -> Position:
    """The position, every part checked against the rules (rs: aimed and beating already)."""
    k = (zilches_of(rs, zilches), zilches_of(rs, opp_zilches, "--opp-zilches"))
    if k[1] and not scores:
        raise InputError("--opp-zilches is about the game: give --score and --opponents")
    if k[1] and scores and len(scores) != 2:
        raise InputError("--opp-zilches is for two players: one opponent")
    asked = {"challenges": challenges, "on_board": on_board, "challenging": challenging}
    if any(v not in (None, False) for v in asked.values()):
        if not rs.challenge:
            raise InputError(
                f"--challenges/--on-board/--challenging: {rs.name} has no challenge rule (the "
                "rule key is challenge = true)"
            )
        if not scores:
            raise InputError(
                "--challenges/--on-board/--challenging are about the game: give --score and "
                "--opponents"
            )
    if not_on_board and scores:
        raise InputError(
            "--not-on-board with --score: the score says whether you are on the board (0: not yet)"
        )
    left = challenges_of(rs, challenges) if rs.challenge else None
    boards = boards_of(rs, on_board, scores) if on_board is not None else None
    return Position(
        scores=tuple(scores or ()),
        target=rs.target,
        mode=mode,
        zilches=k,
        beat=rs.beat,
        challenges=left if challenges is not None else None,
        boards=boards,
        challenging=bool(challenging),
        lowest=lowest,
        offer=offer,
        on_board=not not_on_board,
    )


def mode_of(final_round: bool, last_turn: bool) -> str | None:
    if final_round and last_turn:
        raise InputError("--final-round and --last-turn exclude each other")
    return "final-round" if final_round else "last-turn" if last_turn else None


def advice_scores(score: int | None, opponents: Scores, mode: str | None) -> list[int] | None:
    """--score and --opponents (both or neither; with --final-round/--last-turn both)."""
    if score is None and opponents is None and mode is None:
        return None
    if score is None or opponents is None:
        raise InputError("end-game advice needs both --score and --opponents")
    if isinstance(score, bool) or not isinstance(score, int):
        raise InputError(f"--score: expected a whole number of points, got {score!r}")
    return [score, *int_list(opponents, "--opponents")]


def game_scores(scores: Scores, players: int) -> list[int]:
    """--scores of a game: one per seat, from the player to move (default 0s)."""
    if scores is None:
        return [0] * players
    got = int_list(scores, "--scores")
    if players == 2 and len(got) != 2:
        raise InputError("--scores expects ME,OPP such as 0,0")
    return got


def _two(value: str | Sequence[str], what: str, meaning: str) -> list[str]:
    items = value.split(",") if isinstance(value, str) else [str(v) for v in value]
    items = [x.strip().lower() for x in items]
    if len(items) != 2:
        raise InputError(f"{what} expects MINE,OPP ({meaning}), got {value!r}")
    return items


def challenges_of(rs: RuleSet, value: str | Sequence[str] | None) -> tuple[int, int]:
    """--challenges MINE,OPP: the challenges each player has left (both, below, above or
    none; default both,both).  Refused under rules without the challenge rule."""
    if value is None:
        return (LEFT["both"], LEFT["both"]) if rs.challenge else (0, 0)
    if not rs.challenge:
        raise InputError(
            f"--challenges: {rs.name} has no challenge rule (the rule key is challenge = true)"
        )
    items = _two(value, "--challenges", "each both, below, above or none")
    bad = [x for x in items if x not in LEFT]
    if bad:
        raise InputError(
            f"--challenges: {bad[0]!r} is not one of both, below, above, none (the challenges "
            "a player has left: the one below the threshold, the one at or above it)"
        )
    return LEFT[items[0]], LEFT[items[1]]


def boards_of(rs: RuleSet, value: Any, pair: Sequence[int] | None) -> tuple[bool, bool]:
    """--on-board MINE,OPP (yes/no): whether each player has banked the entry minimum.  By
    default a positive score is on the board and a score at or below zero is not; only
    under a challenge can a player on the board fall to zero or below."""
    pair = list(pair or (0, 0))[:2]
    if value is None:
        return rs.on_board(pair[0]), rs.on_board(pair[1])
    if not rs.challenge:
        raise InputError(
            f"--on-board: under {rs.name} the score says whether a player is on the board "
            "(only a challenge can take a player on the board to zero or below)"
        )
    items = _two(value, "--on-board", "each yes or no")
    if any(x not in ("yes", "no") for x in items):
        raise InputError(f"--on-board expects yes or no for each player, got {value!r}")
    flags = (items[0] == "yes", items[1] == "yes")
    for who, x, on in zip(("mine", "the opponent's"), pair, flags):
        if not on and x > 0:
            raise InputError(
                f"--on-board ({who}) no with a score of {x}: a positive score is a bank of at "
                "least the entry minimum, so that player is on the board"
            )
    if not rs.entry_minimum and not all(flags):
        raise InputError(f"--on-board: {rs.name} has no entry minimum: everybody is on the board")
    return flags
