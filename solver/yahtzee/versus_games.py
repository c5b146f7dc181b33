"""Whole games of the Yahtzee family between players, simulated turn by turn: a score-blind
player (expected-score or exponential-utility play, by its table) against Pawlewicz's
heuristic (opponents.py: at every decision the option with the largest chance of beating the
opponents' best final score, their final scores those of expected-score play from their
sheets as they stand).  `yahtzee versus` when one side adapts to the other.

The players take their turns in order, the heuristic first; every opponent's distribution
of points still to come is looked up in the backward table (to_come_table.py).  Beside the
heuristic a copy of the opponents' play rolls the same dice in seat 1 (heuristic_game): the
variance reduction of `yahtzee versus`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from ..progress import Progress
from ..store import Store
from . import opponents as OP
from .final_scores import State
from .hands import keep_graph
from .solve import rule_arrays
from .threshold_widget import move
from .to_come_table import ToCome, stored
from .widget import best_keeps
from .yahtzee_rules import YahtzeeRules


class Table:
    """A score-blind player: the keep and box values of its widget at a state, kept."""

    def __init__(self, rules: YahtzeeRules, table: np.ndarray, theta: float) -> None:
        from .numba_kernel import HELPERS
        from .utility_numba import jit_level  # noqa: F401 (registers the compiled uwidget)

        self.rules, self.table, self.theta = rules, table, theta
        self.run = HELPERS["uwidget"]
        self.cache: dict[State, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def values(self, state: State, rolls_left: int, hand: int) -> np.ndarray:
        if state not in self.cache:
            r = rule_arrays(self.rules)
            VB = np.empty((len(r.roll_keep), self.rules.n_boxes))
            A1, A2 = np.empty(len(r.add)), np.empty(len(r.add))
            self.run(*state, self.table, r, VB, A1, A2, self.theta)
            self.cache[state] = (VB, A1, A2)
        VB, A1, A2 = self.cache[state]
        return VB[hand] if rolls_left == 0 else (A1 if rolls_left == 1 else A2)


class Heuristic:
    """Pawlewicz's heuristic against opponents playing for the expected score.  Their points
    to come from any sheet are looked up in the backward table (to_come_table.py, stored,
    built on first use: 30 s and 2.3 GB for yatzy), the turn's keep values kept for its two
    keeps."""

    def __init__(self, rules: YahtzeeRules, store: Store, expected: np.ndarray) -> None:
        self.rules, self.store, self.E = rules, store, expected
        self.back: ToCome | None = None
        self.levels: dict[int, OP.Next] = {}
        self.turn: tuple[tuple[State, tuple[int, int]], tuple[np.ndarray, ...]] | None = None

    def prepare(self, progress: Progress | None = None) -> ToCome:
        """The opponents' points to come from every sheet, built once."""
        if self.back is None:
            self.back = stored(self.rules, self.store, self.E, progress)
        assert self.back is not None  # (built where missing)
        return self.back

    def best(self, others: list[tuple[State, int, bool]]) -> np.ndarray:
        """The opponents' best final score's distribution (others: state, score, finished)."""
        dists = []
        for st, score, done in others:
            if done:
                dists.append(np.concatenate([np.zeros(score), [1.0]]))
                continue
            dists.append(np.concatenate([np.zeros(score), self.prepare().of(st)]))
        return OP.best_of(dists)

    def values(
        self, state: State, score: int, rolls_left: int, hand: int, best: np.ndarray
    ) -> np.ndarray:
        span = OP.span(best, score)
        nxt = self.next_arrays(state[0])
        if rolls_left == 0:
            vec = OP.option_vectors(self.rules, self.store, state, hand, 0, span, nxt=nxt)
        else:  # one threshold turn gives both keeps' values: run once per state and span
            if self.turn is None or self.turn[0] != (state, span):
                self.turn = ((state, span), OP.keep_vectors(self.rules, state, span, nxt))
            vec = self.turn[1][rolls_left - 1]
        return OP.heuristic(best, score, vec)

    def next_arrays(self, mask: int) -> OP.Next:
        """The beat table's level after `mask`, read (and all its blocks checked) once."""
        k = bin(mask).count("1") + 1
        if k not in self.levels:
            self.levels[k] = OP.next_arrays(self.rules, self.store, mask, whole=True)
        return self.levels[k]


