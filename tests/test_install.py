"""Issue 11: what a user gets from a regular (not editable) `pip install .`: one package,
`dicesolver`, complete (every module, the presets, the C kernel), and working `zilch` and
`yahtzee` commands run from outside the checkout."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .yahtzee_small import bonus3_toml

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow  # a pip install and cold whole processes: the slow tier


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The project installed into a folder of its own (its dependencies are this
    environment's: only the package itself is under test)."""
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(target),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        cwd=target,
    )
    return target


def _run(installed, *args):
    env = dict(os.environ, PYTHONPATH=str(installed))
    env.pop("DICESOLVER_TABLES", None)
    env["XDG_CACHE_HOME"] = str(installed / "cache")  # tables: the user's cache
    return subprocess.run(
        [sys.executable, str(installed / "bin" / args[0]), *args[1:]],
        capture_output=True,
        text=True,
        env=env,
        cwd=installed.parent,
    )


def test_one_package_and_every_module(installed):
    tops = {p.name for p in installed.iterdir() if not p.name.endswith((".dist-info", "-info"))}
    assert "dicesolver" in tops and not {"solver", "cli", "cli.py"} & tops
    src = {p.relative_to(ROOT / "solver") for p in (ROOT / "solver").rglob("*.py")}
    got = {
        p.relative_to(installed / "dicesolver") for p in (installed / "dicesolver").rglob("*.py")
    }
    assert src <= got, src - got
    assert len(list((installed / "dicesolver" / "rulesets").glob("*.toml"))) >= 7
    assert list((installed / "dicesolver" / "turn").glob("_kernel*.so")), "no C kernel built"
    assert len(list((installed / "dicesolver" / "yahtzee" / "rulesets").glob("*.toml"))) >= 5
    assert list((installed / "dicesolver" / "yahtzee").glob("_widget*.so")), "no Yahtzee kernel"


def test_both_commands_answer(installed):
    res = _run(installed, "zilch", "advise", "--rules", "farkle", "--dice", "3", "--turn", "400")
    assert res.returncode == 0, res.stderr
    assert "ROLL" in res.stdout
    res = _run(installed, "yahtzee", "advise", "--dice", "1,3,3,5,6", "--rolls-left", "2")
    assert res.returncode == 0, res.stderr
    assert "3 3 " in res.stdout  # keep the pair of 3s
    assert (installed / "cache" / "dicesolver" / "tables").is_dir()  # not the site folder
    res = _run(installed, "zilch", "--version")
    assert res.returncode == 0 and "0.2.0" in res.stdout


def test_the_web_app_is_complete(installed):
    """zilch serve's templates and static files are installed with the package, and the
    installed app renders every screen (issue 27)."""
    web = installed / "dicesolver" / "web"
    assert {"base.html", "roll.html", "dice.html", "card.html", "review.html"} <= {
        p.name for p in (web / "templates").glob("*.html")
    }
    assert {"app.css", "app.js"} <= {p.name for p in (web / "static").iterdir()}
    code = (
        "from starlette.testclient import TestClient; from dicesolver.web import app; "
        "c = TestClient(app); "
        "print([c.get(p).status_code for p in ('/', '/roll', '/dice', '/card', '/review', "
        "'/yahtzee', '/static/app.js')])"
    )
    env = dict(os.environ, PYTHONPATH=str(installed), XDG_CACHE_HOME=str(installed / "cache"))
    env.pop("DICESOLVER_TABLES", None)
    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=installed.parent
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == str([200] * 7)
    res = _run(installed, "zilch", "serve", "--help")
    assert res.returncode == 0 and "--host" in res.stdout


def test_after_yahtzee_compile_no_question_waits_for_the_compiler(installed):
    """The developers' guide: no query waits for a compiler.  `yahtzee compile` (the README's
    set-up) fills numba's disk cache in the fresh install; then the questions that run numba
    code - hints against opponents, the distribution, the simulator, versus - on another rule
    file (tests/yahtzee_small.py's three boxes) compile nothing: no new cache entry."""

    def cached():
        return {p.name for p in installed.rglob("*.nbi")}

    assert not cached()  # (a fresh install: nothing compiled yet)
    r = _run(installed, "yahtzee", "compile", "--json")
    assert r.returncode == 0, r.stderr
    assert "against opponents" in r.stdout
    before = cached()
    assert len(before) >= 30, sorted(before)
    rules = installed.parent / "three-boxes.toml"
    rules.write_text(bonus3_toml("three-boxes"))
    for args in (
        ["advise", "--dice", "1,2,4,6,6", "--score", "0", "--opponents", "new;new"],
        ["evaluate"],
        ["simulate", "--games", "50"],
        ["versus", "--players", "3", "--games", "5"],
    ):
        r = _run(installed, "yahtzee", *args, "--rules", str(rules), "--json")
        assert r.returncode == 0, (args, r.stderr)
    assert cached() == before
