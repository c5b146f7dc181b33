"""Rule sets of the Zilch family as frozen, validated data loaded from TOML.

A rule set file names the dice, the points of groups of equal faces, whole-roll patterns,
minimums, the set-aside and hot-dice rules and the end of the game.  The built-in presets are
such files (``solver/rulesets/*.toml``); a user's file works wherever a preset name does.
"""

from __future__ import annotations

import hashlib
import json
import math
import numbers
import tomllib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn

from .errors import InputError
from .files import read_text
from .lazy import lazy
from .limits import MAX_POINTS, MAX_UNITS, check_points

FACES = 6
PATTERN_KINDS = (
    "straight",
    "three_pairs",
    "four_kind_pair",
    "two_triplets",
    "colour_pairs",
    "no_score",
)
# Count signatures (sorted counts of the faces shown) of the six-dice patterns.  With
# distinct = false, "three pairs" also reads 4+2 and 6 as pairs and "two triplets" reads 6.
_SIGNATURES: dict[str, tuple[set[tuple[int, ...]], set[tuple[int, ...]]]] = {
    "three_pairs": ({(2, 2, 2)}, {(2, 4), (6,)}),
    "four_kind_pair": ({(2, 4)}, set()),
    "two_triplets": ({(3, 3)}, {(6,)}),
}


@dataclass(frozen=True)
class Pattern:
    kind: str
    points: int
    faces: tuple[int, ...] = ()  # straights: the faces it needs
    permanent: bool = False  # points kept even if the turn ends in a zilch
    distinct: bool = False  # three_pairs / two_triplets: faces must differ

    @property
    def size(self) -> int:
        return len(self.faces) if self.kind == "straight" else 6

    def signatures(self) -> set[tuple[int, ...]]:
        strict, loose = _SIGNATURES[self.kind]
        return set(strict) if self.distinct else set(strict) | set(loose)


