"""The game among three players or more (objectives/nplayer_game.py, solved on Dask by
cluster.py into a Zarr table, layer_store.py): issue 15's checks."""

import json
import os
import signal

import numpy as np
import pytest

from dicesolver import cluster
from dicesolver.errors import InputError
from dicesolver.objectives import nplayer_game as NG
from dicesolver.objectives.game_run import GameRun
from dicesolver.rules import load
from dicesolver.store import Store
from dicesolver.tables import Tables

from . import nplayer_valueiteration as NP
from .clirun import zilch
from .game_sim import play_nplayer_games
from .solvers import Steps, game_table, preset_file, small_rules


def _tables(rs, tmp_path) -> Tables:
    return Tables(rs, Store(tmp_path))


def _serial(rs, N, batch=NG.ORBITS_PER_TASK, game=False):
    """The same solve in this process (no cluster), batches of the cluster's size: V, or
    the NPlayerGame (game=True)."""
    tab = Tables(rs, Store.resolve())
    R = rs.reach_units()
    D = 0 if rs.end == "instant" else tab.reach_bound
    fin = NG.solve_finals(tab.model, R, N, D)
    V = NG.solve_serial(tab.model, R, N, fin, batch)
    return NG.NPlayerGame(tab.model, rs.target, V, fin) if game else V


@pytest.mark.parametrize(
    "name, target", [pytest.param("farkle", 2000, marks=pytest.mark.slow), ("zilch", 750)]
)  # (slow: farkle's, the larger)
def test_two_players_through_the_nplayer_path_equal_the_two_player_solver(name, target, tmp_path):
    """N = 2 through the N-player path (a LocalCluster, the Zarr table, the final round
    from final_round.solve_final_round by score differences) equals the two-player game
    table to 1e-12 in every state: farkle (final round), zilch (entry minimum, forced
    set-aside, mandatory hot dice)."""
    rs = load(name)
    tab = _tables(rs, tmp_path)
    from dicesolver.variants.nplayer import NPlayer

    g = game_table(tab, 2, target, variant=NPlayer, workers=1)
    W = game_table(tab, target=target).W
    assert g.V.shape == W.shape + (2,)
    assert np.abs(g.V[..., 0] - W).max() < 1e-12
    assert np.abs(g.V.sum(-1) - 1).max() < 1e-12


SLOW = pytest.mark.slow  # the larger value iterations (the quickest of each stay quick)
VI_CASES = [
    ((3, "any", "optional"), {}, "instant", 500),
    ((3, "any", "optional"), {}, "final_round", 500),
    ((3, "forced", "mandatory"), {"entry": 300}, "instant", 500),
    ((3, "forced", "optional"), {"bank": 100}, "final_round", 500),
    # a bank minimum (3 units) over the room one unit below an instant-end target: each
    # row's grid reaches its minimum (bank_values; it banked 50 there, 0.195 off)
    ((3, "forced", "optional"), {"bank": 150}, "instant", 500),
    pytest.param((3, "any", "optional"), {}, "final_round", 1000, marks=SLOW),
]


@pytest.mark.parametrize("args, kw, end, target", VI_CASES)
def test_three_players_equal_the_plain_value_iteration(args, kw, end, target):
    """Three players (3 dice; targets 500 and 1000; instant end and final round; entry and
    bank minimums, forced set-aside with mandatory hot dice): every state's three chances
    equal the plain value iteration over the whole state space (scores, dice, turn total;
    tests/nplayer_valueiteration.py) to 1e-9 (measured 1.8e-13 .. 4.5e-13), and sum to 1."""
    rs = small_rules(*args, **kw, game={"target": target, "end": end})
    R = rs.reach_units()
    V = _serial(rs, 3)
    ref = NP.nplayer_game(rs, R, R + 6, 3)  # (turn totals past R + 6: 1e-13 and below)
    assert V.shape == ref.shape == (R, R, R, 3)
    assert np.abs(V - ref).max() < 1e-9
    assert np.abs(V.sum(-1) - 1).max() < 1e-12


