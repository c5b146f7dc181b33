"""Issue 12: odd states answered right or refused, memory bounded, files handled safely."""

import json
import os
import stat

import numpy as np
import pytest

import dicesolver as ds
from dicesolver import rules
from dicesolver.store import Checkpoint, Store
from dicesolver.store import load as load_table

from .clirun import yahtzee, zilch
from .solvers import interrupted_at, solve_game


def js(*args, code=0):
    return json.loads(zilch(*args, "--json", code=code).stdout)


# --- wrong answers of before, each refused or right now --------------------------------------
def test_several_tied_leaders_share_a_tie_in_a_last_turn():
    """Farkle, 450 behind four tied leaders at 10050 with one die: banking makes a five-way
    tie, worth 2 * 0.5 / 5 = 0.2 (RULES.md: a tie is half a win, shared), so rolling (a 1 or
    a 5 hot dice then six dice... worth 1/3) is right."""
    d = js(
        "advise",
        "--dice",
        "1",
        "--turn",
        "450",
        "--score",
        "9600",
        "--opponents",
        "10050,10050,10050,10050",
    )
    assert d["action"] == "roll" and d["tied"] == 4
    assert d["p_win"]["bank"] == pytest.approx(0.2, abs=1e-15)
    assert d["p_win"]["roll"] == pytest.approx(1 / 3, abs=1e-12)
    one = js("advise", "--dice", "1", "--turn", "450", "--score", "9600", "--opponents", "10050")
    assert one["p_win"]["bank"] == pytest.approx(0.5, abs=1e-15)
    # two dice, 400 of 450: a lone 5 (8/36) ties with one die left; banking the tie is worth
    # 1/2 behind one leader (rolling: 1/3), 1/3 behind two, 1/4 behind three (roll: 1/3)
    two = [
        js(
            "advise",
            "--dice",
            "2",
            "--turn",
            "400",
            "--score",
            "9600",
            "--opponents",
            ",".join(["10050"] * k),
        )["p_win"]["roll"]
        for k in (1, 2, 3)
    ]
    assert two == pytest.approx(
        [12 / 36 + 8 / 36 / 2, 12 / 36 + 8 / 36 / 3, 12 / 36 + 8 / 36 / 3], abs=1e-15
    )


class _Wanderer:
    """A policy that takes a random choice and banks now and then, noting every state it
    is asked about: (state, at-risk units, permanent units)."""

    name = "wanderer"

    def __init__(self, seed):
        self.rng, self.seen = np.random.default_rng(seed), set()

    def choose(self, model, o, r, p, row=None):
        from dicesolver.play.policies import candidates

        opts, ch = candidates(model, o, r, p)
        k = np.argmax(ch.valid * self.rng.random(ch.valid.shape), axis=1)
        return opts[np.arange(len(opts)), k]

    def banks(self, s, r, p, row=None):
        self.seen.update(zip(s.tolist(), r.tolist(), p.tolist()))
        return self.rng.random(len(s)) < 0.15


@pytest.mark.parametrize("name", ["zilch-online", "zonk-detroit", "zilch"])
def test_no_state_that_a_turn_reaches_is_refused(name, tmp_path):
    """The other side of refusing impossible states: every state that simulated turns
    (random choices, physical dice) pass through is accepted, permanent points included."""
    from dicesolver.play.simulate import play_turns
    from dicesolver.tables import Tables
    from dicesolver.turn.state import TurnState

    rs = rules.load(name)
    tab = Tables(rs, Store(tmp_path))
    walk = _Wanderer(0)
    play_turns(tab.model, walk, 20_000, np.random.default_rng(1))
    u = rs.unit
    states = [TurnState(s or rs.dice, (r + p) * u, p * u) for s, r, p in walk.seen]
    assert len(states) > 300 and (name != "zilch-online" or any(t.permanent for t in states))
    for state in states:
        tab.check(state)


