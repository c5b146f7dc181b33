"""Games as step engines: a frozen state and pure transitions, driven one action at a time
(the terminal's `zilch play` and `yahtzee play`, the web's play screens).

The Zilch family (zilch.py): 2 to 6 seats, people and optimal computers: against the
computers, hot seat (every seat a person on one device), companion (every seat a person with
real dice: the faces typed).  Yahtzee solitaire (yahtzee.py).  Both:

    from dicesolver.answers.match import ZilchMatch
    eng = ZilchMatch("farkle")                      # rules (a preset, a file, a RuleSet), tables
    step = eng.start(["Ann", "Bob"], computers=0, seed=7)   # hot seat of two
    step.view["allowed"]                            # ['roll', 'hint', 'quit']
    step = eng.apply(step.state, "roll")            # Ann rolls (the engine's seeded dice)
    step = eng.apply(step.state, {"action": "keep", "dice": [1, 5]})
    step = eng.apply(step.state, "bank")            # or "roll" (again), "best", "hint", "quit"
    step.texts                                      # ['Ann banks 150: score 150', 'turn 2: ...']
    eng.reviews(final_state)                        # each person's review, at the end

Every transition is `engine.apply(state, action) -> Step`: the state given is never
changed; an illegal action raises InputError with one line saying what is wrong (the state
stays as it was).  A Step holds the new state, its events (dicts with "kind" and "text":
the rolls, set-asides and decisions one by one, a computer's whole turn roll by roll), the
new decision-log lines (play/log.py) and the view (whose turn, the dice, the turn total,
the scores, the allowed actions).  A state is plain data: `state.to_json()` and
`State.from_json(...)` round-trip it.  `Session(engine, state, log_file)` keeps one game and
writes its log as it goes.
"""

from .common import Session, Step, log_text
from .yahtzee import YahtzeeMatch, YahtzeeState
from .zilch import ZilchHint, ZilchMatch, ZilchState

__all__ = [
    "Session",
    "Step",
    "YahtzeeMatch",
    "YahtzeeState",
    "ZilchHint",
    "ZilchMatch",
    "ZilchState",
    "log_text",
]
