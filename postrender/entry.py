"""Where the console script and `python -m postrender` start.

Loading postrender takes some tens of milliseconds before cli.main handles
signals. A Ctrl-C then printed Python's traceback of the import, and SIGTERM
or SIGHUP ended the process without a word. Here they are handled first,
before anything heavy is imported, and end the run as any later one does:
one line, status 128 + the signal.
"""

from __future__ import annotations

import signal
import sys
from typing import NoReturn

from .signals import HANDLED_SIGNALS, Interrupted, on_signal


def run() -> NoReturn:
    try:
        for signum in HANDLED_SIGNALS:
            signal.signal(signum, on_signal)
        from .cli import run as run_cli
    except KeyboardInterrupt:
        _stopped(signal.SIGINT)
    except Interrupted as exc:
        _stopped(exc.signum)
    run_cli()


def _stopped(signum: int) -> NoReturn:
    try:
        sys.stderr.write(f"postrender: error: interrupted by {signal.Signals(signum).name}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass
    raise SystemExit(128 + signum)
