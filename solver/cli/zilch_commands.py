"""`zilch`: exact answers for dice games of the Zilch family, from the command line.

Each command parses its options, calls the answer of the same name (answers/, the Python
API) and renders it: text for people, or --json (exactly the answer's to_dict()).  Answers
are imported inside the commands so that `zilch --help` starts fast.
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from ..errors import InputError
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
    overwrite_options,
    play_options,
    table_destination,
    typed,
    write_table,
)

if TYPE_CHECKING:
    from ..render.pictures import Picture

RULES_OPT = click.option(
    "--rules",
    default="farkle",
    show_default=True,
    metavar="PRESET|FILE",
    help="A preset name or a rule-set TOML file.",
)
NOT_ON_BOARD_OPT = click.option(
    "--not-on-board", is_flag=True, help="The player has not banked the entry minimum yet."
)
POLICY_OPT = click.option(
    "--policy",
    default="optimal",
    show_default=True,
    metavar="optimal|FILE",
    help="The optimal policy or a policy file (TOML/JSON, see docs/policies.md).",
)


VS_OPT = click.option(
    "--vs",
    default=None,
    metavar="optimal|points|FILE",
    help="Whole games: the opponent's policy (default: optimal, the game table's play).",
)


def GAME_OPTS(f: F) -> F:
    """Whole games between two policies: --scores and --target (simulate, verify)."""
    f = click.option("--target", type=int, default=None, help="Whole games: play to this target.")(
        f
    )
    return click.option(
        "--scores",
        default=None,
        metavar="ME,OPP",
        help="Whole games: the first player's score and the opponent's (default 0,0).",
    )(f)


ZILCHES_OPT = click.option(
    "--zilches",
    type=int,
    default=0,
    show_default=True,
    help="Zilches in a row before this turn (0-2), where the third costs a penalty.",
)
OPP_ZILCHES_OPT = click.option(
    "--opp-zilches",
    type=int,
    default=0,
    show_default=True,
    help="The opponent's zilches in a row (0-2; two players, with a penalty).",
)

BEAT_OPT = click.option(
    "--beat",
    type=int,
    default=0,
    metavar="POINTS",
    help="Overtaking: the previous player's banked turn total, which a bank must beat "
    "(0: he zilched, or nobody has played).",
)


CHALLENGES_OPT = click.option(
    "--challenges",
    default=None,
    metavar="MINE,OPP",
    help="Challenge rule: the challenges each player has left: both, below, above or none "
    "(below/above the threshold score; default both,both).",
)
ON_BOARD_OPT = click.option(
    "--on-board",
    default=None,
    metavar="MINE,OPP",
    help="Challenge rule: yes/no, whether each player has banked the entry minimum (by "
    "default a positive score is on the board, zero or below is not).",
)


TARGET_OPT = click.option(
    "--target",
    type=int,
    default=None,
    metavar="POINTS",
    help="The game's target instead of the rules' (its tables are the ones zilch game "
    "--target builds).",
)
SOLVE_OPT = click.option(
    "--solve",
    is_flag=True,
    help="Where the game's table is not stored yet: solve it first (estimate, progress), "
    "then answer (without: exit code 3 and the command that builds it).",
)


FROZEN_OPT = click.option(
    "--frozen",
    default=None,
    metavar="D,D,...",
    help="Pyramiding: the dice frozen since the last pick-up of all dice (e.g. 5,5).",
)


def STATE_OPTS(f: F) -> F:
    """Where the turn stands: --dice, --turn, --permanent (advise, endgame, evaluate)."""
    f = click.option("--permanent", type=int, default=0, help="Permanent part of the turn total.")(
        f
    )
    f = click.option("--turn", type=int, default=0, show_default=True, help="Turn total so far.")(f)
    return click.option("--dice", type=int, default=None, help="Dice to roll (default: all).")(f)


def _api() -> ModuleType:
    """The Python API (the package's own functions): each command calls its function."""
    return import_module("..", __package__)


@click.group(
    name="zilch", cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]}
)
@click.version_option(package_name="dicesolver", prog_name="zilch")
def main() -> None:
    """Exact solver for Zilch, Farkle, Zonk and Ten Thousand.

    \b
    Should I roll?      zilch advise --rules farkle --dice 3 --turn 400
    Which dice to keep? zilch advise --rules farkle --dice 6 --roll 1,1,5,3,4,6
    Can I still win?    zilch advise --rules farkle --dice 3 --turn 600
                                     --score 9000 --opponents 10200
    Final round:        zilch endgame --rules zilch-online --final-round
                                      --scores 5000,2500,4900,4950
    Two players:        zilch game --rules farkle --scores 2000,7000
    Strategy card:      zilch strategy --rules zilch
    Exact odds:         zilch odds --rules farkle --dice 6
    Check a simulator:  zilch verify --rules farkle --results my-scores.csv
    Whole policy:       zilch export --rules farkle --format csv --out farkle.csv
    """


