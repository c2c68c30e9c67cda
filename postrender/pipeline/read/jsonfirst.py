"""A stream that starts with `{`: kubectl reads its first document as JSON.

kubectl reads a stream whose first character is `{` as JSON up to the end
of that value, and everything else as YAML. This module tells such a
document (_is_json_first) and holds what differs there: numbers Go's JSON
decoder refuses, a `...` line after it, the escapes JSON allows and YAML
does not (surrogate pairs, masked for libyaml and joined back; `\\/`), and
how a copy written after it spells them.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from ...errors import PostrenderError
from ...lazyre import LazyPattern
from ...syntax.nodes import Node, ScalarNode, unique_nodes
from .lines import _GO_SPACE

if TYPE_CHECKING:
    from .documents import Document


def _json_start(text: str) -> int | None:
    """Where the `{` is that makes kubectl read the text as JSON: its first
    character past white space (and a byte-order mark), within the first
    4096 bytes, all kubectl looks at to tell JSON from YAML (apimachinery's
    GuessJSONStream; past them it reads YAML, oracle60b). None: YAML."""
    start = 1 if text.startswith("\ufeff") else 0  # kubectl drops the mark as it reads a file
    body = text.lstrip(_GO_SPACE) if not start else text[1:].lstrip(_GO_SPACE)
    if not body.startswith("{"):
        return None
    at = len(text) - len(body)
    if at - start >= _JSON_SNIFFED or len(text[start:at].encode("utf-8")) >= _JSON_SNIFFED:
        return None
    return at


def _go_json_end(text: str, start: int) -> int | None:
    """The end of the JSON value at `start`, where Go's decoder reads one;
    None where it finds a syntax error (a trailing comma, a comment, NaN):
    kubectl then reads the whole stream as YAML instead (review60b)."""
    import json  # only for this rare shape: a plain render does without it

    def constant(name: str) -> object:
        raise ValueError(name)  # NaN, Infinity: Python's JSON reads them, Go's does not

    def number(text: str) -> int:
        return 0  # only the syntax counts: int() refuses 4,300 digits and more (review60c)

    try:
        _, end = json.JSONDecoder(parse_constant=constant, parse_int=number, parse_float=number).raw_decode(text, start)
    except ValueError:
        return None
    except RecursionError:
        # Nested past Python's stack (Go's decoder takes 10,000 levels): read
        # as YAML, where --max-depth refuses it with the line (review60c).
        return None
    return end


# kubectl reads each file given as a stream of its own; postrender writes
# its inputs as one, which only the first input's first document starts
# (oracle60b: a folder of JSON files written by json.dumps, read whole by
# kubectl, was refused here as its names sorted).
_ONE_STREAM = (" (postrender writes all its inputs as one stream, which only the first input starts: give that"
               " file first, or run postrender on it alone)")


def _one_stream_note(doc: Document) -> str:
    """_ONE_STREAM, for an input's first document kubectl would read as JSON
    that is not the stream's first."""
    return _ONE_STREAM if doc.index != 1 and doc.first_line == 0 and _json_value_end(doc.text) is not None else ""


_ESCAPE = LazyPattern(r"\\(?:u([0-9a-fA-F]{4})|.)", re.S)
# Surrogates are parsed as stand-ins from this private-use range, one for one
# (same escape length, so every position stays put), then joined back.
_STAND_INS = LazyPattern("[\ue000-\ue7ff]")
_STAND_IN_ESCAPE = LazyPattern(r"\\u[eE][0-7]|\\U0000[eE][0-7]")
_HIGH, _LOW, _STAND_IN = 0xD800, 0xDC00, 0xE000


def as_later_document(doc: Document, text: str) -> str:
    """`text`, made from `doc`'s, written as a document after the stream's
    first (a copy of it, written after it). kubectl reads a document that
    starts the stream with "{" as JSON, with escapes YAML has not, and
    refuses those anywhere after it: so a copy's are written as YAML writes
    what they mean (`\\/` as `/`, a surrogate pair `\\ud83d\\ude00` as
    `\\U0001F600`, a lone surrogate as what Go's JSON reads, U+FFFD). In
    such a document a backslash stands only in a string."""
    if not _is_json_first(doc) or "\\" not in text:  # (most copies: not of the first document)
        return text
    return _JSON_ONLY_ESCAPE.sub(_as_yaml_escape, text)


def _as_yaml_escape(match: re.Match[str]) -> str:
    high, low, lone, slash = match.groups()
    if high is not None:
        return f"\\U{_joined(int(high, 16), int(low, 16)):08X}"
    if lone is not None:
        return "\\uFFFD"
    return "/" if slash is not None else match.group()


# Each escape, left to right (so `\\\\/` is an escaped backslash, then a
# slash): a surrogate pair, a lone surrogate, `\\/`, or any other, kept.
_JSON_ONLY_ESCAPE = LazyPattern(
    r"\\(?:u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})|u([dD][89a-fA-F][0-9a-fA-F]{2})|(/)|.)", re.S)


