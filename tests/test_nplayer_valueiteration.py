"""The N-player plain value iteration (tests/nplayer_valueiteration.py), groundwork for an
N-player solver: at N = 2 it is the two-player value iteration, at N = 3 a distribution."""

import time

import numpy as np
import pytest

from . import game_valueiteration as VI
from . import nplayer_valueiteration as NP
from .solvers import small_rules

TM = 40  # turn totals swept (units); >= R


SLOW = pytest.mark.slow  # the larger value iterations (the quickest of each stay quick)


@pytest.mark.parametrize(
    "args, kw, end",
    [
        pytest.param((3, "any", "optional"), {}, "instant", marks=SLOW),
        pytest.param((3, "any", "optional"), {"entry": 300, "bank": 100}, "instant", marks=SLOW),
        pytest.param((3, "forced", "mandatory"), {"entry": 300}, "instant", marks=SLOW),
        ((2, "forced", "optional"), {}, "instant"),
        pytest.param((3, "any", "optional"), {}, "final_round", marks=SLOW),
        pytest.param((3, "forced", "optional"), {"bank": 100}, "final_round", marks=SLOW),
    ],
)
def test_two_players_equal_the_two_player_value_iteration(args, kw, end):
    """N = 2: V[a, b, 0] equals game_valueiteration.game's W[a, b] to 1e-12 in every state
    (target 500, instant end and final round; entry and bank minimums, mandatory hot dice),
    and V[a, b, 1] is the rest (the two chances sum to 1)."""
    rs = small_rules(*args, **kw, game={"target": 500, "end": end})
    R = rs.reach_units()
    finals = VI.last_turn(rs, R + TM + 130) if end != "instant" else None
    W = VI.game(rs, R, TM, finals)
    V = NP.nplayer_game(rs, R, TM, 2)
    assert V.shape == (R, R, 2)
    assert np.abs(V[..., 0] - W).max() < 1e-12
    assert np.abs(V.sum(-1) - 1).max() < 1e-12


def test_last_player_table_is_the_two_player_last_turn():
    """The final round's last player facing one leader: P(beat) + tie P(tie) is
    game_valueiteration.last_turn's chance at every deficit (to 1e-14)."""
    rs = small_rules(3, "any", "optional", bank=100, game={"target": 500})
    L = NP._last_player(rs, NP._merged(rs), 1, 60)
    X = VI.last_turn(rs, 60)
    assert np.abs(L[1, :, 0] + rs.tie * L[1, :, 1] - X).max() < 1e-14


@pytest.mark.slow  # (a full-size reference: the slow tier)
@pytest.mark.parametrize("end", [pytest.param("instant", marks=SLOW), "final_round"])
def test_three_players_chances_are_a_distribution(end):
    """N = 3 (3 dice, target 500, R = 10): in every state the three chances lie in [0, 1]
    and sum to 1 (to 1e-12), and from 0-0-0 the first mover has the largest chance of the
    three, the second the next (printed with the time)."""
    rs = small_rules(3, "any", "optional", game={"target": 500, "end": end})
    R = rs.reach_units()
    t0 = time.perf_counter()
    V = NP.nplayer_game(rs, R, TM, 3)
    took = time.perf_counter() - t0
    print(f"\n{end}: from 0-0-0 {V[0, 0, 0]} ({took:.1f} s)")
    assert V.shape == (R, R, R, 3)
    assert np.abs(V.sum(-1) - 1).max() < 1e-12
    assert V.min() >= 0 and V.max() <= 1
    p = V[0, 0, 0]
    assert p[0] > p[1] > p[2]


@pytest.mark.slow
def test_three_players_turn_order_matters():
    """N = 3, instant end: at equal scores (every a = b = c) the mover ranks first and the
    next to move second; and a player one unit short is better off moving now
    (V[R-1, 0, 0, 0]) than moving next (V[0, R-1, 0, 1], the same scores rotated)."""
    rs = small_rules(3, "any", "optional", game={"target": 500, "end": "instant"})
    R = rs.reach_units()
    V = NP.nplayer_game(rs, R, TM, 3)
    for a in range(R):
        p = V[a, a, a]
        assert p[0] > p[1] > p[2]
    assert V[R - 1, 0, 0, 0] > V[0, R - 1, 0, 1] > 0


@pytest.mark.parametrize("N", [2, pytest.param(3, marks=SLOW)])
@pytest.mark.parametrize(
    "args, kw",
    [
        ((3, "any", "optional"), {}),
        ((3, "forced", "optional"), {"bank": 100}),
        ((3, "any", "optional"), {"entry": 300}),
    ],
)
def test_final_round_for_any_n_equals_the_two_and_three_player_ones(N, args, kw):
    """The final round for any N (_final_round_any: each player's state the leader's score
    and the set of leaders, explicit) equals the N = 2 and N = 3 ones built on leads and
    board flags (_finals: _last_player, _middle) at every banker's final score reaching
    the target (to 1e-14; measured 3e-16 .. 6e-16)."""
    rs = small_rules(*args, **kw, game={"target": 500, "end": "final_round"})
    R = rs.reach_units()
    moves = NP._merged(rs)
    maxpts = max(p for _, chs, _ in moves.values() for c in chs for p, _ in c)
    Tx = R + 6 + maxpts
    new = NP._final_round_any(rs, moves, N, R, Tx)
    fins = NP._finals(rs, moves, N, R + Tx)
    ax = lambda i: np.arange(R).reshape((1,) * i + (R,) + (1,) * (N - 1 - i))
    F = ax(0)[..., None] + np.arange(Tx)
    idx = [NP._flag(rs, ax(i))[..., None] for i in range(1, N)]
    idx += [F - ax(i)[..., None] for i in range(1, N)]
    old = fins[tuple(np.maximum(i, 0) for i in idx)]
    reached = np.broadcast_to((F >= R)[..., None], old.shape)
    assert new.shape == old.shape == (R,) * N + (Tx, N)
    assert np.abs(np.where(reached, new - old, 0.0)).max() < 1e-14
