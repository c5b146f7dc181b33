"""Exact odds of one roll: zilch, each scoring combination, the best immediate points."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from fractions import Fraction
from functools import partial

from ..rules import Pattern, RuleSet
from .dice import Outcome
from .scoring import scored

NAMES = {1: "single", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def _pattern_name(p: Pattern) -> str:
    if p.kind == "straight":
        return "straight " + "-".join(map(str, p.faces))
    return p.kind.replace("_", " ")


Test = Callable[[Outcome], bool] | None


def _has(f: int, k: int, o: Outcome) -> bool:
    """At least k dice show face f."""
    return o.counts[f - 1] >= k


def combinations(rules: RuleSet, n: int) -> list[tuple[str, int, Test]]:
    """(name, points, test(outcome) -> bool) of every combination that n dice can show."""
    out: list[tuple[str, int, Test]] = []
    for f in range(1, 7):
        for k in range(1, n + 1):
            pts = rules.faces[f - 1][k - 1]
            if pts:
                name = f"{NAMES[k]} {f}" + ("" if k == 1 else "s")
                out.append((name, pts, partial(_has, f, k)))
    for p in rules.patterns:
        if p.size > n or (p.kind != "straight" and n != 6):
            continue
        test: Test
        if p.kind == "straight":
            test = lambda o, p=p: all(o.counts[f - 1] for f in p.faces)
        elif p.kind == "colour_pairs":
            test = lambda o: o.matched
        elif p.kind == "no_score":
            test = None  # filled below: a six-dice roll with nothing else
        else:
            test = lambda o, p=p: tuple(sorted(c for c in o.counts if c)) in p.signatures()
        out.append((_pattern_name(p) + (" (permanent)" if p.permanent else ""), p.points, test))
    return out


def roll_odds(rules: RuleSet, n: int) -> dict:
    """Exact probabilities (Fractions) for a roll of n dice."""
    outs = scored(rules, n)
    zilch = sum((s.outcome.prob for s in outs if not s.choices), Fraction(0))
    combos = []
    for name, pts, test in combinations(rules, n):
        if test is None:  # no-score pattern: exactly the six-dice rolls with no other score
            p = sum(
                (
                    s.outcome.prob
                    for s in outs
                    if s.choices and s.best_points == pts and not _has_other(rules, s.outcome)
                ),
                Fraction(0),
            )
        else:
            p = sum((s.outcome.prob for s in outs if test(s.outcome)), Fraction(0))
        combos.append({"combination": name, "points": pts, "probability": p})
    dist: dict[int, Fraction] = defaultdict(Fraction)
    for s in outs:
        dist[s.best_points] += s.outcome.prob
    mean = sum((k * v for k, v in dist.items()), Fraction(0))
    return {
        "dice": n,
        "p_zilch": zilch,
        "combinations": combos,
        "best_points": dict(sorted(dist.items())),
        "mean_best_points": mean,
    }


def _has_other(rules: RuleSet, o: Outcome) -> bool:
    return any(t(o) for name, _, t in combinations(rules, sum(o.counts)) if t is not None)
