"""Text edits on a document, placed by node positions.

Everything postrender changes is expressed as an insertion or a replacement
at a known offset of the original text, so comments, quoting, key order and
indentation of everything else stay exactly as they were.
"""

from __future__ import annotations

import heapq
import json
from array import array
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from operator import itemgetter
from typing import TypeVar

from .jsontext import dumps
from .nodes import (
    EXPLICIT_STR_STYLE,
    LINE_BREAK,
    MERGE_KEY,
    PROPERTIES,
    STUBS,
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
    column,
    get,
    holder,
    is_merge_key,
    is_string,
    one_line,
    YAML_TAG_PREFIX,
)
from ..lazyre import LazyPattern
from ..printable import printable


# An edit: (start, end, new text) puts the new text in place of
# text[start:end] (an insertion when start == end). A plain tuple: every
# edited document gets a few, made, hashed and sorted without Python code.
Edit = tuple[int, int, str]

_POSITION = itemgetter(0, 1)  # an edit's (start, end)


Value = str | bool | dict[str, "Value"]


# Edits' offsets and lengths, 4 bytes each where all fit (a text under 4 Gi
# characters; --max-bytes allows more): 8 bytes each were 5.7 MiB of the
# 25,000 small apps as one KRM ResourceList's 250,000 edits, made at the
# writer's peak (twice over as the runs are merged).
_NARROW = "I"


def _offsets(numbers: list[int]) -> array[int]:
    try:
        return array(_NARROW, numbers)
    except OverflowError:
        return array("q", numbers)


class Packed:
    """Edits held until the text is written, in the order given. Packed: a
    tuple each would take more room than the text they insert."""

    __slots__ = ("_bounds", "_texts")

    def __init__(self, edits: Iterable[Edit]) -> None:
        bounds: list[int] = []  # start, end and the new text's length, edit by edit
        texts: list[str] = []
        for start, end, text in edits:
            bounds += (start, end, len(text))
            texts.append(text)
        self._bounds = _offsets(bounds)
        self._texts = "".join(texts)

    def __iter__(self) -> Iterator[Edit]:
        texts = self._texts
        at = 0
        triples = iter(self._bounds)
        for start, end, length in zip(triples, triples, triples):
            yield (start, end, texts[at : at + length])
            at += length


# An edit located, its text not made yet: (start, end, how). `how` makes
# the text from the values the edits were located for (`made_text`): a
# function, the path to the mapping of the values, the key (or the keys,
# as a tuple) of what it is given, then the rest of its arguments (each a
# string, number or flag: the same for every object of the same shape).
LocatedEdit = tuple[int, int, tuple]


def made_text(how: tuple, values: dict[str, Value]) -> str:
    """The text of a located edit, given the values it was located for."""
    for step in how[1]:
        values = values[step]  # type: ignore[assignment]
    key = how[2]
    return how[0](values[key] if type(key) is str else {k: values[k] for k in key}, *how[3:])


class Located:
    """Groups of edits located, their texts made only when asked (`group`).

    Edits located ahead for many objects (a config's marks), most of them
    never asked for, differ in their offsets and in the values their texts
    are made from: what makes the texts (`how`) is the same for every
    object of the same shape, and one is shared by all (`shared`). What
    each object keeps is that and its offsets, packed in one bytes object,
    counted from `origin`: a List's items, all in one text, are alike from
    their own starts only, where documents of a stream are alike from theirs
    (one_of_equals).
    """

    __slots__ = ("_shape", "_numbers")

    def __init__(self, groups: Sequence[list[LocatedEdit] | None], origin: int = 0) -> None:
        """`groups`: each group's edits located, or None for a group not made;
        `origin`: where in the text their offsets are counted from (`group`
        is given it again)."""
        shape: list[tuple[tuple, ...] | None] = []
        numbers: list[int] = []
        for group in groups:
            if group is None:
                shape.append(None)
                continue
            hows = []
            for start, end, how in group:
                numbers += (start - origin, end - origin)
                hows.append(how)
            shape.append(tuple(hows))
        self._shape = shared(tuple(shape))
        # Each edit's start and end; their width follows from their count
        # (the shape's) and the bytes' length.
        try:  # offsets in a document under 64 KiB: most
            self._numbers = array("H", numbers).tobytes()
        except OverflowError:
            self._numbers = array("I" if max(numbers) < 1 << 32 else "Q", numbers).tobytes()

    def has(self, index: int) -> bool:
        """Whether group `index` was made."""
        return index < len(self._shape) and self._shape[index] is not None

    def group(self, index: int, values: dict[str, Value], origin: int = 0) -> list[Edit] | None:
        """The edits of group `index`, their texts made from `values` (the
        ones they were located for), in their order, at offsets counted from
        `origin` (the one they were located from); None for a group not
        made."""
        shape = self._shape
        hows = shape[index] if index < len(shape) else None
        if hows is None:
            return None
        if not hows:
            return []
        size, before = _layout(shape, index)
        width = len(self._numbers) // size
        numbers = array("H" if width == 2 else "I" if width == 4 else "Q", self._numbers)
        bounds = iter(numbers[before : before + 2 * len(hows)])
        return [(origin + start, origin + end, made_text(how, values)) for start, end, how in zip(bounds, bounds, hows)]


