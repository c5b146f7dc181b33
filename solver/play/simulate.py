"""The one simulator: whole turns played with physical dice, for a batch of players at once.

Dice are rolled as physical dice (numpy Generator), not drawn from the enumerated outcome
distribution, so a simulation checks dice.py's probabilities as well as the solver; under
zonk-detroit dice 2k and 2k+1 form a colour pair.  A rolled hand lands on the TurnModel's
outcome through ``TurnModel.lands`` (the base-7 code of its face counts), so the simulator
reads the same choices as the solver and the evaluator.  Every caller — turns for the
``simulate`` command, last turns and whole games in the tests — plays through play_turns
with a policy (policies.py): a compiled table, a user's thresholds, or any solved value
function with a row per turn.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..outcomes.dice import FACES
from ..outcomes.model import TurnModel
from .policies import Policy, Units

if TYPE_CHECKING:
    import numpy.typing as npt

POW7 = 7 ** np.arange(FACES)


@dataclass(frozen=True)
class Played:
    """What each turn recorded (units; a zilch records its permanent points where they meet
    the minimum, else 0), and where asked, the dice left when it banked (0: it ended in a
    zilch): the offer of Zonk's piggyback."""

    points: np.ndarray
    left: np.ndarray | None
    zilched: np.ndarray  # (bool) the turn ended in a zilch


@dataclass(frozen=True)
class Step:
    """One roll of each turn still going (for a decision log, play/log.py): the turns'
    indices, the state rolled from (s, r, p), the faces (0..5, the first `dice` of each
    row), the colour match, and the choice taken (-1: a zilch) and whether it banked."""

    turns: np.ndarray
    s: np.ndarray
    r: np.ndarray
    p: np.ndarray
    dice: np.ndarray
    faces: np.ndarray
    matched: np.ndarray
    choice: np.ndarray
    bank: np.ndarray


# rolls of one simulated turn before it is refused as never ending (the longest turn of a
# policy that never banks, farkle, 10 million turns: about 60 rolls)
MAX_ROLLS = 100_000


def play_turns(
    model: TurnModel,
    policy: Policy,
    n_turns: int,
    rng: np.random.Generator,
    on_board: bool | np.ndarray = True,
    start: tuple[Units, Units, Units] | None = None,
    rows: npt.ArrayLike | None = None,
    dice_left: bool = False,
    penalty: int | np.ndarray = 0,
    penalty_held: int | np.ndarray | None = None,
    record: Callable[[Step], None] | None = None,
) -> Played:
    """n_turns turns played by `policy`.  on_board: a flag, or one per turn.  start: (s, r, p)
    to roll from, per turn (default: a fresh turn; Zonk's piggyback takes over a state).
    rows: each turn's row of the policy's value function (a game's score pair).  dice_left:
    also record the dice left at each bank (a little slower).  penalty: units a zilch costs
    on top (the third in a row): one, or one per turn; penalty_held: the same where the
    zilch records permanent points (the player is then on the board; default: penalty)."""
    rules = model.rules
    s, r, p = _starts(n_turns, start)
    row = None if rows is None else np.asarray(rows)
    # what a zilch's permanent points must reach to be recorded (units): one, or one per turn
    per_turn = np.ndim(on_board) > 0
    low = np.where(on_board, rules.min_bank(True), rules.min_bank(False)) / rules.unit
    held = penalty if penalty_held is None else penalty_held
    points = np.zeros(n_turns, np.int64)
    zilched = np.zeros(n_turns, bool)
    left = np.zeros(n_turns, np.int64) if dice_left else None
    active = np.arange(n_turns)
    rolls = 0
    while len(active):
        rolls += 1
        if rolls > MAX_ROLLS:  # (a turn only a zilch ends, under rules where all dice score)
            raise _endless()
        sa, ra, pa = s[active], r[active], p[active]
        n, dice, matched, out = _roll(model, sa, rng)
        zilch = out < 0
        # a zilch records the permanent points (each is worth at least the minimum to bank)
        za = active[zilch]
        zilched[za] = True
        points[za] = _zilch_points(
            pa[zilch], low[za] if per_turn else low, _each(penalty, za), _each(held, za)
        )
        keep = ~zilch
        act, ra, pa, out = active[keep], ra[keep], pa[keep], out[keep]
        ract = None if row is None else row[act]
        opt = policy.choose(model, out, ra, pa, ract)
        s2, r2, p2 = model.target[opt], ra + model.shift[opt], pa + model.perm[opt]
        bank = policy.banks(s2, r2, p2, ract)
        banked = act[bank]
        if record is not None:
            record(_step(active, sa, r[active], p[active], n, dice, matched, keep, opt, bank))
        points[banked] = r2[bank] + p2[bank]
        if left is not None:
            left[banked] = s2[bank]
        cont = ~bank
        active = act[cont]
        s[active], r[active], p[active] = s2[cont], r2[cont], p2[cont]
    return Played(points, left, zilched)


