"""How read composes each document, whole or in which parts; and composing one again.

Chosen by its size (DROP_FROM, _MASK_FROM) and what its text may hold, from
the text alone, before libyaml runs. recompose gives a later stage (the
guard, the rewrite) the whole node graph of a pruned document again, only
the items it asks for where it is a List.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from ...limits import Limits
from ...syntax.nodes import (
    Composer,
    DroppingComposer,
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
    anchors_may_all_be_values,
    drop_item,
    may_hold_anchors,
    may_hold_merge_keys,
    may_hold_tags,
    node_at,
    unique_nodes,
)
from .documents import _list_items
from .kubectl import _mark_explicit_str, _may_need_a_look_but_for_anchors
from .libyaml import _compose, _composed
from .masks import _masked
from .parts import _Dropping, _DroppingItems, _Items, _ListParts, _Masked, _SharingItems
from .shared import ItemsShared

if TYPE_CHECKING:
    from .count import _Count
    from .documents import Document, KubeObject
    from .objects import _SharedMaps
    from .parts import _Parts
    from .pruner import Pruner


def _compose_document(doc: Document, limits: Limits, count: _Count, odd_breaks: bool, shared: _SharedMaps,
                      prune: Pruner | None) -> _Items | None:
    """Composes the document into doc.root, its List's items taken one by
    one where it may be one (the _Items returned)."""
    items: _Items | None = None
    parts: _Parts | None = None
    if prune is not None and prune.prunes and not odd_breaks:
        size = len(doc.text)
        large = size >= DROP_FROM
        if size >= _MASK_FROM and (masking := _Masked.of(doc, prune)) is not None:
            parts = masking
        elif (listed := "List" in doc.text) and _takes_items(doc) and not (large and _not_a_list(doc.text)):
            tags = may_hold_tags(doc.text)
            if not (large and _may_hold_a_large_item(doc.text)):
                parts = items = _Items(doc, prune, shared, tags)
            elif not tags:  # (what is dropped as it is composed, the checks of tags could not see)
                parts = items = _DroppingItems(doc, prune, shared)
        elif listed and _takes_sharing_items(doc) and not (large and _not_a_list(doc.text)) \
                and not (large and _may_hold_a_large_item(doc.text)):
            parts = items = _SharingItems(doc, prune, shared, limits)
        elif large and _in_parts(doc, anchors_checked=True):
            if not may_hold_anchors(doc.text):
                parts = _Dropping(prune)
            elif doc.text.count("*") <= limits.max_expanded_nodes and anchors_may_all_be_values(doc.text):
                # A config whose data values alias an anchored one (_Dropping's
                # `aliases_allowed`). With more `*` than aliases allowed it may be
                # an alias bomb, refused at once composed whole: read in parts
                # first, one of 1,000,010 aliases of a scalar took 7.7 s, not 3.9.
                # Nor a text with an `&` or `*` at a node start that is no
                # mapping's value (a script's `&&` line, a Markdown list's
                # `* item`), which could never stay folded: read in parts first,
                # a ConfigMap of 300,000 entries and such a script took 7.1 s, not 5.3.
                parts = _Dropping(prune, aliases_allowed=limits.max_expanded_nodes)
    doc.root = _compose(doc, limits, count, parts)
    return items


def _takes_items(doc: Document) -> bool:
    """Whether a document may be a List whose items can be taken one by one
    as they are composed (_Items, _OnlyItems): it names a List and `items`,
    and may be composed in parts (_in_parts), tags aside: each item's own
    walk checks them as it is composed (_Items), and recompose reads a
    document read's checks passed. Most documents say no List."""
    return "List" in doc.text and "items" in doc.text and _in_parts(doc, tags_checked=True)


def _takes_sharing_items(doc: Document) -> bool:
    """Whether a document may be a List whose items share nodes (an alias,
    `*`, where a node may start) and can be taken one by one all the same
    (_SharingItems): as _takes_items, but for anchors, aliases and merge
    keys, and with no tag (an item's walk would have to check them)."""
    text = doc.text
    return ("items" in text and "*" in text and may_hold_anchors(text) and not may_hold_tags(text)
            and not _may_need_a_look_but_for_anchors(text) and not text.startswith("\ufeff")
            and _masked(doc) is None)


def _in_parts(doc: Document, tags_checked: bool = False, anchors_checked: bool = False) -> bool:
    """Whether a document may be composed in parts, some taken or dropped
    as they are composed (_Parts): not one that needs a whole-document walk
    before its objects are read (_check_structure: aliases, tags, merge
    keys, escapes), or offsets mended after composing (a byte-order mark,
    masked lines). `tags_checked`: the caller checks tags as the parts
    come, so tags do not need the whole walk; `anchors_checked`: likewise
    anchors and aliases (_Dropping's `aliases_allowed`)."""
    text = doc.text
    return (not may_hold_merge_keys(text) and (tags_checked or not may_hold_tags(text))
            and (anchors_checked or not may_hold_anchors(text)) and not _may_need_a_look_but_for_anchors(text)
            and not text.startswith("\ufeff") and _masked(doc) is None)


def _not_a_list(text: str) -> bool:
    """Whether a document surely is no List: its root's `kind` is written
    on a line of its own at the first column, and names no List (a CRD
    names its kind's List in `listKind`, and describes `items`). Anything
    else, a kind written in flow style or quoted, may be one."""
    if text.startswith("kind:"):
        at = 0
    elif (at := text.find("\nkind:") + 1) == 0:
        return False
    end = text.find("\n", at)
    value = text[at + len("kind:"):end if end >= 0 else len(text)].strip()
    return value.isidentifier() and not value.endswith("List")


