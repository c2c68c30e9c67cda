"""Bytes in: standard input, files and folders, checked and decoded."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from typing import BinaryIO, TextIO

from .errors import Location, PostrenderError, UsageError
from .records import replace
from .pipeline.read.documents import Source
from .pipeline.read.split import opens_with_marker

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")


NO_INPUT = (
    "no input: standard input is a terminal. Pipe a rendered stream in "
    "(helm template my-app ./chart | postrender), name files or folders (postrender -f app.yaml manifests/), "
    "or pass - to type one; see postrender --help"
)
_CHUNK = 1 << 20


def refuse_empty_paths(paths: list[str]) -> None:
    """An empty word where a file goes (`-f "$FILE"` unset, Helm's
    `--post-renderer-args ''`) is said as such, not as a file named ''."""
    if "" in paths:
        raise UsageError("an empty argument where a file or folder goes (an unset variable?); - reads standard input")


def gather(paths: list[str], stdin: TextIO | BinaryIO | None, max_bytes: int,
           notice: Callable[[str], None] = lambda message: None, stdin_name: str | None = None) -> list[Source]:
    """Sources in the order given; `-` (or no path at all) is standard
    input, named `stdin_name` when it is the only input (messages name no
    source for it otherwise)."""
    if not paths or paths == ["-"]:
        return [decode(_read_stdin(stdin, max_bytes, explicit=bool(paths), notice=notice), stdin_name)]
    refuse_empty_paths(paths)
    refuse_named_twice(paths, stdin)
    files: list[str] = []
    for raw in paths:
        if raw == "-":
            files.append(raw)
            continue
        try:
            mode = os.stat(raw).st_mode
        except FileNotFoundError:
            raise UsageError(f"{raw}: no such file or folder") from None
        except OSError as exc:
            raise PostrenderError(f"{raw}: {exc.strerror}") from None
        if stat.S_ISDIR(mode):
            found = _manifests_in(raw)
            if not found:
                # As kubectl refuses it: a mistyped folder would otherwise
                # render an empty stream, and exit 0 (a deployer that prunes
                # would then delete the app).
                raise UsageError(f"{raw}: a folder without a manifest (no {', '.join(MANIFEST_SUFFIXES)} file in "
                                 "it or below)")
            files.extend(found)
        else:
            # Not only regular files: <(helm template ...) is a pipe, /dev/stdin a device.
            files.append(raw)
    sources: list[Source] = []
    total = 0
    for file in files:
        if file == "-":
            data = _read_stdin(stdin, max_bytes - total, explicit=True, notice=notice, limit=max_bytes)
            name = STANDARD_INPUT
        else:
            try:
                with open(file, "rb") as handle:
                    data = _read_limited(handle, max_bytes - total, file, max_bytes, total)
            except OSError as exc:
                raise PostrenderError(f"{file}: {exc.strerror}") from None
            name = file
        total += len(data)
        try:
            sources.append(decode(data, name))
        except InvalidUTF8 as exc:
            # Documents are counted across the stream, the earlier files' too (errors60).
            before = sum(_documents_to_end_of(source.text) for source in sources)
            exc.location = replace(exc.location, document=(exc.location.document or 1) + before)
            raise
    return sources


STANDARD_INPUT = "standard input"


def refuse_named_twice(paths: list[str], stdin: object, reread: bool = False) -> None:
    """The one rule for an input named twice, render's paths and diff's OLD
    and NEW alike: `-` twice, one path twice, or two paths that are one
    file (the same device and inode, as os.stat follows them: `/dev/stdin`
    beside `-`) is a usage error. A stream (a pipe, FIFO, terminal) read
    twice gives the second reader nothing; `-` is read from the descriptor
    once, whatever it is. `reread`: a file or folder named twice is read
    whole each time (diff's two sides; review61b), not refused; in one
    stream it would be every object twice."""
    seen: dict[object, str] = {}
    for path in paths:
        if not path:
            continue  # refuse_empty_paths says it
        info = _stat_of(path, stdin)
        whole = reread and info is not None and (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode))
        for key in (path, info and (info.st_dev, info.st_ino)):
            if key is None:
                continue
            if key in seen and not (whole and key != "-"):
                first = seen[key]
                said = f"{_named(first)} is named twice" if first == path else \
                    f"{_named(first)} and {_named(path)} name the same input"
                raise UsageError(f"{said}; name each input once")
            seen.setdefault(key, path)


def _stat_of(path: str, stdin: object) -> os.stat_result | None:
    """What `path` names (`-`: the descriptor standard input is), or None
    where that cannot be told (no such file; a caller's stream object)."""
    try:
        return os.fstat(stdin.fileno()) if path == "-" else os.stat(path)  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return None


def _named(path: str) -> str:
    return "- (standard input)" if path == "-" else path


def _read_stdin(stdin: TextIO | BinaryIO | None, max_bytes: int, explicit: bool,
                notice: Callable[[str], None], limit: int | None = None) -> bytes:
    if stdin is None:
        raise UsageError("standard input is closed: name files or folders, or pipe a stream in")
    try:
        terminal = stdin.isatty()
    except (OSError, ValueError):
        terminal = False
    if terminal:
        if not explicit:
            raise UsageError(NO_INPUT)
        notice("reading manifests from the terminal; end with Ctrl-D")
    handle = getattr(stdin, "buffer", stdin)
    try:
        return _read_limited(handle, max_bytes, STANDARD_INPUT, limit)
    except OSError as exc:
        # A directory (`< /`), a descriptor open only for writing (`0>file`):
        # how postrender was started, a usage error. Anything else (an I/O
        # error) is the environment's: status 1, as a file that fails to read.
        why = f"standard input: {exc.strerror or type(exc).__name__}"
        if exc.errno in (errno.EISDIR, errno.EBADF):
            raise UsageError(why) from None
        raise PostrenderError(why) from None


def _read_limited(handle: BinaryIO, max_bytes: int, what: str, limit: int | None = None, before: int = 0) -> bytes:
    """`before`: the bytes earlier inputs took of the limit, so that the
    limit suggested holds them and this file whole, where its size is known."""
    # In chunks: read(n) would allocate n bytes up front, whatever arrives.
    # read1 returns after one read of the device, so Ctrl-D on a terminal
    # (a single empty read, not a lasting end) ends the input as for cat.
    read = getattr(handle, "read1", handle.read)
    chunks: list[bytes] = []
    size = 0
    while size <= max_bytes:
        chunk = read(min(_CHUNK, max_bytes + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > max_bytes:
        limit = limit if limit is not None else max_bytes
        raise PostrenderError(
            f"{what}: input larger than the limit of {limit} bytes (raise it with --max-bytes, "
            f"say --max-bytes {_suggested(limit, before + _regular_size(handle))})"
        )
    return b"".join(chunks)


def _documents_to_end_of(text: str) -> int:
    """The number of the document `text` ends in, its separator lines read
    as the splitter reads them (read.split.opens_with_marker: `---#x` is one)."""
    start = 1 if text.startswith("\ufeff") else 0
    separators = 1 if opens_with_marker(text, start) else 0
    at = text.find("\n---")
    while at != -1:
        separators += opens_with_marker(text, at + 1)
        at = text.find("\n---", at + 1)
    return separators + (0 if opens_with_marker(text, start) else 1)


def _manifests_in(folder: str) -> list[str]:
    """The manifest files in a folder and below, in kubectl's order (each
    folder's names by their bytes, a folder's files where its name sorts:
    `kubectl -R -f`'s walk), symlinked folders not followed, as kubectl
    follows none. A folder that cannot be read, or a manifest's name that
    is a symbolic link to nothing, fails the run, as it fails kubectl: left
    out, its objects would be missing from the output with exit 0, and a
    deployer that prunes would delete them (determinism60)."""

    def unreadable(exc: OSError) -> None:
        raise PostrenderError(f"{exc.filename}: {exc.strerror} (a folder of the input that cannot be read)")

    found: list[tuple[tuple[bytes, ...], str]] = []
    for where, folders, names in os.walk(folder, onerror=unreadable):
        for name in folders:
            # Not followed, as kubectl follows none; but kubectl takes a link
            # named as a manifest for a file, and fails to read a folder.
            if _extension(name) in MANIFEST_SUFFIXES and os.path.islink(os.path.join(where, name)):
                raise PostrenderError(f"{os.path.join(where, name)}: a symbolic link to a folder, named as a manifest"
                                      " (kubectl fails on it: is a directory)")
        for name in names:
            if _extension(name) not in MANIFEST_SUFFIXES:
                continue
            path = os.path.join(where, name)
            if not os.path.exists(path):
                raise PostrenderError(f"{path}: a symbolic link to nothing ({os.readlink(path)} does not exist)")
            if os.path.isfile(path):
                # By bytes, as kubectl sorts: a name that is no UTF-8 sorted
                # by the locale's reading of it, which moved with the locale.
                key = tuple(os.fsencode(part) for part in os.path.relpath(path, folder).split(os.sep))
                found.append((key, path))
    return [path for _, path in sorted(found)]


def _extension(name: str) -> str:
    """A file name's extension as Go's filepath.Ext (kubectl's) gives it:
    from its last `.`, so `.yaml` is a manifest (Path(".yaml").suffix is
    "", and such a file was left out with exit 0: review60b)."""
    dot = name.rfind(".")
    return name[dot:] if dot >= 0 else ""


def _suggested(limit: int, needed: int = 0) -> str:
    """Twice the limit, or what the inputs are known to need where that is
    more (a regular file's size: cli62), rounded up to MiB."""
    mebibytes = -(-max(limit * 2, needed) // (1 << 20))
    return f"{mebibytes}Mi"


def _regular_size(handle: BinaryIO) -> int:
    """A regular file's size; 0 for a pipe or a device, whose size is unknown."""
    try:
        status = os.fstat(handle.fileno())
    except (OSError, ValueError, AttributeError):
        return 0
    return status.st_size if stat.S_ISREG(status.st_mode) else 0


class InvalidUTF8(PostrenderError):
    """Input that is not UTF-8. `replaced`: its text with each bad byte
    replaced, for a front end to tell what it claims to be (a KRM
    ResourceList is answered as one); never written out."""

    def __init__(self, message: str, location: Location, replaced: str) -> None:
        super().__init__(message, location)
        self.replaced = replaced


def decode(data: bytes, name: str | None) -> Source:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        document = _documents_to_end_of(before.decode("utf-8"))
        # Where, not which byte: it may be one of a Secret's value (leak60).
        column = len(before[before.rfind(b"\n") + 1:].decode("utf-8")) + 1
        raise InvalidUTF8(
            f"invalid UTF-8 at column {column} (byte offset {exc.start}); save the file as UTF-8",
            Location(document, name, line=line), data.decode("utf-8", "replace"),
        ) from None
    return Source(name, text)

