"""Can I still win?  `zilch endgame`: a last turn against a deficit, the whole last-turn
table, and everyone's chance in a final round."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InputError
from ..limits import check_players
from ..outcomes.frozen import faces_of
from ..turn.state import StateValues, TurnState
from .answer import Answer, optional
from .inputs import Rules, Tables_, int_list, refuse_challenge, rule_set, tables_of, turn_state
from .position_options import aimed

if TYPE_CHECKING:
    from ..tables import Tables
    from .export import Table


# --- zilch endgame -------------------------------------------------------------------------
@dataclass(frozen=True)
class LastTurnAdvice(Answer):
    rules: str
    deficit: int
    dice: int
    turn: int
    permanent: int
    on_board: bool
    p_win: float
    values: StateValues
    action: str
    frozen: list[int] | None = optional()  # (pyramiding: dice frozen since the pick-up)
    challenging: bool | None = optional()  # (the challenge rule: this last turn challenges)


@dataclass(frozen=True)
class PlayerChance:
    player: int
    score: int
    role: str
    p_win: float
    stopping_rule: dict[int, int | None] | None = optional()


@dataclass(frozen=True)
class FinalRoundReport(Answer):
    rules: str
    scores: list[int]
    players: tuple[PlayerChance, ...]
    total: float


def endgame(
    rules: Rules = "farkle",
    deficit: int | None = None,
    dice: int | None = None,
    turn: int = 0,
    permanent: int = 0,
    not_on_board: bool = False,
    table: bool = False,
    final_round: bool = False,
    scores: str | Sequence[int] | None = None,
    beat: int = 0,
    frozen: str | Sequence[int] | None = None,
    challenging: bool = False,
    target: int | None = None,
    tables: Tables_ = None,
) -> LastTurnAdvice | FinalRoundReport | Table:
    """Can I still win?  A last turn against a deficit (frozen: under pyramiding, the dice
    frozen since the last pick-up); the whole last-turn table; or a final round:
    everyone's chance and each player's stopping rule.  beat: with overtaking, the
    previous player's banked turn total (a bank must beat it).  challenging: under the
    challenge rule, the last turn challenges the leader (its bank also comes off him).
    target: the game's (the last-turn table covers deficits up to it; the final round
    starts where a score reaches it)."""
    from .export import last_turn_rows

    rs = aimed(rule_set(rules), target).beating(beat)
    tab = tables_of(rs, tables)
    if frozen is not None:  # (checked first: no answer is given without it)
        turn_state(rs, dice, turn, permanent, frozen)
    if challenging and not rs.challenge:
        raise InputError(
            f"--challenging: {rs.name} has no challenge rule (the rule key is challenge = true)"
        )
    if (final_round or table) and rs.challenge:
        refuse_challenge(rs, "zilch endgame --table/--final-round")
    state_given = deficit is not None or dice is not None or turn or permanent or not_on_board
    if final_round or scores is not None:
        if not (final_round and scores is not None):
            raise InputError("the final round needs both --final-round and --scores")
        if state_given or table:
            raise InputError(
                "--final-round takes the scores only: leave out --table, "
                "--deficit, --dice, --turn, --permanent and --not-on-board"
            )
        return _final_round_report(tab, int_list(scores, "--scores"))
    if table:
        if state_given:
            raise InputError(
                "--table is every deficit and state: leave out --deficit, "
                "--dice, --turn, --permanent and --not-on-board"
            )
        return last_turn_rows(tab)
    if deficit is None:
        raise InputError("give --deficit D (or --table, or --final-round --scores ...)")
    return _last_turn(tab, deficit, turn_state(rs, dice, turn, permanent, frozen),
                      not not_on_board, challenging)  # fmt: skip


def _last_turn(
    tab: Tables, deficit: int, state: TurnState, on: bool, challenging: bool
) -> LastTurnAdvice:
    """A last turn `deficit` points behind the leader, from `state` (challenging him)."""
    from ..objectives.last_turn import check_deficit

    rs = tab.rules
    if deficit % rs.unit or deficit < 0:
        raise InputError(
            f"deficit {deficit} is impossible under {rs.name}: a last turn starts "
            f"0 or more points behind, in multiples of {rs.unit}"
        )
    tab.check(state)
    check_deficit(rs, deficit)
    if challenging:
        from .endgame_advice import challenge_last_turn

        v = challenge_last_turn(tab, deficit, state, on)
    else:
        v = tab.last_turn.value_at(deficit, state, on)
    held = faces_of(state.frozen) if rs.pyramiding else None
    return LastTurnAdvice(
        rs.name, deficit, state.dice, state.turn, state.permanent, on, v.best, v, v.action,
        held, challenging if rs.challenge else None,
    )  # fmt: skip


def _final_round_report(tab: Tables, scores: list[int]) -> FinalRoundReport:
    from ..objectives.final_round import check_final_round, solve_final_round, stopping_rule
    from ..objectives.last_turn import solve_last_turn

    rs = tab.rules
    if rs.target is None or rs.end != "final_round":
        raise InputError(f"{rs.name} has no final round")
    if len(scores) < 2:
        raise InputError("--scores needs the trigger's score and at least one other player's")
    check_players(len(scores))
    for s in scores:
        rs.check_score("--scores", s)
    trigger, others = scores[0], scores[1:]
    if len(others) == 1:  # overtaking: the last player must beat the trigger's last bank
        rs.check_previous_bank(trigger, triggered=True)
    if not rs.reached(trigger):
        raise InputError(
            f"the first score ({trigger}) must have reached the target "
            f"{rs.target} to trigger the final round"
        )
    check_final_round(rs, trigger, others)
    fr = solve_final_round(tab.model, trigger, 1, others, tab.reach_bound)
    players = [PlayerChance(1, trigger, "triggered the final round", fr.p_leaders)]
    for i, (s, pt, p) in enumerate(zip(others, fr.players, fr.p_players), start=2):
        if rs.pyramiding:  # (a rule by dice left would miss the frozen dice: none given)
            players.append(PlayerChance(i, s, "to play", p))
            continue
        if pt.solved is None:  # the last player: a last turn against the trigger
            lv, row = solve_last_turn(tab.model, [trigger - s], rs.on_board(s)), 0
        else:
            lv, row = pt.levels(pt.row(trigger // rs.unit, 1)), 0
        rule = stopping_rule(lv, tab.reachable(lv[0].roll.shape[2]), row, s, trigger)
        players.append(PlayerChance(i, s, "to play", p, rule))
    return FinalRoundReport(rs.name, scores, tuple(players), fr.total)
