"""The threshold tables (issue 37 item 1).  Run: python bench/bench_threshold.py [--rules yahtzee]
[--kinds atleast,beat] [--tables DIR] [--queries-only] [--runs N]

1. The expected-score table from nothing (whole process, empty table folder): time, peak
   memory.
2. Each threshold table from nothing (every level, every t up to the rules' highest score,
   bonuses included) in another process on the same folder: time, peak memory, the stored
   bytes.
3. Cold query processes on the stored tables, at every level's worst state: `yahtzee value
   ... --json` at the state whose level file is the largest there is (its states and offsets
   are checked whole), and `yahtzee advise ... --json` at the state of the level whose turn
   reads the most of the next level's vectors (every block of them checked): the wall time
   of the whole process (the OS file cache warm: the files were just written or read),
   median of --runs, the worst level said.  The machine's load average with each figure.
4. The widgets per state (--widget, on the stored tables): one level solved by the threshold
   kernel (every t at once) and by the expected-score kernel, in this process, both on two
   threads: seconds per state and per (state, t) entry.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXPECTED = r"""
import resource, sys, time
from dicesolver.store import Store
from dicesolver.yahtzee.solitaire import game_table
from dicesolver.yahtzee.yahtzee_rules import load
rs, store = load(sys.argv[1]), Store(sys.argv[2])
t0 = time.perf_counter()
E = game_table(rs, store)
dt = time.perf_counter() - t0
print(dt, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, E[0, 0, 0])
"""

THRESHOLD = r"""
import resource, sys, time
from dicesolver.store import Store
from dicesolver.yahtzee import threshold as TH
from dicesolver.yahtzee.yahtzee_rules import load
rs, store = load(sys.argv[1]), Store(sys.argv[2])
t0 = time.perf_counter()
lv = TH.level(rs, store, sys.argv[3], 0, lambda k: print("level", k, time.perf_counter() - t0,
              file=sys.stderr, flush=True))
dt = time.perf_counter() - t0
entries = sum(int(TH.layout(rs, k, lv.lo)[1][-1]) for k in range(rs.n_boxes))
print(dt, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, entries)
"""

WIDGET = r"""
import sys, time
import numpy as np
from dicesolver.store import Store
from dicesolver.yahtzee import threshold as TH
from dicesolver.yahtzee import solve as S
from dicesolver.yahtzee.solitaire import game_table
from dicesolver.yahtzee.yahtzee_rules import load
rs, store, kind = load(sys.argv[1]), Store(sys.argv[2]), sys.argv[3]
E = np.array(game_table(rs, store))
run, ev = TH.kernel(rs), S.level_kernel(rs)
for k in map(int, sys.argv[4].split(",")):
    nxt = TH.level(rs, store, kind, k + 1)
    t0 = time.perf_counter()
    lv = TH.solve_level(rs, k, nxt, run)
    t1 = time.perf_counter()
    ev(lv.states, E)
    t2 = time.perf_counter()
    n, m = len(lv.states), len(lv.data)
    print(f"  level {k}: {n} states, {m / n:.0f} t a state: threshold {(t1 - t0) / n * 1e6:.1f} us"
          f" a state ({(t1 - t0) / m * 1e9:.1f} ns an entry), expected score "
          f"{(t2 - t1) / n * 1e6:.2f} us a state: {(t1 - t0) / (t2 - t1):.0f}x", flush=True)
