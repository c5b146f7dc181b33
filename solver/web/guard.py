"""A request never waits on a long solve: the store a request reads builds only the tables
that take well under a second (the turn model, reach sweeps, the strategy card, the last
turn); any other missing table is TableMissing, whose build is the request's own call with
solve=True, run as a background job (jobs.py).  The answers layer raises TableMissing
itself where it knows a table is missing; this is the net under every other path."""

from __future__ import annotations

import inspect
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from ..errors import InputError, TableMissing
from ..store import Arrays, Check, Store

# objectives a query may build inline (each measured at most 0.2 s for the presets)
QUICK = ("model", "reach", "score")
QUICK_FAMILIES = ("reachable", "held", "lastturn")  # (+ a length or the game's target)

# the API call the current request makes: (name, keyword arguments)
CALL: ContextVar[tuple[str, dict[str, Any]] | None] = ContextVar("dicesolver_call", default=None)


INLINE_SECONDS = 3.0  # a quick build estimated past this is a background job


def inline_seconds() -> float:
    """INLINE_SECONDS, or $DICESOLVER_INLINE_SECONDS."""
    import os

    try:
        return float(os.environ.get("DICESOLVER_INLINE_SECONDS", INLINE_SECONDS))
    except ValueError:
        return INLINE_SECONDS


def quick(objective: str) -> bool:
    return objective in QUICK or objective.startswith(QUICK_FAMILIES)


def build_call(name: str, kwargs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The call that builds what `name(**kwargs)` needs: the same call, with solve=True
    where the function takes it."""
    import dicesolver as ds

    params = inspect.signature(getattr(ds, name)).parameters
    return name, dict(kwargs, solve=True) if "solve" in params else dict(kwargs)


@dataclass(frozen=True)
class QueryStore(Store):
    """The tables folder as a request sees it: every stored table, and only quick builds."""

    def cached(
        self,
        rules_name: str,
        digest: str,
        objective: str,
        build: Callable[[], tuple[dict, Arrays]],
        expect: dict | None = None,
        check: Check | None = None,
    ) -> tuple[dict, Arrays]:
        key = _open_key(self, rules_name, digest, objective, expect) if check is None else None
        kept = None if key is None else OPEN.get(key)
        if kept is not None:  # (open already: its memory map shared by every request)
            return kept
        if quick(objective):
            got = super().cached(rules_name, digest, objective, build, expect, check)
        else:
            found = self.load(rules_name, digest, objective, expect, check)
            if found is None:
                raise self._missing(rules_name, digest, objective)
            got = found
        if key is not None:
            OPEN.put(key, got)
        return got

    def inline(self, rules_name: str, digest: str, objective: str, seconds: float) -> None:
        """A quick build estimated past INLINE_SECONDS (an upload of unit 1, say) is a
        background job too (issue 36 item 4)."""
        if seconds > inline_seconds():
            e = self._missing(rules_name, digest, objective)
            e.seconds = seconds  # type: ignore[attr-defined]  # (its lane: jobs.py)
            raise e

    def _missing(self, rules_name: str, digest: str, objective: str) -> Exception:
        call = CALL.get()
        if call is None:  # (a request always names its call: calls.py sets it)
            return InputError(f"the {rules_name} table {objective!r} is not stored")
        e = missing(f"the {rules_name} table {objective!r}", *build_call(*call))
        # (its file: jobs.py starts one build per table, whatever question needed it)
        e.table = str(self.path(rules_name, digest, objective))  # type: ignore[attr-defined]
        e.objective = objective  # type: ignore[attr-defined]  # (its estimate: jobs.cost)
        return e


class _Open:
    """The tables read by requests, kept open (issue 38: a question not asked before read
    its table from the file again, a third of its time): by folder, the folder's
    modification time (a table stored or removed changes it), rules, objective and what
    was expected of it; the least recently read forgotten past SIZE."""

    SIZE = 64

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: OrderedDict[tuple[str, ...], tuple[dict, Arrays]] = OrderedDict()

    def get(self, key: tuple[str, ...]) -> tuple[dict, Arrays] | None:
        with self._lock:
            got = self._kept.get(key)
            if got is not None:
                self._kept.move_to_end(key)
            return got

    def put(self, key: tuple[str, ...], got: tuple[dict, Arrays]) -> None:
        with self._lock:
            self._kept[key] = got
            while len(self._kept) > self.SIZE:
                self._kept.popitem(last=False)


OPEN = _Open()


def _open_key(
    store: Store, rules_name: str, digest: str, objective: str, expect: dict | None
) -> tuple[str, ...] | None:
    try:
        stamp = os.stat(store.folder).st_mtime_ns
        shown = json.dumps(expect or {}, sort_keys=True, default=repr)
    except (OSError, TypeError, ValueError):
        return None
    return (str(store.folder), str(stamp), rules_name, digest, objective, shown)


def missing(what: str, name: str, kwargs: dict[str, Any]) -> TableMissing:
    """TableMissing for the build name(**kwargs); an uploaded rule set (a RuleSet or a
    YahtzeeRules, not a preset's name) shows in its command as its file, NAME.toml."""
    from ..rules import RuleSet
    from ..yahtzee.yahtzee_rules import YahtzeeRules

    rules = kwargs.get("rules")
    if isinstance(rules, (RuleSet, YahtzeeRules)):
        shown = dict(kwargs, rules=f"{rules.name}.toml")
    else:
        shown = kwargs
    e = TableMissing(what, name, shown)
    e.api = (name, dict(kwargs))
    return e
