"""Issue 13 figures: the strategy card with a penalty for the third zilch in a row (the
long-run average over the count, objectives/average.py) against the card without one, for
Busche's playr Zilch and each preset given a 500 penalty:

  solve      the card's solve alone, the model stored (median of 20)
  card       the card from nothing: every roll enumerated and scored, then solved (median of 5)
             (a query reads the stored card: this is paid once per rule set)
  command    a whole `zilch strategy` process with an empty table folder (median of 5)

Run: python bench/bench_penalty.py"""

import dataclasses
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_core import timed  # (bench/ is on the path of a script run from it)

from dicesolver import rules
from dicesolver.objectives.average import solve_average
from dicesolver.objectives.score import solve_score
from dicesolver.outcomes import dice, scoring
from dicesolver.outcomes.model import TurnModel, model_arrays, turn_model

BUSCHE = Path(__file__).resolve().parent.parent / "tests" / "data" / "zilch-playr-busche.toml"


def card(rs):
    dice.outcomes.cache_clear()
    scoring.scored.cache_clear()
    model = TurnModel.from_arrays(rs, model_arrays(rs))
    return solve_average(model) if rs.three_zilch_penalty else solve_score(model)


def command(rules_file):
    def run():
        with tempfile.TemporaryDirectory() as folder:
            env = dict(os.environ, DICESOLVER_TABLES=folder)
            cmd = [sys.executable, "-m", "dicesolver", "strategy", "--rules", rules_file]
            subprocess.run(cmd, env=env, check=True, capture_output=True)

    return timed(run, 5)


def toml(rs, folder):
    """A rules file of `rs` (the preset's source with the penalty set)."""
    import json

    src = rules.canonical_source(rs.name) if rs.name in rules.preset_names() else None
    path = Path(folder) / f"{rs.name}-{rs.three_zilch_penalty}.toml"
    if src is None:
        return str(BUSCHE) if rs.three_zilch_penalty else None
    src.setdefault("game", {})["three_zilch_penalty"] = rs.three_zilch_penalty
    lines = []
    for k, v in src.items():
        if not isinstance(v, (dict, list)):
            lines.append(f"{k} = {json.dumps(v)}")
    lines.append("[faces]")
    lines += [f"{f} = {json.dumps(v)}" for f, v in src["faces"].items()]
    for p in src.get("patterns", []):
        lines.append("[[patterns]]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in p.items()]
    lines.append("[game]")
    lines += [f"{k} = {json.dumps(v)}" for k, v in src["game"].items()]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def main():
    folder = tempfile.mkdtemp()
    print(
        f"{'rules':20} {'solve':>22} {'ratio':>6} {'card':>20} {'ratio':>6}"
        f" {'command':>18} {'ratio':>6}   g (points per turn)"
    )
    cases = [(rules.load(str(BUSCHE)), "playr-busche")]
    cases += [
        (dataclasses.replace(rules.load(n), three_zilch_penalty=500), n)
        for n in ("farkle", "zilch", "zilch-online", "zonk-detroit")
    ]
    for rs, label in cases:
        plain = dataclasses.replace(rs, three_zilch_penalty=0)
        model = turn_model(rs)
        solve_average(model)
        s0 = timed(lambda: solve_score(model), 20)
        s1 = timed(lambda: solve_average(model), 20)
        c0 = timed(lambda: card(plain), 5)
        c1 = timed(lambda: card(rs), 5)
        f0 = toml(plain, folder) if label != "playr-busche" else None
        if f0 is None:  # Busche's file without its penalty
            src = BUSCHE.read_text().replace("three_zilch_penalty = 500", "")
            f0 = str(Path(folder) / "busche-0.toml")
            Path(f0).write_text(src)
        f1 = toml(rs, folder)
        p0, p1 = command(f0), command(f1)
        g = solve_average(model)[2].average
        print(
            f"{label:20} {s0 * 1e3:8.1f} -> {s1 * 1e3:6.1f} ms {s1 / s0:5.1f}x"
            f" {c0 * 1e3:7.0f} -> {c1 * 1e3:5.0f} ms {c1 / c0:5.2f}x"
            f" {p0:6.2f} -> {p1:5.2f} s {p1 / p0:5.2f}x   {g:.4f}"
        )


if __name__ == "__main__":
    main()
