"""Output formats of a command, one module each in a package, found by name.

A module of the package (not starting with `_`) is a format named after its
file and defines `write(value) -> str`: adding a format is adding a file.
`postrender graph` and `postrender diff` each keep theirs in a `formats/`
package of their own.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from typing import Any

from ..printable import quoted
from ..errors import UsageError


class Formats:
    def __init__(self, package: str, path: Iterable[str], command: str, first: tuple[str, ...]):
        """`first`: formats listed first, in this order (help, completion);
        any other follows in alphabetical order."""
        self._package, self._path, self._command, self._first = package, list(path), command, first

    def names(self) -> list[str]:
        found = sorted(m.name for m in pkgutil.iter_modules(self._path) if not m.name.startswith("_"))
        return [*(n for n in self._first if n in found), *(n for n in found if n not in self._first)]

    def check(self, fmt: str) -> None:
        if fmt not in self.names():
            raise UsageError(f"unknown {self._command} format {quoted(fmt)} (choose from {', '.join(self.names())})")

    def write(self, value: Any, fmt: str) -> str:
        self.check(fmt)
        return importlib.import_module(f"{self._package}.{fmt}").write(value)
