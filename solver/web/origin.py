"""Who may ask (issue 36): only the host names this server serves (against DNS rebinding:
its loopback names, the address a request reached it at, the names it was given), only
this site's own pages may change anything (a state-changing request whose Origin, or
without one its Referer, names another site is refused with 403), and the pages' forms
carry a token that another site cannot read (a cookie's HMAC, checked on every posted
form).  In the app itself, so every ASGI server gets it."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import os
import re
import secrets
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .middleware import HEADERS

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
ALLOW_ENV = "DICESOLVER_ALLOW_HOST"  # more host names, comma-separated (any ASGI server)
SAFE = ("GET", "HEAD", "OPTIONS")  # methods that change nothing
COOKIE = "dicesolver_csrf"
FIELD = "csrf"  # the token's form field
HEADER = "x-csrf-token"  # ... or header (a script's request)
_SEED = re.compile(r"[A-Za-z0-9_-]{32,64}")
_NAME = re.compile(r"[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?)*")
STALE = (
    "this form has no valid token (the page is older than the server, or comes from "
    "another site): reload the page and send it again"
)


def host_name(value: str) -> str | None:
    """The name in a Host header ("name", "name:port", "[::1]:port"), lower case and
    without brackets; None where it is no host name at all."""
    try:
        parts = urlsplit("//" + value)
        _ = parts.port  # (a bad port: ValueError)
    except ValueError:
        return None
    if parts.username is not None or parts.path or parts.query or parts.fragment:
        return None
    return parts.hostname or None


def checked_name(value: str) -> str:
    """A host name or address as --allow-host takes it (ValueError otherwise): lower
    case, an IPv6 address without brackets."""
    name = value.strip().lower()
    bare = name[1:-1] if name.startswith("[") and name.endswith("]") else name
    try:
        return str(ipaddress.ip_address(bare))
    except ValueError:
        pass
    if len(name) > 253 or not _NAME.fullmatch(name):
        raise ValueError(
            f"{value!r} is not a host name or an address (give a name such as table.lan, "
            "without a scheme or a port)"
        )
    return name


def _normal(name: str) -> str:
    try:
        return checked_name(name)
    except ValueError:  # (a name a server was started with: as it is)
        return name.strip().strip("[]").lower()


def _loopback_address(name: str) -> bool:
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _address(name: str) -> str:
    """An address as one text (an IPv4 address mapped into IPv6 as the IPv4 address, as a
    dual-stack socket reports an IPv4 client's connection); a name as it is."""
    try:
        ip = ipaddress.ip_address(name)
    except ValueError:
        return name
    mapped = getattr(ip, "ipv4_mapped", None)
    return str(mapped or ip)


def env_names() -> list[str]:
    got = os.environ.get(ALLOW_ENV, "")
    return [checked_name(n) for n in got.split(",") if n.strip()]


async def _refuse(scope: Scope, send: Send, status: int, text: str) -> None:
    if scope["path"].startswith("/api/"):
        body, kind = json.dumps({"error": text, "exit_code": 2}).encode(), b"application/json"
    else:
        body, kind = text.encode(), b"text/plain; charset=utf-8"
    headers = [(b"content-type", kind), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers + HEADERS})
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return None


class HostGuard:
    """Refuses (400) a request whose Host is not a name this server serves: a loopback
    name or address, the address the request reached (the server's side of the
    connection, as the ASGI server says it), or a name given (`names`, --allow-host,
    $DICESOLVER_ALLOW_HOST).  A page of another site that rebinds its own name to this
    machine's address sends its own name: refused."""

    def __init__(self, app: ASGIApp, names: Iterable[str] = ()) -> None:
        self.app = app
        self.names = {_normal(n) for n in [*LOOPBACK_NAMES, *names, *env_names()]}

    def allowed(self, name: str | None, scope: Scope) -> bool:
        if not name:
            return False
        if name in self.names or _loopback_address(name):
            return True
        server = scope.get("server")
        if server and isinstance(server[0], str):  # (where this connection arrived)
            return _address(name) == _address(server[0].strip("[]").lower())
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        value = _header(scope, b"host")
        name = host_name(value) if value is not None else None
        if self.allowed(name, scope):
            return await self.app(scope, receive, send)
        if scope["type"] == "websocket":
            return await send({"type": "websocket.close", "code": 1008})
        shown = (value or "")[:100]
        await _refuse(
            scope,
            send,
            400,
            f"this server does not answer to the host name {shown!r}: open it at the address "
            "it printed (zilch serve --allow-host NAME adds a name)",
        )


