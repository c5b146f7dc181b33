"""The single-turn MDP, solved for any payoff of ending the turn (see engine.py).

payoff     what ending the turn is worth (Payoff, Tail, Extra, Permanent)
engine     solve_turn: the exact affine tail, then the backward pass (kernel.py: C, or numpy)
solution   TurnSolution: rolling and banking in every state, on a grid and beyond it;
           TurnLevels: a turn per level of permanent points
state      TurnState (dice, turn total, permanent part) and StateValues
levels     solve_levels: turns over the points they add, with levels of permanent points
rows       rows known past a boundary: the final round's leader rows
reach      which states a turn can reach

The names below are imported from their modules on first use: a query that reads a stored
solution does not load the solver.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_WHERE = {
    "Extra": "payoff",
    "Payoff": "payoff",
    "Permanent": "payoff",
    "Tail": "payoff",
    "StateValues": "state",
    "TurnState": "state",
    "TurnLevels": "solution",
    "TurnSolution": "solution",
    "solve_levels": "levels",
    "solve_turn": "engine",
}
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

if TYPE_CHECKING:
    from .engine import solve_turn
    from .levels import solve_levels
    from .payoff import Extra, Payoff, Permanent, Tail
    from .solution import TurnLevels, TurnSolution
    from .state import StateValues, TurnState


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
