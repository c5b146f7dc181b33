"""Answers to "should I roll?" and "which dice do I keep?" from the expected-score policy."""
from __future__ import annotations

import numpy as np

from . import InputError
from .dice import colour_match_probability
from .policy import ScorePolicy, score_policy
from .rules import RuleSet
from .scoring import parse_roll, score_outcome
from .turn import state_index


def _state_values(pol: ScorePolicy, dice, turn, on_board, permanent):
    roll, bank = pol.values(dice, turn, on_board, permanent)
    note = None
    if bank is None:
        rs = pol.rules
        if state_index(rs, dice, turn) == 0:
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


def _offer(rs: RuleSet, spec: str) -> tuple[int, int]:
    """A piggyback offer DICE,TOTAL as given to --take-over."""
    if not rs.piggyback:
        raise InputError(f"--take-over: {rs.name} has no piggyback rule")
    try:
        dice, total = (int(x) for x in spec.split(","))
    except ValueError:
        raise InputError(f"--take-over expects DICE,TOTAL such as 3,450, got {spec!r}") from None
    return dice, total


def take_over(rs: RuleSet, spec: str, on_board: bool = True, tables_dir=None) -> dict:
    """Zonk piggyback: take the previous player's dice left and turn total, or start fresh."""
    dice, total = _offer(rs, spec)
    pol = score_policy(rs, tables_dir)
    pol.check(dice, total)
    if total == 0:
        raise InputError("--take-over: a total of 0 is a fresh start")
    over = pol.values(dice, total, on_board)[0]      # taking over means rolling those dice
    fresh = pol.values(rs.dice, 0, on_board)[0]
    return {"rules": rs.name, "take_over": {"dice": dice, "turn": total},
            "action": "take_over" if over > fresh else "fresh",
            "values": {"take_over": over, "fresh": fresh}, "margin": abs(over - fresh)}


def take_over_game(rs: RuleSet, spec: str, score: int, opponent: int, tables_dir=None) -> dict:
    """Zonk piggyback in a two-player game: take over the offer or start fresh, by the
    probability of winning (the stored game table)."""
    dice, total = _offer(rs, spec)
    for what, x in (("--score", score), ("--opponents", opponent)):
        _check_score(rs, what, x)
        if _reached(rs, x):
            raise InputError(f"{what} {x}: the game is over at {rs.target}")
    if not 1 <= dice <= rs.dice or total <= 0 or total % rs.unit or total > opponent:
        raise InputError(f"--take-over {spec}: impossible offer (1 to {rs.dice} dice, a total "
                         f"that is a positive multiple of {rs.unit}, at most the opponent's "
                         f"score {opponent}, which includes it)")
    g = _stored_game(rs, [opponent], tables_dir)
    if g is None or g.O is None:
        raise InputError(f"the {rs.name} game table is not stored: solve it first with "
                         f"zilch game --rules {rs.name}")
    over, fresh = g.take_over(score, opponent, dice, total), g.p_win(score, opponent)
    return {"rules": rs.name, "score": score, "opponents": [opponent],
            "take_over": {"dice": dice, "turn": total},
            "action": "take_over" if over > fresh else "fresh",
            "p_win": {"take_over": over, "fresh": fresh}, "margin": abs(over - fresh)}


# --- end-game ("can I still win?") ------------------------------------------------------------
def _reached(rs: RuleSet, score: int) -> bool:
    return score > rs.target if rs.reach == "more_than" else score >= rs.target


def _check_score(rs: RuleSet, what: str, score: int) -> None:
    if score < 0 or score % rs.unit:
        raise InputError(f"{what} {score} is impossible under {rs.name}: scores are "
                         f"non-negative multiples of {rs.unit}")
    if 0 < score < rs.entry_minimum:
        raise InputError(f"{what} {score} is impossible under {rs.name}: the first bank is at "
                         f"least {rs.entry_minimum}")


def endgame_situation(rs: RuleSet, score: int, opponents: list[int], mode: str | None):
    """(kind, leader, tied, players still to play after me) from the scores in turn order
    after me.  kind: "last turn", "final round", "reach target" or "outside"."""
    if rs.target is None:
        raise InputError(f"{rs.name} has no target: scores do not change the advice")
    _check_score(rs, "--score", score)
    for o in opponents:
        _check_score(rs, "--opponents score", o)
    if rs.end == "instant":
        if any(o >= rs.target for o in opponents) or score >= rs.target:
            raise InputError(f"under {rs.name} reaching {rs.target} ends the game at once: "
                             "a score at or above it means the game is over")
        return "reach target", None, None, []
    if _reached(rs, score):
        raise InputError(f"your score {score} has already reached the target {rs.target}: "
                         "you triggered the final round and have no turn left in it")
    if mode == "last-turn":
        remaining, done = [], opponents
    else:
        trig = next((i for i, o in enumerate(opponents) if _reached(rs, o)), None)
        if trig is None:
            if mode == "final-round":
                raise InputError(f"--final-round: no opponent has reached the target "
                                 f"{rs.target}")
            return "outside", None, None, opponents
        remaining, done = opponents[:trig], opponents[trig:]
    if not done:
        raise InputError("--last-turn needs the other players' scores (--opponents)")
    leader = max(done)
    if score >= leader:
        raise InputError(f"your score {score} is not behind the leader's {leader}: a final-round "
                         "turn always starts behind")
    if any(r >= leader for r in remaining):
        raise InputError("a player still to play cannot be level with or ahead of the leader")
    kind = "last turn" if not remaining else "final round"
    return kind, leader, done.count(leader), remaining


