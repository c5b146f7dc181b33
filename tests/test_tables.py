"""Table files: reload, integrity (corrupt, truncated, stale), atomic writes, locations."""

import errno
import multiprocessing as mp
import os
from pathlib import Path

import numpy as np

from dicesolver import rules
from dicesolver import store as tables
from dicesolver.store import Store

from .solvers import score_policy


def _path(tmp_path, name="farkle"):
    rs = rules.load(name)
    return Store(tmp_path).path(rs.name, rs.table_key(), "score")


def test_solve_once_then_reload_without_solving(tmp_path, monkeypatch):
    rs = rules.load("farkle")
    a = score_policy(rs, str(tmp_path))
    assert _path(tmp_path).exists()

    def no_solving(_):
        raise AssertionError("a stored, valid table must be reloaded, not solved again")

    monkeypatch.setattr("dicesolver.tables.solve_score", no_solving)
    b = score_policy(rs, str(tmp_path))
    assert np.array_equal(a.main.roll, b.main.roll)
    assert b.header["rules_hash"] == rs.table_key() and b.header["objective"] == "score"


def test_solving_twice_is_bit_identical(tmp_path):
    rs = rules.load("zilch")
    score_policy(rs, str(tmp_path / "a"))
    score_policy(rs, str(tmp_path / "b"))
    assert (
        _path(tmp_path / "a", "zilch").read_bytes() == _path(tmp_path / "b", "zilch").read_bytes()
    )


def test_corrupt_truncated_and_stale_files_are_rebuilt(tmp_path):
    rs = rules.load("farkle")
    good = score_policy(rs, str(tmp_path)).main.roll.copy()
    p = _path(tmp_path)
    data = bytearray(p.read_bytes())
    expect = {"objective": "score", "rules_hash": rs.table_key()}
    for bad in (data[:-1000], data[:10], bytes(data[:500]) + b"x" + bytes(data[501:]), b""):
        p.write_bytes(bytes(bad))
        assert tables.load(p, expect) is None
        again = score_policy(rs, str(tmp_path))
        assert np.array_equal(again.main.roll, good)
        assert tables.load(p, expect) is not None
    # stale: another rule set's hash, or an older solver version
    assert tables.load(p, {"objective": "score", "rules_hash": "0" * 64}) is None
    header, arrays = tables.load(p, expect)
    tables.save(
        p, {k: v for k, v in header.items() if k not in ("layout", "format", "solver")}, arrays
    )
    assert tables.load(p, expect) is not None
    import dicesolver.store as t

    old = t.SOLVER_VERSION
    try:
        t.SOLVER_VERSION = old + 1
        assert tables.load(p, expect) is None
    finally:
        t.SOLVER_VERSION = old


def _solve_into(folder):
    score_policy(rules.load("zilch-online"), folder)


def test_two_processes_solving_at_once_leave_one_good_file(tmp_path):
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_solve_into, args=(str(tmp_path),)) for _ in range(2)]
    for pr in procs:
        pr.start()
    for pr in procs:
        pr.join(60)
        assert pr.exitcode == 0
    files = [f for f in os.listdir(tmp_path)]  # (with the model the table comes from)
    assert all(f.endswith((".dst", ".lock")) for f in files)  # no temporary file left
    files = [f for f in files if f.endswith("-score.dst")]
    assert len(files) == 1
    rs = rules.load("zilch-online")
    assert (
        tables.load(tmp_path / files[0], {"objective": "score", "rules_hash": rs.table_key()})
        is not None
    )


def test_table_dir_env_option_and_cache_fallback(tmp_path, monkeypatch):
    """--tables beats $DICESOLVER_TABLES; without either, a package folder we cannot write
    (a fresh non-editable install) falls back to the user's cache directory."""
    monkeypatch.setenv("DICESOLVER_TABLES", str(tmp_path / "env"))
    assert Store.resolve().folder == tmp_path / "env"
    assert Store.resolve(str(tmp_path / "opt")).folder == tmp_path / "opt"
    monkeypatch.delenv("DICESOLVER_TABLES")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(tables.os, "access", lambda *a: False)
    assert Store.resolve().folder == tmp_path / "cache" / "dicesolver" / "tables"


