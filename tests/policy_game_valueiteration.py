"""A plain value iteration of the two-player game between two given policies, for small
games: the oracle of objectives/policy_game.py.

Written from the rules alone: it enumerates every roll of 1..N dice with its choices
(outcomes/scoring.py: the scoring is shared), and sweeps every state -- the player to move
(P or Q), his score a, the other's b, the dice state s (0: must roll all dice; 1..N: n dice,
free), the turn total t -- with each mover's own decisions, until nothing moves by 1e-15.
The decisions are worked out here too:

- a threshold policy (a policy file's keys): bank from thresholds[n] (off the board only
  from `entry` as well), or where a + t reaches the target (bank_at_target); the dice by
  its set-aside rule;
- the expected-points card: a value iteration of one turn for points, then the best choice
  (ties: more points, then fewer dice left) and bank where banking is worth at least rolling;
- optimal: the optimal game's chances by value iteration (tests/game_valueiteration.py),
  then its turn values under them by value iteration, the best choice (ties: fewer points)
  and bank where banking is worth at least rolling.

In a final round the other player then plays his last turn: optimally (value iteration of
the last turn), or a fixed policy's choices, banking as soon as the total beats the deficit
(and meets the minimum).  Optional hot dice, no permanent points; turn totals stop at Tm
units, past which every policy banks in every free state (asserted).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dicesolver.outcomes.scoring import scored

from . import game_valueiteration as GVI


@dataclass
class Thresholds:
    """A policy file's keys: thresholds[n] (points), entry, rule, bank_at_target."""

    thresholds: dict
    entry: int = 0
    rule: str = "all"
    bank_at_target: bool = False


def _key(rule, pts, kept):
    if rule == "all":  # most dice kept, then most points
        return (kept, pts)
    if rule == "max_points":  # most points, then more dice kept
        return (pts, kept)
    return (pts / kept, -kept)  # per_die: most points per die, then fewer dice


