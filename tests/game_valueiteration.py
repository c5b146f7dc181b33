"""A plain value iteration over the whole two-player state space, for small targets.

Independent of solver/game.py and solver/turn.py: it sweeps every state (scores a, b; dice
state s; turn total t) with the Bellman update until nothing moves by more than 1e-14, using
the unmerged outcomes of scoring.scored (the scoring is shared).  The opponent's last turn
(final-round rules) is a value iteration of its own.  Turn totals stop at a bound past which
banking is optimal (checked: rolling there is worth less than banking in the result).
"""

import numpy as np

from dicesolver.outcomes.scoring import p_zilch, scored


def _moves(rules):
    """Per state s (0: must roll all dice; 1..N: n dice, free; pyramiding: then the
    states holding frozen groups, as the brute force of tests/bruteforce_pyramid.py reads
    them, raw counts): (outcome probabilities, list of [(points units, next state)],
    P(zilch))."""
    u, N = rules.unit, rules.dice
    hot = 0 if rules.hot_dice == "mandatory" else N
    out = {}
    if rules.pyramiding:
        return _frozen_moves(rules, hot)
    for n in range(1, N + 1):
        probs, choices = [], []
        for so in scored(rules, n):
            if so.choices:
                probs.append(float(so.outcome.prob))
                choices.append([(c.points // u, c.left if c.left else hot) for c in so.choices])
        out[n] = (np.array(probs), choices, float(p_zilch(rules, n)))
    return {s: out[N if s == 0 else s] for s in range(N + 1)}


def _frozen_moves(rules, hot):
    from .bruteforce_pyramid import roller

    N, u, empty = rules.dice, rules.unit, (0,) * 6
    rolls = roller(rules)
    index: dict = {(n, empty): n for n in range(1, N + 1)}
    index["must roll"] = 0
    todo, out = list(range(N + 1)), {}
    keys = {0: (N, empty), **{n: (n, empty) for n in range(1, N + 1)}}
    while todo:
        s = todo.pop()
        if s in out:
            continue
        n, frozen = keys[s]
        probs, choices, pz = [], [], 0.0
        for ch, c in rolls(n, frozen).items():
            p = c / 6**n
            if not ch:
                pz += p
                continue
            row = []
            for pts, left, after in ch:
                key = (left, after) if left else None
                s2 = hot if key is None else index.setdefault(key, len(index))
                keys.setdefault(s2, key or (N, empty))
                todo.append(s2)
                row.append((pts // u, s2))
            probs.append(p)
            choices.append(row)
        out[s] = (np.array(probs), choices, pz)
    return out


def _roll(V, moves, n, Tm, beyond):
    """Σ_o p_o max_c V[..., s_c, t + pts_c] for every t < Tm (V's last axis is t), the
    outcomes of state n."""
    probs, choices, _ = moves[n]
    acc = np.zeros(V.shape[:-2] + (Tm,))
    t = np.arange(Tm)
    for p, chs in zip(probs, choices):
        best = None
        for pts, s2 in chs:
            tt = t + pts
            v = np.where(tt < Tm, V[..., s2, np.minimum(tt, Tm - 1)], beyond(s2, tt))
            best = v if best is None else np.maximum(best, v)
        acc += p * best
    return acc


def _sweep(V, moves, Tm, beyond, bank, zilch=0.0):
    """One Bellman sweep over the turn's states, in place (V's last two axes: state, turn
    total): roll (a zilch worth `zilch`, shaped to broadcast over the totals), or bank where
    the state is free."""
    for s in moves:
        roll = _roll(V, moves, s, Tm, beyond) + moves[s][2] * zilch
        V[..., s, :] = roll if s == 0 else np.maximum(roll, bank)


def last_turn(rules, D):
    """X[d]: P(the last player beats deficit d), d < D (on the board, ties count the tie).
    Totals run to D + 1 units, past every deficit: beyond, banking wins outright."""
    moves = _moves(rules)
    Tm = D + 1
    d = np.arange(D)[:, None]
    t = np.arange(Tm)[None, :]
    bank = np.where(t > d, 1.0, np.where(t == d, rules.tie, 0.0))
    bank = np.where(t * rules.unit >= rules.bank_minimum, bank, -np.inf)
    V = np.zeros((D, len(moves), Tm))
    beyond = lambda s2, tt: 1.0
    for _ in range(10_000):
        old = V.copy()
        _sweep(V, moves, Tm, beyond, bank)
        if np.abs(V - old).max() < 1e-15:
            break
    return V[:, 0, 0]


def _reached(finals, final, b):
    """The banker's chance once his score `final` reaches the target against b: 1 (reaching
    it wins at once: finals None), else the opponent's last turn failing."""
    if finals is None:
        return np.ones(final.shape)
    return 1.0 - finals[np.minimum(np.maximum(final - b, 0), len(finals) - 1)]


def game(rules, R, Tm, finals=None, offers=False):
    """W[a, b] for scores below R units, by value iteration.  `finals[d]`: the opponent's
    last-turn chance against deficit d (final-round rules); None: reaching R wins at once.
    offers (piggyback): banking t with s dice left lets the opponent roll those s dice from
    t instead of starting fresh; returns (W, ROLL) with ROLL[a, b, s, t] the value of
    rolling at (s, t) (the take-over values)."""
    N, moves, u = rules.dice, _moves(rules), rules.unit
    a = np.arange(R)[:, None, None]
    b = np.arange(R)[None, :, None]
    t = np.arange(Tm)[None, None, :]
    on_board = (a > 0) | (rules.entry_minimum == 0)
    mins = np.where(on_board, rules.bank_minimum, max(rules.entry_minimum, rules.bank_minimum))
    V = np.full((R, R, len(moves), Tm), 0.5)
    # a must-roll state past the last total: every bank there wins at once (instant rules)
    probs, choices, pzN = moves[0]
    p_hot = sum(p for p, chs in zip(probs, choices) if all(s2 == 0 for _, s2 in chs))

    def bank_value(start, tt):
        final = a + tt
        fin = _reached(finals, final, b)
        return np.where(final < R, 1.0 - start[b, np.minimum(final, R - 1)], fin)

    ROLL = np.zeros_like(V)
    for _ in range(20_000):
        old = V.copy()
        start = V[:, :, 0, 0]  # W[a, b]
        zilch = 1.0 - start.T  # the opponent moves from (b, a)
        bank = np.broadcast_to(bank_value(start, t), (R, R, Tm))
        bank = np.where(t * u >= mins, bank, -np.inf)
        if offers:  # by dice left: the opponent's offer
            f = np.minimum(a + t, R - 1)
            take = np.stack(
                [
                    np.maximum(start[b, f], ROLL[b, f, s, np.minimum(t, R - 1)])
                    for s in range(N + 1)
                ],
                axis=2,
            )  # (R, R, N + 1, Tm)
            banks = np.where(
                ((a + t) < R)[:, :, None, :] & (t > 0)[:, :, None, :],
                1.0 - take,
                bank[:, :, None, :],
            )
            banks = np.where((t * u >= mins)[:, :, None, :], banks, -np.inf)
        forced_far = ((1 - pzN - p_hot) + pzN * zilch) / (1 - p_hot)

        def beyond(s2, tt):
            if s2:
                return bank_value(start, tt)
            assert finals is None, "final-round rules: use optional hot dice here"
            return forced_far[:, :, None]

        for s in moves:
            roll = _roll(V, moves, s, Tm, beyond) + moves[s][2] * zilch[:, :, None]
            ROLL[:, :, s] = roll
            V[:, :, s] = roll if s == 0 else np.maximum(roll, banks[:, :, s] if offers else bank)
        if np.abs(V - old).max() < 1e-14:
            break
    return (V[:, :, 0, 0], ROLL) if offers else V[:, :, 0, 0]


def penalty_game(rules, R, lo, Tm, finals=None):
    """W[ka, kb, a - lo, b - lo] of the game where the third zilch in a row costs
    rules.three_zilch_penalty (issue 13), by value iteration over the whole state space:
    scores in [lo, R) units (a penalty stops at lo), both players' zilches in a row.  A bank
    resets the banker's count; a zilch adds one, the third costs the penalty and resets it.
    Optional hot dice only (no must-roll state past the first roll)."""
    assert rules.hot_dice == "optional" and not rules.entry_minimum
    N, moves, u = rules.dice, _moves(rules), rules.unit
    P = rules.three_zilch_penalty // u
    n = R - lo
    k = np.arange(3)
    kb = k[None, :, None, None, None]
    a = (np.arange(n) + lo)[None, None, :, None, None]
    b = (np.arange(n) + lo)[None, None, None, :, None]
    t = np.arange(Tm)[None, None, None, None, :]
    V = np.full((3, 3, n, n, N + 1, Tm), 0.5)
    ok = t * u >= rules.bank_minimum
    # a zilch: the opponent moves from (b, a'), his count kb, mine k'
    shape = (3, 3, n, n)
    KA, KB, A, B = np.meshgrid(k, k, np.arange(n) + lo, np.arange(n) + lo, indexing="ij")
    pen = KA == 2
    a2 = np.where(pen, np.maximum(A - P, lo), A)
    k2 = np.where(pen, 0, KA + 1)
    bb, kk = B, KB
    assert a2.shape == shape

    def bank_value(start, tt):
        final = a + tt
        fin = _reached(finals, final, b)
        kk_, bb_, ff = np.broadcast_arrays(kb, b, final)
        mine = 1.0 - start[kk_, 0, bb_ - lo, np.minimum(ff, R - 1) - lo]
        return np.where(ff < R, mine, np.broadcast_to(fin, ff.shape))

    for _ in range(20_000):
        old = V.copy()
        start = V[..., 0, 0]
        zilch = 1.0 - start[kk, k2, bb - lo, a2 - lo]
        bank = np.where(ok, np.broadcast_to(bank_value(start, t), (3, 3, n, n, Tm)), -np.inf)

        def beyond(s2, tt):
            return bank_value(start, tt)

        _sweep(V, moves, Tm, beyond, bank, zilch[..., None])
        if np.abs(V - old).max() < 1e-14:
            break
    else:
        raise AssertionError("value iteration did not settle")
    return V[..., 0, 0]


def last_turn_beat(rules, D):
    """X[d, T]: P(the last player beats deficit d) when his bank must also beat the total T
    (overtaking; T = 0: nothing to beat), d, T < D units, on the board, ties count the
    tie.  Totals run to D + 1 units: beyond, banking wins and beats every T."""
    N, moves, u = rules.dice, _moves(rules), rules.unit
    Tm = D + 1
    d = np.arange(D)[:, None, None]
    T = np.arange(D)[None, :, None]
    t = np.arange(Tm)[None, None, :]
    bank = np.where(t > d, 1.0, np.where(t == d, rules.tie, 0.0))
    bank = np.where((t * u >= rules.bank_minimum) & ((T == 0) | (t > T)), bank, -np.inf)
    V = np.zeros((D, D, N + 1, Tm))
    beyond = lambda s2, tt: 1.0
    for _ in range(10_000):
        old = V.copy()
        _sweep(V, moves, Tm, beyond, bank)
        if np.abs(V - old).max() < 1e-15:
            break
    return V[:, :, 0, 0]


def overtaking_game(rules, R, Tm, finals=None):
    """W[a, b, T] of the game under overtaking (issue 14) by value iteration over the whole
    state space: T is the opponent's last banked turn total (0: he zilched), a bank must
    beat it as well as the minimum; banking t leads to (b, a + t, t), a zilch to (b, a, 0).
    finals[d, T] (last_turn_beat): the opponent's last turn once a bank of T reaches the
    target with deficit d; None: reaching the target wins at once.  Optional hot dice only."""
    assert rules.hot_dice == "optional"
    N, moves, u = rules.dice, _moves(rules), rules.unit
    a = np.arange(R)[:, None, None, None]
    b = np.arange(R)[None, :, None, None]
    T = np.arange(R)[None, None, :, None]
    t = np.arange(Tm)[None, None, None, :]
    on_board = (a > 0) | (rules.entry_minimum == 0)
    mins = np.where(on_board, rules.bank_minimum, max(rules.entry_minimum, rules.bank_minimum))
    ok = (t * u >= mins) & ((T == 0) | (t > T))
    V = np.full((R, R, R, N + 1, Tm), 0.5)

    def bank_value(start, tt):
        final = a + tt
        if finals is None:
            fin = np.ones(final.shape)
        else:
            d = np.minimum(final - b, len(finals) - 1)
            fin = 1.0 - finals[np.maximum(d, 0), np.minimum(tt, len(finals) - 1)]
        bb, ff, t2 = np.broadcast_arrays(b, np.minimum(final, R - 1), np.minimum(tt, R - 1))
        mine = 1.0 - start[bb, ff, t2]
        return np.where(final < R, mine, fin)

    for _ in range(20_000):
        old = V.copy()
        start = V[..., 0, 0]  # W[a, b, T]
        zilch = (1.0 - start[:, :, 0].T)[:, :, None]  # the opponent moves from (b, a, 0)
        bank = np.where(ok, np.broadcast_to(bank_value(start, t), (R, R, R, Tm)), -np.inf)

        def beyond(s2, tt):
            return bank_value(start, tt)

        _sweep(V, moves, Tm, beyond, bank, zilch[..., None])
        if np.abs(V - old).max() < 1e-14:
            break
    else:
        raise AssertionError("value iteration did not settle")
    return V[..., 0, 0]