_L = TypeVar("_L", bound=Located)

# Equal Located objects, one of each, as far as the table holds them.
_EQUALS: dict[tuple[type, tuple, bytes], Located] = {}
_EQUALS_HELD = 4096


def one_of_equals(located: _L) -> _L:
    """The one object for Located objects of one class, shape and offsets.

    Configs of one shape (the same keys, names of one length) locate their
    edits at the same offsets: 100,000 tiny ConfigMaps held 100,000 equal
    ones (9 MiB). Nothing reads a Located but its groups, so any equal one
    serves. Bounded: a stream of configs all unlike keeps its own each, and
    the table stays small."""
    key = (type(located), located._shape, located._numbers)
    held = _EQUALS.get(key)
    if held is not None:
        return held  # type: ignore[return-value]
    if len(_EQUALS) < _EQUALS_HELD:
        _EQUALS[key] = located
    return located


@lru_cache(maxsize=1024)
def shared(shape: tuple) -> tuple:
    """The one object for equal shapes, as far as the cache holds them."""
    return shape


@lru_cache(maxsize=1024)
def _layout(shape: tuple, index: int) -> tuple[int, int]:
    """How many offsets a shape's edits have in all, and where group
    `index`'s start among them."""
    return (2 * sum(len(group) for group in shape if group),
            2 * sum(len(group) for group in shape[:index] if group))


