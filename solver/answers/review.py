"""`zilch review LOG` and `yahtzee review LOG`: every decision of a recorded game (or of a
bot's turns) against the optimal one, and what it cost.

A decision's loss is the value of the best choice minus the value of the chosen one, both
valued by optimal play from there on: expected points of the turn (objective "points"),
the probability of winning the game (objective "game": the line gives the scores, and the
game table is stored or the situation is a last turn or a final round), or the expected
final score of a Yahtzee game.  Those are the values `advise` gives for the same
situation (tests/test_review.py checks it): a log of optimal play loses nothing, and over a
bot's turns the mean total loss per turn is the optimal mean minus the bot's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import InputError, TableMissing
from ..play.log import YAHTZEE_KEYS, ZILCH_KEYS, Line, at_line, read_log
from ..rules import RuleSet
from ..tables import Tables
from ..turn.state import TurnState
from . import decisions as D
from .base import Answer, Rules, Tables_, optional, rule_set, tables_of, zilches_of
from .progress import SILENT, Progress

# (error, blunder): a decision losing at least this much is an error, and a blunder
THRESHOLDS = {
    "points": (1.0, 25.0),  # expected points of the turn
    "game": (0.001, 0.02),  # probability of winning: 0.1 and 2 percentage points
    "yahtzee": (0.5, 5.0),  # expected final score
}
UNITS = {
    "points": "expected points",
    "game": "probability of winning",
    "yahtzee": "expected final score",
}
COSTLIEST = 5


@dataclass(frozen=True)
class Item(Answer):
    """One decision: the best choice, the chosen one, their values and the loss."""

    line: int
    best: dict
    chosen: dict
    value_best: float
    value_chosen: float
    loss: float
    grade: str | None  # "error", "blunder" (or None: within the error threshold)
    situation: dict
    player: Any = optional()
    game: Any = optional()
    n: Any = optional()


@dataclass(frozen=True)
class Review(Answer):
    log: str
    objective: str
    unit: str
    decisions: int
    errors: int
    blunders: int
    loss_total: float
    loss_mean: float
    thresholds: dict
    costliest: list[Item]
    items: list[Item]
    note: str | None = optional()


def summary(log: str, objective: str, items: list[Item], note: str | None = None) -> Review:
    err, blunder = THRESHOLDS[objective]
    total = sum(i.loss for i in items)
    ranked = sorted((i for i in items if i.loss > 0), key=lambda i: -i.loss)
    return Review(
        log,
        objective,
        UNITS[objective],
        len(items),
        sum(i.grade is not None for i in items),
        sum(i.grade == "blunder" for i in items),
        total,
        total / len(items) if items else 0.0,
        {"error": err, "blunder": blunder},
        ranked[:COSTLIEST],
        items,
        note,
    )


def _item(line: Line, objective: str, best, chosen, vb: float, vc: float, situation) -> Item:
    loss = vb - vc
    err, blunder = THRESHOLDS[objective]
    grade = "blunder" if loss >= blunder else "error" if loss >= err else None
    return Item(line.number, best, chosen, vb, vc, loss, grade, situation, **line.notes)


# --- the zilch family --------------------------------------------------------------------


def review(
    log: str,
    rules: Rules = "farkle",
    objective: str = "auto",
    player: str | None = None,
    tables: Tables_ = None,
    progress: Progress = SILENT,
    where: Callable[[Line], bool] | None = None,
    target: int | None = None,
) -> Review:
    """Every decision of a zilch-family log (play/log.py) against the optimal one.  rules:
    for lines that do not name theirs; target: the game's, for lines that do not name
    theirs ("target").  objective: "points", "game" (every line gives the
    scores) or "auto" (the game where every line gives the scores and its value can be had,
    else points).  player: only the lines of this player (their "player"); where: only
    the lines it accepts."""
    if objective not in ("auto", "points", "game"):
        raise InputError(f"--objective is auto, points or game, got {objective!r}")
    default = rule_set(rules)
    lines = list(read_log(log, ZILCH_KEYS))
    if player is not None or where is not None:
        lines = [
            ln
            for ln in lines
            if (player is None or ln.get("player") == player) and (where is None or where(ln))
        ]
        if not lines:
            who = "" if player is None else f" of the player {player!r}"
            raise InputError(f"log {log}: no line{who} to review")
    note = None
    # the tables of each rule set the lines name; the review's target for lines without one
    known: dict = {"target": target}
    if objective == "auto":
        objective = "game" if all("score" in ln.fields for ln in lines) else "points"
        for ln in lines if objective == "game" else ():
            with at_line(ln):
                tab = _tables(default, ln, tables, known)
                _line_values(tab, ln, "points")  # (the line's own checks: errors stay errors)
            try:  # (without P(win) at some line: by expected points, and the note says why)
                _line_values(tab, ln, "game")(TurnState(tab.rules.dice, 0, 0))
            except (InputError, TableMissing) as e:
                objective, note = "points", f"by expected points: line {ln.number}: {e}"
                break
    items = []
    progress.start("reviewing", len(lines))
    try:
        for ln in lines:
            with at_line(ln):
                got = _zilch_item(_tables(default, ln, tables, known), ln, objective)
            if got is not None:
                items.append(got)
            progress.advance(1)
    finally:
        progress.finish()
    return summary(log, objective, items, note)


def _tables(default: RuleSet, line: Line, tables: Tables_, known: dict) -> Tables:
    """The tables of the line's rules (its own "rules", else the default; "beat": the total
    a bank must beat under overtaking)."""
    from .position import aimed

    name = line.get("rules")
    if name is not None and not isinstance(name, str):
        raise line.fail(f"'rules' must be a preset name or a rule file, got {name!r}")
    beat = line.whole("beat", 0)
    target = line.whole("target", None) if "target" in line.fields else None
    key = (name, beat, target)
    if key not in known:
        rs = default if name is None else rule_set(name)
        rs = aimed(rs, target if target is not None else known["target"])
        if rs.pyramiding:
            raise line.fail(f"review does not support pyramiding ({rs.name}) yet")
        known[key] = tables_of(rs.beating(beat), tables)
    return known[key]


def _line_values(tab: Tables, line: Line, objective: str) -> D.Values:
    """The values of the line's turn states under the objective."""
    rs = tab.rules
    k = zilches_of(rs, line.whole("zilches", 0), "'zilches'")
    if objective == "points":
        return D.points_values(tab, _on_board(rs, line), k)
    if "score" not in line.fields or "opponents" not in line.fields:
        raise line.fail("the game objective needs 'score' and 'opponents'")
    opp = line.ints("opponents")
    assert opp is not None
    k_opp = zilches_of(rs, line.whole("opp_zilches", 0), "'opp_zilches'")
    return D.game_values(tab, line.whole("score"), opp, (k, k_opp))


