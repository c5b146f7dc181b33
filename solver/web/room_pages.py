"""The rooms' pages (issue 38): open a room (from the play set-up, or /rooms), the host's
phone showing its code and a QR code of its address, join by code and name, the game on
each phone (whose turn in large letters; only the seat to move has the moves; a hint on
the phone that asks), undo, leaving and ending asked first (a page of its own: it works
without JavaScript), each person's review, the decision log, a rematch.

A phone keeps its seats' tokens in a cookie of the room (HttpOnly, SameSite=Lax): a
reload, a phone asleep, the server restarted, and it is back at its seats.  Several
people may sit at one phone (hot seat inside a room): the cookie holds each token.  Forms
carry the CSRF token (origin.py); the page follows the room live through its event stream
(static/room.js), or a Refresh link without JavaScript."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from ..errors import InputError
from . import calls
from . import forms as F
from .origin import check_csrf
from .pages import context, fields, page, refuse, yahtzee_presets
from .room_api import client_of, rooms_of
from .room_games import YAHTZEE_SEATS
from .rooms import MAX_SEATS, Room, RoomError
from .screens import APPROXIMATE

if TYPE_CHECKING:
    from .room_hub import Rooms

SEATS_COOKIE = "dicesolver_room_"  # + CODE: the phone's seat tokens, joined by "."
HOST_COOKIE = "dicesolver_host_"  # + CODE: the host's token
AGE = 7 * 24 * 3600


def _tokens(request: Request, code: str) -> list[str]:
    raw = request.cookies.get(SEATS_COOKIE + code, "")
    return [t for t in raw.split(".") if re.fullmatch(r"[A-Za-z0-9_-]{8,64}", t)][:MAX_SEATS]


def _host(request: Request, code: str) -> str | None:
    got = request.cookies.get(HOST_COOKIE + code)
    return got if got and re.fullmatch(r"[A-Za-z0-9_-]{8,64}", got) else None


def _cookie(response: Response, name: str, value: str) -> None:
    response.set_cookie(name, value, max_age=AGE, httponly=True, samesite="lax", path="/")


# --- opening and joining a room ----------------------------------------------------------------
async def rooms_home(request: Request) -> Response:
    """/rooms: a room of the Zilch family (its rules, a target) or of Yahtzee (a Yahtzee
    preset in the same choice, its hints), seated by people, computers and real dice."""
    form = await fields(request)
    ctx = context(request, form, title="Play across phones", kinds=("person", "companion"))
    ctx.update(yahtzee_presets=yahtzee_presets(), hint_kinds=YAHTZEE_HINTS)
    if request.method == "POST":
        try:
            return await _open(request, _seats_of(form), form)
        except InputError as e:
            refuse(ctx, str(e), getattr(e, "http_status", 400))
    return page(request, "room_home.html", ctx)


def _seats_of(form: dict[str, Any]) -> list[str]:
    """The seats of a room opened from a form: /rooms's (people, computers, real dice),
    or the play set-up's (its mode, names and computers)."""
    mode = F.text(form, "mode")
    if mode == "yahtzee":  # (the set-up's players, the people among them, real dice)
        players = F.whole(form, "players", "Players") or 2
        people = F.whole(form, "people", "People") or 1
        if not 1 <= people <= players or not 2 <= players <= YAHTZEE_SEATS:
            raise RoomError(400, "a Yahtzee room seats 2 to 4: people and computers")
        kind = "companion" if F.flag(form, "real_dice") else "person"
        return [kind] * people + ["computer"] * (players - people)
    if mode:
        names = [F.text(form, f"name{i}") for i in range(1, MAX_SEATS + 1)]
        people = max(1, sum(1 for n in names if n)) if mode != "computer" else 1
        computers = (F.whole(form, "computers", "Computers") or 1) if mode == "computer" else 0
        kind = "companion" if mode == "companion" else "person"
    else:
        people = F.whole(form, "people", "People") or 2
        computers = F.whole(form, "computers", "Computers") or 0
        kind = "companion" if F.flag(form, "real_dice") else "person"
    most = YAHTZEE_SEATS if _yahtzee_rules(form) else MAX_SEATS
    if people < 1 or computers < 0 or not 2 <= people + computers <= most:
        game = "Yahtzee room" if most == YAHTZEE_SEATS else "room"
        raise RoomError(400, f"a {game} seats 2 to {most}: people and computers")
    return [kind] * people + ["computer"] * computers


YAHTZEE_HINTS = (
    ("", "P(win) where its table is stored, else the expected score"),
    ("win", "P(win): the chance to win the room's game"),
    ("expected", "the expected score"),
)


