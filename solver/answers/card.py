"""What a rule set is: `zilch rules`, `zilch odds` and `zilch strategy` (the card)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..errors import InputError
from ..objectives.score import FrozenThreshold
from ..rules import RuleSet, preset_names
from ..rules import load as load_rules
from .answer import Answer, hidden, optional
from .inputs import Rules, Tables_, rule_set, tables_of


# --- zilch rules ---------------------------------------------------------------------------
@dataclass(frozen=True)
class PresetInfo(Answer):
    name: str
    description: str


@dataclass(frozen=True)
class PresetList(Answer):
    presets: tuple[PresetInfo, ...]

    def to_json(self) -> list:
        return [p.to_dict() for p in self.presets]


@dataclass(frozen=True)
class RuleSetInfo(Answer):
    """A rule set in full: its canonical definition, unit and hash."""

    ruleset: RuleSet = hidden()

    def to_dict(self) -> dict:
        rs = self.ruleset
        from .answer import plain

        return dict(
            name=rs.name,
            description=rs.description,
            **plain(rs.canonical()),
            unit=rs.unit,
            rules_hash=rs.digest(),
        )


def describe_rules(name: Rules | None = None) -> PresetList | RuleSetInfo:
    """The presets (no name), or one rule set in full (a preset or a TOML file)."""
    if name is None:
        return PresetList(tuple(PresetInfo(n, load_rules(n).description) for n in preset_names()))
    return RuleSetInfo(rule_set(name))


# --- zilch odds ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Combination:
    combination: str
    points: int
    probability: Fraction
    decimal: float


@dataclass(frozen=True)
class BestPoints:
    probability: Fraction
    decimal: float


@dataclass(frozen=True)
class Odds(Answer):
    rules: str
    dice: int
    p_zilch: Fraction
    p_zilch_decimal: float
    combinations: tuple[Combination, ...]
    best_points: dict[int, BestPoints]
    mean_best_points: float


def odds(rules: Rules = "farkle", dice: int | None = None) -> Odds:
    """Exact odds of one roll: zilch, each combination, the best immediate points."""
    from ..outcomes.odds import roll_odds

    rs = rule_set(rules)
    n = rs.dice if dice is None else dice
    if not 1 <= n <= rs.dice:
        raise InputError(f"--dice must be 1..{rs.dice} under {rs.name}, got {n}")
    if rs.pyramiding and n < rs.dice:
        raise InputError(
            f"odds of {n} dice under pyramiding ({rs.name}) depend on the dice frozen "
            f"before: only the odds of all {rs.dice} (nothing frozen) are given"
        )
    o = roll_odds(rs, n)
    return Odds(
        rs.name,
        n,
        o["p_zilch"],
        float(o["p_zilch"]),
        tuple(
            Combination(c["combination"], c["points"], c["probability"], float(c["probability"]))
            for c in o["combinations"]
        ),
        {k: BestPoints(v, float(v)) for k, v in o["best_points"].items()},
        float(o["mean_best_points"]),
    )


# --- zilch strategy ------------------------------------------------------------------------
@dataclass(frozen=True)
class ZilchCard:
    """The card for a turn played with some zilches in a row (rules with a penalty)."""

    value: float  # the turn's long-run value: the average per turn plus its relative value
    bank_thresholds: dict[int, int | None]


@dataclass(frozen=True)
class Strategy(Answer):
    rules: str
    on_board: bool
    bank_thresholds: dict[int, int | None]
    expected_turn_score: float | None = optional()  # (without a penalty)
    average_points_per_turn: float | None = optional()  # (with one: the long-run optimum)
    penalty: int | None = optional()
    by_zilches: dict[int, ZilchCard] | None = optional()
    beat: int | None = optional()  # (overtaking: the turn total a bank must beat)
    # pyramiding: the same per state holding frozen groups (dice, frozen faces, bank from)
    by_frozen: list[FrozenThreshold] | None = optional()
    ruleset: RuleSet = hidden()


def strategy(
    rules: Rules = "farkle", not_on_board: bool = False, beat: int = 0, tables: Tables_ = None
) -> Strategy:
    """The strategy card: expected points of a fresh turn and, per dice count, the turn
    total from which to bank.  With a penalty for the third zilch in a row: the long-run
    average points per turn and one card per count of zilches in a row (0, 1, 2).  With
    overtaking, `beat`: the previous player's banked turn total (a bank must beat it)."""
    rs = rule_set(rules).beating(beat)
    pol = tables_of(rs, tables).score
    on = not not_on_board
    if pol.relative is None:
        frozen = pol.frozen_thresholds(on) if rs.pyramiding else None
        return Strategy(
            rs.name,
            on,
            pol.bank_thresholds(on),
            pol.expected_turn_score(on),
            beat=rs.beat if rs.overtaking else None,
            by_frozen=frozen,
            ruleset=rs,
        )
    cards = {k: pol.card(k) for k in range(3)}
    return Strategy(
        rs.name,
        on,
        cards[0].bank_thresholds(on),
        average_points_per_turn=pol.relative.average,
        penalty=rs.three_zilch_penalty,
        by_zilches={
            k: ZilchCard(c.expected_turn_score(on), c.bank_thresholds(on)) for k, c in cards.items()
        },
        ruleset=rs,
    )
