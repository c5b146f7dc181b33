"""Issue 28 figures: a fixed policy's exact P(win) in each preset's own two-player game,
beside the optimal game's solve.  For each game: the optimal game from nothing, then
points (the expected-points card) against optimal, optimal against points, and points
against points -- each in a fresh process (its wall time, the solve's own time, its peak
memory), with P's chance moving first and moving second from 0-0, and the machine's load.
Run: python bench/bench_versus.py [PRESET:TARGET ...] (farkle:10000 zilch:15000)."""

import json
import os
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
    games = [a.split(":") for a in sys.argv[1:]] or [["farkle", "10000"], ["zilch", "15000"]]
    print(f"cores: {os.cpu_count()}")
    for name, target in games:
        folder = tempfile.mkdtemp()
        base = run(name, int(target), folder)
        print(
            f"{name} to {target}: optimal game from nothing {base['wall']:.1f} s, peak "
            f"{base['peak_mib']:.0f} MiB (load {base['load']:.1f}); P(first wins) "
            f"{base['p_win']:.6f}"
        )
        for policy, vs in (("points", "optimal"), ("optimal", "points"), ("points", "points")):
            r = run(name, int(target), folder, policy, vs)
            print(
                f"  {policy:>7} vs {vs:<7}: P(win) first {r['p_win']:.6f}, second "
                f"{r['p_win_moving_second']:.6f}; solve {r['solve']:.1f} s "
                f"({r['solve'] / base['solve']:.2f} x the optimal game), process "
                f"{r['wall']:.1f} s, peak {r['peak_mib']:.0f} MiB (load {r['load']:.1f})"
            )


if __name__ == "__main__":
    main()
