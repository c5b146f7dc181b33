"""python -m dicesolver: the zilch command."""

from .cli.zilch_commands import main

main()
