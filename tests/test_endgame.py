"""End-game: last turn and final round, by the probability of winning."""

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import dicesolver as ds
from dicesolver import rules
from dicesolver.play.policies import OptimalPolicy
from dicesolver.play.simulate import play_turns

from .clirun import zilch as run
from .solvers import last_turn_table, model, solve_final_round, solve_last_turn, tables, values


def test_deficit_50_one_die_zero_turn_total_by_hand():
    """Farkle, 50 behind, one die, nothing yet: a 1 (100) wins at once (hot dice, bank);
    a 5 ties at 50, then rolling six dice wins unless they zilch (5/216), better than the
    tie's half: 1/6 + 1/6 * 211/216 = 427/1296."""
    roll, bank = values(last_turn_table(rules.load("farkle")), 50, 1, 0)
    assert roll == pytest.approx(float(Fraction(427, 1296)), abs=1e-15)
    assert bank == 0.0


def test_deficit_that_permanent_points_alone_cover_is_won():
    """zilch-online: with a permanent straight (1500) banked in the turn, 1000 behind is won
    whatever happens next, even a zilch."""
    tab = last_turn_table(rules.load("zilch-online"))
    for dice in (6, 3, 1):
        roll, bank = values(tab, 1000, dice, 1500 + 100 * (6 - dice), permanent=1500)
        assert roll == pytest.approx(1.0, abs=1e-12) and bank == 1.0
    # and without it, rolling is a real risk
    assert values(tab, 1000, 3, 300)[0] < 0.9


def test_not_on_board_needs_the_entry_minimum():
    """zilch: a player not on the board needs a first bank of 500, so every deficit below
    450 is as hard as 450, and harder than for a player on the board."""
    tab = last_turn_table(rules.load("zilch"))
    off = [values(tab, d, 6, 0, on_board=False)[0] for d in (50, 100, 300, 450)]
    assert off == pytest.approx([off[-1]] * 4, abs=1e-15)
    assert values(tab, 100, 6, 0, on_board=True)[0] > off[1] + 0.05
    # (at deficit 0 a zilch ties, which is worth something: a different problem)
    assert values(tab, 100, 3, 450, on_board=False)[1] is None  # cannot bank 450


@pytest.fixture(scope="module")
def seed_001(tmp_path_factory):
    """Seed 001: #4 triggered with 5000; #1 2500, #2 4900, #3 4950 play in turn.  (Solved
    into the session's table folder, named here: a module's fixture is set up before
    conftest's _private_tables sets it for each test, so $DICESOLVER_TABLES is not it yet.)"""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DICESOLVER_TABLES", str(tmp_path_factory.getbasetemp() / "tables"))
        return solve_final_round(rules.load("zilch-online"), 5000, 1, [2500, 4900, 4950])


def test_seed_001_final_round_sums_to_one(seed_001):
    fr = seed_001
    assert fr.total == pytest.approx(1.0, abs=1e-12)
    assert fr.p_players[2] > fr.p_players[1] > fr.p_leaders > fr.p_players[0] > 0


def test_seed_001_player_1_rolls_on_below_5000(seed_001):
    """#1 (2500) must roll on below 5000: banking there is worth nothing, rolling something;
    and at exactly 5000 rolling on beats sharing a tie."""
    rs = rules.load("zilch-online")
    sol = seed_001.players[0].levels(0)[0]
    reach = tables(rs).reachable(sol.roll.shape[2])
    checked = 0
    for s in range(1, rs.dice + 1):
        for r in np.nonzero(reach[s])[0]:
            if 2500 + r * 50 < 5000:
                assert sol.bank[0, s, r] == 0 and sol.roll[0, s, r] > 0
                checked += 1
            elif 2500 + r * 50 == 5000:  # a tie with #4 is worth less than rolling on
                assert 0 < sol.bank[0, s, r] < sol.roll[0, s, r]
    assert checked > 100


def test_seed_001_player_2_after_rolling_250_should_roll_the_two_dice():
    """#2 rolled 250 (5150 if kept) while #1 leads with 5100 and #3 (4950) is still to play.
    Keeping wins only if #3 fails to beat 5150; rolling the two dice wins more often: the
    seed's #2 was right to roll (and zilched)."""
    d = ds.advise(
        "zilch-online", dice=2, turn=250, score=4900, opponents=[4950, 5000, 5100]
    ).to_dict()
    assert d["situation"] == "final round" and d["leader"] == 5100
    assert d["action"] == "roll"
    assert d["p_win"]["roll"] == pytest.approx(0.186803, abs=1e-6)
    assert d["p_win"]["bank"] == pytest.approx(0.139077, abs=1e-6)


