"""The suite's guard of the user's table folder (conftest): a test stores its tables in the
session's folder; anything that finds the folder outside a test (a module's fixture, set up
before the test's own fixtures) stores them in the run's trap, and the run fails naming
them.  The user's $DICESOLVER_TABLES gets nothing either way."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

MODULE = """import os
from pathlib import Path

import pytest


def _store(name):
    folder = Path(os.environ["DICESOLVER_TABLES"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(b"x")


@pytest.fixture(scope="module")
def module_fixture():
    _store("from-a-module-fixture.dst")


def test_one(WHERE):
    _store("from-a-test.dst")


def test_two(WHERE):
    pass
"""


@pytest.mark.parametrize(  # (slow: under xdist, three whole processes)
    "workers", [[], pytest.param(["-n", "2"], marks=pytest.mark.slow)], ids=["one process", "xdist"]
)
@pytest.mark.parametrize("where, code", [("module_fixture", 1), ("tmp_path", 0)])
def test_tables_stored_outside_a_test_fail_the_run(tmp_path, where, code, workers):
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(Path(__file__).with_name("conftest.py"), run / "conftest.py")
    (run / "pytest.ini").write_text("[pytest]\n")
    (run / "test_inner.py").write_text(MODULE.replace("WHERE", where))
    user = tmp_path / "user"
    user.mkdir()
    res = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *workers, str(run)],
        capture_output=True,
        text=True,
        cwd=run,
        env=dict(os.environ, DICESOLVER_TABLES=str(user)),
        timeout=300,  # (a hang guard, not a speed test)
    )
    assert res.returncode == code, res.stdout + res.stderr
    assert "2 passed" in res.stdout
    assert ("from-a-module-fixture.dst" in res.stdout) == (code == 1), res.stdout
    assert "from-a-test.dst" not in res.stdout  # (a test's own folder is no leak)
    assert not any(user.iterdir())
