"""One policy against another in the two-player game (issue 28): the exact chance of a
fixed policy (objectives/policy_game.py) against an independent plain value iteration,
optimal against optimal against the game table, simulated games with physical dice,
a fixed policy's last turn, game results verified, the game's policy exported, and
hostile inputs."""

import json

import numpy as np
import pytest

from dicesolver import rules
from dicesolver.objectives.game_run import GameRun
from dicesolver.objectives.policy_game import OptimalSide, solve_policy_game
from dicesolver.play.fixed_side import FixedSide
from dicesolver.play.policies import load_policy

from . import game_valueiteration as GVI
from . import policy_game_valueiteration as PVI
from .clirun import zilch as run
from .solvers import game_table, policy, small_rules, tables

HOLD = PVI.Thresholds({1: 150, 2: 200, 3: 300}, rule="max_points", bank_at_target=True)
WIDE = PVI.Thresholds({1: 100, 2: 250, 3: 400}, rule="all")
HOLD6 = PVI.Thresholds({6: 2000, 5: 1000, 4: 500, 3: 350, 2: 300, 1: 300}, bank_at_target=True)
ENTRY = PVI.Thresholds({1: 150, 2: 200, 3: 300}, entry=400, rule="per_die", bank_at_target=True)


def _file(tmp_path, th: PVI.Thresholds) -> str:
    """The policy file of a threshold policy (docs/policies.md)."""
    body = ", ".join(f"{k} = {v}" for k, v in th.thresholds.items())
    p = tmp_path / f"{th.rule}-{th.entry}-{th.bank_at_target}.toml"
    p.write_text(
        f"[bank]\nthresholds = {{ {body} }}\nentry = {th.entry}\n"
        f"bank_at_target = {str(th.bank_at_target).lower()}\n"
        f'[set_aside]\nrule = "{th.rule}"\n'
    )
    return str(p)


def _product_side(rs, name, g, tmp_path):
    tab, R = tables(rs), rs.reach_units(g.target)
    D = g.finals.D if rs.end != "instant" else 0
    model = tab.model
    if name == "optimal":
        return OptimalSide(g)
    if name == "points":
        return FixedSide("points", model, R, D, lambda f: policy(rs, "optimal", f).compile(model))
    path = _file(tmp_path, name)
    pols = {f: load_policy(path, rs, f) for f in (False, True)}
    goal = {f: p.banks_from() for f, p in pols.items()} if name.bank_at_target else None
    return FixedSide(path, model, R, D, lambda f: pols[f].compile(model), goal)


def _vi_side(G, name, W, fin_opt, D):
    """The value iteration's decisions and last turns of a policy."""
    if name == "optimal":
        return G.optimal(W, fin_opt), fin_opt
    dec, lasts = G.card() if name == "points" else G.thresholds(name)
    if G.rules.end == "instant":
        return dec, None
    return dec, {f: G.fixed_last_turn(lasts[f], D, f) for f in (False, True)}


CASES = [
    # three dice, free set-aside, a final round: the card, the optimum, bank at the target
    (
        dict(dice=3, set_aside="any", hot="optional", game={"target": 400, "end": "final_round"}),
        [("points", "optimal"), (HOLD, "points"), (WIDE, "optimal")],
    ),
    # forced set-aside, an entry minimum, reaching the target wins at once
    pytest.param(  # (slow: this and the next, the larger value iterations)
        dict(
            dice=3,
            set_aside="forced",
            hot="optional",
            entry=300,
            game={"target": 450, "end": "instant"},
        ),
        [("points", "optimal"), (ENTRY, "optimal"), ("optimal", HOLD)],
        marks=pytest.mark.slow,
    ),
    # an entry minimum and a bank minimum in a final round (fixed policies: the value
    # iteration's optimal last turn is for players on the board)
    pytest.param(
        dict(
            dice=3,
            set_aside="any",
            hot="optional",
            entry=300,
            bank=100,
            game={"target": 450, "end": "final_round"},
        ),
        [(ENTRY, "points"), ("points", WIDE)],
        marks=pytest.mark.slow,
    ),
]