class Splice:
    """Edits to one text, in order and checked not to overlap, so `apply`
    cannot fail. Held in chunks (Packed) of about _JOINED edits each, in
    order: a large document's edits merged from runs (Runs) take the place
    of the runs' chunks as each is used up, where one array and one string
    of them all were made beside every run (25,000 apps as one ResourceList:
    the writer's peak 166 -> 123 MiB traced, the run's RSS 222 -> 169 MiB)."""

    # The first chunk is held in the Splice itself and only a large
    # document's further chunks in a list: every edited document holds its
    # Splice from rewrite to write, and a list and a Packed more each were
    # 10 MiB over 25,000 apps' 75,000 objects (134 -> 144 MB peak).
    __slots__ = ("_bounds", "_texts", "_rest")

    @property
    def _chunks(self) -> list[Packed]:
        first = _chunk(self._bounds, self._texts)
        return [first, *self._rest] if self._rest else [first]

    @_chunks.setter
    def _chunks(self, chunks: list[Packed]) -> None:
        first = chunks[0]
        self._bounds, self._texts = first._bounds, first._texts
        self._rest = chunks[1:] if len(chunks) > 1 else None

    def _pairs(self) -> tuple[tuple[array[int], str], ...]:
        """Each chunk's bounds and texts: where most documents have one
        chunk, no Packed is made to ask (+0.45% instructions at N=1000)."""
        if self._rest is None:
            return ((self._bounds, self._texts),)
        return ((self._bounds, self._texts), *((chunk._bounds, chunk._texts) for chunk in self._rest))

    def __init__(self, edits: list[Edit]) -> None:
        self._pack(sorted(edits, key=_POSITION))

    def __iter__(self) -> Iterator[Edit]:
        for bounds, texts in self._pairs():
            at = 0
            triples = iter(bounds)
            for start, end, length in zip(triples, triples, triples):
                yield (start, end, texts[at : at + length])
                at += length

    def _pack(self, ordered: Iterable[Edit]) -> None:
        """`ordered` (in order of place, stably) checked and packed in one
        pass, the offsets straight into their array: a ResourceList of
        75,000 objects (450,000 edits) held a dict of its edits, for the
        duplicates, and then a list of 1.35 million offsets, 37 MiB at once."""
        chunks: list[Packed] = []
        bounds = array(_NARROW)  # start, end and the new text's length, edit by edit
        texts: list[str] = []
        position = 0
        last_start = last_end = place = -1  # place: where the texts at (last_start, last_end) begin
        seen: set[str] | None = None  # those texts, once there are many (insertions at one offset)
        for start, end, text in ordered:
            if start == last_start and end == last_end:
                # An edit given twice (an alias makes two references one
                # node) is made once, where it was first given. Most places
                # have one edit; many at one are looked up in a set, not
                # compared one by one.
                if seen is not None:
                    if text in seen:
                        continue
                    seen.add(text)
                elif text in texts[place:]:
                    continue
                elif len(texts) - place >= _LOOKED_UP_FROM:
                    seen = {*texts[place:], text}
            else:
                seen = None
                if len(texts) >= _JOINED:
                    # A chunk ends at a new place, so the edits at one are
                    # in one chunk (the duplicates are looked for there).
                    chunks.append(_chunk(bounds, "".join(texts)))
                    bounds, texts = array(_NARROW), []
                last_start, last_end, place = start, end, len(texts)
            if start < position:
                raise AssertionError(f"overlapping edits at offset {start}")
            position = end
            try:
                bounds.extend((start, end, len(text)))
            except OverflowError:  # past 4 Gi: this chunk's numbers 8 bytes each
                del bounds[3 * len(texts):]  # (those of this edit that went in)
                bounds = array("q", bounds)
                bounds.extend((start, end, len(text)))
            texts.append(text)
        if not chunks:  # one chunk, the most: held as the Splice's own
            # A copy, sized to its edits: the array grown edit by edit holds
            # room for more, which every edited document kept until written
            # (25,000 apps' 100,000 splices: 6 MiB at the writer's peak).
            self._bounds, self._texts, self._rest = bounds[:], "".join(texts), None
            self._texts.encode("utf-8")  # as _check_encodable
            return
        chunks.append(_chunk(bounds, "".join(texts)))
        self._chunks = chunks
        _check_encodable(chunks)

    @classmethod
    def merged(cls, runs: list[list[Packed]]) -> Splice:
        """The one Splice of edits taken as runs (Runs), each in order; the
        runs' chunks are let go of as they are used up (the lists emptied)."""
        splice = cls.__new__(cls)
        # Stable: of equal places, heapq.merge takes the earlier run's first.
        splice._pack(heapq.merge(*map(_used_up, runs), key=_POSITION))
        return splice

    def inserted(self, at: int, text: str) -> Splice | None:
        """These edits and `text` inserted at offset `at`, or None where an
        edit here reaches `at` (ends at or after it): what Splice(edits +
        [(at, at, text)]) would splice, made without unpacking them. (The
        edits are in order and apart, so the last ends furthest.)"""
        last = self._chunks[-1]._bounds  # (empty only in a Splice of no edits: its only chunk)
        if last and last[-2] >= at:
            return None
        text.encode("utf-8")  # as Splice checks each text
        splice = type(self).__new__(type(self))
        splice._chunks = [*(chunk for chunk in self._chunks if chunk._bounds),
                          _chunk(array("q", (at, at, len(text))), text)]
        return splice

    def one_chunk(self) -> tuple[array[int], str] | None:
        """(each edit's start, end and new text's length, the new texts
        joined) of a Splice held in one chunk (most documents'), or None:
        for a holder that keeps the texts elsewhere (pipeline/write.py), and
        gives them back to `of_chunk`."""
        return None if self._rest else (self._bounds, self._texts)

    @classmethod
    def of_chunk(cls, bounds: array[int], texts: str) -> Splice:
        """The Splice `one_chunk` gave these of."""
        splice = cls.__new__(cls)
        splice._bounds, splice._texts, splice._rest = bounds, texts, None
        return splice

    @classmethod
    def deletions(cls, starts: array[int], ends: array[int]) -> Splice:
        """The edits deleting [starts[i], ends[i]) each, given in order, none
        empty or overlapping another: what Splice([(start, end, ""), ...])
        is, without a tuple and three ints an edit on the way (one ConfigMap
        of 100,000 keys each written twice: 27 MiB at the writer's peak)."""
        splice = cls.__new__(cls)
        bounds = array("q", bytes(8 * 3 * len(starts)))
        bounds[0::3], bounds[1::3] = starts, ends
        splice._chunks = [_chunk(bounds, "")]
        return splice

    def span(self) -> tuple[int, int]:
        """(where the first edit starts, where the last ends); (0, 0) for none."""
        first = self._bounds
        last = self._rest[-1]._bounds if self._rest else first
        return (first[0], last[-2]) if first else (0, 0)

    def applied_in_parts(self, text: str, size: int) -> Iterator[str]:
        """`apply(text)` given out in parts of about `size` characters or
        more (the last may be less), each made as it is asked for: a large
        document's edited text is never held whole, nor its pieces."""
        parts: list[str] = []
        held = position = 0
        for bounds, texts in self._pairs():
            at = 0
            triples = iter(bounds)
            for start, end, length in zip(triples, triples, triples):
                parts += (text[position:start], texts[at : at + length])
                held += start - position + length
                position, at = end, at + length
                if held >= size:
                    yield _joined(parts)
                    held = 0
        for start in range(position, len(text), size):  # the rest, unedited
            parts.append(text[start : start + size])
            yield _joined(parts)
        if parts:
            yield _joined(parts)

    def applied_from(self, text: str, at: int) -> str | None:
        """`apply(text)` from where offset `at` of `text` is on (the edits
        at or after it applied), or None where an edit starts before `at`
        and ends after it."""
        tail: list[Edit] = []  # the edits from `at` on, last first: at the end, and few
        for bounds, texts in reversed(self._pairs()):
            i, texts_end = len(bounds), len(texts)
            while i:
                start, end, length = bounds[i - 3 : i]
                if start < at:
                    return None if end > at else _applied(tail, text[at:])
                tail.append((start - at, end - at, texts[texts_end - length : texts_end]))
                i, texts_end = i - 3, texts_end - length
        return _applied(tail, text[at:])

    def apply(self, text: str) -> str:
        parts: list[str] = []
        position = 0
        for bounds, texts in self._pairs():
            at = 0
            triples = iter(bounds)
            for start, end, length in zip(triples, triples, triples):
                parts += (text[position:start], texts[at : at + length])
                position, at = end, at + length
        if not parts:
            return text
        parts.append(text[position:])
        return "".join(parts)


