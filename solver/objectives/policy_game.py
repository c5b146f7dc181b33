"""A fixed policy's exact chance of winning the two-player game against another one.

Player P plays policy P, player Q policy Q.  X[a, b]: P's chance when P moves with a against
Q's b; Y[a, b]: Q's chance when Q moves with a against P's b (scores in units below the
target).  With fixed policies there is no max: a turn is worth, linearly in what follows,

    X[a, b] = A_P[a, b] + g_P[a, b] (1 - Y[b, a]),    Y[b, a] = A_Q[b, a] + g_Q[b, a] (1 - X[a, b]),

A the part of the turn that records points (worth 1 - Y[b, a + x], or P's chance once a + x
reaches the target), g the chance that it records nothing (a zilch: the other player moves
at the same score sum).  Banks raise the score sum, so the sums are solved from the top down;
within a sum the linear system splits into the pairs {P at (a, b), Q at (b, a)}, two
equations in two unknowns, solved exactly:  X = (A_P + g_P (1 - A_Q - g_Q)) / (1 - g_P g_Q).

A side's turn from (a, b):
- `optimal`: the game table's own turn (solve_game_turns with the table's W, the play that
  advise recommends), with the payoff of the game against the other side as an extra
  evaluated under that play (turn_payoff's `others`), and its zilch chance: one turn solve
  per state, where the optimal game takes about four (Newton's method);
- a fixed policy that does not look at the scores (the expected-points card, a policy file;
  play/fixed_side.py): the exact distribution of the points its turn records (play/
  evaluate.py), one per board flag and, for a file with bank_at_target, per goal that
  changes a bank, so A is a dot product with the payoffs.
The final round: once a bank reaches the target the other side plays its last turn, the
optimal one (the end-game's) or a fixed policy's: its own choices, banking as soon as its
score beats the leader's (play/policy_last_turn.py).  Zilch-online's permanent points go through the
same two routes (the levels of the game's turn; a zilch that records permanent points is one
of the distribution's totals).  Every variant the game table does not cover with a fixed
policy is refused in one line (check_supported).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..errors import InputError
from ..rules import RuleSet
from ..turn.starts import zilch_starts
from .game_run import GameRun
from .plain_game import Finals, GameTable, GameTurns, bank_minimums, game_U, score_pairs
from .plain_game import check_supported as check_game


class Side(Protocol):
    """One player's play: what his turns from score pairs are worth against payoffs U
    (P's chance when the turn ends with x points added), and his last turns."""

    @property
    def name(self) -> str: ...

    def finals(self) -> Finals:
        """The other player's chance once he banks to the target against this side (its
        last turn by deficit, or 1 where reaching the target wins at once)."""
        ...

    def turn(self, rows: np.ndarray, U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(A, g) of the turns from rows (B, 2): A = E[U(x); x > 0] (U beyond its end
        worth 1), g = P(the turn records nothing)."""
        ...


@dataclass(frozen=True, eq=False)
class OptimalSide:
    """The game table's play."""

    game: GameTable
    name: str = "optimal"

    def finals(self) -> Finals:
        return self.game.finals

    def turn(self, rows: np.ndarray, U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        g = self.game
        lose = 1.0 - U  # the other player's part of ending there: 0 beyond U's end
        lose[:, 0] = 0.0  # (x = 0: the zilch, counted by g)
        got = _start_extras(g, rows, lose)
        if got is None:
            turns = solve_gametable_turns(g, rows, lose[None])
            zilch, lost = turns.extra(0), turns.extra(1)
        else:
            zilch, lost = got
        return 1.0 - zilch - lost, zilch


def _start_extras(g: GameTable, rows: np.ndarray, lose: np.ndarray) -> np.ndarray | None:
    """(the zilch chance, the other side's part `lose`) at the start of the game table's
    turns from rows, valued under its play: the C kernel's start values (turn.starts, as
    the optimal game reads its own), no whole turn solved; None where that does not apply
    (permanent points, the kernel not built): whole turns then."""
    rules, model = g.model.rules, g.model
    if rules.has_permanent:
        return None
    a, b = rows[:, 0], rows[:, 1]
    U = game_U(rules, g.W, g.finals, rows, g.W.shape[0])
    got = zilch_starts(model, U, 1.0 - g.W[b, a], bank_minimums(rules, a), lose[None])
    return None if got is None else np.stack([got[1], got[2][0]])


def solve_gametable_turns(g: GameTable, rows: np.ndarray, others: np.ndarray) -> GameTurns:
    """The game table's turns from rows with extra payoffs (solve_game_turns' others)."""
    from .plain_game import solve_game_turns

    return solve_game_turns(g.model, g.W, g.finals, rows, others=others)


@dataclass(frozen=True, eq=False)
class PolicyGame:
    """X[a, b]: P's chance moving with a against Q's b; Y[a, b]: Q's moving with a against
    P's b (units)."""

    rules: RuleSet
    target: int  # points
    P: str
    Q: str
    X: np.ndarray
    Y: np.ndarray

    def p_win(self, me: int, opp: int) -> float:
        """P's chance, moving with `me` points against Q's `opp`."""
        u = self.rules.unit
        return float(self.X[me // u, opp // u])


def check_supported(rules: RuleSet, simulated: bool = False) -> None:
    """InputError for a game a fixed policy is not evaluated in (simulated: nor played by
    the game simulator, play/games.py, whoever plays), one line each."""
    why = {
        "three_zilch_penalty": "the penalty for the third zilch in a row (its counts take "
        "scores back down: the game is no longer ordered by score sums)",
        "challenge": "the challenge rule (a policy file does not say when to challenge)",
        "overtaking": "overtaking (the previous bank is part of the state)",
        "piggyback": "piggyback (a policy file does not say which offers it takes)",
    }
    for key, what in why.items():
        if getattr(rules, key):
            if simulated:
                raise InputError(f"{rules.name}: simulated games do not play {what.split(' (')[0]}")
            raise InputError(
                f"{rules.name}: a fixed policy's game is not evaluated under {what}; optimal "
                "against optimal is the game's own table (zilch game without --policy)"
            )
    check_game(rules)  # (the target, a tie worth half a win)


ENDLESS = 1e-12  # 1 - P(both turns zilch) below this: a game from there never ends


def _endless(rules: RuleSet, P: Side, Q: Side, row: np.ndarray) -> str:
    a, b = (int(x) * rules.unit for x in row)
    return (
        f"{P.name} against {Q.name}: from scores {a} and {b} every turn of both ends in a "
        "zilch (neither ever banks there), so the game never ends and has no chance of "
        "winning to give"
    )


def solve_policy_game(run: GameRun, P: Side, Q: Side) -> PolicyGame:
    """X and Y for every pair of scores below the run's target (the score sums from the
    top; run.progress(sigma) after each); P moves first, Q answers."""
    rules, target, R = run.rules, run.goal, run.R
    check_supported(rules)
    fin_P, fin_Q = P.finals(), Q.finals()
    X = np.full((R, R), np.nan)
    Y = np.full((R, R), np.nan)
    for sigma in range(2 * (R - 1), -1, -1):
        rows = score_pairs(sigma, R)
        partner = len(rows) - 1 - np.arange(len(rows))  # (b, a) of row i
        UP = game_U(rules, Y, fin_Q, rows, R)  # P moves: Q's values, Q's last turn
        UQ = game_U(rules, X, fin_P, rows, R)
        UP[:, 0] = UQ[:, 0] = 0.0  # (same sum, not solved yet: the zilch is in g)
        A_P, g_P = P.turn(rows, UP)
        A_Q, g_Q = Q.turn(rows, UQ)
        both_zilch = g_P * g_Q[partner]  # (each turn of both ends in a zilch: no change)
        if (both_zilch >= 1.0 - ENDLESS).any():
            raise InputError(_endless(rules, P, Q, rows[both_zilch >= 1.0 - ENDLESS][0]))
        x = (A_P + g_P * (1.0 - A_Q[partner] - g_Q[partner])) / (1.0 - both_zilch)
        X[rows[:, 0], rows[:, 1]] = x
        Y[rows[:, 0], rows[:, 1]] = A_Q + g_Q * (1.0 - x[partner])
        run.step(sigma)
    return PolicyGame(rules, target, P.name, Q.name, X, Y)