@main.command("rules")
@click.argument("name", required=False, metavar="[PRESET|FILE]")
@JSON_OPT
def rules_cmd(name: str | None, as_json: bool) -> None:
    """List the presets, or show one rule set in full."""
    a = _api().describe_rules(name)
    emit(a, as_json, render.presets if name is None else render.rule_set)


@main.command()
@RULES_OPT
@click.option("--dice", type=int, default=None, help="Dice rolled (default: all).")
@JSON_OPT
def odds(as_json: bool, **opts: Any) -> None:
    """Exact odds of one roll: zilch, each combination, best immediate points."""
    emit(_api().odds(**opts), as_json, render.odds)


@main.command()
@RULES_OPT
@STATE_OPTS
@NOT_ON_BOARD_OPT
@click.option(
    "--roll",
    default=None,
    metavar="D,D,...",
    help="The dice just thrown: rank every set-aside choice.",
)
@click.option("--matched", is_flag=True, help="With --roll: the colour pairs match (zonk-detroit).")
@click.option(
    "--take-over",
    default=None,
    metavar="DICE,TOTAL",
    help="Zonk piggyback: take over the previous player's dice and total, or start fresh?",
)
@click.option(
    "--score",
    type=int,
    default=None,
    help="Your score before this turn: advice by the probability of winning.",
)
@click.option(
    "--opponents",
    default=None,
    metavar="A,B,...",
    help="The others' scores, in turn order after you.",
)
@click.option(
    "--final-round",
    is_flag=True,
    help="The final round has been triggered (else inferred from the scores).",
)
@click.option(
    "--last-turn",
    is_flag=True,
    help="Everybody else has finished: this is the last turn of the game.",
)
@ZILCHES_OPT
@OPP_ZILCHES_OPT
@BEAT_OPT
@FROZEN_OPT
@CHALLENGES_OPT
@ON_BOARD_OPT
@click.option(
    "--challenging",
    is_flag=True,
    help="Challenge rule: this turn is a challenge (announced before rolling).",
)
@TARGET_OPT
@SOLVE_OPT
@TABLES_OPT
@JSON_OPT
def advise(as_json: bool, **opts: Any) -> None:
    """Should I roll?  The optimal move and what each move is worth.

    Without scores: by expected points this turn (where the rules charge a penalty for
    the third zilch in a row: by the long-run average points per turn, after --zilches
    zilches in a row).  With --score and --opponents near the end of a game: by the
    probability of winning (last turn, final round, a turn of the game from its stored
    table; Zonk: reaching the target this turn), a roll's set-asides too.
    """
    emit(_api().advise(progress=Bar(), **opts), as_json, render.text)


@main.command()
@RULES_OPT
@click.option("--not-on-board", is_flag=True, help="Card for a player not yet on the board.")
@BEAT_OPT
@TABLES_OPT
@JSON_OPT
def strategy(as_json: bool, **opts: Any) -> None:
    """The strategy card: expected points of a turn and when to bank."""
    emit(_api().strategy(**opts), as_json, render.strategy)