_JOINED = 4096  # edits packed in one chunk (a Splice's, a run's)
_LOOKED_UP_FROM = 16  # edits at one place from which a Splice finds one given twice in a set


def _joined(parts: list[str]) -> str:
    """`parts` joined, and emptied: a part given out is written while the
    next is made, and its pieces (more than the part: a List's items are
    short texts between short edits) are let go before it is written, not
    held until then (4,000 small apps as one List: 2 MiB at the peak)."""
    joined = "".join(parts)
    parts.clear()
    return joined


def _chunk(bounds: array[int], texts: str) -> Packed:
    chunk = Packed.__new__(Packed)
    chunk._bounds, chunk._texts = bounds, texts
    return chunk


def _applied(last_first: list[Edit], text: str) -> str:
    """`text` with these edits, given last first, applied."""
    splice = Splice.__new__(Splice)
    splice._chunks = [Packed(reversed(last_first))]
    return splice.apply(text)


def _chunked(ordered: list[Edit]) -> list[Packed]:
    return [Packed(ordered[at : at + _JOINED]) for at in range(0, len(ordered), _JOINED)]


def _used_up(run: list[Packed]) -> Iterator[Edit]:
    """A run's edits in order, each chunk let go of (popped) once given."""
    run.reverse()
    while run:
        yield from run.pop()


def _check_encodable(chunks: list[Packed]) -> None:
    """The stream goes out as UTF-8, a part at a time: text that cannot be
    encoded (a lone surrogate from a YAML escape) must fail here, before
    any, with the error the texts joined give (its position theirs)."""
    try:
        for chunk in chunks:
            chunk._texts.encode("utf-8")
    except UnicodeEncodeError:
        "".join(chunk._texts for chunk in chunks).encode("utf-8")
        raise


class Runs:
    """A large document's edits as they are made, taken a run at a time
    (`take`, from a list of RUN or more), each sorted and packed as taken:
    their tuples and texts, all made before one Splice was, were held at
    once (a ResourceList of 75,000 objects, 450,000 edits: 44 MiB)."""

    RUN = 16384

    __slots__ = ("_runs",)

    def __init__(self) -> None:
        self._runs: list[list[Packed]] = []

    def take(self, edits: list[Edit]) -> None:
        """`edits` as the next run; the list is emptied."""
        self._runs.append(_chunked(sorted(edits, key=_POSITION)))
        edits.clear()

    def splice(self, last: list[Edit]) -> Splice:
        """The Splice of the runs taken and `last`, as Splice(all the edits,
        in the order made) would be."""
        if not self._runs:
            return Splice(last)  # most documents: a few edits
        self.take(last)
        runs, self._runs = self._runs, []
        return Splice.merged(runs)


def content_start(text: str, node: Node) -> int:
    """Offset of a node's content, past any anchor or tag written before it."""
    start = node.start_mark
    if text[start : start + 1] not in ("&", "!"):  # most nodes: no anchor, no tag
        return start
    match = PROPERTIES.match(text, start)
    # An empty node (`key: &a` at a line end): the properties are all there is.
    return min(match.end(), node.end_mark) if match else start