@pytest.mark.slow  # (a full-size reference: the slow tier)
@pytest.mark.parametrize("spec, pairs", CASES, ids=["final-round", "instant-entry", "entry-min"])
def test_fixed_policies_equal_a_plain_value_iteration(spec, pairs, tmp_path):
    """Issue 28: at three dice a fixed policy's chance against another (the card, policy
    files with bank_at_target and each set-aside rule, the game table's optimum) agrees to
    1e-9 with a plain value iteration over every state, for both players to move (X and Y
    at every pair of scores)."""
    rs = small_rules(**spec)
    target = spec["game"]["target"]
    R = rs.reach_units(target)
    g = game_table(tables(rs), target=target)
    final = rs.end != "instant"
    D = R + (g.finals.D if final else 0) + 1
    G = PVI.Game(rs, R, 40)
    needs_optimal = any("optimal" in pair for pair in pairs)
    fin_opt = W = None
    if needs_optimal:
        if final:
            lt = G.optimal_last_turn(D)
            fin_opt = {False: lt, True: lt}
        W = GVI.game(rs, R, 40, fin_opt[True] if final else None)
        assert np.abs(W - g.W).max() < 1e-9
    for P, Q in pairs:
        (dP, fP), (dQ, fQ) = _vi_side(G, P, W, fin_opt, D), _vi_side(G, Q, W, fin_opt, D)
        V = G.play([dP, dQ], [fP, fQ])
        sides = [_product_side(rs, x, g, tmp_path) for x in (P, Q)]
        pg = solve_policy_game(GameRun(tables(rs).model, target=target), *sides)
        assert np.abs(V[0] - pg.X).max() < 1e-9, (P, Q)
        assert np.abs(V[1] - pg.Y).max() < 1e-9, (P, Q)


def _solve(rs, target, P, Q, tmp_path=None):
    g = game_table(tables(rs), target=target)
    sides = [_product_side(rs, x, g, tmp_path) for x in (P, Q)]
    return g, solve_policy_game(GameRun(tables(rs).model, target=target), *sides)


@pytest.mark.parametrize(
    "name, target",
    [
        ("farkle", 1000),
        ("zilch-5000", 1000),
        pytest.param("zilch-online", 300, marks=pytest.mark.slow),  # (its levels: the largest)
        ("zonk-detroit", 500),
    ],
)
def test_optimal_against_optimal_is_the_game_table(name, target):
    """Issue 28: P = Q = optimal through the policy game's linear solve (each turn the game
    table's own, the other side's values an extra under its play) equals the game table
    to 1e-12: farkle (a final round), zilch (mandatory hot dice: the extras' must-roll
    recursion past the cut), zilch-online (permanent points: levels), zonk-detroit (an
    entry minimum, instant end; its piggyback left out)."""
    import dataclasses

    rs = rules.load(name)
    if rs.piggyback:
        rs = dataclasses.replace(rs, piggyback=False)
    g, pg = _solve(rs, target, "optimal", "optimal")
    assert np.abs(pg.X - g.W).max() < 1e-12
    assert np.abs(pg.Y - g.W).max() < 1e-12


def test_the_two_sides_mirror_each_other(tmp_path):
    """P against Q seen from Q: X of (P, Q) is Y of (Q, P).  And the game is constant-sum,
    so the game table's play guarantees its chance W against any play: the card never does
    better than W against it, and it never does worse than W against the card, at every
    pair of scores (the card loses a little from 0-0)."""
    rs = rules.load("farkle")
    g, pq = _solve(rs, 1000, "points", "optimal")
    _, qp = _solve(rs, 1000, "optimal", "points")
    assert np.abs(pq.X - qp.Y).max() < 1e-13 and np.abs(pq.Y - qp.X).max() < 1e-13
    assert np.all(pq.X <= g.W + 1e-12) and np.all(qp.X >= g.W - 1e-12)
    assert pq.X[0, 0] < g.W[0, 0] - 1e-3


