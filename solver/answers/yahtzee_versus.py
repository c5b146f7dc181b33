"""Yahtzee against other players: `yahtzee advise --score S --opponents SHEETS` (every option
by its chance of winning against the opponents' sheets) and `yahtzee versus` (score-blind
strategies against each other, exactly; the heuristic by simulated games).  docs/method.md,
"Against other players" and "Strategies against each other".

An opponent's sheet (`--opponents`, sheets separated by ";"; the API takes the same text, or
a list of such texts, final scores or dicts with the keys score, filled, upper,
yahtzee_bonus):
  236                          a finished opponent's final score
  new                          an opponent who has not played yet (the empty sheet)
  80 f=1s,2s,ch u=5 y          80 points on the sheet, those boxes filled, upper total 5, the
                               Yahtzee box holding its points (y); long names: score=,
                               filled=, upper=, ybonus
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError
from ..progress import SILENT, Progress
from ..store import Store
from ..yahtzee import opponents as OP
from ..yahtzee import solitaire as Y
from ..yahtzee import threshold as TH
from ..yahtzee.final_scores import final_score
from ..yahtzee.hands import keep_graph
from ..yahtzee.yahtzee_rules import YahtzeeRules
from .answer import Answer, optional
from .inputs import Tables_
from .yahtzee_target import check_score, prob

Sheets = str | Sequence[str | int | Mapping[str, Any]]
KEYS = {"f": "filled", "u": "upper", "y": "ybonus", "s": "score", "yahtzee_bonus": "ybonus"}
EXACT = "exact-final-scores"  # every opponent finished, at most one at the top
HEURISTIC = "pawlewicz-heuristic"


@dataclass(frozen=True)
class Sheet:
    """An opponent's sheet: finished (state None: score is the final score) or playing."""

    score: int
    state: Y.SheetState | None

    def describe(self, rules: YahtzeeRules) -> dict:
        if self.state is None:
            return {"score": self.score, "finished": True}
        st = self.state
        filled = [b for i, b in enumerate(rules.boxes) if st.mask >> i & 1]
        return {
            "score": self.score,
            "finished": False,
            "filled": filled,
            "upper": st.upper,
            "yahtzee_bonus": bool(st.yf),
        }


def _fields(text: str) -> dict[str, Any]:
    """A sheet's text as its fields (score, filled, upper, ybonus)."""
    out: dict[str, Any] = {}
    for tok in text.split():
        key, eq, val = tok.partition("=")
        key = KEYS.get(key.lower(), key.lower())
        if not eq and key.lstrip("-").isdigit():
            key, val = "score", key
        elif not eq and key in ("ybonus", "new", "start"):
            val = "1"
        if key not in ("score", "filled", "upper", "ybonus", "new", "start") or key in out:
            raise InputError(f"{tok!r}: a sheet is SCORE [f=BOX,...] [u=UPPER] [y], or new")
        out[key] = val
    return out


def _int(val: Any, what: str) -> int:
    try:
        return int(val)
    except (TypeError, ValueError):
        raise InputError(f"{what} is a whole number, got {val!r}") from None


def parse_sheet(rules: YahtzeeRules, spec: str | int | Mapping[str, Any]) -> Sheet:
    """One opponent's sheet (InputError: a sheet no game can have)."""
    if isinstance(spec, Mapping):
        f = {KEYS.get(k, k): v for k, v in spec.items()}
        if isinstance(f.get("filled"), (list, tuple)):
            f["filled"] = ",".join(f["filled"])
    else:
        f = {"score": spec} if isinstance(spec, int) else _fields(str(spec))
    if f.keys() & {"new", "start"}:
        if len(f) > 1:
            raise InputError("'new' is an empty sheet: it takes no other field")
        return Sheet(0, Y.SheetState(0, 0, 0))
    score = _int(f.get("score"), "a sheet's score")
    filled = str(f.get("filled") or "")
    mask = 0
    for name in filled.split(","):
        mask |= 1 << Y.box_name(rules, name) if name.strip() else 0
    top = TH.highest(rules)
    if f.keys() == {"score"} or mask == (1 << rules.n_boxes) - 1:
        if not 0 <= score <= top:
            raise InputError(f"a final score of {rules.name} is 0 .. {top}, got {score}")
        return Sheet(score, None)
    ybonus = f.get("ybonus") not in (None, False, "0", 0)
    state = Y.parse_state(rules, filled, _int(f.get("upper", 0), "upper"), ybonus)
    check_score(rules, state, score)
    return Sheet(score, state)


