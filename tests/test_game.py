"""The two-player game: the fast solver against a plain value iteration, invariants, and
simulated games."""

import json

import numpy as np
import pytest

from dicesolver import rules

from . import game_valueiteration as VI
from .clirun import zilch as run
from .solvers import interrupted_at, model, solve_game


@pytest.mark.slow  # the value iteration (the quick run checks the game by the next tests)
@pytest.mark.parametrize("name, target, Tm", [("zonk-chicago", 1000, 60), ("farkle", 500, 90)])
def test_fast_solver_equals_plain_value_iteration(name, target, Tm):
    """Issue 6: at a small target the score-sum solver agrees to 1e-9 with a plain value
    iteration over the whole state space (farkle: its final round included; zonk-chicago
    here without its piggyback, which has a test of its own)."""
    import dataclasses

    rs = dataclasses.replace(rules.load(name), piggyback=False)
    R = rs.reach_units(target)
    finals = VI.last_turn(rs, R + Tm + 130) if rs.end != "instant" else None
    W_vi = VI.game(rs, R, Tm, finals)
    W = solve_game(rs, target).W
    assert np.abs(W - W_vi).max() < 1e-9


@pytest.mark.slow  # the value iteration
def test_piggyback_equals_plain_value_iteration():
    """Issue 6, Zonk's piggyback: with offers (take over the dice left and the total, or
    start fresh) the fast solver agrees to 1e-9 with the plain value iteration, both the
    start-of-turn chances W and every take-over value O[a, b, n, t] (t <= b)."""
    rs = rules.load("zonk-chicago")
    assert rs.piggyback
    R = rs.reach_units(1000)
    W_vi, ROLL = VI.game(rs, R, 60, None, offers=True)
    g = solve_game(rs, 1000)
    assert np.abs(g.W - W_vi).max() < 1e-9
    # the offers kept are exactly those worth more than a fresh start, with their values
    a, b, n, t = np.unravel_index(g.O.idx, g.O.shape)
    assert len(a) > 1000 and np.all(t <= b) and np.all((n >= 1) & (n < rs.dice))
    assert np.abs(g.O.val - ROLL[a, b, n, t]).max() < 1e-9
    # every offer that can be made: 1 to N - 1 dice (hot dice are mandatory), t <= b
    a, b, n, t = np.meshgrid(
        np.arange(R), np.arange(R), np.arange(1, rs.dice), np.arange(1, R), indexing="ij"
    )
    ok = t <= b
    a, b, n, t = a[ok], b[ok], n[ok], t[ok]
    kept = np.isfinite(g.O.lookup(a, b, n, t))
    assert np.all(ROLL[a, b, n, t][~kept] <= W_vi[a, b][~kept] + 1e-9)
    # and a take-over value not kept is its turn's, solved on demand
    i = np.nonzero(~kept)[0][123]
    assert g.take_over(a[i] * 50, b[i] * 50, n[i], t[i] * 50) == pytest.approx(
        ROLL[a[i], b[i], n[i], t[i]], abs=1e-9
    )


@pytest.mark.parametrize("name", ["farkle", "zilch-5000", "zonk-chicago"])
def test_game_invariants(name):
    rs = rules.load(name)
    W = solve_game(rs, 1000).W
    assert np.all((W >= 0) & (W <= 1))
    # more points of one's own never hurt, more for the opponent never help (on the board)
    assert np.all(np.diff(W[1:, :], axis=0) >= -1e-9)
    assert np.all(np.diff(W[:, 1:], axis=1) <= 1e-9)
    assert 0.5 < W[0, 0] < 0.65  # moving first is an advantage


@pytest.mark.parametrize(
    "name, target",
    [("zonk-chicago", 1000), ("farkle", 1000), ("zilch", 1500), ("zonk-detroit", 1000)],
)
def test_simulated_games_reproduce_the_first_players_chance(name, target):
    """Optimal against optimal, played with physical dice, to a small target; with a final
    round (farkle, zilch) the other player then plays his optimal last turn.  Every turn is
    the package's one simulator (zonk-detroit: colour pairs rolled too, offers taken)."""
    from .game_sim import play_games

    rs = rules.load(name)
    g = solve_game(rs, target)
    res = play_games(g, 20_000, np.random.default_rng(3))
    se = res.std(ddof=1) / np.sqrt(len(res))
    assert abs(res.mean() - g.W[0, 0]) < 4 * se


def test_cli_game_json_and_fairness():
    d = json.loads(
        run(
            "game", "--rules", "zonk-chicago", "--target", "1000", "--scores", "0,0", "--json"
        ).stdout
    )
    assert 0.5 < d["p_win"] < 0.65
    d = json.loads(
        run("game", "--rules", "zonk-chicago", "--target", "1000", "--fairness", "--json").stdout
    )
    assert d["head_start"] >= 0 and abs(d["p_win_first"] - 0.5) < 0.1


