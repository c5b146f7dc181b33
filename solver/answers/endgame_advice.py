"""`zilch advise --score S --opponents A,B`: ROLL or BANK by the probability of winning
(a last turn, a final round, reaching the target, or a game turn: objectives/situation.py)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ..outcomes.frozen import faces_of
from ..position import Position
from ..rules import RuleSet
from ..turn.state import StateValues, TurnState
from .answer import Answer, optional

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..objectives.situation import Situation
    from ..tables import Tables
    from ..variants import Turn


@dataclass(frozen=True)
class FinalRoundChances:
    leaders: float
    you: float
    later: list[float]


@dataclass(frozen=True)
class EndgameAdvice(Answer):
    """ROLL or BANK by the probability of winning (or of reaching the target this turn)."""

    rules: str
    dice: int
    turn: int
    permanent: int
    score: int
    opponents: list[int]
    situation: str
    action: str
    p_win: StateValues
    leader: int | None = None
    tied: int | None = None
    still_to_play: list[int] = ()  # type: ignore[assignment]
    margin: float | None = None
    p_win_all: FinalRoundChances | None = optional()
    p_win_game: float | None = optional()
    note: str | None = optional()
    zilches: list[int] | None = optional()  # (with a penalty: mine, the opponent's)
    frozen: list[int] | None = optional()  # (pyramiding: dice frozen since the pick-up)
    # (the challenge rule: challenges left, mine and the opponent's; this turn a challenge;
    # at the start of a turn with one to use: P(win) without and with it, and whether to)
    challenges: list[str] | None = optional()
    challenging: bool | None = optional()
    p_win_no_challenge: float | None = optional()
    p_win_challenge: float | None = optional()
    challenge: bool | None = optional()
    p_win_seats: list[float] | None = optional()  # (three players or more: every seat's)
    # (three players or more without the exact table: false, and the approximation's name)
    exact: bool | None = optional()
    method: str | None = optional()


def endgame_advice(tab: Tables, state: TurnState, pos: Position) -> EndgameAdvice:
    """ROLL or BANK by the probability of winning at a position with scores: a last turn or
    a final round (solved on demand), reaching the target this turn, or a turn of the game
    going on (its stored table: a query never starts a solve; TableMissing says how).
    pos.zilches matter in a turn of the game going on (in a last turn or a final round a
    zilch loses whatever it costs); under the challenge rule pos carries the challenges
    left, the board flags and whether this turn challenges."""
    from ..objectives.final_round import check_final_round
    from ..objectives.last_turn import check_deficit
    from ..objectives.situation import situation

    rs = tab.rules
    tab.check(state)
    score, opponents = pos.me, pos.opponents
    sit = situation(rs, score, opponents, pos.mode)
    # overtaking: the player before you (the last in turn order after you) banked rs.beat;
    # with two players at the end he is the one who reached the target
    ended = sit.kind in ("last turn", "final round") and len(opponents) == 1
    rs.check_previous_bank(opponents[-1], triggered=ended)
    if sit.kind == "last turn":  # (sizes refused before any solve)
        assert sit.leader is not None
        check_deficit(rs, sit.leader - score)
    elif sit.kind == "final round":
        assert sit.leader is not None
        check_final_round(rs, sit.leader, [score, *sit.remaining], state.turn)

    def answer(kind: str, v: StateValues, **more: Any) -> EndgameAdvice:
        return EndgameAdvice(
            rs.name,
            state.dice,
            state.turn,
            state.permanent,
            score,
            opponents,
            kind,
            v.action,
            v,
            margin=v.margin,
            frozen=faces_of(state.frozen) if rs.pyramiding else None,
            **more,
        )

    if rs.challenge:
        from ..variants.challenge import usable

        check_challenging(rs, pos, usable(rs, score, (pos.challenges or (3, 3))[0]))
        if len(opponents) != 1 and sit.kind in ("last turn", "final round"):
            raise InputError(
                f"{rs.name} has the challenge rule: a last turn or final round among more "
                "than two players is not solved with challenges (each may challenge one of "
                "the others)"
            )
        if sit.kind == "last turn":
            return _challenge_last_turn(tab, state, pos, sit, answer)
    if sit.kind in ("outside", "reach target"):
        got = _game_turn(tab, state, pos, sit.kind)
        if got is not None:
            return answer("game", got.values, still_to_play=[], p_win_game=got.p_win, **got.more)
    v, more = _end_of_game(tab, state, pos, sit)
    return answer(sit.kind, v, **more)


def _game_turn(tab: Tables, state: TurnState, pos: Position, kind: str) -> Turn | None:
    """A turn of the game going on, from its stored table; None where reaching the target
    wins at once and no table is stored (that turn is then asked alone)."""
    from .. import variants
    from .game_tables import missing

    rs = replace(tab.rules, beat=0)
    try:
        v = variants.of(rs, pos.players)
        key = v.key(pos.players)
    except InputError as e:
        if kind == "reach target":
            return None
        raise InputError(f"no advice by P(win) for {pos.players} players: {e}") from None
    if pos.players == 2:  # (scores checked before the table is looked for)
        v.check_scores(key, pos, ("score", "opponents"))
    g = tab.game_table(key)
    if g is None and pos.players > 2:  # (an approximate P(win), at once: approx_chance.py)
        from .approx_chance import approx_turn

        return approx_turn(tab, pos, state)
    if g is None:
        if kind == "reach target":
            return None
        raise missing(tab, v, key)
    return g.turn(pos, state)


def _end_of_game(tab: Tables, state: TurnState, pos: Position, sit: Any) -> tuple:
    """(the values, the answer's other fields) of a last turn, a final round, or a turn that
    may reach the target and win at once (without the game's table)."""
    from ..objectives.final_round import solve_final_round
    from ..objectives.last_turn import reach_target_turn

    rs, score = tab.rules, pos.me
    on_board = rs.on_board(score)
    chances = note = None
    if sit.kind == "reach target":
        assert rs.target is not None
        v = reach_target_turn(tab.model, rs.target - score, on_board).value_at(state)
        note = (
            f"probability of reaching {rs.target} in this turn (reaching it wins at "
            "once); it is not the chance of winning the game"
        )
    elif sit.kind == "last turn":
        v = tab.last_turn.value_at(sit.leader - score, state, on_board, sit.tied)
    else:
        fr = solve_final_round(
            tab.model, sit.leader, sit.tied, [score, *sit.remaining], tab.reach_bound, state.turn
        )
        v = fr.players[0].levels(0).value_at(state)
        chances = FinalRoundChances(fr.p_leaders, fr.p_players[0], fr.p_players[1:])
    more = {
        "leader": sit.leader,
        "tied": sit.tied,
        "still_to_play": list(sit.remaining),
        "p_win_all": chances,
        "note": note,
    }
    return v, more


def _challenge_last_turn(
    tab: Tables,
    state: TurnState,
    pos: Position,
    sit: Situation,
    answer: Callable[..., EndgameAdvice],
) -> EndgameAdvice:
    """The last turn behind one leader under the challenge rule: plain, or challenging him
    (its bank also comes off him: a challenge needs half the deficit); at the start of the
    turn, whether to challenge."""
    from ..variants.challenge import NAMES, usable

    rs = tab.rules
    score = pos.me
    left = pos.challenges or (3, 3)
    boards = pos.boards or (rs.on_board(score), rs.on_board(pos.opponents[0]))
    can = usable(rs, score, left[0])
    if sit.tied != 1 or sit.leader is None:
        raise InputError("a last turn under the challenge rule is solved behind one leader")
    d = sit.leader - score
    plain = tab.last_turn.value_at(d, state, boards[0], 1)
    chal = challenge_last_turn(tab, d, state, boards[0]) if can else None
    more: dict[str, Any] = {"challenges": [NAMES[x] for x in left], "challenging": pos.challenging}
    fresh = state.turn == 0 and state.dice == rs.dice and not state.permanent
    if fresh and chal is not None and not pos.challenging:
        more.update(p_win_no_challenge=plain.best, p_win_challenge=chal.best)
        more.update(challenge=chal.best > plain.best)
    v = chal if pos.challenging else plain
    return answer(sit.kind, v, leader=sit.leader, tied=sit.tied, still_to_play=[], **more)


def check_challenging(rs: RuleSet, pos: Position, can: int) -> None:
    """InputError for a turn announced as a challenge by a player with none to use."""
    from ..objectives.challenge_game import Statuses

    if pos.challenging and not can:
        st = Statuses.of(rs)
        side = "below" if pos.me // rs.unit < st.thr else "at or above"
        raise InputError(
            f"--challenging: you have no challenge left to use at {pos.me} (the one {side} "
            f"{rs.challenge_threshold}; --challenges says which are left)"
        )


def challenge_last_turn(tab: Tables, deficit: int, state: TurnState, on_board: bool) -> StateValues:
    """Rolling and banking in a last turn that challenges the leader `deficit` points ahead:
    its bank x also comes off him, so it wins where 2x beats the deficit (solved on
    demand: one row)."""
    import numpy as np

    from ..objectives.challenge_game import challenge_last_payoff
    from ..objectives.last_turn import check_deficit
    from ..turn import solve_levels

    rs = tab.rules
    check_deficit(rs, deficit)
    d = np.array([deficit // rs.unit])
    pay = challenge_last_payoff(rs.share(2), d, int(d[0]) // 2 + 2)
    return solve_levels(tab.model, pay, np.ones(1), on_board).value_at(state)
