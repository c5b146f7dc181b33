"""The command lines: parse options, call an answer (answers/), render it as text or JSON.

zilch_commands.py: `zilch`; yahtzee_commands.py: `yahtzee` (each an entry point of its own,
so that one does not load the other); play_zilch.py, play_yahtzee.py and terminal.py: the
games in a terminal.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["main", "yahtzee_main"]


def __getattr__(name: str) -> Any:
    if name == "main":
        return import_module(".zilch_commands", __name__).main
    if name == "yahtzee_main":
        return import_module(".yahtzee_commands", __name__).yahtzee_main
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
