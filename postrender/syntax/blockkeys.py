"""The keys of a document written in plain block style, read from its text:
whether every mapping's keys are plain and distinct, and where the values
of some keys lie, in whole lines. So read composes a large
CustomResourceDefinition with its schemas masked (pipeline/read/,
_Masked, the values fieldspecs/bulk.yaml lists).

A CRD's `openAPIV3Schema` values are most of its text (kube-prometheus-
stack renders 4.4 MB of them), and no stage reads them: the pruner drops
them (pipeline/needs.py). Composing them into nodes only to drop them was
nine tenths of a render of such a chart. What read needs of them is what
composing them finds: that libyaml parses them (read counts their parse
events in C, which refuses what libyaml refuses), and that each of their
mappings has plain, distinct keys (the composer's `plain_keys`), where
the text holds no tag, anchor, merge key, escape or infinite number to
check (read.compose._in_parts). This finds the second, a line at a time, passing
over every scalar's lines at C speed.

It reads the subset of YAML that controller-gen, kubebuilder and Helm
write: block mappings and sequences; keys plain, or quoted without
escapes; values plain, quoted, block scalars, or a flow sequence of plain
scalars on one line. Anything else, and it says None: the document is
composed whole, as any other. So a text it reads holds no tag, anchor,
alias or merge key, which stand where a node starts, and no key that is a
collection. Its answer counts only for text libyaml parses.

Asked to, it also finds the entries of a mapping that a later entry with
the same key overrides (`earlier`), outside any sequence, where it can
say what a message may show of their keys, so that read can leave them
out of a large document without composing it whole (pipeline/read/,
_raise_earlier_in_text): keys read here are plain words or quoted ones,
which read as their text, so two keys are one exactly where their texts
are.

A scalar value takes every line after it that is indented more than its
key (or its item's `-`). In text libyaml parses, such lines can only be
more of it (a plain or quoted scalar's next lines, a block scalar's): a
key or an item there is refused. So no line inside a scalar is ever read
as a key, and no key's line is passed over.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Sequence
from typing import NamedTuple

from .nodes import plain_is_text

__all__ = ["Earlier", "EarlierFound", "Scan", "masked", "scan"]


class Scan(NamedTuple):
    """What scan found: the values of the keys asked for, as [start, end)
    spans of whole lines, and the root's `kind` and `apiVersion` where they
    are written as plain words (None otherwise)."""

    regions: list[tuple[int, int]]
    kind: str | None
    api_version: str | None


class Earlier(NamedTuple):
    """An entry of a block mapping that a later entry with the same key
    overrides: [start, end), its whole lines up to the next key's line,
    leaves it out as syntax/earlier.py's cut_of does; where its key and
    the later one start; the key; and `hidden_in`: None where a message
    may show the key, else the field whose value holds it (not shown:
    values may be secret)."""

    start: int
    end: int
    key_at: int
    later_at: int
    key: str
    hidden_in: str | None


class EarlierFound:
    """The entries scan found overridden (Earlier), in the order their later
    keys are written, as columns: their starts and ends, and where the later
    keys start; the `hidden_in` of the few that have one. A key, and where
    it starts, are read again from the text where they are asked for: an
    Earlier each, its key's text and its offsets held 27 MiB of 44 at
    read's peak for one ConfigMap of 100,000 keys each written twice."""

    __slots__ = ("text", "starts", "ends", "later_at", "hidden_in")

    def __init__(self, text: str) -> None:
        self.text = text  # the text scanned, whose offsets these are
        self.starts, self.ends, self.later_at = array("q"), array("q"), array("q")
        self.hidden_in: dict[int, str] = {}  # (few: the keys of a mapping inside a value of `data`)

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, i: int) -> Earlier:
        text, start = self.text, self.starts[i]
        key_at = _INDENT.match(text, start).end()  # (an entry outside any sequence: no `-` before its key)
        found = _KEY.match(text, key_at)
        plain, double, single = found.groups()  # type: ignore[union-attr]
        key = plain if plain is not None else double if double is not None else single
        return Earlier(start, self.ends[i], key_at, self.later_at[i], key, self.hidden_in.get(i))

    def add(self, starts: Sequence[int], first: int, column: int, shown: _Shown) -> None:
        """Entry `first` of a block mapping outside any sequence whose keys'
        lines start at `starts` (its keys at `column`), overridden by its last
        key: its lines, to the line of the key after it, as cut_of cuts it."""
        if shown is not None and shown[0] == "hidden":
            self.hidden_in[len(self.starts)] = shown[1]
        self.starts.append(starts[first])
        self.ends.append(starts[first + 1])
        self.later_at.append(starts[-1] + column)


