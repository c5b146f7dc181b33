"""The N-player final-round table (nplayer_game.final_rows, issue 39) solves each suffix of
the others' scores once: its rows must be those of the per-key solve (final_round.
solve_final_round, the table's definition) to the bit, whatever keys share a call."""

import numpy as np
import pytest

from dicesolver.objectives import nplayer_game as NG
from dicesolver.objectives.final_round import solve_final_round
from dicesolver.rules import load
from dicesolver.store import Store
from dicesolver.tables import Tables

from .solvers import small_rules


def _per_key(model, R, D, keys, starts_only=True):
    """The table as defined: one solve_final_round per key (the leader one above the key's
    highest score, one tied, every leader score up to R + D), its leader rows by their start
    values as final_rows takes them (starts_only; else whole turns, as a query's)."""
    u = model.rules.unit
    out = np.zeros((len(keys), R + D + 1, keys.shape[1] + 1))
    for i, key in enumerate(keys):
        lead = int(key.max()) + 1
        scores = [int(x) * u for x in key]
        fr = solve_final_round(
            model, lead * u, 1, scores, D, spread=R + D - lead, starts_only=starts_only
        )
        out[i, lead:] = fr.by_leader
    return out


def _setup(rs, N):
    tab = Tables(rs, Store.resolve())
    R = rs.reach_units()
    return tab.model, R, tab.reach_bound, NG.final_keys(rs, R, N)


@pytest.mark.parametrize(
    "N, set_aside, kw",
    [
        (3, "any", {}),
        (3, "any", {"entry": 100}),  # off the board: 100 to bank, on it none (the key's shift)
        (4, "forced", {"bank": 100}),  # a bank minimum: the last player solved per row
    ],
)
def test_shared_suffixes_equal_the_per_key_final_round_bit_for_bit(N, set_aside, kw):
    """Rule: the later players' play depends only on their own scores and the leader state
    (F, c), so final_rows (each suffix solved once, on the leaders from max(suffix) + 1) is
    the per-key solve_final_round table bit for bit: 3 and 4 players, 3 dice, with an entry
    minimum and with a bank minimum.  And the query's final round (whole turns for the
    leader rows, which keep the policy) agrees with it to 1e-12."""
    rs = small_rules(3, set_aside, "optional", game={"target": 250, "end": "final_round"}, **kw)
    model, R, D, keys = _setup(rs, N)
    rows = NG.final_rows(model, R, D, keys)
    assert np.array_equal(rows, _per_key(model, R, D, keys))
    assert np.abs(rows - _per_key(model, R, D, keys, starts_only=False)).max() < 1e-12


def test_rows_do_not_depend_on_the_keys_solved_with_them():
    """Rule: a key's rows are the same bits whatever keys share the call and in whatever
    order (the cluster's tasks take the keys in suffix order, FINAL_KEYS at a time): the
    whole table, a reversed part and single keys agree."""
    rs = small_rules(3, "any", "optional", game={"target": 500, "end": "final_round"})
    model, R, D, keys = _setup(rs, 3)
    whole = NG.final_rows(model, R, D, keys)
    part = np.arange(len(keys))[::-3]
    assert np.array_equal(NG.final_rows(model, R, D, keys[part]), whole[part])
    for i in (0, len(keys) // 2):
        assert np.array_equal(NG.final_rows(model, R, D, keys[i : i + 1]), whole[i : i + 1])


def test_suffix_order_puts_each_suffix_together():
    """Rule: suffix_order lists every key once, the keys sharing a suffix (from any seat on)
    one after another (so that final_rows keeps only the latest suffix of each length)."""
    keys = NG.final_keys(small_rules(3, "any", "optional", game={"target": 300}), 6, 4)
    order = NG.suffix_order(keys)
    assert sorted(order) == list(range(len(keys)))
    for j in (1, 2):
        seq = [tuple(k) for k in keys[order, j:].tolist()]
        runs = [s for i, s in enumerate(seq) if i == 0 or s != seq[i - 1]]
        assert len(runs) == len(set(seq))


def test_on_board_preset_rows_equal_the_per_key_final_round():
    """Rule: as above for a preset whose bank minimum differs on and off the board (zilch:
    500 off, 350 on; keys shifted to a lowest score of 0 or 1): three players at target
    250, two keys of each of two suffixes (0, and 1: on the board), bit for bit."""
    rs = load("zilch").aimed(250)
    model, R, D, keys = _setup(rs, 3)
    s1, s2 = keys[:, 0], keys[:, 1]
    pick = keys[((s2 == 0) & (s1 % 3 == 0)) | ((s2 == 1) & (s1 % 3 == 1))]
    assert [tuple(k) for k in pick.tolist()] == [(0, 0), (1, 1), (3, 0), (4, 1)]
    assert np.array_equal(NG.final_rows(model, R, D, pick), _per_key(model, R, D, pick))


def test_instant_end_has_no_final_table():
    """Rule: where reaching the target wins at once (end = "instant") there is no final
    round: no keys counted, the table's rel None (final_rows never called)."""
    rs = small_rules(3, "any", "optional", game={"target": 300, "end": "instant"})
    fin = NG.solve_finals(Tables(rs, Store.resolve()).model, rs.reach_units(), 4, 0)
    assert fin.rel is None and fin.D == 0
    assert NG.final_key_count(rs, rs.reach_units(), 4) == 0
