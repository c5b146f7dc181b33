"""The threshold tables (yahtzee value/advise --at-least/--beat, docs/method.md "Reaching a
score") against a plain recursion written here from the rules in words: directly over
states and hands, its own dice enumeration, keep values by a transition matrix, its own box
points, bonus and joker rules; nothing shared with solver/yahtzee but the rule file."""

from __future__ import annotations

import json
from functools import cache
from itertools import combinations_with_replacement
from math import factorial, prod

import numpy as np
import pytest

from dicesolver.yahtzee import threshold as TH
from dicesolver.yahtzee.yahtzee_rules import UPPER, from_dict

from .clirun import yahtzee as run  # noqa: F401
from .yahtzee_small import bonus3_toml

UP = lambda f: {"name": UPPER[f - 1], "kind": "upper", "face": f}  # noqa: E731
YAHTZEE = {"name": "yahtzee", "kind": "yahtzee", "points": 50}


def _rules(name, boxes, **keys):
    return from_dict({"name": name, "boxes": boxes, **keys}, f"{name}.toml")


# three boxes with every bonus (upper bonus, Yahtzee bonus, forced joker); three without any
BONUS3 = _rules(
    "t-bonus3",
    [UP(5), UP(6), YAHTZEE],
    upper_bonus=35,
    upper_threshold=20,
    yahtzee_bonus=100,
    joker="forced",
)
PLAIN3 = _rules(
    "t-plain3",
    [
        UP(3),
        {"name": "chance", "kind": "chance"},
        {"name": "three_kind", "kind": "kind", "count": 3, "points": "all"},
    ],
)
HOUSE4 = _rules(  # four boxes: a house and its joker points, the bonus
    "t-house4",
    [
        UP(4),
        UP(6),
        {"name": "full_house", "kind": "house", "groups": [3, 2], "points": 25},
        YAHTZEE,
    ],
    upper_bonus=35,
    upper_threshold=16,
    yahtzee_bonus=100,
    joker="forced",
)
FIVE = _rules(  # five boxes, no upper bonus, a free joker
    "t-five",
    [
        UP(1),
        UP(2),
        {"name": "large_straight", "kind": "straight", "run": 5, "points": 40},
        {"name": "chance", "kind": "chance"},
        YAHTZEE,
    ],
    yahtzee_bonus=100,
    joker="free",
)
FORCED_ORDER = _rules(  # the boxes in their order
    "t-order",
    [UP(6), {"name": "four_kind", "kind": "kind", "count": 4}, UP(5), YAHTZEE],
    upper_bonus=50,
    upper_threshold=20,
    order="forced",
)


# ---- the plain recursion ------------------------------------------------------------------

N = 5
HANDS = list(combinations_with_replacement(range(1, 7), N))
HAND_AT = {h: i for i, h in enumerate(HANDS)}


def _prob(dice):
    counts = [dice.count(f) for f in range(1, 7)]
    return factorial(len(dice)) / prod(factorial(c) for c in counts) / 6 ** len(dice)


@cache
def _keeps():
    """Every keep (a sorted tuple of 0..5 dice), the matrix of its rolled hands, and each
    hand's keeps."""
    keeps = sorted(
        {
            tuple(sorted(k))
            for h in HANDS
            for m in range(1 << N)
            for k in [[h[i] for i in range(N) if m >> i & 1]]
        }
    )
    at = {k: i for i, k in enumerate(keeps)}
    T = np.zeros((len(keeps), len(HANDS)))
    for i, k in enumerate(keeps):
        for r in combinations_with_replacement(range(1, 7), N - len(k)):
            T[i, HAND_AT[tuple(sorted(k + r))]] += _prob(r)
    subs = [
        sorted({at[tuple(h[i] for i in range(N) if m >> i & 1)] for m in range(1 << N)})
        for h in HANDS
    ]
    width = max(len(s) for s in subs)
    sub = np.array([s + [s[0]] * (width - len(s)) for s in subs])
    return T, sub, np.array([_prob(h) for h in HANDS])


