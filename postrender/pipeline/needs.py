"""What the stages after read need of each document, so read can drop the rest.

Every document stays alive from read to write, and a composed node costs
some 210 bytes: kept whole, the node graphs are most of a render's memory.
Each stage says which nodes of an object it reads (its `reads`); this module
asks them all while the document is fresh and prunes the rest
(syntax/prune.py). Kept whole: ConfigMaps and Secrets (hashed, copied,
shown by diff), producers, and the objects a kindFrom spec looks up. Of
every other object: its metadata, the fields the field specs reach, its pod
templates with their metadata, and the strings byname scans. The guard
reads none of it: it composes again, from its text, each document that
may hold a finding (check/guard.py).

A document with aliases or merge keys is kept whole: an alias makes one
node sit at several paths, and a merge key lets `get` find a key in a
mapping the pruning walk sees as a value of `<<`.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..fieldspecs import ReferenceTable
from ..syntax.nodes import MERGE_KEY, Node, get
from ..syntax.prune import prune
from .graph import byname, producers, references
from .graph.references import is_config_object
from .read import Document, KubeObject


# Documents smaller than this (in libyaml's parse events, about one per
# node) are kept whole: asking every stage costs about as much as composing,
# and a small document, mostly metadata and references, would lose little.
# A CRD or a large workload loses most of its nodes.
SMALLEST_PRUNED = 200


class Needs:
    """read's pruner for one field-spec table (read.Pruner)."""

    def __init__(self, table: ReferenceTable, smallest: int | None = None) -> None:
        self._smallest = SMALLEST_PRUNED if smallest is None else smallest
        self._table = table
        # Made when a document is first pruned: most renders prune none.
        self._readers: _Readers | None = None

    def __call__(self, doc: Document, objects: list[KubeObject]) -> None:
        if doc.root is None or doc.shared or not objects or doc.nodes < self._smallest or MERGE_KEY in doc.text:
            return
        if self._readers is None:
            self._readers = _Readers(self._table)
        keep: set[int] = set()
        whole: set[int] = set()
        for obj in objects:
            for node, all_of_it in self._readers.reads(obj):
                (whole if all_of_it else keep).add(id(node))
        if id(doc.root) in whole:
            return
        prune(doc.text, doc.root, keep, whole)


class _Readers:
    """What the stages read of one object, asked of each in turn."""

    def __init__(self, table: ReferenceTable) -> None:
        self._table = table
        self._pod_strings = byname.pod_string_specs(table)
        self._looked_up = table.kind_from_kinds()

    def reads(self, obj: KubeObject) -> Iterator[tuple[Node, bool]]:
        if is_config_object(obj) or obj.kind in self._looked_up:
            yield obj.node, True
            return
        yield obj.node, False
        metadata = get(obj.node, "metadata")
        if metadata is not None:
            yield metadata, True
        yield from references.reads(obj, self._table)
        yield from byname.reads(obj, self._pod_strings)
        yield from producers.reads(obj)
