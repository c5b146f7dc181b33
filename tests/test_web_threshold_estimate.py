"""The Yahtzee threshold ("beat" / "at-least") tables' builds offered on the phone page
carry the solver's estimate and meet the server's build limits as the game tables' do: the
estimate is threshold.level_sizes, a count by mask of every level's states and entries
(equal to layout()'s, which makes them, on every small rule file), in milliseconds."""

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

from dicesolver.store import Store
from dicesolver.web import guard
from dicesolver.yahtzee import solitaire as Y
from dicesolver.yahtzee import threshold as TH
from dicesolver.yahtzee.yahtzee_rules import load

from .test_yahtzee_threshold import FIVE, FORCED_ORDER, HOUSE4
from .yahtzee_small import PLAIN3_TOML, bonus3_toml, preset_client

DATA = Path(__file__).parent / "data"


def small_rules(tmp_path):
    for name, text in (("t-bonus3", bonus3_toml()), ("t-plain3", PLAIN3_TOML)):
        (tmp_path / f"{name}.toml").write_text(text)
        yield load(str(tmp_path / f"{name}.toml"))
    yield from (HOUSE4, FIVE, FORCED_ORDER)
    for path in sorted(DATA.glob("duel-*.toml")):
        yield load(str(path))


def test_the_fast_count_is_layouts_count_on_every_small_rule_file(tmp_path):
    """Factor 1: states and entries per level exactly as layout() makes them."""
    checked = 0
    for rules in small_rules(tmp_path):
        for lo in TH.KINDS.values():
            made = [TH.layout(rules, k, lo) for k in range(rules.n_boxes)]
            states, entries = TH.level_sizes(rules, lo)
            assert states.tolist() == [len(s) for s, _ in made], rules.name
            assert entries.tolist() == [int(off[-1]) for _, off in made], rules.name
            checked += 1
    assert checked == 2 * (2 + 3 + len(list(DATA.glob("duel-*.toml"))))


def test_the_build_cost_counts_only_the_levels_not_stored():
    every = TH.build_cost(HOUSE4, "beat")
    last = TH.build_cost(HOUSE4, "beat", [HOUSE4.n_boxes - 1])
    entries = TH.level_sizes(HOUSE4, TH.KINDS["beat"])[1]
    assert every[0] - 1 == pytest.approx(entries.sum() * TH.SECONDS_PER_ENTRY / TH.threads())
    assert last[0] < every[0] and last[2] < every[2]


def missed(web, rules_name, rules, kind="atleast"):
    """The TableMissing a Yahtzee-screen query raises where a threshold level is not stored
    (guard.QueryStore's, for the call the screen makes)."""
    call = ("yahtzee_advise", {"rules": rules_name, "dice": [6, 6, 6, 4, 4], "at_least": 120})
    token = guard.CALL.set(call)
    try:
        qs = guard.QueryStore(web.store.folder)
        return qs._missing(rules.name, rules.digest(), TH.objective(kind, 0))
    finally:
        guard.CALL.reset(token)


def csrf(client):
    return re.search(r'name="csrf" value="([^"]+)"', client.get("/yahtzee").text)[1]


def test_maxi_yatzy_threshold_build_is_offered_with_its_estimate_and_refused(tmp_path):
    maxi = load("maxi-yatzy")
    with preset_client(str(tmp_path / "tables"), HOUSE4.name, HOUSE4) as client:
        web = client.app.state.web
        offer = web.offer(missed(web, "maxi-yatzy", maxi), "/yahtzee")
        minutes = TH.build_cost(maxi, "atleast")[0] / 60
        assert minutes > 60
        assert offer["estimate"].startswith(f"about {minutes / 60:.0f} hours")
        r = client.post("/build", data={"token": offer["token"], "csrf": csrf(client)})
        assert r.status_code in (400, 503), r.text  # (past this machine's memory, or 1 h)
        assert "building the maxi-yatzy table" in r.text
        assert "limit for one build" in r.text or "more than this machine gives" in r.text
        assert not list((tmp_path / "tables").rglob("*yahtzee-atleast*"))
        assert web.jobs.stopped() == [] and not web.jobs._by_id


def test_a_build_over_the_servers_limit_gets_the_limit_message(tmp_path):
    """Yahtzee's (3 minutes, 1 GB: within this machine) past a server's 1-minute limit."""
    yahtzee = load("yahtzee")
    with preset_client(str(tmp_path / "tables"), HOUSE4.name, HOUSE4) as client:
        web = client.app.state.web
        web.jobs.limits = dataclasses.replace(web.jobs.limits, seconds=60.0)
        offer = web.offer(missed(web, "yahtzee", yahtzee, "beat"), "/yahtzee")
        assert offer["refused"] is None and offer["estimate"].startswith("about ")
        r = client.post("/build", data={"token": offer["token"], "csrf": csrf(client)})
        assert r.status_code == 503, r.text
        assert "longer than this server&#39;s limit for one build (60 seconds)" in r.text
        assert not web.jobs._by_id


def test_a_small_rule_files_threshold_build_is_offered_with_an_estimate(tmp_path):
    folder = tmp_path / "tables"
    Y.game_table(HOUSE4, Store(folder))  # (the expected-score table: then the threshold's)
    with preset_client(str(folder), HOUSE4.name, HOUSE4) as client:
        data = dict(yahtzee_rules=HOUSE4.name, dice="6,6,6,4,4", rolls_left="2", ask="1")
        r = client.post("/yahtzee", data=dict(data, at_least="120", csrf=csrf(client)))
        assert r.status_code == 200, r.text
        assert re.search(r"table &#39;yahtzee-atleast-L\d&#39; is not solved yet", r.text)
        assert "Estimated: under a minute on this machine, about" in r.text
        jobs = client.app.state.web.jobs  # (accepted: a job, in the fast lane)
        token = re.search(r'name="token" value="([^"]+)"', r.text)[1]
        started = client.post(
            "/build", data={"token": token, "csrf": csrf(client)}, follow_redirects=False
        )
        assert started.status_code == 303
        (job,) = jobs._by_id.values()
        assert job.lane == "fast" and job.seconds == pytest.approx(
            TH.build_cost(HOUSE4, "atleast")[0]
        )
        assert np.isfinite(job.disk) and job.disk > 0
