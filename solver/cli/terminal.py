"""What the games in a terminal share (`zilch play`, `yahtzee play`): the person's typed
lines and the game's text (through `ask` and `say`, so a script can play), the game driven
on its step engine (match/) to its end, the log written as it goes."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

from ..errors import InputError
from ..match.session import Session, Step, faces_of_text, new_seed

__all__ = ["Quit", "Terminal", "drive", "faces_text", "new_seed", "open_log"]

faces_text = faces_of_text


class Quit(Exception):
    """The person left the game (quit, Ctrl-C, or the input ended)."""


@dataclass
class Terminal:
    ask: Callable[[str], str]
    say: Callable[[str], None]

    def line(self, prompt: str) -> str:
        """What the person typed (lower case); Quit on quit, Ctrl-C or at the end of the
        input."""
        try:
            text = self.ask(prompt).strip().lower()
        except (EOFError, KeyboardInterrupt):
            raise Quit from None
        if text in ("q", "quit", "exit"):
            raise Quit
        return text

    def dice(self, n: int, who: str = "your") -> list[int]:
        """The faces of n real dice, typed (asked until n come)."""
        while True:
            text = self.line(f"  {who} roll of {n} dice (e.g. {' '.join(['5'] * n)}) > ")
            try:
                faces = faces_text(text)
            except InputError as e:
                self.say(f"  {e}")
                continue
            if len(faces) == n:
                return faces
            self.say(f"  {n} dice were rolled, not {len(faces)}")

    def show(self, step: Step, hint: Callable[[dict[str, Any]], list[str]]) -> None:
        """A step's events: a new turn after a blank line, a hint as its table."""
        for e in step.events:
            if e["kind"] == "hint":
                for line in hint(e):
                    self.say(f"  {line}")
            elif e["kind"] in ("turn", "over", "left"):
                self.say(f"\n{e['text']}")
            elif e["kind"] == "start":
                self.say(e["text"])
            else:
                self.say(f"  {e['text']}")


def drive(
    session: Session,
    term: Terminal,
    choose: Callable[[Session], str | Mapping[str, Any]],
    hint: Callable[[dict[str, Any]], list[str]],
) -> bool:
    """The game played to its end: choose(session) gives the next action (asking the
    person); an action refused is said and asked again.  True where the game ended, False
    where the person left (quit, Ctrl-C, the end of the input: the game's state is then
    over, its decisions so far in the log)."""
    try:
        while session.state.phase != "over":
            try:
                step = session.apply(choose(session))
            except InputError as e:
                term.say(f"  {e}")
                continue
            term.show(step, hint)
    except (Quit, KeyboardInterrupt):
        if session.state.phase != "over":
            term.show(session.apply("quit"), hint)
            return False
    return not session.state.left


def play_logged(
    engine: Any,
    first: Step,
    seed: int,
    log: tuple[str, IO[str]],
    term: Terminal,
    choose: Callable[[Session, Terminal], str | Mapping[str, Any]],
    hint: Callable[[dict[str, Any]], list[str]],
) -> Any:
    """A game from its first step (`seed`'s) to its end or the person's leaving, written
    to `log` (open_log's path and file) as it goes; its last state."""
    path, out = log
    with out:
        session = Session(engine, first.state, out)
        term.say(f"game {seed} (replay it with --seed {seed}); the log goes to {path}")
        term.show(first, hint)
        if not drive(session, term, lambda s: choose(s, term), hint):
            term.say(f"the log is in {path}")
    return session.state


def open_log(
    path: str | None,
    game: str,
    force: bool = False,
    append: bool = False,
    reading: Sequence[object] = (),
) -> tuple[str, IO[str]]:
    """The log file, opened to write as the game goes (default: GAME-play-DATE-TIME.jsonl
    here, -2, -3, ... after it where that name is taken: two games started in the same
    second each get their own); a line is whole once flushed, so a log cut short still
    reads.  An existing file is refused unless force (overwrite) or append; never a file
    being read (files.new_file)."""
    from ..files import new_file

    if path is None:
        return _new_default_log(game)
    path = new_file(path, "log", force, append, reading)
    try:
        return path, open(path, "a" if append else "w", encoding="utf-8")
    except OSError as e:
        raise InputError(f"--log {path}: cannot write it ({e.strerror})") from None


def _new_default_log(game: str) -> tuple[str, IO[str]]:
    """A new log of its own in this folder: created exclusively ("x"), so a name another
    game took at the same moment is passed over, never shared."""
    import datetime

    stem = f"{game}-play-{datetime.datetime.now():%Y%m%d-%H%M%S}"
    for k in range(1, 1000):
        path = f"{stem}.jsonl" if k == 1 else f"{stem}-{k}.jsonl"
        try:
            return path, open(path, "x", encoding="utf-8")
        except FileExistsError:
            continue
        except OSError as e:
            raise InputError(f"--log {path}: cannot write it ({e.strerror})") from None
    raise InputError(f"--log: {stem}.jsonl and 998 more are taken here: give --log FILE")
