"""Regular expressions compiled when first used.

Compiling a pattern costs some 50 to 300 µs, and a module compiles its
patterns as it loads: those a plain render never meets (a lone CR, a block
scalar's header comment, a `$(VAR)/name` reference) made every run's
start-up some milliseconds longer. A LazyPattern stands for one of them.
"""

from __future__ import annotations

import re
from typing import Any


class LazyPattern:
    """`re.compile(pattern, flags)`, compiled at its first use. Each method
    or attribute asked for is the compiled pattern's own, kept on the
    instance: later uses cost what the compiled pattern's would."""

    def __init__(self, pattern: str | bytes, flags: int = 0) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        # Only for a name not yet kept (and never for `_source`, set first).
        value = getattr(re.compile(*self._source), name)
        setattr(self, name, value)
        return value
