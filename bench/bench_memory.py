"""Issue 12 figures: memory stays bounded in the size of the work.  Peak resident memory
(and wall time) of whole processes: `zilch simulate --turns 10^8`, and `zilch verify` of a
5 * 10^7-row results file (written first, from the exact distribution, ~200 MB), and
`yahtzee simulate`, each beside a run a hundred times smaller.
Run: python bench/bench_memory.py"""

import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

import dicesolver as ds


def peak(cmd: list[str]) -> tuple[float, float]:
    """(peak MiB, seconds) of one run of cmd, from a fresh parent (its children's max)."""
    probe = (
        "import resource, subprocess, sys, time; t = time.perf_counter(); "
        "subprocess.run(sys.argv[1:], capture_output=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "
        "time.perf_counter() - t)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, *cmd], check=True, capture_output=True, text=True
    ).stdout.split()
    return int(out[0]) / 1024, float(out[1])


def write_results(path: str, rows: int, seed: int = 1) -> None:
    """rows turn scores drawn from farkle's exact distribution, one per line."""
    d = ds.evaluate("farkle")
    totals = np.array([int(t) for t in d.distribution])
    probs = np.array(list(d.distribution.values()))
    rng = np.random.default_rng(seed)
    with open(path, "w") as f:
        f.write("score\n")
        for start in range(0, rows, 1_000_000):
            k = min(1_000_000, rows - start)
            f.write("\n".join(map(str, rng.choice(totals, k, p=probs / probs.sum()))) + "\n")


def main() -> None:
    zilch = [sys.executable, "-m", "dicesolver"]
    folder = tempfile.mkdtemp()
    env_tables = ["--tables", os.path.join(folder, "tables")]
    subprocess.run([*zilch, "strategy", *env_tables], check=True, capture_output=True)
    for turns in (10**6, 10**8):
        mib, s = peak([*zilch, "simulate", "--turns", str(turns), "--seed", "1", *env_tables])
        print(f"zilch simulate --turns {turns:.0e}: peak {mib:.0f} MiB, {s:.1f} s")
    for rows in (5 * 10**5, 5 * 10**7):
        path = os.path.join(folder, f"results-{rows}.csv")
        t0 = time.perf_counter()
        write_results(path, rows)
        size = os.path.getsize(path) / 1e6
        mib, s = peak([*zilch, "verify", "--results", path, *env_tables])
        print(
            f"zilch verify of {rows:.0e} rows ({size:.0f} MB, written in "
            f"{time.perf_counter() - t0:.0f} s): peak {mib:.0f} MiB, {s:.1f} s"
        )
        os.remove(path)
    yahtzee = [sys.executable, "-c", "from dicesolver.cli import yahtzee_main; yahtzee_main()"]
    subprocess.run([*yahtzee, "value", *env_tables], check=True, capture_output=True)
    for games in (3 * 10**4, 3 * 10**5):  # (batches of 20 000 games: flat beyond)
        mib, s = peak([*yahtzee, "simulate", "--games", str(games), *env_tables])
        print(f"yahtzee simulate --games {games:.0e}: peak {mib:.0f} MiB, {s:.1f} s")
    print(
        f"(this process: peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB)"
    )


if __name__ == "__main__":
    main()
