"""What every response carries and every request may send: security headers (a Content
Security Policy without inline script) and a bound on the body (413 beyond it, counted as
it arrives, whatever Content-Length says)."""

from __future__ import annotations

import json

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

BODY_LIMIT = 5 << 20  # a log of some 40 000 decisions; a rule file is at most 1 MB
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    # (not no-referrer: under it a browser sends "Origin: null" with this site's own forms,
    # which origin.py could not tell from another site's; same-origin tells no other site)
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        api = scope["path"].startswith("/api/")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", [])) + HEADERS
                if api:
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)


class TooLarge(HTTPException):
    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request is larger than this server takes ({limit >> 20} MB)")


class BodyLimit:
    def __init__(self, app: ASGIApp, limit: int = BODY_LIMIT) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        refused = self._declared(scope)
        if refused is not None:
            return await self._refuse(scope, send, *refused)
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise TooLarge(self.limit)
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except TooLarge:
            if not started:
                await self._refuse(scope, send, 413, self._said())

    def _declared(self, scope: Scope) -> tuple[int, str] | None:
        """The refusal (status, text) of a request whose Content-Length is not a number or
        is beyond the limit; None where none is declared or it is within."""
        for key, value in scope.get("headers", []):
            if key == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    return 400, "a bad Content-Length"
                if declared > self.limit:
                    return 413, self._said()
        return None

    def _said(self) -> str:
        return str(TooLarge(self.limit).detail)

    async def _refuse(self, scope: Scope, send: Send, status: int, text: str) -> None:
        if scope["path"].startswith("/api/"):
            body, kind = json.dumps({"error": text, "exit_code": 2}).encode(), b"application/json"
        else:
            body, kind = text.encode(), b"text/plain; charset=utf-8"
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode())]
                + HEADERS,
            }
        )
        await send({"type": "http.response.body", "body": body})
