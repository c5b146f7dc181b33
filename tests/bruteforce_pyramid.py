"""An independent, naive single-turn solver under pyramiding, in exact rational arithmetic.

Like bruteforce.py (whose peeling it uses) it enumerates ordered dice (6**n rolls) and
every subset of them to set aside, and scores by peeling combinations off sorted tuples; it
shares nothing with solver/ except the RuleSet data.  The state carries the frozen dice
since the last pick-up as raw counts per face (the fast solver merges equivalent ones; this
one does not).  The reading of RULES.md: all frozen dice of a face form one group; dice of
the roll that are set aside and not taken by a straight join their face's group, which must
raise its score, and add score(after) - score(before); a roll with no such set-aside is a
zilch; hot dice clear the groups; six-dice patterns take the whole roll.  No permanent
points, no colour pairs.
"""

from collections import Counter
from fractions import Fraction
from functools import cache
from itertools import combinations, product

from .bruteforce import peeler

# sorted counts of the faces of six dice that each whole-roll pattern takes (loose: also
# where its faces need not differ)
SIX = {
    "three_pairs": ({(2, 2, 2)}, {(2, 4), (6,)}),
    "two_triplets": ({(3, 3)}, {(6,)}),
    "four_kind_pair": ({(2, 4)}, set()),
}


def scorer(rules):
    """choices(roll, frozen): {(points, dice left, frozen after)} of every legal set-aside
    of the roll (a tuple of faces) with the frozen groups (raw counts per face)."""
    N = rules.dice
    singles = [((f,) * k, rules.faces[f - 1][k - 1]) for f in range(1, 7) for k in range(1, N + 1)]
    singles = [c for c in singles if c[1]]
    straights = [(p.faces, p.points) for p in rules.patterns if p.kind == "straight"]
    assert not any(p.permanent or p.kind == "colour_pairs" for p in rules.patterns)
    group = peeler(singles)  # the score of a group of equal faces

    def joined(kept, frozen):
        """(points added, frozen after) of dice `kept` all joining their groups, or None."""
        pts, after = 0, list(frozen)
        for f in range(1, 7):
            j = kept.count(f)
            if not j:
                continue
            before = group((f,) * frozen[f - 1])
            now = group((f,) * (frozen[f - 1] + j))
            if now is None or now <= before:
                return None
            pts += now - before
            after[f - 1] += j
        return pts, tuple(after)

    @cache
    def choices(roll, frozen):
        found = set()
        n = len(roll)
        for k in range(1, n + 1):
            for idx in combinations(range(n), k):
                kept = sorted(roll[i] for i in idx)
                ways = [(0, kept)]
                for faces, p in straights:
                    rest = list(kept)
                    if all(f in rest and not rest.remove(f) for f in faces):
                        ways.append((p, rest))
                for base, rest in ways:
                    got = joined(rest, frozen)
                    if got is not None:
                        after = got[1] if n - k else (0,) * 6  # hot dice clear the groups
                        found.add((base + got[0], n - k, after))
        if n == 6:  # whole-roll patterns: six dice of one roll, never frozen ones
            shape = tuple(sorted(roll.count(f) for f in set(roll)))
            for p in rules.patterns:
                if p.kind in SIX:
                    strict, loose = SIX[p.kind]
                    if shape in strict or (not p.distinct and shape in loose):
                        found.add((p.points, 0, (0,) * 6))
            if not found:
                found |= {(p.points, 0, (0,) * 6) for p in rules.patterns if p.kind == "no_score"}
        if rules.set_aside == "forced" and found:
            return frozenset({max(found, key=lambda c: (c[0], -c[1]))})
        return frozenset(found)

    return choices


