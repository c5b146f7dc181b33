"""The stored tables of one rule set: each solved once, kept in the Store, reloaded (memory-
mapped) by every later query.  This is the only place where solving meets storing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from .lazy import lazy
from .objectives.score import Relative, ScorePolicy, solve_score
from .outcomes.frozen import turn_states
from .outcomes.model import FORMAT, TurnModel, model_arrays, sound
from .outcomes.shipped import shipped
from .progress import SILENT, Progress
from .rules import RuleSet
from .store import Arrays, Check, Store
from .turn import TurnLevels, TurnSolution
from .turn.reach import bucket, sweep
from .turn.state import TurnState

CHECKED = 4096  # units at risk up to which a state's reachability is checked (~0.1 s sweep)

# The end-game and game modules are imported by the tables that need them: a query about
# expected points does not pay for them.
if TYPE_CHECKING:
    from .objectives.last_turn import LastTurnTable
    from .variants import GameKey, Solution, Where


@dataclass(frozen=True, eq=False)
class Tables:
    rules: RuleSet
    store: Store

    def _cached(
        self,
        objective: str,
        build: Callable,
        expect: dict | None = None,
        check: Check | None = None,
    ) -> tuple[dict, dict[str, np.ndarray]]:
        return self.store.cached(
            self.rules.name, self.rules.table_key(), objective, build, expect, check
        )

    def _sound(self, prefix: str, arrays: dict, rows: int) -> bool:
        return TurnSolution.sound(prefix, arrays, rows, len(turn_states(self.rules)))

    @property
    def model(self) -> TurnModel:
        """Enumerating and scoring every roll takes ~0.2 s, which a query should not pay
        each time: the model is stored like any table."""
        return _model(self.rules, self.store)

    def reachable(self, length: int, held: bool = False) -> np.ndarray:
        """reach[s, r] for r < length, of turns without permanent points (held: of turns
        holding some); read-only, one sweep per power of two."""
        return _reachable(self.rules, self.store, bucket(length), held)[:, :length]

    def check(self, state: TurnState) -> None:
        """InputError unless the rules can produce `state`, before any solve: its ranges,
        then the reach sweeps up to CHECKED units at risk.  (The built-in rules have no
        unreachable state past a few dozen units; past the sweeps only ranges are checked.)"""
        state.check(self.rules)
        u = state.at_risk(self.rules)
        if u < CHECKED:
            sweep = self.reachable(u + 1, held=state.permanent > 0)
            state.check(self.rules, *((None, sweep) if state.permanent else (sweep, None)))

    @lazy
    def reach_bound(self) -> int:
        """Units no turn adds with probability above TRUNCATION (last_turn.reach_bound)."""
        from .objectives.last_turn import TRUNCATION, reach_bound

        _, arrays = self._cached(
            "reach",
            lambda: ({}, {"D": np.array([reach_bound(self.model)])}),
            {"eps": TRUNCATION},
            lambda h, a: (
                a["D"].shape == (1,) and a["D"].dtype == np.int64 and 0 < a["D"][0] < 1 << 15
            ),
        )
        return int(arrays["D"][0])

    @lazy
    def score(self) -> ScorePolicy:
        """The expected-points policy (the strategy card); with a penalty for the third
        zilch in a row, the long-run average's, a card per count (objectives/average.py)."""
        penalty = bool(self.rules.three_zilch_penalty)
        rows, secured_rows = (6, 3) if penalty else (2, 1)

        def build() -> tuple[dict[str, object], Arrays]:
            seconds = score_seconds(self.model, penalty)
            self.store.inline(self.rules.name, self.rules.table_key(), "score", seconds)
            relative = None
            if penalty:
                from .objectives.average import solve_average

                main, secured, relative = solve_average(self.model)
            else:
                main, secured = solve_score(self.model)
            arrays = main.to_arrays("main")
            if secured is not None:
                arrays.update(secured.to_arrays("secured"))
            if relative is not None:
                arrays["relative"] = relative.to_array()
            arrays["reach"] = self.reachable(main.roll.shape[2])
            return {"rules_name": self.rules.name, "unit": self.rules.unit}, arrays

        def check(header: dict[str, object], a: Arrays) -> bool:
            has = self.rules.has_permanent
            return (
                self._sound("main", a, rows)
                and ("secured.cap" in a) == has
                and (not has or self._sound("secured", a, secured_rows))
                and ("relative" in a) == penalty
                and (not penalty or a["relative"].shape == (7,))
                and a["reach"].dtype == np.bool_
                and a["reach"].shape == (len(turn_states(self.rules)), a["main.roll"].shape[2])
            )

        header, arrays = self._cached("score", build, check=check)
        secured = TurnSolution.from_arrays("secured", arrays) if "secured.cap" in arrays else None
        relative = None
        if penalty:
            relative = Relative.from_array(arrays["relative"])
        return ScorePolicy(
            self.rules,
            TurnSolution.from_arrays("main", arrays),
            secured,
            arrays["reach"],
            header,
            relative,
        )

    @lazy
    def last_turn(self) -> LastTurnTable:
        """P(win) of a last turn for every deficit up to the target, both board flags."""
        from .objectives.last_turn import LastTurnTable, board_flags

        def build() -> tuple[dict[str, object], Arrays]:
            tab = LastTurnTable.solve(self.model)
            arrays: dict[str, np.ndarray] = {}
            for flag in board_flags(self.rules):
                for k, sol in enumerate(tab.levels[flag]):
                    arrays.update(sol.to_arrays(f"{int(flag)}.{k}"))
            return {"rules_name": self.rules.name, "max_deficit": tab.max_deficit}, arrays

        def check(header: dict[str, object], a: Arrays) -> bool:
            D = header["max_deficit"]
            assert isinstance(D, int) and self.rules.target is not None
            return D == self.rules.target // self.rules.unit and all(
                f"{int(flag)}.0.cap" in a
                and all(
                    self._sound(name[:-4], a, D + 1)
                    for name in a
                    if name.startswith(f"{int(flag)}.") and name.endswith(".cap")
                )
                for flag in board_flags(self.rules)
            )

        header, arrays = self._cached(f"lastturn{self.rules.target}", build, check=check)
        levels = {}
        for flag in board_flags(self.rules):
            k, lv = 0, []
            while f"{int(flag)}.{k}.cap" in arrays:
                lv.append(TurnSolution.from_arrays(f"{int(flag)}.{k}", arrays))
                k += 1
            levels[flag] = TurnLevels(self.rules, tuple(lv))
        levels.setdefault(False, levels[True])
        return LastTurnTable(self.model, int(header["max_deficit"]), levels)

    def game_table(
        self,
        key: GameKey | None = None,
        progress: Progress = SILENT,
        solve: bool = False,
        where: Where | None = None,
    ) -> Solution | None:
        """The stored table of a game (variants/: the plain two-player game, piggyback,
        penalty, overtaking, challenge, or among N players) as the solution the questions
        read, None where it is missing; solve: solved first where missing (estimated,
        refused beyond this machine; progress by step; where: the N-player solve's workers
        or scheduler).  key: the game to the rules' target between two players by default."""
        from . import variants

        if self.rules.beat:  # (a game's table is the rules', not one turn's)
            return Tables(replace(self.rules, beat=0), self.store).game_table(
                key, progress, solve, where
            )
        variant = variants.of(self.rules, key.players if key else 2)
        key = key or variant.key()
        if solve:
            return variant.solve(self, key, progress, where or variants.Where())
        return variant.open(self, key)