def _yahtzee_rules(form: dict[str, Any]) -> str | None:
    """The Yahtzee preset a form opens a room of: the play set-up's (mode yahtzee), or
    /rooms's choice of rules where it names a Yahtzee preset; None for the Zilch family."""
    mode = F.text(form, "mode")
    if mode == "yahtzee":
        return F.text(form, "yahtzee_rules") or "yahtzee"
    rules = F.text(form, "rules")
    return rules if not mode and rules in calls.yahtzee_presets() else None


async def _open(request: Request, seats: list[str], form: dict[str, Any]) -> Response:
    from .pages import UPLOAD, uploaded_text

    rooms = rooms_of(request)
    yahtzee = _yahtzee_rules(form)
    if yahtzee is not None:
        body: dict[str, Any] = {"game": "yahtzee", "rules": yahtzee, "seats": seats}
        if yahtzee.startswith(UPLOAD):  # (an uploaded file: the room keeps its text)
            body = body | {"rules": None, "rules_text": uploaded_text(request, yahtzee)}
        hints = F.text(form, "hints") if not F.text(form, "mode") else ""
        if hints:  # (none: by P(win) where the rules' beat table is stored)
            body["hints"] = hints
        code, host = await run_in_threadpool(rooms.create, body)
        response = RedirectResponse(f"/r/{code}", status_code=303)
        _cookie(response, HOST_COOKIE + code, host)
        return response
    rules = F.text(form, "rules") or "farkle"
    body = {"rules": rules, "target": F.whole(form, "target", "Target"), "seats": seats}
    if rules.startswith(UPLOAD):  # (an uploaded file: the room keeps its text)
        body = body | {"rules": None, "rules_text": uploaded_text(request, rules)}
    code, host = await run_in_threadpool(rooms.create, body)
    response = RedirectResponse(f"/r/{code}", status_code=303)
    _cookie(response, HOST_COOKIE + code, host)
    return response


async def join_page(request: Request) -> Response:
    """Join by code and name (GET: the form, the code filled where a link gave it)."""
    form = await fields(request)
    ctx = context(request, form, title="Join a room")
    if request.method == "POST":
        code = F.text(form, "code").upper()
        try:
            return await _join(request, code, F.text(form, "name"))
        except InputError as e:
            refuse(ctx, str(e), getattr(e, "http_status", 400))
    return page(request, "room_join.html", ctx)


async def _join(request: Request, code: str, name: str) -> Response:
    rooms = rooms_of(request)
    room = await run_in_threadpool(rooms.get, code, client_of(request))
    seat, token = await run_in_threadpool(rooms.join, room.code, name, client_of(request))
    rooms.publish(room, rooms.message(room, "join", []))
    response = RedirectResponse(f"/r/{room.code}", status_code=303)
    _cookie(response, SEATS_COOKIE + room.code, ".".join([*_tokens(request, room.code), token]))
    return response


# --- a room's page ------------------------------------------------------------------------------
def _mine(room: Room, tokens: list[str]) -> dict[int, str]:
    """The seats this phone holds: seat -> token."""
    out = {}
    for t in tokens:
        k = room.seat_of(t)
        if k is not None:
            out[k] = t
    return out


async def room_page(request: Request) -> Response:
    from ..render.text import choice_text

    rooms = rooms_of(request)
    ctx = context(request, {}, title="Room")
    try:
        room = await run_in_threadpool(rooms.get, request.path_params["code"], client_of(request))
    except InputError as e:
        refuse(ctx, str(e), getattr(e, "http_status", 404))
        return page(request, "room_join.html", ctx)
    rooms.kick(room)
    ctx.update(await run_in_threadpool(shown, rooms, room, request), choice_text=choice_text)
    ctx["title"] = f"Room {room.code}"
    ctx["error"] = note_of(request, room.code)
    return page(request, "room.html", ctx)


def shown(rooms: Rooms, room: Room, request: Request) -> dict[str, Any]:
    """What the room's page shows this phone, at one moment under the room's lock."""
    with room.lock:
        mine = _mine(room, _tokens(request, room.code))
        host = room.is_host(_host(request, room.code))
        st = rooms.summary(room)
        got: dict[str, Any] = {
            "room": SimpleNamespace(
                code=room.code, version=room.version, companion=room.dice_from == "input"
            ),
            "st": st,
            "mine": sorted(mine),
            "host": host,
            "feed": list(room.feed),
            "stamp": stamp(st),
            "url": f"{request.base_url}r/{room.code}",
            "max_seats": 4 if st.get("game") == "yahtzee" else MAX_SEATS,
            "approximate": APPROXIMATE,
        }
        s = room.state
        if s is None:
            got["qr"] = qr_uri(got["url"]) if host else None
            return got
        seat = s.seat
        got["to_move"] = seat in mine and s.phase != "over" and not s.seats[seat].computer
        got["type_for_computer"] = host and room.computer_to_move() and room.dice_from == "input"
        got["hint"] = room.hints.get(seat) if seat in mine else None
        got["picked"] = _picked(st)
        last = next((r for r in reversed(room.row.records) if r["kind"] != "computer"), None)
        made = last is not None and last["kind"] == "move"
        by = last["seat"] if last is not None else None
        got["can_undo"] = made and (host or (room.dice_from == "input" and by in mine))
    if room.over:
        reviews, error = rooms.reviews(room)
        names = [s.seats[k].name for k in sorted(mine)]
        got["reviews"] = [(n, reviews.get(n, [])) for n in names] if not error else []
        got["review_error"] = error
    return got


