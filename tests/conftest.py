import pytest


@pytest.fixture(autouse=True)
def _private_tables(tmp_path_factory, monkeypatch):
    """Every test solves into its session's own table folder, never the user's."""
    monkeypatch.setenv("DICESOLVER_TABLES", str(tmp_path_factory.getbasetemp() / "tables"))


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
