"""The command lines: parse options, call an answer (answers/), render it as text or JSON."""

from .yahtzee import yahtzee_main
from .zilch import main

__all__ = ["main", "yahtzee_main"]
