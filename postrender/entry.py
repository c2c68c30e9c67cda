"""Where the console script and `python -m postrender` start (`__main__`
imports this module first); nothing else imports it.

Loading postrender takes some tens of milliseconds before cli.main handles
signals. A Ctrl-C then printed Python's traceback of the import, and SIGTERM
or SIGHUP ended the process without a word. So the first thing this module
does, before it imports anything of postrender's, is ask the kernel to hold
those signals; once signals.stop_at_once handles them (one line, status
128 + the signal) they are let through, and one that came meanwhile ends the
run there. What runs before this line is the interpreter's own start-up
(its `site` module, an installed package's finder) and the package's
`__init__`, which only names the version.
"""

import signal

# The kernel's mask, not a handler: one C call, with nothing of postrender's
# loaded yet (signals.HANDLED_SIGNALS, which cannot be imported before it;
# tests/unit/cli/test_exit.py keeps the two alike).
HELD_WHILE_LOADING = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGXCPU)
try:
    _mask_before = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_WHILE_LOADING)
except (AttributeError, OSError, ValueError):  # no pthread_sigmask here
    _mask_before = None

try:
    import os  # noqa: E402 - after the signals are held, on purpose

    from . import signals  # noqa: E402

    # At import: this module is the process's entry, so the handlers it sets
    # are its own process's.
    signals.owns_process = True
    signals.install(signals.stop_at_once)
finally:
    # Let through however loading ended: a mask left held outlives an
    # import that failed (the Helm 4 wrapper goes on without it) and every
    # program started after (review62b). One held meanwhile is handled here.
    if _mask_before is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, _mask_before)


def run() -> None:
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
        from .printable import quoted

        line = OUT_OF_MEMORY if memory_short(exc) else \
            f"cannot load the module {quoted(getattr(exc, 'name', None))} postrender needs; reinstall postrender"
    except BaseException:  # noqa: BLE001 - too short of memory to load even that
        line = "out of memory while loading"
    try:
        os.write(2, f"postrender: error: {line}\n".encode())
    except OSError:
        pass
    os._exit(1)
