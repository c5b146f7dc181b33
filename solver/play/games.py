"""Whole two-player games played with physical dice between any two policies: the check of
objectives/policy_game.py, and of a user's own game simulator.

Every turn is the one simulator's (play/simulate.py: physical dice, the TurnModel's choices).
A player is his turns and his last turn:
- optimal: the game table's turn from the score pair (GameTable.turns, solved on demand
  for the pairs of the games in play, a block of pairs at a time) and the end-game's
  optimal last turn (solve_last_turn, every deficit of the games in play at once);
- a fixed policy (the card, a policy file): its compiled play by board flag, with
  bank_at_target the target as a goal (GoalPolicy, each game's own); its last turn its own
  choices, banking as soon as the total beats the leader (play/policy_last_turn.py's rule).
Games are played in batches; only counts are kept, so memory does not grow with the games.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO

import numpy as np

from ..errors import InputError
from ..outcomes.model import TurnModel
from ..progress import Progress, steps
from .policies import GoalPolicy, OptimalPolicy, Policy
from .simulate import play_turns

if TYPE_CHECKING:
    from ..objectives.plain_game import GameTable
    from ..turn.solution import TurnLevels

PAIRS = 256  # score pairs whose turns are solved at once (memory: about 20 MB for farkle)


class Player:
    """One side: the points (units) each game's turn records, and each game's last turn."""

    name: str

    def turns(self, me: np.ndarray, opp: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def last(self, deficit: np.ndarray, me: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError


def _levels_policy(levels: TurnLevels) -> OptimalPolicy:
    """The optimal play of solved turns, each situation on its own batch row."""
    cap = max(lv.cap for lv in levels)
    return OptimalPolicy(levels.values, None, cap=cap, levels=len(levels))


def _flags(model: TurnModel, scores: np.ndarray) -> np.ndarray:
    rules = model.rules
    return (scores > 0) | (not rules.entry_minimum)


@dataclass(eq=False)
class OptimalPlayer(Player):
    """The game table's play (objectives/plain_game.py: GameTable)."""

    game: GameTable
    name: str = "optimal"

    def turns(self, me: np.ndarray, opp: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        g = self.game
        model = g.model
        pairs, row = np.unique(np.column_stack([me, opp]), axis=0, return_inverse=True)
        row = row.ravel()
        out = np.zeros(len(me), np.int64)
        for lo in range(0, len(pairs), PAIRS):
            games = np.nonzero((row >= lo) & (row < lo + PAIRS))[0]
            pol = _levels_policy(g.turns(pairs[lo : lo + PAIRS]).levels())
            out[games] = play_turns(
                model, pol, len(games), rng, _flags(model, me[games]), rows=row[games] - lo
            ).points
        return out

    def last(self, deficit: np.ndarray, me: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        from ..objectives.last_turn import solve_last_turn

        model = self.game.model
        u = model.rules.unit
        out = np.zeros(len(deficit), np.int64)
        flags = _flags(model, me)
        for flag in np.unique(flags):
            games = np.nonzero(flags == flag)[0]
            ds, row = np.unique(deficit[games], return_inverse=True)
            levels = solve_last_turn(model, ds * u, bool(flag))
            out[games] = play_turns(
                model, _levels_policy(levels), len(games), rng, bool(flag), rows=row.ravel()
            ).points
        return out


@dataclass(eq=False)
class FixedPlayer(Player):
    """A policy that does not look at the scores: policy(on_board) its compiled play; goal:
    it also banks where the bank reaches the target R (units), bank_at_target."""

    name: str
    model: TurnModel
    R: int
    policy: Callable[[bool], Policy]
    goal: bool = False

    def _play(
        self, me: np.ndarray, rng: np.random.Generator, goal: np.ndarray | None, own: bool
    ) -> np.ndarray:
        model = self.model
        out = np.zeros(len(me), np.int64)
        flags = _flags(model, me)
        for flag in np.unique(flags):
            games = np.nonzero(flags == flag)[0]
            pol = self.policy(bool(flag))
            rows = None
            if goal is not None:
                pol = GoalPolicy(pol, model.rules, bool(flag), None, own)
                rows = goal[games]
            out[games] = play_turns(model, pol, len(games), rng, bool(flag), rows=rows).points
        return out

    def turns(self, me: np.ndarray, opp: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self._play(me, rng, self.R - me if self.goal else None, True)

    def last(self, deficit: np.ndarray, me: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self._play(me, rng, deficit + 1, False)  # (the minimum: GoalPolicy's)


# turns each player plays in one simulated game before it is refused as never ending (a game
# of farkle to 10000 between policies that bank at 300 takes about 30)
MAX_TURNS = 10_000


def play_games(
    model: TurnModel,
    players: tuple[Player, Player],
    n_games: int,
    rng: np.random.Generator,
    R: int,
    start: tuple[int, int] = (0, 0),
) -> np.ndarray:
    """n_games games from scores `start` (units; P, the first player, to move): P's result
    in each (1 a win, 0 a loss, a tie after a final round: his part of it)."""
    rules = model.rules
    score = np.tile(np.array(start, np.int64), (n_games, 1))
    result = np.full(n_games, -1.0)
    mover = 0
    for _turn in range(2 * MAX_TURNS):
        if not (result < 0).any():
            return result
        act = np.nonzero(result < 0)[0]
        me, opp = score[act, mover], score[act, 1 - mover]
        score[act, mover] += players[mover].turns(me, opp, rng)
        done = act[score[act, mover] >= R]
        if len(done):
            if rules.end == "instant":
                mine = np.ones(len(done))
            else:  # the other player's last turn
                lead, other = score[done, mover], score[done, 1 - mover]
                last = other + players[1 - mover].last(lead - other, other, rng)
                mine = np.where(lead > last, 1.0, np.where(lead == last, 1.0 - rules.tie, 0.0))
            result[done] = mine if mover == 0 else 1.0 - mine
        mover = 1 - mover
    raise InputError(
        f"a simulated game went on for {MAX_TURNS} turns each without ending: under these "
        "policies a game may never end (neither banks)"
    )


def count_games(
    model: TurnModel,
    players: tuple[Player, Player],
    games: int,
    rng: np.random.Generator,
    R: int,
    start: tuple[int, int],
    batch: int,
    progress: Progress,
    out: BinaryIO | None = None,
) -> tuple[int, int, int]:
    """(P's wins, his losses, ties) of `games` whole games played `batch` at a time,
    counted as they come; out: every game's winner written, one line each (1, 2 or tie)."""
    wins = losses = ties = 0
    with steps(progress, "simulating games", games):
        done = 0
        while done < games:
            n = min(batch, games - done)
            res = play_games(model, players, n, rng, R, start)
            wins += int((res == 1.0).sum())
            losses += int((res == 0.0).sum())
            ties += int(((res != 1.0) & (res != 0.0)).sum())
            if out is not None:
                text = np.where(res == 1.0, "1", np.where(res == 0.0, "2", "tie"))
                out.write(("\n".join(text.tolist()) + "\n").encode())
            done += n
            progress.advance(n)
    return wins, losses, ties