def test_last_player_is_the_last_turn_table():
    """The last player of a final round faces exactly the last-turn problem."""
    rs = rules.load("farkle")
    fr = solve_final_round(rs, 10000, 1, [9000])
    assert fr.p_players[0] == pytest.approx(values(last_turn_table(rs), 1000, 6, 0)[0], abs=1e-13)


@pytest.mark.parametrize(
    "name, deficit",
    [
        ("zilch", 1000),
        ("zilch-online", 2000),
        ("farkle", 500),
        ("zonk-detroit", 3000),
        ("zilch-pyramiding", 1000),
    ],
)
def test_simulated_last_turn_wins_within_4_standard_errors(name, deficit):
    rs = rules.load(name)
    levels = solve_last_turn(rs, [deficit])
    exact = levels[0].roll[0, 0, 0]
    strategy = OptimalPolicy(levels.values, 0, cap=max(lv.cap for lv in levels), levels=len(levels))
    res = play_turns(model(rs), strategy, 200_000, np.random.default_rng(11)).points * rs.unit
    win = (res > deficit) + rs.tie * (res == deficit)
    se = win.std(ddof=1) / np.sqrt(len(win))
    assert abs(win.mean() - exact) < 4 * se


def test_cli_endgame_and_advise_json():
    d = json.loads(run("endgame", "--rules", "zilch", "--deficit", "1000", "--json").stdout)
    assert 0 < d["p_win"] < 1
    d = json.loads(
        run(
            "advise",
            "--rules",
            "zilch-online",
            "--dice",
            "2",
            "--turn",
            "250",
            "--score",
            "4900",
            "--opponents",
            "4950,5000,5100",
            "--json",
        ).stdout
    )
    assert d["action"] == "roll" and set(d["p_win"]) == {"roll", "bank"}
    d = json.loads(
        run(
            "advise",
            "--rules",
            "farkle",
            "--dice",
            "3",
            "--turn",
            "600",
            "--score",
            "9000",
            "--opponents",
            "10200",
            "--json",
        ).stdout
    )
    assert d["situation"] == "last turn" and d["p_win"]["bank"] == 0.0
    d = json.loads(
        run(
            "endgame",
            "--rules",
            "zilch-online",
            "--final-round",
            "--scores",
            "5000,2500,4900,4950",
            "--json",
        ).stdout
    )
    assert abs(sum(p["p_win"] for p in d["players"]) - 1) < 1e-12


def test_a_query_whose_game_table_is_missing_exits_3_with_a_command_that_works_pasted(
    tmp_path,
):
    """Issue 25: a turn that may trigger the final round is valued by the game's table; where
    nobody solved it the query exits with its own code (3: not 0, not bad input's 2), one
    line, and under --json "solve_with": a command that, pasted, builds the very table
    (a rule file's path quoted, the target given); --solve builds it first and answers."""
    import shlex

    f = tmp_path / "my farkle.toml"  # (a space in the path: the command must quote it)
    f.write_text(
        (Path(ds.__file__).parent / "rulesets" / "farkle.toml")
        .read_text()
        .replace("target = 10000", "target = 500")
    )
    args = ["advise", "--rules", str(f), "--dice", "3", "--turn", "250", "--score", "300",
            "--opponents", "200", "--tables", str(tmp_path / "t")]  # fmt: skip
    res = run(*args, code=3)
    assert res.stdout == "" and len(res.stderr.strip().splitlines()) == 1
    assert "is not solved yet" in res.stderr
    err = json.loads(run(*args, "--json", code=3).stderr)
    assert err["exit_code"] == 3 and err["error"]
    cmd = shlex.split(err["solve_with"])
    assert cmd[:2] == ["zilch", "game"] and str(f) in cmd and "--target" in cmd
    run(*cmd[1:], "--tables", str(tmp_path / "t"))  # pasted: it builds the table
    solved = json.loads(run(*args, "--json").stdout)
    assert solved["situation"] == "game" and solved["action"] in ("roll", "bank")
    # --solve in a fresh folder: the same answer, the table built on the way
    args[-1] = str(tmp_path / "t2")
    assert json.loads(run(*args, "--solve", "--json").stdout) == solved


