"""The whole expected-score policy as rows: CSV, JSON or Parquet."""
from __future__ import annotations

import csv
import io
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

from . import InputError
from .policy import score_policy
from .rules import RuleSet

COLUMNS = ("dice", "turn_total", "permanent", "on_board", "action", "value_roll", "value_bank")


def export_rows(rs: RuleSet, tables_dir=None) -> dict[str, list]:
    """Columns of one row per reachable state (turn totals up to the solver's cap; beyond it
    banking is optimal wherever it is allowed)."""
    pol = score_policy(rs, tables_dir)
    u, cols = rs.unit, {c: [] for c in COLUMNS}

    def add(sol_roll, sol_bank, s, r_idx, perm, on_board):
        roll, bank = sol_roll[s, r_idx] + perm, sol_bank[s, r_idx] + perm
        n = len(r_idx)
        cols["dice"] += [rs.dice if s == 0 else s] * n
        cols["turn_total"] += (r_idx * u + perm).tolist()
        cols["permanent"] += [perm] * n
        cols["on_board"] += [on_board] * n
        cols["action"] += np.where(bank >= roll, "bank", "roll").tolist()
        cols["value_roll"] += roll.tolist()
        cols["value_bank"] += [None if not np.isfinite(b) else b for b in bank.tolist()]

    L = pol.reach.shape[1]
    for row, on_board in ((0, False), (1, True)):
        for s in range(rs.dice + 1):
            add(pol.main.roll[row, :, :L], pol.main.bank[row, :, :L], s,
                np.nonzero(pol.reach[s])[0], 0, on_board)
    if pol.secured is not None:
        step = min(p.points for p in rs.patterns if p.permanent)
        Ls = pol.secured.cap + 1
        for perm in range(step, pol.main.cap * u + 1, step):
            for on_board in (False, True):
                for s in range(1, rs.dice + 1):
                    add(pol.secured.roll[0, :, :Ls], pol.secured.bank[0, :, :Ls], s,
                        np.arange(Ls), perm, on_board)
    return cols


def _atomic_write(path: str, data: bytes) -> None:
    p = Path(path)
    fd, tmp = tempfile.mkstemp(dir=p.parent if str(p.parent) else ".", suffix=".tmp")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, p)


def write_rows(cols: dict[str, list], fmt: str, out: str | None, meta: dict) -> None:
    if fmt == "parquet":
        if not out:
            raise InputError("parquet export needs --out FILE")
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise InputError("parquet export needs pyarrow: pip install 'dicesolver[parquet]'") \
                from None
        table = pa.table(cols).replace_schema_metadata({k: str(v) for k, v in meta.items()})
        buf = pa.BufferOutputStream()
        pq.write_table(table, buf)
        _atomic_write(out, buf.getvalue().to_pybytes())
        return
    if fmt == "json":
        rows = [dict(zip(cols, vals)) for vals in zip(*cols.values())]
        text = json.dumps({"meta": meta, "columns": list(cols), "rows": rows})
    else:
        sio = io.StringIO()
        w = csv.writer(sio, lineterminator="\n")
        w.writerow(cols)
        for vals in zip(*cols.values()):
            w.writerow(["" if v is None else (repr(v) if isinstance(v, float) else v)
                        for v in vals])
        text = sio.getvalue()
    if out:
        _atomic_write(out, text.encode())
    else:
        sys.stdout.write(text)


LAST_TURN_COLUMNS = ("deficit", "dice", "turn_total", "permanent", "on_board", "action",
                     "p_win_roll", "p_win_bank")


def last_turn_rows(rs: RuleSet, tables_dir=None) -> dict[str, list]:
    """One row per deficit (0..target) and reachable state with the turn total at most the
    deficit plus one unit (beyond, banking wins outright)."""
    from .endgame import last_turn_table, perm_step
    from .policy import reachable
    tab = last_turn_table(rs, tables_dir)
    u, cols = rs.unit, {c: [] for c in LAST_TURN_COLUMNS}
    step = perm_step(rs) or 0
    flags = (False, True) if tab.levels[False] is not tab.levels[True] else (True,)
    for on_board in flags:
        levels = tab.levels[on_board]
        reach = reachable(rs, levels[0].roll.shape[2])
        for k, sol in enumerate(levels):
            if sol.cap == 0:
                break
            p = k * step
            for s in range(rs.dice + 1):
                if s == 0 and k:           # permanent points come after the first roll
                    continue
                rr = np.nonzero(reach[s])[0] if k == 0 else np.arange(sol.roll.shape[2])
                for d in range(tab.max_deficit + 1):
                    r = rr[rr + p <= d + 1]
                    r = r[r < sol.roll.shape[2]]
                    if not len(r):
                        continue
                    roll, bank = sol.roll[d, s, r], sol.bank[d, s, r]
                    n = len(r)
                    cols["deficit"] += [d * u] * n
                    cols["dice"] += [rs.dice if s == 0 else s] * n
                    cols["turn_total"] += ((r + p) * u).tolist()
                    cols["permanent"] += [p * u] * n
                    cols["on_board"] += [on_board] * n
                    cols["action"] += np.where(bank >= roll, "bank", "roll").tolist()
                    cols["p_win_roll"] += roll.tolist()
                    cols["p_win_bank"] += [None if not np.isfinite(b) else b
                                           for b in bank.tolist()]
    return cols


def game_rows(rs: RuleSet, tables_dir=None) -> dict[str, list]:
    """The stored two-player table: P(the player to move wins) for every pair of scores."""
    from .game import game_table
    g = game_table(rs, tables_dir=tables_dir, solve_if_missing=False)
    if g is None:
        raise InputError(f"no game table for {rs.name} yet: solve it first with zilch game "
                         f"--rules {rs.name}")
    R = g.W.shape[0]
    a, b = np.meshgrid(np.arange(R), np.arange(R), indexing="ij")
    return {"score": (a.ravel() * rs.unit).tolist(), "opponent": (b.ravel() * rs.unit).tolist(),
            "p_win": g.W.ravel().tolist()}
