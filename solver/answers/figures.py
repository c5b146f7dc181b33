"""What the pictures show, as data (render/pictures.py draws it): the last turn's chances,
a turn's score distribution, the two-player game's surface and its bank boundaries, a
slice of the N-player table.  Each figure checks its inputs first, then calls `ready()`
(the picture's file checked, before any long work), then computes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..play.evaluate import Distribution
from ..play.evaluate import evaluate as exact_distribution
from ..play.named_policies import resolve_policy
from ..play.verify import Samples, read_scores
from ..rules import RuleSet
from ..variants.nplayer import NPlayerSolution
from .game_tables import plain_game, stored_game
from .inputs import Rules, Tables_, refuse_challenge, refuse_pyramiding, rule_set, tables_of
from .position_options import aimed

if TYPE_CHECKING:
    from ..objectives.plain_game import GameTable
    from ..turn.solution import TurnSolution

Ready = Callable[[], None]


@dataclass(frozen=True)
class EndgameFigure:
    """A last turn: its solution at turn total 0 and with N-1 dice (plot_endgame)."""

    rules: RuleSet
    solution: TurnSolution  # (deficit, state, total) of the board flag asked
    max_deficit: int


def endgame_figure(
    rules: Rules, not_on_board: bool, beat: int, tables: Tables_, target: int | None, ready: Ready
) -> EndgameFigure:
    rs = aimed(rule_set(rules), target).beating(beat)
    refuse_pyramiding(rs, "zilch plot endgame")
    refuse_challenge(rs, "zilch plot endgame")
    ready()
    tab = tables_of(rs, tables).last_turn
    return EndgameFigure(rs, tab.levels[not not_on_board][0], tab.max_deficit)


@dataclass(frozen=True)
class DistributionFigure:
    """A turn's exact score distribution under a policy, a simulator's sample beside it."""

    rules: RuleSet
    distribution: Distribution
    policy: str
    samples: Samples | None


def distribution_figure(
    rules: Rules,
    policy: str,
    results: str | None,
    column: str | None,
    not_on_board: bool,
    beat: int,
    tables: Tables_,
    ready: Ready,
) -> DistributionFigure:
    rs = rule_set(rules).beating(beat)
    ready()
    tab = tables_of(rs, tables)
    on = not not_on_board
    dist = exact_distribution(tab.model, resolve_policy(policy, tab, on), on)
    samples = read_scores(results, column) if results else None
    return DistributionFigure(rs, dist, policy, samples)


@dataclass(frozen=True)
class GameFigure:
    """The two-player game: W over the scores, and per dice count the turn total from which
    optimal play banks on a grid of score pairs (first[pair, n], points)."""

    rules: RuleSet
    target: int
    W: np.ndarray
    grid: np.ndarray  # the grid's scores (units)
    first: np.ndarray


@dataclass(frozen=True)
class NPlayerFigure:
    """Every seat's chance over the scores of the player to move and the next player, the
    other players' scores fixed (a slice (R, R, N) of the N-player table)."""

    rules: RuleSet
    target: int
    players: int
    others: int
    R: int
    chances: np.ndarray


def game_figure(
    rules: Rules,
    target: int | None,
    step: int | None,
    tables: Tables_,
    players: int,
    others: int,
    ready: Ready,
) -> GameFigure | NPlayerFigure:
    """The two-player game's figure, or with more players a slice of their table."""
    rs = aimed(rule_set(rules), target)
    if players != 2:
        if step is not None:
            raise InputError("--step is for the two-player picture (its bank heat maps)")
        return nplayer_figure(rs, tables, players, others, ready)
    if others:
        raise InputError("--others is for --players 3 or more")
    refuse_pyramiding(rs, "zilch plot game")
    from .. import variants

    v = variants.of(rs, players)
    if not v.draws:
        v.refuse("the game's picture")
    ready()
    R, u = rs.reach_units(), rs.unit
    if step is not None and (step <= 0 or step % u or step >= R * u):
        raise InputError(
            f"--step must be a positive multiple of {u} below {R * u} (the target), got {step}"
        )
    step_u = max(1, (step // u) if step else R // 20)
    if (R // step_u + 1) ** 2 > 10_000:
        raise InputError(
            f"--step {step}: {(R // step_u + 1) ** 2} score pairs to solve; "
            f"use a step of at least {u * -(-R // 99)}"
        )
    g = plain_game(tables_of(rs, tables))  # (its inputs checked first)
    pts = np.arange(0, R, step_u)
    return GameFigure(rs, g.target, g.W, pts, bank_from(g, pts))


def nplayer_figure(
    rs: RuleSet, tables: Tables_, players: int, others: int, ready: Ready
) -> NPlayerFigure:
    ready()
    _, solution = stored_game(tables_of(rs, tables), players)
    assert isinstance(solution, NPlayerSolution)  # (the variant of 3 or more)
    g = solution.game
    u, R = rs.unit, g.R
    if others % u or not 0 <= others < R * u:
        raise InputError(
            f"--others {others}: a score of this game, a multiple of {u} from 0 below {R * u}"
        )
    sl = g.V[(slice(None), slice(None)) + (others // u,) * (players - 2)]  # (R, R, N)
    return NPlayerFigure(rs, g.target, players, others, R, np.asarray(sl))


def bank_from(g: GameTable, pts: np.ndarray) -> np.ndarray:
    """first[pair, n]: the smallest turn total (points) from which optimal play banks with n
    dice left, no permanent points held (NaN: it never does), for every pair of scores
    (a, b) in pts x pts (units): each pair's turn solved by the game's own turn
    (GameTable.turns: piggyback offers and levels of permanent points included)."""
    rows = np.array([(a, b) for a in pts for b in pts])
    sol = g.turns(rows).levels()[0]
    banks = sol.bank >= sol.roll
    banks[:, :, 0] = False
    first = np.where(banks.any(axis=2), banks.argmax(axis=2), np.nan)
    return first * g.rules.unit
