"""A mapping's entry that a later one with an equal key overrides, cut out
of the text.

go-yaml v2, which kubectl, Helm and Argo CD read manifests with, takes the
last of two keys it holds equal (`logFormat` written twice, `y` and `yes`)
and never reads the earlier value. pipeline/read drops such an entry, so that
every stage reads what Kubernetes gets, and the writer leaves it out, so
that strict readers downstream (kustomize, go-yaml v3, server-side apply,
a KRM function's caller) get what kubectl would have.

A cut is made in two steps, each keeping every offset of the text: read
masks it (`masked`), so that nodes, lines, messages and edits keep their
places while the entry is not composed; the writer deletes it.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left
from collections.abc import Collection, Iterator, Sequence
from typing import NamedTuple

from .nodes import MappingNode, Node, children, may_hold_anchors


class Cut(NamedTuple):
    """Text to leave out: [start, end) of a document's text. `lines`: whole
    lines (a block mapping's entry, masked as comment lines); otherwise a
    span inside lines (a flow mapping's entry, or the first of a block
    sequence item's, masked as spaces)."""

    start: int
    end: int
    lines: bool


# What may stand before the first key of a block sequence item's mapping on
# its line: indentation and one or more `-` indicators (`- - a: 1`).
_ITEM_PREFIX = re.compile(r"[ \t]*(?:-[ \t]+)+")


class Aliases:
    """A document's nodes that aliases name, with the places each is
    reached from: found in one walk of the document, asked per entry cut."""

    def __init__(self, root: Node, aliased: Collection[int]) -> None:
        """`aliased`: ids of the nodes an alias names and of all under them
        (Document.shared)."""
        # id of a node -> (parent, the node's place in children(parent)).
        self._parents: dict[int, list[tuple[Node, int]]] = {}
        seen: set[int] = set()
        stack = [root]
        while stack:
            parent = stack.pop()
            if id(parent) in seen:
                continue
            seen.add(id(parent))
            for place, child in enumerate(children(parent)):
                if id(child) in aliased:
                    self._parents.setdefault(id(child), []).append((parent, place))
                stack.append(child)

    def named_again(self, node: Node) -> bool:
        """Whether an alias names the node (it is reached from two places):
        under a mapping an alias copies whole, a node is reached from one."""
        return len(self._parents.get(id(node), ())) > 1

    def reached_from_outside(self, mapping: MappingNode, index: int, start: int, end: int) -> bool:
        """Whether a node written in [start, end), entry `index` of
        `mapping`, is reached from a node written outside it, other than
        through that entry: an alias elsewhere names an anchor the cut would
        take away. An alias written inside takes nothing away (the cut takes
        it too)."""
        seen: set[int] = set()
        stack: list[Node] = list(mapping.value[index])
        while stack:
            node = stack.pop()
            if id(node) in seen or not start <= node.start_mark < end:
                continue  # written outside: an alias inside names it
            seen.add(id(node))
            for parent, place in self._parents.get(id(node), ()):
                if parent is mapping and place // 2 == index:
                    continue  # the entry itself
                if start <= parent.start_mark and parent.end_mark <= end:
                    continue  # written inside (a block mapping starts where its first key does)
                return True
            stack.extend(children(node))
        return False


def cut_of(text: str, mapping: MappingNode, index: int, later: Node, aliases: Aliases | None = None) -> Cut | str:
    """The cut that leaves out entry `index` of `mapping`, never its last,
    for the key `later` that overrides it; or why none can (a message's
    end). `aliases`: the document's, where it has any."""
    key: Node = mapping.value[index][0]
    following: Node = mapping.value[index + 1][0]
    if aliases is not None and (aliases.named_again(key) or aliases.named_again(following)
                                or aliases.named_again(later)):
        # An alias as a key (`*k : v`) is where its anchor is, not where it
        # is written: where the entry starts or ends is not known.
        return "a key next to it is an alias (*name); write the key out"
    start, end = key.start_mark, following.start_mark
    if aliases is not None and may_hold_anchors(text[start:end]) and \
            aliases.reached_from_outside(mapping, index, start, end):
        # An alias names a node defined in it: without it, the alias names nothing.
        return "its earlier value defines an anchor (&) that an alias uses; remove one of them"
    if mapping.flow_style:
        return Cut(start, end, False)
    line_start = text.rfind("\n", 0, start) + 1
    if line_start == 0 and text.startswith("\ufeff"):
        line_start = 1  # a byte-order mark opens the text: it stays
    prefix = text[line_start:start]
    if not prefix.strip(" \t"):
        # The entry after it starts at its key, or at the `?` of an
        # explicit key (`? a`, or `?` on a line of its own above the key).
        entry = _explicit_indicator(text, mapping.value[index][1].end_mark, end)
        following_line = text.rfind("\n", 0, entry) + 1
        if text[following_line:entry].strip(" \t"):
            return "the entry after it does not start its line; remove one of them"
        return Cut(line_start, following_line, True)
    if _ITEM_PREFIX.fullmatch(prefix):
        return Cut(start, end, False)
    return "it is written as an explicit (`?`) key; remove one of them"


def _explicit_indicator(text: str, after: int, key_start: int) -> int:
    """Where the entry whose key starts at `key_start` starts: the `?` of an
    explicit key written between the end of the value before it (`after`)
    and the key, across blank and comment lines; else the key. (A `?`
    line ending the value before, a block scalar's, is that value's.)"""
    for found in _INDICATOR_OR_COMMENT.finditer(text, after, key_start):
        if found.group() == "?":
            return found.start()
    return key_start


# Between a value's end and the next key only blanks, comments and a `?`
# can stand: a `?` inside a comment is the comment's.
_INDICATOR_OR_COMMENT = re.compile(r"#[^\n]*|\?")


def masked(text: str, cuts: Sequence[Cut]) -> str:
    """`text` with each cut masked, its length and line breaks kept: the
    lines of a block entry made comment lines (spaces would join a block
    scalar before them as lines of its content), a span made spaces.
    `cuts` in order, none inside another (outermost's)."""
    done: list[str] = []  # the text masked so far, joined a batch of cuts at a time
    parts: list[str] = []
    at = 0
    for cut in cuts:
        parts.append(text[at : cut.start])
        piece = text[cut.start : cut.end]
        if cut.lines:
            parts.append(re.sub(r"[^\r\n]+", _commented, piece))
        else:
            parts.append(re.sub(r"[^\r\n]", " ", piece))
        at = cut.end
        if len(parts) >= _BATCH:
            # A piece each for 100,000 cuts held 12 MiB at read's peak (one
            # ConfigMap of 100,000 keys each written twice).
            done.append("".join(parts))
            parts.clear()
    parts.append(text[at:])
    done.append("".join(parts))
    made = "".join(done)
    if len(made) != len(text):
        raise AssertionError("a cut masked into text of another length")
    return made


_BATCH = 2048


def _commented(line: re.Match[str]) -> str:
    return "#" + " " * (len(line.group()) - 1)


def outermost(cuts: Sequence[Cut]) -> list[Cut]:
    """The cuts not inside another (an entry of a value dropped whole), in order."""
    kept: list[Cut] = []
    for cut in sorted(cuts, key=lambda c: (c.start, -c.end)):
        if kept and cut.start < kept[-1].end:
            continue
        kept.append(cut)
    return kept


class Cuts(Sequence[Cut]):
    """Cuts in order, none inside another, as three columns (starts, ends,
    whether whole lines): 17 bytes a cut, where a Cut and its tuple were
    some 120 (40,000 ConfigMaps each holding a key twice: 4.6 MiB; one of
    100,000 keys each written twice: 13 MiB, held to the end of the run)."""

    __slots__ = ("starts", "ends", "lines")

    def __init__(self, cuts: Sequence[Cut] = ()) -> None:
        self.starts = array("q", [cut.start for cut in cuts])
        self.ends = array("q", [cut.end for cut in cuts])
        self.lines = bytearray(cut.lines for cut in cuts)

    @classmethod
    def of_lines(cls, starts: array[int], ends: array[int]) -> Cuts:
        """Cuts of whole lines, [starts[i], ends[i]) each (the arrays are the cuts' own from now on)."""
        made = cls()
        made.starts, made.ends, made.lines = starts, ends, bytearray(b"\x01") * len(starts)
        return made

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, i):  # type: ignore[no-untyped-def, override]
        if isinstance(i, slice):
            return [self[j] for j in range(len(self))[i]]
        return Cut(self.starts[i], self.ends[i], bool(self.lines[i]))

    def __iter__(self) -> Iterator[Cut]:
        return map(Cut, self.starts, self.ends, map(bool, self.lines))


class DocumentCuts:
    """The cuts of a source's documents (Document.left_out), by document:
    the documents that have any, in order, where each one's cuts start in
    one Cuts of them all, and the cuts. Columns: a tuple and a dict entry a
    document held some 250 bytes (40,000 ConfigMaps each holding a key
    twice: 10 MiB; now 33 bytes)."""

    __slots__ = ("_documents", "_firsts", "_cuts")

    def __init__(self) -> None:
        self._documents = array("q")
        self._firsts = array("q", [0])  # one more than documents: where the next document's would start
        self._cuts = Cuts()

    def __bool__(self) -> bool:
        return bool(self._documents)

    def of(self, document: int) -> CutsOf | tuple[()]:
        """The cuts of the `document`th document (0-based); () for none."""
        documents = self._documents
        i = bisect_left(documents, document)
        if i == len(documents) or documents[i] != document:
            return ()
        return CutsOf(self._cuts, self._firsts[i], self._firsts[i + 1])

    def set(self, document: int, cuts: Sequence[Cut]) -> None:
        """The `document`th document's cuts are `cuts` from now on."""
        documents, firsts, held = self._documents, self._firsts, self._cuts
        if not documents or documents[-1] < document:  # read goes in order: every document but a re-read one
            documents.append(document)
            if cuts.__class__ is Cuts:
                held.starts += cuts.starts  # type: ignore[attr-defined]
                held.ends += cuts.ends  # type: ignore[attr-defined]
                held.lines += cuts.lines  # type: ignore[attr-defined]
            else:  # a few, found in the composed tree
                for cut in cuts:
                    held.starts.append(cut.start)
                    held.ends.append(cut.end)
                    held.lines.append(cut.lines)
            firsts.append(len(held))
            return
        every = {at: list(self.of(at)) for at in documents}
        every[document] = list(cuts)
        self.__init__()  # type: ignore[misc]
        for at in sorted(every):
            if every[at]:
                self.set(at, every[at])


class CutsOf(Sequence[Cut]):
    """Cuts [lo, hi) of a Cuts, not copied."""

    __slots__ = ("_cuts", "_lo", "_hi")

    def __init__(self, cuts: Cuts, lo: int, hi: int) -> None:
        self._cuts, self._lo, self._hi = cuts, lo, hi

    def __len__(self) -> int:
        return self._hi - self._lo

    def __getitem__(self, i):  # type: ignore[no-untyped-def, override]
        if isinstance(i, slice):
            return [self[j] for j in range(len(self))[i]]
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        return self._cuts[self._lo + (i % len(self))]

    def __iter__(self) -> Iterator[Cut]:
        cuts, lo, hi = self._cuts, self._lo, self._hi
        return map(Cut, cuts.starts[lo:hi], cuts.ends[lo:hi], map(bool, cuts.lines[lo:hi]))

    def columns(self) -> tuple[array[int], array[int]]:
        """Its starts and ends, copied."""
        cuts, lo, hi = self._cuts, self._lo, self._hi
        return cuts.starts[lo:hi], cuts.ends[lo:hi]
