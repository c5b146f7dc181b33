"""The N-player table under attack (issue 26, findings 1-5): every member of the stored Zarr
table and every layer of its checkpoint damaged, paths in the way, bad schedulers, Ctrl-C.
Zero wrong answers (a damaged table is rebuilt bit for bit, or refused), zero hangs (every
command that could wait runs in a subprocess with a time limit, the cluster with a short
--timeout), zero tracebacks.  All on a tiny game: three dice to 300 (6 units: 216 states,
16 score sums), one worker."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from dicesolver import cluster, layer_store
from dicesolver.errors import InputError
from dicesolver.layer_store import LayerStore
from dicesolver.objectives.game_run import GameRun, Where
from dicesolver.store import Store
from dicesolver.tables import Tables

from .clirun import zilch
from .solvers import Recorder, game_table, small_rules

RULES = dict(dice=3, set_aside="any", hot="optional", game={"target": 300, "end": "final_round"})
RULE_FILE = """dice = 3
set_aside = "any"
hot_dice = "optional"

[faces]
1 = [100, 0, 1000]
2 = [0, 0, 200]
3 = [0, 0, 300]
4 = [0, 0, 400]
5 = [50, 0, 500]
6 = [0, 0, 600]

[game]
target = 300
end = "final_round"
"""
TOP = 3 * 5  # the highest score sum: three scores below 6 units
ZILCH = str(Path(sys.executable).with_name("zilch"))
LIMIT = 120  # seconds a subprocess may take before the test calls it a hang


def _rules():
    rs = small_rules(RULES["dice"], RULES["set_aside"], RULES["hot"], game=RULES["game"])
    return rs


def _tables(folder) -> Tables:
    return Tables(_rules(), Store(folder))


def _store(folder) -> LayerStore:
    """The LayerStore of the game's table in `folder` (as the N-player variant makes it)."""
    from dicesolver.variants.nplayer import NPlayer

    v = NPlayer(_rules())
    return v.layers(_tables(folder), v.key(3, None))


def _solve(folder, scheduler, progress=None) -> np.ndarray:
    """The table solved into `folder` as zilch game does (cluster.solve: the paths checked,
    the cluster reached, the checkpoint resumed) on the module's cluster, progress(sigma)
    after each score sum; its values."""
    tab = _tables(folder)
    run = GameRun(tab.model, tab.reach_bound, progress=progress)
    cluster.solve(run, 3, _store(folder), Where(scheduler=scheduler))
    return _read(folder)


def _read(folder):
    """The stored table's values, or None where a query gets none."""
    g = game_table(_tables(folder), 3, solve=False)
    return None if g is None else g.V


def _run(*args, timeout=LIMIT, **kw):
    """zilch in a subprocess: a hang is a failure after `timeout` seconds, not a stuck suite."""
    res = subprocess.run([ZILCH, *args], capture_output=True, text=True, timeout=timeout, **kw)
    assert "Traceback" not in res.stderr, res.stderr
    return res


@pytest.fixture(scope="module")
def scheduler():
    """One local cluster (one worker) for the module's rebuilds, by its address."""
    with cluster.local_cluster(1) as c:
        yield c.scheduler_address


@pytest.fixture(scope="module")
def pristine(tmp_path_factory, scheduler):
    """The table solved once into a folder of its own: (folder, its values V), the rule file
    (the same rules, so the same table) and a folder with no table at all."""
    root = tmp_path_factory.mktemp("battery")
    folder = root / "pristine"
    V = _solve(folder, scheduler)
    rules = root / "small.toml"
    rules.write_text(RULE_FILE)
    return folder, V, str(rules), root / "empty"


def _copy(pristine, tmp_path) -> Path:
    folder = tmp_path / "t"
    shutil.copytree(pristine[0], folder, symlinks=True)
    return folder


ADVISE = ["advise", "--dice", "3", "--turn", "150", "--score", "100", "--opponents", "200,50"]


def _advice(rules, folder):
    """What advise says from the table in `folder` (in this process: nothing here waits)."""
    res = zilch(*ADVISE, "--rules", rules, "--tables", str(folder), "--json", code=None)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exc_info
    return res.exit_code, res.stdout, res.stderr


# --- finding 1: every member of the stored table --------------------------------------------
def _chunks(member: Path) -> list[Path]:
    return sorted(p for p in (member / "c").rglob("*") if p.is_file())


