"""A mapping's entry that a later one with an equal key overrides, cut out
of the text.

go-yaml v2, which kubectl, Helm and Argo CD read manifests with, takes the
last of two keys it holds equal (`logFormat` written twice, `y` and `yes`)
and never reads the earlier value. read.py drops such an entry, so that
every stage reads what Kubernetes gets, and the writer leaves it out, so
that strict readers downstream (kustomize, go-yaml v3, server-side apply,
a KRM function's caller) get what kubectl would have.

A cut is made in two steps, each keeping every offset of the text: read
masks it (`masked`), so that nodes, lines, messages and edits keep their
places while the entry is not composed; the writer deletes it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
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
    scalar before them as lines of its content), a span made spaces."""
    parts: list[str] = []
    at = 0
    for cut in sorted(cuts):
        if cut.start < at:
            continue  # inside a cut masked already (an entry of a value it drops)
        parts.append(text[at : cut.start])
        piece = text[cut.start : cut.end]
        if cut.lines:
            parts.append(re.sub(r"[^\r\n]+", _commented, piece))
        else:
            parts.append(re.sub(r"[^\r\n]", " ", piece))
        at = cut.end
    parts.append(text[at:])
    made = "".join(parts)
    if len(made) != len(text):
        raise AssertionError("a cut masked into text of another length")
    return made


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
