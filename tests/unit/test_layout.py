"""The layout's one rule: imports go one way, from the command line down
through the ways in, the cluster step and the pipeline's stages to the
modules everything uses. An import that goes up this order (one made inside
a function included: it is an arrow all the same) means a lower layer knows
of a higher one, which is how the cluster code once came to sit inside the
render path. Imports under `if TYPE_CHECKING:` are annotations only and
are not counted.

Read from the source with `ast`: nothing is imported, so a module that is
slow or has side effects at import costs nothing here."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "postrender"

# Bottom first: a module may import what is in its own rank or below. A name
# stands for that module and, for a package, every module inside it; the
# longest name that matches decides. "postrender" alone is the package face
# (`__version__`), which imports nothing.
ORDER: tuple[tuple[str, ...], ...] = (
    ("postrender", "postrender.records", "postrender.lazyre", "postrender.printable", "postrender.version",
     "postrender.hostflags", "postrender.errors", "postrender.limits", "postrender.vocabulary", "postrender.kubeconfig",
     "postrender.signals"),
    ("postrender.options",),
    ("postrender.helmcontext",),
    ("postrender.diagnostics",),
    ("postrender.report",),
    ("postrender.syntax",),
    ("postrender.fieldspecs",),
    # The pipeline, its stages in the order they run (read, index, graph,
    # plan, rewrite, check, write), then what wires them.
    ("postrender.pipeline.packed",),
    ("postrender.pipeline.read",),
    ("postrender.pipeline.index",),
    ("postrender.pipeline.graph",),
    ("postrender.pipeline.needs",),
    ("postrender.pipeline.plan",),
    ("postrender.pipeline.rewrite",),
    ("postrender.pipeline.check",),
    ("postrender.pipeline.write",),
    ("postrender.pipeline.render", "postrender.pipeline"),
    ("postrender.inputs",),
    ("postrender.completion",),
    ("postrender.cluster",),
    ("postrender.frontends",),
    ("postrender.cli",),
    ("postrender.entry", "postrender.__main__"),
)


def modules(root: Path) -> dict[str, Path]:
    found = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_checking_only(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
            or isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports(root: Path) -> set[tuple[str, str, bool]]:
    """(importer, imported, at module level) for every import of one of the
    package's modules by another, at any depth of the code."""
    known = modules(root)
    arrows: set[tuple[str, str, bool]] = set()
    for name, path in known.items():
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]

        def visit(node: ast.AST, top: bool) -> None:
            for child in ast.iter_child_nodes(node):
                if _type_checking_only(child):
                    continue
                if isinstance(child, ast.ImportFrom):
                    base = here[:len(here) - child.level + 1] if child.level else []
                    target = ".".join(base + ([child.module] if child.module else []))
                    named = [f"{target}.{alias.name}" for alias in child.names]
                    # `from . import render`: a module when there is one of that name, else a name in `target`.
                    for each in named:
                        if each in known:
                            arrows.add((name, each, top))
                    if target in known and not all(each in known for each in named):
                        arrows.add((name, target, top))
                elif isinstance(child, ast.Import):
                    arrows.update((name, alias.name, top) for alias in child.names if alias.name in known)
                inner = top and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                visit(child, inner)

        visit(ast.parse(path.read_text(encoding="utf-8")), True)
    return arrows


def rank(module: str) -> int | None:
    best: tuple[int, int] | None = None
    for position, names in enumerate(ORDER):
        for each in names:
            matches = module == each or each != PACKAGE and module.startswith(each + ".")
            if matches and (best is None or len(each) > best[1]):
                best = (position, len(each))
    return None if best is None else best[0]


def upward(arrows: set[tuple[str, str, bool]]) -> list[tuple[str, str]]:
    return sorted({(a, b) for a, b, _ in arrows
                   if rank(a) is not None and rank(b) is not None and rank(b) > rank(a)})  # type: ignore[operator]


def cycles(arrows: set[tuple[str, str, bool]]) -> list[list[str]]:
    """The import cycles among module-level imports (each found once, from
    its least name)."""
    after: dict[str, list[str]] = {}
    for a, b, top in sorted(arrows):
        if top and a != b:
            after.setdefault(a, []).append(b)
    found: list[list[str]] = []

    def walk(path: list[str]) -> None:
        for nxt in after.get(path[-1], ()):
            if nxt == path[0]:
                found.append(path[:])
            elif nxt > path[0] and nxt not in path:
                walk(path + [nxt])

    for start in sorted(after):
        walk([start])
    return found


def test_every_module_has_a_place_in_the_order():
    assert [m for m in modules(ROOT) if rank(m) is None] == []


def test_imports_go_down_the_order():
    assert upward(imports(ROOT)) == []


def test_no_module_level_import_cycle():
    assert cycles(imports(ROOT)) == []


def test_the_reader_sees_every_kind_of_import():
    # So that the two tests above cannot pass by reading nothing: known
    # arrows of each form, module level and inside a function.
    arrows = imports(ROOT)
    assert ("postrender.cli", "postrender.signals", True) in arrows  # from .signals import ...
    assert ("postrender.diagnostics", "postrender.helmcontext", False) in arrows  # from . import helmcontext, in a function
    assert ("postrender.frontends", "postrender.cluster.retain", False) in arrows  # from ..cluster.retain import ...
    assert ("postrender.frontends.krm", "postrender.frontends", False) in arrows  # from . import render: a name
    assert len(arrows) > 300


def test_an_upward_import_and_a_cycle_are_caught(tmp_path):
    package = tmp_path / PACKAGE
    (package / "pipeline").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "pipeline" / "__init__.py").write_text("")
    # Inside a function, and beside one under TYPE_CHECKING, which is not an arrow.
    (package / "pipeline" / "read.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ..frontends import krm\n"
        "def f():\n    from ..cluster import retain\n")
    (package / "errors.py").write_text("from . import records\n")
    (package / "records.py").write_text("from .errors import Location\n")
    (package / "cluster").mkdir()
    (package / "cluster" / "__init__.py").write_text("")
    (package / "cluster" / "retain.py").write_text("")
    (package / "frontends").mkdir()
    (package / "frontends" / "__init__.py").write_text("")
    (package / "frontends" / "krm.py").write_text("")
    arrows = imports(tmp_path)
    assert upward(arrows) == [("postrender.pipeline.read", "postrender.cluster.retain")]
    assert cycles(arrows) == [["postrender.errors", "postrender.records"]]
