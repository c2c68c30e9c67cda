"""The stream's documents: where kubectl splits it, and what it refuses there.

A stream is split on `---` lines at column 0, as kubectl's reader splits it,
before anything is composed: separator lines kubectl refuses or reads as
text, directives, `...` lines with no document, a JSON document's end. Text
in, chunks and their first lines out.
"""

from __future__ import annotations

import re
from array import array
from typing import TYPE_CHECKING

from ...errors import Location, PostrenderError
from ...lazyre import LazyPattern
from .jsonfirst import _go_json_end, _json_start
from .lines import _GO_SPACE, _MARKER_LINE, _lines, leading_source_comment

if TYPE_CHECKING:
    from .count import _Count
    from .documents import Source

# A document separator line as kubectl reads one (apimachinery's YAMLReader
# reads lines, LF-ended, and takes one that starts with `---` for a
# separator when what follows, trimmed of Go white space, is nothing or a
# comment): as a pattern, which opens_with_marker tests by hand (faster),
# and a test checks the two agree.
_DOCUMENT_START = LazyPattern("^---[" + _GO_SPACE.replace("\n", "") + "]*(?:#.*)?$", re.M)


def split(source: Source, count: _Count | None = None, documents_before: int = 0) -> list[tuple[str, int]]:
    """Chunks of a source, each with its first line (0-based), split where
    kubectl splits (_document_starts). With a count, refuses the source as
    soon as its documents outnumber the limit. `documents_before`:
    documents of the stream before this source (for messages)."""
    text = source.text
    starts = _chunk_starts(text, source.name, count, documents_before)
    return list(zip(_chunks(text, starts.begins), starts.lines))


def _chunks(text: str, begins: array) -> list[str]:
    ends = [*begins[1:], len(text)]
    return [text[start:end] for start, end in zip(begins, ends)]


class _ChunkStarts:
    """Where each chunk of split() starts (the first at 0), and its first
    line (0-based). Arrays of 8 bytes a chunk, where a tuple and two int
    objects a chunk were about 100 bytes (100,000 tiny ConfigMaps: 12 MiB
    at read's peak): `begins` is held through the whole read of a source,
    `lines` for the stream's life, as its documents' first lines
    (Source.first_lines). A plain class, as the others every run makes at
    start-up: a NamedTuple's class compiles each of its string annotations
    (typing.ForwardRef; with the two below, about 12 M instructions of a
    one-ConfigMap render's 325 M)."""

    __slots__ = ("begins", "lines")

    def __init__(self, begins: array, lines: array) -> None:
        self.begins = begins
        self.lines = lines


def _chunk_starts(text: str, name: str | None, count: _Count | None,
                  documents_before: int) -> _ChunkStarts:
    """Where each chunk of split() starts, and its first line: the chunks
    follow each other, the first at 0, and join to the text."""
    starts = _document_starts(text, count, name, documents_before)
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    chunks = _ChunkStarts(array("q"), array("q"))
    line = 0
    carried: int | None = None  # start of `%YAML`/`%TAG` directives, which belong to the next document
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        begin = carried if carried is not None else start
        # (Most chunks hold no `...` at all: asked of those alone.)
        if text.find("...", start, end) != -1 and not _separator_kept(text, starts, i):
            marker = _end_before_any_document(text, start, end)
            if marker is not None:
                where = leading_source_comment(text[begin:end]) or name
                raise PostrenderError(_END_WITHOUT_DOCUMENT, Location(
                    documents_before + len(chunks.begins) + 1, where, line=line + text.count("\n", begin, marker) + 1))
        chunk = text[begin:end] if text.find("%", begin, end) != -1 else ""  # only directives need a look
        if i == 0 and "%" in chunk and _only_directives(chunk):
            # Before the file's first `---`: kubectl's first chunk, which
            # go-yaml refuses, directives and no document.
            raise _stray_directive(chunk, 0, documents_before + 1, name)
        carried = None
        if i + 1 < len(starts) and "%" in chunk:
            # `...` ends a document; directives after it open the next one.
            found = _directives_after_end(chunk)
            if found is not None:
                marker, tail = found
                body = chunk.find("\n", start - begin) + 1 if opens_with_marker(text, start) else 0
                if not _holds_content(chunk[body:marker]):
                    # kubectl drops the `---` line before: its chunk opens
                    # with `...` and directives, which go-yaml refuses.
                    where = documents_before + len(chunks.begins) + 1
                    raise _stray_directive(chunk, tail, where, name, line)
                carried, end = begin + tail, begin + tail
        chunks.begins.append(begin)
        chunks.lines.append(line)
        line += text.count("\n", begin, end)
    return chunks


