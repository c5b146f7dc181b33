"""The two-player game: `zilch game` (P(the player to move wins), the fairest head start)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InputError
from ..limits import check_memory, check_points, check_time
from .base import Answer, Rules, Tables_, int_list, noting_unmodelled, rule_set, tables_of
from .progress import SILENT, Progress, started_by_first_step

if TYPE_CHECKING:
    from ..tables import Tables


# --- zilch game ----------------------------------------------------------------------------
PIGGYBACK_NOTE = (
    "piggyback included: a bank offers the dice left and the turn total to the other player"
)


@dataclass(frozen=True)
class GameChance(Answer):
    rules: str
    target: int
    scores: list[int]
    p_win: float
    note: str | None


@dataclass(frozen=True)
class Fairness(Answer):
    rules: str
    target: int
    head_start: int
    p_win_first: float
    p_win_first_no_head_start: float
    note: str | None


@noting_unmodelled
def game(
    rules: Rules = "farkle",
    target: int | None = None,
    scores: str | Sequence[int] | None = None,
    fairness: bool = False,
    tables: Tables_ = None,
    progress: Progress = SILENT,
) -> GameChance | Fairness:
    """Two players, the whole game: the probability that the player to move wins (solved
    and stored on first use, with progress by score sum)."""
    rs = rule_set(rules)
    tab = tables_of(rs, tables)
    if target is not None:
        check_points(target, "--target")
        if target <= 0 or target % rs.unit:
            raise InputError(f"--target must be a positive multiple of {rs.unit}")
    pair = None
    if fairness and scores is not None:
        raise InputError("--fairness is about the start of the game: leave out --scores")
    if not fairness:
        pair = int_list("0,0" if scores is None else scores, "--scores")
        if len(pair) != 2:
            raise InputError("--scores expects ME,OPP such as 0,0")
        goal = rs.target if target is None else target
        for what, v in zip(("--scores (mine)", "--scores (the opponent's)"), pair):
            rs.check_score(what, v)
            if goal is not None and v >= rs.reach_units(goal) * rs.unit:
                raise InputError(f"{what} {v}: a game to {goal} is over there")
    from ..objectives.game import fairest_head_start

    g = solve_game_table(tab, target, progress)
    note = PIGGYBACK_NOTE if g.O is not None else None
    if fairness:
        h, p = fairest_head_start(g)
        return Fairness(rs.name, g.target, h, p, float(g.W[0, 0]), note)
    assert pair is not None
    me, opp = pair
    return GameChance(rs.name, g.target, [me, opp], g.p_win(me, opp), note)


def solve_game_table(tab: Tables, target: int | None, progress: Progress):
    """The stored game table, solved first if missing (progress by score sum), where this
    machine can: the solve's memory and time are estimated first."""
    from ..objectives.game import check_supported, estimate

    check_supported(tab.rules)
    g = tab.game(target, solve_if_missing=False)
    if g is not None:
        return g
    nbytes, seconds = estimate(tab.model, target)
    what = f"the {tab.rules.name} game to {target or tab.rules.target}"
    check_memory(nbytes, what, "choose a lower --target")
    check_time(seconds, what, "choose a lower --target")
    # the sums are solved from the top down: the first one reported gives their number
    with started_by_first_step(progress, "solving score sums", lambda sigma: sigma + 1) as step:
        g = tab.game(target, step)
    assert g is not None
    return g
