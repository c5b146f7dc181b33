"""Issue 25: every command the README and the docs show with its output runs here and prints
exactly that output, so the examples cannot drift from the product; and the API page's
Python block runs verbatim as a plain script (no __main__ guard), in a time limit."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from .clirun import yahtzee, zilch

ROOT = Path(__file__).parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def examples(page: Path) -> list[tuple[str, list[str]]]:
    """(command, its output lines) for every "$ " line of the page's fenced blocks."""
    found: list[tuple[str, list[str]]] = []
    for block in re.findall(r"^```[a-z]*\n(.*?)^```", page.read_text(), re.S | re.M):
        for line in block.splitlines():
            if line.startswith("$ "):
                found.append((line[2:], []))
            elif found and block.lstrip().startswith("$ "):
                found[-1][1].append(line)
    return found


SHOWN = [(p, ex) for p in PAGES for ex in [examples(p)] if ex]


def test_the_pages_show_examples():
    """(the parser finds them: the README's five questions and the variants page)"""
    names = {p.name for p, _ in SHOWN}
    assert {"README.md", "variants.md"} <= names
    assert sum(len(ex) for _, ex in SHOWN) >= 12


@pytest.mark.parametrize("page, shown", SHOWN, ids=[p.name for p, _ in SHOWN])
def test_every_example_prints_what_its_page_shows(page, shown, monkeypatch):
    """Each page's commands in order (a page may solve a table and then read it), from the
    project's folder (paths as the page gives them); stdout equal line for line."""
    monkeypatch.chdir(ROOT)
    for command, lines in shown:
        prog, *args = shlex.split(command)
        run = {"zilch": zilch, "yahtzee": yahtzee}[prog]
        got = run(*args).stdout.rstrip("\n").split("\n")
        assert [x.rstrip() for x in got] == [x.rstrip() for x in lines], command


@pytest.mark.slow  # a cold whole process
def test_the_api_page_runs_as_a_plain_script(tmp_path):
    """docs/api.md's block, saved as a file and run without a __main__ guard (its game
    among three players starts Dask workers): it finishes within the time limit, each of
    its lines runs once (no worker re-runs the script), and the optimal policy's review
    loses nothing."""
    text = (ROOT / "docs" / "api.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S)[1]
    script = tmp_path / "example.py"
    script.write_text(code)
    env = dict(os.environ)  # (the session's tables folder: tables other tests built)
    res = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,  # (a hang test, not a timing test)
    )
    assert res.returncode == 0, res.stderr[-2000:]
    out = res.stdout.splitlines()
    prints = code.count("print(")
    assert len(out) == prints, out  # (each line once)
    assert out[0].startswith("roll 400.947") and out[-1] == "0.0"
    assert (tmp_path / "farkle.csv").read_text().startswith("dice,turn_total,")