def _separator_kept(text: str, starts: array, i: int) -> bool:
    """Whether kubectl's reader (apimachinery's YAMLReader, Helm's too) keeps
    the separator line at starts[i] as the first line of its chunk: it drops
    one that ends a chunk holding a line, and keeps one that comes while its
    chunk holds none. That is at the file's start (starts[0] is 0 where a
    first chunk has no separator line: there is none to keep), after a JSON
    document the stream opens with, and right after a separator line it
    dropped: so of separator lines in a row, it drops and keeps them by
    turns, counted from the first of the row."""
    first = i
    while first > 0 and starts[first - 1] == text.rfind("\n", 0, starts[first] - 1) + 1 \
            and (starts[first - 1] or text.startswith("---")):
        first -= 1  # the separator line right before is one too
    at = starts[first]
    if at == 0:
        kept = text.startswith("---")
    else:
        # After a chunk holding a line (dropped), unless that chunk is the
        # file's first and a JSON document (kept).
        kept = first == 1 and not text.startswith("---") and _json_ends_just_before(text, at)
    return kept if (i - first) % 2 == 0 else not kept


def _end_before_any_document(text: str, start: int, end: int) -> int | None:
    """Where a `...` line is that kubectl's chunk from `start` (a separator
    line it drops, or the file's start) holds before any document: only
    blank lines and comments come before it there. go-yaml refuses such a
    chunk ("did not find expected node content"), and kubectl with it, where
    YAML reads an empty stream. None: the chunk's first line is content."""
    at = start
    if opens_with_marker(text, start):
        newline = text.find("\n", start, end)
        at = end if newline == -1 else newline + 1
    while at < end:
        newline = text.find("\n", at, end)
        line_end = end if newline == -1 else newline
        stripped = text[at:line_end].strip().lstrip("\ufeff") if at == 0 else text[at:line_end].strip()
        if stripped and not stripped.startswith("#"):
            # A marker starts its line; an indented `...` is a plain scalar.
            starts_line = text.startswith("...", at) or at == 0 and text.startswith("\ufeff...")
            return at if starts_line and _MARKER_LINE.fullmatch(stripped) else None
        at = line_end + 1
    return None


def _directives_after_end(chunk: str) -> tuple[int, int] | None:
    """(the start of the chunk's last `...` line, the start of the
    directives after it), where directives follow that line and belong to
    the next document (`...`, `%YAML 1.1`, `---` between two documents), or
    None."""
    marker = len(chunk)
    while (marker := chunk.rfind("\n...", 0, marker)) != -1:
        start = marker + 1
        newline = chunk.find("\n", start)
        after = len(chunk) if newline == -1 else newline + 1
        # (`... ` with white space after it ends a document too, as libyaml
        # and kubectl read it: syntax62.)
        if _MARKER_LINE.fullmatch(chunk[start:after].rstrip(" \t\r\n")):
            return (start, after) if after < len(chunk) and _only_directives(chunk[after:]) else None
    return None


def _holds_content(text: str) -> bool:
    """Whether text has a line that is not blank, a comment or `...`."""
    for line in _lines(text):
        stripped = line.strip().lstrip("\ufeff")
        if stripped and not stripped.startswith("#") and not _MARKER_LINE.fullmatch(stripped):
            return True
    return False


def _stray_directive(chunk: str, at: int, document: int, name: str | None, first_line: int = 0) -> PostrenderError:
    """The error for directives from `at` in the chunk that kubectl refuses."""
    lines = chunk.count("\n", 0, at)
    for text in _lines(chunk[at:]):
        if text.strip().lstrip("\ufeff").startswith("%"):
            break
        lines += 1
    where = leading_source_comment(chunk) or name
    return PostrenderError(_STRAY_DIRECTIVE, Location(document, where, line=first_line + lines + 1))