@pytest.mark.slow  # (a full-size reference: the slow tier)
@pytest.mark.parametrize("name", ["farkle", "zilch", "zilch-online"])
def test_a_fixed_last_turn_equals_its_forward_evaluation(name):
    """play/policy_last_turn.py (backward, every deficit at once) against the product's forward
    evaluator of the same play (the card's choices, banking as soon as the total beats
    the deficit: GoalPolicy) deficit by deficit: mandatory hot dice (zilch), permanent
    points and an entry minimum (zilch-online)."""
    from dicesolver.play.evaluate import evaluate
    from dicesolver.play.policies import GoalPolicy
    from dicesolver.play.policy_last_turn import beat_chances

    rs = rules.load(name)
    model = tables(rs).model
    for flag in (True, False):
        card = policy(rs, "optimal", flag).compile(model)
        chances = beat_chances(model, card, np.arange(120), flag)
        for d in (0, 7, 119):
            need = max(d + 1, rs.min_bank_units(flag))
            dist = evaluate(model, GoalPolicy(card, rs, flag, need, own=False), flag)
            x = dist.totals // rs.unit
            exact = dist.probs[x > d].sum() + rs.tie * dist.probs[x == d].sum()
            assert chances[d] == pytest.approx(exact, abs=1e-13)


@pytest.mark.parametrize(
    "name, target, P, Q, games",
    [
        ("farkle", 1000, "points", "optimal", 20_000),
        ("zilch-5000", 1000, "optimal", "points", 10_000),
        pytest.param("zilch-online", 300, HOLD6, "points", 10_000, marks=pytest.mark.slow),
    ],
)
def test_simulated_games_land_within_4_standard_errors(name, target, P, Q, games, tmp_path):
    """Issue 28: whole games with physical dice (play/games.py: the game table's turns
    solved on demand, the card, a file with bank_at_target; the other player's last turn
    once the target is reached) reproduce P's exact chance within 4 standard errors."""
    import dicesolver as ds

    rs = rules.load(name)
    game_table(tables(rs), target=target)  # (the optimal side's table)
    spec = lambda x: _file(tmp_path, x) if isinstance(x, PVI.Thresholds) else x  # noqa: E731
    a = ds.simulate(name, games=games, policy=spec(P), vs=spec(Q), seed=11, target=target)
    assert a.games == games and a.wins + a.losses + a.ties == games
    assert abs(a.z) < 4, a


def test_cli_game_policy_json_names_both_and_matches_the_api(tmp_path):
    import dicesolver as ds

    game_table(tables(rules.load("farkle")), target=1000)
    out = json.loads(
        run(
            "game", "--target", "1000", "--policy", "points", "--scores", "500,300", "--json"
        ).output
    )
    assert (out["policy"], out["vs"], out["scores"]) == ("points", "optimal", [500, 300])
    api = ds.game("farkle", target=1000, scores="500,300", policy="points")
    assert out["p_win"] == api.p_win and 0 < out["p_win"] < 1
    # optimal against optimal is the game table itself
    both = ds.game("farkle", target=1000, scores=[500, 300], policy="optimal", vs="optimal")
    assert both.p_win == ds.game("farkle", target=1000, scores=[500, 300]).p_win
    text = run("game", "--target", "1000", "--policy", "points", "--vs", "points").output
    assert "playing points" in text and "wins with probability" in text


