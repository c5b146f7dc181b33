"""The two-player game under overtaking (objectives/overtaking_game.py): W[a, b, T], the
opponent's last bank T part of the state (a bank must beat it)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

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
    bar_of_sums,
    board_flags,
    by_flag,
    flagged,
)

if TYPE_CHECKING:
    from ..objectives.game_run import Checkpoint
    from ..objectives.overtaking_game import OvertakingGame
    from ..position import Position
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

    def estimate(self, tab: GameTables, key: GameKey, workers: int | None = None) -> Cost:
        from ..objectives.overtaking_game import estimate

        nbytes, seconds = estimate(self.run(tab, key))
        return Cost(nbytes, seconds, 8.0 * self.rules.reach_units() ** 3)

    def sound(self, key: GameKey, header: Header, a: Arrays) -> bool:
        R = self.rules.reach_units()
        ok = a["W"].shape == (R, R, R) and a["W"].dtype == np.float64
        if self.rules.end != "instant":
            for f in board_flags(self.rules):
                for k in (f"opp.{f}", f"strict.{f}"):
                    ok &= k in a and a[k].ndim == 1 and a[k].shape[0] > R
        return bool(ok)

    def build(
        self, tab: GameTables, key: GameKey, progress: Progress, checkpoint: Checkpoint
    ) -> tuple[Header, Arrays]:
        from ..objectives.overtaking_game import solve_overtaking_game

        with bar_of_sums(progress) as step:
            g = solve_overtaking_game(self.run(tab, key, step, checkpoint))
        return {}, by_flag({"W": g.W}, opp=g.finals.plain.opp, strict=g.finals.strict)

    def wrap(
        self, tab: GameTables, key: GameKey, header: Header, arrays: Arrays
    ) -> OvertakingSolution:
        from ..objectives.overtaking_game import OvertakingFinals, OvertakingGame
        from ..objectives.plain_game import Finals

        R = self.rules.reach_units()
        finals = OvertakingFinals(
            Finals(self.rules, R, flagged(arrays, "opp")), flagged(arrays, "strict")
        )
        return OvertakingSolution(OvertakingGame(tab.model, key.target, arrays["W"], finals))

    def check_scores(self, key: GameKey, pos: Position, names: tuple[str, ...] = SCORES) -> None:
        super().check_scores(key, pos, names)
        self.rules.beating(pos.beat).check_previous_bank(pos.scores[1])


class OvertakingSolution(Solution):
    """The overtaking game's table: W[a, b, T], T the previous player's bank to beat."""

    def __init__(self, game: OvertakingGame) -> None:
        self.game, self.rules, self.target = game, game.rules, game.target

    def chance(self, pos: Position) -> Chance:
        me, opp = pos.scores
        return {"p_win": self.game.p_win(me, opp, pos.beat), "note": None, "beat": pos.beat}

    def fairness(self) -> Fairness:
        from ..objectives.plain_game import closest_to_even

        W = self.game.W
        h, p = closest_to_even(W[0, :, 0], self.rules.unit)
        return Fairness(h, p, float(W[0, 0, 0]), None)

    def turn(self, pos: Position, state: TurnState) -> Turn:
        from ..turn import TurnLevels

        me, opp = pos.scores
        g = self.game
        turn = TurnLevels(self.rules.beating(pos.beat), (g.turn(me, opp, pos.beat),))
        return Turn(turn.value_at(state), g.p_win(me, opp, pos.beat), {})

    def rows(self) -> Rows:
        u, W = self.rules.unit, self.game.W
        a, b, T = np.nonzero(~np.isnan(W))
        cols: dict[str, Column] = {
            "score": (a * u).tolist(),
            "opponent": (b * u).tolist(),
            "beat": (T * u).tolist(),
            "p_win": W[a, b, T].tolist(),
        }
        return Rows({}, cols)
