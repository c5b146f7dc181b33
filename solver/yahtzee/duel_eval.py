"""Fixed strategies in the exact two-player game (duel.py's states): the chance of winning
of one strategy against another, exactly, for the bench's measure of the heuristic's loss
(bench/bench_duel.py; docs/scaling.md, "Two-player Yahtzee").

  E_pq(a, b)(d)  P(the mover wins): the mover plays p, the other q (the layers of duel.py;
                 a box scored for g points leads to 1 - E_qp(b, a')(-(d + g)))
Each strategy chooses, at every decision and every score difference, by its own criterion;
the value carried is the evaluation's (rolls average it, each choice takes the chosen
option's).  Strategies:
  optimal     duel.py's V: the exact game's best play
  expected    expected-score play (the game table; widget.py's values)
  heuristic   Pawlewicz's: sum over x of P(the other's points to come = x, expected-score
              play from their sheet) x W(option, x - d), W the beat table (threshold.py)
Ties (equal criteria) go to the larger expected score, as `yahtzee advise --opponents`
ranks options, then to the first option.

A layer is evaluated mover sheet by mover sheet over its columns (the other's sheet, t =
-d), in chunks: numpy gathers each option's criterion and evaluations from the next layer
(the heuristic's sums by numba and BLAS), and duel_numba.turns plays the turn of every
column.  The choices of a strategy do not depend on the opponent it is evaluated against,
so one pass serves every opponent at once (evaluate_pairs: its channels).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..store import Store
from . import duel as D
from . import threshold as TH
from .final_scores import final_score
from .solitaire import SheetState, game_table, run_widget
from .solve import rule_arrays
from .threshold_widget import move
from .widget import NEG
from .yahtzee_rules import YahtzeeRules

CHUNK = 4096  # columns at once (the other sheets of a chunk: whole rows)
POLICIES = ("optimal", "expected", "heuristic")
MODE = {"optimal": 0, "expected": 1, "heuristic": 2}

State = tuple[int, int, int]


def _key(row: np.ndarray) -> State:
    return (int(row[0]), int(row[1]), int(row[2]))


@dataclass
class Context:
    """What the strategies read: the exact layers, the game table, the beat levels, each
    sheet's distribution of points to come under expected-score play."""

    rules: YahtzeeRules
    store: Store
    optimal: list[np.ndarray]
    E: np.ndarray
    beat: list[TH.Level]
    dists: dict[State, np.ndarray]

    def dist(self, state: State) -> np.ndarray:
        if state not in self.dists:
            if bin(state[0]).count("1") == self.rules.n_boxes:
                self.dists[state] = np.ones(1)
            else:
                self.dists[state] = final_score(self.rules, self.store, state, 0)
        return self.dists[state]


def context(rules: YahtzeeRules, store: Store, optimal: list[np.ndarray]) -> Context:
    return Context(rules, store, optimal, game_table(rules, store), TH.solve(rules, "beat"), {})


