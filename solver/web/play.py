"""The play screens: a Zilch-family game against one to three optimal computers, hot seat
for two to six people on one phone, companion to a real game with real dice (every roll
typed or tapped), and Yahtzee solitaire, all with hints on request and each person's
review at the end.  The games are the step engines' (match/: what `zilch play` and
`yahtzee play` play); this module only keeps them in the visitor's session, turns a
posted form into the engine's actions and renders the state.

A game lives in its visitor's session (sessions.py) under an id of its own: a page posts
its move with the move number it was drawn at, so a second tap on a stale page (or two
requests at once) is refused, never applied twice.  Every move runs in a worker thread
under the game's lock; the pages redirect after a post (a reload repeats nothing)."""

from __future__ import annotations

import re
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from ..errors import InputError, TableMissing
from . import calls
from . import forms as F
from .app_state import web_of
from .origin import check_csrf
from .pages import (
    context,
    fields,
    page,
    refuse,
    rules_choice,
    yahtzee_choice,
    yahtzee_choices,
)
from .screens import APPROXIMATE
from .sessions import set_session_cookie

if TYPE_CHECKING:
    from ..match import Step, YahtzeeMatch, ZilchMatch
    from ..match.yahtzee_match import YahtzeeState
    from ..match.yahtzee_seats import YahtzeeSeats
    from ..rules import RuleSet
    from ..yahtzee.yahtzee_rules import YahtzeeRules
    from .app_state import Web

GAMES = 4  # games one session keeps (the newest); an older one is forgotten
FEED = 80  # events shown of what happened since the person's last move
MODES = {  # mode -> (title, what it is)
    "computer": ("Against the computer", "You against one to three optimal computers"),
    "hotseat": ("Hot seat", "Two to six people passing one phone"),
    "companion": ("Companion", "A real game with real dice: the score sheet, advice on request"),
    "yahtzee": (
        "Yahtzee",
        "Yahtzee solitaire, or two to four: against the computer, hot seat, real dice",
    ),
}
PEOPLE = 6  # name fields on the set-up form
YAHTZEE_SEATS = 4  # a Yahtzee game of several: 2 to 4 seats (match/yahtzee_seats.py)
SETUP_FIELDS = (
    "mode",
    "rules",
    "target",
    "computers",
    "seed",
    "yahtzee_rules",
    "real_dice",
    "players",
    "people",
)


@dataclass
class Game:
    """One game in a session: its engine and state, the move number pages post back, what
    to show (what happened, the hint asked for, the refusal of the last move), the score
    sheet (each turn's points), the reviews once it is over."""

    id: str
    mode: str
    engine: Any
    state: Any
    rules_value: str
    version: int = 0
    feed: list[dict] = field(default_factory=list)
    hint: dict | None = None
    error: str | None = None
    sheet: list[int | None] = field(default_factory=list)  # each turn's points (None: zilch)
    reviews: Any = None
    review_error: str | None = None
    table: bool = False  # (Yahtzee of two to four seats: match.YahtzeeSeats)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def kind(self) -> str:
        if self.mode != "yahtzee":
            return "zilch"
        return "yseats" if self.table else "yahtzee"


# --- setting up a game ---------------------------------------------------------------------
async def play_home(request: Request) -> Response:

    return page(request, "play.html", context(request, {}, title="Play", modes=MODES))


async def setup(request: Request) -> Response:
    """The set-up form of a mode (GET), or the game started (POST: then its page)."""

    form = await fields(request)
    asked = F.text(form, "mode")
    mode = asked if asked in MODES else "computer"
    title = MODES[mode][0]
    ctx = context(request, form, title=title, mode=mode, modes=MODES, people=PEOPLE)
    ctx["yahtzee_presets"] = yahtzee_choices(request)  # (and this session's uploads)
    ctx["names"] = _names_shown(form, mode)
    ctx["yseats"] = YAHTZEE_SEATS
    if request.method == "POST":
        try:
            if asked != mode:
                raise InputError(f"no such game {asked!r}: {', '.join(MODES)}")
            game = await _start(request, form, mode, ctx)
        except InputError as e:
            refuse(ctx, str(e))
            game = None
        if game is not None:
            cookies: list[str] = []
            s = web_of(request).session_for(request, cookies)
            with s.lock:
                games = s.data.setdefault("games", OrderedDict())
                games[game.id] = game
                while len(games) > GAMES:
                    games.popitem(last=False)
            response = RedirectResponse(f"/play/g/{game.id}", status_code=303)
            if cookies:
                set_session_cookie(response, cookies[0])
            return response
    return page(request, "play_setup.html", ctx)