def parse_sheets(rules: YahtzeeRules, opponents: Sheets) -> list[Sheet]:
    """Every opponent's sheet; InputError naming the sheet that cannot happen."""
    items: Sequence[Any] = opponents.split(";") if isinstance(opponents, str) else opponents
    items = [s for s in items if not (isinstance(s, str) and not s.strip())]
    if not items:
        raise InputError("opponents: give at least one sheet (e.g. 236, or 80 f=1s,ch u=1)")
    out = []
    for k, spec in enumerate(items, 1):
        try:
            out.append(parse_sheet(rules, spec))
        except InputError as e:
            raise InputError(f"opponents, sheet {k} ({spec!r}): {e}", "opponents") from None
    return out


def opponent_finals(
    rules: YahtzeeRules, store: Store, sheets: list[Sheet], progress: Progress
) -> list[np.ndarray]:
    """Each opponent's final-score distribution: a finished one's score, else expected-score
    play from the sheet (final_scores.py, exact)."""
    out = []
    for s in sheets:
        if s.state is None:
            p = np.zeros(s.score + 1)
            p[s.score] = 1.0
        else:
            key = (s.state.mask, s.state.capped(rules), s.state.yf)
            p = final_score(rules, store, key, s.score, 0.0, progress)
        out.append(p)
    return out


def exactness(sheets: list[Sheet]) -> tuple[bool, str]:
    """(exact, method) of a P(win) against these sheets."""
    if any(s.state is not None for s in sheets):
        return False, HEURISTIC
    tops = [s.score for s in sheets]
    return tops.count(max(tops)) == 1, EXACT


TIES = (
    "a tie with the opponents' best final score counts 1/2 (the beat table's count), "
    "however many opponents share it"
)


@dataclass(frozen=True)
class YahtzeeOpponentsAnswer(Answer):
    """P(win) against the opponents' sheets: every option's (advise) or the state's (value)."""

    rules: str
    filled: list[str]
    upper: int
    yahtzee_bonus: bool
    score: int
    opponents: list[dict]  # each sheet, with its mean final score
    opponents_best_mean: float  # the mean of the opponents' best final score
    p_win: float  # the best option's (advise) or the state's (value)
    expected_final: float  # (advise: the best option's) under expected-score play
    exact: bool
    method: str
    ties: str
    dice: list[int] | None = optional()
    rolls_left: int | None = optional()
    options: list[dict] | None = optional()  # keep or box, p_win, expected_final, loss


def _against(
    rs: YahtzeeRules,
    state: Y.SheetState,
    score: int,
    opponents: Sheets,
    store: Store,
    progress: Progress,
) -> tuple[list[Sheet], list[np.ndarray], np.ndarray]:
    check_score(rs, state, score)
    sheets = parse_sheets(rs, opponents)
    finals = opponent_finals(rs, store, sheets, progress)
    return sheets, finals, OP.best_of(finals)


def _answer(
    rs: YahtzeeRules,
    state: Y.SheetState,
    score: int,
    against: tuple[list[Sheet], list[np.ndarray], np.ndarray],
    p_win: float,
    expected: float,
    **more: Any,
) -> YahtzeeOpponentsAnswer:
    sheets, finals, best = against
    described = [
        dict(s.describe(rs), mean_final=float(np.arange(len(p)) @ p))
        for s, p in zip(sheets, finals)
    ]
    exact, method = exactness(sheets)
    return YahtzeeOpponentsAnswer(
        rs.name,
        [b for i, b in enumerate(rs.boxes) if state.mask >> i & 1],
        state.upper,
        bool(state.yf),
        score,
        described,
        float(np.arange(len(best)) @ best),
        prob(p_win),
        expected,
        exact,
        method,
        TIES,
        **more,
    )


def opponents_value(
    rs: YahtzeeRules,
    state: Y.SheetState,
    score: int,
    opponents: Sheets,
    tables: Tables_,
    progress: Progress = SILENT,
) -> YahtzeeOpponentsAnswer:
    """The chance of winning from a state between turns against the opponents' sheets."""
    store = _store(tables)
    against = _against(rs, state, score, opponents, store, progress)
    best = against[2]
    key = (state.mask, state.capped(rs), state.yf)
    w = OP.state_vector(rs, store, key, *OP.span(best, score), progress)
    mean = score + Y.value(rs, Y.game_table(rs, store, progress), state)
    return _answer(rs, state, score, against, float(OP.heuristic(best, score, w)), mean)


