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

import dataclasses
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError, TableMissing
from ..play.log import YAHTZEE_KEYS, ZILCH_KEYS, Line, at_line, count_lines, read_log, shown
from ..progress import SILENT, Progress, Resumable, steps
from ..rules import RuleSet
from ..tables import Tables
from ..turn.state import TurnState
from . import decisions as D
from .answer import Answer, optional
from .inputs import Rules, Tables_, rule_set, tables_of, zilches_of

if TYPE_CHECKING:
    from ..yahtzee.yahtzee_rules import YahtzeeRules

    YRules = str | YahtzeeRules  # a preset, a rule file, or the rule set itself

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
# A log is read line by line and nothing grows with it beyond these: the items kept in the
# answer (the totals and the costliest count every decision) and the distinct decisions
# remembered (a log repeats its states: each is valued once).
MAX_ITEMS = 100_000
REMEMBERED = 1 << 16
STEP = 1000  # lines per progress step


@dataclass(frozen=True)
class Item(Answer):
    """One decision: the best choice, the chosen one, their values and the loss; `times`
    (among the costliest): how often the log holds that very decision."""

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
    times: int | None = optional()


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
    costliest: list[Item]  # the costliest distinct decisions, each once (its first line)
    items: list[Item]  # the first MAX_ITEMS decisions
    note: str | None = optional()


class Remembered(OrderedDict):
    """A mapping that keeps the REMEMBERED keys used last (bounded memory)."""

    def get_or(self, key: Hashable, make: Callable[[], Any]) -> Any:
        if key in self:
            self.move_to_end(key)
            return self[key]
        value = self[key] = make()
        if len(self) > REMEMBERED:
            self.popitem(last=False)
        return value


class Tally:
    """A review's figures as the decisions come: the counts, the total loss, the first
    MAX_ITEMS items and the COSTLIEST distinct decisions (with how often each occurs)."""

    def __init__(self, log: str, objective: str) -> None:
        self.log, self.objective = log, objective
        self.decisions = self.errors = self.blunders = 0
        self.total = 0.0
        self.items: list[Item] = []
        self.top: dict[str, list] = {}  # decision -> [item, times]

    def add(self, key: str, item: Item) -> None:
        self.decisions += 1
        self.errors += item.grade is not None
        self.blunders += item.grade == "blunder"
        self.total += item.loss
        if len(self.items) < MAX_ITEMS:
            self.items.append(item)
        if item.loss <= 0:
            return
        if key in self.top:
            self.top[key][1] += 1
            return
        if len(self.top) < COSTLIEST:
            self.top[key] = [item, 1]
            return
        # (the least costly, the later line among equals: a decision's loss never changes,
        # so one that leaves never comes back, and each count here is complete)
        low = min(self.top, key=lambda k: (self.top[k][0].loss, -self.top[k][0].line))
        if item.loss > self.top[low][0].loss:
            del self.top[low]
            self.top[key] = [item, 1]

    def review(self, note: str | None = None) -> Review:
        err, blunder = THRESHOLDS[self.objective]
        ranked = sorted(self.top.values(), key=lambda e: (-e[0].loss, e[0].line))
        costliest = [dataclasses.replace(it, times=t if t > 1 else None) for it, t in ranked]
        if self.decisions > len(self.items):
            kept = (
                f"items: the first {len(self.items)} of {self.decisions} decisions (the "
                "totals and the costliest count them all)"
            )
            note = f"{note}; {kept}" if note else kept
        return Review(
            self.log,
            self.objective,
            UNITS[self.objective],
            self.decisions,
            self.errors,
            self.blunders,
            self.total,
            self.total / self.decisions if self.decisions else 0.0,
            {"error": err, "blunder": blunder},
            costliest,
            self.items,
            note,
        )


def summary(log: str, objective: str, items: list[Item], note: str | None = None) -> Review:
    """The review of a list of items (each its own decision)."""
    tally = Tally(log, objective)
    for it in items:
        tally.add(str(it.line), it)
    return tally.review(note)


def _item(
    line: Line,
    objective: str,
    best: dict[str, object],
    chosen: dict[str, object],
    vb: float,
    vc: float,
    situation: dict[str, object],
) -> Item:
    loss = vb - vc
    err, blunder = THRESHOLDS[objective]
    grade = "blunder" if loss >= blunder else "error" if loss >= err else None
    return Item(line.number, best, chosen, vb, vc, loss, grade, situation)


