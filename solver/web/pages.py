"""What every page shares: the rules to choose from (presets and this session's uploads),
the submitted fields, the context a template gets, asking the API with an error line or a
build offer in the page, and the page itself."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from ..errors import InputError, TableMissing
from ..rules import RuleSet
from . import calls
from . import forms as F
from .app_state import web_of
from .origin import check_csrf
from .sessions import RULES_SLOT, TEXTS_SLOT, YAHTZEE_SLOT

if TYPE_CHECKING:
    from ..yahtzee.yahtzee_rules import YahtzeeRules

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


async def fields(request: Request) -> dict[str, Any]:
    """The submitted fields: a posted form (its files as UploadFile; 403 without this
    browser's token, origin.py) or the query."""
    if request.method == "POST":
        form = await request.form(max_files=2, max_fields=64, max_part_size=1 << 20)
        out: dict[str, Any] = {}
        for key, value in form.multi_items():
            if key == "filled":
                out.setdefault(key, []).append(value)
            else:
                out[key] = value
        check_csrf(request, out)
        return out
    params = request.query_params
    out = {k: v for k, v in params.items() if k != "filled"}
    if "filled" in params:
        out["filled"] = params.getlist("filled")
    return out


def uploads(request: Request) -> dict[str, RuleSet]:
    """This session's uploaded Zilch-family rule sets, by key (the oldest first)."""
    return _kept(request, RULES_SLOT)


def yahtzee_uploads(request: Request) -> dict[str, YahtzeeRules]:
    """This session's uploaded Yahtzee-family rule sets, by key (the oldest first)."""
    return _kept(request, YAHTZEE_SLOT)


def uploaded_text(request: Request, value: str) -> str:
    """The text of the rule file a rules field's value names (UPLOAD + key), as uploaded in
    this session (a room keeps the text: it outlives the session)."""
    text = _kept(request, TEXTS_SLOT).get(value[len(UPLOAD) :])
    if text is None:
        raise InputError("the uploaded rules are gone (the session ended): upload them again")
    return str(text)


def _kept(request: Request, slot: str) -> dict[str, Any]:
    s = web_of(request).session(request)
    if s is None:
        return {}
    with s.lock:
        return dict(s.data.get(slot, {}))


def yahtzee_choices(request: Request) -> list[dict[str, Any]]:
    """The Yahtzee rules field's choices: the presets, then this session's uploads."""
    return yahtzee_presets() + [
        {
            "value": UPLOAD + key,
            "name": f"{rs.name} (uploaded)",
            "description": rs.description,
            "boxes": list(rs.boxes),
        }
        for key, rs in yahtzee_uploads(request).items()
    ]


def yahtzee_choice(request: Request, value: str) -> str | YahtzeeRules:
    """The Yahtzee rules to call with: a preset's name, or an uploaded YahtzeeRules."""
    if not value.startswith(UPLOAD):
        return value
    rs = yahtzee_uploads(request).get(value[len(UPLOAD) :])
    if rs is None:
        raise InputError("the uploaded rules are gone (the session ended): upload them again")
    return rs


def rules_choice(request: Request, form: dict[str, Any]) -> tuple[str, str | RuleSet]:
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
    web = web_of(request)
    try:
        a = await web.answer(name, kwargs)
    except TableMissing as e:
        ctx["offer"] = web.offer(e, back)
        return None
    except Exception as e:
        status, obj = calls.error_object(e)
        refuse(ctx, obj["error"], status)
        return None
    ctx["answer"] = a
    ctx["kind"] = type(a).__name__
    return a


def refuse(ctx: dict[str, Any], error: str, status: int = 400) -> None:
    """The page cannot answer: its one line, and the status of the refusal (as the API's:
    bad input 400, no such thing 404), not 200 as if it had answered."""
    ctx["error"] = calls.one_line(error)
    ctx["status"] = status


def page(request: Request, template: str, ctx: dict[str, Any]) -> Response:
    """The page drawn (a lookup's page answered from stored tables is kept: Web.page)."""
    return web_of(request).page(request, template, ctx)
