"""`yahtzee play`: a solitaire game of the Yahtzee family in the terminal, with hints from
the optimal strategy (yahtzee advise's values), every decision logged as it is made
(play/log.py) and reviewed at the end (review.py).  The terminal is reached only through
`ask` and `say`, so a script can play."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InputError
from ..play.log import line_text
from .terminal import Quit, Terminal, faces_text, new_seed, open_log


def yahtzee_play(
    rules: str = "yahtzee",
    seed: int | None = None,
    dice_from_input: bool = False,
    log: str | None = None,
    tables=None,
    ask: Callable[[str], str] = input,
    say: Callable[[str], None] = print,
):
    """One game; the review of its decisions (review.Review), or None where left."""
    from ..yahtzee import game as Y
    from ..yahtzee.rules import load
    from .progress import SILENT
    from .review import yahtzee_review
    from .yahtzee import _table

    rs = load(rules)
    E = _table(rs, tables, SILENT)
    seed = new_seed(seed)
    term = Terminal(ask, say, np.random.default_rng(seed), dice_from_input)
    path, out = open_log(log, "yahtzee")

    def hint(opts: list[dict]) -> None:
        for o in opts[:10]:
            what = o.get("box") or "keep " + (" ".join(map(str, o["keep"])) or "nothing")
            say(f"  {what:<24}{o['value']:>10.2f}")

    state = Y.parse_state(rs, "", 0, False)
    total = 0
    say(f"game {seed} (replay it with --seed {seed}); the log goes to {path}")
    say(f"{rs.name}: {rs.n_boxes} turns; optimal play averages {Y.value(rs, E, state):.2f}")
    try:
        with out:
            for turn in range(1, rs.n_boxes + 1):
                filled = [b for i, b in enumerate(rs.boxes) if state.mask >> i & 1]
                say(f"\nturn {turn}: score {total}, upper {state.upper}")
                hand = term.roll(5)
                sheet = {"filled": filled, "upper": state.upper, "yahtzee_bonus": bool(state.yf)}
                for rolls_left in (2, 1, 0):
                    hand.sort()
                    opts = Y.advise(rs, E, state, tuple(hand), rolls_left)
                    left = "1 roll" if rolls_left == 1 else f"{rolls_left} rolls"
                    say(f"  dice {' '.join(map(str, hand))}, {left} left")
                    record: dict[str, Any] = {
                        "rules": rs.name,
                        "dice": list(hand),
                        "rolls_left": rolls_left,
                    }
                    record.update(sheet, n=turn, game=str(seed))
                    while True:
                        ask_for = (
                            "keep which dice? (e.g. 3,3; all; none"
                            if rolls_left
                            else "which box? (e.g. full_house"
                        )
                        text = term.line(f"  {ask_for}; hint; best; quit) > ")
                        if text in ("h", "hint"):
                            hint(opts)
                            continue
                        pick = opts[0] if text == "best" else None
                        try:
                            if rolls_left:
                                record["keep"] = pick["keep"] if pick else _keep(text, hand)
                            else:
                                box = Y.box_name(rs, pick["box"] if pick else text)
                                gain, after = Y.score_box(rs, state, tuple(hand), box)
                                record["box"] = rs.boxes[box]
                        except InputError as e:
                            say(f"  {e}")
                            continue
                        break
                    out.write(line_text(record))
                    out.flush()
                    if rolls_left:
                        hand = list(record["keep"]) + term.roll(5 - len(record["keep"]))
                    else:
                        total += gain
                        state = after
                        say(f"  {rs.boxes[box]}: {gain} points, score {total}")
    except Quit:
        say(f"\ngame left; the log is in {path}")
        return None
    say(f"\nfinal score {total}")
    return yahtzee_review(path, rs.name, tables)


def _keep(text: str, hand: list[int]) -> list[int]:
    """The dice typed to keep: faces, "all" or "none"."""
    if text == "all":
        return list(hand)
    if text in ("none", ""):
        return []
    keep = sorted(faces_text(text))
    if any(keep.count(f) > hand.count(f) for f in set(keep)):
        raise InputError(f"keep {keep}: not among the dice {hand}")
    return keep