def by_chance(
    rs: YahtzeeRules, opts: list[dict[str, Any]], chance: Any, score: int | None = None
) -> list[dict[str, Any]]:
    """Y.advise's options (each keep or open box) with their chance of winning (`chance`:
    a row a keep, keep_graph's, else a row a box) and their expected score beside (the
    final, `score` on, else the points to come): best first (ties: the larger expected
    score), each with its loss of chance against the best."""
    field = "expected_points" if score is None else "expected_final"
    where = {tuple(c): i for i, c in enumerate(keep_graph(rs.dice).counts.tolist())}
    out = []
    for d in opts:
        if "box" in d:
            row, label = rs.boxes.index(d["box"]), {"box": d["box"]}
        else:
            row = where[tuple(d["keep"].count(f) for f in range(1, 7))]
            label = {"keep": d["keep"]}
        value = d["value"] if score is None else score + d["value"]
        out.append(dict(label, p_win=prob(chance[row]), **{field: value}))
    out.sort(key=lambda d: (-d["p_win"], -d[field]))
    for d in out:
        d["loss"] = out[0]["p_win"] - d["p_win"]
    return out


def opponents_advice(
    rs: YahtzeeRules,
    state: Y.SheetState,
    hand: Sequence[int],
    rolls_left: int,
    score: int,
    opponents: Sheets,
    tables: Tables_,
    progress: Progress = SILENT,
) -> YahtzeeOpponentsAnswer:
    """Every keep (or box) by its chance of winning against the opponents' sheets (the
    heuristic: my threshold play re-chosen for each final score of theirs), with its
    expected final score under expected-score play beside."""
    store = _store(tables)
    against = _against(rs, state, score, opponents, store, progress)
    best = against[2]
    dice = tuple(hand)
    opts = Y.advise(rs, Y.game_table(rs, store, progress), state, dice, rolls_left)
    key = (state.mask, state.capped(rs), state.yf)
    vec = OP.option_vectors(
        rs, store, key, Y.hand_index(dice), rolls_left, OP.span(best, score), progress
    )
    p = OP.heuristic(best, score, vec)
    out = by_chance(rs, opts, p, score)
    top = out[0]
    return _answer(
        rs,
        state,
        score,
        against,
        top["p_win"],
        top["expected_final"],
        dice=list(dice),
        rolls_left=rolls_left,
        options=out,
    )


def _store(tables: Tables_) -> Store:
    return tables if isinstance(tables, Store) else Store.resolve(tables)


# ---- yahtzee versus ------------------------------------------------------------------------


@dataclass(frozen=True)
class Policy:
    """A player as `yahtzee versus` names one."""

    name: str  # as given
    kind: str  # "expected", "utility" or "heuristic"
    theta: float = 0.0


def parse_policy(text: str, field: str) -> Policy:
    """optimal | expected | utility:THETA | heuristic (InputError otherwise)."""
    t = text.strip().lower()
    if t in ("optimal", "expected"):
        return Policy(t, "expected")
    if t == "heuristic":
        return Policy(t, "heuristic")
    kind, _, arg = t.partition(":")
    if kind == "utility":
        try:
            theta = float(arg)
        except ValueError:
            raise InputError(f"{field}: utility:THETA takes a number, got {arg!r}", field) from None
        if not (np.isfinite(theta) and abs(theta) <= 1.0):
            raise InputError(f"{field}: theta is a number in -1 .. 1, got {arg}", field)
        return Policy(t, "utility" if theta else "expected", theta)
    if kind == "threshold":
        raise InputError(
            f"{field}: threshold:T (play for P(final >= T)) is not available in versus yet: "
            "its final-score distribution needs a forward pass over the points so far",
            field,
        )
    raise InputError(
        f"{field}: a policy is optimal, expected, utility:THETA or heuristic; got {text!r}", field
    )


@dataclass(frozen=True)
class YahtzeeVersus(Answer):
    rules: str
    policy: str
    vs: str
    players: int  # me against players - 1 copies of vs
    p_win: float  # my share of the wins, ties at the top split evenly among all tied
    fair_share: float  # 1 / players
    exact: bool
    method: str
    mean: float  # my mean final score
    vs_mean: float
    stderr: float | None = optional()  # simulated: the standard error of p_win
    games: int | None = optional()
    seed: int | None = optional()


