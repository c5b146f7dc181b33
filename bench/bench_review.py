"""Issue 26 figures: `zilch review` and `yahtzee review` at scale, lines per second and peak
memory (each review in a process of its own: its peak resident set, ru_maxrss).

The zilch-family log: a bot's simulated farkle turns (bank at fixed thresholds, every scoring
die kept: it loses, so every line is graded), 10^5 and 10^6 lines (`zilch simulate --log`,
the lines of the turns as they come).  The Yahtzee log: games of optimal play (yahtzee play,
'best' every time), 10^4 lines of distinct games, then the same games repeated to 10^5 lines.
Run: python bench/bench_review.py [--lines 1000000]"""

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

import dicesolver as ds

BOT = """name = "thresholds"
[bank]
thresholds = { 6 = 3000, 5 = 2000, 4 = 1000, 3 = 400, 2 = 300, 1 = 300 }
[set_aside]
rule = "all"
"""

REVIEW = """import resource, sys, time
import dicesolver as ds
t = time.perf_counter()
a = getattr(ds, sys.argv[1])(sys.argv[2])
dt = time.perf_counter() - t
print(a.decisions, dt, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def farkle_log(folder: str, lines: int) -> str:
    """A bot's simulated farkle turns, cut to `lines` lines."""
    bot = os.path.join(folder, "bot.toml")
    with open(bot, "w") as f:
        f.write(BOT)
    whole = os.path.join(folder, "farkle-all.jsonl")
    ds.simulate("farkle", turns=lines // 2 + 1000, policy=bot, seed=1, log=whole)
    out = os.path.join(folder, f"farkle-{lines}.jsonl")
    with open(whole) as src, open(out, "w") as dst:
        for _, line in zip(range(lines), src):
            dst.write(line)
    return out


def yahtzee_log(folder: str, lines: int, distinct: int) -> str:
    """Games of optimal play: `distinct` lines of distinct games, repeated to `lines`."""
    one = os.path.join(folder, "game.jsonl")
    games: list[str] = []
    seed = 0
    while sum(len(g) for g in games) < distinct:
        ds.yahtzee_play(seed=seed, ask=lambda _: "best", say=lambda _: None, log=one)
        with open(one) as f:
            games.append(f.read().splitlines(keepends=True))
        seed += 1
    body = [line for g in games for line in g][:distinct]
    out = os.path.join(folder, f"yahtzee-{lines}.jsonl")
    with open(out, "w") as f:
        for i in range(lines):
            f.write(body[i % len(body)])
    return out


def measure(api: str, log: str) -> None:
    """One review in a fresh process: lines per second (of the review itself, not the
    process's start) and the process's peak memory."""
    out = subprocess.run(
        [sys.executable, "-c", REVIEW, api, log], capture_output=True, text=True, check=True
    ).stdout.split()
    decisions, seconds, peak_kb = int(out[0]), float(out[1]), int(out[2])
    with open(log, "rb") as f:
        lines = sum(1 for _ in f)
    print(
        f"{api:15} {lines:>9} lines ({decisions} decisions): {seconds:7.1f} s, "
        f"{lines / seconds:9.0f} lines/s, peak memory {peak_kb / 1024:.0f} MB"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=1_000_000)
    n = ap.parse_args().lines
    folder = tempfile.mkdtemp()
    t = time.perf_counter()
    big = farkle_log(folder, n)
    small = farkle_log(folder, n // 10)
    print(f"(logs written in {time.perf_counter() - t:.0f} s)")
    measure("review", small)
    measure("review", big)
    measure("yahtzee_review", yahtzee_log(folder, n // 100, n // 100))
    measure("yahtzee_review", yahtzee_log(folder, n // 10, n // 100))
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"(this process, which wrote the logs: {base / 1024:.0f} MB)")


if __name__ == "__main__":
    main()
