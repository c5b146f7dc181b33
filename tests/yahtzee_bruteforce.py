"""A naive Yahtzee-family solver in exact rational arithmetic, for reduced games.

Independent of solver/yahtzee/widget.py: it enumerates multisets of the dice added with their
multinomial probabilities, tries every keep, writes out the bonus and joker rules of RULES.md
again in words, and recurses over states (filled boxes, upper total, Yahtzee box holds 50).
Only the ordinary box scores (scoring.score) are shared.
"""

from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement
from math import factorial, prod

from dicesolver.yahtzee.rules import UPPER
from dicesolver.yahtzee.scoring import JOKER_VALUES, score


def multisets(j):
    for c in combinations_with_replacement(range(1, 7), j):
        counts = [c.count(f) for f in range(1, 7)]
        yield c, Fraction(factorial(j) // prod(factorial(x) for x in counts), 6**j)


def solve(rules):
    boxes = rules.boxes

    def options(hand, filled, up, y50):
        """(points incl. bonuses, next state) of every legal box for a final hand."""
        counts = tuple(hand.count(f) for f in range(1, 7))
        five = max(counts) == 5
        face = counts.index(5) + 1 if five else None
        y_filled = "yahtzee" in boxes and "yahtzee" in filled and rules.joker is not None
        extra = five and y_filled
        open_boxes = [b for b in boxes if b not in filled]
        case = "normal"
        if extra and rules.joker == "forced":
            own = UPPER[face - 1]
            if own in open_boxes:  # 1. its own upper box, as usual
                allowed, case = [own], "own upper"
            elif any(b not in UPPER for b in open_boxes):
                allowed = [b for b in open_boxes if b not in UPPER]
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
            elif case == "lower joker" and b in JOKER_VALUES:
                pts = JOKER_VALUES[b]
            if extra and rules.joker == "free" and b in JOKER_VALUES and UPPER[face - 1] in filled:
                pts = JOKER_VALUES[b]
            gain = pts + (rules.yahtzee_bonus if extra and y50 else 0)
            nup = up
            if b in UPPER:
                nup = min(rules.threshold, up + pts)
                if up < rules.threshold <= up + pts:
                    gain += rules.upper_bonus
            ny = (pts == 50) if b == "yahtzee" else y50
            out.append((gain, (filled | {b}, nup, ny)))
        return out

    @cache
    def E(filled, up, y50):
        if len(filled) == len(boxes):
            return Fraction(0)
        final = {
            h: max(g + E(frozenset(s[0]), s[1], s[2]) for g, s in options(h, filled, up, y50))
            for h, _ in multisets(5)
        }
        vals = final
        for _ in range(2):  # two more rolls before the last one
            keep_val = {}
            for j in range(6):
                for k, _ in multisets(j):
                    keep_val[k] = sum(p * vals[tuple(sorted(k + m))] for m, p in multisets(5 - j))
            vals = {}
            for h, _ in multisets(5):
                subs = set()
                for mask in range(32):
                    subs.add(tuple(sorted(h[i] for i in range(5) if mask >> i & 1)))
                vals[h] = max(keep_val[s] for s in subs)
        return sum(p * vals[h] for h, p in multisets(5))

    return E
