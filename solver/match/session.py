"""What both step engines share: the seeded dice, the typed actions, a step's answer, the
JSON of a state and a session that writes the decision log as the game goes."""

from __future__ import annotations

import contextlib
import dataclasses
import types
import typing
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any, Protocol, Self, TypeVar

from ..answers.answer import Answer
from ..errors import InputError

MAX_SEED = 2**63 - 1
MAX_NAME = 40


def roll_dice(seed: int, k: int, n: int) -> tuple[int, ...]:
    """The k-th roll (from 0) of the game seeded `seed`: n faces.  A roll depends on the
    seed and its number only, so a state carries two integers, not a generator's state."""
    import numpy as np

    if n == 0:
        return ()
    return tuple(int(x) for x in np.random.default_rng([seed, k]).integers(1, 7, n))


def new_seed(seed: int | None) -> int:
    """The game's seed (default: a new one, shown so that the game can be replayed)."""
    import secrets

    return secrets.randbits(32) if seed is None else check_seed(seed)


def check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise InputError(f"the seed is a whole number from 0 to {MAX_SEED}, got {seed!r}")
    return seed


def dice_text(faces: Sequence[int]) -> str:
    """Dice as a person writes them: 1 1 5 (nothing: "no dice")."""
    return " ".join(map(str, faces)) or "no dice"


def faces_of_text(text: str) -> list[int]:
    """Dice typed as 1 5, 1,5 or 15."""
    parts = text.replace(",", " ").split()
    if len(parts) == 1 and parts[0].isdigit() and len(parts[0]) > 1:
        parts = list(parts[0])
    try:
        faces = [int(p) for p in parts]
    except ValueError:
        raise InputError(f"dice are faces 1..6 such as 1 5, got {text!r}") from None
    if not faces or any(not 1 <= f <= 6 for f in faces):
        raise InputError(f"dice are faces 1..6 such as 1 5, got {text!r}")
    return faces


def dice_arg(v: Any, what: str = "dice", empty: bool = False) -> tuple[int, ...]:
    """Dice as an action gives them: a list of faces, or text ("1 5", "1,5", "15")."""
    if isinstance(v, str):
        if not v.strip() and empty:
            return ()
        return tuple(faces_of_text(v))
    if not isinstance(v, (list, tuple)) or any(
        isinstance(f, bool) or not isinstance(f, int) or not 1 <= f <= 6 for f in v
    ):
        raise InputError(f'{what} are faces 1..6 such as [1, 5] or "1 5", got {v!r}')
    if not v and not empty:
        raise InputError(f"{what}: no dice given")
    return tuple(v)


def typed_roll(dice_from: str, given: Any, n: int) -> tuple[int, ...] | None:
    """The faces a roll action gives, checked: None on seeded dice (the engine rolls: none
    may be given), else n faces."""
    if dice_from == "seed":
        if given is not None:
            raise InputError(
                "the engine rolls the dice in this game (the faces are given only in a game "
                "with the dice from input)"
            )
        return None
    if given is None:
        raise InputError(f"type the faces of the {n} dice rolled")
    faces = dice_arg(given, "the dice rolled")
    if len(faces) != n:
        raise InputError(f"{n} dice were rolled, not {len(faces)}")
    return faces


def among(faces: Sequence[int], hand: Sequence[int]) -> bool:
    return all(faces.count(f) <= hand.count(f) for f in set(faces))


def names_of(humans: Sequence[str], computers: int, most: int) -> list[tuple[str, bool]]:
    """The seats (name, computer) in turn order: the people, then the computers."""
    if isinstance(humans, str):
        humans = [humans]
    if isinstance(computers, bool) or not isinstance(computers, int) or computers < 0:
        raise InputError(f"computers: a count from 0, got {computers!r}")
    seats = [(str(h).strip(), False) for h in humans]
    seats += [(f"computer {i}", True) for i in range(1, computers + 1)]
    for name, _ in seats:
        if not name or len(name) > MAX_NAME or not name.isprintable():
            raise InputError(
                f"a player's name is 1 to {MAX_NAME} printable characters, got {name!r}"
            )
    names = [n.lower() for n, _ in seats]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InputError(f"two players are named {twice[0]!r}: each seat needs its own name")
    if not 1 <= len(seats) <= most:
        raise InputError(f"a game has 1 to {most} players, got {len(seats)}")
    return seats


def action_of(
    action: str | Mapping[str, Any], known: Mapping[str, tuple[str, ...]]
) -> tuple[str, dict[str, Any]]:
    """(name, arguments) of an action: its name ("bank"), or an object {"action": "keep",
    "dice": [1, 5]}; known: each action's argument names."""
    if isinstance(action, str):
        action = {"action": action}
    if not isinstance(action, Mapping):
        raise InputError(f"an action is a name or an object with 'action', got {action!r}")
    name = action.get("action")
    if not isinstance(name, str) or name not in known:
        raise InputError(f"unknown action {name!r}; actions: {', '.join(known)}")
    extra = [k for k in action if k != "action" and k not in known[name]]
    if extra:
        allowed = ", ".join(repr(k) for k in known[name]) or "none"
        raise InputError(f"{name}: unknown argument {extra[0]!r} (arguments: {allowed})")
    return name, {k: v for k, v in action.items() if k != "action"}


# --- a step: the new state, what happened, what to show -----------------------------------
@dataclass(frozen=True)
class Step(Answer):
    """What a transition returns: the new state, the events it made (each a dict with a
    "kind" and a "text" to show), the new decision-log lines, and the view of the new state
    (whose turn, dice, scores, allowed actions: what a page renders)."""

    state: Any
    events: tuple[dict, ...]
    log: tuple[dict, ...]
    view: dict

    def to_dict(self) -> dict[str, Any]:
        return {
            "state": self.state.to_json(),
            "events": [dict(e) for e in self.events],
            "log": [dict(x) for x in self.log],
            "view": self.view,
        }

    @property
    def texts(self) -> list[str]:
        return [e["text"] for e in self.events]


