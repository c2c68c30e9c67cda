"""How diagnostics reach a person: escaped lines, private log files, and the
terminal or a default log when the program running postrender hides its stderr.

Helm 4 discards a post-renderer's stderr; Helm 3 and kustomize show it only
when postrender fails. Under them, every line postrender prints on stderr is
also, at the end of the run:
- written to the controlling terminal (/dev/tty), when there is one and
  stderr is not itself a terminal — except after a failure under a host that
  shows stderr on failure, which would print it twice;
- appended to a default log, unless --log-file (or POSTRENDER_LOG_FILE) names
  one: `<Helm's cache directory>/postrender/postrender.log` under Helm,
  `<user cache directory>/postrender/postrender.log` under kustomize. Each
  run starts with a timestamped separator line; the file is 0600, never
  followed through a symbolic link, and moved to `.1` past 1 MiB.
A run outside those hosts writes to stderr only: whoever redirected it chose
where it goes.

Names, paths and `# Source:` comments in messages come from the input, so a
line is escaped before it reaches a terminal or a log: an escape sequence in
a ConfigMap name must not move the cursor, retitle the window or hide text.
Log files are opened without following a symbolic link: a link planted at
the log's path must not make postrender write to, or chmod, its target.
"""

from __future__ import annotations

import os
import stat
import sys
from datetime import datetime, timezone
from typing import TextIO

from .records import record
from . import __version__
from .errors import UsageError
from .printable import escape, printable

LOG_NAME = os.path.join("postrender", "postrender.log")
ROTATE_BYTES = 1 << 20

# Characters kept as they are although printable() says no: none. Every
# other control (C0, DEL, C1), line or paragraph separator, bidirectional
# override and other format character is written as a Python escape.


def escape_controls(text: str) -> str:
    """`text` with every non-printable character written as \\xNN, \\uNNNN or \\UNNNNNNNN."""
    if printable(text):
        return text
    return "".join(ch if printable(ch) else escape(ch) for ch in text)


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


@record(frozen=True)
class Host:
    """A program that runs postrender and hides its stderr, in part or whole."""

    describe: str
    shows_stderr_on_failure: bool
    log_path: str


def host() -> Host | None:
    try:
        # Imported here: reading Helm's command line costs a few /proc reads,
        # once. Inside the try: a broken install (a dependency missing) is
        # the error being delivered, and must not stop its delivery.
        from . import helmcontext

        helm = helmcontext.current()
    except Exception:  # noqa: BLE001 - finding where to report must never fail a run
        helm = None
    if helm is not None:
        cache = helm.cache_home or os.path.join(_user_cache(), "helm")
        return Host(helm.describe(), helm.major == 3, os.path.join(cache, LOG_NAME))
    if os.environ.get("KUSTOMIZE_PLUGIN_CONFIG_STRING") is not None:
        return Host("kustomize exec plugin", True, os.path.join(_user_cache(), LOG_NAME))
    return None


def _user_cache() -> str:
    if os.environ.get("XDG_CACHE_HOME"):
        return os.environ["XDG_CACHE_HOME"]
    home = os.path.expanduser("~")
    return os.path.join(home, "Library", "Caches") if sys.platform == "darwin" else os.path.join(home, ".cache")


def run_header(where: Host | None, continued: bool = False) -> str:
    """The separator that starts each run in a log; `continued`: the next
    block of a run's lines (report.Reporter._write_log)."""
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    under = f" under {where.describe}" if where else ""
    more = ", continued" if continued else ""
    return escape_controls(f"--- {stamp} postrender {__version__} (pid {os.getpid()}{more}){under} ---") + "\n"


def deliver(lines: list[str], *, failed: bool, stderr: TextIO, log_given: bool) -> None:
    """Make `lines` (already escaped) reach a person when the host hides stderr.
    Never fails the run: a diagnostic that cannot be delivered is dropped."""
    if not lines:
        return
    where = host()
    if where is None:
        return
    if not (failed and where.shows_stderr_on_failure) and not _is_terminal(stderr):
        _write_terminal(lines)
    if not log_given:
        _append_default_log(where, lines)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _write_terminal(lines: list[str]) -> None:
    try:
        fd = os.open("/dev/tty", os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return  # no controlling terminal: CI, a daemon, Argo CD
    try:
        os.write(fd, ("\n".join(lines) + "\n").encode("utf-8", "replace"))
    except OSError:
        pass
    finally:
        os.close(fd)


def _append_default_log(where: Host, lines: list[str]) -> None:
    path = where.log_path
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        info = os.lstat(path) if os.path.lexists(path) else None
        if info is not None and stat.S_ISREG(info.st_mode) and info.st_size > ROTATE_BYTES:
            os.replace(path, path + ".1")  # replaces the name, never a link's target
        with open_private_log(path, "default log") as log:
            log.write(run_header(where) + "".join(line + "\n" for line in lines))
    except (OSError, UsageError):
        pass