def _on_board(rs: RuleSet, line: Line) -> bool:
    """On the board: from the score where the line gives the scores (checked: possible,
    not past the target), else `on_board` (default: on)."""
    if ("score" in line.fields) != ("opponents" in line.fields):
        raise line.fail("the scores are 'score' and 'opponents' together")
    if "score" not in line.fields:
        return line.flag("on_board", True)
    if "on_board" in line.fields:
        raise line.fail("'on_board' with 'score': the score says whether you are on the board")
    score = line.whole("score", low=-(10**9))
    rs.check_score("'score'", score)
    if rs.target is not None and rs.reached(score):
        raise line.fail(f"'score' {score} has reached the target {rs.target}: no turn is left")
    for o in line.ints("opponents") or []:
        rs.check_score("'opponents' score", o)
    return rs.on_board(score)


def _zilch_item(tab: Tables, line: Line, objective: str) -> Item | None:
    if "take_over" in line.fields:
        return _take_over_item(tab, line, objective)
    from ..outcomes.dice import colour_match_probability
    from ..outcomes.scoring import parse_roll

    rs = tab.rules
    dice = line.whole("dice", rs.dice, 1)
    state = TurnState(dice, line.whole("turn", 0), line.whole("permanent", 0))
    tab.check(state)
    roll = line.faces("roll")
    if len(roll) != dice:
        raise line.fail(f"'roll' has {len(roll)} dice but {dice} were rolled")
    matched = line.flag("matched")
    outcome = parse_roll(rs, roll, matched)
    if matched and not (rs.colour_pairs and colour_match_probability(outcome.counts)):
        raise line.fail(f"'matched': these dice cannot form three colour pairs under {rs.name}")
    then = line.choice("then", ("roll", "bank", "zilch"))
    if not D.roll_choices(rs, outcome):
        if then != "zilch" or line.get("keep", []) != []:
            raise line.fail(f"{sorted(roll)} scores nothing under {rs.name}: 'then' is 'zilch'")
        return None
    if then == "zilch":
        raise line.fail(f"{sorted(roll)} scores under {rs.name}: set dice aside")
    keep = line.faces("keep")
    mine = D.chosen(rs, outcome, keep)
    values = _line_values(tab, line, objective)
    chosen_value = max(D.move_value(values(D.after(rs, state, c)), then) for c in mine)
    best = D.options(rs, values, state, outcome)[0]
    situation = {"dice": dice, "turn": state.turn, "roll": sorted(roll)}
    if state.permanent:
        situation["permanent"] = state.permanent
    return _item(
        line,
        objective,
        {"keep": best.keep, "then": best.values.action},
        {"keep": sorted(keep), "then": then},
        best.values.best,
        chosen_value,
        situation,
    )


