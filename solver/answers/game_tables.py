"""Stored games: a query reads them, never solves them (unless asked to).  One door for
"is this game stored?", its TableMissing (the command that builds it), and `--solve`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import InputError, TableMissing
from ..progress import SILENT, Progress
from ..tables import Tables
from ..variants import Where
from .answer import Answer, optional
from .inputs import Rules, Tables_, rule_set, tables_of
from .position_options import aimed

if TYPE_CHECKING:
    from ..objectives.plain_game import GameTable
    from ..variants import GameKey, Solution, Variant


@dataclass(frozen=True)
class GameTableStatus(Answer):
    """Whether a game's table is stored (any variant; the N-player store included), what
    the game is, the command that builds it and, where it is missing, its estimate."""

    rules: str
    target: int
    players: int
    what: str
    stored: bool
    solve_with: dict[str, Any]
    seconds: float | None = optional()  # (missing: the build's estimate on this machine)
    memory: float | None = optional()  # bytes
    disk: float | None = optional()  # bytes


def game_table_status(
    rules: Rules = "farkle",
    target: int | None = None,
    players: int = 2,
    lowest: int | None = None,
    tables: Tables_ = None,
) -> GameTableStatus:
    """Is the game's table among `players` to `target` stored?  (InputError where the rules
    have no such game.)  Nothing is solved: a missing table comes with its estimate."""
    from dataclasses import replace

    from .. import variants

    rs = replace(aimed(rule_set(rules), target), beat=0)
    v = variants.of(rs, players)
    key = v.key(players, lowest)
    tab = tables_of(rs, tables)
    stored = tab.game_table(key) is not None
    cost = None if stored else v.estimate(tab, key)
    return GameTableStatus(
        rs.name,
        key.target,
        players,
        v.describe(key),
        stored,
        v.solve_with(key),
        None if cost is None else cost.seconds,
        None if cost is None else cost.memory,
        None if cost is None else cost.disk,
    )


def stored_game(
    tab: Tables, players: int = 2, lowest: int | None = None
) -> tuple[Variant, Solution]:
    """(the variant, its stored table) of the game among `players` under tab.rules (at
    their target); TableMissing where nobody solved it, with the command that does."""
    from dataclasses import replace

    from .. import variants

    v = variants.of(replace(tab.rules, beat=0), players)
    key = v.key(players, lowest)
    g = tab.game_table(key)
    if g is None:
        raise missing(tab, v, key)
    return v, g


def plain_game(tab: Tables) -> GameTable:
    """The plain two-player game's stored table (W, its turns, piggyback's offers): what
    the questions that read W itself take (the picture, the policy rows, an offer, a
    fixed policy's opponent); InputError where the rules' game is another variant."""
    from ..variants.plain import PlainSolution

    v, g = stored_game(tab)
    if not isinstance(g, PlainSolution):
        raise InputError(
            f"{tab.rules.name} {v.having}: this is answered for the plain two-player game"
        )
    return g.game


def missing(tab: Tables, v: Variant, key: GameKey) -> TableMissing:
    """The TableMissing of a game table: its command, its API call and its build."""
    e = TableMissing(v.describe(key), "game", v.solve_with(key))

    def build(progress: Progress | None = None, **where: Any) -> None:
        tab.game_table(key, progress or SILENT, True, Where(**where))

    e.build = build
    return e


def solving(solve: bool, progress: Progress, query: Callable[[], Any]) -> Any:
    """query(), and where it needs a table nobody solved and `solve` is set: build the table
    first (estimated, with progress), then query again."""
    try:
        return query()
    except TableMissing as e:
        build = getattr(e, "build", None)
        if not solve or build is None:
            raise
        progress.note(f"{e.what} is not stored: solving it first (--solve)")
        build(progress)
        return query()
