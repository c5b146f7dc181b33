"""A plain value iteration of the N-player game (3 to 6 players; N = 2 as a check), small targets.

The oracle for a future N-player solver, in the style of tests/game_valueiteration.py and
built on its outcome lists (_moves).  Scores are in units, each in [0, R), R =
rules.reach_units(target), listed in turn order from the player to move: s = (s0, ...,
s_{N-1}).  A state's value is the vector of all N players' win chances, index 0 the mover.

Conventions:

* V[s0, ..., s_{N-1}, i] (nplayer_game): player i's chance, i = 0 the mover, i = 1 the next
  to move, ...; a start of a turn (all dice, turn total 0).
* The mover maximises his own chance (component 0 of the vector).  Tie-break: among choices
  with exactly equal own chance he takes the bank over rolling on, and among the scoring
  choices of one roll the first one in _moves's order (scoring.scored's order).  The other
  players' chances follow that policy.
* Bank t (units, at least the bank minimum by on-board status: score 0 is not on the board
  where rules.entry_minimum > 0): below R the next player moves from (s1, ..., s_{N-1},
  s0 + t); a zilch: from (s1, ..., s_{N-1}, s0).  The next state's vector is rotated back
  (np.roll by one: the next state's mover is our player 1).
* s0 + t >= R: "instant" end, the mover wins (e_0).  Final round: every other player
  gets one last turn in turn order, each
  maximising his own chance given the leader so far and the players still to come, and the
  top scores share the win (k tied: rules.share(k) each, 1/k at tie 0.5).

The game is swept in place as game_valueiteration.game sweeps it: every state (scores, dice
state, turn total < Tm) by the Bellman update (the mover's argmax carrying the whole vector),
until no value moves by more than tol.  Rolling on past the last total Tm is valued as
banking there (Tm >= R: banking there reaches the target; a must-roll state there, instant
end: rolling until a free state, as game does).  Identical outcome rows (same
choice list) are merged (their probabilities summed): an exact rewrite of the same sums.

The final round's last turns are single-player turns in which every roll adds points, so they
are solved exactly by backward induction over the turn total (_backward), no iteration:
the last player's (P(beat the leader), P(tie the leader)) by deficit and number of leaders
(_last_player), and for N = 3 the middle player's outcome vector by his lead gaps (_middle);
for any N (used from four on) every player's outcome vector by the leader's score and the
set of leaders (_final_round_any).

Not modelled: piggyback, overtaking, the three-zilch penalty, challenges (asserted off).
"""

import numpy as np

from .game_valueiteration import _moves


def _merged(rules):
    """_moves with identical choice lists merged (probabilities summed), first-seen order."""
    out = {}
    for s, (probs, choices, pz) in _moves(rules).items():
        acc: dict = {}
        for p, chs in zip(probs, choices):
            key = tuple(chs)
            acc[key] = acc.get(key, 0.0) + p
        out[s] = (np.array(list(acc.values())), [list(k) for k in acc], pz)
    return out


def _own(i):
    return lambda v: v[..., i]


def _pick(best, v, key):
    """The better of two value vectors by key (strictly better: the first one keeps ties)."""
    if best is None:
        return v
    return np.where((key(v) > key(best))[..., None], v, best)


def _roll_vec(V, moves, n, Tm, beyond, key):
    """The vector counterpart of game_valueiteration._roll: Σ_o p_o V[..., s_c*, t + pts_c*, :]
    for every t < Tm, c* the choice of best key (the first on ties); V's last three axes:
    state, turn total, player.  beyond(s2, tt) (tt >= Tm, ascending): (..., len(tt), K)."""
    probs, choices, _ = moves[n]
    acc = 0.0
    for p, chs in zip(probs, choices):
        best = None
        for pts, s2 in chs:
            lo = min(pts, Tm)
            parts = [V[..., s2, lo:, :]] if lo < Tm else []
            parts.append(beyond(s2, np.arange(max(Tm, pts), Tm + pts)))
            best = _pick(best, np.concatenate(parts, axis=-2), key)
        acc = acc + p * best
    return acc