class Replay:
    """One turn's dice drawn once, for two players to roll alike (common random numbers):
    the k-th roll of the turn shows the first n dice of row k (a Generator's integers)."""

    def __init__(self, rows: np.ndarray) -> None:
        self.rows, self.k = rows, 0

    def integers(self, low: int, high: int, size: int) -> np.ndarray:
        row = self.rows[self.k]
        self.k += 1
        return row[:size]


def play_turn(
    rules: YahtzeeRules,
    state: State,
    rng: np.random.Generator | Replay,
    values: Callable[[int, int], np.ndarray],
    keeps: Callable[[np.ndarray, np.ndarray, np.ndarray], object] = best_keeps,
) -> tuple[int, State]:
    """One turn: values(rolls_left, hand) the keeps' values (rolls left) or the boxes' (none),
    the dice from rng (a Generator, or a Replay of dice drawn before);
    returns (points scored, bonuses included; the state after).  keeps: widget.best_keeps,
    or the compiled one (numba_kernel.py's)."""
    kg = keep_graph(rules.dice)
    r = rule_arrays(rules)
    code = hand_codes(rules.dice)
    kept = np.zeros(6, np.int64)
    for rolls_left in (2, 1, 0):
        counts = kept + np.bincount(rng.integers(0, 6, rules.dice - kept.sum()), minlength=6)
        hand = code[tuple(counts.tolist())]
        v = values(rolls_left, hand)
        if rolls_left == 0:
            b = int(np.argmax(v))
            g, nup, nyf = move(*state, hand, b, r, np.empty(rules.n_boxes, np.int64))
            return int(g), (state[0] | 1 << b, nup, nyf)
        arg = np.empty(len(v), np.int64)
        keeps(np.asarray(v, np.float64), r.remove, arg)
        kept = kg.counts[arg[kg.roll_keep[hand]]].astype(np.int64)
    raise AssertionError("unreachable")


@lru_cache(maxsize=4)
def hand_codes(dice: int) -> dict[tuple[int, ...], int]:
    """Each hand's index (keep_graph's roll index) by its counts."""
    return {tuple(c): o for o, c in enumerate(keep_graph(dice).roll_counts.tolist())}


def heuristic_game(
    rules: YahtzeeRules, heur: Heuristic, other: Table, players: int, rng: np.random.Generator
) -> tuple[int, int, list[int]]:
    """One game: the heuristic (seat 1) against players - 1 copies of `other`, and beside
    it, on the same dice (Replay), a copy of `other` in seat 1 that the others never see.
    Returns the final scores: the heuristic's, that copy's, the others'.  The others do not
    look at seat 1, so their game is the same for both; the copy's share of the win has
    mean exactly 1 / players (all play alike), and the heuristic's gain over it varies far
    less from game to game than its share does (docs/method.md)."""
    states: list[State] = [(0, 0, 0)] * players
    scores = [0] * players
    twin, twin_score = (0, 0, 0), 0
    full = (1 << rules.n_boxes) - 1
    from .numba_kernel import HELPERS

    keeps = HELPERS["best_keeps"]
    for _ in range(rules.n_boxes):
        best = heur.best([(states[q], scores[q], states[q][0] == full) for q in range(1, players)])
        s0, sc0 = states[0], scores[0]
        rows = rng.integers(0, 6, (3, rules.dice))
        g, states[0] = play_turn(
            rules,
            s0,
            Replay(rows),
            lambda rl, h: _masked(heur.values(s0, sc0, rl, h, best), rl),
            keeps,
        )
        scores[0] += g
        tw = twin
        g, twin = play_turn(rules, tw, Replay(rows), lambda rl, h: other.values(tw, rl, h), keeps)
        twin_score += g
        for p in range(1, players):
            sp = states[p]
            g, states[p] = play_turn(rules, sp, rng, lambda rl, h: other.values(sp, rl, h), keeps)
            scores[p] += g
    return scores[0], twin_score, scores[1:]


def _masked(v: np.ndarray, rolls_left: int) -> np.ndarray:
    """The boxes a hand may not go to (-1 in the chance vectors) never chosen."""
    return np.where(v < -0.5, -np.inf, v) if rolls_left == 0 else v


def share(mine: int, others: list[int]) -> float:
    """My share of one game's win: ties at the top split evenly."""
    top = max(others)
    if mine != top:
        return float(mine > top)
    return 1.0 / (1 + others.count(top))
