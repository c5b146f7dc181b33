"""Issue 29's last row: a cold `zilch strategy --rules farkle` process (a new, empty tables
folder each run: nothing solved, nothing stored) against a plain-Python solve process of the
same card (bench/plain_reference.py: the standard library only), whole processes in turn (A
B A B ...), wall time; the medians and the median of the pairs' ratios.

Run: python bench/bench_cold_strategy.py [RUNS]   (default 21)"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ZILCH = os.path.join(os.path.dirname(sys.executable), "zilch")


def timed(cmd: list[str]) -> tuple[float, str]:
    t = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - t, out


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 21
    ref = [sys.executable, os.path.join(HERE, "plain_reference.py")]
    a, b = [], []
    for i in range(runs + 1):  # (the first pair warms the file cache: not counted)
        with tempfile.TemporaryDirectory() as folder:
            ta, card = timed([ZILCH, "strategy", "--rules", "farkle", "--tables", folder])
        tb, ref_card = timed(ref)
        if i:
            a.append(ta)
            b.append(tb)
    # the same card: the fresh turn's value and every threshold
    assert card.splitlines()[0].split("worth ")[1] == ref_card.splitlines()[0].split("worth ")[1]
    assert card.splitlines()[1:] == ref_card.splitlines()[1:], (card, ref_card)
    ratios = [x / y for x, y in zip(a, b)]
    print(f"cold zilch strategy --rules farkle: median {statistics.median(a):.3f} s wall")
    print(f"plain-Python reference process:     median {statistics.median(b):.3f} s wall")
    print(
        f"ratio, pair by pair: median {statistics.median(ratios):.2f} "
        f"({min(ratios):.2f} .. {max(ratios):.2f}), {runs} pairs, load {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
