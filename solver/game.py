"""The whole two-player game: the probability that the player to move wins.

W[a, b]: the player to move has a, the opponent b (units, both below the target).  A turn
from (a, b) is the turn solver with payoff "1 - W[b, a + t]" for banking t, "the opponent's
last turn fails" once a + t reaches the target (final round; or 1 where reaching it wins at
once), and "1 - W[b, a]" for a zilch.  Banks raise the score sum and a zilch swaps the
players at the same sum, so the sums are solved from the top down; the two orders {(a, b),
(b, a)} of a sum are coupled only through their zilch payoffs: Newton's method on the pair,
with the slope dW/dz = P(the turn ends in a zilch) evaluated under the optimal policy (an
extra of the same solve), lands on the fixed point exactly once the policy settles.

Scores of 0 are "not on the board" where the rules have an entry minimum (a bank is at
least that minimum, so a positive score is always on the board).

Zonk's piggyback: a player who banks t with n dice left offers them to the opponent, who
may take them over (roll those n dice from t) or start fresh.  O[x, y, n, t] is the mover's
chance if he takes the offer: the roll value of state (n, t) in the turn from (x, y), which
the same solve gives (its grid then covers every total up to y).  Banking is then worth
1 - max(W[b, a + t], O[b, a + t, n, t]), a payoff by dice left; both terms come from higher
score sums, so the order of solution is unchanged.  Only the offers worth taking are kept
(Offers); any other take-over value is its turn's, solved on demand.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import InputError
from .endgame import solve_last_turn, turn_reach_bound
from .rules import RuleSet
from .turn import Extra, Payoff, build_model, solve_turn

NEWTON_TOL = 1e-14


def reach_units(rules: RuleSet, target: int) -> int:
    """The smallest score (units) that reaches the target."""
    t = target // rules.unit
    return t + 1 if rules.reach == "more_than" else t


def check_supported(rules: RuleSet) -> None:
    if rules.target is None:
        raise InputError(f"{rules.name} has no target: there is no game to solve")
    if rules.has_permanent:
        from .endgame import perm_step
        perm_step(rules)           # one permanent amount (refused otherwise, clearly)
    if rules.piggyback and (rules.end != "instant" or rules.has_permanent):
        raise InputError(f"{rules.name}: piggyback is solved where reaching the target wins "
                         "at once and without permanent points")


@dataclass(frozen=True, eq=False)
class GameTable:
    rules: RuleSet
    target: int               # points
    W: np.ndarray             # (R, R): P(the player to move wins), scores in units < R
    finals: dict | None = None  # the opponent's last-turn chance by deficit, per board flag
    O: "Offers | None" = None  # piggyback: the offers worth taking over

    def p_win(self, me: int, opp: int) -> float:
        u = self.rules.unit
        return float(self.W[me // u, opp // u])

    def take_over(self, me: int, opp: int, dice: int, total: int) -> float:
        """P(win) of taking over `dice` dice and `total` points (piggyback): stored where
        that beats a fresh start, else the turn from (me, opp) solved on demand."""
        u = self.rules.unit
        got = self.O.lookup(*(np.array([x]) for x in (me // u, opp // u, dice, total // u)))
        if np.isfinite(got[0]):
            return float(got[0])
        return float(turn_values(self, me, opp)[0].roll[0, dice, total // u])


@dataclass(frozen=True, eq=False)
class Offers:
    """Piggyback take-over values O[x, y, n, t] (taking over n dice and total t, moving with
    x against y) where they beat a fresh start, at sorted flat indices into `shape`: the
    only ones the game needs (banking is worth 1 - max(W, O)).  Zonk-chicago to 10000:
    about 14 M of the 16 M possible offers (165 MB stored)."""
    shape: tuple
    idx: np.ndarray
    val: np.ndarray

    @classmethod
    def dense(cls, O: np.ndarray, W: np.ndarray) -> "Offers":
        with np.errstate(invalid="ignore"):
            idx = np.flatnonzero(O > W[:, :, None, None])        # NaN: no such offer
        small = O.size < 2 ** 31                # 4-byte indices where they fit
        return cls(O.shape, idx.astype(np.int32) if small else idx, O.ravel()[idx])

    def lookup(self, x, y, n, t) -> np.ndarray:
        """O where stored, NaN elsewhere (a fresh start is at least as good there)."""
        flat = np.ravel_multi_index((x, y, n, t), self.shape)
        if not len(self.idx):
            return np.full(np.shape(flat), np.nan)
        pos = np.minimum(np.searchsorted(self.idx, flat), len(self.idx) - 1)
        return np.where(self.idx[pos] == flat, self.val[pos], np.nan)


class _Finals:
    """P(win) for the player who banks to a + t >= target: the opponent's last turn (or 1
    where reaching the target wins at once)."""

    def __init__(self, rules: RuleSet, R: int, stored: dict | None = None):
        self.rules, self.R = rules, R
        self.D = 0
        if rules.end == "instant":
            return
        if stored:
            self.opp = stored
        else:
            D = turn_reach_bound(rules)
            deficits = np.arange(R + D + 1) * rules.unit
            # the opponent's chance in his last turn, by deficit, on and off the board
            self.opp = {flag: solve_last_turn(rules, deficits, flag)[0].roll[:, 0, 0]
                        for flag in {True, bool(not rules.entry_minimum)}}
        self.D = len(next(iter(self.opp.values()))) - R - 1

    def mine(self, final: np.ndarray, opp_score: int) -> np.ndarray:
        if self.rules.end == "instant":
            return np.ones(len(final))
        d = final - opp_score
        opp = self.opp[bool(opp_score > 0 or not self.rules.entry_minimum)]
        return 1.0 - np.where(d < len(opp), opp[np.minimum(d, len(opp) - 1)], 0.0)


def _bank_minimums(rules: RuleSet, scores: np.ndarray) -> np.ndarray:
    """Units a bank needs, by the banking player's score (0: not on the board)."""
    u = rules.unit
    return np.array([-(-rules.min_bank(bool(x > 0 or not rules.entry_minimum)) // u)
                     for x in scores])


def _game_U(rules: RuleSet, W: np.ndarray, finals: _Finals, rows, R: int) -> np.ndarray:
    """U[row, x]: what ending the turn from (a, b) with a + x points is worth."""
    a = np.array([r[0] for r in rows])
    b = np.array([r[1] for r in rows])
    span = R + (finals.D if rules.end != "instant" else 0) + 1
    final = a[:, None] + np.arange(span)[None, :]
    inside = final < R
    U = np.empty(final.shape)
    U[inside] = 1.0 - W[np.broadcast_to(b[:, None], final.shape)[inside], final[inside]]
    for i in range(len(rows)):
        U[i, ~inside[i]] = finals.mine(final[i, ~inside[i]], b[i])
    return U


def _pair_payoff(rules: RuleSet, model, W: np.ndarray, finals: _Finals, rows, z: np.ndarray,
                 R: int, O: np.ndarray | None = None):
    """The turn payoff of each (a, b) row of the game, with zilch payoff z; with piggyback
    (O given) banking depends on the dice left, and every total up to b is solved."""
    a = np.array([r[0] for r in rows])
    if O is None:
        return turn_payoff(rules, model, _game_U(rules, W, finals, rows, R), z,
                           _bank_minimums(rules, a))
    cover = max(r[1] for r in rows) + 1
    return turn_payoff(rules, model, _offer_U(W, O, rows, R), z, _bank_minimums(rules, a),
                       cover)


def _offer_U(W: np.ndarray, O, rows, R: int) -> np.ndarray:
    """Piggyback (reaching the target wins at once): U[row, s, t] = 1 - max(W[b, a + t],
    O[b, a + t, s, t]).  Banking t with s dice left offers those dice and t to the
    opponent, who takes them over where that beats a fresh start; reaching R wins."""
    a = np.array([r[0] for r in rows])[:, None]
    b = np.array([r[1] for r in rows])[:, None]
    S = O.shape[2]                  # O: the dense table while solving, or Offers
    t = np.arange(R + 1)[None, :]
    final = a + t
    inside = final < R
    f = np.minimum(final, R - 1)
    fresh = W[b, f]
    U = np.ones((len(rows), S, R + 1))
    tt = np.minimum(t, R - 1)
    for s in range(S):
        if not s:
            offer = np.full(final.shape, np.nan)
        elif isinstance(O, Offers):
            offer = O.lookup(*np.broadcast_arrays(b, f, s, tt))
        else:
            offer = O[b, f, s, tt]
        best = np.where(np.isnan(offer) | (t == 0), fresh, np.maximum(fresh, offer))
        U[:, s] = np.where(inside, 1.0 - best, 1.0)
    return U


def _permanent_turns(rules: RuleSet, U: np.ndarray, a: np.ndarray):
    """(start values, P(plain zilch)) of turns with permanent points: a game turn is a final
    turn over the points x it adds (endgame.solve_final_turn: levels of permanent points),
    and a plain zilch is "x = 0", so the zilch indicator is the payoff 1 at x = 0 only."""
    from .endgame import solve_final_turn
    val = np.empty(len(a))
    g = np.empty(len(a))
    EU = np.zeros((1,) + U.shape)
    EU[0, :, 0] = 1.0
    for flag in (False, True):
        sel = np.nonzero((a > 0) == flag if rules.entry_minimum else np.full(len(a), flag))[0]
        if not len(sel):
            continue
        levels = solve_final_turn(rules, U[sel], np.ones(len(sel)), flag or
                                  not rules.entry_minimum, EU[:, sel], np.zeros((1, len(sel))))
        val[sel] = levels[0].roll[:, 0, 0]
        g[sel] = levels[0].extras[0][:, 0, 0]
    return val, g


def turn_payoff(rules: RuleSet, model, U: np.ndarray, z: np.ndarray,
                mins: np.ndarray, cover: int = 0) -> Payoff:
    """A turn whose bank at t is worth U[row, t] (1 beyond U's end), a zilch z[row]; with
    the zilch chance under the optimal policy as an extra (Newton's slope).  U[row, s, t]:
    a bank payoff that depends on the dice left (piggyback).  cover: solve every total
    below it (the take-over values of piggyback offers) even where banking is certain.

    The grid stops where banking is certainly optimal: a roll is worth at most
    (1 - pz_n) + pz_n z (every value is at most 1), so once the banking payoff reaches that
    for every dice count n and every larger total, the turn banks and is worth exactly its
    payoff; the solver then uses the payoff itself for the free states.  Where hot dice are
    mandatory the must-roll state looks further ahead: its own exact recursion
    (_forced_beyond) gives its values there.
    """
    B, span = U.shape[0], U.shape[-1]
    pz = model.p_zilch[1:].min()
    zb = z[:, None, None] if U.ndim == 3 else z[:, None]
    sure = U >= 1.0 - pz * (1.0 - zb) - 1e-15
    if U.ndim == 3:                 # every state that can bank (s = 0 cannot)
        sure = sure[:, 1:].all(axis=1)
    last_unsure = np.where(~sure.all(axis=1), span - 1 - np.argmax(~sure[:, ::-1], axis=1), -1)
    stop = min(max(int((np.maximum(last_unsure + 1, mins)).max()), 1, cover), span - 1)

    def bank(r):
        v = np.where(r < span, U[..., np.minimum(r, span - 1)], 1.0)
        ok = r[None, :] >= mins[:, None]
        return np.where(ok[:, None, :] if U.ndim == 3 else ok, v, -np.inf)

    zil = Extra(bank=lambda r: np.zeros((B, len(r))), tail_slope=np.zeros(B),
                tail_intercept=np.zeros(B), zilch=np.ones(B))
    forced = None
    if rules.hot_dice == "mandatory":
        forced = lambda r: _forced_beyond(model, U, z, r)
    return Payoff(bank=bank, tail_slope=np.zeros(B), tail_intercept=np.ones(B),
                  tail_from=stop, zilch=z, extras=(zil,), forced_tail=forced)


def _forced_beyond(model, U: np.ndarray, z: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Values of the must-roll state (hot dice, mandatory) at totals r past the cut, where
    every free state banks at its payoff U: a backward recursion over the totals, from the
    end of U on (beyond it U is 1 up to 1e-13 and the chain's value is its limit)."""
    B, span = U.shape[0], U.shape[-1]
    N = model.dice
    sel = model.out_dice[model.opt_outcome] == N
    opt = np.nonzero(sel)[0]
    out = model.opt_outcome[opt]
    hot = model.target[opt] == 0
    p_out = model.prob
    pz = model.p_zilch[N]
    end = int(r.max()) + 1
    top = max(end, span) + int(model.shift.max()) + 1
    V0 = np.empty((B, top))
    # the limit: free states worth 1, hot dice again with the probability of all-hot rolls
    best_free = np.zeros(len(p_out), bool)
    np.logical_or.at(best_free, out, ~hot)
    p_hot = p_out[np.unique(out[~best_free[out]])].sum()
    V0[:, span:] = ((1.0 - pz - p_hot + pz * z) / (1.0 - p_hot))[:, None]
    Ufull = np.ones((B,) + U.shape[1:-1] + (top,))
    Ufull[..., :span] = U
    free = model.target[opt]
    outs = np.unique(out)
    starts = np.searchsorted(opt, model.opt_start[outs])
    p_outs = p_out[outs]
    for t in range(span - 1, int(r.min()) - 1, -1):
        nxt = t + model.shift[opt]
        banked = Ufull[:, free, nxt] if U.ndim == 3 else Ufull[:, nxt]
        vals = np.where(hot, V0[:, nxt], banked)                         # (B, K_N)
        best = np.maximum.reduceat(vals, starts, axis=1)
        V0[:, t] = best @ p_outs + pz * z
    return V0[:, r]


def solve_game(rules: RuleSet, target: int | None = None, progress=None,
               checkpoint=None, checkpoint_every: float = 10.0,
               levels: bool | None = None) -> GameTable:
    """W for every pair of scores below the target (`target` overrides the rules').
    checkpoint: a file to save the solved sums to every `checkpoint_every` seconds and to
    resume from (an interrupted solve picks up at the next score sum); removed when done.
    levels: solve turns as final turns over levels of permanent points (default: when the
    rules have permanent points; forcing it elsewhere cross-checks the two paths)."""
    import time

    from . import tables
    check_supported(rules)
    target = rules.target if target is None else target
    R = reach_units(rules, target)
    model = build_model(rules)
    finals = _Finals(rules, R)
    W = np.full((R, R), np.nan)
    O = np.full((R, R, rules.dice + 1, R), np.nan) if rules.piggyback else None
    first = 2 * (R - 1)
    expect = {"objective": "game-checkpoint", "rules_hash": rules.digest(), "target": target}
    if checkpoint is not None:
        got = tables.load(checkpoint, expect)
        if got is not None:
            W = got[1]["W"].copy()
            O = got[1]["O"].copy() if O is not None else None
            first = int(got[0]["next_sum"])
    saved = time.monotonic()
    for sigma in range(first, -1, -1):
        rows = [(a, sigma - a) for a in range(max(0, sigma - R + 1), min(sigma, R - 1) + 1)]
        index = {r: i for i, r in enumerate(rows)}
        partner = np.array([index[(b, a)] for a, b in rows])
        # start from the neighbour one point up (solved): W changes little along a sum
        w = np.array([W[a, b + 1] if b + 1 < R else (W[a + 1, b] if a + 1 < R else 0.5)
                      for a, b in rows])
        a_rows = np.array([r[0] for r in rows])
        use_levels = rules.has_permanent if levels is None else levels
        for _ in range(60):
            z = 1.0 - w[partner]
            if use_levels:
                U = _game_U(rules, W, finals, rows, R)
                U[:, 0] = z                        # a plain zilch: the partner's turn
                val, g = _permanent_turns(rules, U, a_rows)
            else:
                sol = solve_turn(model, _pair_payoff(rules, model, W, finals, rows, z, R, O))
                val = sol.roll[:, 0, 0]
                g = sol.extras[0][:, 0, 0]        # P(zilch) under the optimal policy
            if np.max(np.abs(val - w)) < NEWTON_TOL:
                break
            # linearised in z: W_i(z') = val_i + g_i (z' - z_i); the pair's fixed point
            A = val + g * (1.0 - z)
            w = (A - g * A[partner]) / (1.0 - g * g[partner])
        else:
            raise RuntimeError(f"no convergence at score sum {sigma}")
        for (a, b), v in zip(rows, val):
            W[a, b] = v
        if O is not None:           # taking over n dice and t <= b: rolling them at (n, t)
            top = rules.dice - (rules.hot_dice == "mandatory")   # never all dice: hot dice
            for i, (a, b) in enumerate(rows):
                O[a, b, 1:top + 1, 1:b + 1] = sol.roll[i, 1:top + 1, 1:b + 1]
        if checkpoint is not None and time.monotonic() - saved >= checkpoint_every:
            t0 = time.monotonic()
            tables.save(checkpoint, dict(expect, next_sum=sigma - 1),
                        {"W": W} if O is None else {"W": W, "O": O})
            saved = time.monotonic()
            # a big table (piggyback's O) is saved less often: at most a tenth of the time
            checkpoint_every = max(checkpoint_every, 10 * (saved - t0))
        if progress:
            progress(sigma)
    if checkpoint is not None:
        checkpoint.unlink(missing_ok=True)
    return GameTable(rules, target, W, getattr(finals, "opp", None),
                     None if O is None else Offers.dense(O, W))


GAME = "game"


def game_table(rules: RuleSet, target: int | None = None, tables_dir: str | None = None,
               progress=None, solve_if_missing: bool = True) -> GameTable | None:
    """The stored table (solved and stored if missing, unless solve_if_missing is False)."""
    from pathlib import Path

    from . import tables
    check_supported(rules)
    target = rules.target if target is None else target
    path = Path(tables.table_dir(tables_dir)) / tables.file_name(
        rules.name, rules.digest(), f"{GAME}{target}")
    expect = {"objective": f"{GAME}{target}", "rules_hash": rules.digest()}
    got = tables.load(path, expect)
    if got is None and not solve_if_missing:
        return None
    if got is None:
        partial = path.with_name(path.name + ".partial")

        def build():
            g = solve_game(rules, target, progress, checkpoint=partial)
            arrays = {"W": g.W}
            if g.O is not None:
                arrays.update({"O.shape": np.array(g.O.shape), "O.idx": g.O.idx,
                               "O.val": g.O.val})
            for flag, arr in (g.finals or {}).items():
                arrays[f"opp.{int(flag)}"] = arr
            return {"rules_name": rules.name, "target": target}, arrays
        got = tables.cached(path, expect, build)
    arrays = got[1]
    finals = {bool(int(k[4:])): v for k, v in arrays.items() if k.startswith("opp.")}
    offers = None
    if "O.idx" in arrays:
        offers = Offers(tuple(int(x) for x in arrays["O.shape"]), arrays["O.idx"],
                        arrays["O.val"])
    return GameTable(rules, target, arrays["W"], finals or None, offers)


def fairest_head_start(g: GameTable) -> tuple[int, float]:
    """The head start (points) for the second player that brings the first player's chance
    closest to one half, and that chance."""
    first = g.W[0, :]                         # the first player to move at 0, opponent at h
    h = int(np.argmin(np.abs(first - 0.5)))
    return h * g.rules.unit, float(first[h])


def turn_values(g: GameTable, me: int, opp: int) -> list:
    """The turn from scores (me, opp) solved on demand (one row): its levels of permanent
    points (a single level without them)."""
    rules = g.rules
    u = rules.unit
    R = g.W.shape[0]
    a, b = me // u, opp // u
    model = build_model(rules)
    finals = _Finals(rules, R, g.finals)
    if rules.has_permanent:
        from .endgame import solve_final_turn
        U = _game_U(rules, g.W, finals, [(a, b)], R)
        return solve_final_turn(rules, U, np.ones(1), a > 0 or not rules.entry_minimum)
    z = np.array([1.0 - g.W[b, a]])
    return [solve_turn(model, _pair_payoff(rules, model, g.W, finals, [(a, b)], z, R, g.O))]


@dataclass(frozen=True, eq=False)
class VersusTable:
    """The optimal player against a fixed turn policy, where reaching the target wins at
    once.  X[a, b]: the optimal player moves with a against b; Y[b, a]: the other moves
    with b against a.  Both are the optimal player's chance of winning."""
    rules: RuleSet
    X: np.ndarray
    Y: np.ndarray


def solve_versus(rules: RuleSet, turn_points: dict[int, float],
                 target: int | None = None) -> VersusTable:
    """turn_points: the other player's turn, points recorded -> probability (any score-blind
    policy, e.g. the expected-points optimum from evaluate.py).  Sums from the top; at each
    sum Y = c + P(0) X and X = f(Y) for the zilch payoff: Newton with f's slope."""
    check_supported(rules)
    if rules.end != "instant":
        raise InputError("the versus solver covers rules where reaching the target wins")
    target = rules.target if target is None else target
    R = reach_units(rules, target)
    model = build_model(rules)
    u = rules.unit
    xs = np.array(sorted(turn_points), dtype=np.int64) // u
    ps = np.array([turn_points[k] for k in sorted(turn_points)])
    p0 = float(ps[xs == 0].sum())
    X = np.full((R, R), np.nan)
    Y = np.full((R, R), np.nan)
    for sigma in range(2 * (R - 1), -1, -1):
        rows = [(a, sigma - a) for a in range(max(0, sigma - R + 1), min(sigma, R - 1) + 1)]
        a = np.array([r[0] for r in rows])
        b = np.array([r[1] for r in rows])
        # Y[b, a] = P(0) X[a, b] + sum over x > 0 of P(x) X[a, b + x] (0 where b + x wins)
        c = np.zeros(len(rows))
        for x, p in zip(xs, ps):
            if x > 0:
                nb = b + x
                ok = nb < R
                c[ok] += p * X[a[ok], nb[ok]]
        span = R + 1
        final = a[:, None] + np.arange(span)[None, :]
        inside = final < R
        U = np.ones(final.shape)
        U[inside] = Y[np.broadcast_to(b[:, None], final.shape)[inside], final[inside]]
        w = np.array([X[aa, bb + 1] if bb + 1 < R else 0.5 for aa, bb in rows])
        for _ in range(60):
            z = c + p0 * w
            sol = solve_turn(model, turn_payoff(rules, model, U, z, _bank_minimums(rules, a)))
            val = sol.roll[:, 0, 0]
            if np.max(np.abs(val - w)) < NEWTON_TOL:
                break
            g = sol.extras[0][:, 0, 0]
            w = (val + g * (c - z)) / (1.0 - g * p0)
        else:
            raise RuntimeError(f"no convergence at score sum {sigma}")
        X[a, b] = val
        Y[b, a] = c + p0 * val
    return VersusTable(rules, X, Y)
