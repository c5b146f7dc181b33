"""A plain value iteration of the two-player game under the challenge rule, for small targets.

Independent of solver/objectives/challenge_game.py (and of solver/game.py, solver/turn.py):
it sweeps every state, in-turn states included, with the Bellman update until nothing moves
by more than 1e-14, reusing the helpers of tests/game_valueiteration.py (the scoring is
shared).  The model, scores in units in [lo, R) (lo <= 0 a bound: lower scores count as lo):

- status s of a player: f = s % 4 the challenges left (bit 1: "below" unused, bit 2: "at or
  above" unused); with an entry minimum s = f + 4 * on (on: banked once; off-board players
  need rules.min_bank_units(False) to bank), S = 8; without one everybody is on, s = f, S = 4.
- thr = ceil(challenge_threshold / unit); the challenge usable at score x: "below" if
  x < thr and f & 1, "above" if x >= thr and f & 2.  cost_k = challenge_costs[k] // unit.
- a turn at (a, b): the plain turn or, when one is usable, the challenge turn (the best).
  Plain: bank t -> (b, a + t), the banker on the board; zilch -> (b, a).  Challenge k (its
  bit cleared whatever happens): bank t -> the opponent max(b - t, lo), the banker a + t;
  zilch -> the challenger max(a - cost_k, lo).  (The last turn below sees b - t uncut.)
- a bank to L = a + t >= R ends the game: "instant" rules, the banker wins; else the
  opponent (at y, status sy) plays a last turn: plain, x beats L - y (ties count rules.tie),
  or, if one is usable for (y, sy), a challenge: 2x beats L - y.  Zilch or short: he loses.

Turn totals stop at the cap Tm: past it a free state banks (`check_cap` verifies that
rolling at the last total is worth no more than banking wherever banking is allowed); under
mandatory hot dice the must-roll state past the cap is a value iteration of its own over an
extension of the totals.
"""

import numpy as np

from .game_valueiteration import _moves, _roll, _sweep


def _merged(rules):
    """_moves with the outcomes of equal choice lists merged (fewer terms, same sums)."""
    out = {}
    for s, (probs, choices, pz) in _moves(rules).items():
        acc = {}
        for p, chs in zip(probs, choices):
            key = tuple(sorted(set(chs)))
            acc[key] = acc.get(key, 0.0) + p
        out[s] = (np.array(list(acc.values())), [list(k) for k in acc], pz)
    return out


def _hot(moves):
    """(P(zilch), P(every choice leaves the must-roll state)) of the must-roll state 0."""
    probs, choices, pz = moves[0]
    return pz, sum(p for p, chs in zip(probs, choices) if all(s2 == 0 for _, s2 in chs))


def challenge_finals(rules, D):
    """F[kind, on, d], d < D units: P(the last player, on the board or not, beats deficit d)
    with a plain last turn (kind 0: his bank x must exceed d) or a challenge (kind 1: 2x must
    exceed d, the bank taken from the leader); ties count rules.tie, a zilch loses.  Totals
    run past every deficit: beyond them banking wins outright."""
    moves = _merged(rules)
    Tm = max(D + 1, rules.min_bank_units(False) + 1)
    kind = np.arange(2)[:, None, None, None]
    on = np.arange(2)[None, :, None, None]
    d = np.arange(D)[None, None, :, None]
    t = np.arange(Tm)
    gain = np.where(kind == 1, 2 * t, t)
    bank = np.where(gain > d, 1.0, np.where(gain == d, rules.tie, 0.0))
    mins = np.where(on == 1, rules.min_bank_units(True), rules.min_bank_units(False))
    bank = np.where(t >= mins, bank, -np.inf)
    pz, p_hot = _hot(moves)
    far = (1.0 - pz - p_hot) / (1.0 - p_hot)  # must roll on past the totals: to a free state

    def beyond(s2, tt):
        return 1.0 if s2 else far

    V = np.zeros((2, 2, D, len(moves), Tm))
    for _ in range(10_000):
        old = V.copy()
        _sweep(V, moves, Tm, beyond, bank)
        if np.abs(V - old).max() < 1e-15:
            break
    else:
        raise AssertionError("last-turn value iteration did not settle")
    return V[..., 0, 0]