def _points(spec, hand):
    """A box's ordinary points, from the rules in words."""
    c = [hand.count(f) for f in range(1, 7)]
    kind = spec.kind
    if kind == "upper":
        return spec.face * c[spec.face - 1]
    if kind == "chance":
        return sum(hand)
    if kind == "yahtzee":
        return spec.points if max(c) == N else 0
    if kind == "kind":  # all the dice, or the group's: that many of the highest face
        faces = [f for f in range(6, 0, -1) if c[f - 1] >= spec.count]
        if not faces:
            return 0
        return sum(hand) if spec.points == "all" else spec.count * faces[0]
    if kind == "house":
        return spec.points if sorted(x for x in c if x) == [2, 3] else 0
    if kind == "straight":
        return (
            spec.points
            if any(all(c[f + i] for i in range(spec.run)) for f in range(7 - spec.run))
            else 0
        )
    raise ValueError(kind)


def _moves(rules, filled, up, y50, hand):
    """(points with bonuses, next state) of every legal box for a final hand."""
    specs = rules.specs
    open_ = [i for i in range(rules.n_boxes) if i not in filled]
    if rules.order == "forced":
        open_ = open_[:1]
    ybox = next((i for i, s in enumerate(specs) if s.kind == "yahtzee"), None)
    special = rules.joker is not None or rules.yahtzee_bonus > 0
    extra = special and ybox in filled and len(set(hand)) == 1
    allowed = {i: _points(specs[i], hand) for i in open_}
    if extra:
        own = [i for i in open_ if specs[i].kind == "upper" and specs[i].face == hand[0]]
        lower = [i for i in open_ if specs[i].kind != "upper"]
        fixed = {i: specs[i].points for i in lower if specs[i].kind in ("house", "straight")}
        if rules.joker == "forced":
            if own:
                allowed = {own[0]: allowed[own[0]]}
            elif lower:
                allowed = {i: fixed.get(i, allowed[i]) for i in lower}
            else:
                allowed = dict.fromkeys(open_, 0)
        elif rules.joker == "free":
            face_filled = any(
                s.kind == "upper" and s.face == hand[0] and i in filled for i, s in enumerate(specs)
            )
            if face_filled:
                allowed = {i: fixed.get(i, p) for i, p in allowed.items()}
    out = []
    for b, pts in allowed.items():
        gain = pts + (rules.yahtzee_bonus if extra and y50 else 0)
        nup = up
        if specs[b].kind == "upper":
            nup = up + pts
            if up < rules.threshold <= nup:
                gain += rules.upper_bonus
        ny = (pts > 0) if b == ybox else y50
        out.append((gain, (filled | {b}, min(nup, rules.threshold), ny)))
    return out


def plain_solver(rules, beat):
    """W(filled, up, y50)[t] for t = 0 .. TOP: the largest chance of making t more points
    (beat: of more than t, a tie counting half)."""
    T, sub, p_hand = _keeps()
    top = TH.highest(rules) + 2

    def get(vec, t):  # t may run below 0 or past the top
        out = np.zeros(top + 1)
        idx = np.arange(top + 1) - t
        out[idx < 0] = 1.0
        ok = (idx >= 0) & (idx <= top)
        out[ok] = vec[idx[ok]]
        return out

    @cache
    def W(filled, up, y50):
        if len(filled) == rules.n_boxes:
            v = np.zeros(top + 1)
            v[0] = 0.5 if beat else 1.0
            return v
        F = np.stack(
            [
                np.max([get(W(*nxt), g) for g, nxt in _moves(rules, filled, up, y50, h)], axis=0)
                for h in HANDS
            ]
        )
        for _ in range(2):  # a roll: keep values by the matrix, the best keep of each hand
            F = (T @ F)[sub].max(axis=1)
        return p_hand @ F

    return W


def _check(rules, kind):
    W = plain_solver(rules, kind == "beat")
    levels = TH.solve(rules, kind)
    lo = TH.KINDS[kind]
    worst = 0.0
    for lv in levels[:-1]:
        for row, (mask, up, yf) in enumerate(lv.states.tolist()):
            filled = frozenset(i for i in range(rules.n_boxes) if mask >> i & 1)
            want = W(filled, up, bool(yf))
            got = np.array([lv.at(row, t) for t in range(len(want))])
            n = lv.off[row + 1] - lv.off[row]
            assert len(want) > n + lo  # the vector's end: 0 past it
            worst = max(worst, float(np.abs(got - want).max()))
    assert worst < 1e-12


QUICK = [BONUS3, PLAIN3]
SLOW = [pytest.param(r, marks=pytest.mark.slow, id=r.name) for r in (HOUSE4, FIVE, FORCED_ORDER)]