def test_cli_zonk_reach_the_target_this_turn():
    d = json.loads(
        run(
            "advise",
            "--rules",
            "zonk-chicago",
            "--dice",
            "5",
            "--score",
            "9000",
            "--opponents",
            "9500",
            "--json",
        ).stdout
    )
    assert d["situation"] == "reach target" and 0 < d["p_win"]["roll"] < 1


@pytest.mark.parametrize(
    "args",
    [
        ["advise", "--rules", "farkle", "--score", "9000"],  # no opponents
        ["advise", "--rules", "farkle", "--score", "10500", "--opponents", "9000"],
        ["advise", "--rules", "farkle", "--score", "9030", "--opponents", "10000"],
        ["advise", "--rules", "farkle", "--score", "9000", "--opponents", "x"],
        ["endgame", "--rules", "farkle", "--deficit", "75"],
        ["endgame", "--rules", "farkle", "--deficit", "-100"],
        ["endgame", "--rules", "farkle", "--final-round", "--scores", "9000,8000"],
    ],
)
def test_cli_endgame_bad_input(args):
    err = run(*args, code=2).stderr.strip()
    assert "error" in err and "\n" not in err


def test_cli_last_turn_table_and_plot(tmp_path):
    out = tmp_path / "t.csv"
    run("endgame", "--rules", "zonk-chicago", "--table", "--out", str(out))
    head = out.read_text().splitlines()[0].split(",")
    assert head[:3] == ["deficit", "dice", "turn_total"]
    png = tmp_path / "e.png"
    pytest.importorskip("matplotlib")
    run("plot", "endgame", "--rules", "zilch", "--out", str(png))
    assert png.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("name", ["zilch-online", "farkle", "zilch", "zilch-pyramiding"])
def test_need_space_last_player_equals_the_plain_last_turn(name):
    """The last player solved once in "points still needed" gives every deficit's chance
    exactly as the plain last-turn solver (zilch-online: the all-permanent chain, where a
    zilch at need 0 keeps the tie, included; zilch: the totals below its 350 to bank solved
    per deficit)."""
    from dicesolver.objectives.final_round import last_player_need_space

    rs = rules.load(name)
    X = 200
    d = np.arange(1, X)
    m = rs.min_bank_units(True)
    value, _ = last_player_need_space(model(rs), X, [rs.tie], [1.0], d, np.zeros_like(d), m)
    plain = solve_last_turn(rs, d * rs.unit, True)[0].roll[:, 0, 0]
    assert np.abs(plain - value).max() < 1e-13


def test_final_round_need_space_equals_rows(monkeypatch):
    import dicesolver.objectives.final_round as E

    rs = rules.load("zilch-online")
    fast = solve_final_round(rs, 5000, 1, [2500, 4950])
    monkeypatch.setattr(E, "need_space_ok", lambda r, s: False)
    rows = solve_final_round(rs, 5000, 1, [2500, 4950])
    assert fast.p_leaders == pytest.approx(rows.p_leaders, abs=1e-13)
    assert np.allclose(fast.p_players, rows.p_players, atol=1e-13, rtol=0)