def _numbered(it: Item, line: Line) -> Item:
    """A decision valued once, as the item of this line (its number and notes)."""
    return Item(
        line.number,
        it.best,
        it.chosen,
        it.value_best,
        it.value_chosen,
        it.loss,
        it.grade,
        it.situation,
        **line.notes,
    )


def _lines(log: str, keys: set[str], progress: Progress) -> Any:
    """The log's lines, one at a time, with progress by line (the lines counted first)."""
    done = 0  # (a table solved on the way pauses the bar: Resumable.paused)
    with steps(progress, "reviewing", count_lines(log)):
        for ln in read_log(log, keys):
            yield ln
            if ln.number - done >= STEP:
                progress.advance(ln.number - done)
                done = ln.number


# --- the zilch family --------------------------------------------------------------------


class _NoValue(Exception):
    """A line without a value under the game objective (auto reviews by points then, with
    the note; None: a line without the scores, nothing to note)."""


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
    """Every decision of a zilch-family log (play/log.py) against the optimal one, read
    line by line (each distinct decision valued once).  rules: for lines that do not name
    theirs; target: the game's, for lines that do not name theirs ("target").  objective:
    "points", "game" (every line gives the scores) or "auto" (the game where every line
    gives the scores and its value can be had, else points).  player: only the lines of
    this player (their "player"); where: only the lines it accepts."""
    if objective not in ("auto", "points", "game"):
        raise InputError(f"--objective is auto, points or game, got {shown(objective)}")
    run = _ZilchReview(log, rule_set(rules), tables, player, where, target)
    if objective != "auto":
        return run.review(objective, progress)
    try:
        return run.review("game", progress, auto=True)
    except _NoValue as e:  # (without P(win) at some line: by expected points, saying why)
        note = None if e.args[0] is None else f"by expected points: {e}"
        return run.review("points", progress, note=note)


class _ZilchReview:
    """One log's review: the tables of each rule set its lines name, the values of each
    position and the decisions already valued, remembered across the log."""

    def __init__(
        self,
        log: str,
        default: RuleSet,
        tables: Tables_,
        player: str | None,
        where: Callable[[Line], bool] | None,
        target: int | None,
    ) -> None:
        self.log, self.default, self.tables = log, default, tables
        self.player, self.where, self.target = player, where, target
        self.known: dict = {}  # (rules, beat, target) -> Tables
        self.values = Remembered()  # position -> D.Values
        self.decided = Remembered()  # (objective, decision) -> Item | None

    def review(
        self, objective: str, progress: Progress, auto: bool = False, note: str | None = None
    ) -> Review:
        tally = Tally(self.log, objective)
        any_line = False
        for ln in _lines(self.log, ZILCH_KEYS, progress):
            if self.player is not None and ln.get("player") != self.player:
                continue
            if self.where is not None and not self.where(ln):
                continue
            any_line = True
            if auto and "score" not in ln.fields:
                raise _NoValue(None)
            key = ln.key(("roll", "keep"))
            try:
                with at_line(ln, self.log):
                    got = self.decided.get_or((objective, key), lambda: self._item(ln, objective))
            except (InputError, TableMissing) as e:
                if not auto:
                    raise
                # (no P(win) here, or a line wrong whatever the objective: reviewed by
                # points, where it is refused again)
                said = str(e).removeprefix(f"log {self.log}, ")
                said = said if said.startswith("line ") else f"line {ln.number}: {said}"
                raise _NoValue(said) from None
            if got is not None:
                tally.add(key, _numbered(got, ln))
        if not any_line:
            who = "" if self.player is None else f" of the player {shown(self.player)}"
            raise InputError(f"log {self.log}: no line{who} to review")
        return tally.review(_approx_note(self.values, note))

    def _item(self, ln: Line, objective: str) -> Item | None:
        tab = self._tables(ln)
        if "take_over" in ln.fields:
            self._values(tab, ln, "points")  # (the line's zilches and scores checked)
            return _take_over_item(tab, ln, objective)
        return _zilch_item(tab, ln, objective, self._values(tab, ln, objective))

    def _tables(self, line: Line) -> Tables:
        """The tables of the line's rules (its own "rules", else the default; "beat": the
        total a bank must beat under overtaking; "target": the game's, else the review's)."""
        from .position_options import aimed

        name = line.get("rules")
        if name is not None and not isinstance(name, str):
            raise line.fail(f"'rules' must be a preset name or a rule file, got {shown(name)}")
        beat = line.whole("beat", 0)
        target = line.whole("target", None) if "target" in line.fields else None
        key = (name, beat, target)
        if key not in self.known:
            rs = self.default if name is None else rule_set(name)
            rs = aimed(rs, target if target is not None else self.target)
            self.known[key] = tables_of(rs.beating(beat), self.tables)
        return self.known[key]

    def _values(self, tab: Tables, line: Line, objective: str) -> D.Values:
        """The values of the line's turn states under the objective (the line's own checks
        first, whatever the objective: zilches, the scores, on the board)."""
        rs = tab.rules
        k = zilches_of(rs, line.whole("zilches", 0), "'zilches'")
        k_opp = zilches_of(rs, line.whole("opp_zilches", 0), "'opp_zilches'")
        on_board = _on_board(rs, line)
        if objective == "points":
            key: tuple = (id(tab), "points", on_board, k)
            return self.values.get_or(key, lambda: D.points_values(tab, on_board, k))
        if "score" not in line.fields or "opponents" not in line.fields:
            raise line.fail("the game objective needs 'score' and 'opponents'")
        score, opp = line.whole("score", low=-(10**9)), line.ints("opponents")
        assert opp is not None
        key = (id(tab), "game", score, tuple(opp), k, k_opp)
        return self.values.get_or(key, lambda: D.game_values(tab, score, opp, (k, k_opp)))


