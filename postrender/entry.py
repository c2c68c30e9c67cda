"""Where the console script and `python -m postrender` start.

Loading postrender takes some tens of milliseconds before cli.main handles
signals. A Ctrl-C then printed Python's traceback of the import, and SIGTERM
or SIGHUP ended the process without a word. Here they are handled first,
before anything else is imported: one line, status 128 + the signal
(signals.stop_at_once).
"""

from __future__ import annotations

from . import signals


def run() -> None:
    # First, before the rest of postrender loads; in run(), not at import,
    # so that importing this module changes no handler of its importer.
    signals.owns_process = True
    signals.install(signals.stop_at_once)
    from .cli import run as run_cli

    run_cli()
