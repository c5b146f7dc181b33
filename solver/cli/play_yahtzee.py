"""`yahtzee play`: a solitaire game of the Yahtzee family in the terminal, played on the
step engine (match/yahtzee_match.py: hints from the optimal strategy, every decision logged as it
is made, the review at the end).  The terminal is reached only through `ask` and `say`, so
a script can play; quit, Ctrl-C or the end of the input leave the game, and the decisions
made so far are reviewed all the same."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..answers.inputs import Tables_
from ..errors import InputError
from ..match.session import Session, dice_text
from ..progress import SILENT, Progress
from .terminal import Terminal, new_seed, open_log, play_logged

if TYPE_CHECKING:
    from ..answers.review import Review


def yahtzee_play(
    rules: str = "yahtzee",
    seed: int | None = None,
    dice_from_input: bool = False,
    log: str | None = None,
    tables: Tables_ = None,
    ask: Callable[[str], str] = input,
    say: Callable[[str], None] = print,
    force: bool = False,
    append: bool = False,
    players: int | None = None,
    people: Sequence[str] | str | None = None,
    hints: str = "win",
    progress: Progress = SILENT,
) -> Review | list[Review] | None:
    """One game; the review of its decisions (review.Review; also when the game was left:
    the decisions made so far), or None where no decision was made.  With players (2 to 4)
    or people: a game of several seats (play_yahtzee_seats.py: against computers or hot
    seat, hints by P(win) or, hints "expected", the expected score) and each person's
    review, a list."""
    from ..match import YahtzeeMatch

    if (players is not None and players != 1) or people is not None:
        from .play_yahtzee_seats import seats_play

        return seats_play(
            rules,
            players,
            people,
            hints,
            seed,
            dice_from_input,
            log,
            tables,
            ask,
            say,
            force,
            append,
            progress,
        )

    engine = YahtzeeMatch(rules, tables)
    seed = new_seed(seed)
    first = engine.start(seed, "input" if dice_from_input else "seed")
    log_at = open_log(log, "yahtzee", force, append, [rules])  # (never over the rule file)
    last = play_logged(engine, first, seed, log_at, Terminal(ask, say), _action, hint_lines)
    return engine.review(last, log_at[0])


def _action(session: Session, term: Terminal) -> str | dict[str, Any]:
    s = session.state
    if s.phase == "roll":
        if s.dice_from == "input":
            return {"action": "roll", "dice": term.dice(5 - len(s.hand))}
        return "roll"
    if s.phase == "keep":
        text = term.line("  keep which dice? (e.g. 3 3; all; none; a box to stop; hint; best) > ")
        named = {"h": "hint", "hint": "hint", "best": "best"}.get(text)
        if named:
            return named
        if not text:  # (an Enter alone keeps nothing only when asked: "none")
            raise InputError("type the dice to keep (e.g. 3 3), all, none, a box, hint or best")
        if text in ("all", "none") or text[0].isdigit():
            return {"action": "keep", "dice": text}
        return {"action": "box", "box": text}
    text = term.line("  which box? (e.g. full_house; hint; best; quit) > ")
    if not text:
        raise InputError("type a box (e.g. full_house), hint or best")
    return {"h": "hint", "hint": "hint", "best": "best"}.get(text) or {"action": "box", "box": text}


def hint_lines(e: dict[str, Any]) -> list[str]:
    """The ten best keeps or boxes with their values (the expected points still to come)."""
    lines = []
    for o in e["options"][:10]:
        what = o.get("box") or "keep " + (dice_text(o["keep"]) if o["keep"] else "nothing")
        lines.append(f"{what:<24}{o['value']:>10.2f}")
    return lines