def yahtzee_versus(
    rules: str | YahtzeeRules = "yahtzee",
    policy: str = "heuristic",
    vs: str = "optimal",
    players: int = 2,
    games: int = 1000,
    seed: int = 0,
    tables: Tables_ = None,
    progress: Progress = SILENT,
) -> YahtzeeVersus:
    """My chance of winning playing `policy` against players - 1 opponents playing `vs`:
    exact from the independent final-score distributions where both are score-blind; by
    `games` simulated games (with the standard error) where one is the heuristic."""
    from ..yahtzee.yahtzee_rules import load

    rs = rules if isinstance(rules, YahtzeeRules) else load(rules)
    me, them = parse_policy(policy, "policy"), parse_policy(vs, "vs")
    if not 2 <= players <= 8:
        raise InputError(f"players: 2 .. 8, got {players}", "players")
    if them.kind == "heuristic":
        raise InputError("vs: the heuristic plays as --policy, against a score-blind --vs", "vs")
    store = _store(tables)
    if me.kind == "heuristic":
        return _simulated(rs, me, them, players, games, seed, store, progress)
    mine = game_finals(rs, store, me.theta, progress)
    theirs = game_finals(rs, store, them.theta, progress)
    p = OP.win_share(mine, [theirs] * (players - 1))
    return YahtzeeVersus(
        rs.name,
        me.name,
        them.name,
        players,
        prob(p),
        1 / players,
        True,
        "independent-final-scores",
        _mean(mine),
        _mean(theirs),
    )


def game_finals(rs: YahtzeeRules, store: Store, theta: float, progress: Progress) -> np.ndarray:
    """The final-score distribution of a whole game of score-blind play, stored: `yahtzee
    evaluate`'s at theta 0, else objective yahtzee-utility-<theta>-distribution."""
    if theta == 0.0:
        return np.asarray(Y.score_distribution(rs, store, progress)["p"])

    def build() -> tuple[dict, dict]:
        p = final_score(rs, store, (0, 0, 0), 0, theta, progress)
        return {"rules_name": rs.name, "theta": theta}, {"p": p}

    objective = f"yahtzee-utility-{theta!r}-distribution"
    _, arrays = store.cached(rs.name, rs.digest(), objective, build)
    return np.asarray(arrays["p"])


def _mean(p: np.ndarray) -> float:
    return float(np.arange(len(p)) @ p)


def _simulated(
    rs: YahtzeeRules,
    me: Policy,
    them: Policy,
    players: int,
    games: int,
    seed: int,
    store: Store,
    progress: Progress,
) -> YahtzeeVersus:
    """The heuristic against score-blind play, by simulated games."""
    from ..limits import check_time
    from ..progress import steps
    from ..yahtzee.final_scores import policy_table
    from ..yahtzee.versus_games import Heuristic, Table, heuristic_game, share

    if games < 1:
        raise InputError(f"games must be at least 1, got {games}", "games")
    check_time(
        games * rs.n_boxes * (0.03 + players * 0.002),
        f"simulating {games} games",
        "ask for fewer games",
    )
    E = Y.game_table(rs, store, progress)
    for k in range(rs.n_boxes + 1):  # the beat tables, built before the games
        TH.built_level(rs, store, "beat", k, progress)
    heur = Heuristic(rs, store, E)
    heur.prepare(progress)
    other = Table(rs, policy_table(rs, them.theta, store, progress), them.theta)
    rng = np.random.default_rng(seed)
    gain, mine, theirs = [], [], []
    with steps(progress, "simulating games", games):
        for _ in range(games):
            a, twin, others = heuristic_game(rs, heur, other, players, rng)
            gain.append(share(a, others) - share(twin, others))
            mine.append(a)
            theirs += others
            progress.advance(1)
    w = 1 / players + np.array(gain)  # the twin's share has mean 1 / players exactly
    se = float(w.std(ddof=1) / np.sqrt(games)) if games > 1 else 0.0
    # (a game's term lies in [1/n - 1, 1/n + 1]: the mean of a few may leave [0, 1])
    p_win = min(max(float(w.mean()), 0.0), 1.0)
    return YahtzeeVersus(
        rs.name,
        me.name,
        them.name,
        players,
        p_win,
        1 / players,
        False,
        "paired-simulated-games",
        float(np.mean(mine)),
        float(np.mean(theirs)),
        se,
        games,
        seed,
    )
