"""The Zilch-family game as a step engine: a frozen state and its transitions.

Seats are people or optimal computers (2 to 6 in all).  A turn goes: roll; set dice aside
(validated by the rules); roll again or bank; until a bank or a zilch ends it.  The engine
applies the forced cases itself and says why: a roll with one legal set-aside (the rules
force every scoring die aside, or only one die scores), a bank the rules forbid after the
set-aside (hot dice that must be rolled, the entry or bank minimum), so a person is asked
only what is theirs to decide.  The final round starts when a bank reaches the target (or
the game ends there, under `end = "instant"`).

A computer takes the best set-aside and move (decisions.options: the values `advise`
gives) by the probability of winning where the game table for this many players is stored,
and always in the final round; among three players or more without it by an approximate
probability of winning (answers/approx_chance.py: the two-player table stored); else by
expected points.  A person's hint shows the same values.  Every decision becomes a line
of the decision log (play/log.py) as it is made, in the state, and each person's decisions
are reviewed at the end (review.py).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..answers import decisions as D
from ..answers.answer import Answer, optional
from ..answers.inputs import Rules, Tables_, rule_set, tables_of
from ..errors import InputError, TableMissing
from ..outcomes.frozen import faces_of
from ..turn.state import StateValues, TurnState
from .session import (
    JsonState,
    Step,
    dice_arg,
    dice_text,
    event,
    names_of,
    new_seed,
    opened,
    roll_dice,
    temporary_log,
    typed_roll,
)

if TYPE_CHECKING:
    from ..answers.review import Review
    from ..outcomes.dice import Outcome
    from ..rules import RuleSet

MAX_PLAYERS = 6
MAX_TURNS = 10_000  # (people who never bank would never end a game)
ACTIONS: dict[str, tuple[str, ...]] = {
    "roll": (
        "dice",
    ),  # roll (dice: the faces, where the dice are typed); after a set-aside: roll again
    "keep": ("dice",),  # set these dice aside (again before roll or bank: another set-aside)
    "bank": (),
    "best": (),  # the computer's move for a person
    "play": (),  # a computer's whole turn (seeded dice)
    "hint": (),  # every choice's value (the state does not change)
    "quit": (),  # leave the game (the decisions so far are reviewed)
}


@dataclass(frozen=True)
class Seat:
    name: str
    computer: bool
    score: int = 0


@dataclass(frozen=True)
class ZilchState(JsonState):
    """Where a game stands.  phase: "roll" (the seat rolls `at.dice` dice), "keep" (the dice
    `roll` were rolled: set some aside), "move" (the set-aside `keep` is taken, which leads to
    `after`: roll again or bank), "over".  at: the turn before the roll (dice, turn total,
    permanent part).  turn: the number of the turn being played, over all seats (from 1).
    rolls: the seeded rolls so far (dice_from "seed"; "input": every roll typed).
    final_from: the seat whose bank reached the target (the final round is on)."""

    what = "zilch game state"

    rules: str
    digest: str
    seats: tuple[Seat, ...]
    dice_from: str
    seed: int
    label: str
    at: TurnState
    phase: str = "roll"
    seat: int = 0
    turn: int = 1
    rolls: int = 0
    roll: tuple[int, ...] = ()
    keep: tuple[int, ...] = ()
    after: TurnState | None = None
    final_from: int | None = None
    winners: tuple[int, ...] = ()
    left: bool = False
    log: tuple[dict, ...] = ()

    def others(self, i: int | None = None) -> list[int]:
        """The other seats' scores in turn order after seat i (default: the one to play)."""
        i = self.seat if i is None else i
        n = len(self.seats)
        return [self.seats[(i + k) % n].score for k in range(1, n)]


@dataclass(frozen=True)
class ZilchHint(Answer):
    """Every choice of the seat to play with its values: in "keep" every set-aside of the
    roll (best first), in "move" the set-aside taken, in "roll" the turn as it stands; each
    row: keep, turn_total and dice_left after it, the values of rolling and of banking (None:
    not allowed), the better move and its value."""

    player: str
    phase: str
    objective: str  # "game" (probability of winning) or "points" (expected points)
    unit: str
    how: str  # why these values: the table used, or why there is none
    options: list[dict]
    # (by P(win): false where approximate, no exact table of this many players; its method)
    exact: bool | None = optional()
    method: str | None = optional()


