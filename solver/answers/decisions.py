"""A roll's decisions valued under an objective: what `zilch review` grades, what the
computer plays and what a hint shows in `zilch play`.

A decision is a set-aside (the dice kept from the roll) and then roll or bank.  Its value is
the value of the state after the set-aside — rolling or banking — under optimal play from
there: expected points of the turn (the score card `advise` reads) or the probability of
winning (`advise` with the scores: endgame_advice).  Values are those of `advise` for the
same situation, by construction: the same functions are called.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import InputError
from ..outcomes.dice import Outcome
from ..outcomes.scoring import Choice
from ..position import Position
from ..rules import RuleSet
from ..tables import Tables
from ..turn.state import StateValues, TurnState


@dataclass(frozen=True)
class Values:
    """The values of turn states under one objective ("points" or "game"); situation: by
    P(win), which question the scores ask ("game", "last turn", "final round", ...)."""

    objective: str
    of: Callable[[TurnState], StateValues]
    situation: Callable[[], str | None] = lambda: None

    def __call__(self, st: TurnState) -> StateValues:
        return self.of(st)


def points_values(tab: Tables, on_board: bool = True, zilches: int = 0) -> Values:
    """Values by expected points (the score card of `zilches` in a row before the turn)."""
    from .advise import _score_values

    pol = tab.score.card(zilches)
    return Values("points", lambda st: _score_values(pol, st, on_board)[0])


def game_values(
    tab: Tables,
    score: int,
    opponents: list[int],
    zilches: tuple[int, int] = (0, 0),
    pos: Position | None = None,
) -> Values:
    """Values by the probability of winning, from the scores (mine, then the others' in turn
    order after me), or a whole position (pos); TableMissing where the game's table is not
    stored, InputError where there is no such chance."""
    from .endgame_advice import endgame_advice

    if pos is None:
        pos = Position(scores=(score, *opponents), zilches=zilches, beat=tab.rules.beat)
    cache: dict[TurnState, StateValues] = {}
    seen: list[str] = []

    def values(st: TurnState) -> StateValues:
        if st not in cache:
            a = endgame_advice(tab, st, pos)
            cache[st] = a.p_win
            seen[:] = [a.situation]
        return cache[st]

    return Values("game", values, lambda: seen[0] if seen else None)


@dataclass(frozen=True)
class Option:
    """A set-aside: the dice kept, the state after it and its values (roll, bank)."""

    keep: list[int]
    choice: Choice
    after: TurnState
    values: StateValues


def after(rules: RuleSet, state: TurnState, c: Choice) -> TurnState:
    """The state after a set-aside (hot dice: all dice again)."""
    return TurnState(c.left or rules.dice, state.turn + c.points, state.permanent + c.permanent)


@functools.lru_cache(maxsize=1 << 14)
def roll_choices(rules: RuleSet, outcome: Outcome) -> tuple[Choice, ...]:
    """The set-asides the rules list for the roll (a game asks each roll several times)."""
    from ..outcomes.scoring import score_outcome

    return score_outcome(rules, outcome).choices


def options(rules: RuleSet, values: Values, state: TurnState, outcome: Outcome) -> list[Option]:
    """Every set-aside the rules list for the roll, best first (by its best move)."""
    from ..outcomes.frozen import faces_of

    found = []
    for c in roll_choices(rules, outcome):
        a = after(rules, state, c)
        found.append(Option(faces_of(c.kept), c, a, values(a)))
    found.sort(key=lambda o: -o.values.best)
    return found


def chosen(rules: RuleSet, outcome: Outcome, keep: list[int]) -> list[Choice]:
    """The set-asides of the dice `keep` from the roll, checked: among the dice rolled, all
    scoring, allowed (forced set-aside); the points the rules give those dice (several
    where the dice split into combinations more than one way, none better in every
    respect: the player counts the one worth most)."""
    from ..outcomes.frozen import faces_of
    from ..outcomes.scoring import _face_groups, _splits

    listed = roll_choices(rules, outcome)
    kept = tuple(keep.count(f) for f in range(1, 7))
    rolled = [f + 1 for f, c in enumerate(outcome.counts) for _ in range(c)]
    shown = " ".join(map(str, sorted(keep)))
    if any(k > c for k, c in zip(kept, outcome.counts)):
        raise InputError(f"keep {shown}: not among the dice rolled {' '.join(map(str, rolled))}")
    own = [c for c in listed if c.kept == kept]
    if (
        not own
    ):  # (a split the rules allow but the solver skips: dominated, or equal to a listed one)
        splits = _splits(rules, _face_groups(rules), kept, outcome.matched)
        if not splits:
            raise InputError(
                f"keep {shown} does not score under {rules.name} (every die kept must score)"
            )
        pts, perm = max(splits)
        own = [Choice(pts, perm, sum(outcome.counts) - len(keep), kept)]
    forced = listed[0]
    key = (forced.left, forced.points, forced.permanent)
    if rules.set_aside == "forced" and all((c.left, c.points, c.permanent) != key for c in own):
        raise InputError(
            f"{rules.name} forces the set-aside: keep "
            f"{' '.join(map(str, faces_of(forced.kept)))} ({forced.points} points)"
        )
    return own


def move_value(v: StateValues, then: str) -> float:
    """The value of rolling or banking; InputError where banking is not allowed."""
    if then == "bank":
        if v.bank is None:
            raise InputError(
                "banking is not allowed here (below the minimum to bank, or hot dice that "
                "must be rolled)"
            )
        return v.bank
    return v.roll
