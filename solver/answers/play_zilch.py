"""`zilch play`: a game in the terminal between a person and optimal computer players.

The computer takes the best set-aside and move by the probability of winning where the
game table for this many players is stored (and always in the final round, solved on
demand), else by expected points (decisions.py: the values `advise` gives).  Every
decision of every player goes to the log as it is made (play/log.py), and the person's
decisions are reviewed at the end (review.py).  The terminal is reached only through
`ask` and `say`, so a script can play (tests feed standard input).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO

import numpy as np

from ..errors import InputError
from ..outcomes.frozen import faces_of
from ..outcomes.scoring import parse_roll
from ..play.log import line_text
from ..tables import Tables
from ..turn.state import TurnState
from . import decisions as D
from .terminal import Quit, Terminal, faces_text, new_seed, open_log

YOU = "you"
MAX_TURNS = 10_000  # (a game of two people who never bank would never end)


def check_playable(tab: Tables, players: int) -> None:
    rs = tab.rules
    if not 2 <= players <= 4:
        raise InputError(f"--players is 2, 3 or 4, got {players}")
    if rs.target is None:
        raise InputError(f"{rs.name} has no target: there is no game to play")
    for flag, what in (
        (rs.piggyback, "piggyback"),
        (rs.overtaking, "overtaking"),
        (rs.challenge, "the challenge rule"),
        (rs.pyramiding, "pyramiding"),
        (rs.three_zilch_penalty, "a penalty for three zilches in a row"),
    ):
        if flag:
            raise InputError(f"zilch play does not support {what} ({rs.name}) yet")


@dataclass
class Seat:
    name: str
    human: bool
    score: int = 0


@dataclass
class ZilchGame:
    """One game: seat 0 is the person, the others computers (or, with people=True, every
    seat a person: a table of friends with real dice)."""

    tab: Tables
    players: int
    term: Terminal
    log: IO[str]
    label: str = ""
    rules_ref: str = ""  # the rules as the log names them (a preset, or the file's path)
    seats: list[Seat] = field(default_factory=list)
    by_game: bool = False
    turns: int = 0

    def __post_init__(self) -> None:
        check_playable(self.tab, self.players)
        self.seats = [Seat(YOU, True)] + [
            Seat(f"computer {i}", False) for i in range(1, self.players)
        ]
        self.by_game = self._game_table() is not None
        self.rules_ref = self.rules_ref or self.tab.rules.name

    def _game_table(self):
        """The stored game table the computers play by, if any (none where the rules have
        no such table: they play by expected points)."""
        from .. import variants

        v = variants.of(self.tab.rules, self.players)
        try:
            key = v.key(self.players)
        except InputError:
            return None
        return self.tab.game_table(key)

    # --- the game ------------------------------------------------------------------------
    def play(self) -> list[Seat]:
        """The game to its end: the winners (several where tied)."""
        rs = self.tab.rules
        assert rs.target is not None
        how = (
            "by the probability of winning (the game table is stored)"
            if self.by_game
            else (
                "by expected points (no game table for "
                f"{self.players} players is stored: zilch game --rules {rs.name}"
                + (f" --players {self.players}" if self.players > 2 else "")
                + " builds it), and in the final round by the probability of winning"
            )
        )
        self.term.say(
            f"{rs.name}, {self.players} players, first to {rs.target}: the computer plays {how}."
        )
        final_from = None  # the seat that reached the target first
        i = 0
        while self.turns < MAX_TURNS:
            seat = self.seats[i]
            if final_from == i:
                break
            self.turns += 1
            banked = self.turn(i)
            seat.score += banked
            if banked and rs.reached(seat.score):
                if rs.end == "instant":
                    return [seat]
                if final_from is None:
                    final_from = i
                    self.term.say(f"{seat.name} reached {seat.score}: the final round begins.")
            i = (i + 1) % self.players
        else:
            self.term.say(f"the game is stopped after {MAX_TURNS} turns: the leader wins")
        top = max(s.score for s in self.seats)
        return [s for s in self.seats if s.score == top]

    def others(self, i: int) -> list[int]:
        """The other players' scores in turn order after seat i."""
        return [self.seats[(i + k) % self.players].score for k in range(1, self.players)]

    def values(self, i: int) -> D.Values:
        """How seat i's moves are valued: P(win) where the table is stored or the final
        round is on (someone reached the target), else expected points."""
        rs, seat = self.tab.rules, self.seats[i]
        opp = self.others(i)
        if self.by_game or any(rs.reached(o) for o in opp):
            return D.game_values(self.tab, seat.score, opp)
        return D.points_values(self.tab, rs.on_board(seat.score))

    def turn(self, i: int) -> int:
        """Seat i's turn: the points it banks (0 after a zilch, or what a zilch records)."""
        rs, seat = self.tab.rules, self.seats[i]
        board = " · ".join(f"{s.name} {s.score}" for s in self.seats)
        self.term.say(f"\nturn {self.turns}: {seat.name} to play ({board})")
        values = self.values(i)
        state = TurnState(rs.dice, 0, 0)
        while True:
            faces = self.term.roll(state.dice, "your" if seat.human else f"{seat.name}'s")
            outcome = parse_roll(rs, faces)
            record = {
                "rules": self.rules_ref,
                "dice": state.dice,
                "turn": state.turn,
                **({"permanent": state.permanent} if state.permanent else {}),
                "roll": faces,
            }
            shown = " ".join(map(str, faces))
            if not D.roll_choices(rs, outcome):
                kept = rs.recorded_after_zilch(state.permanent, rs.on_board(seat.score))
                self.term.say(
                    f"  {seat.name} rolled {shown}: zilch" + (f" (keeps {kept})" if kept else "")
                )
                self._log(i, record, then="zilch")
                return kept
            if seat.human:
                self.term.say(f"  you rolled {shown} (turn total {state.turn})")
                c, then = self.ask_move(values, state, outcome)
            else:
                best = D.options(rs, values, state, outcome)[0]
                c, then = best.choice, best.values.action
            keep = faces_of(c.kept)
            self._log(i, record, keep=keep, then=then)
            state = D.after(rs, state, c)
            if not seat.human:
                self.term.say(
                    f"  {seat.name} rolled {shown}: keeps {' '.join(map(str, keep))}, "
                    f"turn total {state.turn}, then {then}s"
                )
            if then == "bank":
                verb = "bank" if seat.human else "banks"
                self.term.say(f"  {seat.name} {verb} {state.turn}: score {seat.score + state.turn}")
                return state.turn

    def ask_move(self, values: D.Values, state: TurnState, outcome):
        """The person's set-aside and move, asked until legal ('hint': every choice's
        value; 'quit': leave)."""
        rs = self.tab.rules
        while True:
            text = self.term.line("  keep which dice? (e.g. 1,5; hint; best; quit) > ")
            if text in ("h", "hint"):
                self.hint(values, state, outcome)
                continue
            if text == "best":  # (the computer's choice and move, for you)
                best = D.options(rs, values, state, outcome)[0]
                self.term.say(f"  best: keep {' '.join(map(str, best.keep))}, {best.values.action}")
                return best.choice, best.values.action
            try:
                ways = D.chosen(rs, outcome, faces_text(text))
            except InputError as e:
                self.term.say(f"  {e}")
                continue
            v, c = max(  # (the split worth most)
                ((values(D.after(rs, state, w)), w) for w in ways), key=lambda vw: vw[0].best
            )
            if v.bank is None:
                self.term.say(f"  turn total {state.turn + c.points}: you must roll")
                return c, "roll"
            while True:
                move = self.term.line(
                    f"  turn total {state.turn + c.points}: roll or bank? (r/b; hint) > "
                )
                if move in ("h", "hint"):
                    self.hint(values, state, outcome)
                elif move in ("r", "roll", "b", "bank"):
                    return c, "roll" if move.startswith("r") else "bank"
                else:
                    self.term.say("  type r (roll) or b (bank)")

    def hint(self, values: D.Values, state: TurnState, outcome) -> None:
        opts = D.options(self.tab.rules, values, state, outcome)
        kind = "P(win)" if values.objective == "game" else "expected points"
        fmt = "{:.4f}" if kind == "P(win)" else "{:.1f}"
        self.term.say(f"  {'keep':<14}{'then roll':>12}{'then bank':>12}   ({kind})")
        for o in opts:
            bank = "-" if o.values.bank is None else fmt.format(o.values.bank)
            self.term.say(
                f"  {' '.join(map(str, o.keep)):<14}{fmt.format(o.values.roll):>12}{bank:>12}"
            )

    def _log(self, i: int, record: dict, **more) -> None:
        seat = self.seats[i]
        full = dict(record, **more, score=seat.score, opponents=self.others(i))
        full.update(player=seat.name, game=self.label, n=self.turns)
        self.log.write(line_text(full))
        self.log.flush()