@main.command()
@RULES_OPT
@click.option("--deficit", type=int, default=None, help="Points behind the leader.")
@STATE_OPTS
@NOT_ON_BOARD_OPT
@click.option("--table", is_flag=True, help="The whole last-turn table (see --format, --out).")
@click.option(
    "--final-round", is_flag=True, help="With --scores: the final round, every player's chance."
)
@click.option(
    "--scores",
    default=None,
    metavar="T,A,B,...",
    help="The trigger's score first, then the others in turn order.",
)
@FORMAT_OPT
@click.option("--out", default=None, metavar="PATH", help="With --table: output file.")
@BEAT_OPT
@FROZEN_OPT
@click.option(
    "--challenging",
    is_flag=True,
    help="Challenge rule: the last turn challenges the leader (its bank also comes off him).",
)
@TARGET_OPT
@TABLES_OPT
@JSON_OPT
def endgame(as_json: bool, fmt: str, out: str | None, **opts: Any) -> None:
    """Can I still win?  Last turn: P(win) against a deficit.  Final round: everyone's chance.

    \b
    zilch endgame --rules zilch --deficit 1000
    zilch endgame --rules zilch --deficit 1000 --dice 2 --turn 600
    zilch endgame --rules zilch-online --final-round --scores 5000,2500,4900,4950
    zilch endgame --rules zilch --table --format csv --out last-turn.csv
    """
    given = click.get_current_context().get_parameter_source("fmt") != ParameterSource.DEFAULT
    if not opts["table"] and (out is not None or given):
        raise InputError("--format and --out are for --table (the whole last-turn table)")
    fmt = "json" if as_json and not given else fmt
    if opts["table"]:
        table_destination(fmt, out)
    a = _api().endgame(**opts)
    if opts["table"]:
        write_table(a, fmt, out, "states")
    else:
        emit(a, as_json, render.text)


@main.command()
@RULES_OPT
@POLICY_OPT
@STATE_OPTS
@NOT_ON_BOARD_OPT
@ZILCHES_OPT
@BEAT_OPT
@FROZEN_OPT
@TABLES_OPT
@JSON_OPT
def evaluate(as_json: bool, **opts: Any) -> None:
    """Exact distribution of the points a turn records under a policy."""
    from ..answers import checks

    emit(checks.evaluate(**opts), as_json, render.evaluation)


@main.command()
@RULES_OPT
@POLICY_OPT
@click.option(
    "--turns", type=click.IntRange(1), default=1_000_000, show_default=True, help="Turns to play."
)
@click.option(
    "--seed",
    type=SEED,
    default=0,
    show_default=True,
    help="Seed of the dice (the same seed plays the same turns).",
)
@NOT_ON_BOARD_OPT
@ZILCHES_OPT
@click.option(
    "--long-run",
    is_flag=True,
    help="Turns one after another (the third zilch in a row costs the penalty): the "
    "average points per turn against the exact long-run average.",
)
@click.option(
    "--games",
    type=click.IntRange(1),
    default=None,
    help="Play whole two-player games instead: --policy moving first against --vs; the win "
    "rate next to the exact P(win) (optimal: the game table's play; points: the card).",
)
@VS_OPT
@GAME_OPTS
@click.option(
    "--out",
    default=None,
    metavar="FILE.csv",
    help="Also write every turn score (every game's winner).",
)
@click.option(
    "--log",
    default=None,
    metavar="FILE.jsonl",
    help="Also write every roll and decision, one JSON line each (zilch review reads it).",
)
@overwrite_options
@BEAT_OPT
@TABLES_OPT
@JSON_OPT
def simulate(as_json: bool, out: str | None, long_run: bool, log: str | None, **opts: Any) -> None:
    """Monte Carlo turns (physical dice, seeded), next to the exact figures; with --games,
    whole two-player games (--policy moving first against --vs), the first player's win
    rate next to his exact P(win)."""
    from ..answers import checks

    source = click.get_current_context().get_parameter_source("turns")
    if opts["games"] is not None and source != ParameterSource.DEFAULT:
        raise InputError("--turns counts simulated turns; --games counts whole games: give one")
    if opts["games"] is not None:
        if long_run:
            raise InputError("--long-run plays turns one after another, not --games")
        opts.pop("turns")
        a = checks.simulate(out=out, log=log, progress=Bar(), **opts)
        emit(a, as_json, render.text)
        return
    if long_run:
        if any([opts.pop("force"), opts.pop("append")]):
            raise InputError("--force and --append are for --out and --log: leave them out")
        if out or log or opts["not_on_board"] or opts["zilches"] or opts["beat"]:
            raise InputError(
                "--long-run plays whole runs of turns on the board from no zilch in a row "
                "(with a penalty, so without overtaking): leave out --out, --log, "
                "--not-on-board, --zilches and --beat"
            )
        opts.pop("not_on_board"), opts.pop("zilches"), opts.pop("beat")
        for key in ("games", "vs", "scores", "target"):
            if opts.pop(key) is not None:
                raise InputError(f"--{key} is for --games (whole games), not --long-run")
        emit(checks.simulate_long_run(progress=Bar(), **opts), as_json, render.long_run)
        return
    emit(
        checks.simulate(out=out, log=log, progress=Bar(), **opts),
        as_json,
        render.simulation,
    )


