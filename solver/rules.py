"""Rule sets of the Zilch family as frozen, validated data loaded from TOML.

A rule set file names the dice, the points of groups of equal faces, whole-roll patterns,
minimums, the set-aside and hot-dice rules and the end of the game.  The built-in presets are
such files (``solver/rulesets/*.toml``); a user's file works wherever a preset name does.
"""

from __future__ import annotations

import hashlib
import json
import math
import tomllib
from dataclasses import asdict, dataclass, replace
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn

from .errors import InputError
from .files import read_text
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

    # --- facts every caller needs, derived here once --------------------------------------
    @cached_property
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
                f"--beat: {self.name} has no overtaking rule (a bank never has to beat the "
                "previous player's; the rule key is overtaking = true)"
            )
        check_points(beat, "--beat")
        low = self.min_bank(True)
        if beat < max(low, self.unit) or beat % self.unit or beat // self.unit > MAX_UNITS:
            raise InputError(
                f"--beat {beat} is not a turn total the previous player can bank under "
                f"{self.name}: a multiple of {self.unit} from {max(low, self.unit)} to "
                f"{MAX_UNITS * self.unit} (0: none to beat)"
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
                f"--beat: the player before you reached the target with his last bank "
                f"({previous}): give that bank with --beat"
            )
        if self.beat > previous:
            raise InputError(
                f"--beat {self.beat}: the previous player's last bank is part of his score "
                f"({previous})"
            )
        before = previous - self.beat
        if self.beat:
            self.check_score(f"--beat {self.beat}: his score before it,", before)
        if triggered and self.target is not None and self.reached(before):
            raise InputError(
                f"--beat {self.beat}: the trigger's score before it, {before}, had reached "
                f"the target already"
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

    def check_score(self, what: str, score: int) -> None:
        """InputError unless a player can have this score."""
        check_points(score, what)
        below = self.three_zilch_penalty and self.penalty_below_zero and not self.entry_minimum
        below = below or self.challenge  # (a challenged player can fall anywhere)
        if (score < 0 and not below) or score % self.unit:
            kind = "multiples" if below else "non-negative multiples"
            raise InputError(
                f"{what} {score} is impossible under {self.name}: scores are {kind} of {self.unit}"
            )
        if 0 < score < self.entry_minimum and not self.challenge:
            raise InputError(
                f"{what} {score} is impossible under {self.name}: the first bank "
                f"is at least {self.entry_minimum}"
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
        d.pop("name"), d.pop("description")
        if not self.three_zilch_penalty:  # (no penalty: its details change nothing, and
            d.pop("penalty_below_zero"), d.pop("penalty_off_board")  # the hash stays)
        for key in ("overtaking", "beat", "pyramiding"):  # (off: every hash stays)
            if not d[key]:
                d.pop(key)
        if not self.challenge:
            d.pop("challenge"), d.pop("challenge_threshold"), d.pop("challenge_costs")
        return d

    def digest(self) -> str:
        """Hash of the exact definition (not the name): the key of every stored table."""
        blob = json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()


def _fail(src: str, key: str, what: str) -> NoReturn:
    raise InputError(f"rules file {src}: key '{key}': {what}")


def _int(src, key, v, lo=0, hi=MAX_POINTS) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        _fail(src, key, f"expected an integer in [{lo}, {hi}], got {v!r}")
    return v


def _choice(src, key, v, allowed) -> str:
    if v not in allowed:
        _fail(src, key, f"expected one of {', '.join(map(repr, allowed))}, got {v!r}")
    return v


def _costs(src, v) -> tuple[int, int]:
    if not isinstance(v, list) or len(v) != 2:
        _fail(src, "game.challenge_costs", f"expected two amounts [below, above], got {v!r}")
    return (
        _int(src, "game.challenge_costs[0]", v[0]),
        _int(src, "game.challenge_costs[1]", v[1]),
    )


def from_dict(data: dict, src: str = "<dict>") -> RuleSet:
    """Validate a parsed TOML document into a RuleSet; errors name the file and the key."""
    known = {
        "name",
        "description",
        "dice",
        "set_aside",
        "hot_dice",
        "entry_minimum",
        "bank_minimum",
        "pyramiding",
        "faces",
        "patterns",
        "game",
    }
    for k in data:
        if k not in known:
            _fail(src, k, "unknown key")
    if "dice" not in data:
        _fail(src, "dice", "missing")
    dice = _int(src, "dice", data["dice"], 1, 6)
    faces_in = data.get("faces")
    if not isinstance(faces_in, dict):
        _fail(src, "faces", "missing or not a table of face -> list of points")
    faces = []
    for f in range(1, FACES + 1):
        row = faces_in.get(str(f), [0] * dice)
        if not isinstance(row, list) or len(row) != dice:
            _fail(src, f"faces.{f}", f"expected a list of {dice} integers (groups of 1..{dice})")
        faces.append(tuple(_int(src, f"faces.{f}[{i}]", v) for i, v in enumerate(row)))
    for k in faces_in:
        if k not in {str(f) for f in range(1, FACES + 1)}:
            _fail(src, f"faces.{k}", "faces are 1..6")
    patterns = []
    plist = data.get("patterns", [])
    if not isinstance(plist, list):
        _fail(src, "patterns", "expected an array of tables [[patterns]]")
    for i, p in enumerate(plist):
        key = f"patterns[{i}]"
        if not isinstance(p, dict):
            _fail(src, key, "expected a table")
        for k in p:
            if k not in {"kind", "points", "faces", "permanent", "distinct"}:
                _fail(src, f"{key}.{k}", "unknown key")
        kind = _choice(src, f"{key}.kind", p.get("kind"), PATTERN_KINDS)
        pts = _int(src, f"{key}.points", p.get("points"), 1)
        pf: Any = ()
        if kind == "straight":
            pf = p.get("faces")
            if (
                not isinstance(pf, list)
                or not pf
                or not all(type(x) is int and 1 <= x <= FACES for x in pf)
                or len(set(pf)) != len(pf)
                or len(pf) > dice
            ):
                _fail(src, f"{key}.faces", f"expected distinct faces 1..6, at most {dice}")
            pf = tuple(sorted(pf))
        elif dice != 6:
            _fail(src, f"{key}.kind", f"{kind!r} needs six dice, the rule set has {dice}")
        perm = p.get("permanent", False)
        distinct = p.get("distinct", False)
        if not isinstance(perm, bool):
            _fail(src, f"{key}.permanent", "expected true or false")
        if not isinstance(distinct, bool):
            _fail(src, f"{key}.distinct", "expected true or false")
        patterns.append(Pattern(kind, pts, pf, perm, distinct))
    game = data.get("game", {})
    if not isinstance(game, dict):
        _fail(src, "game", "expected a table")
    for k in game:
        if k not in {
            "target",
            "end",
            "reach",
            "tie",
            "piggyback",
            "three_zilch_penalty",
            "penalty_below_zero",
            "penalty_off_board",
            "overtaking",
            "challenge",
            "challenge_threshold",
            "challenge_costs",
        }:
            _fail(src, f"game.{k}", "unknown key")
    target = game.get("target")
    if target is not None:
        target = _int(src, "game.target", target, 1)
    tie = game.get("tie", 0.5)
    if isinstance(tie, bool) or not isinstance(tie, (int, float)) or not 0 <= tie <= 1:
        _fail(src, "game.tie", f"expected a number in [0, 1], got {tie!r}")
    flags = {}
    for key, default in (
        ("piggyback", False),
        ("penalty_below_zero", True),
        ("penalty_off_board", True),
        ("overtaking", False),
        ("challenge", False),
    ):
        flags[key] = game.get(key, default)
        if not isinstance(flags[key], bool):
            _fail(src, f"game.{key}", "expected true or false")
    name = data.get("name", Path(src).stem)
    if not isinstance(name, str):
        _fail(src, "name", "expected a string")
    desc = data.get("description", "")
    if not isinstance(desc, str):
        _fail(src, "description", "expected a string")
    pyramiding = data.get("pyramiding", False)
    if not isinstance(pyramiding, bool):
        _fail(src, "pyramiding", "expected true or false")
    rs = RuleSet(
        name=name,
        description=desc,
        dice=dice,
        faces=tuple(faces),
        patterns=tuple(patterns),
        set_aside=_choice(src, "set_aside", data.get("set_aside", "forced"), ("forced", "any")),
        hot_dice=_choice(
            src, "hot_dice", data.get("hot_dice", "optional"), ("optional", "mandatory")
        ),
        entry_minimum=_int(src, "entry_minimum", data.get("entry_minimum", 0)),
        bank_minimum=_int(src, "bank_minimum", data.get("bank_minimum", 0)),
        target=target,
        end=_choice(src, "game.end", game.get("end", "final_round"), ("final_round", "instant")),
        reach=_choice(src, "game.reach", game.get("reach", "at_least"), ("at_least", "more_than")),
        tie=float(tie),
        three_zilch_penalty=_int(
            src, "game.three_zilch_penalty", game.get("three_zilch_penalty", 0)
        ),
        pyramiding=pyramiding,
        challenge_threshold=_int(
            src, "game.challenge_threshold", game.get("challenge_threshold", 5000)
        ),
        challenge_costs=_costs(src, game.get("challenge_costs", [600, 2000])),
        **flags,
    )
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
    return rs


def preset_names() -> list[str]:
    files = resources.files("dicesolver").joinpath("rulesets").iterdir()
    return sorted(p.name[:-5] for p in files if p.name.endswith(".toml"))


def canonical_source(name: str) -> dict:
    """A preset's TOML document as a dict (to derive variants from)."""
    res = resources.files("dicesolver").joinpath("rulesets", f"{name}.toml")
    return tomllib.loads(res.read_text())


def load(name_or_path: str) -> RuleSet:
    """A preset by name, or a TOML file by path."""
    if name_or_path in preset_names():
        res = resources.files("dicesolver").joinpath("rulesets", f"{name_or_path}.toml")
        return from_dict(tomllib.loads(res.read_text()), f"{name_or_path}.toml")
    path = Path(name_or_path)
    if not path.suffix and not path.exists():
        raise InputError(f"unknown preset {name_or_path!r}; presets: {', '.join(preset_names())}")
    text = read_text(name_or_path, "rules file")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"rules file {name_or_path}: not valid TOML ({e})") from None
    except RecursionError:
        raise InputError(f"rules file {name_or_path}: nested too deeply") from None
    return from_dict(data, name_or_path)
