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

A document whose nodes aliases share, or that holds merge keys, is pruned
so too (`shares`, `merges`): see `prune`.
"""

from __future__ import annotations

from collections.abc import Iterable

from .edit import content_end
from .nodes import (SHARED_OFFSETS_BELOW, MappingNode, Node, ScalarNode, SequenceNode, StubMapping, StubSequence,
                    default_tag, is_merge_key, merge_sources, node_at, unique_nodes)

Path = tuple[str | int, ...]


def prune(text: str, root: Node, keep: Iterable[tuple[Path, bool]], shares: bool = False,
          merges: bool = False) -> None:
    """Make the tree under `root` hold only what is needed, in place.

    `keep`: paths from `root` to the nodes that stay, each with whether
    everything under it stays too. The collections leading to them stay, and
    beside each of those its scalars and its lists of scalars (filters and
    flags read items side by side). Kept nodes stay the very same objects,
    so what holds them by identity still does. Only the kept paths are
    followed, never the whole tree: a document costs what it keeps.

    `shares`: aliases may reach a node from several places, so a node kept
    whole may hold one that a path keeps only in part: everything under a
    node kept whole is kept whole (else pruning the one would change the
    other). `merges`: a mapping may hold a merge key (`<<`), whose value
    `get` and `read_entries` read as the mapping's own entries: a kept
    mapping's merge value is never stubbed, but pruned as its own entries
    are (a path through a merged key already names the merged value's node).
    """
    needed: set[int] = {id(root)}
    whole: set[int] = set()
    kept_whole: list[Node] = []
    for path, all_of_it in keep:
        node: Node | None = root
        for step in path:
            node = node_at(node, (step,))
            if node is None:
                break
            needed.add(id(node))
        else:
            if all_of_it and node is not None:
                whole.add(id(node))
                kept_whole.append(node)
    if shares:
        whole.update(id(under) for node in kept_whole for under in unique_nodes(node))
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in whole:
            continue
        if isinstance(node, MappingNode):
            pairs = node.value
            if merges:
                _merged_needed(pairs, needed)
            for i, (key, value) in enumerate(pairs):
                if id(value) in needed:
                    stack.append(value)
                elif _dropped(value) and isinstance(key, ScalarNode):  # a complex key is rare: kept as it is
                    pairs[i] = (key, stub(text, value))
            node.merge = None  # get()'s key index held the dropped values
        elif isinstance(node, SequenceNode):
            items = node.value
            for i, item in enumerate(items):
                if id(item) in needed:
                    stack.append(item)
                elif _dropped(item):
                    items[i] = stub(text, item)


def _merged_needed(pairs: list[tuple[Node, Node]], needed: set[int]) -> None:
    """Marks needed the value of each merge key among a kept mapping's
    entries, and the mappings it merges in (a list of them, each)."""
    for key, value in pairs:
        if is_merge_key(key):
            needed.add(id(value))
            needed.update(id(source) for source in merge_sources(value))


def _dropped(node: Node) -> bool:
    """A child of a kept collection that is not kept: any collection but a
    list of scalars (and an empty one, a stub already)."""
    if isinstance(node, ScalarNode) or not node.value:
        return False
    return not (isinstance(node, SequenceNode) and all(isinstance(item, ScalarNode) for item in node.value))


def stub(text: str, node: Node) -> Node:
    """An empty collection standing where `node` was, ending where its content did."""
    mapping = isinstance(node, MappingNode)
    kind = StubMapping if mapping else StubSequence
    start, end, tag, flow = node.start_mark, content_end(text, node), node.tag, node.flow_style
    if end >= SHARED_OFFSETS_BELOW or tag is not default_tag(MappingNode if mapping else SequenceNode):
        return kind(tag, _NOTHING, start, end, flow_style=flow)
    # A stub is a place and nothing else, and nothing changes it: documents
    # of one shape share theirs, as offsets are shared. A stub stands for
    # most documents of a large stream (100,000 tiny ConfigMaps: 8 MiB).
    key = (kind, start, end, flow)
    shared = _SHARED_STUBS.get(key)
    if shared is None:
        shared = kind(tag, _NOTHING, start, end, flow_style=flow)
        if len(_SHARED_STUBS) < _SHARED_STUBS_HELD:
            _SHARED_STUBS[key] = shared
    return shared


# Every stub's content: one shared empty tuple, not a list each (a stub
# stands for most documents of a large stream), which nothing can add to.
_NOTHING: tuple = ()
# (kind, start, end, flow style) -> the stub at small offsets, with the
# default tag. Bounded: the shapes of a stream's documents repeat.
_SHARED_STUBS: dict[tuple[type, int, int, bool | None], Node] = {}
_SHARED_STUBS_HELD = 1 << 12  # some 0.7 MiB at most
