"""`zilch advise --roll`: every set-aside choice of a roll, ranked by the value of what
follows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InputError
from ..rules import RuleSet
from ..turn.state import TurnState
from .base import Answer, hidden, optional

if TYPE_CHECKING:
    from ..tables import Tables


@dataclass(frozen=True)
class Option:
    keep: list[int]
    points: int
    permanent: int
    turn: int
    dice_left: int
    hot_dice: bool
    then: str
    value: float
    loss: float
    frozen: list[int] | None = optional()  # (pyramiding: the dice frozen after)


@dataclass(frozen=True)
class Ranking(Answer):
    """Every set-aside choice of a roll, ranked by the value of what follows."""

    rules: str
    dice: int
    turn: int
    permanent: int
    on_board: bool
    roll: list[int]
    zilch: bool
    zilch_keeps: int
    options: tuple[Option, ...]
    action: str | None
    zilches: int | None = optional()  # (with a penalty: values by the long-run average)
    frozen: list[int] | None = optional()  # (pyramiding: the dice frozen before the roll)
    ruleset: RuleSet = hidden()


def ranking(
    tab: Tables,
    state: TurnState,
    faces: list[int],
    matched: bool,
    on_board: bool,
    zilches: int = 0,
) -> Ranking:
    from ..outcomes.dice import colour_match_probability
    from ..outcomes.frozen import choices, faces_of
    from ..outcomes.scoring import parse_roll, score_outcome

    rs = tab.rules
    if len(faces) != state.dice:
        raise InputError(f"--roll has {len(faces)} dice but {state.dice} dice were to be rolled")
    tab.check(state)
    outcome = parse_roll(rs, faces, matched)
    if matched and not (rs.colour_pairs and colour_match_probability(outcome.counts)):
        raise InputError(f"--matched: these dice cannot form three colour pairs under {rs.name}")
    found = []
    pol = tab.score.card(zilches)
    pyr = rs.pyramiding
    frozen = state.frozen or (0,) * 6
    for c in choices(rs, outcome, frozen) if pyr else score_outcome(rs, outcome).choices:
        held = c.frozen if pyr else ()  # type: ignore[union-attr]
        turn, perm = state.turn + c.points, state.permanent + c.permanent
        after = TurnState(c.left or rs.dice, turn, perm, held)
        v = pol.value_at(after, on_board)
        value = v.best  # of what follows: rolling, or banking where that is better
        found.append((faces_of(c.kept), c, after, v.action, value))
    found.sort(key=lambda o: -o[4])
    best = found[0][4] if found else 0.0
    options = tuple(
        Option(
            keep,
            c.points,
            c.permanent,
            after.turn,
            c.left,
            c.left == 0,
            then,
            value,
            best - value,
            faces_of(after.frozen) if pyr else None,
        )
        for keep, c, after, then, value in found
    )
    return Ranking(
        rs.name,
        state.dice,
        state.turn,
        state.permanent,
        on_board,
        sorted(faces),
        not options,
        rs.recorded_after_zilch(state.permanent, on_board),
        options,
        options[0].then if options else None,
        zilches if rs.three_zilch_penalty else None,
        faces_of(state.frozen) if pyr else None,
        rs,
    )
