"""Answers as text for people (--json prints their to_dict() instead)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from . import versus_text

if TYPE_CHECKING:
    from fractions import Fraction

    from ..answers.advise import Advice
    from ..answers.answer import Answer
    from ..answers.card import Odds, PresetList, RuleSetInfo, Strategy
    from ..answers.checks import Evaluation, LongRun, RollVerdict, ScoreVerdict, Simulation
    from ..answers.endgame import FinalRoundReport, LastTurnAdvice
    from ..answers.endgame_advice import EndgameAdvice
    from ..answers.game_chance import Fairness, GameChance, SeatChances, SeatFairness
    from ..answers.piggyback import GameTakeOver, TakeOver
    from ..answers.ranking import Ranking
    from ..answers.review import Review
    from ..answers.stored import StoredTables
    from ..answers.yahtzee_answers import YahtzeeAdvice, YahtzeePresets, YahtzeeValue
    from ..rules import RuleSet


def frac(p: Fraction) -> str:
    from ..answers.answer import fraction_text  # (loaded with the answer)

    return fraction_text(p)


def dice(n: int) -> str:
    return "1 die" if n == 1 else f"{n} dice"


# --- zilch ---------------------------------------------------------------------------------
def presets(a: PresetList) -> str:
    """One line per preset: its name, then its description's first clause without the
    parenthesised sources, the names in one column however long."""
    import re

    width = max(len(p.name) for p in a.presets) + 2
    lines = []
    for p in a.presets:
        summary = re.sub(r"\s*\([^)]*\)", "", p.description.split(":")[0]).strip()
        lines.append(f"{p.name:{width}}{summary}")
    return "\n".join(lines)


def stored_tables(a: StoredTables) -> str:
    from ..limits import size

    lines = [f"tables in {a.folder}: {len(a.tables)}, {size(a.total_bytes)}"]
    if a.removed is not None:
        lines.insert(0, f"removed {len(a.removed)}: " + (", ".join(a.removed) or "nothing"))
    for t in a.tables:
        target = "" if t.target is None else f" to {t.target}"
        players = "" if t.players in (None, 2) else f", {t.players} players"
        players += "" if t.lowest is None else f", scores from {t.lowest}"
        partial = ", PARTIAL (an interrupted solve: the next run resumes it)"
        lines.append(
            f"  {t.name}\n    {t.rules}: {t.kind}{target}{players}, {size(t.bytes)}"
            + (partial if t.state == "partial" else "")
        )
    return "\n".join(lines)


def rule_set(a: RuleSetInfo) -> str:
    rs = a.ruleset
    lines = [
        f"{rs.name}: {rs.description}",
        "",
        f"dice {rs.dice}; set-aside {rs.set_aside}; hot dice {rs.hot_dice}; "
        f"entry minimum {rs.entry_minimum}; bank minimum {rs.bank_minimum}",
        "groups of equal faces (k dice -> points):",
    ]
    if rs.pyramiding:
        lines.insert(
            3,
            "pyramiding: dice frozen since the last pick-up combine with later rolls of "
            "their face (a roll adds what it raises the group's score by)",
        )
    for f in range(6):
        row = ", ".join(f"{k + 1}: {p}" for k, p in enumerate(rs.faces[f]) if p)
        lines.append(f"  face {f + 1}: {row or '-'}")
    for p in rs.patterns:
        extra = f" faces {'-'.join(map(str, p.faces))}" if p.faces else ""
        extra += " (permanent)" if p.permanent else ""
        extra += " (distinct faces)" if p.distinct else ""
        lines.append(f"  {p.kind}{extra}: {p.points}")
    lines.append(
        f"game: target {rs.target} ({rs.reach.replace('_', ' ')}), end {rs.end}, "
        f"tie {rs.tie}, piggyback {str(rs.piggyback).lower()}"
        + (", overtaking (a bank must beat the previous player's)" if rs.overtaking else "")
        + (
            f", challenge (twice: below {rs.challenge_threshold} and at or above it; a zilch "
            f"costs {rs.challenge_costs[0]} / {rs.challenge_costs[1]})"
            if rs.challenge
            else ""
        )
    )
    lines.append(f"rules hash {rs.digest()[:16]}")
    return "\n".join(lines)


def odds(a: Odds) -> str:
    lines = [
        f"{a.rules}, {dice(a.dice)}: P(zilch) = {frac(a.p_zilch)} = {a.p_zilch_decimal:.6f}",
        "",
        "combination available in the roll      probability",
    ]
    for c in a.combinations:
        lines.append(
            f"  {c.combination:<22} {c.points:>6}   {frac(c.probability):>14}  {c.decimal:.6f}"
        )
    lines += ["", "best immediate points                  probability"]
    for k, v in a.best_points.items():
        lines.append(
            f"  {k:>6}{'  (zilch)' if k == 0 else '':<9}{'':>14}{frac(v.probability):>10}"
            f"  {v.decimal:.6f}"
        )
    lines.append(f"  mean {a.mean_best_points:.4f}")
    return "\n".join(lines)


def _state_text(
    rs: RuleSet,
    dice_left: int,
    turn: int,
    on_board: bool,
    permanent: int,
    frozen: Sequence[int] | None = None,
) -> str:
    extra = f", {permanent} of it permanent" if permanent else ""
    if frozen is not None:  # (pyramiding)
        extra += f", frozen {','.join(map(str, frozen)) or 'nothing'}"
    board = (
        ""
        if not (rs.entry_minimum or rs.bank_minimum)
        else (" (on the board)" if on_board else " (not yet on the board)")
    )
    return f"{rs.name}: {dice(dice_left)} to roll, turn total {turn}{extra}{board}"


def advice(a: Advice) -> str:
    v = a.values
    head = _state_text(a.ruleset, a.dice, a.turn, a.on_board, a.permanent, a.frozen)
    if a.zilches is None:
        what = "expected points banked this turn"
    else:
        head += _zilches_text(a.zilches)
        what = "points by the long-run average (this turn's, a zilch counted at its cost)"
    if v.bank is None:
        assert a.note is not None  # (why banking is not allowed)
        bank = "not allowed (" + a.note + ")"
    else:
        bank = f"{v.bank}"
    lines = [head, a.action.upper(), f"  roll: {v.roll:.2f} {what}", f"  bank: {bank}"]
    if a.margin is not None:
        lines.append(f"  margin: {a.margin:.2f} points in favour of {a.action}")
    return "\n".join(lines)


def _zilches_text(k: int | None) -> str:
    return (
        "" if k is None else f", {k} {'zilch' if k == 1 else 'zilches'} in a row before this turn"
    )


def ranking(a: Ranking) -> str:
    lines = [
        _state_text(a.ruleset, a.dice, a.turn, a.on_board, a.permanent, a.frozen)
        + _zilches_text(a.zilches),
        f"rolled {' '.join(map(str, a.roll))}",
    ]
    if a.objective == "P(win)":
        assert a.opponents is not None  # (a ranking by P(win) has the scores)
        lines[0] += f"; score {a.score}, opponents {', '.join(map(str, a.opponents))}"
        lines.append(f"situation: {a.situation}; values: P(win)")
        if a.method is not None:
            lines.append(approximate(a.method, 1 + len(a.opponents)))
    elif a.zilches is not None:
        lines.append("(values: points by the long-run average, a zilch counted at its cost)")
    if not a.options:
        cost = ""
        if a.zilches == 2 and a.ruleset.penalty(a.on_board):
            cost = f", and the third zilch in a row costs {a.ruleset.penalty(a.on_board)}"
        lines.append(f"ZILCH: the turn ends, {a.zilch_keeps} points kept{cost}")
        return "\n".join(lines)
    lines.append("  set aside        points  turn total  dice left  then   value    loss")
    wide = a.objective == "P(win)"  # (chances: six decimals)
    for o in a.options:
        kept = " ".join(map(str, o.keep))
        value = f"{o.value:>8.6f} {o.loss:>8.6f}" if wide else f"{o.value:>8.2f} {o.loss:>7.2f}"
        lines.append(
            f"  {kept:<16} {o.points:>6}  {o.turn:>10}  {o.dice_left:>9}  "
            f"{o.then:<5} {value}"
            + ("" if o.frozen is None else f"  frozen {','.join(map(str, o.frozen)) or '-'}")
        )
    return "\n".join(lines)


def take_over(a: TakeOver) -> str:
    return (
        f"{a.rules}: take over {dice(a.take_over.dice)} and {a.take_over.turn} points: "
        f"{a.values.take_over:.2f}; start fresh: {a.values.fresh:.2f}\n"
        f"{'TAKE OVER' if a.action == 'take_over' else 'START FRESH'} "
        f"(by {a.margin:.2f} expected points)"
    )


def game_take_over(a: GameTakeOver) -> str:
    return (
        f"{a.rules}: {a.score} against {a.opponents[0]}: take over {dice(a.take_over.dice)} "
        f"and {a.take_over.turn} points: P(win) {a.p_win.take_over:.6f}; start fresh: "
        f"{a.p_win.fresh:.6f}\n"
        f"{'TAKE OVER' if a.action == 'take_over' else 'START FRESH'}"
    )


def approximate(method: str, players: int) -> str:
    """The label of an approximate P(win) (answers/approx_chance.py)."""
    return (
        f"APPROXIMATE P(win) ({method}): no exact table for {players} players is stored; "
        "this turn and the final round exact, the chances after it from the two-player table"
    )


def endgame_advice(a: EndgameAdvice) -> str:
    head = (
        f"{a.rules}: {dice(a.dice)} to roll, turn total {a.turn}"
        f"{', ' + str(a.permanent) + ' permanent' if a.permanent else ''}"
        f"{'' if a.frozen is None else ', frozen ' + (','.join(map(str, a.frozen)) or 'nothing')}; "
        f"score {a.score}, opponents {', '.join(map(str, a.opponents))}"
    )
    what = "P(reach the target this turn)" if a.situation == "reach target" else "P(win)"
    where = ""
    if a.leader is not None:
        assert a.tied is not None  # (given with the leader)
        where = (
            f" (leader {a.leader}"
            + (f", {a.tied} tied" if a.tied > 1 else "")
            + (
                f"; still to play: {', '.join(map(str, a.still_to_play))}"
                if a.still_to_play
                else ""
            )
            + ")"
        )
    lines = [head, f"situation: {a.situation}{where}"]
    if a.method is not None:
        lines.append(approximate(a.method, 1 + len(a.opponents)))
    if a.challenges is not None:
        lines.append(
            f"challenges left: yours {a.challenges[0]}, the opponent's {a.challenges[1]}"
            + ("; this turn is a challenge" if a.challenging else "")
        )
    if a.challenge is not None:
        lines.append(
            ("CHALLENGE" if a.challenge else "do not challenge")
            + f": P(win) {a.p_win_challenge:.6f} with a challenge this turn, "
            f"{a.p_win_no_challenge:.6f} without (the values below: "
            + ("without" if not a.challenging else "with")
            + " one)"
        )
    lines += [
        a.action.upper(),
        f"  roll: {what} = {a.p_win.roll:.6f}",
        "  bank: " + ("not allowed" if a.p_win.bank is None else f"{what} = {a.p_win.bank:.6f}"),
    ]
    if a.p_win_seats is not None:
        lines.append(
            "every seat from the start of this turn (you first, then the opponents in turn "
            "order): " + ", ".join(f"{p:.6f}" for p in a.p_win_seats)
        )
    if a.note:
        lines.append(f"note: {a.note}")
    return "\n".join(lines)


def _threshold(rs: RuleSet, n: int, v: int | None, reached: bool = True) -> str:
    if v is not None:
        return f"{v}"
    if n == rs.dice and rs.hot_dice == "mandatory":
        return "never free to bank (hot dice must be rolled)"
    if not reached:  # (pyramiding: nothing frozen that can grow, with fewer than all dice)
        return "never (or never reached)"
    return "never: rolling is worth more at every reachable total"


def strategy(a: Strategy) -> str:
    rs = a.ruleset
    who = "" if a.on_board else " (not yet on the board)"
    if a.beat:
        who += f", a bank must beat {a.beat}"
    if a.by_zilches is None:
        lines = [
            f"{a.rules}{who}: a fresh turn is worth {a.expected_turn_score:.4f} points",
            "dice left   bank from turn total",
        ]
        if a.by_frozen is None:
            lines += [f"  {n:>8}   {_threshold(rs, n, v)}" for n, v in a.bank_thresholds.items()]
        else:  # pyramiding: by dice left and the frozen dice that can still grow
            lines[-1] = "dice left   frozen        bank from turn total"
            lines += [
                f"  {n:>8}   {'-':<12}  {_threshold(rs, n, v, reached=False)}"
                for n, v in a.bank_thresholds.items()
            ]
            lines += [
                f"  {t.dice:>8}   {','.join(map(str, t.frozen)):<12}  "
                f"{_threshold(rs, t.dice, t.bank_from)}"
                for t in a.by_frozen
            ]
            lines.append("(frozen: the dice frozen since the last pick-up that can still grow)")
    else:  # the three cards side by side
        cards = a.by_zilches
        lines = [
            f"{a.rules}{who}: {a.average_points_per_turn:.4f} points per turn on average "
            f"(the third zilch in a row costs {a.penalty})",
            "            bank from turn total, by zilches in a row before the turn",
            "dice left" + "".join(f"{k:>12}" for k in cards),
        ]
        for n in a.bank_thresholds:
            cells = [cards[k].bank_thresholds[n] for k in cards]
            lines.append(f"  {n:>7}" + "".join(f"{'never' if v is None else v:>12}" for v in cells))
        lines.append("turn value" + "".join(f"{c.value:>12.2f}" for c in cards.values()))
        lines.append("(never: rolling is worth more at every reachable total, or hot dice")
        lines.append(" must be rolled; turn value: the average plus the count's relative value)")
    if rs.has_permanent:
        lines.append("(turns without permanent points; with them, see zilch advise --permanent)")
    return "\n".join(lines)


def last_turn(a: LastTurnAdvice) -> str:
    bank = "not allowed" if a.values.bank is None else format(a.values.bank, ".6f")
    held = "" if a.frozen is None else f", frozen {','.join(map(str, a.frozen)) or 'nothing'}"
    if a.challenging is not None:
        held += (
            ", challenging the leader (a bank also comes off him)"
            if a.challenging
            else ", without a challenge (--challenging: with one)"
        )
    return (
        f"{a.rules}: last turn, {a.deficit} behind, {dice(a.dice)} to roll, turn total "
        f"{a.turn}{held}\nP(win) = {a.p_win:.6f} ({a.action}; roll {a.values.roll:.6f}, bank "
        f"{bank})"
    )


def final_round(a: FinalRoundReport) -> str:
    lines = [f"{a.rules}: final round, win probabilities (ties split)"]
    for p in a.players:
        rule = ""
        if p.stopping_rule is not None:
            rule = (
                "; banks from "
                + ", ".join(f"{t} with {n}" for n, t in p.stopping_rule.items() if t is not None)
                + " dice (if the lead stays)"
            )
        lines.append(f"  #{p.player} ({p.score}, {p.role}): {p.p_win:.6f}{rule}")
    lines.append(f"  sum {a.total:.12f}")
    return "\n".join(lines)


def game(a: GameChance) -> str:
    me, opp = (f"{x}" for x in a.scores)
    if a.zilches is not None:
        me += _zilches_text(a.zilches[0])[: -len(" before this turn")]
        opp += f", {a.zilches[1]}"
    if a.beat:
        me += f", a bank must beat {a.beat}"
    text = (
        f"{a.rules} to {a.target}: the player to move ({me}) against "
        f"{opp} wins with probability {a.p_win:.6f}"
    )
    if a.challenges is not None:
        text += f"\n{_challenge_text(a)}"
    if a.lowest is not None:
        text += f"\n(scores stop at {a.lowest}: the game's lowest score, --lowest)"
    return text + (f"\nnote: {a.note}" if a.note else "")


def _challenge_text(a: GameChance) -> str:
    """Challenges left and the choice at the start of the turn."""
    board = (
        ""
        if a.on_board is None
        else " (on the board: " + ", ".join("yes" if x else "no" for x in a.on_board) + ")"
    )
    assert a.challenges is not None  # (called where the game has challenges)
    head = f"challenges left: yours {a.challenges[0]}, the opponent's {a.challenges[1]}{board}"
    if a.p_win_challenge is None:
        return head + "; none to use at your score this turn"
    verdict = "CHALLENGE" if a.challenge else "do not challenge"
    return (
        f"{head}\n{verdict}: P(win) {a.p_win_challenge:.6f} with a challenge this turn, "
        f"{a.p_win_no_challenge:.6f} without"
    )


def fairness(a: Fairness) -> str:
    text = (
        f"{a.rules} to {a.target}: the first player wins {a.p_win_first_no_head_start:.6f} "
        f"from 0-0; a head start of {a.head_start} for the second player makes it "
        f"{a.p_win_first:.6f}"
    )
    return text + (f"\nnote: {a.note}" if a.note else "")


def evaluation(a: Evaluation) -> str:
    lines = [
        f"{a.rules}, policy {a.policy}: from {dice(a.dice)} and turn total {a.turn}"
        + ("" if a.frozen is None else f", frozen {','.join(map(str, a.frozen)) or 'nothing'}"),
        f"  mean {a.mean:.6f}   std {a.std:.6f}   P(zilch) {a.p_zilch:.6f}",
        "  quantiles " + "  ".join(f"{k}%: {v}" for k, v in a.quantiles.items()),
        "  total     probability",
    ]
    for t, p in list(a.distribution.items())[:40]:
        lines.append(f"  {t:>6}    {p:.10f}")
    if len(a.distribution) > 40:
        lines.append(f"  ... {len(a.distribution) - 40} more totals (--json for all)")
    return "\n".join(lines)


def simulation(a: Simulation) -> str:
    exact = a.exact.as_dict()
    lines = [
        f"{a.rules}, policy {a.policy}: {a.turns} turns, seed {a.seed}",
        f"  mean {a.mean:.4f} +- {a.stderr:.4f} (exact {a.exact_mean:.4f}, z = {a.z:+.2f})",
        f"  std  {a.std:.4f} (exact {a.exact_std:.4f})",
        "  total    observed      exact",
    ]
    top = sorted(a.counts, key=lambda v: -a.counts[v])[:15]
    for v in sorted(top):
        lines.append(f"  {v:>6}  {a.counts[v] / a.turns:.6f}  {exact.get(v, 0):.6f}")
    return "\n".join(lines)


def long_run(a: LongRun) -> str:
    lines = [
        f"{a.rules}, policy {a.policy}: {a.players} players x {a.turns_each} turns, seed {a.seed}",
        f"  average {a.average:.4f} +- {a.stderr:.4f} points per turn (exact "
        f"{a.exact_average:.4f}, z = {a.z:+.2f}; uncorrected {a.raw_average:.4f})",
        "  zilches in a row   turn mean    P(zilch)   relative value",
    ]
    for k, t in a.by_zilches.items():
        lines.append(f"  {k:>16}  {t.mean:>10.4f}  {t.p_zilch:>10.6f}  {t.relative_value:>15.4f}")
    return "\n".join(lines)


def score_verdict(a: ScoreVerdict) -> str:
    lines = [
        f"{a.rules}, policy {a.policy}: {a.n} turn scores are "
        + ("CONSISTENT" if a.consistent else "NOT CONSISTENT")
        + f" with the exact distribution at alpha = {a.alpha}",
        f"  distribution: G-test p = {a.p_value:.3g} ({a.dof} degrees of freedom)",
        f"  mean: {a.mean:.4f} vs exact {a.exact_mean:.4f}, z = {a.mean_z:+.2f} "
        f"(p = {a.p_value_mean:.3g})",
    ]
    if a.impossible_totals:
        lines.append(
            "  totals the rules cannot produce: " + ", ".join(map(str, a.impossible_totals))
        )
    lines.append("  largest discrepancies (totals: observed vs expected):")
    for d in a.largest_discrepancies:
        lines.append(f"    {d['totals']:>12}: {d['observed']} vs {d['expected']:.1f}")
    return "\n".join(lines)


def roll_verdict(a: RollVerdict) -> str:
    lines = [
        f"{a.rules}: {a.n} rolls: "
        + ("CONSISTENT" if a.consistent else "NOT CONSISTENT")
        + f" with the exact odds at alpha = {a.alpha}"
    ]
    for n, r in a.by_dice.items():
        lines.append(
            f"  {dice(int(n))}: {r['rolls']} rolls, G-test p = {r['p_value']:.3g}; "
            f"zilch rate {r['zilch_rate']:.5f} vs {r['exact_p_zilch']:.5f} "
            f"(p = {r['p_value_zilch']:.3g})"
        )
    return "\n".join(lines)


# --- yahtzee -------------------------------------------------------------------------------
def yahtzee_presets(a: YahtzeePresets) -> str:
    return "\n".join(f"{p.name:20} {p.description}" for p in a.presets)


def yahtzee_advice(a: YahtzeeAdvice) -> str:
    what = "score in" if a.rolls_left == 0 else "keep"
    lines = [
        f"{a.rules}: dice {' '.join(map(str, a.dice))}, {a.rolls_left} rolls left; "
        "expected score from now to the end of the game",
        f"  {what:<22} value      loss",
    ]
    for o in a.options[:15]:
        label = o["box"] if "box" in o else (" ".join(map(str, o["keep"])) or "(reroll all)")
        lines.append(f"  {label:<22} {o['value']:9.4f} {o['loss']:9.4f}")
    if len(a.options) > 15:
        lines.append(f"  ... {len(a.options) - 15} more (--json for all)")
    return "\n".join(lines)


def yahtzee_value(a: YahtzeeValue) -> str:
    return f"{a.rules}: expected score still to come {a.value:.7f}"


def seat_chances(a: SeatChances) -> str:
    lines = [f"{a.rules} to {a.target}, {a.players} players (the player to move first)"]
    for i, (sc, p) in enumerate(zip(a.scores, a.p_win), start=1):
        lines.append(f"  seat {i}: score {sc:>6}  P(win) {p:.6f}")
    return "\n".join(lines)


def seat_fairness(a: SeatFairness) -> str:
    lines = [f"{a.rules} to {a.target}, {a.players} players from the start"]
    for i, p in enumerate(a.p_win, start=1):
        lines.append(f"  seat {i}: P(win) {p:.6f}")
    lines.append(f"  the first player's edge over an even share: {a.first_edge:+.6f}")
    return "\n".join(lines)


TEXT: dict[str, Callable[[Any], str]] = {
    "SeatChances": seat_chances,
    "SeatFairness": seat_fairness,
    "Advice": advice,
    "Ranking": ranking,
    "TakeOver": take_over,
    "GameTakeOver": game_take_over,
    "EndgameAdvice": endgame_advice,
    "LastTurnAdvice": last_turn,
    "FinalRoundReport": final_round,
    "GameChance": game,
    "Fairness": fairness,
    "ScoreVerdict": score_verdict,
    "RollVerdict": roll_verdict,
    **versus_text.TEXT,
}


def choice_text(c: dict[str, Any]) -> str:
    """A decision as a person reads it: keep 1,5 and roll / box fullhouse / take over."""
    if "take_over" in c:
        return "take over the offer" if c["take_over"] == "take" else "start fresh"
    if "box" in c:
        return f"score {c['box']}"
    keep = ",".join(map(str, c["keep"])) or "nothing"
    return f"keep {keep}" + (f", then {c['then']}" if "then" in c else "")


def review(a: Review) -> str:
    prob = a.objective == "game"
    fmt = (lambda x: f"{x:.4f}") if prob else (lambda x: f"{x:.2f}")
    lines = [
        f"{a.decisions} decisions reviewed by {a.unit}: {a.errors} errors (loss >= "
        f"{fmt(a.thresholds['error'])}), {a.blunders} blunders (>= "
        f"{fmt(a.thresholds['blunder'])}); total loss {fmt(a.loss_total)}, "
        f"{fmt(a.loss_mean)} per decision"
    ]
    if a.note:
        lines.append(f"note: {a.note}")
    if a.costliest:
        lines.append(f"costliest ({a.unit} lost):")
        for i in a.costliest:
            who = f" ({i.player})" if i.player is not None else ""
            times = f"; {i.times} times in the log" if i.times else ""
            lines.append(
                f"  line {i.line}{who}: {situation_text(i.situation)}: "
                f"{choice_text(i.chosen)} instead of {choice_text(i.best)}: "
                f"loss {fmt(i.loss)} ({i.grade or 'inaccuracy'}{times})"
            )
    else:
        lines.append("no decision lost anything: optimal play throughout")
    return "\n".join(lines)


def situation_text(s: dict[str, Any]) -> str:
    """Where a reviewed decision was taken: the roll and the turn (zilch family), the hand
    and the sheet (Yahtzee), the offer (piggyback)."""
    faces = lambda xs: ",".join(map(str, xs))  # noqa: E731
    if "take_over" in s:
        dice, total = s["take_over"]
        return f"an offer of {dice} dice at {total}"
    if "rolls_left" in s:
        left = s["rolls_left"]
        sheet = f", filled {s['filled']}" if s.get("filled") else ""
        return f"dice {faces(s['dice'])}, {left} roll{'s' * (left != 1)} left{sheet}"
    text = f"rolled {faces(s['roll'])} at turn total {s['turn']}"
    if s.get("permanent"):
        text += f" ({s['permanent']} permanent)"
    if "score" in s:
        text += f", score {s['score']} against {faces(s['opponents'])}"
    return text


def text(a: Answer) -> str:
    """The text of a command whose answer takes one of several shapes."""
    return TEXT[type(a).__name__](a)
