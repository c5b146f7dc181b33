"""Rule sets of the Yahtzee family as frozen, validated data loaded from TOML.

A rule file names the dice, the boxes (each of a kind with its points), the upper bonus,
the Yahtzee bonus and joker, and whether the boxes are filled in any order or in the listed
one (Scandinavian "forced" Yatzy).  The presets are such files (``solver/yahtzee/rulesets``);
a user's file works wherever a preset name does.  The schema is declarative (KEYS, BOX_KEYS:
one row per key) and docs/rules-format.md is checked against it by a test.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NoReturn

from ..errors import InputError
from ..files import read_text

UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")
KINDS = ("upper", "kind", "pairs", "house", "straight", "yahtzee", "chance")
MAX_TABLE = 1 << 28  # entries of the value table (2 GiB of float64): refused above
HOUSE_RULES = ("five_alike", "four_alike")  # a box's house-rule switches (off by default)


@dataclass(frozen=True)
class Box:
    name: str
    kind: str  # one of KINDS
    face: int = 0  # upper: the face counted
    count: int = 0  # kind: dice of one face needed; pairs: distinct pairs needed
    groups: tuple[int, ...] = ()  # house: dice of two different faces, e.g. (3, 2)
    run: int = 0  # straight: this many consecutive faces, any of them
    faces: tuple[int, ...] = ()  # straight: exactly these faces
    points: int | str = "group"  # a fixed number, "all" (sum of all dice), "group"
    five_alike: bool = False  # house: all its dice of one face (five alike) count too
    four_alike: bool = False  # two pairs: four (or more) of one face count as two pairs

    @property
    def fixed(self) -> int | None:
        """The box's fixed points (what a joker scores in a house or straight), if any."""
        return self.points if isinstance(self.points, int) else None


@dataclass(frozen=True)
class YahtzeeRules:
    name: str
    description: str
    specs: tuple[Box, ...]
    dice: int = 5
    joker: str | None = None  # "forced" (official), "free" (Verhoeff) or None
    upper_bonus: int = 0  # paid once the upper boxes total `threshold` or more
    threshold: int = 0  # (0 where there is no upper bonus: the upper total is no state)
    yahtzee_bonus: int = 0  # each extra Yahtzee while the Yahtzee box holds its points
    order: str = "free"  # "forced": the boxes are filled in the listed order

    @property
    def boxes(self) -> tuple[str, ...]:
        return tuple(b.name for b in self.specs)

    @property
    def n_boxes(self) -> int:
        return len(self.specs)

    @property
    def yahtzee_box(self) -> int:
        """The box of all dice equal, where its bonus or joker applies (else -1)."""
        if not (self.joker or self.yahtzee_bonus):
            return -1
        return next(i for i, b in enumerate(self.specs) if b.kind == "yahtzee")

    def box(self, name: str) -> int:
        try:
            return self.boxes.index(name)
        except ValueError:
            raise InputError(
                f"unknown box {name!r} under {self.name}; boxes: {', '.join(self.boxes)}"
            ) from None

    def digest(self) -> str:
        """The hash naming the rule set's stored tables (not its name nor description).  A
        house rule enters it only where a box takes it: the rule sets without one keep the
        hash, and so the tables, they had before the house rules existed."""
        d = asdict(self)
        d.pop("description"), d.pop("name")
        for b in d["specs"]:
            for k in HOUSE_RULES:
                if not b[k]:
                    del b[k]
        return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class Key:
    """One row of the schema: the key, its type, what it accepts, its default, its meaning."""

    name: str
    type: str
    accepts: str
    default: Any
    meaning: str


KEYS = (
    Key("name", "string", "any", "the file name", "shown by `yahtzee rules`"),
    Key("description", "string", "any", "", "shown by `yahtzee rules`"),
    Key("dice", "integer", "1..6", 5, "dice rolled (three rolls a turn)"),
    Key("order", "string", "free, forced", "free", "forced: boxes in the listed order"),
    Key("upper_bonus", "integer", ">= 0", 0, "paid once the upper boxes reach the threshold"),
    Key("upper_threshold", "integer", ">= 1", 63, "the upper total that earns the bonus"),
    Key("yahtzee_bonus", "integer", ">= 0", 0, "each extra Yahtzee while its box scored"),
    Key("joker", "string", "forced, free, none", "none", "where an extra Yahtzee may go"),
    Key("boxes", "array of tables", "1..20 boxes", "required", "the score sheet, in order"),
)
BOX_KEYS = (
    Key("name", "string", "letters, digits, _; unique", "required", "the box's name"),
    Key("kind", "string", ", ".join(KINDS), "required", "what the box counts"),
    Key("face", "integer", "1..6", "required for upper", "upper: the face summed"),
    Key("count", "integer", "kind: 2..dice; pairs: 1..3", "required", "dice or pairs needed"),
    Key("groups", "two integers", "e.g. [3, 2]", "required for house", "dice of two faces"),
    Key("run", "integer", "2..6", "", "straight: that many consecutive faces"),
    Key("faces", "list of faces", "distinct 1..6", "", "straight: exactly these faces"),
    Key("points", "integer or string", "a number, all, group", "group (yahtzee: 50)", "points"),
    Key("five_alike", "boolean", "true, false", "false", "house: all dice alike count too"),
    Key("four_alike", "boolean", "true, false", "false", "two pairs: four alike count too"),
)