def _approx_note(values: Remembered, note: str | None) -> str | None:
    """The note, saying where P(win) was approximate (no exact table of that many players:
    answers/approx_chance.py)."""
    methods = {m for v in values.values() if v.objective == "game" and (m := v.method())}
    if not methods:
        return note
    said = f"approximate P(win) ({', '.join(sorted(methods))}): no exact table of that many players"
    return f"{note}; {said}" if note else said


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


def _zilch_item(tab: Tables, line: Line, objective: str, values: D.Values) -> Item | None:
    from ..outcomes.dice import colour_match_probability
    from ..outcomes.scoring import parse_roll

    rs = tab.rules
    dice = line.whole("dice", rs.dice, 1)
    state = TurnState(dice, line.whole("turn", 0), line.whole("permanent", 0), _frozen(rs, line))
    tab.check(state)
    roll = line.faces("roll")
    if len(roll) != dice:
        raise line.fail(f"'roll' has {len(roll)} dice but {dice} were rolled")
    matched = line.flag("matched")
    outcome = parse_roll(rs, roll, matched)
    if matched and not (rs.colour_pairs and colour_match_probability(outcome.counts)):
        raise line.fail(f"'matched': these dice cannot form three colour pairs under {rs.name}")
    then = line.choice("then", ("roll", "bank", "zilch"))
    if not D.roll_choices(rs, outcome, state.frozen):
        if then != "zilch" or line.get("keep", []) != []:
            raise line.fail(f"{sorted(roll)} scores nothing under {rs.name}: 'then' is 'zilch'")
        return None
    if then == "zilch":
        raise line.fail(f"{sorted(roll)} scores under {rs.name}: set dice aside")
    keep = line.faces("keep", most=dice)
    mine = D.chosen(rs, outcome, keep, state.frozen)
    chosen_value = max(D.move_value(values(D.after(rs, state, c)), then) for c in mine)
    best = D.options(rs, values, state, outcome)[0]
    situation: dict[str, Any] = {"dice": dice, "turn": state.turn, "roll": sorted(roll)}
    if state.permanent:
        situation["permanent"] = state.permanent
    if any(state.frozen):
        situation["frozen"] = line.get("frozen")
    if objective == "game":
        situation.update(score=line.get("score"), opponents=line.get("opponents"))
    return _item(
        line,
        objective,
        {"keep": best.keep, "then": best.values.action},
        {"keep": sorted(keep), "then": then},
        best.values.best,
        chosen_value,
        situation,
    )


def _frozen(rs: RuleSet, line: Line) -> tuple[int, ...]:
    """Pyramiding: the dice frozen since the last pick-up before the roll (counts per face;
    checked against the dice to roll), from the line's 'frozen' (none: nothing frozen)."""
    from ..outcomes.frozen import check_frozen, parse_frozen

    if "frozen" not in line.fields:
        return ()
    counts = parse_frozen(line.faces("frozen", empty=True))
    check_frozen(rs, counts, line.whole("dice", rs.dice, 1))  # (the line named by the caller)
    return counts


OFFER_KEYS = {"take_over", "then", "rules", "beat", "target", "score", "opponents", "on_board"}
OFFER_KEYS |= {"zilches", "opp_zilches"}