@pytest.mark.parametrize("rules", QUICK + SLOW, ids=lambda r: r.name)
@pytest.mark.parametrize("kind", ["atleast", "beat"])
def test_threshold_table_equals_plain_recursion_at_every_t(rules, kind):
    _check(rules, kind)


# ---- against expected-score play (the `evaluate` distribution) ----------------------------

ONE_BOX = [
    _rules("t-only-yahtzee", [YAHTZEE]),
    _rules("t-only-sixes", [UP(6)]),
]


@pytest.mark.parametrize("rules", [BONUS3, PLAIN3, *ONE_BOX], ids=lambda r: r.name)
def test_threshold_play_beats_expected_score_play_at_every_t(rules):
    """P(final >= T) under threshold play >= its chance under expected-score play (the exact
    distribution of yahtzee evaluate), for every T; equal where the sheet has one box (the
    most points and the best chance of each total are the same keeps there)."""
    from dicesolver.yahtzee.distribution import distribution
    from dicesolver.yahtzee.solve import solve

    p = distribution(rules, solve(rules)).p
    tail = p[::-1].cumsum()[::-1]  # P(final >= T)
    top = TH.highest(rules)
    empty = TH.solve(rules, "atleast")[0]
    ours = np.array([empty.at(0, T) for T in range(top + 2)])
    theirs = np.concatenate([tail, np.zeros(top + 2 - len(tail))])
    assert (ours >= theirs - 1e-12).all()
    if rules.n_boxes == 1:
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)
    else:
        assert (ours > theirs + 1e-6).any()  # playing for the mark pays somewhere


# ---- the commands --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bonus3(tmp_path_factory):
    d = tmp_path_factory.mktemp("thr")
    (d / "t-bonus3.toml").write_text(bonus3_toml())
    return str(d / "t-bonus3.toml"), str(d / "tables")


def _json(*args):
    return json.loads(run(*args, "--json").stdout)


def test_cli_value_at_least_and_beat(bonus3):
    path, tables = bonus3
    levels = {k: TH.solve(from_dict_file(path), k) for k in TH.KINDS}
    a = _json("value", "--rules", path, "--tables", tables, "--at-least", "60")
    assert a["p_at_least"] == pytest.approx(levels["atleast"][0].at(0, 60), abs=1e-15)
    assert "p_win" not in a and a["points_needed"] == 60 and a["expected_final"] > 0
    b = _json(
        "value",
        "--rules",
        path,
        "--tables",
        tables,
        "--filled",
        "fives",
        "--upper",
        "15",
        "--score",
        "15",
        "--beat",
        "80",
    )
    lv = levels["beat"][1]
    row = int(np.nonzero((lv.states == [1, 15, 0]).all(axis=1))[0][0])
    assert b["p_win"] == pytest.approx(lv.at(row, 65), abs=1e-15) and "p_at_least" not in b
    assert b["beat"] == 80 and b["score"] == 15
    # the API: the same answer
    import dicesolver as ds

    c = ds.yahtzee_value(path, filled="fives", upper=15, score=15, beat=80, tables=tables)
    assert c.to_dict() == b


def from_dict_file(path):
    from dicesolver.yahtzee.yahtzee_rules import load

    return load(path)


def test_cli_advise_ranks_by_the_chance(bonus3):
    path, tables = bonus3
    a = _json(
        "advise",
        "--rules",
        path,
        "--tables",
        tables,
        "--dice",
        "6,6,6,5,5",
        "--rolls-left",
        "0",
        "--filled",
        "yahtzee",
        "--score",
        "0",
        "--at-least",
        "50",
    )
    # the sixes give 18 + bonus? no: 18 < 20; 50 more points need the bonus: only a chance
    boxes = {o["box"]: o for o in a["options"]}
    assert set(boxes) == {"fives", "sixes"}
    ps = [o["p_at_least"] for o in a["options"]]
    assert ps == sorted(ps, reverse=True) and a["options"][0]["loss"] == 0
    b = _json(
        "advise",
        "--rules",
        path,
        "--tables",
        tables,
        "--dice",
        "1,2,3,6,6",
        "--score",
        "0",
        "--beat",
        "40",
    )
    assert all("p_win" in o and "expected_final" in o and "keep" in o for o in b["options"])
    assert len(b["options"]) == 24  # every sub-multiset of 1,2,3,6,6