@pytest.mark.slow
def test_neller_busche_fairest_head_start_is_about_200():
    """T. Neller & M. Busche, "Optimal Play of the Farkle Dice Game" (2017): with singles
    and three of a kind only, hot dice, first to 10000, the fairest head start for the second
    player is about 200 points.  (The full 10000-point game, solved here.)"""
    from pathlib import Path

    from dicesolver.objectives.plain_game import fairest_head_start

    rs = rules.load(str(Path(__file__).parent / "data" / "farkle-neller-busche.toml"))
    h, p = fairest_head_start(solve_game(rs))
    assert h == 200 and abs(p - 0.5) < 0.01


def test_cli_export_and_plot_game(tmp_path):
    run("game", "--rules", "zonk-chicago", "--target", "1000")
    # export and plot use the stored table of the rules' own target: none yet (exit 3)
    err = run("export", "--rules", "zonk-chicago", "--objective", "game", code=3).stderr
    assert "zilch game" in err
    # with --target: the very table zilch game --target built (issue 25)
    got = run("export", "--rules", "zonk-chicago", "--objective", "game", "--target", "1000")
    assert got.stdout.startswith("score,opponent,p_win") and got.stdout.count("\n") == 20 * 20 + 1
    out = tmp_path / "g.png"
    pytest.importorskip("matplotlib")
    run("plot", "game", "--rules", "zonk-chicago", "--target", "1000", "--out", str(out))
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_interrupted_solve_resumes_from_its_checkpoint(tmp_path):
    """A long solve saves the sums done; interrupted, it resumes there and ends identical."""
    rs = rules.load("zilch-5000")
    full = solve_game(rs, 1000).W
    from dicesolver.store import Checkpoint

    ck = Checkpoint(tmp_path / "game.partial")
    seen: list[int] = []
    with pytest.raises(KeyboardInterrupt):
        solve_game(rs, 1000, progress=interrupted_at(15, seen), checkpoint=ck, checkpoint_every=0)
    assert ck.path.exists()
    resumed = []
    W = solve_game(rs, 1000, progress=resumed.append, checkpoint=ck, checkpoint_every=0).W
    assert resumed[0] == seen[-1] - 1 and not ck.path.exists()  # the next sum after the last saved
    assert np.array_equal(W, full)


@pytest.mark.slow  # a big simulation
def test_optimal_beats_the_expected_points_player_by_the_predicted_margin():
    """Issue 6: against the core's expected-points strategy the optimal player wins as often
    as the exact versus table says (simulated with physical dice), and more often than
    against an optimal opponent."""
    from .solvers import evaluate, policy
    from .versus import play_versus, solve_versus

    rs = rules.load("zonk-chicago")
    es = policy(rs)  # the expected-points policy of the core
    v = solve_versus(model(rs), evaluate(rs, es).as_dict(), 1000)
    opt = solve_game(rs, 1000).W
    assert v.X[0, 0] > opt[0, 0] + 0.02 and v.Y[0, 0] > 1 - opt[0, 0] + 0.02
    for first, exact in ((True, v.X[0, 0]), (False, v.Y[0, 0])):
        wins = play_versus(v, es, 20_000, np.random.default_rng(5), optimal_first=first)
        assert abs(wins.mean() - exact) < 4 * np.sqrt(exact * (1 - exact) / len(wins))


def test_permanent_points_path_equals_the_plain_path():
    """zilch-online's game solves turns as final turns over levels of permanent points; on
    rules without them both paths must give the same table."""
    for name in ("farkle", "zilch-5000"):
        rs = rules.load(name)
        a = solve_game(rs, 500).W
        b = solve_game(rs, 500, levels=True).W
        assert np.abs(a - b).max() < 1e-12


@pytest.mark.slow  # (a full-size reference: the slow tier)
def test_zilch_online_game_invariants():
    W = solve_game(rules.load("zilch-online"), 500).W
    assert np.all((W >= 0) & (W <= 1)) and 0.5 < W[0, 0] < 0.65
    assert np.all(np.diff(W[1:, :], axis=0) >= -1e-9)