def _endless() -> InputError:
    return InputError(
        f"a turn rolled {MAX_ROLLS} times without ending: under this policy and these "
        "rules a turn may never end (it never banks, and some roll always scores)"
    )


def _starts(
    n_turns: int, start: tuple[Units, Units, Units] | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each turn's (s, r, p) to roll from: a fresh turn, or `start`."""
    s, r, p = (np.zeros(n_turns, np.int64) for _ in range(3))
    if start is not None:
        s[:], r[:], p[:] = start
    return s, r, p


def _roll(
    model: TurnModel, s: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray | int, np.ndarray]:
    """Physical dice rolled from states s: the dice each rolls, the faces (0..5, the first
    `dice` of each row), the colour match (0: no colour pairs), and the outcome each lands
    on (-1: a zilch)."""
    rules = model.rules
    N = rules.dice
    n = model.dice_of_state[s]
    dice = rng.integers(0, FACES, (len(s), N), dtype=np.int8)
    code = np.where(np.arange(N)[None, :] < n[:, None], POW7[dice], 0).sum(axis=1)
    matched: np.ndarray | int
    if rules.colour_pairs:
        matched = ((dice[:, 0::2] == dice[:, 1::2]).all(axis=1) & (n == 6)).astype(np.int64)
    else:
        matched = 0
    return n, dice, matched, model.lands(s, matched, code)


def _step(
    turns: np.ndarray,
    s: np.ndarray,
    r: np.ndarray,
    p: np.ndarray,
    dice: np.ndarray,
    faces: np.ndarray,
    matched: np.ndarray | int,
    keep: np.ndarray,
    choice: np.ndarray,
    bank: np.ndarray,
) -> Step:
    """The roll of these turns as a log sees it: the choice taken and whether it banked
    given for the turns kept (the others zilched: -1, no bank)."""
    choices = np.full(len(turns), -1, np.int64)
    banks = np.zeros(len(turns), bool)
    choices[keep], banks[keep] = choice, bank
    match = np.broadcast_to(matched, len(turns)).astype(bool)
    return Step(turns, s, r, p, dice, faces, match, choices, banks)


def _each(cost: int | np.ndarray, turns: np.ndarray) -> int | np.ndarray:
    """A cost given once, or one per turn: these turns' own."""
    return cost[turns] if isinstance(cost, np.ndarray) else cost


def _zilch_points(
    perm: np.ndarray, low: np.ndarray, cost: int | np.ndarray, cost_held: int | np.ndarray
) -> np.ndarray:
    """What zilches record: their permanent units where they reach `low` (else 0), less the
    penalty (cost_held where they record points, else cost)."""
    rec = np.where(perm >= low, perm, 0)
    return rec - np.where(rec > 0, cost_held, cost)


def sample_moments(values: Sequence[int], counts: Sequence[int]) -> tuple[float, float, float]:
    """Mean, standard deviation and standard error of the mean of a sample given as a
    histogram (each value and how often it came), its sums exact in integers."""
    n = sum(counts)
    mean = sum(v * c for v, c in zip(values, counts)) / n
    var = max(sum(v * v * c for v, c in zip(values, counts)) / n - mean * mean, 0.0)
    se = math.sqrt(var * n / (n - 1) / n) if n > 1 else 0.0
    return mean, math.sqrt(var), se
