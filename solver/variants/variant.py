"""The one interface over the game solvers.  A Variant says which table (GameKey), what its
solve costs (Cost), how it is stored, loaded and solved (Variant.open, Variant.solve: one
GameRun for the solver, objectives/game_run.py); the table it opens is a Solution, the
typed answers the questions read (the chance at a position, the fairest head start, a turn
at a position, the rows).

A variant is the one place that knows its game: the answers look it up (variants.of) and ask
its solution; `Tables.game_table` is the one door to every stored game.  Messages name the
Python API's fields ("target", "lowest"); the command line shows their flags
(errors.flagged).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, NamedTuple, Protocol, TypedDict

import numpy as np

from ..errors import InputError
from ..limits import check_memory, check_time, duration, size
from ..objectives.game_run import Where
from ..progress import SILENT, Progress
from ..rules import RuleSet
from ..store import Arrays, Store

if TYPE_CHECKING:
    from ..objectives.game_run import Checkpoint, GameRun, Step
    from ..outcomes.model import TurnModel
    from ..position import Position
    from ..turn.state import StateValues, TurnState

SCORES = ("scores (mine)", "scores (the opponent's)")  # (the game's; advice: score, opponents)
QUICK = 2.0  # seconds: a solve estimated shorter says nothing before it starts
Header = dict[str, int | float | str]  # what a stored table's header adds
Column = list[int] | list[float] | list[str] | list[bool]


class GameTables(Protocol):
    """What a variant reads of a rule set's stored tables (tables.Tables is one): the rules,
    the store, the turn model and the reach bound (units a turn adds with probability above
    last_turn.TRUNCATION)."""

    @property
    def rules(self) -> RuleSet: ...

    @property
    def store(self) -> Store: ...

    @property
    def model(self) -> TurnModel: ...

    @property
    def reach_bound(self) -> int: ...


@dataclass(frozen=True)
class GameKey:
    """Which table of a variant: the target (points), the players, the lowest score kept
    (points; where a penalty or a challenge can take a score below zero, else None)."""

    target: int
    players: int = 2
    lowest: int | None = None


@dataclass(frozen=True)
class Cost:
    """A solve's estimate, from the sizes it allocates and its measured cost per state."""

    memory: float  # bytes
    seconds: float
    disk: float  # bytes of the stored table

    def text(self) -> str:
        return (
            f"about {duration(self.seconds)}, {size(self.memory)} of memory, "
            f"{size(self.disk)} on disk"
        )


class Chance(TypedDict, total=False):
    """P(win) at a position and what else the variant says of it: the fields of the game's
    answer (answers/game_chance.py: GameChance)."""

    p_win: float  # the player to move's
    note: str | None
    zilches: list[int]
    lowest: int | None
    beat: int
    challenges: list[str]
    on_board: list[bool]
    p_win_no_challenge: float
    p_win_challenge: float | None
    challenge: bool | None


class Fairness(NamedTuple):
    """The head start (points) for the second player that brings the game closest to
    even, the first player's chance with it and without, a note."""

    head_start: int
    p_win: float
    p_win_even: float
    note: str | None


class Rows(NamedTuple):
    """The table as rows for export: what the header adds, and the columns."""

    header: Header
    columns: dict[str, Column]


@dataclass(frozen=True)
class Turn:
    """A turn of the game as advice reads it: the values of the turn state asked about, the
    mover's chance at the start of his turn, and what else the variant says of it."""

    values: StateValues
    p_win: float
    more: dict[str, object]


class Solution:
    """A game's stored table with the questions it answers (each variant's own subclass
    holds its typed table: `game`).  What a solution cannot answer it refuses in one line."""

    rules: RuleSet  # the game's (at its target)
    target: int

    def chance(self, pos: Position) -> Chance:
        """P(the player to move wins) and what else the variant says."""
        raise NotImplementedError

    def seat_chances(self, pos: Position) -> list[float]:
        """Every seat's chance, the player to move first."""
        p = self.chance(pos)["p_win"]
        return [p, 1.0 - p]

    def fairness(self) -> Fairness:
        raise NotImplementedError

    def turn(self, pos: Position, state: TurnState) -> Turn:
        """A turn of the game from the stored table (advice by P(win))."""
        raise NotImplementedError

    def rows(self) -> Rows:
        raise NotImplementedError