def _sweep_vec(V, moves, Tm, beyond, bank, ok, zilch, key):
    """One Bellman sweep in place (game_valueiteration._sweep with vectors): roll (a zilch
    worth the vector `zilch`, broadcast over the totals) or, in a free state where ok,
    bank (the bank on equal key)."""
    for s in moves:
        roll = _roll_vec(V, moves, s, Tm, beyond, key) + moves[s][2] * zilch
        if s == 0:
            V[..., s, :, :] = roll
        else:
            take = ok & (key(bank) >= key(roll))
            V[..., s, :, :] = np.where(take[..., None], bank, roll)


def _backward(moves, batch, Tm, K, bank, ok, zilch, beyond, key):
    """A single turn solved exactly from the last total down (every roll adds at least one
    unit): V[..., s, t, :] for t < Tm, batch the leading shape, K the vector length.
    bank[..., t, :], ok[..., t], zilch[..., :]; beyond(s2, tt) for tt >= Tm: (..., K)."""
    V = np.zeros(batch + (len(moves), Tm, K))
    for t in range(Tm - 1, -1, -1):
        for s in moves:
            probs, choices, pz = moves[s]
            acc = 0.0
            for p, chs in zip(probs, choices):
                best = None
                for pts, s2 in chs:
                    v = V[..., s2, t + pts, :] if t + pts < Tm else beyond(s2, t + pts)
                    best = _pick(best, v, key)
                acc = acc + p * best
            roll = acc + pz * zilch
            if s == 0:
                V[..., s, t, :] = roll
            else:
                b = bank[..., t, :]
                take = ok[..., t] & (key(b) >= key(roll))
                V[..., s, t, :] = np.where(take[..., None], b, roll)
    return V


def _minimums(rules):
    """Bank minimums in units by on-board flag: [off the board, on the board]."""
    on = rules.bank_minimum
    off = max(rules.entry_minimum, rules.bank_minimum) if rules.entry_minimum else on
    return np.array([rules.units_up(off), rules.units_up(on)])


def _flag(rules, score):
    """Index into the by-on-board-status tables: 1 on the board (score > 0, or no entry)."""
    return ((np.asarray(score) > 0) | (rules.entry_minimum == 0)).astype(int)


def _last_player(rules, moves, k, D):
    """L[flag, d] = (P(beat), P(tie)) of the last player of the final round facing k leaders
    at deficit d < D units, his policy maximising P(beat) + share(k + 1) P(tie); flag 1 on
    the board.  Totals run to D + 1 units: beyond, banking wins outright."""
    Tm = D + 1
    sh = rules.share(k + 1)
    key = lambda v: v[..., 0] + sh * v[..., 1]
    d = np.arange(D)[:, None]
    t = np.arange(Tm)[None, :]
    bank = np.stack(np.broadcast_arrays((t > d) * 1.0, (t == d) * 1.0), axis=-1)
    out = []
    for m in _minimums(rules):
        ok = np.broadcast_to(t >= m, (D, Tm))
        V = _backward(
            moves, (D,), Tm, 2, bank, ok, np.zeros(2), lambda s2, tt: np.array([1.0, 0.0]), key
        )
        out.append(V[:, 0, 0])
    return np.stack(out)  # (2, D, 2)


def _last_vectors(rules, L1, L2, flag, d):
    """The vectors the last player's turn leaves: (others, last) for one leader ahead by d
    (L1) and for two tied leaders ahead by d (L2): (P_leader each, P_last)."""
    sh2, sh3 = rules.share(2), rules.share(3)
    W, T = L1[flag, d, 0], L1[flag, d, 1]
    one = (1.0 - W - T + sh2 * T, W + sh2 * T)
    if L2 is None:
        return one, None
    W, T = L2[flag, d, 0], L2[flag, d, 1]
    two = (sh2 * (1.0 - W - T) + sh3 * T, W + sh3 * T)
    return one, two


