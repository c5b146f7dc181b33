"""How good the approximate P(win) among N players is (objectives/approx_game.py), against
the exact table: what bench/bench_approx.py prints and tests/test_approx_pwin.py bounds.

For a batch of score tuples, each mover's turn is solved twice: exactly (the exact table's
turn) and approximately; a forward pass through the turn (from its start, the mass of each
dice state and turn total) plays the approximation's decisions and judges each by the
exact values: equal where the decision taken is worth what the exact best is (to 1e-12),
and its loss the exact best less the exact value of the decision taken — the review's
measure, summed over the turn (that is the exact P(win) of the exact turn less that of the
approximate turn, with exact play after it).  The same pass playing the exact decisions
gives the distribution of the totals banked, from which the visits of every game state
from 0-0-...-0 under optimal play are found, score sum by score sum (zilches go round an
orbit of one sum: solved there by iteration).  The rules: no pyramiding, no permanent
points (each set-aside adds at least one unit to the turn total).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..objectives.approx_game import approx_turns
from ..objectives.nplayer_game import NPlayerGame, layer_states, positions, rotate
from ..outcomes.model import TurnModel
from ..turn import TurnSolution

EQUAL = 1e-12
CELL = 1e-12  # (a state of the turn reached with less is left out: at most 1e-10 of a game)


@dataclass(frozen=True)
class TurnFigures:
    """Per row of a batch: the mass of decisions met (roll/bank, set-aside) and how much of
    it the approximation takes equal to the exact, its loss, and (exact play) the chance of
    banking each total t (B, L) and of a zilch."""

    met: np.ndarray  # (B, 2): roll/bank, set-aside
    equal: np.ndarray  # (B, 2)
    loss: np.ndarray  # (B,)
    banked: np.ndarray  # (B, L)
    zilch: np.ndarray  # (B,)


@dataclass(frozen=True)
class _Group:
    """A group of outcomes: the distinct (state after, units added) of its choices, each
    outcome's choices as indices into them (O, K; padded with the last: never taken), and
    the outcomes' probabilities."""

    target: np.ndarray  # (P,)
    shift: np.ndarray  # (P,)
    choice: np.ndarray  # (O, K) into 0..P (P: the padding)
    prob: np.ndarray  # (O,)


def _groups(model: TurnModel) -> list[_Group]:
    starts = list(model.out_start) + [len(model.prob)]
    ends = list(model.opt_start[1:]) + [len(model.shift)]
    out = []
    for g in range(len(model.out_start)):
        outs = range(starts[g], starts[g + 1])
        width = max((ends[o] - model.opt_start[o] for o in outs), default=1)
        C = np.full((len(outs), width), -1)
        for i, o in enumerate(outs):
            C[i, : ends[o] - model.opt_start[o]] = np.arange(model.opt_start[o], ends[o])
        pairs = np.stack([model.target[C], model.shift[C]], axis=-1)[C >= 0]
        uniq, inv = np.unique(pairs, axis=0, return_inverse=True)
        choice = np.full(C.shape, len(uniq))
        choice[C >= 0] = inv.reshape(-1)
        out.append(_Group(uniq[:, 0], uniq[:, 1], choice, model.prob[starts[g] : starts[g + 1]]))
    return out


def _walk(model: TurnModel, act: TurnSolution, judge: TurnSolution | None, L: int) -> TurnFigures:
    """The forward pass: decisions by `act`'s values, judged by `judge`'s (None: act's own,
    nothing judged; both padded to L totals and the largest shift beyond)."""
    B, S, Lp = act.roll.shape
    Av = np.maximum(act.roll, act.bank)
    Jv = None if judge is None else np.maximum(judge.roll, judge.bank)
    flat = (Av.reshape(B, -1), None if Jv is None else Jv.reshape(B, -1))
    groups = _groups(model)
    mass = np.zeros((B, S, Lp))
    mass[:, 0, 0] = 1.0
    figs = TurnFigures(
        np.zeros((B, 2)), np.zeros((B, 2)), np.zeros(B), np.zeros((B, L)), np.zeros(B)
    )
    for r in range(L):
        if mass[:, :, r:].max() < CELL:  # (nothing more in play)
            break
        for s in range(S):
            live = np.nonzero(mass[:, s, r] > CELL)[0]
            if len(live):
                m = _roll_or_bank(act, judge, Jv, mass, live, s, r, figs)
                _set_aside(model, groups, flat, Lp, mass, live, m, s, r, figs)
    return figs


