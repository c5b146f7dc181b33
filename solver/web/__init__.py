"""`zilch serve`: the table companion in a browser (a phone at the table) and the JSON API
(`POST /api/<name>` = the Python API's to_json()).

`dicesolver.web:app` is the ASGI app over the default tables folder (--tables,
$DICESOLVER_TABLES, ...), for any ASGI server; `create_app(tables=...)` makes one over a
folder of your choosing.  Made on first use, so `import dicesolver.web` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.applications import Starlette

__all__ = ["app", "create_app"]


def create_app(tables: str | None = None, hosts: list[str] | None = None) -> Starlette:
    from .app import create_app as make

    return make(tables, hosts)


def __getattr__(name: str) -> Any:
    if name == "app":
        made = create_app()
        globals()["app"] = made
        return made
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