class Variant:
    """One game variant of one rule set.  Subclasses set `name` and `applies`, and fill in
    the stored layout (objective, sound, build, wrap) and the questions (chance, fairness,
    turn, rows); what they cannot answer they refuse in one line."""

    name: ClassVar[str]
    draws: ClassVar[bool] = False  # zilch plot game draws its table
    plays: ClassVar[bool] = False  # zilch play plays it by P(win)
    lowers: ClassVar[bool] = False  # scores may fall below zero: a lowest score is kept
    having: ClassVar[str] = ""  # what the rules have, in a refusal ("has overtaking")
    called: ClassVar[str] = ""  # what the game's name adds ("with overtaking")

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules

    @staticmethod
    def applies(rules: RuleSet, players: int) -> bool:
        raise NotImplementedError

    # --- which table --------------------------------------------------------------------
    def check(self, players: int = 2) -> None:
        """InputError where this variant's solver does not take the rules."""

    def key(self, players: int = 2, lowest: int | None = None) -> GameKey:
        """The table of a game to the rules' target (RuleSet.aimed sets another)."""
        rules = self.rules
        if rules.target is None:
            raise InputError(f"{rules.name} has no target: there is no game to solve")
        self.check(players)
        if lowest is not None and not self.lowers:
            raise InputError(
                f"lowest: {rules.name} has no penalty or challenge that lowers a score", "lowest"
            )
        return GameKey(rules.target, players, self.lowest(lowest) if self.lowers else None)

    def lowest(self, lowest: int | None) -> int | None:
        """The lowest score kept (points), checked (variants whose scores fall below 0)."""
        return None

    def objective(self, key: GameKey) -> str:
        """The table's name in the store (the target, and the lowest score kept)."""
        return f"game{key.target}" + (f"-lowest{key.lowest}" if self.lowers else "")

    def describe(self, key: GameKey) -> str:
        return f"the {self.rules.name} game to {key.target}{self.called}"

    def solve_with(self, key: GameKey) -> dict[str, str | int]:
        """The API call (`ds.game`'s keywords) that builds this table."""
        kw: dict[str, str | int] = {"rules": self.rules.source or self.rules.name}
        kw["target"] = key.target
        if key.players != 2:
            kw["players"] = key.players
        if key.lowest is not None and key.lowest != self.lowest(None):
            kw["lowest"] = key.lowest
        return kw

    def run(
        self,
        tab: GameTables,
        key: GameKey,
        step: Step | None = None,
        checkpoint: Checkpoint | None = None,
    ) -> GameRun:
        """The solver's arguments for this table (the reach bound: none where reaching the
        target ends the game at once, so there is no final round)."""
        from ..objectives.game_run import GameRun

        bound = 0 if self.rules.end == "instant" else tab.reach_bound
        return GameRun(tab.model, bound, key.target, key.lowest, step, checkpoint)

    def estimate(self, tab: GameTables, key: GameKey, workers: int | None = None) -> Cost:
        raise NotImplementedError

    hint = "choose a lower `target`"  # what lowers a solve's cost (the API's field names)

    # --- the stored table: one file of the Store (the N-player variant overrides open) ---
    def sound(self, key: GameKey, header: Header, arrays: Arrays) -> bool:
        """Does a loaded table hold what this variant reads?  (its shapes and dtypes)"""
        raise NotImplementedError

    def build(
        self, tab: GameTables, key: GameKey, progress: Progress, checkpoint: Checkpoint
    ) -> tuple[Header, Arrays]:
        """Solve the table: (header, arrays) to store."""
        raise NotImplementedError

    def wrap(self, tab: GameTables, key: GameKey, header: Header, arrays: Arrays) -> Solution:
        """The stored table as the solution the questions read."""
        raise NotImplementedError

    def open(
        self,
        tab: GameTables,
        key: GameKey,
        progress: Progress = SILENT,
        solve: bool = False,
        where: Where = Where(),
    ) -> Solution | None:
        """The stored table, or None where it is missing, corrupt or stale; solve: build it
        then (the caller has estimated it: Variant.solve)."""
        rules, store = tab.rules, tab.store
        objective = self.objective(key)

        def check(h: Header, a: Arrays) -> bool:
            return self.sound(key, h, a)

        got = store.load(rules.name, rules.table_key(), objective, check=check)
        if got is None:
            if not solve:
                return None
            ck = store.checkpoint(rules.name, rules.table_key(), objective)

            def build() -> tuple[Header, Arrays]:
                header, arrays = self.build(tab, key, progress, ck)
                return dict(header, rules_name=rules.name, target=key.target), arrays

            got = store.cached(rules.name, rules.table_key(), objective, build, check=check)
        return self.wrap(tab, key, *got)

    def checkpoint_path(self, tab: GameTables, key: GameKey) -> Path:
        """Where an interrupted solve of this table keeps its progress."""
        rules = tab.rules
        return tab.store.checkpoint(rules.name, rules.table_key(), self.objective(key)).path

    def solve(
        self, tab: GameTables, key: GameKey, progress: Progress = SILENT, where: Where = Where()
    ) -> Solution:
        """The table, solved first where it is missing, where this machine can: the solve
        is estimated first (memory and time refused beyond the machine, with the option that
        lowers them), the estimate goes to progress.note, and an interrupted solve says
        where its checkpoint is."""
        got = self.open(tab, key)
        if got is not None:
            return got
        what = self.describe(key)
        if where.scheduler is None:
            cost = self.estimate(tab, key, where.workers)
            check_memory(cost.memory, what, self.hint)
            check_time(cost.seconds, what, self.hint)
            if cost.seconds >= QUICK:
                progress.note(f"solving {what}: {cost.text()}")
        with interrupted(progress, self.checkpoint_path(tab, key)):
            got = self.open(tab, key, progress, True, where)
        assert got is not None
        return got

    # --- the questions: the solution answers them; the variant checks their scores ---------
    def check_scores(self, key: GameKey, pos: Position, names: tuple[str, ...] = SCORES) -> None:
        """InputError unless the position's scores are a state of this table (names: how
        the message names them, its first word the field)."""
        rules = self.rules
        top = rules.reach_units() * rules.unit
        for what, v in zip(names, pos.scores):
            field = what.split()[0]
            rules.check_score(what, v, field)
            if v >= top:
                raise InputError(f"{what} {v}: a game to {rules.target} is over there", field)

    def refuse(self, what: str) -> None:
        """InputError: `what` does not show this variant (a plot, a game to play)."""
        raise InputError(
            f"{self.rules.name} {self.having}: {what} is not drawn with it yet (zilch game and "
            "zilch export --objective game give its table)"
        )


