"""`yahtzee`: exact optimal solitaire play for the Yahtzee family, from the command line."""

from __future__ import annotations

import json
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any

import click

from ..render import text as render
from .command_parts import (
    FORMAT_OPT,
    JSON_OPT,
    SEED,
    TABLES_OPT,
    Bar,
    F,
    OneLineErrors,
    emit,
    play_options,
    table_destination,
    typed,
    write_table,
)

if TYPE_CHECKING:
    from ..answers.yahtzee_answers import YahtzeeEvaluation, YahtzeeSimulation

RULES_OPT = click.option(
    "--rules",
    default="yahtzee",
    show_default=True,
    metavar="PRESET|FILE",
    help="A preset (yahtzee rules lists them) or a rule file (docs/rules-format.md).",
)


def _state_opts(f: F) -> F:
    f = click.option(
        "--yahtzee-bonus",
        is_flag=True,
        help="The Yahtzee box holds 50 (extra Yahtzees earn the bonus).",
    )(f)
    f = click.option(
        "--upper",
        type=int,
        default=0,
        show_default=True,
        help="Total of the upper boxes filled so far.",
    )(f)
    f = click.option(
        "--filled",
        default="",
        metavar="BOX,BOX,...",
        help="Boxes already filled, e.g. ones,fullhouse.",
    )(f)
    return f


def _goal_opts(f: F) -> F:
    """--score with --at-least or --beat: play for a final score, not the expected one."""
    f = click.option(
        "--beat",
        type=int,
        default=None,
        metavar="T",
        help="Play for the largest P(final > T) + P(final = T)/2 (a tie counts half).",
    )(f)
    f = click.option(
        "--at-least",
        type=int,
        default=None,
        metavar="T",
        help="Play for the largest P(final score >= T).",
    )(f)
    f = click.option(
        "--score",
        type=int,
        default=None,
        metavar="S",
        help="Points on the sheet so far (the upper bonus included once earned).",
    )(f)
    return f


OPPONENTS_OPT = click.option(
    "--opponents",
    default=None,
    metavar="SHEET;SHEET...",
    help="Rank by P(win) against these sheets: 236 (finished), new (not started), or "
    "'80 f=ones,chance u=3 y' (score, filled boxes, upper total, Yahtzee box holds its points).",
)


def _answer_text(a: Any) -> str:
    """advise/value's text: by P(win) against opponents, by a goal, or None."""
    from ..render.yahtzee_versus_text import opponents

    return opponents(a) if hasattr(a, "opponents_best_mean") else _goal_text(a)


def _goal_text(a: Any) -> str:
    """The goal's answer for people: the chance, beside expected-score play."""
    what = f"final >= {a.at_least}" if a.at_least is not None else f"beating {a.beat}"
    head = f"{a.rules}: score {a.score}, {a.points_needed} points needed"
    if not hasattr(a, "options"):
        p = a.p_at_least if a.at_least is not None else a.p_win
        return f"{head}\n  P({what}) {p:.9f}  (expected final {a.expected_final:.4f})"
    field = "p_at_least" if a.at_least is not None else "p_win"
    lines = [
        f"{head}; dice {' '.join(map(str, a.dice))}, {a.rolls_left} rolls left",
        f"  {'score in' if a.rolls_left == 0 else 'keep':<22} P({what})  expected final",
    ]
    for o in a.options[:15]:
        label = o["box"] if "box" in o else (" ".join(map(str, o["keep"])) or "(reroll all)")
        lines.append(f"  {label:<22} {o[field]:.9f}  {o['expected_final']:9.4f}")
    if len(a.options) > 15:
        lines.append(f"  ... {len(a.options) - 15} more (--json for all)")
    return "\n".join(lines)


def _api() -> ModuleType:
    """The Python API (the package's own functions): each command calls its function."""
    return import_module("..", __package__)


