"""`zilch advise --take-over`: Zonk's piggyback offer, by expected points (take over the
dice and total, or start fresh), or with the scores by the game's probability of winning."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InputError
from ..turn.state import TurnState
from .answer import Answer

if TYPE_CHECKING:
    from ..tables import Tables


@dataclass(frozen=True)
class Offer:
    dice: int
    turn: int


@dataclass(frozen=True)
class TakeOverValues:
    take_over: float
    fresh: float


@dataclass(frozen=True)
class TakeOver(Answer):
    """Zonk's piggyback by expected points: take over the dice and total, or start fresh."""

    rules: str
    take_over: Offer
    action: str
    values: TakeOverValues
    margin: float


@dataclass(frozen=True)
class GameTakeOver(Answer):
    """Zonk's piggyback in a two-player game, by P(win)."""

    rules: str
    score: int
    opponents: list[int]
    take_over: Offer
    action: str
    p_win: TakeOverValues
    margin: float


def offer(tab: Tables, spec: str | Sequence[int]) -> tuple[int, int]:
    """A piggyback offer DICE,TOTAL as given to --take-over, checked against the rules: a
    bank can leave it."""
    rs = tab.rules
    if not rs.piggyback:
        raise InputError(f"--take-over: {rs.name} has no piggyback rule")
    try:
        dice, total = (int(x) for x in (spec.split(",") if isinstance(spec, str) else spec))
    except (ValueError, TypeError):
        raise InputError(f"--take-over expects DICE,TOTAL such as 3,450, got {spec!r}") from None
    if total == 0:
        raise InputError("--take-over: a total of 0 is a fresh start")
    if dice == rs.dice and rs.hot_dice == "mandatory":
        raise InputError(
            f"--take-over {dice},{total}: a bank never leaves all {rs.dice} dice "
            f"under {rs.name} (hot dice must be rolled)"
        )
    tab.check(TurnState(dice, total))
    return dice, total


def piggyback(tab: Tables, given: tuple[int, int], on_board: bool, zilches: int = 0) -> TakeOver:
    """By expected points: take over the offer's dice and total, or start fresh?"""
    rs = tab.rules
    dice, total = given
    pol = tab.score.card(zilches)
    over = pol.value_at(TurnState(dice, total), on_board).roll  # taking over: rolling them
    fresh = pol.value_at(TurnState(rs.dice), on_board).roll
    return TakeOver(
        rs.name,
        Offer(dice, total),
        "take_over" if over > fresh else "fresh",
        TakeOverValues(over, fresh),
        abs(over - fresh),
    )


def take_over_game(tab: Tables, given: tuple[int, int], score: int, opponent: int) -> GameTakeOver:
    """In the two-player game, by P(win) from its stored table."""
    from .game_tables import plain_game

    rs = tab.rules
    dice, total = given
    for what, x in (("--score", score), ("--opponents", opponent)):
        rs.check_score(what, x)
        if rs.target is not None and rs.reached(x):
            raise InputError(f"{what} {x}: the game is over at {rs.target}")
    if total > opponent:
        raise InputError(
            f"--take-over {dice},{total}: impossible offer (the total is at most "
            f"the opponent's score {opponent}, which includes it)"
        )
    g = plain_game(tab)
    assert g.O is not None  # (the piggyback game stores its offers)
    over, fresh = g.take_over(score, opponent, dice, total), g.p_win(score, opponent)
    return GameTakeOver(
        rs.name,
        score,
        [opponent],
        Offer(dice, total),
        "take_over" if over > fresh else "fresh",
        TakeOverValues(over, fresh),
        abs(over - fresh),
    )
