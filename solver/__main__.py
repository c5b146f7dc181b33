"""python -m dicesolver: the zilch command."""

from .cli import main

main()
