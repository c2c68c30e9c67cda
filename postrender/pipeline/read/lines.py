"""A chunk's text line by line, as kubectl's reader and libyaml see its lines.

What every scan of a document's text shares, below the document model: its
lines one at a time, the marker lines (`---`, `...`), Go's white space, the
line breaks YAML 1.1 reads that kubectl does not, and the `# Source:`
comment that heads a chunk. Text in, answers out: it knows no Document.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...lazyre import LazyPattern

# Go's white space (unicode.IsSpace), which its strings.TrimSpace strips.
_GO_SPACE = (" \t\n\v\f\r\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
             "\u2028\u2029\u202f\u205f\u3000")


_SOURCE_COMMENT = re.compile(r"^# Source: (.+?)\r?$", re.M)
_MARKER_LINE = re.compile(r"---(?:[ \t]*#.*)?|\.\.\.(?:[ \t]+#.*)?")
# Line breaks to libyaml (YAML 1.1) that are not LF or CRLF. Edits are placed
# by LF lines, so one between nodes would put an edit in the wrong place:
# such a document is refused. Inside a quoted scalar they are only content
# (kubectl kustomize writes U+2028 that way), and the scalar is edited whole.
# Line breaks YAML 1.1 reads that kubectl's line splitting does not, and a
# byte order mark that starts a line: libyaml skips one at any line start,
# kubectl only at the start of a file (elsewhere it reads it as text).
_ODD_LINE_BREAK = LazyPattern("\r(?!\n)|[\x85\u2028\u2029]|(?<=\n)\ufeff")
_LONE_CR = LazyPattern("\r(?!\n)")


def _lines(text: str) -> Iterator[str]:
    """Lines one at a time: callers stop at the first that matters."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        yield text[start:end]
        start = end + 1


def _opens_with_content(text: str) -> bool:
    """Whether a chunk is a `---` line and then a line that starts with a
    letter, as Helm and kustomize write every document: no comment,
    directive or blank line before its content, so the line scans below
    can answer at once."""
    if text.startswith("---\n"):
        return text[4:5].isalpha()
    return text.startswith("---\r\n") and text[5:6].isalpha()


def _has_odd_line_breaks(text: str) -> bool:
    # Substring tests first: scanning 50 MB with the regex takes most of a second.
    return ("\x85" in text or "\u2028" in text or "\u2029" in text
            or ("\r" in text and _LONE_CR.search(text) is not None) or text.find("\ufeff", 1) != -1)


def only_comments(text: str) -> bool:
    if _opens_with_content(text):
        return False
    for line in _lines(text):
        stripped = line.strip().lstrip("\ufeff")
        if stripped and not stripped.startswith("#") and not (
                stripped in ("---", "...") and line.lstrip("\ufeff").startswith(stripped)):
            # (Indented, `...` is a plain scalar: a document kubectl cannot read.)
            return False
    return True


def leading_source_comment(text: str) -> str | None:
    """The file a `# Source:` comment names, from the comment lines before
    the document's first line of content only: anywhere else such a line
    may be inside a value (a Secret's, say), which no message may show."""
    if _opens_with_content(text):
        return None
    for line in _lines(text):
        stripped = line.strip().lstrip("\ufeff")
        match = _SOURCE_COMMENT.match(line.lstrip("\ufeff"))
        if match:
            return match.group(1).strip()
        if stripped and not stripped.startswith(("#", "%")) and not _MARKER_LINE.fullmatch(stripped):
            return None
    return None