def _fail(src: str, key: str, what: str) -> NoReturn:
    raise InputError(f"rules file {src}: key '{key}': {what}")


def _int(src: str, key: str, v: Any, lo: int, hi: int = 10**6) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        _fail(src, key, f"expected an integer in [{lo}, {hi}], got {v!r}")
    return v


def _choice(src: str, key: str, v: Any, allowed: tuple) -> Any:
    if v not in allowed:
        _fail(src, key, f"expected one of {', '.join(map(repr, allowed))}, got {v!r}")
    return v


def _str(src: str, key: str, v: Any) -> str:
    if not isinstance(v, str):
        _fail(src, key, "expected a string")
    return v


# the keys of each kind of box, besides its name and kind
KIND_KEYS = {
    "upper": {"face"},
    "kind": {"count", "points"},
    "pairs": {"count", "points", "four_alike"},
    "house": {"groups", "points", "five_alike"},
    "straight": {"run", "faces", "points"},
    "yahtzee": {"points"},
    "chance": set(),
}


def _box(src: str, i: int, d: Any, dice: int) -> Box:
    at = f"boxes[{i}]"
    if not isinstance(d, dict):
        _fail(src, at, "expected a table")
    known = {k.name for k in BOX_KEYS}
    for k in d:
        if k not in known:
            _fail(src, f"{at}.{k}", "unknown key")
    if "name" not in d:
        _fail(src, f"{at}.name", "missing")
    name = _str(src, f"{at}.name", d["name"]).strip().lower()
    if not name or not all(c.isalnum() or c == "_" for c in name):
        _fail(src, f"{at}.name", f"letters, digits and _ only, got {d['name']!r}")
    kind = _choice(src, f"{at}.kind", d.get("kind"), KINDS)
    for k in d:
        if k not in KIND_KEYS[kind] | {"name", "kind"}:
            _fail(src, f"{at}.{k}", f"not a key of a {kind!r} box")
    points = _box_points(src, at, kind, d)
    fields = _kind_fields(src, at, d, dice, points) | _house_rules(src, at, d)
    return Box(name=name, kind=kind, points=points, **fields)


def _house_rules(src: str, at: str, d: dict) -> dict[str, bool]:
    """A box's house-rule switches, given (its kind takes them: KIND_KEYS): five_alike on
    a house, four_alike on a two-pairs box."""
    rules = {}
    for k in HOUSE_RULES:
        if k in d:
            if not isinstance(d[k], bool):
                _fail(src, f"{at}.{k}", f"expected true or false, got {d[k]!r}")
            rules[k] = d[k]
    if rules.get("four_alike") and d.get("count") != 2:
        _fail(src, f"{at}.four_alike", "four alike as two pairs: a box of count = 2 only")
    return rules


def _box_points(src: str, at: str, kind: str, d: dict) -> int | str:
    """A box's points: a number, "all" or "group" (upper: always group, chance: all)."""
    if kind in ("upper", "chance"):
        return "group" if kind == "upper" else "all"
    points = d.get("points", {"yahtzee": 50}.get(kind, "group"))
    if isinstance(points, str):
        return _choice(src, f"{at}.points", points, ("all", "group"))
    return _int(src, f"{at}.points", points, 0)


