"""Where a game stands beyond the turn state: the scores in turn order and what the rules'
options add to them.  Frozen data, parsed and checked once from what a user gives
(answers/position_options.py) and read by every question: advice, the game, the end-game, export,
plots, play, review and the web page.  The game's target is the rules' (RuleSet.aimed sets
another; `target` says which), the turn state (dice, turn total, permanent points, frozen
dice) is turn.state.TurnState."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Position:
    # mine first, then the others' in turn order after me (): no scores, expected points)
    scores: tuple[int, ...] = ()
    target: int | None = None  # the game's target (points; the rules', aimed)
    mode: str | None = None  # "last-turn" or "final-round" as stated, else inferred
    zilches: tuple[int, int] = (0, 0)  # zilches in a row before the turn: mine, the next's
    beat: int = 0  # overtaking: the previous player's banked turn total (0: none)
    challenges: tuple[int, int] | None = None  # challenge rule: left to me, to the opponent
    boards: tuple[bool, bool] | None = None  # challenge rule: board flags, where given
    challenging: bool = False  # challenge rule: this turn is a challenge
    lowest: int | None = None  # the lowest score a game table keeps (penalty, challenge)
    offer: tuple[int, int] | None = None  # piggyback: the dice and total offered
    on_board: bool = True  # without scores: has the player banked the entry minimum?

    @property
    def me(self) -> int:
        return self.scores[0]

    @property
    def opponents(self) -> list[int]:
        return list(self.scores[1:])

    @property
    def players(self) -> int:
        return max(len(self.scores), 2)

    @property
    def by_game(self) -> bool:
        """Is it asked by the probability of winning (scores given)?"""
        return bool(self.scores)