def play_game(
    rules="farkle",
    players: int = 2,
    seed: int | None = None,
    dice_from_input: bool = False,
    log: str | None = None,
    tables=None,
    ask: Callable[[str], str] = input,
    say: Callable[[str], None] = print,
):
    """A game against optimal computer players; the log written as it goes, the person's
    reviews (review.Review) returned at the end: by the computer's objective, and without
    the game table the final round's decisions apart, by the probability of winning (none
    where the person left the game)."""
    from .base import rule_set, tables_of
    from .review import review

    tab = tables_of(rule_set(rules), tables)
    check_playable(tab, players)
    seed = new_seed(seed)
    log, out = open_log(log, "zilch")
    with out:
        ref = rules if isinstance(rules, str) else tab.rules.name
        term = Terminal(ask, say, np.random.default_rng(seed), dice_from_input)
        game = ZilchGame(tab, players, term, out, str(seed), ref)
        say(f"game {seed} (replay it with --seed {seed}); the log goes to {log}")
        try:
            winners = game.play()
        except Quit:
            turns = f"{game.turns} turn" + ("s" if game.turns != 1 else "")
            say(f"\ngame left after {turns}; the log is in {log}")
            return None
    board = ", ".join(f"{s.name} {s.score}" for s in game.seats)
    names = " and ".join(s.name for s in winners)
    verb = "tie" if len(winners) > 1 else "win" if winners[0].human else "wins"
    say(f"\n{names} {verb} ({board})")
    rs = tab.rules

    def final(ln) -> bool:  # (a line of the final round: an opponent reached the target)
        return any(rs.reached(o) for o in ln.get("opponents", []))

    parts = (
        [("game", None)]
        if game.by_game
        else [("points", lambda ln: not final(ln)), ("game", final)]
    )
    with open(log, encoding="utf-8") as f:
        mine = [d for d in map(json.loads, f) if d["player"] == YOU and d["then"] != "zilch"]
    return [
        review(log, rs, objective, YOU, tables, where=where)
        for objective, where in parts
        if any(where is None or where(d) for d in mine)  # (decisions to review; a filter
    ]  # reads a line by .get, as a dict is read)
