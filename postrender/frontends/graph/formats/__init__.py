"""Output formats of `postrender graph`: one module each, found by name.

A module here (not starting with `_`) is a format named after its file; it
defines `write(view: View) -> str`. Adding a format is adding a file.
"""

from __future__ import annotations

import importlib
import pkgutil

from ....errors import UsageError

# Listed first, in this order, as they always have been (help, completion);
# any other format follows in alphabetical order.
_FIRST = ("table", "json")


def names() -> list[str]:
    found = sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
    return [*(n for n in _FIRST if n in found), *(n for n in found if n not in _FIRST)]


def check(fmt: str) -> None:
    if fmt not in names():
        raise UsageError(f"unknown graph format {fmt!r} (choose from {', '.join(names())})")


def write(view, fmt: str) -> str:
    """view: view.View."""
    check(fmt)
    return importlib.import_module(f"{__name__}.{fmt}").write(view)
