"""Issue 36 (the red team's findings on the newest commands), each reproduced and refused:
games and policies that cannot end, a Ctrl-C that says "done", removals reported all or
none, two terminal games started in the same second, an empty Enter in `yahtzee play`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .clirun import zilch

NEVER = 'name = "never"\n[bank]\ndefault = 1000000000\n'  # banks only at 10^9 points


@pytest.fixture
def never(tmp_path: Path) -> str:
    path = tmp_path / "never.toml"
    path.write_text(NEVER)
    return str(path)


# --- finding 9: games and policies that cannot end ------------------------------------------
def test_a_policy_pair_under_which_no_game_ends_is_refused_in_one_line(never, tmp_path):
    """Two policies that never bank: every turn of both ends in a zilch, so the game never
    ends (it said "wins with probability nan", exit 0)."""
    res = zilch("game", "--rules", "farkle", "--target", "500", "--policy", never, "--vs", never,
                "--tables", str(tmp_path / "t"), code=2)  # fmt: skip
    (line,) = res.stderr.strip().splitlines()
    assert "never against never" in line and "the game never ends" in line and "nan" not in line


def test_simulated_games_that_cannot_end_are_refused_not_run_forever(never, tmp_path):
    """(`zilch simulate --games 10` with them ran forever.)"""
    res = zilch("simulate", "--rules", "farkle", "--games", "10", "--target", "500",
                "--policy", never, "--vs", never, "--tables", str(tmp_path / "t"),
                code=2)  # fmt: skip
    assert "the game never ends" in res.stderr


def test_every_simulated_game_is_bounded_by_a_number_of_turns(monkeypatch):
    """A game the exact check lets through is still stopped by the simulator's own bound
    (turns per game), with one line saying why."""
    import numpy as np

    from dicesolver.errors import InputError
    from dicesolver.play import games

    class Never:  # a player whose turns never record a point
        def turns(self, me, opp, rng):
            return np.zeros(len(me), np.int64)

    monkeypatch.setattr(games, "MAX_TURNS", 50)
    from dicesolver.rules import load
    from dicesolver.tables import Tables

    model = Tables(load("farkle"), None).model  # (the preset's shipped model: no store)
    with pytest.raises(InputError, match="50 turns each without ending"):
        games.play_games(model, (Never(), Never()), 3, np.random.default_rng(0), 10)


def test_a_turn_that_cannot_end_is_refused_by_the_simulator(monkeypatch, never):
    """Under rules where some roll always scores, a policy that never banks plays a turn
    that never ends: the simulator stops a turn after its bound of rolls, in one line.
    (Shown with the bound lowered to 3 rolls: farkle's never-banking turns often roll
    more before their zilch.)"""
    import numpy as np

    from dicesolver.errors import InputError
    from dicesolver.play import simulate
    from dicesolver.play.policies import load_policy
    from dicesolver.rules import load
    from dicesolver.tables import Tables

    rules = load("farkle")
    model = Tables(rules, None).model  # (the preset's shipped model: no store needed)
    policy = load_policy(never, rules, True).compile(model)
    monkeypatch.setattr(simulate, "MAX_ROLLS", 3)
    with pytest.raises(InputError, match="rolled 3 times without ending"):
        simulate.play_turns(model, policy, 10_000, np.random.default_rng(1))


def test_a_turn_too_long_to_sum_exactly_is_refused_with_its_figures(never, monkeypatch):
    """`zilch evaluate --rules zilch-online --policy never.toml` ran past 120 s, 510 MB and
    growing, nothing on stderr: the exact pass is bounded by the states it carries mass
    through (the optimal turn needs 38 126), and refused past it in one line."""
    from dicesolver.play import evaluate

    monkeypatch.setattr(evaluate, "MAX_CELLS", 20_000)
    res = zilch("evaluate", "--rules", "zilch-online", "--policy", never, code=2)
    (line,) = res.stderr.strip().splitlines()
    assert "banks too rarely" in line and "20000 of its states" in line


# --- finding 11: Ctrl-C says "stopped after", not "done in" ------------------------------
def _interrupted(args: list[str], limit: float) -> subprocess.CompletedProcess:
    """The command (`zilch ...` or `yahtzee ...`) run as a shell runs it, SIGINT once it has
    printed a progress line (off a terminal: after 2 s of a piece of work; at `limit`
    seconds at the latest): its output."""
    import selectors

    main = {"zilch": "zilch_commands:main", "yahtzee": "yahtzee_commands:yahtzee_main"}[args[0]]
    module, func = main.split(":")
    p = subprocess.Popen(
        [sys.executable, "-c", f"from dicesolver.cli.{module} import {func}; {func}()", *args[1:]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert p.stderr is not None
    said, deadline = b"", time.monotonic() + limit
    with selectors.DefaultSelector() as sel:
        sel.register(p.stderr, selectors.EVENT_READ)
        while b" after " not in said and time.monotonic() < deadline and p.poll() is None:
            if sel.select(timeout=0.2):
                said += p.stderr.readline()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    return subprocess.CompletedProcess(args, p.returncode, out.decode(), (said + err).decode())


@pytest.mark.slow  # (whole processes, interrupted after some seconds)
@pytest.mark.parametrize(
    "command",
    [["zilch", "simulate", "--rules", "farkle", "--turns", "200000000"],
     ["yahtzee", "simulate", "--rules", "yahtzee", "--games", "100000000"]],
    ids=["zilch simulate", "yahtzee simulate"],
)  # fmt: skip
def test_ctrl_c_during_a_simulation_says_stopped_after(command, tmp_path):
    """The progress line of the interrupted work: "stopped after", then "aborted", exit 130;
    that work never says "done in" (a table solved before it, on a fast machine, may)."""
    got = _interrupted([*command, "--tables", str(tmp_path)], 300.0)
    lines = got.stderr.splitlines()
    assert got.returncode == 130 and lines[-1] == "aborted", got.stderr
    work, said = lines[-2].split(": ", 1)
    assert said.startswith("stopped after"), got.stderr
    assert not [ln for ln in lines if ln.startswith(work + ": done in")], got.stderr


GC_CALLBACK_INTERRUPTED = """
import gc, os, signal, time
from dicesolver.cli import interrupts
interrupts.install()
def slow(phase, info):
    if phase == "start":
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.3)  # (the handler runs here, inside the collector's callback)
gc.callbacks.append(slow)
try:
    gc.collect()
    print("collected", flush=True)
    time.sleep(10)
    print("not interrupted")
