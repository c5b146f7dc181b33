"""The screens' form fields as the API's keyword arguments: each reads one field (a
blank one: left out), and bad text is one InputError naming the field as the page shows
it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..errors import InputError

MAX_FIELD = 200


def text(form: Mapping[str, Any], key: str) -> str:
    v = form.get(key)
    if not isinstance(v, str):
        return ""
    if len(v) > MAX_FIELD:
        raise InputError(f"{key}: {len(v)} characters, more than it can be ({MAX_FIELD})")
    return v.strip()


def whole(form: Mapping[str, Any], key: str, label: str) -> int | None:
    """A whole number, or None where the field is blank."""
    v = text(form, key)
    if not v:
        return None
    if not re.fullmatch(r"[+-]?\d{1,15}", v):
        raise InputError(f"{label} must be a whole number, got {v!r}")
    return int(v)


def flag(form: Mapping[str, Any], key: str) -> bool:
    return text(form, key) not in ("", "0", "off", "false")


def faces(form: Mapping[str, Any], key: str) -> list[int] | str:
    """Die faces as typed: "1,5,2,2", "1 5 2 2" or "1522" (each face one digit); text
    that is none of these goes to the API as it is, which says what is wrong."""
    v = text(form, key)
    parts = [p for p in re.split(r"[\s,;]+", v) if p]
    if len(parts) == 1 and parts[0].isdigit():
        parts = list(parts[0])
    if all(p.isdigit() and len(p) < 4 for p in parts):
        return [int(p) for p in parts]
    return v


def numbers(form: Mapping[str, Any], key: str) -> str | None:
    """A list of whole numbers as typed ("9500, 8000" or "9500 8000"): the API's
    comma-separated form, or None where blank."""
    v = text(form, key)
    if not v:
        return None
    return ",".join(p for p in re.split(r"[\s,;]+", v) if p)


MAX_SHEETS = 1000  # characters of the opponents' sheets (a few sheets of ~60)
_TOTALS = re.compile(r"\d+(?:[\s,]+\d+)+")  # finished totals: "236, 250" or "236 250"


def sheets(form: Mapping[str, Any], key: str) -> str | None:
    """Yahtzee opponents' sheets as typed, one a line or separated by ";" ("236", "new",
    "80 f=ones,chance u=3 y"; a line of bare totals "236, 250" is one finished opponent a
    number): the API's ";"-separated text, or None where blank."""
    v = form.get(key)
    if not isinstance(v, str) or not v.strip():
        return None
    if len(v) > MAX_SHEETS:
        raise InputError(f"Opponents: {len(v)} characters, more than they can be ({MAX_SHEETS})")
    out: list[str] = []
    for part in re.split(r"[;\r\n]+", v):
        part = " ".join(part.split())
        if _TOTALS.fullmatch(part):
            out += re.split(r"[\s,]+", part)
        elif part:
            out.append(part)
    return ";".join(out) or None


def query(form: Mapping[str, Any], keys: tuple[str, ...]) -> str:
    """The submitted fields as a query string (the page's address with this question)."""
    from urllib.parse import urlencode

    return urlencode([(k, text(form, k)) for k in keys if text(form, k)])
