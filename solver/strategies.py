"""Playing policies: the optimal one, and the simple ones users state in a small file.

A strategy answers two questions, vectorised over many situations at once:
  pick(choices) -- which set-aside choice to take among each outcome's choices;
  banks(s, r, p) -- whether to bank in state s with r units at risk and p permanent units.
Choices are given as arrays over (situation, candidate): points, dice kept, next state,
at-risk units after, permanent units after, and a validity mask.

A user policy file (TOML or JSON):

    [bank]
    thresholds = { 6 = 3000, 5 = 2000, 4 = 1000, 3 = 400, 2 = 300, 1 = 300 }
    default = 300          # for dice counts not listed (optional)
    entry = 500            # not on the board: bank only from this total (optional)

    [set_aside]
    rule = "all"           # "all" (every scoring die), "per_die" (fewest dice for the
                           # most points per die) or "max_points"
"""
from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import InputError
from .rules import RuleSet

SET_ASIDE_RULES = ("all", "per_die", "max_points")


@dataclass(frozen=True)
class Choices:
    points: np.ndarray     # (A, K) points (units) of each candidate choice
    kept: np.ndarray       # (A, K) dice set aside
    target: np.ndarray     # (A, K) state after
    r: np.ndarray          # (A, K) at-risk units after
    p: np.ndarray          # (A, K) permanent units after
    valid: np.ndarray      # (A, K)


