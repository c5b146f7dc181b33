"""Yahtzee against other players (issue 37, items 2 and 3): the final-score distribution from
any sheet against the plain recursion of tests/yahtzee_bruteforce.py (expected-score and
exponential-utility play), the exact N-player share against enumeration, advise/value
--opponents against a direct sum over the opponents' finals, `yahtzee versus` exact against
simulated games within 4 standard errors, and bad sheets (one line, exit 2)."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from dicesolver.yahtzee import opponents as OP
from dicesolver.yahtzee import threshold as TH
from dicesolver.yahtzee.final_scores import to_come, utility_solve
from dicesolver.yahtzee.hands import keep_graph
from dicesolver.yahtzee.solitaire import SheetState, hand_index, policy
from dicesolver.yahtzee.solve import rule_arrays, solve
from dicesolver.yahtzee.utility import uwidget
from dicesolver.yahtzee.widget import best_keeps
from dicesolver.yahtzee.yahtzee_rules import UPPER, from_dict

from . import yahtzee_bruteforce
from .clirun import yahtzee as run
from .yahtzee_small import bonus3_toml

UP = lambda f: {"name": UPPER[f - 1], "kind": "upper", "face": f}  # noqa: E731
BONUS3 = from_dict(
    {
        "name": "v-bonus3",
        "boxes": [UP(5), UP(6), {"name": "yahtzee", "kind": "yahtzee", "points": 50}],
        "upper_bonus": 35,
        "upper_threshold": 20,
        "yahtzee_bonus": 100,
        "joker": "forced",
    },
    "v-bonus3.toml",
)
PLAIN3 = from_dict(
    {
        "name": "v-plain3",
        "boxes": [
            UP(3),
            {"name": "chance", "kind": "chance"},
            {"name": "three_kind", "kind": "kind", "count": 3, "points": "all"},
        ],
    },
    "v-plain3.toml",
)


def _choose(rules, table, theta):
    """The policy of the (utility) widget over table, as functions of sorted hands."""
    kg = keep_graph(rules.dice)
    face = lambda c: tuple(f + 1 for f in range(6) for _ in range(c[f]))  # noqa: E731
    keeps = [face(c) for c in kg.counts.tolist()]
    r = rule_arrays(rules)

    def choose(filled, up, y50):
        mask = sum(1 << i for i, b in enumerate(rules.boxes) if b in filled)
        if theta == 0.0:
            pol = policy(rules, table, SheetState(mask, up, int(y50)))
        else:
            VB = np.empty((len(kg.roll_keep), rules.n_boxes))
            A1, A2 = np.empty(len(kg.add)), np.empty(len(kg.add))
            uwidget(mask, up, int(y50), table, r, VB, A1, A2, theta)
            pol = {"box": VB.argmax(axis=1)}
            for name, A in (("keep2", A2), ("keep1", A1)):
                arg = np.empty(len(A), np.int64)
                best_keeps(A, kg.remove, arg)
                pol[name] = arg[kg.roll_keep]
        return (
            lambda h: keeps[pol["keep2"][hand_index(h)]],
            lambda h: keeps[pol["keep1"][hand_index(h)]],
            lambda h: rules.boxes[pol["box"][hand_index(h)]],
        )

    return choose


def _want(R):
    want = np.zeros(max(R) + 1)
    for x, q in R.items():
        want[x] += q
    return want


@pytest.mark.parametrize("theta", [0.0, 0.05, -0.05])
@pytest.mark.parametrize(
    "rules, start, filled",
    [
        (BONUS3, (0, 0, 0), ()),
        (BONUS3, (1, 15, 0), ("fives",)),
        (BONUS3, (4, 0, 1), ("yahtzee",)),
        (PLAIN3, (2, 0, 0), ("chance",)),
    ],
    ids=lambda x: getattr(x, "name", str(x)),
)
def test_distribution_from_a_sheet_equals_a_plain_recursion(rules, start, filled, theta):
    """The points still to come from a sheet, under expected-score and exponential-utility
    play, equal the brute force's along the same policy at every score (1e-12); utility
    play's certainty equivalent is its table's value."""
    table = solve(rules) if theta == 0.0 else utility_solve(rules, theta)
    p = to_come(rules, table, theta, start)
    R = yahtzee_bruteforce.remaining_distribution(rules, _choose(rules, table, theta))
    want = _want(R(frozenset(filled), start[1], bool(start[2])))
    n = max(len(p), len(want))
    assert np.abs(np.pad(p, (0, n - len(p))) - np.pad(want, (0, n - len(want)))).max() < 1e-12
    x = np.arange(len(p))
    if theta:
        assert np.log(p @ np.exp(theta * x)) / theta == pytest.approx(table[start], abs=1e-9)
    else:
        assert x @ p == pytest.approx(table[start], abs=1e-9)


@pytest.mark.parametrize("theta", [0.0, 0.05])
@pytest.mark.parametrize("rules", [BONUS3, PLAIN3], ids=lambda r: r.name)
def test_backward_table_of_points_to_come_equals_the_brute_force(rules, theta):
    """to_come_table (one backward pass, every state) equals the plain recursion along the
    same policy at every reachable state and score (1e-12), and the forward pass
    (final_scores.to_come) from each."""
    from dicesolver.yahtzee.to_come_table import build

    table = solve(rules) if theta == 0.0 else utility_solve(rules, theta)
    back = build(rules, table, theta)
    R = yahtzee_bruteforce.remaining_distribution(rules, _choose(rules, table, theta))
    states = np.argwhere(back.index >= 0)
    assert len(states) >= 1 << rules.n_boxes  # every mask, at least
    for mask, up, yf in states.tolist():
        filled = frozenset(b for i, b in enumerate(rules.boxes) if mask >> i & 1)
        p = back.of((mask, up, yf))
        want = _want(R(filled, up, bool(yf)))
        fwd = to_come(rules, table, theta, (mask, up, yf))
        for other in (want, fwd):
            n = max(len(p), len(other))
            gap = np.abs(np.pad(p, (0, n - len(p))) - np.pad(other, (0, n - len(other))))
            assert gap.max() < 1e-12, (mask, up, yf)


def test_stored_backward_table_serves_the_game_values(tmp_path):
    """to_come_table.stored: built and stored once, read back equal (a memory map); a
    damaged file is not read (None), and rebuilt by whoever builds; WinValues (the seats of
    `yahtzee play`) gives the same opponent distribution from it as by the forward pass."""
    from dicesolver.answers.yahtzee_versus import Sheet
    from dicesolver.answers.yahtzee_win import WinValues
    from dicesolver.store import Store
    from dicesolver.yahtzee import to_come_table as TC

    store = Store(tmp_path)
    E = solve(BONUS3)
    assert TC.stored(BONUS3, store, E, missing="none") is None
    built = TC.stored(BONUS3, store, E)
    read = TC.stored(BONUS3, store, E, missing="none")
    assert built is not None and read is not None
    assert np.array_equal(built.data, read.data) and np.array_equal(built.index, read.index)
    sheet = Sheet(5, SheetState(1, 5, 0))  # fives filled with one five
    by_pass = WinValues(BONUS3, store).final(sheet)  # (reads the stored table)
    path = store.find(BONUS3.name, BONUS3.digest(), TC.OBJECTIVE)
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    assert TC.stored(BONUS3, store, E, missing="none") is None
    forward = WinValues(BONUS3, store)
    assert np.abs(forward.final(sheet) - by_pass).max() < 1e-12 and forward.back is None
    assert np.abs(by_pass.sum() - 1) < 1e-12 and by_pass[:5].sum() == 0
    assert TC.stored(BONUS3, store, E, missing="none") is None
    assert TC.stored(BONUS3, store, E) is not None  # rebuilt over the damaged file
    assert TC.stored(BONUS3, store, E, missing="none") is not None


def test_backward_table_refuses_rules_too_large_in_one_line():
    """maxi-yatzy's 57 million states: refused before any memory is taken, as the forward
    pass refuses them (distribution.check_size)."""
    from dicesolver.errors import InputError
    from dicesolver.yahtzee.to_come_table import build
    from dicesolver.yahtzee.yahtzee_rules import load

    rules = load("maxi-yatzy")
    with pytest.raises(InputError, match="refused"):
        build(rules, np.zeros((1, 1, 1)))


def test_win_share_equals_enumeration():
    """Ties at the top split evenly among all tied: against every joint outcome."""
    rng = np.random.default_rng(3)
    dists = [rng.dirichlet(np.ones(n)) for n in (4, 3, 5, 4)]
    mine, others = dists[0], dists[1:]
    want = 0.0
    for m, *xs in itertools.product(*(range(len(d)) for d in dists)):
        q = mine[m] * np.prod([d[x] for d, x in zip(others, xs)])
        top = max(xs)
        want += q * (m > top) + q * (m == top) / (1 + xs.count(top))
    assert OP.win_share(mine, others) == pytest.approx(want, abs=1e-14)
    best = OP.best_of(others)
    joint = np.zeros(5)
    for xs in itertools.product(*(range(len(d)) for d in others)):
        joint[max(xs)] += np.prod([d[x] for d, x in zip(others, xs)])
    assert np.abs(best - joint).max() < 1e-14


@pytest.fixture(scope="module")
def bonus3(tmp_path_factory):
    d = tmp_path_factory.mktemp("vs")
    (d / "v-bonus3.toml").write_text(bonus3_toml("v-bonus3"))
    return str(d / "v-bonus3.toml"), str(d / "tables")


def _json(*args, code=0):
    return json.loads(run(*args, "--json", code=code).stdout)


def test_value_and_advise_against_sheets_equal_a_direct_sum(bonus3):
    """P(win) = sum over i of P(the opponents' best = i) x W(i - S), the opponents' finals
    enumerated from the brute force's distributions and W read from the beat table (the
    plain threshold solve); exact (and so labelled) against finished opponents only."""
    path, tables = bonus3
    E = solve(BONUS3)
    beat = TH.solve(BONUS3, "beat")
    choose = _choose(BONUS3, E, 0.0)
    R = yahtzee_bruteforce.remaining_distribution(BONUS3, choose)
    opp = {6 + x: q for x, q in R(frozenset({"sixes"}), 6, False).items()}  # "6 f=sixes u=6"
    finals = {x: q for x, q in R(frozenset(), 0, False).items()}  # "new"
    lv = beat[1]
    row = int(np.nonzero((lv.states == [1, 15, 0]).all(axis=1))[0][0])
    want = sum(
        qa * qb * lv.at(row, max(a, b, 40) - 15)
        for a, qa in opp.items()
        for b, qb in finals.items()
    )
    base = ["--rules", path, "--tables", tables, "--filled", "fives", "--upper", "15"]
    got = _json("value", *base, "--score", "15", "--opponents", "6 f=sixes u=6; new; 40")
    assert got["p_win"] == pytest.approx(want, abs=1e-12)
    assert got["exact"] is False and got["method"] == "pawlewicz-heuristic"
    fin = _json("value", *base, "--score", "15", "--opponents", "40")
    assert fin["exact"] is True and fin["p_win"] == pytest.approx(lv.at(row, 25), abs=1e-14)
    # advise: each keep's P(win), the best one the state's value in expectation over the roll
    adv = _json(
        "advise",
        *base,
        "--score",
        "15",
        "--dice",
        "5,5,6,6,1",
        "--rolls-left",
        "0",
        "--opponents",
        "40",
    )
    nxt = beat[2]
    boxes = {o["box"]: o["p_win"] for o in adv["options"]}
    for box, (mask, up) in {"sixes": (3, 20), "yahtzee": (5, 15)}.items():
        pts = 12 + 35 if box == "sixes" else 0
        r2 = int(np.nonzero((nxt.states == [mask, up, 0]).all(axis=1))[0][0])
        assert boxes[box] == pytest.approx(nxt.at(r2, 25 - pts), abs=1e-14)
    assert {"p_win", "exact", "method", "options"} <= adv.keys()


@pytest.mark.parametrize(
    "players, games",
    [pytest.param(2, 600, marks=pytest.mark.slow), pytest.param(3, 3000, marks=pytest.mark.slow)],
)
def test_versus_exact_against_simulated_games(players, games, tmp_path):
    """utility:0.05 against expected-score play: the exact share from the distributions
    within 4 standard errors of simulated games (versus_games' turns, ties split)."""
    from dicesolver.answers.yahtzee_versus import yahtzee_versus
    from dicesolver.yahtzee.versus_games import Table, play_turn, share

    rng = np.random.default_rng(7)
    theta = 0.05
    sides = [Table(BONUS3, utility_solve(BONUS3, theta), theta), Table(BONUS3, solve(BONUS3), 0.0)]
    wins = []
    for _ in range(games):
        finals = []
        for k in range(players):
            t, st, total = sides[min(k, 1)], (0, 0, 0), 0
            for _ in range(BONUS3.n_boxes):
                g, st = play_turn(BONUS3, st, rng, lambda rl, h, t=t, st=st: t.values(st, rl, h))
                total += g
            finals.append(total)
        wins.append(share(finals[0], finals[1:]))
    w = np.array(wins)
    se = w.std(ddof=1) / np.sqrt(len(w))
    exact = yahtzee_versus(BONUS3, "utility:0.05", "optimal", players, tables=str(tmp_path))
    assert abs(w.mean() - exact.p_win) < 4 * se, (w.mean(), exact.p_win, se)
    assert exact.exact and exact.method == "independent-final-scores"


def test_cli_versus_json(bonus3):
    path, tables = bonus3
    a = _json(
        "versus",
        "--rules",
        path,
        "--tables",
        tables,
        "--policy",
        "optimal",
        "--vs",
        "optimal",
        "--players",
        "3",
    )
    assert a["p_win"] == pytest.approx(1 / 3, abs=1e-12) and a["exact"] is True
    assert a["method"] == "independent-final-scores"


@pytest.mark.slow
def test_cli_versus_heuristic_simulated(bonus3):
    path, tables = bonus3
    a = _json("versus", "--rules", path, "--tables", tables, "--games", "200")
    assert a["exact"] is False and a["method"] == "paired-simulated-games" and a["stderr"] > 0
    assert 0 <= a["p_win"] <= 1


@pytest.mark.parametrize(
    "sheets, words",
    [
        ("5 f=sixes u=5", "cannot be made"),  # an upper total no filled boxes give
        ("3 f=sixes u=6", "--score 3"),  # a score below the boxes' minimum
        ("5 f=fives u=5 y", "Yahtzee box filled"),  # the Yahtzee flag without the box
        ("9999", "0 .. "),  # beyond the highest score
        ("40 bogus=1", "a sheet is"),
        ("", "at least one sheet"),
    ],
)
def test_cli_bad_sheets_exit_2_with_one_line(bonus3, sheets, words):
    path, tables = bonus3
    res = run("value", "--rules", path, "--tables", tables, "--opponents", sheets, code=2)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], res.stderr


@pytest.mark.parametrize(
    "args, words",
    [
        (["--policy", "utility:x"], "utility:THETA"),
        (["--policy", "bogus"], "a policy is"),
        (["--vs", "heuristic"], "the heuristic plays as"),
        (["--policy", "threshold:250"], "not available"),
    ],
)
def test_cli_versus_bad_policies(bonus3, args, words):
    path, tables = bonus3
    res = run("versus", "--rules", path, "--tables", tables, *args, code=2)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], res.stderr
