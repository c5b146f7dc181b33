"""The rooms' JSON API (issue 38; docs/serve.md, Rooms) and their live stream:

    POST /api/rooms {"rules", "target", "seats"}   -> {"code", "host"}
    POST /api/rooms/CODE/join {"name"}             -> {"seat", "token"}
    POST /api/rooms/CODE/start {"token": HOST}     -> the state
    GET  /api/rooms/CODE                           -> the state ("move", "turn", "scores", ...)
    POST /api/rooms/CODE/move {"token", "move", "keep", "then"} | {..., "best": true}
    POST /api/rooms/CODE/hint {"token"}            -> the hint (private: not published)
    POST /api/rooms/CODE/undo {"token"}, /end, /leave, /rematch; /hand {"token", "seat"}
    POST /api/rooms/CODE/seats {"token": HOST, "add": KIND} | {..., "remove": K, "force"}
    GET  /api/rooms/CODE/log                       -> the decision log (zilch review reads it)
    GET  /api/rooms/CODE/events                    -> server-sent events, every record live

A request that changes a room is JSON only (415 otherwise) and is refused (403) where its
Origin names another site (origin.OriginGuard, before it reaches here)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from . import calls

if TYPE_CHECKING:
    from .room_hub import Rooms

KEEP_ALIVE = 15.0  # seconds between comments on a quiet stream


def rooms_of(request: Request) -> Rooms:
    return request.app.state.rooms


def client_of(request: Request) -> str | None:
    return request.client.host if request.client else None


async def found(request: Request) -> str:
    """The room's code, once the room is found (an unknown code counts against the
    client's tries: 404, or 429 past them)."""
    room = await run_in_threadpool(
        rooms_of(request).get, request.path_params["code"], client_of(request)
    )
    return room.code


def _json(status: int, data: Any) -> Response:
    return Response(json.dumps(data), status, media_type="application/json")


async def body_of(request: Request) -> Any:
    """The request's JSON object: application/json only (415), UTF-8, valid."""
    from .rooms import RoomError

    kind = request.headers.get("content-type") or ""
    raw = await request.body()
    if kind.split(";")[0].strip().lower() != "application/json":
        raise RoomError(415, "the request body is JSON, sent with Content-Type: application/json")
    try:
        got = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise RoomError(400, "the request body is not valid JSON") from None
    if not isinstance(got, dict):
        raise RoomError(400, "the request body is a JSON object")
    return got


Handler = Callable[[Request], Awaitable[Response]]


def answered(fn: Handler) -> Handler:
    """A handler whose refusals are the API's error objects, with their status."""

    async def run(request: Request) -> Response:
        try:
            return await fn(request)
        except Exception as e:
            return _json(*calls.error_object(e))

    return run


@answered
async def create(request: Request) -> Response:
    rooms = rooms_of(request)
    body = await body_of(request)
    code, host = await run_in_threadpool(rooms.create, body)
    return _json(200, {"code": code, "host": host, "url": f"/r/{code}"})


@answered
async def state(request: Request) -> Response:
    rooms = rooms_of(request)
    room = await run_in_threadpool(rooms.get, request.path_params["code"], client_of(request))
    rooms.kick(room)  # (a room loaded after a restart: its computers play on)
    return _json(200, rooms.summary(room))


@answered
async def join(request: Request) -> Response:
    rooms = rooms_of(request)
    body = await body_of(request)
    code = request.path_params["code"]
    seat, token = await run_in_threadpool(rooms.join, code, body.get("name"), client_of(request))
    room = rooms.get(code)
    rooms.publish(room, rooms.message(room, "join", []))
    return _json(200, {"seat": seat, "token": token})


@answered
async def start(request: Request) -> Response:
    rooms = rooms_of(request)
    body = await body_of(request)
    code = await found(request)
    msg = await run_in_threadpool(rooms.start, code, body.get("token"))
    return _after(rooms, code, msg)


def _after(rooms: Rooms, code: str, msg: dict[str, Any] | None) -> Response:
    """A record made: published to the room's listeners, the computers kicked, the state."""
    room = rooms.get(code)
    if msg is not None:
        rooms.publish(room, msg)
    rooms.kick(room)
    if msg is None:
        return _json(200, rooms.summary(room) | {"events": []})
    return _json(200, msg["state"] | {"events": msg["events"]})