# What a message may show of a mapping's keys, as read's _check_nodes
# tells it: None, anything; ("keys", field), its keys only (the mapping
# under `data`); ("hidden", field), nothing (inside a value there); _UNTOLD,
# not told here (under a sequence): a key written twice there is not read.
_Shown = tuple[str, str] | None
_UNTOLD = ("untold", "")

_INDENT = re.compile(r" *")
# `- `, `- - `, or a `-` that ends its line (its item's content is below).
_DASHES = re.compile(r"(?:-(?: +|$))+", re.M)
# A key, where it starts: plain (starting with a character that starts no
# other token), or quoted without an escape (nor a `''` in a single-quoted
# one). _KEY_LINE reads keys with it, and _Keys and EarlierFound read one
# again with it where it was found: one pattern, so that the two agree.
_KEY = re.compile(r"([A-Za-z0-9_$][A-Za-z0-9_.$/-]*)|\"([^\"\\\n]*)\"|'([^'\n]*)'")
# A line holding a key: its indentation, its items' dashes, and the key and its `:`.
_KEY_LINE = re.compile(
    r"( *)((?:-(?: +|$))*)(?:" + _KEY.pattern + "):"
    # Then a plain scalar to the line's end, which most keys have (group
    # 6: the spaces before it), as _PLAIN reads one; or the spaces before
    # any other value, or none.
    r"(?:( +)(?![ \n&*!|>%@`?:,\[\]{}#'\"]|-(?: |$))[^:\t\n]*(?::(?=[^ \t\n])[^:\t\n]*)*$| +|$)",
    re.M,
)
# A plain scalar to its line's end: no indicator first, no `: ` (libyaml
# refuses it, or it ends a key not read here: `a b: c`, `a : b`), no tab.
_PLAIN = re.compile(r"(?![ \n&*!|>%@`?:,\[\]{}#'\"]|-(?: |$))[^:\t\n]*(?::(?=[^ \t\n])[^:\t\n]*)*$", re.M)
# A block scalar's header: `|` or `>`, an indentation and a chomping
# indicator in either order, a comment.
_BLOCK_HEADER = re.compile(r"[|>](?:[1-9][+-]?|[+-][1-9]?)?(?: +#[^\n]*)? *$", re.M)
# A flow collection on one line holding no mapping (no `:`, nor a `?`
# that makes one: `[? ~]` is a list holding {null: null}), quote, comment,
# tag, anchor or alias.
_FLOW = re.compile(r"(?:\[[^\[\]{}:?#'\"\n\t&*!]*\]|\{ *\})(?: +#[^\n]*)? *$", re.M)
_DOUBLE = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_SINGLE = re.compile(r"'(?:[^']|'')*'")
# What may follow a quoted scalar on its last line.
_REST = re.compile(r"(?: +#[^\n]*)? *$", re.M)
# A root field's value written as a plain word.
_WORD = re.compile(r"([A-Za-z0-9][A-Za-z0-9_.$/-]*)(?: +#[^\n]*)? *$", re.M)
# A line that ends the lines of a scalar under a key at each column: the
# first that is not blank and is indented no more than the key.
_ENDS: dict[int, re.Pattern[str]] = {}
_ROOT_FIELDS = frozenset(("kind", "apiVersion"))
# The plain keys held as found to read as their text, each asked once: a
# CRD's keys are a few hundred names over and over, and a mapping of
# 100,000 keys held them all again (9.5 MiB, a ConfigMap's keys each
# written twice); past these, a key is asked each time it comes.
_TEXTS_HELD = 4096
# The indentations looked for after a plain scalar, made once.
_SPACES_HELD = 64
_SPACES = [" " * (column + 1) for column in range(_SPACES_HELD)]


