"""Two-player games between the fixed strategies of duel_eval.py, simulated turn by turn
(versus_games.play_turn's turn, its keeps chosen by the compiled best_keeps): the check by
sampling of their exact evaluation (tests/test_yahtzee_duel.py).  The strategies choose as
duel_eval's do, ties included: each option ranked by its criterion, then by its expected
score (the larger first; equal ranks go to the first option, as argmax and best_keeps take
it):
  optimal     the exact game's P(win) of the option (duel.py's layers, the threshold turn
              over the opponent's reversed complement, as `yahtzee duel` ranks options)
  expected    no criterion: the expected score alone
  heuristic   versus_games.Heuristic's (Pawlewicz's, against the opponent's final score
              under expected-score play)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..store import Store
from . import duel as D
from . import versus_games
from .solitaire import SheetState, game_table, run_widget
from .solve import rule_arrays
from .threshold_widget import box_values
from .versus_games import Heuristic, share
from .widget import NEG
from .yahtzee_rules import YahtzeeRules

State = tuple[int, int, int]
# values(my state, my score, the other's state, the other's score, rolls left, hand)
Values = Callable[[State, int, State, int, int, int], np.ndarray]


def ranked(crit: np.ndarray, tie: np.ndarray) -> np.ndarray:
    """Each option's rank by (crit, tie), equal pairs equal."""
    order = np.lexsort((tie, crit))
    c, t = crit[order], tie[order]
    step = (np.diff(c) != 0) | (np.diff(t) != 0)
    out = np.empty(len(crit))
    out[order] = np.concatenate([[0], np.cumsum(step)])
    return out


class Players:
    """The three strategies of one rule file (the optimal one from the solved layers)."""

    def __init__(self, rules: YahtzeeRules, store: Store, layers: list[np.ndarray]) -> None:
        self.rules, self.layers = rules, layers
        self.E = game_table(rules, store)
        self.heur = Heuristic(rules, store, self.E)
        self.ties: dict[State, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self.nexts: dict[tuple[int, int], tuple[tuple[np.ndarray, ...], int]] = {}

    def tie(self, state: State, rolls_left: int, hand: int) -> np.ndarray:
        if state not in self.ties:
            VB, A1, A2, _ = run_widget(self.rules, self.E, SheetState(*state))
            self.ties[state] = (np.where(VB > NEG / 2, VB, -np.inf), A1, A2)
        VB, A1, A2 = self.ties[state]
        return VB[hand] if rolls_left == 0 else (A1 if rolls_left == 1 else A2)

    def strategy(self, name: str) -> Values:
        crit = {"optimal": self.optimal, "expected": self.expected, "heuristic": self.heuristic}
        f = crit[name]

        def values(
            me: State, mine: int, other: State, theirs: int, rl: int, hand: int
        ) -> np.ndarray:
            return ranked(f(me, mine, other, theirs, rl, hand), self.tie(me, rl, hand))

        return values

    def expected(
        self, me: State, mine: int, other: State, theirs: int, rl: int, hand: int
    ) -> np.ndarray:
        return np.zeros(len(self.tie(me, rl, hand)))

    def heuristic(
        self, me: State, mine: int, other: State, theirs: int, rl: int, hand: int
    ) -> np.ndarray:
        done = bin(other[0]).count("1") == self.rules.n_boxes
        best = self.heur.best([(other, theirs, done)])
        return np.asarray(self.heur.values(me, mine, rl, hand, best))

    def optimal(
        self, me: State, mine: int, other: State, theirs: int, rl: int, hand: int
    ) -> np.ndarray:
        from .threshold_numba import twidget

        rs = self.rules
        s = bin(me[0]).count("1") + bin(other[0]).count("1")
        lay = D.layout(rs, s)
        i = int(np.nonzero((lay.others == np.array(other)).all(axis=1))[0][0])
        if (s, i) not in self.nexts:
            nxt = D.layout(rs, s + 1)
            q_off, q = D.complements(nxt, self.layers[s + 1], i)
            self.nexts[s, i] = ((nxt.index(nxt.others), q_off, q), -int(lay.most_others[i]))
        arrays, lo = self.nexts[s, i]
        a0, a1, a2 = arrays
        r, t = rule_arrays(rs), theirs - mine
        if rl == 0:
            return box_values(*me, hand, t, r, (a0, a1, a2), lo)
        A1, A2 = np.empty((len(r.add), 1)), np.empty((len(r.add), 1))
        twidget(*me, t, r, (a0, a1, a2), lo, A1, A2, np.empty(1))
        return (A1 if rl == 1 else A2)[:, 0]


def play_turn(
    rules: YahtzeeRules,
    state: State,
    rng: np.random.Generator,
    values: Callable[[int, int], np.ndarray],
) -> tuple[int, State]:
    """versus_games.play_turn with the compiled best_keeps (numba_kernel.py's)."""
    from .numba_kernel import HELPERS

    return versus_games.play_turn(rules, state, rng, values, HELPERS["best_keeps"])


def game(
    rules: YahtzeeRules, first: Values, second: Values, rng: np.random.Generator
) -> tuple[int, int]:
    """One game, `first` moving first: both final scores."""
    states: list[State] = [(0, 0, 0), (0, 0, 0)]
    scores = [0, 0]
    players = (first, second)
    for _ in range(rules.n_boxes):
        for p in (0, 1):
            me, other, mine, theirs, f = (
                states[p],
                states[1 - p],
                scores[p],
                scores[1 - p],
                players[p],
            )
            g, states[p] = play_turn(
                rules, me, rng, lambda rl, h: f(me, mine, other, theirs, rl, h)
            )
            scores[p] += g
    return scores[0], scores[1]


def simulate(
    rules: YahtzeeRules, a: Values, b: Values, games: int, seed: int, a_first: bool = True
) -> tuple[float, float]:
    """a's share of the win (a tie half) over `games` games against b and its standard
    error; a moving first or second."""
    rng = np.random.default_rng(seed)
    w = np.empty(games)
    for k in range(games):
        if a_first:
            mine, theirs = game(rules, a, b, rng)
        else:
            theirs, mine = game(rules, b, a, rng)
        w[k] = share(mine, [theirs])
    return float(w.mean()), float(w.std(ddof=1) / np.sqrt(games))
