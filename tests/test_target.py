"""Issue 25: `--target T` (and `target=`) on every command that reads or solves a game or
end-game table means the very table `zilch game --target T` builds; a rule file that equals
a preset but for its name and target finds the same stored table."""

from __future__ import annotations

import json

from .clirun import zilch
from .solvers import preset_file


def _game_files(folder):
    return sorted(
        p.name for p in folder.iterdir() if p.name.endswith((".dst", ".zarr")) and "-game" in p.name
    )


def test_one_table_for_the_preset_with_target_and_its_copy(tmp_path):
    t = tmp_path / "t"
    tables = ["--tables", str(t)]
    zilch("game", "--rules", "farkle", "--target", "500", *tables)
    built = _game_files(t)
    assert len(built) == 1 and built[0].endswith("-game500.dst")
    # a copy of the preset with its own name and target 500: the same table, nothing solved
    copy = tmp_path / "my farkle.toml"
    text = open(preset_file(tmp_path, "farkle", 500)).read()
    copy.write_text(text.replace('name = "farkle"', 'name = "my-farkle"'))
    state = ["--dice", "3", "--turn", "250", "--score", "100", "--opponents", "200", "--json"]
    by_copy = json.loads(zilch("advise", "--rules", str(copy), *state, *tables).stdout)
    by_target = json.loads(
        zilch("advise", "--rules", "farkle", "--target", "500", *state, *tables).stdout
    )
    assert by_copy["situation"] == "game" and by_copy["p_win"] == by_target["p_win"]
    assert _game_files(t) == built
    # the other commands that read a game or end-game table take --target too
    rows = zilch("export", "--rules", "farkle", "--target", "500", "--objective", "game", *tables)
    assert rows.stdout.count("\n") == 10 * 10 + 1  # (scores 0..450 each)
    last = zilch("endgame", "--rules", "farkle", "--target", "500", "--deficit", "450", "--json")
    assert 0 < json.loads(last.stdout)["p_win"] < 1
    # without --target the preset's own game (to 10000) is not stored: exit 3, its command
    err = json.loads(zilch("advise", "--rules", "farkle", *state, *tables, code=3).stderr)
    assert "--target 10000" in err["solve_with"]


def test_a_target_that_is_no_game_is_refused(tmp_path):
    for bad in ("0", "-500", "525"):
        res = zilch("advise", "--rules", "farkle", "--target", bad, "--dice", "3", code=2)
        assert "--target" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert (
        "--objective last-turn or game"
        in zilch("export", "--rules", "farkle", "--target", "500", code=2).stderr
    )


def test_play_and_review_to_another_target(tmp_path):
    """zilch play --target: the computers play that game (its table stored: by P(win)), the
    log's lines carry the target, and zilch review reads them by it."""
    t = ["--tables", str(tmp_path / "t")]
    zilch("game", "--rules", "farkle", "--target", "300", *t)
    log = tmp_path / "game.jsonl"
    moves = "\n".join(["best"] * 400) + "\n"
    res = zilch("play", "--rules", "farkle", "--target", "300", "--seed", "3", "--log", str(log),
                *t, input=moves)  # fmt: skip
    assert "first to 300" in res.stdout and "by the probability of winning" in res.stdout
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert lines and all(x["target"] == 300 for x in lines)
    d = json.loads(zilch("review", str(log), "--json", *t).stdout)
    assert d["objective"] == "game" and d["loss_total"] == 0.0