def scan(text: str, wanted: frozenset[str], earlier: EarlierFound | None = None,
         data_fields: tuple[str, ...] = ()) -> Scan | None:
    """The values of the keys named in `wanted` whose values are written on
    the lines below them, if every mapping of the document has plain,
    distinct keys as the composer tells them (nodes.plain_is_text, quoted
    keys by their text); None if some has not, or the text is not of the
    subset read here. With `earlier`, a key written twice in a mapping
    outside any sequence is no reason to say None: the entry it overrides
    is added there. `data_fields`: the fields whose mapping's keys a
    message may show, but not what their values hold (read's
    _VALUE_MAPPINGS)."""
    if "\r" in text:
        return None  # a line break to libyaml (read refuses a lone one)
    size = len(text)
    collect = earlier is not None
    mappings = _Mappings(text if collect else None)
    columns, keys_of, shown_of = mappings.columns, mappings.keys, mappings.shown
    # The key on the line before, less blank and comment lines, whose value
    # is on the lines below (None: another line came since).
    below: str | None = None
    regions: list[tuple[int, int]] = []
    # The region open: its key's column (-1: none), where its lines start,
    # and whether a line of its value has come (a comment after the key
    # and nothing below: a null, no region).
    region, region_start, region_read = -1, 0, False
    # The column of the key (or `-`) whose value starts on the line below:
    # a scalar there takes every line indented more than that column.
    parent: int | None = None
    root: dict[str, str | None] = {}
    started = False
    # The column of the key (or `-`) of a plain scalar whose lines may go on
    # below, indented more (-1: none): looked at once the next line is, as
    # most plain scalars are one line.
    skip = -1
    texts: set[str] = set()  # plain keys found to read as their text
    match_key_line = _KEY_LINE.match
    at = 0
    while at < size:
        if skip >= 0:
            if text.startswith(_SPACES[skip] if skip < _SPACES_HELD else " " * (skip + 1), at):
                at = _past_lines_under(text, at - 1, skip)
                if at >= size:
                    break
            skip = -1
        line = match_key_line(text, at)
        if line is None:
            # Not a key's: blank, a comment, a `-` alone, a scalar, `---`.
            if below is not None and _column(text, at) is not None:
                below = None
            if region >= 0:
                column = _column(text, at)
                if column is not None and column <= region:
                    if region_read:
                        regions.append((region_start, at))
                    region = -1
                elif column is not None:
                    region_read = True
            at, parent, started = _other_line(text, at, parent, started, mappings)
            if at < 0:
                return None
            continue
        indent, dashes, plain, double, single, plain_value = line.groups()
        column = len(indent)
        started = True
        if column <= region:
            if region_read:
                regions.append((region_start, at))
            region = -1
        elif region >= 0:
            region_read = True
        if columns and columns[-1] > column:
            if collect:
                mappings.close_deeper(column)
            else:
                while columns and columns[-1] > column:
                    columns.pop()
                    keys_of.pop()
        if plain is not None:
            label = plain
            if plain not in texts:
                if not plain_is_text(plain):
                    return None
                if len(texts) < _TEXTS_HELD:
                    texts.add(plain)
        else:
            label = double if double is not None else single
        if dashes:
            column += len(dashes)
            if collect:
                mappings.open(column, label, at, _UNTOLD)
            else:  # (inline: a CRD's scan opens a mapping every few lines)
                columns.append(column)
                keys_of.append({label})
        elif columns and columns[-1] == column:
            keys = keys_of[-1]
            if not collect:
                if label in keys:
                    return None
                keys.add(label)  # type: ignore[attr-defined]
            else:
                first = keys.put(label, at)  # type: ignore[union-attr]
                if first >= 0:
                    if shown_of[-1] is _UNTOLD:
                        return None
                    earlier.add(keys.starts, first, column, shown_of[-1])  # type: ignore[union-attr]
        elif collect:
            shown = None if not columns else _UNTOLD if below is None else _inside(shown_of[-1], below, data_fields)
            mappings.open(column, label, at, shown)
        else:
            columns.append(column)
            keys_of.append({label})
        below = None
        parent = None
        value = line.end()
        if plain_value is not None:
            if column == 0 and label in _ROOT_FIELDS and len(columns) == 1:
                word = _WORD.match(text, line.end(6))
                root[label] = word.group(1) if word is not None else None
            at, skip = value + 1, column
            continue
        if value == size or text[value] == "\n" or text[value] == "#":
            parent = column  # its value on the lines below, or null
            if collect:
                below = label
            at = text.find("\n", value) + 1 or size
            if region < 0 and label in wanted:
                region, region_start, region_read = column, at, False
            continue
        if column == 0 and label in _ROOT_FIELDS and len(columns) == 1:
            root[label] = None  # quoted, say: not a plain word
        at = _after_value(text, value, column)
        if at < 0:
            return None
    if region >= 0 and region_read:
        regions.append((region_start, size))
    return Scan([(start, end) for start, end in regions if start < end], root.get("kind"), root.get("apiVersion"))


