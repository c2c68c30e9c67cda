"""Keys written twice: the earlier entries read leaves out, their cuts, and what it says of them.

kubectl and Helm read the last of two equal keys. read finds the earlier
entries (in the node graph, or in a large document's text), masks them in
the text for every later reader and the writer (Document.left_out), reads
the document again without them, and warns of them, a few lines a document
and a few documents a stream.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ...errors import Location, PostrenderError
from ...printable import quoted
from ...report import Diagnostic
from ...syntax.nodes import MappingNode, ScalarNode
from .breaks import _check_line_breaks
from .jsonfirst import _json_value_end
from .lines import _has_odd_line_breaks
from .shared import _NO_IDS
from .yamlerrors import UnreadableText

if TYPE_CHECKING:
    from ...syntax import blockkeys
    from ...syntax.earlier import Aliases, Cut
    from .documents import Document, KubeObject


def _left_out(doc: Document, dropped: _Dropped | None, objects: list[KubeObject], said: _LeftOutSaid) -> None:
    """Says what read left out of the document (`dropped`), or what a read
    of its source before did, and keeps that with the source."""
    source, at = doc.source, doc.index - doc.source.first_document
    if dropped:
        lines = _dropped_warnings(doc, dropped, objects) if said.says_another() else _NONE_SAID
        if lines:
            source.left_out[at] = lines
        else:
            source.left_out.pop(at, None)
        first = dropped.said[0].later_at
    elif cuts := doc.left_out:  # a read of the source before masked them
        lines = source.left_out.get(at, _NONE_SAID)
        first = cuts[0].start
    else:
        return
    if lines:
        said.lines.extend(lines)
    elif doc.left_out:  # a document after those said: no lines of its own (_DOCUMENTS_SAID)
        said.count_unsaid(lambda: _holder_location(doc, first, _holder(doc, first, objects)))


# What a document after those said keeps: one empty tuple for them all.
_NONE_SAID: tuple[Diagnostic, ...] = ()

# Documents whose entries left out get their own warnings; every document
# after them is counted in one more line. A generated stream may hold a key
# written twice in thousands of documents (one template's labels written
# twice over): a line each buried every other message, and 40,000 of them
# held 8.8 MiB of warnings.
_DOCUMENTS_SAID = 10


class _LeftOutSaid:
    """What read says of the entries it left out, across the stream."""

    __slots__ = ("lines", "_documents", "_unsaid", "_first_unsaid")

    def __init__(self) -> None:
        self.lines: list[Diagnostic] = []
        self._documents = 0  # documents said, each in its own lines
        self._unsaid = 0  # documents after those, counted
        self._first_unsaid: Location | None = None

    def says_another(self) -> bool:
        """Whether the next document left out of gets its own lines."""
        self._documents += 1
        return self._documents <= _DOCUMENTS_SAID

    def count_unsaid(self, where: Callable[[], Location]) -> None:
        """Counts a document with entries left out and no lines of its own
        (`where`: its first entry's place, asked of the first such document)."""
        self._unsaid += 1
        if self._first_unsaid is None:
            self._first_unsaid = where()

    def warnings(self) -> list[Diagnostic]:
        if not self._unsaid:
            return self.lines
        n = self._unsaid
        return [*self.lines, Diagnostic(
            f"{self._first_unsaid.describe()}: and {n:,} more"  # type: ignore[union-attr]
            f" {'document' if n == 1 else 'documents'} from here on holding a key written twice (or keys YAML"
            " 1.1 reads as one): kubectl and Helm read the last, so postrender leaves the earlier out")]


def _raise_earlier_in_text(doc: Document) -> None:
    """Raises _EarlierKeys with the entries a later one overrides in a
    large document composed in parts (_Dropping) that could not be read so
    (its keys not all distinct, most often), as its text tells them
    (syntax/blockkeys.py), so that it is never composed whole for them (a
    ConfigMap of 100,000 keys each written twice took 154 MiB to find where
    they were). What _check_structure would find of it is only these: a
    document composed in parts holds no tag, anchor, merge key, `\\/`
    escape or infinite number (_in_parts), and every key blockkeys reads
    reads as its text. Returns where blockkeys does not read the text, or
    a key is written twice inside a sequence (it cannot tell there what a
    message may show): it is composed whole, as before. (Raised here: held
    by a caller's frame, the exception would hold that frame through its
    traceback, a cycle nothing collects while a render runs.)"""
    from ...syntax import blockkeys  # few documents hold a key twice

    earlier = blockkeys.EarlierFound(doc.text)
    if blockkeys.scan(doc.text, frozenset(), earlier, _VALUE_MAPPINGS) is not None and earlier:
        raise _EarlierKeys(doc, _InText(earlier))


# Mappings whose keys a message may name but whose values it may not: a
# Secret's values, and any key written inside one, may be secret.
_VALUE_MAPPINGS = ("data", "stringData", "binaryData")


class _Earlier:
    """An entry of a mapping that a later one with a key go-yaml v2 holds
    equal overrides: kubectl and Helm never read its value. (A plain class:
    a NamedTuple's class costs every run's start-up, and few meet one.)"""

    __slots__ = ("mapping", "index", "later", "shown")

    def __init__(self, mapping: MappingNode, index: int, later: ScalarNode, shown: tuple[str, str] | None) -> None:
        self.mapping = mapping
        self.index = index  # of the entry in mapping.value
        self.later = later  # the key that wins
        self.shown = shown  # what a message may show of the keys (_check_structure)

    @property
    def key(self) -> ScalarNode:
        return self.mapping.value[self.index][0]  # type: ignore[return-value]

    @property
    def later_at(self) -> int:
        return self.later.start_mark

    @property
    def hidden(self) -> bool:
        return self.shown is not None and self.shown[0] == "hidden"

    def what(self) -> str:
        """The key, as a message may show it: `duplicate ` comes before."""
        return _what(self.key.value, self.shown[1] if self.hidden else None)  # type: ignore[index]

    def cut(self, text: str, aliases: Aliases | None) -> Cut | str:
        """The cut that leaves the entry out of `text`, or why none can."""
        from ...syntax import earlier as earlier_keys

        return earlier_keys.cut_of(text, self.mapping, self.index, self.later, aliases)

    def left_out(self) -> _LeftOut:
        key = self.key
        return _LeftOut(self.later_at, key.start_mark, key.value, self.later.value, self.what(), self.hidden)


class _InText:
    """The entries read found overridden in the text of a large document
    (_raise_earlier_in_text), with no node: their cuts are found with them,
    held as columns (blockkeys.EarlierFound), an entry made where one is
    asked for (_EarlierInText)."""

    __slots__ = ("found",)

    def __init__(self, found: blockkeys.EarlierFound) -> None:
        self.found = found

    def __len__(self) -> int:
        return len(self.found)

    def __getitem__(self, i: int) -> _EarlierInText:
        return _EarlierInText(self.found[i])

    def kept(self) -> tuple[Sequence[Cut], _Said]:
        """The cuts that leave the entries out, in order, less those inside
        another; and the entries they leave out, by where the key that wins
        is, but only the first few said of them (_DROPPED_SAID), and how many."""
        from operator import le

        from ...syntax.earlier import Cut, Cuts

        found = self.found
        starts, ends = found.starts, found.ends
        if all(map(le, ends, starts[1:])):
            # Most: in order, none inside another (an entry of a value written
            # twice, whose later key comes before the one that overrides it).
            return Cuts.of_lines(starts, ends), _Said(self, range(len(found)))
        cuts = [Cut(start, end, True) for start, end in zip(starts, ends)]
        return _kept(cuts, self)


class _EarlierInText:
    """An entry read found overridden in the text of a large document
    (_raise_earlier_in_text), with no node: its cut is found with it."""

    __slots__ = ("found",)

    def __init__(self, found: blockkeys.Earlier) -> None:
        self.found = found

    @property
    def later_at(self) -> int:
        return self.found.later_at

    @property
    def hidden(self) -> bool:
        return self.found.hidden_in is not None

    def what(self) -> str:
        return _what(self.found.key, self.found.hidden_in)

    def left_out(self) -> _LeftOut:
        found = self.found
        return _LeftOut(found.later_at, found.key_at, found.key, found.key, self.what(), self.hidden)


class _Said:
    """Entries left out, by where the key that wins is (`order`, places in
    `entries`): how many, and the first said of them, each made when asked."""

    __slots__ = ("entries", "order")

    def __init__(self, entries: Sequence[_Earlier] | _InText, order: Sequence[int]) -> None:
        self.entries, self.order = entries, order

    def dropped(self) -> _Dropped:
        entries = self.entries
        return _Dropped(len(self.order), [entries[i].left_out() for i in self.order[: _DROPPED_SAID + 1]])


def _kept(cuts: list[Cut], entries: Sequence[_Earlier] | _InText) -> tuple[list[Cut], _Said]:
    """The cuts not inside another, in order, and the entries they leave
    out (`cuts[i]` leaves out `entries[i]`), by where the key that wins is."""
    if len(cuts) == 1:
        return cuts, _Said(entries, _FIRST)  # most documents holding a key twice: once
    from ...syntax.earlier import outermost

    kept = outermost(cuts)
    kept_cuts = set(kept)  # a document may hold thousands: a list here made it quadratic
    order = sorted((i for i, cut in enumerate(cuts) if cut in kept_cuts), key=lambda i: entries[i].later_at)
    return kept, _Said(entries, order)


_FIRST = (0,)


def _what(key: str, hidden_in: str | None) -> str:
    """A key written twice, as a message may show it: `duplicate ` comes
    before. `hidden_in`: the field whose value holds it, which may be secret."""
    if hidden_in is not None:
        return f"key in a mapping inside the value of {hidden_in} (not shown: values may be secret)"
    return f"key {quoted(key)} in a mapping"


class _EarlierKeys(PostrenderError):
    """Entries read drops: raised once a whole document passed
    _check_structure, for read to read it again without them (or once its
    text told them, where it is large: _raise_earlier_in_text)."""

    def __init__(self, doc: Document, found: list[_Earlier] | _InText) -> None:
        first = found[0]
        super().__init__(f"duplicate {first.what()}", doc.location(offset=first.later_at))
        self.entries = found


def _drop_earlier_keys(doc: Document, found: _EarlierKeys) -> _Dropped:
    """Masks the entries found in the document's text, and its source's,
    for the writer to leave out (Document.left_out); the entries dropped, in
    the text's order, less those inside a value dropped whole. Refuses an
    entry that cannot be cut out alone."""
    from ...syntax import earlier as earlier_keys  # few inputs hold a key twice

    text = doc.text
    entries = found.entries
    kept, said = entries.kept() if entries.__class__ is _InText else _kept(_cuts(doc, entries), entries)
    masked = earlier_keys.masked(text, kept)
    source = doc.source
    at = doc.index - source.first_document
    source.replace_document_text(at, masked)
    doc.text = masked
    if doc.index == 1:
        _json_value_end.cache_clear()  # it held the text as read, as a key (2.3 MiB for one of 100,000 keys twice)
    source.set_cuts(at, kept)
    # What the warnings need, and no node: the tree read first is let go of
    # before the document is read again, and the table of its lines the
    # error found (_EarlierKeys), made again if a line is asked for.
    dropped = said.dropped()
    doc.root, doc.shared, doc.nodes, doc.line_starts = None, _NO_IDS, 0, None
    # Said without the objects' names (the tree read first may name one by
    # a key left out), should reading the document again fail: an answer
    # that echoes the input, as a KRM function's does, says what it left
    # out. Said with them once read again (_left_out).
    source.left_out[at] = _dropped_warnings(doc, dropped, [])
    return dropped


def _cuts(doc: Document, entries: list[_Earlier]) -> list[Cut]:
    """The cut that leaves out each entry found in the composed tree;
    refuses one that cannot be cut out alone."""
    from ...syntax import earlier as earlier_keys  # few inputs hold a key twice

    text = doc.text
    cuts: list[Cut] = []
    # Looked up per entry, found once: a walk of the document each was quadratic.
    aliases = earlier_keys.Aliases(doc.root, doc.shared) if doc.shared and doc.root is not None else None
    for entry in entries:
        cut = entry.cut(text, aliases)
        if isinstance(cut, str):
            if _has_odd_line_breaks(text):
                _check_line_breaks(doc)  # what the cut could not follow, said as for any document
            raise UnreadableText(f"duplicate {entry.what()}: kubectl and Helm read the last, but postrender cannot"
                                 f" leave the earlier out: {cut}", doc.location(offset=entry.later_at))
        cuts.append(cut)
    return cuts


class _LeftOut:
    """What a warning says of an entry left out (_Earlier), without its nodes:
    where the key that wins and the earlier one start, the two as written
    (YAML 1.1 may read two texts alike), the key as a message may show it,
    and whether it is hidden."""

    __slots__ = ("later_at", "key_at", "first", "last", "what", "hidden")

    def __init__(self, later_at: int, key_at: int, first: str, last: str, what: str, hidden: bool) -> None:
        self.later_at, self.key_at = later_at, key_at
        self.first, self.last = first, last
        self.what, self.hidden = what, hidden


class _Dropped:
    """The entries of a document left out: how many, and the first few (said)."""

    __slots__ = ("count", "said")

    def __init__(self, count: int, said: list[_LeftOut]) -> None:
        self.count, self.said = count, said


# The entries of one document left out that a warning each names; the rest
# are counted in one more. A generated document may hold a key written twice
# thousands of times over: a line each would bury every other message (and
# cost more than the read).
_DROPPED_SAID = 10


def _dropped_warnings(doc: Document, dropped: _Dropped, objects: list[KubeObject]) -> list[Diagnostic]:
    # The table of line starts these lines are found by is not kept for
    # them alone: a document said to hold a key twice is rarely asked for a
    # line again, and 40,000 of them held 7 MiB of tables.
    line_starts = doc.line_starts
    said = [_dropped_warning(doc, entry, objects) for entry in dropped.said[:_DROPPED_SAID]]
    if dropped.count > _DROPPED_SAID:
        at = dropped.said[_DROPPED_SAID].later_at
        more = dropped.count - _DROPPED_SAID
        said.append(_about_holder(
            doc, at, objects, lambda _: f"and {more:,} more {'key' if more == 1 else 'keys'} of the document written"
            " twice from here on: kubectl and Helm read the last of each, so postrender leaves the earlier out"))
    doc.line_starts = line_starts
    return said


def _holder(doc: Document, at: int, objects: list[KubeObject]) -> KubeObject | None:
    """The object among `objects` that holds offset `at` of the document."""
    return next((obj for obj in objects if obj.node.start_mark <= at < obj.node.end_mark), None)


def _holder_location(doc: Document, at: int, holder: KubeObject | None) -> Location:
    """Where offset `at` is, named by the object holding it (_holder)."""
    if holder is None:
        return doc.location(offset=at)
    return holder.placed(doc.location(offset=at, kind=holder.kind, name=holder.name))


def _about_holder(doc: Document, at: int, objects: list[KubeObject], said: Callable[[Location], str]) -> Diagnostic:
    """A warning of what is at offset `at`, placed there and about the object
    holding it (a KRM result's resourceRef and file); `said` is told the
    place, for a line it names to be called as the place's is."""
    holder = _holder(doc, at, objects)
    where = _holder_location(doc, at, holder)
    return Diagnostic(f"{where.describe()}: {said(where)}", None if holder is None else (holder, "", ""))


def _dropped_warning(doc: Document, entry: _LeftOut, objects: list[KubeObject]) -> Diagnostic:
    """Said once the document is read again: its objects name themselves."""
    earlier_line = doc.first_line + doc.chunk_line(entry.key_at) + 1
    first, last = entry.first, entry.last

    def said(where: Location) -> str:
        earlier = where.line_text(earlier_line)
        what = (f"duplicate {entry.what} (written first on {earlier})" if first == last or entry.hidden
                else f"key {quoted(last)} in a mapping reads as {quoted(first)} on {earlier} does (YAML 1.1)")
        return f"{what}: kubectl and Helm read the last, so postrender leaves the earlier out"

    return _about_holder(doc, entry.later_at, objects, said)