def _flip(path: Path, at: float = 0.5, n: int = 8) -> None:
    data = bytearray(path.read_bytes())
    i = min(int(len(data) * at), max(len(data) - n, 0))
    for k in range(i, min(i + n, len(data))):
        data[k] ^= 0xFF
    path.write_bytes(bytes(data))


def _edit_json(path: Path, edit) -> None:
    meta = json.loads(path.read_text())
    edit(meta)
    path.write_text(json.dumps(meta))


def _replace_chunk(member: Path, make) -> None:
    first = _chunks(member)[0]
    first.unlink()
    make(first)


def _set(meta, key, value):
    meta[key] = value


DAMAGES = {
    "flip 8 bytes of every chunk": lambda m, z: [_flip(c) for c in _chunks(m)],
    "flip the last byte of a chunk": lambda m, z: _flip(_chunks(m)[0], 1.0, 1),
    "truncate every chunk": lambda m, z: [c.write_bytes(c.read_bytes()[:5]) for c in _chunks(m)],
    "empty every chunk": lambda m, z: [c.write_bytes(b"") for c in _chunks(m)],
    "remove every chunk": lambda m, z: [c.unlink() for c in _chunks(m)],
    "remove the member": lambda m, z: shutil.rmtree(m),
    "its shape one row short": lambda m, z: _edit_json(
        m / "zarr.json", lambda d: d["shape"].__setitem__(0, d["shape"][0] - 1)
    ),
    "its shape 10^12 rows": lambda m, z: _edit_json(
        m / "zarr.json", lambda d: d["shape"].__setitem__(0, 10**12)
    ),
    "another dtype": lambda m, z: _edit_json(
        m / "zarr.json",
        lambda d: _set(d, "data_type", "int32" if d["data_type"] == "float64" else "float64"),
    ),
    "other chunks": lambda m, z: _edit_json(
        m / "zarr.json",
        lambda d: _set(d["chunk_grid"]["configuration"], "chunk_shape", [2] * len(d["shape"])),
    ),
    "replaced by another member": lambda m, z: (
        shutil.rmtree(m),
        shutil.copytree(z / ("final_rel" if m.name != "final_rel" else "values"), m),
    ),
    "replaced by a group": lambda m, z: (
        shutil.rmtree(m),
        m.mkdir(),
        (m / "zarr.json").write_text('{"zarr_format": 3, "node_type": "group"}'),
    ),
    "its metadata cut": lambda m, z: (m / "zarr.json").write_bytes(
        (m / "zarr.json").read_bytes()[:40]
    ),
    "a chunk replaced by a FIFO": lambda m, z: _replace_chunk(m, os.mkfifo),
    "a chunk linked to /dev/zero": lambda m, z: _replace_chunk(
        m, lambda p: p.symlink_to("/dev/zero")
    ),
}
MEMBERS = ["values", "final_keys", "final_rel"]


def _group_damage(edit):
    return lambda z: _edit_json(z / "zarr.json", lambda d: edit(d["attributes"]))


GROUP_DAMAGES = {
    "the group's metadata flipped": lambda z: _flip(z / "zarr.json"),
    "the group's metadata removed": lambda z: (z / "zarr.json").unlink(),
    "a checksum altered": _group_damage(
        lambda a: a["checksums"].__setitem__("final_rel", "0" * 64)
    ),
    "the checksums removed": _group_damage(lambda a: a.pop("checksums")),
    "the target altered": _group_damage(lambda a: _set(a, "target", 350)),
    "an extra member": lambda z: shutil.copytree(z / "final_keys", z / "extra"),
}
# the damages after which the table is also rebuilt (the rebuild's path is the same for every
# damage: what differs is what the rebuild must clear away)
REBUILT = {"flip 8 bytes of every chunk", "remove the member", "a chunk replaced by a FIFO"}
REBUILT |= {"a chunk linked to /dev/zero", "replaced by a group"}


def _refused_then_rebuilt(pristine, tmp_path, folder, rebuild, scheduler):
    """The damaged table is never read: the API's query gets None, advise says what it
    says without any table (no number from the damaged one, no traceback); a solve rebuilds
    the table bit for bit."""
    assert _read(folder) is None
    rules, empty = pristine[2], pristine[3]
    assert _advice(rules, folder) == _advice(rules, empty)
    if rebuild:
        g = game_table(_tables(folder), 3, scheduler=scheduler)
        assert np.array_equal(g.V, pristine[1])
        assert np.array_equal(_read(folder), pristine[1])