@dataclass(frozen=True)
class UserPolicy:
    name: str
    thresholds: tuple[int | None, ...]   # index n = dice to roll (0 unused); None: never bank
    entry: int
    rule: str

    def pick(self, ch: Choices) -> np.ndarray:
        pts = np.where(ch.valid, ch.points, -1)
        kept = np.where(ch.valid, ch.kept, 0)
        if self.rule == "all":         # most dice kept, then most points
            key = kept * 10 ** 6 + pts
        elif self.rule == "max_points":  # most points, then more dice kept
            key = pts * 10 + kept
        else:                          # most points per die, then fewer dice
            per = np.where(ch.valid, ch.points / np.maximum(ch.kept, 1), -1.0)
            key = per * 10 - kept * 1e-3
        key = np.where(ch.valid, key, -np.inf)
        return np.argmax(key, axis=1)

    def compile(self, eng, rules: RuleSet, on_board: bool):
        """Lookup tables for the simulator: the choice depends on the outcome only; banking
        on the dice left and the turn total."""
        ch = _engine_choices(eng, np.zeros(len(eng.options), np.int64), 0)
        pick = self.pick(ch)[None, :, None]                           # (1, O, 1)
        top = max(t for t in self.thresholds[1:] if t is not None) // rules.unit + 1
        top = max(top, -(-max(rules.min_bank(on_board), self.entry) // rules.unit) + 1)
        S = rules.dice + 1
        s, r = np.meshgrid(np.arange(S), np.arange(top + 1), indexing="ij")
        bank = self.banks(rules, s.ravel(), r.ravel(), np.zeros(s.size, np.int64), on_board)
        return pick, bank.reshape(1, S, top + 1), "total", 1

    def banks(self, rules: RuleSet, s, r, p, on_board: bool) -> np.ndarray:
        total = (r + p) * rules.unit
        n = np.where(s == 0, rules.dice, s)
        th = np.array([10 ** 12 if t is None else t for t in self.thresholds])[n]
        need = max(rules.min_bank(on_board), 0 if on_board else self.entry)
        return (s != 0) & (total >= th) & (total >= need)


def _fail(src, key, what):
    raise InputError(f"policy file {src}: key '{key}': {what}")


def load_policy(path: str, rules: RuleSet) -> UserPolicy:
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise InputError(f"policy file {path}: cannot read it ({e.strerror})") from None
    try:
        data = json.loads(text) if p.suffix == ".json" else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as e:
        raise InputError(f"policy file {path}: not valid {'JSON' if p.suffix == '.json' else 'TOML'}"
                         f" ({e})") from None
    if not isinstance(data, dict):
        _fail(path, "(top)", "expected a table")
    for k in data:
        if k not in ("bank", "set_aside", "name"):
            _fail(path, k, "unknown key")
    bank = data.get("bank")
    if not isinstance(bank, dict):
        _fail(path, "bank", "missing: give [bank] thresholds")
    for k in bank:
        if k not in ("thresholds", "default", "entry"):
            _fail(path, f"bank.{k}", "unknown key")
    th_in = bank.get("thresholds", {})
    if not isinstance(th_in, dict):
        _fail(path, "bank.thresholds", "expected a table dice -> turn total")
    default = bank.get("default")
    if default is not None and (isinstance(default, bool) or not isinstance(default, int)
                                or default < 0):
        _fail(path, "bank.default", f"expected a non-negative integer, got {default!r}")
    th: list[int | None] = [None] * (rules.dice + 1)
    for k, v in th_in.items():
        if not str(k).isdigit() or not 1 <= int(k) <= rules.dice:
            _fail(path, f"bank.thresholds.{k}", f"dice counts are 1..{rules.dice}")
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            _fail(path, f"bank.thresholds.{k}", f"expected a non-negative integer, got {v!r}")
        th[int(k)] = v
    for n in range(1, rules.dice + 1):
        if th[n] is None:
            if default is None:
                _fail(path, f"bank.thresholds.{n}", "missing (or give bank.default)")
            th[n] = default
    entry = bank.get("entry", 0)
    if isinstance(entry, bool) or not isinstance(entry, int) or entry < 0:
        _fail(path, "bank.entry", f"expected a non-negative integer, got {entry!r}")
    sa = data.get("set_aside", {"rule": "all"})
    if not isinstance(sa, dict):
        _fail(path, "set_aside", "expected a table with rule = ...")
    rule = sa.get("rule", "all")
    if rule not in SET_ASIDE_RULES:
        _fail(path, "set_aside.rule", f"expected one of {', '.join(SET_ASIDE_RULES)}, got {rule!r}")
    return UserPolicy(str(data.get("name", p.stem)), tuple(th), entry, rule)


def _engine_choices(eng, r, p, outcomes=None) -> Choices:
    """The choices of the simulator's outcomes (all, or `outcomes`) at at-risk r and
    permanent p (scalars or arrays per outcome)."""
    opts = eng.options if outcomes is None else eng.options[outcomes]
    valid = opts >= 0
    oc = np.where(valid, opts, 0)
    r = np.asarray(r).reshape(-1, 1) if np.ndim(r) else r
    p = np.asarray(p).reshape(-1, 1) if np.ndim(p) else p
    return Choices(eng.points[oc], eng.kept[oc], eng.target[oc], r + eng.shift[oc],
                   p + eng.perm[oc], valid)


@dataclass(frozen=True)
class OptimalPolicy:
    """The expected-score optimum (or any solved value function): best choice by value,
    bank when banking is worth at least rolling."""
    values: object            # f(s, r, p) -> (roll, bank), vectorised
    cap: int = 0              # units of r beyond which every decision is fixed
    levels: int = 2           # decisions differ by permanent units p only through
                              # min(p // step, levels - 1) (score: held or not)
    name: str = "optimal"

    def pick(self, ch: Choices) -> np.ndarray:
        shape = ch.target.shape
        t, r, p = (np.where(ch.valid, x, 0).ravel() for x in (ch.target, ch.r, ch.p))
        vr, vb = self.values(t, r, p)
        v = np.where(t == 0, vr, np.maximum(vr, vb)).reshape(shape)
        return np.argmax(np.where(ch.valid, v, -np.inf), axis=1)

    def banks(self, rules: RuleSet, s, r, p, on_board: bool) -> np.ndarray:
        vr, vb = self.values(s, r, p)
        return (s != 0) & (vb >= vr)

    def compile(self, eng, rules: RuleSet, on_board: bool):
        """Lookup tables for the simulator, indexed by [holds permanent points, ..., r]: past
        `cap` every decision is the asymptotic one (turn.py), so r is clipped there."""
        cap = self.cap + 1
        O, S = len(eng.options), rules.dice + 1
        step = int(eng.perm[eng.perm > 0].min()) if np.any(eng.perm > 0) else 1
        perm = [k * step for k in range(self.levels if np.any(eng.perm > 0) else 1)]
        pick = np.zeros((len(perm), O, cap), np.int64)
        bank = np.zeros((len(perm), S, cap), bool)
        r = np.arange(cap)
        for i, p in enumerate(perm):
            ch = _engine_choices(eng, np.repeat(r, O), p, np.tile(np.arange(O), cap))
            pick[i] = self.pick(ch).reshape(cap, O).T
            ss, rr = np.meshgrid(np.arange(S), r, indexing="ij")
            bank[i] = self.banks(rules, ss.ravel(), rr.ravel(), np.full(ss.size, p),
                                 on_board).reshape(S, cap)
        return pick, bank, "r", step


def resolve(name: str, rules: RuleSet, on_board: bool = True, tables_dir=None):
    """'optimal' or a policy file."""
    if name == "optimal":
        from .policy import score_policy
        from .simulate import optimal_values
        pol = score_policy(rules, tables_dir)
        cap = max(pol.main.cap, pol.secured.cap if pol.secured is not None else 0)
        return OptimalPolicy(optimal_values(pol, on_board), cap)
    return load_policy(name, rules)