def _site(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an http(s) URL; None for anything else."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


def same_site(url: str, host: str) -> bool:
    """Whether `url` (an Origin or a Referer) is this server as the request's Host names it."""
    site = _site(url)
    if site is None:
        return False
    scheme, name, port = site
    try:
        here = urlsplit("//" + host)
        here_port = here.port or (443 if scheme == "https" else 80)
    except ValueError:
        return False
    return here.hostname == name and here_port == port


def foreign(headers: Mapping[str, str]) -> str | None:
    """Why a request comes from another site (its Origin, or without it its Referer, or a
    browser's Sec-Fetch-Site says so); None where it does not (a program sends none)."""
    host = headers.get("host", "")
    origin = headers.get("origin")
    if origin is not None:
        if origin == "null":
            return "it comes from a page without an origin (sandboxed, or another site's)"
        return None if same_site(origin, host) else f"it comes from another site ({origin[:100]})"
    referer = headers.get("referer")
    if referer:
        if same_site(referer, host):
            return None
        return f"it comes from another site's page ({(_site(referer) or ('', '?'))[1][:100]})"
    if headers.get("sec-fetch-site") in ("cross-site", "same-site"):
        return "it comes from another site (Sec-Fetch-Site)"
    return None


class OriginGuard:
    """403 for a request that may change something (any method but GET, HEAD, OPTIONS)
    sent by another site's page: its jobs, uploads, moves and set-ups are this site's."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE:
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        why = foreign(headers)
        if why is None:
            return await self.app(scope, receive, send)
        said = f"refused: {why}; this server takes such requests from its own pages only"
        await _refuse(scope, send, 403, said)


# --- the forms' token ----------------------------------------------------------------------
class CsrfCookie:
    """Every page request gets a token for its forms: HMAC(secret, the browser's seed),
    the seed in an HttpOnly cookie (set where the browser has none).  Another site can
    neither read the page nor make the token from the cookie."""

    def __init__(self, app: ASGIApp, secret: bytes | None = None) -> None:
        self.app = app
        self.secret = secret or secrets.token_bytes(32)

    def token(self, seed: str) -> str:
        return hmac.new(self.secret, seed.encode(), hashlib.sha256).hexdigest()[:40]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or path.startswith(("/api/", "/static/")):
            return await self.app(scope, receive, send)
        seed = _cookie(_header(scope, b"cookie") or "", COOKIE)
        new = seed is None or not _SEED.fullmatch(seed)
        if new:
            seed = secrets.token_urlsafe(32)
        assert seed is not None
        scope.setdefault("state", {})["csrf_token"] = self.token(seed)

        async def with_cookie(message: Message) -> None:
            if new and message["type"] == "http.response.start":
                cookie = f"{COOKIE}={seed}; Path=/; HttpOnly; SameSite=Lax"
                message["headers"] = [*message.get("headers", []), (b"set-cookie", cookie.encode())]
            await send(message)

        await self.app(scope, receive, with_cookie)


def _cookie(header: str, name: str) -> str | None:
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None


def csrf_token(request: Request) -> str:
    """The token this request's page puts in its forms ("" outside the pages)."""
    state: dict[str, Any] = request.scope.get("state", {})
    return str(state.get("csrf_token", ""))


def check_csrf(request: Request, form: Mapping[str, Any]) -> None:
    """403 unless the posted form (or the X-CSRF-Token header) carries this browser's token."""
    expected = csrf_token(request)
    sent = form.get(FIELD)
    if not isinstance(sent, str) or not sent:
        sent = request.headers.get(HEADER, "")
    if not expected or not hmac.compare_digest(sent.encode(), expected.encode()):
        raise HTTPException(403, STALE)
