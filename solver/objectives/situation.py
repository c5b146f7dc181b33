"""Which question a position of the game asks: the scores decide between the last turn, the
final round, reaching the target this turn, and a turn of the game still going on."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError
from ..limits import check_players
from ..rules import RuleSet


@dataclass(frozen=True)
class Situation:
    kind: str  # "last turn", "final round", "reach target" or "outside"
    leader: int | None = None  # the score to beat (last turn, final round)
    tied: int | None = None  # players sharing it
    remaining: tuple[int, ...] = ()  # players still to play after me, in turn order


def _field(mode: str) -> str:
    return mode.replace("-", "_")


def situation(rules: RuleSet, score: int, opponents: list[int], mode: str | None) -> Situation:
    """From my score and the others' in turn order after me.  mode: "last-turn" or
    "final-round" as the user states it, else inferred from the scores."""
    if rules.target is None:
        raise InputError(f"{rules.name} has no target: scores do not change the advice")
    rules.check_score("score", score, "score")
    for o in opponents:
        rules.check_score("opponents: a score", o, "opponents")
    if rules.end == "instant":
        return _reach_target(rules, score, opponents, mode)
    if rules.reached(score):
        raise InputError(
            f"your score {score} has already reached the target {rules.target}: "
            "you triggered the final round and have no turn left in it"
        )
    if mode == "last-turn":
        remaining, done = [], opponents
    else:
        trig = next((i for i, o in enumerate(opponents) if rules.reached(o)), None)
        if trig is None:
            if mode == "final-round":
                raise InputError(
                    f"final_round: no opponent has reached the target {rules.target}",
                    "final_round",
                )
            return Situation("outside", remaining=tuple(opponents))
        remaining, done = opponents[:trig], opponents[trig:]
    return _behind_leader(rules, score, remaining, done, mode)


def _behind_leader(
    rules: RuleSet, score: int, remaining: list[int], done: list[int], mode: str | None
) -> Situation:
    """The last turn (nobody left to play after me) or the final round, the leader among
    the players `done` (who triggered it, and those after him who have played)."""
    if not done:
        raise InputError("last_turn needs the other players' scores (opponents)", "last_turn")
    leader = max(done)
    if not rules.reached(leader):
        raise InputError(
            f"{_field(mode or 'final-round')}: the game ends once someone reaches the "
            f"target {rules.target}, and the leader has {leader}",
            _field(mode or "final-round"),
        )
    if score >= leader:
        raise InputError(
            f"your score {score} is not behind the leader's {leader}: a "
            "final-round turn always starts behind"
        )
    if any(r >= leader for r in remaining):
        raise InputError("a player still to play cannot be level with or ahead of the leader")
    kind = "last turn" if not remaining else "final round"
    if remaining:
        check_players(1 + len(remaining) + len(done))
    return Situation(kind, leader, done.count(leader), tuple(remaining))


def _reach_target(rules: RuleSet, score: int, opponents: list[int], mode: str | None) -> Situation:
    """Where reaching the target wins at once: no final round, and a score at or above
    the target means the game is over."""
    assert rules.target is not None
    if mode is not None:
        raise InputError(
            f"{_field(mode)}: under {rules.name} reaching {rules.target} wins at "
            "once, there is no final round",
            _field(mode),
        )
    if any(o >= rules.target for o in opponents) or score >= rules.target:
        raise InputError(
            f"under {rules.name} reaching {rules.target} ends the game at once:"
            " a score at or above it means the game is over"
        )
    return Situation("reach target")
