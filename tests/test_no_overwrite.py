"""Files a game or a simulation writes never replace a file without being asked (issue 26,
finding 10): `zilch play --log`, `zilch simulate --log` and `--out`, `yahtzee play --log`
refuse an existing file unless --force (overwrite) or --append (add to it); the rule file
or the policy file being read is refused even with --force (files.py: new_file)."""

import json

import pytest

import dicesolver as ds
from dicesolver.errors import InputError

from .clirun import yahtzee, zilch

BOT = 'name = "bank300"\n[bank]\ndefault = 300\n[set_aside]\nrule = "all"\n'


def _quit(group, *args, code=0):
    """A game in the terminal left at its first prompt."""
    from click.testing import CliRunner

    from dicesolver.cli import main, yahtzee_main

    g, prog = (main, "zilch") if group == "zilch" else (yahtzee_main, "yahtzee")
    res = CliRunner().invoke(g, list(args), prog_name=prog, input="quit\n")
    assert res.exit_code == code, (res.output, res.stderr)
    return res


@pytest.mark.parametrize("game", ["zilch", "yahtzee"])
def test_play_refuses_an_existing_log_unless_asked(game, tmp_path):
    log = tmp_path / "mine.jsonl"
    log.write_text("my own notes\n")
    res = _quit(game, "play", "--log", str(log), "--seed", "1", code=2)
    assert "exists: give --force to overwrite it or --append to add to it" in res.stderr
    assert res.stderr.count("\n") == 1 and log.read_text() == "my own notes\n"
    _quit(game, "play", "--log", str(log), "--seed", "1", "--append")
    assert log.read_text().startswith("my own notes\n")
    _quit(game, "play", "--log", str(log), "--seed", "1", "--force")
    assert "my own notes" not in log.read_text()
    res = _quit(game, "play", "--log", str(log), "--force", "--append", code=2)
    assert "give one of them" in res.stderr


def test_play_never_writes_its_log_over_the_rule_file(tmp_path):
    """The issue's case: zilch play --rules house.toml --log house.toml replaced the rule
    file with the log: refused, with --force too."""
    from importlib import resources

    house = tmp_path / "house.toml"
    text = resources.files("dicesolver").joinpath("rulesets", "farkle.toml").read_text()
    house.write_text(text)
    for extra in ([], ["--force"], ["--append"]):
        res = _quit("zilch", "play", "--rules", str(house), "--log", str(house), *extra, code=2)
        assert "is the file this command reads" in res.stderr
    assert house.read_text() == text


def test_simulate_refuses_existing_log_and_out_unless_asked(tmp_path):
    log, out = tmp_path / "turns.jsonl", tmp_path / "scores.csv"
    args = ["simulate", "--turns", "20", "--log", str(log), "--out", str(out)]
    zilch(*args)
    before = (log.read_text(), out.read_text())
    for name in ("--log", "--out"):
        res = zilch(*args, code=2)
        assert "exists: give --force" in res.stderr
        assert (log.read_text(), out.read_text()) == before
        (log if name == "--log" else out).unlink()
        zilch(*args, code=2)  # (the other one still exists)
        zilch(*args, "--force")
        before = (log.read_text(), out.read_text())
    zilch(*args, "--append")
    assert log.read_text() == 2 * before[0]
    assert out.read_text() == before[1] + before[1].split("\n", 1)[1]  # (one header)
    res = zilch("simulate", "--turns", "5", "--log", str(log), "--out", str(log), "--force", code=2)
    assert "the same file" in res.stderr


def test_simulate_never_writes_over_its_policy_or_rule_file(tmp_path):
    bot = tmp_path / "bot.toml"
    bot.write_text(BOT)
    for what in ("--log", "--out"):
        res = zilch("simulate", "--policy", str(bot), what, str(bot), "--force", code=2)
        assert "is the file this command reads" in res.stderr
    assert bot.read_text() == BOT


def test_the_api_refuses_too_and_a_device_is_written(tmp_path):
    log = tmp_path / "turns.jsonl"
    ds.simulate("farkle", turns=10, log=str(log))
    with pytest.raises(InputError, match="exists"):
        ds.simulate("farkle", turns=10, log=str(log))
    ds.simulate("farkle", turns=10, log=str(log), force=True)
    assert len(log.read_text().splitlines()) >= 10
    ds.simulate("farkle", turns=10, log="/dev/null", out="/dev/null")
    d = json.loads(zilch("simulate", "--turns", "5", "--log", "/dev/null", "--json").stdout)
    assert d["turns"] == 5


def test_yahtzee_play_refuses_to_overwrite_too(tmp_path):
    log = tmp_path / "y.jsonl"
    log.write_text("x\n")
    res = yahtzee("play", "--log", str(log), code=2)
    assert "exists" in res.stderr and log.read_text() == "x\n"
