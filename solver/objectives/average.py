"""Long-run average points per turn where the third zilch in a row costs a penalty.

With ``three_zilch_penalty`` the expected points of one turn are no longer the objective:
a zilch also moves the count of zilches in a row (k = 0, 1, 2) towards the penalty.  The
optimum maximises the long-run average g, an average-reward MDP over (k, on the board).
Its relative values h satisfy, for every k and board flag b,

    g + h(k, b) = max over turn policies of E[points banked + h(next k, next b)]

with h(0, on) = 0: a bank resets k to 0 (and puts the player on the board), a zilch moves
k to k + 1, the third one costs the penalty and resets k to 0.  Each right-hand side is the
ordinary turn solve with a zilch worth ``-penalty * [k = 2] + h(next k, b)``: one batch of
six rows, row 2k + b.  Policy iteration on the six numbers: solve the turns for the current
zilch values, read each row's value V and its chance of a zilch q (extras, under the
turn's optimal policy), whose points part V - q z is then fixed, solve the six linear
equations for g and h, and repeat until the zilch values settle (docs/method.md: why it
converges, and in a few steps).  With permanent points (zilch-online's straight) a zilch
that records them puts the player on the board: such zilches are counted apart (a second
extra) and lead to the on-board row.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..outcomes.model import TurnModel
from ..rules import RuleSet
from ..turn.payoff import Extra
from ..turn.solution import TurnSolution
from .score import Relative, score_payoff

ROUNDS = 60  # policy iteration steps before giving up (the presets settle in 3 to 6)
SETTLED = 1e-9  # points: zilch values this close are the same policy's


def row(k: int, on_board: bool) -> int:
    """The batch row of the turn played with k zilches in a row, on the board or not."""
    return 2 * k + int(on_board)


def _zilch_values(
    rules: RuleSet, h: dict[tuple[int, bool], float]
) -> tuple[np.ndarray, np.ndarray]:
    """What a zilch is worth in each row (main), and where it records permanent points
    (then the player is on the board: secured, by k)."""
    main = np.zeros(6)
    for k in range(3):
        for b in (False, True):
            cost = rules.penalty(b) if k == 2 else 0
            main[row(k, b)] = -cost + h[(k + 1) % 3, b]
    return main, main[1::2].copy()


def _solve(
    model: TurnModel, zm: np.ndarray, zs: np.ndarray
) -> tuple[TurnSolution, TurnSolution | None]:
    """The six rows' turns for zilch values zm (by row) and zs (zilches that record
    permanent points, by k): (main, secured or None).  Where being off the board changes
    nothing (no entry minimum, the same penalty) the three on-board rows are solved and
    each stands for both flags."""
    from ..turn.engine import solve_turn

    rules = model.rules
    same = rules.min_bank(False) == rules.min_bank(True) and rules.penalty(False) == rules.penalty(
        True
    )
    rows = np.arange(1, 6, 2) if same else np.arange(6)
    B = len(rows)
    minimums = [rules.min_bank(bool(i % 2)) for i in rows]
    if not rules.has_permanent:
        pay = score_payoff(rules, minimums, None, zm[rows], [Extra.zilch_chance(B, 1)])
        return solve_turn(model, pay), None
    secured = solve_turn(
        model,
        score_payoff(
            rules, [0, 0, 0], None, zs, [Extra.zilch_chance(3, 0), Extra.zilch_chance(3, 1)]
        ),
    )
    amounts = sorted({int(p) for p in model.perm if p})
    by_row = secured.take(rows // 2)
    extras = [Extra.zilch_chance(B, 1), Extra.zilch_chance(B, 0)]
    pay = score_payoff(rules, minimums, {a: by_row for a in amounts}, zm[rows], extras)
    return solve_turn(model, pay), secured


def _six(sol: TurnSolution) -> TurnSolution:
    """Six rows, where the three on-board rows stand for both flags."""
    return sol if sol.roll.shape[0] == 6 else sol.take(np.repeat(np.arange(3), 2))


def _evaluate(rules: RuleSet, main: TurnSolution, zm: np.ndarray, zs: np.ndarray) -> Relative:
    """g and h of the turn policies just solved: six linear equations (unknowns g, h(1, on),
    h(2, on), h(0..2, off))."""
    six = np.arange(6) if main.roll.shape[0] == 6 else np.arange(6) // 2
    V = main.roll[six, 0, 0]
    q = main.extras[:, six, 0, 0]  # (extras, rows): zilches, then zilches holding points
    qs = q[1] if len(q) > 1 else np.zeros(6)
    a = V - q[0] * zm - qs * zs[np.arange(6) // 2]
    col = {(1, True): 1, (2, True): 2, (0, False): 3, (1, False): 4, (2, False): 5}
    M = np.zeros((6, 6))
    c = np.zeros(6)
    for k in range(3):
        for b in (False, True):
            i, nk = row(k, b), (k + 1) % 3
            M[i, 0] += 1.0
            if (k, b) in col:
                M[i, col[k, b]] += 1.0
            if (nk, b) in col:
                M[i, col[nk, b]] -= q[0, i]
            if (nk, True) in col:
                M[i, col[nk, True]] -= qs[i]
            c[i] = (
                a[i]
                - q[0, i] * rules.penalty(b) * (k == 2)
                - qs[i] * rules.penalty(True) * (k == 2)
            )
    x = np.linalg.solve(M, c)
    return Relative(float(x[0]), (0.0, float(x[1]), float(x[2])), tuple(map(float, x[3:])))  # type: ignore[arg-type]


def solve_average(model: TurnModel) -> tuple[TurnSolution, TurnSolution | None, Relative]:
    """(main, secured, relative): main's row 2k + b is the optimal turn with k zilches in a
    row, on the board (b = 1) or not; secured's row k, the turn once it holds permanent
    points (None without them)."""
    rules = model.rules
    h = {(k, b): 0.0 for k in range(3) for b in (False, True)}  # start: no penalty's policy
    zm, zs = _zilch_values(rules, h)
    for _ in range(ROUNDS):
        main, secured = _solve(model, zm, zs)
        rel = _evaluate(rules, main, zm, zs)
        h = {(k, b): rel.h(k, b) for k in range(3) for b in (False, True)}
        zm2, zs2 = _zilch_values(rules, h)
        if np.abs(zm2 - zm).max() <= SETTLED and np.abs(zs2 - zs).max() <= SETTLED:
            return _six(main), secured, rel
        zm, zs = zm2, zs2
    raise InputError(
        f"{rules.name}: the policy for the long-run average does not settle "
        f"({ROUNDS} steps of policy iteration)"
    )
