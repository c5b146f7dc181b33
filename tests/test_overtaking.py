"""Overtaking (RULES.md, the optional rules of `zilch`; issue 14): a bank must also beat the
previous player's banked turn total, except after his zilch.  A turn with a total to beat
(--beat) is solved exactly; the game and a final round with more than one player still to
play are refused in one line until their state carries the previous bank."""

import dataclasses

import numpy as np
import pytest

import dicesolver as ds
from dicesolver import rules
from dicesolver.errors import InputError
from dicesolver.objectives.game_run import GameRun
from dicesolver.objectives.score import solve_score
from dicesolver.outcomes.model import turn_model
from dicesolver.turn.reach import sweep

from . import bruteforce
from . import game_valueiteration as VI
from .clirun import zilch
from .solvers import small_rules


def _small(dice, set_aside, hot, bank=0):
    return small_rules(dice, set_aside, hot, bank=bank, game={"target": 1000, "overtaking": True})


def _farkle_overtaking():
    src = rules.canonical_source("farkle")
    src["game"]["overtaking"] = True
    return rules.from_dict(src, "farkle-overtaking.toml")


@pytest.mark.parametrize(
    "rs, beat",
    [
        (_small(3, "any", "optional"), 200),
        (_small(3, "forced", "mandatory", bank=150), 300),
        (_small(4, "any", "optional", bank=100), 450),
    ],
)
def test_a_turn_to_beat_equals_exact_brute_force(rs, beat):
    """The independent naive solver in Fractions, told only that a bank needs a total above
    `beat` (beat + 1 points), agrees with the solver's turn for --beat on every reachable
    state."""
    value, T = bruteforce.solve(rs, max(rs.bank_minimum, beat + 1))
    turn_rules = rs.beating(beat)
    main, _ = solve_score(turn_model(turn_rules))
    u = rs.unit
    reach = sweep(turn_model(rs), T // u)
    checked = 0
    for s in range(rs.dice + 1):
        for r in np.nonzero(reach[s])[0]:
            forced = s == 0
            exact = value(rs.dice if forced else s, int(r) * u, forced)
            roll, bank = main.at(s, int(r))
            assert max(roll[1], bank[1]) == pytest.approx(float(exact), rel=1e-12, abs=1e-9)
            checked += 1
    assert checked > 50


def test_nothing_to_beat_is_the_plain_card_and_the_key_changes_only_its_own_hash():
    """--beat 0 (the previous player zilched, or nobody has played) is zilch's own card;
    without the key every rules hash stays what it was (the key is left out of it)."""
    plain, over = rules.load("zilch"), rules.load("zilch-overtaking")
    assert over.beating(0) is over
    assert dataclasses.replace(over, name="zilch", overtaking=False).digest() == plain.digest()
    assert "overtaking" not in plain.canonical() and over.canonical()["overtaking"] is True
    a = ds.strategy("zilch")
    b = ds.strategy("zilch-overtaking")
    assert a.bank_thresholds == b.bank_thresholds
    assert a.expected_turn_score == b.expected_turn_score


def test_the_cards_by_total_to_beat():
    """export --objective beat: one card per total to beat; a higher total can only lower
    the turn's value, and no card banks at or below the total it must beat."""
    t = ds.export("zilch-overtaking", objective="beat", max_beat=3000)
    c = t.columns
    assert t.meta["objective"] == "beat" and t.meta["max_beat"] == 3000
    beats = sorted(set(c["beat"]))
    assert beats == [0, *range(350, 3001, 50)]
    for on in (False, True):
        value = {b: v for b, o, v in zip(c["beat"], c["on_board"], c["expected_points"]) if o == on}
        vs = [value[b] for b in beats]
        assert all(x >= y for x, y in zip(vs, vs[1:])) and vs[-1] < vs[0]
    for b, f in zip(c["beat"], c["bank_from"]):
        assert f is None or b == 0 or f > b
    # the card of one total is the strategy card with --beat
    s = ds.strategy("zilch-overtaking", beat=1000)
    got = {
        d: f
        for b, o, d, f in zip(c["beat"], c["on_board"], c["dice"], c["bank_from"])
        if b == 1000 and o
    }
    assert got == s.bank_thresholds
    assert s.beat == 1000 and s.expected_turn_score < ds.strategy("zilch").expected_turn_score


def test_simulated_turns_to_beat_match_the_exact_distribution():
    """Turns played with physical dice by the --beat card: the mean within 4 standard errors
    of the exact mean, which is the card's value (zilch-overtaking, beat 1000)."""
    a = ds.simulate("zilch-overtaking", beat=1000, turns=200_000, seed=5)
    card = ds.strategy("zilch-overtaking", beat=1000)
    assert a.exact_mean == pytest.approx(card.expected_turn_score, rel=1e-12)
    assert abs(a.z) < 4, a


def test_a_last_turn_to_beat():
    """A last turn must beat the previous bank too: below the deficit that changes nothing
    (the player needs more than the deficit anyway); at or above it, the tie and every total
    up to the bank to beat are lost."""
    rs = _farkle_overtaking()
    d = 1000
    base = ds.endgame(rs, deficit=d).p_win
    assert ds.endgame(rs, deficit=d, beat=950).p_win == pytest.approx(base, abs=1e-12)
    higher = [ds.endgame(rs, deficit=d, beat=b).p_win for b in (1000, 1500, 2000)]
    assert base > higher[0] > higher[1] > higher[2] > 0


OT1000 = ["--rules", "zilch-overtaking", "--target", "1000"]
LAST = [
    "advise",
    "--rules",
    "zilch-overtaking",
    "--dice",
    "3",
    "--turn",
    "1600",
    "--score",
    "14000",
    "--opponents",
    "15500",
    "--last-turn",
]


@pytest.mark.parametrize(
    "args, said",
    [
        (["advise", "--rules", "zilch", "--beat", "400"], "zilch has no overtaking rule"),
        (["advise", "--rules", "zilch-overtaking", "--beat", "375"], "not a turn total"),
        (["advise", "--rules", "zilch-overtaking", "--beat", "300"], "from 350"),
        (["strategy", "--rules", "zilch-overtaking", "--beat", "-50"], "not a turn total"),
        (["game", "--rules", "zilch-overtaking", "--beat", "375"], "not a turn total"),
        (["game", "--rules", "zilch", "--beat", "400"], "no overtaking rule"),
        (
            [
                "endgame",
                "--rules",
                "zilch-overtaking",
                "--final-round",
                "--scores",
                "15400,14000,13000",
            ],
            "more than one player still to play",
        ),
        (["export", "--rules", "zilch", "--objective", "beat"], "no overtaking rule"),
        # the previous player's last bank must fit his score (hostile-input battery)
        (
            ["game", *OT1000, "--scores", "600,900", "--beat", "600"],
            "his score before it, 300 is impossible",
        ),
        (["game", *OT1000, "--scores", "600,900", "--zilches", "2"], "no penalty"),
        (
            ["endgame", "--rules", "zilch-overtaking", "--final-round", "--scores", "15500,14000"],
            "reached the target with his last bank",
        ),
        (
            [*LAST, "--beat", "16000"],
            "last bank is part of his score (15500)",
        ),
        ([*LAST, "--beat", "400"], "had reached the target already"),
        (
            ["verify", "--rules", "zilch-overtaking", "--beat", "500", "--rolls", "--results", "x"],
            "leave out --column, --policy, --not-on-board, --zilches and --beat",
        ),
        (
            [
                "export",
                "--rules",
                "zilch-overtaking",
                "--objective",
                "beat",
                "--max-beat",
                "2000000",
            ],
            "--max-beat must be a multiple of 50 from 350 to 1000000",
        ),
        (["export", "--rules", "zilch-overtaking", "--max-beat", "500"], "--objective beat"),
        (
            ["export", "--rules", "zilch-overtaking", "--objective", "beat", "--beat", "400"],
            "covers every total to beat",
        ),
        (
            ["export", "--rules", "zilch-overtaking", "--objective", "beat", "--max-beat", "375"],
            "--max-beat",
        ),
    ],
)
def test_what_cannot_be_answered_is_refused_in_one_line(args, said):
    res = zilch(*args, code=2)
    assert said in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr


def test_the_combinations_not_solved_are_refused_at_the_key():
    """Overtaking with permanent points, piggyback, a penalty for the third zilch or pyramiding: the
    rules file is refused, never answered without the option."""
    for preset, extra in (
        ("zilch-online", {}),
        ("zonk-chicago", {}),
        ("farkle", {"three_zilch_penalty": 500}),
        ("zilch-pyramiding", {}),
    ):
        src = rules.canonical_source(preset)
        src["game"].update(extra, overtaking=True)
        with pytest.raises(InputError, match="overtaking with"):
            rules.from_dict(src, f"{preset}.toml")
    with pytest.raises(InputError, match="needs overtaking"):
        dataclasses.replace(rules.load("zilch"), beat=400)


def test_the_commands_take_the_total_to_beat():
    """advise says why a bank is not allowed; the JSON carries the total to beat; the text
    card says it; rules shows the option."""
    out = zilch(
        "advise", "--rules", "zilch-overtaking", "--dice", "3", "--turn", "600", "--beat", "1000"
    ).stdout
    assert "ROLL" in out and "a bank must beat 1000" in out
    import json

    j = json.loads(
        zilch(
            "advise",
            "--rules",
            "zilch-overtaking",
            "--turn",
            "1100",
            "--dice",
            "2",
            "--beat",
            "1000",
            "--json",
        ).stdout
    )
    assert j["beat"] == 1000 and j["values"]["bank"] == 1100
    assert (
        "a bank must beat 1000"
        in zilch("strategy", "--rules", "zilch-overtaking", "--beat", "1000").stdout
    )
    assert "overtaking" in zilch("rules", "zilch-overtaking").stdout
    assert "beat" not in json.loads(zilch("advise", "--rules", "zilch", "--json").stdout)


# --- the game: the previous bank in the state (objectives/overtaking_game.py) ------------
def _game(rs, target):
    from dicesolver.objectives.last_turn import reach_bound
    from dicesolver.objectives.overtaking_game import solve_overtaking_game

    m = turn_model(rs)
    return solve_overtaking_game(GameRun(m, 0 if rs.end == "instant" else reach_bound(m), target))


@pytest.mark.slow  # the value iteration (the final round's, below, is quicker)
def test_game_equals_plain_value_iteration_reaching_the_target_wins():
    """A plain value iteration over every state (scores, the previous bank, dice, turn
    total) agrees to 1e-9 on every state the table keeps (farkle with overtaking where
    reaching 500 wins at once)."""
    src = rules.canonical_source("farkle")
    src["game"].update(overtaking=True, end="instant")
    rs = rules.from_dict(src, "farkle-overtaking-instant.toml")
    g = _game(rs, 500)
    R = rs.reach_units(500)
    W_vi = VI.overtaking_game(rs, R, R + 2)
    kept = ~np.isnan(g.W)
    assert kept.sum() == sum(1 + b for b in range(R)) * R  # T = 0 and every bank up to b
    assert np.abs(g.W[kept] - W_vi[kept]).max() < 1e-9


def test_the_last_turn_after_the_bank_that_reached_the_target():
    """The opponent's last turn must beat the deficit d and the bank t that reached the
    target: the finals' rule (the plain last turn where t < d, else P(more than t)) against
    a value iteration of the last turn with both conditions, for every (d, t)."""
    from dicesolver.objectives.overtaking_game import OvertakingFinals

    rs = _small(3, "any", "optional")
    m = turn_model(rs)
    fin = OvertakingFinals.solve(m, 1, 40)
    X = VI.last_turn_beat(rs, 40)
    d, t = np.meshgrid(np.arange(1, 40), np.arange(1, 40), indexing="ij")
    got = 1.0 - fin.mine(d.ravel(), np.zeros(d.size, int), t.ravel())
    assert np.abs(got - X[d.ravel(), t.ravel()]).max() < 1e-12


@pytest.mark.slow  # a value iteration (8 s): the reference tier
def test_game_with_a_final_round_equals_plain_value_iteration():
    """The same with a final round (three dice, to 500): the opponent's last turn must beat
    the bank that reached the target."""
    rs = _small(3, "any", "optional")
    assert rs.end == "final_round"
    g = _game(rs, 500)
    R = rs.reach_units(500)
    Tm = 40
    W_vi = VI.overtaking_game(rs, R, Tm, VI.last_turn_beat(rs, R + Tm + 30))
    kept = ~np.isnan(g.W)
    assert np.abs(g.W[kept] - W_vi[kept]).max() < 1e-9


def test_game_commands_under_overtaking(tmp_path):
    """zilch game --beat, advice with scores from the stored table (a query never starts a
    solve), and the game's export with the previous bank."""
    f = tmp_path / "farkle-ot.toml"
    src = rules.canonical_source("farkle")
    lines = [f"{k} = {v!r}".replace("'", '"') for k, v in src.items() if isinstance(v, (str, int))]
    lines = [x for x in lines if not x.startswith(("name", "description"))]
    lines += ["[faces]"] + [f"{k} = {v}" for k, v in src["faces"].items()]
    lines += ["[game]", "target = 1000", "overtaking = true"]
    f.write_text("\n".join(lines) + "\n")
    tabs = str(tmp_path / "tables")
    base = ["--rules", str(f), "--tables", tabs]
    advise = [
        "advise",
        *base,
        "--dice",
        "3",
        "--turn",
        "400",
        "--score",
        "500",
        "--opponents",
        "700",
    ]
    # (the game table not stored yet: exit 3 and the command that builds it, never an
    # answer without the previous bank)
    assert "is not solved yet: build it with zilch game" in zilch(*advise, code=3).stderr
    import json

    j = json.loads(zilch("game", *base, "--scores", "500,700", "--beat", "400", "--json").stdout)
    assert j["beat"] == 400 and 0 < j["p_win"] < 1
    a = json.loads(zilch(*advise, "--beat", "400", "--json").stdout)
    assert a["situation"] == "game" and a["p_win_game"] == j["p_win"]
    # at the start of the turn, rolling is the game's chance from the table
    start = [*advise[: advise.index("--dice")], "--score", "500", "--opponents", "700"]
    s = json.loads(zilch(*start, "--beat", "400", "--json").stdout)
    assert s["p_win"]["roll"] == pytest.approx(j["p_win"], abs=1e-12)
    rows = json.loads(zilch("export", *base, "--objective", "game", "--format", "json").stdout)
    assert rows["columns"] == ["score", "opponent", "beat", "p_win"]
    got = {(r["score"], r["opponent"], r["beat"]): r["p_win"] for r in rows["rows"]}
    assert got[(500, 700, 400)] == pytest.approx(j["p_win"], abs=0)
    assert (
        "a bank must beat 400"
        in zilch("game", *base, "--scores", "500,700", "--beat", "400").stdout
    )
    assert (
        "part of his score"
        in zilch("game", *base, "--scores", "500,300", "--beat", "400", code=2).stderr
    )


@pytest.mark.slow  # a big simulation
def test_simulated_overtaking_games_match_the_table():
    """Games played with physical dice by the table's turns (each bank the next player's
    total to beat; the last turn by the last-turn solver under the bank to beat): the first
    player's results within 4 standard errors of the table's chance (farkle with overtaking
    to 1000)."""
    from .game_sim import play_overtaking_games

    g = _game(_farkle_overtaking(), 1000)
    res = play_overtaking_games(g, 20_000, np.random.default_rng(17))
    se = res.std() / np.sqrt(len(res))
    assert abs(res.mean() - g.p_win(0, 0)) < 4 * se, (res.mean(), g.p_win(0, 0), se)


def test_an_interrupted_game_solve_resumes_to_the_same_table(tmp_path):
    """As the plain game: a solve stopped after some sums (Ctrl-C) resumes from its
    checkpoint at the next sum and ends with the same table; the checkpoint is removed."""
    from dicesolver.objectives.last_turn import reach_bound
    from dicesolver.objectives.overtaking_game import solve_overtaking_game
    from dicesolver.store import Checkpoint

    from .solvers import interrupted_at

    rs = _farkle_overtaking()
    m = turn_model(rs)
    D = reach_bound(m)
    full = solve_overtaking_game(GameRun(m, D, 1000)).W
    ck = Checkpoint(tmp_path / "game.partial")
    seen: list[int] = []
    with pytest.raises(KeyboardInterrupt):
        solve_overtaking_game(GameRun(m, D, 1000, None, interrupted_at(15, seen), ck, 0))
    assert ck.path.exists()
    resumed: list[int] = []
    W = solve_overtaking_game(GameRun(m, D, 1000, None, resumed.append, ck, 0)).W
    assert resumed[0] == seen[-1] - 1 and not ck.path.exists()
    assert np.array_equal(W, full, equal_nan=True)