def _names_shown(form: dict[str, Any], mode: str) -> list[str]:
    if mode == "yahtzee":  # (the people of a Yahtzee game of several; "you" alone)
        got = [F.text(form, f"name{i}") for i in range(1, YAHTZEE_SEATS + 1)]
        return got if any(got) else ["you", "", "", ""]
    if mode == "computer":
        return [F.text(form, "name1") or "you"]
    got = [F.text(form, f"name{i}") for i in range(1, PEOPLE + 1)]
    if not any(got):
        got = ["Player 1", "Player 2"] + [""] * (PEOPLE - 2)
    return got


def _people(form: dict[str, Any], mode: str) -> list[str]:
    names = [n for n in _names_shown(form, mode) if n]
    if mode != "computer" and not 2 <= len(names) <= PEOPLE:
        raise InputError(
            f"a {MODES[mode][0].lower()} game has 2 to {PEOPLE} players: type their names"
        )
    return names


def _seed(form: dict[str, Any]) -> int | None:
    from ..match.session import check_seed

    seed = F.whole(form, "seed", "Seed")
    return None if seed is None else check_seed(seed)


async def _start(
    request: Request, form: dict[str, Any], mode: str, ctx: dict[str, Any]
) -> Game | None:
    """The new game, or None where the page shows why not (a table to build first)."""
    web = web_of(request)
    seed = _seed(form)
    if mode == "yahtzee":
        return await _start_yahtzee(request, web, form, mode, ctx, seed)
    return await _start_zilch(request, web, form, mode, ctx, seed)


async def _start_yahtzee(
    request: Request,
    web: Web,
    form: dict[str, Any],
    mode: str,
    ctx: dict[str, Any],
    seed: int | None,
) -> Game | None:
    """A Yahtzee game (its first roll made, on seeded dice), or None where its table is
    offered as a build first."""
    value = F.text(form, "yahtzee_rules") or "yahtzee"
    rules = _yahtzee_rules(request, value)
    from ..answers.yahtzee_answers import yahtzee_rule_set

    rs = yahtzee_rule_set(rules)  # (read once: its dice, and its hash the engines' key)
    players = F.whole(form, "players", "Players") or 1
    seats = _yahtzee_seats(form, players) if players != 1 else None
    back = "/play/setup?" + F.query(form, SETUP_FIELDS) + _names_query(form)
    try:  # (the Yahtzee table: stored, or offered as a build, as the Yahtzee screen's)
        await web.answer("yahtzee_advise", {"rules": rules, "dice": [1] * rs.dice})
    except TableMissing as e:
        ctx["offer"] = web.offer(e, back)
        return None
    if seats is not None:
        return await _start_yseats(web, form, ctx, seed, (value, rules, rs.digest()), seats, back)
    make = lambda: _yahtzee_engine(web, rules)  # (its table read from disk: a thread)
    engine = await run_in_threadpool(web.engines.get, ("yahtzee", rs.digest()), make)
    if F.flag(form, "real_dice"):  # (every roll typed: a companion to a real game)
        return _new_game(mode, engine, await run_in_threadpool(engine.start, seed, "input"), value)
    first = await run_in_threadpool(engine.start, seed)
    rolled = await run_in_threadpool(engine.apply, first.state, "roll")  # (turn 1's dice)
    game = _new_game(mode, engine, rolled, value)
    game.feed = list(first.events + rolled.events)
    return game


