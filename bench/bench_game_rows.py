"""Issue 29's rows by name: each whole game as a user meets it, `zilch game` into an empty
tables folder (the model, the reach bound and the game from nothing), measured as
bench_cold_game.py measures (wall, CPU, max RSS), with the load average before and after.

Run: python bench/bench_game_rows.py [ROW ...]   (default: zilch overtaking pyramiding penalty)
Rows: zilch, overtaking, pyramiding, penalty (farkle with the 500 penalty to 10000, lowest
-2000), challenge (exact lowest), three (three players, farkle to 10000, 2 workers),
three-2000, three-3000, three-5000 (the same at smaller targets: issue 39's before and
after, alternating DICESOLVER_LANES=0 and 1 runs: the kernel's rows one or four at a time)."""

import os
import sys
import tempfile
from importlib import resources
from pathlib import Path

from bench_cold_game import measure_args

ROWS = {
    "zilch": ["--rules", "zilch"],
    "overtaking": ["--rules", "zilch-overtaking"],
    "pyramiding": ["--rules", "zilch-pyramiding"],
    "challenge": ["--rules", "zilch-challenge"],
    "penalty": ["--rules", "{penalty}", "--lowest", "-2000"],
    "three": ["--rules", "farkle", "--players", "3", "--workers", "2"],
    **{
        f"three-{t}": ["--rules", "farkle", "--players", "3", "--workers", "2", "--target", str(t)]
        for t in (2000, 3000, 5000)
    },
}


def penalty_rules(folder: Path) -> Path:
    """farkle with the 500 penalty for the third zilch in a row (to 10000), as a rule file."""
    text = resources.files("dicesolver").joinpath("rulesets", "farkle.toml").read_text()
    text = text.replace('name = "farkle"', 'name = "farkle-penalty"')
    text = text.replace("[game]\n", "[game]\nthree_zilch_penalty = 500\n")
    out = folder / "farkle-penalty.toml"
    out.write_text(text)
    return out


def run(row: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        args = [a.replace("{penalty}", str(penalty_rules(Path(folder)))) for a in ROWS[row]]
        load = os.getloadavg()[0]
        wall, cpu, rss = measure_args(args)
    print(
        f"{row:10} {wall:8.1f} s wall ({cpu:.1f} s CPU), {rss:7.0f} MB max RSS "
        f"(load {load:.1f} -> {os.getloadavg()[0]:.1f}; "
        f"DICESOLVER_LANES={os.environ.get('DICESOLVER_LANES', '1')})",
        flush=True,
    )


if __name__ == "__main__":
    for r in sys.argv[1:] or ["zilch", "overtaking", "pyramiding", "penalty"]:
        run(r)