# seconds of the strategy card's build per total of its grid: the reach sweep's, and its
# turn solve's per choice and batch row (measured: unit 1 with pyramiding, 31 755 totals and
# 883 choices, 1.8 s; the presets 0.01-0.05 s); an upper estimate
SWEEP_SECONDS = 1e-4
CHOICE_SECONDS = 3e-8


def score_seconds(model: TurnModel, penalty: bool = False) -> float:
    """The strategy card's build, estimated before it starts from its grid's length (the
    turn's tail, solved without the grid: milliseconds): a web request runs it inline
    only below a bound (web/guard.py), the command line says it where it is long."""
    import math

    from .objectives.score import score_payoff
    from .turn.engine import tail_cross

    rules = model.rules
    pay = score_payoff(rules, [rules.min_bank(False), rules.min_bank(True)])
    try:
        cross = tail_cross(model, pay)
        cap = max(pay.tail.start, math.floor(cross) + 1)
    except (ValueError, OverflowError, ArithmeticError):
        cap = pay.tail.start
    length = cap + model.max_shift + 1
    rows = 2 * (3 if penalty else 1) * (2 if rules.has_permanent else 1)
    per_total = SWEEP_SECONDS + CHOICE_SECONDS * len(model.shift) * rows
    return length * per_total * (4 if penalty else 1)


@lru_cache(maxsize=32)
def _model(rules: RuleSet, store: Store) -> TurnModel:
    ready = shipped(rules)  # a preset's definition: its model ships with the package
    if ready is not None:
        return TurnModel.from_arrays(rules, ready)
    _, arrays = store.cached(
        rules.name,
        rules.table_key(),
        "model",
        lambda: ({}, model_arrays(rules)),
        {"model_format": FORMAT},
        lambda header, arrays: sound(rules, arrays),
    )
    return TurnModel.from_arrays(rules, arrays)


@lru_cache(maxsize=64)
def _reachable(rules: RuleSet, store: Store, length: int, held: bool) -> np.ndarray:
    """Stored like the model it comes from (a sweep in Python: ~30 ms per 1000 units)."""
    _, arrays = store.cached(
        rules.name,
        rules.table_key(),
        f"{'held' if held else 'reachable'}{length}",
        lambda: ({}, {"reach": sweep(_model(rules, store), length, held)}),
        check=lambda h, a: (
            a["reach"].shape == (len(turn_states(rules)), length) and a["reach"].dtype == np.bool_
        ),
    )
    reach = arrays["reach"]
    reach.flags.writeable = False  # shared by every caller
    return reach
