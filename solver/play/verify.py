"""Is someone's simulator right?  Their samples against the exact distribution.

Turn scores: a G-test (log-likelihood ratio, scipy.stats.power_divergence) on the totals,
binned so that every bin expects at least 5 samples (the rarest totals merged upward), and
a z-test of the mean against the exact mean and standard deviation.  Single rolls: the same
test on the roll outcomes of each dice count, and a z-test of the zilch rate.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import InputError
from ..files import open_binary
from ..outcomes.dice import FACES
from ..outcomes.scoring import scored
from ..rules import RuleSet
from .evaluate import Distribution

MIN_EXPECTED = 5.0


@dataclass(frozen=True)
class Samples:
    """Turn scores as counted: each distinct total and how often it came (a file of any
    length is read in chunks: memory grows with the distinct totals only)."""

    totals: np.ndarray  # ascending
    counts: np.ndarray

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    @property
    def mean(self) -> float:
        return float(np.dot(self.totals.astype(float), self.counts) / self.n)


CHUNK = 1 << 22  # bytes read at a time (split into ~1M lines: ~50 MB at the peak)
LINE = 1 << 16  # the longest line taken
# a score: an integer of at most 15 digits (beyond, no turn scores it), spaces around
_INT = re.compile(rb"[ \t]*-?[0-9]{1,15}[ \t]*")
_PLAIN = np.zeros(256, bool)  # the bytes of lines that hold nothing but an integer
_PLAIN[list(b"0123456789-\n")] = True


def read_scores(path: str, column: str | None = None) -> Samples:
    """Turn scores, one per line, or from a named column of a CSV file with a header (else
    its first column); a first line that is not a number is a header."""
    what = f"results file {path}"
    counted: dict[int, int] = {}
    with open_binary(path, "results file") as f:
        head = f.readline(LINE)
        first = _decode(_line(head, what, 1), what, 1).strip()
        cells = [c.strip() for c in next(csv.reader([first]), [])] if first else []
        col = 0
        if column is not None:
            if column not in cells:
                raise InputError(f"{what}: no column {column!r} (columns: {', '.join(cells)})")
            col = cells.index(column)
        elif cells and re.fullmatch(r"-?[0-9]+", cells[0]):
            _count_lines(head.rstrip(b"\n") + b"\n", counted, col, what, 1)  # no header
        multi = len(cells) > 1
        line_no, rest = 2, b""
        while True:
            chunk = f.read(CHUNK)
            data = rest + chunk if chunk else rest + b"\n"
            cut = data.rfind(b"\n") + 1
            rest = data[cut:]
            if len(rest) > LINE:
                at = line_no + data.count(b"\n", 0, cut)
                raise InputError(f"{what}: line {at}: longer than {LINE} bytes")
            lines = data[:cut].replace(b"\r\n", b"\n")
            plain = None if multi else _plain_ints(lines)
            if plain is not None:  # the fast path: a plain integer on every line
                _add(counted, plain)
                line_no += lines.count(b"\n")
            else:  # line by line, to name the line that is wrong
                line_no = _count_lines(lines, counted, col, what, line_no)
            if not chunk:
                break
    if not counted:
        raise InputError(f"{what}: no data")
    totals = np.array(sorted(counted), dtype=np.int64)
    return Samples(totals, np.array([counted[t] for t in totals.tolist()], dtype=np.int64))


def _plain_ints(lines: bytes) -> np.ndarray | None:
    """The integers of complete lines that each hold one integer and nothing else, parsed
    at once; None where some line needs the careful path (spaces, a blank line, a sign out
    of place, more than 15 digits).  (A regular expression over the whole chunk took
    100 times the chunk's size in memory.)"""
    if not _PLAIN[np.frombuffer(lines, np.uint8)].all():
        return None
    cells = np.array(lines.split(b"\n")[:-1], dtype=bytes)
    if not cells.size:
        return np.zeros(0, np.int64)
    if cells.dtype.itemsize > 15 or bool((cells == b"").any()):
        return None
    try:
        return cells.astype(np.int64)
    except ValueError:  # "--5", "5-"
        return None


def _add(counted: dict[int, int], vals: np.ndarray) -> None:
    v, c = np.unique(vals, return_counts=True)
    for t, k in zip(v.tolist(), c.tolist()):
        counted[t] = counted.get(t, 0) + k


def _line(raw: bytes, what: str, line_no: int) -> bytes:
    """A line as read (readline(LINE)): refused where it had no end within LINE bytes."""
    if len(raw) >= LINE and not raw.endswith(b"\n"):
        raise InputError(f"{what}: line {line_no}: longer than {LINE} bytes")
    return raw


def _decode(raw: bytes, what: str, line_no: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{what}: line {line_no}: not UTF-8 text") from None


def _count_lines(data: bytes, counted: dict[int, int], col: int, what: str, line_no: int) -> int:
    """Every (complete) line of data, one by one; returns the next line's number."""
    for raw in data.split(b"\n")[:-1]:
        line = _decode(raw, what, line_no).strip()
        if line:
            try:
                cells = next(csv.reader([line]))
            except csv.Error as e:
                raise InputError(f"{what}: line {line_no}: not CSV ({e})") from None
            cell = cells[col].strip() if col < len(cells) else ""
            if not _INT.fullmatch(cell.encode()):
                raise InputError(
                    f"{what}: line {line_no}: expected an integer turn score, got {cell[:40]!r}"
                )
            counted[int(cell)] = counted.get(int(cell), 0) + 1
        line_no += 1
    return line_no


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


# a verdict as its JSON: values of several types, by key (Any)
Report = dict[str, Any]
# (a total or a bin of them as its label, observed, expected)
Discrepancy = tuple[str, int, float]


@dataclass(frozen=True)
class Verdict:
    n: int
    consistent: bool
    p_value: float  # G-test of the distribution
    mean_z: float
    p_mean: float
    dof: int
    discrepancies: list[Discrepancy]  # largest first
    impossible: list[int]  # observed totals that the rules cannot produce

    def as_dict(self) -> Report:
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


def _gtest(
    counts: np.ndarray, probs: np.ndarray, labels: list[int] | list[str], alpha: float
) -> tuple[float, int, list[Discrepancy]]:
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
    disc: list[Discrepancy] = []
    for k in order:
        members = [labels[i] for i in np.nonzero(groups == k)[0]]
        label = str(members[0]) if len(members) == 1 else f"{members[0]}..{members[-1]}"
        disc.append((label, int(obs[k]), float(exp[k])))
    return float(p), int(ng - 1), disc


def verify_scores(samples: Samples, exact: Distribution, alpha: float = 0.001) -> Verdict:
    from scipy import stats

    n = samples.n
    known = {int(t): i for i, t in enumerate(exact.totals)}
    impossible = [t for t in samples.totals.tolist() if t not in known]
    counts = np.zeros(len(exact.totals))
    for t, c in zip(samples.totals.tolist(), samples.counts.tolist()):
        if t in known:
            counts[known[t]] += c
    p_g, dof, disc = _gtest(counts, exact.probs, [int(t) for t in exact.totals], alpha)
    z = (samples.mean - exact.mean) / (exact.std / np.sqrt(n)) if exact.std else 0.0
    p_mean = float(2 * stats.norm.sf(abs(z)))
    consistent = not impossible and p_g >= alpha and p_mean >= alpha
    return Verdict(n, bool(consistent), p_g, float(z), p_mean, dof, disc, impossible[:10])


def read_rolls(path: str, dice: int) -> dict[tuple[int, ...], int]:
    """Rolls, one per line: die faces separated by commas or spaces; counted by the face
    counts of each roll (read line by line: memory does not grow with the file)."""
    what = f"rolls file {path}"
    rolls: dict[tuple[int, ...], int] = {}
    faces = {str(f) for f in range(1, FACES + 1)}
    with open_binary(path, "rolls file") as f:
        for i, raw in enumerate(iter(lambda: f.readline(LINE), b""), start=1):
            line = _decode(_line(raw, what, i), what, i)
            parts = line.replace(",", " ").split()
            if not parts:
                continue
            if not all(p in faces for p in parts) or len(parts) > dice:
                raise InputError(
                    f"{what}: line {i}: expected 1..{dice} dice showing 1..6, "
                    f"got {line.strip()[:40]!r}"
                )
            key = tuple(parts.count(str(f)) for f in range(1, FACES + 1))
            rolls[key] = rolls.get(key, 0) + 1
    if not rolls:
        raise InputError(f"{what}: no data")
    return rolls


def verify_rolls(rules: RuleSet, rolls: dict[tuple[int, ...], int], alpha: float = 0.001) -> Report:
    """Per dice count: G-test of the outcome frequencies and z-test of the zilch rate.
    rolls: how often each roll (its face counts) came."""
    from scipy import stats

    report, ok, worst = {}, True, 1.0
    by_n: dict[int, dict[tuple[int, ...], int]] = {}
    for r, c in rolls.items():
        by_n.setdefault(sum(r), {})[r] = c
    for n, rs in sorted(by_n.items()):
        outs = scored(rules, n)
        # colours are not in a roll file: merge colour-matched and unmatched outcomes
        probs: dict[tuple, Fraction] = {}
        zil: dict[tuple, bool] = {}
        for so in outs:
            key = so.outcome.counts
            probs[key] = probs.get(key, Fraction(0)) + so.outcome.prob
            zil[key] = zil.get(key, True) and not so.choices
        keys = sorted(probs)
        pos = {k: i for i, k in enumerate(keys)}
        counts = np.zeros(len(keys))
        for r, c in rs.items():
            counts[pos[r]] += c
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
        m = sum(rs.values())
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
    return {
        "n": sum(rolls.values()),
        "consistent": bool(ok),
        "p_value": worst,
        "by_dice": report,
    }


# --- whole games ---------------------------------------------------------------------------
@dataclass(frozen=True)
class GameResults:
    """Games as counted from the first player's side (the player to move at the start)."""

    wins: int
    losses: int
    ties: int

    @property
    def n(self) -> int:
        return self.wins + self.losses + self.ties

    def rate(self) -> float:
        """The first player's mean result (a tie half a win: the two-player game is solved
        for such ties only)."""
        return (self.wins + 0.5 * self.ties) / self.n


# a game's result: 1 the first player won; 2 (the winner's seat) or 0 (his wins) he lost
_RESULTS = {"1": "win", "1.0": "win", "2": "loss", "0": "loss", "0.0": "loss"}
_RESULTS.update({"tie": "tie", "0.5": "tie"})


def read_games(path: str, column: str | None = None) -> GameResults:
    """Game results, one per line or in a named column of a CSV file with a header (else
    its first column): 1 where the first player won, 2 (a column of winners) or 0 (a column
    of his wins) where he lost, tie or 0.5 for a tie; a first line that is none of these is
    a header.  Read line by line: memory does not grow with the file."""
    what = f"games file {path}"
    counts = {"win": 0, "loss": 0, "tie": 0}
    col = 0
    with open_binary(path, "games file") as f:
        for i, raw in enumerate(iter(lambda: f.readline(LINE), b""), start=1):
            line = _decode(_line(raw, what, i), what, i).strip()
            if not line:
                continue
            try:
                cells = [c.strip() for c in next(csv.reader([line]))]
            except csv.Error as e:
                raise InputError(f"{what}: line {i}: not CSV ({e})") from None
            if i == 1 and (column is not None or cells[0].lower() not in _RESULTS):
                if column is not None:
                    if column not in cells:
                        raise InputError(
                            f"{what}: no column {column!r} (columns: {', '.join(cells)})"
                        )
                    col = cells.index(column)
                continue  # a header
            cell = cells[col].lower() if col < len(cells) else ""
            if cell not in _RESULTS:
                raise InputError(
                    f"{what}: line {i}: expected a game's result (1: the first player won; "
                    f"2 or 0: he lost; tie), got {cell[:40]!r}"
                )
            counts[_RESULTS[cell]] += 1
    if not sum(counts.values()):
        raise InputError(f"{what}: no games")
    return GameResults(counts["win"], counts["loss"], counts["tie"])


def verify_games(games: GameResults, p_win: float, alpha: float) -> Report:
    """The first player's results against his exact chance p_win: an exact two-sided
    binomial test of his wins (where no game was tied), else a z-test of his mean result
    with the binomial standard error sqrt(p (1 - p) / n) (the largest a result in [0, 1]
    of mean p can have: conservative)."""
    from scipy import stats

    n = games.n
    se = float(np.sqrt(p_win * (1.0 - p_win) / n))
    rate = games.rate()
    z = (rate - p_win) / se if se else 0.0
    if games.ties:
        p_value = float(2 * stats.norm.sf(abs(z))) if se else float(rate == p_win)
        test = "z"
    else:
        p_value = float(stats.binomtest(games.wins, n, min(max(p_win, 0.0), 1.0)).pvalue)
        test = "binomial"
    return {
        "n": n,
        "wins": games.wins,
        "losses": games.losses,
        "ties": games.ties,
        "win_rate": rate,
        "stderr": se,
        "z": float(z),
        "p_value": p_value,
        "test": test,
        "consistent": bool(p_value >= alpha),
    }