@contextlib.contextmanager
def interrupted(progress: Progress, checkpoint: Path) -> Iterator[None]:
    """An interrupted solve (Ctrl-C) says where its checkpoint is and how large, before
    the interruption goes on."""
    try:
        yield
    except KeyboardInterrupt:
        if checkpoint.exists():
            progress.note(
                f"interrupted: the next run resumes from {checkpoint} "
                f"({size(disk_size(checkpoint))}); zilch tables --remove removes it"
            )
        else:
            progress.note("interrupted before the first checkpoint: nothing is kept")
        raise


def disk_size(path: Path) -> int:
    """Bytes of a file, or of every file under a folder."""
    if path.is_dir():
        return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    return path.stat().st_size if path.exists() else 0


def bar_of_sums(progress: Progress) -> contextlib.AbstractContextManager[Callable[[int], None]]:
    """A step callback over the score sums of a game solve (from the top down: the first
    one reported gives their number)."""
    from ..progress import started_by_first_step

    return started_by_first_step(progress, "solving score sums", lambda sigma: sigma + 1)


def by_flag(arrays: Arrays, **parts: dict[bool, np.ndarray] | None) -> Arrays:
    """arrays with each part's arrays by board flag stored as "name.0" / "name.1"."""
    for name, part in parts.items():
        for flag, arr in (part or {}).items():
            arrays[f"{name}.{int(flag)}"] = arr
    return arrays


def flagged(arrays: Arrays, name: str) -> dict[bool, np.ndarray] | None:
    """The arrays stored as "name.0" / "name.1" by board flag (None: none stored)."""
    found = {bool(int(k.split(".")[1])): v for k, v in arrays.items() if k.startswith(name + ".")}
    return found or None


def board_flags(rules: RuleSet) -> set[int]:
    """The board flags a player's last turn can have (0 where an entry minimum applies)."""
    return {int(rules.on_board(0)), int(rules.on_board(1))}
