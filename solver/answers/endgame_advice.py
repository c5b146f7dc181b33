"""`zilch advise --score S --opponents A,B`: ROLL or BANK by the probability of winning
(a last turn, a final round, reaching the target, or a game turn: objectives/situation.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..outcomes.frozen import faces_of
from ..turn.state import StateValues, TurnState
from .base import Answer, optional

if TYPE_CHECKING:
    from ..tables import Tables


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
    action: str | None
    p_win: StateValues | None
    solved: bool
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


def endgame_advice(
    tab: Tables,
    state: TurnState,
    score: int,
    opponents: list[int],
    mode: str | None,
    zilches: tuple[int, int] = (0, 0),
    challenge: dict | None = None,
) -> EndgameAdvice:
    """zilches: mine and the opponent's zilches in a row, where the third costs a penalty
    (they matter in a turn of the game going on; in a last turn or a final round a zilch
    loses whatever it costs).  challenge: under the challenge rule, the options
    challenges, on_board and challenging (answers/challenge.py)."""
    from ..objectives.final_round import check_final_round, solve_final_round
    from ..objectives.last_turn import check_deficit, reach_target_turn
    from ..objectives.situation import situation

    rs = tab.rules
    tab.check(state)
    sit = situation(rs, score, opponents, mode)
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
    on_board = rs.on_board(score)

    def answer(kind: str, v: StateValues | None, **more) -> EndgameAdvice:
        return EndgameAdvice(
            rs.name,
            state.dice,
            state.turn,
            state.permanent,
            score,
            opponents,
            kind,
            None if v is None else v.action,
            v,
            v is not None,
            margin=None if v is None else v.margin,
            frozen=faces_of(state.frozen) if rs.pyramiding else None,
            **more,
        )

    g = None
    if rs.challenge and len(opponents) == 1 and sit.kind != "final round":
        from .challenge import advice

        return advice(tab, state, score, opponents[0], sit, challenge or {}, answer)
    if rs.challenge and sit.kind in ("last turn", "final round"):
        from ..errors import InputError

        raise InputError(
            f"{rs.name} has the challenge rule: a last turn or final round among more than two "
            "players is not solved with challenges (each may challenge one of the others)"
        )
    if rs.overtaking and sit.kind in ("outside", "reach target") and len(opponents) == 1:
        return _overtaking_game_turn(tab, state, score, opponents[0], answer)
    if rs.three_zilch_penalty and sit.kind in ("outside", "reach target") and len(opponents) == 1:
        return _penalty_game_turn(tab, state, score, opponents, zilches, answer)
    if sit.kind in ("outside", "reach target") and len(opponents) > 1:
        got = _nplayer_game_turn(tab, state, score, opponents, answer)
        if got.solved or sit.kind == "outside":
            return got  # (reaching the target: without the table, the chance of reaching it)
    if sit.kind in ("outside", "reach target") and len(opponents) == 1:
        g = tab.game(solve_if_missing=False)  # a query never starts a solve
    if sit.kind == "outside" and g is None:
        return answer(
            sit.kind,
            None,
            note=(
                "nobody has reached the target yet: this turn may trigger the final round, and "
                "its value depends on the game going on; that needs the full-game table, "
                "which covers two players and must be solved first (zilch game --rules "
                f"{rs.name}); no end-game advice is given rather than a guess"
            ),
        )
    if g is not None:
        note = (
            "piggyback included: banking offers your dice left and turn total to the "
            "opponent, who takes them over where that beats a fresh start"
            if g.O is not None
            else None
        )
        return answer(
            "game",
            g.turn(score, opponents[0]).value_at(state),
            still_to_play=[],
            p_win_game=g.p_win(score, opponents[0]),
            note=note,
        )
    chances = note = None
    if sit.kind == "reach target":
        assert rs.target is not None
        v = reach_target_turn(tab.model, rs.target - score, on_board).value_at(state)
        note = (
            f"probability of reaching {rs.target} in this turn (reaching it wins at "
            "once); it is not the chance of winning the game"
        )
    elif sit.kind == "last turn":
        assert sit.leader is not None
        assert sit.tied is not None
        v = tab.last_turn.value_at(sit.leader - score, state, on_board, sit.tied)
    else:
        assert sit.leader is not None and sit.tied is not None
        fr = solve_final_round(
            tab.model, sit.leader, sit.tied, [score, *sit.remaining], tab.reach_bound, state.turn
        )
        v = fr.players[0].levels(0).value_at(state)
        chances = FinalRoundChances(fr.p_leaders, fr.p_players[0], fr.p_players[1:])
    return answer(
        sit.kind,
        v,
        leader=sit.leader,
        tied=sit.tied,
        still_to_play=list(sit.remaining),
        p_win_all=chances,
        note=note,
    )


def _overtaking_game_turn(tab, state, score, opp, answer) -> EndgameAdvice:
    """A turn of the two-player game under overtaking, from its stored table (zilch game
    solves it; a query never starts a solve); tab.rules carries the total to beat."""
    from dataclasses import replace

    from ..errors import InputError
    from ..turn import TurnLevels
    from .base import tables_of

    rs = tab.rules
    g = tables_of(replace(rs, beat=0), tab.store).overtaking_game(solve_if_missing=False)
    if g is None:
        raise InputError(
            f"{rs.name} has overtaking: advice with scores before the final round needs the "
            f"two-player game table with it, solved first (zilch game --rules {rs.name}); "
            "no advice is given rather than one without it"
        )
    turn = TurnLevels(rs, (g.turn(score, opp, rs.beat),))
    return answer(
        "game", turn.value_at(state), still_to_play=[], p_win_game=g.p_win(score, opp, rs.beat)
    )


def _penalty_game_turn(tab, state, score, opponents, zilches, answer) -> EndgameAdvice:
    """A turn of the two-player game where the third zilch in a row costs a penalty, from
    its stored table (zilch game solves it; a query never starts a solve)."""
    from ..errors import InputError
    from ..objectives.penalty_game import check_supported
    from ..turn import TurnLevels

    rs = tab.rules
    check_supported(rs)
    g = tab.penalty_game(solve_if_missing=False)
    if g is None:
        raise InputError(
            f"{rs.name} charges a penalty for the third zilch in a row: advice with scores "
            "before the final round needs the two-player game table with it, solved first "
            f"(zilch game --rules {rs.name}); no advice is given rather than one without it"
        )
    low = g.lo * rs.unit
    for what, x in (("--score", score), ("--opponents", opponents[0])):
        if x < low:
            raise InputError(
                f"{what} {x}: the stored game keeps scores down to {low} (its lowest score; "
                "a penalty stops there)"
            )
    k, k_opp = zilches
    turn = TurnLevels(rs, (g.turn(score, opponents[0], k, k_opp),))
    return answer(
        "game",
        turn.value_at(state),
        still_to_play=[],
        p_win_game=g.p_win(score, opponents[0], k, k_opp),
        zilches=[k, k_opp],
    )


def _nplayer_game_turn(tab, state, score, opponents, answer) -> EndgameAdvice:
    """A turn of the game among three players or more, by the stored N-player table (a
    query never starts a solve; without the table, no advice and how to build it)."""
    from ..errors import InputError
    from ..objectives.nplayer_game import MAX_PLAYERS, check_supported
    from .nplayer import missing_table

    rs, N = tab.rules, len(opponents) + 1
    try:
        if N > MAX_PLAYERS:
            raise InputError(f"the game is solved for up to {MAX_PLAYERS} players")
        check_supported(rs, N)
    except InputError as e:
        return answer("outside", None, note=f"no end-game advice for {N} players: {e}")
    g = tab.nplayer_game(N, solve_if_missing=False)
    if g is None:
        return answer(
            "outside",
            None,
            note=(
                f"this turn's value depends on the game among {N} players going on: "
                + missing_table(rs, N)
                + "; no end-game advice is given rather than a guess"
            ),
        )
    from ..turn import TurnLevels

    seats = [score, *opponents]
    turn = TurnLevels(rs, (g.turn(seats).sol,))
    p = [float(x) for x in g.p_win(seats)]
    return answer("game", turn.value_at(state), still_to_play=[], p_win_game=p[0], p_win_seats=p)