def _roll_or_bank(
    act: TurnSolution,
    judge: TurnSolution | None,
    Jv: np.ndarray | None,
    mass: np.ndarray,
    live: np.ndarray,
    s: int,
    r: int,
    f: TurnFigures,
) -> np.ndarray:
    """Roll or bank at dice state s >= 1 and total r (the mass rolling returned)."""
    m = mass[live, s, r]
    if s == 0:
        return m
    bank = act.bank[live, s, r] > act.roll[live, s, r]
    f.banked[live, r] += m * bank
    if judge is not None and Jv is not None:
        took = np.where(bank, judge.bank[live, s, r], judge.roll[live, s, r])
        f.met[live, 0] += m
        f.equal[live, 0] += m * (took >= Jv[live, s, r] - EQUAL)
        f.loss[live] += m * (Jv[live, s, r] - took)
    return m * ~bank


def _set_aside(
    model: TurnModel,
    groups: list[_Group],
    flat: tuple[np.ndarray, np.ndarray | None],
    Lp: int,
    mass: np.ndarray,
    live: np.ndarray,
    m: np.ndarray,
    s: int,
    r: int,
    f: TurnFigures,
) -> None:
    """The roll of the rows `live` at dice state s and total r: each outcome's set-aside,
    its mass carried on."""
    g = (model.rules.dice if s == 0 else s) - 1
    f.zilch[live] += m * model.p_zilch[g + 1]
    G = groups[g]
    cols = G.target * Lp + r + G.shift
    pad = np.full((len(live), 1), -np.inf)
    av = np.concatenate([flat[0][live][:, cols], pad], axis=1)[:, G.choice]  # (B, O, K)
    k = av.argmax(axis=2)
    w = m[:, None] * G.prob[None, :]
    if flat[1] is not None:
        jv = np.concatenate([flat[1][live][:, cols], pad], axis=1)[:, G.choice]
        took = np.take_along_axis(jv, k[..., None], axis=2)[..., 0]
        best = jv.max(axis=2)
        f.met[live, 1] += w.sum(axis=1)
        f.equal[live, 1] += (w * (took >= best - EQUAL)).sum(axis=1)
        f.loss[live] += (w * (best - took)).sum(axis=1)
    pick = np.take_along_axis(
        np.broadcast_to(G.choice, av.shape[:2] + G.choice.shape[1:]), k[..., None], axis=2
    )[..., 0]
    np.add.at(mass, (live[:, None], G.target[pick], r + G.shift[pick]), w)


@dataclass(frozen=True)
class StateFigures:
    """Per state of a batch: the approximate and exact chances (B, N) and the turn's
    figures (the approximation's decisions judged; the exact play's totals banked)."""

    approx: np.ndarray
    exact: np.ndarray
    judged: TurnFigures
    played: TurnFigures


def measure_states(game: NPlayerGame, W: np.ndarray, rows: np.ndarray) -> StateFigures:
    """The figures of the score tuples `rows` ((B, N), units): the exact table's turns and
    the approximation's (with the exact table's final round, which the approximation
    solves alike: approx_game.finals_for)."""
    model = game.model
    exact = game.turns(rows).sol
    got = approx_turns(model, W, game.finals, rows)
    shift = int(model.shift.max())
    L = max(exact.roll.shape[2], got.turns.sol.roll.shape[2])
    E, A = exact.padded(L + shift + 1), got.turns.sol.padded(L + shift + 1)
    V = game.V[tuple(np.asarray(rows).T)]
    return StateFigures(got.V, V, _walk(model, A, E, L), _walk(model, E, None, L))