def _yahtzee_rules(request: Request, value: str) -> str | YahtzeeRules:
    """The rules field's choice: a preset's name (the server reads no file of its own) or
    this session's upload (InputError once it is gone: one line, never a traceback)."""
    rules = yahtzee_choice(request, value)
    if isinstance(rules, str):
        calls.checked_preset("rules", rules, calls.yahtzee_presets(), None)
    return rules


def _yahtzee_seats(form: dict[str, Any], players: int) -> tuple[list[str], int]:
    """(the people's names, the computers) of a Yahtzee game of `players` seats: the
    people first (names given, else "you" alone, "Player K" for several)."""
    from ..match.session import names_of

    if not 2 <= players <= YAHTZEE_SEATS:
        raise InputError(f"a Yahtzee game has 1 to {YAHTZEE_SEATS} players, got {players}")
    people = F.whole(form, "people", "People") or 1
    if not 1 <= people <= players:
        raise InputError(f"people: 1 to the {players} players, got {people}")
    typed = [F.text(form, f"name{i}") for i in range(1, people + 1)]
    names = [t or ("you" if people == 1 else f"Player {i}") for i, t in enumerate(typed, 1)]
    names_of(names, players - people, YAHTZEE_SEATS)  # (bad names: said before any build)
    return names, players - people


async def _start_yseats(
    web: Web,
    form: dict[str, Any],
    ctx: dict[str, Any],
    seed: int | None,
    chosen: tuple[str, str | YahtzeeRules, str],
    seats: tuple[list[str], int],
    back: str,
) -> Game | None:
    """A Yahtzee game of two to four (match.YahtzeeSeats) under `chosen` (the field's
    value, the rules, their hash), its first roll made where a person starts on seeded dice; None
    where the beat table (hints by P(win)) is offered as a build first, beside "play now"
    by the expected score."""
    value, rules, digest = chosen
    hints = "expected" if F.flag(form, "points") else "win"
    if hints == "win":
        try:  # (the beat table, every level: the value of a fresh sheet reads level 0)
            await web.answer("yahtzee_value", {"rules": rules, "score": 0, "beat": 1})
        except TableMissing as e:
            ctx["offer"] = web.offer(e, back)
            ctx["points_instead"] = True
            return None
    make = lambda: _yseats_engine(web, rules, hints)  # (tables read from disk: a thread)
    key = ("yahtzee-seats", digest, hints)  # (the hash, never the name: two uploads may
    # share a name and differ in their boxes, and must not share an engine nor its tables)
    engine = await run_in_threadpool(web.engines.get, key, make)
    dice_from = "input" if F.flag(form, "real_dice") else "seed"
    people, computers = seats
    first = await run_in_threadpool(engine.start, people, computers, seed, dice_from)
    steps = [first]
    if dice_from == "seed" and not first.view["computer"]:
        steps.append(await run_in_threadpool(engine.apply, first.state, "roll"))
    game = _new_game("yahtzee", engine, steps[-1], value)
    game.table = True
    game.feed = [e for st in steps for e in st.events]
    return game


def _yseats_engine(web: Web, rules: str | YahtzeeRules, hints: str) -> YahtzeeSeats:
    from ..match.yahtzee_seats import YahtzeeSeats

    return YahtzeeSeats(rules, web.query_store, hints)