def _may_hold_a_large_item(text: str) -> bool:
    """Whether a large List may hold an item of DROP_FROM characters or
    more: some stretch of half as many, aligned to its size, names no
    `kind` (every item names its own), or, written in block style, two of
    its items start that far apart (a CRD, which names `kind` all through).
    Only then are its items dropped from as they are composed
    (_DroppingItems): for a List of small items the dropping composer's
    call per node costs more than it saves (the 5,000 bench apps as one
    List: +8% time). A large item that names `kind` all through in a List
    written otherwise (JSON) is composed whole, then pruned, as any item."""
    half = max(DROP_FROM // 2, 1)
    return (any(text.find("kind", start, start + half) < 0 for start in range(0, len(text) - half + 1, half))
            or _has_a_large_block_item(text))


def _has_a_large_block_item(text: str) -> bool:
    """Whether an item of the root's `items`, written in block style as
    kubectl, kustomize and Helm write it (each item a `- ` at one column),
    spans DROP_FROM characters or more, measured between the items' starts:
    a CRD names `kind` all through its schema, and as an item it was
    composed whole (the Argo CD chart as one List: 10 MiB more than as a
    stream). A List written otherwise (JSON, flow style) says no here."""
    at = 0 if text.startswith("items:") else text.find("\nitems:") + 1
    if at == 0 and not text.startswith("items:"):
        return False
    line = text.find("\n", at)
    while line >= 0 and text.startswith(("\n\n", "\n#"), line):  # blank lines and comments before the first item
        line = text.find("\n", line + 1)
    if line < 0:
        return False
    column = 0
    while text.startswith(" ", line + 1 + column):
        column += 1
    if not text.startswith("- ", line + 1 + column):
        return False
    item_start = "\n" + " " * column + "- "
    start = line
    while True:
        after = text.find(item_start, start + 1)
        if (after if after >= 0 else len(text)) - start >= DROP_FROM:
            return True
        if after < 0:
            return False
        start = after


# Documents from this size on are composed with what no stage reads dropped
# as it goes (_Dropping): below it, what a document holds whole is small,
# and the composer's call per node costs more than it saves.
DROP_FROM = 256 * 1024


# Below this, an object is composed as any small document: the masking's own
# reads (the text's parse, blockkeys' scan) save little on it.
_MASK_FROM = 8 * 1024


def recompose(doc: Document, items: Collection[int] | None = None) -> MappingNode | None:
    """The document's node graph composed again from its text, whole: the
    nodes read composed, at the same offsets, with the same values and
    styles, before any stage pruned them (pipeline/needs.py). None for a
    document that holds no object. It changes nothing: the document passed
    read's checks and limits once already. The caller drops it when done
    with the document.

    `items`: of a List, only these items are asked for (object_node); the
    others may be dropped as they are composed, so that the List is never
    held whole (where read took its items one by one too: _Items)."""
    if doc.root is None:
        return None  # read found no object: a null, comments
    sharing = type(doc.shared) is ItemsShared  # (an item dropped keeps its anchors in the composer's table)
    only = _OnlyItems(items, dropping=not sharing) if items is not None and (sharing or _takes_items(doc)) else None
    root, _, _ = _composed(doc, _masked(doc), only)
    if not isinstance(root, MappingNode):
        return None  # never: the same text composed to a mapping once
    if may_hold_tags(doc.text):
        # The styles _check_structure gives the first graph's `!!str` scalars.
        for node in unique_nodes(root):
            if isinstance(node, ScalarNode):
                _mark_explicit_str(doc.text, node)
    return root


class _OnlyItems(_ListParts):
    """Drops the items of a List that recompose is not asked for, as they
    are composed: an empty mapping stands for each (object_node of one is
    never asked). In a large List, what an item not asked for holds is
    dropped as it is composed too (DroppingComposer's `wanted`): a CRD
    among its items is never held whole."""

    def __init__(self, wanted: Collection[int], dropping: bool = True) -> None:
        self.wanted = wanted
        # False: not inside an item either (an anchor there may be aliased by an item asked for).
        self.dropping = dropping

    def composer(self, text: str) -> Composer:
        if len(text) < DROP_FROM or not self.dropping:
            return super().composer(text)
        return DroppingComposer(text, _keeps_everything, self.take, self.wanted)

    def take(self, items: SequenceNode, at: int) -> None:
        if at not in self.wanted:
            drop_item(items, at)

    def finish(self, root: Node | None, loader: Composer, plain: bool) -> bool:
        """Whether what was dropped were a List's items (else: compose it whole)."""
        items = loader.items  # type: ignore[attr-defined]
        if items is None:
            return True
        if items.value:
            self.take(items, len(items.value) - 1)
        return isinstance(root, MappingNode) and _list_items(root) is items


def _keeps_everything(kind: str, api_version: str, item: bool) -> None:
    """A DroppingComposer's reach_of that drops nothing of what it is asked
    about (recompose asks for whole items; `wanted` drops the others)."""
    return None


def object_node(root: MappingNode, obj: KubeObject) -> MappingNode | None:
    """`obj`'s node in a graph recompose gave for its document."""
    if obj.item is not None and _list_items(root) is None:
        return None  # never: read found a List's item in the same text
    node = node_at(root, object_path(obj))
    return node if isinstance(node, MappingNode) else None


def object_path(obj: KubeObject) -> tuple[str | int, ...]:
    """Where an object sits in its document: the root, or a `List`'s item
    (see _list_items)."""
    return () if obj.item is None else ("items", obj.item)