class _Mappings:
    """The block mappings open at the line being read, innermost last: the
    columns of their keys, their keys so far (a set each, or where earlier
    entries are collected, a _Keys), and what a message may show of its
    keys (_UNTOLD in a sequence)."""

    __slots__ = ("text", "columns", "keys", "shown")

    def __init__(self, text: str | None) -> None:
        # Only the columns and the keys (a set each) unless the entries a
        # later key overrides are collected (`text`, the text scanned): a
        # CRD's scan, in every render of a chart that ships CRDs, pays for
        # no more.
        self.text = text
        self.columns: list[int] = []
        self.keys: list[_Keys | set[str]] = []
        self.shown: list[_Shown] = []

    def open(self, column: int, label: str, line: int, shown: _Shown) -> None:
        """A mapping whose first key, `label`, is on the line at offset `line`."""
        self.columns.append(column)
        if self.text is None:
            self.keys.append({label})
            return
        keys = _Keys(self.text, column)
        keys.put(label, line)
        self.keys.append(keys)
        self.shown.append(shown)

    def close_deeper(self, column: int) -> None:
        """Closes the mappings whose keys stand right of `column`."""
        columns, keys = self.columns, self.keys
        collect = self.text is not None
        while columns and columns[-1] > column:
            columns.pop()
            keys.pop()
            if collect:
                self.shown.pop()


class _Keys:
    """A block mapping's keys so far, where earlier entries are collected:
    where each key's line starts (`starts`, its key at `column`), and for
    each key, its place among them where it was last written, in a table of
    open addressing held in two arrays (a key's hash, its place + 1; 0 for
    an empty slot), its text read again from the text where two hashes are
    equal. A dict of the keys' texts, and a list of their lines' offsets,
    held 19 MiB for one ConfigMap of 100,000 keys each written twice; this
    holds 3.6 MiB."""

    __slots__ = ("text", "column", "starts", "_few", "_hashes", "_places", "_mask", "_count")

    def __init__(self, text: str, column: int) -> None:
        self.text, self.column = text, column
        # The first keys in a dict and their lines in a list, the table and
        # an array made only past _TABLED_FROM: most mappings have a few
        # keys, and a table each made a large document of 100,000 small
        # mappings scan half again as slowly (review65b).
        self.starts: list[int] | array[int] = []
        self._few: dict[str, int] | None = {}

    def put(self, label: str, line: int) -> int:
        """Adds the key `label` on the line at offset `line`: the place of the
        entry it overrides (where it was written last), or -1."""
        starts = self.starts
        place = len(starts)
        starts.append(line)
        few = self._few
        if few is not None:
            overridden = few.get(label, -1)
            few[label] = place
            if len(few) >= _TABLED_FROM:
                self._table(few)
            return overridden
        hashed = hash(label) & 0xFFFFFFFF  # (the text tells two keys of one hash apart)
        hashes, places, mask = self._hashes, self._places, self._mask
        slot = hashed & mask
        while held := places[slot]:
            if hashes[slot] == hashed and self._label(held - 1) == label:
                places[slot] = place + 1
                return held - 1
            slot = (slot + 1) & mask
        hashes[slot], places[slot] = hashed, place + 1
        self._count += 1
        if 2 * self._count > mask:
            self._grow()
        return -1

    def _table(self, few: dict[str, int]) -> None:
        """The keys held in `few` moved to the table."""
        size = 8
        while size < 4 * len(few):
            size *= 2
        self._hashes, self._places, self._mask, self._count = _slots(size), _slots(size), size - 1, 0
        self._few = None
        self.starts = array("q", self.starts)
        hashes, places, mask = self._hashes, self._places, self._mask
        for label, place in few.items():
            hashed = hash(label) & 0xFFFFFFFF
            slot = hashed & mask
            while places[slot]:
                slot = (slot + 1) & mask
            hashes[slot], places[slot] = hashed, place + 1
            self._count += 1

    def _label(self, place: int) -> str:
        found = _KEY.match(self.text, self.starts[place] + self.column)
        plain, double, single = found.groups()  # type: ignore[union-attr]
        return plain if plain is not None else double if double is not None else single

    def _grow(self) -> None:
        hashes, places = self._hashes, self._places
        size = 2 * len(places)
        mask = size - 1
        self._hashes, self._places, self._mask = _slots(size), _slots(size), mask
        new_hashes, new_places = self._hashes, self._places
        for hashed, held in zip(hashes, places):
            if held:
                slot = hashed & mask
                while new_places[slot]:
                    slot = (slot + 1) & mask
                new_hashes[slot], new_places[slot] = hashed, held