class Game:
    """One small game's states: scores below R units, turn totals below Tm units."""

    def __init__(self, rules, R, Tm):
        assert rules.hot_dice == "optional" and not rules.has_permanent
        self.rules, self.R, self.Tm, self.N, self.u = rules, R, Tm, rules.dice, rules.unit
        self.rolls = {}  # n -> ([(p, [(points units, kept, next state)])], P(zilch))
        for n in range(1, self.N + 1):
            rolls, pz = [], 0.0
            for so in scored(rules, n):
                if so.choices:
                    chs = [(c.points // self.u, n - c.left, c.left or self.N) for c in so.choices]
                    rolls.append((float(so.outcome.prob), chs))
                else:
                    pz += float(so.outcome.prob)
            self.rolls[n] = (rolls, pz)
        self.a = np.arange(R)[:, None, None]
        self.b = np.arange(R)[None, :, None]
        self.t = np.arange(Tm)[None, None, :]
        self.on = (self.a > 0) | (rules.entry_minimum == 0)  # (R, 1, 1)

    def low(self, on_board):
        """Units a bank needs on (or off) the board."""
        rules = self.rules
        pts = rules.bank_minimum if on_board else max(rules.entry_minimum, rules.bank_minimum)
        return -(-pts // self.u)

    def _dice(self, s):
        return self.N if s == 0 else s

    # --- decisions: bank[s] (R, R, Tm) and pick[n][o] (broadcast to (R, R, Tm)) -----------
    def thresholds(self, pol: Thresholds):
        """Decisions of a threshold policy, and its choices for a last turn (by flag)."""
        t, u = self.t, self.u
        low = np.where(self.on, self.low(True), self.low(False))
        bank = {}
        for s in range(1, self.N + 1):
            own = (t * u >= pol.thresholds[s]) & (self.on | (t * u >= pol.entry))
            if pol.bank_at_target:
                own = own | (self.a + t >= self.R)
            bank[s] = np.broadcast_to(own & (t >= low), (self.R, self.R, self.Tm))
        pick = {
            n: [
                np.array(max(range(len(chs)), key=lambda i: _key(pol.rule, *chs[i][:2])))
                for _, chs in rolls
            ]
            for n, (rolls, _) in self.rolls.items()
        }
        return (bank, pick), {False: pick, True: pick}

    def _best(self, value, zilch, order):
        """The best choice of every roll under value(state, points added) and each state's
        roll value; ties go to the first choice in `order` (a key of (points, kept, next))."""
        pick, roll = {}, {}
        for n, (rolls, pz) in self.rolls.items():
            pick[n], acc = [], 0.0
            for p, chs in rolls:
                best = arg = None
                for i in sorted(range(len(chs)), key=lambda i: order(*chs[i])):
                    v = value(chs[i][2], chs[i][0])
                    if best is None:
                        best, arg = v, np.full(v.shape, i)
                    else:
                        arg = np.where(v > best, i, arg)
                        best = np.maximum(best, v)
                pick[n].append(arg)
                acc = acc + p * best
            roll[n] = acc + pz * zilch
        return pick, roll

    def card(self):
        """The expected-points card's decisions (the game's, and a last turn's by flag)."""
        u, Tc = self.u, self.Tm + 200
        t = np.arange(Tc)
        more = lambda p, kept, s: (-p, -kept)  # noqa: E731  (ties: more points, fewer dice left)
        games, lasts = {}, {}
        for flag in (False, True):
            bankv = np.where(t >= self.low(flag), t * u, -np.inf).astype(float)
            V = np.zeros((self.N + 1, Tc))

            def value(s, pts, V=V):
                tt = t + pts
                return np.where(tt < Tc, V[s, np.minimum(tt, Tc - 1)], tt * u)

            for _ in range(5000):
                old = V.copy()
                _, roll = self._best(value, 0.0, more)
                for s in range(self.N + 1):
                    V[s] = roll[self._dice(s)] if s == 0 else np.maximum(roll[s], bankv)
                if np.abs(V - old).max() < 1e-12:
                    break
            pick, roll = self._best(value, 0.0, more)
            lasts[flag] = pick
            bank = {s: (bankv >= roll[s])[: self.Tm] for s in range(1, self.N + 1)}
            games[flag] = (bank, {n: [x[: self.Tm] for x in xs] for n, xs in pick.items()})
        on = self.on
        bank = {
            s: np.broadcast_to(
                np.where(on, games[True][0][s], games[False][0][s]), (self.R, self.R, self.Tm)
            )
            for s in range(1, self.N + 1)
        }
        pick = {
            n: [np.where(on, x, y) for x, y in zip(games[True][1][n], games[False][1][n])]
            for n in self.rolls
        }
        return (bank, pick), lasts

    def optimal(self, W, finals):
        """The optimal game's decisions given its chances W: its turn values under W."""
        R, Tm = self.R, self.Tm
        bankv = self.bank_values(W, finals)
        zilch = (1.0 - W.T)[:, :, None]
        V = np.zeros((self.N + 1, R, R, Tm))

        def value(s, pts):
            tt = np.broadcast_to(self.t + pts, (R, R, Tm))
            far = np.take_along_axis(bankv, np.minimum(tt, bankv.shape[2] - 1), axis=2)
            inside = np.take_along_axis(V[s], np.minimum(tt, Tm - 1), axis=2)
            return np.where(tt < Tm, inside, far)

        fewer = lambda p, kept, s: (p, s)  # noqa: E731  (ties: fewer points first)
        for _ in range(5000):
            old = V.copy()
            _, roll = self._best(value, zilch, fewer)
            for s in range(self.N + 1):
                V[s] = roll[self._dice(s)] if s == 0 else np.maximum(roll[s], bankv[:, :, :Tm])
            if np.abs(V - old).max() < 1e-15:
                break
        pick, roll = self._best(value, zilch, fewer)
        return {s: bankv[:, :, :Tm] >= roll[s] for s in range(1, self.N + 1)}, pick

    def bank_values(self, other, finals):
        """What banking t is worth to the mover with a against b, (R, R, Tm + 400): the
        other moves from (b, a + t) (other[b, a']: his chance), or plays his last turn
        (finals[flag][d]: his chance against deficit d; None: reaching R wins at once);
        -inf below the minimum."""
        R = self.R
        t = np.arange(self.Tm + 400)[None, None, :]
        final = np.broadcast_to(self.a + t, (R, R, t.shape[2]))
        fin = np.ones(final.shape)
        if finals is not None:
            d = np.broadcast_to(final - self.b, final.shape)
            flag = np.broadcast_to((self.b > 0) | (self.rules.entry_minimum == 0), final.shape)
            for f in (False, True):
                arr = finals[f]
                got = np.where(d < len(arr), arr[np.minimum(d, len(arr) - 1)], 0.0)
                fin = np.where(flag == f, 1.0 - got, fin)
        after = other[np.broadcast_to(self.b, final.shape), np.minimum(final, R - 1)]
        v = np.where(final < R, 1.0 - after, fin)
        low = np.where(self.on, self.low(True), self.low(False))
        return np.where(t >= low, v, -np.inf)

    # --- last turns ------------------------------------------------------------------------
    def fixed_last_turn(self, pick, D, flag):
        """A fixed policy's chance against deficits 0..D-1 (units): its choices pick[n][o]
        (by total, or one), banking as soon as the total beats the deficit (and meets the
        minimum); a tie rolls on."""
        N = self.N
        Tl = D + 2 + 2 * N
        d = np.arange(D)[:, None]
        t = np.arange(Tl)
        win = (t[None, :] > d) & (t[None, :] >= self.low(flag))
        V = np.zeros((D, N + 1, Tl))
        for _ in range(5000):
            old = V.copy()
            for s in range(N + 1):
                rolls, pz = self.rolls[self._dice(s)]
                acc = 0.0
                for (p, chs), arg in zip(rolls, pick[self._dice(s)]):
                    arg = np.broadcast_to(np.ravel(arg), (max(np.size(arg), 1),))
                    i = arg[np.minimum(t, len(arg) - 1)]
                    pts = np.array([chs[k][0] for k in range(len(chs))])[i]
                    nxt = np.array([chs[k][2] for k in range(len(chs))])[i]
                    tt = t + pts
                    acc = acc + p * np.where(tt < Tl, V[:, nxt, np.minimum(tt, Tl - 1)], 1.0)
                V[:, s] = acc if s == 0 else np.where(win, 1.0, acc)
            if np.abs(V - old).max() < 1e-15:
                break
        return V[:, 0, 0]

    def optimal_last_turn(self, D):
        """The optimal last turn against deficits 0..D-1 (on the board)."""
        assert not self.rules.entry_minimum
        return GVI.last_turn(self.rules, D)

    # --- the game between two movers' decisions --------------------------------------------
    def play(self, decisions, finals):
        """Start[m] (R, R): mover m's chance (0: P, 1: Q) from the start of his turn with a
        against b, each playing decisions[m] = (bank, pick); finals[m] by flag: m's
        last-turn chance by deficit (None: reaching the target wins at once)."""
        R, Tm, N = self.R, self.Tm, self.N
        for bank, _ in decisions:
            for s in range(1, N + 1):
                assert bank[s][:, :, -10:].all(), "Tm too small for the policies"
        V = np.full((2, N + 1, R, R, Tm), 0.5)
        for _ in range(50_000):
            old = V.copy()
            for m in (0, 1):
                start = V[1 - m, 0, :, :, 0]
                bankv = self.bank_values(start, finals[1 - m])
                zilch = (1.0 - start.T)[:, :, None]
                bank, pick = decisions[m]
                for s in range(N + 1):
                    rolls, pz = self.rolls[self._dice(s)]
                    acc = pz * zilch
                    for (p, chs), arg in zip(rolls, pick[self._dice(s)]):
                        arg = np.broadcast_to(arg, (R, R, Tm))
                        got = np.zeros((R, R, Tm))
                        for i, (pts, _, nxt) in enumerate(chs):
                            tt = np.broadcast_to(self.t + pts, (R, R, Tm))
                            far = np.take_along_axis(bankv, np.minimum(tt, bankv.shape[2] - 1), 2)
                            inside = np.take_along_axis(V[m, nxt], np.minimum(tt, Tm - 1), 2)
                            got = np.where(arg == i, np.where(tt < Tm, inside, far), got)
                        acc = acc + p * got
                    V[m, s] = acc if s == 0 else np.where(bank[s], bankv[:, :, :Tm], acc)
            if np.abs(V - old).max() < 1e-15:
                break
        else:
            raise AssertionError("value iteration did not settle")
        return V[:, 0, :, :, 0]
