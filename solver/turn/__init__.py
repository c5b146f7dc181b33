"""The single-turn MDP, solved for any payoff of ending the turn (see engine.py).

payoff     what ending the turn is worth (Payoff, Tail, Extra, Permanent)
engine     solve_turn: the exact affine tail, then the backward pass (kernel.py: C, or numpy)
solution   TurnSolution: rolling and banking in every state, on a grid and beyond it
state      TurnState (dice, turn total, permanent part) and StateValues
levels     turns over the points they add, with levels of permanent points (TurnLevels)
rows       rows known past a boundary: the final round's leader rows
reach      which states a turn can reach
"""

from .engine import solve_turn
from .levels import TurnLevels, solve_levels
from .payoff import Extra, Payoff, Permanent, Tail
from .solution import TurnSolution
from .state import StateValues, TurnState

__all__ = [
    "Extra",
    "Payoff",
    "Permanent",
    "StateValues",
    "Tail",
    "TurnLevels",
    "TurnSolution",
    "TurnState",
    "solve_levels",
    "solve_turn",
]