@answered
async def move(request: Request) -> Response:
    rooms = rooms_of(request)
    body = await body_of(request)
    room, msg = await run_in_threadpool(rooms.move, await found(request), body)
    rooms.publish(room, msg)
    rooms.kick(room)
    return _json(200, msg["state"] | {"events": msg["events"]})


@answered
async def hint(request: Request) -> Response:
    rooms = rooms_of(request)
    body = await body_of(request)
    got = await run_in_threadpool(rooms.hint, await found(request), body.get("token"))
    return _json(200, got)


def _host_action(name: str) -> Handler:
    @answered
    async def act(request: Request) -> Response:
        rooms = rooms_of(request)
        body = await body_of(request)
        code = await found(request)
        msg: dict[str, Any] | None
        if name == "seats":
            msg = await run_in_threadpool(rooms.seats, code, body)
        elif name == "undo":
            msg = await run_in_threadpool(rooms.undo, code, body)
        elif name == "end":
            msg = await run_in_threadpool(rooms.end, code, body.get("token"))
        elif name in ("leave", "hand"):  # (hand: the host's, a seat given)
            seat = body.get("seat") if name == "hand" else None
            msg = await run_in_threadpool(rooms.leave, code, body.get("token"), seat)
        else:  # rematch
            new, note = await run_in_threadpool(rooms.rematch, code, body.get("token"))
            rooms.publish(rooms.get(code), note | {"state": rooms.summary(rooms.get(code))})
            return _json(200, {"code": new, "url": f"/r/{new}"})
        return _after(rooms, code, msg)

    return act


@answered
async def log(request: Request) -> Response:
    from ..match import log_text
    from .room_hub import log_name

    rooms = rooms_of(request)
    room = await run_in_threadpool(rooms.get, request.path_params["code"], client_of(request))
    lines = room.state.log if room.state is not None else ()
    name = log_name(room)
    if room.row.spec.get("game") == "yahtzee":  # (yahtzee review reads it)
        name = name.replace("zilch-room", "yahtzee-room", 1)
    return Response(
        log_text(lines),
        media_type="application/x-ndjson",
        headers={"content-disposition": f'attachment; filename="{quote(name)}"'},
    )


@answered
async def events(request: Request) -> Response:
    """The room's live stream: its state at once, then every record as it is made."""
    rooms = rooms_of(request)
    room = await run_in_threadpool(rooms.get, request.path_params["code"], client_of(request))
    q = rooms.listen(room)
    rooms.kick(room)
    first = {"kind": "state", "events": [], "state": rooms.summary(room)}

    async def stream() -> AsyncIterator[str]:
        try:
            yield "retry: 2000\n" + frame(first)
            while True:
                try:
                    msg = await asyncio.wait_for(q.get(), KEEP_ALIVE)
                except TimeoutError:
                    if q not in room.listeners:
                        return
                    yield ": still here\n\n"
                    continue
                if msg is None:
                    return
                yield frame(msg)
        finally:
            room.listeners.discard(q)

    headers = {"cache-control": "no-cache", "x-accel-buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)


def frame(msg: dict[str, Any]) -> str:
    """One server-sent event: its id the room's move number, its name the record's kind."""
    move = msg.get("state", {}).get("move", "")
    return f"id: {move}\nevent: {msg.get('kind', 'state')}\ndata: {json.dumps(msg)}\n\n"


def routes() -> list[Route]:
    return [
        Route("/api/rooms", create, methods=["POST"]),
        Route("/api/rooms/{code}", state, methods=["GET"]),
        Route("/api/rooms/{code}/join", join, methods=["POST"]),
        Route("/api/rooms/{code}/start", start, methods=["POST"]),
        Route("/api/rooms/{code}/move", move, methods=["POST"]),
        Route("/api/rooms/{code}/hint", hint, methods=["POST"]),
        *[
            Route(f"/api/rooms/{{code}}/{name}", _host_action(name), methods=["POST"])
            for name in ("seats", "undo", "end", "leave", "hand", "rematch")
        ],
        Route("/api/rooms/{code}/log", log, methods=["GET"]),
        Route("/api/rooms/{code}/events", events, methods=["GET"]),
    ]