def _kind_fields(src: str, at: str, d: dict, dice: int, points: int | str) -> dict[str, Any]:
    """The Box fields of a box's kind (d["kind"], checked)."""
    kind = d["kind"]
    if kind == "upper":
        return {"face": _int(src, f"{at}.face", d.get("face"), 1, 6)}
    if kind == "kind":
        return {"count": _int(src, f"{at}.count", d.get("count"), 2, dice)}
    if kind == "pairs":
        return {"count": _int(src, f"{at}.count", d.get("count"), 1, min(3, dice // 2))}
    if kind == "house":
        g = d.get("groups")
        if (
            not isinstance(g, list)
            or len(g) != 2
            or not all(type(x) is int and x >= 1 for x in g)
            or sum(g) > dice
        ):
            _fail(src, f"{at}.groups", f"expected two group sizes of at most {dice} dice")
        return {"groups": tuple(g)}
    if kind == "straight":
        return _straight(src, at, d, dice, points)
    return {}


def _straight(src: str, at: str, d: dict, dice: int, points: int | str) -> dict[str, Any]:
    """A straight's run (that many consecutive faces) or its faces (exactly these)."""
    if ("run" in d) == ("faces" in d):
        _fail(src, f"{at}.run", "a straight takes one of run or faces")
    if "run" in d:
        run = _int(src, f"{at}.run", d["run"], 2, min(6, dice))
        if points == "group":
            _fail(src, f"{at}.points", "a run scores a number or all (its faces vary)")
        return {"run": run}
    f = d["faces"]
    if (
        not isinstance(f, list)
        or not f
        or not all(type(x) is int and 1 <= x <= 6 for x in f)
        or len(set(f)) != len(f)
        or len(f) > dice
    ):
        _fail(src, f"{at}.faces", f"expected distinct faces 1..6, at most {dice}")
    return {"faces": tuple(sorted(f))}


def _check_sheet(
    src: str, specs: tuple[Box, ...], joker: str, order: str, upper_bonus: int, ybonus: int
) -> None:
    """What the boxes together must hold: distinct names and upper faces, the one Yahtzee
    box a joker or bonus needs, an upper box for the upper bonus."""
    names = [b.name for b in specs]
    for i, n in enumerate(names):
        if n in names[:i]:
            _fail(src, f"boxes[{i}].name", f"{n!r} names two boxes")
    faces = [b.face for b in specs if b.kind == "upper"]
    if len(set(faces)) != len(faces):
        _fail(src, "boxes", "two upper boxes count the same face")
    if (joker != "none" or ybonus) and sum(b.kind == "yahtzee" for b in specs) != 1:
        _fail(src, "joker", "a joker or a yahtzee_bonus needs exactly one 'yahtzee' box")
    if joker == "forced" and order == "forced":
        _fail(src, "joker", "the forced joker chooses a box: not with order = 'forced'")
    if upper_bonus and not faces:
        _fail(src, "upper_bonus", "no upper box to earn it")


def from_dict(data: dict, src: str = "<dict>") -> YahtzeeRules:
    """Validate a parsed TOML document into YahtzeeRules; errors name the file and the key."""
    known = {k.name for k in KEYS}
    for k in data:
        if k not in known:
            _fail(src, k, "unknown key")
    name = _str(src, "name", data.get("name", Path(src).stem))
    desc = _str(src, "description", data.get("description", ""))
    dice = _int(src, "dice", data.get("dice", 5), 1, 6)
    order = _choice(src, "order", data.get("order", "free"), ("free", "forced"))
    upper_bonus = _int(src, "upper_bonus", data.get("upper_bonus", 0), 0)
    threshold = _int(src, "upper_threshold", data.get("upper_threshold", 63), 1, 10_000)
    ybonus = _int(src, "yahtzee_bonus", data.get("yahtzee_bonus", 0), 0)
    joker = _choice(src, "joker", data.get("joker", "none"), ("forced", "free", "none"))
    blist = data.get("boxes")
    if not isinstance(blist, list) or not blist:
        _fail(src, "boxes", "missing or not an array of tables [[boxes]]")
    if len(blist) > 20:
        _fail(src, "boxes", f"at most 20 boxes, got {len(blist)}")
    specs = tuple(_box(src, i, d, dice) for i, d in enumerate(blist))
    _check_sheet(src, specs, joker, order, upper_bonus, ybonus)
    if not upper_bonus:  # (the upper total then matters to nobody: no state)
        threshold = 0
    if (1 << len(specs)) * (threshold + 1) * 2 > MAX_TABLE:
        _fail(src, "boxes", f"{len(specs)} boxes and a threshold of {threshold}: too many states")
    return YahtzeeRules(
        name,
        desc,
        specs,
        dice,
        None if joker == "none" else joker,
        upper_bonus,
        threshold,
        ybonus,
        order,
    )


# the presets' files, beside this module (as in dicesolver.rules: a path, not importlib.resources)
FOLDER = Path(__file__).resolve().parent / "rulesets"


def preset_names() -> list[str]:
    return sorted(p.name[:-5] for p in FOLDER.iterdir() if p.name.endswith(".toml"))


def _preset(name: str) -> YahtzeeRules:
    return from_dict(tomllib.loads((FOLDER / f"{name}.toml").read_text()), f"{name}.toml")


_FIRST = ("yahtzee", "yahtzee-free-joker", "yatzy")  # (the order `yahtzee rules` lists)
PRESETS = {n: _preset(n) for n in sorted(preset_names(), key=lambda n: (n not in _FIRST, n))}


def load(name_or_path: str) -> YahtzeeRules:
    """A preset by name, or a TOML rule file by path."""
    if name_or_path in PRESETS:
        return PRESETS[name_or_path]
    path = Path(name_or_path)
    if not path.suffix and not path.exists():
        raise InputError(f"unknown rule set {name_or_path!r}; presets: {', '.join(PRESETS)}")
    text = read_text(name_or_path, "rules file")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"rules file {name_or_path}: not valid TOML ({e})") from None
    except RecursionError:
        raise InputError(f"rules file {name_or_path}: nested too deeply") from None
    return from_dict(data, name_or_path)
