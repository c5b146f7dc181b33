"""The two-player game where the third zilch in a row costs a penalty
(objectives/penalty_game.py): W[ka, kb, a - lo, b - lo], both players' zilches in a row part
of the state, scores down to the lowest kept."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..progress import Progress
from ..rules import RuleSet
from ..store import Arrays
from .variant import (
    SCORES,
    Chance,
    Column,
    Cost,
    Fairness,
    GameKey,
    GameTables,
    Header,
    Rows,
    Solution,
    Turn,
    Variant,
    by_flag,
    flagged,
)

if TYPE_CHECKING:
    from ..objectives.game_run import Checkpoint
    from ..objectives.penalty_game import PenaltyGame
    from ..position import Position
    from ..turn.state import TurnState


class Penalty(Variant):
    name = "penalty"
    lowers = True
    called = " with the penalty"
    having = "charges a penalty for the third zilch in a row"

    @staticmethod
    def applies(rules: RuleSet, players: int) -> bool:
        return players == 2 and bool(rules.three_zilch_penalty)

    def check(self, players: int = 2) -> None:
        from ..objectives.penalty_game import check_supported

        check_supported(self.rules)

    def lowest(self, lowest: int | None) -> int:
        from ..objectives.penalty_game import lowest_units

        return lowest_units(self.rules, lowest) * self.rules.unit

    hint = "choose a lower `target` or a higher `lowest`"

    def estimate(self, tab: GameTables, key: GameKey, workers: int | None = None) -> Cost:
        from ..objectives.penalty_game import estimate

        nbytes, seconds = estimate(self.run(tab, key))
        assert key.lowest is not None
        n = self.rules.reach_units() - key.lowest // self.rules.unit
        return Cost(nbytes, seconds, 8.0 * 9 * n * n)

    def sound(self, key: GameKey, header: Header, a: Arrays) -> bool:
        assert key.lowest is not None
        R, lo = self.rules.reach_units(), key.lowest // self.rules.unit
        W = a["W"]
        ok = W.shape == (3, 3, R - lo, R - lo) and W.dtype == np.float64
        if self.rules.end != "instant":
            ok &= "opp.1" in a and a["opp.1"].ndim == 1 and a["opp.1"].shape[0] > R
        return bool(ok) and int(header.get("sweeps", 0)) > 0

    def build(
        self, tab: GameTables, key: GameKey, progress: Progress, checkpoint: Checkpoint
    ) -> tuple[Header, Arrays]:
        from ..objectives.penalty_game import solve_penalty_game

        with sweeps_bar(progress) as step:
            g = solve_penalty_game(self.run(tab, key, step))
        return {"sweeps": g.sweeps}, by_flag({"W": g.W}, opp=g.finals.opp)

    def wrap(
        self, tab: GameTables, key: GameKey, header: Header, arrays: Arrays
    ) -> PenaltySolution:
        from ..objectives.penalty_game import PenaltyGame
        from ..objectives.plain_game import Finals

        assert key.lowest is not None
        lo, R = key.lowest // self.rules.unit, self.rules.reach_units()
        fin = Finals(self.rules, R, flagged(arrays, "opp"))
        sweeps = int(header["sweeps"])
        return PenaltySolution(PenaltyGame(tab.model, key.target, lo, arrays["W"], fin, sweeps))

    def check_scores(self, key: GameKey, pos: Position, names: tuple[str, ...] = SCORES) -> None:
        rules = self.rules
        floor = "the lowest score" if rules.penalty_below_zero else "the penalty stops at zero"
        assert key.lowest is not None
        top = rules.reach_units() * rules.unit
        check_scores_from(rules, pos.scores, key.lowest, top, floor, names)


class PenaltySolution(Solution):
    """The penalty game's table: W[ka, kb, a - lo, b - lo]."""

    def __init__(self, game: PenaltyGame) -> None:
        self.game, self.rules, self.target = game, game.rules, game.target

    def chance(self, pos: Position) -> Chance:
        me, opp = pos.scores
        g = self.game
        low = g.lo * self.rules.unit if self.rules.penalty_below_zero else None
        p = g.p_win(me, opp, *pos.zilches)
        return {"p_win": p, "note": None, "zilches": list(pos.zilches), "lowest": low}

    def fairness(self) -> Fairness:
        from ..objectives.plain_game import closest_to_even

        g = self.game
        first = g.W[0, 0, -g.lo, -g.lo :]  # the first to move at 0, opponent at h >= 0
        h, p = closest_to_even(first, self.rules.unit)
        return Fairness(h, p, float(first[0]), None)

    def turn(self, pos: Position, state: TurnState) -> Turn:
        from ..turn import TurnLevels

        g = self.game
        low = g.lo * self.rules.unit
        for what, x in zip(("score", "opponents"), pos.scores):
            if x < low:
                raise InputError(
                    f"{what} {x}: the stored game keeps scores down to {low} (its lowest "
                    "score; a penalty stops there)",
                    what,
                )
        me, opp = pos.scores
        k = pos.zilches
        turn = TurnLevels(self.rules, (g.turn(me, opp, *k),))
        return Turn(turn.value_at(state), g.p_win(me, opp, *k), {"zilches": list(k)})

    def rows(self) -> Rows:
        g = self.game
        u, n = self.rules.unit, g.W.shape[2]
        ka, kb, a, b = np.meshgrid(
            np.arange(3), np.arange(3), np.arange(n), np.arange(n), indexing="ij"
        )
        cols: dict[str, Column] = {
            "score": ((a.ravel() + g.lo) * u).tolist(),
            "opponent": ((b.ravel() + g.lo) * u).tolist(),
            "zilches": ka.ravel().tolist(),
            "opponent_zilches": kb.ravel().tolist(),
            "p_win": g.W.ravel().tolist(),
        }
        return Rows({"lowest": g.lo * u}, cols)


def check_scores_from(
    rules: RuleSet,
    pair: tuple[int, ...],
    lo: int,
    top: int,
    floor: str,
    names: tuple[str, ...] = SCORES,
) -> None:
    """The scores of a game whose scores run from a lowest score lo (points) to below top."""
    from ..limits import check_points

    for what, v in zip(names, pair):
        field = what.split()[0]
        check_points(v, what, field)
        if v % rules.unit or not lo <= v < top:
            raise InputError(
                f"{what} {v}: scores of this game are multiples of {rules.unit} from {lo} "
                f"({floor}) to below {top} (the target)",
                field,
            )


@contextlib.contextmanager
def sweeps_bar(progress: Progress) -> Iterator[Callable[[int, float], None]]:
    """A bar over the sweeps of the game with a penalty: its steps are the digits of the
    largest change a sweep makes, down to the solve's tolerance."""
    from ..objectives.penalty_game import TOL

    digits = int(round(-math.log10(TOL)))
    shown = [0, False]

    def step(sweep: int, residual: float) -> None:
        if not shown[1]:
            progress.start("sweeps (digits settled)", digits)
            shown[1] = True
        got = min(digits, max(0, int(-math.log10(max(residual, 1e-300)))))
        if got > shown[0]:
            progress.advance(got - shown[0])
            shown[0] = got

    try:
        yield step
    finally:
        if shown[1]:
            progress.finish()
