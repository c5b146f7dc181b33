"""What every answer shares: a frozen dataclass whose to_dict() is exactly the command's
JSON, the inputs as the command line and the Python API both give them, and progress."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError, TableMissing
from ..progress import SILENT, Progress
from ..rules import RuleSet, load
from ..store import Store
from ..tables import Tables
from ..turn.state import TurnState

if TYPE_CHECKING:
    from fractions import Fraction

Rules = str | RuleSet
Tables_ = str | Store | None


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
        return _fields(self)

    def to_json(self) -> Any:
        """The JSON value of the answer (to_dict(); a listing is a list)."""
        return self.to_dict()


def plain(v: Any) -> Any:
    """Answers' values as JSON values: nested answers, sequences, mappings, exact
    fractions as "n/d" (a whole number as itself), numpy scalars as Python's."""
    if isinstance(v, Answer):
        return v.to_dict()
    if is_dataclass(v) and not isinstance(v, type):
        return _fields(v)
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


def _fields(obj: Any) -> dict:
    out = {}
    for f in fields(obj):
        v = getattr(obj, f.name)
        if f.metadata.get("hidden") or (v is None and f.metadata.get("omit_none")):
            continue
        out[f.name] = plain(v)
    return out


def new_file(
    path: str,
    what: str = "--log",
    force: bool = False,
    append: bool = False,
    reading: Sequence[object] = (),
) -> str:
    """A log or a results file a command writes (out_path's checks first), refused where it
    exists unless asked: force (--force) overwrites it, append (--append) adds to it; never
    a file the command reads (`reading`: the rule file, the policy file), not even with
    --force.  A device or a pipe (/dev/null) holds nothing to lose: written to."""
    import stat

    if force and append:
        raise InputError("--force overwrites, --append adds: give one of them")
    path = out_path(path, what=what)
    try:
        st = os.stat(path)
    except OSError:
        return path  # (a new file)
    for other in reading:
        if isinstance(other, str | os.PathLike) and _same_file(path, other):
            raise InputError(
                f"{what} {path} is the file this command reads ({other}): give another file"
            )
    if stat.S_ISREG(st.st_mode) and not (force or append):
        raise InputError(
            f"{what} {path} exists: give --force to overwrite it or --append to add to it"
        )
    return path


def _same_file(a: str, b: str | os.PathLike) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def zilches_of(rules: RuleSet, zilches: int, what: str = "--zilches") -> int:
    """--zilches (or --opp-zilches): zilches in a row before the turn (0, 1 or 2), where the
    rules charge a penalty for the third (elsewhere the count changes nothing: only 0)."""
    if isinstance(zilches, bool) or not isinstance(zilches, (int, np.integer)):
        raise InputError(f"{what} must be 0, 1 or 2, got {zilches!r}")
    if not 0 <= zilches <= 2:
        raise InputError(
            f"{what} is the count of zilches in a row before the turn: 0, 1 or 2 (the "
            f"third costs the penalty and starts the count again), got {zilches}"
        )
    if zilches and not rules.three_zilch_penalty:
        raise InputError(
            f"{what} {zilches}: {rules.name} has no penalty for three zilches in a row "
            "(three_zilch_penalty), so the count changes nothing"
        )
    return int(zilches)


def refuse_pyramiding(rules: RuleSet, what: str) -> None:
    """InputError where a question does not carry the frozen groups of pyramiding: it
    refuses, rather than answer without them."""
    if rules.pyramiding:
        raise InputError(
            f"{what} does not support pyramiding ({rules.name}): its figures go by dice "
            "left, blind to the frozen dice (advise and endgame take them with --frozen)"
        )


def refuse_challenge(rules: RuleSet, what: str) -> None:
    """InputError where a question's last turns do not carry the challenge rule's choice
    (a last player with a challenge left may take it): it refuses rather than answer
    without it."""
    if rules.challenge:
        raise InputError(
            f"{what} does not support the challenge rule ({rules.name}): a last turn depends "
            "on the challenge left (endgame --deficit [--challenging] and advise with scores "
            "give it)"
        )


def fraction_text(p: Fraction) -> str:
    """An exact probability as "n/d" ("0" and "1" where it is whole)."""
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


# --- inputs, as the command line gives them (text) or the API (numbers, lists) -----------
def rule_set(rules: str | RuleSet) -> RuleSet:
    return rules if isinstance(rules, RuleSet) else load(rules)


def tables_of(rules: RuleSet, tables: str | Store | None) -> Tables:
    """The stored tables of `rules` in the folder `tables` (--tables), else the default."""
    store = tables if isinstance(tables, Store) else Store.resolve(tables)
    return Tables(rules, store)