@pytest.mark.parametrize("damage", list(DAMAGES))
@pytest.mark.parametrize("member", MEMBERS)
def test_every_member_of_the_stored_table_damaged_is_never_read(
    member, damage, pristine, tmp_path, scheduler
):
    """Finding 1: each member (values, final_keys, final_rel) flipped, cut, emptied,
    removed, given another shape, dtype or chunks, swapped for another member or a group,
    a chunk made a FIFO or a link to /dev/zero: refused, and rebuilt bit for bit."""
    folder = _copy(pristine, tmp_path)
    (zarr_dir,) = folder.glob("*.zarr")
    DAMAGES[damage](zarr_dir / member, zarr_dir)
    _refused_then_rebuilt(pristine, tmp_path, folder, damage in REBUILT, scheduler)


@pytest.mark.parametrize("damage", list(GROUP_DAMAGES))
def test_the_stored_tables_group_damaged_is_never_read(damage, pristine, tmp_path, scheduler):
    """Finding 1: the group's metadata flipped or removed, a checksum altered or all
    removed, the attributes saying another target, a member too many: refused, rebuilt."""
    folder = _copy(pristine, tmp_path)
    (zarr_dir,) = folder.glob("*.zarr")
    GROUP_DAMAGES[damage](zarr_dir)
    _refused_then_rebuilt(pristine, tmp_path, folder, "removed" in damage, scheduler)


def test_the_issue_s_final_rel_damage_gives_no_number(pristine, tmp_path):
    """The issue's case: 8 bytes flipped in the middle of each chunk of final_rel, or
    final_rel removed altogether: advise prints no P(win) (it printed 205 digits, or 1.0)."""
    for damage in ("flip 8 bytes of every chunk", "remove the member"):
        folder = _copy(pristine, tmp_path / damage.replace(" ", "_"))
        (zarr_dir,) = folder.glob("*.zarr")
        DAMAGES[damage](zarr_dir / "final_rel", zarr_dir)
        code, out, err = _advice(pristine[2], folder)
        assert '"p_win": {' not in out and (code != 0 or "NOT SOLVED" in out or "not" in out)


# --- finding 2: the checkpoint, layer by layer -------------------------------------------------
STOP = 8  # the checkpoint: the score sums 15 .. 8 solved


def _stopped_at(sigma):
    def progress(s):
        if s == sigma:
            raise KeyboardInterrupt

    return progress


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory, scheduler):
    """A solve interrupted after score sum STOP (layers of 16 rows per chunk, so a chunk
    holds a few sums): the folder with its .partial."""
    folder = tmp_path_factory.mktemp("checkpoint") / "t"
    mp = pytest.MonkeyPatch()
    mp.setattr(layer_store, "CHUNK", 16)
    try:
        with pytest.raises(KeyboardInterrupt):
            _solve(folder, scheduler, _stopped_at(STOP))
    finally:
        mp.undo()
    return folder


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(layer_store, "CHUNK", 16)


def _partial(checkpoint, tmp_path):
    folder = tmp_path / "t"
    shutil.copytree(checkpoint, folder)
    store = _store(folder)
    assert store.partial.is_dir() and not store.path.exists()
    return folder, store


def _rows(store, sigma) -> slice:
    sizes = layer_store.layer_sizes(int(store.meta["R"]), 3)
    return slice(int(sizes[sigma + 1 :].sum()), int(sizes[sigma:].sum()))


@pytest.mark.parametrize("sigma", range(TOP, STOP - 1, -1))
def test_every_checkpoint_layer_damaged_is_solved_again_with_those_after(
    sigma, checkpoint, tmp_path, small_chunks
):
    """Finding 2: one value of score sum sigma altered in the checkpoint (a change that
    still decodes): resuming keeps the sums above it, exactly as they were, and solves
    sigma and every sum below it again."""
    import zarr

    folder, store = _partial(checkpoint, tmp_path)
    arr = zarr.open_array(str(store.partial / "values"), mode="r+")
    before = np.asarray(arr[:])
    rows = _rows(store, sigma)
    arr[rows.start] = before[rows.start] * 0.5 + 0.1
    g = store.open_partial()
    assert g.attrs["done_below"] == sigma + 1 and g.attrs["final_done"]
    kept = slice(0, rows.start)
    assert np.array_equal(np.asarray(g["values"][kept]), before[kept])
    assert np.isnan(np.asarray(g["values"][rows.start :])).all()
    assert sorted(int(s) for s in g.attrs["layers"]) == list(range(sigma + 1, TOP + 1))


