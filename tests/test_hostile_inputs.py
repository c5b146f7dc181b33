"""Issue 12's battery: hostile inputs through both command lines.

Every case must end with exit code 2 and one line on stderr, never a traceback, and must be
refused before any solving starts: the solvers' passes (the zilch family's backward pass,
Yahtzee's level solve and game batch) are replaced by a tripwire, and the tables folder is
empty, so a case that would start a long solve instead of refusing fails here, whatever the
machine's speed.  A handful of the cases also run as whole processes (a 30 s guard on each).
"""

import os
import subprocess
import sys

import pytest

from .clirun import invoke

BIG = [str(2**64), str(10**30)]
# values that no integer option can take
NOT_INTS = ["abc", "", "²", "1.5", "nan", "0x10", "--5", *BIG]

# (command line, the command without the option, the option, values also wrong for it)
INT_OPTIONS = [
    ("zilch", ["odds"], "--dice", ["0", "-1", "7"]),
    ("zilch", ["advise", "--turn", "300"], "--dice", ["0", "7"]),
    ("zilch", ["advise", "--dice", "3"], "--turn", ["-50", "25"]),
    (
        "zilch",
        ["advise", "--rules", "zilch-online", "--dice", "6", "--turn", "1500"],
        "--permanent",
        ["-1500", "25"],
    ),
    (
        "zilch",
        ["advise", "--dice", "3", "--turn", "300", "--opponents", "10000"],
        "--score",
        ["-50"],
    ),
    ("zilch", ["endgame"], "--deficit", ["-50", "25"]),
    ("zilch", ["endgame", "--deficit", "1000", "--turn", "300"], "--dice", ["0"]),
    ("zilch", ["evaluate", "--dice", "3"], "--turn", ["-50"]),
    ("zilch", ["simulate"], "--turns", ["0", "-1"]),
    ("zilch", ["simulate", "--turns", "100"], "--seed", ["-1"]),
    ("zilch", ["game", "--rules", "zonk-chicago"], "--target", ["0", "-1000", "10000000"]),
    ("zilch", ["plot", "game", "--rules", "zonk-chicago", "--out", "@/g.png"], "--step", ["-1"]),
    ("yahtzee", ["advise", "--dice", "1,3,3,5,6"], "--rolls-left", ["3", "-1"]),
    ("yahtzee", ["value", "--filled", "ones"], "--upper", ["6", "-1"]),
    ("yahtzee", ["simulate"], "--games", ["0", "-1"]),
    ("yahtzee", ["simulate", "--games", "100"], "--seed", ["-1"]),
]

# (command line, the command without the option, the option, wrong values)
LIST_OPTIONS = [
    (
        "zilch",
        ["advise", "--dice", "6"],
        "--roll",
        [
            "",
            ",",
            "1,,2,3,4,5",
            "1,1,5",
            "0,1,1,1,1,1",
            "7,1,1,1,1,1",
            "1,1,5,3,4,6,2",
            "a,b,c,d,e,f",
            "1 1 5 3 4 6",
            "1;1;5;3;4;6",
            f"{BIG[0]},1,1,1,1,1",
            ",".join("1" * 1000),
        ],
    ),
    (
        "zilch",
        ["advise", "--dice", "3", "--turn", "300", "--score", "9000"],
        "--opponents",
        ["", ",", "10000,,9000", "²", "-50", "25", BIG[0], "a,b", "10000 9000"],
    ),
    (
        "zilch",
        ["endgame", "--final-round"],
        "--scores",
        [
            "",
            ",",
            "10000",
            "9000,5000",
            "10000,12000",
            "10000,-50",
            "10000,25",
            "10000,,9000",
            f"{BIG[0]},9000",
            "1e4,9000",
            "10000," + ",".join(["9000"] * 300),
        ],
    ),
    (
        "zilch",
        ["game", "--rules", "zonk-chicago", "--target", "1000"],
        "--scores",
        ["", ",", "0", "0,0,0", "-50,0", "25,0", "1000,0", f"{BIG[0]},0", "a,b"],
    ),
    (
        "zilch",
        ["advise", "--rules", "zonk-chicago"],
        "--take-over",
        [
            "3,300",
            "0,300",
            "6,300",
            "5,300",
            "3,0",
            "3,-50",
            "3,25",
            "3",
            "3,300,1",
            "",
            "a,b",
            f"3,{BIG[0]}",
            "1,50",
            "4,150",
        ],
    ),
    (
        "zilch",
        ["advise", "--rules", "zonk-chicago", "--score", "0", "--opponents", "500"],
        "--take-over",
        ["3,300", "0,300", "5,300", "3,25", "4,150"],
    ),
    (
        "yahtzee",
        ["advise"],
        "--dice",
        ["", "1,3,3,5", "1,3,3,5,6,6", "0,1,1,1,1", "7,1,1,1,1", "a,b,c,d,e", "1,,3,3,5"],
    ),
    (
        "yahtzee",
        ["value"],
        "--filled",
        [
            "ones,ones",
            "bogus",
            "one_pair",
            ",".join(["ones"] * 2000),
            "ones,twos,threes,fours,fives,sixes,three_kind,four_kind,full_house,small_straight,"
            "large_straight,yahtzee,chance",
        ],
    ),
    (
        "zilch",
        ["verify", "--results", "@/scores.csv"],
        "--alpha",
        ["0", "1", "-1", "nan", "inf", "2", "abc", ""],
    ),
]

