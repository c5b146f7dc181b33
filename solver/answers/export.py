"""Whole policies as rows (CSV, JSON or Parquet): expected points, the last turn by
deficit, the two-player game, Yahtzee's states."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..files import write_atomic
from ..limits import MAX_UNITS, check_points
from ..outcomes.frozen import faces_of, turn_states
from ..progress import SILENT, Progress
from ..rules import RuleSet
from ..tables import Tables
from .answer import Answer
from .game_tables import solving
from .inputs import Rules, Tables_, refuse_challenge, rule_set, tables_of
from .position_options import aimed

FORMATS = ("csv", "json", "parquet")


@dataclass(frozen=True)
class Table(Answer):
    """Rows as columns of equal length; to_dict() is the JSON export."""

    meta: dict
    columns: dict[str, list]

    @property
    def rows(self) -> int:
        return len(next(iter(self.columns.values())))

    def to_dict(self) -> dict:
        rows = [dict(zip(self.columns, vals)) for vals in zip(*self.columns.values())]
        return {"meta": self.meta, "columns": list(self.columns), "rows": rows}

    def encode(self, fmt: str) -> bytes:
        """The table in `fmt` (csv, json or parquet)."""
        if fmt == "parquet":
            try:
                import pyarrow as pa
                import pyarrow.parquet as pq
            except ImportError:
                raise InputError(
                    "parquet export needs pyarrow: pip install 'dicesolver[parquet]'"
                ) from None
            table = pa.table(self.columns).replace_schema_metadata(
                {k: str(v) for k, v in self.meta.items()}
            )
            buf = pa.BufferOutputStream()
            pq.write_table(table, buf)
            return buf.getvalue().to_pybytes()
        if fmt == "json":
            return json.dumps(self.to_dict()).encode()
        if fmt != "csv":
            raise InputError(f"--format is one of {', '.join(FORMATS)}, got {fmt!r}")
        sio = io.StringIO()
        w = csv.writer(sio, lineterminator="\n")
        w.writerow(self.columns)
        for vals in zip(*self.columns.values()):
            w.writerow(
                ["" if v is None else (repr(v) if isinstance(v, float) else v) for v in vals]
            )
        return sio.getvalue().encode()

    def write(self, path: str, fmt: str) -> None:
        write_atomic(path, self.encode(fmt))


def _meta(tab: Tables, objective: str) -> dict:
    return {"rules": tab.rules.name, "rules_hash": tab.rules.digest(), "objective": objective}


SCORE_COLUMNS = (
    "dice",
    "turn_total",
    "permanent",
    "on_board",
    "action",
    "value_roll",
    "value_bank",
)


def _columns(rs: RuleSet, names: Sequence[str]) -> dict[str, list[object]]:
    """The table's columns; under pyramiding "frozen" follows "dice": the dice frozen
    since the last pick-up, as faces ("1,5,5")."""
    extra = ("frozen",) if rs.pyramiding else ()
    return {c: [] for name in names for c in ((name, *extra) if name == "dice" else (name,))}


def _state(cols: dict[str, list[object]], rs: RuleSet, s: int, n: int) -> None:
    """n rows of state s: its dice (and frozen dice)."""
    states = turn_states(rs)
    cols["dice"] += [states.dice[s]] * n
    if "frozen" in cols:
        cols["frozen"] += [",".join(map(str, faces_of(states.frozen[s])))] * n


def _score_state_rows(
    cols: dict[str, list[object]],
    rs: RuleSet,
    sol_roll: np.ndarray,
    sol_bank: np.ndarray,
    s: int,
    r_idx: np.ndarray,
    perm: int,
    on_board: bool,
    k: int | None,
) -> None:
    """The rows of state s at the totals r_idx (units; perm permanent points on top)."""
    roll, bank = sol_roll[s, r_idx] + perm, sol_bank[s, r_idx] + perm
    n = len(r_idx)
    if k is not None:
        cols["zilches"] += [k] * n
    _state(cols, rs, s, n)
    cols["turn_total"] += (r_idx * rs.unit + perm).tolist()
    cols["permanent"] += [perm] * n
    cols["on_board"] += [on_board] * n
    cols["action"] += np.where(bank >= roll, "bank", "roll").tolist()
    cols["value_roll"] += roll.tolist()
    cols["value_bank"] += [None if not np.isfinite(b) else b for b in bank.tolist()]


def score_rows(tab: Tables) -> Table:
    """One row per reachable state (turn totals up to the solver's cap; beyond it banking
    is optimal wherever it is allowed); with a penalty for the third zilch in a row, per
    count of zilches in a row too (column "zilches"; values by the long-run average)."""
    rs, whole = tab.rules, tab.score
    u = rs.unit
    counts = (None,) if whole.relative is None else (0, 1, 2)
    cols = _columns(rs, SCORE_COLUMNS)
    if whole.relative is not None:
        cols = {"zilches": [], **cols}

    def add(
        roll: np.ndarray,
        bank: np.ndarray,
        s: int,
        r: np.ndarray,
        perm: int,
        on: bool,
        k: int | None,
    ) -> None:
        _score_state_rows(cols, rs, roll, bank, s, r, perm, on, k)

    L = whole.reach.shape[1]
    for k in counts:
        pol = whole if k is None else whole.card(k)
        for row, on_board in ((0, False), (1, True)):
            for s in range(len(turn_states(rs))):
                add(
                    pol.main.roll[row, :, :L],
                    pol.main.bank[row, :, :L],
                    s,
                    np.nonzero(pol.reach[s])[0],
                    0,
                    on_board,
                    k,
                )
        if pol.secured is not None:
            step = min(rs.permanent_amounts)
            Ls = pol.secured.cap + 1
            for perm in range(step, pol.main.cap * u + 1, step):
                for on_board in (False, True):
                    for s in range(1, rs.dice + 1):
                        add(
                            pol.secured.roll[0, :, :Ls],
                            pol.secured.bank[0, :, :Ls],
                            s,
                            np.arange(Ls),
                            perm,
                            on_board,
                            k,
                        )
    return Table(_meta(tab, "score"), cols)


LAST_TURN_COLUMNS = (
    "deficit",
    "dice",
    "turn_total",
    "permanent",
    "on_board",
    "action",
    "p_win_roll",
    "p_win_bank",
)


def last_turn_rows(tab: Tables) -> Table:
    """One row per deficit (0..target) and reachable state with the turn total at most the
    deficit plus one unit (beyond, banking wins outright)."""
    refuse_challenge(tab.rules, "the last-turn table")
    rs, last = tab.rules, tab.last_turn
    u = rs.unit
    cols = _columns(rs, LAST_TURN_COLUMNS)
    step = rs.perm_step or 0
    flags = (False, True) if last.levels[False] is not last.levels[True] else (True,)
    for on_board in flags:
        levels = last.levels[on_board]
        reach = tab.reachable(levels[0].roll.shape[2])
        for k, sol in enumerate(levels):
            if sol.cap == 0:
                break
            p = k * step
            for s in range(len(turn_states(rs))):
                if s == 0 and k:  # permanent points come after the first roll
                    continue
                rr = np.nonzero(reach[s])[0] if k == 0 else np.arange(sol.roll.shape[2])
                for d in range(last.max_deficit + 1):
                    r = rr[rr + p <= d + 1]
                    r = r[r < sol.roll.shape[2]]
                    if not len(r):
                        continue
                    roll, bank = sol.roll[d, s, r], sol.bank[d, s, r]
                    n = len(r)
                    cols["deficit"] += [d * u] * n
                    _state(cols, rs, s, n)
                    cols["turn_total"] += ((r + p) * u).tolist()
                    cols["permanent"] += [p * u] * n
                    cols["on_board"] += [on_board] * n
                    cols["action"] += np.where(bank >= roll, "bank", "roll").tolist()
                    cols["p_win_roll"] += roll.tolist()
                    cols["p_win_bank"] += [None if not np.isfinite(b) else b for b in bank.tolist()]
    return Table(_meta(tab, "last-turn"), cols)


def game_rows(tab: Tables, players: int = 2) -> Table:
    """The stored game table of its variant (variants/): P(win) of the player to move for
    every state of the game (its scores, and what the variant adds to them), or among more
    players every seat's chance; TableMissing where nobody solved it."""
    from .game_tables import stored_game

    _, g = stored_game(tab, players)
    extra, cols = g.rows()
    return Table(dict(_meta(tab, "game"), **extra), cols)


