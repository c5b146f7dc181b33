"""The screens: each a form that posts to itself and renders the answer on the server (so
they work with JavaScript off; static/app.js only makes dice tappable and steppers step),
every one two taps from the start page.  Like cli/, a screen parses, calls the API and
renders: the answer shown is the API's."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, urlsplit

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from ..errors import InputError
from ..rules import RuleSet
from . import calls
from . import forms as F
from .app_state import web_of
from .pages import (
    SCREENS,
    UPLOAD,
    attempt,
    context,
    fields,
    page,
    refuse,
    rules_choice,
    yahtzee_choice,
    yahtzee_choices,
    yahtzee_presets,
)
from .sessions import RULE_FILES, RULES_SLOT, TEXTS_SLOT, YAHTZEE_SLOT, set_session_cookie

# --- the screens -------------------------------------------------------------------------
ROLL_FIELDS = ("rules", "dice", "turn", "score", "opponents", "not_on_board", "ask")


async def home(request: Request) -> Response:
    return page(request, "index.html", context(request, {}))


async def should_i_roll(request: Request) -> Response:
    kept = web_of(request).kept_page(request, "roll.html")  # (the same question: its page)
    if kept is not None:
        return kept
    form = await fields(request)
    ctx = context(request, form, title="Should I roll?")
    if F.text(form, "ask"):
        try:
            value, rules = rules_choice(request, form)
            kwargs: dict[str, Any] = {"rules": rules}
            dice = F.whole(form, "dice", "Dice left")
            if dice is not None:
                kwargs["dice"] = dice
            kwargs.update(_where(form))
        except InputError as e:
            refuse(ctx, str(e))
        else:
            await attempt(request, ctx, "advise", kwargs, "/roll?" + F.query(form, ROLL_FIELDS))
    return page(request, "roll.html", ctx)


def _where(form: dict[str, Any]) -> dict[str, Any]:
    """Where the turn stands, as both advice screens ask it: the turn total, the scores
    (optional), not yet on the board."""
    kwargs: dict[str, Any] = {"turn": F.whole(form, "turn", "Turn total") or 0}
    score = F.whole(form, "score", "Your score")
    opponents = F.numbers(form, "opponents")
    if score is not None or opponents is not None:
        kwargs["score"], kwargs["opponents"] = score, opponents
    if F.flag(form, "not_on_board"):
        kwargs["not_on_board"] = True
    return kwargs


DICE_FIELDS = ("rules", "roll", "turn", "score", "opponents", "not_on_board", "ask")


async def which_dice(request: Request) -> Response:
    kept = web_of(request).kept_page(request, "dice.html")  # (the same question: its page)
    if kept is not None:
        return kept
    form = await fields(request)
    ctx = context(request, form, title="Which dice?")
    if F.text(form, "ask"):
        try:
            value, rules = rules_choice(request, form)
            roll = F.faces(form, "roll")
            kwargs: dict[str, Any] = {"rules": rules, "roll": roll}
            if isinstance(roll, list) and roll:
                kwargs["dice"] = len(roll)
            kwargs.update(_where(form))
        except InputError as e:
            refuse(ctx, str(e))
        else:
            await attempt(request, ctx, "advise", kwargs, "/dice?" + F.query(form, DICE_FIELDS))
    return page(request, "dice.html", ctx)


async def card(request: Request) -> Response:
    form = await fields(request)
    if not F.text(form, "rules"):
        form = dict(form, rules="farkle")
    ctx = context(request, form, title="Strategy card")
    try:
        value, rules = rules_choice(request, form)
        kwargs: dict[str, Any] = {"rules": rules}
        if F.flag(form, "not_on_board"):
            kwargs["not_on_board"] = True
    except InputError as e:
        refuse(ctx, str(e))
        return page(request, "card.html", ctx)
    back = "/card?" + F.query(form, ("rules", "not_on_board"))
    a = await attempt(request, ctx, "strategy", kwargs, back)
    if a is not None:
        from ..render import text as render

        ctx["text"] = render.strategy(a)
        odds = {}
        for n in a.bank_thresholds:
            try:
                odds[n] = await web_of(request).answer("odds", {"rules": rules, "dice": n})
            except InputError:
                break
        ctx["p_zilch"] = odds
        ctx["rules_name"] = a.rules
    return page(request, "card.html", ctx)


async def review(request: Request) -> Response:
    form = await fields(request)
    ctx = context(request, form, title="Review a game")
    if request.method == "POST" and F.text(form, "ask"):
        try:
            value, rules = rules_choice(request, form)
            text, name = await _upload(form, "log_file", "log_text", "log")
            kwargs: dict[str, Any] = {"log_text": text, "log_name": name}
            game = F.text(form, "game") or "zilch"
            objective = F.text(form, "objective") or "auto"
            player = F.text(form, "player")
            if game == "yahtzee":
                kwargs["rules"] = F.text(form, "yahtzee_rules") or "yahtzee"
                name = "yahtzee_review"
            else:
                kwargs |= {"rules": rules, "objective": objective}
                name = "review"
            if player:
                kwargs["player"] = player
        except InputError as e:
            refuse(ctx, str(e))
        else:
            a = await attempt(request, ctx, name, kwargs, "/review")
            if a is not None:
                from ..render.text import choice_text

                ctx["choice_text"] = choice_text
    ctx["yahtzee_presets"] = yahtzee_presets()
    return page(request, "review.html", ctx)


YAHTZEE_FIELDS = (
    "yahtzee_rules",
    "dice",
    "rolls_left",
    "upper",
    "yahtzee_bonus",
    "score",
    "at_least",
    "ask",
)
# how the page names the chance against opponents still playing (the CLI's method)
APPROXIMATE = "approximate (Pawlewicz's heuristic: opponents playing for the expected score)"


async def yahtzee(request: Request) -> Response:
    form = await fields(request)
    ctx = context(request, form, title="Yahtzee")
    chosen = F.text(form, "yahtzee_rules") or "yahtzee"
    ctx["yahtzee_presets"] = choices = yahtzee_choices(request)  # (and this session's uploads)
    ctx["yahtzee_value"] = chosen
    ctx["boxes"] = next((p["boxes"] for p in choices if p["value"] == chosen), [])
    filled = form.get("filled") or []
    ctx["filled"] = [b for b in filled if isinstance(b, str)]
    ctx["approximate"] = APPROXIMATE
    if F.text(form, "ask"):
        try:
            kwargs: dict[str, Any] = {
                "rules": yahtzee_choice(request, chosen),
                "dice": F.faces(form, "dice"),
                "rolls_left": F.whole(form, "rolls_left", "Rolls left"),
                "filled": ctx["filled"],
                "upper": F.whole(form, "upper", "Upper total") or 0,
                "yahtzee_bonus": F.flag(form, "yahtzee_bonus"),
            }
            if kwargs["rolls_left"] is None:
                kwargs["rolls_left"] = 2
            kwargs.update(_yahtzee_goal(form))
        except InputError as e:
            refuse(ctx, str(e))
        else:
            back = "/yahtzee?" + _yahtzee_query(form, ctx["filled"], kwargs.get("opponents"))
            await attempt(request, ctx, "yahtzee_advise", kwargs, back)
    return page(request, "yahtzee.html", ctx)


def _yahtzee_goal(form: dict[str, Any]) -> dict[str, Any]:
    """What the player plays for, as yahtzee_advise takes it: the opponents' sheets (by
    P(win)), a score to reach (P(final >= T)), or neither (the expected score: the points
    so far are then left out, as they change no keep)."""
    score = F.whole(form, "score", "Your score so far")
    opponents = F.sheets(form, "opponents")
    at_least = F.whole(form, "at_least", "Score to reach")
    if opponents is not None and at_least is not None:
        raise InputError("give the opponents or a score to reach, not both")
    if opponents is not None:
        return {"score": score or 0, "opponents": opponents}
    if at_least is not None:
        return {"score": score or 0, "at_least": at_least}
    return {}


def _yahtzee_query(form: dict[str, Any], filled: list[str], opponents: str | None) -> str:
    """The question as the page's address (the build's page links back to it)."""
    query = F.query(form, YAHTZEE_FIELDS)
    query += "".join(f"&filled={quote(b)}" for b in filled)
    if opponents is not None:
        query += "&opponents=" + quote(opponents)
    return query


async def _upload(form: dict[str, Any], file_key: str, text_key: str, what: str) -> tuple[str, str]:
    """(text, file name) of an upload: a file chosen, else the text pasted; each at most
    as large as the API takes its text (a rule file 1 MB, as the command line reads it; a
    log 4 MB)."""
    limit = calls.TEXT_LIMIT[text_key]
    f = form.get(file_key)
    if isinstance(f, UploadFile) and f.filename:
        data = await f.read(limit + 1)
        if len(data) > limit:
            size = f.size if f.size is not None and f.size > limit else len(data)
            raise InputError(
                f"the {what} file {f.filename}: {size} bytes, more than such a file can be "
                f"({limit})"
            )
        try:
            return data.decode("utf-8"), f.filename
        except UnicodeDecodeError as e:
            raise InputError(
                f"the {what} file {f.filename}: not UTF-8 text (byte {e.start})"
            ) from None
    text = form.get(text_key)
    if isinstance(text, str) and text.strip():
        if len(text) > limit:
            raise InputError(
                f"the pasted {what}: {len(text)} characters, more than such a file can be ({limit})"
            )
        return text, f"pasted-{what}"
    raise InputError(f"choose a {what} file, or paste its text")


NEXT = {path for path in SCREENS} | {"/", "/play/setup"}


async def upload_rules(request: Request) -> Response:
    """A rule file (chosen or pasted) kept in this person's session: a Zilch-family one in
    every Zilch rules list, a Yahtzee-family one (told by its content) in the Yahtzee
    screen's (then shown there)."""
    form = await fields(request)
    ctx = context(request, form, title="Your rules")
    after = F.text(form, "next")
    ctx["next"] = after if after in NEXT else "/roll"
    if request.method != "POST":
        return page(request, "rules.html", ctx)
    try:
        text, _ = await _upload(form, "rules_file", "rules_text", "rules")
        rs = calls.any_rules_from_text(text)
    except InputError as e:
        refuse(ctx, str(e))
        return page(request, "rules.html", ctx)
    new: list[str] = []
    s = web_of(request).session_for(request, new)
    key = rs.digest()[:16]
    yahtzee = not isinstance(rs, RuleSet)  # (a Yahtzee-family file: its own list and screen)
    with s.lock:
        kept = s.data.setdefault(YAHTZEE_SLOT if yahtzee else RULES_SLOT, {})
        kept.pop(key, None)
        kept[key] = rs
        while len(kept) > RULE_FILES:
            kept.pop(next(iter(kept)))
        texts = s.data.setdefault(TEXTS_SLOT, {})
        texts[key] = text
        held = set(s.data.get(RULES_SLOT, {})) | set(s.data.get(YAHTZEE_SLOT, {}))
        for gone in set(texts) - held:
            texts.pop(gone)
    after = "/roll" if ctx["next"] == "/yahtzee" else ctx["next"]  # (a Zilch screen's list)
    where = "/yahtzee?yahtzee_rules=" if yahtzee else f"{after}?rules="
    response = RedirectResponse(where + quote(UPLOAD + key), status_code=303)
    if new:
        set_session_cookie(response, new[0])
    return response