def _middle(rules, moves, E, K1):
    """N = 3: M[f1, f2, e, f, :] = the final round's vector (banker, middle, last) once the
    banker's final score is F = b + e = c + f (the middle player b, the last c; flags: on the
    board), the middle player maximising his own chance knowing the last player's policy.
    His totals run to E + K1 units; beyond, banking is worth banking there (checked: he banks
    at the last total in every free state where he may)."""
    Tm = E + K1
    maxpts = max(p for _, chs, _ in moves.values() for c in chs for p, _ in c)
    D = E + Tm + maxpts
    L1 = _last_player(rules, moves, 1, D)
    L2 = _last_player(rules, moves, 2, D)
    flags = np.arange(2) if rules.entry_minimum else np.array([1])
    nf = len(flags)
    f1 = flags[:, None, None, None, None]
    f2 = flags[None, :, None, None, None]
    e = np.arange(E)[None, None, :, None, None]
    f = np.arange(E)[None, None, None, :, None]
    batch = (nf, nf, E, E)

    def h(tt):
        """The vectors of banking the totals tt (1-d): batch + (len(tt), 3)."""
        shape = batch + (len(tt),)
        (z0, z2), (q0, q2) = _last_vectors(rules, L1, L2, f2, f)
        ahead = np.clip(f + tt - e, 0, D - 1)
        (y1, y2), _ = _last_vectors(rules, L1, None, f2, ahead)
        zero = np.zeros(shape)
        below = np.stack(np.broadcast_arrays(z0, zero, z2), axis=-1)
        level = np.stack(np.broadcast_arrays(q0, q0, q2, zero)[:3], axis=-1)
        above = np.stack(np.broadcast_arrays(zero, y1, y2), axis=-1)
        lt, eq = (tt < e)[..., None], (tt == e)[..., None]
        return np.where(lt, below, np.where(eq, level, above))

    t = np.arange(Tm)
    bank = h(t)
    ok = np.broadcast_to(t >= _minimums(rules)[f1], batch + (Tm,))
    (z0, z2), _ = _last_vectors(rules, L1, None, f2[..., 0], f[..., 0])
    zilch = np.stack(np.broadcast_arrays(z0, np.zeros(batch), z2), axis=-1)
    beyond = lambda s2, tt: h(np.array([tt]))[..., 0, :]
    V = _backward(moves, batch, Tm, 3, bank, ok, zilch, beyond, _own(1))
    # the truncation: at the last total every free state banks where it may
    last, ok1 = V[..., 1:, Tm - 1, :], ok[..., Tm - 1, None, None]
    want = np.broadcast_to(bank[..., None, Tm - 1, :], last.shape)
    assert np.array_equal(np.where(ok1, last, 0.0), np.where(ok1, want, 0.0)), (
        "the middle player rolls at his last total: raise K1"
    )
    return np.broadcast_to(V[..., 0, 0, :], (2, 2, E, E, 3))


def _leaders_out(rules, N, H):
    """After the last turn of the final round: (H, 2**N - 1, N), by the leader's score M - R
    (< H, any: the vector does not depend on it) and the leaders' set (bit i: player i,
    index mask - 1): each leader's share of the win, rules.share(k) for k leaders."""
    masks = np.arange(1, 2**N)
    bits = (masks[:, None] >> np.arange(N)[None, :]) & 1
    share = np.array([rules.share(int(k)) for k in bits.sum(axis=1)])
    return np.broadcast_to(bits * share[:, None], (H, 2**N - 1, N))