MAX_BEAT = 5000  # points: the overtaking cards exported by default, to beat 0 .. this


def beat_rows(tab: Tables, max_beat: int | None = None) -> Table:
    """Overtaking: the strategy card for every turn total to beat (0: none, then every
    possible bank up to max_beat), one row per card, flag and dice count: the turn total to
    bank from, and the expected points of a fresh turn.  (Each card is a solve of a few
    milliseconds; they are not stored.)"""
    from dataclasses import replace

    from ..objectives.last_turn import board_flags
    from ..objectives.score import ScorePolicy, solve_score

    rs = tab.rules
    if not rs.overtaking:
        raise InputError(
            f"--objective beat: {rs.name} has no overtaking rule (a bank never has to beat "
            "the previous player's)"
        )
    top = MAX_BEAT if max_beat is None else max_beat
    low = max(rs.min_bank(True), rs.unit)
    check_points(top, "--max-beat")
    if top < low or top % rs.unit or top // rs.unit > MAX_UNITS:
        raise InputError(
            f"--max-beat must be a multiple of {rs.unit} from {low} to {MAX_UNITS * rs.unit}, "
            f"got {top}"
        )
    flags = board_flags(rs)
    cols: dict[str, list] = {
        c: [] for c in ("beat", "on_board", "dice", "bank_from", "expected_points")
    }
    for beat in [0, *range(low, top + 1, rs.unit)]:
        turn_rules = rs.beating(beat)
        main, _ = solve_score(replace(tab.model, rules=turn_rules))
        pol = ScorePolicy(turn_rules, main, None, tab.reachable(main.roll.shape[2]))
        for on in flags:
            value = pol.expected_turn_score(on)
            for n, v in pol.bank_thresholds(on).items():
                cols["beat"].append(beat)
                cols["on_board"].append(on)
                cols["dice"].append(n)
                cols["bank_from"].append(v)
                cols["expected_points"].append(value)
    return Table(dict(_meta(tab, "beat"), max_beat=top), cols)


