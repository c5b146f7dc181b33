"""Checking a simulator: the exact distribution of a policy's turn (evaluate), the same turns
played with physical dice (simulate), and a verdict on someone's samples (verify)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..limits import TURNS_PER_SECOND, check_time
from ..play.evaluate import Distribution
from ..play.evaluate import evaluate as exact_distribution
from ..play.policies import OptimalPolicy, Policy, load_policy
from ..play.simulate import play_turns
from ..play.verify import read_rolls, read_scores, verify_rolls, verify_scores
from ..tables import Tables
from .base import (
    Answer,
    Rules,
    Tables_,
    hidden,
    noting_unmodelled,
    rule_set,
    sample_moments,
    tables_of,
    turn_state,
    unmodelled,
)
from .export import atomic_file
from .progress import SILENT, Progress

QUANTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)


def resolve_policy(name: str, tab: Tables, on_board: bool = True) -> Policy:
    """'optimal' (the expected-points optimum) or a policy file (docs/policies.md)."""
    if name == "optimal":
        pol = tab.score
        return OptimalPolicy(pol.values, int(on_board), pol.cap)
    return load_policy(name, tab.rules, on_board)


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


@noting_unmodelled
def evaluate(
    rules: Rules = "farkle",
    policy: str = "optimal",
    dice: int | None = None,
    turn: int = 0,
    permanent: int = 0,
    not_on_board: bool = False,
    tables: Tables_ = None,
) -> Evaluation:
    """The exact distribution of the points a turn records under a policy."""
    rs = rule_set(rules)
    tab = tables_of(rs, tables)
    state = turn_state(rs, dice, turn, permanent)
    tab.check(state)
    on = not not_on_board
    dist = exact_distribution(tab.model, resolve_policy(policy, tab, on), on, state)
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
    )


# --- zilch simulate ------------------------------------------------------------------------
BATCH = 250_000


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
    exact: Distribution = hidden()
    counts: dict[int, int] = hidden()


@noting_unmodelled
def simulate(
    rules: Rules = "farkle",
    policy: str = "optimal",
    turns: int = 1_000_000,
    seed: int = 0,
    not_on_board: bool = False,
    out: str | None = None,
    tables: Tables_ = None,
    progress: Progress = SILENT,
) -> Simulation:
    """Monte Carlo turns with physical dice (seeded), next to the exact figures.  Played
    in batches, counted as they come (memory does not grow with the turns); out: also
    every turn's score, one per line."""
    rs = rule_set(rules)
    if turns < 1:
        raise InputError(f"--turns must be at least 1, got {turns}")
    check_time(turns / TURNS_PER_SECOND, f"simulating {turns} turns", "ask for fewer --turns")
    tab = tables_of(rs, tables)
    on = not not_on_board
    strat = resolve_policy(policy, tab, on)
    model = tab.model
    fast = strat.compile(model)  # type: ignore[attr-defined]
    rng = np.random.default_rng(seed)
    counts: dict[int, int] = {}
    with contextlib.ExitStack() as stack:
        scores = stack.enter_context(atomic_file(out)) if out else None
        if scores is not None:
            scores.write(b"score\n")
        progress.start("simulating", turns)
        stack.callback(progress.finish)
        done = 0
        while done < turns:
            k = min(BATCH, turns - done)
            pts = play_turns(model, fast, k, rng, on).points * rs.unit
            vals, cnt = np.unique(pts, return_counts=True)
            for v, c in zip(vals.tolist(), cnt.tolist()):
                counts[v] = counts.get(v, 0) + c
            if scores is not None:
                scores.write(("\n".join(map(str, pts.tolist())) + "\n").encode())
            done += k
            progress.advance(k)
    exact = exact_distribution(model, strat, on)
    mean, std, se = sample_moments(list(counts), list(counts.values()))
    dist = {v: c / turns for v, c in sorted(counts.items())}
    return Simulation(
        rs.name,
        policy,
        turns,
        seed,
        mean,
        se,
        exact.mean,
        (mean - exact.mean) / se if se else 0.0,
        std,
        exact.std,
        exact.p_zilch,
        dist,
        exact,
        dict(sorted(counts.items())),
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


def verify(
    rules: Rules = "farkle",
    results: str = "",
    policy: str = "optimal",
    column: str | None = None,
    rolls: bool = False,
    alpha: float = 0.001,
    not_on_board: bool = False,
    tables: Tables_ = None,
) -> ScoreVerdict | RollVerdict:
    """Is your simulator right?  Its turn scores (or single rolls) against the exact
    distribution: consistent or not at significance alpha."""
    rs = rule_set(rules)
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise InputError(f"--alpha must be a number strictly between 0 and 1, got {alpha!r}")
    if rolls:
        if column is not None or policy != "optimal" or not_on_board:
            raise InputError(
                "--rolls checks single rolls, which no policy plays: leave out "
                "--column, --policy and --not-on-board"
            )
        rep = verify_rolls(rs, read_rolls(results, rs.dice), alpha)
        return RollVerdict(
            rep["n"], rep["consistent"], rep["p_value"], rep["by_dice"], rs.name, alpha
        )
    tab = tables_of(rs, tables)
    samples = read_scores(results, column)
    on = not not_on_board
    exact = exact_distribution(tab.model, resolve_policy(policy, tab, on), on)
    v = verify_scores(samples, exact, alpha).as_dict()
    v["caveat"] = unmodelled(rs)
    return ScoreVerdict(
        **v,
        rules=rs.name,
        policy=policy,
        alpha=alpha,
        mean=samples.mean,
        exact_mean=exact.mean,
    )