def _document_starts(text: str, count: _Count | None = None, name: str | None = None,
                     documents_before: int = 0) -> array:
    """Offsets of the document separator lines (opens_with_marker); refuses
    a line that starts with `---` and is none, and a separator line kubectl
    reads as text (_read_as_text).

    str.find runs at memory speed; a MULTILINE regex tries every offset,
    which is most of the time spent on a 50 MB ConfigMap.
    """
    starts = array("q")  # 8 bytes a document, not an int object each
    newline = -1  # as if the text followed a line break
    while True:
        at = newline + 1
        if text.startswith("---", at):
            # Most separators are `---` and a line break: a marker to both,
            # told here without the two calls (a document each).
            if at + 3 < len(text) and text[at + 3] != "\n":
                if not opens_with_marker(text, at):
                    raise _refused_separator(_INVALID_SEPARATOR, text, at, starts, name, documents_before)
                if _hidden_from_yaml(text, at) and _read_as_text(text, at, starts):
                    glued = text[at + 3] not in " \t"
                    raise _refused_separator(_SEPARATOR_READ_AS_TEXT if glued else _SEPARATOR_WITH_A_NODE, text, at,
                                             starts, name, documents_before)
            if count is not None and len(starts) > count.spare_objects:
                # The documents before this one, each ended (as read() counts them).
                ended = len(starts) + (0 if at == 0 or starts and starts[0] == 0 else 1)
                count.check_objects(count.objects + ended, at, lambda: text.count("\n", 0, at) + 1)
            starts.append(at)
        newline = text.find("\n---", at)
        if newline == -1:
            return starts


def _refused_separator(message: str, text: str, at: int, starts: array, name: str | None,
                       documents_before: int) -> PostrenderError:
    document = documents_before + len(starts) + (0 if starts and starts[0] == 0 else 1)
    # Named as any other error in that document: by its `# Source:` heading, else the file.
    where = leading_source_comment(text[starts[-1] if starts else 0 : at]) or name
    return PostrenderError(message, Location(document, where, line=text.count("\n", 0, at) + 1))


# kubectl's reader (and Helm's, which is the same code) refuses a line that
# starts with `---` and goes on with more than white space and a comment:
# `---x`, `----`, and `--- x` or `--- |`, which YAML reads as a marker and
# a document's first node.
_INVALID_SEPARATOR = (
    "a line starts with --- and goes on with more than white space and a comment, which kubectl and Helm"
    " refuse as a document separator (invalid Yaml document separator); put what follows --- on a line of its own"
)
# A separator line YAML reads as text (`---#x`, no space before the comment)
# where kubectl reads it as a document's first line: go-yaml then reads it
# as text as well, and kubectl fails on that document.
_SEPARATOR_READ_AS_TEXT = (
    "a --- line with no space or tab after ---, but a comment or other white space, opens the file or follows"
    " another --- line or a JSON document: there kubectl reads it as text, not as a document separator;"
    " put a space after --- or remove the line"
)
# The same place, the line `--- ` and white space only Go trims (NBSP,
# U+3000, VT): YAML reads that as a node after the marker (review62a: the
# message above told to put a space where one was).
_SEPARATOR_WITH_A_NODE = (
    "a --- line holding white space YAML does not take for it (a no-break space, U+3000, VT, FF ...) opens the"
    " file or follows another --- line or a JSON document: there kubectl reads it as the document's first line,"
    " and YAML reads that white space as a value; remove it from the line, or remove the line"
)
# kubectl and Helm never apply a directive: a `---` line after it always
# splits it off, into a chunk of its own or the end of the document before.
# go-yaml ignores what follows the `...` that ends that document, and
# refuses a chunk that opens with directives.
_STRAY_DIRECTIVE = (
    "a directive (a line that starts with %) before the file's first document, or after a ... line that ends"
    " none: kubectl and Helm refuse it there (they read a directive only after the ... line that ends a"
    " document, and then ignore it); remove it"
)