@main.command()
@RULES_OPT
@POLICY_OPT
@click.option(
    "--results",
    default=None,
    metavar="FILE",
    help="Turn scores from your simulator (one per line or a CSV column).",
)
@click.option(
    "--games",
    default=None,
    metavar="FILE",
    help="Whole games from your simulator instead: per line (or CSV column) the winner, 1 "
    "(the first player, --policy) or 2, or the first player's wins, 1 or 0; tie for a tie.",
)
@VS_OPT
@GAME_OPTS
@click.option("--column", default=None, help="Column name in a CSV file with a header.")
@click.option(
    "--rolls",
    is_flag=True,
    help="The file holds single rolls (faces per line): check roll odds instead.",
)
@click.option(
    "--alpha",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.001,
    show_default=True,
    help="Significance level of the verdict.",
)
@NOT_ON_BOARD_OPT
@ZILCHES_OPT
@BEAT_OPT
@TABLES_OPT
@JSON_OPT
def verify(as_json: bool, **opts: Any) -> None:
    """Is your simulator right?  Its turn scores (--results) or whole games' results
    (--games) against the exact figures.  Exit 0 when consistent, 1 when not."""
    from ..answers import checks

    a = checks.verify(**opts)
    emit(a, as_json, render.text)
    sys.exit(0 if a.consistent else 1)


@main.command()
@RULES_OPT
@click.option(
    "--target",
    type=int,
    default=None,
    help="Play to this target instead of the rules' (e.g. a short game).",
)
@click.option(
    "--scores",
    default=None,
    metavar="ME,OPP",
    help="The scores of the player to move and of the opponent (default: 0,0).",
)
@click.option(
    "--fairness",
    is_flag=True,
    help="The head start for the second player that makes the game closest to even.",
)
@ZILCHES_OPT
@OPP_ZILCHES_OPT
@click.option(
    "--lowest",
    type=int,
    default=None,
    help="Where a penalty or a challenge may take a score below zero: the lowest score the "
    "game keeps (default -2000 with a penalty; with challenges the lowest a game from 0-0 "
    "can reach, so nothing is cut; a score stops there).",
)
@BEAT_OPT
@CHALLENGES_OPT
@ON_BOARD_OPT
@click.option(
    "--players",
    type=int,
    default=2,
    show_default=True,
    help="Players in the game; from 3 every seat's chance (--scores: one per seat, the player "
    "to move first), solved in parallel on Dask.",
)
@click.option(
    "--workers",
    type=int,
    default=None,
    help="With --players 3 or more: worker processes of the local cluster (default: this "
    "machine's cores).",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="ADDRESS",
    help="With --players 3 or more: solve on the existing Dask cluster at ADDRESS (e.g. "
    "tcp://10.0.0.5:8786); --tables must then be a folder every worker sees.",
)
@click.option(
    "--timeout",
    type=float,
    default=None,
    metavar="SECONDS",
    help="With --players 3 or more: how long to wait for the cluster (its scheduler to "
    "answer, a worker to join, or one to replace the last one lost) before giving up "
    "(default: 60).",
)
@click.option(
    "--policy",
    default=None,
    metavar="optimal|points|FILE",
    help="The player to move plays this policy (points: the expected-points card; a policy "
    "file, docs/policies.md): his exact P(win) against --vs.",
)
@VS_OPT
@TABLES_OPT
@JSON_OPT
def game(as_json: bool, **opts: Any) -> None:
    """The whole game: the probability that the player to move wins (two players), or every
    seat's chance (--players 3 and more).

    The first use solves and stores the table (a progress bar shows the score sums left;
    with a penalty for the third zilch in a row, the digits settled by the sweeps).
    """
    emit(_api().game(progress=Bar(), **opts), as_json, render.text)