def test_a_damaged_checkpoint_chunk_resumes_to_the_same_table(
    checkpoint, pristine, tmp_path, scheduler, small_chunks
):
    """Finding 2, the issue's case: the solve stopped mid-way and one byte flipped in a
    chunk of the checkpoint's values (one that no longer decodes): the resumed solve starts
    at the first sum of that chunk and gives the table bit for bit."""
    folder, store = _partial(checkpoint, tmp_path)
    import zarr

    arr = zarr.open_array(str(store.partial / "values"), mode="r")
    before = np.asarray(arr[32:48])
    _flip(_chunks(store.partial / "values")[2], 0.5, 1)  # rows 32 .. 47
    try:  # the first row it changed (if it still decodes), else the chunk's first
        changed = 32 + int(np.flatnonzero((np.asarray(arr[32:48]) != before).any(1))[0])
    except Exception:  # noqa: BLE001  (it does not decode)
        changed = 32
    first = next(s for s in range(TOP, -1, -1) if _rows(store, s).stop > changed)
    seen: list = []
    V = _solve(folder, scheduler, seen.append)
    assert seen == list(range(first, -1, -1))
    assert np.array_equal(V, pristine[1])


@pytest.mark.parametrize("member", ["final_keys", "final_rel"])
@pytest.mark.parametrize("damage", ["flip 8 bytes of every chunk", "remove the member"])
def test_a_damaged_final_round_in_the_checkpoint_starts_afresh(
    member, damage, checkpoint, tmp_path, small_chunks
):
    """Finding 2: the checkpoint's final-round members damaged: nothing of it is kept (its
    sums were solved from them)."""
    folder, store = _partial(checkpoint, tmp_path)
    DAMAGES[damage](store.partial / member, store.partial)
    g = store.open_partial()
    assert g.attrs["done_below"] == TOP + 1 and not g.attrs["final_done"]


@pytest.mark.parametrize(
    "attrs",
    [{"done_below": "x"}, {"done_below": 99}, {"layers": []}, {"checksums": None}, {"R": 7}],
)
def test_a_checkpoint_with_hostile_attributes_starts_afresh(
    attrs, checkpoint, tmp_path, small_chunks
):
    folder, store = _partial(checkpoint, tmp_path)
    _edit_json(store.partial / "zarr.json", lambda d: d["attributes"].update(attrs))
    g = store.open_partial()
    assert g.attrs["done_below"] == TOP + 1 and not g.attrs["final_done"]


def test_a_layer_damaged_while_solving_is_solved_again(pristine, tmp_path, scheduler):
    """Finding 2: a sum's rows altered on disk right after the client wrote them (the
    workers read them for the next sum: their checksum does not match) and the lowest sum
    altered before the table is completed: each is found, solved again with the sums after
    it, and the table is identical."""
    import zarr

    folder = tmp_path / "t"
    store = _store(folder)
    seen: list = []

    def damage(sigma):
        seen.append(sigma)
        if seen.count(sigma) == 1 and sigma in (10, 0):
            arr = zarr.open_array(str(store.partial / "values"), mode="r+")
            rows = _rows(store, sigma)
            arr[rows.start] = np.asarray(arr[rows.start]) * 0.5

    assert np.array_equal(_solve(folder, scheduler, damage), pristine[1])
    assert seen == list(range(TOP, 9, -1)) + list(range(10, -1, -1)) + [0]


# --- finding 3: paths in the way ---------------------------------------------------------------
def _in_the_way(kind: str, path: Path) -> None:
    if kind == "a file":
        path.write_text("not a table")
    elif kind == "a FIFO":
        os.mkfifo(path)
    elif kind == "a dangling symbolic link":
        path.symlink_to(path.with_name("nowhere"))
    elif kind == "a symbolic link loop":
        path.symlink_to(path)
    elif kind == "a symbolic link to a file":
        path.with_name("elsewhere").write_text("x")
        path.symlink_to(path.with_name("elsewhere"))


KINDS = ["a file", "a FIFO", "a dangling symbolic link", "a symbolic link loop"]
KINDS.append("a symbolic link to a file")