_TABLED_FROM = 64  # keys of a mapping from which _Keys holds them in its table


def _slots(size: int) -> array[int]:
    """`size` empty slots of a _Keys table."""
    return array("I", bytes(4 * size))


def _inside(shown: _Shown, key: str, data_fields: tuple[str, ...]) -> _Shown:
    """What a message may show of the keys of the mapping that is the value
    of `key` in a mapping shown as `shown` (read's _inside)."""
    if shown is None:
        return ("keys", key) if key in data_fields else None
    if shown[0] == "keys":
        return ("hidden", f"{shown[1]}.{key}")
    return shown


def _column(text: str, at: int) -> int | None:
    """The indentation of the line at `at`; None for a blank or comment line."""
    first = _INDENT.match(text, at).end()
    return None if first == len(text) or text[first] in "\n#" else first - at


def _other_line(text: str, at: int, parent: int | None, started: bool,
                mappings: _Mappings) -> tuple[int, int | None, bool]:
    """Reads a line that holds no key (scan): where the next line to read
    starts (-1: a line not read here), the column of the key or `-` a
    scalar on the next line would be the value of, and whether the
    document's content has started."""
    size = len(text)
    end = text.find("\n", at)
    if end < 0:
        end = size
    first = _INDENT.match(text, at, end).end()
    if first == end or text[first] == "#":
        return end + 1, parent, started  # a blank or comment line
    column = first - at
    if column == 0 and text.startswith(("---", "...", "%"), first):
        if not started and end - first == 3 and text[first] == "-":
            return end + 1, parent, started  # the document's own `---`
        return -1, parent, started
    if text.find("\t", first, end) >= 0:
        return -1, parent, started
    columns = mappings.columns
    if columns and columns[-1] > column:
        mappings.close_deeper(column)
    dashes = _DASHES.match(text, first, end)
    if dashes is not None:
        if dashes.end() == end:
            return end + 1, column, True  # `-` alone: its item on the lines below
        # An item's scalar (`- a`): an item holding a key is _KEY_LINE's.
        return _after_value(text, dashes.end(), column), None, True
    if parent is None or column <= parent:
        return -1, parent, True
    # A value on the line below its key (or its `-`).
    return _after_value(text, first, parent), None, True


def _after_value(text: str, start: int, column: int) -> int:
    """Where the line after a scalar value starting at `start` starts: past
    its lines, and every line indented more than `column`, its key's or its
    item's. -1: a value not read here."""
    first = text[start]
    if first == '"' or first == "'":
        quoted = (_DOUBLE if first == '"' else _SINGLE).match(text, start)
        if quoted is None:
            return -1
        rest = _REST.match(text, quoted.end())
        if rest is None:
            return -1
        end = rest.end()
    else:
        pattern = _BLOCK_HEADER if first == "|" or first == ">" else _FLOW if first == "[" or first == "{" else _PLAIN
        value = pattern.match(text, start)
        if value is None:
            return -1
        end = value.end()
    return _past_lines_under(text, end, column)


def _past_lines_under(text: str, end: int, column: int) -> int:
    """Where the first line after offset `end` (a line's end) that is not
    blank and is indented `column` or less starts: the lines before it are
    the value's, of a key (or `-`) at `column`."""
    ends = _ENDS.get(column)
    if ends is None:
        ends = _ENDS[column] = re.compile(r"\n(?= {0,%d}[^ \n])" % column)
    found = ends.search(text, end)
    return len(text) if found is None else found.start() + 1


def masked(text: str, regions: list[tuple[int, int]]) -> str:
    """`text` with each region (whole lines) made one blank line of its
    length: every offset outside them is where it was, and each key whose
    value a region is reads as null. (Lines are counted in the text itself,
    never in this.)"""
    parts: list[str] = []
    at = 0
    for start, end in regions:
        parts.append(text[at:start])
        parts.append(" " * (end - start - 1) + "\n" if text[end - 1] == "\n" else " " * (end - start))
        at = end
    parts.append(text[at:])
    return "".join(parts)
