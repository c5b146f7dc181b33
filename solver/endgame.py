"""End-game: the last turn of the game and the final round, as exact single-turn MDPs.

Near the end the objective is the probability of winning.  A final turn is the turn solver
of turn.py with a payoff over the points x the turn adds to the player's score: U[b, x] for
x < H, and U_inf[b] beyond (batch rows b: deficits, or leader states).  Permanent points
(zilch-online) are levels: level k holds k permanent combinations; each level is solved with
the level above as the source of its permanent choices, from the top down (above H every
end of the turn is worth U_inf).

Final round.  Players still to play, in order, each maximise their own chance; a player
ending at F wins if F beats the leader and no later player beats F (k tied players share a
win: each gets 2 * tie / k, a half each for two with the default tie = 0.5).  Processing the
players from the last one back, Q_j(F, c) is the share of each of the c players tied at F
before player j: Q_j(F, c) = P_j(< F) Q_{j+1}(F, c) + P_j(= F) Q_{j+1}(F, c + 1), with P_j
from player j's optimal turn against (F, c) (its final-score distribution, forward pass).
Player j's payoff for ending at F_j > F is Q_{j+1}(F_j, 1).  Leader scores are truncated
where every player's chance of getting there is below TRUNCATION (computed, not assumed).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import InputError
from .rules import RuleSet
from .turn import Extra, Payoff, TurnSolution, build_model, solve_turn, state_index

TRUNCATION = 1e-13


def share(rules: RuleSet, k: int) -> float:
    """A player's part of a win shared by k tied players."""
    return 1.0 if k <= 1 else rules.tie * 2.0 / k


def perm_step(rules: RuleSet) -> int | None:
    amounts = sorted({p.points for p in rules.patterns if p.permanent})
    if not amounts:
        return None
    if len(amounts) > 1:
        raise InputError(f"{rules.name}: the end-game solver handles one permanent amount, "
                         f"the rules have {amounts}")
    return amounts[0] // rules.unit


def solve_final_turn(rules: RuleSet, U: np.ndarray, U_inf: np.ndarray, on_board: bool,
                     EU: np.ndarray | None = None, EU_inf: np.ndarray | None = None,
                     chunks: int = 4) -> list[TurnSolution]:
    """levels[k]: the optimal turn holding k permanent combinations (one level without).

    EU (E, B, H) / EU_inf (E, B): other payoffs of the turn's end, evaluated under the
    optimal policy (solution.extras).  Rows whose payoffs are constant past a short horizon
    (a last turn: everything beyond the deficit wins) are solved in chunks of similar
    horizon, each on a grid no longer than it needs."""
    B, H = U.shape
    diff = U != U_inf[:, None]
    if EU is not None:
        diff |= (EU != EU_inf[:, :, None]).any(axis=0)
    horizon = np.where(diff.any(axis=1), H - np.argmax(diff[:, ::-1], axis=1), 1)
    if chunks > 1 and B >= 2 * chunks and horizon.min() < 0.6 * horizon.max():
        order = np.argsort(horizon, kind="stable")
        parts = np.array_split(order, chunks)
        solved = []
        for rows in parts:
            h = int(horizon[rows].max())
            solved.append(solve_final_turn(
                rules, U[rows, :h], U_inf[rows], on_board,
                None if EU is None else EU[:, rows, :h],
                None if EU_inf is None else EU_inf[:, rows], chunks=1))
        depth = max(len(lv) for lv in solved)
        inverse = np.empty(B, np.int64)
        inverse[np.concatenate(parts)] = np.arange(B)
        levels = []
        for k in range(depth):
            # a chunk with fewer levels is decided beyond its last one: its top level
            merged = TurnSolution.concat([lv[min(k, len(lv) - 1)] for lv in solved])
            levels.append(merged.take(inverse))
        return levels
    return _solve_levels(rules, U, U_inf, on_board, EU, EU_inf)


