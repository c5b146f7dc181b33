"""A naive Yahtzee-family solver in exact rational arithmetic, for reduced games.

Independent of solver/yahtzee/widget.py: it enumerates multisets of the dice added with their
multinomial probabilities, tries every keep, writes out the bonus and joker rules of RULES.md
again in words, and recurses over states (filled boxes, upper total, Yahtzee box holds 50).
Only the ordinary box scores (scoring.score) are shared.  Any number of dice, forced or free
order of the boxes.
"""

from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement
from math import factorial, prod

from dicesolver.yahtzee.box_scores import score


def multisets(j):
    for c in combinations_with_replacement(range(1, 7), j):
        counts = [c.count(f) for f in range(1, 7)]
        yield c, Fraction(factorial(j) // prod(factorial(x) for x in counts), 6**j)


def solve_options(rules):
    """options(hand, filled, up, y50): (box, (gain, next state)) of every legal box."""
    boxes = rules.boxes
    n = rules.dice
    face_box = {b.face: b.name for b in rules.specs if b.kind == "upper"}
    upper = set(face_box.values())
    alike = [b.name for b in rules.specs if b.kind == "yahtzee"]
    # a joker in a house or a straight scores its fixed points (25/30/40 in Yahtzee)
    joker_value = {
        b.name: b.points
        for b in rules.specs
        if b.kind in ("house", "straight") and isinstance(b.points, int)
    }

    def options(hand, filled, up, y50):
        """(points incl. bonuses, next state) of every legal box for a final hand."""
        counts = tuple(hand.count(f) for f in range(1, 7))
        five = max(counts) == n
        face = counts.index(n) + 1 if five else None
        special = rules.joker is not None or rules.yahtzee_bonus
        y_filled = special and alike[0] in filled
        extra = five and y_filled
        open_boxes = [b for b in boxes if b not in filled]
        if rules.order == "forced":
            open_boxes = open_boxes[:1]  # the boxes in their order
        case = "normal"
        if extra and rules.joker == "forced":
            own = face_box.get(face)
            if own in open_boxes:  # 1. its own upper box, as usual
                allowed, case = [own], "own upper"
            elif any(b not in upper for b in open_boxes):
                allowed = [b for b in open_boxes if b not in upper]
                case = "lower joker"  # 2. a lower box, straights etc. count
            else:
                allowed, case = open_boxes, "upper zero"  # 3. another upper box, for 0
        else:
            allowed = open_boxes
        out = []
        for b in allowed:
            pts = score(rules, b, counts)
            if case == "upper zero":
                pts = 0
            elif case == "lower joker" and b in joker_value:
                pts = joker_value[b]
            own_filled = face_box.get(face) in filled if face_box.get(face) else False
            if extra and rules.joker == "free" and b in joker_value and own_filled:
                pts = joker_value[b]
            gain = pts + (rules.yahtzee_bonus if extra and y50 else 0)
            nup = up
            if b in upper:
                nup = min(rules.threshold, up + pts)
                if up < rules.threshold <= up + pts:
                    gain += rules.upper_bonus
            ny = (pts > 0) if special and b == alike[0] else y50
            out.append((b, (gain, (filled | {b}, nup, ny))))
        return out

    return options


def solve(rules):
    n = rules.dice
    legal = solve_options(rules)

    def options(hand, filled, up, y50):
        return [o for _, o in legal(hand, filled, up, y50)]

    @cache
    def E(filled, up, y50):
        if len(filled) == len(rules.boxes):
            return Fraction(0)
        final = {
            h: max(g + E(frozenset(s[0]), s[1], s[2]) for g, s in options(h, filled, up, y50))
            for h, _ in multisets(n)
        }
        vals = final
        for _ in range(2):  # two more rolls before the last one
            keep_val = {}
            for j in range(n + 1):
                for k, _ in multisets(j):
                    keep_val[k] = sum(p * vals[tuple(sorted(k + m))] for m, p in multisets(n - j))
            vals = {}
            for h, _ in multisets(n):
                subs = set()
                for mask in range(1 << n):
                    subs.add(tuple(sorted(h[i] for i in range(n) if mask >> i & 1)))
                vals[h] = max(keep_val[s] for s in subs)
        return sum(p * vals[h] for h, p in multisets(n))

    return E


def remaining_distribution(rules, choose):
    """The distribution of the points still to come from each state, by a plain recursion
    over every roll of every turn (float probabilities), along a given policy:
    choose(filled, up, y50) -> (keep2, keep1, box), functions of a sorted hand (keeps as
    sorted tuples of faces, the box by name).  The rules (points, bonuses, joker, next
    state) are this module's own, `options` above."""
    n = rules.dice
    rolls = {j: [(m, float(p)) for m, p in multisets(j)] for j in range(n + 1)}
    legal = solve_options(rules)

    @cache
    def R(filled, up, y50):
        if len(filled) == len(rules.boxes):
            return {0: 1.0}
        keep2, keep1, box = choose(filled, up, y50)
        hands = {h: p for h, p in rolls[n]}
        for keep in (keep2, keep1):
            nxt = {}
            for h, p in hands.items():
                k = keep(h)
                for m, q in rolls[n - len(k)]:
                    h2 = tuple(sorted(k + m))
                    nxt[h2] = nxt.get(h2, 0.0) + p * q
            hands = nxt
        out = {}
        for h, p in hands.items():
            b = box(h)
            gain, (f2, up2, y2) = next(o for name, o in legal(h, filled, up, y50) if name == b)
            for x, q in R(frozenset(f2), up2, y2).items():
                out[x + gain] = out.get(x + gain, 0.0) + p * q
        return out

    return R
