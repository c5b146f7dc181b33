"""Rule sets of the Yahtzee family (RULES.md: yahtzee, yahtzee-free-joker, yatzy)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass

from ..errors import InputError

UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")


@dataclass(frozen=True)
class YahtzeeRules:
    name: str
    description: str
    boxes: tuple[str, ...]  # upper six first
    family: str  # "american" or "scandinavian"
    joker: str | None  # "forced" (official), "free" (Verhoeff) or None
    upper_bonus: int  # paid once the upper boxes total `threshold` or more
    threshold: int = 63
    yahtzee_bonus: int = 0  # each extra Yahtzee while the box holds 50

    @property
    def n_boxes(self) -> int:
        return len(self.boxes)

    def box(self, name: str) -> int:
        try:
            return self.boxes.index(name)
        except ValueError:
            raise InputError(
                f"unknown box {name!r} under {self.name}; boxes: {', '.join(self.boxes)}"
            ) from None

    def digest(self) -> str:
        d = asdict(self)
        d.pop("description")
        return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()


AMERICAN = UPPER + (
    "three_kind",
    "four_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "yahtzee",
    "chance",
)
SCANDINAVIAN = UPPER + (
    "one_pair",
    "two_pairs",
    "three_kind",
    "four_kind",
    "small_straight",
    "large_straight",
    "full_house",
    "chance",
    "yatzy",
)

PRESETS = {
    "yahtzee": YahtzeeRules(
        "yahtzee",
        "Official Yahtzee: 13 boxes, upper bonus 35 at 63, Yahtzee 50, 100 for "
        "each extra Yahtzee while the box holds 50, forced joker placement.",
        AMERICAN,
        "american",
        "forced",
        35,
        63,
        100,
    ),
    "yahtzee-free-joker": YahtzeeRules(
        "yahtzee-free-joker",
        "Yahtzee with T. Verhoeff's free joker: an extra Yahtzee may be "
        "scored in any open box; full house and straights take it at 25/30/40 only when the "
        "Yahtzee box and the upper box of its face are filled.",
        AMERICAN,
        "american",
        "free",
        35,
        63,
        100,
    ),
    "yatzy": YahtzeeRules(
        "yatzy",
        "Scandinavian Yatzy: 15 boxes, upper bonus 50 at 63, one pair, two pairs, "
        "three/four of a kind = 3v/4v, straights 15/20, full house = sum, yatzy 50; no bonus, "
        "no joker.",
        SCANDINAVIAN,
        "scandinavian",
        None,
        50,
        63,
        0,
    ),
}


def load(name: str) -> YahtzeeRules:
    if name not in PRESETS:
        raise InputError(f"unknown rule set {name!r}; presets: {', '.join(PRESETS)}")
    return PRESETS[name]