# --- zilch export --------------------------------------------------------------------------
def export(
    rules: Rules = "farkle",
    objective: str = "score",
    beat: int = 0,
    max_beat: int | None = None,
    tables: Tables_ = None,
    players: int = 2,
    target: int | None = None,
    solve: bool = False,
    progress: Progress = SILENT,
) -> Table:
    """The whole policy as rows: expected points ("score"), the last turn by deficit
    ("last-turn"), the game's start-of-turn table ("game", solved first with zilch game, or
    here with solve=True), or with overtaking the strategy card for every total to beat
    ("beat", up to max_beat points).  beat: with overtaking, the "score" or "last-turn"
    table of turns whose banks must beat it.  players: with "game", the table of the game
    among that many players.  target: the game's (last-turn and game tables)."""
    if target is not None and objective not in ("last-turn", "game", "game-policy"):
        raise InputError(
            "--target is for --objective last-turn or game (a game's tables) or game-policy"
        )
    rs = aimed(rule_set(rules), target).beating(beat)
    tab = tables_of(rs, tables)
    if players != 2 and (objective != "game" or max_beat is not None or beat):
        raise InputError("--players is for --objective game (without --beat or --max-beat)")
    if players != 2 or objective == "game":
        return solving(solve, progress, lambda: game_rows(tab, players))
    if objective == "game-policy":  # the game's play by pair and dice: answers/game_export.py
        from .game_export import game_policy_rows

        meta, cols = solving(solve, progress, lambda: game_policy_rows(tab, progress))
        return Table(dict(_meta(tab, "game-policy"), **meta), cols)
    builders = {"score": score_rows, "last-turn": last_turn_rows, "game": game_rows}
    if beat and objective not in ("score", "last-turn"):
        raise InputError(
            f"--beat is for --objective score or last-turn (the {objective} table covers "
            "every total to beat)"
        )
    if objective == "beat":
        return beat_rows(tab, max_beat)
    if max_beat is not None:
        raise InputError("--max-beat is for --objective beat")
    if objective not in builders:
        raise InputError(
            f"--objective is one of {', '.join([*builders, 'beat'])}, got {objective!r}"
        )

    return builders[objective](tab)
