"""`zilch advise --roll`: every set-aside choice of a roll, ranked by the value of what
follows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ..position import Position
from ..rules import RuleSet
from ..turn.state import TurnState
from .answer import Answer, hidden, optional

if TYPE_CHECKING:
    from ..tables import Tables
    from .decisions import Values


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
    # (with scores: values are the probability of winning, in this situation)
    objective: str | None = optional()
    score: int | None = optional()
    opponents: list[int] | None = optional()
    situation: str | None = optional()
    # (by P(win) without the exact table of this many players: false, the approximation)
    exact: bool | None = optional()
    method: str | None = optional()
    ruleset: RuleSet = hidden()


def ranking(
    tab: Tables, state: TurnState, faces: list[int], matched: bool, pos: Position
) -> Ranking:
    """Every set-aside of the roll `faces`, ranked by the value of what follows: expected
    points (the score card of pos.zilches[0]), or with scores the probability of winning —
    the values `zilch play`'s hint shows (decisions.game_values)."""
    from ..outcomes.dice import colour_match_probability
    from ..outcomes.frozen import faces_of
    from ..outcomes.scoring import parse_roll
    from .decisions import game_values, options, points_values

    rs = tab.rules
    if len(faces) != state.dice:
        raise InputError(f"--roll has {len(faces)} dice but {state.dice} dice were to be rolled")
    tab.check(state)
    outcome = parse_roll(rs, faces, matched)
    if matched and not (rs.colour_pairs and colour_match_probability(outcome.counts)):
        raise InputError(f"--matched: these dice cannot form three colour pairs under {rs.name}")
    on_board = rs.on_board(pos.me) if pos.by_game else pos.on_board
    by_game = game_values(tab, pos.me, pos.opponents, pos=pos) if pos.by_game else None
    values = by_game if by_game is not None else points_values(tab, on_board, pos.zilches[0])
    found = options(rs, values, state, outcome)  # (best first)
    best = found[0].values.best if found else 0.0
    pyr = rs.pyramiding
    ranked = tuple(
        Option(
            o.keep,
            o.choice.points,
            o.choice.permanent,
            o.after.turn,
            o.choice.left,
            o.choice.left == 0,
            o.values.action,
            o.values.best,
            best - o.values.best,
            faces_of(o.after.frozen) if pyr else None,
        )
        for o in found
    )
    game = pos.by_game
    return Ranking(
        rs.name,
        state.dice,
        state.turn,
        state.permanent,
        on_board,
        sorted(faces),
        not ranked,
        rs.recorded_after_zilch(state.permanent, on_board),
        ranked,
        ranked[0].then if ranked else None,
        pos.zilches[0] if rs.three_zilch_penalty else None,
        faces_of(state.frozen) if pyr else None,
        objective="P(win)" if game else None,
        score=pos.me if game else None,
        opponents=pos.opponents if game else None,
        situation=(by_game.situation() or _situation(tab, pos)) if by_game else None,
        **_approximate(by_game),
        ruleset=rs,
    )


def _approximate(values: Values | None) -> dict[str, Any]:
    """exact false and the method, where P(win) is approximate (approx_chance.py)."""
    method = values.method() if values is not None else None
    return {"exact": False, "method": method} if method else {}


def _situation(tab: Tables, pos: Position) -> str:
    """Which question the scores ask, where no option was valued (a zilch)."""
    from ..objectives.situation import situation

    kind = situation(tab.rules, pos.me, pos.opponents, pos.mode).kind
    return "game" if kind == "outside" else kind
