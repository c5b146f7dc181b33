"""The questions of the Yahtzee family, one function per command of `yahtzee`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..limits import GAMES_PER_SECOND, check_time
from ..store import Store
from ..yahtzee import game as Y
from ..yahtzee.rules import PRESETS, YahtzeeRules, load
from .base import Answer, Tables_, dice_list, sample_moments
from .export import Table
from .progress import SILENT, Progress, started_by_first_step


def _rules(rules: str | YahtzeeRules) -> YahtzeeRules:
    return rules if isinstance(rules, YahtzeeRules) else load(rules)


def _table(rs: YahtzeeRules, tables: Tables_, progress: Progress) -> np.ndarray:
    """The stored table; progress only when it has to be solved (a few seconds)."""
    store = tables if isinstance(tables, Store) else Store.resolve(tables)
    label = f"solving {rs.name} (first use)"
    with started_by_first_step(progress, label, lambda _: rs.n_boxes) as step:
        return Y.game_table(rs, store, progress=step)


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
) -> YahtzeeAdvice:
    """Every keep (or, with no rolls left, every open box) ranked by the expected final
    score from now on."""
    rs = _rules(rules)
    hand = tuple(dice_list(dice, "--dice"))
    if len(hand) != rs.dice:
        raise InputError(f"--dice: a hand of {rs.name} has {rs.dice} dice, got {len(hand)}")
    state = Y.parse_state(rs, _filled(filled), upper, yahtzee_bonus)
    if rolls_left not in (0, 1, 2):
        raise InputError(f"--rolls-left is 0, 1 or 2, got {rolls_left}")
    opts = Y.advise(rs, _table(rs, tables, progress), state, hand, rolls_left)
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
) -> YahtzeeValue:
    """The expected score still to come from a state between turns (default: the empty
    sheet: the game's optimum)."""
    rs = _rules(rules)
    state = Y.parse_state(rs, _filled(filled), upper, yahtzee_bonus)
    v = Y.value(rs, _table(rs, tables, progress), state)
    return YahtzeeValue(rs.name, v, _filled(filled) or "", upper, yahtzee_bonus)


@dataclass(frozen=True)
class YahtzeeSimulation(Answer):
    rules: str
    games: int
    seed: int
    mean: float
    stderr: float
    std: float
    exact_mean: float
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
    rs = _rules(rules)
    if games < 1:
        raise InputError(f"--games must be at least 1, got {games}")
    check_time(games / GAMES_PER_SECOND, f"simulating {games} games", "ask for fewer --games")
    E = _table(rs, tables, progress)
    rng = np.random.default_rng(seed)
    counts = np.zeros(0, np.int64)  # counts[score]: played in batches, memory stays flat
    progress.start("simulating", games)
    try:
        for start in range(0, games, BATCH):
            got = np.bincount(Y.simulate(rs, E, min(BATCH, games - start), rng))
            counts = np.pad(counts, (0, max(0, len(got) - len(counts))))
            counts[: len(got)] += got
            progress.advance(min(BATCH, games - start))
    finally:
        progress.finish()
    mean, std, se = sample_moments(range(len(counts)), counts.tolist())
    q = {p: _percentile(counts, p) for p in (1, 5, 10, 25, 50, 75, 90, 95, 99)}
    return YahtzeeSimulation(rs.name, games, seed, mean, se, std, float(E[0, 0, 0]), q)


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
    rs = _rules(rules)
    cols = Y.export_rows(rs, _table(rs, tables, progress))
    return Table({"rules": rs.name, "rules_hash": rs.digest(), "objective": "yahtzee"}, cols)
