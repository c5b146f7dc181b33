"""The screens: each a form that posts to itself and renders the answer on the server (so
they work with JavaScript off; static/app.js only makes dice tappable and steppers step),
every one two taps from the start page.  Like cli/, a screen parses, calls the API and
renders: the answer shown is the API's."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from ..errors import InputError, TableMissing
from . import calls
from . import forms as F
from .sessions import RULE_FILES, set_session_cookie

if TYPE_CHECKING:
    from .app import Web

# pips of a die face on a 100 x 100 die (static SVG drawn by the templates)
_AT = {"tl": (28, 28), "tr": (72, 28), "ml": (28, 50), "mr": (72, 50), "c": (50, 50)}
_AT |= {"bl": (28, 72), "br": (72, 72)}
_FACES = {
    1: ("c",),
    2: ("tr", "bl"),
    3: ("tr", "c", "bl"),
    4: ("tl", "tr", "bl", "br"),
    5: ("tl", "tr", "c", "bl", "br"),
    6: ("tl", "tr", "ml", "mr", "bl", "br"),
}
PIPS = {face: [_AT[p] for p in at] for face, at in _FACES.items()}
UPLOAD = "upload:"  # a rules field's value naming a rule set uploaded in this session
SCREENS = {  # path -> (title, what it answers), in the start page's order
    "/roll": ("Should I roll?", "Roll or bank, by expected points or by the chance to win"),
    "/dice": ("Which dice?", "Tap the dice you rolled: every set-aside ranked"),
    "/card": ("Strategy card", "When to bank, for the rules you play: print it"),
    "/play": ("Play", "Against the computer, hot seat, companion to a real game, solitaire"),
    "/yahtzee": ("Yahtzee", "Tap five dice: keeps and boxes ranked"),
    "/review": ("Review a game", "Upload a decision log: every mistake and its cost"),
}


@lru_cache(maxsize=1)
def presets() -> list[dict[str, Any]]:
    import dicesolver as ds

    from ..rules import load

    return [
        {"value": p.name, "name": p.name, "unit": load(p.name).unit, "description": p.description}
        for p in ds.describe_rules().presets
    ]


@lru_cache(maxsize=1)
def yahtzee_presets() -> list[dict[str, Any]]:
    import dicesolver as ds

    return [
        {"value": p.name, "name": p.name, "description": p.description, "boxes": p.boxes}
        for p in ds.yahtzee_rules().presets
    ]


def _web(request: Request) -> Web:
    return request.app.state.web


async def fields(request: Request) -> dict[str, Any]:
    """The submitted fields: a posted form (its files as UploadFile) or the query."""
    if request.method == "POST":
        form = await request.form(max_files=2, max_fields=64, max_part_size=1 << 20)
        out: dict[str, Any] = {}
        for key, value in form.multi_items():
            if key == "filled":
                out.setdefault(key, []).append(value)
            else:
                out[key] = value
        return out
    params = request.query_params
    out = {k: v for k, v in params.items() if k != "filled"}
    if "filled" in params:
        out["filled"] = params.getlist("filled")
    return out


def uploads(request: Request) -> dict[str, Any]:
    s = _web(request).session(request)
    if s is None:
        return {}
    with s.lock:
        return dict(s.data.get("rules", {}))


def rules_choice(request: Request, form: dict[str, Any]) -> tuple[str, Any]:
    """(the field's value, the rules to call with: a preset's name or an uploaded RuleSet)."""
    value = F.text(form, "rules") or "farkle"
    if value.startswith(UPLOAD):
        rs = uploads(request).get(value[len(UPLOAD) :])
        if rs is None:
            raise InputError("the uploaded rules are gone (the session ended): upload them again")
        return value, rs
    return value, value


def unit_of(request: Request, value: str) -> int:
    for p in presets():
        if p["value"] == value:
            return p["unit"]
    rs = uploads(request).get(value[len(UPLOAD) :]) if value.startswith(UPLOAD) else None
    return rs.unit if rs is not None else 50


def context(request: Request, form: dict[str, Any], **extra: Any) -> dict[str, Any]:
    choices = [
        {"value": UPLOAD + key, "name": f"{rs.name} (uploaded)", "unit": rs.unit}
        for key, rs in uploads(request).items()
    ]
    value = F.text(form, "rules") or "farkle"
    return {
        "form": form,
        "presets": presets() + choices,
        "rules_value": value,
        "unit": unit_of(request, value),
        "screens": SCREENS,
        **extra,
    }


async def attempt(
    request: Request, ctx: dict[str, Any], name: str, kwargs: dict[str, Any], back: str
) -> Any:
    """Ask the API; the answer, an error line or a build offer go into the page."""
    web = _web(request)
    try:
        a = await web.answer(name, kwargs)
    except TableMissing as e:
        ctx["offer"] = web.offer(e, back)
        return None
    except Exception as e:
        status, obj = calls.error_object(e)
        ctx["error"] = obj["error"]
        return None
    ctx["answer"] = a
    ctx["kind"] = type(a).__name__
    return a


def page(request: Request, template: str, ctx: dict[str, Any]) -> Response:
    return _web(request).templates.TemplateResponse(request, template, ctx)


# --- the screens -------------------------------------------------------------------------
ROLL_FIELDS = ("rules", "dice", "turn", "score", "opponents", "not_on_board", "ask")


async def home(request: Request) -> Response:
    return page(request, "index.html", context(request, {}))


async def should_i_roll(request: Request) -> Response:
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
            ctx["error"] = calls.one_line(str(e))
        else:
            await attempt(request, ctx, "advise", kwargs, "/roll?" + F.query(form, ROLL_FIELDS))
    return page(request, "roll.html", ctx)


def _where(form: Any) -> dict[str, Any]:
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
            ctx["error"] = calls.one_line(str(e))
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
        ctx["error"] = calls.one_line(str(e))
        return page(request, "card.html", ctx)
    back = "/card?" + F.query(form, ("rules", "not_on_board"))
    a = await attempt(request, ctx, "strategy", kwargs, back)
    if a is not None:
        from ..cli import render

        ctx["text"] = render.strategy(a)
        odds = {}
        for n in a.bank_thresholds:
            try:
                odds[n] = await _web(request).answer("odds", {"rules": rules, "dice": n})
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
            ctx["error"] = calls.one_line(str(e))
        else:
            a = await attempt(request, ctx, name, kwargs, "/review")
            if a is not None:
                from ..cli.render import choice_text

                ctx["choice_text"] = choice_text
    ctx["yahtzee_presets"] = yahtzee_presets()
    return page(request, "review.html", ctx)


YAHTZEE_FIELDS = ("yahtzee_rules", "dice", "rolls_left", "upper", "yahtzee_bonus", "ask")


async def yahtzee(request: Request) -> Response:
    form = await fields(request)
    ctx = context(request, form, title="Yahtzee")
    chosen = F.text(form, "yahtzee_rules") or "yahtzee"
    ctx["yahtzee_presets"] = yahtzee_presets()
    ctx["yahtzee_value"] = chosen
    ctx["boxes"] = next((p["boxes"] for p in yahtzee_presets() if p["value"] == chosen), [])
    filled = form.get("filled") or []
    ctx["filled"] = [b for b in filled if isinstance(b, str)]
    if F.text(form, "ask"):
        try:
            kwargs: dict[str, Any] = {
                "rules": chosen,
                "dice": F.faces(form, "dice"),
                "rolls_left": F.whole(form, "rolls_left", "Rolls left"),
                "filled": ctx["filled"],
                "upper": F.whole(form, "upper", "Upper total") or 0,
                "yahtzee_bonus": F.flag(form, "yahtzee_bonus"),
            }
            if kwargs["rolls_left"] is None:
                kwargs["rolls_left"] = 2
        except InputError as e:
            ctx["error"] = calls.one_line(str(e))
        else:
            query = F.query(form, YAHTZEE_FIELDS)
            query += "".join(f"&filled={quote(b)}" for b in ctx["filled"])
            await attempt(request, ctx, "yahtzee_advise", kwargs, "/yahtzee?" + query)
    return page(request, "yahtzee.html", ctx)


async def _upload(form: dict[str, Any], file_key: str, text_key: str, what: str):
    """(text, file name) of an upload: a file chosen, else the text pasted."""
    f = form.get(file_key)
    if isinstance(f, UploadFile) and f.filename:
        data = await f.read(calls.TEXT_LIMIT["log_text"] + 1)
        if len(data) > calls.TEXT_LIMIT["log_text"]:
            raise InputError(f"the {what} file is larger than this server takes")
        try:
            return data.decode("utf-8"), f.filename
        except UnicodeDecodeError as e:
            raise InputError(
                f"the {what} file {f.filename}: not UTF-8 text (byte {e.start})"
            ) from None
    text = form.get(text_key)
    if isinstance(text, str) and text.strip():
        return text, f"pasted-{what}"
    raise InputError(f"choose a {what} file, or paste its text")


NEXT = {path for path in SCREENS} | {"/", "/play/setup"}


async def upload_rules(request: Request) -> Response:
    """A rule file (chosen or pasted) kept in this person's session: in every rules list."""
    form = await fields(request)
    ctx = context(request, form, title="Your rules")
    after = F.text(form, "next")
    ctx["next"] = after if after in NEXT else "/roll"
    if request.method != "POST":
        return page(request, "rules.html", ctx)
    try:
        text, _ = await _upload(form, "rules_file", "rules_text", "rules")
        rs = calls.rules_from_text(text)
    except InputError as e:
        ctx["error"] = calls.one_line(str(e))
        return page(request, "rules.html", ctx)
    web = _web(request)
    new: list[str] = []
    s = web.session_for(request, new)
    key = rs.digest()[:16]
    with s.lock:
        kept = s.data.setdefault("rules", {})
        kept.pop(key, None)
        kept[key] = rs
        while len(kept) > RULE_FILES:
            kept.pop(next(iter(kept)))
    response = RedirectResponse(f"{ctx['next']}?rules={quote(UPLOAD + key)}", status_code=303)
    if new:
        set_session_cookie(response, new[0])
    return response


async def build(request: Request) -> Response:
    """Start the offered build (its token from the page): then its progress page."""
    web = _web(request)
    form = await fields(request)
    token = F.text(form, "token")
    got = web.offers.get(token)
    if got is None:
        ctx = context(request, {}, title="Build a table")
        ctx["error"] = "this offer has expired: ask the question again"
        return page(request, "job.html", ctx)
    e, back = got
    try:
        job = web.jobs.start(e)
    except InputError as err:
        ctx = context(request, {}, title="Build a table")
        ctx["error"] = calls.one_line(str(err))
        return page(request, "job.html", ctx)
    return RedirectResponse(f"/jobs/{job.id}?back={quote(back)}", status_code=303)


async def job_page(request: Request) -> Response:
    web = _web(request)
    job = web.jobs.get(request.path_params["job"])
    ctx = context(request, {}, title="Building a table")
    back = request.query_params.get("back", "/")
    ctx["back"] = back if back.startswith("/") and not back.startswith("//") else "/"
    if job is None:
        ctx["error"] = "no such build (finished long ago, or never)"
    else:
        ctx["job"] = job.to_dict()
    return page(request, "job.html", ctx)


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