def _solved_with_mixed(rs, N):
    """The game solved in this process, and {score tuple: its chances} of every state of
    the orbits whose movers mix (nplayer_game.mixed_orbit: their best replies cycle)."""
    mixed = []
    orig = NG.mixed_orbit

    def spy(model, states, *args):
        got = orig(model, states, *args)
        mixed.append(states)
        return got

    NG.mixed_orbit = spy
    try:
        g = _serial(rs, N, game=True)
    finally:
        NG.mixed_orbit = orig
    states = np.concatenate(mixed) if mixed else np.zeros((0, N), np.int64)
    return g, {tuple(int(x) for x in s): g.V[tuple(s)] for s in states}


def _pure_replies(g, states):
    """(B, N): every seat's chance when the movers of `states` play the policy the solver's
    tie-break picks against the table (A + g P V(rot s))."""
    t = g.turns(states)
    nxt = g.V[tuple(NG.rotate(states).T)]
    return t.A + t.g[:, None] * np.roll(nxt, 1, axis=1)


MANY_CASES = [  # (..., the held states whose movers have two pure best replies)
    pytest.param(
        4, (3, "any", "optional"), {}, {"end": "final_round", "target": 400}, 0, marks=SLOW
    ),
    pytest.param(
        4,
        (3, "forced", "optional"),
        {"bank": 100},
        {"end": "final_round", "target": 400},
        0,
        marks=SLOW,
    ),
    (4, (3, "any", "optional"), {"entry": 100}, {"end": "final_round", "target": 300}, 0),
    (4, (3, "any", "optional"), {}, {"end": "instant", "target": 300}, 0),
    pytest.param(
        6, (3, "any", "optional"), {}, {"end": "final_round", "target": 150}, 2, marks=SLOW
    ),
]


@pytest.mark.slow  # (a full-size reference: the slow tier)
@pytest.mark.parametrize("N, args, kw, game, ties", MANY_CASES)
def test_four_and_six_players_equal_the_plain_value_iteration(N, args, kw, game, ties):
    """Four and six players (3 dice; final round with bank and entry minimums, forced
    set-aside; instant end): every state's chances equal the plain value iteration
    (tests/nplayer_valueiteration.py, its final round for any N built player by player
    with the leaders' set explicit) to 1e-9, and sum to 1.  Where the movers' best replies
    cycle (a final round among four or more: the orbit of (R-2, R-1, R-1, R-1) and others),
    the value iteration cannot settle: the solver's mixed equilibrium is held there, and
    each mover's best pure reply to it (the iteration's own Bellman update) is worth
    exactly his chance in it: no mover gains by leaving it (measured 1e-16 .. 4e-15); and
    that reply, every seat's chance, is the policy the solver's tie-break picks there, but
    where the mover has two pure best replies of equal chance (six players: the movers of
    (2, 1, 1, 0, 1, 1) and (2, 0, 2, 1, 0, 0)), which the two codes' tie-breaks pick apart
    at a rounding-level tie.  (The mix's other policy and its weight are checked only
    through the mover's indifference.)"""
    rs = small_rules(*args, **kw, game=game)
    R = rs.reach_units()
    g, mixed = _solved_with_mixed(rs, N)
    V = g.V
    got = NP.nplayer_game(rs, R, R + 6, N, fixed=mixed)
    ref, best = got if mixed else (got, None)
    assert V.shape == ref.shape == (R,) * N + (N,)
    assert np.abs(V - ref).max() < 1e-9
    assert np.abs(V.sum(-1) - 1).max() < 1e-12
    assert bool(mixed) == (rs.end != "instant")  # (no cycles where the target wins at once)
    if mixed:
        held = np.array(list(mixed.values()))
        assert np.abs(best[:, 0] - held[:, 0]).max() < 1e-9
        apart = np.abs(best - _pure_replies(g, np.array(list(mixed)))).max(1)
        assert (apart > 1e-9).sum() == ties


def _best_replies(rs, N, V, mixed):
    """The mover's best pure reply in every state (the value iteration's Bellman update with
    every start of a turn held at the table V) minus the table: the whole vector where he
    plays pure, his own chance where he mixes ((R,)*N gaps)."""
    R = rs.reach_units()
    every = np.indices((R,) * N).reshape(N, -1).T
    held = {tuple(int(x) for x in s): V[tuple(s)] for s in every}
    _, best = NP.nplayer_game(rs, R, R + 6, N, fixed=held)
    gap = np.abs(best - np.array(list(held.values())))
    mixes = np.array([s in mixed for s in held])
    return np.where(mixes, gap[:, 0], gap.max(1)).reshape((R,) * N)


