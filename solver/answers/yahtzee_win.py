"""A Yahtzee game of two to four seats valued by the chance of winning: every option of a
decision by P(win) against the other seats' sheets (Pawlewicz's heuristic, the values of
`yahtzee advise --opponents`: answers/yahtzee_versus.py), with each opponent's points still
to come looked up in the stored backward table (to_come_table.py; a game of `yahtzee play
--players N` builds it where it is missing, the review of its log, `yahtzee review LOG`,
reads it) or, without it, a forward pass per sheet kept.

A sheet in a log line is the text `--opponents` takes: "236" (finished), "new", or
"80 f=ones,chance u=3 y".
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..progress import SILENT, Progress
from ..store import Store
from ..yahtzee import opponents as OP
from ..yahtzee import solitaire as Y
from ..yahtzee import threshold as TH
from ..yahtzee import to_come_table as TC
from ..yahtzee.final_scores import to_come
from ..yahtzee.yahtzee_rules import YahtzeeRules
from .inputs import Tables_
from .yahtzee_target import check_score
from .yahtzee_versus import Sheet, by_chance, exactness


def sheet_text(rules: YahtzeeRules, state: Y.SheetState, score: int) -> str:
    """A sheet as `--opponents` reads it (parse_sheet): its final score once every box is
    filled, "new" before any, else score, boxes filled, upper total and the Yahtzee flag."""
    if state.mask == (1 << rules.n_boxes) - 1:
        return str(score)
    if state.mask == 0:
        return "new"
    filled = ",".join(b for i, b in enumerate(rules.boxes) if state.mask >> i & 1)
    return f"{score} f={filled} u={state.upper}" + (" y" if state.yf else "")


@dataclass(frozen=True)
class Ranked:
    """A decision's options by P(win) (best first: keep or box, p_win, expected_final,
    loss) and what the chance is: exact, method (yahtzee_versus.exactness)."""

    options: list[dict]
    exact: bool
    method: str


class WinValues:
    """P(win) of every option against sheets, for one rule set; each opponent sheet's points
    still to come (expected-score play) from the stored backward table where it is, else by
    a forward pass (final_scores.to_come, tens of seconds from an early sheet of `yahtzee`)
    computed once and kept."""

    def __init__(
        self, rules: YahtzeeRules, tables: Tables_ = None, progress: Progress = SILENT
    ) -> None:
        self.rules = rules
        self.store = tables if isinstance(tables, Store) else Store.resolve(tables)
        self.E = Y.game_table(rules, self.store, progress)
        self.rest: dict[tuple[int, int, int], np.ndarray] = {}
        self.back: TC.ToCome | None = None
        self.looked = False  # (the store asked for the backward table once)
        self.widgets: dict[Y.SheetState, Y.WidgetRun] = {}  # (a turn's three decisions share one)

    def build(self, progress: Progress, whole_games: bool = False) -> None:
        """The beat table (threshold.py), built where missing: minutes for `yahtzee` the
        first time, with its estimate on the progress; for whole games (a terminal game) the
        opponents' points to come from every sheet as well (30 s, 2.4 GB on disk), which
        every later decision reads instead of a forward pass per sheet."""
        for k in range(self.rules.n_boxes + 1):
            TH.built_level(self.rules, self.store, "beat", k, progress)
        if whole_games:
            with contextlib.suppress(InputError):  # (too many states: as before, per sheet)
                self.back = TC.stored(self.rules, self.store, self.E, progress)
            self.looked = True

    def final(self, sheet: Sheet) -> np.ndarray:
        """P(this opponent's final score = i)."""
        if sheet.state is None:
            return np.concatenate([np.zeros(sheet.score), [1.0]])
        st = sheet.state
        key = (st.mask, st.capped(self.rules), st.yf)
        if key not in self.rest:
            if not self.looked:
                self.back = TC.stored(self.rules, self.store, self.E, missing="none")
                self.looked = True
            if self.back is not None:
                self.rest[key] = self.back.of(key)
            else:
                self.rest[key] = to_come(self.rules, self.E, 0.0, key)
        return np.concatenate([np.zeros(sheet.score), self.rest[key]])

    def ranked(
        self,
        state: Y.SheetState,
        hand: Sequence[int],
        rolls_left: int,
        score: int,
        sheets: Sequence[Sheet],
    ) -> Ranked:
        """Every keep (rolls left) or open box by P(win) against `sheets`, the expected
        final score beside (ties: the larger expected final first)."""
        rs, dice = self.rules, tuple(sorted(hand))
        check_score(rs, state, score)
        best = OP.best_of([self.final(s) for s in sheets])
        if state not in self.widgets:
            self.widgets = {state: Y.run_widget(rs, self.E, state)}  # (the last sheet only)
        opts = Y.advise(rs, self.E, state, dice, rolls_left, self.widgets[state])
        key = (state.mask, state.capped(rs), state.yf)
        span = OP.span(best, score)
        vec = OP.option_vectors(rs, self.store, key, Y.hand_index(dice), rolls_left, span)
        p = OP.heuristic(best, score, vec)
        out = by_chance(rs, opts, p, score)
        return Ranked(out, *exactness(list(sheets)))