def _joined(high: int, low: int) -> int:
    """The character a UTF-16 surrogate pair stands for."""
    return 0x10000 + ((high - _HIGH) << 10) + (low - _LOW)


def _is_json_first(doc: Document) -> bool:
    """Whether kubectl reads the document as JSON: the stream's first, a
    `{` it sees as JSON (_json_start) opening a value Go's decoder reads
    (_go_json_end); one it does not (a trailing comma) makes kubectl read
    the stream as YAML from its start."""
    return doc.index == 1 and _json_value_end(doc.text) is not None


@lru_cache(maxsize=4)
def _json_value_end(text: str) -> int | None:
    """Where the JSON value kubectl reads a text as ends, or None (YAML).
    (Asked of the first document by several checks: read once.)"""
    start = _json_start(text)
    return _go_json_end(text, start) if start is not None else None


# The bytes kubectl reads to tell a JSON stream from YAML.
_JSON_SNIFFED = 4096
# A JSON number, as Go's decoder reads one into a float64 (kubectl's objects
# are map[string]interface{}): one past its range fails the whole document.
_JSON_NUMBER = LazyPattern(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")


def _check_json_numbers(doc: Document) -> None:
    """Refuses a number kubectl's JSON decoder cannot hold (`1E400`, a
    400-digit integer: "cannot unmarshal number into Go value of type
    float64"), in a document kubectl reads as JSON. In YAML the same text is
    a string, and libyaml composes it so: read as written, it would pass."""
    for node in unique_nodes(doc.root):
        if not isinstance(node, ScalarNode) or node.style:
            continue
        value = node.value
        # (Only an exponent or 309 digits and more reach past 1.8e308.)
        if ("e" in value or "E" in value or len(value) > 308) and _JSON_NUMBER.fullmatch(value) \
                and math.isinf(float(value)):
            # Not the number itself: it may be a Secret's value.
            raise PostrenderError(
                "a number out of the range kubectl reads a JSON number in (a 64-bit float): it refuses the whole"
                " document (cannot unmarshal number); write a smaller one, or quote it", doc.location(node))


def _check_json_document_end(doc: Document) -> None:
    """Refuses a `...` line after a JSON document that starts the stream:
    kubectl reads such a stream as JSON up to the next `---` line, blank
    and comment lines between, and fails on anything else there ("invalid
    character '.' looking for beginning of value"), once it has read the
    objects before; YAML, and so libyaml, reads the line as the document's
    end. (A JSON string holds no line break: the line is after the value.)"""
    found = _DOCUMENT_END_LINE.search(doc.text)
    if found is None:
        return
    end = _json_value_end(doc.text)
    if end is not None and doc.text[end:found.start()].strip(_GO_SPACE) and \
            not doc.text[end:found.start()].lstrip(_GO_SPACE).startswith("#"):
        # YAML right after the JSON value, in the same chunk: kubectl reads
        # it (as YAML past the value), a `...` after it too; postrender
        # reads a chunk as one document (review60b: the reason given was
        # kubectl's refusal, which this is not).
        raise PostrenderError(
            "a JSON document that starts the stream, and YAML after it with no `---` line between them: kubectl"
            " reads them as two documents, postrender as one; put a `---` line after the JSON document",
            doc.at(doc.first_line + doc.chunk_line(end) + 1),
        )
    raise PostrenderError(
        "a `...` line after a JSON document that starts the stream: kubectl reads such a stream as JSON, where"
        " `...` is an error; remove the line (a `---` line ends the document), or start the stream with `---`",
        doc.at(doc.first_line + doc.chunk_line(found.start()) + 1),
    )


_DOCUMENT_END_LINE = LazyPattern(r"(?m)^\.\.\.(?=[ \t\r\n]|\Z)")


def mask_surrogate_escapes(text: str) -> str | None:
    if not re.search(r"\\u[dD][89a-fA-F]", text) or _STAND_INS.search(text) or _STAND_IN_ESCAPE.search(text):
        return None

    def stand_in(match: re.Match[str]) -> str:
        code = int(match.group(1), 16) if match.group(1) else 0
        if _HIGH <= code <= 0xDFFF:
            return f"\\u{code - _HIGH + _STAND_IN:04X}"
        return match.group()

    return _ESCAPE.sub(stand_in, text)


def _unmask_surrogates(root: Node) -> None:
    """Join stand-ins back as Go's JSON decoder joins surrogates: a high one
    followed by a low one is one character, any other is U+FFFD."""
    for node in unique_nodes(root):
        if not isinstance(node, ScalarNode) or not _STAND_INS.search(node.value):
            continue
        out: list[str] = []
        value, i = node.value, 0
        while i < len(value):
            code = ord(value[i]) - _STAND_IN + _HIGH
            following = ord(value[i + 1]) - _STAND_IN + _HIGH if i + 1 < len(value) else 0
            if _HIGH <= code < _LOW and _LOW <= following <= 0xDFFF:
                out.append(chr(_joined(code, following)))
                i += 2
                continue
            out.append("\ufffd" if _HIGH <= code <= 0xDFFF else value[i])
            i += 1
        node.value = "".join(out)
