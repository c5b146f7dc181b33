"""Is someone's simulator right?  Their samples against the exact distribution.

Turn scores: a G-test (log-likelihood ratio, scipy.stats.power_divergence) on the totals,
binned so that every bin expects at least 5 samples (the rarest totals merged upward), and
a z-test of the mean against the exact mean and standard deviation.  Single rolls: the same
test on the roll outcomes of each dice count, and a z-test of the zilch rate.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import InputError
from ..outcomes.dice import FACES
from ..outcomes.scoring import scored
from ..rules import RuleSet
from .evaluate import Distribution

MIN_EXPECTED = 5.0


def read_scores(path: str, column: str | None = None) -> np.ndarray:
    """Turn scores, one per line, or from a named column of a CSV file with a header."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        raise InputError(f"results file {path}: cannot read it ({e.strerror})") from None
    except (UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"results file {path}: not a text or CSV file ({e})") from None
    rows = [r for r in rows if r and any(x.strip() for x in r)]
    if not rows:
        raise InputError(f"results file {path}: no data")
    col = 0
    if column is not None:
        header = [h.strip() for h in rows[0]]
        if column not in header:
            raise InputError(
                f"results file {path}: no column {column!r} (columns: {', '.join(header)})"
            )
        col, rows = header.index(column), rows[1:]
    elif rows and not _is_int(rows[0][0]):
        rows = rows[1:]  # a header line
    vals = []
    for i, r in enumerate(rows, start=2 if column else 1):
        if col >= len(r) or not _is_int(r[col]):
            raise InputError(
                f"results file {path}: line {i}: expected an integer turn score, "
                f"got {r[col] if col < len(r) else ''!r}"
            )
        vals.append(int(r[col].strip()))
    if not vals:
        raise InputError(f"results file {path}: no data")
    return np.asarray(vals, dtype=np.int64)


def _is_int(x: str) -> bool:
    x = x.strip()
    return x.lstrip("-").isdigit()


def _bins(expected_p: np.ndarray, n: int) -> np.ndarray:
    """Group consecutive categories so each group expects >= MIN_EXPECTED samples."""
    groups = np.zeros(len(expected_p), np.int64)
    g, acc = 0, 0.0
    for i, p in enumerate(expected_p):
        groups[i] = g
        acc += p * n
        if acc >= MIN_EXPECTED:
            g, acc = g + 1, 0.0
    if acc and g:  # fold an underfull last group into the previous one
        groups[groups == g] = g - 1
    return groups


@dataclass(frozen=True)
class Verdict:
    n: int
    consistent: bool
    p_value: float  # G-test of the distribution
    mean_z: float
    p_mean: float
    dof: int
    discrepancies: list  # (total or bin label, observed, expected) largest first
    impossible: list  # observed totals that the rules cannot produce

    def as_dict(self) -> dict:
        return {
            "n": self.n,
            "consistent": self.consistent,
            "p_value": self.p_value,
            "mean_z": self.mean_z,
            "p_value_mean": self.p_mean,
            "dof": self.dof,
            "largest_discrepancies": [
                {"totals": t, "observed": o, "expected": e} for t, o, e in self.discrepancies
            ],
            "impossible_totals": self.impossible,
        }


def _gtest(counts: np.ndarray, probs: np.ndarray, labels: list, alpha: float):
    from scipy import stats

    n = int(counts.sum())
    groups = _bins(probs, n)
    ng = groups.max() + 1
    obs = np.bincount(groups, weights=counts, minlength=ng)
    exp = np.bincount(groups, weights=probs, minlength=ng) * n
    if ng < 2:
        return 1.0, 0, []
    g, p = stats.power_divergence(obs, exp, lambda_="log-likelihood")
    dev = (obs - exp) / np.sqrt(exp)
    order = np.argsort(-np.abs(dev))[:5]
    disc = []
    for k in order:
        members = [labels[i] for i in np.nonzero(groups == k)[0]]
        label = str(members[0]) if len(members) == 1 else f"{members[0]}..{members[-1]}"
        disc.append((label, int(obs[k]), float(exp[k])))
    return float(p), int(ng - 1), disc


