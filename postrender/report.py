"""Diagnostics: stderr, and a log file because Helm 4 discards stderr.

Messages name objects, fields and names, never values: a Secret's data must
not reach a CI log.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any, TextIO


@dataclass(frozen=True)
class Diagnostic:
    message: str
    # What it is about, when it is about one field: (object, field path,
    # the name written there). KRM results carry it as resourceRef/field.
    about: tuple[Any, str, str] | None = None


class Reporter:
    def __init__(self, verbose: bool = False, log_file: str | None = None, stderr: TextIO | None = None):
        self.verbose = verbose
        self.stderr = stderr if stderr is not None else sys.stderr
        self.log_path = log_file
        self._log: TextIO | None = None
        self.warnings: list[Diagnostic] = []
        self.infos: list[str] = []

    def open_log(self) -> None:
        if self.log_path and self._log is None:
            # 0600 from the first byte: the log may describe Secrets by name.
            fd = os.open(self.log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            os.fchmod(fd, 0o600)
            self._log = os.fdopen(fd, "a", encoding="utf-8")

    def info(self, message: str) -> None:
        self.infos.append(message)
        if self.verbose:
            self._emit(f"postrender: {message}")
        else:
            self._log_only(f"postrender: {message}")

    def warn(self, message: str, about: tuple[Any, str, str] | None = None) -> None:
        self.warnings.append(Diagnostic(message, about))
        self._emit(f"postrender: warning: {message}")

    def error(self, message: str) -> None:
        self._emit(f"postrender: error: {message}")

    def notice(self, message: str) -> None:
        """Said whatever the verbosity: what postrender is waiting for."""
        self._emit(f"postrender: {message}")

    def _emit(self, line: str) -> None:
        # stderr may be closed (`2>&-`): then sys.stderr is None, and
        # print(file=None) would write to stdout, into the stream.
        if self.stderr is not None:
            try:
                print(line, file=self.stderr, flush=True)
            except (OSError, ValueError):
                pass
        self._log_only(line)

    def _log_only(self, line: str) -> None:
        if self._log is not None:
            self._log.write(line + "\n")
            self._log.flush()

    def close(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None
