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