def content_end(text: str, node: Node) -> int:
    """Offset just past a node's last character of content.

    libyaml ends a block scalar after its trailing line breaks (and a block
    collection where the next token starts), so an edit that ended there
    would swallow the line break before the next key.
    """
    while isinstance(node, (MappingNode, SequenceNode)) and not node.flow_style and node.value:
        last = node.value[-1]
        if isinstance(last, tuple):
            key, value = last
            # _is_empty, written out: asked at each level of every document pruned whole (syntax/prune.stub).
            if (isinstance(value, ScalarNode) and value.start_mark == value.end_mark
                    and _value_on_next_line(text, key, value)):
                node = key  # `? key` with no value: nothing is written after the key
                continue
            last = value
        node = last
    end = node.end_mark
    if isinstance(node, ScalarNode) and node.style in ("|", ">"):
        start = node.start_mark
        return start + len(text[start:end].rstrip(" \t\r\n"))
    return end


_BLOCK_HEADER_COMMENT = LazyPattern(r"[|>][-+0-9]*[ \t]+(#[^\r\n]*)")


def _header_comment(text: str, node: ScalarNode) -> str:
    """A comment after a block scalar's `|`/`>` header, kept when the
    scalar is rewritten as a one-line quoted string."""
    if node.style not in ("|", ">"):
        return ""
    match = _BLOCK_HEADER_COMMENT.match(text, content_start(text, node))
    return " " + match.group(1) if match else ""


def _is_empty(node: Node) -> bool:
    # Written out in content_end: change both.
    return isinstance(node, ScalarNode) and node.start_mark == node.end_mark


def _value_on_next_line(text: str, key: Node, value: Node) -> bool:
    between = text[content_end(text, key) : value.start_mark]
    return ":" not in between and "\n" in between