@pytest.mark.parametrize(
    "args, words",
    [
        (["value", "--at-least", "1576"], "0 .. 1575"),
        (["value", "--beat", "-1"], "0 .. 1575"),
        (["value", "--at-least", "10", "--beat", "10"], "not both"),
        (["value", "--score", "10"], "--at-least"),
        (
            ["value", "--filled", "ones", "--upper", "3", "--score", "2", "--at-least", "200"],
            "--score 2",
        ),
        (
            ["value", "--filled", "ones", "--upper", "3", "--score", "9", "--at-least", "200"],
            "--score 9",
        ),
        (
            ["value", "--filled", "ones", "--upper", "7", "--score", "4", "--at-least", "200"],
            "--upper 7",
        ),
        (["value", "--filled", "yahtzee", "--score", "10", "--at-least", "200"], "--score 10"),
        (
            ["value", "--filled", "yahtzee", "--yahtzee-bonus", "--score", "0", "--at-least", "9"],
            "--score 0",
        ),
        (["value", "--yahtzee-bonus", "--score", "0", "--at-least", "9"], "--yahtzee-bonus"),
        (["advise", "--dice", "1,2,3,4,5", "--at-least", "2000"], "0 .. 1575"),
    ],
)
def test_cli_bad_goals_exit_2_with_one_line(args, words, tmp_path):
    res = run(*args, "--tables", str(tmp_path), code=2)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], res.stderr


def test_stored_levels_resume_and_match_the_memory_solve(tmp_path, monkeypatch):
    """Each level is a checksummed file of the store: a build that lost some levels solves
    only those again, from the deepest level stored."""
    from dicesolver.store import Store

    store = Store(tmp_path)
    want = TH.solve(BONUS3, "beat")
    got = TH.level(BONUS3, store, "beat", 0)
    np.testing.assert_array_equal(got.data, want[0].data)
    for k in (0, 1):
        store.path(BONUS3.name, BONUS3.digest(), TH.objective("beat", k)).unlink()
    solved = []
    real = TH.solve_level
    monkeypatch.setattr(TH, "solve_level", lambda r, k, *a: solved.append(k) or real(r, k, *a))
    again = TH.level(BONUS3, store, "beat", 0)
    assert solved == [1, 0]
    np.testing.assert_array_equal(again.data, want[0].data)


@pytest.mark.slow
def test_numba_fallback_equals_the_c_kernel(monkeypatch):
    """Without the C kernel numba compiles threshold_widget.py: the same tables."""
    want = TH.solve(FIVE, "atleast")
    monkeypatch.setattr(TH, "compiled_level", lambda: None)
    got = TH.solve(FIVE, "atleast")
    for a, b in zip(want, got):
        np.testing.assert_allclose(a.data, b.data, rtol=0, atol=1e-15)


def test_cli_goal_text(bonus3):
    path, tables = bonus3
    out = run("value", "--rules", path, "--tables", tables, "--at-least", "60").stdout
    assert "P(final >= 60)" in out and "expected final" in out
    args = ("--rules", path, "--tables", tables, "--dice", "6,6,6,5,5", "--beat", "40")
    assert "P(beating 40)" in run("advise", *args).stdout


def _level_file(store, kind, k):
    return store.path(BONUS3.name, BONUS3.digest(), TH.objective(kind, k))


def _flip(path, element):
    """Change one byte of data[element] in a stored level file, in place."""
    from dicesolver.store import MAGIC

    raw = bytearray(path.read_bytes())
    header = json.loads(raw[len(MAGIC) : raw.index(b"\n", len(MAGIC))])
    sizes = {item["name"]: 8 * int(np.prod(item["shape"])) for item in header["layout"]}
    start = raw.index(b"\n", len(MAGIC)) + 1 + sizes["states"] + sizes["off"]
    raw[start + 8 * element] ^= 0x40
    path.write_bytes(bytes(raw))