except KeyboardInterrupt:
    print("interrupted")
"""


def test_a_ctrl_c_inside_a_garbage_collector_callback_is_not_lost():
    """Python prints an exception raised in a gc callback as "Exception ignored" and goes on
    (a Ctrl-C during a Dask solve was lost so, and the solve ran to its end): the command's
    handler raises it again once the callback is over."""
    res = subprocess.run(
        [sys.executable, "-c", GC_CALLBACK_INTERRUPTED], capture_output=True, text=True, timeout=60
    )
    assert res.stdout.split() == ["collected", "interrupted"], (res.stdout, res.stderr)
    assert "Exception ignored" not in res.stderr


def test_an_interrupted_bar_is_abandoned_not_finished():
    """progress.steps: a bar whose work raises (Ctrl-C) is abandoned; one that ends is
    finished (the command line says "stopped after" for the first, "done in" for the
    second)."""
    from dicesolver.progress import Progress, steps

    class Seen(Progress):
        def __init__(self) -> None:
            self.said: list[str] = []

        def start(self, label: str, total: int) -> None:
            self.said.append("start")

        def finish(self) -> None:
            self.said.append("finish")

        def abandon(self) -> None:
            self.said.append("abandon")

    done, stopped = Seen(), Seen()
    with steps(done, "work", 3):
        pass
    with pytest.raises(KeyboardInterrupt), steps(stopped, "work", 3):
        raise KeyboardInterrupt
    assert (done.said, stopped.said) == (["start", "finish"], ["start", "abandon"])


# --- finding 12: removals reported all or none ---------------------------------------------
def test_remove_while_a_build_holds_one_match_removes_nothing_and_says_so(tmp_path):
    """`zilch tables --remove "*"` while another process builds one of the tables: every
    match's lock is taken first; one is held, so none is deleted, and the line says so
    (the first matches were deleted, then exit 2 without a word of them)."""
    import fcntl

    tables = tmp_path / "t"
    zilch("strategy", "--rules", "farkle", "--tables", str(tables))
    zilch("strategy", "--rules", "zilch", "--tables", str(tables))
    before = sorted(p.name for p in tables.iterdir() if not p.name.endswith(".lock"))
    victim = next(p for p in tables.iterdir() if p.name.startswith("zilch-") and p.suffix == ".dst")
    fd = os.open(victim.with_name(victim.name + ".lock"), os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        res = zilch("tables", "--tables", str(tables), "--remove", "*", code=2)
    finally:
        os.close(fd)
    assert victim.name in res.stderr and "nothing was removed" in res.stderr
    after = sorted(p.name for p in tables.iterdir() if not p.name.endswith(".lock"))
    assert after == before
    got = zilch("tables", "--tables", str(tables), "--remove", "*", "--json")
    assert sorted(__import__("json").loads(got.stdout)["removed"]) == before


# --- finding 17: yahtzee play's empty Enter ----------------------------------------------
def test_an_empty_enter_in_yahtzee_play_asks_again(tmp_path, monkeypatch):
    """An Enter alone was taken as "keep nothing" and rerolled every die: it is asked
    again (the game then quits as the input ends)."""
    import dicesolver as ds

    monkeypatch.chdir(tmp_path)
    answers = iter(["", "q"])
    said: list[str] = []
    ds.yahtzee_play("yahtzee", seed=3, ask=lambda prompt: next(answers), say=said.append,
                    log=str(tmp_path / "y.jsonl"))  # fmt: skip
    assert any("type the dice to keep" in s for s in said), said
    kept = [ln for ln in (tmp_path / "y.jsonl").read_text().splitlines() if '"keep"' in ln]
    assert kept == []  # (no keep was made)


# --- finding 18: two terminal games in the same second --------------------------------------
def test_two_games_started_in_the_same_second_get_logs_of_their_own(tmp_path, monkeypatch):
    """The default log names collided (GAME-play-DATE-TIME.jsonl): the second game was
    refused.  Names are now taken exclusively, -2 after the first."""
    from dicesolver.cli.terminal import open_log

    monkeypatch.chdir(tmp_path)
    frozen = __import__("datetime").datetime(2026, 12, 2, 6, 30, 0)

    class Clock(__import__("datetime").datetime):
        @classmethod
        def now(cls, tz=None):
            return frozen

    monkeypatch.setattr("datetime.datetime", Clock)
    (a, fa), (b, fb) = open_log(None, "zilch"), open_log(None, "zilch")
    fa.close()
    fb.close()
    assert (a, b) == ("zilch-play-20261202-063000.jsonl", "zilch-play-20261202-063000-2.jsonl")
