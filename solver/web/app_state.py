"""What the app holds across requests (Web: the store, the jobs, the sessions, the engines
of the games, the builds offered), and how a request reaches it."""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, TypeVar

import jinja2
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.templating import Jinja2Templates

from ..errors import TableMissing
from ..store import Store
from . import calls
from .answer_cache import PLACEHOLDER, AnswerCache, PageCache
from .guard import QueryStore
from .jobs import Jobs
from .sessions import COOKIE, RULES_SLOT, YAHTZEE_SLOT, Session, Sessions

HERE = Path(__file__).parent
OFFERS = 1000  # builds offered on pages and not yet taken, remembered at once
ENGINES = 16  # engines kept for every session's games (they hold rules and caches only)
E = TypeVar("E")  # an engine (match.ZilchMatch, match.YahtzeeMatch)


def _token_of(request: Request) -> str:
    return str(request.scope.get("state", {}).get("csrf_token", ""))


def web_of(request: Request) -> Web:
    return request.app.state.web


class Engines:
    """The engines of every session's games, shared (an engine holds no game): by rule
    set, target and whether the game table the computers would play by is stored."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._all: OrderedDict[tuple[Hashable, ...], Any] = OrderedDict()

    def get(self, key: tuple[Hashable, ...], make: Callable[[], E]) -> E:
        """The engine of `key`, made by make() where none is kept (the key names its kind)."""
        with self._lock:
            got = self._all.get(key)
            if got is not None:
                self._all.move_to_end(key)
                return got
        made = make()
        with self._lock:
            self._all[key] = made
            while len(self._all) > ENGINES:
                self._all.popitem(last=False)
        return made


class Web:
    """What the app holds: the store, the jobs, the sessions, the offered builds."""

    def __init__(self, tables: str | Path | None) -> None:
        folder = Store.resolve(None if tables is None else str(tables)).folder
        self.store = Store(folder)
        self.query_store = QueryStore(folder)
        self.jobs = Jobs(self.store)
        self.sessions = Sessions()
        self.engines = Engines()
        self.answers = AnswerCache(folder)
        self.pages = PageCache(self.answers)
        self.offers: OrderedDict[str, tuple[TableMissing, str]] = OrderedDict()
        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True
        )
        self.templates = Jinja2Templates(env=env)
        env.filters["pts"] = lambda x: f"{x:,.2f}"
        env.filters["pct"] = lambda p: f"{100 * p:.2f}\u202f%"
        env.filters["pct1"] = lambda p: f"{100 * p:.1f}\u202f%"

    async def answer(self, name: str, kwargs: dict[str, Any]) -> Any:
        """The answer: from memory where the same question was answered from the same
        tables (answer_cache.py), else computed in a worker thread."""
        key = self.answers.key(name, kwargs)
        if key is not None:
            got = self.answers.get(key)
            if got is not None:
                return got
        got = await run_in_threadpool(calls.answer, name, kwargs, self.query_store)
        if key is not None:
            self.answers.put(key, got)
        return got

    def kept_page(self, request: Request, template: str) -> Response | None:
        """A lookup's page as it was drawn for the same address from the same tables (for
        a browser with no uploaded rules), with this browser's form token; None if none."""
        key = self._page_key(request, template)
        got = None if key is None else self.pages.get(key, _token_of(request))
        return None if got is None else HTMLResponse(got[1], got[0])

    def _page_key(self, request: Request, template: str) -> str | None:
        url = f"{request.url.path}?{request.url.query}"
        key = self.pages.key(request.method, url, template)
        if key is None:
            return None
        s = self.session(request)
        if s is not None:
            with s.lock:
                if s.data.get(RULES_SLOT) or s.data.get(YAHTZEE_SLOT):
                    return None  # (its uploaded rules are in the page's lists)
        return key

    def page(self, request: Request, template: str, ctx: dict[str, Any]) -> Response:
        """A page drawn (a lookup's page kept: kept_page)."""
        status = ctx.get("status", 200)
        key = self._page_key(request, template)
        if key is None or "answer" not in ctx or "offer" in ctx:
            return self.templates.TemplateResponse(request, template, ctx, status_code=status)
        state = request.scope.setdefault("state", {})
        token = _token_of(request)
        state["csrf_token"] = PLACEHOLDER
        try:
            made = self.templates.TemplateResponse(request, template, ctx, status_code=status)
        finally:
            state["csrf_token"] = token
        html = bytes(made.body).decode("utf-8")
        self.pages.put(key, status, html, ctx)
        return HTMLResponse(html.replace(PLACEHOLDER, token), status)

    def offer(self, e: TableMissing, back: str) -> dict[str, Any]:
        """A build offered on a page: its token (the page posts it back), the estimate."""
        from .jobs import priced

        token = secrets.token_urlsafe(16)
        self.offers[token] = (e, back)
        while len(self.offers) > OFFERS:
            self.offers.popitem(last=False)
        estimate, refused = priced(e, self.store)
        return {
            "token": token,
            "what": e.what,
            "message": calls.one_line(str(e)),
            "solve_with": e.solve_with,
            "estimate": estimate,
            "refused": refused,
        }

    # --- sessions ------------------------------------------------------------------------
    def session(self, request: Request) -> Session | None:
        return self.sessions.get(request.cookies.get(COOKIE))

    def session_for(self, request: Request, response_cookies: list[str]) -> Session:
        """The request's session, or a new one (its cookie set on the response)."""
        s = self.session(request)
        if s is None:
            s = self.sessions.new(request.client.host if request.client else None)
            response_cookies.append(s.id)
        return s