def solve(rules, min_bank):
    """(value(n, frozen, t, forced), states): exact expected points of every state, and
    the (n, frozen, t) a turn reaches below the cut T (free states)."""
    N = rules.dice
    rolls = roller(rules)
    empty = (0,) * 6
    hot_forced = rules.hot_dice == "mandatory"
    # the forced hot state at large t: A t + B, banking right after every non-hot roll
    w = Fraction(1, 6**N)
    ph = pz = g_non = g_hot = Fraction(0)
    for ch, c in rolls(N, empty).items():
        if not ch:
            pz += c * w
            continue
        pts, left, _ = max(ch, key=lambda x: (x[1] > 0, x[0]))
        if left:
            g_non += c * w * pts
        else:
            ph += c * w
            g_hot += c * w * pts
    A = (1 - pz - ph) / (1 - ph)
    B = (g_non + A * g_hot) / (1 - ph)

    # every (n, frozen) a turn reaches, ignoring totals
    seen, todo = set(), [(N, empty)]
    while todo:
        st = todo.pop()
        if st in seen:
            continue
        seen.add(st)
        for ch in rolls(*st):
            for _, left, after in ch:
                todo.append((left or N, after if left else empty))
    # T: from T on one more roll then banking gains nothing in any free state
    T = 0
    for n, frozen in sorted(seen):
        t = T
        while True:
            gain = Fraction(0)
            for ch, c in rolls(n, frozen).items():
                if ch:
                    gain += Fraction(c, 6**n) * max(
                        (A * (t + p) + B if hot_forced and not left else Fraction(t + p))
                        for p, left, _ in ch
                    )
            if gain <= t and t >= min_bank:
                break
            t += 50
        T = max(T, t)
    if hot_forced:  # ... and the forced state prefers banking after a roll to hot dice
        for ch in rolls(N, empty):
            banks = [p for p, left, _ in ch if left]
            for p, left, _ in ch:
                if banks and not left:
                    T = max(T, int((A * p + B - max(banks)) / (1 - A)) + 1)
    T += 2000  # margin: states are compared well inside [0, T)

    def tail(t, forced):
        return A * t + B if forced else Fraction(t)

    value = backward(rules, rolls, T, tail, lambda t: Fraction(t), min_bank)
    return value, reached(rules, rolls, T - 500)


def backward(rules, rolls, T, tail, bank, min_bank):
    """value(n, frozen, t, forced): the best of rolling (a zilch worth 0) and banking at
    bank(t) (from min_bank, in free states), recursively up to the total T; tail(t, forced)
    from T on."""
    N, empty, hot_forced = rules.dice, (0,) * 6, rules.hot_dice == "mandatory"

    @cache
    def value(n, frozen, t, forced):
        if t >= T:
            return tail(t, forced)
        roll = Fraction(0)
        for ch, c in rolls(n, frozen).items():
            if ch:
                roll += Fraction(c, 6**n) * max(
                    value(N, empty, t + p, hot_forced)
                    if left == 0
                    else value(left, after, t + p, False)
                    for p, left, after in ch
                )
        if forced or t < min_bank:
            return roll
        return max(roll, bank(t))

    return value


def roller(rules):
    """rolls(n, frozen): a Counter of the distinct choice sets of the 6**n ordered rolls."""
    choices = scorer(rules)

    @cache
    def rolls(n, frozen):
        return Counter(choices(r, frozen) for r in product(range(1, 7), repeat=n))

    return rolls


def reached(rules, rolls, below):
    """Every (n, frozen, t, forced) a turn reaches with a total below `below`."""
    N, empty, hot_forced = rules.dice, (0,) * 6, rules.hot_dice == "mandatory"
    states, todo = set(), [(N, empty, 0, True)]
    while todo:
        st = todo.pop()
        n, frozen, t, forced = st
        if st in states or t >= below:
            continue
        states.add(st)
        for ch in rolls(n, frozen):
            for p, left, after in ch:
                todo.append((left or N, after if left else empty, t + p, not left and hot_forced))
    return states


def solve_last_turn(rules, deficit, min_bank):
    """(win(n, frozen, t, forced), states): the exact chance of ending the turn above
    `deficit` points (a tie at it counts rules.tie), a zilch losing; from a total T past
    the deficit and the minimum every free state banks and wins, and the must-roll state
    wins unless its roll zilches before one that leaves dice."""
    N, empty = rules.dice, (0,) * 6
    rolls = roller(rules)
    T = max(deficit + 1, min_bank)
    w = Fraction(1, 6**N)
    leaves = sum((c * w for ch, c in rolls(N, empty).items() if any(x[1] for x in ch)), Fraction(0))
    only_hot = sum(
        (c * w for ch, c in rolls(N, empty).items() if ch and not any(x[1] for x in ch)),
        Fraction(0),
    )
    beyond = leaves / (1 - only_hot)

    def bank(t):
        return Fraction(1 if t > deficit else rules.tie if t == deficit else 0)

    win = backward(rules, rolls, T, lambda t, forced: beyond if forced else 1, bank, min_bank)
    return win, reached(rules, rolls, T)
