"""The decision log: one JSON object per line, one line per decision (docs/review.md).

Zilch family (`zilch review`; written by `zilch play` and `zilch simulate --log`):

    {"rules": "farkle", "dice": 6, "turn": 0, "roll": [1,1,5,3,4,6], "keep": [1], "then": "roll"}

  dice: dice rolled; turn: the turn total before the roll (its permanent part included);
  roll: the faces;
  keep: the dice set aside from this roll; then: "roll" or "bank" after setting them aside
  ("zilch": the roll scored nothing, not a decision).  Optional: permanent (points kept
  even after a zilch), matched (zonk-detroit's three colour pairs), on_board, zilches (in
  a row before the turn), beat (overtaking), score and opponents (the game: values by the
  probability of winning).  A piggyback offer is a line of its own: {"take_over": [3, 450],
  "then": "take" or "fresh"}.

Yahtzee family (`yahtzee review`, written by `yahtzee play`):

    {"rules": "yahtzee", "dice": [2,2,2,5,5], "rolls_left": 2, "keep": [2,2,2]}
    {"rules": "yahtzee", "dice": [2,2,2,5,5], "rolls_left": 0, "filled": ["ones"],
     "box": "fullhouse"}

  filled, upper and yahtzee_bonus: the sheet before the turn (default: empty).
  score and opponents (`yahtzee play --players N`): the points on the sheet and the other
  seats' sheets as `--opponents` reads them ("236", "new", "80 f=ones,chance u=3 y"): the
  review is then by P(win).

Every line may carry "player", "game" and "n" (who, which game, which turn: kept in the
review's items) and keys starting with "_" (ignored).  Anything else is refused with its
line number: a misspelt key would otherwise be a silently wrong review.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, NoReturn

from ..errors import InputError
from ..files import open_binary

if TYPE_CHECKING:
    from ..outcomes.model import TurnModel
    from ..outcomes.scoring import Choice
    from ..rules import RuleSet
    from .simulate import Step

NOTES = ("player", "game", "n")
ZILCH_KEYS = {
    "rules",
    "dice",
    "turn",
    "permanent",
    "frozen",
    "roll",
    "matched",
    "keep",
    "then",
    "on_board",
    "zilches",
    "opp_zilches",
    "beat",
    "target",
    "score",
    "opponents",
    "take_over",
    *NOTES,
}
YAHTZEE_KEYS = {"rules", "dice", "rolls_left", "filled", "upper", "yahtzee_bonus", "keep", "box"}
YAHTZEE_KEYS |= {"score", "opponents"}  # (a game of several seats: yahtzee play --players)
YAHTZEE_KEYS |= set(NOTES)
MAX_LINES = 10_000_000
# What a line may hold (beyond: refused, with the line and the key): no value of a log is
# longer, larger or deeper than this; a quoted value is cut to SHOWN characters.
MAX_LINE_BYTES = 1 << 24  # (a line is read whole: 16 MB at most)
MAX_TEXT = 4096  # characters of a string (a rule file's path)
MAX_LIST = 64  # items of a list (dice, scores, box names)
MAX_NUMBER = 10**15  # a whole number's size
MAX_NOTE = 200  # characters of a note (player, game, n)
SHOWN = 60


def shown(v: Any) -> str:
    """A value quoted in an error: its repr, every character printable in any encoding
    (a lone surrogate escaped), cut to a readable length with its full size."""
    text = ascii(v)
    if len(text) <= SHOWN:
        return text
    if isinstance(v, list | dict):
        size = f"{len(v)} items"
    else:
        size = f"{len(v) if isinstance(v, str) else len(text)} characters"
    return f"{text[:SHOWN]}... ({size})"


@dataclass(frozen=True)
class Line:
    """One decision of the log: its number (from 1) and its fields, checked for type."""

    number: int
    fields: dict[str, Any]

    def fail(self, what: str) -> InputError:
        return InputError(f"line {self.number}: {what}")

    def get(self, key: str, default: Any = None) -> Any:
        return self.fields.get(key, default)

    def whole(self, key: str, default: int | None = None, low: int = 0) -> int:
        v = self.fields.get(key, default)
        if v is None:
            raise self.fail(f"'{key}' is missing")
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(f"'{key}' must be a whole number, got {shown(v)}")
        if v < low:
            raise self.fail(f"'{key}' must be at least {low}, got {v}")
        return v

    def flag(self, key: str, default: bool = False) -> bool:
        v = self.fields.get(key, default)
        if not isinstance(v, bool):
            raise self.fail(f"'{key}' must be true or false, got {shown(v)}")
        return v

    def faces(self, key: str, empty: bool = False, most: int | None = None) -> list[int]:
        """A list of die faces; `most`: at most this many (the dice rolled)."""
        v = self.fields.get(key)
        if v is None:
            raise self.fail(f"'{key}' is missing")
        if not isinstance(v, list) or any(
            isinstance(f, bool) or not isinstance(f, int) or not 1 <= f <= 6 for f in v
        ):
            raise self.fail(f"'{key}' must be a list of die faces 1..6, got {shown(v)}")
        if not v and not empty:
            raise self.fail(f"'{key}' is empty")
        if most is not None and len(v) > most:
            raise self.fail(f"'{key}' has {len(v)} dice, more than the {most} rolled")
        return list(v)

    def ints(self, key: str) -> list[int] | None:
        v = self.fields.get(key)
        if v is None:
            return None
        if (
            not isinstance(v, list)
            or not v
            or any(isinstance(x, bool) or not isinstance(x, int) for x in v)
        ):
            raise self.fail(f"'{key}' must be a list of whole numbers, got {shown(v)}")
        return list(v)

    def choice(self, key: str, allowed: tuple[str, ...]) -> str:
        v = self.fields.get(key)
        if v not in allowed:
            raise self.fail(
                f"'{key}' must be one of {', '.join(map(repr, allowed))}, got {shown(v)}"
            )
        return str(v)

    def only(self, keys: set[str], what: str) -> None:
        """InputError for a key (but the notes) outside `keys`: it would be ignored."""
        for k in self.fields:
            if k not in keys and k not in NOTES and not k.startswith("_"):
                raise self.fail(f"'{k}' has no place in {what}")

    @property
    def notes(self) -> dict[str, Any]:
        return {k: self.fields[k] for k in NOTES if k in self.fields}

    def key(self, unordered: tuple[str, ...] = ()) -> str:
        """The decision itself: every field but the notes, the lists `unordered` names
        sorted (dice in any order are the same dice): two lines of one key are the same
        decision, reviewed once."""
        d = {k: v for k, v in self.fields.items() if k not in NOTES and not k.startswith("_")}
        for k in unordered:
            v = d.get(k)
            if isinstance(v, list):
                with contextlib.suppress(TypeError):  # (mixed types: refused later anyway)
                    d[k] = sorted(v)
        return json.dumps(d, sort_keys=True)


@contextlib.contextmanager
def at_line(line: Line, log: str | None = None) -> Iterator[None]:
    """An InputError raised inside names the line (once), and the log where given (as the
    reader's own errors do)."""
    try:
        yield
    except InputError as e:
        msg = str(e)
        own = f"line {line.number}: "
        msg = msg[len(own) :] if msg.startswith(own) else msg
        where = f"log {log}, {own}" if log is not None else own
        raise InputError(where + msg) from None


def read_log(path: str, keys: set[str], what: str = "log") -> Iterator[Line]:
    """The log's lines (blank lines skipped), read one at a time, each a JSON object with
    only known keys and values a log can hold; anything else one InputError naming the file,
    the line and the key."""
    with open_binary(path, what) as f:
        yield from _lines(f, path, keys, what)


def count_lines(path: str, what: str = "log") -> int:
    """The log's lines (for progress: counted in blocks, nothing parsed)."""
    n, last = 0, b"\n"
    with open_binary(path, what) as f:
        while block := f.read(1 << 20):
            n += block.count(b"\n")
            last = block[-1:]
    return n + (last != b"\n")


def _lines(f: IO[bytes], path: str, keys: set[str], what: str) -> Iterator[Line]:
    seen = False
    number = 0
    while raw := f.readline(MAX_LINE_BYTES + 1):
        number += 1
        if number > MAX_LINES:
            raise InputError(f"{what} {path}: more than {MAX_LINES} lines")
        data = _parsed(raw, f"{what} {path}, line {number}", keys)
        if data is not None:
            seen = True
            yield Line(number, data)
    if not seen:
        raise InputError(f"{what} {path}: no decisions in it")


def _parsed(raw: bytes, where: str, keys: set[str]) -> dict[str, Any] | None:
    """One line read: its JSON object, each value fit for a log (None: a blank line)."""
    if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
        raise InputError(f"{where}: longer than {MAX_LINE_BYTES} bytes (no log line is)")
    try:
        text = raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise InputError(f"{where}: not UTF-8 text") from None
    if not text:
        return None
    try:
        data = json.loads(
            text, object_pairs_hook=_object, parse_constant=_not_a_number, parse_float=_finite
        )
    except _Refused as e:
        raise InputError(f"{where}: {e}") from None
    except (ValueError, RecursionError) as e:
        raise InputError(f"{where}: not valid JSON ({shown(str(e))})") from None
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected a JSON object")
    for k, v in data.items():
        if k.startswith("_"):
            continue
        if v is None:
            raise InputError(f"{where}: {shown(k)} is null (leave it out)")
        if k not in keys:
            raise InputError(f"{where}: unknown key {shown(k)} (docs/review.md)")
        problem = _unfit(k, v)
        if problem:
            raise InputError(f"{where}: '{k}' {problem}")
    return data


class _Refused(ValueError):
    """JSON that a log line may not hold (a duplicate key, NaN, a number beyond floats)."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d: dict[str, Any] = {}
    for k, v in pairs:
        if k in d:
            raise _Refused(f"the key {shown(k)} is given twice")
        d[k] = v
    return d


def _not_a_number(name: str) -> NoReturn:
    raise _Refused(f"{name} is not a number JSON allows")


def _finite(text: str) -> float:
    v = float(text)
    if not math.isfinite(v):
        raise _Refused(f"the number {shown(text)} is beyond any float")
    return v


def _unfit(key: str, v: Any) -> str | None:
    """Why a value cannot be a log's (too long, too large, nested, not text), else None."""
    if type(v) is int:  # (the common cases first: a number, a list of small numbers)
        return None if -MAX_NUMBER <= v <= MAX_NUMBER else f"is {shown(v)}: beyond any game"
    if (
        type(v) is list
        and len(v) <= MAX_LIST
        and all(type(x) is int and 0 <= x < 1 << 20 for x in v)
    ):
        return None if key not in NOTES else f"must be a name or a number, got {shown(v)}"
    if key in NOTES and (isinstance(v, bool) or not isinstance(v, str | int)):
        return f"must be a name or a number, got {shown(v)}"
    if isinstance(v, dict):
        return f"must not be an object, got {shown(v)}"
    if isinstance(v, list):
        if len(v) > MAX_LIST:
            return f"has {len(v)} items: more than any line holds ({MAX_LIST})"
        if any(isinstance(x, list | dict) for x in v):
            return f"must be a flat list, got {shown(v)}"
        return next((p for p in map(lambda x: _unfit(key, x), v) if p), None)
    return _unfit_text(key, v) if isinstance(v, str) else None


def _unfit_text(key: str, v: str) -> str | None:
    if len(v) > (MAX_NOTE if key in NOTES else MAX_TEXT):
        return f"is {len(v)} characters long: more than any line holds"
    if not v.isascii():
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            return f"is not text (a lone surrogate): {shown(v)}"
    return None


def line_text(record: dict[str, Any]) -> str:
    """One log line (compact JSON, keys in the order given)."""
    return json.dumps(record, separators=(", ", ": ")) + "\n"


# --- writing a log of simulated turns ---------------------------------------------------
class TurnRecorder:
    """Collects the rolls of a batch of simulated turns (play_turns(record=...)) and gives
    them as log lines, turn after turn; `fields`: what every line carries besides (rules,
    on_board, zilches, beat)."""

    def __init__(self, model: TurnModel, fields: dict[str, Any], first: int = 1) -> None:
        self.model = model
        self.fields = fields
        self.first = first  # the number ("n") of the batch's first turn
        self.steps: list[Step] = []

    def __call__(self, step: Step) -> None:
        self.steps.append(step)

    def lines(self) -> Iterator[str]:
        import numpy as np

        if not self.steps:
            return
        cat = {k: np.concatenate([getattr(st, k) for st in self.steps]) for k in _STEP}
        order = np.argsort(cat["turns"], kind="stable")  # (rolls of a turn stay in order)
        m, u = self.model, self.model.rules.unit
        for i in order.tolist():
            n = int(cat["dice"][i])
            faces = [int(f) + 1 for f in cat["faces"][i, :n]]
            rec: dict[str, Any] = dict(self.fields)
            rec.update(
                dice=n, turn=int(cat["r"][i] + cat["p"][i]) * u
            )  # (the total: at risk + permanent)
            if cat["p"][i]:
                rec["permanent"] = int(cat["p"][i]) * u
            rec["roll"] = faces
            if cat["matched"][i]:
                rec["matched"] = True
            c = int(cat["choice"][i])
            if c < 0:
                rec["then"] = "zilch"
            else:
                key = (int(m.left[c]), int(m.points[c]) * u, int(m.perm[c]) * u)
                roll = tuple(sorted(faces))
                rec["keep"] = _kept_faces(m.rules, roll, bool(rec.get("matched")), key)
                rec["then"] = "bank" if cat["bank"][i] else "roll"
            rec["n"] = self.first + int(cat["turns"][i])
            yield line_text(rec)


_STEP = ("turns", "r", "p", "dice", "faces", "matched", "choice", "bank")


def _kept_faces(
    rules: RuleSet, faces: tuple[int, ...], matched: bool, key: tuple[int, ...]
) -> list[int]:
    """The dice set aside by the model's choice (dice left, points, permanent points) in a
    roll of these faces: the rules' own choice with that key."""
    from ..outcomes.frozen import faces_of

    for c in _choices(rules, faces, matched):
        if (c.left, c.points, c.permanent) == key:
            return faces_of(c.kept)
    raise AssertionError(f"no choice {key} in the roll {faces}")  # (the model is the rules')


@functools.lru_cache(maxsize=1 << 16)
def _choices(rules: RuleSet, faces: tuple[int, ...], matched: bool) -> tuple[Choice, ...]:
    from ..outcomes.scoring import parse_roll, score_outcome

    return score_outcome(rules, parse_roll(rules, list(faces), matched)).choices