# files made in the battery's folder (@): name -> bytes, or a kind of special file
FILES = {
    "binary.toml": bytes(range(256)) * 4,
    "latin1.toml": 'name = "caf\xe9"\ndice = 6\n'.encode("latin-1"),
    "nested.toml": ("a = " + "[" * 5000 + "]" * 5000 + "\n").encode(),
    "inline.toml": ("a = " + "{b = " * 3000 + "1" + "}" * 3000 + "\n").encode(),
    "nul.toml": b'name = "x\x00"\n',
    "huge.toml": b"# " + b"x" * (2 << 20) + b"\n",
    "empty.toml": b"",
    "notoml.toml": b"this is not toml\n",
    "unknown_key.toml": b'extends = "farkle"\ncolour = "red"\n',
    "dice0.toml": b'extends = "farkle"\ndice = 0\n',
    "dice100.toml": b'extends = "farkle"\ndice = 100\n',
    "negative_face.toml": b'extends = "farkle"\n[faces]\n1 = [-100, 0, 0, 0, 0, 0]\n',
    "huge_face.toml": b'extends = "farkle"\n[faces]\n1 = [1, 0, 1000000000, 0, 0, 0]\n',
    "huge_min.toml": b'extends = "farkle"\nbank_minimum = 1000000000\n',
    "target_neg.toml": b'extends = "farkle"\n[game]\ntarget = -1\n',
    "target_str.toml": b'extends = "farkle"\n[game]\ntarget = "ten"\n',
    "straight_float.toml": (
        b'extends = "farkle"\n[[patterns]]\nkind = "straight"\nfaces = [1.5, 2, 3]\npoints = 500\n'
    ),
    "bad_extends.toml": b'extends = "nope"\n',
    "deep.json": ("[" * 100000 + "]" * 100000).encode(),
    "list.json": b"[1, 2, 3]\n",
    "binary.json": bytes(range(256)) * 4,
    "policy_bad_dice.json": b'{"9": {"300": "bank"}}\n',
    "scores.csv": b"score\n300\n0\n450\n",
    "dashdash.csv": b"score\n--5\n",
    "sup2.csv": "300\n²\n".encode(),
    "long_int.csv": b"1" * 25 + b"\n",
    "float.csv": b"12\n1.5\n",
    "bytes.csv": b"\xff\xfe300\n",
    "empty.csv": b"",
    "header_only.csv": b"score\n",
}
SPECIAL = {"fifo.toml": "fifo", "folder.toml": "folder", "fifo.csv": "fifo", "adir": "folder"}

RULE_FILES = [*(n for n in FILES if n.endswith((".toml", ".json"))), "fifo.toml", "folder.toml"]
RULE_FILES += ["@/missing.toml", "/dev/zero", "/dev/null"]
RESULTS_FILES = [n for n in FILES if n.endswith(".csv") and n != "scores.csv"]
RESULTS_FILES += ["fifo.csv", "adir", "/dev/zero", "@/missing.csv"]
POLICY_FILES = [
    "binary.json",
    "deep.json",
    "list.json",
    "policy_bad_dice.json",
    "empty.toml",
    "adir",
    "/dev/zero",
    "@/missing.json",
]