def _stored_game(rs: RuleSet, opponents: list[int], tables_dir):
    """The two-player game table if it applies and is stored (a query never solves it)."""
    from .game import game_table
    if len(opponents) != 1:
        return None
    return game_table(rs, tables_dir=tables_dir, solve_if_missing=False)


def endgame_advice(rs: RuleSet, dice: int, turn: int, permanent: int, score: int,
                   opponents: list[int], mode: str | None, tables_dir=None) -> dict:
    """ROLL or BANK by the probability of winning (or of reaching the target this turn)."""
    from .endgame import last_turn_table, perm_step, solve_final_round, solve_final_turn
    pol = score_policy(rs, tables_dir)
    pol.check(dice, turn, permanent)
    kind, leader, tied, remaining = endgame_situation(rs, score, opponents, mode)
    on_board = score > 0 or not rs.entry_minimum
    out = {"rules": rs.name, "dice": dice, "turn": turn, "permanent": permanent,
           "score": score, "opponents": opponents, "situation": kind}
    g = _stored_game(rs, opponents, tables_dir) if kind in ("outside", "reach target") else None
    if kind == "outside" or g is not None:
        if g is None:
            out.update(action=None, p_win=None, solved=False, note=(
                "nobody has reached the target yet: this turn may trigger the final round, and "
                "its value depends on the game going on; that needs the full-game table, "
                "which covers two players and must be solved first (zilch game --rules "
                f"{rs.name}); no end-game advice is given rather than a guess"))
            return out
        from .game import turn_values
        levels = turn_values(g, score, opponents[0])
        step = perm_step(rs)
        k = permanent // (step * rs.unit) if step else 0
        if k >= len(levels):
            roll = bank = 1.0
        else:
            r_, b_ = levels[k].at(state_index(rs, dice, turn), (turn - permanent) // rs.unit)
            roll, bank = float(r_[0]), float(b_[0])
        bank = bank if np.isfinite(bank) else None
        action = "bank" if bank is not None and bank >= roll else "roll"
        out.update(situation="game", action=action, p_win={"roll": roll, "bank": bank},
                   solved=True, leader=None, tied=None, still_to_play=[],
                   margin=None if bank is None else abs(roll - bank),
                   p_win_game=g.p_win(score, opponents[0]))
        if g.O is not None:
            out["note"] = ("piggyback included: banking offers your dice left and turn total "
                           "to the opponent, who takes them over where that beats a fresh start")
        return out
    u = rs.unit
    if kind == "reach target":
        need = rs.target - score           # reach >= target this turn
        H = max(need // u, 0) + 1
        U = (np.arange(H) >= need // u).astype(float)[None, :]
        levels = solve_final_turn(rs, U, np.ones(1), on_board)
        row = 0
    elif kind == "last turn":
        levels, row = last_turn_table(rs, tables_dir).lookup(leader - score, on_board)
    else:
        fr = solve_final_round(rs, leader, tied, [score] + remaining, turn)
        me = fr.players[0]
        levels, row = me.levels(0), 0
        out["p_win_all"] = {"leaders": fr.p_leaders, "you": fr.p_players[0],
                            "later": fr.p_players[1:]}
    step = perm_step(rs)
    k = permanent // (step * u) if step else 0
    if k >= len(levels):
        roll = bank = 1.0
    else:
        r_, b_ = levels[k].at(state_index(rs, dice, turn), (turn - permanent) // u)
        roll, bank = float(r_[row]), float(b_[row])
    bank = bank if np.isfinite(bank) else None
    action = "bank" if bank is not None and bank >= roll else "roll"
    out.update(action=action, p_win={"roll": roll, "bank": bank}, solved=True,
               leader=leader, tied=tied, still_to_play=remaining,
               margin=None if bank is None else abs(roll - bank))
    if kind == "reach target":
        out["note"] = (f"probability of reaching {rs.target} in this turn (reaching it wins at "
                       "once); it is not the chance of winning the game")
    return out


def final_round_report(rs: RuleSet, scores: list[int]) -> dict:
    """Each player's chance of winning from the start of the final round, the player who
    triggered it first, and each remaining player's stopping rule (if the lead stays)."""
    from .endgame import solve_final_round, solve_last_turn, stopping_rule
    if rs.target is None or rs.end != "final_round":
        raise InputError(f"{rs.name} has no final round")
    if len(scores) < 2:
        raise InputError("--scores needs the trigger's score and at least one other player's")
    for s in scores:
        _check_score(rs, "--scores", s)
    trigger, others = scores[0], scores[1:]
    if not _reached(rs, trigger):
        raise InputError(f"the first score ({trigger}) must have reached the target {rs.target}"
                         " to trigger the final round")
    fr = solve_final_round(rs, trigger, 1, others)
    players = [{"player": 1, "score": trigger, "role": "triggered the final round",
                "p_win": fr.p_leaders}]
    for i, (s, pt, p) in enumerate(zip(others, fr.players, fr.p_players), start=2):
        if pt.solved is None:        # the last player: a last turn against the trigger
            levels, row = solve_last_turn(rs, [trigger - s], s > 0 or not rs.entry_minimum), 0
        else:
            levels, row = pt.levels(pt.row(trigger // rs.unit, 1)), 0
        players.append({"player": i, "score": s, "role": "to play", "p_win": p,
                        "stopping_rule": {str(n): t for n, t in stopping_rule(
                            rs, levels, row, s, trigger).items()}})
    return {"rules": rs.name, "scores": scores, "players": players,
            "total": fr.total}
