import pytest


@pytest.fixture(autouse=True)
def _private_tables(tmp_path_factory, monkeypatch):
    """Every test solves into its session's own table folder, never the user's."""
    monkeypatch.setenv("DICESOLVER_TABLES", str(tmp_path_factory.getbasetemp() / "tables"))
