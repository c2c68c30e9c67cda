"""Nodes shared through aliases: what Document.shared holds, and the walks that find them.

A document whose aliases name a node reaches it by more than one path, and
an edit to it shows at every alias. This module holds the records read
leaves in Document.shared (HeldShared, ItemsShared, KeptShared) and the
walks over the node graph that count paths and find shared nodes
(path_counts, shared_nodes): apart from the document model, which asks them,
as they read only nodes.
"""

from __future__ import annotations

from collections.abc import Collection

from ...syntax.nodes import (
    MappingNode,
    Node,
    ScalarNode,
    children,
    get,
    is_string,
    read_children,
    unique_nodes,
)


class HeldShared(frozenset[int]):
    """Document.shared of a document read with its data folded (read.parts._Dropping's
    `aliases_allowed`): the ids of the nodes its aliases name, with the nodes
    themselves (`nodes`), held until the document is pruned (KeptShared), so
    that no other node takes the id of one folded away and let go of."""

    __slots__ = ("nodes",)

    def __new__(cls, nodes: dict[int, Node]) -> HeldShared:
        held = super().__new__(cls, nodes)
        held.nodes = list(nodes.values())
        return held


class ItemsShared(frozenset[int]):
    """Document.shared of a List read item by item though it shares nodes
    (read.parts._SharingItems): the ids of the whole graph's shared nodes still
    held: those of the items it keeps whole, and of the items whose anchors
    and aliases are all their own, pruned once checked (as KeptShared: in
    their kept trees, or what the walk found in them). The guard and the
    rewrite compose again the items they ask for (recompose), never taking
    `doc.root` for the whole graph. `whole`: the items kept whole; every
    other shares no node with another item, and all its nodes are written
    in its own text. `paths`: of those pruned, how many paths led to each
    shared node the walk found in them (Document.paths_to); `named`: the
    kind and name a message gives a place in one (Document.location), by
    the item's start. Always true, as a List sharing nodes is, though none
    it holds now may be shared."""

    __slots__ = ("whole", "paths", "named")

    def __new__(cls, ids: Collection[int], whole: frozenset[int] = frozenset(),
                paths: dict[int, int] | None = None,
                named: dict[int, tuple[str | None, str | None]] | None = None) -> ItemsShared:
        shared = super().__new__(cls, ids)
        shared.whole = whole
        shared.paths = paths or {}
        shared.named = named or {}
        return shared

    def __bool__(self) -> bool:
        # Document.shared's truth says whether the document shares nodes,
        # which every later stage asks (`if doc.shared:`: the rewrite's
        # refusals, the guard's whole graph), as of KeptShared; never whether
        # it holds ids. The items pruned may hold none of their shared nodes
        # now, yet those composed again for edits hold them again
        # (rewrite.DocumentEdits._composed). Code that means "any ids"
        # asks len() (read.libyaml._sharing_items_read).
        return True


# Document.shared while a List's items are read one by one (_SharingItems),
# before the whole graph's walk knows which nodes are shared: an item's walk
# asks of the whole List's text, as of any item of a List that shares nodes
# (graph/references._written_in). No node has id 0.
_SHARING_ITEMS = ItemsShared((0,))


def path_counts(root: Node, targets: Collection[int]) -> dict[int, int]:
    """How many paths Kubernetes reads lead from `root` to each node of
    `targets` (ids) under it (Document.paths_to; 0 for one read nowhere).
    In one walk for them all: one walk per node made a List of items
    sharing nodes quadratic (review62a). Its tables are keyed by the nodes
    themselves (hashed by identity: no int object per node) and list the
    children of collections only, and only the targets' counts are kept
    to the end: over a List of 4,000 apps each sharing nodes, the walk
    held a child list, an id and a count for each of its 0.7 M nodes
    (+102 MiB traced at its peak; +46 MiB now)."""
    # Each collection's children once (a merge's entries are worked out),
    # and the collections in an order where each comes after every one above it.
    below: dict[Node, list[Node]] = {}
    order: list[Node] = []
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if children_done:
            order.append(node)
        elif node not in below and node.__class__ is not ScalarNode:
            kids = below[node] = read_children(node)
            stack.append((node, True))
            stack.extend((child, False) for child in kids if child not in below)
    paths: dict[Node, int] = {root: 1}
    for node in reversed(order):
        through = paths.get(node, 0)
        for child in below[node]:
            paths[child] = paths.get(child, 0) + through
    del below, order
    wanted = set(targets)
    counted = {id(node): count for node, count in paths.items() if id(node) in wanted}
    return {target: counted.get(target, 0) for target in wanted}