# go-yaml refuses a chunk that holds a `...` line before any node: after a
# `---` line kubectl drops, or at the start of the file.
_END_WITHOUT_DOCUMENT = (
    "a ... line with no document before it since the --- line before (or the file's start): kubectl and Helm"
    " refuse it (did not find expected node content); remove the ... line"
)


def opens_with_marker(text: str, at: int = 0) -> bool:
    """Whether a document separator line starts at `at`, as kubectl reads
    one: `---`, then nothing but Go white space and maybe a comment
    (`---kind:` and `--- x` are none, and read refuses them). The one rule
    the splitter and the writer share."""
    if not text.startswith("---", at):
        return False
    after = at + 3
    if after == len(text) or text[after] == "\n" or text.startswith("\r\n", after):
        return True  # most separators
    end = text.find("\n", after)
    rest = (text[after:] if end == -1 else text[after:end]).strip(_GO_SPACE)
    return not rest or rest[0] == "#"


def _hidden_from_yaml(text: str, at: int) -> bool:
    """Whether the separator line at `at` (one to kubectl) holds text to
    YAML: libyaml takes `---` for a marker only before a space, a tab or a
    line break (`---#x` is text), and reads white space only Go trims
    (`--- ` and NBSP, VT, U+3000...) as a scalar after the marker (syntax62).
    Composed with the line masked (_masked)."""
    after = at + 3
    if after == len(text) or text[after] == "\n":
        return False  # most separators
    if text[after] not in " \t\r":
        return True
    end = text.find("\n", after)
    rest = (text[after:] if end == -1 else text[after:end]).lstrip(" \t").rstrip("\r")
    return bool(rest) and rest[0] != "#"


def _read_as_text(text: str, at: int, starts: array) -> bool:
    """Whether kubectl may read the separator line at `at` as its chunk's
    first line, not as a separator. Its reader drops a separator line only
    when some line came since the last one it dropped (or the file's, or a
    JSON document's, start), and keeps it otherwise, where go-yaml reads
    `---#x` as text. Judged by the line before alone, which the writer keeps
    before it: a separator line there may be dropped or kept (each second of
    a run is), and a copy or another file written before the run could turn
    one into the other."""
    if at == 0:
        return True
    before = text.rfind("\n", 0, at - 1) + 1
    if starts and starts[-1] == before:
        return True
    return not starts and _json_ends_just_before(text, at)


def _json_ends_just_before(text: str, at: int) -> bool:
    """Whether the text before `at` is a JSON value followed by white space
    with at most one line break. kubectl reads a stream that opens with `{`
    as JSON first; it goes on as YAML past white space and one line break
    after the value, and a separator line there opens that YAML's first chunk."""
    head = text[:at]
    start = _json_start(head)
    end = _go_json_end(head, start) if start is not None else None
    if end is None:
        return False  # kubectl reads it as YAML from the start
    return head[end:].lstrip(_GO_SPACE.replace("\n", "")) in ("", "\n")


def _leading_directives(text: str) -> int | None:
    """Where the separator line is that follows the directives a chunk opens
    with (`%YAML 1.1`, `%TAG ...`), or None."""
    if opens_with_marker(text) or "%" not in text:
        return None  # most chunks: a `---` line first, or no directive at all
    starts = _document_starts(text)
    return starts[0] if starts and _only_directives(text[: starts[0]]) else None


def opens_with_directives(text: str) -> bool:
    """Whether a chunk opens with directives (`%YAML 1.1`, `%TAG ...`) before
    its `---` line: the document before it must end with a `...` line."""
    return _leading_directives(text) is not None


def ends_document(text: str) -> bool:
    """Whether text ends with a `...` line (and comments or blank lines)."""
    for line in reversed(text.splitlines()):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return _MARKER_LINE.fullmatch(stripped) is not None and stripped.startswith("...")
    return False


def _only_directives(chunk: str) -> bool:
    found = False
    for line in _lines(chunk):
        stripped = line.strip().lstrip("\ufeff")
        if stripped.startswith("%"):
            found = True
        elif stripped and not stripped.startswith("#"):
            return False
    return found
