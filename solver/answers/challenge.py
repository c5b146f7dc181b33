"""The challenge rule in the answers: challenges left and board flags from the command
line, `zilch game` and the game turn of `zilch advise` (objectives/challenge_game.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import InputError
from ..limits import check_memory, check_time
from ..rules import RuleSet
from .progress import Progress

if TYPE_CHECKING:
    from ..objectives.challenge_game import ChallengeGame
    from ..tables import Tables

LEFT = {"both": 3, "below": 1, "above": 2, "none": 0}
NAMES = {v: k for k, v in LEFT.items()}


def _two(value: str | Sequence[str], what: str, meaning: str) -> list[str]:
    items = value.split(",") if isinstance(value, str) else [str(v) for v in value]
    items = [x.strip().lower() for x in items]
    if len(items) != 2:
        raise InputError(f"{what} expects MINE,OPP ({meaning}), got {value!r}")
    return items


def challenges_of(rs: RuleSet, value: str | Sequence[str] | None) -> tuple[int, int]:
    """--challenges MINE,OPP: the challenges each player has left (both, below, above or
    none; default both,both).  Refused under rules without the challenge rule."""
    if value is None:
        return (LEFT["both"], LEFT["both"]) if rs.challenge else (0, 0)
    if not rs.challenge:
        raise InputError(
            f"--challenges: {rs.name} has no challenge rule (the rule key is challenge = true)"
        )
    items = _two(value, "--challenges", "each both, below, above or none")
    bad = [x for x in items if x not in LEFT]
    if bad:
        raise InputError(
            f"--challenges: {bad[0]!r} is not one of both, below, above, none (the challenges "
            "a player has left: the one below the threshold, the one at or above it)"
        )
    return LEFT[items[0]], LEFT[items[1]]


def boards_of(rs: RuleSet, value: str | Sequence[str] | None, pair: Sequence[int]):
    """--on-board MINE,OPP (yes/no): whether each player has banked the entry minimum.  By
    default a positive score is on the board and a score at or below zero is not; only
    under a challenge can a player on the board fall to zero or below."""
    if value is None:
        return tuple(rs.on_board(x) for x in pair)
    if not rs.challenge:
        raise InputError(
            f"--on-board: under {rs.name} the score says whether a player is on the board "
            "(only a challenge can take a player on the board to zero or below)"
        )
    items = _two(value, "--on-board", "each yes or no")
    if any(x not in ("yes", "no") for x in items):
        raise InputError(f"--on-board expects yes or no for each player, got {value!r}")
    flags = tuple(x == "yes" for x in items)
    for who, x, on in zip(("mine", "the opponent's"), pair, flags):
        if not on and x > 0:
            raise InputError(
                f"--on-board ({who}) no with a score of {x}: a positive score is a bank of at "
                "least the entry minimum, so that player is on the board"
            )
    if not rs.entry_minimum and not all(flags):
        raise InputError(f"--on-board: {rs.name} has no entry minimum: everybody is on the board")
    return flags


def stored_game(tab: Tables, target, lowest, progress: Progress) -> ChallengeGame:
    """The stored challenge game, solved first where missing (time and memory estimated
    first; progress by step)."""
    from ..objectives.challenge_game import estimate
    from .game import _by_score_sums

    rs = tab.rules
    g = tab.challenge_game(target, lowest, solve_if_missing=False)
    if g is None:
        goal = rs.target if target is None else target
        cost = estimate(tab.model, goal, lowest)
        what = f"the {rs.name} game to {goal} with challenges"
        hint = "choose a lower --target, or a higher --lowest (scores below it are cut)"
        check_memory(cost[0], what, hint)
        check_time(cost[1], what, hint)
        g = _by_score_sums(
            cost,
            what,
            progress,
            lambda step: tab.challenge_game(target, lowest, step),
        )
    assert g is not None
    return g


def game(rs, tab, target, pair, fairness, challenges, on_board, lowest, progress):
    """`zilch game` under the challenge rule: P(win) of the player to move, and whether to
    challenge this turn (P(win) of each choice)."""
    from ..objectives.challenge_game import BOTH, check_supported, lowest_units
    from ..objectives.game import closest_to_even
    from .game import Fairness, GameChance, check_scores_from

    check_supported(rs)
    left = challenges_of(rs, challenges)
    goal = rs.target if target is None else target
    lo = lowest_units(rs, lowest, goal) * rs.unit
    top = rs.reach_units(goal) * rs.unit
    if fairness and (challenges is not None or on_board is not None):
        raise InputError(
            "--fairness is about the start of the game: leave out --challenges and --on-board"
        )
    if not fairness:
        check_scores_from(rs, pair, lo, top, "the lowest score it keeps, --lowest")
    boards = boards_of(rs, on_board, pair)
    g = stored_game(tab, target, lowest, progress)
    if fairness:
        first = [g.p_win(0, h, BOTH, BOTH) for h in range(0, top, rs.unit)]
        import numpy as np

        h, p = closest_to_even(np.array(first), rs.unit)
        return Fairness(rs.name, g.target, h, p, first[0], None)
    me, opp = pair
    ch = g.choices(me, opp, *left, *boards)
    return GameChance(
        rs.name,
        g.target,
        [me, opp],
        g.p_win(me, opp, *left, *boards),
        None,
        lowest=lo,
        challenges=[NAMES[x] for x in left],
        on_board=list(boards),
        p_win_no_challenge=ch["plain"],
        p_win_challenge=ch["challenge"],
        challenge=None if ch["challenge"] is None else ch["challenge"] > ch["plain"],
    )


def challenge_last_turn(tab: Tables, deficit: int, state, on_board: bool):
    """Rolling and banking in a last turn that challenges the leader `deficit` points ahead:
    its bank x also comes off him, so it wins where 2x beats the deficit (solved on
    demand: one row)."""
    import numpy as np

    from ..objectives.challenge_game import challenge_last_payoff
    from ..objectives.last_turn import check_deficit
    from ..turn import solve_levels

    rs = tab.rules
    check_deficit(rs, deficit)
    d = np.array([deficit // rs.unit])
    pay = challenge_last_payoff(rs.share(2), d, int(d[0]) // 2 + 2)
    return solve_levels(tab.model, pay, np.ones(1), on_board).value_at(state)


def advice(tab: Tables, state, score: int, opp: int, sit, options: dict, answer):
    """`zilch advise --score --opponents` with one opponent under the challenge rule: the
    game's turn (from the stored table: a query never solves) or the last turn, plain or
    challenging (options: challenges, on_board, challenging).  At the start of a turn it
    also says whether to challenge."""
    from ..objectives.challenge_game import Statuses
    from ..turn import TurnLevels

    rs = tab.rules
    left = challenges_of(rs, options.get("challenges"))
    boards = boards_of(rs, options.get("on_board"), (score, opp))
    challenging = bool(options.get("challenging"))
    st = Statuses.of(rs)
    usable = int(st.usable(score // rs.unit, left[0]))
    if challenging and not usable:
        side = "below" if usable == 0 and score // rs.unit < st.thr else "at or above"
        raise InputError(
            f"--challenging: you have no challenge left to use at {score} (the one {side} "
            f"{rs.challenge_threshold}; --challenges says which are left)"
        )
    fresh = state.turn == 0 and state.dice == rs.dice and not state.permanent
    more = {"challenges": [NAMES[x] for x in left], "challenging": challenging}
    if sit.kind == "last turn":
        d = sit.leader - score
        if sit.tied != 1:
            raise InputError("a last turn under the challenge rule is solved behind one leader")
        plain = tab.last_turn.value_at(d, state, boards[0], 1)
        chal = challenge_last_turn(tab, d, state, boards[0]) if usable else None
        if fresh and chal is not None and not challenging:
            more.update(p_win_no_challenge=plain.best, p_win_challenge=chal.best)
            more.update(challenge=chal.best > plain.best)
        v = chal if challenging else plain
        return answer(sit.kind, v, leader=sit.leader, tied=sit.tied, still_to_play=[], **more)
    g = tab.challenge_game(solve_if_missing=False)
    if g is None:
        raise InputError(
            f"{rs.name} has the challenge rule: advice with scores before the final round "
            f"needs the two-player game table with it, solved first (zilch game --rules "
            f"{rs.name}); no advice is given rather than one without it"
        )
    low = g.lo * rs.unit
    for what, x in (("--score", score), ("--opponents", opp)):
        if x < low:
            raise InputError(
                f"{what} {x}: the stored game keeps scores down to {low} (its lowest score)"
            )
    states = g.state(score, opp, *left, *boards)
    if fresh and usable and not challenging:
        ch = g.choices(score, opp, *left, *boards)
        more.update(p_win_no_challenge=ch["plain"], p_win_challenge=ch["challenge"])
        more.update(challenge=ch["challenge"] > ch["plain"])
    turn = TurnLevels(rs, (g.turns(states, challenge=challenging),))
    return answer(
        "game",
        turn.value_at(state),
        still_to_play=[],
        p_win_game=g.p_win(score, opp, *left, *boards),
        **more,
    )