class KeptShared:
    """Document.shared of a document that shares nodes, once pruned after
    read's whole-graph checks (pipeline/needs.py; never a List): the ids of
    the shared nodes it still holds (in its kept tree, or a reference's or
    pod string's own scalar), and of those the walk found (which the
    rewrite may replace), how many paths led to each in the whole graph
    (`counts`, for Document.paths_to). The ids of nodes pruned away are not
    held: once a node is freed, a new one (a stub, a node composed again)
    may take its id. Always true, as a document sharing nodes is, though
    none it holds now may be shared."""

    __slots__ = ("ids", "counts", "kind", "name")

    def __init__(self, paths: dict[int, int], whole: MappingNode) -> None:
        """Made before the document is pruned, of its root (`whole`): the kind
        and name a message gives a place in it (Document.location), and the
        paths counted to the shared nodes the walk found. The ids of the
        others still held are known once it is pruned (`hold`)."""
        # A few counts (most documents that share nodes: one) as a tuple
        # beside the ids they count, which come first in `ids`: each id is
        # then one int object, held once, and each count a small int
        # Python holds anyway. As a dict, an array of (id, count) pairs and
        # a (kind, name) tuple beside a tuple of the ids, 25,000 anchored
        # apps held 304 bytes a Deployment here; now 192. Many, kept a dict:
        # each is asked for once (rewrite._check_shared), and a dict made
        # of many pairs for each would be quadratic.
        self.ids: frozenset[int] | tuple[int, ...] = tuple(paths) if len(paths) <= _PAIRS_AT_MOST else ()
        self.counts: tuple[int, ...] | dict[int, int] = (
            tuple(paths.values()) if len(paths) <= _PAIRS_AT_MOST else paths)
        self.kind, self.name = _named(whole)

    def hold(self, ids: frozenset[int] | tuple[int, ...]) -> None:
        """Once the document is pruned: the ids of the shared nodes it still
        holds, every one the walk found among them."""
        counts = self.counts
        if type(counts) is tuple and type(ids) is tuple and all(counted in ids for counted in self.ids):
            counted = self.ids
            self.ids = counted + tuple(node_id for node_id in ids if node_id not in counted)
        else:
            if type(counts) is tuple:
                self.counts = dict(zip(self.ids, counts))
            self.ids = ids

    @property
    def named(self) -> tuple[str | None, str | None]:
        """The kind and name a message gives a place in it (Document.location)."""
        return self.kind, self.name

    def __contains__(self, node_id: object) -> bool:
        return node_id in self.ids

    def __bool__(self) -> bool:
        return True

    def paths_to(self, node_id: int) -> int:
        """Paths to a shared node: counted only for those the walk found,
        the only ones a stage replaces (rewrite._check_shared)."""
        counted = self.counted()
        if node_id not in counted:
            raise AssertionError("paths to a shared node the walk did not find were not counted")
        return counted[node_id]

    def counted(self) -> dict[int, int]:
        """The paths counted to each shared node the walk found, by its id."""
        counts = self.counts
        if type(counts) is dict:
            return counts
        return dict(zip(self.ids, counts))


# KeptShared.counts: at most this many are a tuple beside their ids.
_PAIRS_AT_MOST = 8


def _named(node: MappingNode) -> tuple[str | None, str | None]:
    """The kind and name a message gives an object's mapping (Document.location)."""
    return _string(_last(node, "kind")), _string(_last(_last(node, "metadata"), "name"))


def _last(node: Node | None, key: str) -> Node | None:
    """get, where a key may still be written twice: a structural error comes
    before read leaves the earlier out, and kubectl reads the last."""
    if isinstance(node, MappingNode):
        for k, v in reversed(node.value):
            if isinstance(k, ScalarNode) and k.value == key:
                return v
    return get(node, key)  # merged in, or none


def _string(node: Node | None) -> str | None:
    return node.value if isinstance(node, ScalarNode) and is_string(node) else None


# One empty set for every document that holds none: an empty frozenset is an
# object of 216 bytes each time one is made (40,000 documents each with a key
# written twice held 8 MiB of them).
_NO_IDS: frozenset[int] = frozenset()


def shared_nodes(root: Node) -> frozenset[int]:
    """The ids of the nodes under `root` reachable by more than one path
    (through aliases), and of every node under those."""
    # The nodes seen, themselves (hashed by identity), not their ids: an id
    # is an int object of its own, and the walk sees every node of the
    # graph (a List of 4,000 apps and one alias: +41 MiB traced at its
    # peak, +24 MiB now). The graph holds them all while it runs.
    seen: set[Node] = set()
    aliased: list[Node] = []
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        if node in seen:
            aliased.append(node)
            continue
        seen.add(node)
        stack.extend(children(node))
    del seen
    shared: set[int] = set()
    stack = aliased
    while stack:
        node = stack.pop()
        if id(node) not in shared:
            shared.add(id(node))
            stack.extend(children(node))
    return frozenset(shared)


def _written_within(root: Node, start: int, end: int) -> bool:
    """Whether every node under `root` is written between `start` and `end`
    (offsets): none is an alias of one written elsewhere."""
    return all(start <= node.start_mark < end for node in unique_nodes(root))