async def _start_zilch(
    request: Request,
    web: Web,
    form: dict[str, Any],
    mode: str,
    ctx: dict[str, Any],
    seed: int | None,
) -> Game | None:
    """A Zilch-family game, or None where the game table the computers would play by is
    offered as a build first."""
    from ..match.session import names_of

    value, rules = rules_choice(request, form)
    target = F.whole(form, "target", "Target")
    people = _people(form, mode)
    computers = 0
    if mode == "computer":
        computers = F.whole(form, "computers", "Computers") or 1
        if not 1 <= computers <= 3:
            raise InputError(f"play against 1 to 3 computers, got {computers}")
    names_of(people, computers, PEOPLE)  # (bad names: said before any table is offered)
    players = len(people) + computers
    stored = await _game_stored(web, rules, target, players)
    # (three players or more without their table: an approximate chance to win, from the
    # two-player table; that one offered as a build where missing: seconds, not hours)
    approx = players > 2 and not stored and await _game_stored(web, rules, target, 2)
    if mode == "computer" and not (stored or approx) and not F.flag(form, "points"):
        # (the computers play best by the chance to win: its table offered as a build)
        try:
            asked = 2 if players > 2 and await _supported(web, rules, target, players) else players
            await web.answer("game", _game_kwargs(rules, target, asked))
        except TableMissing as e:
            back = "/play/setup?" + F.query(form, SETUP_FIELDS) + _names_query(form)
            ctx["offer"] = web.offer(e, back)
            ctx["points_instead"] = True
            return None
        except InputError:
            pass  # (no such table for these rules: by expected points, as zilch play)
    ready = stored or approx
    engine = await run_in_threadpool(_zilch_engine, web, rules, value, target, players, ready)
    dice_from = "input" if mode == "companion" else "seed"
    first = await run_in_threadpool(engine.start, people, computers, seed, dice_from)
    return _new_game(mode, engine, first, value)


def _names_query(form: dict[str, Any]) -> str:
    names = [(f"name{i}", F.text(form, f"name{i}")) for i in range(1, PEOPLE + 1)]
    return "&" + urlencode([(k, v) for k, v in names if v]) if any(v for _, v in names) else ""


def _game_kwargs(rules: str | RuleSet, target: int | None, players: int) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"rules": rules, "players": players}
    if target is not None:
        kwargs["target"] = target
    return kwargs


async def _game_stored(web: Web, rules: str | RuleSet, target: int | None, players: int) -> bool:
    """Whether the game table of this many players is stored (the computers then play,
    and the hints value, by the chance to win)."""

    def look() -> bool:
        import dicesolver as ds

        try:
            return ds.game_table_status(rules, target, players, tables=web.query_store).stored
        except InputError:
            return False

    return await run_in_threadpool(look)


async def _supported(web: Web, rules: str | RuleSet, target: int | None, players: int) -> bool:
    """Whether these rules have a game among this many players (else no P(win) at all)."""

    def look() -> bool:
        import dicesolver as ds

        try:
            ds.game_table_status(rules, target, players, tables=web.query_store)
            return True
        except InputError:
            return False

    return await run_in_threadpool(look)


def _zilch_engine(
    web: Web, rules: str | RuleSet, value: str, target: int | None, players: int, stored: bool
) -> ZilchMatch:
    from ..match import ZilchMatch
    from ..rules import RuleSet, load

    rs = rules if isinstance(rules, RuleSet) else load(rules)
    key = ("zilch", rs.digest(), target, players, stored)
    return web.engines.get(key, lambda: ZilchMatch(rules, web.query_store, target=target))


def _yahtzee_engine(web: Web, rules: str | YahtzeeRules) -> YahtzeeMatch:
    from ..match import YahtzeeMatch

    return YahtzeeMatch(rules, web.query_store)


def _new_game(
    mode: str, engine: ZilchMatch | YahtzeeMatch | YahtzeeSeats, first: Step, rules_value: str
) -> Game:
    return Game(
        secrets.token_urlsafe(16), mode, engine, first.state, rules_value, feed=list(first.events)
    )


# --- a game's page and its moves -------------------------------------------------------------
def _game(request: Request) -> Game | None:
    """The game of this id in the visitor's own session (None: no such game here)."""
    s = web_of(request).session(request)
    if s is None:
        return None
    with s.lock:
        games = s.data.get("games") or {}
        return games.get(request.path_params["game"])


def _gone(request: Request) -> Response:

    ctx = context(request, {}, title="Play")
    refuse(ctx, "no such game in this browser (it ended long ago, or it was never here)", 404)
    ctx["modes"] = MODES
    return page(request, "play.html", ctx)


