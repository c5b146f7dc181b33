"""Issue 29's rows: each whole game as a user meets it — `zilch game` as a whole process into
an empty tables folder (the model, the reach bound and the game from nothing), its wall time
and peak memory (/usr/bin/time), with the machine's load average before and after.

Run: python bench/bench_game_rows.py [ROW ...]   (default: zilch overtaking pyramiding penalty)
Rows: zilch, overtaking, pyramiding, penalty, challenge (hours before issue 29's work),
three (three players, farkle to 10000, 2 workers: about an hour before it)."""

import os
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path

ROWS = {
    "zilch": ["--rules", "zilch"],
    "overtaking": ["--rules", "zilch-overtaking"],
    "pyramiding": ["--rules", "zilch-pyramiding"],
    "challenge": ["--rules", "zilch-challenge"],
    "penalty": ["--rules", "{penalty}", "--lowest", "-2000"],
    "three": ["--rules", "farkle", "--players", "3", "--workers", "2"],
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
    folder = Path(tempfile.mkdtemp())
    args = [a.replace("{penalty}", str(penalty_rules(folder))) for a in ROWS[row]]
    cmd = ["/usr/bin/time", "-f", "%e %M", "zilch", "game", *args, "--tables", str(folder)]
    load = os.getloadavg()[0]
    res = subprocess.run(cmd, capture_output=True, text=True)
    wall, kb = res.stderr.strip().splitlines()[-1].split()
    answer = res.stdout.strip().splitlines()[-1] if res.stdout.strip() else res.stderr
    print(
        f"{row:10} {float(wall):8.1f} s  {int(kb) / 1024:7.0f} MiB  "
        f"(load {load:.1f} -> {os.getloadavg()[0]:.1f}; exit {res.returncode})  {answer}",
        flush=True,
    )


if __name__ == "__main__":
    for r in sys.argv[1:] or ["zilch", "overtaking", "pyramiding", "penalty"]:
        run(r)
