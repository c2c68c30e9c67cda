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


def cut_of(text: str, mapping: MappingNode, index: int, later: Node, aliased: Collection[int] = (),
           root: Node | None = None) -> Cut | str:
    """The cut that leaves out entry `index` of `mapping`, never its last,
    for the key `later` that overrides it; or why none can (a message's
    end). `aliased`: ids of the nodes an alias names and of all under them
    (Document.shared), in the document whose root is `root`."""
    key: Node = mapping.value[index][0]
    following: Node = mapping.value[index + 1][0]
    if id(key) in aliased or id(following) in aliased or id(later) in aliased:
        # An alias as a key (`*k : v`) is where its anchor is, not where it
        # is written: where the entry starts or ends is not known.
        return "a key next to it is an alias (*name); write the key out"
    start, end = key.start_mark, following.start_mark
    if aliased and root is not None and may_hold_anchors(text[start:end]) and \
            _aliased_from_outside(root, mapping, index, start, end, aliased):
        # An alias names a node defined in it: without it, the alias names nothing.
        return "its earlier value defines an anchor (&) that an alias uses; remove one of them"
    if mapping.flow_style:
        return Cut(start, end, False)
    line_start = text.rfind("\n", 0, start) + 1
    if line_start == 0 and text.startswith("\ufeff"):
        line_start = 1  # a byte-order mark opens the text: it stays
    prefix = text[line_start:start]
    if not prefix.strip(" \t"):
        following_line = text.rfind("\n", 0, end) + 1
        if text[following_line:end].strip(" \t"):
            return "the entry after it does not start its line; remove one of them"
        return Cut(line_start, following_line, True)
    if _ITEM_PREFIX.fullmatch(prefix):
        return Cut(start, end, False)
    return "it is written as an explicit (`?`) key; remove one of them"


def _aliased_from_outside(root: Node, mapping: MappingNode, index: int, start: int, end: int,
                          aliased: Collection[int]) -> bool:
    """Whether a node written in [start, end) (entry `index` of `mapping`)
    is reached from a node written outside it, other than through that
    entry: an alias elsewhere names an anchor the cut would take away. An
    alias written inside it takes nothing away (the cut takes it too)."""
    seen: set[int] = set()
    stack: list[Node] = [root]
    while stack:
        parent = stack.pop()
        if id(parent) in seen:
            continue
        seen.add(id(parent))
        found = children(parent)
        stack.extend(found)
        if start <= parent.start_mark and parent.end_mark <= end:
            continue  # written inside (a block mapping starts where its first key does)
        if parent is mapping:
            del found[2 * index : 2 * index + 2]  # the entry itself
        if any(id(child) in aliased and start <= child.start_mark < end for child in found):
            return True
    return False


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