@click.group(
    name="yahtzee", cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]}
)
@click.version_option(package_name="dicesolver", prog_name="yahtzee")
def yahtzee_main() -> None:
    """Exact optimal solitaire play for Yahtzee and Yatzy.

    \b
    Which dice to keep?  yahtzee advise --dice 1,3,3,5,6 --rolls-left 2
    Which box?           yahtzee advise --dice 2,2,2,5,5 --rolls-left 0 --filled ones
    Expected score:      yahtzee value --rules yatzy
    Chance to reach 200: yahtzee value --filled ones,twos --upper 8 --score 8 --at-least 200
    Whole distribution:  yahtzee evaluate --rules yatzy
    Check a simulator:   yahtzee simulate --games 100000 --seed 1
    """


@yahtzee_main.command("rules")
@JSON_OPT
def y_rules(as_json: bool) -> None:
    """List the rule sets."""
    emit(_api().yahtzee_rules(), as_json, render.yahtzee_presets)


@yahtzee_main.command("advise")
@RULES_OPT
@click.option("--dice", required=True, metavar="D,D,D,D,D", help="The dice showing (all of them).")
@click.option(
    "--rolls-left",
    type=int,
    default=2,
    show_default=True,
    help="Rolls still to come this turn (2 after the first roll, 0: score now).",
)
@_state_opts
@_goal_opts
@OPPONENTS_OPT
@TABLES_OPT
@JSON_OPT
def y_advise(as_json: bool, **opts: Any) -> None:
    """Every keep (or every open box) ranked by the expected final score from now on; with
    --score S --at-least T (or --beat T), by the largest chance of that final score."""
    a = _api().yahtzee_advise(progress=Bar(), **opts)
    plain = not hasattr(a, "points_needed") and not hasattr(a, "opponents")
    emit(a, as_json, render.yahtzee_advice if plain else _answer_text)


@yahtzee_main.command("value")
@RULES_OPT
@_state_opts
@_goal_opts
@OPPONENTS_OPT
@TABLES_OPT
@JSON_OPT
def y_value(as_json: bool, **opts: Any) -> None:
    """Expected score still to come from a state between turns (default: the empty sheet);
    with --score S --at-least T (or --beat T), the largest chance of that final score."""
    a = _api().yahtzee_value(progress=Bar(), **opts)
    plain = not hasattr(a, "points_needed") and not hasattr(a, "opponents")
    emit(a, as_json, render.yahtzee_value if plain else _answer_text)


def _evaluation(a: YahtzeeEvaluation) -> str:
    """yahtzee evaluate's answer for people."""
    q = "  ".join(f"{k}%: {v}" for k, v in a.quantiles.items())
    yz = "" if a.p_yahtzee is None else f"; P(Yahtzee box scored) {a.p_yahtzee:.6f}"
    marks = [x for x in (100, 150, 200, 250, 300, 350, 400, 500, 600) if x <= a.highest]
    lines = [
        f"{a.rules}: the exact distribution of the final score under optimal play",
        f"  mean {a.mean:.7f} (the table's {a.table_value:.7f})  std {a.std:.7f}",
        f"  lowest {a.lowest}  highest {a.highest}",
        f"  quantiles {q}",
        f"  P(upper bonus) {a.p_upper_bonus:.6f}{yz}",
        "  P(score >= x): " + "  ".join(f"{x}: {a.p_at_least[x]:.6f}" for x in marks),
    ]
    return "\n".join(lines)


@yahtzee_main.command("evaluate")
@RULES_OPT
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "json", "parquet"]),
    default=None,
    help="Write the table (score, p, p_at_least) instead of the summary (csv without --out).",
)
@click.option("--out", default=None, metavar="PATH", help="The table's file (with --format).")
@click.option("--plot", default=None, metavar="FILE.png", help="Also draw the distribution.")
@TABLES_OPT
@JSON_OPT
def y_evaluate(as_json: bool, fmt: str | None, out: str | None, **opts: Any) -> None:
    """The exact distribution of the final score under optimal play: mean, standard
    deviation, quantiles, P(score >= x) for every x, P(upper bonus), P(Yahtzee).  Exact,
    not sampled (docs/method.md)."""
    if out is not None and fmt is None:
        fmt = "csv"
    if fmt is not None and out is None:
        table_destination(fmt, None)
    a = _api().yahtzee_evaluate(progress=Bar(), out=out, fmt=fmt or "csv", **opts)
    if out is not None:
        click.echo(f"wrote {a.table().rows} scores to {out}", err=True)
    if fmt is not None and out is None:
        write_table(a.table(), fmt, None)
    else:
        emit(a, as_json, _evaluation)


