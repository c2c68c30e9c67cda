"""What libyaml's refusals become: postrender's messages for text YAML cannot read.

A libyaml error carries a mark in a document's chunk: here it becomes a
stream line and a message that says what to do (a surrogate escape, a colon
in a flow collection, JSON objects one after another). UnreadableText is
the refusal of text that kubectl and strict readers refuse too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ruamel.yaml.error import MarkedYAMLError, YAMLError

from ...errors import PostrenderError
from .jsonfirst import _is_json_first, _one_stream_note

if TYPE_CHECKING:
    from .documents import Document


def _parse_error(doc: Document, exc: YAMLError) -> PostrenderError:
    if isinstance(exc, MarkedYAMLError):
        return _yaml_error(doc, exc)
    location = doc.at(doc.first_line + 1)
    position = getattr(exc, "position", None)  # a ReaderError's, in UTF-8 bytes
    reason = getattr(exc, "reason", None)
    if isinstance(position, int):
        before = doc.text.encode("utf-8")[:position]
        line = doc.first_line + before.count(b"\n") + 1
        location = doc.at(line)
        if isinstance(reason, str):
            # Where the character is, not which: it may be one of a Secret's
            # value (review60; invalid UTF-8 is named so too, inputs.decode).
            column = len(before[before.rfind(b"\n") + 1:].decode("utf-8", "replace")) + 1
            return PostrenderError(f"invalid YAML: a character YAML does not allow at column {column} ({reason});"
                                   " remove it, or write it as an escape in a double-quoted string", location)
    return PostrenderError(f"invalid YAML: {_first_line(str(exc))}", location)


class UnreadableText(PostrenderError):
    """The text itself is what kubectl and strict YAML readers refuse (a
    duplicate key, a bad merge key, an alias bomb), not only what it says:
    written back as it is (a KRM function's answer), it is refused again."""


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "invalid YAML"


def _yaml_error(doc: Document, exc: MarkedYAMLError) -> PostrenderError:
    mark = exc.problem_mark or exc.context_mark
    line = doc.first_line + _mark_line(doc, mark) + 1 if mark is not None else doc.first_line + 1
    message = exc.problem or exc.context or "invalid YAML"
    if exc.context and exc.problem:
        started = f" at line {doc.first_line + _mark_line(doc, exc.context_mark) + 1}" if exc.context_mark else ""
        message += f" ({exc.context}{started})"
    if exc.problem == "found invalid Unicode character escape code" and _surrogate_escape(doc.text, mark):
        message += f"; {_SURROGATE_HINT}{_one_stream_note(doc)}"
    elif exc.problem == "found unexpected ':'":
        message += f"; {_FLOW_COLON_HINT}"
    elif exc.problem == "did not find expected <document start>" and _is_json_first(doc):
        message += f"; {_JSON_STREAM_HINT}"
    # Only a `# Source:` heading the document names it: one further down may
    # sit inside a quoted value, a Secret's perhaps.
    return PostrenderError(f"invalid YAML: {message}", doc.at(line))


def _mark_line(doc: Document, mark: object) -> int:
    """The 0-based line of an error's mark in the chunk. libyaml's composer
    marks some errors with a node's start (a duplicate anchor's first
    occurrence, the document a second one follows), and a node's start is
    an offset, counted as libyaml counts it: from after a byte-order mark."""
    text = doc.text
    # libyaml's own line counts a CR, NEL, U+2028 and U+2029 in a quoted
    # string too; its index is in characters, as offsets are.
    offset = (mark if isinstance(mark, int) else mark.index) + text.startswith("\ufeff")  # type: ignore[attr-defined]
    # An input that ends too soon (an unclosed quote or bracket) is marked
    # at its end: past the last line, where the next document's `---` or
    # nothing is. postrender names the last line, where the quote or bracket
    # runs out, as Helm 3 does (kubectl counts one past it, within the
    # document: a line the file may not have).
    return doc.chunk_line(min(offset, len(text) - 1)) if text else 0


# kubectl reads a stream that starts with "{" as JSON up to the end of that
# first value (apimachinery's YAMLOrJSONDecoder), and everything else with
# go-yaml v2. JSON strings allow two escapes YAML's double-quoted scalars do
# not: a surrogate pair for a character beyond U+FFFF (\ud83d\ude00), which
# libyaml refuses, and \/, which libyaml reads and go-yaml v2 refuses. Helm
# puts `---` before every document, so it reads neither.
_SURROGATE_HINT = (
    "a \\uD800-\\uDFFF escape (a JSON surrogate pair) is read by kubectl only in a JSON document that starts"
    " the stream, and never by Helm; write the character itself or a \\U0001F600-style escape"
)


def _surrogate_escape(text: str, mark) -> bool:
    """Whether libyaml refused a \\u or \\U escape of a surrogate (its mark
    is at the escape's hex digits, counted after a byte-order mark, as
    _mark_line counts), not one past U+10FFFF, which no reader takes
    (oracle61); where the text does not tell, it may be one."""
    at = mark.index + text.startswith("\ufeff") if mark is not None else -1
    if not 0 < at <= len(text) or text[at - 1] not in "uU":
        return True
    digits = text[at : at + (4 if text[at - 1] == "u" else 8)]
    try:
        return 0xD800 <= int(digits, 16) <= 0xDFFF
    except ValueError:
        return True


# libyaml 0.1.7 refuses `a:b` inside a flow collection (`{url: http://x}`),
# which go-yaml v2 reads as text; postrender reads it too
# (syntax/flowcolons.py), but not past HIDDEN_UP_TO of them in a document,
# nor in one read in parts (of 256 KiB or more, a List's items).
_FLOW_COLON_HINT = (
    "kubectl and Helm read `a:b` inside {...} or [...] as text, and postrender does up to 256 in a document"
    " under 256 KiB outside a List that holds no U+E7FF; quote the value, or write the collection in block style"
)
# kubectl reads a stream that starts with "{" as JSON objects one after
# another; postrender reads documents as YAML, separated by `---` lines.
_JSON_STREAM_HINT = (
    "JSON objects one after another without a `---` line between them are read by kubectl, not by postrender;"
    " put `---` between them"
)