HAND_WRITTEN = [
    ("zilch", ["advise", "--rules", "bogus"]),
    ("zilch", ["advise", "--rules", ""]),
    ("zilch", ["advise", "--rules", "FARKLE"]),
    ("zilch", ["advise", "--rules", "x" * 5000]),
    ("zilch", ["advise", "--rules", "a\x01b"]),
    ("zilch", ["rules", "bogus"]),
    ("zilch", ["rules", "farkle", "zilch"]),
    ("zilch", ["bogus"]),
    ("zilch", ["advise", "--bogus"]),
    ("zilch", ["advise", "extra"]),
    ("zilch", ["advise", "--dice"]),
    ("zilch", ["advise", "--not-on-board=yes"]),
    ("zilch", ["advise", "--json", "--dice", "9"]),
    ("zilch", ["plot", "bogus"]),
    ("zilch", ["plot", "endgame"]),
    ("zilch", ["export", "--format", "xml"]),
    ("zilch", ["export", "--format", "parquet"]),  # binary to a terminal's stdout
    ("zilch", ["export", "--objective", "bogus"]),
    ("zilch", ["export", "--out", "@/missing/t.csv"]),
    ("zilch", ["export", "--out", "@/adir"]),
    ("zilch", ["export", "--out", ""]),
    ("zilch", ["plot", "endgame", "--out", "@/e.xyz"]),
    ("zilch", ["plot", "endgame", "--out", "@/missing/e.png"]),
    ("zilch", ["plot", "game", "--rules", "zonk-chicago", "--target", "1000", "--out", "@/adir"]),
    ("zilch", ["strategy", "--tables", "@/scores.csv"]),
    ("zilch", ["strategy", "--tables", "/dev/null"]),
    ("zilch", ["advise", "--final-round", "--last-turn", "--score", "9000", "--opponents", "1e4"]),
    (
        "zilch",
        ["advise", "--final-round", "--last-turn", "--score", "9000", "--opponents", "10000"],
    ),
    ("zilch", ["advise", "--rules", "zonk-chicago", "--take-over", "3,200", "--roll", "1,1,5"]),
    ("zilch", ["advise", "--rules", "zonk-chicago", "--take-over", "3,200", "--permanent", "1500"]),
    ("zilch", ["advise", "--rules", "farkle", "--take-over", "3,200"]),
    ("zilch", ["advise", "--dice", "6", "--roll", "1,1,5,3,4,6", "--matched"]),
    ("zilch", ["advise", "--dice", "3", "--turn", "0", "--roll", "1,5,5"]),
    ("zilch", ["advise", "--dice", "3", "--turn", "175"]),
    (
        "zilch",
        [
            "advise",
            "--rules",
            "zilch-online",
            "--dice",
            "4",
            "--turn",
            "1500",
            "--permanent",
            "1500",
        ],
    ),
    ("zilch", ["advise", "--score", str(10**30), "--opponents", "1000"]),
    ("zilch", ["advise", "--score", "9000", "--opponents", ",".join(["9000"] * 29) + ",10000"]),
    ("zilch", ["endgame", "--rules", "zilch-5000", "--final-round", "--scores", "5050,100"]),
    ("zilch", ["endgame", "--rules", "zonk-chicago", "--final-round", "--scores", "10000,9000"]),
    ("zilch", ["endgame", "--deficit", "1000000000"]),
    ("zilch", ["game", "--rules", "zilch-5000", "--target", "1000", "--scores", "100,0"]),
    ("zilch", ["game", "--rules", "zonk-chicago", "--target", "100000"]),
    ("zilch", ["game", "--fairness", "--scores", "0,0", "--rules", "zonk-chicago"]),
    ("zilch", ["simulate", "--turns", str(10**15)]),
    ("zilch", ["verify", "--results", "@/scores.csv", "--rolls", "--column", "x"]),
    ("yahtzee", ["bogus"]),
    ("yahtzee", ["advise"]),
    ("yahtzee", ["value", "--rules", "YAHTZEE"]),
    ("yahtzee", ["value", "--rules", "farkle"]),
    ("yahtzee", ["value", "--upper", "63"]),
    ("yahtzee", ["value", "--yahtzee-bonus"]),
    ("yahtzee", ["value", "--rules", "yatzy", "--filled", "yatzy", "--yahtzee-bonus"]),
    ("yahtzee", ["value", "--json", "--upper", "999"]),
    ("yahtzee", ["export", "--format", "xml"]),
    ("yahtzee", ["simulate", "--games", str(10**15)]),
]


