"""`yahtzee duel`: the two-player game solved exactly (yahtzee/duel.py; docs/method.md,
"Two players, exactly"): the chance of winning (a tie counts half) of the player to move
with both players playing their best, and with --dice every keep (or box) ranked by it.

Only for rule files whose two-player table fits (duel_store.check_size: about five boxes);
larger ones are refused in one line.  The opponent's sheet takes `--opponents`' syntax
(yahtzee_versus.parse_sheet: `236`, `new`, `80 f=ones,chance u=3 y`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError
from ..progress import SILENT, Progress
from ..store import Store
from ..yahtzee import duel as D
from ..yahtzee import duel_store as DS
from ..yahtzee import solitaire as Y
from ..yahtzee.solve import rule_arrays
from ..yahtzee.yahtzee_rules import YahtzeeRules
from .answer import Answer, optional
from .inputs import Tables_, dice_list
from .yahtzee_answers import yahtzee_rule_set
from .yahtzee_target import check_score, prob
from .yahtzee_versus import Sheet, by_chance, parse_sheet

METHOD = "two-player-exact"
TIES = "a tie counts 1/2"
MAX_DIFF = 10**6


@dataclass(frozen=True)
class YahtzeeDuelAnswer(Answer):
    rules: str
    filled: list[str]
    upper: int
    yahtzee_bonus: bool
    opponent: dict
    score_diff: int  # my points - the opponent's
    plays_first: bool  # both sheets equally full: I opened the game
    p_win: float  # the best option's (with dice) or the state's
    exact: bool
    method: str
    ties: str
    pairs_of_sheets: int
    states: int  # pairs of sheets x score differences held
    dice: list[int] | None = optional()
    rolls_left: int | None = optional()
    options: list[dict] | None = optional()  # keep or box, p_win, expected_points, loss


@dataclass(frozen=True)
class Position:
    rules: YahtzeeRules
    mine: Y.SheetState
    theirs: Sheet
    other: tuple[int, int, int]  # the opponent's state (a full sheet: any of its level)
    d: int

    @property
    def key(self) -> tuple[int, int, int]:
        m = self.mine
        return (m.mask, m.capped(self.rules), m.yf)

    @property
    def layer(self) -> int:
        return bin(self.mine.mask).count("1") + bin(self.other[0]).count("1")


def _other_state(rs: YahtzeeRules, sheet: Sheet) -> tuple[int, int, int]:
    if sheet.state is None:  # finished: nothing more to come, every full state alike
        full = D.Layout(rs, 2 * rs.n_boxes).movers
        return (int(full[0, 0]), int(full[0, 1]), int(full[0, 2]))
    st = sheet.state
    return (st.mask, st.capped(rs), st.yf)


def position(
    rs: YahtzeeRules,
    filled: str,
    upper: int,
    yahtzee_bonus: bool,
    opponent: str | int | Mapping[str, Any],
    score: int | None,
    score_diff: int | None,
) -> Position:
    """The position, checked: sheets that can happen, in turn (the opponent has filled as
    many boxes as I have, or one more), one score difference."""
    mine = Y.parse_state(rs, filled, upper, yahtzee_bonus)
    try:
        theirs = parse_sheet(rs, opponent)
    except InputError as e:
        raise InputError(f"--opponent {opponent!r}: {e}", "opponent") from None
    other = _other_state(rs, theirs)
    k, m = bin(mine.mask).count("1"), bin(other[0]).count("1")
    if m not in (k, k + 1):
        raise InputError(
            f"--opponent: with {k} boxes filled on your sheet the opponent has filled {k} "
            f"(you play first) or {k + 1} (second) at your turn, not {m}",
            "opponent",
        )
    if score_diff is not None and score is not None:
        raise InputError("give --score (your points) or --score-diff, not both")
    if score is not None:
        check_score(rs, mine, score)
    d = score_diff if score_diff is not None else (score or 0) - theirs.score
    if not -MAX_DIFF <= d <= MAX_DIFF:
        raise InputError(f"--score-diff {d}: at most {MAX_DIFF} either way", "score_diff")
    return Position(rs, mine, theirs, other, d)


def _store(tables: Tables_) -> Store:
    return tables if isinstance(tables, Store) else Store.resolve(tables)


def option_chances(
    p: Position, store: Store, hand: int, rolls_left: int, progress: Progress
) -> np.ndarray:
    """Each option's P(win): per keep (keep_graph's index) with rolls left, else per box of
    hand `hand` (-1 where it may not go); the threshold turn over the opponent's reversed
    complement (duel.complements) at t = -d."""
    from ..yahtzee.threshold_widget import box_values, twidget

    rs = p.rules
    nxt_data = DS.built_layer(rs, store, p.layer + 1, progress)
    lay, nxt = D.Layout(rs, p.layer), D.Layout(rs, p.layer + 1)
    i = int(np.nonzero((lay.others == np.array(p.other)).all(axis=1))[0][0])
    q_off, q = D.complements(nxt, nxt_data, i)
    arrays = (nxt.index(nxt.others), q_off, q)
    lo, t = -int(lay.most_others[i]), -p.d
    mask, up, yf = p.key
    r = rule_arrays(rs)
    if rolls_left == 0:
        return box_values(mask, up, yf, hand, t, r, arrays, lo)
    A1, A2 = np.empty((len(r.add), 1)), np.empty((len(r.add), 1))
    twidget(mask, up, yf, t, r, arrays, lo, A1, A2, np.empty(1))
    return (A1 if rolls_left == 1 else A2)[:, 0]


def _options(
    p: Position, store: Store, dice: tuple[int, ...], rolls_left: int, progress: Progress
) -> list[dict]:
    rs = p.rules
    E = Y.game_table(rs, store, progress)
    opts = Y.advise(rs, E, p.mine, dice, rolls_left)
    chances = option_chances(p, store, Y.hand_index(dice), rolls_left, progress)
    return by_chance(rs, opts, chances)


def yahtzee_duel(
    rules: str | YahtzeeRules = "yahtzee",
    filled: str | Sequence[str] | None = "",
    upper: int = 0,
    yahtzee_bonus: bool = False,
    opponent: str | int | Mapping[str, Any] = "new",
    score: int | None = None,
    score_diff: int | None = None,
    dice: str | Sequence[int] | None = None,
    rolls_left: int = 2,
    tables: Tables_ = None,
    progress: Progress = SILENT,
) -> YahtzeeDuelAnswer:
    """The exact two-player game: my chance of winning (a tie half) at my turn, both
    playing their best; with dice, every keep (or box) ranked by it."""
    rs = yahtzee_rule_set(rules)
    text = filled if isinstance(filled, str) or filled is None else ",".join(filled)
    p = position(rs, text or "", upper, yahtzee_bonus, opponent, score, score_diff)
    sz = DS.check_size(rs)
    hand: tuple[int, ...] | None = None
    if dice is not None:
        hand = tuple(dice_list(dice, "--dice"))
        if len(hand) != rs.dice:
            raise InputError(f"--dice: a hand of {rs.name} has {rs.dice} dice, got {len(hand)}")
        if rolls_left not in (0, 1, 2):
            raise InputError(f"--rolls-left is 0, 1 or 2, got {rolls_left}")
    store = _store(tables)
    data = DS.built_layer(rs, store, p.layer, progress)
    lay = D.Layout(rs, p.layer)
    more: dict[str, Any] = {}
    p_win = prob(D.value(lay, data, lay.row(p.key, p.other), p.d))
    if hand is not None:
        opts = _options(p, store, hand, rolls_left, progress)
        more = {"dice": list(hand), "rolls_left": rolls_left, "options": opts}
        p_win = opts[0]["p_win"]
    return YahtzeeDuelAnswer(
        rs.name,
        [b for i, b in enumerate(rs.boxes) if p.mine.mask >> i & 1],
        p.mine.upper,
        bool(p.mine.yf),
        p.theirs.describe(rs),
        p.d,
        bin(p.mine.mask).count("1") == bin(p.other[0]).count("1"),
        p_win,
        True,
        METHOD,
        TIES,
        sz.pairs,
        sz.entries,
        **more,
    )


def duel_text(a: YahtzeeDuelAnswer) -> str:
    """The answer for people."""
    seat = "first" if a.plays_first else "second"
    lines = [
        f"{a.rules}, two players, exact: P(win) {a.p_win:.9f} for you (playing {seat}), "
        f"score difference {a.score_diff:+d}, both playing their best; {a.ties}"
    ]
    for o in a.options or []:
        what = f"box {o['box']}" if "box" in o else f"keep {o['keep']}"
        lines.append(
            f"  {what:<28} P(win) {o['p_win']:.6f}  loss {o['loss']:.6f}  "
            f"expected points {o['expected_points']:.2f}"
        )
    return "\n".join(lines)
