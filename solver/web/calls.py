"""The Python API as the web calls it: keyword arguments from a JSON object (or a form),
checked against a whitelist of names and JSON types, then the answer's to_json() or the
command line's JSON error object.

Every name's keywords are its function's own (read from its signature, so they follow the
API), less those a request may not give: the tables folder (fixed at start), progress,
solve, workers and clusters, and every path on the server.  A rule file comes as its text
(`rules_text`), a log as its text (`log_text`), a policy file as its text
(`policy_text`): read by the same parsers as the command line's files.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starlette.exceptions import HTTPException

from ..errors import BAD_INPUT, InputError, TableMissing, flagged
from ..rules import RuleSet, preset_names
from ..store import Store
from .guard import CALL, missing

if TYPE_CHECKING:
    from ..answers.answer import Answer
    from ..yahtzee.yahtzee_rules import YahtzeeRules

log = logging.getLogger("dicesolver.web")

NAMES = (
    "advise",
    "strategy",
    "odds",
    "endgame",
    "game",
    "evaluate",
    "yahtzee_advise",
    "yahtzee_value",
    "review",
    "yahtzee_review",
    "describe_rules",
    "yahtzee_rules",
)
# keywords no request gives: the server's own (folder, progress, solving, processes) and
# those naming a path on the server
SERVER_ONLY = {
    "tables",
    "progress",
    "solve",
    "workers",
    "scheduler",
    "out",
    "table",
    "results",
    "column",
    "where",
}
BIGGEST = 10**15  # beyond any score, total or count (the API refuses past 10**9 points)
LONGEST = 200  # characters of a plain string option
MOST = 64  # values in a list option
TEXT_LIMIT = {"rules_text": 1 << 20, "policy_text": 1 << 20, "log_text": 4 << 20}
HTTP = {"bad": 400, "missing": 409}


class Refused(InputError):
    """Bad input met by the web layer itself (a keyword or type the API does not take)."""


def one_line(text: str) -> str:
    return " ".join(text.split())


def error_object(e: BaseException) -> tuple[int, dict[str, Any]]:
    """The HTTP status and the command line's JSON error object of a failed call (its
    message as the command line shows it: a field named by its flag)."""
    if isinstance(e, TableMissing):
        return HTTP["missing"], dict(e.to_dict(), error=one_line(str(e)))
    if isinstance(e, InputError):  # (a build refused for capacity: 429 or 503, jobs.py)
        status = getattr(e, "http_status", HTTP["bad"])
        return status, {"error": one_line(flagged(e)), "exit_code": BAD_INPUT}
    if isinstance(e, HTTPException):  # (a body too large, a form that does not parse)
        return e.status_code, {"error": one_line(str(e.detail)), "exit_code": BAD_INPUT}
    if isinstance(e, MemoryError):
        return 503, {"error": f"not enough memory for this request ({e})", "exit_code": 2}
    if isinstance(e, OSError):
        return 503, {"error": one_line(e.strerror or str(e)), "exit_code": 2}
    log.error("internal error", exc_info=e)
    return 500, {"error": f"internal error ({type(e).__name__}): please report it", "exit_code": 1}


# --- the whitelist ---------------------------------------------------------------------
def _int(key: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise Refused(f"{key} must be a whole number, got {_shown(v)}")
    if abs(v) > BIGGEST:
        raise Refused(f"{key} {v} is beyond any game")
    return v


def _float(key: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise Refused(f"{key} must be a number, got {_shown(v)}")
    if not -BIGGEST <= v <= BIGGEST:  # (also refuses NaN)
        raise Refused(f"{key} {v} is out of range")
    return float(v)


def _bool(key: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise Refused(f"{key} must be true or false, got {_shown(v)}")
    return v


def _str(key: str, v: Any, limit: int = LONGEST) -> str:
    if not isinstance(v, str):
        raise Refused(f"{key} must be a string, got {_shown(v)}")
    if len(v) > limit:
        raise Refused(f"{key}: {len(v)} characters, more than it can be ({limit})")
    if "\x00" in v:
        raise Refused(f"{key}: a NUL character in it")
    return v


def _list(item: Callable[[str, Any], Any]) -> Callable[[str, Any], Any]:
    """A comma-separated string (as on the command line) or a JSON list of items."""

    def check(key: str, v: Any) -> Any:
        if isinstance(v, str):
            return _str(key, v)
        if not isinstance(v, list):
            raise Refused(f"{key} must be a list or a comma-separated string, got {_shown(v)}")
        if len(v) > MOST:
            raise Refused(f"{key}: {len(v)} values, more than any game has ({MOST})")
        return [item(key, x) for x in v]

    return check


MOST_OPPONENTS = 7  # Yahtzee opponents' sheets: a game of at most 8 (yahtzee versus)
SHEET_TEXT = 1000  # characters of the opponents' sheets as one ";"-separated text
SHEET_INTS = {"score", "s", "upper", "u"}
SHEET_FLAGS = {"yahtzee_bonus", "ybonus", "y"}


def _sheet(key: str, v: Any) -> Any:
    """One opponent's sheet: a final score, a sheet's text ("80 f=ones u=3 y", "new") or
    an object {score, filled, upper, yahtzee_bonus} (answers/yahtzee_versus.py)."""
    if isinstance(v, str):
        return _str(key, v)
    if not isinstance(v, dict):
        return _int(key, v)  # (a final score; anything else is refused there)
    for k, x in v.items():
        if k in SHEET_INTS:
            _int(f"{key}: {k}", x)
        elif k in SHEET_FLAGS:
            _bool(f"{key}: {k}", x)
        elif k in ("filled", "f"):
            _list(_str)(f"{key}: {k}", x)
        else:
            raise Refused(
                f"{key}: a sheet's keys are score, filled, upper and yahtzee_bonus; got {_shown(k)}"
            )
    return v


def _sheets(key: str, v: Any) -> Any:
    """Opponents' sheets: their ";"-separated text, or a list of sheets (_sheet)."""
    if isinstance(v, str):
        n = sum(1 for part in _str(key, v, SHEET_TEXT).split(";") if part.strip())
    elif isinstance(v, list):
        n = len(v)
    else:
        raise Refused(f"{key} must be a string of sheets or a list of them, got {_shown(v)}")
    if n > MOST_OPPONENTS:
        raise Refused(f"{key}: {n} sheets, more than a game has opponents ({MOST_OPPONENTS})")
    return v if isinstance(v, str) else [_sheet(key, x) for x in v]