def stamp(st: dict[str, Any]) -> str:
    """What changes the page: the move number, the seats taken, the start, a rematch (the
    script reloads when the room's stream says another)."""
    joined = sum(1 for x in st["seats"] if x["joined"])
    return f"{st['move']}:{joined}:{int(st['started'])}:{st.get('next') or ''}"


def qr_uri(url: str) -> str:
    """The QR code of the room's address as an SVG data URI (segno: no CDN, no script)."""
    import segno

    return str(segno.make(url, error="m").svg_data_uri(scale=6, border=2, dark="#111"))


def _picked(st: dict[str, Any]) -> list[bool]:
    left, out = list(st.get("kept") or []), []
    for f in st.get("dice") or []:
        out.append(f in left)
        if f in left:
            left.remove(f)
    return out


# --- a room's moves -----------------------------------------------------------------------------
async def room_post(request: Request) -> Response:
    rooms = rooms_of(request)
    code = request.path_params["code"]
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
    do = F.text(posted, "do")
    to = f"/r/{code}#now"
    try:
        room = await run_in_threadpool(rooms.get, code, client_of(request))
        msg, to = await run_in_threadpool(_act, rooms, room, request, do, posted)
    except InputError as e:
        _say(rooms, code, request, calls.one_line(str(e)))
        return RedirectResponse(to, status_code=303)
    if msg is not None:
        rooms.publish(room, msg)
    rooms.kick(room)
    response = RedirectResponse(to, status_code=303)
    if do == "leave":
        response.delete_cookie(SEATS_COOKIE + room.code, path="/")
    return response


NOTES: dict[str, str] = {}  # (phone's seat token or host token -> its last refusal, said once)


def _say(rooms: Rooms, code: str, request: Request, text: str) -> None:
    key = (_host(request, code) or "") + ".".join(_tokens(request, code))
    if len(NOTES) > 5000:
        NOTES.clear()
    NOTES[key] = text


def note_of(request: Request, code: str) -> str | None:
    key = (_host(request, code) or "") + ".".join(_tokens(request, code))
    return NOTES.pop(key, None)


def _act(
    rooms: Rooms, room: Room, request: Request, do: str, form: dict[str, Any]
) -> tuple[dict[str, Any] | None, str]:
    """The posted action applied: (the message to publish, where the phone goes next)."""
    code, host = room.code, _host(request, room.code)
    mine = _mine(room, _tokens(request, code))
    here = f"/r/{code}#now"
    if do == "start":
        return rooms.start(code, host), here
    if do in SEAT_ACTIONS:
        return _host_seats(rooms, room, host, do, form), f"/r/{code}"
    if do in ("end", "rematch") or (do == "undo" and host and room.is_host(host)):
        if do == "end":
            return rooms.end(code, host), f"/r/{code}"
        if do == "rematch":
            new, note = rooms.rematch(code, host)
            del new  # (this phone's seats and host carried over: /next)
            return note | {"state": rooms.summary(room)}, f"/r/{code}/next"
        return rooms.undo(code, {"token": host, "move": _at(form)}), here
    s = room.state
    seat = s.seat if s is not None else None
    token = mine.get(seat) if seat is not None else None
    if do == "undo":
        last = next((r for r in reversed(room.row.records) if r["kind"] != "computer"), None)
        mover = mine.get(last["seat"]) if last else None
        return rooms.undo(code, {"token": mover, "move": _at(form)}), here
    if do == "leave":
        for t in mine.values():
            rooms.leave(code, t)
        return rooms.message(room, "leave", []), f"/r/{code}"
    if do == "hint":
        rooms.hint(code, token)
        return None, here
    if do == "computer":
        return rooms.move(code, {"token": host, "move": _at(form), "dice": F.text(form, "dice")})[
            1
        ], here
    return rooms.move(code, _move_body(room, token, do, form))[1], here


SEAT_ACTIONS = ("add_person", "add_computer", "add_companion", "remove", "hand")