@pytest.mark.slow  # (a full-size reference: the slow tier)
def test_a_tie_worth_more_than_half_a_win_is_an_equilibrium():
    """Four players, a tie worth 0.8 of a win (3 dice, final round, target 300: ties in the
    final round pay more than a share of one win, the chances sum to more than 1): every
    state's chances are the mover's best reply to the table (to 1e-9), the final round's
    ties from the value iteration's own final round.  (A plain value iteration does not
    settle here even with the mixed orbits held: its movers all change at once, and some
    orbit's best replies alternate where the solver's one-seat-at-a-time steps settle.)"""
    N = 4
    rs = small_rules(3, "any", "optional", game={"target": 300, "end": "final_round", "tie": 0.8})
    g, mixed = _solved_with_mixed(rs, N)
    V = g.V
    assert _best_replies(rs, N, V, mixed).max() < 1e-9
    assert V.sum(-1).max() > 1 + 1e-3  # (ties reached, worth 1.6 wins in all)


def test_two_players_with_a_tie_worth_more_than_half_through_the_nplayer_path():
    """A tie worth 0.8 of a win, two players (3 dice, final round, target 500): the chances
    sum to more than 1, so the two-player solver (the opponent's chance 1 - the mover's)
    refuses the rules in one line (it was 0.089 off); the N-player path carries both
    seats and equals the plain value iteration to 1e-9 (measured 1.2e-13)."""
    from dicesolver.objectives.plain_game import check_supported

    rs = small_rules(3, "any", "optional", game={"target": 500, "end": "final_round", "tie": 0.8})
    with pytest.raises(InputError, match="tie worth 0.8"):
        check_supported(rs)
    V = _serial(rs, 2)
    ref = NP.nplayer_game(rs, rs.reach_units(), rs.reach_units() + 6, 2)
    assert np.abs(V - ref).max() < 1e-9
    assert V.sum(-1).max() > 1 + 1e-3


def test_play_and_game_with_a_tie_worth_more_than_half(tmp_path):
    """farkle with a tie worth 0.8 of a win (a rule file): zilch game (two players) refuses
    it in one line; zilch play still plays, its computer by expected points."""
    from click.testing import CliRunner

    from dicesolver.cli import main

    path = preset_file(tmp_path, "farkle", 500, "tie = 0.8")
    res = zilch("game", "--rules", str(path), "--tables", str(tmp_path / "t"), code=2)
    assert "tie worth 0.8" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    args = ["play", "--rules", str(path), "--seed", "2", "--tables", str(tmp_path / "t")]
    args += ["--log", str(tmp_path / "p.jsonl")]
    res = CliRunner().invoke(main, args, input="best\n" * 400)
    assert res.exit_code == 0, res.output
    assert "plays by expected points" in res.output and "your review:" in res.output


@pytest.mark.slow
def test_five_players_table_is_an_equilibrium_of_several():
    """Five players (3 dice, final round, target 250): every state's chances are the
    mover's best reply to the table (the value iteration's Bellman update with every
    start of a turn held at the table: equal to 1e-9; where the movers mix, the mover's own
    chance).  The game among five has more than one stationary equilibrium: a plain value
    iteration (the mixed orbits held) settles at the orbit of (1, 3, 3, 2, 2) and below on
    another one, 0.006 away, also an equilibrium (it settled, and no mover of the held
    mixed orbits gains by leaving them); the solver's is the one its best replies reach
    from the neighbour's values (docs/method.md)."""
    N = 5
    rs = small_rules(3, "any", "optional", game={"target": 250, "end": "final_round"})
    R = rs.reach_units()
    g, mixed = _solved_with_mixed(rs, N)
    V = g.V
    assert mixed and _best_replies(rs, N, V, mixed).max() < 1e-9
    other, best = NP.nplayer_game(rs, R, R + 6, N, fixed=mixed)
    held = np.array(list(mixed.values()))
    assert np.abs(best[:, 0] - held[:, 0]).max() < 1e-9  # an equilibrium too
    apart = np.abs(other - V).max(-1)
    assert apart.max() > 1e-3 and apart[3, 3, 3, 3, 3] < 1e-9