def _refused_under(folder, monkeypatch) -> list:
    """Writing under `folder` refused as the kernel refuses a user without write permission
    on it: making a folder, or opening a file to write, raises PermissionError (EACCES).
    For root, who writes whatever the mode says.  The paths refused, as they are tried."""
    real_mkdir, real_open = os.mkdir, os.open
    writes = os.O_WRONLY | os.O_RDWR | os.O_CREAT
    tried = []

    def refuse(path):
        if not Path(os.fsdecode(path)).absolute().is_relative_to(folder):
            return
        tried.append(path)
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fsdecode(path))

    def mkdir(path, *args, **kw):
        refuse(path)
        return real_mkdir(path, *args, **kw)

    def open_(path, flags, *args, **kw):
        if flags & writes:
            refuse(path)
        return real_open(path, flags, *args, **kw)

    monkeypatch.setattr(os, "mkdir", mkdir)
    monkeypatch.setattr(os, "open", open_)
    return tried


def test_unwritable_folder_still_answers(tmp_path, monkeypatch):
    """A table folder inside a folder the user cannot write: the answer is still computed,
    nothing is stored.  Root writes into a folder of mode 0500 anyway, so as root the refusal
    is patched in (os.mkdir and os.open raise PermissionError under it, _refused_under), and
    the test checks that the store did try to write there and was refused."""
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    tried = _refused_under(ro, monkeypatch) if os.geteuid() == 0 else None
    try:
        pol = score_policy(rules.load("zonk-chicago"), str(ro / "sub"))
        assert pol.expected_turn_score() > 0
        assert not any(ro.iterdir())  # nothing stored
        assert tried is None or tried  # (as root: the writes were tried, and refused)
    finally:
        ro.chmod(0o700)


def test_tables_are_memory_mapped_and_read_only(tmp_path):
    """Issue 6: tables are memory-mapped from tables/, not read into memory: the arrays
    are read-only views of a mapping of the file."""
    import mmap

    p = tmp_path / "t.dst"
    W = np.arange(12.0).reshape(3, 4)
    tables.save(p, {"objective": "x"}, {"W": W})
    _, arrays = tables.load(p, {"objective": "x"})
    a = arrays["W"]
    assert np.array_equal(a, W) and not a.flags.writeable
    base = a.base
    while not isinstance(base, memoryview):
        base = base.base
    assert isinstance(base.obj, mmap.mmap)
    empty = tmp_path / "empty.dst"
    empty.write_bytes(b"")  # an empty file is no table (cannot be mapped)
    assert tables.load(empty, {"objective": "x"}) is None


def test_a_query_with_tables_writes_nothing_anywhere_else(tmp_path, monkeypatch):
    """Issue 11: --tables A with DICESOLVER_TABLES=B: every file a query stores (the
    reachable totals, the reach bound, the policy; the model only for rules that are no
    preset's, issue 29) goes to A, none to B."""
    from .clirun import zilch

    a, b = tmp_path / "a", tmp_path / "b"
    monkeypatch.setenv("DICESOLVER_TABLES", str(b))
    zilch(
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
        "--tables",
        str(a),
    )
    zilch("endgame", "--rules", "farkle", "--deficit", "500", "--tables", str(a))
    zilch("advise", "--dice", "3", "--turn", "300", "--tables", str(a))
    written = sorted(f.name for f in a.iterdir())
    assert not any(f.endswith("-model.dst") for f in written)  # (presets' models ship)
    assert any(f.endswith("-reach.dst") for f in written)
    assert any(f.endswith("-reachable2.dst") for f in written)  # (a state checked)
    assert any(f.endswith("-score.dst") for f in written)
    assert any(f.endswith("-lastturn10000.dst") for f in written)  # (by its target)
    assert not b.exists()
