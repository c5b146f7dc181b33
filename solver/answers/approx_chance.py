"""An approximate P(win) among three players or more where that game's exact table is not
stored (objectives/approx_game.py: the turn and the final round exact, the chances after
it from the two-player table of the same rules and target).  What advise, the ranking of a
roll, `zilch play`'s hints and computers and review read instead of expected points; the
answers say so ("exact": false, "method")."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError, TableMissing
from ..objectives.approx_game import METHOD, approx_turns, final_key, finals_for
from .game_tables import missing

if TYPE_CHECKING:
    from ..objectives.approx_game import ApproxTurns
    from ..objectives.nplayer_game import FinalTable
    from ..position import Position
    from ..tables import Tables
    from ..turn.state import TurnState
    from ..variants import Turn

DESCRIPTION = (
    "approximate: this turn and the final round exact, the chances after it from the "
    "two-player table (pairwise odds, Bradley-Terry)"
)
_FINALS_KEPT = 256  # final rounds kept per game (one solve each, 0.1 to 0.5 s)
_lock = threading.Lock()
_kept: OrderedDict[tuple, FinalTable] = OrderedDict()


def pair_table(tab: Tables, players: int = 3) -> np.ndarray:
    """The two-player table's W (R, R) of tab.rules at their target: stored, or
    TableMissing (the command that builds it: `zilch game --rules R --target T`)."""
    from .. import variants
    from ..variants.plain import PlainSolution

    rs = replace(tab.rules, beat=0)
    v = variants.of(rs, 2)
    key = v.key(2)
    g = tab.game_table(key)
    if g is None:
        e = missing(tab, v, key)
        got = TableMissing(
            f"{v.describe(key)}, which the approximate P(win) among {players} players reads"
            f" (the exact game among them: the same command with --players {players}),",
            "game",
            v.solve_with(key),
        )
        got.build = e.build
        raise got
    if not isinstance(g, PlainSolution):  # (piggyback: never among more players)
        raise InputError(f"{rs.name}: no approximate P(win) from its two-player game")
    return np.asarray(g.game.W)


def check_approx(tab: Tables, players: int) -> None:
    """InputError where the rules have no game among `players` (as the exact table's)."""
    from ..objectives.nplayer_game import check_supported

    if players < 3:
        raise InputError("the approximate P(win) is for three players or more")
    check_supported(tab.rules, players)


def _finals(tab: Tables, rows: np.ndarray) -> FinalTable:
    """The exact final round for these rows' keys (one key per row set), kept."""
    rs = tab.rules
    R = rs.reach_units()
    D = 0 if rs.end == "instant" else tab.reach_bound
    keys = np.unique(final_key(rs, rows[:, 1:]), axis=0)
    name = (rs.table_key(), rs.target, D, keys.shape, keys.tobytes())
    with _lock:
        got = _kept.get(name)
        if got is not None:
            _kept.move_to_end(name)
            return got
    got = finals_for(tab.model, R, D, rows)
    with _lock:
        _kept[name] = got
        while len(_kept) > _FINALS_KEPT:
            _kept.popitem(last=False)
    return got


def approx_turn_of(tab: Tables, scores: list[int]) -> ApproxTurns:
    """The mover's approximate turn at these scores (points, the mover first)."""
    check_approx(tab, len(scores))
    W = pair_table(tab, len(scores))
    u = tab.rules.unit
    rows = np.array([[int(s) // u for s in scores]])
    return approx_turns(tab.model, W, _finals(tab, rows), rows)


def approx_turn(tab: Tables, pos: Position, state: TurnState) -> Turn:
    """A turn of the game going on among three players or more, approximately (the answer's
    extras say so: exact false, the method)."""
    from ..turn import TurnLevels
    from ..variants import Turn

    got = approx_turn_of(tab, list(pos.scores))
    turn = TurnLevels(tab.rules, (got.turns.sol,))
    p = [float(x) for x in got.V[0]]
    more = {"p_win_seats": p, "exact": False, "method": METHOD}
    return Turn(turn.value_at(state), p[0], more)


def approx_seat_chances(tab: Tables, scores: list[int]) -> list[float]:
    """Every seat's approximate chance at the start of the mover's turn."""
    return [float(x) for x in approx_turn_of(tab, scores).V[0]]
