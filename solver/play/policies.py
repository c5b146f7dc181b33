"""Playing policies: the optimal one, and the simple ones users state in a small file.

A policy answers two questions, vectorised over many situations at once:
  pick(choices) -- which set-aside choice to take among each outcome's choices;
  banks(s, r, p) -- whether to bank in state s with r units at risk and p permanent units.
Choices are given as arrays over (situation, candidate): points, dice kept, next state,
at-risk units after, permanent units after, and a validity mask; the candidates of an
outcome are the TurnModel's (outcomes/model.py), in its `options` order.  A batch may also
name each situation's row of a solved value function (a game's score pair, a deficit).
``compile`` turns a policy into lookup tables over (outcome, r): the simulator's fast path.

A user policy file (TOML or JSON):

    [bank]
    thresholds = { 6 = 3000, 5 = 2000, 4 = 1000, 3 = 400, 2 = 300, 1 = 300 }
    default = 300          # for dice counts not listed (optional)
    entry = 500            # not on the board: bank only from this total (optional)

    bank_at_target = true  # in a game (zilch game --policy): also bank whenever the bank
                           # reaches the target ("hold at 20 or goal")

    [bank.zilches.2]       # optional, where the rules charge a penalty for the third
    thresholds = { 4 = 600, 3 = 300 }   # zilch in a row: with 2 zilches in a row before
                           # the turn, these override [bank] (keys as in [bank])

    [set_aside]
    rule = "all"           # "all" (every scoring die), "per_die" (fewest dice for the
                           # most points per die) or "max_points"
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, cast

import numpy as np

from ..errors import InputError
from ..files import read_text
from ..limits import MAX_POINTS
from ..outcomes.frozen import turn_states
from ..outcomes.model import TurnModel
from ..rules import RuleSet

SET_ASIDE_RULES = ("all", "per_die", "max_points")

# (row, s, r, p) -> (value of rolling, value of banking): a solved turn's values
Values = Callable[..., tuple[np.ndarray, np.ndarray]]
# units at risk or permanent: one for every situation, or one per situation
Units = int | np.ndarray
# a table of a policy file as parsed from TOML or JSON: its values are whatever the file
# holds until checked (Any)
Table = dict[str, Any]


@dataclass(frozen=True)
class Choices:
    points: np.ndarray  # (A, K) points (units) of each candidate choice
    kept: np.ndarray  # (A, K) dice set aside
    target: np.ndarray  # (A, K) state after
    r: np.ndarray  # (A, K) at-risk units after
    p: np.ndarray  # (A, K) permanent units after
    valid: np.ndarray  # (A, K)


def candidates(
    model: TurnModel, o: np.ndarray | None, r: Units, p: Units
) -> tuple[np.ndarray, Choices]:
    """The choices of outcomes o (A,) (None: every outcome, in order) at at-risk r and
    permanent p (scalars or (A,)): their choice indices (A, K), -1 padding, and what a
    policy sees of them."""
    pad = model.padded
    if o is not None:
        pad = {k: v[o] for k, v in pad.items()}
    r = np.asarray(r).reshape(-1, 1) if np.ndim(r) else r
    p = np.asarray(p).reshape(-1, 1) if np.ndim(p) else p
    return pad["choice"], Choices(
        pad["points"],
        pad["kept"],
        pad["target"],
        r + pad["shift"],
        p + pad["perm"],
        pad["valid"],
    )


class Policy:
    """choose and banks, as the simulator and the evaluator call them (row: each
    situation's row of a solved value function, where the policy has rows)."""

    name: str

    def pick(self, ch: Choices, row: np.ndarray | None = None) -> np.ndarray:
        raise NotImplementedError

    def banks(self, s: np.ndarray, r: Units, p: Units, row: np.ndarray | None = None) -> np.ndarray:
        raise NotImplementedError

    def choose(
        self,
        model: TurnModel,
        o: np.ndarray | None,
        r: Units,
        p: Units,
        row: np.ndarray | None = None,
    ) -> np.ndarray:
        """The choice taken in each outcome o (None: every outcome) at (r, p)."""
        opts, ch = candidates(model, o, r, p)
        return opts[np.arange(len(opts)), self.pick(ch, row)]

    @property
    def fixed_past(self) -> int:
        """At-risk units beyond which choose() no longer depends on r (a compiled policy
        knows; play/policy_last_turn.py needs it)."""
        raise NotImplementedError(f"{type(self).__name__} does not say where its choices settle")


@dataclass(frozen=True, eq=False)
class UserPolicy(Policy):
    name: str
    thresholds: tuple[int | None, ...]  # index n = dice to roll (0 unused); None: never bank
    entry: int
    rule: str
    rules: RuleSet
    on_board: bool = True
    bank_at_target: bool = False  # in a game: also bank where the bank reaches the target

    def pick(self, ch: Choices, row: np.ndarray | None = None) -> np.ndarray:
        pts = np.where(ch.valid, ch.points, -1)
        kept = np.where(ch.valid, ch.kept, 0)
        if self.rule == "all":  # most dice kept, then most points
            key = kept * 10**6 + pts
        elif self.rule == "max_points":  # most points, then more dice kept
            key = pts * 10 + kept
        else:  # most points per die, then fewer dice
            per = np.where(ch.valid, ch.points / np.maximum(ch.kept, 1), -1.0)
            key = per * 10 - kept * 1e-3
        key = np.where(ch.valid, key, -np.inf)
        return np.argmax(key, axis=1)

    def banks(self, s: np.ndarray, r: Units, p: Units, row: np.ndarray | None = None) -> np.ndarray:
        rules = self.rules
        total = (r + p) * rules.unit
        n = turn_states(rules).dice_array[s]  # dice to roll (pyramiding: more states)
        th = np.array([10**12 if t is None else t for t in self.thresholds])[n]
        need = max(rules.min_bank(self.on_board), 0 if self.on_board else self.entry)
        return (s != 0) & (total >= th) & (total >= need)

    def banks_from(self) -> int:
        """Units from which this policy banks in every free state (a goal beyond them
        changes nothing); past every total where some dice count never banks."""
        rules = self.rules
        low = max(rules.min_bank(self.on_board), 0 if self.on_board else self.entry)
        th = [MAX_POINTS + 1 if t is None else t for t in self.thresholds[1:]]
        return rules.units_up(max(max(th), low))

    def compile(self, model: TurnModel) -> Policy:
        """The choice depends on the outcome only: looked up; banking (a comparison of the
        total with the dice count's threshold) stays as it is."""
        O = len(model.prob)
        opts, ch = candidates(model, None, np.zeros(O, np.int64), 0)
        return FixedPick(self, opts[np.arange(O), self.pick(ch)])


@dataclass(frozen=True, eq=False)
class FixedPick(Policy):
    """A user's policy with its choice per outcome looked up (it depends on nothing else)."""

    user: UserPolicy
    choice: np.ndarray  # (O,) the choice taken in each outcome

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.user.name

    def choose(
        self,
        model: TurnModel,
        o: np.ndarray | None,
        r: Units,
        p: Units,
        row: np.ndarray | None = None,
    ) -> np.ndarray:
        return self.choice if o is None else self.choice[o]

    def banks(self, s: np.ndarray, r: Units, p: Units, row: np.ndarray | None = None) -> np.ndarray:
        return self.user.banks(s, r, p)

    @property
    def fixed_past(self) -> int:
        return 0


@dataclass(frozen=True, eq=False)
class GoalPolicy(Policy):
    """`base` in a game: its choices, and it banks where base does (not where `own` is
    False: a last turn, where only the goal counts) and wherever the turn total reaches the
    goal, in units: `goal`, or each situation's row where goal is None (the simulator's
    games).  The rules' minimum always holds."""

    base: Policy
    rules: RuleSet
    on_board: bool
    goal: int | None = None
    own: bool = True

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.base.name

    def choose(
        self,
        model: TurnModel,
        o: np.ndarray | None,
        r: Units,
        p: Units,
        row: np.ndarray | None = None,
    ) -> np.ndarray:
        return self.base.choose(model, o, r, p)

    def banks(self, s: np.ndarray, r: Units, p: Units, row: np.ndarray | None = None) -> np.ndarray:
        # (goal None comes with a row per situation: the simulator's games)
        goal = cast(Units, self.goal if row is None else row)
        rules = self.rules
        reached = (
            (s != 0) & (r + p >= goal) & ((r + p) * rules.unit >= rules.min_bank(self.on_board))
        )
        return reached | self.base.banks(s, r, p) if self.own else reached

    @property
    def fixed_past(self) -> int:
        return self.base.fixed_past


@dataclass(frozen=True, eq=False)
class OptimalPolicy(Policy):
    """Any solved value function: the best choice by value, bank when banking is worth at
    least rolling."""

    values: Values  # (row, s, r, p) -> (roll, bank), vectorised
    row: int | np.ndarray | None = 0  # the value function's row (a batch may give each its own)
    cap: int = 0  # units of r beyond which every decision is fixed
    levels: int = 2  # decisions differ by permanent units p only through
    # min(p // step, levels - 1) (score: held or not)
    name: str = "optimal"

    def pick(self, ch: Choices, row: np.ndarray | None = None) -> np.ndarray:
        shape = ch.target.shape
        t, r, p = (np.where(ch.valid, x, 0).ravel() for x in (ch.target, ch.r, ch.p))
        rw = self.row if row is None else np.repeat(row, shape[1])
        vr, vb = self.values(rw, t, r, p)
        v = np.where(t == 0, vr, np.maximum(vr, vb)).reshape(shape)
        return np.argmax(np.where(ch.valid, v, -np.inf), axis=1)

    def banks(self, s: np.ndarray, r: Units, p: Units, row: np.ndarray | None = None) -> np.ndarray:
        vr, vb = self.values(self.row if row is None else row, s, r, p)
        return (s != 0) & (vb >= vr)

    def compile(self, model: TurnModel) -> TablePolicy:
        """Lookup tables indexed by [permanent level, ..., r]: past `cap` every decision is
        the asymptotic one (turn/engine.py), so r is clipped there."""
        cap = self.cap + 1
        O, S = len(model.prob), model.states
        has_perm = bool(np.any(model.perm > 0))
        step = int(model.perm[model.perm > 0].min()) if has_perm else 1
        perm = [k * step for k in range(self.levels if has_perm else 1)]
        pick = np.zeros((len(perm), O, cap), np.int64)
        bank = np.zeros((len(perm), S, cap), bool)
        r = np.arange(cap)
        for i, p in enumerate(perm):
            opts, ch = candidates(model, np.tile(np.arange(O), cap), np.repeat(r, O), p)
            pick[i] = self.pick(ch).reshape(cap, O).T
            ss, rr = np.meshgrid(np.arange(S), r, indexing="ij")
            bank[i] = self.banks(ss.ravel(), rr.ravel(), np.full(ss.size, p)).reshape(S, cap)
        return TablePolicy(self.name, pick, bank, "r", step)

    @property
    def fixed_past(self) -> int:
        return self.cap


@dataclass(frozen=True, eq=False)
class TablePolicy(Policy):
    """A policy compiled into lookup tables: pick[level, outcome, r] (the candidate's slot),
    bank[level, s, r or turn total]; r (or the total) clipped at the tables' end, where
    every decision is the asymptotic one."""

    name: str
    pick_tab: np.ndarray
    bank_tab: np.ndarray
    bank_by: str  # "r": at-risk units, "total": r + p
    step: int  # permanent units per level

    def choose(
        self,
        model: TurnModel,
        o: np.ndarray | None,
        r: Units,
        p: Units,
        row: np.ndarray | None = None,
    ) -> np.ndarray:
        o = np.arange(len(model.prob)) if o is None else o
        top = len(self.pick_tab) - 1
        held = np.minimum(p // self.step, top) if top else 0
        return model.options[o, self.pick_tab[held, o, np.minimum(r, self.pick_tab.shape[2] - 1)]]

    def banks(self, s: np.ndarray, r: Units, p: Units, row: np.ndarray | None = None) -> np.ndarray:
        idx = r if self.bank_by == "r" else r + p
        held = np.minimum(p // self.step, len(self.bank_tab) - 1) if len(self.bank_tab) > 1 else 0
        return self.bank_tab[held, s, np.minimum(idx, self.bank_tab.shape[2] - 1)]

    @property
    def fixed_past(self) -> int:
        return self.pick_tab.shape[2] - 1


def _points(src: str, key: str, v: object) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_POINTS:
        _fail(src, key, f"expected an integer in [0, {MAX_POINTS}], got {v!r}")
    return v


def _fail(src: str, key: str, what: str) -> NoReturn:
    raise InputError(f"policy file {src}: key '{key}': {what}")


def load_policy(path: str, rules: RuleSet, on_board: bool = True, zilches: int = 0) -> UserPolicy:
    """A user's policy file; zilches: the zilches in a row before the turn, which picks the
    file's [bank.zilches.K] overrides where it has them."""
    p = Path(path)
    text = read_text(path, "policy file")
    try:
        data = json.loads(text) if p.suffix == ".json" else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as e:
        raise InputError(
            f"policy file {path}: not valid {'JSON' if p.suffix == '.json' else 'TOML'} ({e})"
        ) from None
    except RecursionError:
        raise InputError(f"policy file {path}: nested too deeply") from None
    if not isinstance(data, dict):
        _fail(path, "(top)", "expected a table")
    for k in data:
        if k not in ("bank", "set_aside", "name"):
            _fail(path, k, "unknown key")
    bank = data.get("bank")
    if not isinstance(bank, dict):
        _fail(path, "bank", "missing: give [bank] thresholds")
    by_k = _zilch_overrides(path, bank, rules)
    plain = {k: v for k, v in bank.items() if k not in ("zilches", "bank_at_target")}
    th, entry = _bank(path, "bank.", plain, rules)
    over = by_k.get(str(zilches))
    if over:
        th2, entry2 = _bank(path, f"bank.zilches.{zilches}.", over, rules, partial=True)
        th = tuple(b if b is not None else a for a, b in zip(th, th2))
        entry = entry if "entry" not in over else entry2
    sa = data.get("set_aside", {"rule": "all"})
    if not isinstance(sa, dict):
        _fail(path, "set_aside", "expected a table with rule = ...")
    rule = sa.get("rule", "all")
    if rule not in SET_ASIDE_RULES:
        _fail(path, "set_aside.rule", f"expected one of {', '.join(SET_ASIDE_RULES)}, got {rule!r}")
    goal = _goal(path, bank)
    return UserPolicy(str(data.get("name", p.stem)), th, entry, rule, rules, on_board, goal)


def _goal(path: str, bank: Table) -> bool:
    """[bank] bank_at_target: also bank where the bank reaches the target (in a game)."""
    goal = bank.get("bank_at_target", False)
    if not isinstance(goal, bool):
        _fail(path, "bank.bank_at_target", f"expected true or false, got {goal!r}")
    return goal


def _zilch_overrides(path: str, bank: Table, rules: RuleSet) -> Table:
    """[bank.zilches.K] (K zilches in a row before the turn), each table checked: what
    replaces [bank]'s thresholds and entry after K zilches."""
    by_k = bank.get("zilches", {})
    if by_k and not rules.three_zilch_penalty:
        _fail(
            path,
            "bank.zilches",
            f"{rules.name} has no penalty for three zilches in a row: the count changes nothing",
        )
    if not isinstance(by_k, dict):
        _fail(path, "bank.zilches", "expected tables [bank.zilches.K], K = 0, 1, 2")
    for k, over in by_k.items():
        if str(k) not in ("0", "1", "2"):
            _fail(path, f"bank.zilches.{k}", "zilches in a row are 0, 1 or 2")
        if not isinstance(over, dict):
            _fail(path, f"bank.zilches.{k}", "expected a table (keys as in [bank])")
        _bank(path, f"bank.zilches.{k}.", over, rules, partial=True)
    return by_k


def _bank(
    path: str, where: str, bank: Table, rules: RuleSet, partial: bool = False
) -> tuple[tuple[int | None, ...], int]:
    """A [bank] table's thresholds by dice count (index 0 unused) and entry; partial: an
    override, whose missing dice counts stay None."""
    for k in bank:
        if k not in ("thresholds", "default", "entry"):
            _fail(path, f"{where}{k}", "unknown key")
    th_in = bank.get("thresholds", {})
    if not isinstance(th_in, dict):
        _fail(path, f"{where}thresholds", "expected a table dice -> turn total")
    default = bank.get("default")
    if default is not None:
        _points(path, f"{where}default", default)
    th: list[int | None] = [None] * (rules.dice + 1)
    counts = {str(n): n for n in range(1, rules.dice + 1)}
    for k, v in th_in.items():
        if str(k) not in counts:
            _fail(path, f"{where}thresholds.{k}", f"dice counts are 1..{rules.dice}")
        th[counts[str(k)]] = _points(path, f"{where}thresholds.{k}", v)
    for n in range(1, rules.dice + 1):
        if th[n] is None:
            if default is not None:
                th[n] = default
            elif not partial:
                _fail(path, f"{where}thresholds.{n}", "missing (or give bank.default)")
    return tuple(th), _points(path, f"{where}entry", bank.get("entry", 0))