@dataclass
class Totals:
    """Figures summed over states with weights: the chances' errors (the mover's and every
    seat's: weighted mean and largest), decisions met and equal, the loss."""

    weight: float = 0.0
    err_mover: float = 0.0
    err_seats: float = 0.0
    max_mover: float = 0.0
    max_seats: float = 0.0
    met: np.ndarray | None = None
    equal: np.ndarray | None = None
    loss: float = 0.0
    states: int = 0

    def add(self, f: StateFigures, w: np.ndarray) -> None:
        e = np.abs(f.approx - f.exact)
        self.weight += float(w.sum())
        self.err_mover += float(w @ e[:, 0])
        self.err_seats += float(w @ e.mean(axis=1))
        self.max_mover = max(self.max_mover, float(e[:, 0].max(initial=0.0)))
        self.max_seats = max(self.max_seats, float(e.max(initial=0.0)))
        met, equal = w @ f.judged.met, w @ f.judged.equal
        self.met = met if self.met is None else self.met + met
        self.equal = equal if self.equal is None else self.equal + equal
        self.loss += float(w @ f.judged.loss)
        self.states += len(w)

    def figures(self, players: int) -> dict[str, float]:
        """Errors in points of a percent; decisions equal as shares; the loss per game in
        points of a percent (every player following the approximation: all seats' turns;
        per player: a seat's share)."""
        assert self.met is not None and self.equal is not None
        return {
            "states": self.states,
            "mean_error_mover": 100 * self.err_mover / self.weight,
            "mean_error_seats": 100 * self.err_seats / self.weight,
            "max_error_mover": 100 * self.max_mover,
            "max_error_seats": 100 * self.max_seats,
            "equal_roll_bank": float(self.equal[0] / self.met[0]),
            "equal_set_aside": float(self.equal[1] / self.met[1]),
            "equal_decisions": float(self.equal.sum() / self.met.sum()),
            "loss_per_state": 100 * self.loss / self.weight,
            "loss_per_game": 100 * self.loss,
            "loss_per_player": 100 * self.loss / players,
        }


def reached(game: NPlayerGame, W: np.ndarray, batch: int = 1024, floor: float = 0.0) -> Totals:
    """The figures over every state optimal play reaches from 0-...-0, each weighted by its
    expected visits in a game (so the loss is per game); states visited less than `floor`
    are left out (their visits are said in Totals.weight's shortfall from the game's)."""
    R, N = game.R, game.players
    visits = np.zeros((R,) * N)
    visits[(0,) * N] = 1.0
    out = Totals()
    for sigma in range(N * (R - 1) + 1):
        states = layer_states(sigma, R, N)
        flow = visits[tuple(states.T)]
        if not (flow > floor).any():
            continue
        keep = _orbits_with(states, flow > floor, R)
        states = states[keep]
        figs = [
            measure_states(game, W, states[i : i + batch]) for i in range(0, len(states), batch)
        ]
        zil = np.concatenate([f.played.zilch for f in figs])
        mu = _round_orbit(states, visits[tuple(states.T)], zil, R)
        for i, f in enumerate(figs):
            part = slice(i * batch, i * batch + len(f.exact))
            out.add(f, mu[part])
            _bank_flow(visits, states[part], mu[part], f.played.banked, R)
    return out


def _orbits_with(states: np.ndarray, on: np.ndarray, R: int) -> np.ndarray:
    """The states of the orbits (under rotation) with a state `on`."""
    N = states.shape[1]
    codes = np.stack([np.ravel_multi_index(tuple(rotate(states, k).T), (R,) * N) for k in range(N)])
    orbit = codes.min(axis=0)
    return np.isin(orbit, orbit[on])


def _round_orbit(states: np.ndarray, flow: np.ndarray, zilch: np.ndarray, R: int) -> np.ndarray:
    """The visits of each state of a sum: its inflow by banks and the previous mover's
    zilches (mu = flow + g(prev) mu(prev), round each orbit)."""
    nxt = positions(states, rotate(states), R)
    mu = flow.copy()
    for _ in range(10_000):
        again = flow.copy()
        np.add.at(again, nxt, zilch * mu)
        if np.abs(again - mu).max() < 1e-15:
            return again
        mu = again
    return mu


def _bank_flow(
    visits: np.ndarray, states: np.ndarray, mu: np.ndarray, banked: np.ndarray, R: int
) -> None:
    """Each state's visits times its chance of banking t, onto the next state
    (s_1, ..., s_{N-1}, s_0 + t) below the target (a bank reaching it ends the game here:
    the final round is exact in both)."""
    B, L = banked.shape
    t = np.arange(L)[None, :]
    x = states[:, :1] + t
    ok = (x < R) & (banked > 0)
    b, tt = np.nonzero(ok)
    nxt = np.concatenate([states[b, 1:], x[b, tt][:, None]], axis=1)
    np.add.at(visits, tuple(nxt.T), mu[b] * banked[b, tt])


