"""The plain two-player game (objectives/plain_game.py), Zonk's piggyback offers included: W[a, b],
the chance of the player to move with a against b."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..progress import Progress
from ..rules import RuleSet
from ..store import Arrays
from .variant import (
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
    from ..objectives.plain_game import GameTable
    from ..position import Position
    from ..turn.state import TurnState

PIGGYBACK_NOTE = (
    "piggyback included: a bank offers the dice left and the turn total to the other player"
)
PIGGYBACK_ADVICE = (
    "piggyback included: banking offers your dice left and turn total to the opponent, who "
    "takes them over where that beats a fresh start"
)


class Plain(Variant):
    name = "plain"
    draws = True
    plays = True

    @staticmethod
    def applies(rules: RuleSet, players: int) -> bool:
        return players == 2

    def check(self, players: int = 2) -> None:
        from ..objectives.plain_game import check_supported

        check_supported(self.rules)

    def estimate(self, tab: GameTables, key: GameKey, workers: int | None = None) -> Cost:
        from ..limits import memory
        from ..objectives.game_run import GameRun
        from ..objectives.plain_game import estimate

        # without the final turns first: that lower bound refuses a game far beyond this
        # machine before the reach bound (a solve of its own) is looked up
        nbytes, seconds = estimate(GameRun(tab.model, target=key.target))
        if nbytes <= memory() and self.rules.end != "instant":
            nbytes, seconds = estimate(self.run(tab, key))
        R = self.rules.reach_units()
        disk = 8.0 * R * R + (8.0 * R**3 * tab.model.states if self.rules.piggyback else 0)
        return Cost(nbytes, seconds, disk)

    def sound(self, key: GameKey, header: Header, a: Arrays) -> bool:
        rules = self.rules
        R = rules.reach_units()
        W = a["W"]
        ok = W.shape == (R, R) and W.dtype == np.float64
        if rules.end != "instant":  # the opponent's last turn, by deficit
            flags = {f"opp.{f}" for f in board_flags(rules)}
            ok &= {k for k in a if k.startswith("opp.")} == flags and all(
                a[k].ndim == 1 and a[k].shape[0] > R for k in flags
            )
        if rules.piggyback:
            shape = tuple(int(x) for x in a["O.shape"])
            idx = a["O.idx"]
            ok &= (
                shape == (R, R, rules.dice + 1, R)
                and a["O.val"].shape == idx.shape
                and (not len(idx) or 0 <= idx.min() <= idx.max() < R * R * R * shape[2])
                and bool(np.all(np.diff(idx) > 0))
            )
        return bool(ok)

    def build(
        self, tab: GameTables, key: GameKey, progress: Progress, checkpoint: Checkpoint
    ) -> tuple[Header, Arrays]:
        from ..objectives.plain_game import solve_game

        with bar_of_sums(progress) as step:
            g = solve_game(self.run(tab, key, step, checkpoint))
        arrays = by_flag({"W": g.W}, opp=g.finals.opp)
        if g.O is not None:
            arrays.update({"O.shape": np.array(g.O.shape), "O.idx": g.O.idx, "O.val": g.O.val})
        return {}, arrays

    def wrap(self, tab: GameTables, key: GameKey, header: Header, arrays: Arrays) -> PlainSolution:
        from ..objectives.plain_game import Finals, GameTable, Offers

        W = arrays["W"]
        offers = None
        if "O.idx" in arrays:
            shape = tuple(int(x) for x in arrays["O.shape"])
            offers = Offers(shape, arrays["O.idx"], arrays["O.val"])
        finals = Finals(self.rules, W.shape[0], flagged(arrays, "opp"))
        return PlainSolution(GameTable(tab.model, key.target, W, finals, offers))


class PlainSolution(Solution):
    """The plain game's table: W[a, b] (and piggyback's offers)."""

    def __init__(self, game: GameTable) -> None:
        self.game, self.rules, self.target = game, game.rules, game.target

    def chance(self, pos: Position) -> Chance:
        me, opp = pos.scores
        note = PIGGYBACK_NOTE if self.game.O is not None else None
        return {"p_win": self.game.p_win(me, opp), "note": note}

    def fairness(self) -> Fairness:
        from ..objectives.plain_game import fairest_head_start

        g = self.game
        h, p = fairest_head_start(g)
        return Fairness(h, p, float(g.W[0, 0]), PIGGYBACK_NOTE if g.O is not None else None)

    def turn(self, pos: Position, state: TurnState) -> Turn:
        me, opp = pos.scores
        g = self.game
        note = PIGGYBACK_ADVICE if g.O is not None else None
        return Turn(g.turn(me, opp).value_at(state), g.p_win(me, opp), {"note": note})

    def rows(self) -> Rows:
        W = self.game.W
        R, u = W.shape[0], self.rules.unit
        a, b = np.meshgrid(np.arange(R), np.arange(R), indexing="ij")
        cols: dict[str, Column] = {
            "score": (a.ravel() * u).tolist(),
            "opponent": (b.ravel() * u).tolist(),
            "p_win": W.ravel().tolist(),
        }
        return Rows({}, cols)