def _cases():
    for cli, base, opt, extra in INT_OPTIONS:
        for v in [*NOT_INTS, *extra]:
            yield cli, [*base, f"{opt}={v}"]
    for cli, base, opt, values in LIST_OPTIONS:
        for v in values:
            yield cli, [*base, f"{opt}={v}"]
    for name in RULE_FILES:
        path = name if "/" in name else f"@/{name}"
        yield "zilch", ["strategy", "--rules", path]
        yield "zilch", ["advise", "--rules", path, "--dice", "3", "--turn", "300"]
    for name in ("binary.toml", "nested.toml", "fifo.toml", "/dev/zero"):
        path = name if "/" in name else f"@/{name}"
        yield "yahtzee", ["value", "--rules", path]
    for name in RESULTS_FILES:
        path = name if "/" in name else f"@/{name}"
        yield "zilch", ["verify", "--results", path]
        yield "zilch", ["verify", "--results", path, "--policy", "@/binary.json"]
    for name in POLICY_FILES:
        path = name if "/" in name else f"@/{name}"
        yield "zilch", ["evaluate", "--policy", path]
        yield "zilch", ["simulate", "--turns", "100", "--policy", path]
    yield from HAND_WRITTEN


CASES = list(_cases())


def test_the_battery_is_at_least_150_inputs():
    assert len(CASES) >= 150 and len({(c, tuple(a)) for c, a in CASES}) == len(CASES)


class Solved(Exception):
    """A hostile input reached a solver instead of being refused."""


def _tripwire(*args, **kwargs):
    raise Solved


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile")
    for name, body in FILES.items():
        (d / name).write_bytes(body)
    for name, kind in SPECIAL.items():
        os.mkfifo(d / name) if kind == "fifo" else (d / name).mkdir()
    return d


@pytest.fixture
def no_solving(monkeypatch, tmp_path):
    from dicesolver.turn import engine
    from dicesolver.yahtzee import numba_kernel as kernel

    monkeypatch.setenv("DICESOLVER_TABLES", str(tmp_path / "tables"))  # nothing stored
    monkeypatch.setattr(engine, "backward", _tripwire)
    monkeypatch.setattr(kernel, "level", _tripwire)
    monkeypatch.setattr(kernel, "batch", _tripwire)


def _argv(args, folder):
    return [a.replace("@/", f"{folder}/") for a in args]


@pytest.mark.parametrize(
    "cli, args", CASES, ids=[f"{i}-{c}-{' '.join(a)[:60]}" for i, (c, a) in enumerate(CASES)]
)
def test_a_hostile_input_is_one_line_and_exit_2(cli, args, folder, no_solving, monkeypatch):
    from dicesolver.cli import main, yahtzee_main

    monkeypatch.chdir(folder)
    res = invoke(main if cli == "zilch" else yahtzee_main, cli, _argv(args, folder), code=None)
    assert not isinstance(res.exception, Solved), "reached a solver instead of refusing"
    err = res.stderr.strip()
    assert (res.exit_code, "Traceback" in err) == (2, False), (res.exit_code, res.output, err)
    assert err and "\n" not in err and "error" in err, err


PROCESS_CASES = [
    ["advise", "--rules", "@/binary.toml"],
    ["advise", "--rules", "@/nested.toml"],
    ["advise", "--rules", "/dev/zero"],
    ["advise", "--rules", "@/fifo.toml"],
    ["verify", "--results", "/dev/zero"],
    ["verify", "--results", "@/long_int.csv"],
    ["advise", "--opponents", str(2**64), "--score", "0"],
    ["simulate", "--seed=-1"],
    ["export", "--out", "@/adir"],
    ["evaluate", "--policy", "@/deep.json"],
    ["advise", "--json", "--dice", "9"],
]


@pytest.mark.slow  # a cold whole process each
@pytest.mark.parametrize("args", PROCESS_CASES, ids=[" ".join(a)[:50] for a in PROCESS_CASES])
def test_a_hostile_input_in_a_whole_process(args, folder, tmp_path):
    env = dict(os.environ, DICESOLVER_TABLES=str(tmp_path / "tables"))
    res = subprocess.run(
        [sys.executable, "-m", "dicesolver", *_argv(args, folder)],
        capture_output=True,
        text=True,
        timeout=30,  # a guard against hanging (a FIFO, /dev/zero), not a speed test
        env=env,
        stdin=subprocess.DEVNULL,
    )
    err = res.stderr.strip()
    assert res.returncode == 2 and "Traceback" not in err and "\n" not in err, err