def challenge_game(rules, R, lo, Tm, finals=None, check_cap=True, extension=None):
    """W[sa, sb, a - lo, b - lo]: the chance of the player to move (score a, status sa; the
    opponent b, sb; units in [lo, R)) under the challenge rule, by value iteration over every
    state (module docstring).  finals: None, computed here from the rules (none under
    "instant" rules), or challenge_finals(rules, D) with D > R - lo + twice the largest
    total banked (Tm + extension + the largest roll).  extension: the totals past the cap kept for
    the must-roll state under mandatory hot dice (default 3 largest rolls)."""
    assert rules.challenge and lo <= 0 < R
    u, moves = rules.unit, _merged(rules)
    N, n, S = rules.dice, R - lo, (8 if rules.entry_minimum else 4)
    thr = -(-rules.challenge_threshold // u)
    cost = np.array(rules.challenge_costs) // u
    mandatory = rules.hot_dice == "mandatory"
    maxpts = max(p for _, chs, _ in moves.values() for row in chs for p, _ in row)
    E = (3 * maxpts if extension is None else extension) if mandatory else 0
    Tx = Tm + E + maxpts  # every total a bank can reach
    min_on, min_off = rules.min_bank_units(True), rules.min_bank_units(False)
    assert Tm > max(min_on, min_off), "the cap must lie past the bank minimums"

    # the rows: (sa, sb, a, b) with the plain turn, then those with a challenge open to the
    # mover (sa's bit k, k: below or at/above thr) with the challenge turn; then the totals
    scores = np.arange(n) + lo
    c, sa, sb, a, b = np.meshgrid(
        np.arange(2), np.arange(S), np.arange(S), scores, scores, indexing="ij"
    )
    f, k = sa % 4, (a >= thr).astype(int)
    keep = (c == 0) | ((f & (1 << k)) != 0)
    c, sa, sb, a, b, f, k = (x[keep][:, None] for x in (c, sa, sb, a, b, f, k))
    shape = (S, S, n, n)
    P = S * S * n * n  # the plain rows, in W's order
    pos = np.ravel_multi_index((sa, sb, a - lo, b - lo), shape)[P:, 0]
    on = sa // 4 if S == 8 else np.ones_like(sa)
    f2 = np.where(c == 1, f & ~(1 << k), f)  # the mover's challenges left after this turn
    sa_zilch = f2 + 4 * on if S == 8 else f2
    sa_bank = f2 + 4 if S == 8 else f2
    a_zilch = np.where(c == 1, np.maximum(a - cost[k], lo), a)
    z_at = np.ravel_multi_index((sb, sa_zilch, b - lo, a_zilch - lo), shape)

    t = np.arange(Tx)
    L = a + t
    y_raw = np.where(c == 1, b - t, b)  # the last turn sees the opponent's score as it is
    y = np.maximum(y_raw, lo)
    b_at = np.ravel_multi_index(
        np.broadcast_arrays(sb, sa_bank, y - lo, np.minimum(L, R - 1) - lo), shape
    )
    reach = np.broadcast_to(L >= R, b_at.shape)
    # (t = 0: a free state there is never reached; the turn's start below is N dice at 0)
    allowed = np.broadcast_to((t > 0) & (t >= np.where(on == 1, min_on, min_off)), b_at.shape)
    if rules.end == "instant":
        assert finals is None, "instant rules: no last turn"
        fin = 1.0
    else:
        D = R - lo + 2 * Tx + 1  # (every deficit L - y_raw: none cut)
        if finals is None:
            finals = challenge_finals(rules, D)
        assert finals.shape[:2] == (2, 2), "finals: challenge_finals(rules, D)"
        assert finals.shape[2] >= D, f"finals: challenge_finals(rules, D) with D >= {D}"
        on_y = sb // 4 if S == 8 else np.ones_like(sb)
        usable_y = ((sb % 4) & (1 << (y_raw >= thr).astype(int))) != 0
        dd = L - y_raw
        assert dd.max() < finals.shape[2]
        plain, chal = finals[0][on_y, dd], finals[1][on_y, dd]
        fin = 1.0 - np.where(usable_y, np.maximum(plain, chal), plain)
    fin = np.broadcast_to(fin, b_at.shape)

    pz, p_hot = _hot(moves)
    # optional hot dice: the must-roll state is the turn's start only, N free dice at total 0
    first, turn = (0, moves) if mandatory else (N, {s: moves[s] for s in moves if s})
    V = np.full((len(moves), len(c), Tm), 0.5).transpose(1, 0, 2)  # (each state's block whole)
    # the must-roll state past the cap (mandatory hot dice), at totals Tm .. Tm + E - 1
    X = np.full((len(c), Tm + E), 0.5)  # (the first Tm unused)

    def starts():  # W, flat: the plain turn or the challenge where one is open
        w = V[:P, first, 0].copy()
        w[pos] = np.maximum(w[pos], V[P:, first, 0])
        return w

    for _ in range(20_000):
        old, oldX = V.copy(), X.copy()
        start = starts()
        zilch = 1.0 - start[z_at]  # (rows, 1)
        BV = np.where(reach, fin, 1.0 - start[b_at])
        BV = np.where(allowed, BV, -np.inf)  # banking t: (rows, Tx)
        if E:  # past the extension: on to a free state, banking there as at its end
            far = ((1 - pz - p_hot) * BV[:, Tm + E - 1 : Tm + E] + pz * zilch) / (1 - p_hot)
            XF = np.concatenate([X, np.broadcast_to(far, (len(c), maxpts))], -1)
            acc = np.zeros((len(c), E)) + pz * zilch
            for p, chs in zip(*moves[0][:2]):
                best = None
                for pts, s2 in chs:
                    v = (BV if s2 else XF)[:, Tm + pts : Tm + E + pts]
                    best = v if best is None else np.maximum(best, v)
                acc += p * best
            X[:, Tm:] = acc

        def beyond(s2, tt):  # tt: t + pts for t < Tm
            return (BV if s2 else X)[:, tt[0] : tt[0] + Tm]

        _sweep(V, turn, Tm, beyond, BV[:, :Tm], zilch)
        change = np.abs(V - old).max()
        if E:
            change = max(change, np.abs(X - oldX).max())
        if change < 1e-14:
            break
    else:
        raise AssertionError("value iteration did not settle")
    if check_cap:
        top = BV[:, Tm - 1]
        for s in moves:
            if s:
                roll = _roll(V, moves, s, Tm, beyond)[:, -1] + moves[s][2] * zilch[:, 0]
                bad = np.isfinite(top) & (roll > top + 1e-12)
                assert not bad.any(), f"rolling beats banking at the cap Tm={Tm}: raise it"
    return starts().reshape(shape)
