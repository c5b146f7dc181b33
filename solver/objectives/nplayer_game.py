"""The game among N players: every player's chance of winning, each maximising his own.

State: the scores in turn order from the player to move, s = (s_0, ..., s_{N-1}) (units,
each below the reach R).  V[s] = (P(seat k wins))_k, seat 0 the mover.  A bank of t moves
to (s_1, ..., s_{N-1}, s_0 + t), where the mover sits last: seat k + 1 here is seat k there.
A zilch moves to rot(s) = (s_1, ..., s_{N-1}, s_0), the same score sum; with permanent
points a zilch that kept x > 0 units moves where a bank of x does (a higher sum: known).

The mover's turn is the turn solver with payoff "his chance after the bank" and, as extras
under his optimal policy, the others' chances after the bank and the chance g that the turn
ends in a zilch.  A bank reaching R starts the final round (FinalTable: the others play
their last turns in order, final_round.solve_final_round) or wins at once.

Layers: banks raise the score sum, so sums are solved from the top.  Within a sum, for a
fixed policy V(s) = A(s) + g(s) P V(rot s) (A: the banking part, P: the seat shift); going
round the rotation N times (rot^N = identity) gives each state's value exactly:
V(s) = sum_j (prod_{l<j} g_l) P^j A(rot^j s) / (1 - prod_l g_l).  The policy depends on the
mover's zilch payoff V(rot s)[N - 1]: iterated to its fixed point (Newton's method on the
linearised turn, as the two-player pairs; it settles in a few steps).  Orbits of a sum are
independent, so a layer splits into batches of orbits (solve_batch) solved anywhere.

Ties (equal values) break toward banking, then toward the first scoring choice (the turn
solver's order), as in the two-player game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..outcomes.model import TurnModel
from ..rules import RuleSet
from ..turn import TurnLevels, TurnSolution, solve_turn
from ..turn.starts import ChainRows, must_roll_tables, tables_space, turn_cuts, zilch_starts
from .final_round import Shares, leader_states, play_back
from .plain_game import (
    NEWTON_TOL,
    GameTurns,
    bank_minimums,
    permanent_turns,
    sums_to_one,
    turn_payoff,
)

MAX_PLAYERS = 6
ORBITS_PER_TASK = 256  # at most, per task: the table does not depend on the batches at all
MIN_ORBITS = 32  # a sum split for more workers: tasks of at least this many orbits
SIMULTANEOUS = 6  # policy steps at every seat at once, then one seat at a time
CYCLES = 8  # rounds of the seats one at a time before the movers mix
MAX_OPTIONS = 6  # policies per mover among which a mixed equilibrium is sought
ROOM_MARGIN = 1e-12  # (the kernel's margins are exact to rounding, about 1e-15)
CORNER_PLAYERS = 3  # the first guess from the cube's corners (corner_guess) at this many
# optional rules the turn alone carries (pyramiding: the frozen groups are turn states;
# permanent points: a zilch that kept x permanent units moves where a bank of x does)
SOLVED_OPTIONS = ("pyramiding", "permanent points")


def check_supported(rules: RuleSet, players: int) -> None:
    """InputError for an N-player game this solver does not take (before any solve)."""
    if not 2 <= players <= MAX_PLAYERS:
        raise InputError(f"players must be 2 to {MAX_PLAYERS}, not {players}", "players")
    if rules.target is None:
        raise InputError(f"{rules.name} has no target: there is no game to solve")
    for what in rules.options_on():
        if what in SOLVED_OPTIONS:
            continue
        raise InputError(
            f"{rules.name} has {what}: the game among {players} players is solved for rules "
            "without it (the two-player game table takes it)"
        )


def layer_states(sigma: int, R: int, N: int) -> np.ndarray:
    """(n, N): every score tuple of sum sigma, each below R, in lexicographic order."""
    free = np.indices((R,) * (N - 1)).reshape(N - 1, -1).T
    last = sigma - free.sum(axis=1)
    ok = (last >= 0) & (last < R)
    return np.concatenate([free[ok], last[ok, None]], axis=1)


def rotate(states: np.ndarray, k: int = 1) -> np.ndarray:
    """The score tuples after k zilches: (s_k, ..., s_{N-1}, s_0, ..., s_{k-1})."""
    return np.roll(states, -k, axis=1)


def orbit_batches(sigma: int, R: int, N: int, size: int, tasks: int = 1) -> list[np.ndarray]:
    """The states of sum sigma in batches closed under rotation: the orbits (by smallest
    member) in consecutive near-equal parts of at most `size` orbits, and at least `tasks`
    parts where each keeps MIN_ORBITS (work for every worker at every sum, without a
    task's fixed cost where one worker does it all).  An orbit's values do not depend on
    the orbits solved with it (every step is row by row: the same bits whatever the
    batches, tests/test_nplayer.py), so the table does not depend on the workers."""
    states = layer_states(sigma, R, N)
    if not len(states):
        return []
    rots = np.stack([rotate(states, k) for k in range(N)])  # (N, n, N)
    code = _codes(rots, R)  # (N, n)
    reps = states[code[0] == code.min(axis=0)]
    n = len(reps)
    parts = max(-(-n // size), min(tasks, n // MIN_ORBITS), 1)
    out = []
    for chunk in np.array_split(reps, parts):
        allrot = np.concatenate([rotate(chunk, k) for k in range(N)])
        out.append(np.unique(allrot, axis=0))
    return out


def fill_sums(V: np.ndarray, values: np.ndarray, top: int, low: int) -> None:
    """V[s] for every s of sums top down to low, from `values`: those sums' rows in the
    stored order (by sum top-down, each sum's states in layer_states order)."""
    R, N = V.shape[0], V.ndim - 1
    at = 0
    for sigma in range(top, low - 1, -1):
        states = layer_states(sigma, R, N)
        V[tuple(states.T)] = values[at : at + len(states)]
        at += len(states)


def _codes(states: np.ndarray, R: int) -> np.ndarray:
    """One integer per score tuple (lexicographic order)."""
    code = np.zeros(states.shape[:-1], np.int64)
    for k in range(states.shape[-1]):
        code = code * R + states[..., k]
    return code


def positions(within: np.ndarray, states: np.ndarray, R: int) -> np.ndarray:
    """Where each of `states` is among the rows of `within` (every one must be there)."""
    code = _codes(within, R)
    order = np.argsort(code, kind="stable")
    return order[np.searchsorted(code[order], _codes(states, R))]


# --- the final round, by the others' scores -------------------------------------------------
@dataclass(frozen=True, eq=False)
class FinalTable:
    """Everyone's chance when the mover banks to F >= R (units) with the others at o
    (turn order): the final round depends only on the differences of the scores and on who
    is on the board, so it is stored per key (the others' scores shifted down to the
    lowest one allowed): rel[key, F' - lead(key), :] for F' the leader's shifted score,
    (leader, others...).  None for rules where reaching the target wins at once."""

    rules: RuleSet
    R: int
    D: int  # the leader's scores solved: R .. R + D (beyond, the leader surely wins)
    keys: np.ndarray  # (K, N - 1) the shifted scores
    rel: np.ndarray | None  # (K, R + D + 1, N): leaders' shifted scores 0 .. R + D

    @classmethod
    def of(
        cls, rules: RuleSet, R: int, D: int, keys: np.ndarray, rel: np.ndarray | None
    ) -> FinalTable:
        """As stored (layer_store): rel None where reaching the target wins at once."""
        return cls(rules, R, D if rel is not None else 0, keys, rel)

    def values(self, F: np.ndarray, others: np.ndarray) -> np.ndarray:
        """(M, K, N): (leader, others...) for leader scores F (M, K) >= R and the others'
        scores others (M, N - 1) of each row."""
        M, N = len(others), others.shape[1] + 1
        out = np.zeros(F.shape + (N,))
        out[..., 0] = 1.0
        if self.rel is None or not M:
            return out
        keys, shift = _key_of(self.rules, others)
        pos = positions(self.keys, keys, self.R)
        Fs = F - shift[:, None]
        ok = Fs < self.rel.shape[1]
        rows = np.broadcast_to(pos[:, None], F.shape)
        out[ok] = self.rel[rows[ok], Fs[ok]]
        return out

    def from_target(self, others: np.ndarray) -> np.ndarray:
        """(M, D + 1, N): values() for the leader scores R .. R + D, every row (others
        (M, N - 1)): a window of each key's row (F - shift stays within the table)."""
        assert self.rel is not None
        keys, shift = _key_of(self.rules, others)
        pos = positions(self.keys, keys, self.R)
        win = np.lib.stride_tricks.sliding_window_view(self.rel, self.D + 1, axis=1)
        return win[pos, self.R - shift].transpose(0, 2, 1)


def _key_of(rules: RuleSet, others: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Shift the others' scores down by as much as keeps every board flag: to a lowest
    score of 0 where no score is "off the board", else (a zero among them) not at all."""
    lowest = others.min(axis=1)
    if rules.min_bank(False) != rules.min_bank(True):
        shift = np.where(lowest > 0, lowest - 1, 0)
    else:
        shift = lowest
    return others - shift[:, None], shift


def final_key_count(rules: RuleSet, R: int, N: int) -> int:
    """len(final_keys(rules, R, N)) without listing them: the tuples whose lowest score is
    0 (or 0 or 1 where the bank minimum depends on being on the board)."""
    if rules.end == "instant":
        return 0
    low = 2 if rules.min_bank(False) != rules.min_bank(True) else 1
    return R ** (N - 1) - max(R - low, 0) ** (N - 1)


def final_keys(rules: RuleSet, R: int, N: int) -> np.ndarray:
    """Every key the game reaches: the shifted scores of all (N - 1)-tuples below R."""
    others = np.indices((R,) * (N - 1)).reshape(N - 1, -1).T
    keys, _ = _key_of(rules, others)
    return np.unique(keys, axis=0)


def final_rows(model: TurnModel, R: int, D: int, keys: np.ndarray) -> np.ndarray:
    """(K, R + D + 1, N): the final round for each key, every leader score F' from the
    smallest above the key's scores to R + D (0 below it: never read).

    Each key's rows are solve_final_round(lead, 1 tied, the key, spread to R + D)'s
    by_leader, to the bit (tests/test_final_round_shared.py), without solving its later
    players again: with every score below R, what players j.. do depends only on their own
    scores (the key's suffix from j) and the leader state (F, c) (final_round.play_back), so
    each suffix is solved once, on the leaders from max(suffix) + 1 up (every key sharing it
    leads there or above: the same bits whatever keys share a call), and per key only the
    first player.  The keys are taken in suffix_order (each suffix's keys one after the
    other: only the latest suffix of each length is kept)."""
    u = model.rules.unit
    K, m = keys.shape
    out = np.zeros((K, R + D + 1, m + 1))
    assert not K or int(keys.max()) < R  # (so every player's reach ends below R + D)
    chain: dict[int, tuple[tuple[int, ...], Shares]] = {}
    for i in suffix_order(keys):
        key = [int(x) for x in keys[i]]
        lead = max(key) + 1
        later = _suffix_shares(model, R + D, m, tuple(key[1:]), chain).from_leader(lead)
        rows = leader_states(lead, 1, 0, R + D, R + D - lead)
        _, sh = play_back(model, later, key[0] * u, 0, m, rows, starts_only=True)
        out[i, lead:] = np.stack([sh.Q[:, 1]] + [sh.Z[j][:, 1] for j in range(m)], 1)
    return out


def suffix_order(keys: np.ndarray) -> np.ndarray:
    """The keys' indices with each suffix's keys together (by the last score, then the one
    before it, ...): the order in which final_rows shares the most."""
    return np.lexsort(keys.T)


def _suffix_shares(
    model: TurnModel,
    F_hi: int,
    m: int,
    suffix: tuple[int, ...],
    chain: dict[int, tuple[tuple[int, ...], Shares]],
) -> Shares:
    """The final round after the players of `suffix` (the key's last scores, units) on the
    leaders max(suffix) + 1 .. F_hi, one tied (the first player's is the key's own solve:
    final_rows).  chain: the latest suffix solved per length, reused while it lasts."""
    got = chain.get(len(suffix))
    if got is not None and got[0] == suffix:
        return got[1]
    L0 = max(suffix, default=0) + 1
    if not suffix:  # after everyone: the tied leaders share the win
        shares = Shares.start(model.rules, L0, F_hi, m + 3)
    else:
        j = m - len(suffix)
        after = _suffix_shares(model, F_hi, m, suffix[1:], chain).from_leader(L0)
        rows = leader_states(L0, 1, j, F_hi, F_hi - L0)  # (F, c) for c = 1 .. j + 1
        _, shares = play_back(
            model, after, suffix[0] * model.rules.unit, j, m, rows, starts_only=True
        )
    chain[len(suffix)] = (suffix, shares)
    return shares


# --- one batch of orbits ----------------------------------------------------------------------
Lookup = Callable[[np.ndarray], np.ndarray]  # score tuples (M, N) of higher sums -> V (M, N)


def bank_values(
    states: np.ndarray, R: int, lookup: Lookup, finals: FinalTable, mins: np.ndarray | None = None
) -> np.ndarray:
    """U[i, t, k]: seat k's chance once the mover of states[i] banks t units (t < span).
    Each row's payoffs by the mover's final score x = s_0 + t (one line X per row, its
    window from s_0 on): the next state (s_1, ..., s_{N-1}, x) below R (seat k here is seat
    k - 1 there), the final round from R to R + D, the leader's win beyond.  mins: the
    rows' bank minimums, each within the span (a turn's cut is on its grid: a bank
    minimum of 150 one unit below an instant-end target otherwise banked 50)."""
    B, N = states.shape
    D = finals.D if finals.rel is not None else 0
    s0 = states[:, 0]
    lo = int(s0.min())
    span = max(R + D + 1 - lo, 0 if mins is None else int(np.max(mins)) + 1)
    X = np.empty((B, int(s0.max()) + span, N))
    won = R + D + 1 if D else R  # from here on the leader wins (past the final round)
    X[:, won:] = 0.0
    X[:, won:, 0] = 1.0
    # below R: one lookup of the row's whole line of next states (contiguous in x), the
    # seats turned back by one (seat k there is seat k + 1 here)
    line = np.empty((B, R, N), np.int64)
    line[..., : N - 1] = states[:, None, 1:]
    line[..., N - 1] = np.arange(R)[None, :]
    after = lookup(line.reshape(-1, N)).reshape(B, R, N)
    X[:, :R, 1:] = after[..., : N - 1]
    X[:, :R, 0] = after[..., N - 1]
    if D:  # R <= x <= R + D: the final round
        X[:, R : R + D + 1] = finals.from_target(states[:, 1:])
    U = np.lib.stride_tricks.sliding_window_view(X, span, axis=1)[np.arange(B), s0]
    U = np.ascontiguousarray(U.transpose(0, 2, 1))
    U[:, 0] = 0.0  # t = 0 is no bank (the zilch's state, of this sum: never read)
    U[:, 0, 0] = 1.0
    return U


@dataclass(frozen=True, eq=False)
class BatchTurns:
    """The turns of a batch of states, solved with zilch payoffs z: the mover's value at
    the start, g (zilch chance), and the banking parts A (B, N) (seat 0: value - g z).
    levels: the whole turn, every level of permanent points (one level without them);
    sol its first (no permanent points yet)."""

    sol: TurnSolution
    A: np.ndarray
    g: np.ndarray
    levels: TurnLevels


def _seats(rules: RuleSet, N: int) -> range:
    """The seats whose chances are extras of the mover's turn: 1..N-2 where every bank's
    chances sum to 1 (the last seat's banking part is then P(bank) = 1 - g less the
    others'), else (a tie worth more or less than half a win) 1..N-1."""
    return range(1, N - 1) if sums_to_one(rules) else range(1, N)


def _parts(v: np.ndarray, g: np.ndarray, seats: np.ndarray, z: np.ndarray, N: int) -> np.ndarray:
    """The banking parts A (B, N) from the mover's start value v, his zilch chance g and
    the chances of _seats' seats (len(_seats), B)."""
    A = np.empty((len(v), N))
    A[:, 0] = v - g * z
    A[:, 1 : 1 + len(seats)] = seats.T
    if 1 + len(seats) < N:
        A[:, N - 1] = (1.0 - g) - A[:, : N - 1].sum(axis=1)
    return A


def solve_turns(model: TurnModel, states: np.ndarray, U: np.ndarray, z: np.ndarray) -> BatchTurns:
    """The mover's optimal turn from each state, his zilch worth z, banking worth U[..., 0];
    the zilch chance and the chances of the seats of _seats (U[..., k]) under his policy as
    extras."""
    rules = model.rules
    seats = list(_seats(rules, U.shape[2]))
    others = np.ascontiguousarray(U[..., seats].transpose(2, 0, 1))
    if rules.has_permanent:
        return _permanent_batch(model, states, U, z, others)
    mins = bank_minimums(rules, states[:, 0])
    sol = solve_turn(
        model, turn_payoff(model, np.ascontiguousarray(U[..., 0]), z, mins, others=others)
    )
    g = sol.extras[0][:, 0, 0]
    A = _parts(sol.roll[:, 0, 0], g, sol.extras[1:, :, 0, 0], z, U.shape[2])
    return BatchTurns(sol, A, g, TurnLevels(rules, (sol,)))


def _permanent_batch(
    model: TurnModel, states: np.ndarray, U: np.ndarray, z: np.ndarray, others: np.ndarray
) -> BatchTurns:
    """solve_turns with permanent points: the turn over the points x it adds (the two-player
    game's levels, plain_game.permanent_turns), x > 0 banked or kept through a zilch, both
    moving to (s_1, ..., s_{N-1}, s_0 + x) (bank_values' U[:, x]); x = 0 a plain zilch,
    worth z to the mover and the zilch chance's indicator (the others' chances there: 0,
    the cycle's g P V part; permanent_turns sets them)."""
    B = len(states)
    pay = np.array(U[..., 0])
    pay[:, 0] = z
    turns = GameTurns(model.rules, states, permanent_turns(model, pay, states[:, 0], others), pay)
    g = turns.p_zilch()
    seats = np.array([turns.extra(1 + j) for j in range(len(others))]).reshape(len(others), B)
    levels = turns.levels()
    return BatchTurns(levels[0], _parts(turns.start(), g, seats, z, U.shape[2]), g, levels)


def turn_parts(
    model: TurnModel,
    states: np.ndarray,
    U: np.ndarray,
    z: np.ndarray,
    slack: np.ndarray | None = None,
    chains: ChainRows | None = None,
    tables_out: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(A, g) of solve_turns' turns, from the turns' start values alone (the C kernel,
    turn.starts: no whole solution's grid) where it is built, else from whole turns.
    slack (B,): filled with how far each mover's zilch payoff may move with his turn's
    policy still optimal (turn.starts.zilch_starts; 0 from whole turns: nothing claimed).
    tables_out, chains: the must-roll state's values past the cut written out, and read
    back as chain tables by the next solves of the same payoffs (must_roll_space)."""
    N = U.shape[2]
    seats = list(_seats(model.rules, N))
    mins = bank_minimums(model.rules, states[:, 0])
    # (a range of seats: a view, copied once into the kernel's extras)
    others = np.moveaxis(U[..., seats[0] : seats[-1] + 1], -1, 0) if seats else None
    got = zilch_starts(
        model,
        np.ascontiguousarray(U[..., 0]),
        z,
        mins,
        others,
        slack=slack,
        chains=chains,
        tables_out=tables_out,
    )
    if got is None:
        if slack is not None:
            slack[:] = 0.0
        turns = solve_turns(model, states, U, z)
        return turns.A, turns.g
    v, g, ex = got
    return _parts(v, g, ex, z, N), g


def turn_stops(model: TurnModel, states: np.ndarray, U: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Each mover's cut within the grid (turn_cuts' on his bank payoffs U[..., 0]), as
    turn_parts' kernel takes it."""
    mins = bank_minimums(model.rules, states[:, 0])
    return np.clip(turn_cuts(model, U[..., 0], z, mins), 1, U.shape[1] - 1)


def must_roll_space(model: TurnModel, U: np.ndarray) -> np.ndarray | None:
    """Where hot dice are mandatory and the must-roll state has one choice per outcome (the
    zilch presets), its recursion past each mover's cut is most of a turn solve (zilch to
    2000 among three: 380 us a row with it, 98 us without), and its values there are alpha +
    beta z whatever the zilch payoff z: the first solve of a batch writes them out here
    (tables_space) and the later ones read them as chain tables (must_roll_tables).  None
    where that does not apply."""
    B, span, N = U.shape
    return tables_space(model, B, 1 + len(_seats(model.rules, N)), span)


def cycle_values(A: np.ndarray, g: np.ndarray, nxt: np.ndarray) -> np.ndarray:
    """V (B, N) solving V[i] = A[i] + g[i] P V[nxt[i]] exactly ((P v)[k] = v[k - 1]):
    round the rotation N times."""
    B, N = A.shape
    acc = np.zeros((B, N))
    coef = np.ones(B)
    at = np.arange(B)
    for j in range(N):
        acc += coef[:, None] * np.roll(A[at], j, axis=1)
        coef = coef * g[at]
        at = nxt[at]
    return acc / (1.0 - coef)[:, None]


def corner_guess(states: np.ndarray, R: int, lookup: Lookup, fallback: np.ndarray) -> np.ndarray:
    """V at states, at three players extrapolated from the other corners of the unit cube
    above each state (every corner a higher sum, solved): V(s) ~ sum over the nonempty
    sets J of seats of (-1)^(|J| + 1) V(s + e_J), exact for every polynomial without a
    term in all three scores (the alternating sum over the cube's corners cancels the
    rest), so its error is of third order in the step where the next player's neighbour's
    alone is of first (farkle to 3000: 2.18 turn solves per state against 3.23).  Else, or
    where a corner is at R: that neighbour's value, or `fallback` where it is at R too.
    With four or more players the neighbour's stays: there the corners' steps reached
    another equilibrium than the value iteration the tests hold the solver to."""
    B, N = states.shape
    V = fallback.copy()
    inside = (states.max(axis=1) < R - 1) & (N == CORNER_PLAYERS)  # (every corner below R)
    up = states.copy()
    up[:, 1] += 1
    ok = (up[:, 1] < R) & ~inside
    V[ok] = lookup(up[ok])
    if inside.any():
        rows = states[inside]
        acc = np.zeros((len(rows), V.shape[1]))
        for mask in range(1, 2**N):
            e = np.array([(mask >> k) & 1 for k in range(N)])
            acc += (1 if e.sum() % 2 else -1) * lookup(rows + e)
        V[inside] = acc
    return V


def solve_batch(
    model: TurnModel, states: np.ndarray, R: int, lookup: Lookup, finals: FinalTable
) -> np.ndarray:
    """V (B, N) of a batch of states closed under rotation (orbit_batches), every state
    above their sum known to lookup.

    Each step solves the turns of the orbits not settled yet with the zilch payoffs of the
    current values, then takes the values of the new policies exactly (cycle_values).  Every
    mover changing his policy at once can cycle between two policies (each a best response
    to the other's values); after SIMULTANEOUS steps an orbit's movers change theirs one
    seat at a time (best-response dynamics taken in turn).  Where that cycles too, no
    mover has a pure best reply that stays one: the orbit's movers mix (mixed_orbit).

    The first values are extrapolated from the solved corners of the cube above each state
    (corner_guess, three players; more players: the next player's neighbour's, see there).
    Where an orbit has more than one equilibrium, the first guess decides which one the
    steps reach (three players, farkle to 2000: the orbits of (32, 36, 33) and (12, 23, 30)
    have two; docs/method.md).  In the first SIMULTANEOUS steps an orbit whose new values
    stay within every mover's slack settles without a solve (settled_within_room)."""
    B, N = states.shape
    nxt = positions(states, rotate(states), R)
    rots = np.stack([_codes(rotate(states, k), R) for k in range(N)])
    pos = np.argmin(rots, axis=0)  # zilches from the orbit's smallest member
    _, orbit = np.unique(rots.min(axis=0), return_inverse=True)
    U = bank_values(states, R, lookup, finals, bank_minimums(model.rules, states[:, 0]))
    V = corner_guess(states, R, lookup, U[:, 1])
    A = np.zeros((B, N))
    g = np.zeros(B)
    out = np.full((B, N), np.nan)
    live = np.ones(B, bool)
    seen: dict[int, dict[bytes, tuple[np.ndarray, float]]] = {}  # policies in turn
    solved_at = np.zeros(B)  # the zilch payoff each mover's policy was solved at
    room = np.zeros(B)  # and how far from it that policy stays optimal
    out_tables = must_roll_space(model, U)
    chains: ChainRows | None = None  # the must-roll state's, from the first solve on
    for step in range(SIMULTANEOUS + CYCLES * N):
        idx = np.nonzero(live)[0]
        z = V[nxt[idx], N - 1]
        every = len(idx) == B  # (the first steps: no copy of the payoffs)
        slack = np.zeros(len(idx))
        tA, tg = turn_parts(
            model,
            states if every else states[idx],
            U if every else U[idx],
            z,
            slack,
            chains if chains is None or every else chains.take(idx),
            out_tables,
        )
        if out_tables is not None:  # (step 0: every row)
            chains = must_roll_tables(out_tables, z, turn_stops(model, states, U, z))
            out_tables = None
        got = tA + tg[:, None] * np.roll(V[nxt[idx]], 1, axis=1)
        miss = np.zeros(orbit.max() + 1)
        np.maximum.at(miss, orbit[idx], np.abs(got - V[idx]).max(axis=1))
        done = miss[orbit[idx]] < NEWTON_TOL
        out[idx[done]] = got[done]
        live[idx[done]] = False
        if not live.any():
            return out
        take = ~done if step < SIMULTANEOUS else ~done & (pos[idx] == step % N)
        A[idx[take]], g[idx[take]] = tA[take], tg[take]
        solved_at[idx[take]], room[idx[take]] = z[take], slack[take]
        if step >= SIMULTANEOUS:
            for j in np.nonzero(take)[0]:
                key = np.round(np.append(tA[j], tg[j]), 12).tobytes()
                seen.setdefault(int(idx[j]), {})[key] = (tA[j], float(tg[j]))
        V = cycle_values(A, g, nxt)
        if step < SIMULTANEOUS and settled_within_room(V, nxt, orbit, live, solved_at, room, out):
            return out
    for o in np.unique(orbit[live]):
        sel = np.nonzero(orbit == o)[0]
        inv = np.full(B, -1)
        inv[sel] = np.arange(len(sel))
        options = [list(seen.get(int(i), {}).values()) or [(A[i], float(g[i]))] for i in sel]
        out[sel] = mixed_orbit(model, states[sel], U[sel], inv[nxt[sel]], options)
    return out


def settled_within_room(
    V: np.ndarray,
    nxt: np.ndarray,
    orbit: np.ndarray,
    live: np.ndarray,
    solved_at: np.ndarray,
    room: np.ndarray,
    out: np.ndarray,
) -> bool:
    """Settle (out = V, live off) the live orbits whose every mover's new zilch payoff is
    within the room of the one his policy was solved at (turn_parts' slack, less
    ROOM_MARGIN for rounding): their policies are still each mover's best reply to V, the
    exact values of those policies, so V is the equilibrium the next solve would only
    confirm (three players, farkle to 3000: 2.18 turn solves per state without this,
    1.69 with it; bench/bench_solves.py).  Whether no orbit is left live."""
    idx = np.nonzero(live)[0]
    moved = np.abs(V[nxt[idx], -1] - solved_at[idx]) + ROOM_MARGIN >= room[idx]
    unsure = np.zeros(orbit.max() + 1, bool)
    unsure[orbit[idx[moved]]] = True
    sure = idx[~unsure[orbit[idx]]]
    out[sure] = V[sure]
    live[sure] = False
    return not live.any()


def mixed_orbit(
    model: TurnModel,
    states: np.ndarray,
    U: np.ndarray,
    nxt: np.ndarray,
    options: list[list[tuple[np.ndarray, float]]],
) -> np.ndarray:
    """V of one orbit whose movers' best replies cycle: a stationary equilibrium in
    behaviour strategies.  Each mover plays one of his known turn policies, or mixes two
    (the first with probability w): (A, g) the mixture.  Supports are tried fewest mixes
    first; the weights leave every mixing mover indifferent between his two (a root), and
    the solution stands where no mover has a better reply.  A better reply found on the
    way joins that mover's policies and the search goes on, 4 rounds.  Where that finds
    nothing (four players, farkle to 2000: the orbit of (6, 20, 24, 36) needs more rounds
    of better replies), a second search from the same start goes on for 12 rounds, with
    each mover's latest MAX_OPTIONS policies (a better reply taking the oldest one's
    place).  The first search alone decides every orbit it settles, so tables it settled
    keep their bits.  InputError where neither finds one."""
    first = [list(o)[:MAX_OPTIONS] for o in options]
    got = _search_supports(model, states, U, nxt, first, rounds=4, replace=False)
    if got is None:
        latest = [list(o)[-MAX_OPTIONS:] for o in options]
        got = _search_supports(model, states, U, nxt, latest, rounds=12, replace=True)
    if got is None:
        raise InputError(
            f"{model.rules.name}: the {states.shape[1]}-player game at scores "
            f"{tuple(int(x) for x in states[0])} has no stationary equilibrium the solver finds"
        )
    return got


def _search_supports(
    model: TurnModel,
    states: np.ndarray,
    U: np.ndarray,
    nxt: np.ndarray,
    options: list[list[tuple[np.ndarray, float]]],
    rounds: int,
    replace: bool,
) -> np.ndarray | None:
    """mixed_orbit's search over `options` (extended in place by the better replies found;
    replace: the oldest policy makes room for one where a mover has MAX_OPTIONS)."""
    for _ in range(rounds):
        found_new = False
        for support in _supports([_choices(o) for o in options]):
            got = _try_support(model, states, U, nxt, options, support)
            if isinstance(got, np.ndarray):
                return got
            for i, pol in got:
                if not all(np.max(np.abs(pol[0] - A)) > 1e-12 for A, _ in options[i]):
                    continue
                if len(options[i]) >= MAX_OPTIONS and replace:
                    options[i].pop(0)
                if len(options[i]) < MAX_OPTIONS:
                    options[i].append(pol)
                    found_new = True
        if not found_new:
            break
    return None


# a support: per mover, the index of the one policy he plays, or the pair he mixes
Support = tuple[tuple[int, ...], ...]
ENVELOPE_TOL = 1e-9  # (an equilibrium's policies are best replies to 1e-12)


def _choices(options: list[tuple[np.ndarray, float]]) -> list[tuple[int, ...]]:
    """A mover's policies (j,) and pairs (j, k) that can be his part of an equilibrium: a
    policy best among his known ones at some zilch payoff z in [0, 1] (his chance a + g z
    is a line in z), a pair both best at the same z (where their lines cross; a pair of
    one line, anywhere the line is best).  Every other support fails the equilibrium's
    test, so leaving it out changes no solution, only the time."""
    a = np.array([A[0] for A, _ in options])
    g = np.array([gg for _, gg in options])
    n = len(options)
    with np.errstate(divide="ignore", invalid="ignore"):
        cross = (a[:, None] - a[None, :]) / (g[None, :] - g[:, None])
    zs = np.concatenate([[0.0, 1.0], cross[np.isfinite(cross) & (cross > 0) & (cross < 1)]])
    best = (a[None, :] + g[None, :] * zs[:, None]).max(axis=1)
    top = a[None, :] + g[None, :] * zs[:, None] >= best[:, None] - ENVELOPE_TOL  # (z, j)
    pure: list[tuple[int, ...]] = [(j,) for j in range(n) if top[:, j].any()]
    pairs = [(j, k) for j in range(n) for k in range(j + 1, n) if np.any(top[:, j] & top[:, k])]
    return pure + pairs


def _supports(choices: list[list[tuple[int, ...]]]) -> Iterator[Support]:
    """Every choice per mover of one policy or a pair to mix (among `choices`), fewest
    mixes first (lazily: the first that stands ends the search)."""
    from itertools import combinations, product

    movers = range(len(choices))
    for k in range(len(choices) + 1):
        for mixing in combinations(movers, k):
            per = [
                [c for c in ch if (len(c) == 2) == (i in mixing)] for i, ch in enumerate(choices)
            ]
            yield from product(*per)


def _try_support(
    model: TurnModel,
    states: np.ndarray,
    U: np.ndarray,
    nxt: np.ndarray,
    options: list[list[tuple[np.ndarray, float]]],
    support: Support,
) -> np.ndarray | list[tuple[int, tuple[np.ndarray, float]]]:
    """V where the movers playing `support` are in equilibrium, else the better replies
    found [(mover, (A, g))]."""
    from scipy.optimize import root

    B, N = len(states), states.shape[1]
    A1 = np.array([options[i][s[0]][0] for i, s in enumerate(support)])
    g1 = np.array([options[i][s[0]][1] for i, s in enumerate(support)])
    A2 = np.array([options[i][s[-1]][0] for i, s in enumerate(support)])
    g2 = np.array([options[i][s[-1]][1] for i, s in enumerate(support)])
    mix = [i for i, s in enumerate(support) if len(s) == 2]

    def values(w: np.ndarray) -> np.ndarray:
        full = np.ones(B)
        full[mix] = w
        A = full[:, None] * A1 + (1 - full[:, None]) * A2
        return cycle_values(A, full * g1 + (1 - full) * g2, nxt)

    def indifference(w: np.ndarray) -> np.ndarray:
        z = values(w)[nxt, N - 1]
        return ((A1[:, 0] - A2[:, 0]) + (g1 - g2) * z)[mix]

    w = np.zeros(0)
    if mix:
        w = root(indifference, np.full(len(mix), 0.5), method="hybr", tol=1e-15).x
        if np.max(np.abs(indifference(w))) > 1e-12 or np.any((w < -1e-12) | (w > 1 + 1e-12)):
            return []
    V = values(w)
    z = V[nxt, N - 1]
    bA, bg = turn_parts(model, states, U, z)
    better = bA[:, 0] + bg * z - V[:, 0] > 1e-12
    if not better.any():
        return V
    return [(int(i), (bA[i], float(bg[i]))) for i in np.nonzero(better)[0]]


def solve_serial(
    model: TurnModel, R: int, N: int, finals: FinalTable, batch: int = ORBITS_PER_TASK
) -> np.ndarray:
    """V (R,)*N + (N,) in this process, layer by layer (the reference for the parallel
    solve, which runs the same batches)."""
    V = np.full((R,) * N + (N,), np.nan)
    lookup = lambda s: V[tuple(s.T)]  # noqa: E731
    for sigma in range(N * (R - 1), -1, -1):
        for states in orbit_batches(sigma, R, N, batch):
            V[tuple(states.T)] = solve_batch(model, states, R, lookup, finals)
    return V


def solve_finals(model: TurnModel, R: int, N: int, D: int) -> FinalTable:
    """The final-round table (in this process), or the instant end's."""
    rules = model.rules
    keys = final_keys(rules, R, N)
    rel = None if rules.end == "instant" else final_rows(model, R, D, keys)
    return FinalTable.of(rules, R, D, keys, rel)


# --- the stored table -------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class NPlayerGame:
    """The solved N-player game: V (R,)*N + (N,) (scores in units, turn order from the
    mover) and the final round; the turn from any state is solved on demand."""

    model: TurnModel
    target: int  # points
    V: np.ndarray
    finals: FinalTable

    @property
    def rules(self) -> RuleSet:
        return self.model.rules

    @property
    def players(self) -> int:
        return self.V.ndim - 1

    @property
    def R(self) -> int:
        return self.V.shape[0]

    @classmethod
    def from_values(
        cls, model: TurnModel, target: int, N: int, R: int, values: np.ndarray, finals: FinalTable
    ) -> NPlayerGame:
        """From the values stored by score sum, top down (layer_store's order)."""
        V = np.empty((R,) * N + (N,))
        fill_sums(V, values, N * (R - 1), 0)
        return cls(model, target, V, finals)

    def p_win(self, scores: Sequence[int]) -> np.ndarray:
        """Every seat's chance from scores (points, turn order from the mover)."""
        u = self.rules.unit
        return self.V[tuple(int(s) // u for s in scores)].copy()

    def turns(self, rows: np.ndarray) -> BatchTurns:
        """The movers' turns from the score tuples `rows` ((B, N), units), solved with the
        table's zilch payoffs: their TurnSolution (sol), the chances of seats 1..N-2 its
        extras 1..N-2 (the last seat's: BatchTurns.A).  Where an orbit's movers mix, this
        is the policy the tie-break picks."""
        rows = np.asarray(rows).reshape(-1, self.players)
        lookup = lambda t: self.V[tuple(t.T)]  # noqa: E731
        U = bank_values(rows, self.R, lookup, self.finals, bank_minimums(self.rules, rows[:, 0]))
        z = self.V[tuple(rotate(rows).T)][:, self.players - 1]
        return solve_turns(self.model, rows, U, z)

    def turn(self, scores: Sequence[int]) -> BatchTurns:
        """The mover's turn from scores (points, turn order from the mover)."""
        u = self.rules.unit
        return self.turns(np.array([[int(x) // u for x in scores]]))
