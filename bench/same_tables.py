"""Issue 29: every game table the same before and after a change of the solvers.  Solves
every variant at small and medium targets through the one door (Tables.game_table) into a
new folder and saves each table's arrays; --compare prints the largest difference of each
table between two such files (the states both keep; a state kept by one only is listed).

Run with the interpreter of each checkout (it imports the `dicesolver` installed there):
  python bench/same_tables.py OUT.npz [SIZES] [--skip NAME,...]
      (SIZES: small, medium or all; default all; NAME as printed, e.g.
      zilch-challenge-500-2-None: an hour before issue 29's challenge work)
  python bench/same_tables.py --compare BEFORE.npz AFTER.npz"""

import dataclasses
import sys
import tempfile
import time

import numpy as np

from dicesolver import rules
from dicesolver.store import Store
from dicesolver.tables import Tables
from dicesolver.variants import of


def _rules(name: str, **changes):
    rs = rules.load(name)
    if "challenge" in changes:  # the rule book's challenge on other rules
        changes.update(challenge_threshold=5000, challenge_costs=(600, 2000))
    return dataclasses.replace(rs, **changes)


# (label, rules, target, players, lowest, size)
CASES = [
    ("zilch", lambda: _rules("zilch"), 3000, 2, None, "small"),
    ("zilch", lambda: _rules("zilch"), 7500, 2, None, "medium"),
    ("farkle", lambda: _rules("farkle"), 3000, 2, None, "small"),
    ("farkle", lambda: _rules("farkle"), 10000, 2, None, "medium"),
    ("zilch-online", lambda: _rules("zilch-online"), 1500, 2, None, "small"),
    ("zonk-chicago", lambda: _rules("zonk-chicago"), 1500, 2, None, "small"),
    ("zilch-pyramiding", lambda: _rules("zilch-pyramiding"), 1500, 2, None, "small"),
    ("zilch-pyramiding", lambda: _rules("zilch-pyramiding"), 4000, 2, None, "medium"),
    ("zilch-overtaking", lambda: _rules("zilch-overtaking"), 1500, 2, None, "small"),
    ("zilch-overtaking", lambda: _rules("zilch-overtaking"), 4000, 2, None, "medium"),
    ("farkle-overtaking", lambda: _rules("farkle", overtaking=True), 1500, 2, None, "small"),
    ("zilch-challenge", lambda: _rules("zilch-challenge"), 500, 2, None, "small"),
    ("zilch-challenge", lambda: _rules("zilch-challenge"), 500, 2, -300, "small"),
    ("zilch-challenge", lambda: _rules("zilch-challenge"), 1000, 2, None, "medium"),
    ("farkle-challenge", lambda: _rules("farkle", challenge=True), 500, 2, None, "small"),
    ("farkle-penalty", lambda: _rules("farkle", three_zilch_penalty=500), 2000, 2, -1000, "small"),
    ("farkle-penalty", lambda: _rules("farkle", three_zilch_penalty=500), 5000, 2, -2000, "medium"),
    ("zilch-3", lambda: _rules("zilch"), 800, 3, None, "small"),
    ("farkle-3", lambda: _rules("farkle"), 1500, 3, None, "small"),
]


def arrays_of(g) -> dict[str, np.ndarray]:
    """The values a game table holds (W, or the N-player table's V)."""
    if hasattr(g, "W"):
        return {"W": np.asarray(g.W)}
    return {"V": np.asarray(g.V)}


def dump(out: str, size: str, skip: frozenset[str] = frozenset()) -> None:
    saved = {}
    for label, make, target, players, lowest, sz in CASES:
        if size != "all" and sz != size:
            continue
        name = f"{label}-{target}-{players}-{lowest}"
        if name in skip:
            continue
        rs = dataclasses.replace(make(), target=target)
        tab = Tables(rs, Store(tempfile.mkdtemp()))
        variant = of(rs, players)
        key = variant.key(players, lowest)
        t0 = time.perf_counter()
        try:  # (the solution's own table where the variants give one: issue 35)
            from dicesolver.variants import Where

            g = tab.game_table(key, solve=True, where=Where(workers=1))
            g = getattr(g, "game", g)
        except ImportError:  # (a checkout before it)
            g = tab.game_table(key, solve=True, workers=1)
        took = time.perf_counter() - t0
        for k, v in arrays_of(g).items():
            saved[f"{name}:{k}"] = v
        print(f"{name}: {took:.1f} s", flush=True)
    np.savez(out, **saved)


def compare(before: str, after: str) -> int:
    a, b = np.load(before), np.load(after)
    worst = 0.0
    for k in sorted(set(a.files) | set(b.files)):
        if k not in a.files or k not in b.files:
            print(f"{k}: only in {'before' if k in a.files else 'after'}")
            continue
        x, y = a[k], b[k]
        if x.shape != y.shape:
            print(f"{k}: shapes {x.shape} and {y.shape}")
            worst = np.inf
            continue
        both = np.isfinite(x) & np.isfinite(y)
        one = np.isfinite(x) != np.isfinite(y)
        d = float(np.max(np.abs(x[both] - y[both]), initial=0.0))
        worst = max(worst, d)
        extra = ""
        if one.any():
            extra = (
                f"; kept before only {int((np.isfinite(x) & ~np.isfinite(y)).sum())}, "
                f"after only {int((~np.isfinite(x) & np.isfinite(y)).sum())}"
            )
        print(f"{k}: {int(both.sum())} states, largest difference {d:.3e}{extra}")
    print(f"largest difference of all: {worst:.3e}")
    return 0 if worst <= 1e-12 else 1


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    args = sys.argv[1:]
    skip: frozenset[str] = frozenset()
    if "--skip" in args:
        i = args.index("--skip")
        skip = frozenset(args[i + 1].split(","))
        del args[i : i + 2]
    dump(args[0], args[1] if len(args) > 1 else "all", skip)
