"""A plain-Python solve process: the expected-points card of one turn (what `zilch strategy
--rules farkle` prints), from the preset's TOML file alone, with nothing of the package but
that file and nothing outside the standard library.  Issue 29's reference for a cold
`zilch strategy` process (bench/bench_cold_strategy.py times the two as whole processes).

The turn: roll n dice, set aside any scoring dice (every kept die scores: per face a group
or several, or a six-dice pattern), then bank the turn total or roll the dice left (all six
again once every die has scored: hot dice); a roll that scores nothing loses the turn's
total.  V(n, t) = max(t, roll(n, t)) by backward induction over t (50-point units) from a
total past which banking is surely best (GRID points; the card's thresholds are below it).

Run: python bench/plain_reference.py [RULES.toml]   (default: the farkle preset)
"""

import sys
import tomllib
from functools import cache
from itertools import combinations_with_replacement
from math import factorial
from pathlib import Path

GRID = 20000  # points: banking is best from here on with any number of dice
UNIT = 50


def load(path):
    with open(path, "rb") as f:
        r = tomllib.load(f)
    faces = {int(k): v for k, v in r["faces"].items()}
    return r["dice"], faces, r.get("patterns", [])


def best_groups(faces, f, c):
    """The most points c dice of face f make as groups (None: they cannot all score)."""

    @cache
    def best(c):
        if c == 0:
            return 0
        out = None
        for k in range(1, c + 1):
            p = faces[f][k - 1]
            rest = best(c - k) if p else None
            if rest is not None and (out is None or p + rest > out):
                out = p + rest
        return out

    return best(c)


def kept_points(faces, patterns, kept):
    """Points of a set-aside (sorted faces), None where some die does not score."""
    total = 0
    for f in set(kept):
        p = best_groups(faces, f, kept.count(f))
        if p is None:
            total = None
            break
        total += p
    for pat in patterns:
        if pat["kind"] == "straight" and tuple(kept) == tuple(sorted(pat["faces"])):
            total = max(total or 0, pat["points"])
        if pat["kind"] == "three_pairs" and len(kept) == 6:
            counts = sorted(kept.count(f) for f in set(kept))
            pairs = counts == [2, 2, 2] or (not pat.get("distinct") and counts in ([2, 4], [6]))
            if pairs:
                total = max(total or 0, pat["points"])
    return total


def sub_multisets(roll):
    """Every nonempty sub-multiset of a sorted roll."""
    counts = {f: roll.count(f) for f in set(roll)}
    items = sorted(counts)
    out = [[]]
    for f in items:
        out = [s + [f] * k for s in out for k in range(counts[f] + 1)]
    return [tuple(sorted(s)) for s in out if s]


def roll_groups(dice, faces, patterns):
    """For n = 1..dice: [(probability, ((dice kept, units), ...))], rolls with the same
    best options merged (per number of dice kept only the most points matter)."""
    groups = {}
    for n in range(1, dice + 1):
        merged = {}
        for roll in combinations_with_replacement(range(1, 7), n):
            ways = factorial(n)
            for f in set(roll):
                ways //= factorial(roll.count(f))
            best = {}
            for kept in sub_multisets(roll):
                p = kept_points(faces, patterns, list(kept))
                if p is not None and p > best.get(len(kept), -1):
                    best[len(kept)] = p
            key = tuple(sorted((k, p // UNIT) for k, p in best.items()))
            merged[key] = merged.get(key, 0) + ways / 6**n
        groups[n] = [(p, key) for key, p in merged.items()]
    return groups


def solve(dice, groups):
    top = GRID // UNIT
    V = [[float(x * UNIT) for x in range(top + 200)] for _ in range(dice + 1)]  # banks past top
    roll_value = {}
    for t in range(top, -1, -1):
        for n in range(1, dice + 1):
            r = 0.0
            for p, options in groups[n]:
                if options:
                    r += p * max(V[n - k if k < n else dice][t + u] for k, u in options)
            roll_value[n, t] = r
            V[n][t] = max(float(t * UNIT), r) if t else r
    return V, roll_value


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else None
    if path is None:
        path = Path(__file__).resolve().parent.parent / "solver" / "rulesets" / "farkle.toml"
    dice, faces, patterns = load(path)
    groups = roll_groups(dice, faces, patterns)
    V, roll_value = solve(dice, groups)
    print(f"a fresh turn is worth {V[dice][0]:.4f} points")
    print("dice left   bank from turn total")
    top = GRID // UNIT
    for n in range(dice, 0, -1):
        t = top
        while t > 1 and roll_value[n, t - 1] <= (t - 1) * UNIT:
            t -= 1
        print(f"{n:10}   {t * UNIT}")


if __name__ == "__main__":
    main()
