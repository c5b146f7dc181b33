"""What the games in a terminal share (`zilch play`, `yahtzee play`): the person's typed
lines and the game's text (through `ask` and `say`, so a script can play), the dice
(seeded, or typed from real dice), the seed and the log written as the game goes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

import numpy as np

from ..errors import InputError


class Quit(Exception):
    """The person left the game (quit, or the input ended)."""


@dataclass
class Terminal:
    ask: Callable[[str], str]
    say: Callable[[str], None]
    rng: np.random.Generator
    dice_from_input: bool = False

    def line(self, prompt: str) -> str:
        """What the person typed (lower case); Quit on quit or at the end of the input."""
        try:
            text = self.ask(prompt).strip().lower()
        except EOFError:
            raise Quit from None
        if text in ("q", "quit", "exit"):
            raise Quit
        return text

    def roll(self, n: int, who: str = "your") -> list[int]:
        """n dice: rolled by the seeded generator, or typed (asked until n faces come)."""
        if n == 0:  # (every die kept: nothing to roll)
            return []
        if not self.dice_from_input:
            return [int(x) for x in self.rng.integers(1, 7, n)]
        while True:
            text = self.line(f"  {who} roll of {n} dice (e.g. {','.join(['5'] * n)}) > ")
            try:
                faces = faces_text(text)
            except InputError as e:
                self.say(f"  {e}")
                continue
            if len(faces) == n:
                return faces
            self.say(f"  {n} dice were rolled, not {len(faces)}")


def new_seed(seed: int | None) -> int:
    """The game's seed (default: a new one, printed so the game can be replayed)."""
    import secrets

    return secrets.randbits(32) if seed is None else seed


def faces_text(text: str) -> list[int]:
    """Dice typed as 1,5 or 1 5 or 15."""
    parts = text.replace(",", " ").split()
    if len(parts) == 1 and parts[0].isdigit() and len(parts[0]) > 1:
        parts = list(parts[0])
    try:
        faces = [int(p) for p in parts]
    except ValueError:
        raise InputError(f"dice are faces 1..6 such as 1,5, got {text!r}") from None
    if not faces or any(not 1 <= f <= 6 for f in faces):
        raise InputError(f"dice are faces 1..6 such as 1,5, got {text!r}")
    return faces


def open_log(path: str | None, game: str) -> tuple[str, IO[str]]:
    """The log file, opened to write as the game goes (default: GAME-play-DATE-TIME.jsonl
    here); a line is whole once flushed, so a log cut short still reads."""
    import datetime

    from .base import out_path

    if path is None:
        path = f"{game}-play-{datetime.datetime.now():%Y%m%d-%H%M%S}.jsonl"
    path = out_path(path, what="--log")
    try:
        return path, open(path, "w", encoding="utf-8")
    except OSError as e:
        raise InputError(f"--log {path}: cannot write it ({e.strerror})") from None
