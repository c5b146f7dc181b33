"""Issue 28 figures: a fixed policy's exact P(win) in each preset's own two-player game,
beside the optimal game's solve.  For each game: the optimal game from nothing, then
points (the expected-points card) against optimal, optimal against points, and points
against points -- each in a fresh process (its wall time, the solve's own time, its peak
memory), with P's chance moving first and moving second from 0-0, and the machine's load.
Run: python bench/bench_versus.py [--repeat N] [PRESET:TARGET ...] (farkle:10000
zilch:15000; each figure the median of N runs, the optimal game and the pairs alternating)."""

import json
import os
import statistics
import subprocess
import sys
import tempfile

SOLVE = """
import json, resource, sys, time
import dicesolver as ds
name, target, folder, policy, vs = sys.argv[1:6]
t0 = time.perf_counter()
if policy == "-":  # the optimal game's table, from nothing
    p = ds.game(name, target=int(target), tables=folder).p_win
    out = {"p_win": p, "p_win_moving_second": 1 - p}
    solve = time.perf_counter() - t0
else:
    a = ds.game(name, target=int(target), policy=policy, vs=vs, tables=folder)
    out = a.to_dict()
    solve = a.seconds
out.update(wall=time.perf_counter() - t0, solve=solve,
           peak_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
print(json.dumps(out))
"""


def run(name, target, folder, policy="-", vs="-"):
    load = os.getloadavg()[0]
    res = subprocess.run(
        [sys.executable, "-c", SOLVE, name, str(target), folder, policy, vs],
        check=True,
        capture_output=True,
        text=True,
    )
    out = json.loads(res.stdout)
    out["load"] = (load + os.getloadavg()[0]) / 2
    return out


def main():
    args = sys.argv[1:]
    repeat = 1
    if "--repeat" in args:
        i = args.index("--repeat")
        repeat = int(args[i + 1])
        del args[i : i + 2]
    games = [a.split(":") for a in args] or [["farkle", "10000"], ["zilch", "15000"]]
    print(f"cores: {os.cpu_count()}; each figure the median of {repeat} run(s), alternating")
    pairs = (("points", "optimal"), ("optimal", "points"), ("points", "points"))
    for name, target in games:
        runs: dict = {"-": [], **{p: [] for p in pairs}}
        for _ in range(repeat):  # the optimal game from nothing, then each pair on its table
            folder = tempfile.mkdtemp()
            runs["-"].append(run(name, int(target), folder))
            for p in pairs:
                runs[p].append(run(name, int(target), folder, *p))
        base = _median(runs["-"])
        print(
            f"{name} to {target}: optimal game from nothing {base['wall']:.1f} s, peak "
            f"{base['peak_mib']:.0f} MiB (load {base['load']:.1f}); P(first wins) "
            f"{base['p_win']:.6f}"
        )
        for policy, vs in pairs:
            r = _median(runs[(policy, vs)])
            ratio = statistics.median(
                x["solve"] / b["solve"] for x, b in zip(runs[(policy, vs)], runs["-"])
            )
            print(
                f"  {policy:>7} vs {vs:<7}: P(win) first {r['p_win']:.6f}, second "
                f"{r['p_win_moving_second']:.6f}; solve {r['solve']:.1f} s ({ratio:.2f} x "
                f"the optimal game), process {r['wall']:.1f} s, peak {r['peak_mib']:.0f} MiB "
                f"(load {r['load']:.1f})"
            )


def _median(rs: list[dict]) -> dict:
    """Each number's median over the runs (the chances are the same in every run)."""
    return {k: statistics.median(r[k] for r in rs) for k, v in rs[0].items() if _number(v)}


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


if __name__ == "__main__":
    main()