def _final_round_any(rules, moves, N, R, Tx, K=20):
    """Any N >= 2: FIN[s0, ..., s_{N-1}, tt, :] (shape (R,)*N + (Tx, N)), the final round's
    vector (the banker first, then the others in turn order) once the banker at s0 banks tt
    (only where s0 + tt >= R is it read).

    Built independently of _finals's leads and flags: the players after the banker from the
    last one back, each one's state explicit, the leader's score M (absolute, M - R < H_j)
    and the set of players sharing it (a bitmask over the players before him), with every
    later player's score.  Out_j[s_j, ..., s_{N-1}, M - R, mask - 1, :]: the vector before
    player j's turn.  Player j ends at E = s_j + t (banking t, at least his bank minimum) or
    stays at s_j (a zilch, below M): E < M leaves the leaders as they are, E = M joins them,
    E > M leads alone.  His turn is solved exactly by _backward, maximising his own chance;
    his totals run to Tm_j = R + H_j + K (K units past every leader he may face) and rolling
    beyond is valued as banking there (asserted: at his last total he banks wherever he
    may)."""
    maxpts = max(p for _, chs, _ in moves.values() for c in chs for p, _ in c)
    mins = _minimums(rules)
    Hs = [Tx]  # Hs[j - 1]: player j's; Hs[N - 1]: after the last player
    for _ in range(1, N):
        Hs.append(R + Hs[-1] + K + maxpts)
    out = _leaders_out(rules, N, Hs[-1])
    for j in range(N - 1, 0, -1):
        Hj, nm = Hs[j - 1], 2**j - 1  # leader scores player j may face; his leader sets
        Tm = R + Hj + K
        later = N - 1 - j  # the later players' score axes of `out`
        nb = 1 + later + 2  # batch axes: s_j, s_{j+1..N-1}, m, mask (then the totals)
        ax = lambda i, n: np.arange(n).reshape((1,) * i + (n,) + (1,) * (nb - i))
        s_j, m, mask = ax(0, R), ax(1 + later, Hj), ax(2 + later, nm) + 1
        rest = tuple(ax(1 + i, R) for i in range(later))
        batch = (R,) * (1 + later) + (Hj, nm)

        def bank_at(tt, out=out, s_j=s_j, m=m, mask=mask, rest=rest, j=j):
            """The vectors of ending at s_j + tt (tt: 1-d totals): batch + (len(tt), N)."""
            E = s_j + tt.reshape((1,) * nb + (-1,))
            M = R + m
            below = out[rest + (m, mask - 1)]
            level = out[rest + (m, (mask | (1 << j)) - 1)]
            above = out[rest + (np.clip(E - R, 0, None), np.full_like(E, (1 << j) - 1))]
            lt, eq = (E < M)[..., None], (E == M)[..., None]
            return np.where(lt, below, np.where(eq, level, above))

        t = np.arange(Tm)
        bank = bank_at(t)
        ok = np.broadcast_to(t >= mins[_flag(rules, s_j)], batch + (Tm,))
        zilch = np.broadcast_to(out[rest + (m, mask - 1)][..., 0, :], batch + (N,))
        beyond = lambda s2, tt, bank_at=bank_at: bank_at(np.array([tt]))[..., 0, :]
        V = _backward(moves, batch, Tm, N, bank, ok, zilch, beyond, _own(j))
        last, ok1 = V[..., 1:, Tm - 1, :], ok[..., Tm - 1, None, None]
        want = np.broadcast_to(bank[..., None, Tm - 1, :], last.shape)
        assert np.array_equal(np.where(ok1, last, 0.0), np.where(ok1, want, 0.0)), (
            f"player {j} of the final round rolls at his last total: raise K"
        )
        out = V[..., 0, 0, :]
    # Out_1[s_1, ..., s_{N-1}, F - R, 0 (the banker alone)]
    s0 = np.arange(R).reshape((R,) + (1,) * N)
    tt = np.arange(Tx).reshape((1,) * N + (Tx,))
    others = tuple(np.arange(R).reshape((1,) * i + (R,) + (1,) * (N - i)) for i in range(1, N))
    f = np.clip(s0 + tt - R, 0, Tx - 1)
    return out[others + (f, np.zeros_like(f))]