@pytest.mark.parametrize("entry", [0, 300])
def test_final_key_count_counts_the_keys(entry):
    """final_key_count (the solve's estimate) = len(final_keys): 3 to 6 players, with and
    without an entry minimum (keys whose lowest score is 0, or 0 or 1)."""
    for N in range(3, 7):
        for target in (200, 450):
            rs = small_rules(3, "any", "optional", entry=entry, game={"target": target})
            R = rs.reach_units()
            assert NG.final_key_count(rs, R, N) == len(NG.final_keys(rs, R, N))


def _on_cluster(rs, N, folder, workers, batch, progress=None, final_progress=None):
    """The N-player table solved on a LocalCluster of `workers` in batches of `batch`
    orbits (small: many tasks per score sum), read back."""
    from dicesolver.layer_store import LayerStore, nplayer_meta

    tab = Tables(rs, Store(folder))
    R, D = rs.reach_units(), (0 if rs.end == "instant" else tab.reach_bound)
    store = LayerStore(folder / "t.zarr", nplayer_meta(rs, N, rs.target, R, D, batch))
    with cluster.client_for(workers) as client:
        if progress is not None:
            progress = progress(client)
        run = GameRun(tab.model, D, progress=progress)
        cluster.solve_nplayer(run, N, store, client, batch, final_progress)
    values, keys, rel = store.read()
    fin = NG.FinalTable.of(rs, R, D, keys, rel)
    return NG.NPlayerGame.from_values(tab.model, rs.target, N, R, values, fin).V