@main.group()
def plot() -> None:
    """Pictures written to a file (PNG, no display needed)."""


def _wrote(picture: Picture) -> None:
    click.echo(f"wrote {picture.wrote}", err=True)


@plot.command("endgame")
@RULES_OPT
@click.option("--out", required=True, metavar="FILE.png", help="The picture's file.")
@NOT_ON_BOARD_OPT
@BEAT_OPT
@TARGET_OPT
@TABLES_OPT
def plot_endgame(**opts: Any) -> None:
    """P(win) of a last turn against the deficit, per dice count, and the bank boundary."""
    from ..render import pictures

    _wrote(pictures.plot_endgame(**opts))


@plot.command("game")
@RULES_OPT
@click.option("--out", required=True, metavar="FILE.png", help="The picture's file.")
@click.option(
    "--target", type=int, default=None, help="The game table's target (default: the rules')."
)
@click.option(
    "--step",
    type=int,
    default=None,
    help="Score grid of the bank heat maps (default: about 20 steps per axis).",
)
@click.option(
    "--players",
    type=int,
    default=2,
    show_default=True,
    help="From 3: each seat's P(win) over the scores of the player to move and the next "
    "player (the N-player table, solved first with zilch game --players).",
)
@click.option(
    "--others",
    type=int,
    default=0,
    show_default=True,
    metavar="POINTS",
    help="With --players 3 or more: the other players' score in the slice drawn.",
)
@TABLES_OPT
def plot_game(**opts: Any) -> None:
    """The win-probability surface and, per dice count, the turn total at which optimal play
    banks, as heat maps over (my score, opponent score); with --players 3 or more, each
    seat's chance over a slice of the N-player table."""
    from ..render import pictures

    _wrote(pictures.plot_game(**opts))


@plot.command("distribution")
@RULES_OPT
@POLICY_OPT
@click.option("--out", required=True, metavar="FILE.png", help="The picture's file.")
@click.option("--results", default=None, metavar="FILE", help="Overlay simulated frequencies.")
@click.option("--column", default=None, help="Column name in a CSV file with a header.")
@NOT_ON_BOARD_OPT
@BEAT_OPT
@TABLES_OPT
def plot_distribution(**opts: Any) -> None:
    """The exact turn-score distribution (with a simulator's frequencies overlaid)."""
    from ..render import pictures

    _wrote(pictures.plot_distribution(**opts))


@main.command()
@RULES_OPT
@FORMAT_OPT
@click.option(
    "--out",
    default=None,
    metavar="PATH",
    help="Output file (default: standard output; parquet needs a file).",
)
@click.option(
    "--objective",
    type=click.Choice(["score", "last-turn", "game", "game-policy", "beat"]),
    default="score",
    show_default=True,
    help="Expected points; P(win) of a last turn by deficit; "
    "the two-player game's start-of-turn table (solved "
    "first with zilch game); game-policy: per score pair and dice left, the turn total "
    "from which the game's optimal play banks; or with overtaking, the strategy card for "
    "every turn total to beat.",
)
@click.option(
    "--max-beat",
    type=int,
    default=None,
    metavar="POINTS",
    help="With --objective beat: the largest total to beat (default 5000).",
)
@click.option(
    "--players",
    type=int,
    default=2,
    show_default=True,
    help="With --objective game: the table of the game among this many players (score_1.. "
    "and p_win_1.., seat 1 the player to move; solved first with zilch game --players).",
)
@BEAT_OPT
@TARGET_OPT
@SOLVE_OPT
@TABLES_OPT
def export(fmt: str, out: str | None, **opts: Any) -> None:
    """The whole policy table, one row per reachable state."""
    table_destination(fmt, out)
    write_table(_api().export(progress=Bar(), **opts), fmt, out)


