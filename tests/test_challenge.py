"""Challenge (RULES.md, the optional rules of `zilch`; issue 14): twice per game, once below
the threshold and once at or above it, a player may challenge before rolling: the turn's
total goes to him and comes off the opponent, a zilch costs him the challenge's price.  The
two-player game (challenges left and board flags in the state) equals a plain value
iteration over every state; the answers offer the choice and refuse what they cannot
honour in one line."""

import json
from dataclasses import replace

import numpy as np
import pytest

import dicesolver as ds
from dicesolver import rules
from dicesolver.errors import InputError
from dicesolver.objectives.challenge_game import (
    ABOVE,
    BELOW,
    BOTH,
    ChallengeFinals,
    _challenge_payoffs,
    _plain_banks,
    exact_lowest,
    lowest_sum,
    solve_challenge_game,
)
from dicesolver.objectives.game_run import GameRun
from dicesolver.objectives.last_turn import reach_bound, solve_last_turn
from dicesolver.objectives.plain_game import game_starts
from dicesolver.turn.starts import turn_cuts

from . import challenge_valueiteration as CVI
from .clirun import zilch
from .solvers import model, small_rules


def _small(set_aside="any", hot="optional", entry=0, target=500, thr=250, costs=(100, 200), **g):
    game = {"target": target, "challenge": True, "challenge_threshold": thr}
    game.update(challenge_costs=list(costs), **g)
    return small_rules(3, set_aside, hot, entry=entry, game=game)


@pytest.mark.parametrize(
    "rs",
    [
        _small(end="instant"),
        # (slow: the larger value iterations; the instant end keeps the quick tier's check)
        pytest.param(_small(), marks=pytest.mark.slow),
        pytest.param(
            _small(entry=150, target=400, thr=200, costs=(50, 100)), marks=pytest.mark.slow
        ),
        pytest.param(
            _small("forced", "mandatory", target=400, thr=200, costs=(50, 100)),
            marks=pytest.mark.slow,
        ),
    ],
    ids=["instant", "final-round", "entry-minimum", "forced-mandatory"],
)
def test_game_equals_plain_value_iteration(rs):
    """Issue 14's check: the class-by-class, sum-by-sum solve with Newton on the zilch pairs
    equals a value iteration over every state (scores, challenges left, board flags, dice,
    turn total, plain or challenging turn; tests/challenge_valueiteration.py) to 1e-9 —
    measured 2e-14..7e-14.  Instant end, a final round whose last turn may challenge too, an
    entry minimum (board flags with scores at or below zero) and forced mandatory hot dice."""
    m = model(rs)
    g = solve_challenge_game(GameRun(m, 0 if rs.end == "instant" else reach_bound(m), lowest=-300))
    V = CVI.challenge_game(rs, g.R, g.lo, 24)
    kept = np.isfinite(g.W)  # (an off-board player with a positive score: unreachable)
    assert kept.sum() > 0.8 * g.W.size * (0.5 if rs.entry_minimum else 1)
    assert np.abs(g.W[kept] - V[kept]).max() < 1e-9
    assert np.all((g.W[kept] >= 0) & (g.W[kept] <= 1))


def test_the_default_lowest_cuts_nothing():
    """From 0-0 the score sum falls only by challenges' zilches (at most two per player) and
    the other score stays below the target, so no score falls below exact_lowest: a much
    lower bound changes no chance of the states from there on (to rounding); a bound above
    it does change the challenge's value."""
    rs = _small(end="instant")
    m = model(rs)
    assert exact_lowest(rs) == -(10 - 1) - 2 * (2 + 4)
    g = solve_challenge_game(GameRun(m, 0))
    deep = solve_challenge_game(GameRun(m, 0, lowest=-3000))
    cut = solve_challenge_game(GameRun(m, 0, lowest=-100))
    for a, b in [(0, 0), (200, 350), (-400, 450)]:
        for left in range(4):
            assert g.p_win(a, b, left, BOTH) == pytest.approx(
                deep.p_win(a, b, left, BOTH), abs=1e-13
            )
    k = g.lo - deep.lo  # every state g keeps, the same in the deeper table
    same = deep.W[:, :, k:, k:]
    kept = np.isfinite(g.W)
    assert np.abs(g.W[kept] - same[kept]).max() < 1e-13
    assert abs(g.choices(0, 0)["challenge"] - cut.choices(0, 0)["challenge"]) > 1e-6