@pytest.mark.parametrize(
    "args",
    [
        [
            "advise",
            "--rules",
            "zilch-online",
            "--dice",
            "3",
            "--turn",
            "300",
            "--permanent",
            "-1500",
        ],
        [
            "endgame",
            "--rules",
            "zilch-online",
            "--deficit",
            "1000",
            "--dice",
            "3",
            "--turn",
            "300",
            "--permanent",
            "-1500",
        ],
        # an offer no bank leaves (4 dice at 200 in zonk-chicago), with scores too
        ["advise", "--rules", "zonk-chicago", "--take-over", "4,200"],
        [
            "advise",
            "--rules",
            "zonk-chicago",
            "--score",
            "100",
            "--opponents",
            "200",
            "--take-over",
            "4,200",
        ],
        ["advise", "--rules", "zonk-chicago", "--take-over", "5,300"],  # hot dice are rolled
        ["game", "--rules", "zilch-5000", "--target", "1000", "--scores", "100,0"],  # below 500
        ["verify", "--results", "/dev/null", "--alpha", "nan"],
        [
            "plot",
            "game",
            "--rules",
            "zonk-chicago",
            "--target",
            "1000",
            "--step",
            "-1",
            "--out",
            "g.png",
        ],
        ["advise", "--final-round", "--last-turn", "--score", "9000", "--opponents", "10000"],
    ],
)
def test_impossible_states_and_options_are_refused(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    if "plot" in args:
        zilch("game", "--rules", "zonk-chicago", "--target", "1000")
    err = zilch(*args, code=2).stderr.strip()
    assert "error" in err and "\n" not in err


def test_plot_without_extension_says_what_it_wrote(tmp_path):
    pytest.importorskip("matplotlib")
    res = zilch("plot", "endgame", "--rules", "zonk-chicago", "--out", str(tmp_path / "x"))
    assert (tmp_path / "x.png").read_bytes()[:4] == b"\x89PNG"
    assert f"wrote {tmp_path / 'x.png'}" in res.stderr


def test_strategy_card_says_why_a_dice_count_never_banks(tmp_path):
    """Hot dice optional, but a six-dice roll always scores (a no-score bonus): rolling six
    dice is always better, which is not "hot dice must be rolled"."""
    src = rules.canonical_source("farkle")
    src["patterns"].append({"kind": "no_score", "points": 500})
    f = tmp_path / "r.toml"
    f.write_text(_toml(src))
    assert js("odds", "--rules", str(f), "--dice", "6")["p_zilch"] == "0"
    out = zilch("strategy", "--rules", str(f)).stdout
    assert "never: rolling is worth more" in out and "hot dice must" not in out
    assert (
        "never free to bank (hot dice must be rolled)"
        in zilch("strategy", "--rules", "zonk-chicago").stdout
    )


def test_the_penalty_is_honoured_or_refused_never_left_out(tmp_path):
    """three_zilch_penalty: the single-turn answers model it; the last turn ignores the count
    rightly (a zilch there loses whatever it costs: the same chances as without the
    penalty); the game, which is not solved with it under an entry minimum yet, refuses in
    one line rather than answering without it."""
    src = rules.canonical_source("zilch-5000")
    src["game"]["target"] = 1000
    plain = str(tmp_path / "plain.toml")
    open(plain, "w").write(_toml(src))
    src["game"]["three_zilch_penalty"] = 500
    f = str(tmp_path / "pen.toml")
    open(f, "w").write(_toml(src))
    for args in (
        ["game"],
        ["advise", "--score", "600", "--opponents", "650"],
        ["export", "--objective", "game"],
    ):
        p = zilch(*args, "--rules", f, code=2)
        assert "three_zilch_penalty" in p.stderr and p.stderr.count("\n") == 1, args
    for args in (
        ["endgame", "--deficit", "500"],
        ["advise", "--score", "600", "--opponents", "1050"],
    ):
        assert js(*args, "--rules", f) == js(*args, "--rules", plain), args
    assert js("strategy", "--rules", f)["by_zilches"]["2"]["bank_thresholds"]


# --- files, folders and tables ----------------------------------------------------------------
@pytest.mark.parametrize("make", ["binary", "latin1", "nested", "fifo", "folder", "huge"])
def test_unreadable_rule_files_are_one_line(tmp_path, make):
    p = tmp_path / "r.toml"
    if make == "binary":
        p.write_bytes(bytes(range(256)) * 4)
    elif make == "latin1":
        p.write_bytes('name = "caf\xe9"\ndice = 6\n'.encode("latin-1"))
    elif make == "nested":
        p.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    elif make == "fifo":
        os.mkfifo(p)
    elif make == "folder":
        p.mkdir()
    else:
        p.write_text("# " + "x" * (2 << 20) + "\n")
    err = zilch("advise", "--rules", str(p), code=2).stderr.strip()
    assert str(p) in err and "\n" not in err


@pytest.mark.parametrize(
    "content, says",
    [
        ("score\n--5\n", "line 2"),
        ("300\n²\n", "line 2"),
        ("1" * 25 + "\n", "line 1"),
        ("12\n1.5\n", "line 2"),
        (b"\xff\xfe300\n", "UTF-8"),
        ("300\n" + "9" * 70000, "longer"),
    ],
)
def test_results_files_with_bad_cells_name_the_line(tmp_path, content, says):
    p = tmp_path / "s.csv"
    p.write_bytes(content if isinstance(content, bytes) else content.encode())
    err = zilch("verify", "--results", str(p), code=2).stderr.strip()
    assert says in err and "\n" not in err


def test_results_file_that_is_a_device_or_folder(tmp_path):
    for path in ("/dev/zero", str(tmp_path)):
        err = zilch("verify", "--results", path, code=2).stderr.strip()
        assert path in err and "\n" not in err


def test_verify_reads_a_large_file_in_chunks_and_counts_right(tmp_path, monkeypatch):
    """The results are counted chunk by chunk (a line cut by a chunk's end included): the
    same verdict as counting them at once."""
    import dicesolver.play.verify as V

    rng = np.random.default_rng(1)
    vals = rng.choice([0, 300, 350, 400, 1000, 50], 5000)
    p = tmp_path / "s.csv"
    p.write_text("score\n" + "\n".join(map(str, vals)) + "\n")
    monkeypatch.setattr(V, "CHUNK", 97)  # lines cut everywhere
    got = V.read_scores(str(p))
    t, c = np.unique(vals, return_counts=True)
    assert np.array_equal(got.totals, t) and np.array_equal(got.counts, c)
    p.write_text("a,score\n" + "\n".join(f"x,{v}" for v in vals) + "\n")  # a CSV column
    got = V.read_scores(str(p), "score")
    assert np.array_equal(got.totals, t) and np.array_equal(got.counts, c)


@pytest.mark.parametrize(
    "body", ["300\r\n0\r\n-50\r\n", "300\n\n0\n-50\n", " 300\n0 \n-50\n", "300\n0\n-50"]
)
def test_results_with_windows_lines_blanks_or_spaces_count_the_same(tmp_path, body):
    """Plain lines are parsed a chunk at a time, the others line by line: same counts."""
    from dicesolver.play.verify import read_scores

    p = tmp_path / "s.csv"
    p.write_bytes(body.encode())
    got = read_scores(str(p))
    assert got.totals.tolist() == [-50, 0, 300] and got.counts.tolist() == [1, 1, 1]


@pytest.mark.parametrize("where", ["file", "devnull"])
def test_tables_option_that_is_not_a_folder(tmp_path, where):
    path = tmp_path / "f" if where == "file" else "/dev/null"
    if where == "file":
        path.write_text("x")
    err = zilch("strategy", "--tables", str(path), code=2).stderr.strip()
    assert "not a folder" in err


def test_tables_in_proc_or_unwritable_still_answer():
    assert js("strategy", "--tables", "/proc/nowhere")["bank_thresholds"]["6"] == 16400


def test_a_table_path_that_is_a_fifo_or_folder_is_replaced_not_blocking(tmp_path):
    rs = rules.load("farkle")
    store = Store(tmp_path)
    os.mkfifo(store.path(rs.name, rs.table_key(), "score"))  # would block an open()
    (tmp_path / store.path(rs.name, rs.table_key(), "model").name).mkdir()
    assert js("strategy", "--tables", str(tmp_path))["bank_thresholds"]["6"] == 16400
    assert stat.S_ISREG(os.stat(store.path(rs.name, rs.table_key(), "score")).st_mode)


def test_a_crafted_table_with_a_valid_checksum_is_rebuilt(tmp_path):
    """A file that passes the checksum but whose arrays are not what the reader needs
    (another shape) is stale: rebuilt, never read."""
    from dicesolver.store import save

    rs = rules.load("farkle")
    store = Store(tmp_path)
    good = js("strategy", "--tables", str(tmp_path))
    path = store.path(rs.name, rs.table_key(), "score")
    header, arrays = load_table(path, {"objective": "score"})
    arrays = dict(arrays, **{"main.roll": np.zeros((2, 3, 4)), "reach": np.zeros((1, 1))})
    save(path, {k: v for k, v in header.items() if k not in ("layout", "format", "solver")}, arrays)
    assert load_table(path, {"objective": "score"}) is not None  # checksum fine
    assert js("strategy", "--tables", str(tmp_path)) == good
    # and one whose layout is garbage
    body = b'DICESOLVER-TABLE\n{"format": 1, "solver": 3, "layout": [{"name": "W", '
    body += b'"dtype": "O", "shape": [-1]}]}\n'
    import hashlib

    path.write_bytes(body + hashlib.sha256(body).digest())
    assert load_table(path, {}) is None
    assert js("strategy", "--tables", str(tmp_path)) == good


def test_tables_and_exports_are_written_with_the_users_umask(tmp_path, monkeypatch):
    """Not 0600 (mkstemp's): a shared table folder serves every user, and an exported
    table or a simulation's scores are the user's files like any other."""
    import dicesolver.files as F
    import dicesolver.store as S

    monkeypatch.setattr(F, "_UMASK", 0o027)
    S.save(tmp_path / "t.dst", {"objective": "x"}, {"W": np.zeros(3)})
    assert stat.S_IMODE(os.stat(tmp_path / "t.dst").st_mode) == 0o640
    zilch("export", "--out", str(tmp_path / "e.csv"))
    zilch("simulate", "--turns", "100", "--out", str(tmp_path / "s.csv"))
    for name in ("e.csv", "s.csv"):
        assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == 0o640


def test_left_over_temporary_files_are_removed_by_the_next_build(tmp_path):
    rs = rules.load("zilch")
    store = Store(tmp_path)
    path = store.path(rs.name, rs.table_key(), "score")
    tmp_path.mkdir(exist_ok=True)
    left = path.with_name(path.name + "abc123.tmp")  # a killed save's
    left.write_bytes(b"half")
    js("strategy", "--rules", "zilch", "--tables", str(tmp_path))
    assert not left.exists() and path.exists()


def test_checkpoints_are_best_effort_and_no_larger_than_the_table(tmp_path):
    """A piggyback game's checkpoint keeps only the offers worth taking (no larger than the
    final table); a checkpoint path that is a folder does not stop the solve; a resumed
    solve ends identical."""
    rs = rules.load("zonk-chicago")
    full = solve_game(rs, 1000)
    folder = Checkpoint(tmp_path / "dir.partial")
    folder.path.mkdir()
    assert np.array_equal(solve_game(rs, 1000, checkpoint=folder, checkpoint_every=0).W, full.W)
    ck = Checkpoint(tmp_path / "g.partial")
    seen: list[int] = []
    with pytest.raises(KeyboardInterrupt):
        solve_game(rs, 1000, progress=interrupted_at(30, seen), checkpoint=ck, checkpoint_every=0)
    store = Store(tmp_path / "t")
    zilch("game", "--rules", "zonk-chicago", "--target", "1000", "--tables", str(store.folder))
    table = store.path(rs.name, rs.table_key(), "game1000")
    assert ck.path.stat().st_size <= table.stat().st_size
    again = solve_game(rs, 1000, checkpoint=ck, checkpoint_every=0)
    assert np.array_equal(again.W, full.W) and np.array_equal(again.O.idx, full.O.idx)


# --- sizes -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "edit, key",
    [
        (lambda s: s["faces"].update({"1": [1, 0, 10**9, 0, 0, 0]}), "faces"),
        (lambda s: s.update(bank_minimum=10**9), "bank_minimum"),
    ],
)
def test_rule_sets_beyond_the_solvers_grids_are_refused(tmp_path, edit, key):
    src = rules.canonical_source("farkle")
    edit(src)
    f = tmp_path / "big.toml"
    f.write_text(_toml(src))
    err = zilch("strategy", "--rules", str(f), code=2).stderr.strip()
    assert key in err and "at most" in err