def verify_scores(samples: np.ndarray, exact: Distribution, alpha: float = 0.001) -> Verdict:
    from scipy import stats

    n = len(samples)
    known = {int(t): i for i, t in enumerate(exact.totals)}
    impossible = sorted({int(x) for x in samples if int(x) not in known})
    counts = np.zeros(len(exact.totals))
    idx = np.array([known.get(int(x), -1) for x in samples])
    np.add.at(counts, idx[idx >= 0], 1)
    p_g, dof, disc = _gtest(counts, exact.probs, [int(t) for t in exact.totals], alpha)
    z = (samples.mean() - exact.mean) / (exact.std / np.sqrt(n)) if exact.std else 0.0
    p_mean = float(2 * stats.norm.sf(abs(z)))
    consistent = not impossible and p_g >= alpha and p_mean >= alpha
    return Verdict(n, bool(consistent), p_g, float(z), p_mean, dof, disc, impossible[:10])


def read_rolls(path: str, dice: int) -> list[tuple[int, ...]]:
    """Rolls, one per line: die faces separated by commas or spaces."""
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        raise InputError(f"rolls file {path}: cannot read it ({e.strerror})") from None
    except UnicodeDecodeError:
        raise InputError(f"rolls file {path}: not a text file") from None
    rolls = []
    for i, line in enumerate(lines, start=1):
        parts = line.replace(",", " ").split()
        if not parts:
            continue
        if not all(p.isdigit() and 1 <= int(p) <= FACES for p in parts) or len(parts) > dice:
            raise InputError(
                f"rolls file {path}: line {i}: expected 1..{dice} dice showing "
                f"1..6, got {line.strip()!r}"
            )
        rolls.append(tuple(int(p) for p in parts))
    if not rolls:
        raise InputError(f"rolls file {path}: no data")
    return rolls


def verify_rolls(rules: RuleSet, rolls: list[tuple[int, ...]], alpha: float = 0.001) -> dict:
    """Per dice count: G-test of the outcome frequencies and z-test of the zilch rate."""
    from scipy import stats

    report, ok, worst = {}, True, 1.0
    by_n: dict[int, list] = {}
    for r in rolls:
        by_n.setdefault(len(r), []).append(r)
    for n, rs in sorted(by_n.items()):
        outs = scored(rules, n)
        # colours are not in a roll file: merge colour-matched and unmatched outcomes
        probs: dict[tuple, Fraction] = {}
        zil: dict[tuple, bool] = {}
        for so in outs:
            c = so.outcome.counts
            probs[c] = probs.get(c, Fraction(0)) + so.outcome.prob
            zil[c] = zil.get(c, True) and not so.choices
        keys = sorted(probs)
        pos = {k: i for i, k in enumerate(keys)}
        counts = np.zeros(len(keys))
        for r in rs:
            counts[pos[tuple(r.count(f) for f in range(1, FACES + 1))]] += 1
        p = np.array([float(probs[k]) for k in keys])
        p_g, dof, disc = _gtest(
            counts,
            p,
            [
                "".join(map(str, sorted(f + 1 for f in range(FACES) for _ in range(k[f]))))
                for k in keys
            ],
            alpha,
        )
        pz = float(sum(probs[k] for k in keys if zil[k]))
        nz = sum(counts[pos[k]] for k in keys if zil[k])
        m = len(rs)
        z = (nz / m - pz) / np.sqrt(pz * (1 - pz) / m) if 0 < pz < 1 else 0.0
        p_z = float(2 * stats.norm.sf(abs(z)))
        good = p_g >= alpha and p_z >= alpha
        ok &= good
        worst = min(worst, p_g, p_z)
        report[str(n)] = {
            "rolls": m,
            "p_value": p_g,
            "dof": dof,
            "zilch_rate": nz / m,
            "exact_p_zilch": pz,
            "zilch_z": float(z),
            "p_value_zilch": p_z,
            "consistent": bool(good),
            "largest_discrepancies": [
                {"outcome": t, "observed": o, "expected": e} for t, o, e in disc
            ],
        }
    return {"n": len(rolls), "consistent": bool(ok), "p_value": worst, "by_dice": report}
