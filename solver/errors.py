"""The errors a user can cause or meet: bad input, and a question whose table nobody solved."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

# exit codes of the command lines (documented in the README)
BAD_INPUT = 2
NEEDS_SOLVE = 3
ABORTED = 130


class InputError(ValueError):
    """Bad user input (rule file, state, option): the CLI prints it on one line, exit code 2.

    field: the input it is about, by its Python API name ("beat", "target", "lowest"): below
    the answers layer a message names the field, never a command-line flag, and starts with
    it; the command line shows the flag instead (`flagged`).  A field named inside the
    message is marked `like_this`: the API shows it as like_this, the command line as
    --like-this."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field

    def __str__(self) -> str:
        return _FIELD.sub(lambda m: m[1], str(self.args[0]) if self.args else "")


_FIELD = re.compile(r"`([a-z_]+)`")


def flagged(e: InputError) -> str:
    """The message as the command line shows it: a leading field name becomes its flag
    ("beat 75 is not ..." -> "--beat 75 is not ..."), and so does every `marked` one."""
    raw = str(e.args[0]) if e.args else ""
    text = _FIELD.sub(lambda m: "--" + m[1].replace("_", "-"), raw)
    f = e.field
    if f and text.startswith(f) and not text[len(f) : len(f) + 1].isalnum():
        return "--" + f.replace("_", "-") + text[len(f) :]
    return text


class TableMissing(Exception):
    """A query needs a stored table that nobody has solved yet: a query never starts a long
    solve by itself.  The CLI prints one line and exits with NEEDS_SOLVE (3); with --json an
    object with "error", "exit_code" and "solve_with", the command that builds the table,
    ready to paste.  `api` is the same build as a Python API call: (function name, keyword
    arguments), which `--solve` (and the web page's background job) runs."""

    exit_code = NEEDS_SOLVE

    def __init__(self, what: str, api: str, kwargs: Mapping[str, Any]) -> None:
        self.what = what
        self.api = (api, dict(kwargs))
        self.solve_with = solve_command(api, kwargs)
        self.build: Any = None  # (progress) -> the table: set where the table is known
        super().__init__(f"{what} is not solved yet: build it with {self.solve_with}")

    def to_dict(self) -> dict[str, Any]:
        return {"error": str(self), "exit_code": self.exit_code, "solve_with": self.solve_with}


def solve_command(api: str, kwargs: Mapping[str, Any]) -> str:
    """The command line of an API call that builds a table: `zilch game --rules R ...`,
    every value shell-quoted (a rule file's path may hold spaces)."""
    family, _, name = api.partition("_") if api.startswith("yahtzee_") else ("zilch", "", api)
    words = [family, name.replace("_", "-")]
    for key, value in kwargs.items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            words.append(flag)
        elif isinstance(value, Sequence) and not isinstance(value, str):
            words += [flag, ",".join(str(v) for v in value)]
        else:
            words += [flag, str(value)]
    return shlex.join(words)
