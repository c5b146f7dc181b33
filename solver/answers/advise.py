"""Should I roll?  `zilch advise`: by expected points; the other questions it routes to
are answered in their own modules, imported when asked (a query loads only its own):
ranking.py (a roll's set-asides), piggyback.py (Zonk's offer), endgame_advice.py (with
the scores: the probability of winning)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..errors import InputError
from ..outcomes.frozen import faces_of
from ..position import Position
from ..progress import SILENT, Progress
from ..rules import RuleSet
from ..turn.state import StateValues, TurnState
from .answer import Answer, hidden, optional
from .decisions import score_values
from .game_tables import solving
from .inputs import Rules, Tables_, dice_list, rule_set, tables_of, turn_state
from .position_options import advice_scores, aimed, mode_of, position_of

if TYPE_CHECKING:
    from ..tables import Tables
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
    target: int | None = None,
    tables: Tables_ = None,
    solve: bool = False,
    progress: Progress = SILENT,
) -> Advice | Ranking | TakeOver | GameTakeOver | EndgameAdvice:
    """Should I roll?  Without scores: by expected points this turn (with a roll: every
    set-aside ranked; with a piggyback offer: take it or start fresh).  With the score and
    the opponents' scores: by the probability of winning (a roll's set-asides too).
    zilches: zilches in a row before this turn, where the rules charge a penalty for the
    third (then the objective is the long-run average points per turn).  beat: with
    overtaking, the previous player's banked turn total (a bank must beat it; 0: he
    zilched, or nobody has played).  frozen: under pyramiding, the dice frozen since the
    last pick-up of all dice (e.g. "5,5").  Under the challenge rule, with scores:
    `challenges` left ("MINE,OPP", each both, below, above or none; default both,both),
    `on_board` ("yes,no"), `challenging` (this turn is a challenge); at the start of a turn
    the answer says whether to challenge.  target: the game's (its stored table is the one
    `zilch game --target` builds).  solve: build a missing game table first (else
    TableMissing says how)."""
    rs = aimed(rule_set(rules), target).beating(beat)
    faces = None if roll is None else dice_list(roll, "--roll")
    dice = _dice_rolled(rs, dice, faces, turn, take_over is not None)
    if frozen is not None:  # (checked first: no answer is given without it)
        turn_state(rs, dice, turn, permanent, frozen)
    mode = mode_of(final_round, last_turn)
    if matched and roll is None:
        raise InputError("--matched describes a roll: give it with --roll")
    if take_over is not None:  # (where the turn starts, in a game that ends at the target)
        _check_take_over(faces is not None or dice is not None or bool(turn or permanent), mode)
    scores = advice_scores(score, opponents, mode)
    pos = position_of(
        rs, scores, mode, zilches, opp_zilches, beat, challenges, on_board, challenging,
        not_on_board=not_on_board,
    )  # fmt: skip
    tab = tables_of(rs, tables)
    state = None if take_over is not None else turn_state(rs, dice, turn, permanent, frozen)
    if take_over is not None:
        pos = replace(pos, offer=_offer(tab, take_over))
    return solving(solve, progress, lambda: advise_at(tab, state, pos, faces, matched))


def _offer(tab: Tables, take_over: str | Sequence[int]) -> tuple[int, int]:
    from .piggyback import offer

    return offer(tab, take_over)


def _dice_rolled(
    rs: RuleSet, dice: int | None, faces: list[int] | None, turn: int, offer: bool
) -> int | None:
    """The dice to roll, where only the roll gives them (a turn starts with all dice)."""
    if dice is not None or faces is None:
        return dice
    dice = len(faces)
    if not turn and dice != rs.dice and not offer:
        raise InputError(
            f"--roll has {dice} dice: a turn starts with all {rs.dice} under {rs.name}, "
            "and a roll of fewer comes after set-asides: give the turn total so far "
            "with --turn (and --dice)"
        )
    return dice


def _check_take_over(with_state: bool, mode: str | None) -> None:
    if with_state:
        raise InputError(
            "--take-over is the state the turn starts from: leave out --dice, "
            "--turn, --permanent and --roll"
        )
    if mode is not None:
        raise InputError(
            f"--take-over and --{mode}: a piggyback offer is taken in a game "
            "where reaching the target wins at once"
        )


def advise_at(
    tab: Tables,
    state: TurnState | None,
    pos: Position,
    roll: list[int] | None = None,
    matched: bool = False,
) -> Advice | Ranking | TakeOver | GameTakeOver | EndgameAdvice:
    """The advice at a turn state and position: by P(win) where the position has scores,
    else by expected points; a roll's set-asides ranked; a piggyback offer taken or not."""
    if pos.offer is not None:
        from .piggyback import piggyback, take_over_game

        if pos.by_game:
            if len(pos.scores) != 2:
                raise InputError("--take-over with scores is for two players: one opponent")
            return take_over_game(tab, pos.offer, pos.me, pos.opponents[0])
        return piggyback(tab, pos.offer, pos.on_board, pos.zilches[0])
    assert state is not None
    if roll is not None:
        from .ranking import ranking

        return ranking(tab, state, roll, matched, pos)
    if pos.by_game:
        from .endgame_advice import endgame_advice

        return endgame_advice(tab, state, pos)
    rs = tab.rules
    tab.check(state)
    k = pos.zilches[0]
    pol = tab.score.card(k)
    v, note = score_values(pol, state, pos.on_board)
    penalty = pol.relative is not None
    objective = "long-run average points per turn" if penalty else "expected points"
    return Advice(
        rs.name,
        state.dice,
        state.turn,
        state.permanent,
        pos.on_board,
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