async def game_page(request: Request) -> Response:
    from ..render.text import choice_text

    game = _game(request)
    if game is None:
        return _gone(request)
    ctx = context(request, {"rules": game.rules_value}, title=MODES[game.mode][0])
    ctx.update(await run_in_threadpool(shown, game), choice_text=choice_text)
    template = {"zilch": "play_zilch.html", "yahtzee": "play_yahtzee.html"}.get(
        game.kind, "play_yahtzee_seats.html"
    )
    return page(request, template, ctx)


def shown(game: Game) -> dict[str, Any]:
    """What the page shows, taken at one moment under the game's lock (in a worker thread:
    a move may hold it a while): the view and the move number it goes with."""
    with game.lock:
        view = game.engine.view(game.state)
        got: dict[str, Any] = {
            "game": SimpleNamespace(id=game.id, mode=game.mode, version=game.version),
            "view": view,
            "feed": list(game.feed),
            "hint": game.hint,
            "error": game.error,
            "reviews": game.reviews,
            "review_error": game.review_error,
        }
        game.error = None  # (said once)
        if game.kind == "zilch":
            got["sheet"] = _sheet_rows(game, view)
            got["picked"] = _picked(view)
        else:
            sheet = game.state.game if game.kind == "yseats" else game.state
            playing = view["phase"] in ("keep", "box")
            got["boxes"] = _box_points(game.engine.rules, sheet) if playing else []
        if game.kind == "yseats":
            got["approximate"] = APPROXIMATE
    return got


async def game_move(request: Request) -> Response:
    game = _game(request)
    if game is None:
        return _gone(request)
    form = await request.form(max_files=0, max_fields=32, max_part_size=4096)
    posted: dict[str, Any] = {}
    for key, value in form.multi_items():
        if not isinstance(value, str):
            continue
        if key == "pick":
            posted.setdefault("pick", []).append(value)
        else:
            posted[key] = value
    check_csrf(request, posted)
    await run_in_threadpool(move, game, posted)
    return RedirectResponse(f"/play/g/{game.id}#now", status_code=303)


def move(game: Game, form: dict[str, Any]) -> None:
    """The posted move applied to the game (under its lock), or refused: the refusal is
    what the page says next."""
    with game.lock:
        if F.text(form, "at") != str(game.version):
            game.error = (
                "that tap was for an earlier moment of the game, which has moved on: "
                "here is where it stands now"
            )
            return
        try:
            do = F.text(form, "do") or ("box" if F.text(form, "box") else "")
            plan = {"zilch": _zilch_steps, "yahtzee": _yahtzee_steps}.get(game.kind, _yseats_steps)
            steps = plan(game, do, form)
        except (InputError, TableMissing) as e:  # (a table: its command in the line)
            game.error = calls.one_line(str(e))
            return
        _commit(game, do, steps)


def _commit(game: Game, do: str, steps: list[Step]) -> None:
    events = [e for st in steps for e in st.events]
    game.state = steps[-1].state
    game.version += 1
    game.error = None
    game.hint = next((e for e in events if e["kind"] == "hint"), None)
    if game.hint is not None:
        events = [e for e in events if e["kind"] != "hint"]
    if do in ("next", "play", "skip") or do == "hint":
        game.feed = (game.feed + events)[-FEED:]
    else:  # (a person's move: what follows it)
        game.feed = events[-FEED:]
    for e in events:
        if e["kind"] == "bank":
            game.sheet.append(e["points"])
        elif e["kind"] == "zilch":
            game.sheet.append(e["kept"] or None)
    if game.state.phase == "over" and game.reviews is None:
        _review(game)


def _review(game: Game) -> None:
    """Each person's review (zilch play's), or the game's (yahtzee play's)."""
    label = _log_name(game)
    try:  # (the engines review by their own rule set: an upload's too)
        if game.kind == "zilch":
            got = game.engine.reviews(game.state, label)
            people = [x.name for x in game.state.seats if not x.computer]
            game.reviews = [(name, got.get(name, [])) for name in people]  # ([]: no decision)
        elif game.kind == "yseats":
            got = game.engine.reviews(game.state, label)
            people = [x.name for x in game.state.seats if not x.computer]
            game.reviews = [(name, [got[name]] if name in got else []) for name in people]
        else:
            one = game.engine.review(game.state, label)
            game.reviews = [("you", [one])] if one is not None else []
    except (InputError, TableMissing) as e:
        game.reviews = []
        game.review_error = calls.one_line(str(e))