@pytest.mark.parametrize("where", ["table", "checkpoint"])
@pytest.mark.parametrize(  # (cold whole processes: a file's in the quick run, the rest slow)
    "kind", [k if k == "a file" else pytest.param(k, marks=pytest.mark.slow) for k in KINDS]
)
def test_a_path_in_the_way_is_refused_before_solving(kind, where, pristine, tmp_path):
    """Finding 3: a file, FIFO, dangling link, link loop or link to a file at the table's
    .zarr path or its .partial path: zilch game says so in one line naming the path, at
    once (nothing solved: no checkpoint), and advise in one line too (the .zarr path)."""
    folder = tmp_path / "t"
    folder.mkdir()
    store = _store(folder)
    path = store.path if where == "table" else store.partial
    _in_the_way(kind, path)
    args = ["--rules", pristine[2], "--tables", str(folder)]
    res = _run("game", *args, "--players", "3", "--workers", "1")
    assert res.returncode == 2 and not res.stdout
    assert res.stderr.count("\n") == 1 and str(path) in res.stderr and kind in res.stderr
    if where == "table":
        assert not os.path.lexists(store.partial)
        res = _run(*ADVISE, *args)
        assert res.returncode == 2 and res.stderr.count("\n") == 1 and str(path) in res.stderr


