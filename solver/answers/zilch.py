"""The questions of the Zilch family, one function per command of `zilch`.

Each takes the command's options as keyword arguments (text as the command line gives it,
or numbers and lists) and returns a frozen answer whose to_dict() is the command's JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from ..errors import InputError
from ..rules import RuleSet, preset_names
from ..rules import load as load_rules
from ..store import Store
from ..turn import StateValues, TurnState
from .base import Answer, dice_list, hidden, int_list, optional, rule_set, tables_of
from .progress import SILENT, Progress

# The objectives are imported by the questions that need them: a query pays for its own.
if TYPE_CHECKING:
    from ..objectives.score import ScorePolicy
    from ..tables import Tables
    from .export import Table

Rules = str | RuleSet
Tables_ = str | Store | None


# --- zilch rules ---------------------------------------------------------------------------
@dataclass(frozen=True)
class PresetInfo(Answer):
    name: str
    description: str


@dataclass(frozen=True)
class PresetList(Answer):
    presets: tuple[PresetInfo, ...]

    def to_json(self) -> list:
        return [p.to_dict() for p in self.presets]


@dataclass(frozen=True)
class RuleSetInfo(Answer):
    """A rule set in full: its canonical definition, unit and hash."""

    ruleset: RuleSet = hidden()

    def to_dict(self) -> dict:
        rs = self.ruleset
        from .base import plain

        return dict(
            name=rs.name,
            description=rs.description,
            **plain(rs.canonical()),
            unit=rs.unit,
            rules_hash=rs.digest(),
        )


def describe_rules(name: Rules | None = None) -> PresetList | RuleSetInfo:
    """The presets (no name), or one rule set in full (a preset or a TOML file)."""
    if name is None:
        return PresetList(tuple(PresetInfo(n, load_rules(n).description) for n in preset_names()))
    return RuleSetInfo(rule_set(name))


# --- zilch odds ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Combination:
    combination: str
    points: int
    probability: Fraction
    decimal: float


@dataclass(frozen=True)
class BestPoints:
    probability: Fraction
    decimal: float


@dataclass(frozen=True)
class Odds(Answer):
    rules: str
    dice: int
    p_zilch: Fraction
    p_zilch_decimal: float
    combinations: tuple[Combination, ...]
    best_points: dict[int, BestPoints]
    mean_best_points: float


def odds(rules: Rules = "farkle", dice: int | None = None) -> Odds:
    """Exact odds of one roll: zilch, each combination, the best immediate points."""
    from ..outcomes.odds import roll_odds

    rs = rule_set(rules)
    n = rs.dice if dice is None else dice
    if not 1 <= n <= rs.dice:
        raise InputError(f"--dice must be 1..{rs.dice} under {rs.name}, got {n}")
    o = roll_odds(rs, n)
    return Odds(
        rs.name,
        n,
        o["p_zilch"],
        float(o["p_zilch"]),
        tuple(
            Combination(c["combination"], c["points"], c["probability"], float(c["probability"]))
            for c in o["combinations"]
        ),
        {k: BestPoints(v, float(v)) for k, v in o["best_points"].items()},
        float(o["mean_best_points"]),
    )


# --- zilch strategy ------------------------------------------------------------------------
@dataclass(frozen=True)
class Strategy(Answer):
    rules: str
    on_board: bool
    expected_turn_score: float
    bank_thresholds: dict[int, int | None]
    ruleset: RuleSet = hidden()


def strategy(
    rules: Rules = "farkle", not_on_board: bool = False, tables: Tables_ = None
) -> Strategy:
    """The strategy card: expected points of a fresh turn and, per dice count, the turn
    total from which to bank."""
    rs = rule_set(rules)
    pol = tables_of(rs, tables).score
    on = not not_on_board
    return Strategy(rs.name, on, pol.expected_turn_score(on), pol.bank_thresholds(on), rs)


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


def _state(rs: RuleSet, dice: int | None, turn: int, permanent: int) -> TurnState:
    return TurnState(rs.dice if dice is None else dice, turn, permanent)


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
    if final_round and last_turn:
        raise InputError("--final-round and --last-turn exclude each other")
    mode = "final-round" if final_round else "last-turn" if last_turn else None
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
        return _endgame_advice(tab, _state(rs, dice, turn, permanent), score, opp, mode)
    if take_over is not None:
        return _take_over(tab, take_over, not not_on_board)
    state = _state(rs, dice, turn, permanent)
    if roll is not None:
        return _ranking(tab, state, dice_list(roll, "--roll"), matched, not not_on_board)
    pol = tab.score
    pol.check(state)
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
    pol = tab.score
    pol.check(state)
    outcome = parse_roll(rs, faces, matched)
    if matched and not (rs.colour_pairs and colour_match_probability(outcome.counts)):
        raise InputError(f"--matched: these dice cannot form three colour pairs under {rs.name}")
    found = []
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
    tab.score.check(TurnState(dice, total))
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
    from ..objectives.final_round import solve_final_round
    from ..objectives.last_turn import reach_target_turn
    from ..objectives.situation import situation

    rs = tab.rules
    tab.score.check(state)
    sit = situation(rs, score, opponents, mode)
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
        v = tab.last_turn.value_at(sit.leader - score, state, on_board)
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
    tables: Tables_ = None,
) -> LastTurnAdvice | FinalRoundReport | Table:
    """Can I still win?  A last turn against a deficit; the whole last-turn table; or a
    final round: everyone's chance and each player's stopping rule."""
    from .export import last_turn_rows

    rs = rule_set(rules)
    tab = tables_of(rs, tables)
    if final_round or scores is not None:
        if not (final_round and scores is not None):
            raise InputError("the final round needs both --final-round and --scores")
        return _final_round_report(tab, int_list(scores, "--scores"))
    if table:
        return last_turn_rows(tab)
    if deficit is None:
        raise InputError("give --deficit D (or --table, or --final-round --scores ...)")
    if deficit % rs.unit or deficit < 0:
        raise InputError(
            f"deficit {deficit} is impossible under {rs.name}: a last turn starts "
            f"0 or more points behind, in multiples of {rs.unit}"
        )
    state = _state(rs, dice, turn, permanent)
    tab.score.check(state)
    on = not not_on_board
    v = tab.last_turn.value_at(deficit, state, on)
    return LastTurnAdvice(rs.name, deficit, state.dice, turn, permanent, on, v.best, v, v.action)


def _final_round_report(tab: Tables, scores: list[int]) -> FinalRoundReport:
    from ..objectives.final_round import solve_final_round, stopping_rule
    from ..objectives.last_turn import solve_last_turn

    rs = tab.rules
    if rs.target is None or rs.end != "final_round":
        raise InputError(f"{rs.name} has no final round")
    if len(scores) < 2:
        raise InputError("--scores needs the trigger's score and at least one other player's")
    for s in scores:
        rs.check_score("--scores", s)
    trigger, others = scores[0], scores[1:]
    if not rs.reached(trigger):
        raise InputError(
            f"the first score ({trigger}) must have reached the target "
            f"{rs.target} to trigger the final round"
        )
    fr = solve_final_round(tab.model, trigger, 1, others, tab.reach_bound)
    players = [PlayerChance(1, trigger, "triggered the final round", fr.p_leaders)]
    for i, (s, pt, p) in enumerate(zip(others, fr.players, fr.p_players), start=2):
        if pt.solved is None:  # the last player: a last turn against the trigger
            lv, row = solve_last_turn(tab.model, [trigger - s], rs.on_board(s)), 0
        else:
            lv, row = pt.levels(pt.row(trigger // rs.unit, 1)), 0
        rule = stopping_rule(lv, tab.reachable(lv[0].roll.shape[2]), row, s, trigger)
        players.append(PlayerChance(i, s, "to play", p, rule))
    return FinalRoundReport(rs.name, scores, tuple(players), fr.total)


# --- zilch game ----------------------------------------------------------------------------
PIGGYBACK_NOTE = (
    "piggyback included: a bank offers the dice left and the turn total to the other player"
)


@dataclass(frozen=True)
class GameChance(Answer):
    rules: str
    target: int
    scores: list[int]
    p_win: float
    note: str | None


@dataclass(frozen=True)
class Fairness(Answer):
    rules: str
    target: int
    head_start: int
    p_win_first: float
    p_win_first_no_head_start: float
    note: str | None


def game(
    rules: Rules = "farkle",
    target: int | None = None,
    scores: str | Sequence[int] = "0,0",
    fairness: bool = False,
    tables: Tables_ = None,
    progress: Progress = SILENT,
) -> GameChance | Fairness:
    """Two players, the whole game: the probability that the player to move wins (solved
    and stored on first use, with progress by score sum)."""
    rs = rule_set(rules)
    tab = tables_of(rs, tables)
    if target is not None and (target <= 0 or target % rs.unit):
        raise InputError(f"--target must be a positive multiple of {rs.unit}")
    pair = None
    if not fairness:
        pair = int_list(scores, "--scores")
        if len(pair) != 2:
            raise InputError("--scores expects ME,OPP such as 0,0")
    from ..objectives.game import fairest_head_start

    g = solve_game_table(tab, target, progress)
    note = PIGGYBACK_NOTE if g.O is not None else None
    if fairness:
        h, p = fairest_head_start(g)
        return Fairness(rs.name, g.target, h, p, float(g.W[0, 0]), note)
    assert pair is not None
    me, opp = pair
    for v in (me, opp):
        if v < 0 or v % rs.unit or v >= g.W.shape[0] * rs.unit:
            raise InputError(f"--scores: {v} is not a score below the target in units of {rs.unit}")
    return GameChance(rs.name, g.target, [me, opp], g.p_win(me, opp), note)


def solve_game_table(tab: Tables, target: int | None, progress: Progress):
    """The stored game table, solved first if missing (progress by score sum)."""
    started: list[bool] = []

    def on_sum(sigma: int) -> None:
        if not started:
            progress.start("solving score sums", sigma + 1)
            started.append(True)
        progress.advance(1)

    try:
        g = tab.game(target, on_sum)
    finally:
        if started:
            progress.finish()
    assert g is not None
    return g


# --- zilch export --------------------------------------------------------------------------
def export(rules: Rules = "farkle", objective: str = "score", tables: Tables_ = None) -> Table:
    """The whole policy as rows: expected points ("score"), the last turn by deficit
    ("last-turn"), or the two-player game's start-of-turn table ("game", solved first with
    zilch game)."""
    from .export import game_rows, last_turn_rows, score_rows

    rs = rule_set(rules)
    tab = tables_of(rs, tables)
    builders = {"score": score_rows, "last-turn": last_turn_rows, "game": game_rows}
    if objective not in builders:
        raise InputError(f"--objective is one of {', '.join(builders)}, got {objective!r}")
    return builders[objective](tab)


__all__ = ["advise", "describe_rules", "endgame", "export", "game", "odds", "strategy"]