class _Steps:
    """The engine's steps of one posted move, each from the state the last one left."""

    def __init__(self, game: Game) -> None:
        self.engine, self.first = game.engine, game.state
        self.steps: list[Step] = []

    @property
    def now(self) -> Any:
        return self.steps[-1].state if self.steps else self.first

    def apply(self, action: str | dict[str, Any]) -> None:
        self.steps.append(self.engine.apply(self.now, action))


def _zilch_steps(game: Game, do: str, form: dict[str, Any]) -> list[Step]:
    """The engine's steps of a posted Zilch move: roll or bank after the dice tapped
    (their set-aside first, where it is new), a typed roll, or one of the engine's own
    actions.  All or nothing: a step refused refuses the move."""
    run, s = _Steps(game), game.state
    if do == "skip":  # the computers' turns, to the next person's
        while run.now.phase != "over" and run.now.seats[run.now.seat].computer:
            run.apply("play")
        if not run.steps:
            raise InputError("it is not a computer's turn")
    elif do == "next":  # one roll of a computer's turn
        if not s.seats[s.seat].computer:
            raise InputError(f"it is {_whose(s.seats[s.seat].name)} turn, not a computer's")
        run.apply("roll")
    elif do in ("play", "hint", "best", "quit"):
        run.apply(do)
    elif do in ("roll", "bank"):
        _roll_or_bank(run, do, form)
    else:
        raise InputError(f"unknown move {do!r}")
    return run.steps


def _roll_or_bank(run: _Steps, do: str, form: dict[str, Any]) -> None:
    s = run.first
    if s.phase not in ("keep", "move"):  # (a roll, or the engine's refusal)
        # (dice given in a seeded game: the engine refuses them)
        typed = do == "roll" and (s.dice_from == "input" or F.text(form, "dice"))
        run.apply({"action": "roll", "dice": F.text(form, "dice")} if typed else do)
        return
    keep = _picks(form, list(s.roll))
    if not keep:
        raise InputError(f"tap the dice you set aside first (of {' '.join(map(str, s.roll))})")
    if s.phase == "keep" or sorted(keep) != sorted(s.keep):
        run.apply({"action": "keep", "dice": keep})
    if run.now.phase == "move" or do == "bank":
        run.apply(do)
    elif run.now.dice_from == "seed":
        run.apply("roll")  # (the set-aside forced the roll: it comes now)


def _whose(name: str) -> str:
    return "your" if name == "you" else f"{name}'s"


def _picks(form: dict[str, Any], roll: list[int]) -> list[int]:
    """The faces of the dice tapped (their places in the roll, each once)."""
    got = form.get("pick") or []
    if isinstance(got, str):
        got = [got]
    places = set()
    for p in got:
        if not (isinstance(p, str) and re.fullmatch(r"\d{1,2}", p)) or int(p) >= len(roll):
            raise InputError(f"a tapped die {p!r} is not one of the dice rolled")
        places.add(int(p))
    return [roll[i] for i in sorted(places)]


def _yahtzee_steps(game: Game, do: str, form: dict[str, Any]) -> list[Step]:
    """The engine's steps of a posted Yahtzee move; a box scored is followed by the next
    turn's first roll (seeded dice)."""
    run, s = _Steps(game), game.state
    if do == "roll":
        typed = s.dice_from == "input" or F.text(form, "dice")
        run.apply({"action": "roll", "dice": F.text(form, "dice")} if typed else "roll")
    elif do == "keep":
        if s.phase != "keep":
            raise InputError("no roll is left: score the hand in a box")
        run.apply({"action": "keep", "dice": _picks(form, list(s.hand)) or "none"})
    elif do == "box":
        run.apply({"action": "box", "box": F.text(form, "box")})
    elif do in ("best", "hint", "quit"):
        run.apply(do)
    else:
        raise InputError(f"unknown move {do!r}")
    last = run.now
    if do in ("box", "best") and last.phase == "roll" and not last.hand:
        if last.dice_from == "seed":
            run.apply("roll")  # (the next turn's first roll, at once)
    return run.steps


