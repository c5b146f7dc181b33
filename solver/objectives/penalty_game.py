"""The two-player game where the third zilch in a row costs a penalty (issue 13).

A state is (a, b, ka, kb): the scores of the player to move and of the opponent (units) and
their zilches in a row; W[ka, kb, a - lo, b - lo] is the mover's chance.  His turn is the
game's turn (game.turn_payoff) with banking t worth 1 - W[kb, 0, b, a + t] (the opponent's
last turn once a + t reaches the target: there a zilch loses whatever it costs, so the
count does not matter in the last turn) and a zilch worth 1 - W[kb, ka + 1, b, a], or after
two zilches 1 - W[kb, 0, b, max(a - P, lo)]: the penalty P, down to the lowest score lo
(0 where the rules stop it at zero; else a bound, ``lowest``, whose effect the tests and
docs measure).

A penalty lowers the score sum, so the game is no longer ordered by sums: the states after
a penalty come back up by later banks.  W is the fixed point of sweeps.  A sweep solves
the sums from the top down as the penalty-free game does: the states of one sum are coupled
through their zilches (the other order of the pair, the counts moving) and take one
Newton step together (the slope: the turn's zilch chance, an extra of the solve; the step a
sparse linear system over the sum), while a penalty's state at a lower sum is read from the
current iterate (Gauss-Seidel).  The solve stops when a sweep's turn solves reproduce the
iterate to ``TOL`` everywhere: the fixed point.  The first iterate is the penalty-free
game's, shifted by what each count costs (_first_iterate): 9 sweeps to 10000 instead of 16
from 0.5 everywhere.  (Anderson mixing of the sweeps was tried: more sweeps.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..outcomes.model import TurnModel
from ..rules import RuleSet
from ..turn import solve_turn
from .game_run import GameRun
from .plain_game import (
    BASE_BYTES_STARTS,
    Finals,
    FromLowest,
    check_constant_sum,
    game_starts,
    turn_payoff,
)

if TYPE_CHECKING:
    from ..turn import TurnSolution

TOL = 1e-12  # a sweep that moves no chance by more than this: the fixed point
SWEEPS = 200
LOWEST = -2000  # points: the default lowest score where a penalty can take it below zero


def check_supported(rules: RuleSet) -> None:
    """The game with a penalty is solved for rules without an entry minimum, permanent
    points or piggyback (refused otherwise, clearly)."""
    if rules.target is None:
        raise InputError(f"{rules.name} has no target: there is no game to solve")
    check_constant_sum(rules)
    for bad, what in (
        (
            rules.entry_minimum > 0,
            "an entry minimum (a score at or below zero would need a board flag)",
        ),
        (rules.has_permanent, "permanent points"),
        (rules.piggyback, "piggyback"),
    ):
        if bad:
            raise InputError(
                f"{rules.name}: the game with three_zilch_penalty is not solved yet for "
                f"rules with {what}"
            )


def lowest_units(rules: RuleSet, lowest: int | None) -> int:
    """The lowest score (units): 0 where the penalty stops at zero, else `lowest` points
    (default LOWEST), a non-positive multiple of the unit."""
    if lowest is not None and (isinstance(lowest, bool) or not isinstance(lowest, int)):
        raise InputError(f"lowest must be a whole number of points, got {lowest!r}", "lowest")
    if not rules.penalty_below_zero:
        if lowest is not None and lowest != 0:
            raise InputError(
                f"lowest {lowest}: under {rules.name} the penalty stops at zero "
                "(penalty_below_zero = false)",
                "lowest",
            )
        return 0
    lowest = LOWEST if lowest is None else lowest
    if lowest > 0 or lowest % rules.unit:
        raise InputError(
            f"lowest must be a multiple of {rules.unit} at or below 0, got {lowest}", "lowest"
        )
    return lowest // rules.unit


@dataclass(frozen=True, eq=False)
class PenaltyGame(FromLowest):
    model: TurnModel
    target: int  # points
    lo: int  # the lowest score (units)
    W: np.ndarray  # (3, 3, N, N): W[ka, kb, a - lo, b - lo]
    finals: Finals  # the opponent's last turn, once a bank reaches the target
    sweeps: int

    def p_win(self, me: int, opp: int, k_me: int = 0, k_opp: int = 0) -> float:
        u = self.rules.unit
        return float(self.W[k_me, k_opp, me // u - self.lo, opp // u - self.lo])

    def turns(self, states: np.ndarray) -> TurnSolution:
        """The turns from states (a, b, ka, kb) (units; (n, 4)): a TurnSolution, a row
        each."""
        P = self.rules.three_zilch_penalty // self.rules.unit
        a2, k2 = _targets(states, self.lo, P)
        z = 1.0 - self.W[states[:, 3], k2, states[:, 1] - self.lo, a2 - self.lo]
        return _solve_turns(self.model, self.W, self.finals, self.R, self.lo, states, z)

    def turn(self, me: int, opp: int, k_me: int = 0, k_opp: int = 0) -> TurnSolution:
        """The turn from scores (me, opp) (points) and counts: a TurnSolution, one row."""
        u = self.rules.unit
        return self.turns(np.array([[me // u, opp // u, k_me, k_opp]]))


def _first_iterate(model: TurnModel, reach_bound: int, R: int, lo: int) -> np.ndarray:
    """A first iterate close to W (from 0.5 everywhere the sweeps need up to twice as
    many): the penalty-free game's chances, each count's score lowered by what the count
    costs in the long run (h(k) of the single turn's average-reward solve, in units).
    The penalty-free game to R - lo covers every score pair of [lo, R): its turns see only
    the distances to go (no entry minimum here) and the last turn only the deficit."""
    from dataclasses import replace

    from .average import solve_average
    from .plain_game import solve_game

    rules = model.rules
    plain = replace(model, rules=replace(rules, three_zilch_penalty=0))
    N = R - lo
    W0 = solve_game(GameRun(plain, reach_bound, (N - (rules.reach == "more_than")) * rules.unit)).W
    assert W0.shape == (N, N)
    *_, rel = solve_average(model)
    shifted = [_at(np.arange(N) + rel.h(k, True) / rules.unit) for k in range(3)]
    W = np.empty((3, 3, N, N))
    for ka, (i, j, f) in enumerate(shifted):  # W0 at the shifted scores, linearly
        Wa = W0[i] * (1 - f)[:, None] + W0[j] * f[:, None]
        for kb, (i2, j2, f2) in enumerate(shifted):
            W[ka, kb] = Wa[:, i2] * (1 - f2) + Wa[:, j2] * f2
    return W


def _at(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Linear interpolation at x (grid indices, clamped to the grid): (below, above,
    weight of above)."""
    x = np.clip(x, 0, len(x) - 1)
    i = np.floor(x).astype(int)
    return i, np.minimum(i + 1, len(x) - 1), x - i


def _sum_states(R: int, lo: int, sigma: int) -> np.ndarray:
    """(n, 4) states (a, b, ka, kb) of score sum sigma, scores in [lo, R)."""
    a = np.arange(max(lo, sigma - R + 1), min(sigma - lo, R - 1) + 1)
    pairs = np.stack([a, sigma - a], axis=1)
    k = np.array([(i, j) for i in range(3) for j in range(3)])
    return np.concatenate([np.repeat(pairs, 9, axis=0), np.tile(k, (len(pairs), 1))], axis=1)


def _targets(states: np.ndarray, lo: int, P: int) -> tuple[np.ndarray, np.ndarray]:
    """Where each state's zilch leads: (a', k') of the player who zilched (the opponent
    moves next from (b, a'), his count kb, the zilcher's k')."""
    a, ka = states[:, 0], states[:, 2]
    pen = ka == 2
    return np.where(pen, np.maximum(a - P, lo), a), np.where(pen, 0, ka + 1)


def _solve_turns(
    model: TurnModel,
    W: np.ndarray,
    finals: Finals,
    R: int,
    lo: int,
    states: np.ndarray,
    z: np.ndarray,
) -> TurnSolution:
    """The turns from `states`, a zilch worth z (by state), banking as W says."""
    U = _bank_values(W, finals, R, lo, states)
    mins = np.full(len(states), model.rules.min_bank_units(True))
    return solve_turn(model, turn_payoff(model, U, z, mins))


def _bank_values(W: np.ndarray, finals: Finals, R: int, lo: int, states: np.ndarray) -> np.ndarray:
    """U[i, t]: banking t from state i: the opponent moves from (b, a + t), his count kb
    and the banker's reset; the opponent's last turn once a + t reaches the target.  Each
    opponent (b, kb) of the rows has one line of payoffs by the banker's final score; a
    row's U is its window from a on."""
    a, b, kb = states[:, 0], states[:, 1], states[:, 3]
    N = R - lo
    span = N + finals.D + 1
    keys, line = np.unique(kb * N + (b - lo), return_inverse=True)
    kk, bb = keys // N, keys % N + lo
    E = np.empty((len(keys), N + span))
    E[:, :N] = 1.0 - W[kk, 0, bb - lo]  # final scores below the target
    if finals.opp is None:  # reaching the target wins at once
        E[:, N:] = 1.0
    else:  # the opponent's last turn by deficit (no entry minimum: one board flag)
        opp = finals.opp[True]
        d = (R - bb)[:, None] + np.arange(span)[None, :]
        E[:, N:] = 1.0 - np.append(opp, 0.0)[np.minimum(d, len(opp))]
    return np.lib.stride_tricks.sliding_window_view(E, span, axis=1)[line, a - lo]


def _solve_sum(
    model: TurnModel,
    W: np.ndarray,
    finals: Finals,
    R: int,
    lo: int,
    P: int,
    states: np.ndarray,
    w0: np.ndarray,
) -> tuple[np.ndarray, float]:
    """One sum's states, given W at the sums above and at the penalty's states below: one
    Newton step on the sum's zilch couplings from w0 (at the sweeps' fixed point the step
    changes nothing, so one step per sweep is enough).  Returns (values, residual): the
    solve's largest change from w0, the Bellman residual of the iterate."""
    from scipy.sparse import csr_matrix, identity
    from scipy.sparse.linalg import spsolve

    a, b, ka, kb = states.T
    n = len(states)
    a2, k2 = _targets(states, lo, P)
    same = a2 == a  # the same sum: an unknown of this system
    # states are ordered by the mover's score, then ka, kb (_sum_states): the target
    # (b, a, kb, k') of the same sum sits at (b - a_min) * 9 + kb * 3 + k'
    j = np.where(same, (b - a.min()) * 9 + kb * 3 + k2, 0)
    sel = np.nonzero(same)[0]
    z = 1.0 - np.where(same, w0[j], W[kb, k2, b - lo, a2 - lo])
    U = _bank_values(W, finals, R, lo, states)
    mins = np.full(n, model.rules.min_bank_units(True))
    # (the chain tables cover the deficits of the opponent's last turn: scores down to -D - 1)
    chains = finals.chains(model, states[:, :2]) if lo >= -finals.D - 1 else None
    val, g = game_starts(model, U, z, mins, chains)
    # linearised in z: w_i = val_i + g_i (z'_i - z_i), z'_i = 1 - w_j(i) within the sum
    A = np.where(same, val + g * (1.0 - z), val)
    M = identity(n, format="csr") + csr_matrix((g[sel], (sel, j[sel])), shape=(n, n))
    return spsolve(M.tocsc(), A), float(np.max(np.abs(val - w0)))


def _sweep(
    model: TurnModel, W: np.ndarray, finals: Finals, R: int, lo: int, P: int
) -> tuple[np.ndarray, float]:
    """One sweep over the sums from the top down (Gauss-Seidel: a sum reads the sums
    above it from this sweep, the penalty's lower sums from the iterate): the new iterate
    and the largest Bellman residual met."""
    Wn = W.copy()
    worst = 0.0
    for sigma in range(2 * (R - 1), 2 * lo - 1, -1):
        st = _sum_states(R, lo, sigma)
        a, b, ka, kb = st.T
        w0 = Wn[ka, kb, a - lo, b - lo]
        Wn[ka, kb, a - lo, b - lo], res = _solve_sum(model, Wn, finals, R, lo, P, st, w0)
        worst = max(worst, res)
    return Wn, worst


def solve_penalty_game(run: GameRun) -> PenaltyGame:
    """W for every pair of scores in [run's lowest, target) and counts of zilches in a row;
    run.progress(sweep, residual) after each sweep."""
    model, rules = run.model, run.rules
    check_supported(rules)
    target, R = run.goal, run.R
    lo = lowest_units(rules, run.lowest)
    P = rules.three_zilch_penalty // rules.unit
    finals = Finals.solve(model, R, run.reach_bound)
    run.step(0, 1.0)
    W = _first_iterate(model, run.reach_bound, R, lo)
    for sweep in range(1, SWEEPS + 1):
        W, residual = _sweep(model, W, finals, R, lo, P)
        run.step(sweep, residual)
        if residual < TOL:  # every sum's solve reproduced the iterate: the fixed point
            return PenaltyGame(model, target, lo, W, finals, sweep)
    raise InputError(f"{rules.name}: the game with the penalty does not settle in {SWEEPS} sweeps")


# The solve's time is its sweeps' turns: every sweep solves 9 N^2 turns (N = R - lo scores
# a side, 9 counts of zilches), each of them over the totals up to its cut (turn_cuts: from
# there banking is certainly optimal), in C where the kernel is built (turn.starts: each row
# to its own cut, threads over the rows of a big sum), else whole turns in numpy (every row
# of a sum to the sum's largest cut, and the bank payoffs over the whole span N + D + 1).
# Work counts (the rows' totals each sweep, recorded in tests/test_estimates.py) and seconds
# per unit of work measured on this machine (issue 36, item 14): per row, the mean cut is
#   N / 2 + D                a dice count that never zilches (a rule file's six-dice no-score
#                            pattern: zilch-playr-busche): no cut before the reach bound D
#   N / 2                    no final round: banking certain once the target is reached
#   0.15 N + reach(pz)       a final round: the deficits the opponent's last turn makes up
#                            with more than the lowest zilch chance pz, sooner where he is
#                            far behind (farkle: 68, 69, 78 for N = 50, 60, 120 measured)
# and whole turns' largest cut per sum half N more.  Seconds per unit of work (the classic
# N + 1 turn states): the C kernel 0.5 us, threads counted at 1.3 for two (the machine is
# seldom quiet); whole turns in numpy 1.27 us per total up to the cut and 0.08 us per total
# of the span; times the sweeps (8 or 9 to the tolerance), the first iterate and the final
# turns (half a sweep more).  Against measured (wall, from nothing: `zilch game --rules F
# --target T --json`, 2 cores, quiet): farkle with the 500 penalty to 2000 from -500, 5000
# from -1000, 10000 from -2000 in 6.1, 29.1, 141.3 s (estimates 8.1, 41, 191), to 1000 from
# -2000 in 8.6 s (10.8), numpy 54.5 s (55); farkle-neller-busche to 1000 4.9 s (6.1), numpy
# 26.4 s (26.5); the published zilch-playr-busche (its six-dice no-score pattern) to 1000
# 51.3 s, 132 s on a busy machine (75; 7 s before issue 36), numpy 402 s (272).
SECONDS_PER_WORK = {"starts": 5.0e-7, "whole": 1.27e-6}
SECONDS_PER_SPAN = {"starts": 0.0, "whole": 8e-8}
SWEEPS_TYPICAL = 9.5  # the sweeps, the first iterate and the final turns, in sweeps
BASE_SECONDS = 1.5  # the process, the model, the reach bound
THREAD_GAIN = 0.3  # what each thread past the first adds, in threads


def kernel_path(model: TurnModel) -> str:
    """How the sweeps' turns are solved: "starts" (turn.starts in C: each row to its own
    cut) or "whole" (whole turns in numpy: the kernel not built, or a choice that adds
    nothing, which turn.starts leaves to them)."""
    from ..turn import kernel

    usable = kernel.compiled("game_starts") is not None
    return "starts" if usable and not np.any(model.shift == 0) else "whole"


def mean_cut(run: GameRun, N: int) -> float:
    """A turn's mean cut (units) in a sweep of the game with N scores a side (the table
    above)."""
    from .last_turn import reach_bound

    model, D = run.model, run.reach_bound
    pz = float(model.p_zilch[1:].min())
    if pz <= 0.0:
        m = N / 2 + D
    elif D == 0:
        m = N / 2
    else:
        m = 0.15 * N + min(reach_bound(model, pz), D)
    return float(min(m, N + D))


def sweep_work(run: GameRun, lo: int, path: str) -> tuple[float, float, float]:
    """(work, span work, seconds) of one sweep: the totals its turns solve (in C each row's
    own cut; whole turns the sum's largest), the totals of their payoffs' span, and the
    seconds they take here (a sum's rows shared by the kernel's threads)."""
    from ..turn import kernel

    R, D = run.R, run.reach_bound
    N = R - lo
    m = mean_cut(run, N)
    if path != "starts":
        m = min(m + N / 2, N + D)
    per = run.model.states / (run.rules.dice + 1)
    work = span_work = seconds = 0.0
    for count in np.minimum(np.arange(1, 2 * N), np.arange(2 * N - 1, 0, -1)):
        rows = 9.0 * float(count)
        w, sw = rows * m * per, rows * (N + D + 1) * per
        t = SECONDS_PER_WORK[path] * w + SECONDS_PER_SPAN[path] * sw
        if path == "starts":
            t /= 1 + THREAD_GAIN * (kernel.threads(int(rows * m)) - 1)
        work, span_work, seconds = work + w, span_work + sw, seconds + t
    return work, span_work, seconds


def estimate(run: GameRun) -> tuple[float, float]:
    """(bytes, seconds) a solve of the game with the penalty takes, roughly: the process,
    the table and the sweep's copy (and the first iterate), one sum's bank payoffs (a row
    of N + D + 1 per state, its lines as many again), whole turns' grids where they are
    solved (numpy); measured peaks 71, 81, 104 MB for the three farkle solves above.  Time:
    the table above, for the kernel this process has."""
    rules, R, model = run.rules, run.R, run.model
    lo = lowest_units(rules, run.lowest)
    N = R - lo
    span = N + run.reach_bound + 1
    path = kernel_path(model)
    nbytes = BASE_BYTES_STARTS + 3 * 8.0 * 9 * N * N + 2 * 8.0 * 9 * N * span
    if path == "whole":  # a sum's whole turns: values and choices by state and total (and
        # numpy's own: measured peaks 97, 142 and 255 MB for the three numpy solves above)
        nbytes += 2e7 + 8 * 8.0 * 9 * N * model.states * span
    _, _, sweep = sweep_work(run, lo, path)
    return nbytes, BASE_SECONDS + SWEEPS_TYPICAL * sweep