@pytest.mark.parametrize(
    "args, says",
    [
        (["game", "--target", "10000000"], "--target"),
        (["game", "--rules", "zonk-chicago", "--target", "100000"], "--target"),
        (["endgame", "--deficit", "1000000000"], "deficits up to"),
        (["endgame", "--final-round", "--scores", "10000," + ",".join(["9000"] * 30)], "players"),
        (
            ["advise", "--score", "9000", "--opponents", ",".join(["9000"] * 29) + ",10000"],
            "players",
        ),
        (["advise", "--turn", str(2**64)], "at most"),
        (["advise", "--score", str(10**30), "--opponents", "1000"], "at most"),
    ],
)
def test_work_beyond_the_machine_is_refused_with_the_estimate(args, says):
    err = zilch(*args, code=2).stderr.strip()
    assert says in err and "\n" not in err


def test_a_game_whose_turns_nearly_always_zilch_is_solved_to_its_precision(tmp_path):
    """Only six 6s score (a turn scores with probability 1/46656): the pair of turns'
    Newton step is ill-conditioned (1 - g g' ~ 4e-5) and stopped at 60 steps before.  Solved
    to the precision rounding leaves, it is a fixed point of the game: every turn's value
    from W is W again (the solve is exact; a plain value iteration would need millions of
    sweeps here)."""
    faces = {str(f): [0] * 6 for f in range(1, 6)} | {"6": [0, 0, 0, 0, 0, 600]}
    src = {"dice": 6, "faces": faces, "game": {"target": 1200}}
    f = tmp_path / "rare.toml"
    f.write_text(_toml(src))
    d = json.loads(zilch("game", "--rules", str(f), "--json").stdout)
    assert 0.5 < d["p_win"] < 0.5001
    g = solve_game(rules.load(str(f)))
    R = g.W.shape[0]
    pairs = np.array([(a, b) for a in range(R) for b in range(R)])
    again = g.turns(pairs).start().reshape(R, R)
    assert np.abs(again - g.W).max() < 1e-9


