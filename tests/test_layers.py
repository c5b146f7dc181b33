"""docs/architecture.md's layer map, held against the code: every import goes to the module's
own layer or one above it, and the import graph has no circle of any length.  Every import
counts — at run time or inside a function, and the type checker's under `if TYPE_CHECKING:`
too (a circle of annotations is a circle of meaning) — as do `import_module` calls with a
literal name.  Also the other rules of the house: no import of another module's private
name, no two modules of one file name where one imports the other."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

SOLVER = Path(__file__).parent.parent / "solver"
# docs/architecture.md's layers, from the top (a module imports from its rank or lower)
LAYERS = [
    {"errors", "limits", "files", "progress", "position", "lazy"},
    {"rules"},
    {"outcomes"},
    {"turn"},
    {"objectives"},
    {"store", "layer_store", "cluster"},
    {"variants", "yahtzee"},
    {"tables"},
    {"play"},
    {"answers"},
    {"match"},
    {"render"},
    {"cli", "web"},
    {"__init__", "__main__"},
]


def rank(module: str) -> int:
    top = module.split(".")[0]
    return next(i for i, layer in enumerate(LAYERS) if top in layer)


def module_name(path: Path) -> str:
    rel = path.relative_to(SOLVER).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" and rel.parts[:-1] else rel.parts
    return ".".join(parts)


def imports_of(path: Path) -> list[tuple[str, tuple[str, ...]]]:
    """(module, names taken from it) for every import of a solver module in the file:
    relative imports resolved to dotted names under solver/, `dicesolver.x` absolute ones,
    and import_module calls with a literal name."""
    rel = path.relative_to(SOLVER).with_suffix("")
    package = list(rel.parts[:-1])
    tree = ast.parse(path.read_text())
    found: list[tuple[str, tuple[str, ...]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names = tuple(a.name for a in node.names)
            if node.level:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                if node.module:
                    found.append((".".join([*base, node.module]), names))
                else:  # from . import x: x is a module of the package, or a name of it
                    here = SOLVER.joinpath(*base)  # (not a C kernel: _kernel.c builds it)
                    found += [
                        (".".join([*base, n]), ())
                        for n in names
                        if not here.joinpath(f"{n}.c").exists()
                    ]
            elif node.module and node.module.split(".")[0] == "dicesolver":
                found.append((node.module.partition(".")[2] or "__init__", names))
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "import_module":
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                name = arg.value
                dots = len(name) - len(name.lstrip("."))
                base = package[: len(package) - (dots - 1)] if dots > 1 else package
                found.append((".".join([*base, name.lstrip(".")]).strip("."), ()))
            elif isinstance(arg, ast.JoinedStr) and isinstance(arg.values[0], ast.Constant):
                # f".{_API[name]}": resolved where the table of names is (solver/__init__)
                continue
    return [(m, n) for m, n in found if m]


def graph() -> dict[str, set[str]]:
    """module -> the modules it imports (a name imported from a package resolves to the
    module of that name where there is one, else to the package's __init__)."""
    files = {module_name(p): p for p in SOLVER.rglob("*.py")}
    out: dict[str, set[str]] = {}
    for name, path in files.items():
        targets = set()
        for mod, names in imports_of(path):
            if mod not in files:
                mod = mod.rsplit(".", 1)[0] if mod.rsplit(".", 1)[0] in files else mod
            subs = [f"{mod}.{n}" for n in names if f"{mod}.{n}" in files]
            targets.update(subs or ([mod] if mod in files else []))
        targets.discard(name)
        out[name] = targets
    return out


def circles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return found


def test_every_import_goes_up_the_layer_map():
    wrong = [
        f"{m} (layer {rank(m)}) imports {i} (layer {rank(i)})"
        for m, imports in graph().items()
        for i in imports
        if rank(i) > rank(m)
    ]
    assert not wrong, wrong


def test_the_import_graph_has_no_circle():
    """Every strongly connected component of the graph, of any length, type-only imports
    included (the answers' advise -> ranking -> decisions -> advise and the tables <->
    variants circles were found this way)."""
    assert circles(graph()) == []


def test_the_circle_finder_finds_circles_of_any_length():
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert circles(g) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_another_modules_private_name():
    files = {module_name(p): p for p in SOLVER.rglob("*.py")}
    private = [
        f"{name} imports {n} from {mod}"
        for name, path in files.items()
        for mod, names in imports_of(path)
        for n in names
        if n.startswith("_") and not n.startswith("__") and mod != name
    ]
    assert not private, private


def test_no_two_modules_share_a_file_name():
    """A file name names one module: game.py three times misled readers and tools."""
    names = Counter(p.name for p in SOLVER.rglob("*.py") if p.name != "__init__.py")
    assert [n for n, k in names.items() if k > 1] == []
