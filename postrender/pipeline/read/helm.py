"""Helm 3's `# Source:` headers: the chart file of each document, and its lines there.

Helm 3 heads every document it hands a post-renderer with `# Source: FILE`,
sorted by kind. Read from the text before composing: the file's name (one
string for all its documents), where each document sits in the file's
rendered text, and which files' documents Helm may have reordered.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...lazyre import LazyPattern
from .documents import Rendered
from .lines import _ODD_LINE_BREAK, _SOURCE_COMMENT, _lines, _opens_with_content

if TYPE_CHECKING:
    from .documents import Document


class _ChartFiles:
    """The chart files (Helm 3's `# Source:`) a read has met: each one's
    name, one string for all its documents (25,000 small apps, three
    files: 5.4 MiB of equal names, one a document), and the lines of its
    rendered text so far."""

    __slots__ = ("names", "lines")

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.lines: dict[str, int] = {}


def _helm3_header(doc: Document, so_far: _ChartFiles, sorted_files: frozenset[str] = frozenset()) -> None:
    """A chunk Helm 3 wrote starts `---`, `# Source: FILE`. Where in FILE's
    rendered text it is, is known but for a file of `sorted_files`."""
    found = _helm3_source(doc.text)
    if found is not None:
        file, line = found
        doc.header_source = file = so_far.names.setdefault(file, file)
        if file in sorted_files:
            return
        rendered = doc.rendered = Rendered(so_far.lines.get(file, 0), line)
        so_far.lines[file] = rendered.next_before(_line_count(doc.text))


def _files_helm_may_have_sorted(text: str, begins: Sequence[int]) -> frozenset[str]:
    """The chart files of more than one document in a stream Helm 3 wrote
    (`text`, its chunks starting at `begins`).

    Helm 3 hands a post-renderer its manifests sorted by kind (releaseutil's
    InstallOrder), each document headed `# Source: FILE`: the documents of
    one file then come in another order than the file's where they are of
    more than one kind, and where each sits in the file's rendered text is
    not known. Their kinds are known only once read, and a message may name
    the place before: no document of such a file of more than one kind (as
    its text says) is given one."""
    if len(begins) < 2:
        return frozenset()
    # Only the first chunk's lines up to its `# Source:` line are read: no
    # copy of a first document that may be most of the stream.
    source_line = text.find("# Source: ", 0, begins[1])
    head_end = text.find("\n", source_line, begins[1]) + 1 or begins[1]
    first = _helm3_source(text[:head_end]) if source_line >= 0 else None
    if first is None:
        return frozenset()  # not Helm 3's: no scan
    # Each chunk's file, and where it ends; found with str.find, in C.
    ends = [*begins[1:], len(text)]
    files = [first[0]] + [_written_after(text, "\n# Source: ", begin - 1, end)
                          for begin, end in zip(begins[1:], ends[1:])]
    seen: set[str | None] = set()
    twice: set[str | None] = set()
    for name in files:
        (twice if name in seen else seen).add(name)
    twice.discard(None)
    if not twice:
        return frozenset()
    # Of one kind, a file's documents keep its order (the sort is stable):
    # each one's top-level `kind` line, as the text says it.
    kinds: dict[str, set[str | None]] = {}
    for name, begin, end in zip(files, begins, ends):
        if name in twice:
            kinds.setdefault(name, set()).add(_kind_written(text, max(begin - 1, 0), end))  # type: ignore[arg-type]
    return frozenset(name for name, found in kinds.items() if len(found) > 1 or None in found)


# A line at column 0 that is not a plain `key:` of a block mapping there, a
# comment, a blank line, a marker or a directive: a root written otherwise
# (a quoted or tagged key, a flow mapping), or a quoted scalar's line (libyaml
# does not ask them to be indented), where a `kind:` line may not be the key.
_NOT_A_ROOT_KEY_LINE = LazyPattern(r"^(?![ \t]|#|\r?$|---|\.\.\.|%|[A-Za-z0-9_][\w./-]*[ \t]*:(?:[ \t]|\r?$))", re.M)
# The first line of content from where a search starts (after the `---` and
# `# Source:` lines): neither blank nor a comment, a marker or a directive.
_FIRST_CONTENT_LINE = LazyPattern(r"^(?![ \t]*(?:#|\r?$)|---|%)", re.M)
# A root `kind` key's line, `kind:` or `kind :`; and what may follow it for
# the kind to be sure: a plain word, quoted or not, then a comment at most.
_KIND_LINE = LazyPattern(r"^kind[ \t]*:([^\n]*)", re.M)
_KIND_VALUE = LazyPattern(r"[ \t]*(['\"]?)([A-Za-z][A-Za-z0-9]*)\1(?:[ \t]+#.*|[ \t]*)\r?")


def _kind_written(text: str, start: int, end: int) -> str | None:
    """The kind text[start:end]'s one top-level `kind` line says, where the
    text surely says it so: a block mapping at column 0 whose every line
    there is a plain key, one of them `kind`, with a plain word after it on
    that line alone. None otherwise: a key written twice is read last-wins,
    a line may be inside a quoted scalar, a value may go on (`kind: A`, then
    an indented `B`, after blank lines or not, is `A B`)."""
    chunk = start + 1 if text.startswith("\n", start) else start
    if _ODD_LINE_BREAK.search(text, chunk, end):
        return None  # go-yaml breaks lines there too (a lone CR, NEL, U+2028, U+2029): the lines below are not its
    lines = _KIND_LINE.finditer(text, chunk, end)
    line = next(lines, None)
    if line is None or next(lines, None) is not None:
        return None
    first = _FIRST_CONTENT_LINE.search(text, chunk, end)
    if first is None or text.startswith((" ", "\t"), first.start()) or _NOT_A_ROOT_KEY_LINE.search(text, chunk, end):
        return None
    # The next line with content starts a key at column 0, or none comes.
    following = _FIRST_CONTENT_LINE.search(text, line.end() + 1, end) if line.end() < end else None
    if following is not None and text.startswith((" ", "\t"), following.start()):
        return None
    value = _KIND_VALUE.fullmatch(line.group(1))
    return value.group(2) if value else None


def _written_after(text: str, opening: str, start: int, end: int) -> str | None:
    """The rest of the first line in text[start:end] that starts with
    `opening` (a line break, then the line's first characters), stripped."""
    at = text.find(opening, start, end)
    if at < 0:
        return None
    line_end = text.find("\n", at + 1, end)
    return text[at + len(opening) : line_end if line_end >= 0 else end].strip()


def _helm3_source(text: str) -> tuple[str, int] | None:
    """(FILE, the number of the line after it) of a chunk that starts as
    Helm 3 writes one: `---`, `# Source: FILE`."""
    if _opens_with_content(text):
        return None
    for number, line in enumerate(_lines(text)):
        stripped = line.strip().lstrip("\ufeff")
        match = _SOURCE_COMMENT.match(stripped)
        if match:
            return match.group(1).strip(), number + 1
        if stripped and not stripped.startswith(("#", "---", "%")):
            return None
    return None


def _line_count(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)
