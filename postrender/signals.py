"""The signals that end a run as an error does: one line, status 128 + the
signal. Installed by entry.py before anything heavy is imported, and by
cli.main for a caller that calls it directly."""

from __future__ import annotations

import signal


class Interrupted(BaseException):
    """A signal asked us to stop (raised from the handler, like KeyboardInterrupt)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def on_signal(signum: int, frame: object) -> None:
    raise Interrupted(signum)


# Ended by a signal, a process exits 128 + its number, as a shell reports it.
# SIGINT raises KeyboardInterrupt on its own.
HANDLED_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
