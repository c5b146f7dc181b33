"""The two-player game under overtaking (objectives/overtaking_game.py): W[a, b, T], the
opponent's last bank T part of the state (a bank must beat it)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..progress import Progress
from ..rules import RuleSet
from ..store import Arrays
from .base import SCORES, Cost, GameKey, Turn, Variant, bar_of_sums, board_flags, by_flag, flagged

if TYPE_CHECKING:
    from ..objectives.overtaking_game import OvertakingGame
    from ..position import Position
    from ..tables import Tables
    from ..turn.state import TurnState


class Overtaking(Variant):
    name = "overtaking"
    called = " with overtaking"
    having = "has overtaking"

    @staticmethod
    def applies(rules: RuleSet, players: int) -> bool:
        return players == 2 and rules.overtaking

    def __init__(self, rules: RuleSet) -> None:
        super().__init__(replace(rules, beat=0))  # (the table is the rules', not one turn's)

    def check(self, players: int = 2) -> None:
        from ..objectives.overtaking_game import check_overtaking

        check_overtaking(self.rules)

    def estimate(self, tab: Tables, key: GameKey, workers: int | None = None) -> Cost:
        from ..objectives.overtaking_game import estimate

        nbytes, seconds = estimate(tab.model, key.target)
        return Cost(nbytes, seconds, 8.0 * self.rules.reach_units() ** 3)

    def sound(self, key: GameKey, header: dict, a: Arrays) -> bool:
        R = self.rules.reach_units()
        ok = a["W"].shape == (R, R, R) and a["W"].dtype == np.float64
        if self.rules.end != "instant":
            for f in board_flags(self.rules):
                for k in (f"opp.{f}", f"strict.{f}"):
                    ok &= k in a and a[k].ndim == 1 and a[k].shape[0] > R
        return bool(ok)

    def build(self, tab: Tables, key: GameKey, progress: Progress, checkpoint: Any) -> tuple:
        from ..objectives.overtaking_game import solve_overtaking_game

        bound = 0 if self.rules.end == "instant" else tab.reach_bound
        with bar_of_sums(progress) as step:
            g = solve_overtaking_game(tab.model, bound, key.target, step, checkpoint)
        return {}, by_flag({"W": g.W}, opp=g.finals.plain.opp, strict=g.finals.strict)

    def wrap(self, tab: Tables, key: GameKey, header: dict, arrays: Arrays) -> OvertakingGame:
        from ..objectives.game import Finals
        from ..objectives.overtaking_game import OvertakingFinals, OvertakingGame

        R = self.rules.reach_units()
        finals = OvertakingFinals(
            Finals(self.rules, R, flagged(arrays, "opp")), flagged(arrays, "strict")
        )
        return OvertakingGame(tab.model, key.target, arrays["W"], finals)

    # --- the questions --------------------------------------------------------------------
    def check_scores(self, key: GameKey, pos: Position, names: tuple = SCORES) -> None:
        super().check_scores(key, pos, names)
        self.rules.beating(pos.beat).check_previous_bank(pos.scores[1])

    def chance(self, g: OvertakingGame, pos: Position) -> dict[str, Any]:
        me, opp = pos.scores
        return {"p_win": g.p_win(me, opp, pos.beat), "note": None, "beat": pos.beat}

    def fairness(self, g: OvertakingGame, pos: Position) -> tuple[int, float, float, str | None]:
        from ..objectives.game import closest_to_even

        h, p = closest_to_even(g.W[0, :, 0], self.rules.unit)
        return h, p, float(g.W[0, 0, 0]), None

    def turn(self, g: OvertakingGame, pos: Position, state: TurnState) -> Turn:
        from ..turn import TurnLevels

        me, opp = pos.scores
        turn = TurnLevels(self.rules.beating(pos.beat), (g.turn(me, opp, pos.beat),))
        return Turn(turn.value_at(state), g.p_win(me, opp, pos.beat), {})

    def rows(self, g: OvertakingGame) -> tuple[dict[str, Any], dict[str, list]]:
        u = self.rules.unit
        a, b, T = np.nonzero(~np.isnan(g.W))
        cols = {
            "score": (a * u).tolist(),
            "opponent": (b * u).tolist(),
            "beat": (T * u).tolist(),
            "p_win": g.W[a, b, T].tolist(),
        }
        return {}, cols
