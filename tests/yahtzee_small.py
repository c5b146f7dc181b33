"""Small Yahtzee rule files and the phone page's test client, for the tests of the
Yahtzee-family games: three-box rule files whose tables build in seconds, a client with a
rule set put among the presets, and a background build waited for."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from starlette.testclient import TestClient


def bonus3_toml(name: str = "t-bonus3") -> str:
    """Fives, sixes and a Yahtzee: the upper bonus (35 at 20), the Yahtzee bonus, the joker."""
    return f"""name = "{name}"
upper_bonus = 35
upper_threshold = 20
yahtzee_bonus = 100
joker = "forced"
[[boxes]]
name = "fives"
kind = "upper"
face = 5
[[boxes]]
name = "sixes"
kind = "upper"
face = 6
[[boxes]]
name = "yahtzee"
kind = "yahtzee"
points = 50
"""


PLAIN3_TOML = """name = "t-plain3"
[[boxes]]
name = "threes"
kind = "upper"
face = 3
[[boxes]]
name = "chance"
kind = "chance"
[[boxes]]
name = "three_kind"
kind = "kind"
count = 3
points = "all"
"""


@contextlib.contextmanager
def preset_client(tables: str, name: str, rules: object) -> Iterator[TestClient]:
    """The web app on `tables` with `rules` among the Yahtzee presets as `name` (its csrf
    cookie set); the jobs shut down and the presets as they were after."""
    from dicesolver.web import create_app
    from dicesolver.web.pages import yahtzee_presets
    from dicesolver.yahtzee.yahtzee_rules import PRESETS

    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(PRESETS, name, rules)
        yahtzee_presets.cache_clear()
        app = create_app(tables)
        with TestClient(app) as c:
            c.get("/")  # (the csrf cookie)
            yield c
        app.state.web.jobs.shutdown()
    yahtzee_presets.cache_clear()


def job_done(client: TestClient, job_url: str, seconds: float) -> str:
    """The page of a background build (POST /build's redirect), once it is done."""
    job_id = urlsplit(job_url).path.rsplit("/", 1)[1]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        job = client.get(f"/api/jobs/{job_id}").json()
        if job["state"] not in ("queued", "running"):
            break
        time.sleep(0.05)
    assert job["state"] == "done", job
    return client.get(job_url).text