def _simulation(a: YahtzeeSimulation) -> str:
    """yahtzee simulate's answer for people: the sample beside the exact figures."""
    return (
        f"{a.rules}: {a.games} games of optimal play, seed {a.seed}\n"
        f"  mean {a.mean:.4f} +- {a.stderr:.4f}  exact {a.exact_mean:.7f}  z = {a.z:+.2f}\n"
        f"  std {a.std:.4f}  exact "
        + ("(too large to compute)" if a.exact_std is None else f"{a.exact_std:.4f}")
        + "\n  quantiles "
        + "  ".join(f"{k}%: {v:g}" for k, v in a.quantiles.items())
    )


@yahtzee_main.command("simulate")
@RULES_OPT
@click.option(
    "--games", type=click.IntRange(1), default=100_000, show_default=True, help="Games to play."
)
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the dice.")
@TABLES_OPT
@JSON_OPT
def y_simulate(as_json: bool, **opts: Any) -> None:
    """Optimal play simulated: mean, standard deviation and quantiles, beside the exact mean
    and standard deviation (z: the mean's distance from the exact one in standard errors)."""
    emit(_api().yahtzee_simulate(progress=Bar(), **opts), as_json, _simulation)


@yahtzee_main.command("compile")
@JSON_OPT
def y_compile(as_json: bool) -> None:
    """Compile the numba kernels once (about a minute; the README's set-up runs it), so that no
    question waits for the compiler: each kernel a query calls, called on a four-box rule
    file, then kept in numba's disk cache."""
    import time

    from ..answers.yahtzee_compile import warm

    t = time.monotonic()
    asked = warm(Bar())
    seconds = round(time.monotonic() - t, 1)
    if as_json:
        click.echo(json.dumps({"compiled": asked, "seconds": seconds}))
    else:
        click.echo(f"compiled the kernels of: {', '.join(asked)} ({seconds} s)")


@yahtzee_main.command("duel")
@RULES_OPT
@_state_opts
@click.option(
    "--opponent",
    default="new",
    show_default=True,
    metavar="SHEET",
    help="The other player's sheet: 236 (finished), new, or '80 f=ones,chance u=3 y'.",
)
@click.option("--score", type=int, default=None, help="Your points (the difference: minus theirs).")
@click.option("--score-diff", type=int, default=None, help="Your points minus the opponent's.")
@click.option("--dice", default=None, metavar="D,D,D,D,D", help="Rank keeps (boxes) of a hand.")
@click.option("--rolls-left", type=int, default=2, show_default=True, help="With --dice.")
@TABLES_OPT
@JSON_OPT
def y_duel(as_json: bool, **opts: Any) -> None:
    """Two players, solved exactly (small rule files): your chance of winning at your turn,
    both playing their best (a tie counts half); with --dice every keep or box by it."""
    from ..answers.yahtzee_duel import duel_text

    emit(_api().yahtzee_duel(progress=Bar(), **opts), as_json, duel_text)


@yahtzee_main.command("versus")
@RULES_OPT
@click.option(
    "--policy",
    default="heuristic",
    show_default=True,
    metavar="POLICY",
    help="Mine: optimal (= expected), utility:THETA (exponential utility; THETA < 0 "
    "shuns risk) or heuristic (adapts to the opponents' sheets; simulated).",
)
@click.option(
    "--vs",
    default="optimal",
    show_default=True,
    metavar="POLICY",
    help="The others': optimal, expected or utility:THETA.",
)
@click.option(
    "--players", type=click.IntRange(2, 8), default=2, show_default=True, help="Players in all."
)
@click.option(
    "--games",
    type=click.IntRange(1),
    default=1000,
    show_default=True,
    help="Simulated games (the heuristic only).",
)
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the dice.")
@TABLES_OPT
@JSON_OPT
def y_versus(as_json: bool, **opts: Any) -> None:
    """My chance of winning playing --policy against players - 1 opponents playing --vs
    (ties at the top split evenly): exact from the final-score distributions where both
    are score-blind; by simulated games, with the standard error, for the heuristic."""
    from ..render.yahtzee_versus_text import versus

    emit(_api().yahtzee_versus(progress=Bar(), **opts), as_json, versus)


