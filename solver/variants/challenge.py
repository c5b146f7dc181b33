"""The two-player game with the challenge rule (objectives/challenge_game.py):
W[sa, sb, a - lo, b - lo], the challenges left and board flags of both players part of the
state, scores down to the lowest any game from 0-0 reaches (or a lowest kept)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..progress import Progress
from ..rules import RuleSet
from ..store import Arrays
from .penalty import check_scores_from
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
    from ..objectives.challenge_game import ChallengeGame
    from ..objectives.game_run import Checkpoint
    from ..position import Position
    from ..turn.state import TurnState

LEFT = {"both": 3, "below": 1, "above": 2, "none": 0}  # the challenges a player has left
NAMES = {v: k for k, v in LEFT.items()}


class Challenge(Variant):
    name = "challenge"
    lowers = True
    called = " with challenges"
    having = "has the challenge rule"

    @staticmethod
    def applies(rules: RuleSet, players: int) -> bool:
        return players == 2 and rules.challenge

    def check(self, players: int = 2) -> None:
        from ..objectives.challenge_game import check_supported

        check_supported(self.rules)

    def lowest(self, lowest: int | None) -> int:
        from ..objectives.challenge_game import lowest_units

        return lowest_units(self.rules, lowest, self.rules.target) * self.rules.unit

    hint = "choose a lower `target`, or a higher `lowest` (scores below it are cut)"

    def estimate(self, tab: GameTables, key: GameKey, workers: int | None = None) -> Cost:
        from ..objectives.challenge_game import Statuses, estimate

        nbytes, seconds = estimate(self.run(tab, key))
        assert key.lowest is not None
        S, n = Statuses.of(self.rules).S, self.rules.reach_units() - key.lowest // self.rules.unit
        return Cost(nbytes, seconds, 8.0 * S * S * n * n)

    def sound(self, key: GameKey, header: Header, a: Arrays) -> bool:
        from ..objectives.challenge_game import Statuses

        assert key.lowest is not None
        st = Statuses.of(self.rules)
        N = self.rules.reach_units() - key.lowest // self.rules.unit
        ok = a["W"].shape == (st.S, st.S, N, N) and a["W"].dtype == np.float64
        if self.rules.end != "instant":
            for f in board_flags(self.rules):
                for k in (f"plain.{f}", f"challenge.{f}"):
                    ok &= k in a and a[k].ndim == 1 and a[k].shape[0] > 2
        return bool(ok) and int(header.get("span", 0)) > N

    def build(
        self, tab: GameTables, key: GameKey, progress: Progress, checkpoint: Checkpoint
    ) -> tuple[Header, Arrays]:
        from ..objectives.challenge_game import solve_challenge_game

        with bar_of_sums(progress) as step:
            g = solve_challenge_game(self.run(tab, key, step, checkpoint))
        fin = g.finals
        return {"span": fin.span}, by_flag({"W": g.W}, plain=fin.plain, challenge=fin.challenge)

    def wrap(
        self, tab: GameTables, key: GameKey, header: Header, arrays: Arrays
    ) -> ChallengeSolution:
        from ..objectives.challenge_game import ChallengeFinals, ChallengeGame, Statuses

        assert key.lowest is not None
        plain, chal = flagged(arrays, "plain"), flagged(arrays, "challenge")
        finals = ChallengeFinals(plain, chal, Statuses.of(self.rules), int(header["span"]))
        lo = key.lowest // self.rules.unit
        return ChallengeSolution(ChallengeGame(tab.model, key.target, lo, arrays["W"], finals))

    def check_scores(self, key: GameKey, pos: Position, names: tuple[str, ...] = SCORES) -> None:
        assert key.lowest is not None
        top = self.rules.reach_units() * self.rules.unit
        floor = "the lowest score the game keeps"
        check_scores_from(self.rules, pos.scores, key.lowest, top, floor, names)
        from ..objectives.challenge_game import lowest_sum

        u = self.rules.unit
        low = int(lowest_sum(self.rules, key.lowest // u, *left_of(pos), key.target)) * u
        if sum(pos.scores) < low:
            me, opp = pos.scores
            raise InputError(
                f"{names[0]} {me} against {opp}: no game from 0-0 gets there with those "
                f"challenges left (the score sum falls only by a challenge's zilch: to {low} "
                "at the lowest); a table with a `lowest` of its own keeps every score from it",
                names[0].split()[0],
            )


def left_of(pos: Position) -> tuple[int, int]:
    """The challenges each player has left (default: both, both)."""
    return pos.challenges if pos.challenges is not None else (LEFT["both"], LEFT["both"])


class ChallengeSolution(Solution):
    """The challenge game's table: W[sa, sb, a - lo, b - lo]."""

    def __init__(self, game: ChallengeGame) -> None:
        self.game, self.rules, self.target = game, game.rules, game.target

    def _boards(self, pos: Position) -> tuple[bool, bool]:
        if pos.boards is not None:
            return pos.boards
        me, opp = pos.scores
        return self.rules.on_board(me), self.rules.on_board(opp)

    def chance(self, pos: Position) -> Chance:
        me, opp = pos.scores
        g = self.game
        left, boards = left_of(pos), self._boards(pos)
        ch = g.choices(me, opp, *left, *boards)
        return {
            "p_win": g.p_win(me, opp, *left, *boards),
            "note": None,
            "lowest": g.lo * self.rules.unit,
            "challenges": [NAMES[x] for x in left],
            "on_board": list(boards),
            "p_win_no_challenge": ch["plain"],
            "p_win_challenge": ch["challenge"],
            "challenge": None if ch["challenge"] is None else ch["challenge"] > ch["plain"],
        }

    def fairness(self) -> Fairness:
        from ..objectives.challenge_game import BOTH
        from ..objectives.plain_game import closest_to_even

        g, u = self.game, self.rules.unit
        first = [g.p_win(0, h, BOTH, BOTH) for h in range(0, g.R * u, u)]
        h, p = closest_to_even(np.array(first), u)
        return Fairness(h, p, first[0], None)

    def turn(self, pos: Position, state: TurnState) -> Turn:
        from ..turn import TurnLevels

        rs, g = self.rules, self.game
        low = g.lo * rs.unit
        for what, x in zip(("score", "opponents"), pos.scores):
            if x < low:
                raise InputError(
                    f"{what} {x}: the stored game keeps scores down to {low} (its lowest score)",
                    what,
                )
        me, opp = pos.scores
        left, boards = left_of(pos), self._boards(pos)
        states = g.state(me, opp, *left, *boards)
        more: dict[str, object] = {
            "challenges": [NAMES[x] for x in left],
            "challenging": pos.challenging,
        }
        fresh = state.turn == 0 and state.dice == rs.dice and not state.permanent
        if fresh and usable(rs, me, left[0]) and not pos.challenging:
            ch = g.choices(me, opp, *left, *boards)
            assert ch["challenge"] is not None  # (usable: the mover has one for his score)
            more.update(p_win_no_challenge=ch["plain"], p_win_challenge=ch["challenge"])
            more.update(challenge=ch["challenge"] > ch["plain"])
        turn = TurnLevels(rs, (g.turns(states, challenge=pos.challenging),))
        return Turn(turn.value_at(state), g.p_win(me, opp, *left, *boards), more)

    def rows(self) -> Rows:
        g = self.game
        sa, sb, a, b = np.nonzero(np.isfinite(g.W))
        st, u = g.st, self.rules.unit
        cols: dict[str, Column] = {
            "score": ((a + g.lo) * u).tolist(),
            "opponent": ((b + g.lo) * u).tolist(),
            "challenges": [NAMES[x] for x in (sa & 3).tolist()],
            "opp_challenges": [NAMES[x] for x in (sb & 3).tolist()],
            "on_board": st.on(sa).tolist(),
            "opp_on_board": st.on(sb).tolist(),
            "p_win": g.W[sa, sb, a, b].tolist(),
        }
        return Rows({}, cols)


def usable(rules: RuleSet, score: int, left: int) -> int:
    """Which challenge (a bit of LEFT) the player may use at this score (0: none)."""
    from ..objectives.challenge_game import Statuses

    return int(Statuses.of(rules).usable(score // rules.unit, left))
