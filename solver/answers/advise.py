"""Should I roll?  `zilch advise`: by expected points, a roll's set-asides ranked, Zonk's
piggyback offer, and by the probability of winning near the end of a game (or in a game)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InputError
from ..rules import RuleSet
from ..turn.state import StateValues, TurnState
from .base import (
    Answer,
    Rules,
    Tables_,
    dice_list,
    hidden,
    int_list,
    noting_unmodelled,
    optional,
    rule_set,
    tables_of,
    turn_state,
)

# The objectives are imported by the questions that need them: a query pays for its own.
if TYPE_CHECKING:
    from ..objectives.score import ScorePolicy
    from ..tables import Tables


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
    ruleset: RuleSet = hidden()


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
    ruleset: RuleSet = hidden()


@dataclass(frozen=True)
class Offer:
    dice: int
    turn: int


@dataclass(frozen=True)
class TakeOverValues:
    take_over: float
    fresh: float


@dataclass(frozen=True)
class TakeOver(Answer):
    """Zonk's piggyback by expected points: take over the dice and total, or start fresh."""

    rules: str
    take_over: Offer
    action: str
    values: TakeOverValues
    margin: float


@dataclass(frozen=True)
class GameTakeOver(Answer):
    """Zonk's piggyback in a two-player game, by P(win)."""

    rules: str
    score: int
    opponents: list[int]
    take_over: Offer
    action: str
    p_win: TakeOverValues
    margin: float


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
        else:
            note = f"the minimum to bank is {rs.min_bank(on_board)}"
    return v, note


@noting_unmodelled
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
    tables: Tables_ = None,
) -> Advice | Ranking | TakeOver | GameTakeOver | EndgameAdvice:
    """Should I roll?  Without scores: by expected points this turn (with a roll: every
    set-aside ranked; with a piggyback offer: take it or start fresh).  With the score and
    the opponents' scores: by the probability of winning."""
    rs = rule_set(rules)
    tab = tables_of(rs, tables)
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
    if score is not None or opponents is not None or mode is not None:
        if score is None or opponents is None:
            raise InputError("end-game advice needs both --score and --opponents")
        opp = int_list(opponents, "--opponents")
        if take_over is not None:  # piggyback, by the game's win probability
            if len(opp) != 1:
                raise InputError("--take-over with scores is for two players: one opponent")
            return _take_over_game(tab, take_over, score, opp[0])
        if roll is not None:
            raise InputError("--roll gives expected-points advice; leave out --score/--opponents")
        return _endgame_advice(tab, turn_state(rs, dice, turn, permanent), score, opp, mode)
    if take_over is not None:
        return _take_over(tab, take_over, not not_on_board)
    state = turn_state(rs, dice, turn, permanent)
    if roll is not None:
        return _ranking(tab, state, dice_list(roll, "--roll"), matched, not not_on_board)
    tab.check(state)
    pol = tab.score
    on = not not_on_board
    v, note = _score_values(pol, state, on)
    return Advice(
        rs.name, state.dice, turn, permanent, on, "expected points", v.action, v, v.margin, note, rs
    )


def _ranking(
    tab: Tables, state: TurnState, faces: list[int], matched: bool, on_board: bool
) -> Ranking:
    from ..outcomes.dice import colour_match_probability
    from ..outcomes.scoring import parse_roll, score_outcome

    rs = tab.rules
    if len(faces) != state.dice:
        raise InputError(f"--roll has {len(faces)} dice but {state.dice} dice were to be rolled")
    tab.check(state)
    outcome = parse_roll(rs, faces, matched)
    if matched and not (rs.colour_pairs and colour_match_probability(outcome.counts)):
        raise InputError(f"--matched: these dice cannot form three colour pairs under {rs.name}")
    found = []
    pol = tab.score
    for c in score_outcome(rs, outcome).choices:
        after = TurnState(c.left or rs.dice, state.turn + c.points, state.permanent + c.permanent)
        v, _ = _score_values(pol, after, on_board)
        value = v.best  # of what follows: rolling, or banking where that is better
        keep = [f + 1 for f, k in enumerate(c.kept) for _ in range(k)]
        found.append((keep, c, after, v.action, value))
    found.sort(key=lambda o: -o[4])
    best = found[0][4] if found else 0.0
    options = tuple(
        Option(
            keep, c.points, c.permanent, after.turn, c.left, c.left == 0, then, value, best - value
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
        rs,
    )


def _offer(tab: Tables, spec: str | Sequence[int]) -> tuple[int, int]:
    """A piggyback offer DICE,TOTAL as given to --take-over, checked against the rules: a
    bank can leave it."""
    rs = tab.rules
    if not rs.piggyback:
        raise InputError(f"--take-over: {rs.name} has no piggyback rule")
    try:
        dice, total = (int(x) for x in (spec.split(",") if isinstance(spec, str) else spec))
    except (ValueError, TypeError):
        raise InputError(f"--take-over expects DICE,TOTAL such as 3,450, got {spec!r}") from None
    if total == 0:
        raise InputError("--take-over: a total of 0 is a fresh start")
    if dice == rs.dice and rs.hot_dice == "mandatory":
        raise InputError(
            f"--take-over {dice},{total}: a bank never leaves all {rs.dice} dice "
            f"under {rs.name} (hot dice must be rolled)"
        )
    tab.check(TurnState(dice, total))
    return dice, total


def _take_over(tab: Tables, spec, on_board: bool) -> TakeOver:
    rs = tab.rules
    dice, total = _offer(tab, spec)
    pol = tab.score
    over = pol.value_at(TurnState(dice, total), on_board).roll  # taking over: rolling them
    fresh = pol.value_at(TurnState(rs.dice), on_board).roll
    return TakeOver(
        rs.name,
        Offer(dice, total),
        "take_over" if over > fresh else "fresh",
        TakeOverValues(over, fresh),
        abs(over - fresh),
    )


def _take_over_game(tab: Tables, spec, score: int, opponent: int) -> GameTakeOver:
    rs = tab.rules
    dice, total = _offer(tab, spec)
    for what, x in (("--score", score), ("--opponents", opponent)):
        rs.check_score(what, x)
        if rs.target is not None and rs.reached(x):
            raise InputError(f"{what} {x}: the game is over at {rs.target}")
    if total > opponent:
        raise InputError(
            f"--take-over {dice},{total}: impossible offer (the total is at most "
            f"the opponent's score {opponent}, which includes it)"
        )
    g = tab.game(solve_if_missing=False)
    if g is None or g.O is None:
        raise InputError(
            f"the {rs.name} game table is not stored: solve it first with "
            f"zilch game --rules {rs.name}"
        )
    over, fresh = g.take_over(score, opponent, dice, total), g.p_win(score, opponent)
    return GameTakeOver(
        rs.name,
        score,
        [opponent],
        Offer(dice, total),
        "take_over" if over > fresh else "fresh",
        TakeOverValues(over, fresh),
        abs(over - fresh),
    )


def _endgame_advice(
    tab: Tables, state: TurnState, score: int, opponents: list[int], mode: str | None
) -> EndgameAdvice:
    from ..objectives.final_round import check_final_round, solve_final_round
    from ..objectives.last_turn import check_deficit, reach_target_turn
    from ..objectives.situation import situation

    rs = tab.rules
    tab.check(state)
    sit = situation(rs, score, opponents, mode)
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
            **more,
        )

    g = None
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
