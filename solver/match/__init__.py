"""Games as step engines: a frozen state and pure transitions, driven one action at a time
(the terminal's `zilch play` and `yahtzee play`, the web's play screens).

The Zilch family (zilch_match.py): 2 to 6 seats, people and optimal computers — against 1 to 3
computers, hot seat (every seat a person on one device), companion (every seat a person
with real dice: every roll's faces given).  Yahtzee solitaire (yahtzee_match.py), and
Yahtzee for 2 to 4 seats (yahtzee_seats.py: `YahtzeeSeats(rules, tables, hints="win")`,
`start(["Ann"], computers=1)`; each seat's sheet a solitaire state; "play" makes a
computer's moves to its turn's end; the view: seats with names, sheets and totals, the seat
to play, "to_beat"; hints by P(win) with the expected final score beside;
`engine.reviews(state)`: each person's review by P(win)).

An engine holds the rules, the tables and a cache of values; it holds no game.  A hot seat
of two, driven step by step (this runs: tests/test_match.py runs it):

    from dicesolver.match import ZilchMatch

    engine = ZilchMatch("farkle")          # a preset, a rule file's path, or a RuleSet
    step = engine.start(["Ann", "Bob"], computers=0, seed=7)
    while not step.view["over"]:
        view = step.view                   # whose turn, dice, turn total, allowed actions
        if view["phase"] == "roll":
            action = "roll"
        elif view["phase"] == "keep":      # the roll is view["roll"]
            action = {"action": "keep", "dice": view["choices"][0]}
        else:                              # "move": roll again or bank
            action = "bank" if view["turn_total"] >= 300 else "roll"
        step = engine.apply(step.state, action)
        print("\\n".join(step.texts))       # what happened: rolls, set-asides, banks
    reviews = engine.reviews(step.state)   # {"Ann": [Review, ...], "Bob": [...]}

`engine.apply(state, action) -> Step` is every transition: the state given is never
changed; an illegal action raises InputError with one line saying what is wrong (the
state stays valid: ask again).  An action is a name or an object with its arguments:

    Zilch:   "roll" | {"action": "roll", "dice": [..]}   (dice: where they are typed; after
             a set-aside "roll" is roll again — with seeded dice the new roll comes at once)
             {"action": "keep", "dice": [1, 5]}          (or "1 5"; again before rolling or
             banking: another set-aside of the same roll)
             "bank", "best" (the computer's move for the person), "play" (a computer's whole
             turn, seeded dice), "hint" (the state unchanged; the values in the event),
             "quit"
    Yahtzee: "roll" | {"action": "roll", "dice": [..]}, {"action": "keep", "dice": "3 3"}
             ("all", "none"), {"action": "box", "box": "full_house"} (with rolls left: stop
             rolling), "best", "hint", "quit"

A Step: `state` (the new state), `events` (dicts with "kind" and "text", in order: "turn",
"roll", "set_aside", "must_roll" (and its "why"), "roll_again", "bank", "zilch",
"final_round", "over", "hint", "best", "left"; Yahtzee also "keep", "box"), `log` (the
decision-log lines this step made, play/log.py: zilch review / yahtzee review read them),
`view` (what a page renders: phase, seat and player, the players' scores, dice, turn total,
the roll and its listed set-asides ("choices"), the allowed actions, final round, winners;
Yahtzee: the sheet, the score, rolls left), and `to_dict()` (all as JSON).  A state is plain
data: `state.to_json()`, `ZilchState.from_json(...)` / `YahtzeeState.from_json(...)`; its
`log` is the whole decision log so far (`log_text(state.log)`: the file to download).
`Session(engine, state, log_file)` holds one game and writes each step's log lines to the
file as they come.  At the end (or after "quit"): `engine.reviews(state)` (Zilch: each
person's reviews), `engine.review(state)` (Yahtzee).
"""

from .session import Session, Step, log_text
from .yahtzee_match import YahtzeeHint, YahtzeeMatch, YahtzeeState
from .yahtzee_seats import TableHint, TableState, YahtzeeSeats
from .zilch_match import ZilchHint, ZilchMatch, ZilchState

__all__ = [
    "Session",
    "Step",
    "TableHint",
    "TableState",
    "YahtzeeHint",
    "YahtzeeMatch",
    "YahtzeeSeats",
    "YahtzeeState",
    "ZilchHint",
    "ZilchMatch",
    "ZilchState",
    "log_text",
]
