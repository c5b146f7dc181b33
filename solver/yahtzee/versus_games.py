"""Whole games of the Yahtzee family between players, simulated turn by turn: a score-blind
player (expected-score or exponential-utility play, by its table) against Pawlewicz's
heuristic (opponents.py: at every decision the option with the largest chance of beating the
opponents' best final score, their final scores those of expected-score play from their
sheets as they stand).  `yahtzee versus` when one side adapts to the other.

The players take their turns in order, the heuristic first; every opponent's distribution
of points still to come from a state is computed once (final_scores.to_come) and kept.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from ..store import Store
from . import opponents as OP
from .final_scores import State, to_come
from .hands import keep_graph
from .solve import rule_arrays
from .threshold_widget import move
from .widget import best_keeps
from .yahtzee_rules import YahtzeeRules


class Table:
    """A score-blind player: the keep and box values of its widget at a state, kept."""

    def __init__(self, rules: YahtzeeRules, table: np.ndarray, theta: float) -> None:
        from .utility_numba import uwidget

        self.rules, self.table, self.theta, self.run = rules, table, theta, uwidget
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
    """Pawlewicz's heuristic against opponents playing for the expected score."""

    def __init__(self, rules: YahtzeeRules, store: Store, expected: np.ndarray) -> None:
        self.rules, self.store, self.E = rules, store, expected
        self.rest: dict[State, np.ndarray] = {}
        self.turn: tuple[State, np.ndarray] | None = None

    def best(self, others: list[tuple[State, int, bool]]) -> np.ndarray:
        """The opponents' best final score's distribution (others: state, score, finished)."""
        dists = []
        for st, score, done in others:
            if done:
                dists.append(np.concatenate([np.zeros(score), [1.0]]))
                continue
            if st not in self.rest:
                self.rest[st] = to_come(self.rules, self.E, 0.0, st)
            dists.append(np.concatenate([np.zeros(score), self.rest[st]]))
        return OP.best_of(dists)

    def values(
        self, state: State, score: int, rolls_left: int, hand: int, best: np.ndarray
    ) -> np.ndarray:
        vec = OP.option_vectors(
            self.rules, self.store, state, hand, rolls_left, OP.span(best, score)
        )
        return OP.heuristic(best, score, vec)


def play_turn(
    rules: YahtzeeRules,
    state: State,
    rng: np.random.Generator,
    values: Callable[[int, int], np.ndarray],
    keeps: Callable[[np.ndarray, np.ndarray, np.ndarray], object] = best_keeps,
) -> tuple[int, State]:
    """One turn: values(rolls_left, hand) the keeps' values (rolls left) or the boxes' (none);
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
) -> tuple[int, list[int]]:
    """One game: the heuristic (seat 1) against players - 1 copies of `other`; the final
    scores (the heuristic's, the others')."""
    states: list[State] = [(0, 0, 0)] * players
    scores = [0] * players
    for _ in range(rules.n_boxes):
        for p in range(players):
            if p == 0:
                full = (1 << rules.n_boxes) - 1
                best = heur.best(
                    [(states[q], scores[q], states[q][0] == full) for q in range(1, players)]
                )
                s0, sc0 = states[0], scores[0]
                g, states[0] = play_turn(
                    rules, s0, rng, lambda rl, h: _masked(heur.values(s0, sc0, rl, h, best), rl)
                )
            else:
                sp = states[p]
                g, states[p] = play_turn(rules, sp, rng, lambda rl, h: other.values(sp, rl, h))
            scores[p] += g
    return scores[0], scores[1:]


def _masked(v: np.ndarray, rolls_left: int) -> np.ndarray:
    """The boxes a hand may not go to (-1 in the chance vectors) never chosen."""
    return np.where(v < -0.5, -np.inf, v) if rolls_left == 0 else v


def share(mine: int, others: list[int]) -> float:
    """My share of one game's win: ties at the top split evenly."""
    top = max(others)
    if mine != top:
        return float(mine > top)
    return 1.0 / (1 + others.count(top))
