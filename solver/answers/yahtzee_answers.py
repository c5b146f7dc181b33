"""The questions of the Yahtzee family, one function per command of `yahtzee`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..limits import GAMES_PER_SECOND, check_time
from ..progress import SILENT, Progress, steps
from ..store import Store
from ..yahtzee import solitaire as Y
from ..yahtzee.yahtzee_rules import PRESETS, YahtzeeRules, load
from .answer import Answer
from .inputs import Tables_, dice_list
from .yahtzee_target import (
    YahtzeeTargetAdvice,
    YahtzeeTargetValue,
    goal,
    target_advice,
    target_value,
)
from .yahtzee_versus import Sheets, YahtzeeOpponentsAnswer, opponents_advice, opponents_value

if TYPE_CHECKING:  # (the Zilch family's export and simulation: imported where used)
    from .export import Table


def yahtzee_rule_set(rules: str | YahtzeeRules) -> YahtzeeRules:
    return rules if isinstance(rules, YahtzeeRules) else load(rules)


def yahtzee_table(rs: YahtzeeRules, tables: Tables_, progress: Progress) -> np.ndarray:
    """The stored table; progress only when it has to be solved (seconds)."""
    store = tables if isinstance(tables, Store) else Store.resolve(tables)
    return Y.game_table(rs, store, progress)


@dataclass(frozen=True)
class YahtzeePreset(Answer):
    name: str
    description: str
    boxes: list[str]


@dataclass(frozen=True)
class YahtzeePresets(Answer):
    presets: tuple[YahtzeePreset, ...]

    def to_json(self) -> list:
        return [p.to_dict() for p in self.presets]


def yahtzee_rules() -> YahtzeePresets:
    """The rule sets of the Yahtzee family."""
    return YahtzeePresets(
        tuple(YahtzeePreset(n, r.description, list(r.boxes)) for n, r in PRESETS.items())
    )


def _filled(filled: str | Sequence[str] | None) -> str:
    if filled is None:
        return ""
    return filled if isinstance(filled, str) else ",".join(filled)


@dataclass(frozen=True)
class YahtzeeAdvice(Answer):
    rules: str
    dice: list[int]
    rolls_left: int
    filled: list[str]
    upper: int
    yahtzee_bonus: bool
    options: list[dict]


def yahtzee_advise(
    rules: str | YahtzeeRules = "yahtzee",
    dice: str | Sequence[int] = "",
    rolls_left: int = 2,
    filled: str | Sequence[str] | None = "",
    upper: int = 0,
    yahtzee_bonus: bool = False,
    tables: Tables_ = None,
    progress: Progress = SILENT,
    score: int | None = None,
    at_least: int | None = None,
    beat: int | None = None,
    opponents: Sheets | None = None,
) -> YahtzeeAdvice | YahtzeeTargetAdvice | YahtzeeOpponentsAnswer:
    """Every keep (or, with no rolls left, every open box) ranked by the expected final
    score from now on; with at_least or beat (and score, the points on the sheet), by the
    largest chance of a final score of at least / beating that mark (yahtzee_target.py)."""
    rs = yahtzee_rule_set(rules)
    hand = tuple(dice_list(dice, "--dice"))
    if len(hand) != rs.dice:
        raise InputError(f"--dice: a hand of {rs.name} has {rs.dice} dice, got {len(hand)}")
    state = Y.parse_state(rs, _filled(filled), upper, yahtzee_bonus)
    if rolls_left not in (0, 1, 2):
        raise InputError(f"--rolls-left is 0, 1 or 2, got {rolls_left}")
    if opponents is not None:  # (yahtzee_versus.py: P(win) against their sheets)
        _only_opponents(at_least, beat)
        return opponents_advice(
            rs, state, hand, rolls_left, score or 0, opponents, tables, progress
        )
    if (score, at_least, beat) != (None, None, None):
        g = goal(rs, score, at_least, beat)
        return target_advice(rs, state, hand, rolls_left, g, tables, progress)
    opts = Y.advise(rs, yahtzee_table(rs, tables, progress), state, hand, rolls_left)
    return YahtzeeAdvice(
        rs.name,
        list(hand),
        rolls_left,
        [b for i, b in enumerate(rs.boxes) if state.mask >> i & 1],
        upper,
        yahtzee_bonus,
        opts,
    )


@dataclass(frozen=True)
class YahtzeeValue(Answer):
    rules: str
    value: float
    filled: str
    upper: int
    yahtzee_bonus: bool


def yahtzee_value(
    rules: str | YahtzeeRules = "yahtzee",
    filled: str | Sequence[str] | None = "",
    upper: int = 0,
    yahtzee_bonus: bool = False,
    tables: Tables_ = None,
    progress: Progress = SILENT,
    score: int | None = None,
    at_least: int | None = None,
    beat: int | None = None,
    opponents: Sheets | None = None,
) -> YahtzeeValue | YahtzeeTargetValue | YahtzeeOpponentsAnswer:
    """The expected score still to come from a state between turns (default: the empty
    sheet: the game's optimum); with at_least or beat (and score, the points on the sheet),
    the largest chance of a final score of at least / beating that mark."""
    rs = yahtzee_rule_set(rules)
    state = Y.parse_state(rs, _filled(filled), upper, yahtzee_bonus)
    if opponents is not None:
        _only_opponents(at_least, beat)
        return opponents_value(rs, state, score or 0, opponents, tables, progress)
    if (score, at_least, beat) != (None, None, None):
        g = goal(rs, score, at_least, beat)
        return target_value(rs, state, _filled(filled), g, tables, progress)
    v = Y.value(rs, yahtzee_table(rs, tables, progress), state)
    return YahtzeeValue(rs.name, v, _filled(filled) or "", upper, yahtzee_bonus)


def _only_opponents(at_least: int | None, beat: int | None) -> None:
    if (at_least, beat) != (None, None):
        raise InputError("--opponents takes the place of --at-least/--beat: give one of them")


QUANTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)


@dataclass(frozen=True)
class YahtzeeEvaluation(Answer):
    """The exact distribution of the final score under optimal play."""

    rules: str
    mean: float
    std: float
    table_value: float  # the game table's value of the empty sheet (= mean)
    quantiles: dict[int, int]  # q% -> the smallest score x with P(score <= x) >= q%
    lowest: int
    highest: int
    p_upper_bonus: float
    p_yahtzee: float | None  # P(the Yahtzee box scores its points); None: no such box
    boxes: dict[str, dict]  # box -> {"p_scores": P(more than 0), "mean": its mean points}
    p: list[float]  # p[x] = P(score = x), x = 0..highest
    p_at_least: list[float]  # P(score >= x)
    peak_memory_mib: float  # the forward pass's two levels of distributions

    def table(self) -> Table:
        cols: dict[str, list] = {"score": list(range(len(self.p))), "p": self.p}
        cols["p_at_least"] = self.p_at_least
        from .export import Table

        return Table({"rules": self.rules, "objective": "yahtzee-distribution"}, cols)


def _distribution(rs: YahtzeeRules, tables: Tables_, progress: Progress) -> dict:
    """The stored distribution; progress only when it (or the game table) is computed."""
    store = tables if isinstance(tables, Store) else Store.resolve(tables)
    return Y.score_distribution(rs, store, progress)


def yahtzee_evaluate(
    rules: str | YahtzeeRules = "yahtzee",
    out: str | None = None,
    fmt: str = "csv",
    tables: Tables_ = None,
    progress: Progress = SILENT,
    ready: Callable[[], None] | None = None,
) -> YahtzeeEvaluation:
    """The exact distribution of the final score under optimal play: mean, standard
    deviation, quantiles, P(score >= x) for every x, the chances of the upper bonus and of a
    Yahtzee; with out, the table (score, p, p_at_least) written as fmt.  ready: called once
    the inputs are checked, before the work (the API's `plot`: render/pictures.py checks
    the picture's file there, and draws the answer)."""
    from ..files import out_path

    rs = yahtzee_rule_set(rules)
    if fmt not in ("csv", "json", "parquet"):
        raise InputError(f"--format is csv, json or parquet, got {fmt!r}")
    out = out_path(out) if out is not None else None
    if ready is not None:
        ready()
    d = _distribution(rs, tables, progress)
    a = _evaluation(rs, d)
    if out is not None:
        a.table().write(out, fmt)
    return a


def _evaluation(rs: YahtzeeRules, d: dict) -> YahtzeeEvaluation:
    p = d["p"]
    x = np.arange(len(p))
    mean = float(x @ p)
    std = float(np.sqrt(max(((x - mean) ** 2) @ p, 0.0)))
    cdf = np.cumsum(p)
    q = {k: int(np.searchsorted(cdf, k / 100)) for k in QUANTILES}
    at_least = np.minimum(p[::-1].cumsum()[::-1], 1.0).tolist()  # (tails summed from the top)
    nz = np.nonzero(p)[0]
    ybox = [i for i, b in enumerate(rs.specs) if b.kind == "yahtzee"]
    return YahtzeeEvaluation(
        rs.name,
        mean,
        std,
        float(d["table_value"]),
        q,
        int(nz[0]),
        int(nz[-1]),
        float(d["p_upper_bonus"][0]),
        float(d["box_hits"][ybox[0]]) if len(ybox) == 1 else None,
        {
            b: {"p_scores": float(h), "mean": float(m)}
            for b, h, m in zip(rs.boxes, d["box_hits"], d["box_points"])
        },
        p.tolist(),
        at_least,
        d["peak_bytes"] / 2**20,
    )


@dataclass(frozen=True)
class YahtzeeSimulation(Answer):
    rules: str
    games: int
    seed: int
    mean: float
    stderr: float
    std: float
    exact_mean: float
    exact_std: float | None  # None: the exact distribution is too large (maxi-yatzy)
    z: float  # (mean - exact mean) / (exact std / sqrt(games)) (the sample's std: None)
    quantiles: dict[int, float]


def yahtzee_simulate(
    rules: str | YahtzeeRules = "yahtzee",
    games: int = 100_000,
    seed: int = 0,
    tables: Tables_ = None,
    progress: Progress = SILENT,
) -> YahtzeeSimulation:
    """Optimal play simulated: mean, standard deviation and quantiles, beside the exact
    mean."""
    rs = yahtzee_rule_set(rules)
    if games < 1:
        raise InputError(f"--games must be at least 1, got {games}")
    check_time(games / GAMES_PER_SECOND, f"simulating {games} games", "ask for fewer --games")
    E = yahtzee_table(rs, tables, progress)
    try:
        exact_std: float | None = _evaluation(rs, _distribution(rs, tables, progress)).std
    except InputError:  # (too large to be had exactly: the z from the sample's std)
        exact_std = None
    rng = np.random.default_rng(seed)
    counts = np.zeros(0, np.int64)  # counts[score]: played in batches, memory stays flat
    with steps(progress, "simulating", games):
        for start in range(0, games, BATCH):
            got = np.bincount(Y.simulate(rs, E, min(BATCH, games - start), rng))
            counts = np.pad(counts, (0, max(0, len(got) - len(counts))))
            counts[: len(got)] += got
            progress.advance(min(BATCH, games - start))
    from ..play.simulate import sample_moments

    mean, std, se = sample_moments(range(len(counts)), counts.tolist())
    q = {p: _percentile(counts, p) for p in QUANTILES}
    sd = exact_std if exact_std is not None else std
    z = (mean - float(E[0, 0, 0])) / (sd / np.sqrt(games)) if sd else 0.0
    return YahtzeeSimulation(
        rs.name, games, seed, mean, se, std, float(E[0, 0, 0]), exact_std, float(z), q
    )


BATCH = 5_000  # games in lockstep (their turn tables grow with the states they reach:
# 20 000 took 0.6 GB and was slower)


def _percentile(counts: np.ndarray, p: float) -> float:
    """numpy's percentile (linear) of the sample whose histogram is counts."""
    cum = np.cumsum(counts)
    h = (cum[-1] - 1) * p / 100
    lo = int(h)
    at = lambda i: float(np.searchsorted(cum, i, side="right"))  # the i-th smallest
    return at(lo) + (h - lo) * (at(lo + 1) - at(lo)) if lo + 1 < cum[-1] else at(lo)


def yahtzee_export(
    rules: str | YahtzeeRules = "yahtzee", tables: Tables_ = None, progress: Progress = SILENT
) -> Table:
    """The value of every reachable state between turns."""
    rs = yahtzee_rule_set(rules)
    cols = Y.export_rows(rs, yahtzee_table(rs, tables, progress))
    from .export import Table

    return Table({"rules": rs.name, "rules_hash": rs.digest(), "objective": "yahtzee"}, cols)