def test_verify_games_round_trip(tmp_path):
    """simulate --games --out writes every game's winner; verify --games reads it (or a
    column of the first player's wins) and gives the binomial verdict: consistent against
    the policies that played (exit 0), not against others (exit 1)."""
    game_table(tables(rules.load("farkle")), target=1000)
    out = tmp_path / "games.csv"
    run(
        "simulate",
        "--games",
        "4000",
        "--target",
        "1000",
        "--policy",
        "points",
        "--vs",
        "points",
        "--out",
        str(out),
    )
    assert out.read_text().splitlines()[0] == "winner"

    def verify(path, *more, code=0):
        args = ("--target", "1000", "--vs", "points", "--json")
        return json.loads(run("verify", "--games", str(path), *args, *more, code=code).output)

    v = verify(out, "--policy", "points")
    assert v["consistent"] and v["n"] == 4000 and v["wins"] + v["losses"] + v["ties"] == 4000
    assert not verify(out, code=1)["consistent"]  # (against optimal: not what played)
    wins = tmp_path / "wins.csv"
    wins.write_text("game,first_won\n" + "".join(f"{i},{i % 2}\n" for i in range(2000)))
    v = verify(wins, "--column", "first_won", "--policy", "points", code=1)
    assert (v["wins"], v["losses"], v["test"]) == (1000, 1000, "binomial")