def _solve_levels(rules, U, U_inf, on_board, EU, EU_inf) -> list[TurnSolution]:
    model = build_model(rules)
    B, H = U.shape
    m = -(-rules.min_bank(on_board) // rules.unit)
    step = perm_step(rules)
    top = math.ceil(H / step) if step else 0
    ne = 0 if EU is None else len(EU)

    def at(arr, inf, x):
        return np.where(x[None, :] < arr.shape[1], arr[:, np.minimum(x, arr.shape[1] - 1)],
                        inf[:, None])

    levels: dict[int, TurnSolution] = {}
    key = np.zeros(B)            # rows with equal keys have equal solutions at the level
    for k in range(top, -1, -1):
        p = k * (step or 0)
        if p >= H:
            levels[k] = TurnSolution.constant(model, U_inf.astype(float))
            if ne:
                levels[k].with_constant_extras(EU_inf.astype(float))
            key = np.unique(np.column_stack([U_inf] + ([EU_inf.T] if ne else [])), axis=0,
                            return_inverse=True)[1].ravel().astype(float)
            continue
        zx = p if p >= m else 0
        # rows whose payoffs from here on (and whose level above) agree are solved once: at
        # a high level most leaders are already beaten by the permanent points alone
        feats = [U[:, p:], U[:, zx:zx + 1], U_inf[:, None], key[:, None]]
        for j in range(ne):
            feats += [EU[j][:, p:], EU[j][:, zx:zx + 1], EU_inf[j][:, None]]
        _, first, inverse = np.unique(np.concatenate(feats, axis=1), axis=0,
                                      return_index=True, return_inverse=True)
        inverse = inverse.ravel()
        Ur, Uir = U[first], U_inf[first]
        EUr = EU[:, first] if ne else None
        EUir = EU_inf[:, first] if ne else None
        b = len(first)
        extras = tuple(
            Extra(bank=lambda r, p=p, j=j: at(EUr[j], EUir[j], r + p),
                  tail_slope=np.zeros(b), tail_intercept=EUir[j].astype(float),
                  zilch=at(EUr[j], EUir[j], np.array([zx]))[:, 0]) for j in range(ne))
        pay = Payoff(
            bank=lambda r, p=p: np.where(r[None, :] + p >= m, at(Ur, Uir, r + p), -np.inf),
            tail_slope=np.zeros(b), tail_intercept=Uir.astype(float),
            tail_from=max(H - p, m - p, 0), zilch=at(Ur, Uir, np.array([zx]))[:, 0],
            perm_sources={step: levels[k + 1].take(first)} if step else {}, extras=extras)
        levels[k] = solve_turn(model, pay).take(inverse)
        key = inverse.astype(float)
    return [levels[k] for k in range(top + 1)]


# --- last turn --------------------------------------------------------------------------------
def last_turn_payoff(rules: RuleSet, deficits: np.ndarray, H: int) -> np.ndarray:
    """U[d, x] = 1 if x > d, the tie value if x == d, else 0 (units)."""
    x = np.arange(H)[None, :]
    d = deficits[:, None]
    return np.where(x > d, 1.0, np.where(x == d, rules.tie, 0.0))


def solve_last_turn(rules: RuleSet, deficits, on_board: bool = True) -> list[TurnSolution]:
    """P(win) of a last turn against each deficit (points, multiples of the unit)."""
    d = np.asarray(deficits, dtype=np.int64) // rules.unit
    H = int(d.max()) + 1
    U = last_turn_payoff(rules, d, H)
    return solve_final_turn(rules, U, np.ones(len(d)), on_board)


def turn_reach_bound(rules: RuleSet, eps: float = TRUNCATION) -> int:
    """Units D such that no turn, however played, adds more than D units with probability
    above eps (from the best "beat D" play); stored in tables/ like any table."""
    from pathlib import Path

    from . import tables
    path = Path(tables.table_dir()) / tables.file_name(rules.name, rules.digest(), "reach")
    _, arrays = tables.cached(path, {"objective": "reach", "rules_hash": rules.digest(),
                                     "eps": eps},
                              lambda: ({}, {"D": np.array([_reach_bound(rules, eps)])}))
    return int(arrays["D"][0])


@lru_cache(maxsize=32)
def _reach_bound(rules: RuleSet, eps: float) -> int:
    D = 64
    while True:
        levels = solve_last_turn(rules, [D * rules.unit], on_board=True)
        if levels[0].roll[0, 0, 0] < eps:
            # the chance to beat a deficit only falls as it grows: bisect down to the smallest
            lo, hi = D // 2, D
            while hi - lo > 8:
                mid = (lo + hi) // 2
                v = solve_last_turn(rules, [mid * rules.unit])[0].roll[0, 0, 0]
                lo, hi = (lo, mid) if v < eps else (mid, hi)
            return hi
        D *= 2
        if D > 1 << 14:
            raise InputError(f"{rules.name}: turns can score without bound (no truncation)")


# --- final round ------------------------------------------------------------------------------
def need_space_ok(rules: RuleSet, score_units: int) -> bool:
    """Can the last player's turn be solved in "points still needed" (one row per tie count
    instead of one per leader score)?  Banking must be allowed at any total."""
    on_board = score_units > 0 or not rules.entry_minimum
    return rules.min_bank(on_board) == 0


def last_player_need_space(rules: RuleSet, X: int, ties: list[float], below: list[float]):
    """The last player's turn for every deficit d = 1..X-1 at once, per tie count.

    In "points still needed" (r' = X - need) the turn does not depend on the deficit:
    banking with need < 0 wins, at need 0 ties, else loses, and a zilch loses — except on
    the chain of turns whose every point so far is permanent (start, straight, straight...):
    there nothing is at risk, so a zilch at need 0 keeps the tie.  So: the ordinary solve,
    then one backward recursion for that chain (the must-roll start and N dice after
    permanent-only choices), using the ordinary values for every other choice.

    Returns (value, leaders' share) of the start, arrays (rows, X + 1) indexed by r'."""
    import dataclasses
    base = build_model(rules)
    model = dataclasses.replace(base, shift=base.shift + base.perm, perm=np.zeros_like(base.perm))
    B = len(ties)
    tie = np.asarray(ties, float)
    low = np.asarray(below, float)

    def bank(r):
        return np.where(r[None, :] > X, 1.0, np.where(r[None, :] == X, tie[:, None], 0.0))

    def lead(r):
        return np.where(r[None, :] > X, 0.0, np.where(r[None, :] == X, tie[:, None],
                                                      low[:, None]))
    leaders = Extra(bank=lead, tail_slope=np.zeros(B), tail_intercept=np.zeros(B), zilch=low)
    sol = solve_turn(model, Payoff(bank=bank, tail_slope=np.zeros(B), tail_intercept=np.ones(B),
                                   tail_from=X + 1, zilch=np.zeros(B), extras=(leaders,)))
    N = base.dice
    L = sol.roll.shape[2] + int(model.shift.max()) + 1
    V = sol.extended(L)                                  # (B, S, L), ordinary states
    Ev = sol.extended_extra(0, L)
    opts = np.nonzero(model.out_dice[model.opt_outcome] == N)[0]
    perm_only = (base.shift[opts] == 0) & (base.perm[opts] > 0)
    outs, starts = np.unique(model.opt_outcome[opts], return_index=True)
    p_out = model.prob[outs]
    pz = model.p_zilch[N]
    VT = np.ones((B, L))                                 # N dice, all points permanent
    ET = np.zeros((B, L))
    V0 = np.zeros((B, X + 1))                            # the start (must roll)
    E0 = np.zeros((B, X + 1))
    rows = np.arange(B)[:, None]
    seg = np.searchsorted(starts, np.arange(len(opts)), side="right") - 1   # option -> outcome
    for r in range(X, -1, -1):                           # beyond X: ahead, bank, win
        nxt = np.minimum(r + model.shift[opts], L - 1)
        vals = np.where(perm_only, VT[:, nxt], V[:, model.target[opts], nxt])
        evs = np.where(perm_only, ET[:, nxt], Ev[:, model.target[opts], nxt])
        best = np.maximum.reduceat(vals, starts, axis=1)
        first = np.where(vals >= best[:, seg], np.arange(len(opts)), len(opts))
        pick = np.minimum.reduceat(first, starts, axis=1)
        roll_v = best @ p_out
        roll_e = evs[rows, pick] @ p_out
        zil_v = np.where(r == X, tie, 0.0)               # all permanent: a zilch keeps x = t
        zil_e = np.where(r == X, tie, low)
        rv, re = roll_v + pz * zil_v, roll_e + pz * zil_e
        bv = bank(np.array([r]))[:, 0]
        banks = bv >= rv
        VT[:, r] = np.where(banks, bv, rv)
        ET[:, r] = np.where(banks, lead(np.array([r]))[:, 0], re)
        V0[:, r] = roll_v                                # the start: need = d > 0, zilch loses
        E0[:, r] = roll_e + pz * low
    return V0, E0


@dataclass
class PlayerTurn:
    score: int                      # points
    rows: list[tuple[int, int]]     # (leader F in units, tied count c) of each batch row
    levels: list[TurnSolution] | None  # None: the last player, solved in need-space
    value: np.ndarray               # (rows,) P(win) from the start of the turn

    def row(self, F: int, c: int) -> int:
        return self.rows.index((F, c))


@dataclass
class FinalRound:
    rules: RuleSet
    leader: int                     # points, before the first player still to play
    tied: int                       # players sharing the lead then
    players: list[PlayerTurn]       # the players still to play, in turn order
    p_leaders: float                # each tied leader's chance of winning
    p_players: list[float]          # each player's chance, at the start

    @property
    def total(self) -> float:
        return self.tied * self.p_leaders + sum(self.p_players)


def solve_final_round(rules: RuleSet, leader: int, tied: int, scores: list[int]) -> FinalRound:
    """The final round from the moment before the first of `scores` plays: the leader has
    `leader` points, `tied` players share it.

    Backward over the players: player j's turn is solved for every leader state (F, c) he
    may face, and evaluated (extras) for the leaders' share Q_j(F, c) and for every later
    player i's chance Z_i(F, c) of winning from there."""
    u = rules.unit
    if leader % u or any(s % u for s in scores):
        raise InputError(f"scores must be multiples of {u} under {rules.name}")
    if any(s >= leader for s in scores):
        raise InputError("a player still to play in the final round cannot be level with or "
                         "ahead of the leader")
    L0 = leader // u
    D = turn_reach_bound(rules)
    F_hi = max([L0] + [s // u + D for s in scores])
    nF = F_hi - L0 + 1
    m = len(scores)
    C = tied + m + 2
    # over the leader grid (F - L0, c): the leaders' share, and each later player's chance
    Q = np.array([[share(rules, c) if c else 0.0 for c in range(C)]] * nF)
    Z: dict[int, np.ndarray] = {}
    players: list[PlayerTurn | None] = [None] * m
    for j in range(m - 1, -1, -1):
        S = scores[j] // u
        # the leader states player j can face: at the first leader's score, the tied group
        # plus any of the j players before him; above it, up to j of those players tied
        rows = [(L0, c) for c in range(tied, tied + j + 1)] + \
            [(L0 + f, c) for f in range(1, nF) for c in range(1, j + 1)]
        H = F_hi - S + 1
        Fj = S + np.arange(H)
        later = sorted(Z)
        U = np.zeros((len(rows), H))
        EU = np.zeros((1 + len(later), len(rows), H))
        for i, (F, c) in enumerate(rows):
            f = F - L0
            above = Fj > F
            U[i, above] = Q[Fj[above] - L0, 1]
            below = Fj < F
            EU[0, i, below] = Q[f, c]
            for e, pl in enumerate(later, start=1):
                EU[e, i, above] = Z[pl][Fj[above] - L0, 1]
                EU[e, i, below] = Z[pl][f, c]
            if F - S < H:            # a tie: the c leaders and player j share
                U[i, F - S] = Q[f, c + 1]
                EU[0, i, F - S] = Q[f, c + 1]
                for e, pl in enumerate(later, start=1):
                    EU[e, i, F - S] = Z[pl][f, c + 1]
        on_board = S > 0 or not rules.entry_minimum
        if j == m - 1 and j > 0 and need_space_ok(rules, S):
            # the last player: one row per tie count, every leader score a column
            cs = sorted({c for _, c in rows})
            V0, E0 = last_player_need_space(rules, H, [Q[0, c + 1] for c in cs],
                                            [Q[0, c] for c in cs])
            ci = np.array([cs.index(c) for _, c in rows])
            col = np.array([H - (F - S) for F, _ in rows])
            value = V0[ci, col]
            ex = E0[ci, col][None, :]
            levels = None
        else:
            levels = solve_final_turn(rules, U, np.ones(len(rows)), on_board, EU,
                                      np.zeros((1 + len(later), len(rows))))
            value = levels[0].roll[:, 0, 0]
            ex = levels[0].extras[:, :, 0, 0]         # (E, rows): from the start of the turn
        players[j] = PlayerTurn(scores[j], rows, levels, value)
        newQ = np.zeros_like(Q)
        newZ = {pl: np.zeros_like(Q) for pl in later + [j]}
        for i, (F, c) in enumerate(rows):
            newQ[F - L0, c] = ex[0, i]
            newZ[j][F - L0, c] = value[i]
            for e, pl in enumerate(later, start=1):
                newZ[pl][F - L0, c] = ex[e, i]
        Q, Z = newQ, newZ
    p_players = [float(Z[j][0, tied]) for j in range(m)]
    return FinalRound(rules, leader, tied, players, float(Q[0, tied]), p_players)


# --- stored last-turn table and queries -------------------------------------------------------
LAST_TURN = "lastturn"


@dataclass(eq=False)
class LastTurnTable:
    """P(win) of a last turn for every deficit 0..max_deficit (units), both board flags."""
    rules: RuleSet
    max_deficit: int
    levels: dict            # on_board -> list[TurnSolution], batch row = deficit

    def lookup(self, deficit: int, on_board: bool = True):
        """(levels, row) for a deficit in points; solved on demand beyond the table."""
        d = deficit // self.rules.unit
        if d <= self.max_deficit:
            return self.levels[on_board], d
        return solve_last_turn(self.rules, [deficit], on_board), 0

    def values(self, deficit: int, dice: int, turn: int, permanent: int = 0,
               on_board: bool = True) -> tuple[float, float | None]:
        """(P(win) if rolling, P(win) if banking or None where banking is not allowed)."""
        rs = self.rules
        if deficit < 0:              # already ahead: whatever happens, the player wins
            return 1.0, (None if state_index(rs, dice, turn) == 0 else 1.0)
        levels, row = self.lookup(deficit, on_board)
        step = perm_step(rs)
        k = permanent // (step * rs.unit) if step else 0
        if k >= len(levels):
            return 1.0, 1.0
        roll, bank = levels[k].at(state_index(rs, dice, turn), (turn - permanent) // rs.unit)
        b = float(bank[row])
        return float(roll[row]), (b if np.isfinite(b) else None)


def last_turn_table(rules: RuleSet, tables_dir: str | None = None) -> LastTurnTable:
    """The table of every deficit up to the target, from tables/ or solved and stored."""
    from pathlib import Path

    from . import tables
    if rules.target is None:
        raise InputError(f"{rules.name} has no target: there is no last turn")
    D = rules.target // rules.unit
    flags = (False, True) if rules.min_bank(False) != rules.min_bank(True) else (True,)
    path = Path(tables.table_dir(tables_dir)) / tables.file_name(rules.name, rules.digest(),
                                                                LAST_TURN)

    def build():
        arrays = {}
        for flag in flags:
            for k, sol in enumerate(solve_last_turn(rules, np.arange(D + 1) * rules.unit, flag)):
                arrays.update(sol.to_arrays(f"{int(flag)}.{k}"))
        return {"rules_name": rules.name, "max_deficit": D}, arrays

    header, arrays = tables.cached(path, {"objective": LAST_TURN, "rules_hash": rules.digest()},
                                   build)
    levels = {}
    for flag in flags:
        k, lv = 0, []
        while f"{int(flag)}.{k}.cap" in arrays:
            lv.append(TurnSolution.from_arrays(f"{int(flag)}.{k}", arrays))
            k += 1
        levels[flag] = lv
    if len(flags) == 1:
        levels[False] = levels[True]
    return LastTurnTable(rules, D, levels)


def stopping_rule(rules: RuleSet, levels: list[TurnSolution], row: int, score: int,
                  leader: int) -> dict[int, int | None]:
    """Per dice count: the smallest turn total from which banking is optimal at every larger
    total on the grid (no permanent points); None where the player never banks."""
    from .policy import reachable
    sol = levels[0]
    L = sol.roll.shape[2]
    reach = reachable(rules, L)
    u = rules.unit
    out = {}
    for n in range(rules.dice, 0, -1):
        if n == rules.dice and rules.hot_dice == "mandatory":
            out[n] = None
            continue
        ok = reach[n].copy()
        ok[0] = False
        rolls = ok & ~(sol.bank[row, n] >= sol.roll[row, n])
        last = np.nonzero(rolls)[0]
        start = last.max() + 1 if len(last) else max(0, (leader - score) // u + 1)
        later = np.nonzero(ok[start:])[0]
        out[n] = int((start + later[0]) * u) if len(later) else None
    return out