@pytest.mark.parametrize("hot", ["optional", "mandatory"])
def test_rules_whose_rolls_never_zilch_are_refused_with_the_reason(tmp_path, hot):
    """Every face scores 100: no roll zilches, a turn may roll on forever and its value has
    no bound (a singular tail before): the expected-points and game solves say so, one line;
    odds still answer."""
    faces = {str(i): [100, 0, 0, 0, 0, 0] for i in range(1, 7)}
    f = tmp_path / "endless.toml"
    f.write_text(_toml({"dice": 6, "hot_dice": hot, "faces": faces, "game": {"target": 1000}}))
    for args in (["strategy"], ["evaluate"], ["game"], ["simulate", "--turns", "10"]):
        err = zilch(*args, "--rules", str(f), code=2).stderr.strip()
        assert "go on forever" in err and "\n" not in err, args
    assert js("odds", "--rules", str(f))["p_zilch"] == "0"


def test_a_target_between_multiples_of_the_unit_is_reached_at_the_next_one(tmp_path):
    """RULES.md: reaching the target means a score at least the target; with 50-point units
    a target of 1025 is reached at 1050: its game is target 1050's, not 1000's."""
    p = {}
    for target in (1000, 1025, 1050):
        f = tmp_path / f"t{target}.toml"
        faces = {str(f): [0] * 5 for f in range(1, 7)}
        faces |= {"1": [100, 0, 1000, 0, 0], "5": [50, 0, 500, 0, 0]}
        game = {"target": target, "end": "instant"}
        f.write_text(_toml({"dice": 5, "faces": faces, "game": game}))
        p[target] = js("game", "--rules", str(f))["p_win"]
    assert p[1025] == p[1050] != p[1000]