def _host_seats(
    rooms: Rooms, room: Room, host: str | None, do: str, form: dict[str, Any]
) -> dict[str, Any] | None:
    """The host's seats: one added or removed before the start (the API's /seats), or
    handed to a computer during the game (/hand); removing a taken seat and handing one
    are asked first (the confirm page posts them, with `force`)."""
    seat = F.text(form, "seat")
    k = int(seat) if seat.isdigit() else -1
    if do == "hand":
        return rooms.leave(room.code, host, k)
    if do == "remove":
        return rooms.seats(room.code, {"token": host, "remove": k, "force": F.flag(form, "force")})
    return rooms.seats(room.code, {"token": host, "add": do.removeprefix("add_")})


def _at(form: dict[str, Any]) -> int:
    at = F.text(form, "at")
    return int(at) if at.isdigit() else -1


def _move_body(room: Room, token: str | None, do: str, form: dict[str, Any]) -> dict[str, Any]:
    """The API's move of a posted form: the dice tapped (their places in the roll), then."""
    body: dict[str, Any] = {"token": token, "move": _at(form)}
    if do == "best":
        return body | {"best": True}
    if room.row.spec.get("game") == "yahtzee":
        return _yahtzee_body(room, body, do, form)
    if do not in ("roll", "bank"):
        raise RoomError(400, f"unknown move {do!r}")
    body["then"] = do
    s = room.state
    if s is not None and s.phase in ("keep", "move"):
        places = {int(p) for p in form.get("pick", []) if p.isdigit() and int(p) < len(s.roll)}
        keep = [s.roll[i] for i in sorted(places)]
        if keep:
            body["keep"] = keep
        elif s.phase == "keep":
            raise RoomError(
                400, f"tap the dice you set aside first (of {' '.join(map(str, s.roll))})"
            )
    if F.text(form, "dice"):
        body["dice"] = F.text(form, "dice")
    return body


def _yahtzee_body(
    room: Room, body: dict[str, Any], do: str, form: dict[str, Any]
) -> dict[str, Any]:
    """A Yahtzee room's move of a posted form: a roll (typed with real dice), the dice
    tapped kept (their places in the hand), or a box."""
    if F.text(form, "box"):
        return body | {"box": F.text(form, "box")}
    if do == "roll":
        return body | ({"dice": F.text(form, "dice")} if F.text(form, "dice") else {})
    if do != "keep":
        raise RoomError(400, f"unknown move {do!r}")
    hand = list(room.state.game.hand) if room.state is not None else []
    places = {int(p) for p in form.get("pick", []) if p.isdigit() and int(p) < len(hand)}
    return body | {"keep": [hand[i] for i in sorted(places)]}


async def confirm(request: Request) -> Response:
    """Leaving, ending, handing a seat to a computer or removing a taken seat (the host),
    asked first (a page of its own: no script needed)."""
    rooms = rooms_of(request)
    what = request.query_params.get("what", "leave")
    what = what if what in ("leave", "end", "hand", "remove") else "leave"
    seat = request.query_params.get("seat", "")
    try:
        room = await run_in_threadpool(rooms.get, request.path_params["code"], client_of(request))
    except InputError as e:
        ctx = context(request, {}, title="Room")
        refuse(ctx, str(e), 404)
        return page(request, "room_join.html", ctx)
    ctx = context(
        request, {}, title=f"Room {room.code}", what=what, code=room.code, version=room.version
    )
    if what in ("hand", "remove"):
        st = rooms.summary(room)
        k = int(seat) if seat.isdigit() and int(seat) < len(st["seats"]) else None
        if k is None:
            return RedirectResponse(f"/r/{room.code}", status_code=303)
        ctx.update(seat=k, seat_name=st["seats"][k]["name"] or f"seat {k}")
    return page(request, "room_confirm.html", ctx)


async def next_room(request: Request) -> Response:
    """The rematch of a room: this phone's seats (and host) carried to it."""
    rooms = rooms_of(request)
    code = request.path_params["code"]
    room = await run_in_threadpool(rooms.get, code, client_of(request))
    new = room.row.next_code
    if not new:
        return RedirectResponse(f"/r/{room.code}", status_code=303)
    response = RedirectResponse(f"/r/{new}", status_code=303)
    tokens, host = _tokens(request, room.code), _host(request, room.code)
    if tokens:
        _cookie(response, SEATS_COOKIE + new, ".".join(tokens))
    if host:
        _cookie(response, HOST_COOKIE + new, host)
    return response


def routes() -> list[Route]:
    return [
        Route("/rooms", rooms_home, methods=["GET", "POST"]),
        Route("/join", join_page, methods=["GET", "POST"]),
        Route("/r/{code}", room_page, methods=["GET"]),
        Route("/r/{code}", room_post, methods=["POST"]),
        Route("/r/{code}/confirm", confirm, methods=["GET"]),
        Route("/r/{code}/next", next_room, methods=["GET"]),
    ]
