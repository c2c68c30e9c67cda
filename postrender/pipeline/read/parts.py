"""Reading a document in parts: what is taken or dropped as libyaml composes it.

A large document with what no stage reads dropped as it goes (_Dropping),
a CRD with its schemas masked (_Masked), a List's items read and pruned one
by one (_Items, _DroppingItems, _SharingItems): each holds only where the
document turns out to be what was assumed (`finish`); else it is composed
again whole, so that errors and their order are the whole read's.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Iterator
from functools import cache
from typing import TYPE_CHECKING, Protocol

from ... import fieldspecs
from ...errors import PostrenderError
from ...lazyre import LazyPattern
from ...limits import Limits
from ...syntax.nodes import (
    Composer,
    DroppingComposer,
    Fold,
    ListComposer,
    MappingNode,
    Node,
    Reach,
    ScalarNode,
    SequenceNode,
    anchor_table,
    anchors_are_values_within,
    children,
    get,
    get_str,
    may_hold_aliases,
    may_hold_anchors,
    may_hold_merge_keys,
    may_hold_nonfinite,
)
from .documents import _list_items
from .events import _parse_events
from .kubectl import _check_nodes, _expansion
from .masks import _masked
from .objects import _object
from .shared import _NO_IDS, _SHARING_ITEMS, _named, _written_within, shared_nodes

if TYPE_CHECKING:
    from .documents import Document, KubeObject
    from .objects import _SharedMaps
    from .pruner import Folder, Pruner, StringTaker

# Each anchor's and alias's name as libyaml reads it (_SharingItems._aliased_later).
_ANCHOR_NAMED = LazyPattern(r"&([0-9A-Za-z_-]+)")
_ALIAS_NAMED = LazyPattern(r"\*([0-9A-Za-z_-]+)")


def _kind_written_after(text: str, at: int) -> str | None:
    """The kind an object names after its key at offset `at`, read from the
    text: a `kind:` line at the key's own column, as kustomize and kubectl
    write it after the data (`apiVersion`, `data`, `kind`). None if there is
    none so written. A guess, to choose how to compose: a line that only
    looks so (another object's) makes the composer fold data it then reads
    whole again, or not fold data it could have."""
    column = at - (text.rfind("\n", 0, at) + 1)
    line = "\n" + " " * column + "kind:"
    start = text.find(line, at)
    if start < 0:
        return None
    start += len(line)
    end = text.find("\n", start)
    value = text[start:end if end >= 0 else len(text)].split(" #", 1)[0].strip().strip("'\"")
    return value if value.isidentifier() else None


class _Parts(Protocol):
    """How a document is composed in parts (_composed)."""

    def composer(self, text: str) -> Composer:
        """The composer for the document's text."""

    def finish(self, root: Node | None, loader: Composer, plain: bool) -> bool:
        """Whether the document is read (else it is composed again whole)."""


class _Dropping:
    """A large document composed with what the pruner would drop dropped as
    it goes (DroppingComposer, Pruner.reach), so that a dense one is never
    held whole. What is dropped is what prune drops once it is composed:
    the same nodes stay, and read does with them what it does with the
    whole graph. A document whose keys are not all plain needs every node
    for _check_structure, and is composed again whole; so is one whose
    folded entries (a large config's data) the folder could not take.
    `on_item`: a List's items are handed to it as they are complete
    (_DroppingItems), each with its own folder (`item_done`).

    `aliases_allowed`: the document may hold anchors (--max-expanded-nodes).
    It is read so only where every anchor and alias is a value of a config's
    data folded (a ConfigMap whose values alias one anchored value), no
    alias names anything but a string, and there are no more aliases than
    allowed: there the whole-graph checks find nothing the folder does not
    (each alias of a scalar adds one node expanded, and shares that one
    node), and `shared` says which nodes the whole graph shares. Anything
    else is composed again whole, where the checks say what they say."""

    def __init__(self, prune: Pruner, on_item: Callable[[SequenceNode, int], None] | None = None,
                 aliases_allowed: int | None = None) -> None:
        self.prune = prune
        self.on_item = on_item
        self.aliases_allowed = aliases_allowed
        # Of a document with anchors, read so: the nodes its folded aliases
        # name, by id, once finished (Document.shared).
        self.shared: dict[int, Node] | None = None
        self.folder: Folder | None = None  # the root's
        self._item_folder: Folder | None = None  # the item's being composed
        self._composer: DroppingComposer | None = None
        self._text = ""
        self._taken: StringTaker | None = None

    def composer(self, text: str) -> Composer:
        self._text = text
        self._composer = DroppingComposer(text, self._reach, self.on_item)
        self._composer.speculate = self._speculate
        self._taken = self.prune.string_taker()
        self._composer.strings = self._taken.take
        return self._composer

    def _reach(self, kind: str, api_version: str, item: bool) -> Reach | None:
        reach = self.prune.reach(kind, api_version, item)
        folder = self._folder_of(item)  # made before the kind was known, if its data came first (_speculate)
        folds = reach is not None and any(below.__class__ is Fold for below in reach.values())
        if not folds and self.aliases_allowed is not None:
            # Its anchors need the whole-graph checks: composed whole now, not
            # once more after (a custom object of 30,000 keys, one anchor: +54%).
            raise _FoldsNothing
        if folds:
            if folder is None:
                folder = self._set_folder(self.prune.folder(kind), item)
            else:
                folder.settle(kind)
            # Entries it folds go straight to the folder: one call each.
            self._composer.fold = folder.take  # type: ignore[union-attr]
        # (A folder made ahead of a kind that folds nothing is never settled:
        # its finish composes the document again whole.)
        return reach

    def _speculate(self, field: str, api_version: str, item: bool, at: int) -> Callable[[str, Node, Node], None] | None:
        """The fold for an object's `field` written before its kind, its key
        at offset `at` (DroppingComposer._undecided): its folder, made
        without a kind; None where no config's data is folded there
        (Pruner.folds_ahead), as far as the text tells before it is
        composed (_kind_written_after)."""
        if not self.prune.folds_ahead(field, api_version, item, lambda: _kind_written_after(self._text, at)):
            return None
        folder = self._folder_of(item)
        if folder is None:
            folder = self._set_folder(self.prune.folder(None), item)
        return folder.take

    def _folder_of(self, item: bool) -> Folder | None:
        return self._item_folder if item else self.folder

    def _set_folder(self, folder: Folder, item: bool) -> Folder:
        if item:
            self._item_folder = folder
        else:
            self.folder = folder
        return folder

    def item_done(self) -> Folder | None:
        """The folder of the item just complete, if its reach folds (and
        none for the next)."""
        folder, self._item_folder = self._item_folder, None
        return folder

    def finish(self, root: Node | None, loader: Composer, plain: bool) -> bool:
        if not plain and loader.dropped:  # type: ignore[attr-defined]
            return False
        kept = loader.keys_distinct()  # type: ignore[attr-defined]
        kept = kept and (self.folder is None or self.folder.finish(root))
        if kept and self.aliases_allowed is not None:
            kept = self._anchors_folded(root)
        if kept and self._taken is not None:
            self._taken.root = root
        return kept

    def _anchors_folded(self, root: Node | None) -> bool:
        """Whether a document with anchors read so may stay so (`aliases_allowed`)."""
        folder = self.folder
        # (More aliases than allowed: an alias bomb, refused as composed
        # whole. _compose_document sends a text with more `*` than that
        # whole already; asked here too, so that this method stands alone.)
        if folder is None or not folder.fields or folder.aliases > self.aliases_allowed:  # type: ignore[operator]
            return False
        # Each folded field's text: from its first entry to its mapping's end.
        spans = [(start, get(root, name).end_mark)  # type: ignore[union-attr]
                 for name, start in folder.first_keys.items()]
        if not anchors_are_values_within(self._text, spans):
            return False
        self.shared = folder.aliased
        return True


class _Masked:
    """An object composed with the lines of values no stage reads made
    blank, so that none of their nodes is made: a CustomResourceDefinition's
    schemas (fieldspecs/bulk.yaml), most of the text of a chart that ships
    its CRDs (4.5 of kube-prometheus-stack's 4.7 MB), as the pruner's reach
    for the kind says. What composing them would have found, they are found
    to hold: libyaml's parse of the whole text, counted in C (its events,
    which the limits count), and plain, distinct keys in every mapping and
    no tag, anchor, alias or merge key, read from the text
    (syntax/blockkeys.py), where the text holds nothing else the checks look
    for (`of`). Offsets are kept, so the nodes composed are those composing
    the whole text gives, and a stage that needs the values composes the
    text again (recompose: the guard)."""

    def __init__(self, masked: str, events: int, starts: frozenset[int], kind: str, api_version: str,
                 paths: tuple[tuple[str, ...], ...]) -> None:
        self.masked = masked
        self.events = events
        self.starts = starts  # where each masked region starts
        # As blockkeys read them, and the reach was asked of.
        self.kind, self.api_version = kind, api_version
        self.paths = paths

    @staticmethod
    def of(doc: Document, prune: Pruner) -> _Masked | None:
        """The masking for an object of a kind bulk.yaml lists whose values
        there no stage reads, written in the subset of YAML blockkeys reads;
        None: it is composed as any other."""
        text = doc.text
        table, kind_lines, wanted = _bulk()
        if not any(text.startswith(line[1:]) or line in text for line in kind_lines):
            return None
        # What the checks look for in scalars, which blockkeys passes over:
        # a `\\/` escape, an infinite number; and offsets mended after
        # composing (_in_parts). A tag, an anchor, an alias or a merge key
        # stands where a node starts, where blockkeys reads (and says None):
        # so a CRD whose descriptions hold `&&` or `!=` at a line's start,
        # which may_hold_anchors and may_hold_tags cannot tell from one, is
        # masked too.
        if "\\/" in text or may_hold_nonfinite(text) or text.startswith("\ufeff") or _masked(doc) is not None:
            return None
        from ...syntax import blockkeys  # few documents are CRDs

        found = blockkeys.scan(text, wanted)
        if found is None or not found.regions or found.kind not in table or found.api_version is None:
            return None
        group, paths = table[found.kind]
        if found.api_version.rpartition("/")[0] != group:
            return None
        reach = prune.reach(found.kind, found.api_version)
        if not isinstance(reach, dict) or "*" in reach or any(path[0] in reach for path in paths):
            return None  # a field spec reads there (--config): composed as any other
        try:
            events = _parse_events(doc, None)
        except PostrenderError:
            return None  # composed whole, which says what libyaml refuses, and where
        return _Masked(blockkeys.masked(text, found.regions), events, frozenset(start for start, _ in found.regions),
                       found.kind, found.api_version, paths)

    def composer(self, text: str) -> Composer:
        return _Counted(self.masked, self.events)

    def finish(self, root: Node | None, loader: Composer, plain: bool) -> bool:
        # Read whole, as any document, unless every region masked is the
        # value of a key at one of the kind's paths: blockkeys masks the
        # value of a key of that name wherever it stands, and one elsewhere
        # (an annotation's, a label's) is read, checked and rewritten. And
        # unless the kind and apiVersion are those the reach was asked of:
        # blockkeys reads a root field's first line, and a plain one may go
        # on below (`kind: A\n  B` is kind "A B", which a field spec may
        # read). (Not plain: a key outside the values needs the whole-graph
        # checks; blockkeys found every key plain, but it is asked.)
        if not plain or not isinstance(root, MappingNode):
            return False
        if get_str(root, "kind") != self.kind or get_str(root, "apiVersion") != self.api_version:
            return False
        masked = {self.masked.find("\n", key.end_mark) + 1 for path in self.paths for key in _keys_at(root, path)}
        return self.starts <= masked


@cache
def _bulk() -> tuple[dict[str, tuple[str, tuple[tuple[str, ...], ...]]], tuple[str, ...], frozenset[str]]:
    """bulk.yaml's table; each kind's `kind:` line, as a root's is written
    at the first column; and the keys whose values may be masked."""
    table = fieldspecs.masked_values()
    return (table, tuple(f"\nkind: {kind}\n" for kind in table),
            frozenset(path[-1] for _, paths in table.values() for path in paths))


def _keys_at(root: MappingNode, path: tuple[str, ...]) -> Iterator[Node]:
    """The key nodes at `path` (its last key, under the others), a list's
    items passed through, as a field spec's path goes."""
    holders: list[MappingNode] = [root]
    for key in path[:-1]:
        holders = [mapping for holder in holders for mapping in _mappings(get(holder, key))]
    for holder in holders:
        for written, _ in holder.value:
            if isinstance(written, ScalarNode) and written.value == path[-1]:
                yield written


def _mappings(node: Node | None) -> list[MappingNode]:
    """A mapping, or a list's mapping items."""
    if isinstance(node, SequenceNode):
        return [item for item in node.value if isinstance(item, MappingNode)]
    return [node] if isinstance(node, MappingNode) else []


class _Counted(Composer):
    """A Composer of masked text that tells the parse events of the text
    unmasked (counted before: _parse_events), as composing it would have."""

    __slots__ = ("_unmasked_events",)

    def __init__(self, text: str, events: int) -> None:
        Composer.__init__(self, text)
        self._unmasked_events = events

    def get_single_node(self) -> Node | None:
        root = Composer.get_single_node(self)
        self.events = self._unmasked_events
        return root


class _ListParts:
    """A List's items handed over as they are composed (ListComposer), to `take`."""

    def take(self, items: SequenceNode, at: int) -> None:
        raise NotImplementedError

    def composer(self, text: str) -> Composer:
        return ListComposer(text, self.take)


class _Items(_ListParts):
    """A List's items read one by one as libyaml composes them (ListComposer),
    each pruned before the next is composed, so the List is never held
    whole: the 5,000 bench apps as one List peaked at 269 MiB, 51 as a
    stream.

    What read would do once the List is composed, done early, per item: the
    object read (`_object`), walked and pruned (Pruner.item). It holds only
    when the document turns out to be what was assumed: a List (its kind is
    known only at the end), with plain keys, and items read without error.
    Otherwise `finish` forgets it all and the document is composed again and
    read as any other, so that errors and their order are what they were.

    `tags`: the List may hold tags (may_hold_tags), which the whole graph's
    walk checks before any object is read (_check_structure). Each item is
    walked for them as it is composed, before it is read (a `!!str` name is
    read as the string it is), and the whole graph's walk then leaves the
    items out (`checked`): a List whose names are tagged is never held whole
    either.
    Anything the walk of an item refuses, or a key written twice, and the
    List is read again whole, where the whole walk meets it in order."""

    def __init__(self, doc: Document, prune: Pruner, shared: _SharedMaps, tags: bool = False) -> None:
        self.doc = doc
        self.prune = prune
        self.shared = shared
        self.tags = tags
        self.objects: list[KubeObject] = []
        self.failed = False
        self.kept = False  # finish found the items read right
        self.checked: SequenceNode | None = None  # the items, once each was walked as it was taken

    def take(self, items: SequenceNode, at: int) -> None:
        """Item `at` of `items` is composed (ListComposer.on_item)."""
        if self.failed:
            return
        try:
            node = items.value[at]
            if not isinstance(node, MappingNode):
                raise ValueError("not a mapping")  # read's own error, from the whole List
            if self.tags:
                # (No anchor, no `\/`: _in_parts.)
                _check_nodes(self.doc, node, anchors=False, tags=True, slashes=False)
            obj = _object(self.doc, node, at, self.shared)
            self.objects.append(obj)  # forgotten with the rest if the item fails
            self.prune.item(obj, items)
        except Exception:  # whatever it is, the whole List read again meets it in order
            self.failed = True

    def finish(self, root: Node | None, loader: Composer, plain: bool) -> bool:
        """Whether the document is read: a List whose items were all taken."""
        items = loader.items  # type: ignore[attr-defined]
        if items is None:
            return True  # no item was taken: read as any document
        if not self.failed and (plain or self.tags) and isinstance(root, MappingNode) and _list_items(root) is items:
            if items.value:
                self.take(items, len(items.value) - 1)  # the last, never followed by another
            self.kept = not self.failed
            self.checked = items if self.kept and self.tags else None
        if not self.kept:
            self.forget()
        return self.kept

    def forget(self) -> None:
        """Forgets the items taken: the List is composed again whole."""
        self.prune.forget(self.objects)
        self.objects = []
        self.kept = False
        self.checked = None


class _DroppingItems(_Items):
    """A large List's items read one by one as they are composed (_Items),
    with what no stage reads of each dropped as it goes, and a dense
    config's data read into its content, as of a large document
    (_Dropping): so that a List holding a dense object is never held
    whole either. An item's folded entries are all taken (those left in
    each mapping too) before the item is read; anything they cannot be read
    from makes the List composed again whole."""

    def __init__(self, doc: Document, prune: Pruner, shared: _SharedMaps) -> None:
        super().__init__(doc, prune, shared)
        self.dropping = _Dropping(prune, self.take)

    def composer(self, text: str) -> Composer:
        return self.dropping.composer(text)

    def take(self, items: SequenceNode, at: int) -> None:
        folder = self.dropping.item_done()
        if folder is not None and not self.failed and not folder.finish(items.value[at]):
            self.failed = True
        super().take(items, at)

    def finish(self, root: Node | None, loader: Composer, plain: bool) -> bool:
        if self.dropping.finish(root, loader, plain) and super().finish(root, loader, plain):
            return True
        self.forget()
        return False


class _SharingItems(_Items):
    """A List's items read one by one as they are composed (_Items), though
    its text holds aliases: an item whose text (from the end of the item
    before) holds no `&`, `*` or `<<` where a node may start holds no node
    another reaches, nor reaches one of another's, and is read and pruned
    as _Items does; any other is kept whole, and walked (Pruner.item's
    `whole`). The whole graph's walk (_check_structure) then runs on the
    List so read: the shared nodes, and so every path to one, are all in
    the items kept whole, and a pruned item adds as many nodes expanded as
    written. Anything it refuses, a key written twice, the `items`
    themselves aliased, or no node shared after all, and the List is
    composed again whole and read as any other (_sharing_items_read), so
    every message is the whole read's. The bench's 5,000 apps as one List,
    one anchor and its alias: 288 -> 106 MB peak RSS (goal 96)."""

    def __init__(self, doc: Document, prune: Pruner, shared: _SharedMaps, limits: Limits) -> None:
        super().__init__(doc, prune, shared)
        self.limits = limits
        self.after = 0  # where the text of the next item starts: the end of the one before
        self.took = False  # no item taken: not a List, read as any document
        self.next = 0  # the next item to take
        self.whole: list[int] = []  # the items kept whole
        # Of the items pruned once checked (_take_own): where each starts
        # and ends, and whether any shares a node. The ids of their shared
        # nodes still held, and how many paths lead to each the walk found.
        # Their kinds and names, by their nodes' starts. And how far their
        # aliases expand beyond what is written.
        self.own_starts: list[int] = []
        self.own_ends: list[int] = []
        self.own_shares = False
        self.held: set[int] = set()
        self.paths: dict[int, int] = {}
        self.named: dict[int, tuple[str | None, str | None]] = {}
        self.expanded = 0
        self._last_alias: dict[str, int] | None = None  # (_aliased_later)
        self._defined: Counter[str] | None = None  # (_let_go_of_anchors)
        self._anchors: dict[str, Node] | None = None  # libyaml's table, while composing
        doc.shared = _SHARING_ITEMS

    def composer(self, text: str) -> Composer:
        loader = ListComposer(text, self.take)
        self._anchors = anchor_table(loader)
        return loader

    def take(self, items: SequenceNode, at: int) -> None:
        # libyaml's composer does not descend into an alias: the item before
        # one is never handed over (ListComposer), and is taken here, first.
        self.took = True
        while self.next <= at:
            self._take(items, self.next)
            self.next += 1

    def _take(self, items: SequenceNode, at: int) -> None:
        if self.failed:
            return
        node = items.value[at]
        start = self.after if at else items.start_mark
        # An item written before the end of the one before is an alias of a
        # node written earlier: kept whole, and its text left to the next item's.
        written_here = node.start_mark >= start
        span = self.doc.text[start:node.end_mark] if written_here else "*"
        self.after = node.end_mark if written_here else start
        if not may_hold_aliases(span) and not may_hold_merge_keys(span):
            anchors = may_hold_anchors(span)
            # An anchor no alias after it names shares no node: the item is
            # read as any other, its edits made ahead and pruned to a stub
            # (a List of 4,000 small apps, an anchor on each ConfigMap's
            # labels: each held whole otherwise, 60,000 scalars).
            if not anchors or not self._aliased_later(span, node.end_mark):
                super().take(items, at)
                if anchors:
                    self._let_go_of_anchors(span, start, node.end_mark)
                return
        try:
            if not isinstance(node, MappingNode):
                raise ValueError("not a mapping")
            if written_here and not self._aliased_later(span, node.end_mark) \
                    and _written_within(node, node.start_mark, node.end_mark):
                self._take_own(items, at, node, span)
                return
            obj = _object(self.doc, node, at, self.shared)
            self.objects.append(obj)
            self.whole.append(at)
            self.prune.item(obj, items, whole=True)
        except Exception:  # as _Items: the whole List read again meets it in order
            self.failed = True
        finally:
            if written_here:
                self._let_go_of_anchors(span, start, node.end_mark)

    def _aliased_later(self, span: str, end: int) -> bool:
        """Whether the text after `end` may hold an alias of an anchor `span`
        names: read so, such an item would be pruned before the alias is
        composed, and the List composed again whole (`apart`). The last
        place of each alias name, found in the whole text once (libyaml's
        names: letters, digits, `_` and `-`); a name defined again in
        between still counts (it may say yes where none is, never no)."""
        last = self._alias_places()
        return any(last.get(name, -1) >= end for name in _ANCHOR_NAMED.findall(span))

    def _alias_places(self) -> dict[str, int]:
        """The last place of each alias name in the whole text, found once."""
        if self._last_alias is None:
            self._last_alias = {match[1]: match.start() for match in _ALIAS_NAMED.finditer(self.doc.text)}
        return self._last_alias

    def _let_go_of_anchors(self, span: str, start: int, end: int) -> None:
        """Takes out of libyaml's anchor table (`_anchors`) each anchor the
        item from `start` to `end` (its text `span`) defines that nothing
        after it names: the composer holds every anchored node to the List's
        end, and so the whole of a pruned item's anchored container (a List
        of 4,000 small apps, anchors and a merge key in each Deployment: 21
        of its 58 MiB traced at the peak). Only a name no later alias names
        (`_aliased_later`'s places), so composing goes on as it would; and
        only one the text defines once, so that an anchor defined again is
        refused where it was (then composed whole, renamed: masks.py)."""
        table = self._anchors
        if not table:
            return
        if self._defined is None:
            self._defined = Counter(_ANCHOR_NAMED.findall(self.doc.text))
        last, defined = self._alias_places(), self._defined
        for name in _ANCHOR_NAMED.findall(span):
            node = table.get(name)
            # (Its node is the item's own: an `&` the pattern finds in a
            # scalar names no anchor, or one an earlier item defined. One of
            # ours: a dict nodes.anchor_table took for the table in a clib
            # laid out otherwise is left as it is.)
            if isinstance(node, Node) and start <= node.start_mark < end and defined[name] == 1 \
                    and last.get(name, -1) < end:
                del table[name]

    def _take_own(self, items: SequenceNode, at: int, node: MappingNode, span: str) -> None:
        """Item `at`, whose nodes are all written in its own text (`span`).
        Its anchors and aliases are its own, unless a later item aliases one
        of them (`apart`). It is checked as the whole graph's walk checks
        it, and pruned as a document sharing nodes is (Pruner.shared_item),
        what the rewrite asks of its shared nodes kept (ItemsShared). Its
        expansion beyond the nodes written counts against the alias-bomb
        limit (`expanded`) for the walk of the List so read."""
        doc = self.doc
        self.expanded += _expansion(doc, node, self.limits.max_expanded_nodes)
        if self.expanded > self.limits.max_expanded_nodes:
            raise ValueError("an alias bomb across items")  # the whole List's read refuses it
        shared = shared_nodes(node)
        _check_nodes(doc, node, anchors=True, tags=False, slashes=False, shared=shared)
        named = _named(node)
        obj = _object(doc, node, at, self.shared)
        self.objects.append(obj)
        held, paths = self.prune.shared_item(obj, items, shared, may_hold_merge_keys(span))
        self.own_starts.append(node.start_mark)
        self.own_ends.append(node.end_mark)
        self.own_shares = self.own_shares or bool(shared)
        self.held.update(held)
        self.paths.update(paths)
        self.named[node.start_mark] = named

    def apart(self, root: MappingNode) -> bool:
        """Whether no node outside the items pruned once checked (`_take_own`)
        is one written in one of them: no later item nor root key aliases
        a node of theirs (the whole graph's walk of the List so read)."""
        starts, ends = self.own_starts, self.own_ends
        if not starts:
            return True
        items = _list_items(root)
        own = {id(items.value[at]) for at in range(len(items.value))  # type: ignore[union-attr]
               if items.value[at].start_mark in self.named}  # type: ignore[union-attr]
        seen: set[int] = set()
        stack: list[Node] = [root]
        while stack:
            node = stack.pop()
            if id(node) in seen or id(node) in own:
                continue
            seen.add(id(node))
            at = bisect.bisect_right(starts, node.start_mark) - 1
            if at >= 0 and node.start_mark < ends[at]:
                return False
            stack.extend(children(node))
        return True

    def finish(self, root: Node | None, loader: Composer, plain: bool) -> bool:
        # Keys plain and distinct all through; a merge key may be in an item kept whole.
        self._anchors = None  # libyaml's composer has let go of it, replaced
        read = super().finish(root, loader, loader.plain_keys)  # type: ignore[attr-defined]
        if not self.took:
            self.doc.shared = _NO_IDS
        return read

    def forget(self) -> None:
        super().forget()
        self._anchors = None
        self.doc.shared = _NO_IDS


class _FoldsNothing(Exception):
    """Raised through libyaml's composer where a document with anchors read
    in parts (_Dropping's `aliases_allowed`) turns out to fold nothing."""



def _anchored(parts: _Parts | None) -> bool:
    """Whether `parts` composes a document that may hold anchors (_Dropping's `aliases_allowed`)."""
    return parts.__class__ is _Dropping and parts.aliases_allowed is not None  # type: ignore[attr-defined]