@yahtzee_main.command("export")
@RULES_OPT
@FORMAT_OPT
@click.option(
    "--out",
    default=None,
    metavar="PATH",
    help="Output file (default: standard output; parquet needs a file).",
)
@TABLES_OPT
def y_export(fmt: str, out: str | None, **opts: Any) -> None:
    """The value of every reachable state between turns."""
    table_destination(fmt, out)
    write_table(_api().yahtzee_export(progress=Bar(), **opts), fmt, out, "states")


@yahtzee_main.command("review")
@click.argument("log", metavar="LOG")
@RULES_OPT
@click.option("--player", default=None, metavar="NAME", help="Only this player's decisions.")
@click.option(
    "--by",
    type=click.Choice(["auto", "win", "expected"]),
    default="auto",
    show_default=True,
    help="The value: P(win) against the other sheets (auto: where the log gives them).",
)
@TABLES_OPT
@JSON_OPT
def y_review(as_json: bool, **opts: Any) -> None:
    """Rate every keep and box of a JSON-lines log (yahtzee play, or your own:
    docs/review.md) by the expected final score: the loss of each, errors, blunders and the
    costliest five.  A log of several seats (yahtzee play --players: lines with 'score'
    and 'opponents') is rated by P(win) against the other sheets (--by expected: by the
    expected score), --player NAME's lines only.  --rules is for lines that do not name
    theirs."""
    from ..answers.review import yahtzee_review, yahtzee_win_review

    player, by = opts.pop("player"), opts.pop("by")
    if by == "auto":
        by = "win" if _has_opponents(opts["log"]) else "expected"
    if by == "win":
        a = yahtzee_win_review(player=player, progress=Bar(), **opts)
    elif player is not None:
        raise click.UsageError("--player: only with a review by P(win) (--by win)")
    else:
        a = yahtzee_review(progress=Bar(), **opts)
    emit(a, as_json, render.review)


def _has_opponents(log: str) -> bool:
    """Whether the log's first decision gives the other seats' sheets."""
    from ..play.log import YAHTZEE_KEYS, read_log

    lines = read_log(log, YAHTZEE_KEYS)
    try:
        first = next(lines, None)
    finally:
        lines.close()  # type: ignore[attr-defined]
    return first is not None and "opponents" in first.fields


@yahtzee_main.command("play")
@RULES_OPT
@click.option(
    "--players",
    type=int,
    default=None,
    help="Seats in all, 2 to 4: you (or --people) and computers playing for P(win) "
    "(default: solitaire, or one seat per --people name).",
)
@click.option(
    "--people",
    default=None,
    metavar="A,B,...",
    help="The people's names, in turn order (hot seat: one keyboard); --players adds computers.",
)
@click.option(
    "--hints",
    type=click.Choice(["win", "expected"]),
    default="win",
    show_default=True,
    help="With several seats: hints and computers by P(win) (builds the beat table the "
    "first time: minutes for yahtzee), or by the expected score (no beat table).",
)
@play_options("yahtzee", "Roll real dice and type them.")
@TABLES_OPT
def y_play(**opts: Any) -> None:
    """Play a game in the terminal: type the dice to keep (3,3; all; none), then a box;
    'hint' shows the best choices with their values, 'best' plays the best for you, 'quit'
    leaves.  Solitaire by default; --players 2..4 against computers, --people A,B among
    people (hints by P(win) against the other sheets, the expected final score beside).
    At the end, each person's decisions are reviewed."""
    from .play_yahtzee import yahtzee_play

    a = yahtzee_play(ask=typed, say=click.echo, progress=Bar(), **opts)
    for r in a if isinstance(a, list) else [] if a is None else [a]:
        name = r.items[0].player if r.items else None
        who = f"{name}'s" if name not in (None, "you") else "your"
        click.echo(f"\n{who} review: {render.review(r)}")
