"""Diagnostics: stderr, a log file, and (diagnostics.py) the terminal or a
default log when the program running postrender hides stderr.

Messages name objects, fields and names, never values: a Secret's data must
not reach a CI log.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from time import monotonic
from typing import Any, TextIO

from . import signals
from .records import record
from .diagnostics import deliver, escape_controls, host, open_private_log, run_header


@record(frozen=True)
class Diagnostic:
    message: str
    # What it is about: (object, field path, the name written there), the
    # path "" when it is about the object alone (a key written twice in it),
    # the name None where it is not shown (a Secret's data: shown_value).
    # KRM results carry it as resourceRef, file and field.
    about: tuple[Any, str, str | None] | None = None


# A run holds its log lines until its output is written (Reporter.write_log),
# or until they are this many characters (`-v` on a large stream says a line
# per renamed object), or, when a line is said, the first were held this
# many seconds: a run killed outright (a deployer's timeout, SIGKILL) loses
# the lines said since its last block.
_LOG_BLOCK = 256 * 1024
_LOG_HELD_SECONDS = 1.0


@contextmanager
def _locked(log: TextIO) -> Iterator[bool]:
    """An exclusive lock on the log while a block is written, if it is free
    at once: whether it was taken. Never waited for (a lock an NFS client
    that died still holds, a filesystem without locks): a block written
    without it says whose it is (`continued`), as one after another run's
    does. Other postrender runs take it too."""
    try:
        fd = log.fileno()
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (AttributeError, OSError, ValueError):
        yield False
        return
    try:
        yield True
    finally:
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        except OSError:
            pass


def _size(log: TextIO) -> int | None:
    try:
        return os.fstat(log.fileno()).st_size
    except (AttributeError, OSError, ValueError):
        return None


class Reporter:
    def __init__(self, verbose: bool = False, log_file: str | None = None, stderr: TextIO | None = None,
                 keep_infos: bool = False, log_named: str = "--log-file"):
        """`log_named`: where `log_file` was set, as messages name it (the
        flag, or $POSTRENDER_LOG_FILE, which a user may not know is set)."""
        self.verbose = verbose
        # Info lines are kept in `infos` only for a caller that reads them
        # (diff): a render says one per renamed object and rewritten field.
        self.keep_infos = keep_infos
        self.stderr = stderr if stderr is not None else sys.stderr
        self.log_path = log_file
        self.log_named = log_named
        self._log: TextIO | None = None
        # The log's lines not yet written: a run's lines go to the log as one
        # block, its separator first (_write_log), as the default log's do
        # (diagnostics.deliver), so that runs sharing a log, as parallel
        # renders of an Argo CD repo-server do, are not interleaved line by
        # line under their separators (an outside tester: 20 separators, then
        # 80 lines, none telling whose).
        self._unwritten: list[str] = []
        self._unwritten_size = 0
        self._unwritten_since = 0.0  # when the first of them was said (monotonic)
        self._written_to: int | None = None  # the log's size after this run's last write
        self.warnings: list[Diagnostic] = []
        # Warnings are kept in `warnings` for a caller that reads them (graph,
        # a KRM function's results, diff); a plain render says each and is
        # done with it (40,000 documents each warned of: 2 MiB of records).
        self.keep_warnings = True
        self.infos: list[str] = []
        # What went to stderr, for a host that hides it (diagnostics.deliver):
        # kept only under one, asked at the first line (_emit). Without one
        # nothing reads it, and a stream of 40,000 documents each warned of
        # held 9 MiB of lines.
        self._shown: list[str] | None = None
        self._host_asked = False
        self.failed = False

    def open_log(self) -> None:
        if self.log_path and self._log is None:
            self._log = open_private_log(self.log_path, self.log_named)
            # The separator at once: a run killed outright still leaves it,
            # and the file is a log (cli._a_log_or_nothing).
            self._unwritten.append(run_header(host()))
            self.write_log()
            signals.last_words = self._last_words

    @property
    def wants_info(self) -> bool:
        """Whether an info line goes anywhere (stderr with -v, the log file,
        `infos`): if not, a caller need not build it."""
        return self.verbose or self.keep_infos or self._log is not None

    def info(self, message: str) -> None:
        if self.keep_infos:
            self.infos.append(message)
        if self.verbose:
            self._emit(f"postrender: {message}")
        else:
            self._log_only(f"postrender: {message}")

    def warn(self, message: str, about: tuple[Any, str, str | None] | None = None) -> None:
        if self.keep_warnings:
            self.warnings.append(Diagnostic(message, about))
        self._emit(f"postrender: warning: {message}")

    def error(self, message: str) -> None:
        self.failed = True
        self._emit(f"postrender: error: {message}")

    def notice(self, message: str) -> None:
        """Said whatever the verbosity: what postrender is waiting for; in
        the log at once, where one looks to see why a run does not end."""
        self._emit(f"postrender: {message}")
        self.write_log()

    def _emit(self, line: str) -> None:
        line = escape_controls(line)
        # stderr may be closed (`2>&-`): then sys.stderr is None, and
        # print(file=None) would write to stdout, into the stream.
        if self.stderr is not None:
            try:
                print(line, file=self.stderr, flush=True)
            except (OSError, ValueError):
                pass
        shown = self._shown
        if shown is None and not self._host_asked:
            self._host_asked = True
            shown = self._shown = [] if host() is not None else None
            if shown is not None:
                signals.last_words = self._last_words
        if shown is not None:
            shown.append(line)
        self._log_only(line)

    def _log_only(self, line: str) -> None:
        if self._log is not None:
            line = escape_controls(line) + "\n"
            if not self._unwritten_size:
                self._unwritten_since = monotonic()
            self._unwritten.append(line)
            self._unwritten_size += len(line)
            if self._unwritten_size >= _LOG_BLOCK or monotonic() - self._unwritten_since >= _LOG_HELD_SECONDS:
                self.write_log()

    def write_log(self) -> None:
        """The lines not yet written, as one write to the log (opened to
        append: a block of another run's lands before or after it, whole).
        A run that says more, or for longer, than a block holds
        (_LOG_BLOCK, _LOG_HELD_SECONDS) writes its lines in blocks; where
        another run may have written to the log since this one's last
        block, the next starts with a separator of its own, which says it
        goes on. The handled signals wait while a block is written and let
        go of (signals.deferred): one raised in between wrote it twice, or
        lost it."""
        if self._log is None or not self._unwritten:
            return
        with signals.deferred():
            block, self._unwritten, self._unwritten_size = self._unwritten, [], 0
            try:
                with _locked(self._log) as alone:
                    self._framed(block, alone)
                    # Written through at once: a text longer than the file's
                    # buffers goes to it in one write (TextIOWrapper, BufferedWriter).
                    self._log.write("".join(block))
                    self._log.flush()
                    self._written_to = _size(self._log)
            except (OSError, ValueError) as exc:
                self._log_lost(exc)

    def _framed(self, block: list[str], alone: bool) -> None:
        """`block` starts with a separator: its run's own, or one that says
        the run goes on, where another run may have written since its last."""
        if block[0].startswith("--- ") or alone and _size(self._log) == self._written_to:  # type: ignore[arg-type]
            return
        block.insert(0, run_header(host(), continued=True))

    def _last_words(self, said: str) -> None:
        """Run by signals.stop_at_once as a second signal ends the process
        at once: the log's held lines, then `said`, in one write, and the
        lines a host that hides stderr has not had (both were lost with
        that signal: the run's warnings, and the line of the first). Never
        waits: the log's lock is taken only if it is free, as always."""
        line = escape_controls(said.rstrip("\n"))
        log = self._log
        if log is not None:
            block = [*self._unwritten, line + "\n"]
            try:
                with _locked(log) as alone:
                    self._framed(block, alone)
                    data = memoryview("".join(block).encode("utf-8", "backslashreplace"))
                    while data:
                        data = data[os.write(log.fileno(), data):]
            except (OSError, ValueError):
                pass  # a full disk: the host, below, may still have them
        if self._shown is not None:
            deliver([*self._shown, line], failed=True, stderr=self.stderr, log_given=log is not None)

    def _log_lost(self, exc: BaseException) -> None:
        """The log cannot be written (a full disk, a file-size limit): said
        once, and the run goes on without it. What the run writes to stdout
        does not depend on its log."""
        log, self._log = self._log, None
        try:
            log.close()  # type: ignore[union-attr]
        except (OSError, ValueError):
            pass
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        # Said, not kept among the render's warnings: those go into what some
        # commands write out (graph's JSON, a KRM function's results).
        self._emit(f"postrender: warning: {self.log_named} {self.log_path}: cannot write to it ({why}); this run is not"
                   " logged, or not all of it")

    def flush(self) -> None:
        """What the run said so far, to the log and (where a host hides
        stderr) to where it is seen; the log stays open."""
        self.write_log()  # first: a log it cannot write is said, where stderr is hidden too
        # The handled signals wait while the lines are delivered: one that
        # ends the run at once (signals.last_words) then delivers what is
        # left, where in between it lost what was being delivered.
        with signals.deferred():
            shown, self._shown = self._shown, None if self._shown is None else []
            deliver(shown or [], failed=self.failed, stderr=self.stderr, log_given=self._log is not None)

    def close(self) -> None:
        self.flush()
        if signals.last_words == self._last_words:
            signals.last_words = None
        if self._log is not None:
            log, self._log = self._log, None
            try:
                log.close()
            except (OSError, ValueError):
                pass
