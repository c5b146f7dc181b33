"""The stored tables of one rule set: each solved once, kept in the Store, reloaded (memory-
mapped) by every later query.  This is the only place where solving meets storing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

import numpy as np

from .errors import InputError
from .objectives.score import ScorePolicy, solve_score
from .outcomes.frozen import turn_states
from .outcomes.model import FORMAT, TurnModel, model_arrays, sound
from .rules import RuleSet
from .store import Check, Store
from .turn import TurnLevels, TurnSolution
from .turn.reach import bucket, sweep
from .turn.state import TurnState

CHECKED = 4096  # units at risk up to which a state's reachability is checked (~0.1 s sweep)

# The end-game and game modules are imported by the tables that need them: a query about
# expected points does not pay for them.
if TYPE_CHECKING:
    from .objectives.challenge_game import ChallengeGame
    from .objectives.game import GameTable
    from .objectives.last_turn import LastTurnTable
    from .objectives.nplayer_game import NPlayerGame
    from .objectives.overtaking_game import OvertakingGame
    from .objectives.penalty_game import PenaltyGame


@dataclass(frozen=True, eq=False)
class Tables:
    rules: RuleSet
    store: Store

    def _cached(
        self,
        objective: str,
        build: Callable,
        expect: dict | None = None,
        check: Check | None = None,
    ):
        return self.store.cached(
            self.rules.name, self.rules.digest(), objective, build, expect, check
        )

    def _sound(self, prefix: str, arrays: dict, rows: int) -> bool:
        return TurnSolution.sound(prefix, arrays, rows, len(turn_states(self.rules)))

    @property
    def model(self) -> TurnModel:
        """Enumerating and scoring every roll takes ~0.2 s, which a query should not pay
        each time: the model is stored like any table."""
        return _model(self.rules, self.store)

    def reachable(self, length: int, held: bool = False) -> np.ndarray:
        """reach[s, r] for r < length, of turns without permanent points (held: of turns
        holding some); read-only, one sweep per power of two."""
        return _reachable(self.rules, self.store, bucket(length), held)[:, :length]

    def check(self, state: TurnState) -> None:
        """InputError unless the rules can produce `state`, before any solve: its ranges,
        then the reach sweeps up to CHECKED units at risk.  (The built-in rules have no
        unreachable state past a few dozen units; past the sweeps only ranges are checked.)"""
        state.check(self.rules)
        u = state.at_risk(self.rules)
        if u < CHECKED:
            sweep = self.reachable(u + 1, held=state.permanent > 0)
            state.check(self.rules, *((None, sweep) if state.permanent else (sweep, None)))

    @cached_property
    def reach_bound(self) -> int:
        """Units no turn adds with probability above TRUNCATION (last_turn.reach_bound)."""
        from .objectives.last_turn import TRUNCATION, reach_bound

        _, arrays = self._cached(
            "reach",
            lambda: ({}, {"D": np.array([reach_bound(self.model)])}),
            {"eps": TRUNCATION},
            lambda h, a: (
                a["D"].shape == (1,) and a["D"].dtype == np.int64 and 0 < a["D"][0] < 1 << 15
            ),
        )
        return int(arrays["D"][0])

    @cached_property
    def score(self) -> ScorePolicy:
        """The expected-points policy (the strategy card); with a penalty for the third
        zilch in a row, the long-run average's, a card per count (objectives/average.py)."""
        penalty = bool(self.rules.three_zilch_penalty)
        rows, secured_rows = (6, 3) if penalty else (2, 1)

        def build():
            relative = None
            if penalty:
                from .objectives.average import solve_average

                main, secured, relative = solve_average(self.model)
            else:
                main, secured = solve_score(self.model)
            arrays = main.to_arrays("main")
            if secured is not None:
                arrays.update(secured.to_arrays("secured"))
            if relative is not None:
                arrays["relative"] = relative.to_array()
            arrays["reach"] = self.reachable(main.roll.shape[2])
            return {"rules_name": self.rules.name, "unit": self.rules.unit}, arrays

        def check(header, a):
            has = self.rules.has_permanent
            return (
                self._sound("main", a, rows)
                and ("secured.cap" in a) == has
                and (not has or self._sound("secured", a, secured_rows))
                and ("relative" in a) == penalty
                and (not penalty or a["relative"].shape == (7,))
                and a["reach"].dtype == np.bool_
                and a["reach"].shape == (len(turn_states(self.rules)), a["main.roll"].shape[2])
            )

        header, arrays = self._cached("score", build, check=check)
        secured = TurnSolution.from_arrays("secured", arrays) if "secured.cap" in arrays else None
        relative = None
        if penalty:
            from .objectives.average import Relative

            relative = Relative.from_array(arrays["relative"])
        return ScorePolicy(
            self.rules,
            TurnSolution.from_arrays("main", arrays),
            secured,
            arrays["reach"],
            header,
            relative,
        )

    @cached_property
    def last_turn(self) -> LastTurnTable:
        """P(win) of a last turn for every deficit up to the target, both board flags."""
        from .objectives.last_turn import LastTurnTable, board_flags

        def build():
            tab = LastTurnTable.solve(self.model)
            arrays: dict[str, np.ndarray] = {}
            for flag in board_flags(self.rules):
                for k, sol in enumerate(tab.levels[flag]):
                    arrays.update(sol.to_arrays(f"{int(flag)}.{k}"))
            return {"rules_name": self.rules.name, "max_deficit": tab.max_deficit}, arrays

        def check(header, a):
            D = header["max_deficit"]
            return D == self.rules.target // self.rules.unit and all(
                f"{int(flag)}.0.cap" in a
                and all(
                    self._sound(name[:-4], a, D + 1)
                    for name in a
                    if name.startswith(f"{int(flag)}.") and name.endswith(".cap")
                )
                for flag in board_flags(self.rules)
            )

        header, arrays = self._cached("lastturn", build, check=check)
        levels = {}
        for flag in board_flags(self.rules):
            k, lv = 0, []
            while f"{int(flag)}.{k}.cap" in arrays:
                lv.append(TurnSolution.from_arrays(f"{int(flag)}.{k}", arrays))
                k += 1
            levels[flag] = TurnLevels(self.rules, tuple(lv))
        levels.setdefault(False, levels[True])
        return LastTurnTable(self.model, int(header["max_deficit"]), levels)

    def game(
        self,
        target: int | None = None,
        progress: Callable[[int], None] | None = None,
        solve_if_missing: bool = True,
    ) -> GameTable | None:
        """The two-player game table (solved and stored if missing, unless solve_if_missing
        is False: a query never starts a solve)."""
        from .objectives.game import Finals, GameTable, Offers, check_supported, solve_game

        rules = self.rules
        check_supported(rules)
        target = rules.target if target is None else target
        objective = f"game{target}"
        assert target is not None
        R = rules.reach_units(target)
        flags = {f"opp.{int(rules.on_board(0))}", f"opp.{int(rules.on_board(1))}"}

        def check(header, a):
            W = a["W"]
            ok = W.shape == (R, R) and W.dtype == np.float64
            if rules.end != "instant":  # the opponent's last turn, by deficit
                ok &= {k for k in a if k.startswith("opp.")} == flags and all(
                    a[k].ndim == 1 and a[k].shape[0] > R for k in flags
                )
            if rules.piggyback:
                shape = tuple(int(x) for x in a["O.shape"])
                idx = a["O.idx"]
                ok &= (
                    shape == (R, R, rules.dice + 1, R)
                    and a["O.val"].shape == idx.shape
                    and (not len(idx) or 0 <= idx.min() <= idx.max() < R * R * R * shape[2])
                    and bool(np.all(np.diff(idx) > 0))
                )
            return ok

        got = self.store.load(rules.name, rules.digest(), objective, check=check)
        if got is None and not solve_if_missing:
            return None
        if got is None:

            def build():
                g = solve_game(
                    self.model,
                    0 if rules.end == "instant" else self.reach_bound,  # (no final round)
                    target,
                    progress,
                    self.store.checkpoint(rules.name, rules.digest(), objective),
                )
                arrays = _by_flag({"W": g.W}, opp=g.finals.opp)
                if g.O is not None:
                    arrays.update(
                        {"O.shape": np.array(g.O.shape), "O.idx": g.O.idx, "O.val": g.O.val}
                    )
                return {"rules_name": rules.name, "target": target}, arrays

            got = self._cached(objective, build, check=check)
        arrays = got[1]
        W = arrays["W"]
        offers = None
        if "O.idx" in arrays:
            offers = Offers(
                tuple(int(x) for x in arrays["O.shape"]), arrays["O.idx"], arrays["O.val"]
            )
        return GameTable(
            self.model, target, W, Finals(rules, W.shape[0], _flagged(arrays, "opp")), offers
        )

    def nplayer_game(
        self,
        players: int,
        target: int | None = None,
        progress: Callable[[int], None] | None = None,
        solve_if_missing: bool = True,
        workers: int | None = None,
        scheduler: str | None = None,
        final_progress: Callable[[int, int], None] | None = None,
    ) -> NPlayerGame | None:
        """The game among `players` players (objectives/nplayer_game.py), solved on Dask
        (cluster.py: a LocalCluster of `workers`, or the cluster at `scheduler`) and stored
        as a Zarr folder (layer_store.py) if missing, unless solve_if_missing is False; an
        interrupted solve resumes at the next score sum.  final_progress(done, total): the
        final-round table's tasks, progress(sigma): the score sums."""
        from .layer_store import LayerStore, nplayer_meta
        from .objectives.nplayer_game import FinalTable, NPlayerGame, check_supported

        rules = self.rules
        check_supported(rules, players)
        target = rules.target if target is None else target
        assert target is not None
        R = rules.reach_units(target)
        D = 0 if rules.end == "instant" else self.reach_bound
        from .cluster import BATCH

        meta = nplayer_meta(rules, players, target, R, D, BATCH)
        path = self.store.path(rules.name, rules.digest(), f"game{target}-players{players}")
        store = LayerStore(path.with_suffix(".zarr"), meta)
        got = store.read()
        if got is None and not solve_if_missing:
            return None
        if got is None:
            from .cluster import client_for, solve_nplayer

            with self.store.lock(store.path):
                got = store.read()  # solved meanwhile by the process we waited for?
                if got is None:
                    with client_for(workers, scheduler) as client:
                        solve_nplayer(
                            rules,
                            players,
                            R,
                            D,
                            store,
                            client,
                            progress,
                            final_progress=final_progress,
                        )
                    got = store.read()
            if got is None:
                raise InputError(f"{store.path}: the solved table did not read back")
        values, keys, rel = got
        finals = FinalTable.of(rules, R, D, keys, rel)
        return NPlayerGame.from_values(self.model, target, players, R, values, finals)

    def overtaking_game(
        self,
        target: int | None = None,
        progress: Callable[[int], None] | None = None,
        solve_if_missing: bool = True,
    ) -> OvertakingGame | None:
        """The two-player game under overtaking, the previous bank part of the state
        (solved and stored if missing, unless solve_if_missing is False)."""
        from .objectives.game import Finals
        from .objectives.overtaking_game import (
            OvertakingFinals,
            OvertakingGame,
            check_overtaking,
            solve_overtaking_game,
        )

        rules = self.rules
        assert not rules.beat, "the game's table is the rules', not one turn's"
        check_overtaking(rules)
        target = rules.target if target is None else target
        assert target is not None
        R = rules.reach_units(target)
        objective = f"game{target}"
        flags = {int(rules.on_board(0)), int(rules.on_board(1))}

        def check(header, a):
            ok = a["W"].shape == (R, R, R) and a["W"].dtype == np.float64
            if rules.end != "instant":
                for f in flags:
                    for k in (f"opp.{f}", f"strict.{f}"):
                        ok &= k in a and a[k].ndim == 1 and a[k].shape[0] > R
            return bool(ok)

        got = self.store.load(rules.name, rules.digest(), objective, check=check)
        if got is None and not solve_if_missing:
            return None
        if got is None:

            def build():
                bound = 0 if rules.end == "instant" else self.reach_bound
                ck = self.store.checkpoint(rules.name, rules.digest(), objective)
                g = solve_overtaking_game(self.model, bound, target, progress, ck)
                arrays = _by_flag({"W": g.W}, opp=g.finals.plain.opp, strict=g.finals.strict)
                return {"rules_name": rules.name, "target": target}, arrays

            got = self._cached(objective, build, check=check)
        arrays = got[1]
        finals = OvertakingFinals(
            Finals(rules, R, _flagged(arrays, "opp")), _flagged(arrays, "strict")
        )
        return OvertakingGame(self.model, target, arrays["W"], finals)

    def challenge_game(
        self,
        target: int | None = None,
        lowest: int | None = None,
        progress: Callable[[int], None] | None = None,
        solve_if_missing: bool = True,
    ) -> ChallengeGame | None:
        """The two-player game with the challenge rule, the challenges left and board flags
        part of the state (solved and stored if missing, unless solve_if_missing is
        False; an interrupted solve resumes from its checkpoint)."""
        from .objectives.challenge_game import (
            ChallengeFinals,
            ChallengeGame,
            Statuses,
            check_supported,
            lowest_units,
            solve_challenge_game,
        )

        rules = self.rules
        check_supported(rules)
        target = rules.target if target is None else target
        assert target is not None
        R = rules.reach_units(target)
        lo = lowest_units(rules, lowest, target)
        st = Statuses.of(rules)
        objective = f"game{target}-lowest{lo * rules.unit}"
        flags = {int(rules.on_board(0)), int(rules.on_board(1))}

        def check(header, a):
            N = R - lo
            ok = a["W"].shape == (st.S, st.S, N, N) and a["W"].dtype == np.float64
            if rules.end != "instant":
                for f in flags:
                    for k in (f"plain.{f}", f"challenge.{f}"):
                        ok &= k in a and a[k].ndim == 1 and a[k].shape[0] > 2
            return bool(ok) and int(header.get("span", 0)) > N

        got = self.store.load(rules.name, rules.digest(), objective, check=check)
        if got is None and not solve_if_missing:
            return None
        if got is None:

            def build():
                bound = 0 if rules.end == "instant" else self.reach_bound
                ck = self.store.checkpoint(rules.name, rules.digest(), objective)
                g = solve_challenge_game(self.model, bound, target, lowest, progress, ck)
                fin = g.finals
                arrays = _by_flag({"W": g.W}, plain=fin.plain, challenge=fin.challenge)
                header = {"rules_name": rules.name, "target": target, "span": fin.span}
                return header, arrays

            got = self._cached(objective, build, check=check)
        header, arrays = got
        plain, chal = _flagged(arrays, "plain"), _flagged(arrays, "challenge")
        finals = ChallengeFinals(plain, chal, st, int(header["span"]))
        return ChallengeGame(self.model, target, lo, arrays["W"], finals)

    def penalty_game(
        self,
        target: int | None = None,
        lowest: int | None = None,
        progress: Callable[[int, float], None] | None = None,
        solve_if_missing: bool = True,
    ) -> PenaltyGame | None:
        """The two-player game where the third zilch in a row costs a penalty, with the
        opponent's last turn (solved and stored if missing, unless solve_if_missing is
        False)."""
        from .objectives.game import Finals
        from .objectives.penalty_game import (
            PenaltyGame,
            check_supported,
            lowest_units,
            solve_penalty_game,
        )

        rules = self.rules
        check_supported(rules)
        target = rules.target if target is None else target
        assert target is not None
        lo = lowest_units(rules, lowest)
        R = rules.reach_units(target)
        objective = f"game{target}-lowest{lo * rules.unit}"
        final_round = rules.end != "instant"

        def check(header, a):
            W = a["W"]
            ok = W.shape == (3, 3, R - lo, R - lo) and W.dtype == np.float64
            if final_round:
                ok &= "opp.1" in a and a["opp.1"].ndim == 1 and a["opp.1"].shape[0] > R
            return bool(ok) and int(header.get("sweeps", 0)) > 0

        got = self.store.load(rules.name, rules.digest(), objective, check=check)
        if got is None and not solve_if_missing:
            return None
        if got is None:

            def build():
                g = solve_penalty_game(self.model, self.reach_bound, target, lowest, progress)
                arrays = _by_flag({"W": g.W}, opp=g.finals.opp)
                header = {"rules_name": rules.name, "target": target, "sweeps": g.sweeps}
                return header, arrays

            got = self._cached(objective, build, check=check)
        header, arrays = got
        fin = Finals(rules, R, _flagged(arrays, "opp"))
        return PenaltyGame(self.model, target, lo, arrays["W"], fin, int(header["sweeps"]))


