"""What every answer shares: a frozen dataclass whose to_dict() is exactly the command's
JSON (fields hidden from it, fields left out where None), and the JSON values of what answers
hold (nested answers, exact fractions, numpy scalars)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from fractions import Fraction


def hidden(default: Any = None) -> Any:
    """A field for the text rendering only: not in to_dict()."""
    return field(default=default, metadata={"hidden": True}, repr=False, compare=False)


def optional(default: Any = None) -> Any:
    """A field left out of to_dict() where it is None."""
    return field(default=default, metadata={"omit_none": True})


@dataclass(frozen=True)
class Answer:
    """A frozen answer; to_dict() is exactly what the command prints with --json."""

    def to_dict(self) -> dict:
        return fields_of(self)

    def to_json(self) -> Any:
        """The JSON value of the answer (to_dict(); a listing is a list)."""
        return self.to_dict()


def plain(v: Any) -> Any:
    """Answers' values as JSON values: nested answers, sequences, mappings, exact
    fractions as "n/d" (a whole number as itself), numpy scalars as Python's."""
    if isinstance(v, Answer):
        return v.to_dict()
    if is_dataclass(v) and not isinstance(v, type):
        return fields_of(v)
    if isinstance(v, Mapping):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    fractions = sys.modules.get("fractions")  # (a Fraction exists only once it is imported:
    if fractions and isinstance(v, fractions.Fraction):  # a query need not import it)
        return fraction_text(v)
    if isinstance(v, np.generic):
        return v.item()
    return v


def fields_of(obj: Any) -> dict:
    out = {}
    for f in fields(obj):
        v = getattr(obj, f.name)
        if f.metadata.get("hidden") or (v is None and f.metadata.get("omit_none")):
            continue
        out[f.name] = plain(v)
    return out


def fraction_text(p: Fraction) -> str:
    """An exact probability as "n/d" ("0" and "1" where it is whole)."""
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"