@main.command("tables")
@click.option(
    "--remove",
    multiple=True,
    metavar="NAME",
    help="Delete this stored table or checkpoint (its name as listed; a pattern such as "
    "'farkle-*' is fine; repeatable).",
)
@click.option("--remove-partial", is_flag=True, help="Delete every checkpoint of a solve.")
@TABLES_OPT
@JSON_OPT
def tables_cmd(as_json: bool, **opts: Any) -> None:
    """The stored tables: rules, kind, target, size, complete or partial (an interrupted
    solve's checkpoint, which the next run resumes); --remove deletes what you name."""
    emit(_api().stored_tables(**opts), as_json, render.stored_tables)


@main.command()
@click.argument("log", metavar="LOG")
@RULES_OPT
@click.option(
    "--objective",
    type=click.Choice(["auto", "points", "game"]),
    default="auto",
    show_default=True,
    help="Value decisions by expected points, or by the probability of winning (the log's "
    "lines give the scores); auto: the game where every line has the scores and the game "
    "table is stored.",
)
@click.option("--player", default=None, help='Only the lines of this player (their "player").')
@TARGET_OPT
@TABLES_OPT
@JSON_OPT
def review(as_json: bool, **opts: Any) -> None:
    """Rate every decision of a JSON-lines log (zilch play, zilch simulate --log, or your
    own: docs/review.md) against the optimal one: the loss of each, errors, blunders and
    the costliest five.  --rules is for lines that do not name theirs."""
    from ..answers.review import review as run

    emit(run(progress=Bar(), **opts), as_json, render.review)


@main.command()
@RULES_OPT
@click.option("--players", type=int, default=2, show_default=True, help="You and 1 to 3 computers.")
@click.option(
    "--people",
    default=None,
    metavar="NAMES",
    help="Hot seat: every seat a person, 2 to 6 names (Ann,Bob); with --dice-from-input a "
    "companion to a real game: the score sheet kept, hints on request.",
)
@play_options("zilch", "Roll real dice and type them (for every player, the computers too).")
@TARGET_OPT
@TABLES_OPT
def play(**opts: Any) -> None:
    """Play a game in the terminal against optimal computer players, or among people at
    one keyboard (--people).  Type the dice to keep (1 5), then r or b; 'hint' shows every
    choice's value, 'best' plays the best move for you, 'quit' leaves.  At the end (or when
    you leave), each person's decisions are reviewed."""
    from .play_zilch import play_game as run

    for a in run(ask=typed, say=click.echo, **opts):
        who = a.items[0].player if a.items else "you"
        label = "your review" if who == "you" else f"review of {who}"
        click.echo(f"\n{label}: {render.review(a)}")


@main.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on "
    "(another than loopback serves the LAN: a warning and a QR code are printed).",
)
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=8000,
    show_default=True,
    help="Port to listen on.",
)
@TABLES_OPT
@click.option("--open", "open_browser", is_flag=True, help="Open the start page in a browser.")
@click.option(
    "--allow-host",
    "allow_hosts",
    multiple=True,
    metavar="NAME",
    callback=lambda ctx, param, value: _host_names(value),
    help="A host name the phones open it by (table.lan), besides its addresses; repeatable. "
    "Other names are refused (against DNS rebinding).",
)
@click.option(
    "--state",
    "state",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder of the game rooms' SQLite file (default: `state` beside the tables folder).",
)
@click.option("--rooms", "list_rooms", is_flag=True, help="List the game rooms kept, and exit.")
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="Worker processes (each device kept to one by its address; Linux): for many "
    "phones at once, one per core.",
)
def serve(
    host: str,
    port: int,
    tables: str | None,
    open_browser: bool,
    allow_hosts: tuple[str, ...],
    state: str | None,
    list_rooms: bool,
    workers: int,
) -> None:
    """The table companion in a browser: should I roll, which dice, the strategy card,
    Yahtzee advice, reviews, game rooms across phones; and the JSON API (POST /api/NAME,
    docs/serve.md)."""
    from ..web.serve import serve as run

    if list_rooms:
        from ..web.room_store import listing_lines

        for line in listing_lines(tables, state):
            click.echo(line)
        return
    run(host, port, tables, open_browser, click.echo, allow_hosts, state, workers)


def _host_names(values: tuple[str, ...]) -> tuple[str, ...]:
    """--allow-host's names, checked (a name or an address, no scheme, no port)."""
    if not values:
        return ()
    from ..web.origin import checked_name

    try:
        return tuple(checked_name(v) for v in values)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None
