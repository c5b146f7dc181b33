"""Should I roll?  `zilch advise`: by expected points; the other questions it routes to
are answered in their own modules, imported when asked (a query loads only its own):
ranking.py (a roll's set-asides), piggyback.py (Zonk's offer), endgame_advice.py (with
the scores: the probability of winning)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InputError
from ..outcomes.frozen import faces_of
from ..rules import RuleSet
from ..turn.state import StateValues, TurnState
from .base import (
    Answer,
    Rules,
    Tables_,
    dice_list,
    hidden,
    int_list,
    optional,
    rule_set,
    tables_of,
    turn_state,
    zilches_of,
)

if TYPE_CHECKING:
    from ..objectives.score import ScorePolicy
    from .endgame_advice import EndgameAdvice
    from .piggyback import GameTakeOver, TakeOver
    from .ranking import Ranking


# --- zilch advise --------------------------------------------------------------------------
@dataclass(frozen=True)
class Advice(Answer):
    """ROLL or BANK by expected points."""

    rules: str
    dice: int
    turn: int
    permanent: int
    on_board: bool
    objective: str
    action: str
    values: StateValues
    margin: float | None
    note: str | None
    zilches: int | None = optional()  # (with a penalty for the third zilch in a row)
    beat: int | None = optional()  # (overtaking: the turn total a bank must beat)
    frozen: list[int] | None = optional()  # (pyramiding: dice frozen since the pick-up)
    ruleset: RuleSet = hidden()


def _score_values(
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


def advise(
    rules: Rules = "farkle",
    dice: int | None = None,
    turn: int = 0,
    permanent: int = 0,
    not_on_board: bool = False,
    roll: str | Sequence[int] | None = None,
    matched: bool = False,
    take_over: str | Sequence[int] | None = None,
    score: int | None = None,
    opponents: str | Sequence[int] | None = None,
    final_round: bool = False,
    last_turn: bool = False,
    zilches: int = 0,
    opp_zilches: int = 0,
    beat: int = 0,
    frozen: str | Sequence[int] | None = None,
    challenges: str | Sequence[str] | None = None,
    on_board: str | Sequence[str] | None = None,
    challenging: bool = False,
    tables: Tables_ = None,
) -> Advice | Ranking | TakeOver | GameTakeOver | EndgameAdvice:
    """Should I roll?  Without scores: by expected points this turn (with a roll: every
    set-aside ranked; with a piggyback offer: take it or start fresh).  With the score and
    the opponents' scores: by the probability of winning.  zilches: zilches in a row
    before this turn, where the rules charge a penalty for the third (then the objective
    is the long-run average points per turn).  beat: with overtaking, the previous
    player's banked turn total (a bank must beat it; 0: he zilched, or nobody has
    played).  frozen: under pyramiding, the dice frozen since the last pick-up of all dice
    (e.g. "5,5").  Under the challenge rule, with scores: `challenges` left ("MINE,OPP",
    each both, below, above or none; default both,both), `on_board` ("yes,no", where a
    score at or below zero may be on the board), `challenging` (this turn is a challenge);
    at the start of a turn the answer says whether to challenge."""
    rs = rule_set(rules).beating(beat)
    k = zilches_of(rs, zilches)
    k_opp = zilches_of(rs, opp_zilches, "--opp-zilches")
    tab = tables_of(rs, tables)
    if frozen is not None:  # (checked first: no answer is given without it)
        turn_state(rs, dice, turn, permanent, frozen)
    # options that say nothing together: refused, never silently dropped
    if final_round and last_turn:
        raise InputError("--final-round and --last-turn exclude each other")
    if matched and roll is None:
        raise InputError("--matched describes a roll: give it with --roll")
    if not_on_board and score is not None:
        raise InputError(
            "--not-on-board with --score: the score says whether you are on the board (0: not yet)"
        )
    if take_over is not None and (roll is not None or dice is not None or turn or permanent):
        raise InputError(
            "--take-over is the state the turn starts from: leave out --dice, "
            "--turn, --permanent and --roll"
        )
    mode = "final-round" if final_round else "last-turn" if last_turn else None
    if take_over is not None and mode is not None:
        raise InputError(
            f"--take-over and --{mode}: a piggyback offer is taken in a game "
            "where reaching the target wins at once"
        )
    asked = {"challenges": challenges, "on_board": on_board, "challenging": challenging}
    if any(v not in (None, False) for v in asked.values()):
        if not rs.challenge:
            raise InputError(
                f"--challenges/--on-board/--challenging: {rs.name} has no challenge rule (the "
                "rule key is challenge = true)"
            )
        if score is None:
            raise InputError(
                "--challenges/--on-board/--challenging are about the game: give --score and "
                "--opponents"
            )
    if score is not None or opponents is not None or mode is not None:
        if score is None or opponents is None:
            raise InputError("end-game advice needs both --score and --opponents")
        opp = int_list(opponents, "--opponents")
        if k_opp and len(opp) != 1:
            raise InputError("--opp-zilches is for two players: one opponent")
        if take_over is not None:  # piggyback, by the game's win probability
            if len(opp) != 1:
                raise InputError("--take-over with scores is for two players: one opponent")
            from .piggyback import take_over_game

            return take_over_game(tab, take_over, score, opp[0])
        if roll is not None:
            raise InputError("--roll gives expected-points advice; leave out --score/--opponents")
        from .endgame_advice import endgame_advice

        state = turn_state(rs, dice, turn, permanent, frozen)
        return endgame_advice(tab, state, score, opp, mode, (k, k_opp), asked)
    if k_opp:
        raise InputError("--opp-zilches is about the game: give --score and --opponents")
    if take_over is not None:
        from .piggyback import piggyback

        return piggyback(tab, take_over, not not_on_board, k)
    state = turn_state(rs, dice, turn, permanent, frozen)
    if roll is not None:
        from .ranking import ranking

        return ranking(tab, state, dice_list(roll, "--roll"), matched, not not_on_board, k)
    tab.check(state)
    pol = tab.score.card(k)
    on = not not_on_board
    v, note = _score_values(pol, state, on)
    penalty = pol.relative is not None
    objective = "long-run average points per turn" if penalty else "expected points"
    return Advice(
        rs.name,
        state.dice,
        turn,
        permanent,
        on,
        objective,
        v.action,
        v,
        v.margin,
        note,
        k if penalty else None,
        rs.beat if rs.overtaking else None,
        faces_of(state.frozen) if rs.pyramiding else None,
        rs,
    )
