"""`yahtzee play --players N [--people A,B]`: a Yahtzee-family game of two to four seats in
the terminal, against computers (Pawlewicz's heuristic) or among people at one keyboard
(hot seat), played on the step engine (match/yahtzee_seats.py: the moves, hints by P(win)
and the log live there; here only the questions asked and the text shown)."""

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
    from ..yahtzee.yahtzee_rules import YahtzeeRules

YOU = "you"


def seats_of(players: int | None, people: Sequence[str] | str | None) -> tuple[list[str], int]:
    """(the people's names, the computers): --players seats in all (default: one per
    person, at least two), the people first; without --people, you and the computers."""
    names = [YOU]
    if people is not None:
        names = [p.strip() for p in people.split(",")] if isinstance(people, str) else list(people)
    seats = players if players is not None else max(2, len(names))
    if isinstance(seats, bool) or not isinstance(seats, int) or not 2 <= seats <= 4:
        raise InputError(f"--players: a game of several seats has 2 to 4, got {players}")
    if len(names) > seats:
        raise InputError(f"--people names {len(names)} players, more than the {seats} seats")
    return names, seats - len(names)


def seats_play(
    rules: str | YahtzeeRules,
    players: int | None,
    people: Sequence[str] | str | None,
    hints: str = "win",
    seed: int | None = None,
    dice_from_input: bool = False,
    log: str | None = None,
    tables: Tables_ = None,
    ask: Callable[[str], str] = input,
    say: Callable[[str], None] = print,
    force: bool = False,
    append: bool = False,
    progress: Progress = SILENT,
) -> list[Review]:
    """One game; each person's review (by P(win), or the expected score with hints
    "expected"), also when the game was left (the decisions made so far)."""
    from ..match.yahtzee_seats import YahtzeeSeats

    humans, computers = seats_of(players, people)
    engine = YahtzeeSeats(rules, tables, hints, progress, whole_games=True)
    seed = new_seed(seed)
    first = engine.start(humans, computers, seed, "input" if dice_from_input else "seed")
    reading = [rules] if isinstance(rules, str) else []
    log_at = open_log(log, "yahtzee", force, append, reading)
    last = play_logged(engine, first, seed, log_at, Terminal(ask, say), _action, hint_lines)
    reviews = engine.reviews(last, log_at[0])
    return [reviews[n] for n in humans if n in reviews]


def _action(session: Session, term: Terminal) -> str | dict[str, Any]:
    """The next action: a computer's moves, a roll, or the person's answer."""
    s, v = session.state, session.view
    who = "" if v["player"] == YOU else f"{v['player']}: "
    if "play" in v["allowed"]:
        return "play"
    if s.game.phase == "roll":
        if s.dice_from == "input":
            whose = "your" if v["player"] == YOU else f"{v['player']}'s"
            return {"action": "roll", "dice": term.dice(v["to_roll"], whose)}
        return "roll"
    named = {"h": "hint", "hint": "hint", "best": "best"}
    if s.game.phase == "keep":
        ask = f"  {who}keep which dice? (e.g. 3 3; all; none; a box to stop; hint; best) > "
        text = term.line(ask)
        if text in named:
            return named[text]
        if not text:
            raise InputError("type the dice to keep (e.g. 3 3), all, none, a box, hint or best")
        if text in ("all", "none") or text[0].isdigit():
            return {"action": "keep", "dice": text}
        return {"action": "box", "box": text}
    text = term.line(f"  {who}which box? (e.g. full_house; hint; best; quit) > ")
    if not text:
        raise InputError("type a box (e.g. full_house), hint or best")
    return named.get(text) or {"action": "box", "box": text}


def hint_lines(e: dict[str, Any]) -> list[str]:
    """The ten best keeps or boxes: P(win) with the expected final score beside (or the
    expected final score alone), and what the P(win) is."""
    lines = []
    if e["objective"] == "win":
        how = "exact" if e["exact"] else "not exact: the others play for the expected score"
        lines.append(f"{'':<24}{'P(win)':>10}{'expected':>10}   ({e['method']}; {how})")
    for o in e["options"][:10]:
        what = o.get("box") or "keep " + (dice_text(o["keep"]) if o["keep"] else "nothing")
        win = f"{o['p_win']:>10.4f}" if "p_win" in o else ""
        lines.append(f"{what:<24}{win}{o['expected_final']:>10.2f}")
    return lines