def test_comma_lists_never_join_two_numbers():
    """ "10000 9000" is two scores missing a comma, not 100009000; spaces around are fine."""
    args = ["advise", "--dice", "3", "--turn", "300", "--score", "9000", "--opponents"]
    assert "comma-separated" in zilch(*args, "10000 9000", code=2).stderr
    assert js(*args, " 9500, 10000 ")["opponents"] == [9500, 10000]


def test_a_table_to_a_device_is_written_through_it():
    """--out /dev/null: written into the device, never renamed over it."""
    before = os.stat("/dev/null")
    assert "wrote" in zilch("export", "--out", "/dev/null").stderr
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


# --- the command line itself -----------------------------------------------------------------
def test_versions_and_json_errors():
    assert ds.__version__ in zilch("--version").stdout
    assert ds.__version__ in yahtzee("--version").stdout
    err = zilch("advise", "--dice", "9", "--json", code=2).stderr.strip()
    assert json.loads(err) == {"error": "--dice must be 1..6 under farkle, got 9", "exit_code": 2}
    assert json.loads(zilch("odds", "--nope", "--json", code=2).stderr)["exit_code"] == 2


def test_one_die_and_whole_fractions_read_naturally():
    assert "1 die to roll" in zilch("advise", "--dice", "1", "--turn", "300").stdout
    assert "1 die:" in zilch("odds", "--dice", "1").stdout


