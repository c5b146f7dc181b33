"""dicesolver: exact solvers for dice games of the Zilch family and Yahtzee."""

__version__ = "0.1.0"
# Bumped whenever a change can alter a solved value; stored in every table file.
SOLVER_VERSION = 3


class InputError(ValueError):
    """Bad user input (rule file, state, option): the CLI prints it on one line, exit code 2."""
