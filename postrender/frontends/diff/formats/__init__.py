"""Output formats of `postrender diff`: one module each, found by name.

A module here (not starting with `_`) is a format named after its file; it
defines `write(report: Report) -> str`. Adding a format is adding a file.
"""

from __future__ import annotations

from ...formats import Formats

_FORMATS = Formats(__name__, __path__, "diff", first=("table",))
names, check, write = _FORMATS.names, _FORMATS.check, _FORMATS.write
