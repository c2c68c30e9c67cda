"""How diagnostics reach a person: escaped lines, private log files.

Names, paths and `# Source:` comments in messages come from the input, so a
line is escaped before it reaches a terminal or a log: an escape sequence in
a ConfigMap name must not move the cursor, retitle the window or hide text.
Log files are opened without following a symbolic link: a link planted at
the log's path must not make postrender write to, or chmod, its target.
"""

from __future__ import annotations

import os
import stat
from typing import TextIO

from .errors import UsageError

# Characters kept as they are although str.isprintable() says no: none. Every
# other control (C0, DEL, C1), line or paragraph separator, bidirectional
# override and other format character is written as a Python escape.


def escape_controls(text: str) -> str:
    """`text` with every non-printable character written as \\xNN, \\uNNNN or \\UNNNNNNNN."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def open_private_log(path: str, what: str) -> TextIO:
    """Open `path` for appending, created 0600, refusing a symbolic link or
    anything but a regular file. `what` names the setting in messages."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise UsageError(f"{what} {path}: {exc.strerror}") from None
    if info is not None:
        if stat.S_ISLNK(info.st_mode):
            raise UsageError(f"{what} {path}: is a symbolic link; postrender does not follow it (give the real path)")
        if not stat.S_ISREG(info.st_mode):
            raise UsageError(f"{what} {path}: not a regular file")
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        # 0600 from the first byte: the log may describe Secrets by name.
        fd = os.open(path, flags, 0o600)
    except OSError as exc:
        # ELOOP: a link appeared between the check and the open.
        raise UsageError(f"{what} {path}: {exc.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UsageError(f"{what} {path}: not a regular file")
        os.fchmod(fd, 0o600)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "a", encoding="utf-8")