def test_a_query_checks_only_the_blocks_it_reads_and_rebuilds_a_corrupt_one(tmp_path, monkeypatch):
    """A cold query maps a level and checks the digests of the blocks it reads, not the
    whole file: a corrupt block elsewhere is not read (the answer is still right); a corrupt
    block it reads is found and the level rebuilt, whole again."""
    from dicesolver.store import Store, load
    from dicesolver.yahtzee import threshold_store as TS

    monkeypatch.setattr(TS, "BLOCK", 256)  # 32 values a block: a level of many blocks
    store = Store(tmp_path)
    want = TH.solve(BONUS3, "atleast")
    TH.level(BONUS3, store, "atleast", 0)
    lv = want[1]
    state = tuple(int(x) for x in lv.states[0])
    mine = range(int(lv.off[0]) // 32, (int(lv.off[1]) - 1) // 32 + 1)
    far = next(k for k in range(len(lv.data) // 32) if k not in mine)
    solved = []
    real = TH.solve_level
    monkeypatch.setattr(TH, "solve_level", lambda r, k, *a: solved.append(k) or real(r, k, *a))
    path = _level_file(store, "atleast", 1)
    _flip(path, far * 32 + 3)
    for t in (1, 20, 60):
        assert TH.chance(BONUS3, store, "atleast", state, t) == lv.at(0, t)
    assert solved == [] and load(path, {}) is None  # not read: not rebuilt (yet)
    _flip(path, int(lv.off[0]) + 1)
    for t in (1, 20, 60):
        assert TH.chance(BONUS3, store, "atleast", state, t) == lv.at(0, t)
    assert solved == [1] and load(path, {}) is not None
    np.testing.assert_array_equal(TH.level(BONUS3, store, "atleast", 1).data, lv.data)


def test_corrupt_states_or_an_old_layout_are_rebuilt(tmp_path):
    """The small arrays are checked whole at every query; a file without block digests (an
    older layout) is stale."""
    from dicesolver.store import MAGIC, Store, save

    store = Store(tmp_path)
    want = TH.solve(BONUS3, "beat")
    TH.level(BONUS3, store, "beat", 0)
    path = _level_file(store, "beat", 2)
    raw = bytearray(path.read_bytes())
    raw[raw.index(b"\n", len(MAGIC)) + 1] ^= 1  # states[0, 0]
    path.write_bytes(bytes(raw))
    assert TH.mapped(BONUS3, store, "beat", 2) is None
    assert TH.mapped(BONUS3, store, "beat", 1) is not None
    old = _level_file(store, "beat", 1)  # as level files were written before: no digests
    obj = {"objective": TH.objective("beat", 1), "rules_hash": BONUS3.digest()}
    save(
        old,
        dict(obj, lo=0, level=1),
        {"states": want[1].states, "off": want[1].off, "data": want[1].data},
    )
    assert TH.mapped(BONUS3, store, "beat", 1) is None
    assert TH.level(BONUS3, store, "beat", 1).blocks is None  # rebuilt
    assert TH.mapped(BONUS3, store, "beat", 1) is not None
    state = tuple(int(x) for x in want[2].states[5])
    assert TH.chance(BONUS3, store, "beat", state, 7) == want[2].at(5, 7)
    assert TH.mapped(BONUS3, store, "beat", 2) is not None


def test_an_interrupted_build_resumes_at_the_level_it_stopped(tmp_path, monkeypatch):
    """Each level is stored as soon as it is solved: a build stopped while solving level 1
    solves only levels 1 and 0 when run again."""
    from dicesolver.store import Store

    store = Store(tmp_path)
    real, solved = TH.solve_level, []

    def stop(r, k, *a):
        if k == 1:
            raise KeyboardInterrupt
        return real(r, k, *a)

    monkeypatch.setattr(TH, "solve_level", stop)
    with pytest.raises(KeyboardInterrupt):
        TH.level(BONUS3, store, "atleast", 0)
    assert [k for k in range(3) if _level_file(store, "atleast", k).exists()] == [2]
    monkeypatch.setattr(TH, "solve_level", lambda r, k, *a: solved.append(k) or real(r, k, *a))
    got = TH.level(BONUS3, store, "atleast", 0)
    assert solved == [1, 0]
    np.testing.assert_array_equal(got.data, TH.solve(BONUS3, "atleast")[0].data)
    assert not list(tmp_path.glob("*.tmp"))


def test_cli_answers_past_a_corrupt_level(bonus3):
    """A corrupt level file costs a rebuild, not a wrong answer."""
    from pathlib import Path

    path, tables = bonus3
    args = ("--rules", path, "--tables", tables, "--at-least", "60")
    first = _json("value", *args)
    for f in Path(tables).glob("*-yahtzee-atleast-L0.dst"):
        _flip(f, 5)
    assert _json("value", *args) == first