def test_every_option_has_help():
    import click

    from dicesolver.cli.yahtzee_commands import yahtzee_main
    from dicesolver.cli.zilch_commands import main

    def options(cmd):
        if isinstance(cmd, click.Group):
            for c in cmd.commands.values():
                yield from options(c)
        else:
            yield from ((cmd.name, p) for p in cmd.params if isinstance(p, click.Option))

    missing = [(n, p.opts) for g in (main, yahtzee_main) for n, p in options(g) if not p.help]
    assert not missing


def test_numba_without_a_writable_cache_still_compiles(monkeypatch):
    """A user without a writable home (or a read-only install): numba cannot cache, the
    kernel is compiled in memory instead."""
    import numba

    from dicesolver.yahtzee import numba_kernel as kernel

    real = numba.njit

    def refusing(*a, **kw):
        if kw.get("cache"):
            raise RuntimeError("cannot cache function 'f': no locator available for file 'x'")
        return real(*a, **kw)

    monkeypatch.setattr(kernel.numba, "njit", refusing)
    f = kernel.jit(lambda x: x + 1)
    assert f(2) == 3


def _toml(src: dict) -> str:
    """A rule-set dict as TOML (enough for these tests' files)."""

    def val(v):
        if isinstance(v, bool):
            return str(v).lower()
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(val(x) for x in v) + "]"
        return str(v)

    lines, tables = [], []
    for k, v in src.items():
        if k in ("faces", "game"):
            tables.append(f"[{k}]\n" + "".join(f"{a} = {val(b)}\n" for a, b in v.items()))
        elif k == "patterns":
            for p in v:
                tables.append("[[patterns]]\n" + "".join(f"{a} = {val(b)}\n" for a, b in p.items()))
        else:
            lines.append(f"{k} = {val(v)}")
    return "\n".join(lines) + "\n" + "\n".join(tables)


_BUILDER = """
import sys, time
import dicesolver.tables as T
real = T.solve_score
def slow(model):
    with open(sys.argv[2], "a") as f:
        f.write("solved\\n")
    time.sleep(1.5)                       # long enough for the other process to arrive
    return real(model)
T.solve_score = slow
from dicesolver.rules import load
from dicesolver.store import Store
print(T.Tables(load("zilch"), Store(sys.argv[1])).score.bank_thresholds()[1])
"""


def test_a_second_process_waits_for_the_first_build_instead_of_repeating_it(tmp_path):
    import subprocess
    import sys

    log = tmp_path / "builds.log"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _BUILDER, str(tmp_path / "t"), str(log)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0] and outs[0] == outs[1]
    assert log.read_text().count("solved") == 1
