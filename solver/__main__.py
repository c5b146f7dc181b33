"""python -m dicesolver: the zilch command."""

from .cli.zilch import main

main()