def check_rules(rs: RuleSet) -> None:
    """InputError for rules the game does not take."""
    if rs.target is None:
        raise InputError(f"{rs.name} has no target: there is no game to play")
    for flag, what in (
        (rs.piggyback, "piggyback"),
        (rs.overtaking, "overtaking"),
        (rs.challenge, "the challenge rule"),
        (rs.three_zilch_penalty, "a penalty for three zilches in a row"),
    ):
        if flag:
            raise InputError(f"zilch play does not support {what} ({rs.name}) yet")


class _Out:
    """What a transition makes besides the state: events and log lines."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.log: list[dict[str, Any]] = []

    def say(self, kind: str, text: str, **fields: Any) -> None:
        self.events.append(event(kind, text, **fields))


def _verb(name: str, verb: str) -> str:
    """A verb agreeing with the player: "you bank", "Ann banks"."""
    if name == "you":
        return verb
    return verb + ("es" if verb.endswith(("s", "sh", "ch")) else "s")


class ZilchMatch:
    """The engine of one rule set: rules, tables and the values it has computed (a cache);
    it holds no game.  Every transition is `apply(state, action)` -> Step (the new state;
    the state given is never changed), or InputError naming what is wrong."""

    game = "zilch"

    def __init__(
        self,
        rules: Rules = "farkle",
        tables: Tables_ = None,
        rules_ref: str | None = None,
        target: int | None = None,
    ) -> None:
        from ..answers.position_options import aimed

        own = rule_set(rules)
        rs = aimed(own, target)
        check_rules(rs)
        # a game to another target than the rules': its log lines say so ("target")
        self.target = rs.target if rs.target != own.target else None
        self.rules = rs
        self.digest = rs.digest()
        self.tab = tables_of(rs, tables)
        # the rules as log lines name them (a preset, or a rule file's path: `zilch review`
        # reads them again); None: the lines name none (the review is given the rules)
        self.ref = rules if isinstance(rules, str) else rules_ref
        self._values: dict[tuple, tuple[D.Values, str]] = {}
        self._stored: dict[int, tuple[bool, str]] = {}
        self._approxes: dict[int, str | None] = {}

    # --- a new game --------------------------------------------------------------------
    def start(
        self,
        humans: list[str] | tuple[str, ...] | str = ("you",),
        computers: int = 1,
        seed: int | None = None,
        dice_from: str = "seed",
        label: str | None = None,
    ) -> Step:
        """A new game: the people (their names, in turn order), then `computers` optimal
        computers; dice_from "seed" (the engine rolls, from `seed`: a new one by default) or
        "input" (every roll's faces are given: real dice, for every seat)."""
        seats = names_of(humans, computers, MAX_PLAYERS)
        if len(seats) < 2:
            raise InputError(f"a game has 2 to {MAX_PLAYERS} players, got {len(seats)}")
        if dice_from not in ("seed", "input"):
            raise InputError(f"dice_from is 'seed' or 'input', got {dice_from!r}")
        seed = new_seed(seed)
        rs = self.rules
        s = ZilchState(
            rs.name,
            self.digest,
            tuple(Seat(n, c) for n, c in seats),
            dice_from,
            seed,
            str(seed) if label is None else str(label),
            TurnState(rs.dice),
        )
        out = _Out()
        out.say("start", self.intro(s), seed=seed)
        out.say("turn", self._turn_text(s), seat=0, player=s.seats[0].name, turn=1)
        return self._step(s, out)

    def intro(self, s: ZilchState) -> str:
        rs = self.rules
        assert rs.target is not None
        first = f"first past {rs.target}" if rs.reach == "more_than" else f"first to {rs.target}"
        text = f"{rs.name}, {len(s.seats)} players, {first}"
        if any(seat.computer for seat in s.seats):
            n = len(s.seats)
            stored, why = self._stored_table(n)
            if stored:
                how = "by the probability of winning (the game table is stored)"
            elif self._approx(n) is None:
                how = f"by an approximate probability of winning ({why})"
            else:
                how = (
                    f"by expected points ({why}), and in the final round by the probability "
                    "of winning"
                )
            text += f": the computer plays {how}"
        return text + "."

    # --- what can be done ---------------------------------------------------------------
    def allowed(self, s: ZilchState) -> list[str]:
        if s.phase == "over":
            return []
        if s.seats[s.seat].computer:
            return (["play", "roll"] if s.dice_from == "seed" else ["roll"]) + ["quit"]
        return {
            "roll": ["roll", "hint", "quit"],
            "keep": ["keep", "best", "hint", "quit"],
            "move": ["roll", "bank", "keep", "best", "hint", "quit"],
        }[s.phase]

    def view(self, s: ZilchState) -> dict[str, Any]:
        """What a page shows: whose turn, the dice, the turn total, the scores, the allowed
        actions, why a move is forced."""
        rs = self.rules
        seat = s.seats[s.seat]
        total = s.after.turn if s.after is not None else s.at.turn
        frozen = {"frozen": faces_of((s.after or s.at).frozen)} if rs.pyramiding else {}
        return {
            "game": "zilch",
            "rules": s.rules,
            "target": rs.target,
            "phase": s.phase,
            "seat": s.seat,
            "player": seat.name,
            "computer": seat.computer,
            "players": [
                {
                    "name": x.name,
                    "computer": x.computer,
                    "score": x.score,
                    "on_board": rs.on_board(x.score),
                }
                for x in s.seats
            ],
            "turn": s.turn,
            "dice": s.at.dice,
            "turn_total": total,
            "permanent": (s.after or s.at).permanent,
            "roll": list(s.roll),
            "choices": self.choices(s),
            "kept": list(s.keep),
            "dice_left": s.after.dice if s.after is not None else None,
            "allowed": self.allowed(s),
            "final_round": s.final_from is not None,
            "over": s.phase == "over",
            "left": s.left,
            "winners": [s.seats[i].name for i in s.winners],
            "dice_from": s.dice_from,
            "seed": s.seed,
            **frozen,  # (pyramiding: the dice frozen since the last pick-up of all dice)
        }

    def choices(self, s: ZilchState) -> list[list[int]]:
        """The set-asides the rules list for the roll (most points first; under free
        set-aside a split of the same dice worth less is allowed too): what a page can
        offer to tap."""
        if s.phase not in ("keep", "move"):
            return []
        outcome = self._outcome(s)
        return [faces_of(c.kept) for c in D.roll_choices(self.rules, outcome, s.at.frozen)]

    # --- the transitions ---------------------------------------------------------------
    def apply(self, s: ZilchState, action: str | Mapping[str, Any]) -> Step:
        """The state after the action: a name ("roll", "bank", "best", "play", "hint",
        "quit") or an object {"action": "keep", "dice": [1, 5]} ({"action": "roll", "dice":
        [...]} where the dice are typed)."""
        name, args = opened(self, s, action, ACTIONS)
        out = _Out()
        if name == "hint":
            h = self.hint(s)
            out.say("hint", f"hint ({h.unit}): {h.how}", **h.to_dict())
            return self._step(s, out)
        if name == "quit":
            out.say("left", f"game left in turn {s.turn}", turn=s.turn)
            return self._step(replace(s, phase="over", left=True), out)
        faces = self._faces(s, args.get("dice")) if name == "roll" else None
        if name == "roll":
            if s.phase == "move":
                s = self._decide(s, "roll", out)
                if faces is None and s.dice_from == "input" and s.phase == "roll":
                    return self._step(s, out)  # (the dice of the next roll come next)
            s = self._roll(s, faces, out)
        elif name == "play":
            turn = s.turn
            while s.phase == "roll" and s.turn == turn:
                s = self._roll(s, None, out)
        elif name == "keep":
            s = self._keep(s, dice_arg(args.get("dice"), "the dice kept"), out)
        elif name == "bank":
            s = self._decide(s, "bank", out)
        else:  # best
            s = self._best(s, out)
        return self._step(s, out)

    def _faces(self, s: ZilchState, given: Any) -> tuple[int, ...] | None:
        """The faces a roll gives (None: seeded dice; or, after a set-aside, the roll again
        decided before its dice are typed)."""
        if s.phase == "move" and s.after is not None:
            if given is None and s.dice_from == "input":
                return None
            return typed_roll(s.dice_from, given, s.after.dice)
        return typed_roll(s.dice_from, given, s.at.dice)

    def _refusal(self, s: ZilchState, name: str) -> str:
        """Why the action is not allowed now (one line)."""
        seat = s.seats[s.seat]
        if s.phase == "over":
            return "the game is over"
        if seat.computer:
            if name == "play":
                return f"{seat.name}'s dice are typed in this game: give its roll"
            return f"it is {seat.name}'s turn: the computer plays it"
        if name == "play":
            return f"it is {seat.name}'s turn, not a computer's"
        if s.phase == "keep":  # (roll, bank)
            return f"set dice aside first: keep which of {dice_text(s.roll)}?"
        if name == "bank" and s.at.turn:
            why = self.no_bank(s, s.at)
            return f"you must roll: {why}" if why else "roll first: you chose to roll again"
        if name == "bank":
            return "roll first: a turn starts with a roll"
        if name == "keep":
            return "roll first: there are no dice to set aside"
        return "roll first: there is nothing to decide"

    def _check(self, s: ZilchState) -> None:
        if not isinstance(s, ZilchState):
            raise InputError(f"not a zilch game state: {type(s).__name__}")
        if s.digest != self.digest:
            raise InputError(f"this game is played under other rules than {self.rules.name}")
        if not 0 <= s.seat < len(s.seats) or s.phase not in ("roll", "keep", "move", "over"):
            raise InputError("the game state is not one this engine makes (seat or phase)")
        faces = s.roll + s.keep
        if any(not 1 <= f <= 6 for f in faces) or not 1 <= s.at.dice <= self.rules.dice:
            raise InputError("the game state is not one this engine makes (the dice)")
        if s.phase in ("keep", "move") and len(s.roll) != s.at.dice:
            raise InputError("the game state is not one this engine makes (the roll)")
        if s.phase == "move" and (s.after is None or not s.keep):
            raise InputError("the game state is not one this engine makes (the set-aside)")

    def _step(self, s: ZilchState, out: _Out) -> Step:
        if out.log:
            s = replace(s, log=s.log + tuple(out.log))
        return Step(s, tuple(out.events), tuple(out.log), self.view(s))

    # --- a roll and what follows it ------------------------------------------------------
    def _roll(self, s: ZilchState, faces: tuple[int, ...] | None, out: _Out) -> ZilchState:
        from ..outcomes.scoring import parse_roll

        rs, seat = self.rules, s.seats[s.seat]
        n = s.at.dice
        if faces is None:
            faces = roll_dice(s.seed, s.rolls, n)
            s = replace(s, rolls=s.rolls + 1)
        out.say(
            "roll",
            f"{seat.name} rolled {dice_text(faces)} (turn total {s.at.turn})",
            seat=s.seat,
            player=seat.name,
            faces=list(faces),
            turn_total=s.at.turn,
        )
        s = replace(s, phase="keep", roll=tuple(faces), keep=(), after=None)
        outcome = parse_roll(rs, list(faces))
        choices = D.roll_choices(rs, outcome, s.at.frozen)
        if not choices:
            kept = rs.recorded_after_zilch(s.at.permanent, rs.on_board(seat.score))
            out.log.append(self._line(s, then="zilch"))
            more = f" ({kept} permanent points kept)" if kept else ": the turn scores nothing"
            out.say("zilch", f"zilch{more}", seat=s.seat, player=seat.name, kept=kept)
            return self._end_turn(s, kept, out)
        if seat.computer:
            best = D.options(rs, self.values(s)[0], s.at, outcome)[0]
            s = self._set_aside(s, tuple(best.keep), best.after, out)
            return self._decide(s, best.values.action, out) if s.phase == "move" else s
        if len(choices) == 1:  # (the one set-aside: taken, with the reason)
            c = choices[0]
            why = (
                f"{rs.name} sets every scoring die aside"
                if rs.set_aside == "forced"
                else "the only dice that score"
            )
            return self._set_aside(
                s, tuple(faces_of(c.kept)), D.after(rs, s.at, c), out, forced=why
            )
        return s

    def _outcome(self, s: ZilchState) -> Outcome:
        from ..outcomes.scoring import parse_roll

        return parse_roll(self.rules, list(s.roll))

    def _keep(self, s: ZilchState, keep: tuple[int, ...], out: _Out) -> ZilchState:
        rs = self.rules
        ways = D.chosen(rs, self._outcome(s), list(keep), s.at.frozen)
        if len(ways) > 1:  # (dice that split several ways: the split worth most)
            values = self._values_or_none(s)
            best = max(
                ways,
                key=lambda c: (
                    (values(D.after(rs, s.at, c)).best, c.points) if values else (c.points, 0)
                ),
            )
        else:
            best = ways[0]
        return self._set_aside(s, tuple(sorted(keep)), D.after(rs, s.at, best), out)

    def _set_aside(
        self,
        s: ZilchState,
        keep: tuple[int, ...],
        after: TurnState,
        out: _Out,
        forced: str | None = None,
    ) -> ZilchState:
        """The set-aside taken: the move asked next, or (banking not allowed) the roll."""
        seat = s.seats[s.seat]
        s = replace(s, phase="move", keep=keep, after=after)
        why = self.no_bank(s)
        dice = "all dice" if after.dice == self.rules.dice else f"{after.dice} dice"
        sets = _verb(seat.name, "set")
        text = f"{seat.name} {sets} {dice_text(keep)} aside: turn total {after.turn}"
        if forced:
            text += f" ({forced})"
        if why and seat.computer:
            text += f", and {_verb(seat.name, 'roll')} {dice} ({why})"
        out.say(
            "set_aside",
            text,
            seat=s.seat,
            player=seat.name,
            keep=list(keep),
            turn_total=after.turn,
            dice_left=after.dice,
            forced=forced,
        )
        if why is None:
            return s
        if not seat.computer:
            out.say("must_roll", f"{seat.name} must roll {dice}: {why}", why=why)
        return self._decided(s, "roll", out)

    def no_bank(self, s: ZilchState, after: TurnState | None = None) -> str | None:
        """Why the seat may not bank at `after` (default: after the set-aside taken; None:
        it may)."""
        rs = self.rules
        after = after or s.after
        assert after is not None
        if after.index(rs) == 0:
            return f"hot dice: all {rs.dice} dice scored, and {rs.name} has them rolled again"
        on_board = rs.on_board(s.seats[s.seat].score)
        need = rs.min_bank(on_board)
        if after.turn >= need:
            return None
        if not on_board and rs.entry_minimum >= rs.bank_minimum:
            return f"the entry minimum: a first bank needs {need}, the turn total is {after.turn}"
        return f"the bank minimum: a bank needs {need}, the turn total is {after.turn}"

    def _decide(self, s: ZilchState, then: str, out: _Out) -> ZilchState:
        """Roll again or bank after the set-aside taken."""
        seat = s.seats[s.seat]
        assert s.after is not None
        if then == "bank":
            out.log.append(self._line(s, then="bank"))
            score = seat.score + s.after.turn
            out.say(
                "bank",
                f"{seat.name} {_verb(seat.name, 'bank')} {s.after.turn}: score {score}",
                seat=s.seat,
                player=seat.name,
                points=s.after.turn,
                score=score,
            )
            return self._end_turn(s, s.after.turn, out)
        if seat.computer:
            dice = "all dice" if s.after.dice == self.rules.dice else f"{s.after.dice} dice"
            out.say("roll_again", f"{seat.name} rolls {dice} again", seat=s.seat, player=seat.name)
        return self._decided(s, "roll", out)

    def _decided(self, s: ZilchState, then: str, out: _Out) -> ZilchState:
        out.log.append(self._line(s, then=then))
        assert s.after is not None
        return replace(s, phase="roll", at=s.after, roll=(), keep=(), after=None)

    def _best(self, s: ZilchState, out: _Out) -> ZilchState:
        """The computer's move for the person to play (and, on seeded dice, the roll after
        a roll again)."""
        values = self.values(s)[0]
        turn = s.turn
        if s.phase == "keep":
            best = D.options(self.rules, values, s.at, self._outcome(s))[0]
            s = self._set_aside(s, tuple(best.keep), best.after, out)
            then = best.values.action
        else:
            assert s.after is not None
            then = values(s.after).action
        if s.phase == "move":
            out.say("best", f"best: {then}", then=then)
            s = self._decide(s, then, out)
        if s.phase == "roll" and s.turn == turn and s.dice_from == "seed":
            s = self._roll(s, None, out)
        return s

    # --- the end of a turn, and of the game ---------------------------------------------
    def _end_turn(self, s: ZilchState, points: int, out: _Out) -> ZilchState:
        rs = self.rules
        i, n = s.seat, len(s.seats)
        seat = replace(s.seats[i], score=s.seats[i].score + points)
        seats = s.seats[:i] + (seat,) + s.seats[i + 1 :]
        s = replace(s, seats=seats, roll=(), keep=(), after=None)
        if points and rs.reached(seat.score):
            if rs.end == "instant":
                return self._over(s, (i,), out)
            if s.final_from is None:
                s = replace(s, final_from=i)
                out.say(
                    "final_round",
                    f"{seat.name} reached {seat.score}: the final round begins (one more "
                    "turn for everyone else)",
                    seat=i,
                    player=seat.name,
                    score=seat.score,
                )
        nxt = (i + 1) % n
        if s.final_from == nxt:
            top = max(x.score for x in seats)
            return self._over(s, tuple(k for k, x in enumerate(seats) if x.score == top), out)
        if s.turn >= MAX_TURNS:
            out.say("stopped", f"the game is stopped after {MAX_TURNS} turns: the leader wins")
            top = max(x.score for x in seats)
            return self._over(s, tuple(k for k, x in enumerate(seats) if x.score == top), out)
        s = replace(s, seat=nxt, turn=s.turn + 1, phase="roll", at=TurnState(rs.dice))
        out.say("turn", self._turn_text(s), seat=nxt, player=s.seats[nxt].name, turn=s.turn)
        return s

    def _over(self, s: ZilchState, winners: tuple[int, ...], out: _Out) -> ZilchState:
        s = replace(s, phase="over", winners=winners)
        board = ", ".join(f"{x.name} {x.score}" for x in s.seats)
        names = " and ".join(s.seats[k].name for k in winners)
        lone = s.seats[winners[0]].name
        verb = "tie" if len(winners) > 1 else _verb(lone, "win")
        out.say("over", f"{names} {verb} ({board})", winners=[s.seats[k].name for k in winners])
        return s

    def _turn_text(self, s: ZilchState) -> str:
        board = " · ".join(f"{x.name} {x.score}" for x in s.seats)
        return f"turn {s.turn}: {s.seats[s.seat].name} to play ({board})"

    def _line(self, s: ZilchState, then: str) -> dict[str, Any]:
        """The decision's log line (play/log.py)."""
        seat = s.seats[s.seat]
        rec: dict[str, Any] = {} if self.ref is None else {"rules": self.ref}
        if self.target is not None:
            rec["target"] = self.target
        rec.update(dice=s.at.dice, turn=s.at.turn)
        if s.at.permanent:
            rec["permanent"] = s.at.permanent
        if any(s.at.frozen):  # (pyramiding: the dice frozen since the last pick-up)
            rec["frozen"] = faces_of(s.at.frozen)
        rec["roll"] = list(s.roll)
        if then != "zilch":
            rec["keep"] = list(s.keep)
        rec.update(then=then, score=seat.score, opponents=s.others())
        rec.update(player=seat.name, game=s.label, n=s.turn)
        return rec

    # --- values: the computer's and the hints' ------------------------------------------
    def values(self, s: ZilchState) -> tuple[D.Values, str]:
        """How the seat to play values its moves, and why so: P(win) where the game table
        for this many players is stored or the final round is on, else expected points."""
        rs, seat = self.rules, s.seats[s.seat]
        opp = s.others()
        key = (seat.score, tuple(opp))
        if key in self._values:
            return self._values[key]
        final = any(rs.reached(o) for o in opp)
        n = len(s.seats)
        stored, why = self._stored_table(n)
        approx = not stored and not final and self._approx(n) is None
        got = None
        if stored or final or approx:
            v = D.game_values(self.tab, seat.score, opp)
            try:
                v(TurnState(rs.dice))
                how = (
                    "the final round: by the probability of winning"
                    if final
                    else f"by an approximate probability of winning ({v.method()}; {why})"
                    if approx
                    else f"by the probability of winning (the game table for {n} players is stored)"
                )
                got = (v, how)
            except (InputError, TableMissing) as e:
                why = str(e)
        if got is None:
            got = (
                D.points_values(self.tab, rs.on_board(seat.score)),
                f"by expected points ({why})",
            )
        if len(self._values) > 4096:
            self._values.clear()
        self._values[key] = got
        return got

    def _values_or_none(self, s: ZilchState) -> D.Values | None:
        try:
            return self.values(s)[0]
        except (InputError, TableMissing):
            return None

    def _stored_table(self, n: int) -> tuple[bool, str]:
        """(stored, why not) for the game table of n players."""
        if n in self._stored:
            return self._stored[n]
        from .. import variants

        rs = self.rules
        try:
            table = self.tab.game_table(variants.of(rs, n).key(n))
            ref = shlex.quote(self.ref or rs.name)
            build = f"zilch game --rules {ref}" + (f" --players {n}" if n > 2 else "")
            got = (table is not None, f"no game table for {n} players is stored: {build} builds it")
        except InputError as e:
            got = (False, str(e))
        self._stored[n] = got
        return got

    def _approx(self, n: int) -> str | None:
        """Why there is no approximate P(win) among n players (None: there is one: three
        players or more, the two-player table stored; answers/approx_chance.py)."""
        if n in self._approxes:
            return self._approxes[n]
        from ..answers.approx_chance import check_approx, pair_table

        why = None
        try:
            check_approx(self.tab, n)
            pair_table(self.tab, n)
        except (InputError, TableMissing) as e:
            why = str(e)
        self._approxes[n] = why
        return why

    def hint(self, s: ZilchState) -> ZilchHint:
        """Every choice of the seat to play, valued as the computer values them."""
        self._check(s)
        if s.phase == "over":
            raise InputError("the game is over: there is nothing to hint")
        values, how = self.values(s)
        rows = []
        if s.phase == "keep":
            for o in D.options(self.rules, values, s.at, self._outcome(s)):
                rows.append(_row(o.keep, o.after, o.values))
        elif s.phase == "move":
            assert s.after is not None
            rows.append(_row(list(s.keep), s.after, values(s.after)))
        else:
            rows.append(_row(None, s.at, values(s.at)))
        objective = values.objective
        unit = "probability of winning" if objective == "game" else "expected points"
        method = values.method()
        if method is not None:
            unit = "approximate " + unit
        exact = None if objective != "game" else method is None
        return ZilchHint(s.seats[s.seat].name, s.phase, objective, unit, how, rows, exact, method)

    # --- the end: reviews and the log -------------------------------------------------
    def reviews(self, s: ZilchState, log_name: str | None = None) -> dict[str, list[Review]]:
        """Each person's decisions reviewed (review.review: by the computer's objective; without
        the game table the final round's decisions apart, by the probability of winning);
        a person without a decision has none."""
        from ..answers.review import review

        self._check(s)
        rs = self.rules
        n = len(s.seats)
        stored = self._stored_table(n)[0] or (n > 2 and self._approx(n) is None)

        # (a line of the final round: an opponent reached the target)
        def final(ln: dict[str, Any]) -> bool:
            return any(rs.reached(o) for o in ln.get("opponents", []))

        parts = (
            [("game", None)] if stored else [("points", lambda ln: not final(ln)), ("game", final)]
        )
        out: dict[str, list[Review]] = {}
        for seat in s.seats:
            if seat.computer:
                continue
            mine = [x for x in s.log if x["player"] == seat.name and x["then"] != "zilch"]
            todo = [(o, w) for o, w in parts if any(w is None or w(x) for x in mine)]
            if todo:
                with temporary_log(s.log) as path:
                    got = [review(path, rs, o, seat.name, self.tab.store, where=w) for o, w in todo]
                name = log_name or f"game {s.label}"
                out[seat.name] = [replace(r, log=name) for r in got]
        return out


def _row(keep: list[int] | None, after: TurnState, v: StateValues) -> dict[str, Any]:
    return {
        "keep": keep,
        "turn_total": after.turn,
        "dice_left": after.dice,
        "roll": v.roll,
        "bank": v.bank,
        "then": v.action,
        "value": v.best,
    }