def _reached(R: int, lo: int, thr: int, costs: dict[int, int]) -> set:
    """Every (a, b, left_a, left_b) (units; the mover first) a game from 0-0 can reach
    before the target, by more moves than dice allow: a plain turn banks any t >= 1 or
    zilches; a challenge (the one for the mover's score, if left) banks t, which also comes
    off the opponent (down to lo), or zilches at its cost (down to lo); either way it is
    used up.  A superset of what games reach."""
    seen = {(0, 0, BOTH, BOTH)}
    todo = list(seen)
    while todo:
        a, b, fa, fb = todo.pop()
        nxt = [(b, a, fb, fa)] + [(b, a + t, fb, fa) for t in range(1, R - a)]
        bit = BELOW if a < thr else ABOVE
        if fa & bit:
            used = fa & ~bit
            nxt.append((b, max(a - costs[bit], lo), fb, used))
            nxt += [(max(b - t, lo), a + t, fb, used) for t in range(1, R - a)]
        for s in nxt:
            if s not in seen:
                seen.add(s)
                todo.append(s)
    return seen


def test_the_table_keeps_every_state_a_game_reaches():
    """The score sum falls only by challenges' zilches, so the default lowest keeps the
    sums down to minus the used challenges' costs (lowest_sum): every state a search of the
    moves from 0-0 reaches is kept and solved (its successors too: no unsolved value
    reaches it), and the bound leaves out most of the box of scores."""
    rs = _small(end="instant")
    g = solve_challenge_game(GameRun(model(rs), 0))
    thr = rs.units_up(rs.challenge_threshold)
    seen = _reached(g.R, g.lo, thr, {BELOW: 2, ABOVE: 4})
    a, b, fa, fb = np.array(sorted(seen)).T
    assert (a + b >= lowest_sum(rs, g.lo, fa, fb)).all()
    assert np.isfinite(g.W[fa, fb, a - g.lo, b - g.lo]).all()
    assert np.isfinite(g.W).sum() < 0.5 * g.W.size
    assert lowest_sum(rs, g.lo, BELOW, BOTH) == -4 and lowest_sum(rs, g.lo, 0, 0) == -12


def test_settled_cuts_change_no_start_value():
    """Past the target a row's turn banks in every free state once banking beats one roll
    and then banking (settle_table, shared by the rows of a chain table): a cut far below
    turn_cuts' bound, and the start values are those of the turn cut there alone."""
    game = {"target": 1000, "challenge": True, "challenge_threshold": 500}
    rs = small_rules(4, "forced", "mandatory", game=dict(game, challenge_costs=[100, 200]))
    m = model(rs)
    g = solve_challenge_game(GameRun(m, reach_bound(m)))
    fewer = 0
    for stride in (1, 2):
        codes = (g.st.code(1, True), g.st.code(3, True))
        rows = np.array([[a, b, s, s] for a in range(-2, g.R) for b in (0, 5, 12) for s in codes])
        a, b, sa, sb = rows.T
        rows = rows[np.isfinite(g.W[sa, sb, a - g.lo, b - g.lo])]  # (the states kept)
        if stride == 1:
            U, mins = _plain_banks(m, g.W, g.finals, g.R, g.lo, rows)
            z = 1.0 - g.W[rows[:, 3], rows[:, 2], rows[:, 1] - g.lo, rows[:, 0] - g.lo]
            chains = g.finals.chains(m, rows, g.R)
        else:
            rows = rows[g.st.usable(rows[:, 0], rows[:, 2]) > 0]
            U, z, mins = _challenge_payoffs(m, g.W, g.finals, g.R, g.lo, rows)
            chains = g.finals.challenge_chains(m, rows, g.R)
        assert chains is not None and chains.settle is not None
        plain = replace(chains, settle=None, level=None)
        v, p = game_starts(m, U, z, mins, chains)
        v0, p0 = game_starts(m, U, z, mins, plain)
        assert np.isfinite(v).all() and np.abs(v - v0).max() < 1e-14
        assert np.abs(p - p0).max() < 1e-14
        cut, cut0 = chains.cuts(z), turn_cuts(m, U, z, mins)
        fewer += int(np.sum(np.maximum(cut, mins) < cut0))
    assert fewer > 20


