"""Policies as a user names them for a rule set: `optimal` (the expected-points optimum, the
long-run card of a zilch count with a penalty), `points` (the card as a fixed policy) or a
policy file (docs/policies.md), resolved against the rule set's stored tables."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..errors import InputError
from ..rules import RuleSet
from ..tables import Tables
from .policies import OptimalPolicy, Policy, UserPolicy, load_policy


def resolve_policy(name: str, tab: Tables, on_board: bool = True, zilches: int = 0) -> Policy:
    """'optimal' (the expected-points optimum; with a penalty for the third zilch in a row,
    the long-run card for `zilches` in a row) or a policy file (docs/policies.md)."""
    if name == "optimal":
        pol = tab.score.card(zilches)
        return OptimalPolicy(pol.values, int(on_board), pol.cap)
    return load_policy(name, tab.rules, on_board, zilches)


def zilch_cost(rules: RuleSet, zilches: int, on_board: bool) -> tuple[int, int]:
    """Points a zilch costs on top in a turn after `zilches` zilches in a row: as it records
    nothing, and as it records permanent points (that puts the player on the board)."""
    if zilches != 2:
        return 0, 0
    return rules.penalty(on_board), rules.penalty(True)


@dataclass(eq=False)
class Named:
    """A policy as a user names it, resolved against one rule set's tables."""

    spec: str  # optimal, points or a policy file's path
    tab: Tables
    _compiled: dict[bool, Policy] = field(default_factory=dict)
    _read: dict[bool, UserPolicy] = field(default_factory=dict)  # (no cached_property: its
    # lock is one for every instance in Python 3.11, so one slow read would stall others)

    @property
    def optimal(self) -> bool:
        return self.spec == "optimal"

    @property
    def _files(self) -> dict[bool, UserPolicy]:
        """A policy file read for both board flags (its errors: one line each), once."""
        if not self._read:
            self._read.update({f: load_policy(self.spec, self.tab.rules, f) for f in (False, True)})
        return self._read

    @property
    def name(self) -> str:
        if self.spec in ("optimal", "points"):
            return self.spec
        return self._files[True].name

    def policy(self, on_board: bool) -> Policy:
        """The compiled play of a fixed policy (the card's, or a file's) on/off the board."""
        if on_board not in self._compiled:
            model = self.tab.model
            pol: Policy
            if self.spec == "points":
                card = self.tab.score
                pol = OptimalPolicy(card.values, int(on_board), card.cap).compile(model)
            else:
                pol = self._files[on_board].compile(model)
            self._compiled[on_board] = pol
        return self._compiled[on_board]

    def goal(self) -> dict[bool, int] | None:
        """bank_at_target: by board flag the total from which the file banks anyway."""
        if self.spec in ("optimal", "points") or not self._files[True].bank_at_target:
            return None
        return {f: pol.banks_from() for f, pol in self._files.items()}

    def check(self) -> None:
        if not self.optimal and self.spec != "points":
            _ = self._files  # (a bad file fails here, before any solve)


def named(tab: Tables, spec: str | None, what: str) -> Named:
    if spec is None or not isinstance(spec, str) or not spec.strip():
        raise InputError(f"{what}: give optimal, points or a policy file")
    spec = spec.strip()
    if spec not in ("optimal", "points") and not os.path.exists(spec):
        raise InputError(f"{what} {spec}: expected optimal, points or a policy file (no such file)")
    got = Named(spec, tab)
    got.check()
    return got
