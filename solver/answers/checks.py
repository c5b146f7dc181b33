"""Checking a simulator: the exact distribution of a policy's turn (evaluate), the same turns
played with physical dice (simulate), and a verdict on someone's samples (verify)."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO

import numpy as np

from ..errors import InputError
from ..files import atomic_file
from ..limits import TURNS_PER_SECOND, check_time
from ..outcomes.frozen import faces_of
from ..play.batches import count_turns
from ..play.evaluate import Distribution
from ..play.evaluate import evaluate as exact_distribution
from ..play.named_policies import resolve_policy, zilch_cost
from ..play.simulate import sample_moments
from ..play.verify import read_rolls, read_scores, verify_rolls, verify_scores
from ..progress import SILENT, Progress
from ..rules import RuleSet
from .answer import Answer, hidden, optional
from .inputs import Rules, Tables_, refuse_pyramiding, rule_set, tables_of, turn_state, zilches_of

if TYPE_CHECKING:
    from ..outcomes.model import TurnModel
    from ..play.policies import Policy
    from .versus import GamesSimulation, GamesVerdict

QUANTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)


# --- zilch evaluate ------------------------------------------------------------------------
@dataclass(frozen=True)
class Evaluation(Answer):
    rules: str
    policy: str
    mean: float
    std: float
    p_zilch: float
    quantiles: dict[int, int]
    distribution: dict[int, float]
    residual: float
    dice: int
    turn: int
    zilches: int | None = optional()  # (with a penalty for the third zilch in a row)
    frozen: list[int] | None = optional()  # (pyramiding: dice frozen since the pick-up)


def evaluate(
    rules: Rules = "farkle",
    policy: str = "optimal",
    dice: int | None = None,
    turn: int = 0,
    permanent: int = 0,
    not_on_board: bool = False,
    zilches: int = 0,
    beat: int = 0,
    frozen: str | list[int] | None = None,
    tables: Tables_ = None,
) -> Evaluation:
    """The exact distribution of the points a turn records under a policy (after
    `zilches` zilches in a row: a zilch after two costs the penalty too; with overtaking,
    a bank must beat `beat`; frozen: under pyramiding, the dice frozen since the last
    pick-up)."""
    rs = rule_set(rules).beating(beat)
    k = zilches_of(rs, zilches)
    tab = tables_of(rs, tables)
    state = turn_state(rs, dice, turn, permanent, frozen)
    tab.check(state)
    on = not not_on_board
    strat = resolve_policy(policy, tab, on, k)
    dist = exact_distribution(tab.model, strat, on, state, zilch_cost(rs, k, on))
    return Evaluation(
        rs.name,
        policy,
        dist.mean,
        dist.std,
        dist.p_zilch,
        {k: dist.quantile(k / 100) for k in QUANTILES},
        dist.as_dict(),
        dist.residual,
        state.dice,
        turn,
        k if rs.three_zilch_penalty else None,
        faces_of(state.frozen) if rs.pyramiding else None,
    )


# --- zilch simulate ------------------------------------------------------------------------


@dataclass(frozen=True)
class Simulation(Answer):
    rules: str
    policy: str
    turns: int
    seed: int
    mean: float
    stderr: float
    exact_mean: float
    z: float
    std: float
    exact_std: float
    exact_p_zilch: float
    distribution: dict[int, float]
    zilches: int | None = optional()  # (with a penalty for the third zilch in a row)
    exact: Distribution = hidden()
    counts: dict[int, int] = hidden()


def simulate(
    rules: Rules = "farkle",
    policy: str = "optimal",
    turns: int = 1_000_000,
    seed: int = 0,
    not_on_board: bool = False,
    zilches: int = 0,
    out: str | None = None,
    beat: int = 0,
    log: str | None = None,
    tables: Tables_ = None,
    progress: Progress = SILENT,
    force: bool = False,
    append: bool = False,
    games: int | None = None,
    vs: str | None = None,
    scores: str | list[int] | None = None,
    target: int | None = None,
) -> Simulation | GamesSimulation:
    """Monte Carlo turns with physical dice (seeded), next to the exact figures.  Played
    in batches, counted as they come (memory does not grow with the turns); out: also
    every turn's score, one per line.  beat: with overtaking, a bank must beat it.  log:
    also every roll and decision, one JSON line each (play/log.py: `zilch review` reads
    it; each line's "n" is its turn).  An existing `out` or `log` is refused unless force
    (overwrite) or append (add to it); never the rule or policy file.  games: whole
    two-player games instead, `policy` moving first at `scores` against `vs`
    (answers/versus.py; out: every game's winner)."""
    if games is not None or vs is not None or scores is not None or target is not None:
        if append:
            raise InputError("--append adds to a file of turn scores: --games writes its own")
        out, _ = _results_files(out, None, force, append, [rules, policy, vs])
        turn_options: dict[str, object] = dict(
            not_on_board=not_on_board, zilches=zilches, beat=beat, log=log
        )
        return _games(
            rules, games, policy, vs, seed, scores, target, out, tables, progress, turn_options
        )
    rs = rule_set(rules).beating(beat)
    out, log = _results_files(out, log, force, append, [rules, policy])
    k = zilches_of(rs, zilches)
    _check_turns(rs, turns, log)
    tab = tables_of(rs, tables)
    on = not not_on_board
    strat = resolve_policy(policy, tab, on, k)
    cost = zilch_cost(rs, k, on)
    fields = _log_fields(rules if isinstance(rules, str) else rs.name, on, k, beat)
    units = (cost[0] // rs.unit, cost[1] // rs.unit)
    fast = strat.compile(tab.model)  # type: ignore[attr-defined]
    counts = _counted(tab.model, fast, turns, seed, on, units, progress, out, log, append, fields)
    exact = exact_distribution(tab.model, strat, on, None, cost)
    mean, std, se = sample_moments(list(counts), list(counts.values()))
    dist = {v: c / turns for v, c in sorted(counts.items())}
    z = (mean - exact.mean) / se if se else 0.0
    zilch_count = k if rs.three_zilch_penalty else None
    return Simulation(
        rs.name, policy, turns, seed, mean, se, exact.mean, z, std, exact.std, exact.p_zilch,
        dist, zilch_count, exact, dict(sorted(counts.items())),
    )  # fmt: skip


def _check_turns(rs: RuleSet, turns: int, log: str | None) -> None:
    """The turns to simulate: at least one, within the time a query may take; a decision
    log where the log can say every decision."""
    if turns < 1:
        raise InputError(f"--turns must be at least 1, got {turns}")
    if log is not None:
        refuse_pyramiding(rs, "--log (the decision log)")
    check_time(turns / TURNS_PER_SECOND, f"simulating {turns} turns", "ask for fewer --turns")


def _log_fields(rules: str, on: bool, k: int, beat: int) -> dict[str, object]:
    """What every line of a simulated turn's log carries besides its roll."""
    fields: dict[str, object] = {"rules": rules}
    fields.update({"on_board": False} if not on else {})
    fields.update({"zilches": k} if k else {}, **({"beat": beat} if beat else {}))
    return fields


def _counted(
    model: TurnModel,
    fast: Policy,
    turns: int,
    seed: int,
    on: bool,
    units: tuple[int, int],
    progress: Progress,
    out: str | None,
    log: str | None,
    append: bool,
    fields: dict[str, object],
) -> dict[int, int]:
    """The turns played (play/batches.py), each turn's score to `out` (a header line
    first) and each decision to `log` as they come."""
    with contextlib.ExitStack() as stack:
        score_file = stack.enter_context(_results(out, append)) if out else None
        if score_file is not None and not (append and score_file.tell()):
            score_file.write(b"score\n")
        decisions = stack.enter_context(_results(log, append)) if log else None
        rng = np.random.default_rng(seed)
        return count_turns(
            model, fast, turns, rng, on, units, progress, score_file, decisions, fields
        )


def _results_files(
    out: str | None, log: str | None, force: bool, append: bool, reading: list
) -> tuple[str | None, str | None]:
    """simulate's --out and --log, checked before any work (files.new_file)."""
    from ..files import new_file

    out = None if out is None else new_file(out, "out", force, append, reading)
    log = None if log is None else new_file(log, "log", force, append, reading)
    if (
        out is not None
        and log is not None
        and os.path.abspath(out) == os.path.abspath(log)
        and (not os.path.exists(log) or os.path.isfile(log))  # (/dev/null twice: fine)
    ):
        raise InputError(f"--out and --log are the same file ({out}): give two")
    return out, log


def _results(path: str, append: bool) -> contextlib.AbstractContextManager[BinaryIO]:
    """A results file: added to as it comes (append), else written whole, atomically."""
    if not append:
        return atomic_file(path)
    try:
        return open(path, "ab")
    except OSError as e:
        raise InputError(f"{path}: cannot write it ({e.strerror})") from None


def _games(
    rules: Rules,
    games: int | None,
    policy: str,
    vs: str | None,
    seed: int,
    scores: str | list[int] | None,
    target: int | None,
    out: str | None,
    tables: Tables_,
    progress: Progress,
    given: dict[str, object],
) -> GamesSimulation:
    """simulate --games: whole games (answers/versus.py); the turn's options refused."""
    from .versus import simulate_games

    if games is None:
        raise InputError("--vs, --scores and --target are for --games (whole games)")
    for key, value in given.items():
        if value:
            flag = "--" + key.replace("_", "-")
            raise InputError(f"{flag} is an option of simulated turns, not of --games")
    return simulate_games(rules, games, policy, vs, seed, scores, target, out, tables, progress)


# --- zilch simulate --long-run -------------------------------------------------------------
@dataclass(frozen=True)
class ZilchTurn:
    """A policy's turn after k zilches in a row, exactly."""

    mean: float  # recorded points, the penalty included after two zilches
    p_zilch: float
    relative_value: float


@dataclass(frozen=True)
class LongRun(Answer):
    rules: str
    policy: str
    players: int
    turns_each: int
    seed: int
    average: float  # points per turn, each player's figure corrected by the relative values
    stderr: float
    exact_average: float
    z: float
    raw_average: float  # total points / turns, uncorrected (biased by the start, k = 0)
    by_zilches: dict[int, ZilchTurn]


def simulate_long_run(
    rules: Rules = "farkle",
    policy: str = "optimal",
    turns: int = 1_000_000,
    seed: int = 0,
    tables: Tables_ = None,
    progress: Progress = SILENT,
) -> LongRun:
    """Turns played one after another by many players (on the board, from no zilch in a
    row), the third zilch in a row costing the penalty: the average points per turn next
    to the policy's exact long-run average.  A player's (points + h(last k)) / turns is
    exactly unbiased (play/long_run.py), so few turns per player suffice."""
    from ..play.long_run import chain, play_players

    rs = rule_set(rules)
    if not rs.three_zilch_penalty:
        raise InputError(
            f"--long-run plays turns one after another where the third zilch in a row costs "
            f"a penalty; {rs.name} has none (three_zilch_penalty), so every turn is alike: "
            "leave out --long-run"
        )
    if turns < 2:
        raise InputError(f"--turns must be at least 2 with --long-run, got {turns}")
    check_time(turns / TURNS_PER_SECOND, f"simulating {turns} turns", "ask for fewer --turns")
    tab = tables_of(rs, tables)
    model = tab.model
    strats = [resolve_policy(policy, tab, True, k) for k in range(3)]
    dists = [
        exact_distribution(model, strat, True, None, zilch_cost(rs, k, True))
        for k, strat in enumerate(strats)
    ]
    g, h = chain([d.mean for d in dists], [d.p_zilch for d in dists])
    players = max(2, min(10_000, turns // 20))
    each = turns // players
    rng = np.random.default_rng(seed)
    fast = [s.compile(model) for s in strats]  # type: ignore[attr-defined]
    u = rs.unit
    points, k_end = play_players(model, fast, players, each, rng, rs.three_zilch_penalty // u,
                                 progress)  # fmt: skip
    est = (points * u + h[k_end]) / each
    mean = float(est.mean())
    se = float(est.std(ddof=1) / np.sqrt(players))
    return LongRun(
        rs.name,
        policy,
        players,
        each,
        seed,
        mean,
        se,
        g,
        (mean - g) / se if se else 0.0,
        float(points.sum() * u / (players * each)),
        {k: ZilchTurn(d.mean, d.p_zilch, float(h[k])) for k, d in enumerate(dists)},
    )


# --- zilch verify --------------------------------------------------------------------------
@dataclass(frozen=True)
class ScoreVerdict(Answer):
    n: int
    consistent: bool
    p_value: float
    mean_z: float
    p_value_mean: float
    dof: int
    largest_discrepancies: list[dict]
    impossible_totals: list[int]
    rules: str
    policy: str
    alpha: float
    mean: float
    exact_mean: float


@dataclass(frozen=True)
class RollVerdict(Answer):
    n: int
    consistent: bool
    p_value: float
    by_dice: dict[str, dict]
    rules: str
    alpha: float


def _verify_games(
    rules: Rules,
    games: str | None,
    policy: str,
    vs: str | None,
    scores: str | list[int] | None,
    target: int | None,
    column: str | None,
    alpha: float,
    tables: Tables_,
    turn_only: dict[str, object],
) -> GamesVerdict:
    """verify --games: whole games' results (answers/versus.py); the turn's options refused."""
    from .versus import verify_games

    if games is None:
        raise InputError("--vs, --scores and --target are for --games (whole games)")
    for key, value in turn_only.items():
        if value:
            flag = "--" + key.replace("_", "-")
            raise InputError(f"{flag} is an option of turn scores, not of --games")
    return verify_games(rules, games, policy, vs, scores, target, column, alpha, tables)


def _verify_rolls(rs: RuleSet, results: str, alpha: float, given: bool) -> RollVerdict:
    """verify --rolls: single rolls against their exact chances (given: a turn's options,
    refused)."""
    if rs.pyramiding:
        raise InputError(
            f"--rolls under pyramiding ({rs.name}): whether a roll zilches depends on "
            "the dice frozen before it, which a roll file does not say"
        )
    if given:
        raise InputError(
            "--rolls checks single rolls, which no policy plays: leave out "
            "--column, --policy, --not-on-board, --zilches and --beat"
        )
    rep = verify_rolls(rs, read_rolls(results, rs.dice), alpha)
    return RollVerdict(rep["n"], rep["consistent"], rep["p_value"], rep["by_dice"], rs.name, alpha)


def verify(
    rules: Rules = "farkle",
    results: str = "",
    policy: str = "optimal",
    column: str | None = None,
    rolls: bool = False,
    alpha: float = 0.001,
    not_on_board: bool = False,
    zilches: int = 0,
    beat: int = 0,
    tables: Tables_ = None,
    games: str | None = None,
    vs: str | None = None,
    scores: str | list[int] | None = None,
    target: int | None = None,
) -> ScoreVerdict | RollVerdict | GamesVerdict:
    """Is your simulator right?  Its turn scores (or single rolls) against the exact
    distribution: consistent or not at significance alpha (with overtaking: turns whose
    banks must beat `beat`).  games: a file of whole games' results instead, `policy`
    moving first at `scores` against `vs` (answers/versus.py)."""
    if games is not None or vs is not None or scores is not None or target is not None:
        turn_only = dict(results=results, rolls=rolls, not_on_board=not_on_board)
        turn_only.update(zilches=zilches, beat=beat)
        return _verify_games(rules, games, policy, vs, scores, target, column, alpha, tables,
                             turn_only)  # fmt: skip
    if not results:
        raise InputError("give --results FILE (turn scores) or --games FILE (game results)")
    rs = rule_set(rules).beating(beat)
    k = zilches_of(rs, zilches)
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise InputError(f"--alpha must be a number strictly between 0 and 1, got {alpha!r}")
    if rolls:
        given = column is not None or policy != "optimal" or not_on_board or bool(k or beat)
        return _verify_rolls(rs, results, alpha, given)
    tab = tables_of(rs, tables)
    samples = read_scores(results, column)
    on = not not_on_board
    strat = resolve_policy(policy, tab, on, k)
    exact = exact_distribution(tab.model, strat, on, None, zilch_cost(rs, k, on))
    v = verify_scores(samples, exact, alpha).as_dict()
    return ScoreVerdict(
        **v,
        rules=rs.name,
        policy=policy,
        alpha=alpha,
        mean=samples.mean,
        exact_mean=exact.mean,
    )