def _by_flag(arrays: dict[str, np.ndarray], **parts) -> dict[str, np.ndarray]:
    """arrays with each part's arrays by board flag stored as "name.0" / "name.1"."""
    for name, part in parts.items():
        for flag, arr in (part or {}).items():
            arrays[f"{name}.{int(flag)}"] = arr
    return arrays


def _flagged(arrays, name: str) -> dict[bool, np.ndarray] | None:
    """The arrays stored as "name.0" / "name.1" by board flag (None: none stored)."""
    found = {bool(int(k.split(".")[1])): v for k, v in arrays.items() if k.startswith(name + ".")}
    return found or None


@lru_cache(maxsize=32)
def _model(rules: RuleSet, store: Store) -> TurnModel:
    _, arrays = store.cached(
        rules.name,
        rules.digest(),
        "model",
        lambda: ({}, model_arrays(rules)),
        {"model_format": FORMAT},
        lambda header, arrays: sound(rules, arrays),
    )
    return TurnModel.from_arrays(rules, arrays)


@lru_cache(maxsize=64)
def _reachable(rules: RuleSet, store: Store, length: int, held: bool) -> np.ndarray:
    """Stored like the model it comes from (a sweep in Python: ~30 ms per 1000 units)."""
    _, arrays = store.cached(
        rules.name,
        rules.digest(),
        f"{'held' if held else 'reachable'}{length}",
        lambda: ({}, {"reach": sweep(_model(rules, store), length, held)}),
        check=lambda h, a: (
            a["reach"].shape == (len(turn_states(rules)), length) and a["reach"].dtype == np.bool_
        ),
    )
    reach = arrays["reach"]
    reach.flags.writeable = False  # shared by every caller
    return reach
