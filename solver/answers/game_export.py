"""The policy inside the two-player game, exported (zilch export --objective game-policy):
for every pair of scores and every number of dice, the turn total from which optimal play
banks, and where banking is not monotone in the total, the set of totals it banks at.

Each pair's turn is the game table's own (GameTable.turns: the play advise recommends and
the game plot draws), solved a block of pairs at a time; the totals are those a turn can
reach (the stored reach sweep), no permanent points held.  Past the turn's grid banking is
optimal (the grid stops where banking is certain), so `bank_from` always exists.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..progress import SILENT, Progress, steps
from ..tables import Tables
from .inputs import refuse_pyramiding

PAIRS = 512  # score pairs solved at once


def _ranges(totals: np.ndarray, unit: int, start: int) -> str:
    """The totals banked at (units, ascending, below `start`) and every total from start
    on, as points ranges: "50-300;450;700-"."""
    open_end = f"{start * unit}-"
    if not len(totals):
        return open_end
    breaks = np.nonzero(np.diff(totals) != 1)[0]
    starts = np.append(totals[0], totals[breaks + 1])
    ends = np.append(totals[breaks], totals[-1])
    runs = [f"{s * unit}" if s == e else f"{s * unit}-{e * unit}" for s, e in zip(starts, ends)]
    return ";".join(runs + [open_end])


def game_policy_rows(tab: Tables, progress: Progress = SILENT) -> tuple[dict, dict[str, list]]:
    """One row per pair of scores (score, opponent: the player to move's, the other's)
    and dice count: p_win (the pair's chance from the start of the turn), bank_from (the
    smallest total from which optimal play banks at every reachable total), monotone
    (no reachable total below bank_from banks) and bank_totals (the reachable totals it
    banks at, as points ranges: "a-b;c;d-", the last open; just "bank_from-" where
    monotone).  With mandatory hot dice all N dice are never a free choice, so N is left
    out.  The game to tab.rules' target; TableMissing where nobody solved it.  Returns
    (what the export's header adds, the columns)."""
    from ..variants.plain import PlainSolution
    from .game_tables import stored_game

    rs = tab.rules
    refuse_pyramiding(rs, "the game's policy table")
    v, solution = stored_game(tab)
    if not isinstance(solution, PlainSolution):
        raise InputError(
            f"{rs.name} {v.having}: the game's policy table is exported for the plain "
            "two-player game (zilch export --objective game gives its table)"
        )
    g = solution.game
    R, u = g.W.shape[0], rs.unit
    dice = [n for n in range(rs.dice, 0, -1) if not (n == rs.dice and rs.hot_dice == "mandatory")]
    a, b = np.meshgrid(np.arange(R), np.arange(R), indexing="ij")
    pairs = np.column_stack([a.ravel(), b.ravel()])
    cols: dict[str, list] = {
        c: []
        for c in ("score", "opponent", "dice", "p_win", "bank_from", "monotone", "bank_totals")
    }
    with steps(progress, "solving the turns of score pairs", len(pairs)):
        for lo in range(0, len(pairs), PAIRS):
            rows = pairs[lo : lo + PAIRS]
            sol = g.turns(rows).levels()[0]
            L = sol.roll.shape[2]
            reach = tab.reachable(L)
            for n in dice:
                s = n  # (the classic states: s = n dice to roll)
                banks = (sol.bank[:, s] >= sol.roll[:, s]) & reach[s][None, :]
                rolls = ~banks & reach[s][None, :]
                rolls[:, 0] = False
                last_roll = np.where(
                    rolls.any(axis=1), L - 1 - np.argmax(rolls[:, ::-1], axis=1), -1
                )
                for i, (x, y) in enumerate(rows.tolist()):
                    after = np.nonzero(reach[s, last_roll[i] + 1 :])[0]
                    start = last_roll[i] + 1 + (int(after[0]) if len(after) else 0)
                    below = np.nonzero(banks[i, :start])[0]
                    cols["score"].append(x * u)
                    cols["opponent"].append(y * u)
                    cols["dice"].append(n)
                    cols["p_win"].append(float(g.W[x, y]))
                    cols["bank_from"].append(int(start * u))
                    cols["monotone"].append(not len(below))
                    cols["bank_totals"].append(_ranges(below, u, start))
            progress.advance(len(rows))
    return {"target": g.target, "permanent": 0}, cols
