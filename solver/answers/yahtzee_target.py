"""Playing Yahtzee to reach or beat a score: `yahtzee value/advise --score S --at-least T |
--beat T` (the threshold tables, yahtzee/threshold.py; docs/method.md "Reaching a score")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import InputError
from ..progress import Progress
from ..store import Store
from ..yahtzee import solitaire as Y
from ..yahtzee import threshold as TH
from ..yahtzee.box_scores import tables as score_tables
from ..yahtzee.hands import keep_graph
from ..yahtzee.yahtzee_rules import YahtzeeRules
from .answer import Answer, optional
from .inputs import Tables_


@dataclass(frozen=True)
class Goal:
    """What the player plays for: P(final >= at_least), or P(final > beat) + P(tie) / 2."""

    kind: str  # "atleast" or "beat"
    score: int  # the points on the sheet so far (the upper bonus once earned)
    mark: int  # T

    @property
    def needed(self) -> int:
        return self.mark - self.score

    @property
    def field(self) -> str:
        return "p_at_least" if self.kind == "atleast" else "p_win"


def goal(rules: YahtzeeRules, score: int | None, at_least: int | None, beat: int | None) -> Goal:
    """The objective the options ask for (InputError: both, or a mark beyond the rules)."""
    if at_least is not None and beat is not None:
        raise InputError("give --at-least or --beat, not both")
    mark = at_least if at_least is not None else beat
    if mark is None:
        raise InputError("--score goes with --at-least T or --beat T")
    flag = "--at-least" if at_least is not None else "--beat"
    top = TH.highest(rules)
    if not 0 <= mark <= top:
        raise InputError(f"{flag} {mark}: the final score of {rules.name} is 0 .. {top}")
    return Goal("atleast" if at_least is not None else "beat", score or 0, mark)


def check_score(rules: YahtzeeRules, state: Y.SheetState, score: int) -> None:
    """InputError unless the filled boxes can total `score` (the upper total and its bonus,
    each lower box between its least and its most, the Yahtzee bonuses)."""
    st = score_tables(rules)
    filled = [b for b in range(rules.n_boxes) if state.mask >> b & 1]
    lower = [b for b in filled if not st.upper_face[b]]
    bonus = rules.upper_bonus if rules.threshold and state.upper >= rules.threshold else 0
    least = state.upper + bonus
    most = state.upper + bonus
    for b in lower:
        pts = st.base[b]
        if b == st.yahtzee_box:  # its points (the flag) or 0
            least += int(pts.max()) * state.yf
            most += int(pts.max()) * state.yf
        else:
            least += int(pts.min())
            most += int(max(pts.max(), st.joker[b]))
    if state.yf:
        most += rules.yahtzee_bonus * (len(filled) - 1)
    if not least <= score <= most:
        raise InputError(
            f"--score {score}: the filled boxes (upper total {state.upper}) make "
            f"{least} .. {most} points"
        )


@dataclass(frozen=True)
class YahtzeeTargetValue(Answer):
    rules: str
    filled: str
    upper: int
    yahtzee_bonus: bool
    score: int
    points_needed: int
    expected_final: float  # under expected-score play, for comparison
    at_least: int | None = optional()
    beat: int | None = optional()
    p_at_least: float | None = optional()  # the largest P(final >= at_least)
    p_win: float | None = optional()  # the largest P(final > beat) + P(final = beat) / 2


def _store(tables: Tables_) -> Store:
    return tables if isinstance(tables, Store) else Store.resolve(tables)


def _marks(g: Goal, p: float) -> dict:
    both = {"at_least": g.mark, "p_at_least": p} if g.kind == "atleast" else {}
    return both or {"beat": g.mark, "p_win": p}


def target_value(
    rs: YahtzeeRules,
    state: Y.SheetState,
    filled: str,
    g: Goal,
    tables: Tables_,
    progress: Progress,
) -> YahtzeeTargetValue:
    """The largest chance of the goal from a state between turns, and the expected final
    score of expected-score play beside it."""
    check_score(rs, state, g.score)
    store = _store(tables)
    key = (state.mask, state.capped(rs), state.yf)
    p = prob(TH.chance(rs, store, g.kind, key, g.needed, progress))
    mean = g.score + Y.value(rs, Y.game_table(rs, store, progress), state)
    return YahtzeeTargetValue(
        rs.name,
        filled,
        state.upper,
        bool(state.yf),
        g.score,
        g.needed,
        mean,
        **_marks(g, p),
    )


@dataclass(frozen=True)
class YahtzeeTargetAdvice(Answer):
    rules: str
    dice: list[int]
    rolls_left: int
    filled: list[str]
    upper: int
    yahtzee_bonus: bool
    score: int
    points_needed: int
    options: list[dict]  # keep or box, the chance ("p_at_least"/"p_win"), expected_final
    at_least: int | None = optional()
    beat: int | None = optional()


def target_advice(
    rs: YahtzeeRules,
    state: Y.SheetState,
    hand: Sequence[int],
    rolls_left: int,
    g: Goal,
    tables: Tables_,
    progress: Progress,
) -> YahtzeeTargetAdvice:
    """Every keep (or box) by its chance of the goal, with its expected final score."""
    check_score(rs, state, g.score)
    store = _store(tables)
    dice = tuple(hand)
    E = Y.game_table(rs, store, progress)
    opts = Y.advise(rs, E, state, dice, rolls_left)
    key = (state.mask, state.capped(rs), state.yf)
    o = Y.hand_index(dice)
    p = TH.option_chances(rs, store, g.kind, key, g.needed, o, rolls_left, progress)
    kg = keep_graph(rs.dice)
    where = {tuple(c): i for i, c in enumerate(kg.counts.tolist())}
    out = []
    for d in opts:
        if "box" in d:
            chance = prob(p[rs.boxes.index(d["box"])])
            label: dict = {"box": d["box"]}
        else:
            counts = tuple(d["keep"].count(f) for f in range(1, 7))
            chance = prob(p[where[counts]])
            label = {"keep": d["keep"]}
        out.append(dict(label, **{g.field: chance}, expected_final=g.score + d["value"]))
    out.sort(key=lambda d: (-d[g.field], -d["expected_final"]))
    for d in out:
        d["loss"] = out[0][g.field] - d[g.field]
    filled = [b for i, b in enumerate(rs.boxes) if state.mask >> i & 1]
    marks = {"at_least": g.mark} if g.kind == "atleast" else {"beat": g.mark}
    return YahtzeeTargetAdvice(
        rs.name,
        list(dice),
        rolls_left,
        filled,
        state.upper,
        bool(state.yf),
        g.score,
        g.needed,
        out,
        **marks,
    )


def prob(x: float) -> float:
    """A chance as stored (sums of rounded terms: within 1e-15 of [0, 1]) kept in [0, 1]."""
    return min(1.0, max(0.0, float(x)))
