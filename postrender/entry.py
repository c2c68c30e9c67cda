"""Where the console script and `python -m postrender` start.

Loading postrender takes some tens of milliseconds before cli.main handles
signals. A Ctrl-C then printed Python's traceback of the import, and SIGTERM
or SIGHUP ended the process without a word. Here they are handled first,
at this module's first lines, before anything else is imported: one line,
status 128 + the signal (signals.stop_at_once).
"""

from __future__ import annotations

from .signals import install, stop_at_once

install(stop_at_once)


def run() -> None:
    from .cli import run as run_cli

    run_cli()
