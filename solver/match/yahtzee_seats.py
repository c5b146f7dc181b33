"""A Yahtzee-family game of two to four seats as a step engine: people and computers in
turn order, each seat's own sheet a solitaire game (yahtzee_match.py plays its turns), one
stream of seeded dice for the table, hints by the chance of winning with the expected final
score beside, and every decision a line of the decision log with the seat's score and the
other seats' sheets (so `yahtzee review` values it by P(win)).

The computers play Pawlewicz's heuristic (docs/method.md, "Against other players"): at
every decision the option with the largest P(win) against the other seats' final scores
under expected-score play from their sheets as they stand (answers/yahtzee_win.py, the
values of `yahtzee advise --opponents`).  With hints "expected" the beat table is never
built: the hints and the computers go by the expected final score (solitaire's optimum).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..answers.answer import Answer
from ..answers.inputs import Tables_
from ..errors import InputError
from ..progress import SILENT, Progress
from .session import JsonState, Step, event, names_of, new_seed, opened, temporary_log
from .yahtzee_match import ACTIONS as SOLO_ACTIONS
from .yahtzee_match import YahtzeeMatch, YahtzeeState

if TYPE_CHECKING:
    from ..answers.review import Review
    from ..answers.yahtzee_win import Ranked
    from ..yahtzee.solitaire import SheetState
    from ..yahtzee.yahtzee_rules import YahtzeeRules

SEATS = (2, 4)
HINTS = ("win", "expected")
ACTIONS = dict(SOLO_ACTIONS, play=())  # play: a computer's moves, to its turn's end


@dataclass(frozen=True)
class Seat:
    """A seat: its name, person or computer, and its sheet (its own solitaire game; that
    game's `log` stays empty: the table's log holds every seat's lines)."""

    name: str
    computer: bool
    game: YahtzeeState


@dataclass(frozen=True)
class TableState(JsonState):
    """Where a game of several seats stands: the seats in turn order, the seat to play,
    the seeded rolls made so far (one stream for the table), hints ("win": by P(win);
    "expected"), the winners once over (ties share), the whole decision log."""

    what = "yahtzee table state"

    rules: str
    seats: tuple[Seat, ...]
    dice_from: str
    seed: int
    label: str
    hints: str = "win"
    seat: int = 0
    rolls: int = 0
    over: bool = False
    left: bool = False
    winners: tuple[int, ...] = ()
    log: tuple[dict, ...] = ()

    @property
    def game(self) -> YahtzeeState:
        return self.seats[self.seat].game

    @property
    def phase(self) -> str:
        return "over" if self.over else self.game.phase


@dataclass(frozen=True)
class TableHint(Answer):
    """Every keep (rolls left) or open box of the seat to play: by P(win) against the other
    seats' sheets (p_win, loss) with the expected final score beside (hints "win"), or by
    the expected final score alone; exact and method say what the P(win) is."""

    player: str
    phase: str
    dice: list[int]
    rolls_left: int
    objective: str  # "win" or "expected"
    exact: bool | None
    method: str | None
    options: list[dict]


class YahtzeeSeats:
    """The engine of one Yahtzee rule set for two to four seats; it holds no game.  Every
    transition is apply(state, action) -> Step, or InputError naming what is wrong."""

    game = "yahtzee"

    def __init__(
        self,
        rules: str | YahtzeeRules = "yahtzee",
        tables: Tables_ = None,
        hints: str = "win",
        progress: Progress = SILENT,
        whole_games: bool = False,
    ) -> None:
        """hints "win" builds the beat table where it is missing (minutes for `yahtzee`,
        reported to progress with its estimate); whole_games (the terminal's games) also
        the opponents' points to come from every sheet (WinValues.build: 30 s once, then no
        decision waits for a forward pass; without it, a stored one is read, if any)."""
        from ..answers.yahtzee_win import WinValues

        if hints not in HINTS:
            raise InputError(f"hints are 'win' or 'expected', got {hints!r}")
        self.solo = YahtzeeMatch(rules, tables)
        self.rules = self.solo.rules
        self.hints = hints
        self.ref = rules if isinstance(rules, str) else self.rules.name  # (as log lines name it)
        self.win = WinValues(self.rules, tables) if hints == "win" else None
        if self.win is not None:
            self.win.build(progress, whole_games)

    # --- a new game --------------------------------------------------------------------
    def start(
        self,
        humans: list[str] | tuple[str, ...] | str = ("you",),
        computers: int = 1,
        seed: int | None = None,
        dice_from: str = "seed",
        label: str | None = None,
    ) -> Step:
        """A new game: the people (names, in turn order), then `computers` computers; two to
        four seats in all."""
        seats = names_of(humans, computers, 4)
        if not SEATS[0] <= len(seats) <= SEATS[1]:
            raise InputError(f"a game has 2 to 4 seats, got {len(seats)}")
        if dice_from not in ("seed", "input"):
            raise InputError(f"dice_from is 'seed' or 'input', got {dice_from!r}")
        seed = new_seed(seed)
        label = str(seed) if label is None else str(label)
        rs = self.rules
        sheet = YahtzeeState(rs.name, dice_from, seed, label)
        s = TableState(
            rs.name,
            tuple(Seat(n, c, sheet) for n, c in seats),
            dice_from,
            seed,
            label,
            self.hints,
        )
        names = ", ".join(f"{n} (computer)" if c else n for n, c in seats)
        by = "P(win), the expected final score beside" if self.hints == "win" else "expected score"
        text = f"{rs.name}: {names}; {rs.n_boxes} rounds; hints by {by}"
        first = (event("start", text, seed=seed, hints=self.hints), self._turn_event(s))
        return Step(s, first, (), self.view(s))

    # --- what can be done, what to show -------------------------------------------------
    def allowed(self, s: TableState) -> list[str]:
        if s.over:
            return []
        seat = s.seats[s.seat]
        if seat.computer:
            typed = s.dice_from == "input" and s.game.phase == "roll"
            return ["roll", "quit"] if typed else ["play", "quit"]
        return self.solo.allowed(s.game)

    def view(self, s: TableState) -> dict[str, Any]:
        """What a page renders: every seat's sheet and total, whose turn, the dice, the
        allowed actions, and for the seat to play the score "to beat" (the others' best
        total so far; final once every other seat has finished)."""
        g = s.game
        others = [x for i, x in enumerate(s.seats) if i != s.seat]
        return {
            "game": "yahtzee",
            "rules": s.rules,
            "players": len(s.seats),
            "seats": [self._seat_view(x) for x in s.seats],
            "seat": s.seat,
            "player": s.seats[s.seat].name,
            "computer": s.seats[s.seat].computer,
            "phase": s.phase,
            "round": g.turn,
            "rounds": self.rules.n_boxes,
            "dice": list(g.hand),
            "to_roll": 5 - len(g.hand) if g.phase == "roll" and not s.over else 0,
            "rolls_left": g.rolls_left,
            "score": g.total,
            "to_beat": max(x.game.total for x in others),
            "to_beat_final": all(x.game.phase == "over" for x in others),
            "hints": s.hints,
            "allowed": self.allowed(s),
            "over": s.over,
            "left": s.left,
            "winners": [s.seats[i].name for i in s.winners],
            "dice_from": s.dice_from,
            "seed": s.seed,
        }

    def _seat_view(self, x: Seat) -> dict[str, Any]:
        v = self.solo.view(x.game)
        keep = ("sheet", "upper", "upper_bonus", "yahtzee_bonus", "score")
        return {"name": x.name, "computer": x.computer, "finished": x.game.phase == "over"} | {
            k: v[k] for k in keep
        }

    # --- the transitions ----------------------------------------------------------------
    def apply(self, s: TableState, action: str | Mapping[str, Any]) -> Step:
        name, args = opened(self, s, action, ACTIONS)
        events: list[dict[str, Any]] = []
        log: list[dict[str, Any]] = []
        if name == "quit":
            who = s.seats[s.seat].name
            events.append(event("left", f"{who} left the game in round {s.game.turn}"))
            s = replace(s, over=True, left=True)
        elif name == "hint":
            h = self.hint(s)
            events.append(event("hint", f"hint ({h.objective})", **h.to_dict()))
        elif name == "play":
            s = self._play(s, events, log)
        elif name == "best":
            s = self._inner(s, self._best_action(s), events, log)
        else:
            s = self._inner(s, {"action": name, **args}, events, log)
        if log:
            s = replace(s, log=s.log + tuple(log))
        return Step(s, tuple(events), tuple(log), self.view(s))

    def _refusal(self, s: TableState, name: str) -> str:
        if s.over:
            return "the game is over"
        if s.seats[s.seat].computer:
            return f"it is {s.seats[s.seat].name}'s turn: 'play' makes its moves"
        if name == "play":
            return f"{s.seats[s.seat].name} is not a computer: their own move, or 'best'"
        try:
            self.solo.apply(s.game, name)  # (the solitaire game's own refusal says why)
        except InputError as e:
            return f"{s.seats[s.seat].name}: {e}"
        return f"{name} is not allowed now"

    def _check(self, s: TableState) -> None:
        if not isinstance(s, TableState):
            raise InputError(f"not a yahtzee table state: {type(s).__name__}")
        if s.rules != self.rules.name:
            raise InputError(f"this game is played under {s.rules}, not {self.rules.name}")
        if not SEATS[0] <= len(s.seats) <= SEATS[1] or not 0 <= s.seat < len(s.seats):
            raise InputError("the game state is not one this engine makes (seats)")

    def _play(
        self, s: TableState, events: list[dict[str, Any]], log: list[dict[str, Any]]
    ) -> TableState:
        """A computer's moves until its turn ends (or, with typed dice, a roll is due)."""
        me = s.seat
        while not s.over and s.seat == me:
            if s.game.phase == "roll":
                if s.dice_from == "input":
                    break
                s = self._inner(s, "roll", events, log)
            else:
                s = self._inner(s, self._best_action(s), events, log)
        return s

    def _inner(
        self,
        s: TableState,
        action: str | Mapping[str, Any],
        events: list[dict[str, Any]],
        log: list[dict[str, Any]],
    ) -> TableState:
        """An action of the seat's own solitaire game (its dice drawn from the table's
        stream); its log lines carry the seat's name, score and the others' sheets; a box
        filled passes the turn on."""
        seat = s.seats[s.seat]
        before = replace(seat.game, rolls=s.rolls)
        step = self.solo.apply(before, action)
        lines = [self._decorated(s, ln) for ln in step.log]
        log.extend(lines)
        after = replace(step.state, log=())
        seats = s.seats[: s.seat] + (replace(seat, game=after),) + s.seats[s.seat + 1 :]
        s = replace(s, seats=seats, rolls=after.rolls)
        who = seat.name
        for e in step.events:
            if e["kind"] not in ("turn", "over"):
                events.append(dict(e, player=who, text=f"{who}: {e['text']}"))
        if any(e["kind"] == "box" for e in step.events):
            s = self._next_seat(s, events)
        return s

    def _decorated(self, s: TableState, line: dict[str, Any]) -> dict[str, Any]:
        seat = s.seats[s.seat]
        out = {"rules": self.ref, **{k: v for k, v in line.items() if k != "rules"}}
        out.update(player=seat.name, score=seat.game.total, opponents=self._sheets(s))
        return out

    def _sheets(self, s: TableState) -> list[str]:
        """The other seats' sheets in turn order after the seat to play, as `--opponents`
        reads them."""
        from ..answers.yahtzee_win import sheet_text

        n = len(s.seats)
        out = []
        for k in range(1, n):
            g = s.seats[(s.seat + k) % n].game
            out.append(sheet_text(self.rules, _sheet(g), g.total))
        return out

    def _next_seat(self, s: TableState, events: list[dict[str, Any]]) -> TableState:
        n = len(s.seats)
        if all(x.game.phase == "over" for x in s.seats):
            top = max(x.game.total for x in s.seats)
            winners = tuple(i for i, x in enumerate(s.seats) if x.game.total == top)
            names = " and ".join(s.seats[i].name for i in winners)
            scores = ", ".join(f"{x.name} {x.game.total}" for x in s.seats)
            verb = "win" if len(winners) > 1 or names == "you" else "wins"
            events.append(
                event(
                    "over", f"{names} {verb}: {scores}", winners=[s.seats[i].name for i in winners]
                )
            )
            return replace(s, over=True, winners=winners)
        s = replace(s, seat=(s.seat + 1) % n)
        events.append(self._turn_event(s))
        return s

    def _turn_event(self, s: TableState) -> dict[str, Any]:
        seat = s.seats[s.seat]
        g = seat.game
        best = max(x.game.total for i, x in enumerate(s.seats) if i != s.seat)
        text = f"{seat.name}, round {g.turn}: score {g.total}, upper {g.upper}; to beat {best}"
        return event("turn", text, player=seat.name, round=g.turn, score=g.total, to_beat=best)

    # --- values ---------------------------------------------------------------------------
    def ranked(self, s: TableState) -> Ranked:
        """The seat's options by P(win) against the other seats' sheets (hints "win")."""
        from ..answers.yahtzee_versus import parse_sheet

        if self.win is None:
            raise InputError("this game's hints are by the expected score (hints 'expected')")
        g = s.game
        sheets = [parse_sheet(self.rules, t) for t in self._sheets(s)]
        return self.win.ranked(_sheet(g), g.hand, g.rolls_left, g.total, sheets)

    def hint(self, s: TableState) -> TableHint:
        self._check(s)
        g = s.game
        if s.over or g.phase not in ("keep", "box"):
            raise InputError("roll first: there is nothing to hint")
        who = s.seats[s.seat].name
        if self.win is None:
            opts = [dict(o, expected_final=g.total + o["value"]) for o in self.solo.options(g)]
            return TableHint(who, g.phase, list(g.hand), g.rolls_left, "expected", None, None, opts)
        r = self.ranked(s)
        return TableHint(
            who, g.phase, list(g.hand), g.rolls_left, "win", r.exact, r.method, r.options
        )

    def _best_action(self, s: TableState) -> dict[str, Any]:
        """The best keep or box: by P(win) (the heuristic), or the expected score."""
        top = self.ranked(s).options[0] if self.win is not None else self.solo.options(s.game)[0]
        if "box" in top:
            return {"action": "box", "box": top["box"]}
        return {"action": "keep", "dice": list(top["keep"])}

    # --- the end: reviews -----------------------------------------------------------------
    def reviews(self, s: TableState, log_name: str | None = None) -> dict[str, Review]:
        """Each person's decisions reviewed by P(win) (review.yahtzee_win_review; by the
        expected score where the hints are)."""
        from ..answers.review import yahtzee_review, yahtzee_win_review

        out: dict[str, Review] = {}
        with temporary_log(s.log) as path:
            for seat in s.seats:
                if seat.computer or not any(x["player"] == seat.name for x in s.log):
                    continue
                if self.win is not None:
                    got = yahtzee_win_review(path, self.rules, seat.name, self.win.store)
                else:
                    mine = [x for x in s.log if x["player"] == seat.name]
                    with temporary_log(mine) as own:
                        got = yahtzee_review(own, self.rules, self.solo.tables)
                out[seat.name] = replace(got, log=log_name or f"game {s.label}")
        return out


def _sheet(g: YahtzeeState) -> SheetState:
    from ..yahtzee.solitaire import SheetState

    return SheetState(g.mask, g.upper, g.yf)