def test_more_challenges_left_never_hurt():
    """A challenge is an option: the mover's chance never falls with more challenges left,
    and never rises with more left to the opponent."""
    rs = _small()
    m = model(rs)
    W = solve_challenge_game(GameRun(m, reach_bound(m), lowest=-300)).W
    for fewer, more in [(0, 1), (0, 2), (1, 3), (2, 3)]:
        assert np.all(W[more] >= W[fewer] - 1e-12)
        assert np.all(W[:, more] <= W[:, fewer] + 1e-12)
    assert np.max(W[BOTH] - W[0]) > 0.05  # (and they are worth something)


def test_a_challenging_last_turn_needs_half_the_deficit():
    """In the final round a challenge's bank x also comes off the leader: it wins where
    2x > d, so it is the plain last turn at d/2 (even d, a tie there is a tie) or, for odd
    d, at (d + 1) / 2 with the tie worth a win."""
    rs = _small()
    m = model(rs)
    f = ChallengeFinals.solve(m, 10, -30, reach_bound(m))
    for d in (2, 6, 12, 20):
        half = solve_last_turn(m, [d // 2 * rs.unit])[0].roll[0, 0, 0]
        assert f.challenge[True][d] == pytest.approx(half, abs=1e-14)
    for d in (3, 7, 13):
        # 2x > d is x >= (d + 1) / 2: the last turn at (d + 1) / 2 whose tie wins whole
        # (tied=0: the win shared with nobody)
        whole = solve_last_turn(m, [(d + 1) // 2 * rs.unit], True, tied=0)[0].roll[0, 0, 0]
        assert f.challenge[True][d] == pytest.approx(whole, abs=1e-14)
        plain = solve_last_turn(m, [(d + 1) // 2 * rs.unit])[0].roll[0, 0, 0]
        assert f.challenge[True][d] > plain


# --- the rule keys ---------------------------------------------------------------------
def test_rule_keys_and_the_preset():
    rs = rules.load("zilch-challenge")
    assert rs.challenge and rs.challenge_threshold == 5000 and rs.challenge_costs == (600, 2000)
    plain = rules.load("zilch")
    # without the option every stored table keeps its key
    assert "challenge" not in plain.canonical() and "challenge_costs" not in plain.canonical()
    src = rules.canonical_source("zilch-challenge")
    src["game"].pop("challenge")
    assert rules.from_dict(src, "z.toml").digest() == plain.digest()


@pytest.mark.parametrize(
    "game, message",
    [
        ({"challenge": "yes"}, "game.challenge"),
        ({"challenge": True, "challenge_costs": [600]}, "challenge_costs"),
        ({"challenge": True, "challenge_costs": [600, -1]}, "challenge_costs[1]"),
        ({"challenge": True, "challenge_costs": [620, 2000]}, "multiples of 50"),
        ({"challenge": True, "challenge_threshold": "5000"}, "challenge_threshold"),
        ({"challenge": True, "overtaking": True}, "challenge with overtaking"),
        ({"challenge": True, "three_zilch_penalty": 500}, "challenge with three_zilch_penalty"),
    ],
)
def test_bad_rule_keys_are_refused(game, message):
    src = rules.canonical_source("zilch")
    src["game"].update(game)
    with pytest.raises(InputError, match=message.replace("[", r"\[")):
        rules.from_dict(src, "z.toml")


# --- the answers -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_file(tmp_path_factory):
    d = tmp_path_factory.mktemp("challenge")
    path = d / "small-ch.toml"
    path.write_text(
        "dice = 3\nset_aside = 'any'\nhot_dice = 'optional'\nentry_minimum = 150\n"
        "[faces]\n1 = [100, 0, 1000]\n2 = [0, 0, 200]\n3 = [0, 0, 300]\n"
        "4 = [0, 0, 400]\n5 = [50, 0, 500]\n6 = [0, 0, 600]\n"
        "[game]\ntarget = 400\nchallenge = true\nchallenge_threshold = 200\n"
        "challenge_costs = [50, 100]\n"
    )
    tables = str(d / "tables")
    zilch("game", "--rules", str(path), "--tables", tables, "--json")
    return str(path), tables


def test_game_answers_whether_to_challenge(small_file):
    path, tables = small_file
    rs = rules.load(path)
    g = solve_challenge_game(GameRun(model(rs), reach_bound(model(rs))))
    a = ds.game(
        path, scores="300,-100", challenges="above,below", on_board="yes,yes", tables=tables
    )
    want = g.choices(300, -100, 2, 1, True, True)
    assert a.p_win_no_challenge == pytest.approx(want["plain"], abs=1e-15)
    assert a.p_win_challenge == pytest.approx(want["challenge"], abs=1e-15)
    assert a.p_win == pytest.approx(max(want.values()), abs=1e-15)
    assert a.challenge == (want["challenge"] > want["plain"])
    none = ds.game(
        path, scores="300,-100", challenges="below,below", on_board="yes,yes", tables=tables
    )
    assert none.p_win_challenge is None and none.challenge is None
    out = zilch("game", "--rules", path, "--tables", tables, "--scores", "0,0")
    assert "challenges left: yours both, the opponent's both" in out.output


def test_advise_offers_the_challenge_and_plays_it(small_file):
    """At the start of a turn advice says whether to challenge (P(win) of each); with
    --challenging the values are those of the challenge turn; they equal the game's."""
    path, tables = small_file
    a = ds.advise(path, score=250, opponents="100", challenges="above,both", tables=tables)
    g = ds.game(path, scores="250,100", challenges="above,both", tables=tables)
    assert a.situation == "game"
    assert a.p_win_challenge == pytest.approx(g.p_win_challenge, abs=1e-15)
    assert a.p_win_no_challenge == pytest.approx(g.p_win_no_challenge, abs=1e-15)
    assert a.p_win.roll == pytest.approx(g.p_win_no_challenge, abs=1e-15)
    on = ds.advise(
        path, score=250, opponents="100", challenges="above,both", challenging=True, tables=tables
    )
    assert on.p_win.roll == pytest.approx(g.p_win_challenge, abs=1e-15)
    later = ds.advise(
        path,
        score=250,
        opponents="100",
        challenges="above,both",
        challenging=True,
        dice=1,
        turn=300,
        tables=tables,
    )
    assert later.p_win.bank is not None and later.challenge is None


def test_a_last_turn_with_a_challenge_left(small_file):
    """Behind a leader who reached the target, a challenge left doubles what a bank gains
    on him: advice compares the two last turns."""
    path, tables = small_file
    a = ds.advise(path, score=100, opponents="450", tables=tables)
    assert a.situation == "last turn" and a.challenge is True
    assert a.p_win_challenge > a.p_win_no_challenge
    plain = ds.advise(path, score=100, opponents="450", challenges="none,none", tables=tables)
    assert plain.p_win.roll == pytest.approx(a.p_win_no_challenge, abs=1e-15)
    assert plain.challenge is None


@pytest.mark.parametrize(
    "args, message",
    [
        (["game", "--rules", "zilch", "--challenges", "both,both"], "no challenge rule"),
        (["game", "--challenges", "all,none"], "is not one of both"),
        (["game", "--challenges", "both"], "expects MINE,OPP"),
        (["game", "--on-board", "no,yes", "--scores", "300,0"], "positive score"),
        (["game", "--on-board", "maybe,yes"], "yes or no"),
        (["game", "--lowest", "-25"], "multiple of 50"),
        (["game", "--lowest", "100"], "at or below 0"),
        (["game", "--scores", "400,0"], "to below"),
        (["game", "--scores", "-3000,0", "--lowest", "-1000"], "from -1000"),
        (["game", "--scores", "-650,0", "--challenges", "below,both"], "0-0 gets there"),
        (["game", "--fairness", "--challenges", "none,none"], "--fairness"),
        (
            [
                "advise",
                "--challenging",
                "--score",
                "300",
                "--opponents",
                "0",
                "--challenges",
                "below,both",
            ],
            "no challenge left to use at 300",
        ),
        (["advise", "--challenging"], "give --score"),
        (["advise", "--score", "300", "--opponents", "450,100"], "more than two players"),
        (
            ["advise", "--rules", "zilch", "--challenging", "--score", "0", "--opponents", "0"],
            "no challenge rule",
        ),
    ],
)
def test_hostile_inputs_get_one_line(small_file, args, message):
    path, tables = small_file
    if "--rules" not in args:
        args = [args[0], "--rules", path, *args[1:]]
    out = zilch(*args, "--tables", tables, code=2)
    assert message in out.output and len(out.output.strip().splitlines()) == 1


def test_advice_never_solves(tmp_path):
    """Advice with scores before the final round needs the stored table; without it: one
    line saying how to build it (never an answer without the challenge)."""
    out = zilch(
        "advise",
        "--rules",
        "zilch-challenge",
        "--score",
        "0",
        "--opponents",
        "0",
        "--tables",
        str(tmp_path),
        code=3,  # (a table to build: its own exit code)
    )
    assert "zilch game --rules zilch-challenge" in out.output


def test_game_json(small_file):
    path, tables = small_file
    out = zilch(
        "game",
        "--rules",
        path,
        "--tables",
        tables,
        "--scores",
        "-50,200",
        "--on-board",
        "yes,yes",
        "--json",
    )
    d = json.loads(out.output)
    assert d["challenges"] == ["both", "both"] and d["on_board"] == [True, True]
    assert d["p_win"] == max(d["p_win_no_challenge"], d["p_win_challenge"])


def test_simulated_games_reproduce_the_first_players_chance():
    """20 000 games with physical dice, optimal against optimal (tests/game_sim.py: each
    turn played by its own solution, the challenge taken where its turn is worth more, the
    last turn by its own solver, a challenged bank taken off the opponent): the first
    player's share of wins within 4 standard errors of the table's chance from 0-0."""
    from .game_sim import play_challenge_games

    rs = _small(entry=150, target=400, thr=200, costs=(50, 100))
    m = model(rs)
    g = solve_challenge_game(GameRun(m, reach_bound(m)))
    res = play_challenge_games(g, 20_000, np.random.default_rng(14))
    se = res.std() / np.sqrt(len(res))
    assert abs(res.mean() - g.p_win(0, 0)) < 4 * se


def test_an_interrupted_solve_resumes_to_the_same_table(tmp_path):
    """As the plain game: a solve stopped part way (Ctrl-C, here after 100 of its class and
    sum steps) resumes from its checkpoint at the next step and ends with the same table;
    the checkpoint is removed."""
    from dicesolver.store import Checkpoint

    from .solvers import interrupted_at

    rs = _small(entry=150, target=400, thr=200, costs=(50, 100))
    m = model(rs)
    D = reach_bound(m)
    full = solve_challenge_game(GameRun(m, D, lowest=-300)).W
    ck = Checkpoint(tmp_path / "game.partial")
    seen: list[int] = []
    with pytest.raises(KeyboardInterrupt):
        solve_challenge_game(GameRun(m, D, None, -300, interrupted_at(100, seen), ck, 0))
    assert ck.path.exists()
    resumed: list[int] = []
    W = solve_challenge_game(GameRun(m, D, None, -300, resumed.append, ck, 0)).W
    assert resumed[0] == seen[-1] - 1 and not ck.path.exists()
    assert np.array_equal(W, full, equal_nan=True)
