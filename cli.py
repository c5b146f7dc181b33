"""`zilch`: exact answers for dice games of the Zilch family, from the command line.

A thin layer: parse, call solver/, print for people (or --json for programs).  Bad input is
one line on stderr and exit code 2.  Heavy modules are imported inside the commands so that
a query starts fast.
"""
from __future__ import annotations

import json
import sys
from fractions import Fraction

import click

from solver import InputError


class OneLineErrors(click.Group):
    """Every usage or input error becomes one line on stderr and exit code 2."""

    def main(self, *args, **kwargs):
        try:
            return super().main(*args, standalone_mode=False, **kwargs)
        except click.exceptions.Exit as e:
            sys.exit(e.exit_code)
        except click.exceptions.Abort:
            click.echo("aborted", err=True)
            sys.exit(130)
        except click.ClickException as e:
            msg = e.format_message().replace("\n", " ")
            ctx = getattr(e, "ctx", None)
            where = f"{ctx.command_path}: " if ctx else f"{self.name}: "
            click.echo(f"{where}error: {msg}", err=True)
            sys.exit(2)
        except InputError as e:
            click.echo(f"{self.name}: error: {e}", err=True)
            sys.exit(2)


def _rules(name: str):
    from solver import rules
    return rules.load(name)


def _frac(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def _emit(data, as_json: bool, text: str) -> None:
    click.echo(json.dumps(data, indent=2) if as_json else text)


def _dice_list(text: str, what: str) -> list[int]:
    try:
        faces = [int(x) for x in text.replace(" ", "").split(",") if x]
    except ValueError:
        raise InputError(f"{what} must be comma-separated die faces such as 1,1,5,3,4,6, "
                         f"got {text!r}") from None
    bad = [f for f in faces if not 1 <= f <= 6]
    if bad:
        raise InputError(f"{what}: a die shows 1..6, got {bad[0]}")
    if not faces:
        raise InputError(f"{what}: no dice given")
    return faces


RULES_OPT = click.option("--rules", "rules_name", default="farkle", show_default=True,
                         metavar="PRESET|FILE", help="A preset name or a rule-set TOML file.")
TABLES_OPT = click.option("--tables", "tables_dir", default=None, metavar="DIR",
                          help="Folder for solved tables (default: $DICESOLVER_TABLES, the "
                               "project's tables/ or the user cache).")
JSON_OPT = click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")


@click.group(name="zilch", cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
def main():
    """Exact solver for Zilch, Farkle, Zonk and Ten Thousand.

    \b
    Should I roll?      zilch advise --rules farkle --dice 3 --turn 400
    Which dice to keep? zilch advise --rules farkle --dice 6 --roll 1,1,5,3,4,6
    Can I still win?    zilch advise --rules farkle --dice 3 --turn 600 --score 9000 --opponents 10200
    Final round:        zilch endgame --rules zilch-online --final-round --scores 5000,2500,4900,4950
    Two players:        zilch game --rules farkle --scores 2000,7000
    Strategy card:      zilch strategy --rules zilch
    Exact odds:         zilch odds --rules farkle --dice 6
    Check a simulator:  zilch verify --rules farkle --results my-scores.csv
    Whole policy:       zilch export --rules farkle --format csv --out farkle.csv
    """


@main.command("rules")
@click.argument("name", required=False, metavar="[PRESET|FILE]")
@JSON_OPT
def rules_cmd(name, as_json):
    """List the presets, or show one rule set in full."""
    from solver import rules
    if not name:
        items = [(n, rules.load(n).description) for n in rules.preset_names()]
        _emit([{"name": n, "description": d} for n, d in items], as_json,
              "\n".join(f"{n:14} {d.split(':')[0].split('(')[0].strip()}" for n, d in items))
        return
    rs = rules.load(name)
    data = dict(name=rs.name, description=rs.description, **rs.canonical(), unit=rs.unit,
                rules_hash=rs.digest())
    if as_json:
        _emit(data, True, "")
        return
    lines = [f"{rs.name}: {rs.description}", "",
             f"dice {rs.dice}; set-aside {rs.set_aside}; hot dice {rs.hot_dice}; "
             f"entry minimum {rs.entry_minimum}; bank minimum {rs.bank_minimum}",
             "groups of equal faces (k dice -> points):"]
    for f in range(6):
        row = ", ".join(f"{k + 1}: {p}" for k, p in enumerate(rs.faces[f]) if p)
        lines.append(f"  face {f + 1}: {row or '-'}")
    for p in rs.patterns:
        extra = f" faces {'-'.join(map(str, p.faces))}" if p.faces else ""
        extra += " (permanent)" if p.permanent else ""
        extra += " (distinct faces)" if p.distinct else ""
        lines.append(f"  {p.kind}{extra}: {p.points}")
    lines.append(f"game: target {rs.target} ({rs.reach.replace('_', ' ')}), end {rs.end}, "
                 f"tie {rs.tie}, piggyback {str(rs.piggyback).lower()}")
    lines.append(f"rules hash {rs.digest()[:16]}")
    click.echo("\n".join(lines))


@main.command()
@RULES_OPT
@click.option("--dice", type=int, default=None, help="Dice rolled (default: all).")
@JSON_OPT
def odds(rules_name, dice, as_json):
    """Exact odds of one roll: zilch, each combination, best immediate points."""
    from solver.odds import roll_odds
    rs = _rules(rules_name)
    n = rs.dice if dice is None else dice
    if not 1 <= n <= rs.dice:
        raise InputError(f"--dice must be 1..{rs.dice} under {rs.name}, got {n}")
    o = roll_odds(rs, n)
    data = {"rules": rs.name, "dice": n, "p_zilch": _frac(o["p_zilch"]),
            "p_zilch_decimal": float(o["p_zilch"]),
            "combinations": [{"combination": c["combination"], "points": c["points"],
                              "probability": _frac(c["probability"]),
                              "decimal": float(c["probability"])} for c in o["combinations"]],
            "best_points": {str(k): {"probability": _frac(v), "decimal": float(v)}
                            for k, v in o["best_points"].items()},
            "mean_best_points": float(o["mean_best_points"])}
    lines = [f"{rs.name}, {n} dice: P(zilch) = {_frac(o['p_zilch'])} = {float(o['p_zilch']):.6f}",
             "", "combination available in the roll      probability"]
    for c in o["combinations"]:
        lines.append(f"  {c['combination']:<22} {c['points']:>6}   {_frac(c['probability']):>14}"
                     f"  {float(c['probability']):.6f}")
    lines += ["", "best immediate points                  probability"]
    for k, v in o["best_points"].items():
        lines.append(f"  {k:>6}{'  (zilch)' if k == 0 else '':<9}{'':>14}{_frac(v):>10}"
                     f"  {float(v):.6f}")
    lines.append(f"  mean {float(o['mean_best_points']):.4f}")
    _emit(data, as_json, "\n".join(lines))


def _state_text(rs, dice, turn, on_board, permanent):
    extra = f", {permanent} of it permanent" if permanent else ""
    board = "" if not (rs.entry_minimum or rs.bank_minimum) else (
        " (on the board)" if on_board else " (not yet on the board)")
    return f"{rs.name}: {dice} dice to roll, turn total {turn}{extra}{board}"


@main.command()
@RULES_OPT
@click.option("--dice", type=int, default=None, help="Dice to roll (default: all).")
@click.option("--turn", type=int, default=0, show_default=True, help="Turn total so far.")
@click.option("--permanent", type=int, default=0, help="Permanent part of the turn total.")
@click.option("--not-on-board", is_flag=True, help="The player has not banked the entry "
                                                   "minimum yet.")
@click.option("--roll", "roll", default=None, metavar="D,D,...",
              help="The dice just thrown: rank every set-aside choice.")
@click.option("--matched", is_flag=True, help="With --roll: the colour pairs match "
                                              "(zonk-detroit).")
@click.option("--take-over", "take_over", default=None, metavar="DICE,TOTAL",
              help="Zonk piggyback: take over the previous player's dice and total, or start "
                   "fresh?")
@click.option("--score", type=int, default=None,
              help="Your score before this turn: advice by the probability of winning.")
@click.option("--opponents", default=None, metavar="A,B,...",
              help="The others' scores, in turn order after you.")
@click.option("--final-round", "mode", flag_value="final-round",
              help="The final round has been triggered (else inferred from the scores).")
@click.option("--last-turn", "mode", flag_value="last-turn",
              help="Everybody else has finished: this is the last turn of the game.")
@TABLES_OPT
@JSON_OPT
def advise(rules_name, dice, turn, permanent, not_on_board, roll, matched, take_over,
           score, opponents, mode, tables_dir, as_json):
    """Should I roll?  The optimal move and what each move is worth.

    Without scores: by expected points this turn.  With --score and --opponents near the
    end of a game: by the probability of winning (last turn, final round; Zonk: reaching the
    target this turn).
    """
    from solver import advice
    rs = _rules(rules_name)
    on_board = not not_on_board
    if score is not None or opponents is not None or mode is not None:
        if score is None or opponents is None:
            raise InputError("end-game advice needs both --score and --opponents")
        if take_over is not None:        # piggyback, by the game's win probability
            opp = _int_list(opponents, "--opponents")
            if len(opp) != 1:
                raise InputError("--take-over with scores is for two players: one opponent")
            data = advice.take_over_game(rs, take_over, score, opp[0], tables_dir)
            best = data["action"]
            _emit(data, as_json,
                  f"{rs.name}: {score} against {data['opponents'][0]}: take over "
                  f"{data['take_over']['dice']} dice and {data['take_over']['turn']} points: "
                  f"P(win) {data['p_win']['take_over']:.6f}; start fresh: "
                  f"{data['p_win']['fresh']:.6f}\n"
                  f"{'TAKE OVER' if best == 'take_over' else 'START FRESH'}")
            return
        if roll is not None:
            raise InputError("--roll gives expected-points advice; leave out "
                             "--score/--opponents")
        n = rs.dice if dice is None else dice
        data = advice.endgame_advice(rs, n, turn, permanent, score,
                                     _int_list(opponents, "--opponents"), mode, tables_dir)
        _emit(data, as_json, _endgame_text(rs, data))
        return
    if take_over is not None:
        data = advice.take_over(rs, take_over, on_board, tables_dir)
        best = data["action"]
        text = (f"{rs.name}: take over {data['take_over']['dice']} dice and "
                f"{data['take_over']['turn']} points: {data['values']['take_over']:.2f}; "
                f"start fresh: {data['values']['fresh']:.2f}\n"
                f"{'TAKE OVER' if best == 'take_over' else 'START FRESH'} "
                f"(by {data['margin']:.2f} expected points)")
        _emit(data, as_json, text)
        return
    n = rs.dice if dice is None else dice
    if roll is not None:
        faces = _dice_list(roll, "--roll")
        data = advice.choices(rs, n, turn, faces, matched, on_board, permanent, tables_dir)
        _emit(data, as_json, _choices_text(rs, data, on_board, permanent))
        return
    data = advice.before_roll(rs, n, turn, on_board, permanent, tables_dir)
    v = data["values"]
    lines = [_state_text(rs, n, turn, on_board, permanent)]
    lines.append(f"{data['action'].upper()}")
    lines.append(f"  roll: {v['roll']:.2f} expected points banked this turn")
    lines.append(f"  bank: {'not allowed (' + data['note'] + ')' if v['bank'] is None else v['bank']}")
    if data["margin"] is not None:
        lines.append(f"  margin: {data['margin']:.2f} points in favour of {data['action']}")
    _emit(data, as_json, "\n".join(lines))


def _int_list(text: str, what: str) -> list[int]:
    try:
        vals = [int(x) for x in text.replace(" ", "").split(",") if x]
    except ValueError:
        raise InputError(f"{what} expects comma-separated integers, got {text!r}") from None
    if not vals:
        raise InputError(f"{what}: no values given")
    return vals


def _endgame_text(rs, d):
    head = (f"{rs.name}: {d['dice']} dice to roll, turn total {d['turn']}"
            f"{', ' + str(d['permanent']) + ' permanent' if d['permanent'] else ''}; "
            f"score {d['score']}, opponents {', '.join(map(str, d['opponents']))}")
    if not d["solved"]:
        return f"{head}\nNOT SOLVED: {d['note']}"
    what = "P(reach the target this turn)" if d["situation"] == "reach target" else "P(win)"
    lines = [head, f"situation: {d['situation']}"
             + (f" (leader {d['leader']}" + (f", {d['tied']} tied" if d['tied'] > 1 else "")
                + (f"; still to play: {', '.join(map(str, d['still_to_play']))}"
                   if d['still_to_play'] else "") + ")" if d["leader"] is not None else ""),
             d["action"].upper(),
             f"  roll: {what} = {d['p_win']['roll']:.6f}",
             "  bank: " + ("not allowed" if d["p_win"]["bank"] is None
                           else f"{what} = {d['p_win']['bank']:.6f}")]
    if d.get("note"):
        lines.append(f"note: {d['note']}")
    return "\n".join(lines)


def _choices_text(rs, data, on_board, permanent):
    head = _state_text(rs, data["dice"], data["turn"], on_board, permanent)
    lines = [head, f"rolled {' '.join(map(str, data['roll']))}"]
    if not data["options"]:
        lines.append(f"ZILCH: the turn ends, {data['zilch_keeps']} points kept")
        return "\n".join(lines)
    lines.append("  set aside        points  turn total  dice left  then   value    loss")
    for o in data["options"]:
        kept = " ".join(map(str, o["keep"]))
        lines.append(f"  {kept:<16} {o['points']:>6}  {o['turn']:>10}  {o['dice_left']:>9}  "
                     f"{o['then']:<5} {o['value']:>8.2f} {o['loss']:>7.2f}")
    return "\n".join(lines)


@main.command()
@RULES_OPT
@click.option("--not-on-board", is_flag=True, help="Card for a player not yet on the board.")
@TABLES_OPT
@JSON_OPT
def strategy(rules_name, not_on_board, tables_dir, as_json):
    """The strategy card: expected points of a turn and when to bank."""
    from solver.policy import score_policy
    rs = _rules(rules_name)
    pol = score_policy(rs, tables_dir)
    on = not not_on_board
    th = pol.bank_thresholds(on)
    data = {"rules": rs.name, "on_board": on, "expected_turn_score": pol.expected_turn_score(on),
            "bank_thresholds": {str(k): v for k, v in th.items()}}
    lines = [f"{rs.name}{'' if on else ' (not yet on the board)'}: a fresh turn is worth "
             f"{data['expected_turn_score']:.4f} points", "dice left   bank from turn total"]
    for k, v in th.items():
        why = "never free to bank (hot dice must be rolled)" if v is None else f"{v}"
        lines.append(f"  {k:>8}   {why}")
    if rs.has_permanent:
        lines.append("(turns without permanent points; with them, see zilch advise --permanent)")
    _emit(data, as_json, "\n".join(lines))


@main.command()
@RULES_OPT
@click.option("--deficit", type=int, default=None, help="Points behind the leader.")
@click.option("--dice", type=int, default=None, help="Dice to roll (default: all).")
@click.option("--turn", type=int, default=0, show_default=True, help="Turn total so far.")
@click.option("--permanent", type=int, default=0, help="Permanent part of the turn total.")
@click.option("--not-on-board", is_flag=True, help="The player has not banked the entry "
                                                   "minimum yet.")
@click.option("--table", is_flag=True, help="The whole last-turn table (see --format, --out).")
@click.option("--final-round", "final_round", is_flag=True,
              help="With --scores: the final round, every player's chance.")
@click.option("--scores", default=None, metavar="T,A,B,...",
              help="The trigger's score first, then the others in turn order.")
@click.option("--format", "fmt", type=click.Choice(["csv", "json", "parquet"]), default="csv",
              show_default=True, help="With --table.")
@click.option("--out", default=None, metavar="PATH", help="With --table: output file.")
@TABLES_OPT
@JSON_OPT
def endgame(rules_name, deficit, dice, turn, permanent, not_on_board, table, final_round,
            scores, fmt, out, tables_dir, as_json):
    """Can I still win?  Last turn: P(win) against a deficit.  Final round: everyone's chance.

    \b
    zilch endgame --rules zilch --deficit 1000
    zilch endgame --rules zilch --deficit 1000 --dice 2 --turn 600
    zilch endgame --rules zilch-online --final-round --scores 5000,2500,4900,4950
    zilch endgame --rules zilch --table --format csv --out last-turn.csv
    """
    from solver import advice
    from solver.endgame import last_turn_table
    rs = _rules(rules_name)
    if final_round or scores:
        if not (final_round and scores):
            raise InputError("the final round needs both --final-round and --scores")
        data = advice.final_round_report(rs, _int_list(scores, "--scores"))
        lines = [f"{rs.name}: final round, win probabilities (ties split)"]
        for p in data["players"]:
            rule = ""
            if "stopping_rule" in p:
                rule = "; banks from " + ", ".join(
                    f"{t} with {n}" for n, t in p["stopping_rule"].items() if t is not None) \
                    + " dice (if the lead stays)"
            lines.append(f"  #{p['player']} ({p['score']}, {p['role']}): "
                         f"{p['p_win']:.6f}{rule}")
        lines.append(f"  sum {data['total']:.12f}")
        _emit(data, as_json, "\n".join(lines))
        return
    if table:
        from solver.export import last_turn_rows, write_rows
        rows = last_turn_rows(rs, tables_dir)
        write_rows(rows, fmt, out, meta={"rules": rs.name, "rules_hash": rs.digest(),
                                         "objective": "last-turn"})
        if out:
            click.echo(f"wrote {len(rows['deficit'])} states to {out}", err=True)
        return
    if deficit is None:
        raise InputError("give --deficit D (or --table, or --final-round --scores ...)")
    if deficit % rs.unit or deficit < 0:
        raise InputError(f"deficit {deficit} is impossible under {rs.name}: a last turn starts "
                         f"0 or more points behind, in multiples of {rs.unit}")
    from solver.policy import score_policy
    n = rs.dice if dice is None else dice
    score_policy(rs, tables_dir).check(n, turn, permanent)
    tab = last_turn_table(rs, tables_dir)
    roll, bank = tab.values(deficit, n, turn, permanent, not not_on_board)
    p = roll if bank is None else max(roll, bank)
    data = {"rules": rs.name, "deficit": deficit, "dice": n, "turn": turn,
            "permanent": permanent, "on_board": not not_on_board, "p_win": p,
            "values": {"roll": roll, "bank": bank},
            "action": "bank" if bank is not None and bank >= roll else "roll"}
    text = (f"{rs.name}: last turn, {deficit} behind, {n} dice to roll, turn total {turn}\n"
            f"P(win) = {p:.6f} ({data['action']}; roll {roll:.6f}, bank "
            f"{'not allowed' if bank is None else format(bank, '.6f')})")
    _emit(data, as_json, text)


POLICY_OPT = click.option("--policy", default="optimal", show_default=True,
                          metavar="optimal|FILE", help="The optimal policy or a policy file "
                                                       "(TOML/JSON, see docs/policies.md).")


def _distribution_data(rs, dist, policy_name, extra=None):
    q = {str(k): dist.quantile(k / 100) for k in (1, 5, 10, 25, 50, 75, 90, 95, 99)}
    data = {"rules": rs.name, "policy": policy_name, "mean": dist.mean, "std": dist.std,
            "p_zilch": dist.p_zilch, "quantiles": q,
            "distribution": {str(t): p for t, p in dist.as_dict().items()},
            "residual": dist.residual}
    data.update(extra or {})
    return data


@main.command()
@RULES_OPT
@POLICY_OPT
@click.option("--dice", type=int, default=None, help="Start with these dice to roll.")
@click.option("--turn", type=int, default=0, show_default=True, help="Start turn total.")
@click.option("--permanent", type=int, default=0, help="Permanent part of the start total.")
@click.option("--not-on-board", is_flag=True)
@TABLES_OPT
@JSON_OPT
def evaluate(rules_name, policy, dice, turn, permanent, not_on_board, tables_dir, as_json):
    """Exact distribution of the points a turn records under a policy."""
    from solver.evaluate import evaluate as run_eval
    from solver.policy import score_policy
    from solver.strategies import resolve
    rs = _rules(rules_name)
    n = rs.dice if dice is None else dice
    score_policy(rs, tables_dir).check(n, turn, permanent)
    strat = resolve(policy, rs, not not_on_board, tables_dir)
    dist = run_eval(rs, strat, not not_on_board, n, turn, permanent)
    data = _distribution_data(rs, dist, policy, {"dice": n, "turn": turn})
    lines = [f"{rs.name}, policy {policy}: from {n} dice and turn total {turn}",
             f"  mean {dist.mean:.6f}   std {dist.std:.6f}   P(zilch) {dist.p_zilch:.6f}",
             "  quantiles " + "  ".join(f"{k}%: {v}" for k, v in data["quantiles"].items()),
             "  total     probability"]
    for t, p in list(dist.as_dict().items())[:40]:
        lines.append(f"  {t:>6}    {p:.10f}")
    if len(dist.totals) > 40:
        lines.append(f"  ... {len(dist.totals) - 40} more totals (--json for all)")
    _emit(data, as_json, "\n".join(lines))


@main.command()
@RULES_OPT
@POLICY_OPT
@click.option("--turns", type=click.IntRange(1), default=1_000_000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--not-on-board", is_flag=True)
@click.option("--out", default=None, metavar="FILE.csv", help="Also write every turn score.")
@TABLES_OPT
@JSON_OPT
def simulate(rules_name, policy, turns, seed, not_on_board, out, tables_dir, as_json):
    """Monte Carlo turns (physical dice, seeded), next to the exact figures."""
    import numpy as np
    from solver.evaluate import evaluate as run_eval
    from solver.simulate import engine, play_turns
    from solver.strategies import resolve
    rs = _rules(rules_name)
    on = not not_on_board
    strat = resolve(policy, rs, on, tables_dir)
    eng = engine(rs)
    tables = strat.compile(eng, rs, on)
    rng = np.random.default_rng(seed)
    batch = 250_000
    parts = []
    with click.progressbar(length=turns, label="simulating", file=sys.stderr) as bar:
        done = 0
        while done < turns:
            k = min(batch, turns - done)
            parts.append(play_turns(eng, strat, k, rng, on, tables=tables))
            done += k
            bar.update(k)
    res = np.concatenate(parts)
    exact = run_eval(rs, strat, on)
    mean, se = float(res.mean()), float(res.std(ddof=1) / np.sqrt(len(res))) if turns > 1 else 0.0
    vals, cnt = np.unique(res, return_counts=True)
    data = {"rules": rs.name, "policy": policy, "turns": turns, "seed": seed, "mean": mean,
            "stderr": se, "exact_mean": exact.mean, "z": (mean - exact.mean) / se if se else 0.0,
            "std": float(res.std()), "exact_std": exact.std,
            "p_zilch_observed": None, "exact_p_zilch": exact.p_zilch,
            "distribution": {str(int(v)): int(c) / turns for v, c in zip(vals, cnt)}}
    if out:
        from solver.export import _atomic_write
        _atomic_write(out, ("score\n" + "\n".join(map(str, res.tolist())) + "\n").encode())
    exact_d = exact.as_dict()
    lines = [f"{rs.name}, policy {policy}: {turns} turns, seed {seed}",
             f"  mean {mean:.4f} +- {se:.4f} (exact {exact.mean:.4f}, z = {data['z']:+.2f})",
             f"  std  {data['std']:.4f} (exact {exact.std:.4f})",
             "  total    observed      exact"]
    order = np.argsort(-cnt)[:15]
    for i in sorted(order, key=lambda i: vals[i]):
        lines.append(f"  {int(vals[i]):>6}  {cnt[i] / turns:.6f}  {exact_d.get(int(vals[i]), 0):.6f}")
    del data["p_zilch_observed"]
    _emit(data, as_json, "\n".join(lines))


@main.command()
@RULES_OPT
@POLICY_OPT
@click.option("--results", required=True, metavar="FILE",
              help="Turn scores from your simulator (one per line or a CSV column).")
@click.option("--column", default=None, help="Column name in a CSV file with a header.")
@click.option("--rolls", "is_rolls", is_flag=True,
              help="The file holds single rolls (faces per line): check roll odds instead.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.001, show_default=True, help="Significance level of the verdict.")
@click.option("--not-on-board", is_flag=True)
@TABLES_OPT
@JSON_OPT
def verify(rules_name, policy, results, column, is_rolls, alpha, not_on_board, tables_dir,
           as_json):
    """Is your simulator right?  Exit 0 when consistent with the exact figures, 1 when not."""
    from solver import verify as V
    rs = _rules(rules_name)
    if is_rolls:
        rep = V.verify_rolls(rs, V.read_rolls(results, rs.dice), alpha)
        rep.update(rules=rs.name, alpha=alpha)
        lines = [f"{rs.name}: {rep['n']} rolls: "
                 + ("CONSISTENT" if rep["consistent"] else "NOT CONSISTENT")
                 + f" with the exact odds at alpha = {alpha}"]
        for n, r in rep["by_dice"].items():
            lines.append(f"  {n} dice: {r['rolls']} rolls, G-test p = {r['p_value']:.3g}; "
                         f"zilch rate {r['zilch_rate']:.5f} vs {r['exact_p_zilch']:.5f} "
                         f"(p = {r['p_value_zilch']:.3g})")
        _emit(rep, as_json, "\n".join(lines))
        sys.exit(0 if rep["consistent"] else 1)
    from solver.evaluate import evaluate as run_eval
    from solver.strategies import resolve
    samples = V.read_scores(results, column)
    strat = resolve(policy, rs, not not_on_board, tables_dir)
    exact = run_eval(rs, strat, not not_on_board)
    v = V.verify_scores(samples, exact, alpha)
    data = dict(v.as_dict(), rules=rs.name, policy=policy, alpha=alpha,
                mean=float(samples.mean()), exact_mean=exact.mean)
    lines = [f"{rs.name}, policy {policy}: {v.n} turn scores are "
             + ("CONSISTENT" if v.consistent else "NOT CONSISTENT")
             + f" with the exact distribution at alpha = {alpha}",
             f"  distribution: G-test p = {v.p_value:.3g} ({v.dof} degrees of freedom)",
             f"  mean: {samples.mean():.4f} vs exact {exact.mean:.4f}, z = {v.mean_z:+.2f} "
             f"(p = {v.p_mean:.3g})"]
    if v.impossible:
        lines.append(f"  totals the rules cannot produce: {', '.join(map(str, v.impossible))}")
    lines.append("  largest discrepancies (totals: observed vs expected):")
    for t, o, e in v.discrepancies:
        lines.append(f"    {t:>12}: {o} vs {e:.1f}")
    _emit(data, as_json, "\n".join(lines))
    sys.exit(0 if v.consistent else 1)


@main.command()
@RULES_OPT
@click.option("--target", type=int, default=None, help="Play to this target instead of the "
                                                       "rules' (e.g. a short game).")
@click.option("--scores", default="0,0", show_default=True, metavar="ME,OPP",
              help="The scores of the player to move and of the opponent.")
@click.option("--fairness", is_flag=True,
              help="The head start for the second player that makes the game closest to even.")
@TABLES_OPT
@JSON_OPT
def game(rules_name, target, scores, fairness, tables_dir, as_json):
    """Two players, the whole game: the probability that the player to move wins.

    The first use solves and stores the table (a progress bar shows the score sums left).
    """
    from solver.game import fairest_head_start, game_table
    rs = _rules(rules_name)
    if target is not None and (target <= 0 or target % rs.unit):
        raise InputError(f"--target must be a positive multiple of {rs.unit}")
    bar = None

    def progress(sigma):
        nonlocal bar
        if bar is None:
            bar = click.progressbar(length=sigma + 1, label="solving score sums",
                                    file=sys.stderr)
            bar.__enter__()
        bar.update(1)
    try:
        g = game_table(rs, target, tables_dir, progress)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    note = ("piggyback included: a bank offers the dice left and the turn total to the "
            "other player") if g.O is not None else None
    if fairness:
        h, p = fairest_head_start(g)
        _emit({"rules": rs.name, "target": g.target, "head_start": h, "p_win_first": p,
               "p_win_first_no_head_start": float(g.W[0, 0]), "note": note}, as_json,
              f"{rs.name} to {g.target}: the first player wins {g.W[0, 0]:.6f} from 0-0; a "
              f"head start of {h} for the second player makes it {p:.6f}"
              + (f"\nnote: {note}" if note else ""))
        return
    pair = _int_list(scores, "--scores")
    if len(pair) != 2:
        raise InputError("--scores expects ME,OPP such as 0,0")
    me, opp = pair
    for v in (me, opp):
        if v < 0 or v % rs.unit or v >= g.W.shape[0] * rs.unit:
            raise InputError(f"--scores: {v} is not a score below the target in units of "
                             f"{rs.unit}")
    p = g.p_win(me, opp)
    _emit({"rules": rs.name, "target": g.target, "scores": [me, opp], "p_win": p,
           "note": note}, as_json,
          f"{rs.name} to {g.target}: the player to move ({me}) against {opp} wins with "
          f"probability {p:.6f}" + (f"\nnote: {note}" if note else ""))


@main.group()
def plot():
    """Pictures written to a file (PNG, no display needed)."""


@plot.command("endgame")
@RULES_OPT
@click.option("--out", required=True, metavar="FILE.png")
@click.option("--not-on-board", is_flag=True)
@TABLES_OPT
def plot_endgame(rules_name, out, not_on_board, tables_dir):
    """P(win) of a last turn against the deficit, per dice count, and the bank boundary."""
    from solver.plots import plot_endgame as draw
    rs = _rules(rules_name)
    draw(rs, out, not not_on_board, tables_dir)
    click.echo(f"wrote {out}", err=True)


@plot.command("game")
@RULES_OPT
@click.option("--out", required=True, metavar="FILE.png")
@click.option("--target", type=int, default=None)
@click.option("--step", type=int, default=None, help="Score grid of the bank heat maps "
                                                     "(default: about 20 steps per axis).")
@TABLES_OPT
def plot_game(rules_name, out, target, step, tables_dir):
    """The win-probability surface and, per dice count, the turn total at which optimal play
    banks, as heat maps over (my score, opponent score)."""
    from solver.game import game_table
    from solver.plots import plot_game as draw
    rs = _rules(rules_name)
    g = game_table(rs, target, tables_dir, solve_if_missing=False)
    if g is None:
        raise InputError(f"no game table for {rs.name} yet: solve it first with zilch game "
                         f"--rules {rules_name}" + (f" --target {target}" if target else ""))
    draw(g, out, step)
    click.echo(f"wrote {out}", err=True)


@plot.command("distribution")
@RULES_OPT
@POLICY_OPT
@click.option("--out", required=True, metavar="FILE.png")
@click.option("--results", default=None, metavar="FILE", help="Overlay simulated frequencies.")
@click.option("--column", default=None)
@click.option("--not-on-board", is_flag=True)
@TABLES_OPT
def plot_distribution(rules_name, policy, out, results, column, not_on_board, tables_dir):
    """The exact turn-score distribution (with a simulator's frequencies overlaid)."""
    from solver.evaluate import evaluate as run_eval
    from solver.plots import plot_distribution as draw
    from solver.strategies import resolve
    from solver.verify import read_scores
    rs = _rules(rules_name)
    strat = resolve(policy, rs, not not_on_board, tables_dir)
    dist = run_eval(rs, strat, not not_on_board)
    samples = read_scores(results, column) if results else None
    draw(rs, dist, out, policy, samples)
    click.echo(f"wrote {out}", err=True)


@main.command()
@RULES_OPT
@click.option("--format", "fmt", type=click.Choice(["csv", "json", "parquet"]), default="csv",
              show_default=True)
@click.option("--out", "out", default=None, metavar="PATH",
              help="Output file (default: standard output; parquet needs a file).")
@click.option("--objective", type=click.Choice(["score", "last-turn", "game"]), default="score",
              show_default=True, help="Expected points; P(win) of a last turn by deficit; or "
                                      "the two-player game's start-of-turn table (solved "
                                      "first with zilch game).")
@TABLES_OPT
def export(rules_name, fmt, out, objective, tables_dir):
    """The whole policy table, one row per reachable state."""
    from solver.export import export_rows, game_rows, last_turn_rows, write_rows
    rs = _rules(rules_name)
    rows = {"score": export_rows, "last-turn": last_turn_rows,
            "game": game_rows}[objective](rs, tables_dir)
    write_rows(rows, fmt, out, meta={"rules": rs.name, "rules_hash": rs.digest(),
                                     "objective": objective})
    if out:
        click.echo(f"wrote {len(next(iter(rows.values())))} rows to {out}", err=True)




# --- the Yahtzee family ------------------------------------------------------------------------
Y_RULES_OPT = click.option("--rules", "rules_name", default="yahtzee", show_default=True,
                           metavar="PRESET", help="yahtzee, yahtzee-free-joker or yatzy.")


def _y_state_opts(f):
    f = click.option("--yahtzee-bonus", is_flag=True,
                     help="The Yahtzee box holds 50 (extra Yahtzees earn the bonus).")(f)
    f = click.option("--upper", type=int, default=0, show_default=True,
                     help="Total of the upper boxes filled so far.")(f)
    f = click.option("--filled", default="", metavar="BOX,BOX,...",
                     help="Boxes already filled, e.g. ones,fullhouse.")(f)
    return f


def _y_table(rs, tables_dir):
    """The stored table; a progress bar only when it has to be solved (a few seconds)."""
    from solver.yahtzee.game import game_table
    bar = None

    def progress(done):
        nonlocal bar
        if bar is None:
            bar = click.progressbar(length=rs.n_boxes, label=f"solving {rs.name} (first use)",
                                    file=sys.stderr)
            bar.__enter__()
        bar.update(1)
    try:
        return game_table(rs, tables_dir, progress=progress)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)


@click.group(name="yahtzee", cls=OneLineErrors,
             context_settings={"help_option_names": ["-h", "--help"]})
def yahtzee_main():
    """Exact optimal solitaire play for Yahtzee and Yatzy.

    \b
    Which dice to keep?  yahtzee advise --dice 1,3,3,5,6 --rolls-left 2
    Which box?           yahtzee advise --dice 2,2,2,5,5 --rolls-left 0 --filled ones
    Expected score:      yahtzee value --rules yatzy
    Check a simulator:   yahtzee simulate --games 100000 --seed 1
    """


@yahtzee_main.command("rules")
@JSON_OPT
def y_rules(as_json):
    """List the rule sets."""
    from solver.yahtzee.rules import PRESETS
    _emit([{"name": n, "description": r.description, "boxes": list(r.boxes)}
           for n, r in PRESETS.items()], as_json,
          "\n".join(f"{n:20} {r.description}" for n, r in PRESETS.items()))


@yahtzee_main.command("advise")
@Y_RULES_OPT
@click.option("--dice", required=True, metavar="D,D,D,D,D", help="The five dice showing.")
@click.option("--rolls-left", type=int, default=2, show_default=True,
              help="Rolls still to come this turn (2 after the first roll, 0: score now).")
@_y_state_opts
@TABLES_OPT
@JSON_OPT
def y_advise(rules_name, dice, rolls_left, filled, upper, yahtzee_bonus, tables_dir, as_json):
    """Every keep (or every open box) ranked by the expected final score from now on."""
    from solver.yahtzee import game
    from solver.yahtzee.rules import load
    rs = load(rules_name)
    hand = game.parse_dice(dice)
    state = game.parse_state(rs, filled, upper, yahtzee_bonus)
    if rolls_left not in (0, 1, 2):
        raise InputError(f"--rolls-left is 0, 1 or 2, got {rolls_left}")
    opts = game.advise(rs, _y_table(rs, tables_dir), state, hand, rolls_left)
    data = {"rules": rs.name, "dice": list(hand), "rolls_left": rolls_left,
            "filled": [b for i, b in enumerate(rs.boxes) if state.mask >> i & 1],
            "upper": upper, "yahtzee_bonus": yahtzee_bonus, "options": opts}
    what = "score in" if rolls_left == 0 else "keep"
    lines = [f"{rs.name}: dice {' '.join(map(str, hand))}, {rolls_left} rolls left; "
             "expected score from now to the end of the game", f"  {what:<22} value      loss"]
    for o in opts[:15]:
        label = o["box"] if "box" in o else (" ".join(map(str, o["keep"])) or "(reroll all)")
        lines.append(f"  {label:<22} {o['value']:9.4f} {o['loss']:9.4f}")
    if len(opts) > 15:
        lines.append(f"  ... {len(opts) - 15} more (--json for all)")
    _emit(data, as_json, "\n".join(lines))


@yahtzee_main.command("value")
@Y_RULES_OPT
@_y_state_opts
@TABLES_OPT
@JSON_OPT
def y_value(rules_name, filled, upper, yahtzee_bonus, tables_dir, as_json):
    """Expected score still to come from a state between turns (default: the empty sheet)."""
    from solver.yahtzee import game
    from solver.yahtzee.rules import load
    rs = load(rules_name)
    state = game.parse_state(rs, filled, upper, yahtzee_bonus)
    v = game.value(rs, _y_table(rs, tables_dir), state)
    _emit({"rules": rs.name, "value": v, "filled": filled, "upper": upper,
           "yahtzee_bonus": yahtzee_bonus}, as_json,
          f"{rs.name}: expected score still to come {v:.7f}")


@yahtzee_main.command("simulate")
@Y_RULES_OPT
@click.option("--games", type=click.IntRange(1), default=100_000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@TABLES_OPT
@JSON_OPT
def y_simulate(rules_name, games, seed, tables_dir, as_json):
    """Optimal play simulated: mean, standard deviation and quantiles, beside the exact mean."""
    import numpy as np
    from solver.yahtzee import game
    from solver.yahtzee.rules import load
    rs = load(rules_name)
    E = _y_table(rs, tables_dir)
    res = game.simulate(rs, E, games, np.random.default_rng(seed))
    se = float(res.std(ddof=1) / np.sqrt(games)) if games > 1 else 0.0
    q = {str(p): float(np.percentile(res, p)) for p in (1, 5, 10, 25, 50, 75, 90, 95, 99)}
    data = {"rules": rs.name, "games": games, "seed": seed, "mean": float(res.mean()),
            "stderr": se, "std": float(res.std()), "exact_mean": float(E[0, 0, 0]),
            "quantiles": q}
    _emit(data, as_json,
          f"{rs.name}: {games} games of optimal play, seed {seed}\n"
          f"  mean {data['mean']:.4f} +- {se:.4f} (exact {data['exact_mean']:.7f})\n"
          f"  std {data['std']:.4f}\n  quantiles "
          + "  ".join(f"{k}%: {v:g}" for k, v in q.items()))


@yahtzee_main.command("export")
@Y_RULES_OPT
@click.option("--format", "fmt", type=click.Choice(["csv", "json", "parquet"]), default="csv",
              show_default=True)
@click.option("--out", default=None, metavar="PATH")
@TABLES_OPT
def y_export(rules_name, fmt, out, tables_dir):
    """The value of every reachable state between turns."""
    from solver.export import write_rows
    from solver.yahtzee import game
    from solver.yahtzee.rules import load
    rs = load(rules_name)
    rows = game.export_rows(rs, _y_table(rs, tables_dir))
    write_rows(rows, fmt, out, meta={"rules": rs.name, "rules_hash": rs.digest(),
                                     "objective": "yahtzee"})
    if out:
        click.echo(f"wrote {len(rows['value'])} states to {out}", err=True)


if __name__ == "__main__":
    main()
