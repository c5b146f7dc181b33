"""The command lines from a source checkout: `python cli.py advise ...` is `zilch advise ...`.
They live in the package (dicesolver.cli); installing it puts `zilch` and `yahtzee` on PATH."""

from dicesolver.cli import main, yahtzee_main

__all__ = ["main", "yahtzee_main"]

if __name__ == "__main__":
    main()