def _take_over_item(tab: Tables, line: Line, objective: str) -> Item:
    """A piggyback offer: take it over, or start fresh."""
    from .piggyback import offer, piggyback, take_over_game

    line.only(OFFER_KEYS, "a piggyback offer's line")
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
    log: str, rules: YRules = "yahtzee", tables: Tables_ = None, progress: Progress = SILENT
) -> Review:
    """Every decision of a Yahtzee-family log: each keep and each box against the best by
    the expected final score (yahtzee advise's values), read line by line (each distinct
    decision valued once).  rules: for lines that do not name theirs; a rule file or a
    rule set given itself (an upload's) also stands for the lines that name it."""
    tabs: dict[str, Any] = {}
    rules, given = _given_rules(rules)
    if given is not None:
        from .yahtzee_answers import yahtzee_table

        tabs[rules] = (given, yahtzee_table(given, tables, SILENT))
    decided, widgets = Remembered(), Remembered()
    tally = Tally(log, "yahtzee")
    progress = Resumable(progress)
    for ln in _lines(log, YAHTZEE_KEYS, progress):
        key = ln.key(("dice", "keep", "filled"))
        with at_line(ln, log):
            got = decided.get_or(
                key, lambda: _yahtzee_item(ln, rules, tables, tabs, widgets, progress)
            )
        tally.add(key, _numbered(got, ln))
    return tally.review()


def _given_rules(rules: YRules) -> tuple[str, YahtzeeRules | None]:
    """The name of the rules the caller gives (lines that name no rules take it), and the
    rule set itself where it is a rule file's or given whole (an upload's): a log line
    naming it is valued by it, not by a preset of that name.  (A preset: None, loaded
    when a line names it.)"""
    from ..yahtzee.yahtzee_rules import PRESETS, load

    if isinstance(rules, str) and rules in PRESETS:
        return rules, None
    rs = load(rules) if isinstance(rules, str) else rules
    return rs.name, rs


def _named(ln: Line, name: str) -> YahtzeeRules:
    """The rule set a log line names: a preset or a rule file; a name that is neither (a
    rule file's own name, an upload's) says how to give the file."""
    from ..yahtzee.yahtzee_rules import PRESETS, load

    if name not in PRESETS and not Path(name).suffix and not Path(name).exists():
        raise ln.fail(
            f"unknown rule set {name!r}: a rule file's? give the file with --rules FILE "
            f"(presets: {', '.join(PRESETS)})"
        )
    return load(name)


def _yahtzee_item(
    ln: Line, rules: str, tables: Tables_, tabs: dict, widgets: Remembered, progress: Resumable
) -> Item:
    """One decision (`widgets`: each sheet's solved turn, shared by its lines)."""
    from ..yahtzee import solitaire as Y
    from .yahtzee_answers import yahtzee_table

    name = ln.get("rules", rules)
    if not isinstance(name, str):
        raise ln.fail(f"'rules' must be a preset name, got {shown(name)}")
    if name not in tabs:
        rs = _named(ln, name)
        with progress.paused() as own:  # (the table's first solve draws its own bar)
            tabs[name] = (rs, yahtzee_table(rs, tables, own))
    rs, E = tabs[name]
    hand = ln.faces("dice")
    if len(hand) != rs.dice:
        raise ln.fail(f"'dice': a hand of {rs.name} has {rs.dice} dice, got {len(hand)}")
    filled = ln.get("filled", [])
    if isinstance(filled, list) and all(isinstance(b, str) for b in filled):
        filled = ",".join(filled)
    if not isinstance(filled, str):
        raise ln.fail(f"'filled' must be a list of box names, got {shown(filled)}")
    state = Y.parse_state(rs, filled, ln.whole("upper", 0), ln.flag("yahtzee_bonus"))
    rolls_left = ln.whole("rolls_left", 2)
    widget = widgets.get_or((name, state), lambda: Y.run_widget(rs, E, state))
    opts = Y.advise(rs, E, state, tuple(hand), rolls_left, widget)
    if rolls_left:
        if "box" in ln.fields:
            raise ln.fail("'box' is chosen with no rolls left (rolls_left 0): give 'keep'")
        keep = sorted(ln.faces("keep", empty=True, most=rs.dice))
        if any(keep.count(f) > hand.count(f) for f in set(keep)):
            raise ln.fail(f"keep {keep} is not among the dice {sorted(hand)}")
        chosen: dict[str, Any] = {"keep": keep}
        mine = next(o for o in opts if o["keep"] == keep)
    else:
        if "keep" in ln.fields:
            raise ln.fail("with no rolls left the decision is a box: give 'box'")
        box = ln.get("box", "")
        if not isinstance(box, str):
            raise ln.fail(f"'box' must be a box's name, got {shown(box)}")
        b = Y.box_name(rs, box)
        found = [o for o in opts if o["box"] == rs.boxes[b]]
        if not found:
            raise ln.fail(
                f"box {rs.boxes[b]!r} cannot take this hand here (filled, or the joker rule)"
            )
        mine = found[0]
        chosen = {"box": rs.boxes[b]}
    best = {k: v for k, v in opts[0].items() if k in ("keep", "box")}
    situation = {"dice": sorted(hand), "rolls_left": rolls_left, "filled": filled}
    return _item(ln, "yahtzee", best, chosen, opts[0]["value"], mine["value"], situation)