@dataclass(frozen=True)
class RuleSet:
    name: str
    description: str
    dice: int
    # faces[f-1][k-1]: points of one group of exactly k dice showing face f (0: not a group).
    faces: tuple[tuple[int, ...], ...]
    patterns: tuple[Pattern, ...]
    set_aside: str = "forced"  # "forced": every scoring die frozen; "any": free choice
    hot_dice: str = "optional"  # "mandatory": all dice scored -> must roll them again
    entry_minimum: int = 0  # first bank of the game
    bank_minimum: int = 0  # every later bank
    target: int | None = None
    end: str = "final_round"  # "final_round": others get one last turn; "instant"
    reach: str = "at_least"  # "at_least" or "more_than" the target ends the game
    tie: float = 0.5  # a tie's worth as a fraction of a win
    piggyback: bool = False  # Zonk: the next player may take over the dice left
    # The third zilch in a row costs this many points (0: no such rule) and resets the count;
    # below_zero: it may take a score below zero (else it stops at zero); off_board: it is
    # charged before a player is on the board too (the count runs either way).
    three_zilch_penalty: int = 0
    penalty_below_zero: bool = True
    penalty_off_board: bool = True
    # Overtaking: a bank must also beat the previous player's banked turn total (not after
    # his zilch).  beat: that total for the turn at hand (0: none), set by --beat through
    # beating(), never by a rules file; a turn with it is a turn with a higher minimum.
    overtaking: bool = False
    beat: int = 0
    # Dice frozen earlier in the turn (since the last pick-up) combine with later rolls:
    # the turn's state then carries the frozen groups (outcomes/frozen.py).
    pyramiding: bool = False
    # Challenge: twice per game (once while the challenger's score is below the threshold,
    # once at or above it) a player may announce before rolling that his turn's total is
    # added to him and taken from the opponent; a zilch then costs him challenge_costs[0]
    # (the challenge below) or [1] (above).  A game-level choice (objectives/challenge_game).
    challenge: bool = False
    challenge_threshold: int = 5000
    challenge_costs: tuple[int, int] = (600, 2000)
    # Where the rules came from as a user names them (a preset's name, a file's path): what
    # a command to paste says (`--rules ...`); no part of the definition.
    source: str = field(default="", compare=False, repr=False)

    # --- facts every caller needs, derived here once --------------------------------------
    @lazy
    def unit(self) -> int:
        """The gcd of every score and minimum: turn totals are multiples of it."""
        values = [p for row in self.faces for p in row if p] + [p.points for p in self.patterns]
        values += [self.entry_minimum, self.bank_minimum]
        return math.gcd(*values) or 1

    def units_up(self, points: int) -> int:
        """Points in units, rounded up (a minimum: the smallest total that meets it)."""
        return -(-points // self.unit)

    @property
    def has_permanent(self) -> bool:
        return any(p.permanent for p in self.patterns)

    @property
    def permanent_amounts(self) -> tuple[int, ...]:
        """The distinct points of permanent combinations, ascending."""
        return tuple(sorted({p.points for p in self.patterns if p.permanent}))

    @property
    def perm_step(self) -> int | None:
        """Units per permanent combination (None without them): the step between the
        permanent levels of a turn.  The level solvers handle one amount."""
        amounts = self.permanent_amounts
        if not amounts:
            return None
        if len(amounts) > 1:
            raise InputError(
                f"{self.name}: the end-game and game solvers handle one permanent "
                f"amount, the rules have {list(amounts)}"
            )
        return amounts[0] // self.unit

    @property
    def colour_pairs(self) -> bool:
        return any(p.kind == "colour_pairs" for p in self.patterns)

    @property
    def hot_state(self) -> int:
        """The turn's state after hot dice: 0 (must roll all) or N (free to roll or bank)."""
        return 0 if self.hot_dice == "mandatory" else self.dice

    def on_board(self, score: int) -> bool:
        """A player with this score has banked the entry minimum (any positive score has:
        a first bank is at least the minimum)."""
        return score > 0 or not self.entry_minimum

    def min_bank(self, on_board: bool) -> int:
        """Points a bank needs (overtaking: more than the total to beat, if any)."""
        low = self.bank_minimum if on_board else max(self.entry_minimum, self.bank_minimum)
        return max(low, self.beat + self.unit) if self.beat else low

    def beating(self, beat: int | None) -> RuleSet:
        """The rules of a turn that must beat the previous player's banked turn total
        `beat` (points; None or 0: the previous player zilched, or nobody has played)."""
        if not beat:
            return self
        if not self.overtaking:
            raise InputError(
                f"beat: {self.name} has no overtaking rule (a bank never has to beat the "
                "previous player's; the rule key is overtaking = true)",
                "beat",
            )
        check_points(beat, "beat", "beat")
        low = self.min_bank(True)
        if beat < max(low, self.unit) or beat % self.unit or beat // self.unit > MAX_UNITS:
            raise InputError(
                f"beat {beat} is not a turn total the previous player can bank under "
                f"{self.name}: a multiple of {self.unit} from {max(low, self.unit)} to "
                f"{MAX_UNITS * self.unit} (0: none to beat)",
                "beat",
            )
        return replace(self, beat=beat)

    def check_previous_bank(self, previous: int, triggered: bool = False) -> None:
        """InputError unless the player before, now at `previous`, can have banked
        self.beat last (0: zilched); triggered: that bank reached the target (the final
        round's trigger), so it was a bank, and his score before it was below the target."""
        if not self.overtaking:
            return
        if triggered and not self.beat:
            raise InputError(
                f"beat: the player before you reached the target with his last bank "
                f"({previous}): give that bank as the total to beat",
                "beat",
            )
        if self.beat > previous:
            raise InputError(
                f"beat {self.beat}: the previous player's last bank is part of his score "
                f"({previous})",
                "beat",
            )
        before = previous - self.beat
        if self.beat:
            try:
                self.check_score(f"beat {self.beat}: his score before it,", before)
            except InputError as e:
                raise InputError(str(e), "beat") from None
        if triggered and self.target is not None and self.reached(before):
            raise InputError(
                f"beat {self.beat}: the trigger's score before it, {before}, had reached "
                f"the target already",
                "beat",
            )

    def min_bank_units(self, on_board: bool) -> int:
        return self.units_up(self.min_bank(on_board))

    def recorded_after_zilch(self, permanent: int, on_board: bool) -> int:
        """Points a zilch records: its permanent points where they meet the minimum."""
        return permanent if permanent >= self.min_bank(on_board) else 0

    def reached(self, score: int) -> bool:
        """Does this score reach the target (end the game, or start the final round)?"""
        assert self.target is not None
        return score > self.target if self.reach == "more_than" else score >= self.target

    def check_score(self, what: str, score: int, field: str | None = None) -> None:
        """InputError unless a player can have this score (field: the input it is)."""
        check_points(score, what, field)
        below = self.three_zilch_penalty and self.penalty_below_zero and not self.entry_minimum
        below = below or self.challenge  # (a challenged player can fall anywhere)
        if (score < 0 and not below) or score % self.unit:
            kind = "multiples" if below else "non-negative multiples"
            raise InputError(
                f"{what} {score} is impossible under {self.name}: scores are {kind} of {self.unit}",
                field,
            )
        if 0 < score < self.entry_minimum and not self.challenge:
            raise InputError(
                f"{what} {score} is impossible under {self.name}: the first bank "
                f"is at least {self.entry_minimum}",
                field,
            )

    def reach_units(self, target: int | None = None) -> int:
        """The smallest score (units) that reaches the target (the rules' own by default)."""
        target = self.target if target is None else target
        assert target is not None
        if self.reach == "more_than":
            return target // self.unit + 1
        return -(-target // self.unit)  # at least the target: scores are whole units

    def share(self, k: int) -> float:
        """A player's part of a win shared by k tied players."""
        return 1.0 if k <= 1 else self.tie * 2.0 / k

    def penalty(self, on_board: bool) -> int:
        """Points the third zilch in a row costs a player on (or not yet on) the board
        (without an entry minimum every player is on the board)."""
        waived = not (on_board or self.penalty_off_board or not self.entry_minimum)
        return 0 if waived else self.three_zilch_penalty

    def __post_init__(self) -> None:
        # (here too: a RuleSet built in Python, not read from a file, is checked)
        if self.three_zilch_penalty % self.unit:
            raise InputError(
                f"{self.name}: three_zilch_penalty {self.three_zilch_penalty} is not a "
                f"multiple of {self.unit} (the gcd of all points and minimums): scores "
                "would leave the grid"
            )
        # (the combinations solved so far: refused, never ignored)
        if self.overtaking:
            self._refuse_with("overtaking")
        if self.challenge:
            self._refuse_with("challenge")
            if any(c < 0 or c % self.unit for c in self.challenge_costs):
                raise InputError(
                    f"{self.name}: challenge_costs {list(self.challenge_costs)} must be "
                    f"multiples of {self.unit} (the gcd of all points and minimums), at least 0"
                )
        if self.beat and (not self.overtaking or self.beat < 0 or self.beat % self.unit):
            raise InputError(f"{self.name}: beat {self.beat} needs overtaking and whole units")

    def options_on(self) -> list[str]:
        """The optional rules switched on (each game solver takes only some of them)."""
        return [
            what
            for what, on in (
                ("permanent points", self.has_permanent),
                ("piggyback", self.piggyback),
                ("three_zilch_penalty", bool(self.three_zilch_penalty)),
                ("overtaking", self.overtaking),
                ("pyramiding", self.pyramiding),
                ("challenge", self.challenge),
            )
            if on
        ]

    def _refuse_with(self, option: str) -> None:
        """InputError where `option` (on) meets a rule it is not solved with: any other of
        permanent points, piggyback, a penalty, overtaking and pyramiding."""
        for what in self.options_on():
            if what not in (option, "challenge"):
                raise InputError(f"{self.name}: {option} with {what} is not supported")

    def canonical(self) -> dict:
        d = asdict(self)
        d.pop("name"), d.pop("description"), d.pop("source")
        if not self.three_zilch_penalty:  # (no penalty: its details change nothing, and
            d.pop("penalty_below_zero"), d.pop("penalty_off_board")  # the hash stays)
        for key in ("overtaking", "beat", "pyramiding"):  # (off: every hash stays)
            if not d[key]:
                d.pop(key)
        if not self.challenge:
            d.pop("challenge"), d.pop("challenge_threshold"), d.pop("challenge_costs")
        return d

    def digest(self) -> str:
        """Hash of the exact definition (not the name): what `zilch rules` shows."""
        return _sha256(self.canonical())

    def table_key(self) -> str:
        """Hash of the definition but for its target: the key of every stored table (a
        table that depends on the target names it in its objective, "game10000"), so a copy
        of a preset with another name and target finds the tables `--target` built."""
        d = self.canonical()
        d.pop("target")
        return _sha256(d)

    def aimed(self, target: int | None) -> RuleSet:
        """The rules of a game to `target` points instead of the rules' own (None: the
        rules' own)."""
        if target is None or target == self.target:
            return self
        if isinstance(target, bool) or not isinstance(target, numbers.Integral):
            raise InputError(f"target must be a whole number of points, got {target!r}", "target")
        target = int(target)
        check_points(target, "target", "target")
        if target <= 0 or target % self.unit:
            raise InputError(f"target must be a positive multiple of {self.unit}", "target")
        return replace(self, target=target)


def _sha256(d: dict) -> str:
    blob = json.dumps(d, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


# --- the rule file: one row per key ------------------------------------------------------
def _fail(src: str, key: str, what: str) -> NoReturn:
    raise InputError(f"rules file {src}: key '{key}': {what}")


def _integer(lo: int = 0, hi: int = MAX_POINTS) -> Callable[[str, str, Any], int]:
    def parse(src: str, key: str, v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            _fail(src, key, f"expected an integer in [{lo}, {hi}], got {v!r}")
        return v

    return parse


def _boolean(src: str, key: str, v: Any) -> bool:
    if not isinstance(v, bool):
        _fail(src, key, "expected true or false")
    return v


def _text(src: str, key: str, v: Any) -> str:
    if not isinstance(v, str):
        _fail(src, key, "expected a string")
    return v


def _choice(*allowed: str) -> Callable[[str, str, Any], str]:
    def parse(src: str, key: str, v: Any) -> str:
        if v not in allowed:
            _fail(src, key, f"expected one of {', '.join(map(repr, allowed))}, got {v!r}")
        return v

    return parse


def _fraction(src: str, key: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
        _fail(src, key, f"expected a number in [0, 1], got {v!r}")
    return float(v)


def _costs(src: str, key: str, v: Any) -> tuple[int, int]:
    if not isinstance(v, list) or len(v) != 2:
        _fail(src, key, f"expected two amounts [below, above], got {v!r}")
    amount = _integer()
    return amount(src, f"{key}[0]", v[0]), amount(src, f"{key}[1]", v[1])


def _straight(src: str, key: str, v: Any) -> tuple[int, ...]:
    if (
        not isinstance(v, list)
        or not v
        or not all(type(x) is int and 1 <= x <= FACES for x in v)
        or len(set(v)) != len(v)
    ):
        _fail(src, key, "expected distinct faces 1..6")
    return tuple(sorted(v))


REQUIRED = object()  # the default of a key every file must give


@dataclass(frozen=True)
class Key:
    """One key of a rule file: where it sits, how its value is read, its default and what it
    means.  docs/rules-format.md's table is this schema (a test compares them)."""

    name: str  # as in the file: "dice", "game.target", "patterns[].kind"
    parse: Callable[[str, str, Any], Any]
    default: Any
    kind: str  # the value, for the documentation: "integer 1..6", "true or false", ...
    meaning: str

    @property
    def table(self) -> str:
        """The TOML table it sits in ("": the top level; "game"; "patterns[]")."""
        return self.name.rpartition(".")[0]

    @property
    def field(self) -> str:
        return self.name.rpartition(".")[2]


_POINTS = f"integer 0..{MAX_POINTS}"
SCHEMA: tuple[Key, ...] = (
    Key(
        "name",
        _text,
        None,
        "string",
        "shown by `zilch rules`; not part of the rule-set hash (default: the file's name)",
    ),
    Key("description", _text, "", "string", "shown by `zilch rules`"),
    Key("dice", _integer(1, 6), REQUIRED, "integer 1..6", "number of dice"),
    Key(
        "set_aside",
        _choice("forced", "any"),
        "forced",
        '"forced" or "any"',
        '"forced": every scoring die of a roll is frozen, scored by the split with the most '
        'points (ties: the split using more dice); "any": the player keeps any scoring dice, '
        "at least one",
    ),
    Key(
        "hot_dice",
        _choice("optional", "mandatory"),
        "optional",
        '"optional" or "mandatory"',
        '"mandatory": when every die has scored the player must roll them all again; '
        '"optional": he may bank instead',
    ),
    Key(
        "entry_minimum",
        _integer(),
        0,
        _POINTS,
        'smallest first bank of the game ("getting on the board")',
    ),
    Key("bank_minimum", _integer(), 0, _POINTS, "smallest bank on every later turn"),
    Key(
        "pyramiding",
        _boolean,
        False,
        "true or false",
        "dice frozen earlier in the turn combine with later rolls (see Pyramiding below)",
    ),
    Key(
        "faces",
        lambda src, key, v: v,
        REQUIRED,
        "table: face -> list of `dice` integers",
        "`[faces]`: for each face 1..6 (every face listed; zeros for one that scores "
        "nothing), the points of one group of exactly k dice showing it, k = 1..dice; 0: k "
        "such dice are not a combination (see Faces below)",
    ),
    Key(
        "patterns",
        lambda src, key, v: v,
        (),
        "array of tables",
        "`[[patterns]]`: whole-roll combinations (see Patterns below)",
    ),
    Key(
        "game",
        lambda src, key, v: v,
        None,
        "table",
        "`[game]`: the game around the turns (the keys game.* below; none: turns only)",
    ),
    Key(
        "patterns[].kind",
        _choice(*PATTERN_KINDS),
        REQUIRED,
        "one of the pattern kinds",
        "which combination (see Patterns below)",
    ),
    Key("patterns[].points", _integer(1), REQUIRED, f"integer 1..{MAX_POINTS}", "what it scores"),
    Key(
        "patterns[].faces",
        _straight,
        (),
        "list of distinct faces",
        "a straight's faces, e.g. [1, 2, 3, 4, 5] (straights only)",
    ),
    Key(
        "patterns[].permanent",
        _boolean,
        False,
        "true or false",
        "points kept even if the turn ends in a zilch",
    ),
    Key(
        "patterns[].distinct",
        _boolean,
        False,
        "true or false",
        "three_pairs and two_triplets: the faces must differ",
    ),
    Key(
        "game.target",
        _integer(1),
        None,
        f"integer 1..{MAX_POINTS}",
        "the score that ends the game (none: no game, only turns); `--target` overrides it",
    ),
    Key(
        "game.end",
        _choice("final_round", "instant"),
        "final_round",
        '"final_round" or "instant"',
        '"final_round": the others get one last turn; "instant": reaching the target wins',
    ),
    Key(
        "game.reach",
        _choice("at_least", "more_than"),
        "at_least",
        '"at_least" or "more_than"',
        "how the target is reached",
    ),
    Key(
        "game.tie",
        _fraction,
        0.5,
        "number 0..1",
        "a tie's worth as a fraction of a win (with a final round, other than 0.5 the "
        "chances sum to more or less than 1: the two-player game tables refuse it; the last "
        "turn, the final round and the game among three players or more take it)",
    ),
    Key(
        "game.piggyback",
        _boolean,
        False,
        "true or false",
        "Zonk: the next player may take over the dice left and the turn total",
    ),
    Key(
        "game.three_zilch_penalty",
        _integer(),
        0,
        _POINTS,
        "points the third zilch in a row costs (0: no such rule); it resets the count; a "
        "multiple of the unit",
    ),
    Key(
        "game.penalty_below_zero",
        _boolean,
        True,
        "true or false",
        "the penalty may take a score below zero (false: it stops at zero)",
    ),
    Key(
        "game.penalty_off_board",
        _boolean,
        True,
        "true or false",
        "the penalty is charged before the player is on the board too (the count runs either way)",
    ),
    Key(
        "game.overtaking",
        _boolean,
        False,
        "true or false",
        "a bank must also beat the previous player's banked turn total, unless he zilched "
        "(the commands take that total as `--beat`; not with permanent points, piggyback, a "
        "penalty or pyramiding)",
    ),
    Key(
        "game.challenge",
        _boolean,
        False,
        "true or false",
        "twice per game, once below `challenge_threshold` and once at or above it, a player "
        "may announce before rolling that the turn's total is added to him and taken from "
        "the opponent; a zilch then costs him `challenge_costs` (a game-level choice: "
        "`zilch game` and `zilch advise` with scores; not with permanent points, piggyback, "
        "a penalty, overtaking or pyramiding)",
    ),
    Key(
        "game.challenge_threshold",
        _integer(),
        5000,
        _POINTS,
        "the score that separates a player's two challenges",
    ),
    Key(
        "game.challenge_costs",
        _costs,
        (600, 2000),
        "two integers [below, above]",
        "what a challenge's zilch costs, below the threshold and at or above it (multiples "
        "of the unit)",
    ),
)
_TABLES = {"": "the top level", "game": "[game]", "patterns[]": "[[patterns]]"}


def _keys(table: str) -> dict[str, Key]:
    return {k.field: k for k in SCHEMA if k.table == table}


def _read_table(src: str, data: Any, table: str, where: str) -> dict[str, Any]:
    """The keys of one TOML table read by the schema: unknown keys refused, every value
    parsed, defaults filled in; REQUIRED where a required key is missing."""
    keys = _keys(table)
    if not isinstance(data, dict):
        _fail(src, where or "(top)", "expected a table")
    for k in data:
        if k not in keys:
            _fail(src, f"{where}.{k}" if where else k, "unknown key")
    return {
        f: (k.parse(src, f"{where}.{f}" if where else f, data[f]) if f in data else k.default)
        for f, k in keys.items()
    }


def schema_table() -> str:
    """docs/rules-format.md's table of keys, from the schema."""
    rows = ["| key | value | default | meaning |", "| --- | --- | --- | --- |"]
    for k in SCHEMA:
        shown = (
            "required"
            if k.default is REQUIRED
            else "none"
            if k.default in (None, ())
            else json.dumps(list(k.default) if isinstance(k.default, tuple) else k.default)
        )
        rows.append(f"| `{k.name}` | {k.kind} | {shown} | {k.meaning} |")
    return "\n".join(rows)


def _faces(src: str, faces: Any, dice: int) -> tuple[tuple[int, ...], ...]:
    """[faces]: every face 1..6 with a list of `dice` points (groups of 1..dice)."""
    if not isinstance(faces, dict):
        _fail(src, "faces", "missing or not a table of face -> list of points")
    for k in faces:
        if k not in {str(f) for f in range(1, FACES + 1)}:
            _fail(src, f"faces.{k}", "faces are 1..6")
    rows = []
    for f in range(1, FACES + 1):
        row = faces.get(str(f))
        if row is None:
            _fail(
                src,
                f"faces.{f}",
                f"missing: list every face 1..6 (a face that scores nothing: {[0] * dice})",
            )
        if not isinstance(row, list) or len(row) != dice:
            _fail(src, f"faces.{f}", f"expected a list of {dice} integers (groups of 1..{dice})")
        rows.append(tuple(_integer()(src, f"faces.{f}[{i}]", v) for i, v in enumerate(row)))
    return tuple(rows)


def _patterns(src: str, plist: Any, dice: int) -> tuple[Pattern, ...]:
    if not isinstance(plist, (list, tuple)):
        _fail(src, "patterns", "expected an array of tables [[patterns]]")
    found = []
    for i, p in enumerate(plist):
        where = f"patterns[{i}]"
        got = _read_table(src, p, "patterns[]", where)
        for name in ("kind", "points"):
            if got[name] is REQUIRED:
                _fail(src, f"{where}.{name}", "missing")
        if got["kind"] == "straight":
            if not got["faces"] or len(got["faces"]) > dice:
                _fail(src, f"{where}.faces", f"expected distinct faces 1..6, at most {dice}")
        elif dice != 6:
            _fail(src, f"{where}.kind", f"{got['kind']!r} needs six dice, the rule set has {dice}")
        else:
            got["faces"] = ()
        found.append(Pattern(**got))
    return tuple(found)


def from_dict(data: dict, src: str = "<dict>") -> RuleSet:
    """Validate a parsed TOML document into a RuleSet by the schema; errors name the file
    and the key."""
    top = _read_table(src, data, "", "")
    if top["dice"] is REQUIRED:
        _fail(src, "dice", "missing")
    game = _read_table(src, data.get("game") or {}, "game", "game")
    if top["name"] is None:
        top["name"] = Path(src).stem
    rs = RuleSet(
        **{k: v for k, v in top.items() if k not in ("faces", "patterns", "game")},
        faces=_faces(src, data.get("faces"), top["dice"]),
        patterns=_patterns(src, top["patterns"], top["dice"]),
        **game,
    )
    _check_whole(src, rs)
    return rs


def _check_whole(src: str, rs: RuleSet) -> None:
    """What no single key says: something scores, sizes within the solver's grid, the
    combinations of options the solvers take."""
    if not any(any(r) for r in rs.faces) and not rs.patterns:
        _fail(src, "faces", "no combination scores: every roll would be a zilch")
    # every turn grid grows with the largest step and minimum, in the rule set's unit
    u = rs.unit
    for key, points in (
        ("faces", max(max(r) for r in rs.faces)),
        ("patterns", max((p.points for p in rs.patterns), default=0)),
        ("entry_minimum", rs.entry_minimum),
        ("bank_minimum", rs.bank_minimum),
    ):
        if points // u > MAX_UNITS:
            _fail(
                src,
                key,
                f"{points} points are {points // u} units of {u} (the gcd of all "
                f"points and minimums): the solver takes at most {MAX_UNITS} units",
            )
    if rs.has_permanent:
        # Permanent points at least the minimums put a player "on the board" for the rest of
        # the turn; the solver relies on that (see turn.py) and the presets satisfy it.
        low = [p for p in rs.patterns if p.permanent and p.points < rs.min_bank(False)]
        if low:
            _fail(
                src,
                "patterns.permanent",
                f"permanent points ({low[0].points}) below the minimum to bank "
                f"({rs.min_bank(False)}) are not supported",
            )
        if rs.hot_dice == "mandatory":
            _fail(
                src, "hot_dice", "permanent combinations with mandatory hot dice are not supported"
            )
    if rs.pyramiding:  # (the turn states these need are not carried with frozen groups)
        for clash, has in (
            ("permanent combinations", rs.has_permanent),
            ("piggyback", rs.piggyback),
            ("three_zilch_penalty", rs.three_zilch_penalty),
        ):
            if has:
                _fail(src, "pyramiding", f"pyramiding with {clash} is not supported")


# the presets' files, beside this module (a path, not importlib.resources: the package is
# installed as files, and importlib.resources costs a cold query ~4 ms of imports)
FOLDER = Path(__file__).resolve().parent / "rulesets"


def preset_names() -> list[str]:
    return sorted(p.name[:-5] for p in FOLDER.iterdir() if p.name.endswith(".toml"))


def canonical_source(name: str) -> dict:
    """A preset's TOML document as a dict (to derive variants from)."""
    return tomllib.loads((FOLDER / f"{name}.toml").read_text())


def load(name_or_path: str) -> RuleSet:
    """A preset by name, or a TOML file by path."""
    if name_or_path in preset_names():
        text = (FOLDER / f"{name_or_path}.toml").read_text()
        rs = from_dict(tomllib.loads(text), f"{name_or_path}.toml")
        return replace(rs, source=name_or_path)
    path = Path(name_or_path)
    if not path.suffix and not path.exists():
        import difflib

        names = preset_names()
        near = difflib.get_close_matches(name_or_path, names, n=1, cutoff=0.6)
        hint = f"did you mean {near[0]!r}? " if near else ""
        raise InputError(
            f"unknown preset {name_or_path!r}; {hint}presets: {', '.join(names)}", "rules"
        )
    text = read_text(name_or_path, "rules file")
    return replace(parse(text, name_or_path), source=name_or_path)


def parse(text: str, src: str) -> RuleSet:
    """A rule file's text (src: what the messages call it) as `load` reads a file."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"rules file {src}: not valid TOML ({e})") from None
    except RecursionError:
        raise InputError(f"rules file {src}: nested too deeply") from None
    return from_dict(data, src)