"""

CLI = "from dicesolver.cli.yahtzee_commands import yahtzee_main; yahtzee_main()"


def child(code: str, *argv: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", code, *argv], check=True, stdout=subprocess.PIPE, text=True
    )
    return out.stdout.split()


def cold(args: list[str]) -> tuple[float, dict]:
    """A whole `yahtzee ...` process: its wall seconds and its JSON."""
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", CLI, *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return time.perf_counter() - t0, json.loads(out.stdout)


def load_avg() -> str:
    return "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def worst_states(rules_name: str) -> list[tuple[int, list[str], int]]:
    """Per level k: (k, the command line of the state for `value`, of the state for
    `advise`) as --filled/--upper/--score arguments; see the module's text."""
    import numpy as np

    from dicesolver.yahtzee import threshold as TH
    from dicesolver.yahtzee.yahtzee_rules import load

    rs = load(rules_name)
    out = []
    lengths = [np.diff(TH.layout(rs, k, 1)[1]) for k in range(rs.n_boxes + 1)]
    states = [TH.layout(rs, k, 1)[0] for k in range(rs.n_boxes + 1)]
    for k in range(rs.n_boxes):
        per_mask = np.bincount(states[k + 1][:, 0], lengths[k + 1], minlength=1 << rs.n_boxes)
        masks = np.unique(states[k][:, 0])
        reads = [
            sum(per_mask[m | 1 << b] for b in range(rs.n_boxes) if not m >> b & 1) for m in masks
        ]
        out.append((k, int(masks[int(np.argmax(reads))])))
    return [(k, sheet(rs, m), int(m)) for k, m in out]


def sheet(rs, mask: int) -> list[str]:
    """--filled, --upper 0 and the least --score of those boxes (every one scored 0 where it
    can be)."""
    from dicesolver.yahtzee.box_scores import tables

    st = tables(rs)
    filled = [b for b in range(rs.n_boxes) if mask >> b & 1]
    least = sum(
        int(st.base[b].min()) for b in filled if not st.upper_face[b] and b != st.yahtzee_box
    )
    names = ",".join(rs.boxes[b] for b in filled)
    return (["--filled", names] if names else []) + ["--upper", "0", "--score", str(least)]


def queries(rules: str, folder: str, kind: str, runs: int) -> None:
    flag = "--at-least" if kind == "atleast" else "--beat"
    worst = {"value": (0.0, -1), "advise": (0.0, -1)}
    print(f"cold queries ({kind}), {load_avg()}:")
    for k, state, _ in worst_states(rules):
        score = int(state[state.index("--score") + 1])
        base = ["--rules", rules, "--tables", folder, "--json", *state, flag, str(score + 120)]
        row = []
        for what, extra in (("value", []), ("advise", ["--dice", "1,3,3,5,6"])):
            times = [cold([what, *base, *extra])[0] for _ in range(runs)]
            med = statistics.median(times)
            row.append(f"{what} {med:.2f} s")
            if med > worst[what][0]:
                worst[what] = (med, k)
        print(f"  level {k:2d}: {', '.join(row)}", flush=True)
    for what, (secs, k) in worst.items():
        print(f"  worst cold `yahtzee {what}`: {secs:.2f} s (level {k}), {load_avg()}")


def build(rules: str, folder: str, kind: str) -> None:
    print(f"building the {kind} table, {load_avg()}", flush=True)
    secs, peak, entries = child(THRESHOLD, rules, folder, kind)
    size = sum(p.stat().st_size for p in Path(folder).glob(f"*-yahtzee-{kind}-L*.dst"))
    print(
        f"threshold table ({kind}): {float(secs):.1f} s, peak {float(peak):.0f} MiB, "
        f"{int(entries)} entries, {size / 2**30:.2f} GiB stored, {load_avg()}",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rules", default="yahtzee")
    ap.add_argument("--kinds", default="atleast,beat")
    ap.add_argument("--tables", default=None, help="a folder to keep (default: a new one)")
    ap.add_argument("--queries-only", action="store_true", help="the tables are built")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--widget", default=None, help="levels to time the widgets at, e.g. 6,10")
    a = ap.parse_args()
    folder = a.tables or tempfile.mkdtemp(prefix="bench-threshold-")
    kinds = a.kinds.split(",")
    if not a.queries_only:
        print(f"expected-score table, {load_avg()}", flush=True)
        secs, peak, value = child(EXPECTED, a.rules, folder)
        print(f"expected-score table: {float(secs):.1f} s, peak {float(peak):.0f} MiB ({value})")
        for kind in kinds:
            build(a.rules, folder, kind)
    for kind in kinds:
        queries(a.rules, folder, kind, a.runs)
    if a.widget:
        print(f"widgets per state ({kinds[0]}), {load_avg()}:", flush=True)
        subprocess.run([sys.executable, "-c", WIDGET, a.rules, folder, kinds[0], a.widget])
        print(f"  {load_avg()}")


if __name__ == "__main__":
    main()