def test_export_game_policy_is_the_plots_banking_total(tmp_path):
    """export --objective game-policy: per score pair and dice count the total from which
    the game's optimal play banks, the same as the game plot's (pictures.bank_from); where
    banking is not monotone the set of totals; CSV, JSON and Parquet."""
    from dicesolver.answers.figures import bank_from

    rs = rules.load("farkle")
    g = game_table(tables(rs), target=1000)
    import dicesolver as ds

    t = ds.export("farkle", objective="game-policy", target=1000)
    assert (t.meta["objective"], t.meta["target"]) == ("game-policy", 1000)
    R = g.W.shape[0]
    assert t.rows == R * R * rs.dice
    c = {k: np.array(v) for k, v in t.columns.items()}
    first = bank_from(g, np.arange(R))  # (pairs a-major, by dice; over every total)
    reach = tables(rs).reachable(2000)
    for n in range(1, rs.dice + 1):
        sel = c["dice"] == n
        got, mono, plot = c["bank_from"][sel], c["monotone"][sel], first[:, n].astype(int)
        # the export counts the totals a turn reaches: from the plot's first banking total
        # on where that is reachable and banking is monotone
        same = mono & reach[n, plot // rs.unit]
        assert same.mean() > 0.3 and np.array_equal(got[same], plot[same])
        assert np.all(plot <= got)
    assert (~c["monotone"]).any()  # (farkle to 1000: rolls on at the target, banks below)
    odd = np.nonzero(~c["monotone"])[0][0]
    assert c["bank_totals"][odd].endswith(f";{c['bank_from'][odd]}-")
    path = _target_rules(tmp_path, 750)  # (its own table: none stored yet)
    run("export", "--rules", path, "--objective", "game-policy", code=3)
    run("game", "--rules", path)
    for fmt in ("csv", "json", "parquet"):
        out = tmp_path / f"policy.{fmt}"
        run(
            "export",
            "--rules",
            path,
            "--objective",
            "game-policy",
            "--format",
            fmt,
            "--out",
            str(out),
        )
        assert out.stat().st_size > 1000


def _target_rules(tmp_path, target):
    from .solvers import preset_file

    return preset_file(tmp_path, "farkle", target)


FILES = {
    "bad.toml": b"[bank\nthresholds = 3",
    "goal.toml": b'[bank]\ndefault = 300\nbank_at_target = "yes"\n',
    "hold.toml": b"[bank]\ndefault = 300\nbank_at_target = true\n",
    "three.csv": b"winner\n1\n2\n3\n",
    "empty.csv": b"winner\n",
    "penalty.toml": None,  # (a preset with a penalty for the third zilch in a row)
}

HOSTILE = [
    ["game", "--policy", "nonexistent.toml"],
    ["game", "--policy", "@/bad.toml"],
    ["game", "--policy", "@/goal.toml"],
    ["game", "--policy", "points", "--vs", "opt"],
    ["game", "--policy", ""],
    ["game", "--rules", "zonk-chicago", "--policy", "points"],
    ["game", "--rules", "zilch-challenge", "--policy", "points"],
    ["game", "--rules", "zilch-overtaking", "--vs", "points"],
    ["game", "--rules", "@/penalty.toml", "--policy", "points"],
    ["game", "--policy", "points", "--players", "3"],
    ["game", "--policy", "points", "--fairness"],
    ["game", "--policy", "points", "--zilches", "1"],
    ["game", "--policy", "points", "--scores", "20000,0"],
    ["game", "--policy", "points", "--scores", "1,2,3"],
    ["game", "--policy", "points", "--target", "-5"],
    ["simulate", "--games", "0"],
    ["simulate", "--games", "10", "--turns", "5"],
    ["simulate", "--vs", "points"],
    ["simulate", "--games", "10", "--long-run"],
    ["simulate", "--games", "10", "--not-on-board"],
    ["simulate", "--games", "10", "--rules", "zonk-chicago", "--vs", "optimal"],
    ["simulate", "--games", "10", "--policy", "@/bad.toml"],
    ["verify"],
    ["verify", "--games", "@/three.csv", "--policy", "points", "--vs", "points"],
    ["verify", "--games", "@/empty.csv", "--policy", "points", "--vs", "points"],
    ["verify", "--games", "@/three.csv", "--results", "@/three.csv"],
    ["verify", "--games", "@/three.csv", "--rolls"],
    ["verify", "--results", "@/three.csv", "--vs", "points"],
    [
        "verify",
        "--games",
        "@/three.csv",
        "--column",
        "nope",
        "--vs",
        "points",
        "--policy",
        "points",
    ],
    ["export", "--rules", "zilch-pyramiding", "--objective", "game-policy"],
]


@pytest.fixture
def hostile_folder(tmp_path, monkeypatch):
    for name, body in FILES.items():
        if body is not None:
            (tmp_path / name).write_bytes(body)
    text = _penalty_rules().read_text().replace("[game]\n", "[game]\ntarget = 5000\n")
    (tmp_path / "penalty.toml").write_text(text)
    from dicesolver.turn import engine

    monkeypatch.setenv("DICESOLVER_TABLES", str(tmp_path / "tables"))  # nothing stored
    monkeypatch.setattr(engine, "backward", _tripwire)  # refused before any solve
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _tripwire(*args, **kwargs):
    raise AssertionError("reached a solver instead of refusing")


def _penalty_rules():
    from pathlib import Path

    return next(Path(__file__).parent.joinpath("data").glob("*playr*.toml"))


@pytest.mark.parametrize("args", HOSTILE, ids=[" ".join(a)[:60] for a in HOSTILE])
@pytest.mark.parametrize("as_json", [False, True])
def test_a_hostile_input_is_one_line_and_exit_2(args, as_json, hostile_folder):
    """Unknown policies, bad files, variants a fixed policy is not evaluated in, options
    that do not go together: one line on stderr (a JSON object with --json), exit 2, and
    nothing solved."""
    argv = [a.replace("@/", f"{hostile_folder}/") for a in args] + (["--json"] * as_json)
    res = run(*argv, code=None)
    err = res.stderr.strip()
    assert res.exit_code == 2 and "\n" not in err and "Traceback" not in err, (res.exit_code, err)
    if as_json:
        assert json.loads(err)["exit_code"] == 2
    else:
        assert "error" in err


def test_a_missing_game_table_is_exit_3_with_the_command(tmp_path, monkeypatch):
    """The optimal side needs the stored game table: TableMissing, exit 3, the command that
    builds it (nothing solved)."""
    from dicesolver.turn import engine

    monkeypatch.setenv("DICESOLVER_TABLES", str(tmp_path / "tables"))
    monkeypatch.setattr(engine, "backward", _tripwire)
    res = run("game", "--target", "2000", "--policy", "points", "--json", code=3)
    assert json.loads(res.stderr)["solve_with"] == "zilch game --rules farkle --target 2000"
