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
from typing import TYPE_CHECKING

from ..errors import InputError
from ..outcomes.dice import Outcome
from ..outcomes.frozen import NONE, FrozenChoice, faces_of
from ..outcomes.scoring import Choice
from ..position import Position
from ..rules import RuleSet
from ..tables import Tables
from ..turn.state import StateValues, TurnState

if TYPE_CHECKING:
    from ..objectives.score import ScorePolicy


@dataclass(frozen=True)
class Values:
    """The values of turn states under one objective ("points" or "game"); situation: by
    P(win), which question the scores ask ("game", "last turn", "final round", ...)."""

    objective: str
    of: Callable[[TurnState], StateValues]
    situation: Callable[[], str | None] = lambda: None
    # (by P(win) without the exact table: the approximation's name, answers/approx_chance.py)
    method: Callable[[], str | None] = lambda: None

    def __call__(self, st: TurnState) -> StateValues:
        return self.of(st)


def score_values(
    pol: ScorePolicy, state: TurnState, on_board: bool
) -> tuple[StateValues, str | None]:
    """The values of a state by expected points, and why banking is not allowed."""
    v = pol.value_at(state, on_board)
    note = None
    if v.bank is None:
        rs = pol.rules
        if state.index(rs) == 0:
            note = "a turn starts with a roll" if state.turn == 0 else "hot dice must be rolled"
        elif rs.beat and rs.min_bank(on_board) == rs.beat + rs.unit:
            note = f"a bank must beat {rs.beat}, the previous player's (overtaking)"
        else:
            note = f"the minimum to bank is {rs.min_bank(on_board)}"
    return v, note


def points_values(tab: Tables, on_board: bool = True, zilches: int = 0) -> Values:
    """Values by expected points (the score card of `zilches` in a row before the turn)."""
    pol = tab.score.card(zilches)
    return Values("points", lambda st: score_values(pol, st, on_board)[0])


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
    method: list[str | None] = [None]

    def values(st: TurnState) -> StateValues:
        if st not in cache:
            a = endgame_advice(tab, st, pos)
            cache[st] = a.p_win
            seen[:] = [a.situation]
            method[0] = a.method
        return cache[st]

    return Values("game", values, lambda: seen[0] if seen else None, lambda: method[0])


SetAside = Choice | FrozenChoice  # (pyramiding's carry the frozen groups after)


@dataclass(frozen=True)
class Option:
    """A set-aside: the dice kept, the state after it and its values (roll, bank)."""

    keep: list[int]
    choice: SetAside
    after: TurnState
    values: StateValues


def after(rules: RuleSet, state: TurnState, c: SetAside) -> TurnState:
    """The state after a set-aside (hot dice: all dice again; under pyramiding with the
    frozen groups after it)."""
    frozen = c.frozen if isinstance(c, FrozenChoice) else ()
    return TurnState(
        c.left or rules.dice, state.turn + c.points, state.permanent + c.permanent, frozen
    )


@functools.lru_cache(maxsize=1 << 14)
def roll_choices(
    rules: RuleSet, outcome: Outcome, frozen: tuple[int, ...] = ()
) -> tuple[SetAside, ...]:
    """The set-asides the rules list for the roll (a game asks each roll several times);
    under pyramiding with the groups `frozen` before it (outcomes/frozen.py)."""
    if rules.pyramiding:
        from ..outcomes.frozen import choices

        return tuple(choices(rules, outcome, frozen or NONE))
    from ..outcomes.scoring import score_outcome

    return score_outcome(rules, outcome).choices


def options(rules: RuleSet, values: Values, state: TurnState, outcome: Outcome) -> list[Option]:
    """Every set-aside the rules list for the roll from `state`, best first (by its best
    move): what advise --roll ranks, the computer plays, a hint shows and review grades."""
    found = []
    for c in roll_choices(rules, outcome, state.frozen):
        a = after(rules, state, c)
        found.append(Option(faces_of(c.kept), c, a, values(a)))
    found.sort(key=lambda o: -o.values.best)
    return found


def chosen(
    rules: RuleSet, outcome: Outcome, keep: list[int], frozen: tuple[int, ...] = ()
) -> list[SetAside]:
    """The set-asides of the dice `keep` from the roll, checked: among the dice rolled, all
    scoring, allowed (forced set-aside); the points the rules give those dice (several
    where the dice split into combinations more than one way, none better in every
    respect: the player counts the one worth most).  frozen: pyramiding's groups before
    the roll."""
    listed = roll_choices(rules, outcome, frozen)
    kept = tuple(keep.count(f) for f in range(1, 7))
    rolled = [f + 1 for f, c in enumerate(outcome.counts) for _ in range(c)]
    shown = " ".join(map(str, sorted(keep)))
    if any(k > c for k, c in zip(kept, outcome.counts)):
        raise InputError(f"keep {shown}: not among the dice rolled {' '.join(map(str, rolled))}")
    own = [c for c in listed if c.kept == kept] or _unlisted(rules, outcome, kept, frozen)
    if not own:
        raise InputError(
            f"keep {shown} does not score under {rules.name} (every die kept must score)"
        )
    forced = listed[0]
    key = (forced.left, forced.points, forced.permanent)
    if rules.set_aside == "forced" and all((c.left, c.points, c.permanent) != key for c in own):
        raise InputError(
            f"{rules.name} forces the set-aside: keep "
            f"{' '.join(map(str, faces_of(forced.kept)))} ({forced.points} points)"
        )
    return own


def _unlisted(
    rules: RuleSet, outcome: Outcome, kept: tuple[int, ...], frozen: tuple[int, ...]
) -> list[SetAside]:
    """The set-aside of exactly `kept` where the list leaves it out (a split the rules
    allow but the solver skips: dominated, or equal to a listed one); none: the dice do
    not all score."""
    left = sum(outcome.counts) - sum(kept)
    if rules.pyramiding:
        from ..outcomes.frozen import pyramid_choices, turn_states

        states = turn_states(rules)
        ways = pyramid_choices(rules, states.best, outcome, frozen or NONE)
        found = [(pts, perm, grown) for (n, pts, perm, grown), k in ways.items() if k == kept]
        if not found:
            return []
        pts, perm, grown = max(found)
        state = states.index(left, grown) if left else rules.hot_state
        return [FrozenChoice(pts, perm, left, kept, grown if left else NONE, state)]
    from ..outcomes.scoring import face_groups, splits

    ways2 = splits(rules, face_groups(rules), kept, outcome.matched)
    if not ways2:
        return []
    pts, perm = max(ways2)
    return [Choice(pts, perm, left, kept)]


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