@pytest.mark.slow  # Dask, two workers
def test_one_and_two_workers_give_identical_tables(tmp_path):
    """A LocalCluster of 1 worker and one of 2 give the same table bit for bit (batches of
    4 orbits: up to 7 tasks per score sum, shared by the workers), equal to the solve in this
    process with the same batches and with other batches (one per sum at most 256 orbits, and
    1 orbit each): an orbit's values do not depend on the orbits solved with it.  The
    final round's tasks report their progress one by one."""
    rs = small_rules(3, "any", "optional", game={"target": 500, "end": "final_round"})
    one = _on_cluster(rs, 3, tmp_path / "one", 1, 4)
    reports: list = []
    two = _on_cluster(rs, 3, tmp_path / "two", 2, 4, None, lambda *r: reports.append(r))
    n = -(-len(NG.final_keys(rs, rs.reach_units(), 3)) // cluster.FINAL_KEYS)  # its tasks
    assert reports == [(k, n) for k in range(1, n + 1)]
    assert np.array_equal(one, two)
    assert np.array_equal(one, _serial(rs, 3, batch=4))
    assert np.array_equal(one, _serial(rs, 3))
    assert np.array_equal(one, _serial(rs, 3, batch=1))


@pytest.mark.parametrize("end", ["instant", pytest.param("final_round", marks=SLOW)])
def test_simulated_games_reproduce_each_seats_chance(end, tmp_path):
    """10 000 three-player games with physical dice (each turn the mover's solved turn,
    the final round's last turns by their own solvers): each seat's share of wins is within
    4 standard errors of the table's chance from 0-0-0."""
    rs = small_rules(3, "any", "optional", game={"target": 500, "end": end})
    g = game_table(_tables(rs, tmp_path), 3, workers=1)
    res = play_nplayer_games(g, 10_000, np.random.default_rng(15))
    mean, se = res.mean(0), res.std(0) / np.sqrt(len(res))
    exact = g.p_win([0, 0, 0])
    print(f"\n{end}: simulated {mean}, exact {exact}")
    assert np.all(np.abs(mean - exact) < 4 * se)
    assert abs(res.sum(1).mean() - 1) < 1e-12


@pytest.mark.slow  # big simulations
@pytest.mark.parametrize("N", [4, 5])
def test_simulated_final_rounds_reproduce_each_seats_chance(N):
    """The final round among four and five players: 10 000 rounds with physical dice from
    a banker at R + 2 units and the others at R - 3, R - 6, R - 1 (, R - 2), each later
    player's turn by his own solved policy (the middle ones from solve_final_round, the
    last from the last-turn solver): each seat's share of wins is within 4 standard errors
    of the final-round table's chance (nplayer_game.final_rows)."""
    from types import SimpleNamespace

    from .game_sim import _final_round

    rs = small_rules(3, "any", "optional", game={"target": 500, "end": "final_round"})
    tab = Tables(rs, Store.resolve())
    R, D = rs.reach_units(), tab.reach_bound
    others = np.array([[R - 3, R - 6, R - 1, R - 2][: N - 1]])
    keys, _ = NG._key_of(rs, others)
    fin = NG.FinalTable(rs, R, D, keys, NG.final_rows(tab.model, R, D, keys))
    exact = fin.values(np.array([[R + 2]]), others)[0, 0]
    rng, cache = np.random.default_rng(N), {}
    res = np.zeros((10_000, N))
    for i in range(len(res)):
        final = np.array([R + 2, *others[0]])
        _final_round(tab.model, SimpleNamespace(finals=fin), final, list(range(N)), cache, rng)
        top = final == final.max()
        res[i] = np.where(top, rs.share(int(top.sum())), 0.0)
    mean, se = res.mean(0), res.std(0) / np.sqrt(len(res))
    print(f"\n{N} players: simulated {mean}, exact {exact}")
    assert np.all(np.abs(mean - exact) < 4 * se)
    assert abs(exact.sum() - 1) < 1e-12


@pytest.mark.slow  # Dask
def test_interrupted_solve_resumes_at_the_next_score_sum(tmp_path):
    """A solve stopped after some score sums keeps them (the partial Zarr folder); the
    next solve starts below them and gives the identical table."""
    rs = small_rules(3, "any", "optional", game={"target": 500, "end": "final_round"})
    tab = _tables(rs, tmp_path)
    sums = "solving score sums"
    seen = Steps(stop=(sums, 8))  # (the 28 sums 27 .. 0: stopped after sum 20)
    with pytest.raises(KeyboardInterrupt):
        game_table(tab, 3, progress=seen, workers=1)
    assert game_table(tab, 3, solve=False) is None  # nothing half-written
    assert any("the next run resumes from" in n for n in seen.notes)  # (where, and its size)
    again = Steps()
    g = game_table(tab, 3, progress=again, workers=1)
    assert seen.of(sums) == [[sums, 3 * 9 + 1, 8]] and again.of(sums) == [[sums, 20, 20]]
    assert np.array_equal(g.V, _serial(rs, 3))


@pytest.mark.slow  # Dask, two workers
def test_a_worker_lost_mid_solve_changes_nothing(tmp_path):
    """A worker killed in the middle of a solve (SIGKILL, between two score sums: the next
    sum's tasks sent to it are lost with it; batches of 4 orbits, so both workers hold
    tasks): Dask runs them again, on the other worker and on its replacement (which reads
    the table's sums afresh), and the table is identical."""
    rs = small_rules(3, "any", "optional", game={"target": 500, "end": "final_round"})

    def killer(client):
        pids = list(client.run(os.getpid).values())
        assert len(pids) == 2

        def kill_one(sigma):
            if sigma == 15:
                os.kill(pids[0], signal.SIGKILL)

        return kill_one

    got = _on_cluster(rs, 3, tmp_path, 2, 4, killer)
    assert np.array_equal(got, _serial(rs, 3, batch=4))


@pytest.mark.filterwarnings("ignore:Port .* is already in use")
@pytest.mark.slow  # Dask
def test_an_existing_cluster_through_its_scheduler_address(tmp_path):
    """--scheduler: the same solve on a cluster started elsewhere (here a LocalCluster of
    this test, reached by its address only), the table in a folder its worker sees, equal
    to the solve in this process; --workers with --scheduler is refused."""
    from distributed import LocalCluster

    rs = small_rules(3, "any", "optional", game={"target": 500, "end": "instant"})
    tab = _tables(rs, tmp_path)
    with LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=None) as c:
        with pytest.raises(InputError, match="leave it out with --scheduler"):
            game_table(tab, 3, workers=1, scheduler=c.scheduler_address)
        g = game_table(tab, 3, scheduler=c.scheduler_address)
    assert np.array_equal(g.V, _serial(rs, 3))


@pytest.mark.slow  # Dask
def test_a_damaged_table_is_not_trusted(tmp_path):
    """A stored table whose values were altered (its checksum no longer matches) is not
    read: a query that never solves gets None, a solve rebuilds the same table."""
    import zarr

    rs = small_rules(3, "any", "optional", game={"target": 500, "end": "instant"})
    tab = _tables(rs, tmp_path)
    g = game_table(tab, 3, workers=1)
    (folder,) = tmp_path.glob("*.zarr")
    arr = zarr.open_array(str(folder / "values"), mode="r+")
    arr[0] = [0.5, 0.25, 0.25]
    assert game_table(tab, 3, solve=False) is None
    assert np.array_equal(game_table(tab, 3, workers=1).V, g.V)