# --- finding 4: bad schedulers -----------------------------------------------------------------
@pytest.fixture
def silent_port():
    """A port that accepts connections and never answers."""
    import socket
    import threading

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    held = []

    def accept():
        while True:
            try:
                held.append(s.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield f"tcp://127.0.0.1:{s.getsockname()[1]}"
    s.close()


@pytest.fixture
def http_server():
    import http.server
    import threading

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"tcp://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()


@pytest.fixture
def no_workers():
    """A scheduler with no worker (this process's), by its address."""
    from distributed import Scheduler, SpecCluster

    with SpecCluster(
        scheduler={"cls": Scheduler, "options": {"dashboard": False}}, workers={}
    ) as c:
        yield c.scheduler_address


@pytest.mark.slow  # a cold whole process each
@pytest.mark.parametrize("server", ["silent_port", "http_server", "no_workers"])
def test_a_bad_scheduler_times_out_in_one_line(server, pristine, tmp_path, request):
    """Finding 4: --scheduler at a port that accepts and never answers, at an HTTP server,
    at a scheduler with no worker: one line naming --timeout, exit 2, within the time-out
    (2 s here; the subprocess's limit only catches a hang)."""
    address = request.getfixturevalue(server)
    args = ["--rules", pristine[2], "--tables", str(tmp_path), "--players", "3"]
    res = _run("game", *args, "--scheduler", address, "--timeout", "2")
    assert res.returncode == 2 and not res.stdout
    assert res.stderr.count("\n") == 1 and "--timeout" in res.stderr and address in res.stderr


def _times_out(pristine, address, folder, bar) -> None:
    """The three-player game on the cluster at `address` (a 3 s time-out) ends in the
    one-line time-out."""
    import dicesolver as ds

    with pytest.raises(InputError, match="no worker.*--timeout"):
        ds.game(
            pristine[2], players=3, scheduler=address, timeout=3, tables=str(folder), progress=bar
        )


def test_waiting_for_workers_is_reported_then_times_out(no_workers, pristine, tmp_path):
    """Finding 4: while the cluster has no worker, progress says so (a bar of the seconds
    up to the time-out), then the one-line time-out."""
    bar = Recorder()
    _times_out(pristine, no_workers, tmp_path, bar)
    assert bar.calls[0][0] == "start" and "waiting for workers" in bar.calls[0][1]
    assert bar.calls[0][2] == 3 and bar.calls[-1] == ("finish",)


@pytest.mark.slow  # a Dask worker in a cold process of its own
def test_the_only_worker_dying_mid_solve_times_out(no_workers, pristine, tmp_path):
    """Finding 4: a cluster whose only worker is killed in the middle of the solve (no
    nanny to restart it): progress says it waits for workers, the score sums' bar is
    finished, and the solve ends in the one-line time-out; the checkpoint is kept."""
    from distributed import Client

    spec = json.dumps({"cls": "distributed.Worker", "opts": {"nthreads": 1}})
    worker = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_spec", no_workers, "--spec", spec],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def kill(calls):  # (after the final round's two tasks and two score sums)
        if sum(c[0] == "advance" for c in calls) == 4:
            os.kill(worker.pid, signal.SIGKILL)

    bar = Recorder(kill)
    try:
        # the worker joins before the solve starts, however long its process takes to start
        # (seconds on a busy machine: more than the solve's 3 s time-out, which is then
        # about the worker lost, not about how fast one starts)
        with Client(no_workers, timeout=f"{LIMIT}s") as c:
            c.wait_for_workers(1, timeout=LIMIT)
        _times_out(pristine, no_workers, tmp_path, bar)
    finally:
        worker.kill()
        worker.wait()
    labels = [c[1] for c in bar.calls if c[0] == "start"]
    assert labels[:2] == ["solving the final round", "solving score sums"]
    assert labels[2].startswith("waiting for workers") and labels[3] == "solving score sums"
    assert bar.calls[-1] == ("finish",)
    assert _store(tmp_path).partial.is_dir()


@pytest.mark.parametrize("timeout", ["0", "-1", "nan", "inf"])
def test_a_bad_timeout_is_refused(timeout, pristine, tmp_path):
    res = zilch("game", "--rules", pristine[2], "--players", "3", "--timeout", timeout, code=2)
    assert "--timeout" in res.stderr and res.stderr.count("\n") == 1


# --- finding 5: Ctrl-C -------------------------------------------------------------------------
@pytest.mark.slow  # Dask, two workers, in a whole process
@pytest.mark.parametrize("moment", ["final round", "score sums"])
def test_ctrl_c_during_a_dask_solve_prints_only_aborted(moment, tmp_path):
    """Finding 5: Ctrl-C (SIGINT to the terminal's whole process group) during a solve on two
    workers (farkle to 1000, three players), while the final round or the score sums are
    solved: "aborted", exit 130, nothing from the workers (only the solve's own lines: its
    estimate, its bars off a terminal, where its checkpoint is), every worker process gone."""
    import psutil

    from .solvers import preset_file

    rules = preset_file(tmp_path, "farkle", 1000)
    tables = tmp_path / "t"
    args = ["game", "--rules", rules, "--players", "3", "--workers", "2", "--tables", str(tables)]
    p = subprocess.Popen(
        [ZILCH, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        # (as a shell starts it: a test runner's worker may ignore SIGINT, and its children
        # would inherit that)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + LIMIT
        while time.monotonic() < deadline and p.poll() is None:
            meta = next(tables.glob("*.partial/zarr.json"), None)
            attrs = json.loads(meta.read_text())["attributes"] if meta else {}
            if attrs and (moment == "final round" or attrs.get("final_done")):
                break
            time.sleep(0.05)
        kids = psutil.Process(p.pid).children(recursive=True)
        assert len(kids) >= 2  # (the workers: a Nanny and its worker process each)
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=LIMIT)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    lines = err.decode().splitlines()  # (the solve's own notes and progress lines, then)
    assert (p.returncode, out, lines[-1]) == (130, b"", "aborted"), lines
    own = ("solving ", "waiting for workers", "interrupted: ")  # (under load: slow workers)
    assert all(ln.startswith(own) for ln in lines[:-1]), lines
    gone, alive = psutil.wait_procs(kids, timeout=30)
    assert not alive


# --- issue 25, point 1: a plain script -----------------------------------------------------------
SCRIPT = """import dicesolver as ds
print(ds.game("farkle", target=500, players=3, scores=[300, 0, 450], workers=2).p_win)
"""


@pytest.mark.slow  # a cold whole process on Dask
@pytest.mark.parametrize("how", ["file", "stdin"])
def test_the_api_in_a_plain_script_without_a_main_guard(how, tmp_path):
    """The README's N-player call in a script with no `if __name__ == "__main__":` guard,
    run as a file and fed on standard input: it answers (the workers are subprocesses that
    never import the caller's script: it used to hang on the table lock, or crash on stdin).
    The time limit only catches a hang."""
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, DICESOLVER_TABLES=str(tmp_path / "t"))
    cmd = [sys.executable, str(script)] if how == "file" else [sys.executable, "-"]
    stdin = None if how == "file" else script.open()
    try:
        res = subprocess.run(
            cmd, stdin=stdin, capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path
        )
    finally:
        if stdin is not None:
            stdin.close()
    assert res.returncode == 0 and not res.stderr, res.stderr
    p = json.loads(res.stdout)
    assert len(p) == 3 and abs(sum(p) - 1) < 1e-12
