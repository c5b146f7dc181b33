"""A solitaire game of the Yahtzee family as a step engine: a frozen state and its
transitions, hints from the optimal strategy (yahtzee advise's values: yahtzee/solitaire.py),
every decision a line of the decision log as it is made, the review at the end.

A turn: roll five dice; keep some and roll the others, twice at most; score the hand in an
open box.  Keeping all five dice rolls nothing (the next decision comes at once); a box
chosen with rolls left stops rolling (the log records keeping all five for each roll left,
then the box: what the person did).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..answers.answer import Answer
from ..answers.inputs import Tables_
from ..errors import InputError
from .session import (
    JsonState,
    Step,
    among,
    dice_arg,
    dice_text,
    event,
    new_seed,
    opened,
    roll_dice,
    temporary_log,
    typed_roll,
)

if TYPE_CHECKING:
    from ..answers.review import Review
    from ..yahtzee.solitaire import SheetState
    from ..yahtzee.yahtzee_rules import YahtzeeRules

ACTIONS: dict[str, tuple[str, ...]] = {
    "roll": ("dice",),  # roll the dice not kept (dice: their faces, where typed)
    "keep": ("dice",),  # keep these dice ("all", "none" or faces) and roll the others
    "box": ("box",),  # score the hand in this box (with rolls left: stop rolling)
    "best": (),  # the best keep or box
    "hint": (),  # every keep or box with its value
    "quit": (),
}


@dataclass(frozen=True)
class Scored:
    """A box filled: its own points, and the bonuses the same hand paid."""

    box: str
    points: int
    upper_bonus: int = 0
    yahtzee_bonus: int = 0

    @property
    def total(self) -> int:
        return self.points + self.upper_bonus + self.yahtzee_bonus


@dataclass(frozen=True)
class YahtzeeState(JsonState):
    """phase: "roll" (roll the 5 - len(hand) dice not kept), "keep" (the five dice `hand`:
    keep some, or score a box), "box" (no roll left: score a box), "over".  rolls_left: the
    rolls left after the hand in front.  mask, upper, yf: the sheet (yahtzee.solitaire.SheetState:
    the boxes filled, the exact upper total, the Yahtzee box holding 50)."""

    what = "yahtzee game state"

    rules: str
    dice_from: str
    seed: int
    label: str
    phase: str = "roll"
    turn: int = 1
    rolls: int = 0
    hand: tuple[int, ...] = ()
    rolls_left: int = 2
    mask: int = 0
    upper: int = 0
    yf: int = 0
    scored: tuple[Scored, ...] = ()
    left: bool = False
    log: tuple[dict, ...] = ()

    @property
    def total(self) -> int:
        return sum(b.total for b in self.scored)


@dataclass(frozen=True)
class YahtzeeHint(Answer):
    """Every keep (rolls left) or open box (none left) with its value: the expected points
    from this decision to the end of the game, optimal play after it (best first)."""

    phase: str
    dice: list[int]
    rolls_left: int
    options: list[dict]


class YahtzeeMatch:
    """The engine of one Yahtzee rule set (and its solved table, solved on first use: a
    few seconds); it holds no game."""

    game = "yahtzee"

    def __init__(self, rules: str | YahtzeeRules = "yahtzee", tables: Tables_ = None) -> None:
        from ..answers.yahtzee_answers import yahtzee_rule_set, yahtzee_table
        from ..progress import SILENT

        self.rules = yahtzee_rule_set(rules)
        self.E = yahtzee_table(self.rules, tables, SILENT)
        self.tables = tables

    def start(
        self, seed: int | None = None, dice_from: str = "seed", label: str | None = None
    ) -> Step:
        from ..yahtzee import solitaire as Y

        if dice_from not in ("seed", "input"):
            raise InputError(f"dice_from is 'seed' or 'input', got {dice_from!r}")
        seed = new_seed(seed)
        rs = self.rules
        s = YahtzeeState(rs.name, dice_from, seed, str(seed) if label is None else str(label))
        mean = Y.value(rs, self.E, self._sheet(s))
        return Step(
            s,
            (
                event(
                    "start",
                    f"{rs.name}: {rs.n_boxes} turns; optimal play averages {mean:.2f}",
                    seed=seed,
                    mean=mean,
                ),
                event("turn", self._turn_text(s), turn=1),
            ),
            (),
            self.view(s),
        )

    # --- what can be done, what to show -------------------------------------------------
    def allowed(self, s: YahtzeeState) -> list[str]:
        return {
            "roll": ["roll", "quit"],
            "keep": ["keep", "box", "best", "hint", "quit"],
            "box": ["box", "best", "hint", "quit"],
            "over": [],
        }[s.phase]

    def view(self, s: YahtzeeState) -> dict[str, Any]:
        rs = self.rules
        filled = {b.box: b for b in s.scored}
        return {
            "game": "yahtzee",
            "rules": s.rules,
            "phase": s.phase,
            "turn": s.turn,
            "turns": rs.n_boxes,
            "dice": list(s.hand),
            "to_roll": 5 - len(s.hand) if s.phase == "roll" else 0,
            "rolls_left": s.rolls_left,
            "sheet": [
                {"box": b, **({"points": filled[b].points} if b in filled else {"points": None})}
                for b in rs.boxes
            ],
            "upper": s.upper,
            "upper_bonus": sum(b.upper_bonus for b in s.scored),
            "yahtzee_bonus": sum(b.yahtzee_bonus for b in s.scored),
            "score": s.total,
            "allowed": self.allowed(s),
            "over": s.phase == "over",
            "left": s.left,
            "dice_from": s.dice_from,
            "seed": s.seed,
        }

    # --- the transitions ---------------------------------------------------------------
    def apply(self, s: YahtzeeState, action: str | Mapping[str, Any]) -> Step:
        name, args = opened(self, s, action, ACTIONS)
        events: list[dict[str, Any]] = []
        log: list[dict[str, Any]] = []
        if name == "hint":
            h = self.hint(s)
            events.append(event("hint", "hint (expected final score)", **h.to_dict()))
        elif name == "quit":
            events.append(
                event("left", f"game left in turn {s.turn}, score {s.total}", turn=s.turn)
            )
            s = replace(s, phase="over", left=True)
        elif name == "roll":
            s = self._roll(s, args.get("dice"), events)
        elif name == "keep":
            s = self._keep(s, self._kept(s, args.get("dice")), events, log)
        elif name == "box":
            s = self._box(s, self._box_of(args.get("box")), events, log)
        else:
            best = self.options(s)[0]
            if "box" in best:
                events.append(event("best", f"best: {best['box']}", box=best["box"]))
                s = self._box(s, self.rules.boxes.index(best["box"]), events, log)
            else:
                s = self._keep(s, tuple(best["keep"]), events, log, best=True)
        if name in ("keep", "best") and s.phase == "roll" and s.dice_from == "seed":
            s = self._roll(s, None, events)  # (the dice not kept: rolled at once)
        if log:
            s = replace(s, log=s.log + tuple(log))
        return Step(s, tuple(events), tuple(log), self.view(s))

    def _refusal(self, s: YahtzeeState, name: str) -> str:
        if s.phase == "over":
            return "the game is over"
        if s.phase == "roll":
            return f"roll first: {5 - len(s.hand)} dice to roll"
        if name == "keep":
            return "no roll is left: score the hand in a box"
        return "the dice are rolled: keep some, or score a box"

    def _check(self, s: YahtzeeState) -> None:
        if not isinstance(s, YahtzeeState):
            raise InputError(f"not a yahtzee game state: {type(s).__name__}")
        if s.rules != self.rules.name:
            raise InputError(f"this game is played under {s.rules}, not {self.rules.name}")
        bad = s.phase not in ("roll", "keep", "box", "over") or not 0 <= s.rolls_left <= 2
        bad |= any(not 1 <= f <= 6 for f in s.hand)
        bad |= s.phase in ("keep", "box") and len(s.hand) != 5
        bad |= s.phase == "roll" and len(s.hand) >= 5
        bad |= (s.phase == "box" and s.rolls_left != 0) or (s.phase == "keep" and not s.rolls_left)
        if bad or not 1 <= s.turn <= self.rules.n_boxes:
            raise InputError("the game state is not one this engine makes (phase, dice, turn)")

    def _sheet(self, s: YahtzeeState) -> SheetState:
        from ..yahtzee.solitaire import SheetState

        return SheetState(s.mask, s.upper, s.yf)

    def _roll(self, s: YahtzeeState, given: Any, events: list[dict[str, Any]]) -> YahtzeeState:
        n = 5 - len(s.hand)
        faces = typed_roll(s.dice_from, given, n)
        if faces is None:
            faces = roll_dice(s.seed, s.rolls, n)
            s = replace(s, rolls=s.rolls + 1)
        hand = tuple(sorted(s.hand + faces))
        left = "1 roll" if s.rolls_left == 1 else f"{s.rolls_left} rolls"
        text = f"dice {dice_text(hand)}, {left} left"
        events.append(
            event("roll", text, faces=list(faces), dice=list(hand), rolls_left=s.rolls_left)
        )
        return replace(s, hand=hand, phase="keep" if s.rolls_left else "box")

    def _kept(self, s: YahtzeeState, given: Any) -> tuple[int, ...]:
        if isinstance(given, str) and given.strip().lower() in ("all", "none"):
            return s.hand if given.strip().lower() == "all" else ()
        if given is None:
            raise InputError('keep which dice? faces such as "3 3", or "all", or "none"')
        keep = tuple(sorted(dice_arg(given, "the dice kept", empty=True)))
        if not among(keep, s.hand):
            raise InputError(f"keep {dice_text(keep)}: not among the dice {dice_text(s.hand)}")
        return keep

    def _line(self, s: YahtzeeState, **decision: Any) -> dict[str, Any]:
        rec: dict[str, Any] = {"rules": s.rules, "dice": list(s.hand), "rolls_left": s.rolls_left}
        rec.update(
            filled=[b for i, b in enumerate(self.rules.boxes) if s.mask >> i & 1],
            upper=s.upper,
            yahtzee_bonus=bool(s.yf),
            n=s.turn,
            game=s.label,
        )
        rec.update(decision)
        return rec

    def _keep(
        self,
        s: YahtzeeState,
        keep: tuple[int, ...],
        events: list[dict[str, Any]],
        log: list[dict[str, Any]],
        best: bool = False,
    ) -> YahtzeeState:
        """The dice kept (best: the best keep, said so); keeping all five rolls nothing:
        the next decision comes at once."""
        log.append(self._line(s, keep=list(keep)))
        rolls_left = s.rolls_left - 1
        what = "all five" if len(keep) == 5 else dice_text(keep) if keep else "nothing"
        text = f"best: keep {what}" if best else f"kept {what}"
        events.append(event("keep", text, keep=list(keep), best=best))
        if len(keep) == 5:
            return replace(s, rolls_left=rolls_left, phase="keep" if rolls_left else "box")
        return replace(s, hand=keep, rolls_left=rolls_left, phase="roll")

    def _box_of(self, given: Any) -> int:
        from ..yahtzee import solitaire as Y

        if not isinstance(given, str) or not given.strip():
            raise InputError(f"which box? one of {', '.join(self.rules.boxes)}")
        return Y.box_name(self.rules, given)

    def _box(
        self, s: YahtzeeState, box: int, events: list[dict[str, Any]], log: list[dict[str, Any]]
    ) -> YahtzeeState:
        from ..yahtzee import solitaire as Y

        rs = self.rules
        gain, after = Y.score_box(rs, self._sheet(s), s.hand, box)  # (InputError: not here)
        lines = [
            self._line(replace(s, rolls_left=r), keep=list(s.hand))
            for r in range(s.rolls_left, 0, -1)
        ]
        log.extend(lines + [self._line(replace(s, rolls_left=0), box=rs.boxes[box])])
        got = self.scored_parts(s, box, gain, after)
        score = s.total + got.total
        bonus = "".join(
            f" + {x} {what}"
            for x, what in ((got.upper_bonus, "upper bonus"), (got.yahtzee_bonus, "Yahtzee bonus"))
            if x
        )
        events.append(
            event(
                "box",
                f"{rs.boxes[box]}: {got.points} points{bonus}, score {score}",
                box=rs.boxes[box],
                points=got.points,
                upper_bonus=got.upper_bonus,
                yahtzee_bonus=got.yahtzee_bonus,
                score=score,
            )
        )
        s = replace(
            s,
            mask=after.mask,
            upper=after.upper,
            yf=after.yf,
            scored=s.scored + (got,),
            hand=(),
            rolls_left=2,
        )
        if s.turn == rs.n_boxes:
            events.append(event("over", f"final score {score}", score=score))
            return replace(s, phase="over")
        s = replace(s, turn=s.turn + 1, phase="roll")
        events.append(event("turn", self._turn_text(s), turn=s.turn))
        return s

    def scored_parts(self, s: YahtzeeState, box: int, gain: int, after: SheetState) -> Scored:
        """The points of scoring the hand in the box (score_box's, bonuses included) as the
        box's own points and the bonuses the hand pays: the upper bonus where this box takes
        the upper total to the threshold, the Yahtzee bonus of an extra Yahtzee."""
        from ..yahtzee import solitaire as Y
        from ..yahtzee.box_scores import tables as score_tables

        rs = self.rules
        st = score_tables(rs)
        upper = (
            rs.upper_bonus if st.upper_face[box] and s.upper < rs.threshold <= after.upper else 0
        )
        extra = (
            st.yahtzee_box >= 0
            and s.mask >> st.yahtzee_box & 1
            and st.five[Y.hand_index(s.hand)] >= 0
        )
        yahtzee = rs.yahtzee_bonus * s.yf if extra else 0
        return Scored(rs.boxes[box], gain - upper - yahtzee, upper, yahtzee)

    def _turn_text(self, s: YahtzeeState) -> str:
        return f"turn {s.turn}: score {s.total}, upper {s.upper}"

    # --- values ------------------------------------------------------------------------
    def options(self, s: YahtzeeState) -> list[dict[str, Any]]:
        """Every keep (rolls left) or open box with its value (yahtzee.solitaire.advise)."""
        from ..yahtzee import solitaire as Y

        return Y.advise(self.rules, self.E, self._sheet(s), s.hand, s.rolls_left)

    def hint(self, s: YahtzeeState) -> YahtzeeHint:
        self._check(s)
        if s.phase not in ("keep", "box"):
            raise InputError("roll first: there is nothing to hint")
        return YahtzeeHint(s.phase, list(s.hand), s.rolls_left, self.options(s))

    def review(self, s: YahtzeeState, log_name: str | None = None) -> Review | None:
        """The game's decisions reviewed (review.yahtzee_review); None before any."""
        from ..answers.review import yahtzee_review

        if not s.log:
            return None
        with temporary_log(s.log) as path:
            got = yahtzee_review(path, self.rules, self.tables)  # (an upload's too)
        return replace(got, log=log_name or f"game {s.label}")