def _finals(rules, moves, N, E):
    """The final round's vectors (banker first, then the others in turn order) by the
    others' on-board flags and the banker's leads e over them (units, < E)."""
    if N == 2:
        L1 = _last_player(rules, moves, 1, E)
        f = np.arange(2)[:, None]
        (p0, p1), _ = _last_vectors(rules, L1, None, f, np.arange(E)[None, :])
        return np.stack([p0, p1], axis=-1)  # (2, E, 2)
    if N == 3:
        return _middle(rules, moves, E, max(20, E // 2))  # (2, 2, E, E, 3)
    raise ValueError("_finals: N = 2, 3 (any N: _final_round_any)")


def nplayer_game(rules, R, Tm, N, tol=1e-13, sweeps=20_000, fixed=None):
    """V[s0, ..., s_{N-1}, i] for scores below R units (s0 the mover's, then in turn order):
    player i's chance (i = 0 the mover), by value iteration over every state (scores, dice
    state, turn total < Tm, Tm >= R) to tol; AssertionError if it does not settle.

    fixed: {score tuple: vector}, start-of-turn values held fixed (where the movers' best
    replies cycle, a plain value iteration cannot settle: there the solver's mixed
    equilibrium is given).  Then returns (V, best): best[k] the Bellman update at the k-th
    fixed state, the mover's best pure reply to the others' values (in an equilibrium his
    own chance, best[k][0], equals the fixed one's)."""
    fixed = fixed or {}
    at = tuple(np.array(list(fixed), np.int64).reshape(-1, N).T)
    held = np.array(list(fixed.values())).reshape(-1, N)
    assert N >= 2 and Tm >= R
    assert not (rules.piggyback or rules.overtaking or rules.three_zilch_penalty or rules.challenge)
    moves = _merged(rules)
    S = len(moves)
    maxpts = max(p for _, chs, _ in moves.values() for c in chs for p, _ in c)
    Tx = Tm + maxpts  # the bank values: totals below Tm, and past it (rolled beyond)
    instant = rules.end == "instant"
    if not instant and rules.hot_dice == "mandatory":
        raise NotImplementedError("final-round rules: optional hot dice only")
    ax = lambda i: np.arange(R).reshape((1,) * i + (R,) + (1,) * (N - 1 - i))
    a = ax(0)
    tt = np.arange(Tx)
    F = a[..., None] + tt  # (R, 1, ..., 1, Tx): the mover's score after banking tt
    reached = (F >= R)[..., None]
    if instant:
        FIN = np.eye(N)[0]
    elif N > 3:
        FIN = _final_round_any(rules, moves, N, R, Tx)
    else:
        fins = _finals(rules, moves, N, R + Tx)
        idx = [_flag(rules, ax(i))[..., None] for i in range(1, N)]
        idx += [F - ax(i)[..., None] for i in range(1, N)]
        FIN = fins[tuple(np.maximum(i, 0) for i in idx)]  # (R,)*N + (Tx, N)
    t = np.arange(Tm)
    ok = t >= _minimums(rules)[_flag(rules, a)][..., None]  # (R, 1, .., 1, Tm)
    ok = np.broadcast_to(ok, (R,) * N + (Tm,))
    grab = np.minimum(F[(slice(None),) + (0,) * (N - 1)], R - 1)  # (R, Tx)
    probs, choices, pzN = moves[0]
    p_hot = sum(p for p, chs in zip(probs, choices) if all(s2 == 0 for _, s2 in chs))
    key = _own(0)
    V = np.full((R,) * N + (S, Tm, N), 1.0 / N)
    for _ in range(sweeps):
        old = V.copy()
        start = V[..., 0, 0, :]
        # A[y, s1, ..., s_{N-1}] = start[s1, ..., s_{N-1}, y] rotated back to our order
        A = np.roll(np.moveaxis(start, N - 1, 0), 1, axis=-1)
        zilch = A[..., None, :]
        inside = np.moveaxis(A[grab], 1, N)  # (R,)*N + (Tx, N)
        BV = np.where(reached, FIN, inside)
        bank = BV[..., :Tm, :]
        if instant:
            far = ((1 - pzN - p_hot) * np.eye(N)[0] + pzN * A) / (1 - p_hot)

        def beyond(s2, tt):
            if s2 or rules.hot_dice != "mandatory":
                return BV[..., tt[0] : tt[-1] + 1, :]
            return np.broadcast_to(far[..., None, :], far.shape[:-1] + (len(tt), N))

        _sweep_vec(V, moves, Tm, beyond, bank, ok, zilch, key)
        best = V[at + (0, 0)]
        V[at + (0, 0)] = held
        if np.abs(V - old).max() < tol:
            break
    else:
        raise AssertionError("value iteration did not settle")
    return (V[..., 0, 0, :], best) if fixed else V[..., 0, 0, :]
