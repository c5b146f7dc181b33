"""docs/architecture.md's layer map, held against the code: every import (at run time, not
the type checker's) goes to the module's own layer or one above it, and no two modules
import each other in a circle."""

from __future__ import annotations

import ast
from pathlib import Path

SOLVER = Path(__file__).parent.parent / "solver"
# docs/architecture.md's layers, from the top (a module imports from its rank or lower)
LAYERS = [
    {"errors", "limits", "files", "progress", "position"},
    {"rules"},
    {"outcomes"},
    {"turn"},
    {"objectives"},
    {"store", "layer_store", "cluster"},
    {"variants", "yahtzee"},
    {"tables"},
    {"play"},
    {"answers"},
    {"cli", "web"},
    {"__init__", "__main__"},
]


def rank(module: str) -> int:
    top = module.split(".")[0]
    return next(i for i, layer in enumerate(LAYERS) if top in layer)


def runtime_imports(path: Path) -> set[str]:
    """The solver modules a file imports outside `if TYPE_CHECKING:` (relative imports,
    resolved to dotted names under solver/)."""
    rel = path.relative_to(SOLVER).with_suffix("")
    package = list(rel.parts[:-1]) if rel.name != "__init__" else list(rel.parts[:-1])
    tree = ast.parse(path.read_text())
    checking = {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for n in ast.walk(node)
    }
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level and id(node) not in checking:
            base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
            if node.module:
                found.add(".".join([*base, node.module]))
            else:  # from . import x
                found.update(".".join([*base, a.name]) for a in node.names)
    return {m for m in found if m}


def modules() -> dict[str, set[str]]:
    out = {}
    for path in SOLVER.rglob("*.py"):
        rel = path.relative_to(SOLVER).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" and rel.parts[:-1] else rel.parts)
        out[name] = runtime_imports(path)
    return out


def test_every_import_goes_up_the_layer_map():
    wrong = [
        f"{m} (layer {rank(m)}) imports {i} (layer {rank(i)})"
        for m, imports in modules().items()
        for i in imports
        if rank(i) > rank(m)
    ]
    assert not wrong, wrong


def test_no_two_modules_import_each_other():
    """(the answers' game and challenge modules did: the circle is gone)"""
    mods = modules()

    def module_of(name: str) -> str:
        # a name imported from a package may be its __init__ or a module in it
        return name if name in mods else name.rsplit(".", 1)[0]

    pairs = [
        (a, b)
        for a, imports in mods.items()
        for b in map(module_of, imports)
        if b != a and a in {module_of(x) for x in mods.get(b, ())}
    ]
    assert not pairs, pairs
