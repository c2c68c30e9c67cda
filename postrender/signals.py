"""The signals that end a run as an error does: one line, status 128 + the
signal, never a traceback.

Three handlers, one after the other:
- `stop_at_once`, from the first line entry.py runs until cli.main takes
  over: the process is still loading, with nothing to tidy, so it writes
  its line and leaves.
- `on_signal`, while cli.main runs: raises Interrupted, so the run ends
  through its own error path (the log says why; an -o file is not left
  half written). `received` keeps the signal, so that one raised where
  Python swallows exceptions (a weakref callback of the import system)
  still fails the run when it returns.
- `stop_at_once` again, once one signal has come: a second one while the
  run ends leaves at once, with no traceback from the cleanup it cut. Only
  in postrender's own process (entry.run): a program that calls cli.main()
  itself gets its own handlers back when main returns, and until then a
  second signal is only noted.

A signal the process was started with ignored (`nohup`, a shell's `cmd &`
for SIGINT) stays ignored.
"""

from __future__ import annotations

import os
import signal

# Not typing's: this module loads first, before a signal is handled, and
# typing takes milliseconds to load (type checkers read the name alike).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# SIGINT too: Python's own handler raises KeyboardInterrupt anywhere, a
# second one inside the first's cleanup included. SIGXCPU: a CPU-time limit
# (`ulimit -t`, a CI runner's or a container's RLIMIT_CPU) otherwise ends
# the run without a word; the kernel sends it at the soft limit, below the
# hard one that kills (warn_before_the_cpu_limit makes sure there is one
# below), and the run stops there, with its line, as a signal asked.
HANDLED_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGXCPU)

# What a signal's line adds to its name: where the name alone says little.
_WHY = {signal.SIGXCPU: " (the CPU time limit, RLIMIT_CPU or ulimit -t, was reached)"}

received: int | None = None  # the signal that ended this run, if one did
owns_process = False  # entry.run started the process: it may leave at once
# What a run leaving at once still writes, given its line: the lines held
# for its --log-file, and those a host that hides stderr has not had
# (report.Reporter._last_words), which were lost with the second signal.
last_words: Callable[[str], None] | None = None


class Interrupted(BaseException):
    """A signal asked us to stop (raised from the handler, like KeyboardInterrupt)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def on_signal(signum: int, frame: object) -> None:
    global received
    received = signum
    install(stop_at_once if owns_process else _noted)
    raise Interrupted(signum)


class deferred:
    """The handled signals held back by the kernel (the thread's mask)
    while the block runs, and delivered as it ends: what it does is done
    whole or not at all. (A class, not contextlib's: this module loads
    before anything else, at every start.)"""

    def __enter__(self) -> None:
        try:
            self._blocked: object = signal.pthread_sigmask(signal.SIG_BLOCK, HANDLED_SIGNALS)
        except (AttributeError, OSError, ValueError):  # no pthread_sigmask here
            self._blocked = None

    def __exit__(self, *exc: object) -> None:
        if self._blocked is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self._blocked)  # type: ignore[arg-type]


def handlers() -> dict[int, object]:
    """The handlers `install` would replace, as they are now."""
    try:
        return {signum: handler for signum in HANDLED_SIGNALS
                if (handler := signal.getsignal(signum)) is not signal.SIG_IGN}
    except ValueError:
        return {}


def hold() -> None:
    """From here on a signal is noted in `received`, not raised: the run is
    closing (cli._close), and an exception in the middle of that would cut
    it. A second one is handled as after any first. Where one came
    already, its own handlers stay."""
    if received is None:
        install(_held)


def _held(signum: int, frame: object) -> None:
    global received
    received = signum
    install(stop_at_once if owns_process else _noted)


def _noted(signum: int, frame: object) -> None:
    """A second signal in a caller's process: the run is ending already."""


def line(signum: int) -> str:
    """The line a run that `signum` ended says, without the prefix."""
    return f"interrupted by {signal.Signals(signum).name}{_WHY.get(signum, '')}"


def stop_at_once(signum: int, frame: object) -> None:
    global last_words
    # The process is leaving: a signal after this one waits with the kernel
    # and dies with it, rather than run this again in the middle of it (its
    # lines written twice, or one lost).
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, HANDLED_SIGNALS)
    except (AttributeError, OSError, ValueError):
        pass
    said = f"postrender: error: {line(signum)}\n"
    try:
        os.write(2, said.encode())
    except OSError:
        pass
    words, last_words = last_words, None
    if words is not None:
        try:
            words(said)
        except Exception:  # noqa: BLE001 - leaving all the same, as the signal asked
            pass
    os._exit(128 + signum)


_CPU_LIMIT_LOWERED_FROM = 10  # seconds (warn_before_the_cpu_limit)


def warn_before_the_cpu_limit() -> None:
    """A CPU-time limit whose soft and hard values are one (`ulimit -t N`,
    `docker run --ulimit cpu=N`, systemd's LimitCPU=) kills the process at
    N seconds with SIGKILL, and no SIGXCPU comes first: its soft limit is
    lowered a second below, so that SIGXCPU ends the run with its line
    (HANDLED_SIGNALS) a second before the kill would, without a word. Not
    below _CPU_LIMIT_LOWERED_FROM seconds, where that second is more than a
    tenth of what the run may take. Only in postrender's own process
    (entry.run): the limit is the process's."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
        if hard != resource.RLIM_INFINITY and soft == hard and hard >= _CPU_LIMIT_LOWERED_FROM:
            resource.setrlimit(resource.RLIMIT_CPU, (hard - 1, hard))
    except (ImportError, OSError, ValueError):
        pass


def install(handler: object) -> dict[int, object]:
    """`handler` for each handled signal; the handlers it replaced. Not in
    the main thread, signals are left alone."""
    previous: dict[int, object] = {}
    try:
        for signum in HANDLED_SIGNALS:
            if signal.getsignal(signum) is not signal.SIG_IGN:
                previous[signum] = signal.signal(signum, handler)  # type: ignore[arg-type]
    except ValueError:
        pass
    return previous