class Checked(Protocol):
    """An engine that says whether a state is its own and which actions it allows there."""

    def allowed(self, s: Any) -> list[str]: ...

    def _check(self, s: Any) -> None: ...

    def _refusal(self, s: Any, name: str) -> str: ...


def opened(
    engine: Checked, s: Any, action: str | Mapping[str, Any], known: Mapping[str, tuple[str, ...]]
) -> tuple[str, dict[str, Any]]:
    """What every engine's apply opens with: the action's (name, arguments), once the state
    is the engine's own and the action allowed in it (InputError otherwise)."""
    name, args = action_of(action, known)
    engine._check(s)
    if name not in engine.allowed(s):
        raise InputError(engine._refusal(s, name))
    return name, args


def event(kind: str, text: str, **fields: Any) -> dict[str, Any]:
    return {"kind": kind, **fields, "text": text}


# --- a state to JSON and back ----------------------------------------------------------
S = TypeVar("S")


def state_json(state: Any) -> dict[str, Any]:
    """A state's JSON object: its fields (tuples as lists, nested states as objects)."""
    out = {}
    for f in dataclasses.fields(state):
        out[f.name] = _plain(getattr(state, f.name))
    return out


class JsonState:
    """A frozen state that reads and writes its JSON object (state_json, state_of)."""

    what = "state"  # (its name in the errors)

    def to_json(self) -> dict[str, Any]:
        return state_json(self)

    @classmethod
    def from_json(cls, data: Any) -> Self:
        return state_of(cls, data, cls.what)


def _plain(v: Any) -> Any:
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return state_json(v)
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


def state_of(cls: type[S], data: Any, what: str = "state") -> S:
    """The state of a JSON object (state_json's), every field checked for its type;
    InputError naming the field where one is missing, unknown or of the wrong type."""
    if not isinstance(data, Mapping):
        raise InputError(f"a {what} is a JSON object, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    extra = [k for k in data if k not in names]
    if extra:
        raise InputError(f"{what}: unknown field {extra[0]!r}")
    got = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise InputError(f"{what}: the field {f.name!r} is missing")
            continue
        got[f.name] = _typed(hints[f.name], data[f.name], f"{what}.{f.name}")
    return cls(**got)


def _typed(hint: Any, v: Any, where: str) -> Any:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if v is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _typed(inner, v, where)
    if origin is tuple:
        if not isinstance(v, (list, tuple)):
            raise InputError(f"{where} must be a list, got {v!r}")
        return tuple(_typed(args[0], x, f"{where}[{i}]") for i, x in enumerate(v))
    if dataclasses.is_dataclass(hint):
        return state_of(hint, v, where)  # type: ignore[arg-type]
    return _scalar(hint, v, where)


def _scalar(hint: Any, v: Any, where: str) -> Any:
    """A JSON value of a plain field type (an object, true or false, a whole number, text),
    checked."""
    if hint is dict:
        if not isinstance(v, dict):
            raise InputError(f"{where} must be an object, got {v!r}")
        return dict(v)
    if hint is bool:
        if not isinstance(v, bool):
            raise InputError(f"{where} must be true or false, got {v!r}")
        return v
    if hint is int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise InputError(f"{where} must be a whole number, got {v!r}")
        return v
    if hint is str:
        if not isinstance(v, str):
            raise InputError(f"{where} must be text, got {v!r}")
        return v
    raise AssertionError(f"{where}: no JSON reading for {hint}")  # (a field type to add here)


# --- a session: a state kept, its log written as it goes --------------------------------
class Engine(Protocol):
    """What a session drives: a step engine (ZilchMatch, YahtzeeMatch) and its state."""

    def apply(self, s: Any, action: str | Mapping[str, Any]) -> Step: ...

    def view(self, s: Any) -> dict[str, Any]: ...


class Session:
    """One game held between requests (the web) or typed lines (the terminal): the engine,
    the current state, and the log file each step's decision lines go to (flushed line by
    line, so a game cut short leaves a log that reads)."""

    def __init__(self, engine: Engine, state: Any, log: IO[str] | None = None) -> None:
        self.engine = engine
        self.state = state
        self.out = log
        if log is not None:
            for line in state.log:  # (a session resumed from a state: its log so far)
                self._write(line)

    def apply(self, action: str | Mapping[str, Any]) -> Step:
        step = self.engine.apply(self.state, action)
        self.state = step.state
        for line in step.log:
            self._write(line)
        return step

    def _write(self, line: dict[str, Any]) -> None:
        from ..play.log import line_text

        if self.out is not None:
            self.out.write(line_text(line))
            self.out.flush()

    @property
    def view(self) -> dict[str, Any]:
        return self.engine.view(self.state)


@contextlib.contextmanager
def temporary_log(lines: Sequence[dict[str, Any]]) -> Iterator[str]:
    """The path of a temporary file holding the log lines, removed after (the review reads
    a file)."""
    import os
    import tempfile

    from ..play.log import line_text

    fd, path = tempfile.mkstemp(suffix=".jsonl", prefix="dicesolver-log-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.writelines(line_text(x) for x in lines)
        yield path
    finally:
        os.unlink(path)


def log_text(lines: Sequence[dict[str, Any]]) -> str:
    """The decision log as its file holds it (play/log.py): one JSON object per line."""
    from ..play.log import line_text

    return "".join(line_text(x) for x in lines)
