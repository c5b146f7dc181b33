"""The ASGI app: the screens (server-rendered forms, a little JavaScript to tap dice) and
the JSON API, `POST /api/<name>` = the Python API's to_json().  The tables folder is fixed
when the app is made; every request reads it through QueryStore (guard.py), so none waits
on a long solve: the table is offered as a background job (jobs.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.convertors import Convertor, register_url_convertor
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import TableMissing
from . import calls, play, room_api, room_pages, screens
from .app_state import Web
from .middleware import BodyLimit, SecurityHeaders
from .origin import CsrfCookie, HostGuard, OriginGuard, csrf_token
from .pages import PIPS
from .room_games import Rooms

HERE = Path(__file__).parent


def _json(status: int, data: Any) -> Response:
    """JSON exactly as the command line prints it (json.dumps of the answer)."""
    return Response(json.dumps(data), status, media_type="application/json")


# --- the JSON API ------------------------------------------------------------------------
async def api_call(request: Request) -> Response:
    web: Web = request.app.state.web
    name = request.path_params["name"]
    try:
        quick = None
        if _is_json(request.headers.get("content-type")):
            quick = web.answers.body_key(name, await request.body())
            kept = None if quick is None else web.answers.get(quick)
            if kept is not None:  # (the same body answered from the same tables)
                return Response(kept, 200, media_type="application/json")
        body = await _json_body(request)
        kwargs = calls.parse(name, body)
        a = await web.answer(name, kwargs)
        data = json.dumps(calls.to_json(a)).encode()
        if quick is not None and web.answers.key(name, kwargs) is not None:
            web.answers.put(quick, data)
        return Response(data, 200, media_type="application/json")
    except Exception as e:
        return _json(*calls.error_object(e))


def _is_json(kind: str | None) -> bool:
    return kind is not None and kind.split(";")[0].strip().lower() == "application/json"


async def _json_body(request: Request) -> Any:
    """The request's JSON object ({} for no body): sent as application/json only (415
    otherwise: a form or a text/plain body another site's page can send without asking),
    no key given twice in an object (which value was meant is not known)."""
    kind = request.headers.get("content-type")
    raw = await request.body()
    if kind is None and not raw.strip():
        return {}
    if kind is None or kind.split(";")[0].strip().lower() != "application/json":
        raise HTTPException(
            415,
            f"the request body is JSON, sent with Content-Type: application/json "
            f"(not {calls._shown(kind or 'none')})",
        )
    if not raw.strip():
        return {}
    try:
        return json.loads(raw.decode("utf-8"), object_pairs_hook=_once)
    except calls.Refused:
        raise
    except UnicodeDecodeError:
        raise calls.Refused("the request body is not UTF-8 text") from None
    except (ValueError, RecursionError) as e:
        raise calls.Refused(f"the request body is not valid JSON ({e})") from None


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are given once each (Refused otherwise)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise calls.Refused(
                f"{calls._shown(key)} is given twice in the request body: which value is meant "
                "is not known"
            )
        out[key] = value
    return out


async def api_job_start(request: Request) -> Response:
    """POST /api/jobs {"name": N, "kwargs": {...}}: the question whose table is missing;
    its build starts (or the one running for that table is joined)."""
    web: Web = request.app.state.web
    try:
        body = await _json_body(request)
        if not isinstance(body, dict) or set(body) - {"name", "kwargs"} or "name" not in body:
            raise calls.Refused('the body is {"name": NAME, "kwargs": {...}}: the question')
        name = body["name"]
        if not isinstance(name, str):
            raise calls.Refused("name must be a string")
        kwargs = calls.parse(name, body.get("kwargs", {}))
        try:
            await web.answer(name, kwargs)
        except TableMissing as e:
            client = request.client.host if request.client else None  # (its cap: jobs.py)
            job = await run_in_threadpool(web.jobs.start, e, client)
            return _json(202, job.to_dict())
        return _json(200, {"state": "stored", "error": None})
    except Exception as e:
        return _json(*calls.error_object(e))


async def api_job(request: Request) -> Response:
    web: Web = request.app.state.web
    job = web.jobs.get(request.path_params["job"])
    if job is None:
        return _json(404, {"error": "no such job (finished long ago, or never)", "exit_code": 2})
    return _json(200, job.to_dict())


# --- errors and the app ------------------------------------------------------------------
async def not_found(request: Request, exc: Exception) -> Response:
    code = getattr(exc, "status_code", 404)
    detail = getattr(exc, "detail", "not found")
    if request.url.path.startswith("/api/"):
        return _json(code, {"error": str(detail), "exit_code": 2})
    web: Web = request.app.state.web
    return web.templates.TemplateResponse(
        request, "error.html", {"code": code, "detail": detail}, status_code=code
    )


async def server_error(request: Request, exc: Exception) -> Response:
    status, obj = calls.error_object(exc)
    if request.url.path.startswith("/api/"):
        return _json(status, obj)
    return Response(obj["error"], status, media_type="text/plain")


@contextlib.asynccontextmanager
async def _lifespan(app: Starlette) -> AsyncIterator[None]:
    """While the app runs: the watch of the rooms' file for other workers' changes."""
    rooms: Rooms = app.state.rooms
    task = asyncio.get_running_loop().create_task(rooms.watch())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


KEPT_PAGES = {"/roll": "roll.html", "/dice": "dice.html"}


class Kept:
    """The innermost middleware: what was answered before from the same tables is sent
    from memory at once, with no routing and no request objects (issue 38: the API's
    response bytes for the same body, answer_cache.AnswerCache.body_key; the lookup
    pages, Web.kept_page); anything else goes on to the routes, its body as received."""

    def __init__(self, app: ASGIApp, web: Web) -> None:
        self.app, self.web = app, web

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path, method = scope["path"], scope["method"]
        if method == "GET" and path in KEPT_PAGES:
            kept = self.web.kept_page(Request(scope), KEPT_PAGES[path])
            if kept is not None:
                return await kept(scope, receive, send)
            return await self.app(scope, receive, send)
        name = path[5:] if method == "POST" and path.startswith("/api/") else ""
        kind = next((v for k, v in scope["headers"] if k == b"content-type"), b"")
        if name not in calls.NAMES or not _is_json(kind.decode("latin-1")):
            return await self.app(scope, receive, send)
        got: list[Message] = []
        body, more = b"", True
        while more:
            message = await receive()
            got.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            more = message.get("more_body", False)
        key = None if more else self.web.answers.body_key(name, body)
        data = None if key is None else self.web.answers.get(key)
        if data is None:

            async def again() -> Message:
                return got.pop(0) if got else await receive()

            return await self.app(scope, again, send)
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(data))]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": data})


class ApiName(Convertor[str]):
    """A name of the JSON API (calls.NAMES)."""

    regex = "|".join(sorted(calls.NAMES, key=len, reverse=True))

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("api_name", ApiName())


def create_app(
    tables: str | Path | None = None,
    hosts: list[str] | None = None,
    state: str | Path | None = None,
    secret: bytes | None = None,
) -> Starlette:
    """The app over the tables folder `tables` (else the default: --tables,
    $DICESOLVER_TABLES, ...).  hosts: host names it answers to besides its loopback names,
    the address a request reached it at and $DICESOLVER_ALLOW_HOST (against DNS
    rebinding: origin.py); a request from another site's page that would change anything
    is refused, and the pages' forms carry a token (origin.py).  state: the folder of the
    rooms' SQLite file (default: `state` beside the tables folder; room_hub.py).  secret:
    the form tokens' key (the same in every worker process of one server; else made
    anew)."""
    web = Web(tables)
    middleware = [
        Middleware(SecurityHeaders),
        Middleware(HostGuard, names=hosts or ()),
        Middleware(OriginGuard),
        Middleware(BodyLimit),
        Middleware(CsrfCookie, secret=secret),
        Middleware(Kept, web=web),  # (inside every check above: they hold for it too)
    ]
    routes = [
        # (first: the questions asked most are matched at once, not after some 30 routes;
        # the convertor takes the API's names only, so /api/rooms, /api/jobs go on below)
        Route("/api/{name:api_name}", api_call, methods=["POST"]),
        *screens.routes(),
        *play.routes(),
        *room_pages.routes(),
        *room_api.routes(),
        Route("/api/jobs", api_job_start, methods=["POST"]),
        Route("/api/jobs/{job}", api_job, methods=["GET"]),
        Route("/api/{name}", api_call, methods=["POST"]),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={HTTPException: not_found, Exception: server_error},
        lifespan=_lifespan,
    )
    app.state.web = web
    app.state.rooms = Rooms(web, None if state is None else Path(state))
    web.templates.env.globals["die_pips"] = PIPS
    web.templates.env.globals["csrf_token"] = csrf_token
    return app
