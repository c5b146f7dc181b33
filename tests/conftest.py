import os
import shutil
import tempfile
from pathlib import Path

import pytest

ENV = "DICESOLVER_TABLES"
SCREENS = "DICESOLVER_SCREENS"  # (the browser tests' screenshots: see _private_tables)
TRAP = pytest.StashKey[tuple[Path, "str | None"]]()


def pytest_configure(config):
    """Before any test module is imported, $DICESOLVER_TABLES names a folder of this run's
    own, the trap: whatever finds the table folder outside a test (a module's or the
    session's fixture, set up before the test's own fixtures; code run at import; a
    process either starts, such as a Dask worker) stores its tables there, never in the
    user's folder, and the run fails naming them (pytest_sessionfinish).  A test itself
    solves into the session's folder (_private_tables).  The xdist workers inherit the
    controller's trap (they start after this), so one check at the end sees them all."""
    if hasattr(config, "workerinput"):  # (an xdist worker)
        return
    trap = Path(tempfile.mkdtemp(prefix="dicesolver-tests-trap-"))
    config.stash[TRAP] = (trap, os.environ.get(ENV))
    os.environ[ENV] = str(trap)


def pytest_sessionfinish(session):
    """The run fails if anything was stored in the trap.  (Not a snapshot of the user's
    folder: the user's own commands may write there while the suite runs; nothing but
    this run knows the trap.)"""
    trap, _ = session.config.stash.get(TRAP, (None, None))
    if trap is None:
        return
    left = sorted(str(p.relative_to(trap)) for p in trap.rglob("*"))
    if left:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        said = (
            f"tables were stored outside any test's folder (a module's or the session's "
            f"fixture, or code at import, solving without naming its folder; the user's "
            f"${ENV} would have got them): {', '.join(left)}"
        )
        if reporter is not None:
            reporter.ensure_newline()
            reporter.write_sep("=", "tables stored outside the tests' folders", red=True)
            reporter.write_line(said)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_unconfigure(config):
    trap, before = config.stash.get(TRAP, (None, None))
    if trap is None:
        return
    shutil.rmtree(trap, ignore_errors=True)
    if before is None:
        os.environ.pop(ENV, None)
    else:
        os.environ[ENV] = before


@pytest.fixture(autouse=True)
def _private_tables(tmp_path_factory, monkeypatch):
    """Every test solves into its session's own table folder, never the user's; the browser
    tests' screenshots go to its own folder too, unless $DICESOLVER_SCREENS names one to
    keep them in (to look at: `DICESOLVER_SCREENS=DIR pytest -m slow -k browser`)."""
    monkeypatch.setenv(ENV, str(tmp_path_factory.getbasetemp() / "tables"))
    if not os.environ.get(SCREENS):
        monkeypatch.setenv(SCREENS, str(tmp_path_factory.getbasetemp() / "screens"))


@pytest.fixture(scope="module")
def server(tables):
    """`zilch serve`'s app on loopback over the requesting module's own `tables` folder
    (the web tests)."""
    from .webserver import running

    with running(tables) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium under Playwright, one per module (the browser tests skip at import
    where either is missing)."""
    from playwright import sync_api

    from .webserver import ARGS, CHROMIUM

    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()
