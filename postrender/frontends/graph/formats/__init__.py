"""Output formats of `postrender graph`: one module each, found by name.

A module here (not starting with `_`) is a format named after its file; it
defines `write(view: View) -> str`. Adding a format is adding a file.
"""

from __future__ import annotations

from ...formats import Formats

# Listed first, in this order, as they always have been (help, completion).
_FORMATS = Formats(__name__, __path__, "graph", first=("table", "json"))
names, check, write = _FORMATS.names, _FORMATS.check, _FORMATS.write
