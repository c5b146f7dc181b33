"""The game among three players or more (objectives/nplayer_game.py): every seat's chance
for every tuple of scores, solved on Dask (cluster.py) into a Zarr folder (layer_store.py)
filled score sum by score sum; an interrupted solve resumes at the next sum."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..limits import check_points
from ..progress import SILENT, Progress, Resumable, started_by_first_step
from ..rules import RuleSet
from .variant import (
    Chance,
    Column,
    Cost,
    GameKey,
    GameTables,
    Rows,
    Solution,
    Turn,
    Variant,
    Where,
)

if TYPE_CHECKING:
    from ..layer_store import LayerStore
    from ..objectives.nplayer_game import NPlayerGame
    from ..position import Position
    from ..turn.state import TurnState

# permanent points (issue 39): each turn a whole solve per level of permanent points (the
# two-player game's levels, in Python: no start values in C), measured from nothing with
# two workers (tests/test_estimates.py): zilch-online among three to 1000 in 86.8 s (8 000
# states; the sums 70.6 s, 18 ms a state a worker), to 1500 in 199.1 s (27 000 states; the
# sums 176.1 s, 13 ms)
PERMANENT_PER_STATE = 1.6e-2
# seconds per state (one worker), by hot dice, the turns' start values in C (issue 29) with
# issue 39's corner guess and slack, measured from nothing with two workers
# (tests/test_estimates.py): three players, farkle to 3000, 5000, 10000 in 35.2, 89.1,
# 575.7 s (0.13 ms per state per worker at 10000; 0.29 ms before issue 39, 0.90 ms before
# issue 29); zilch to 1000 and 2000 in 20.0 and 53.2 s (mandatory hot dice, small sums:
# about 1 ms a state of which most is per sum); each player more costs about 1.2 times as
# much a state (farkle, four players to 2000, before issue 39's slack: the score sums 438 s
# for 2.56 M states, 0.34 ms per state per worker; the whole build 1218.6 s, 760 s of it the
# final round)
# mandatory hot dice, re-measured (issue 39, the must-roll recursion summed by shift): zilch
# among three to 15000 in 52 min 55 s (27 M states; the score sums 2985.5 s, 0.22 ms a
# state a worker), zilch-10000 to 10000 in 18 min 51 s (a slow hour); 5e-4 before
SECONDS_PER_STATE = {"optional": 1.4e-4, "mandatory": 2.0e-4, "permanent": PERMANENT_PER_STATE}
STATE_PER_PLAYER = 1.2
# seconds per final-round key (one worker, one thread) / (players - 1)^2 / turn state / leader
# row (R + D + 1, D the reach bound), by hot dice.  Before the leader rows' start values
# (final_round._leader_starts) farkle took 0.13 s a key (3 players, to 1000) .. 1.6 s (6
# players, to 10000), 0.032 .. 0.068 per (players - 1)^2, four players to 2000 0.325 s (0.036;
# suffixes shared, final_round.Shares), zilch 0.14 .. 2.3 s, 0.035 .. 0.090 (7 states, 485 ..
# 1 190 rows).  The start values halve farkle's (3 players to 1000: 0.063 s a key, 4.6e-6 per
# state and row); zilch keeps whole turns but zilch-pyramiding's 82 states and 1 963 rows
# take 2.87 s a key at 500 (4.5e-6; zilch to 500 4.8e-6)
SECONDS_PER_KEY_ROW = {"optional": 6e-6, "mandatory": 1e-5}


class NPlayer(Variant):
    name = "players"
    draws = True
    plays = True

    @staticmethod
    def applies(rules: RuleSet, players: int) -> bool:
        return players != 2

    def check(self, players: int = 2) -> None:
        from ..objectives.nplayer_game import check_supported

        check_supported(self.rules, players)

    def objective(self, key: GameKey) -> str:
        return f"game{key.target}-players{key.players}"

    def describe(self, key: GameKey) -> str:
        return f"the {self.rules.name} game among {key.players} players to {key.target}"

    hint = "choose a lower `target`, or a cluster (`scheduler`)"

    def estimate(self, tab: GameTables, key: GameKey, workers: int | None = None) -> Cost:
        """Each worker and the client keep every state's chances and the final-round table
        (a row of every leader score per key); time from measured solves, shared by the
        workers."""
        from ..cluster import check_workers
        from ..objectives.nplayer_game import final_key_count

        rules, players = self.rules, key.players
        n = check_workers(workers)
        R = rules.reach_units()
        states = float(R) ** players
        keys = float(final_key_count(rules, R, players))
        finals = 8.0 * players * keys * (R + (tab.reach_bound if keys else 0) + 1)
        nbytes = (8.0 * players * states + finals) * (n + 1) + 2e8 * n
        kind = "permanent" if rules.has_permanent else rules.hot_dice
        work = SECONDS_PER_STATE[kind] * STATE_PER_PLAYER ** (players - 3) * states
        rows = tab.model.states * (R + tab.reach_bound + 1)
        work += SECONDS_PER_KEY_ROW[rules.hot_dice] * (players - 1) ** 2 * keys * rows
        return Cost(nbytes, work / max(n, 1), 8.0 * players * states + finals)

    def layers(self, tab: GameTables, key: GameKey) -> LayerStore:
        from ..layer_store import LayerStore, nplayer_meta
        from ..objectives.nplayer_game import ORBITS_PER_TASK as BATCH  # (cluster.BATCH)

        rules = tab.rules
        R = rules.reach_units()
        D = 0 if rules.end == "instant" else tab.reach_bound
        meta = nplayer_meta(rules, key.players, key.target, R, D, BATCH)
        path = tab.store.find(rules.name, rules.table_key(), self.objective(key), ".zarr")
        return LayerStore(path, meta)

    def solve(
        self, tab: GameTables, key: GameKey, progress: Progress = SILENT, where: Where = Where()
    ) -> Solution:
        """Variant.solve, the table's and its checkpoint's paths checked first (a file or a
        FIFO in the way: one line naming it, before the estimate says what would start)."""
        got = self.open(tab, key)
        if got is None:
            self.layers(tab, key).check_paths()
        return got if got is not None else super().solve(tab, key, progress, where)

    def checkpoint_path(self, tab: GameTables, key: GameKey) -> Path:
        return self.layers(tab, key).path.with_suffix(".zarr.partial")

    def open(
        self,
        tab: GameTables,
        key: GameKey,
        progress: Progress = SILENT,
        solve: bool = False,
        where: Where = Where(),
    ) -> NPlayerSolution | None:
        """The stored table, or (solve) solved on Dask: a local cluster of where.workers,
        or the cluster at where.scheduler, waiting for it at most where.timeout seconds;
        progress: the final round's tasks, then the score sums, and while the cluster has
        no worker (cluster.Watch)."""
        from ..objectives.nplayer_game import FinalTable, NPlayerGame

        rules = tab.rules
        store = self.layers(tab, key)
        got = store.read()
        if got is None and not solve:
            return None
        if got is None:
            from ..cluster import solve as solve_on_dask

            bar = Resumable(progress)  # (a wait for workers interrupts the bar drawn)
            with tab.store.lock(store.path):
                got = store.read()  # solved meanwhile by the process we waited for?
                if got is None:
                    with (
                        _final_bar(bar) as final_step,
                        started_by_first_step(bar, "solving score sums", _sums) as step,
                    ):
                        run = self.run(tab, key, step)
                        solve_on_dask(run, key.players, store, where, final_step, bar.waiting)
                    got = store.read()
            if got is None:
                raise InputError(f"{store.path}: the solved table did not read back")
        values, keys, rel = got
        R = rules.reach_units()
        D = 0 if rules.end == "instant" else tab.reach_bound
        finals = FinalTable.of(rules, R, D, keys, rel)
        game = NPlayerGame.from_values(tab.model, key.target, key.players, R, values, finals)
        return NPlayerSolution(game)

    # --- the questions --------------------------------------------------------------------
    def check_scores(self, key: GameKey, pos: Position, names: tuple[str, ...] = ()) -> None:
        rules, players = self.rules, key.players
        if len(pos.scores) != players:
            raise InputError(
                f"scores: {len(pos.scores)} scores given for {players} players (one per seat, "
                "the player to move first)",
                "scores",
            )
        for i, v in enumerate(pos.scores):
            what = f"scores (seat {i + 1})"
            check_points(v, what, "scores")
            rules.check_score(what, v, "scores")
            if v >= rules.reach_units() * rules.unit:
                raise InputError(f"{what} {v}: a game to {key.target} is over there", "scores")


class NPlayerSolution(Solution):
    """The N-player table: V[s_1, ..., s_N, k], every seat's chance (the mover first)."""

    def __init__(self, game: NPlayerGame) -> None:
        self.game, self.rules, self.target = game, game.rules, game.target

    def chance(self, pos: Position) -> Chance:
        return {"p_win": self.seat_chances(pos)[0]}

    def seat_chances(self, pos: Position) -> list[float]:
        return [float(x) for x in self.game.p_win(list(pos.scores))]

    def turn(self, pos: Position, state: TurnState) -> Turn:
        seats = list(pos.scores)
        turn = self.game.turn(seats).levels
        p = [float(x) for x in self.game.p_win(seats)]
        return Turn(turn.value_at(state), p[0], {"p_win_seats": p})

    def rows(self) -> Rows:
        g = self.game
        players, u = g.players, self.rules.unit
        states = np.indices(g.V.shape[:-1]).reshape(players, -1)
        p = g.V.reshape(-1, players)
        cols: dict[str, Column] = {
            f"score_{k + 1}": (states[k] * u).tolist() for k in range(players)
        }
        cols.update({f"p_win_{k + 1}": p[:, k].tolist() for k in range(players)})
        return Rows({"players": players}, cols)


def _sums(sigma: int) -> int:
    return sigma + 1


class _final_bar:
    """The final round's bar (its tasks as they end), drawn before the score sums' and
    finished on an interruption too."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.drawn = False

    def step(self, done: int, total: int) -> None:
        if done == 1:
            self.progress.start("solving the final round", total)
            self.drawn = True
        self.progress.advance(1)
        if done == total:
            self.progress.finish()
            self.drawn = False

    def __enter__(self) -> Callable[[int, int], None]:
        return self.step

    def __exit__(self, *exc: object) -> None:
        if self.drawn:
            self.progress.finish()