def turn_state(
    rs: RuleSet,
    dice: int | None,
    turn: int,
    permanent: int,
    frozen: str | Sequence[int] | None = None,
) -> TurnState:
    """The state as the options give it (dice: all where not given; frozen: the dice
    frozen since the last pick-up, under pyramiding)."""
    if frozen is None or (isinstance(frozen, str) and not frozen.strip()):
        counts: tuple[int, ...] = ()
    else:
        from ..outcomes.frozen import check_frozen, parse_frozen

        counts = parse_frozen(dice_list(frozen, "--frozen"))
        check_frozen(rs, counts, rs.dice if dice is None else dice)
    return TurnState(rs.dice if dice is None else dice, turn, permanent, counts)


def int_list(value: str | Sequence[int], what: str) -> list[int]:
    """Comma-separated integers (or a sequence of them)."""
    vals = _ints(value, what, f"{what} expects comma-separated integers")
    if not vals:
        raise InputError(f"{what}: no values given")
    return vals


def dice_list(value: str | Sequence[int], what: str) -> list[int]:
    """Die faces such as 1,1,5,3,4,6 (or a sequence of them)."""
    faces = _ints(value, what, f"{what} must be comma-separated die faces such as 1,1,5,3,4,6")
    bad = [f for f in faces if not 1 <= f <= 6]
    if bad:
        raise InputError(f"{what}: a die shows 1..6, got {bad[0]}")
    if not faces:
        raise InputError(f"{what}: no dice given")
    return faces


def _ints(value: str | Sequence[int], what: str, expects: str) -> list[int]:
    """The integers of a comma-separated option: spaces around a value are allowed, inside
    one refused ("10000 9000" is not 100009000); a trailing comma is harmless."""
    if not isinstance(value, str):
        return [_int(x, what) for x in value]
    fields = [x.strip() for x in value.split(",")]
    if fields and not fields[-1]:
        fields.pop()
    if "" in fields:
        raise InputError(f"{what} has an empty value: {value!r}")
    try:
        return [int(x) for x in fields]
    except ValueError:
        raise InputError(f"{expects}, got {value!r}") from None


def _int(x: Any, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        raise InputError(f"{what}: expected whole numbers, got {x!r}")
    return int(x)


def sample_moments(values: Sequence[int], counts: Sequence[int]) -> tuple[float, float, float]:
    """Mean, standard deviation and standard error of the mean of a sample given as a
    histogram (each value and how often it came), its sums exact in integers."""
    n = sum(counts)
    mean = sum(v * c for v, c in zip(values, counts)) / n
    var = max(sum(v * v * c for v, c in zip(values, counts)) / n - mean * mean, 0.0)
    se = math.sqrt(var * n / (n - 1) / n) if n > 1 else 0.0
    return mean, math.sqrt(var), se


def out_path(path: str, suffix: str | None = None, what: str = "--out") -> str:
    """An output file, checked before any long work: its folder exists and it is not a
    folder itself.  suffix: added where the name has none (what the writer would do)."""
    from pathlib import Path

    if not path or path.endswith(("/", os.sep)) or Path(path).is_dir():
        raise InputError(f"{what} {path!r}: a file name is needed (not a folder)")
    p = Path(path)
    if suffix and not p.suffix:
        p = p.with_name(p.name + suffix)
    if p.is_dir():
        raise InputError(f"{what} {path}: is a folder; give a file name")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(f"{what} {path}: the folder {parent} does not exist")
    if not p.exists() and not os.access(parent, os.W_OK):
        raise InputError(f"{what} {path}: the folder {parent} cannot be written to")
    return str(p)


# --- stored games: a query reads them, never solves them (unless asked to) ----------------
def stored_game(tab: Tables, players: int = 2, lowest: int | None = None) -> tuple[Any, Any]:
    """(the variant, its stored table) of the game among `players` under tab.rules (at
    their target); TableMissing where nobody solved it, with the command that does."""
    from dataclasses import replace

    from .. import variants

    v = variants.of(replace(tab.rules, beat=0), players)
    key = v.key(players, lowest)
    g = tab.game_table(key)
    if g is None:
        raise missing(tab, v, key)
    return v, g


def missing(tab: Tables, v: Any, key: Any) -> TableMissing:
    """The TableMissing of a game table: its command, its API call and its build."""
    e = TableMissing(v.describe(key), "game", v.solve_with(key))
    e.build = lambda progress=None, **run: tab.game_table(key, progress or SILENT, True, **run)
    return e


def solving(solve: bool, progress: Progress, ask: Callable[[], Any]) -> Any:
    """ask(), and where it needs a table nobody solved and `solve` is set: build the table
    first (estimated, with progress), then ask again."""
    try:
        return ask()
    except TableMissing as e:
        build = getattr(e, "build", None)
        if not solve or build is None:
            raise
        progress.note(f"{e.what} is not stored: solving it first (--solve)")
        build(progress)
        return ask()