def _take_over_item(tab: Tables, line: Line, objective: str) -> Item:
    from .piggyback import offer, piggyback, take_over_game

    spec = line.ints("take_over")
    assert spec is not None
    given = offer(tab, spec)  # (checked: a bank can leave it)
    then = line.choice("then", ("take", "fresh"))
    if objective == "game":
        if "score" not in line.fields or "opponents" not in line.fields:
            raise line.fail("the game objective needs 'score' and 'opponents'")
        opp = line.ints("opponents")
        assert opp is not None and spec is not None
        if len(opp) != 1:
            raise line.fail("a piggyback offer with scores is for two players: one opponent")
        g = take_over_game(tab, given, line.whole("score"), opp[0])
        v = g.p_win
    else:
        assert spec is not None
        k = zilches_of(tab.rules, line.whole("zilches", 0), "'zilches'")
        v = piggyback(tab, given, _on_board(tab.rules, line), k).values
    best = "take" if v.take_over >= v.fresh else "fresh"
    value = {"take": v.take_over, "fresh": v.fresh}
    return _item(
        line,
        objective,
        {"take_over": best},
        {"take_over": then},
        value[best],
        value[then],
        {"take_over": spec},
    )


# --- the Yahtzee family ------------------------------------------------------------------
def yahtzee_review(
    log: str, rules: str = "yahtzee", tables: Tables_ = None, progress: Progress = SILENT
) -> Review:
    """Every decision of a Yahtzee-family log: each keep and each box against the best by
    the expected final score (yahtzee advise's values)."""
    from ..yahtzee import game as Y
    from ..yahtzee.rules import load
    from .yahtzee import _table

    lines = list(read_log(log, YAHTZEE_KEYS))
    items = []
    tabs: dict[str, Any] = {}
    for ln in lines:
        with at_line(ln):
            name = ln.get("rules", rules)
            if not isinstance(name, str):
                raise ln.fail(f"'rules' must be a preset name, got {name!r}")
            if name not in tabs:
                rs = load(name)
                tabs[name] = (rs, _table(rs, tables, progress))
            rs, E = tabs[name]
            hand = ln.faces("dice")
            if len(hand) != 5:
                raise ln.fail(f"'dice': a hand has five dice, got {len(hand)}")
            filled = ln.get("filled", [])
            if isinstance(filled, list) and all(isinstance(b, str) for b in filled):
                filled = ",".join(filled)
            if not isinstance(filled, str):
                raise ln.fail(f"'filled' must be a list of box names, got {filled!r}")
            state = Y.parse_state(rs, filled, ln.whole("upper", 0), ln.flag("yahtzee_bonus"))
            rolls_left = ln.whole("rolls_left", 2)
            opts = Y.advise(rs, E, state, tuple(hand), rolls_left)
            if rolls_left:
                if "box" in ln.fields:
                    raise ln.fail("'box' is chosen with no rolls left (rolls_left 0): give 'keep'")
                keep = sorted(ln.faces("keep", empty=True))
                if any(keep.count(f) > hand.count(f) for f in set(keep)):
                    raise ln.fail(f"keep {keep} is not among the dice {sorted(hand)}")
                chosen = {"keep": keep}
                mine = next(o for o in opts if o["keep"] == keep)
            else:
                if "keep" in ln.fields:
                    raise ln.fail("with no rolls left the decision is a box: give 'box'")
                box = Y.box_name(rs, str(ln.get("box", "")))
                found = [o for o in opts if o["box"] == rs.boxes[box]]
                if not found:
                    raise ln.fail(
                        f"box {rs.boxes[box]!r} cannot take this hand here (filled, or the "
                        "joker rule)"
                    )
                mine = found[0]
                chosen = {"box": rs.boxes[box]}
        best = {k: v for k, v in opts[0].items() if k in ("keep", "box")}
        situation = {"dice": sorted(hand), "rolls_left": rolls_left, "filled": filled}
        items.append(_item(ln, "yahtzee", best, chosen, opts[0]["value"], mine["value"], situation))
    return summary(log, "yahtzee", items)
