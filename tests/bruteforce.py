"""An independent, deliberately naive single-turn solver in exact rational arithmetic.

It enumerates ordered dice (6**n rolls), every subset of them to set aside, and scores a
subset by trying every way to peel combinations off it.  Nothing is shared with solver/
except the RuleSet data.  Only for small games: few dice, optional or mandatory hot dice,
no permanent points.
"""

from fractions import Fraction
from functools import cache
from itertools import combinations, product


def combos(rules):
    """Every combination as (sorted faces, points)."""
    out = []
    for f in range(1, 7):
        for k in range(1, rules.dice + 1):
            if rules.faces[f - 1][k - 1]:
                out.append(((f,) * k, rules.faces[f - 1][k - 1]))
    for p in rules.patterns:
        assert p.kind == "straight" and not p.permanent, "brute force: straights only"
        out.append((p.faces, p.points))
    return out


def peeler(table):
    """best(dice): the most points peeling combinations of `table` ((faces, points)) off a
    sorted tuple of dice, or None where they cannot all be used."""

    @cache
    def best(dice):
        if not dice:
            return 0
        res = None
        for faces, pts in table:
            rest = list(dice)
            try:
                for f in faces:
                    rest.remove(f)
            except ValueError:
                continue
            sub = best(tuple(rest))
            if sub is not None and (res is None or pts + sub > res):
                res = pts + sub
        return res

    return best


def naive_choices(rules, roll):
    """{(points, dice left)} of every legal set-aside from the ordered roll."""
    best = peeler(combos(rules))
    found = set()
    n = len(roll)
    for k in range(1, n + 1):
        for idx in combinations(range(n), k):
            pts = best(tuple(sorted(roll[i] for i in idx)))
            if pts is not None:
                found.add((pts, n - k))
    if rules.set_aside == "forced" and found:
        return {max(found, key=lambda c: (c[0], -c[1]))}
    return found


def solve(rules, min_bank):
    """value(n, t, forced) for the expected banked points, exact Fractions.

    Beyond a total T (found by the one-step look-ahead, which is exact here because the gain
    of rolling once more falls as t grows and totals only grow) banking is optimal in every
    free state, and the forced hot-dice state is affine in t: A t + B, solved exactly.
    """
    N = rules.dice
    rolls = {
        n: [naive_choices(rules, r) for r in product(range(1, 7), repeat=n)]
        for n in range(1, N + 1)
    }
    w = {n: Fraction(1, 6**n) for n in rolls}
    hot_forced = rules.hot_dice == "mandatory"
    # forced hot state at large t: V = A t + B, banking right after every non-hot roll
    ph = pz = Fraction(0)
    g_non = g_hot = Fraction(0)
    for ch in rolls[N]:
        if not ch:
            pz += w[N]
            continue
        pts, left = max(ch, key=lambda c: (c[1] > 0, c[0]))  # asymptotically: bank if possible
        if left:
            g_non += w[N] * pts
        else:
            ph += w[N]
            g_hot += w[N] * pts
    A = (1 - pz - ph) / (1 - ph)
    B = (g_non + A * g_hot) / (1 - ph)

    def tail(n, t, forced):
        if forced:
            return A * t + B
        return Fraction(t)

    # T: every free n gains nothing from one more roll followed by banking
    T = 0
    for n in range(1, N + 1):
        for t in range(T, 10**6, 50):
            gain = Fraction(0)
            for ch in rolls[n]:
                if ch:
                    gain += w[n] * max(
                        (tail(N, t + p, hot_forced) if left == 0 else Fraction(t + p))
                        for p, left in ch
                    )
            if gain <= t and t >= min_bank:
                break
        T = max(T, t)
    T += 2000  # margin: the comparison below is made on states well inside [0, T)

    @cache
    def value(n, t, forced):
        if t >= T:
            return tail(n, t, forced)
        roll = Fraction(0)
        for ch in rolls[n]:
            if ch:
                roll += w[n] * max(
                    value(N, t + p, hot_forced) if left == 0 else value(left, t + p, False)
                    for p, left in ch
                )
        if forced or t < min_bank:
            return roll
        return max(roll, Fraction(t))

    return value, T


def solve_average(rules, min_bank, penalty, T):
    """The long-run average points per turn where the third zilch in a row costs `penalty`
    (issue 13), exact: policy iteration over the count k = 0, 1, 2 in Fractions.

    Each k's turn is solved by backward induction over totals with a zilch worth
    -penalty [k = 2] + h(k + 1 mod 3); banking is forced from the total T on, and the caller
    checks that the optimum banks there anyway (banks(k, n, t) for t just below T), so the
    cut changes nothing.  Optional hot dice only (a forced state only at the start).
    Returns (g, h, value(k, n, t, forced), banks(k, n, t)).
    """
    assert rules.hot_dice == "optional"
    N = rules.dice
    rolls = {
        n: [naive_choices(rules, r) for r in product(range(1, 7), repeat=n)]
        for n in range(1, N + 1)
    }
    w = {n: Fraction(1, 6**n) for n in rolls}

    def turn(z):
        @cache
        def node(n, t, forced):  # (value, P(zilch)) under the optimal policy
            if t >= T and not forced:
                return Fraction(t), Fraction(0)
            v = q = Fraction(0)
            for ch in rolls[n]:
                if not ch:
                    v += w[n] * z
                    q += w[n]
                    continue
                best = max(
                    (node(N if left == 0 else left, t + p, False) for p, left in ch),
                    key=lambda x: x[0],
                )
                v += w[n] * best[0]
                q += w[n] * best[1]
            if not forced and t >= min_bank and Fraction(t) >= v:
                return Fraction(t), Fraction(0)
            return v, q

        return node

    h = [Fraction(0)] * 3
    for _ in range(20):
        cost = [Fraction(0), Fraction(0), Fraction(-penalty)]
        nodes = [turn(cost[k] + h[(k + 1) % 3]) for k in range(3)]
        a, q = [], []
        for k in range(3):
            v, qk = nodes[k](N, 0, True)
            a.append(v - qk * (cost[k] + h[(k + 1) % 3]))
            q.append(qk)
        # g + h_k = a_k + q_k (cost_k + h_{k+1}) + (1 - q_k) h_0, h_0 = 0: h_1 and h_2 from
        # the k = 1 and k = 2 rows in terms of g, then the k = 0 row gives g
        # k=2: g + h2 = a2 + q2 cost2           -> h2 = a2 + q2 cost2 - g
        # k=1: g + h1 = a1 + q1 h2              -> h1 = a1 + q1 h2 - g
        # k=0: g = a0 + q0 h1
        # linear in g: h2 = c2 - g, h1 = a1 + q1 (c2 - g) - g, g = a0 + q0 h1
        c2 = a[2] + q[2] * cost[2]
        # g = a0 + q0 (a1 + q1 c2 - (1 + q1) g)
        g = (a[0] + q[0] * (a[1] + q[1] * c2)) / (1 + q[0] * (1 + q[1]))
        h2 = c2 - g
        h1 = a[1] + q[1] * h2 - g
        new = [Fraction(0), h1, h2]
        if new == h:
            break
        h = new
    else:
        raise AssertionError("policy iteration did not settle")

    def value(k, n, t, forced):
        return nodes[k](n, t, forced)[0]

    def banks(k, n, t):
        v = nodes[k](n, t, False)[0]
        return t >= min_bank and v == Fraction(t)

    return g, h, value, banks