# annotation (as written in the answers layer) -> its JSON check; an annotation not here
# makes its keyword unavailable (fail closed)
KINDS: dict[str, Callable[[str, Any], Any]] = {
    "int": _int,
    "float": _float,
    "bool": _bool,
    "str": _str,
    "Sequence[int]": _list(_int),
    "list[int]": _list(_int),
    "Sequence[str]": _list(_str),
    "Sheets": _sheets,  # (Yahtzee opponents: answers/yahtzee_versus.py)
}


def _shown(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class Keyword:
    name: str
    kinds: tuple[Callable[[str, Any], Any], ...]
    nullable: bool

    def check(self, v: Any) -> Any:
        if v is None:
            if self.nullable:
                return None
            raise Refused(f"{self.name} may not be null")
        if len(self.kinds) == 1:
            return self.kinds[0](self.name, v)
        errors = []
        for kind in self.kinds:  # (str | Sequence[int]: the first that takes it)
            try:
                return kind(self.name, v)
            except Refused as e:
                errors.append(str(e))
        raise Refused(errors[-1])


@functools.cache
def keywords(name: str) -> dict[str, Keyword]:
    """The keywords a request may give `name`, from its signature (read once per name:
    inspect.signature took a third of a cached answer's time, issue 38)."""
    import dicesolver as ds

    out = {}
    for p in inspect.signature(getattr(ds, name)).parameters.values():
        if p.name in SERVER_ONLY or p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            continue
        parts = [t.strip() for t in str(p.annotation).split("|")]
        nullable = "None" in parts
        kinds: list[Callable[[str, Any], Any]] = []
        for t in parts:
            if t == "None":
                continue
            if t in ("Rules", "YahtzeeRules") or p.name in ("rules", "name", *FILES):
                kinds = [_str]  # (checked by name below: a preset, never a path)
                break
            if t not in KINDS:
                kinds = []
                break
            kinds.append(KINDS[t])
        if kinds:
            out[p.name] = Keyword(p.name, tuple(kinds), nullable)
    return out


# keywords that name a file on the command line -> the names they take here besides an
# upload (`KEY_text`): a request names no file of the server's (issue 36)
FILES = {"log": (), "policy": ("optimal", "points"), "vs": ("optimal", "points")}
BUILT_IN = {"evaluate": {"policy": ("optimal",)}}  # (evaluate's policy: no "points")

TEXTS = {  # the uploads each name takes in place of a path
    "advise": ("rules_text",),
    "strategy": ("rules_text",),
    "odds": ("rules_text",),
    "endgame": ("rules_text",),
    "game": ("rules_text", "policy_text", "vs_text"),
    "evaluate": ("rules_text", "policy_text"),
    "review": ("rules_text", "log_text", "log_name"),
    "yahtzee_review": ("log_text", "log_name"),
    "describe_rules": ("rules_text",),
}


def parse(name: str, body: Any) -> dict[str, Any]:
    """The checked keyword arguments of `name` from a JSON object (Refused otherwise)."""
    if name not in NAMES:
        raise Refused(f"unknown name {name!r}; names: {', '.join(NAMES)}")
    if not isinstance(body, dict):
        raise Refused("the request body must be a JSON object of keyword arguments")
    allowed = keywords(name)
    texts = TEXTS.get(name, ())
    out: dict[str, Any] = {}
    for key, v in body.items():
        if key in texts:
            out[key] = _str(key, v, TEXT_LIMIT.get(key, LONGEST))
        elif key in allowed:
            out[key] = allowed[key].check(v)
        elif key in SERVER_ONLY:
            raise Refused(f"{key} is the server's to choose, not a request's")
        else:
            raise Refused(
                f"{name} takes no keyword {_shown(key)}; it takes "
                + ", ".join(sorted([*allowed, *texts]))
            )
    return out


# --- uploads: read by the command line's own parsers -----------------------------------
def rules_from_text(text: str, source: str = "uploaded rules") -> RuleSet:
    """A rule file's text as the command line reads the file (rules.load)."""
    from ..rules import parse

    return parse(text, source)


def any_rules_from_text(text: str, source: str = "uploaded rules") -> RuleSet | YahtzeeRules:
    """A rule file's text of either family, told by its content: a Yahtzee-family file
    lists its score sheet (`[[boxes]]`), a key no Zilch-family file has; each read as its
    command line reads the file (`zilch --rules`, `yahtzee --rules`), with its messages."""
    import tomllib

    from ..yahtzee.yahtzee_rules import from_dict

    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        data = None  # (the Zilch parser says what is wrong with it)
    if isinstance(data, dict) and "boxes" in data:
        return from_dict(data, source)
    return rules_from_text(text, source)


def checked_preset(key: str, value: str, names: list[str], upload: str | None) -> str:
    """The value of `key` where it names a preset (Refused otherwise: the server reads no
    file of its own; upload: the keyword that takes the file's text instead)."""
    if value not in names:
        hint = f", or the file's text as {upload}" if upload else ""
        raise Refused(
            f"{key} {_shown(value)}: not a preset (presets: {', '.join(names)}); the server "
            f"reads no file of its own{hint}"
        )
    return value


def yahtzee_presets() -> list[str]:
    import dicesolver as ds

    return [p.name for p in ds.yahtzee_rules().presets]


@contextlib.contextmanager
def uploaded(text: str, name: str) -> Iterator[str]:
    """`text` as a private temporary file named `name` (for a parser that reads a path);
    removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="dicesolver-web-") as folder:
        path = os.path.join(folder, name)
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as f:
            f.write(text)
        yield path


def _safe_name(name: str, default: str) -> str:
    base = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)[:80]
    return base.lstrip(".") or default


def _check_log_rules(text: str, names: list[str]) -> None:
    """A log line's "rules" is a preset here (a path would be a file of the server's)."""
    import json

    for number, raw in enumerate(text.splitlines(), 1):
        try:
            data = json.loads(raw) if raw.strip() else None
        except (ValueError, RecursionError):
            continue  # (the log's parser says what is wrong with it)
        if isinstance(data, dict) and isinstance(data.get("rules"), str):
            if data["rules"] not in names:
                raise Refused(
                    f"log line {number}: 'rules' {_shown(data['rules'])} is not a preset; the "
                    "server reads no rule file: upload it as the rules, and leave 'rules' out "
                    "of the lines"
                )


@contextlib.contextmanager
def prepared(
    name: str, kwargs: dict[str, Any]
) -> Iterator[tuple[dict[str, Any], Callable[[str], str]]]:
    """The call's arguments with uploads in place (rules as a RuleSet, a log or a policy
    as a private file), and a function that puts the upload's name back where a path
    shows in an answer or a message."""
    kw = dict(kwargs)
    names = _rules_in_place(name, kw)
    with contextlib.ExitStack() as stack:
        shown = _files_in_place(name, kw, names, stack)

        def named(text: str) -> str:
            for path, label in shown.items():
                text = text.replace(path, label)
            return text

        yield kw, named


def _rules_in_place(name: str, kw: dict[str, Any]) -> list[str]:
    """The rules in kw as the call takes them (an uploaded text read as a RuleSet, a name
    checked as a preset's) and the paths a request may not name refused; the names of the
    presets (Zilch's or Yahtzee's, by the call)."""
    zilch = name not in ("yahtzee_advise", "yahtzee_value", "yahtzee_review", "yahtzee_rules")
    names = preset_names() if zilch else yahtzee_presets()
    text = kw.pop("rules_text", None)
    if text is not None:
        if "rules" in kw:
            raise Refused("rules and rules_text exclude each other: a preset or a file's text")
        kw["name" if name == "describe_rules" else "rules"] = rules_from_text(text)
    for key in ("rules", "name"):
        if isinstance(kw.get(key), str):
            kw[key] = checked_preset(key, kw[key], names, "rules_text" if zilch else None)
    for key, built_in in FILES.items():
        built_in = BUILT_IN.get(name, {}).get(key, built_in)
        if key in kw and kw[key] not in built_in:
            said = " or ".join(repr(b) for b in built_in)
            raise Refused(
                f"{key} names a file: the server reads none of its own; "
                + (f"{key} is {said} here, or " if said else "")
                + f"send the file's text as {key}_text"
            )
    return names


def _files_in_place(
    name: str, kw: dict[str, Any], names: list[str], stack: contextlib.ExitStack
) -> dict[str, str]:
    """The uploaded log and policy as private files in kw (removed when the stack closes);
    each file's path -> the upload's name."""
    shown: dict[str, str] = {}
    log_text = kw.pop("log_text", None)
    log_name = _safe_name(kw.pop("log_name", None) or "", "upload.jsonl")
    if name in ("review", "yahtzee_review"):
        if log_text is None:
            raise Refused(f"{name} needs the log's text: log_text")
        _check_log_rules(log_text, names)
        kw["log"] = stack.enter_context(uploaded(log_text, log_name))
        shown[kw["log"]] = log_name
    for key in ("policy", "vs"):
        policy = kw.pop(key + "_text", None)
        if policy is None:
            continue
        if key in kw:
            raise Refused(f"{key} and {key}_text exclude each other")
        label = ("uploaded-policy" if key == "policy" else "uploaded-vs") + (
            ".json" if policy.lstrip().startswith("{") else ".toml"
        )
        kw[key] = stack.enter_context(uploaded(policy, label))
        shown[kw[key]] = label
    return shown


# --- the call --------------------------------------------------------------------------
def answer(name: str, kwargs: dict[str, Any], store: Store) -> Any:
    """getattr(ds, name)(**kwargs, tables=store): the answer, or the error it raised (an
    uploaded file's temporary path replaced by the upload's name)."""
    import dicesolver as ds

    with prepared(name, kwargs) as (kw, named):
        fn = getattr(ds, name)
        if "tables" in inspect.signature(fn).parameters:
            kw["tables"] = store
        token = CALL.set((name, {k: v for k, v in kw.items() if k != "tables"}))
        try:
            if name == "game" and kw.get("players", 2) != 2:
                _check_nplayer(kw, store)
            got = fn(**kw)
        except (InputError, TableMissing) as e:
            if isinstance(e, TableMissing) or named(str(e)) == str(e):
                raise
            raise InputError(named(str(e)), e.field) from None
        finally:
            CALL.reset(token)
        return _renamed(got, named)


def _renamed(got: Any, named: Callable[[str], str]) -> Any:
    """The answer with every upload's temporary path replaced by the upload's name (a
    review's log, an evaluation's policy, a game's policy and vs): no path of the
    server's in an answer."""
    import dataclasses

    if not dataclasses.is_dataclass(got) or isinstance(got, type):
        return got
    changed = {
        f.name: named(v)
        for f in dataclasses.fields(got)
        if f.init and isinstance(v := getattr(got, f.name), str) and named(v) != v
    }
    return dataclasses.replace(got, **changed) if changed else got


def _check_nplayer(kw: dict[str, Any], store: Store) -> None:
    """The N-player table is a Zarr folder (no store.cached): checked here, so that a
    request never starts its solve."""
    import dicesolver as ds

    players = kw.get("players", 2)
    if not isinstance(players, int) or not 3 <= players <= 6:
        return  # (the API's own message)
    with contextlib.suppress(InputError):
        status = ds.game_table_status(
            kw.get("rules", "farkle"), kw.get("target"), players, tables=store
        )
        if not status.stored:
            call = {k: v for k, v in kw.items() if k != "tables"}
            raise missing(f"the {status.rules} game among {players} players", "game", call)


def to_json(a: Answer) -> Any:
    return a.to_json()