def _yseats_steps(game: Game, do: str, form: dict[str, Any]) -> list[Step]:
    """The engine's steps of a posted move in a Yahtzee game of several: the seat's own
    move (as solitaire), a computer's turn ("play"), or every computer's turn to the next
    person's ("skip"; with real dice, to the next roll to type).  A person's turn starts
    with its first roll on seeded dice."""
    run, s = _Steps(game), game.state
    if do == "skip":
        while run.now.phase != "over" and "play" in game.engine.allowed(run.now):
            run.apply("play")
        if not run.steps:
            raise InputError("it is not a computer's turn")
    elif do == "roll":
        typed = s.dice_from == "input" or F.text(form, "dice")
        run.apply({"action": "roll", "dice": F.text(form, "dice")} if typed else "roll")
    elif do == "keep":
        if s.phase != "keep":
            raise InputError("no roll is left: score the hand in a box")
        run.apply({"action": "keep", "dice": _picks(form, list(s.game.hand)) or "none"})
    elif do == "box":
        run.apply({"action": "box", "box": F.text(form, "box")})
    elif do in ("best", "hint", "quit", "play"):
        run.apply(do)
    else:
        raise InputError(f"unknown move {do!r}")
    last = run.now
    fresh = last.phase == "roll" and not last.game.hand and last.dice_from == "seed"
    if fresh and not last.seats[last.seat].computer and do != "hint":
        run.apply("roll")  # (a person's turn: its first roll, at once)
    return run.steps


# --- what a page shows -------------------------------------------------------------------
def _picked(view: dict[str, Any]) -> list[bool]:
    """Which dice of the roll show as set aside (the set-aside taken, in "move")."""
    left = list(view["kept"])
    out = []
    for f in view["roll"]:
        out.append(f in left)
        if f in left:
            left.remove(f)
    return out


def _sheet_rows(game: Game, view: dict[str, Any]) -> list[list[int | None | str]]:
    """The score sheet: a row per round, a cell per seat (a turn's points; None: zilch;
    "": not played yet)."""
    n = len(view["players"])
    rows = []
    for i in range(0, len(game.sheet), n):
        row: list[int | None | str] = list(game.sheet[i : i + n])
        rows.append(row + [""] * (n - len(row)))
    return rows


def _box_points(rs: YahtzeeRules, s: YahtzeeState) -> list[dict[str, Any]]:
    """The open boxes with the points the hand scores in each (bonuses included)."""
    from ..yahtzee import solitaire as Y

    sheet = Y.SheetState(s.mask, s.upper, s.yf)
    out = []
    for i, box in enumerate(rs.boxes):
        if s.mask >> i & 1:
            continue
        try:
            points, _ = Y.score_box(rs, sheet, tuple(s.hand), i)
        except InputError:
            continue  # (the joker rule forbids it here)
        out.append({"box": box, "points": points})
    return out


def _log_name(game: Game) -> str:
    kind = "zilch" if game.kind == "zilch" else "yahtzee"
    return f"{kind}-play-{game.state.seed}.jsonl"


async def game_log(request: Request) -> Response:
    """The decision log as `zilch play` / `yahtzee play` write it (zilch review reads it)."""
    from ..match import log_text

    game = _game(request)
    if game is None:
        return _gone(request)
    text = log_text(game.state.log)  # (a state is never changed: the one read is whole)
    name = _log_name(game)
    return Response(
        text,
        media_type="application/x-ndjson",
        headers={"content-disposition": f'attachment; filename="{quote(name)}"'},
    )


def routes() -> list[Route]:
    return [
        Route("/play", play_home),
        Route("/play/setup", setup, methods=["GET", "POST"]),
        Route("/play/g/{game}", game_page),
        Route("/play/g/{game}", game_move, methods=["POST"]),
        Route("/play/g/{game}/log", game_log),
    ]