@pytest.mark.slow
def test_mixed_orbit_leaves_each_mixing_mover_indifferent():
    """farkle, three players to 2000: some orbits' best replies cycle (each mover's best
    policy flips with the other's); the solver's mixed equilibrium there leaves the mover
    indifferent between his two policies and no mover better off with another (re-solved:
    the best reply's value equals the table's to 1e-12)."""
    rs = load("farkle")
    tab = Tables(rs, Store.resolve())
    R = rs.reach_units(2000)
    fin = NG.solve_finals(tab.model, R, 3, tab.reach_bound)
    V = np.full((R, R, R, 3), np.nan)
    mixed = []
    orig = NG.mixed_orbit

    def spy(model, states, U, nxt, options):
        got = orig(model, states, U, nxt, options)
        mixed.append((states, got))
        return got

    NG.mixed_orbit = spy
    try:
        for sigma in range(3 * (R - 1), 76, -1):
            for states in NG.orbit_batches(sigma, R, 3, NG.ORBITS_PER_TASK):
                V[tuple(states.T)] = NG.solve_batch(
                    tab.model, states, R, lambda s: V[tuple(s.T)], fin
                )
    finally:
        NG.mixed_orbit = orig
    assert mixed, "no cycling orbit above score sum 76"
    g = NG.NPlayerGame(tab.model, 2000, np.where(np.isnan(V), 0.0, V), fin)
    for states, got in mixed:
        turns = g.turns(states)
        z = V[tuple(NG.rotate(states).T)][:, 2]
        best = turns.A[:, 0] + turns.g * z
        assert np.abs(best - got[:, 0]).max() < 1e-12
        assert np.abs(got.sum(1) - 1).max() < 1e-12


@pytest.mark.slow  # (a full-size reference: the slow tier)
def test_cli_game_with_three_players(tmp_path):
    """zilch game --players 3: a list of chances, one per seat from the given scores, that
    sum to 1; --fairness gives the seats from the start and the first seat's edge."""
    rs = ["--rules", "farkle", "--target", "500", "--players", "3", "--workers", "1"]
    out = json.loads(zilch("game", *rs, "--scores", "300,0,450", "--json").stdout)
    assert out["players"] == 3 and out["scores"] == [300, 0, 450]
    assert len(out["p_win"]) == 3 and abs(sum(out["p_win"]) - 1) < 1e-12
    fair = json.loads(zilch("game", *rs, "--fairness", "--json").stdout)
    assert abs(fair["first_edge"] - (fair["p_win"][0] - 1 / 3)) < 1e-15
    assert "seat 3" in zilch("game", *rs).stdout


@pytest.mark.slow
def test_cli_game_with_four_players_and_a_final_round(tmp_path):
    """zilch game --players 4 under rules with a final round (farkle to 200, a rule file;
    1 worker): every seat's chance from the given scores, as the solve in this process
    gives them (to 1e-15), summing to 1."""
    path = preset_file(tmp_path, "farkle", 200)
    args = ["--rules", str(path), "--players", "4", "--workers", "1"]
    args += ["--tables", str(tmp_path / "t"), "--scores", "100,0,150,50", "--json"]
    out = json.loads(zilch("game", *args).stdout)
    rs = load(str(path))
    assert rs.end != "instant" and out["players"] == 4
    assert out["p_win"] == pytest.approx(list(_serial(rs, 4)[2, 0, 3, 1]), abs=1e-15)
    assert abs(sum(out["p_win"]) - 1) < 1e-12