@pytest.mark.parametrize(
    "name, S, on_board",
    [
        ("zilch-online", 90, True),
        ("farkle", 180, True),
        ("zilch", 280, True),
        ("zilch", 0, False),
        ("zilch-pyramiding", 280, True),
    ],
)
def test_leader_rows_equal_one_plain_solve_per_row(name, S, on_board):
    """solve_leader_rows (a few class problems above the leaders, each row solved only up
    to its leader) gives every row exactly what the plain solver gives that row's payoff:
    G above the leader, T at it, 0 (extras C) below; random payoffs, increasing in G."""
    from dicesolver.objectives.final_round import solve_leader_rows
    from dicesolver.turn import solve_levels

    rs = rules.load(name)
    rng = np.random.default_rng(3)
    H, E = 160, 2
    G = np.sort(rng.uniform(0.2, 1.0, H))
    EG = rng.uniform(0, 1, (E, H))
    F = np.sort(rng.choice(np.arange(S + 1, S + H - 20), 40, replace=False))
    F[1] = F[0]  # a leader tied with another row
    T, ET, C = rng.uniform(0, 0.5, 40), rng.uniform(0, 1, (E, 40)), rng.uniform(0, 1, (E, 40))
    x = S + np.arange(H)[None, :]
    Fi = F[:, None]
    U = np.where(x > Fi, G[None, :], np.where(x == Fi, T[:, None], 0.0))
    EU = np.where(x > Fi, EG[:, None, :], np.where(x == Fi, ET[:, :, None], C[:, :, None]))
    plain = solve_levels(model(rs), U, np.ones(40), on_board, EU, np.zeros((E, 40)), chunks=1)
    rows = solve_leader_rows(model(rs), S, G, EG, F, T, ET, C, on_board)
    value, ex = rows.start()
    assert np.abs(value - plain[0].roll[:, 0, 0]).max() < 1e-13
    assert np.abs(ex - plain[0].extras[:, :, 0, 0]).max() < 1e-13
    for i in (0, 17, 39):  # every state of every level
        for k, (mine, ref) in enumerate(zip(rows.levels(i), plain)):
            n = min(mine.roll.shape[2], ref.roll.shape[2])
            assert np.abs(mine.roll[0, :, :n] - ref.roll[i, :, :n]).max() < 1e-12, k
            assert np.abs(mine.extras[:, 0, :, :n] - ref.extras[:, i, :, :n]).max() < 1e-12


def test_compiled_backward_pass_equals_the_numpy_loop(monkeypatch):
    """The C kernel (built by pip install) and the numpy loop give the same final round."""
    import dicesolver.turn.kernel as T

    assert T.compiled() is not None, (
        "solver/turn/_kernel.c is not built next to these sources: pip install -e '.[test]'"
    )
    rs = rules.load("zilch-online")
    fast = solve_final_round(rs, 5000, 1, [2500, 4900, 4950])
    fast_levels = fast.players[1].levels(5)  # solved again on demand: before the patch
    monkeypatch.setattr(T, "compiled", lambda name="backward": None)  # numpy does all
    slow = solve_final_round(rs, 5000, 1, [2500, 4900, 4950])
    assert abs(fast.p_leaders - slow.p_leaders) < 1e-14
    assert np.abs(np.array(fast.p_players) - slow.p_players).max() < 1e-14
    for a, b in zip(fast_levels, slow.players[1].levels(5)):
        assert np.abs(a.roll - b.roll).max() < 1e-13
        assert np.abs(a.extras - b.extras).max() < 1e-13


def test_kernel_threads_share_rows_without_changing_a_bit(monkeypatch):
    """The C backward pass splits its rows between threads; each row is computed alone, so
    one thread and three give identical final rounds."""
    import dicesolver.turn.kernel as T

    rs = rules.load("zilch-online")
    monkeypatch.setattr(T, "threads", lambda work: 1)
    one = solve_final_round(rs, 5000, 1, [2500, 4900, 4950])
    monkeypatch.setattr(T, "threads", lambda work: 3)
    three = solve_final_round(rs, 5000, 1, [2500, 4900, 4950])
    assert one.p_players == three.p_players and one.p_leaders == three.p_leaders


def test_copy_runs_compiled_and_numpy_agree_and_refuse_runs_outside(monkeypatch):
    """turn.copy_runs (rows of different lengths moved as runs): C and numpy give the same
    array, with and without the scaled second source; a run past the end is refused."""
    import dicesolver.turn.kernel as T

    rng = np.random.default_rng(3)
    src, z = rng.uniform(size=100), rng.uniform(size=100)
    n = np.array([5, 0, 17, 3])
    spos, dpos = np.array([0, 7, 40, 97]), np.array([10, 0, 30, 60])
    coef = rng.uniform(size=4)
    out = []
    for fn in (T.compiled, lambda name="backward": None):
        monkeypatch.setattr(T, "compiled", fn)
        a, b = np.zeros(80), np.zeros(80)
        T.copy_runs(a, dpos, src, spos, n)
        T.copy_runs(b, dpos, src, spos, n, z, coef)
        out.append((a, b))
    assert np.array_equal(out[0][0], out[1][0]) and np.array_equal(out[0][1], out[1][1])
    assert np.array_equal(out[0][0][30:47], src[40:57])
    assert np.allclose(out[0][1][60:63], src[97:100] + coef[3] * z[97:100])
    monkeypatch.undo()
    if T.compiled("copy_runs") is not None:
        with pytest.raises(ValueError):
            T.copy_runs(np.zeros(10), [8], src, [0], [5])
