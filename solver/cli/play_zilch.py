"""`zilch play`: a game in the terminal between a person and optimal computer players, or
among people at one keyboard (hot seat; with real dice typed: a companion to a game at a
table), played on the step engine (match/zilch_match.py: the rules, the computer's moves and the
hints live there; here only the questions asked and the text shown).

The terminal is reached only through `ask` and `say`, so a script can play (tests feed
standard input).  Quit, Ctrl-C or the end of the input leave the game; the decisions made
so far are reviewed all the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..answers.inputs import Rules, Tables_
from ..errors import InputError
from ..match.session import Session, dice_text
from .terminal import Terminal, new_seed, open_log, play_logged

if TYPE_CHECKING:
    from ..answers.review import Review

YOU = "you"


def play_game(
    rules: Rules = "farkle",
    players: int = 2,
    seed: int | None = None,
    dice_from_input: bool = False,
    log: str | None = None,
    tables: Tables_ = None,
    ask: Callable[[str], str] = input,
    say: Callable[[str], None] = print,
    people: Sequence[str] | str | None = None,
    target: int | None = None,
    force: bool = False,
    append: bool = False,
) -> list[Review]:
    """A game against optimal computer players (`players` seats: you and the computers), or
    among `people` (2 to 6 names, or a comma-separated text: every seat a person, hot seat);
    the log written as it goes; the people's reviews (review.Review) returned at the end
    (also when the game was left: the decisions made so far), by the computer's objective,
    and without the game table the final round's decisions apart, by the probability of
    winning.  target: a game to another target than the rules' (the computers play by that
    game's table)."""
    from ..match import ZilchMatch

    engine = ZilchMatch(rules, tables, target=target)
    if people is None:
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
            raise InputError(f"--players is 2, 3 or 4 (you and 1 to 3 computers), got {players}")
        humans, computers = [YOU], players - 1
    else:
        humans = people_names(people)
        computers = 0
    seed = new_seed(seed)
    dice_from = "input" if dice_from_input else "seed"
    first = engine.start(humans, computers, seed, dice_from)  # (bad names: before the log)
    log_at = open_log(log, "zilch", force, append, [rules])  # (never over the rule file)
    last = play_logged(engine, first, seed, log_at, Terminal(ask, say), _action, hint_lines)
    reviews = engine.reviews(last, log_at[0])
    return [r for name in humans for r in reviews.get(name, [])]


def people_names(people: Sequence[str] | str) -> list[str]:
    names = [p.strip() for p in people.split(",")] if isinstance(people, str) else list(people)
    if not 2 <= len(names) <= 6:
        raise InputError(f"--people names 2 to 6 players (comma-separated), got {len(names)}")
    return names


def _action(session: Session, term: Terminal) -> str | dict[str, Any]:
    """The next action: the computer's turn, a roll, or the person's answer."""
    s = session.state
    seat = s.seats[s.seat]
    who = "" if seat.name == YOU else f"{seat.name}: "
    if s.phase == "roll":
        if s.dice_from == "input":
            whose = "your" if seat.name == YOU else f"{seat.name}'s"
            return {"action": "roll", "dice": term.dice(s.at.dice, whose)}
        return "play" if seat.computer else "roll"
    if s.phase == "keep":
        text = term.line(f"  {who}keep which dice? (e.g. 1 5; hint; best; quit) > ")
        return _named(text) or {"action": "keep", "dice": text}
    total = session.view["turn_total"]
    text = term.line(f"  {who}roll or bank at turn total {total}? (r/b; hint; best; quit) > ")
    move = {"r": "roll", "roll": "roll", "b": "bank", "bank": "bank"}.get(text) or _named(text)
    if move is None:
        raise InputError("type r (roll) or b (bank)")
    return move


def _named(text: str) -> str | None:
    return {"h": "hint", "hint": "hint", "best": "best"}.get(text)


def hint_lines(e: dict[str, Any]) -> list[str]:
    """A hint's table: every set-aside (or the one taken) with the values of rolling and
    banking after it."""
    prob = e["objective"] == "game"
    fmt = "{:.4f}" if prob else "{:.1f}"
    lines = [e["how"]]
    if e["phase"] == "roll":
        row = e["options"][0]
        return lines + [f"rolling {row['dice_left']} dice is worth {fmt.format(row['roll'])}"]
    unit = (
        ("approximate P(win)" if e.get("exact") is False else "P(win)")
        if prob
        else "expected points"
    )
    lines.append(f"{'keep':<14}{'then roll':>12}{'then bank':>12}   ({unit})")
    for o in e["options"]:
        bank = "-" if o["bank"] is None else fmt.format(o["bank"])
        lines.append(f"{dice_text(o['keep']):<14}{fmt.format(o['roll']):>12}{bank:>12}")
    return lines