@pytest.mark.parametrize(
    "args, words",
    [
        (["--players", "1"], "--players must be 2 to 6"),
        (["--players", "7"], "--players must be 2 to 6"),
        (["--players", "3", "--scores", "0,0"], "2 scores given for 3 players"),
        (["--players", "3", "--scores", "0,0,10000"], "is over there"),
        (["--players", "3", "--scores", "0,0,25"], "multiple"),
        (["--players", "3", "--workers", "0"], "at least 1"),
        (["--players", "3", "--fairness", "--scores", "0,0,0"], "leave out --scores"),
        (["--players", "3", "--zilches", "1"], "two-player game"),
        (["--workers", "2"], "three players or more"),
        (["--rules", "zonk-chicago", "--players", "3"], "piggyback"),
        (["--players", "3", "--scheduler", "tcp://127.0.0.1:9"], "cannot reach"),
    ],
)
def test_cli_nplayer_refusals(args, words):
    """Bad N-player input: one line on stderr, exit 2, before any solve."""
    if "--rules" not in args:
        args = ["--rules", "farkle", "--target", "550"] + args  # (a table never solved)
    res = zilch("game", *args, code=2)
    assert words in res.stderr and len(res.stderr.strip().splitlines()) == 1


@pytest.fixture(scope="module")
def rules_500(tmp_path_factory):
    """farkle to 500 as a rule file (the preset's text, its target changed), its
    three-player table solved (1 worker) into a folder of its own: (rules, tables)."""
    folder = tmp_path_factory.mktemp("nplayer")
    path = preset_file(folder, "farkle", 500)
    tables = str(folder / "tables")
    zilch("game", "--rules", str(path), "--players", "3", "--workers", "1", "--tables", tables)
    return str(path), tables


def test_advise_with_two_opponents_reads_the_nplayer_table(rules_500, tmp_path):
    """advise --score S --opponents A,B: ROLL/BANK by P(win) from the stored three-player
    table, the values those of the mover's turn from that state (NPlayerGame.turn), the
    start of the turn every seat's chance of the table; without it (and without the
    two-player table the approximate P(win) reads): no advice and how to build either."""
    rules, tables = rules_500
    args = ["--rules", rules, "--tables", tables, "--score", "100", "--opponents", "250,300"]
    args.append("--json")
    a = json.loads(zilch("advise", "--dice", "2", "--turn", "300", *args).output)
    assert a["situation"] == "game" and a["action"] in ("roll", "bank")
    g = game_table(Tables(load(rules), Store(tables)), 3, solve=False)
    sol = g.turn([100, 250, 300]).sol
    assert a["p_win"]["roll"] == pytest.approx(sol.roll[0, 2, 6], abs=1e-15)
    assert a["p_win"]["bank"] == pytest.approx(sol.bank[0, 2, 6], abs=1e-15)
    assert a["action"] == ("bank" if sol.bank[0, 2, 6] >= sol.roll[0, 2, 6] else "roll")
    start = json.loads(zilch("advise", "--dice", "6", *args).output)
    assert start["p_win_seats"] == pytest.approx(list(g.p_win([100, 250, 300])), abs=1e-15)
    assert start["p_win"]["roll"] == pytest.approx(start["p_win_seats"][0], abs=1e-12)
    four = ["--rules", rules, "--tables", tables, "--dice", "6", "--score", "0"]
    none = zilch("advise", *four, "--opponents", "0,0,0", code=3).stderr
    assert "is not solved yet" in none and "approximate P(win)" in none and "--players 4" in none
    other = str(tmp_path / "none")
    missing = zilch("advise", *four, "--opponents", "0,0", "--tables", other, code=3).stderr
    assert "is not solved yet" in missing and "--players 3" in missing


def test_export_and_plot_the_nplayer_table(rules_500, tmp_path):
    """export --objective game --players 3: one row per score tuple, each seat's chance,
    equal to the table; plot game --players 3 --others X writes the picture."""
    import csv
    import io

    rules, tables = rules_500
    base = ["--rules", rules, "--tables", tables, "--players", "3"]
    out = zilch("export", *base, "--objective", "game", "--format", "csv").output
    rows = list(csv.DictReader(io.StringIO(out)))
    g = game_table(Tables(load(rules), Store(tables)), 3, solve=False)
    assert len(rows) == g.R**3
    r = next(r for r in rows if (r["score_1"], r["score_2"], r["score_3"]) == ("100", "0", "450"))
    assert [float(r[f"p_win_{k}"]) for k in (1, 2, 3)] == list(g.p_win([100, 0, 450]))
    pic = tmp_path / "slice.png"
    zilch("plot", "game", *base, "--others", "200", "--out", str(pic))
    assert pic.stat().st_size > 10_000
    res = zilch("plot", "game", *base, "--others", "525", "--out", str(pic), code=2)
    assert "--others 525" in res.stderr