# A plain scalar postrender writes: no indicator, space or quote anywhere.
_PLAIN_CHARACTERS = LazyPattern(r"[A-Za-z0-9][A-Za-z0-9._/-]*")
# Plain words YAML 1.1 readers (go-yaml v2, PyYAML) take for booleans or null.
_RESERVED_WORDS = frozenset(
    w for word in ("y", "yes", "n", "no", "true", "false", "on", "off", "null")
    for w in (word, word.capitalize(), word.upper())
)
# What YAML cannot hold raw inside quotes: DEL and the C1 controls (NEL is a
# line break to YAML 1.1 and would fold), U+2028/U+2029 (line breaks too), the
# byte-order mark, the non-characters U+FFFE/U+FFFF, lone surrogates.
_UNSAFE_IN_QUOTES = LazyPattern("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


def render_scalar(value: str | bool, style: str | None = None) -> str:
    """`value` as YAML that every YAML 1.1 and 1.2 reader takes for exactly
    this string (or boolean): plain only when it cannot read as anything but
    a string, single-quoted when asked and possible, else double-quoted."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if not style:
        return _plain_or_quoted(value)
    if style == "'" and "\n" not in value and not _UNSAFE_IN_QUOTES.search(value) and printable(value):
        return "'" + value.replace("'", "''") + "'"
    return quote(value)


# The same few keys and values (postrender's own annotations and labels,
# "true") are written into every object.
@lru_cache(maxsize=1024)
def _plain_or_quoted(value: str) -> str:
    return value if is_plain_safe(value) else quote(value)


def is_plain_safe(value: str) -> bool:
    """Whether `value`, written plain, reads back as this string everywhere.

    Deliberately stricter than the resolver: a value that could start a
    number, boolean, null or date is quoted even when one reader would take
    it as a string, so no reader's corner case can turn it into something else.
    Every value it passes is one go-yaml's resolver (nodes.plain_is_string)
    reads as a string: tests/unit/syntax/test_edit.py holds it to that.
    """
    if not _PLAIN_CHARACTERS.fullmatch(value) or value in _RESERVED_WORDS:
        return False
    if not value[0].isdigit():
        # A letter first: only the reserved words read as anything but text.
        return True
    # Readers drop `_` inside numbers. What starts with a digit reads as
    # a number or date unless a letter rules that out: not `e` (`1e3`),
    # nor any letter after a leading `0` (`0x1F`, `0o17`, `0b101`, and
    # the hex digits that follow); dates need digits, `-` and `:` only.
    digits = value.replace("_", "")
    return not (all(c in "eE" for c in digits if c.isalpha()) or (digits[0] == "0" and digits[1:2].isalpha()))


def quote(value: str) -> str:
    """A double-quoted YAML scalar (JSON's syntax, which YAML shares) that
    reads back as exactly `value`."""
    return quote_unsafe(json.dumps(value, ensure_ascii=False))


def quote_unsafe(json_text: str) -> str:
    """JSON text with what YAML cannot hold raw inside quotes escaped."""
    return _UNSAFE_IN_QUOTES.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text)


def replace_scalar(text: str, node: ScalarNode, value: str) -> Edit:
    """Replace a string scalar in place, keeping its anchor, tag and (plain,
    single or double) quoting style; a block scalar becomes double-quoted."""
    start, end, prefix, style, suffix = _scalar_place(text, node)
    return (start, end, _scalar_text(value, prefix, style, suffix))


def _scalar_place(text: str, node: ScalarNode) -> tuple[int, int, str, str, str]:
    """Where replace_scalar puts a scalar's new value: its start and end,
    the text before and after the value, and the style it is written in."""
    start = content_start(text, node)
    if node.tag == _TIMESTAMP_TAG:
        # A name written `!!timestamp 2001-12-14` is its text to kubectl;
        # the new name is no timestamp, which go-yaml refuses under that tag
        # (oracle61): the tag goes, the anchor stays.
        anchor = _ANCHOR.search(text, node.start_mark, start)
        return (node.start_mark, node.end_mark, anchor.group() + " " if anchor else "", "", "")
    if node.style in ("|", ">"):
        return (start, content_end(text, node), "", '"', _header_comment(text, node))
    # After an explicit `!!str` tag a plain scalar is a string whatever it reads as.
    style = "" if node.style == EXPLICIT_STR_STYLE else node.style if node.style in ("", "'", '"') else '"'
    # `key: !!str` with nothing after the tag: a space keeps the two apart.
    space = " " if start == node.end_mark and text[start - 1 : start] not in ("", " ", "\t") else ""
    return (start, node.end_mark, space, style, "")


_TIMESTAMP_TAG = YAML_TAG_PREFIX + "timestamp"
_ANCHOR = LazyPattern(r"&[^\s,\[\]{}]+")


def _scalar_text(value: str | bool, prefix: str, style: str, suffix: str) -> str:
    return prefix + render_scalar(value, style) + suffix


def set_entries(text: str, mapping: MappingNode, values: dict[str, Value], newline: str,
                edits: list[Edit] | None = None) -> list[Edit]:
    """Make `mapping` hold each key with its value: replace or insert. The
    edits are added to `edits` (nested mappings' too), and returned."""
    if edits is None:
        edits = []
    for start, end, how in locate_entries(text, mapping, values, newline):
        edits.append((start, end, made_text(how, values)))
    return edits


def locate_entries(text: str, mapping: MappingNode, values: dict[str, Value], newline: str,
                   located: list[LocatedEdit] | None = None, path: tuple[str, ...] = ()) -> list[LocatedEdit]:
    """set_entries' edits located, their texts not made (`made_text` makes
    each from `values`): all that needs the nodes. `path`: where `mapping`'s
    values are in the values the texts are made from."""
    if isinstance(mapping, STUBS):
        # Its entries are in the text, not in the stub: keys "missing" here
        # would be written a second time.
        raise AssertionError("an edit reached a mapping the read stage did not keep (pipeline/needs.py)")
    if located is None:
        located = []
    missing: list[str] = []
    # The keys written in the mapping itself: one pass over its entries for
    # all the keys set; a key not written there is inserted. Where a merge
    # key (`<<`) may give a key a value, each key is looked up as read
    # (`get`, go-yaml's way: the later of a written key and a merged one
    # wins), and the node Kubernetes reads is the one edited: a key
    # inserted beside `<<: {name: cfg}` would lose to it, or win over the
    # merged labels and drop them. A merged node reached from elsewhere too
    # (`<<: *base`) is refused as any shared node is (pipeline/rewrite.py).
    written = {k.value for k, _ in mapping.value if isinstance(k, ScalarNode)}
    merged = MERGE_KEY in written and any(is_merge_key(k) for k, _ in mapping.value)
    for key, value in values.items():
        current = get(mapping, key) if merged or key in written else None
        if current is None:
            missing.append(key)
        elif isinstance(value, dict):
            if isinstance(current, MappingNode):
                locate_entries(text, current, value, newline, located, path + (key,))
            else:
                # A null (or any non-mapping) value becomes a flow mapping.
                start, end, prefix = _replace_value(text, _holder(mapping, key, merged), key, current, newline)
                located.append((start, end, (_flow_text, path, key, prefix)))
        elif isinstance(current, ScalarNode) and _same_scalar(current, value):
            continue  # it holds the value already
        elif (isinstance(current, ScalarNode) and isinstance(value, str) and is_string(current)
              and not _is_empty(current)):
            start, end, prefix, style, suffix = _scalar_place(text, current)
            located.append((start, end, (_scalar_text, path, key, prefix, style, suffix)))
        else:
            start, end, prefix = _replace_value(text, _holder(mapping, key, merged), key, current, newline)
            located.append((start, end, (_scalar_text, path, key, prefix, '"', "")))
    if missing:
        located.append(_insert(text, mapping, tuple(missing), path, newline))
    return located


def _holder(mapping: MappingNode, key: str, merged: bool) -> MappingNode:
    """Where the entry of `key` that Kubernetes reads is written."""
    return (holder(mapping, key) or mapping) if merged else mapping


def _same_scalar(node: ScalarNode, value: str | bool) -> bool:
    if isinstance(value, bool):
        return not node.style and node.value == ("true" if value else "false")
    return node.value == value and is_string(node)


def _replace_value(text: str, mapping: MappingNode, key: str, node: Node, newline: str) -> tuple[int, int, str]:
    """Where the value of `key` in `mapping`, with its anchor and tag, is
    replaced by new YAML text: the start, the end and what goes before the
    text; an empty value (`key:`, `key: # note`, `{key}`, `? key`) gets the
    text, and the `:` it lacks, where a value goes."""
    key_node = next(k for k, v in mapping.value if isinstance(k, ScalarNode) and k.value == key and v is node)
    start = node.start_mark
    if not _is_empty(node):
        return (start, content_end(text, node), "")
    if ":" in text[content_end(text, key_node) : start]:
        return (start, start, " " if text[start - 1] == ":" else "")
    at = content_end(text, key_node)
    if _value_on_next_line(text, key_node, node):
        # `? key` on its own line: the value goes on a line of its own,
        # in the column of the `?`.
        column = _first_entry(text, key_node)[1]
        return (at, at, newline + " " * column + ": ")
    return (at, at, ": ")


def _flow_text(value: dict[str, Value], prefix: str) -> str:
    return prefix + _flow(value)


def _insert(text: str, mapping: MappingNode, keys: tuple[str, ...], path: tuple[str, ...],
            newline: str) -> LocatedEdit:
    if mapping.flow_style or not mapping.value:
        return _insert_flow(text, mapping, keys, path)
    start, indent = _first_entry(text, mapping.value[0][0])
    anchor = _line_end_anchor(text, mapping)
    if anchor is not None:
        return (anchor, anchor, (_lines_text, path, keys, indent, newline, True))
    # No safe line end: insert ahead of the first entry, which then moves down.
    return (start, start, (_lines_text, path, keys, indent, newline, False))


def _lines_text(values: dict[str, Value], indent: int, newline: str, after_line: bool) -> str:
    """Entries inserted as block lines: after a line's end, or ahead of the
    first entry (which then moves down)."""
    lines = _block_lines(values, indent)
    if after_line:
        return newline + newline.join(lines)
    return newline.join(lines)[indent:] + newline + " " * indent


def _first_entry(text: str, key: Node) -> tuple[int, int]:
    """Offset and column of a block mapping's first entry: its key's (with
    any anchor or tag), or the `?` in front of an explicit key."""
    start = key.start_mark
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    if before == " " * len(before) and (line_start or not text.startswith("\ufeff")):
        # Most keys: only their indentation before them on their line,
        # which is then their column (with the change below, a config's
        # edits made ahead -6%: instructions -0.8% on 20,000 ConfigMaps,
        # -0.7% at N=1000).
        return start, start - line_start
    # The column counts from the last line break of any kind (and past a
    # byte-order mark): mostly the last "\n", which is known already
    # (`before` holds none, so any break found in it is of another kind),
    # or on the first line, the text's start, where no mark opens it.
    odd = LINE_BREAK.search(before) or line_start == 0 and text.startswith("\ufeff")
    key_column = column(text, start) if odd else start - line_start
    indicator = before.rstrip(" \t")
    if indicator.endswith("?"):
        back = len(before) - (len(indicator) - 1)
        return start - back, key_column - back
    return start, key_column


def _line_end_anchor(text: str, mapping: MappingNode) -> int | None:
    """End of the line of the last entry whose value is a one-line scalar.

    Inserting there appends after a complete entry, keeping any comment on
    that line where it was.
    """
    for key, value in reversed(mapping.value):
        if not isinstance(value, ScalarNode) or value.style not in _ONE_LINE_STYLES or not isinstance(key, ScalarNode):
            continue
        end = value.end_mark
        if value.start_mark < key.end_mark:  # an alias to an earlier node
            continue
        if end == value.start_mark:  # empty value: `key:`
            continue
        if not one_line(text, key.start_mark, end):
            continue
        end = text.find("\n", end)
        if end == -1:
            return len(text)
        return end - 1 if end > 0 and text[end - 1] == "\r" else end
    return None


# The styles of a scalar _line_end_anchor may append after, asked first:
# most entries it passes hold a mapping or a list.
_ONE_LINE_STYLES = frozenset(("", "'", '"', EXPLICIT_STR_STYLE))


def _block_lines(values: dict[str, Value], indent: int, step: int = 2) -> list[str]:
    lines: list[str] = []
    margin = " " * indent
    for key, value in values.items():
        if isinstance(value, dict):
            lines.append(f"{margin}{_plain_or_quoted(key)}:")
            lines.extend(_block_lines(value, indent + step, step))
        else:
            lines.append(f"{margin}{_plain_or_quoted(key)}: {render_scalar(value)}")
    return lines


def _insert_flow(text: str, mapping: MappingNode, keys: tuple[str, ...], path: tuple[str, ...]) -> LocatedEdit:
    start = content_start(text, mapping)
    if text[start] != "{":
        raise AssertionError("flow mapping without a brace")
    if not mapping.value:
        return (start + 1, start + 1, (_flow_body_text, path, keys, True, "", ""))
    # JSON stays JSON: new entries follow the style of the first key.
    json_style = mapping.value[0][0].style == '"'
    key, value = mapping.value[-1]
    if value.end_mark > key.start_mark:  # not an alias to an earlier node
        end = value.end_mark
        # After a bare tag or anchor (`!!null`) a comma would become part of it.
        space = " " if content_start(text, value) == end > value.start_mark else ""
        return (end, end, (_flow_body_text, path, keys, json_style, space + ", ", ""))
    return (start + 1, start + 1, (_flow_body_text, path, keys, json_style, "", ", "))


def _flow_body_text(values: dict[str, Value], json_style: bool, prefix: str, suffix: str) -> str:
    """Entries inserted into a flow mapping, between `prefix` and `suffix`."""
    return prefix + _flow(values, json_style)[1:-1] + suffix


def _flow(values: dict[str, Value], json_style: bool = True) -> str:
    items = []
    for key, value in values.items():
        if isinstance(value, dict):
            rendered = _flow(value, json_style)
        elif isinstance(value, bool):
            rendered = render_scalar(value)
        else:
            rendered = render_scalar(value, '"' if json_style else "")
        label = json.dumps(key, ensure_ascii=False) if json_style else render_scalar(key, "")
        items.append(f"{label}: {rendered}")
    return "{" + ", ".join(items) + "}"


def insert_item_before(text: str, sequence: SequenceNode, item: Node, item_text: str, newline: str) -> Edit:
    """A new sequence item, written as one flow line, placed before `item`."""
    if isinstance(sequence, STUBS):
        raise AssertionError("an edit reached a sequence the read stage did not keep (pipeline/needs.py)")
    start = content_start(text, item)
    if sequence.flow_style:
        return (start, start, item_text + ", ")
    dash = _dash_before(text, start)
    column = dash - (text.rfind("\n", 0, dash) + 1)
    return (dash, dash, "- " + item_text + newline + " " * column)


def _dash_before(text: str, start: int) -> int:
    """The `-` of the block sequence item whose content starts at `start`.
    Between the two there are only blanks, comments and the item's
    properties (`&anchor`, `!tag`), and a comment or a property may hold a
    `-` of its own (`- # Source: my-chart/...`, `- &my-app`): so the dash is
    the last `-` standing alone on the nearest line up that has one, a
    comment's text never looked in (of `- - x`, the inner item's)."""
    end = start
    while True:
        line_start = text.rfind("\n", 0, end) + 1
        dash = None
        for token in _TOKEN.finditer(text, line_start, end):
            word = token.group()
            if word[0] == "#":
                break  # a comment, to the end of the line
            if word == "-":
                dash = token.start()
            elif word[0] not in "&!":
                raise AssertionError(f"no dash ahead of the sequence item at offset {start}")
        if dash is not None:
            return dash
        if line_start == 0:
            raise AssertionError(f"no dash ahead of the sequence item at offset {start}")
        end = line_start - 1


_TOKEN = LazyPattern(r"[^ \t\r\n]+")


def json_line(value: object) -> str:
    """One line of JSON, which is valid YAML in any context."""
    return quote_unsafe(dumps(value, separators=(", ", ": ")))
