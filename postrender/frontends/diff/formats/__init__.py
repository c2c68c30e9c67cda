"""Output formats of `postrender diff`: one module each, found by name.

A module here (not starting with `_`) is a format named after its file; it
defines `write(report: Report) -> str`. Adding a format is adding a file.
"""

from __future__ import annotations

import importlib
import pkgutil

from ....errors import UsageError

DEFAULT = "table"


def names() -> list[str]:
    found = sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
    return [DEFAULT, *(n for n in found if n != DEFAULT)]


def write(report, fmt: str) -> str:
    if fmt not in names():
        raise UsageError(f"unknown diff format {fmt!r} (choose from {', '.join(names())})")
    return importlib.import_module(f"{__name__}.{fmt}").write(report)