@pytest.mark.parametrize(
    "preset, target, state",
    [
        ("zonk-chicago", 1000, ("3", "200", "100", "200")),
        # (slow: zilch-online's game to 1000)
        pytest.param("zilch-online", 1000, ("3", "300", "500", "600"), marks=pytest.mark.slow),
    ],
)
def test_two_player_advise_uses_the_stored_game(tmp_path, preset, target, state):
    """With the game table stored, advise answers every turn by P(win of the game), also
    the turn that may trigger the end (before, it says plainly it has no answer)."""
    src = rules.canonical_source(preset)
    src["game"]["target"] = target
    lines = [
        f'name = "{preset}-short"',
        f"dice = {src['dice']}",
        f'set_aside = "{src["set_aside"]}"',
        f'hot_dice = "{src["hot_dice"]}"',
        f"entry_minimum = {src.get('entry_minimum', 0)}",
        f"bank_minimum = {src.get('bank_minimum', 0)}",
        "[faces]",
    ]
    lines += [f"{k} = {v}" for k, v in src["faces"].items()]
    for pat in src.get("patterns", []):
        lines.append("[[patterns]]")
        lines += [
            f"{k} = "
            + (
                f'"{v}"'
                if isinstance(v, str)
                else str(v).lower()
                if isinstance(v, bool)
                else str(v)
            )
            for k, v in pat.items()
        ]
    lines.append("[game]")
    lines += [
        f"{k} = "
        + (f'"{v}"' if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else str(v))
        for k, v in src["game"].items()
    ]
    f = tmp_path / "short.toml"
    f.write_text("\n".join(lines) + "\n")
    dice, turn, me, opp = state
    args = [
        "advise",
        "--rules",
        str(f),
        "--dice",
        dice,
        "--turn",
        turn,
        "--score",
        me,
        "--opponents",
        opp,
        "--json",
        "--tables",  # (its own folder: the same game to 1000 under another name would do)
        str(tmp_path / "t"),
    ]
    # no game table yet: no guess (Zonk: the chance of reaching the target this turn; a
    # final round: the table to build, exit code 3)
    if preset.startswith("zonk"):
        assert json.loads(run(*args).stdout)["situation"] == "reach target"
    else:
        err = json.loads(run(*args, code=3).stderr)
        assert err["exit_code"] == 3 and err["solve_with"].startswith("zilch game --rules")
    run("game", "--rules", str(f), "--tables", str(tmp_path / "t"))
    d = json.loads(run(*args).stdout)
    assert d["situation"] == "game" and d["action"] in ("roll", "bank")
    assert 0 < d["p_win"]["roll"] < 1 and 0 < d["p_win"]["bank"] < 1
    if preset == "zonk-chicago":  # piggyback: take over the offer, by P(win) of the game
        assert "piggyback included" in d["note"]
        g = solve_game(rules.load(str(f)))
        # (offers a bank can leave: 4 dice at 300 after hot dice at 250 and a single 5)
        for offer, want in (("2,150", "fresh"), ("4,300", "take_over")):
            t = json.loads(
                run(
                    "advise",
                    "--rules",
                    str(f),
                    "--score",
                    "100",
                    "--opponents",
                    "300",
                    "--take-over",
                    offer,
                    "--json",
                    "--tables",
                    str(tmp_path / "t"),
                ).stdout
            )
            n, total = (int(x) for x in offer.split(","))
            assert t["p_win"]["take_over"] == pytest.approx(
                g.take_over(100, 300, n, total), abs=1e-12
            )
            assert t["p_win"]["fresh"] == pytest.approx(g.W[2, 6], abs=1e-12)
            assert t["action"] == want
        err = run(
            "advise",
            "--rules",
            str(f),
            "--score",
            "100",
            "--opponents",
            "200",
            "--take-over",
            "2,250",
            code=2,
        ).stderr  # more than the opponent has
        assert "impossible offer" in err and "\n" not in err.strip()


@pytest.mark.parametrize(
    "preset", ["zonk-chicago", pytest.param("zilch-online", marks=pytest.mark.slow)]
)
def test_plot_game_draws_the_games_own_turn(preset):
    """Issue 11: the game plot's bank thresholds come from the game's one turn builder, the
    turn advise answers from: with Zonk's piggyback offers (banking with n dice left is worth
    less where the opponent would take them over) and zilch-online's permanent levels."""
    from dicesolver.answers.figures import bank_from
    from dicesolver.objectives.plain_game import solve_game_turns

    rs = rules.load(preset)
    g = solve_game(rs, 1000)
    pts = np.array([0, 6, 12])
    first = bank_from(g, pts)
    u = rs.unit
    for i, (a, b) in enumerate((a, b) for a in pts for b in pts):
        sol = g.turn(a * u, b * u)[0]  # as advise solves it
        for n in range(1, rs.dice):
            banks = np.nonzero(sol.bank[0, n, 1:] >= sol.roll[0, n, 1:])[0]
            want = (banks[0] + 1) * u if len(banks) else np.nan
            assert first[i, n] == want or (np.isnan(want) and np.isnan(first[i, n]))
    if rs.piggyback:  # without the offers the picture would differ (the old bug)
        rows = np.array([(a, b) for a in pts for b in pts])
        plain = solve_game_turns(g.model, g.W, g.finals, rows).levels()[0]
        banks = plain.bank >= plain.roll
        banks[:, :, 0] = False
        old = np.where(banks.any(axis=2), banks.argmax(axis=2), np.nan) * u
        assert not np.array_equal(np.nan_to_num(old[:, 1:-1]), np.nan_to_num(first[:, 1:-1]))
