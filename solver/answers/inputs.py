"""The inputs of the questions, as the command line gives them (text) or the Python API
(numbers, lists): the rules, the tables' folder, a turn state, lists of numbers and dice,
zilch counts; and the refusals of questions that do not carry a rule."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError
from ..rules import RuleSet, load
from ..store import Store

if TYPE_CHECKING:  # (imported where used: the Yahtzee questions need neither)
    from ..tables import Tables
    from ..turn.state import TurnState

Rules = str | RuleSet
Tables_ = str | Store | None


def rule_set(rules: str | RuleSet) -> RuleSet:
    return rules if isinstance(rules, RuleSet) else load(rules)


def tables_of(rules: RuleSet, tables: str | Store | None) -> Tables:
    """The stored tables of `rules` in the folder `tables` (--tables), else the default."""
    from ..tables import Tables

    store = tables if isinstance(tables, Store) else Store.resolve(tables)
    return Tables(rules, store)


def turn_state(
    rs: RuleSet,
    dice: int | None,
    turn: int,
    permanent: int,
    frozen: str | Sequence[int] | None = None,
) -> TurnState:
    """The state as the options give it (dice: all where not given; frozen: the dice
    frozen since the last pick-up, under pyramiding)."""
    from ..turn.state import TurnState

    if frozen is None or (isinstance(frozen, str) and not frozen.strip()):
        counts: tuple[int, ...] = ()
    else:
        from ..outcomes.frozen import check_frozen, parse_frozen

        counts = parse_frozen(dice_list(frozen, "--frozen"))
        check_frozen(rs, counts, rs.dice if dice is None else dice)
    return TurnState(rs.dice if dice is None else dice, turn, permanent, counts)


def int_list(value: str | Sequence[int], what: str) -> list[int]:
    """Comma-separated integers (or a sequence of them)."""
    vals = _ints(value, what, f"{what} expects comma-separated integers")
    if not vals:
        raise InputError(f"{what}: no values given")
    return vals


def dice_list(value: str | Sequence[int], what: str) -> list[int]:
    """Die faces such as 1,1,5,3,4,6 (or a sequence of them)."""
    faces = _ints(value, what, f"{what} must be comma-separated die faces such as 1,1,5,3,4,6")
    bad = [f for f in faces if not 1 <= f <= 6]
    if bad:
        raise InputError(f"{what}: a die shows 1..6, got {bad[0]}")
    if not faces:
        raise InputError(f"{what}: no dice given")
    return faces


def _ints(value: str | Sequence[int], what: str, expects: str) -> list[int]:
    """The integers of a comma-separated option: spaces around a value are allowed, inside
    one refused ("10000 9000" is not 100009000); a trailing comma is harmless."""
    if not isinstance(value, str):
        return [_int(x, what) for x in value]
    fields = [x.strip() for x in value.split(",")]
    if fields and not fields[-1]:
        fields.pop()
    if "" in fields:
        raise InputError(f"{what} has an empty value: {value!r}")
    try:
        return [int(x) for x in fields]
    except ValueError:
        raise InputError(f"{expects}, got {value!r}") from None


def _int(x: Any, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        raise InputError(f"{what}: expected whole numbers, got {x!r}")
    return int(x)


def zilches_of(rules: RuleSet, zilches: int, what: str = "--zilches") -> int:
    """--zilches (or --opp-zilches): zilches in a row before the turn (0, 1 or 2), where the
    rules charge a penalty for the third (elsewhere the count changes nothing: only 0)."""
    if isinstance(zilches, bool) or not isinstance(zilches, (int, np.integer)):
        raise InputError(f"{what} must be 0, 1 or 2, got {zilches!r}")
    if not 0 <= zilches <= 2:
        raise InputError(
            f"{what} is the count of zilches in a row before the turn: 0, 1 or 2 (the "
            f"third costs the penalty and starts the count again), got {zilches}"
        )
    if zilches and not rules.three_zilch_penalty:
        raise InputError(
            f"{what} {zilches}: {rules.name} has no penalty for three zilches in a row "
            "(three_zilch_penalty), so the count changes nothing"
        )
    return int(zilches)


def refuse_pyramiding(rules: RuleSet, what: str) -> None:
    """InputError where a question does not carry the frozen groups of pyramiding: it
    refuses, rather than answer without them."""
    if rules.pyramiding:
        raise InputError(
            f"{what} does not support pyramiding ({rules.name}): its figures go by dice "
            "left, blind to the frozen dice (advise and endgame take them with --frozen)"
        )


def refuse_challenge(rules: RuleSet, what: str) -> None:
    """InputError where a question's last turns do not carry the challenge rule's choice
    (a last player with a challenge left may take it): it refuses rather than answer
    without it."""
    if rules.challenge:
        raise InputError(
            f"{what} does not support the challenge rule ({rules.name}): a last turn depends "
            "on the challenge left (endgame --deficit [--challenging] and advise with scores "
            "give it)"
        )
