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

Every line may carry "player", "game" and "n" (who, which game, which turn: kept in the
review's items) and keys starting with "_" (ignored).  Anything else is refused with its
line number: a misspelt key would otherwise be a silently wrong review.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from ..errors import InputError
from ..files import open_binary

NOTES = ("player", "game", "n")
ZILCH_KEYS = {
    "rules",
    "dice",
    "turn",
    "permanent",
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
YAHTZEE_KEYS |= set(NOTES)
MAX_LINES = 10_000_000


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
            raise self.fail(f"'{key}' must be a whole number, got {v!r}")
        if v < low:
            raise self.fail(f"'{key}' must be at least {low}, got {v}")
        return v

    def flag(self, key: str, default: bool = False) -> bool:
        v = self.fields.get(key, default)
        if not isinstance(v, bool):
            raise self.fail(f"'{key}' must be true or false, got {v!r}")
        return v

    def faces(self, key: str, empty: bool = False) -> list[int]:
        v = self.fields.get(key)
        if v is None:
            raise self.fail(f"'{key}' is missing")
        if not isinstance(v, list) or any(
            isinstance(f, bool) or not isinstance(f, int) or not 1 <= f <= 6 for f in v
        ):
            raise self.fail(f"'{key}' must be a list of die faces 1..6, got {v!r}")
        if not v and not empty:
            raise self.fail(f"'{key}' is empty")
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
            raise self.fail(f"'{key}' must be a list of whole numbers, got {v!r}")
        return list(v)

    def choice(self, key: str, allowed: tuple[str, ...]) -> str:
        v = self.fields.get(key)
        if v not in allowed:
            raise self.fail(f"'{key}' must be one of {', '.join(map(repr, allowed))}, got {v!r}")
        return str(v)

    @property
    def notes(self) -> dict[str, Any]:
        return {k: self.fields[k] for k in NOTES if k in self.fields}


@contextlib.contextmanager
def at_line(line: Line) -> Iterator[None]:
    """An InputError raised inside names the line (once)."""
    try:
        yield
    except InputError as e:
        msg = str(e)
        raise InputError(msg if msg.startswith("line ") else f"line {line.number}: {msg}") from None


def read_log(path: str, keys: set[str], what: str = "log") -> Iterator[Line]:
    """The log's lines (blank lines skipped), each a JSON object with only known keys;
    anything else one InputError naming the file and the line."""
    with open_binary(path, what) as f:
        yield from _lines(f, path, keys, what)


def _lines(f: IO[bytes], path: str, keys: set[str], what: str) -> Iterator[Line]:
    seen = False
    for number, raw in enumerate(f, 1):
        if number > MAX_LINES:
            raise InputError(f"{what} {path}: more than {MAX_LINES} lines")
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise InputError(f"{what} {path}, line {number}: not UTF-8 text") from None
        if not text:
            continue
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as e:
            raise InputError(f"{what} {path}, line {number}: not valid JSON ({e})") from None
        if not isinstance(data, dict):
            raise InputError(f"{what} {path}, line {number}: expected a JSON object")
        bad = [k for k in data if k not in keys and not k.startswith("_")]
        null = [k for k, v in data.items() if v is None and not k.startswith("_")]
        if null:
            raise InputError(f"{what} {path}, line {number}: {null[0]!r} is null (leave it out)")
        if bad:
            raise InputError(
                f"{what} {path}, line {number}: unknown key {bad[0]!r} (docs/review.md)"
            )
        seen = True
        yield Line(number, data)
    if not seen:
        raise InputError(f"{what} {path}: no decisions in it")


def line_text(record: dict[str, Any]) -> str:
    """One log line (compact JSON, keys in the order given)."""
    return json.dumps(record, separators=(", ", ": ")) + "\n"


# --- writing a log of simulated turns ---------------------------------------------------
class TurnRecorder:
    """Collects the rolls of a batch of simulated turns (play_turns(record=...)) and gives
    them as log lines, turn after turn; `fields`: what every line carries besides (rules,
    on_board, zilches, beat)."""

    def __init__(self, model, fields: dict[str, Any], first: int = 1) -> None:
        self.model = model
        self.fields = fields
        self.first = first  # the number ("n") of the batch's first turn
        self.steps: list = []

    def __call__(self, step) -> None:
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


def _kept_faces(rules, faces: tuple[int, ...], matched: bool, key: tuple[int, ...]) -> list[int]:
    """The dice set aside by the model's choice (dice left, points, permanent points) in a
    roll of these faces: the rules' own choice with that key."""
    from ..outcomes.frozen import faces_of

    for c in _choices(rules, faces, matched):
        if (c.left, c.points, c.permanent) == key:
            return faces_of(c.kept)
    raise AssertionError(f"no choice {key} in the roll {faces}")  # (the model is the rules')


@functools.lru_cache(maxsize=1 << 16)
def _choices(rules, faces: tuple[int, ...], matched: bool):
    from ..outcomes.scoring import parse_roll, score_outcome

    return score_outcome(rules, parse_roll(rules, list(faces), matched)).choices