def read(lay: D.Layout, data: np.ndarray, rows: np.ndarray, t: np.ndarray) -> np.ndarray:
    """V at t = -d of each row (1 below its range, 0 past it); any shape."""
    lo = -lay.most_others[rows // len(lay.movers)]
    i = t - lo
    n = lay.off[rows + 1] - lay.off[rows]
    ok = (i >= 0) & (i < n)
    out = np.where(i < 0, 1.0, 0.0)
    out[ok] = data[lay.off[rows[ok]] + i[ok]]
    return out


@dataclass
class Turn:
    """Mover sheet j of layer s: its legal leaves (hand, box) and their distinct outcomes
    u = (points g, the sheet after: its row jn among the next layer's others)."""

    s: int
    j: int
    state: State
    leaf_o: np.ndarray
    leaf_x: np.ndarray
    leaf_u: np.ndarray
    g: np.ndarray  # (U,)
    jn: np.ndarray  # (U,)
    VB: np.ndarray  # (hands, boxes) the tie key of a box: the expected score (-inf: illegal)
    At: np.ndarray  # (2, keeps) the tie key of a keep with one and two rolls left


def mover_turn(ctx: Context, s: int, j: int) -> Turn:
    rs, lay = ctx.rules, D.layout(ctx.rules, s)
    nxt = D.layout(rs, s + 1)
    idx = nxt.index(nxt.others)
    mask, up, yf = state = _key(lay.movers[j])
    r = rule_arrays(rs)
    buf = np.empty(rs.n_boxes, np.int64)
    leaves: list[tuple[int, int, int]] = []
    keys: dict[tuple[int, int], int] = {}
    for o in range(r.base.shape[1]):
        for x in range(rs.n_boxes):
            if mask >> x & 1 or (r.forced and x != (~mask & (mask + 1)).bit_length() - 1):
                continue
            g, nup, nyf = move(mask, up, yf, o, x, r, buf)
            if g >= 0:
                u = keys.setdefault((int(g), int(idx[mask | 1 << x, nup, nyf])), len(keys))
                leaves.append((o, x, u))
    lv = np.array(leaves, np.int64).reshape(-1, 3)
    gj = np.array(list(keys), np.int64).reshape(-1, 2)
    VB, A1, A2, _ = run_widget(rs, ctx.E, SheetState(mask, up, yf))
    VB = np.where(VB > NEG / 2, VB, -np.inf)
    lo, lx, lu = (np.ascontiguousarray(lv[:, k]) for k in range(3))
    return Turn(s, j, state, lo, lx, lu, gj[:, 0].copy(), gj[:, 1].copy(), VB, np.stack([A1, A2]))


def gather(nxt: D.Layout, data: np.ndarray, turn: Turn, i: np.ndarray, t: np.ndarray) -> np.ndarray:
    """(U, C): 1 - the next layer's value after each outcome u at each column (i, t)."""
    rows = turn.jn[:, None] * len(nxt.movers) + i[None, :]
    return 1.0 - read(nxt, data, rows, turn.g[:, None] - t[None, :])


def box_crits(
    ctx: Context, turn: Turn, others: np.ndarray, i: np.ndarray, t: np.ndarray
) -> np.ndarray:
    """(U, C): the heuristic's value of each outcome u: sum over x of p_i(x) W(jn, x + t -
    g), one beat_sums over every t - g at once per (sheet after, other sheet)."""
    from .duel_numba import beat_sums

    lay, nxt = D.layout(ctx.rules, turn.s), D.layout(ctx.rules, turn.s + 1)
    lv = ctx.beat[turn.s // 2 + 1]
    out = np.empty((len(turn.g), len(t)))
    for jn in np.unique(turn.jn):
        us = np.nonzero(turn.jn == jn)[0]
        row = int(TH.row_of(lv, _key(nxt.others[jn]))[0])
        start, n = int(lv.off[row]), int(lv.off[row + 1] - lv.off[row])
        gmin, gmax = int(turn.g[us].min()), int(turn.g[us].max())
        for ii in others:
            cols = np.nonzero(i == ii)[0]
            tc = t[cols]
            v0 = int(tc.min()) - gmax
            h = np.empty(int(tc.max()) - gmin - v0 + 1)
            beat_sums(ctx.dist(_key(lay.others[ii])), lv.data, start, n, v0 - lv.lo, h)
            out[np.ix_(us, cols)] = h[tc[None, :] - turn.g[us][:, None] - v0]
    return out


def keep_crits(
    ctx: Context, turn: Turn, others: np.ndarray, i: np.ndarray, t: np.ndarray
) -> np.ndarray:
    """(2, keeps, C): the heuristic's value of every keep with one and two rolls left: sum
    over x of p_i(x) W(keep, x + t), W the beat table's turn (threshold_numba.twidget over
    the t the columns need); the sums a correlation with p_i, by FFT (identical rows of W
    give identical sums, so exact ties stay ties; the sums agree with direct ones to about
    1e-15)."""
    from scipy.fft import irfft, next_fast_len, rfft

    from .threshold_numba import twidget

    rs = ctx.rules
    lay = D.layout(rs, turn.s)
    lv = ctx.beat[turn.s // 2 + 1]
    r = rule_arrays(rs)
    dists = {int(ii): ctx.dist(_key(lay.others[ii])) for ii in others}
    t0 = int(t.min())
    nt = int(t.max()) - t0 + max(len(p) for p in dists.values())
    A = np.empty((2, len(r.add), nt))
    twidget(*turn.state, t0, r, (lv.index(rs), lv.off, lv.data), lv.lo, A[0], A[1], np.empty(nt))
    n = next_fast_len(nt, real=True)
    FA = rfft(A, n, axis=-1)
    K = np.empty((2, len(r.add), len(t)))
    for ii, p in dists.items():
        cols = np.nonzero(i == ii)[0]
        lo, hi = int(t[cols].min()) - t0, int(t[cols].max()) - t0 + 1
        full = irfft(FA * np.conj(rfft(p, n)), n, axis=-1)  # [m]: sum_x p[x] A[m + x]
        K[:, :, cols] = full[:, :, lo:hi][:, :, t[cols] - t0 - lo]
    return K


def chunks(lay: D.Layout, j: int) -> list[np.ndarray]:
    """The other sheets of mover sheet j in groups of at most CHUNK columns (one at least)."""
    lengths = lay.most_others + int(lay.most_movers[j]) + 1
    out: list[np.ndarray] = []
    start = 0
    while start < len(lengths):
        stop = start + 1
        while stop < len(lengths) and lengths[start : stop + 1].sum() <= CHUNK:
            stop += 1
        out.append(np.arange(start, stop))
        start = stop
    return out


def turns(
    ctx: Context, turn: Turn, policy: str, evals: Sequence[np.ndarray], others: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(positions in the layer, values (channels, C)) of the columns of `others`."""
    from .duel_numba import turns as run

    lay, nxt = D.layout(ctx.rules, turn.s), D.layout(ctx.rules, turn.s + 1)
    rows = others * len(lay.movers) + turn.j
    n = lay.off[rows + 1] - lay.off[rows]
    i = np.repeat(others, n)
    within = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
    t = -lay.most_others[i] + within
    pos = np.repeat(lay.off[rows], n) + within
    EV = np.stack([gather(nxt, e, turn, i, t) for e in evals])
    K = np.zeros((2, 1, 1))
    if policy == "optimal":
        CR = gather(nxt, ctx.optimal[turn.s + 1], turn, i, t)
    elif policy == "expected":
        CR = np.zeros((len(turn.g), len(t)))
    else:
        CR, K = box_crits(ctx, turn, others, i, t), keep_crits(ctx, turn, others, i, t)
    out = np.empty((len(evals), len(t)))
    leaves = (turn.leaf_o, turn.leaf_x, turn.leaf_u)
    run(leaves, CR, EV, K, (turn.VB, turn.At), MODE[policy], rule_arrays(ctx.rules), out)
    return pos, out


def layer(ctx: Context, s: int, policy: str, evals: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Layer s of the evaluations of `policy` (the mover's) against each opponent whose
    layer s + 1 (the mover there: that opponent) is in evals."""
    lay = D.layout(ctx.rules, s)
    out = np.empty((len(evals), lay.entries))
    for j in range(len(lay.movers)):
        turn = mover_turn(ctx, s, j)
        for others in chunks(lay, j):
            pos, values = turns(ctx, turn, policy, evals, others)
            out[:, pos] = values
    return list(out)


def evaluate_pairs(
    ctx: Context, pairs: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], list[np.ndarray]]:
    """E_pq and E_qp of every pair (p, q), every layer: each layer of each strategy as the
    mover in one pass over its opponents."""
    rs = ctx.rules
    top = 2 * rs.n_boxes
    tables = {(p, q) for p, q in pairs} | {(q, p) for p, q in pairs}
    E: dict[tuple[str, str], list[np.ndarray]] = {k: [np.empty(0)] * (top + 1) for k in tables}
    for k in tables:
        E[k][top] = D.terminal(rs)
    for s in range(top - 1, -1, -1):
        for x in POLICIES:
            ys = sorted(y for m, y in tables if m == x)
            if ys:
                got = layer(ctx, s, x, [E[y, x][s + 1] for y in ys])
                for y, v in zip(ys, got, strict=True):
                    E[x, y][s] = v
    return E


def evaluate(ctx: Context, p: str, q: str) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(E_pq, E_qp): every layer of both, the mover playing p (resp. q)."""
    E = evaluate_pairs(ctx, [(p, q)])
    return E[p, q], E[q, p]


def seats(
    rules: YahtzeeRules, E: dict[tuple[str, str], list[np.ndarray]], p: str, q: str
) -> tuple[float, float]:
    """p's P(win) against q from the start: playing first, and second."""
    lay = D.layout(rules, 0)
    return D.value(lay, E[p, q][0], 0, 0), 1 - D.value(lay, E[q, p][0], 0, 0)
