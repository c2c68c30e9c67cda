"""Line breaks and byte order marks kubectl and YAML read apart.

Edits are placed by LF lines: a line break YAML 1.1 reads and kubectl does
not (a lone CR, NEL, U+2028, U+2029) outside a quoted string, or a byte
order mark that starts a line, is refused, checked once a document with one
is composed (or failed to compose).
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from ...errors import PostrenderError
from ...lazyre import LazyPattern
from ...syntax.nodes import ScalarNode, unique_nodes
from .jsonfirst import _is_json_first
from .lines import _ODD_LINE_BREAK

if TYPE_CHECKING:
    from .documents import Document


def _check_line_breaks(doc: Document) -> None:
    """Refuses what kubectl and YAML read differently about lines: a line
    break YAML 1.1 reads and kubectl does not, outside a quoted string (in
    a JSON document that starts the stream, inside one too: kubectl reads
    its strings as JSON, where they are plain characters), and a byte order
    mark that starts a line."""
    matches = list(_ODD_LINE_BREAK.finditer(doc.text))
    if not matches:
        return
    json_first = _is_json_first(doc)
    quoted = sorted(
        (node.start_mark, node.end_mark)
        for node in unique_nodes(doc.root)
        if isinstance(node, ScalarNode) and node.style in ("'", '"')
    ) if doc.root is not None and not json_first else []
    starts = [start for start, _ in quoted]
    for match in matches:
        if doc.text.startswith("\r\n", match.end()):
            # kubectl reads each CRLF as LF (apimachinery's LineReader), so
            # CR CR LF is one line break to it and two to YAML read as
            # written: a quoted string folds them to " " or to "\n".
            problem = "a CR before a CRLF line break is not supported (kubectl reads it as one line break, YAML as two)"
            break
        i = bisect.bisect_right(starts, match.start()) - 1
        if i < 0 or match.start() >= quoted[i][1]:
            name = _ODD_NAMES.get(match.group())
            if name is None:  # a byte order mark
                problem = _MARK_STARTS_A_LINE
            elif json_first:
                problem = (f"line break {name} in a JSON document that starts the stream is not supported (kubectl"
                           " reads the document as JSON, where it is a character, YAML as a line break); escape it")
            else:
                problem = f"line break {name} outside a quoted string is not supported; use LF or CRLF line endings"
            break
    else:
        return
    line = doc.first_line + doc.text.count("\n", 0, match.start()) + 1
    raise PostrenderError(problem, doc.location(line=line))


def _check_byte_order_marks(doc: Document) -> None:
    """Refuses a byte order mark that starts a line, for a document that did
    not compose: libyaml fails on one right after a `---` line ("did not
    find expected <document start>"), and the mark, not that message, is
    what to fix."""
    match = _LINE_START_MARK.search(doc.text)
    if match is not None:
        line = doc.first_line + doc.text.count("\n", 0, match.start()) + 1
        raise PostrenderError(_MARK_STARTS_A_LINE, doc.location(line=line))


_LINE_START_MARK = LazyPattern("(?<=\n)\ufeff")
_MARK_STARTS_A_LINE = ("a byte order mark (U+FEFF) starts a line: kubectl and YAML read one alike only at the start of"
                       " a file (YAML skips it at any line start, kubectl reads it as text or fails); remove it")
_ODD_NAMES = {"\r": "a CR without LF", "\x85": "NEL (U+0085)", "\u2028": "U+2028", "\u2029": "U+2029"}