# --- a Yahtzee game of several seats, by P(win) ---------------------------------------


def yahtzee_win_review(
    log: str,
    rules: YRules = "yahtzee",
    player: str | None = None,
    tables: Tables_ = None,
    progress: Progress = SILENT,
) -> Review:
    """Every decision of a Yahtzee game of several seats (lines with "score" and
    "opponents": `yahtzee play --players N` writes them) against the best by P(win) against
    the opponents' sheets (the heuristic of `yahtzee advise --opponents`,
    answers/yahtzee_win.py): the loss in P(win) points.  player: only that seat's lines;
    rules: for lines that do not name theirs (a rule file or a rule set given itself also
    stands for the lines that name it)."""
    values: dict[str, Any] = {}
    rules, given = _given_rules(rules)
    if given is not None:
        from .yahtzee_win import WinValues

        values[rules] = WinValues(given, tables, SILENT)
        values[rules].build(SILENT)
    decided = Remembered()
    tally = Tally(log, "game")
    progress = Resumable(progress)
    for ln in _lines(log, YAHTZEE_KEYS, progress):
        if player is not None and ln.get("player") != player:
            continue
        key = ln.key(("dice", "keep", "filled"))
        with at_line(ln, log):
            wv = _win_values(ln, rules, tables, values, progress)
            got = decided.get_or(key, lambda: _win_item(ln, wv))
        tally.add(key, _numbered(got, ln))
    if player is not None and not tally.decisions:
        raise InputError(f"the log {log} holds no decision of {player!r}")
    return tally.review()


def _win_values(
    ln: Line, rules: str, tables: Tables_, known: dict[str, Any], progress: Resumable
) -> Any:
    """The P(win) values of the line's rule set (a preset or a rule file), made once."""
    from .yahtzee_win import WinValues

    name = ln.get("rules", rules)
    if not isinstance(name, str):
        raise ln.fail(f"'rules' must be a preset or a rule file, got {shown(name)}")
    if name not in known:
        with progress.paused() as own:  # (a table's first solve draws its own bar)
            known[name] = WinValues(_named(ln, name), tables, own)
            known[name].build(own)
    return known[name]


def _win_item(ln: Line, wv: Any) -> Item:
    """One decision against the opponents' sheets, valued by P(win)."""
    from ..yahtzee import solitaire as Y
    from .yahtzee_versus import parse_sheet

    rs = wv.rules
    given = ln.get("opponents")
    if not isinstance(given, list) or not given or "score" not in ln.fields:
        raise ln.fail("a review by P(win) needs 'score' and 'opponents' (a list of sheets)")
    sheets = [parse_sheet(rs, s) for s in given]
    filled = ln.get("filled", [])
    if not isinstance(filled, list) or not all(isinstance(b, str) for b in filled):
        raise ln.fail(f"'filled' must be a list of box names, got {shown(filled)}")
    state = Y.parse_state(rs, ",".join(filled), ln.whole("upper", 0), ln.flag("yahtzee_bonus"))
    hand = ln.faces("dice")
    rolls_left, score = ln.whole("rolls_left", 2), ln.whole("score")
    ranked = wv.ranked(state, hand, rolls_left, score, sheets)
    if rolls_left:
        chosen: dict[str, Any] = {"keep": sorted(ln.faces("keep", empty=True, most=rs.dice))}
    else:
        chosen = {"box": rs.boxes[Y.box_name(rs, str(ln.get("box", "")))]}
    mine = [o for o in ranked.options if all(o.get(k) == v for k, v in chosen.items())]
    if not mine:
        raise ln.fail(f"{chosen} is not a choice of the dice {sorted(hand)} here")
    top = ranked.options[0]
    best = {k: v for k, v in top.items() if k in ("keep", "box")}
    situation = {"dice": sorted(hand), "rolls_left": rolls_left, "filled": filled}
    situation.update(score=score, opponents=given, exact=ranked.exact, method=ranked.method)
    return _item(ln, "game", best, chosen, top["p_win"], mine[0]["p_win"], situation)
