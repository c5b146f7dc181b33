"""The game variants, one registry: each owns its support check, its estimate, its solve,
its stored layout and what plots and play can show (variant.Variant); the table it opens
is a Solution, which answers the questions (its chance, fairness, turn and rows).

A new game-level variant is a solver in objectives/, a module here with its Variant, and
its place in VARIANTS (the first that applies to the rules and the players is the one)."""

from __future__ import annotations

from ..rules import RuleSet
from .challenge import Challenge
from .nplayer import NPlayer
from .overtaking import Overtaking
from .penalty import Penalty
from .plain import Plain
from .variant import Cost, GameKey, Solution, Turn, Variant, Where

VARIANTS: tuple[type[Variant], ...] = (NPlayer, Challenge, Penalty, Overtaking, Plain)


def of(rules: RuleSet, players: int = 2) -> Variant:
    """The variant of the game among `players` under `rules`."""
    return next(v for v in VARIANTS if v.applies(rules, players))(rules)


__all__ = ["VARIANTS", "Cost", "GameKey", "Solution", "Turn", "Variant", "Where", "of"]
