"""Many turns played in batches (play_turns, the one simulator), counted as they come, so
memory does not grow with the turns: every turn's recorded points tallied, and where asked
each turn's score and each roll's decision written out (`zilch simulate --out/--log`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

from ..progress import Progress, steps
from .log import TurnRecorder
from .simulate import play_turns

if TYPE_CHECKING:
    from ..outcomes.model import TurnModel
    from .policies import Policy

BATCH = 250_000  # turns played at once


def count_turns(
    model: TurnModel,
    policy: Policy,
    turns: int,
    rng: np.random.Generator,
    on_board: bool,
    penalty: tuple[int, int],
    progress: Progress,
    scores: BinaryIO | None = None,
    log: BinaryIO | None = None,
    log_fields: dict[str, Any] | None = None,
) -> dict[int, int]:
    """How often each recorded score came (points) in `turns` turns of the compiled
    `policy`; penalty: units a zilch costs on top (recording nothing, recording permanent
    points).  scores: every turn's score written, one per line; log: every roll and
    decision, one JSON line each (its "n" the turn's number; log_fields on every line)."""
    counts: dict[int, int] = {}
    unit = model.rules.unit
    with steps(progress, "simulating", turns):
        done = 0
        while done < turns:
            n = min(BATCH, turns - done)
            rec = None if log is None else TurnRecorder(model, log_fields or {}, done + 1)
            played = play_turns(
                model, policy, n, rng, on_board, penalty=penalty[0], penalty_held=penalty[1],
                record=rec,
            )  # fmt: skip
            if rec is not None and log is not None:
                log.writelines(x.encode() for x in rec.lines())
            pts = played.points * unit
            vals, cnt = np.unique(pts, return_counts=True)
            for v, c in zip(vals.tolist(), cnt.tolist()):
                counts[v] = counts.get(v, 0) + c
            if scores is not None:
                scores.write(("\n".join(map(str, pts.tolist())) + "\n").encode())
            done += n
            progress.advance(n)
    return counts
