"""Answers to "should I roll?" and "which dice do I keep?" from the expected-score policy."""
from __future__ import annotations

from . import InputError
from .dice import colour_match_probability
from .policy import ScorePolicy, score_policy
from .rules import RuleSet
from .scoring import parse_roll, score_outcome


def _state_values(pol: ScorePolicy, dice, turn, on_board, permanent):
    roll, bank = pol.values(dice, turn, on_board, permanent)
    note = None
    if bank is None:
        rs = pol.rules
        if pol.state(dice, turn) == 0:
            note = "a turn starts with a roll" if turn == 0 else "hot dice must be rolled"
        else:
            note = f"the minimum to bank is {rs.min_bank(on_board)}"
    action = "bank" if bank is not None and bank >= roll else "roll"
    return roll, bank, action, note


def before_roll(rs: RuleSet, dice: int, turn: int, on_board: bool = True, permanent: int = 0,
                tables_dir=None) -> dict:
    pol = score_policy(rs, tables_dir)
    pol.check(dice, turn, permanent)
    roll, bank, action, note = _state_values(pol, dice, turn, on_board, permanent)
    return {"rules": rs.name, "dice": dice, "turn": turn, "permanent": permanent,
            "on_board": on_board, "objective": "expected points", "action": action,
            "values": {"roll": roll, "bank": bank},
            "margin": None if bank is None else abs(roll - bank), "note": note}


def choices(rs: RuleSet, dice: int, turn: int, faces: list[int], matched: bool = False,
            on_board: bool = True, permanent: int = 0, tables_dir=None) -> dict:
    """Every set-aside choice of the roll `faces`, ranked by the value of what follows."""
    if len(faces) != dice:
        raise InputError(f"--roll has {len(faces)} dice but {dice} dice were to be rolled")
    pol = score_policy(rs, tables_dir)
    pol.check(dice, turn, permanent)
    outcome = parse_roll(rs, faces, matched)
    if matched and not (rs.colour_pairs and colour_match_probability(outcome.counts)):
        raise InputError("--matched: these dice cannot form three colour pairs under "
                         f"{rs.name}")
    options = []
    for c in score_outcome(rs, outcome).choices:
        new_turn, new_perm = turn + c.points, permanent + c.permanent
        nxt = c.left or rs.dice
        roll, bank, then, _ = _state_values(pol, nxt, new_turn, on_board, new_perm)
        value = roll if then == "roll" else bank
        keep = [f + 1 for f, k in enumerate(c.kept) for _ in range(k)]
        options.append({"keep": keep, "points": c.points, "permanent": c.permanent,
                        "turn": new_turn, "dice_left": c.left, "hot_dice": c.left == 0,
                        "then": then, "value": value})
    options.sort(key=lambda o: -o["value"])
    for o in options:
        o["loss"] = options[0]["value"] - o["value"]
    recorded = permanent if permanent >= rs.min_bank(on_board) else 0
    return {"rules": rs.name, "dice": dice, "turn": turn, "permanent": permanent,
            "on_board": on_board, "roll": sorted(faces), "zilch": not options,
            "zilch_keeps": recorded, "options": options,
            "action": options[0]["then"] if options else None}


def take_over(rs: RuleSet, spec: str, on_board: bool = True, tables_dir=None) -> dict:
    """Zonk piggyback: take the previous player's dice left and turn total, or start fresh."""
    if not rs.piggyback:
        raise InputError(f"--take-over: {rs.name} has no piggyback rule")
    try:
        dice, total = (int(x) for x in spec.split(","))
    except ValueError:
        raise InputError(f"--take-over expects DICE,TOTAL such as 3,450, got {spec!r}") from None
    pol = score_policy(rs, tables_dir)
    pol.check(dice, total)
    if total == 0:
        raise InputError("--take-over: a total of 0 is a fresh start")
    over = pol.values(dice, total, on_board)[0]      # taking over means rolling those dice
    fresh = pol.values(rs.dice, 0, on_board)[0]
    return {"rules": rs.name, "take_over": {"dice": dice, "turn": total},
            "action": "take_over" if over > fresh else "fresh",
            "values": {"take_over": over, "fresh": fresh}, "margin": abs(over - fresh)}
