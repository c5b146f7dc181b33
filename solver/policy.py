"""The expected-score policy of a rule set: solve, store, reload and query ("should I roll?").

Both on-board flags are solved in one pass (batch rows 0: not on the board, 1: on it).  With
permanent combinations (zilch-online's straight) a turn that holds permanent points P is
worth P plus the "secured" problem's value of its at-risk part: the utility is linear and a
permanent combination is worth at least every minimum (rules.py checks it), so from then on
minimums no longer bind.  That keeps the state exact without a permanent-points axis.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from . import InputError, tables
from .rules import RuleSet
from .turn import Payoff, TurnSolution, build_model, solve_turn, state_index

OBJECTIVE = "score"


def _score_payoff(rules: RuleSet, rows: list[int], sources=None) -> Payoff:
    u = rules.unit
    mins = np.array([-(-m // u) for m in rows])   # minimum to bank, in units, per row
    return Payoff(
        bank=lambda r: np.where(r[None, :] >= mins[:, None], r[None, :] * float(u), -np.inf),
        tail_slope=np.full(len(rows), float(u)), tail_intercept=np.zeros(len(rows)),
        tail_from=int(mins.max()), zilch=np.zeros(len(rows)), perm_bonus=float(u),
        perm_sources=sources or {})


def solve_score(rules: RuleSet) -> tuple[TurnSolution, TurnSolution | None]:
    """(main, secured): main rows = [not on board, on board]; secured is None without
    permanent combinations."""
    model = build_model(rules)
    secured = None
    if rules.has_permanent:
        secured = solve_turn(model, _score_payoff(rules, [0]))
        amounts = sorted({int(p) for p in model.perm if p})
        main = solve_turn(model, _score_payoff(
            rules, [rules.min_bank(False), rules.min_bank(True)], {a: secured for a in amounts}))
    else:
        main = solve_turn(model, _score_payoff(rules, [rules.min_bank(False),
                                                       rules.min_bank(True)]))
    return main, secured


def reachable(rules: RuleSet, length: int) -> np.ndarray:
    """reach[s, r]: can a turn be in state s with r units at risk and no permanent points?
    (read-only: one sweep per rule set serves every length up to the next power of two)"""
    return _reachable(rules, 1 << max(length - 1, 1).bit_length())[:, :length]


@lru_cache(maxsize=32)
def _reachable(rules: RuleSet, length: int) -> np.ndarray:
    """Stored in tables/ like the model it comes from (a sweep in Python: ~40 ms)."""
    path = Path(tables.table_dir()) / tables.file_name(rules.name, rules.digest(),
                                                       f"reachable{length}")
    _, arrays = tables.cached(path, {"objective": f"reachable{length}",
                                     "rules_hash": rules.digest()},
                              lambda: ({}, {"reach": _sweep_reachable(rules, length)}))
    reach = arrays["reach"]
    reach.flags.writeable = False       # shared by every caller
    return reach


def _sweep_reachable(rules: RuleSet, length: int) -> np.ndarray:
    model = build_model(rules)
    S = model.states
    reach = np.zeros((S, length + model.max_shift + 1), bool)
    reach[0, 0] = True
    out_dice = np.repeat(np.arange(1, model.dice + 1),
                         np.diff(np.append(model.out_start, len(model.prob))))
    moves = []
    for s in range(S):
        n = model.roll_dice(s)
        sel = (out_dice[model.opt_outcome] == n) & (model.perm == 0)
        pairs = np.unique(np.stack([model.target[sel], model.shift[sel]]), axis=1)
        moves.append(pairs)
    for r in range(length):
        for s in np.nonzero(reach[:, r])[0]:
            t, h = moves[s]
            reach[t, r + h] = True
    return reach[:, :length]


@dataclass(frozen=True, eq=False)
class ScorePolicy:
    rules: RuleSet
    main: TurnSolution
    secured: TurnSolution | None
    reach: np.ndarray
    header: dict

    @property
    def dice(self) -> int:
        return self.rules.dice

    def check(self, dice: int, turn: int, permanent: int = 0) -> None:
        """InputError unless the rules can produce this state."""
        r = self.rules
        if not 1 <= dice <= r.dice:
            raise InputError(f"--dice must be 1..{r.dice} under {r.name}, got {dice}")
        if turn < 0 or turn % r.unit:
            raise InputError(f"turn total {turn} is impossible under {r.name}: "
                             f"totals are multiples of {r.unit}")
        if permanent:
            perms = sorted({p.points for p in r.patterns if p.permanent})
            if not perms or permanent % perms[0] or permanent > turn:
                raise InputError(f"permanent points {permanent} are impossible with turn "
                                 f"total {turn} under {r.name}")
            return                 # reach covers turns without permanent points only
        s, u = state_index(r, dice, turn), turn // r.unit
        if u < self.reach.shape[1] and not self.reach[s, u]:
            raise InputError(f"no turn under {r.name} reaches a total of {turn} with {dice} "
                             f"dice left to roll")

    def values(self, dice: int, turn: int, on_board: bool = True,
               permanent: int = 0) -> tuple[float, float | None]:
        """(value of rolling, value of banking or None where banking is not allowed)."""
        s = state_index(self.rules, dice, turn)
        r = (turn - permanent) // self.rules.unit
        if permanent:
            roll, bank = self.secured.at(s, r)
            roll, bank = roll[0] + permanent, bank[0] + permanent
        else:
            roll, bank = self.main.at(s, r)
            roll, bank = roll[int(on_board)], bank[int(on_board)]
        return float(roll), (None if not np.isfinite(bank) else float(bank))

    def expected_turn_score(self, on_board: bool = True) -> float:
        return self.values(self.dice, 0, on_board)[0]

    def bank_thresholds(self, on_board: bool = True) -> dict[int, int | None]:
        """Per dice count: the smallest reachable turn total from which banking is optimal at
        every reachable total (None: never a free choice, e.g. mandatory hot dice)."""
        out = {}
        row = int(on_board)
        for n in range(self.dice, 0, -1):
            s = n
            if n == self.dice and self.rules.hot_dice == "mandatory":
                out[n] = None
                continue
            L = self.reach.shape[1]
            reach = self.reach[s, :L].copy()
            reach[0] = False
            rolls = reach & ~(self.main.bank[row, s, :L] >= self.main.roll[row, s, :L])
            last_roll = np.nonzero(rolls)[0]
            start = last_roll.max() + 1 if len(last_roll) else 0
            later = np.nonzero(reach[start:])[0]
            out[n] = int((start + later[0]) * self.rules.unit) if len(later) else None
        return out


def score_policy(rules: RuleSet, table_dir: str | None = None) -> ScorePolicy:
    """The expected-score policy, from tables/ or solved and stored there."""
    path = Path(tables.table_dir(table_dir)) / tables.file_name(rules.name, rules.digest(),
                                                                OBJECTIVE)
    expect = {"objective": OBJECTIVE, "rules_hash": rules.digest()}

    def build():
        main, secured = solve_score(rules)
        arrays = main.to_arrays("main")
        if secured is not None:
            arrays.update(secured.to_arrays("secured"))
        arrays["reach"] = reachable(rules, main.roll.shape[2])
        return {"rules_name": rules.name, "unit": rules.unit}, arrays

    header, arrays = tables.cached(path, expect, build)
    secured = TurnSolution.from_arrays("secured", arrays) if "secured.cap" in arrays else None
    return ScorePolicy(rules, TurnSolution.from_arrays("main", arrays), secured, arrays["reach"],
                       header)
