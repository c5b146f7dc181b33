"""What both command lines share: one-line errors, the common options, printing an answer,
and the progress bar."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from .. import store
from ..errors import InputError, TableMissing, flagged
from ..progress import Progress
from . import interrupts

if TYPE_CHECKING:
    from ..answers.answer import Answer
    from ..answers.export import Table

F = TypeVar("F", bound=Callable[..., Any])  # a command's function, decorated with options


class OneLineErrors(click.Group):
    """Every usage or input error becomes one line on stderr and exit code 2 (with --json: a
    JSON object on that line); Ctrl-C: "aborted", exit code 130."""

    def main(self, args: Sequence[str] | None = None, *rest: Any, **kwargs: Any) -> Any:
        store.notify = lambda message: click.echo(message, err=True)  # (waits for a lock)
        interrupts.install()
        argv = list(sys.argv[1:] if args is None else args)
        as_json = "--json" in argv
        try:
            # (rest: prog_name and complete_var, as click's main takes them)
            return super().main(  # type: ignore[call-overload]
                argv, *rest, standalone_mode=False, **kwargs
            )
        except click.exceptions.Exit as e:
            sys.exit(e.exit_code)
        except (click.exceptions.Abort, KeyboardInterrupt, _Interrupted):
            if sys.stderr.isatty():  # (after the terminal's ^C)
                click.echo(err=True)
            self._fail("aborted", 130, as_json, plain=True)
        except click.ClickException as e:
            ctx = getattr(e, "ctx", None)
            where = ctx.command_path if ctx else self.name
            self._fail(e.format_message(), 2, as_json, where)
        except InputError as e:
            self._fail(flagged(e), 2, as_json)
        except TableMissing as e:  # (its own exit code: the input was fine, a table is not)
            self._fail(str(e), e.exit_code, as_json, extra={"solve_with": e.solve_with})
        except MemoryError as e:  # an allocation beyond what the estimates foresaw
            self._fail(f"not enough memory for this request ({e})", 2, as_json)
        except OSError as e:  # the machine said no: a full disk, a closed pipe, ...
            where = f" ({e.filename})" if e.filename else ""
            self._fail(f"{e.strerror or e}{where}", 2, as_json)
        except Exception:  # (a library that turned a Ctrl-C into its own error: numba's)
            if interrupts.received():
                self._fail("aborted", 130, as_json, plain=True)
            raise

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:  # (click would print an empty line, on a pipe too)
            raise _Interrupted from None

    def _fail(
        self,
        msg: str,
        code: int,
        as_json: bool,
        where: str | None = None,
        plain: bool = False,
        extra: dict[str, Any] | None = None,
    ) -> NoReturn:
        msg = " ".join(msg.split())  # one line
        if code == 130:
            interrupts.settle()
        if as_json:
            line = json.dumps({"error": msg, "exit_code": code, **(extra or {})})
        else:
            line = msg if plain else f"{where or self.name}: error: {msg}"
        try:
            click.echo(line, err=True)
        finally:
            sys.exit(code)


class _Interrupted(Exception):
    """Ctrl-C during a command (KeyboardInterrupt, passed by click as is)."""


TABLES_OPT = click.option(
    "--tables",
    "tables",
    default=None,
    metavar="DIR",
    help="Folder for solved tables (default: $DICESOLVER_TABLES, the "
    "project's tables/ or the user cache).",
)
JSON_OPT = click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
SEED = click.IntRange(0, 2**64 - 1)  # a 64-bit seed: what a user's own simulator takes


def emit(answer: Answer, as_json: bool, text: Callable[[Any], str]) -> None:
    """The answer as JSON (exactly its to_dict()), or as text for people."""
    if as_json:
        click.echo(json.dumps(answer.to_json(), indent=2))
        return
    click.echo(text(answer))


class Bar(Progress):
    """Progress on stderr: on a terminal a bar, drawn once long work starts; elsewhere (a log,
    a pipe) a line once a piece of work has run for LONG seconds, one a minute after, and
    one when it ends, with its time: long work is never silent, short work says nothing.
    Notes (what a long solve is, its estimate; where an interrupted solve's checkpoint is)
    are printed either way."""

    LONG = 2.0  # seconds: work shorter than this prints nothing off a terminal
    EVERY = 60.0  # seconds between the lines of work still going on

    def __init__(self) -> None:
        self._bar: Any = None
        self._label = ""
        self._since = self._said = 0.0
        self._done = self._total = 0

    def note(self, text: str) -> None:
        click.echo(text, err=True)

    def start(self, label: str, total: int) -> None:
        import time

        self._label, self._since, self._said = label, time.monotonic(), 0.0
        self._done, self._total = 0, total
        if sys.stderr.isatty():
            self._bar = click.progressbar(length=total, label=label, file=sys.stderr)
            self._bar.__enter__()

    def advance(self, n: int = 1) -> None:
        import time

        self._done += n
        if self._bar is not None:
            self._bar.update(n)
            return
        now = time.monotonic()
        late = now - self._since >= self.LONG if not self._said else now - self._said >= self.EVERY
        if self._label and late:
            self._said = now
            click.echo(
                f"{self._label}: {self._done} of {self._total} steps after "
                f"{now - self._since:.0f} s ...",
                err=True,
            )

    def finish(self) -> None:
        import time

        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None
        elif self._label and self._said:
            took = time.monotonic() - self._since
            click.echo(f"{self._label}: done in {took:.1f} s", err=True)
        self._label = ""

    def abandon(self) -> None:
        import time

        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None
            click.echo("", err=True)
        elif self._label and self._said:
            took = time.monotonic() - self._since
            click.echo(f"{self._label}: stopped after {took:.1f} s", err=True)
        self._label = ""


FORMAT_OPT = click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "json", "parquet"]),
    default="csv",
    show_default=True,
    help="Format of the table.",
)


def table_destination(fmt: str, out: str | None) -> None:
    """InputError for where a table cannot go, checked before the table is computed."""
    from ..files import out_path

    if out is not None:
        out_path(out)
    elif fmt == "parquet":
        raise InputError("parquet export needs --out FILE")


def write_table(table: Table, fmt: str, out: str | None, what: str = "rows") -> None:
    """A table to a file (atomically), or to standard output."""
    from ..files import out_path

    table_destination(fmt, out)
    if out is not None:
        table.write(out_path(out), fmt)
        click.echo(f"wrote {table.rows} {what} to {out}", err=True)
    else:
        sys.stdout.write(table.encode(fmt).decode())


def typed(prompt: str) -> str:
    """A line the person types after the prompt (a game in the terminal); from a script
    (standard input not a terminal): read and echoed, so the transcript reads as played."""
    import sys

    if sys.stdin.isatty():
        return input(prompt)
    text = sys.stdin.readline()
    if not text:
        raise EOFError
    click.echo(prompt + text.rstrip("\n"))
    return text


def play_options(game: str, dice_help: str) -> Callable[[F], F]:
    """The options of a game in the terminal: --seed, --dice-from-input, --log."""

    def add(f: F) -> F:
        f = overwrite_options(f)
        f = click.option(
            "--log",
            default=None,
            metavar="FILE.jsonl",
            help=f"Where every decision goes as it is made (default: {game}-play-DATE-TIME.jsonl).",
        )(f)
        f = click.option("--dice-from-input", is_flag=True, help=dice_help)(f)
        return click.option(
            "--seed", type=SEED, default=None, help="Seed of the dice (default: a new game)."
        )(f)

    return add


def overwrite_options(f: F) -> F:
    """--force and --append: what to do with a log (or results) file that exists (refused
    without one of them)."""
    f = click.option(
        "--append", is_flag=True, help="Add to the log (and results) file where it exists."
    )(f)
    return click.option(
        "--force",
        is_flag=True,
        help="Overwrite the log (and results) file where it exists (never a file the command "
        "reads, such as the rule file).",
    )(f)