def uniform(
    game: NPlayerGame, W: np.ndarray, count: int, seed: int = 0, batch: int = 1024
) -> Totals:
    """The figures over `count` score tuples drawn uniformly (all of them where fewer)."""
    R, N = game.R, game.players
    every = np.indices((R,) * N).reshape(N, -1).T
    rng = np.random.default_rng(seed)
    rows = every if len(every) <= count else every[rng.choice(len(every), count, replace=False)]
    out = Totals()
    for i in range(0, len(rows), batch):
        part = rows[i : i + batch]
        out.add(measure_states(game, W, part), np.ones(len(part)))
    return out


@dataclass
class Sampled:
    """The figures over the states of `games` games played exactly from 0-...-0 (each state
    weighted by its visits per game, as reached() weighs them), and the standard error of
    the loss per game (from each game's own sum)."""

    totals: Totals
    games: int
    loss_se: float  # points of a percent, per game


def sampled(
    game: NPlayerGame, W: np.ndarray, games: int, seed: int = 0, batch: int = 1024
) -> Sampled:
    """reached()'s figures estimated from simulated games (where the states reached are too
    many to take all): every game follows the exact play's turn outcomes (the chance of
    banking each total, of a zilch: the exact turn's own walk), turn by turn, until a bank
    reaches the target (the final round is exact in both).  Each state met is measured once."""
    R, N = game.R, game.players
    rng = np.random.default_rng(seed)
    at = np.zeros((games, N), np.int64)
    live = np.arange(games)
    seen: dict[int, int] = {}  # state code -> row of `figs`
    figs: list[StateFigures] = []
    visits: list[tuple[np.ndarray, np.ndarray]] = []  # (games, rows) per turn
    while len(live):
        codes = np.ravel_multi_index(tuple(at[live].T), (R,) * N)
        new = np.unique(codes[[c not in seen for c in codes.tolist()]])
        rows = np.array(np.unravel_index(new, (R,) * N)).T
        for i in range(0, len(rows), batch):
            figs.append(measure_states(game, W, rows[i : i + batch]))
            for k, c in enumerate(new[i : i + batch].tolist()):
                seen[c] = (len(figs) - 1) * batch + k
        idx = np.array([seen[c] for c in codes.tolist()])
        visits.append((live, idx))
        at, live = _one_turn(figs, batch, idx, at, live, rng, R)
    return _sampled_totals(figs, batch, visits, games, N)


def _one_turn(
    figs: list[StateFigures],
    batch: int,
    idx: np.ndarray,
    at: np.ndarray,
    live: np.ndarray,
    rng: np.random.Generator,
    R: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Every live game's turn drawn from its state's exact outcomes: bank t (the mover
    sits last with s_0 + t; at R or beyond the game ends) or zilch (the scores rotate)."""
    out = at.copy()
    ended = np.zeros(len(live), bool)
    for j, (g, r) in enumerate(zip(live.tolist(), idx.tolist())):
        f = figs[r // batch].played
        p = np.append(f.banked[r % batch], f.zilch[r % batch])
        t = int(rng.choice(len(p), p=p / p.sum()))
        s = at[g]
        if t == len(p) - 1:  # a zilch
            out[g] = np.roll(s, -1)
        elif s[0] + t >= R:
            ended[j] = True
        else:
            out[g] = np.append(s[1:], s[0] + t)
    return out, live[~ended]


def _sampled_totals(
    figs: list[StateFigures],
    batch: int,
    visits: list[tuple[np.ndarray, np.ndarray]],
    games: int,
    N: int,
) -> Sampled:
    """The measured states weighted by their visits per game; the loss's standard error."""
    count = np.zeros(len(figs) * batch)
    per_game = np.zeros(games)
    loss = np.concatenate([np.pad(f.judged.loss, (0, batch - len(f.judged.loss))) for f in figs])
    for g, rows in visits:
        np.add.at(count, rows, 1.0)
        per_game[g] += loss[rows]
    out = Totals()
    for i, f in enumerate(figs):
        out.add(f, count[i * batch : i * batch + len(f.exact)] / games)
    se = 100 * float(per_game.std(ddof=1)) / np.sqrt(games) if games > 1 else float("nan")
    return Sampled(out, games, se)
