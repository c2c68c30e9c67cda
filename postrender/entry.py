"""Where the console script and `python -m postrender` start.

Loading postrender takes some tens of milliseconds before cli.main handles
signals. A Ctrl-C then printed Python's traceback of the import, and SIGTERM
or SIGHUP ended the process without a word. Here they are handled first,
before anything else is imported: one line, status 128 + the signal
(signals.stop_at_once).
"""

from __future__ import annotations

import os

from .printable import quoted
from . import signals


def run() -> None:
    # First, before the rest of postrender loads; in run(), not at import,
    # so that importing this module changes no handler of its importer.
    signals.owns_process = True
    signals.install(signals.stop_at_once)
    signals.warn_before_the_cpu_limit()
    try:
        from .cli import run as run_cli
    except (MemoryError, ImportError) as exc:
        # Loading failed before cli.main, which says every later failure in
        # one line: say this one so too, never with Python's traceback (a
        # job's memory limit hit while modules load, `ulimit -v`).
        _fail_to_load(exc)
    run_cli()


def _fail_to_load(exc: BaseException) -> None:
    try:
        from .errors import OUT_OF_MEMORY, memory_short

        line = OUT_OF_MEMORY if memory_short(exc) else \
            f"cannot load the module {quoted(getattr(exc, 'name', None))} postrender needs; reinstall postrender"
    except BaseException:  # noqa: BLE001 - too short of memory to load even that
        line = "out of memory while loading"
    try:
        os.write(2, f"postrender: error: {line}\n".encode())
    except OSError:
        pass
    os._exit(1)
