"""Dropping the parts of a composed document no later stage reads.

A kept node costs some 210 bytes, and a stream's documents are all
alive until the output is written: at 20,000 objects the node graphs are
most of a render's memory. Most of a workload is never read again once its
document is checked (probes, resources, ports, a CRD's schema), so each
document keeps only the nodes the stages name (see pipeline/needs.py), the
collections that lead to them, and the scalars beside them. Every other
collection becomes a stub: an empty collection of the same kind, at the
same place, whose end is where its content ended (syntax/edit.content_end),
so that an edit next to it lands exactly where it would have.

What a stage reads of a pruned tree is then what it read of the whole one:
list items keep their positions (a stub stands in for each dropped item),
mapping keys all stay, and a walk that reaches a stub finds nothing, as it
would have found nothing the stages need there.
"""

from __future__ import annotations

from collections.abc import Collection

from .edit import content_end
from .nodes import MappingNode, Node, ScalarNode, SequenceNode

def prune(text: str, root: Node, keep: Collection[int], whole: Collection[int]) -> None:
    """Make the tree under `root` hold only what is needed, in place.

    `keep`: ids of nodes that stay (with the collections leading to them);
    `whole`: ids of nodes that stay with everything under them. A list of
    scalars stays whole where its holder stays: filters and flags read its
    items side by side. Kept nodes stay the very same objects, so what
    holds them by identity still does.
    """
    parent_of: dict[int, Node] = {}
    needed: set[int] = set()
    flat: set[int] = set()  # lists of scalars
    collections: list[Node] = []

    def need(node: Node | None) -> None:
        while node is not None and id(node) not in needed:
            needed.add(id(node))
            node = parent_of.get(id(node))

    # The walk never builds a path, which for every node of a large
    # document costs more than the rest of it.
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        if id(node) in whole:
            need(node)
            continue
        if id(node) in keep:
            need(node)
        if isinstance(node, MappingNode):
            collections.append(node)
            for key, value in node.value:
                if not isinstance(key, ScalarNode):
                    need(node)  # a complex key: rare, kept as it is
                    continue
                parent_of[id(value)] = node
                if isinstance(value, ScalarNode):
                    if id(value) in keep:
                        need(value)
                else:
                    stack.append(value)
        elif isinstance(node, SequenceNode):
            collections.append(node)
            flat_list = True
            for item in node.value:
                parent_of[id(item)] = node
                if isinstance(item, ScalarNode):
                    if id(item) in keep:
                        need(item)
                else:
                    flat_list = False
                    stack.append(item)
            if flat_list:
                flat.add(id(node))
    for node in collections:
        if id(node) in needed and id(node) not in whole:
            _stub_children(text, node, needed, flat)


def _stub_children(text: str, node: Node, needed: set[int], flat: set[int]) -> None:
    def dropped(child: Node) -> bool:
        return not isinstance(child, ScalarNode) and id(child) not in needed and id(child) not in flat

    if isinstance(node, MappingNode):
        pairs = node.value
        for i, (key, value) in enumerate(pairs):
            if dropped(value):
                pairs[i] = (key, stub(text, value))
        node.merge = None  # get()'s key index held the dropped values
    else:
        items = node.value
        for i, item in enumerate(items):
            if dropped(item):
                items[i] = stub(text, item)


def stub(text: str, node: Node) -> Node:
    """An empty collection standing where `node` was, ending where its content did."""
    return type(node)(node.tag, [], node.start_mark, content_end(text, node), flow_style=node.flow_style)
