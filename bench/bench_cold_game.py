"""Issue 29 figures: a whole game from nothing, the whole process — `zilch game --rules
PRESET --target T` into an empty tables folder under /usr/bin/time -v: wall time and peak
memory (max RSS), against the solver's own estimate (what `zilch game` prints before a long
solve; Variant.estimate) and their ratio (the issue asks for one within a factor of two).

Run: python bench/bench_cold_game.py PRESET:TARGET[,TARGET...] ...
      (e.g. zilch-challenge:500,1000,2000 zilch:15000; the interpreter's own `zilch`)
      --estimate-only: the estimates alone (e.g. for a target too long to measure here)
Timings on a shared machine are noisy: run each figure more than once, quote medians."""

import dataclasses
import os
import re
import subprocess
import sys
import tempfile

from dicesolver import rules
from dicesolver.store import Store
from dicesolver.tables import Tables
from dicesolver.variants import of

FIELDS = ("User", "System")


def estimate(preset: str, target: int) -> float:
    """The solve's estimate in seconds (Variant.estimate, as `zilch game` computes it)."""
    rs = dataclasses.replace(rules.load(preset), target=target)
    with tempfile.TemporaryDirectory() as folder:
        tab = Tables(rs, Store(folder))
        variant = of(rs, 2)
        return variant.estimate(tab, variant.key(2, None)).seconds


def measure(preset: str, target: int) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, max RSS in MB) of the whole `zilch game` process from
    nothing (CPU: user and system, both cores; on a shared machine the wall time is the
    noisier figure)."""
    return measure_args(["--rules", preset, "--target", str(target)])


def measure_args(args: list[str]) -> tuple[float, float, float]:
    """measure's figures of `zilch game ARGS` into an empty tables folder."""
    zilch = os.path.join(os.path.dirname(sys.executable), "zilch")
    cmd = ["/usr/bin/time", "-v", zilch, "game", *args]
    with tempfile.TemporaryDirectory() as folder:  # (the tables solved: gone after)
        cmd += ["--tables", folder, "--json"]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stderr
    h, m, s = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", out).groups()
    wall = 3600 * int(h or 0) + 60 * int(m) + float(s)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", out).group(1))
    cpu = sum(float(re.search(rf"{k} time \(seconds\): ([\d.]+)", out).group(1)) for k in FIELDS)
    return wall, cpu, rss / 1024


def main() -> None:
    args = sys.argv[1:]
    only = "--estimate-only" in args
    for spec in (a for a in args if a != "--estimate-only"):
        preset, targets = spec.split(":")
        for target in (int(t) for t in targets.split(",")):
            est = estimate(preset, target)
            if only:
                print(f"{preset} to {target}: estimate {est:.0f} s", flush=True)
                continue
            wall, cpu, rss = measure(preset, target)
            print(
                f"{preset} to {target}: {wall:.1f} s wall ({cpu:.1f} s CPU), {rss:.0f} MB max "
                f"RSS; estimate "
                f"{est:.0f} s ({est / wall:.2f}x the measured)",
                flush=True,
            )


if __name__ == "__main__":
    main()