async def build(request: Request) -> Response:
    """Start the offered build (its token from the page): then its progress page."""
    web = web_of(request)
    form = await fields(request)
    token = F.text(form, "token")
    got = web.offers.get(token)
    if got is None:
        ctx = context(request, {}, title="Build a table")
        refuse(ctx, "this offer has expired: ask the question again")
        return page(request, "job.html", ctx)
    e, back = got
    try:
        job = web.jobs.start(e, request.client.host if request.client else None)
    except InputError as err:
        ctx = context(request, {}, title="Build a table")
        refuse(ctx, str(err), calls.error_object(err)[0])
        return page(request, "job.html", ctx)
    return RedirectResponse(f"/jobs/{job.id}?back={quote(local_path(back))}", status_code=303)


async def job_page(request: Request) -> Response:
    web = web_of(request)
    job = web.jobs.get(request.path_params["job"])
    ctx = context(request, {}, title="Building a table")
    ctx["back"] = local_path(request.query_params.get("back", "/"))
    if job is None:
        refuse(ctx, "no such build (finished long ago, or never)", 404)
    else:
        ctx["job"] = job.to_dict()
    return page(request, "job.html", ctx)


BACK = {path for path in SCREENS} | {"/", "/play/setup", "/rules"}
_URL_SAFE = re.compile(r"[A-Za-z0-9/_.~%&=+,;:@!*'()-]*(\?[A-Za-z0-9/_.~%&=+,;:@!*'()?-]*)?")


def local_path(back: str) -> str:
    """`back` where it is a page of this server (a screen's path and its query), else the
    start page: never another site, however a browser reads it ("//evil", "/\\evil",
    "/\t/evil", "https://evil" all lead home)."""
    if len(back) > 4000 or not _URL_SAFE.fullmatch(back):
        return "/"
    parts = urlsplit(back)
    if parts.scheme or parts.netloc or parts.path not in BACK:
        return "/"
    return back


def routes() -> list[Route]:
    both = ["GET", "POST"]
    return [
        Route("/", home),
        Route("/roll", should_i_roll, methods=both),
        Route("/dice", which_dice, methods=both),
        Route("/card", card, methods=both),
        Route("/review", review, methods=both),
        Route("/yahtzee", yahtzee, methods=both),
        Route("/rules", upload_rules, methods=both),
        Route("/build", build, methods=["POST"]),
        Route("/jobs/{job}", job_page),
    ]
