"""Stage 5: turn the plan into text edits — renames, marks, rewritten
references, config hashes, retention marks. The only stage that makes edits:
the plan stage decides, this writes."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Collection, Container, Iterable, Iterator, Sequence
from itertools import chain

from ..printable import quoted
from ..records import record, replace
from ..syntax import edit
from .packed import PackedLines
from ..syntax.edit import Edit, Value
from .graph.references import Graph, Path, Reference, granting_list
from .index.configs import content_of, hash_of
from .index.hashing import to_json_value
from .index.objects import base_name_of, previous_ids
from ..errors import PostrenderError
from ..syntax.nodes import MappingNode, Node, ScalarNode, SequenceNode, format_path, get, node_at
from .plan.config_hash import Place
from .plan.copies import Repointed
from .plan.keep import Retention, marks_of
from .plan.new_values import new_value
from .plan.versions import Plan, Version, kept_as_written, label_value, takes_as_version, versioned_name
from ..vocabulary import (
    ANNOTATION_CONFIG_HASH,
    ANNOTATION_COPY_OF,
    ANNOTATION_ORIGINAL_NAME,
    ANNOTATION_REFS,
    ANNOTATION_VERSIONED,
    IDENTITY_ANNOTATIONS,
    KUSTOMIZE_PREVIOUS_KINDS,
    KUSTOMIZE_PREVIOUS_NAMES,
    KUSTOMIZE_PREVIOUS_NAMESPACES,
    LABEL_BASE_NAME,
    LABEL_CONTENT_HASH,
    LABEL_SCOPE,
    LABEL_VERSIONED,
)
from .read.compose import object_node, recompose
from .read.documents import Document, KubeObject
from .read.shared import ItemsShared, KeptShared, shared_nodes


@record
class Options:
    mutable: bool = False
    kustomize_maps_names: bool = False  # RenderOptions'
    # Of those, ids of the objects whose version records the name it had
    # (rewrite() fills it: _names_kustomize_maps).
    names_recorded: frozenset[int] = frozenset()


class Prepared(edit.Located):
    """A config's own edits, located while its document was whole, so that
    read need not keep its tree (pipeline/needs.py): the marks of the version
    it becomes when versioned as its content says (`_expected`), and, when it
    may keep an unsuffixed copy, the copy's marks. Used only when the plan
    makes exactly that version; any other edit to the document composes it
    again (DocumentEdits.mapping_at), and the marks are made there instead.
    Every config holds one, and most are never versioned: only the edits'
    places are found ahead, and their texts made when written (`Ahead`;
    on 20,000 tiny ConfigMaps, none versioned, instructions -7.4%)."""

    __slots__ = ()

    def edits_for(self, obj: KubeObject, path: Path, values: dict[str, Value]) -> list[Edit] | None:
        """The edits giving the mapping at `path` in `obj` `values`, when
        located ahead for exactly those (DocumentEdits._deferred_located):
        a config's marks alone are asked for otherwise (`marks`)."""
        return None

    def marks(self, obj: KubeObject) -> Ahead | None:
        """`obj`'s marks, if made ahead (`obj`: the config this was made for)."""
        return Ahead(self, 0, located_from(obj)) if self.has(0) else None

    def copy(self, obj: KubeObject) -> Ahead | None:
        """The marks of `obj`'s unsuffixed copy, if made ahead."""
        return Ahead(self, 1, located_from(obj)) if self.has(1) else None


class PreparedItem(Prepared):
    """A List's item's own edits made ahead, where it may keep an unsuffixed
    copy: the copy is an item of its own (_copy_as_item), one line of JSON,
    held compressed among the other items' lines (`copies`) and made again
    as it is written (_insertions). A str each, 25,000 Secrets as one KRM
    ResourceList held 6.4 MiB of them; packed, with their numbers, 1.0. A
    class of its own: the slots would cost every config's Prepared (20,000
    tiny ConfigMaps: +0.3 MiB, where the goal leaves 1.5)."""

    __slots__ = ("_copies", "_copy")

    def __init__(self, groups: Sequence[list[edit.LocatedEdit] | None], origin: int, copies: PackedLines,
                 item_copy: str) -> None:
        super().__init__(groups, origin)
        self._copies = copies
        self._copy = copies.add(item_copy)

    @property
    def item_copy(self) -> str:
        """The copy's line, as written."""
        return self._copies.line(self._copy)


class PreparedRetained(Prepared):
    """A config's edits made ahead in a run that records what each version
    is kept for (--keep-previous, --retain): its marks as it is versioned,
    merged with the marks keep.py gives it (the scope label, the annotations
    a pruning deployer honours), located as one more group (`_RETAINED`),
    used where the rewrite gives its mapping exactly those (`edits_for`). A
    class of its own: its slot costs only such runs."""

    __slots__ = ("_retention",)

    def __init__(self, groups: Sequence[list[edit.LocatedEdit] | None], origin: int,
                 retention: RetentionAhead) -> None:
        super().__init__(groups, origin)
        self._retention = retention

    def edits_for(self, obj: KubeObject, path: Path, values: dict[str, Value]) -> list[Edit] | None:
        if path or not self.has(_RETAINED):
            return None
        expected = _retained_marks(obj, _expected(obj, self._retention.options), self._retention)
        # Their reprs: equal values with their keys in the same order (the
        # text of the keys inserted follows it), compared in C.
        if expected is None or repr(expected) != repr(values):
            return None
        # Counted from where every Prepared's are (located_from), as its
        # marks' and its copy's Ahead are (no List item is prepared so
        # today: render.prepare_config).
        return self.group(_RETAINED, values, located_from(obj))


# Where a PreparedRetained's merged marks are among its groups: after its
# marks and its copy's.
_RETAINED = 2


@record(frozen=True)
class RetentionAhead:
    """What a versioned config's retention marks are made from, besides the
    config itself (keep.decide): for prepare in a run that records them."""

    options: Options
    scope: str | None  # --scope
    keep: tuple[tuple[str, str], ...]  # the --keep-previous policy's annotations


def _retained_marks(obj: KubeObject, key: _MarksKey, retention: RetentionAhead) -> dict[str, Value] | None:
    """The values a config's own mapping gets as the version `key` names,
    with the retention marks keep.decide gives it, merged in the order
    rewrite asks for them (`_versions`, then `_retention`); None when it
    gives it none."""
    carried = marks_of(obj, retention.scope, retention.keep)
    if carried is None:
        return None
    values = _marks(*key)
    _merge(values, _retention_marks(*carried))
    return values


class Ahead:
    """One group of a Prepared's edits (its marks, or its copy's), as
    DocumentEdits.set_ahead is given them: made when written, from the
    values they set, at offsets counted from `origin` (`located_from`)."""

    __slots__ = ("prepared", "index", "origin")

    def __init__(self, prepared: Prepared, index: int, origin: int) -> None:
        self.prepared = prepared
        self.index = index
        self.origin = origin

    def made(self, values: dict[str, Value]) -> list[Edit]:
        """The edits, given the values `_marks` (or `_copy_marks`) made:
        the ones they were located for."""
        edits = self.prepared.group(self.index, values, self.origin)
        assert edits is not None  # a group not made gives no Ahead
        return edits


class ItemsAhead:
    """A List's items' marks made ahead (Prepared.marks), as
    DocumentEdits.set_item_ahead is given them: by item position, the
    Version each is marked as, its Prepared and where its offsets are
    counted from (located_from: its node is let go of before its edits are
    made, write.py), made into an `Ahead` and the values it sets only when
    asked. As a dict entry of an Ahead and the values' tuple each, the
    25,000 small apps as one KRM ResourceList held 11.7 MiB for their
    50,000 configs at the guard's peak; as three slots an item, 1.7."""

    __slots__ = ("_versions", "_prepared", "_origins", "_mutable")

    def __init__(self, mutable: bool) -> None:
        self._versions: list[Version | None] = []
        self._prepared: list[Prepared | None] = []
        self._origins = array("q")
        self._mutable = mutable  # every item's (Options.mutable: one run's)

    def add(self, version: Version, prepared: Prepared) -> None:
        item = version.obj.item
        assert item is not None
        missing = item + 1 - len(self._versions)
        if missing > 0:
            self._versions += [None] * missing
            self._prepared += [None] * missing
            self._origins.frombytes(bytes(8 * missing))
        self._versions[item] = version
        self._prepared[item] = prepared
        self._origins[item] = located_from(version.obj)

    def of(self, obj: KubeObject) -> tuple[Ahead, _Later] | None:
        """`obj`'s marks made ahead and what they set, if held."""
        item = obj.item
        version = self._versions[item] if item is not None and item < len(self._versions) else None
        if version is None or version.obj is not obj:
            return None
        return self._made(item, version)  # type: ignore[arg-type]

    def take(self, obj: KubeObject) -> _Later | None:
        """What `obj`'s marks made ahead set, no longer held as made ahead."""
        held = self.of(obj)
        if held is not None:
            self._versions[obj.item] = self._prepared[obj.item] = None  # type: ignore[index]
        return held[1] if held is not None else None

    def __iter__(self) -> Iterator[tuple[KubeObject, Ahead, _Later]]:
        """(object, edits, values) of each item held, in the items' order."""
        for item, version in enumerate(self._versions):
            if version is not None:
                yield (version.obj, *self._made(item, version))

    def taken(self) -> Iterator[tuple[KubeObject, Ahead, _Later]]:
        """As iterating, each item's let go of as the next is asked for."""
        versions, prepared = self._versions, self._prepared
        for item in range(len(versions)):
            version = versions[item]
            if version is not None:
                made = self._made(item, version)
                versions[item] = prepared[item] = None
                yield (version.obj, *made)
                del made
            del version

    def _made(self, item: int, version: Version) -> tuple[Ahead, _Later]:
        prepared = self._prepared[item]
        assert prepared is not None
        return (Ahead(prepared, 0, self._origins[item]),
                (_marks, version.base_name, version.name, version.hash, self._mutable))


class TemplatesAhead(edit.Located):
    """A workload's keys located ahead, in a run that gives most workloads
    keys (--strategy=annotate, --keep-previous, --retain): the annotations
    the run may put on each of its pod templates' metadata (`template_keys`),
    located while its document was whole, so that read need not keep those
    mappings (pipeline/needs.py). Used for a template given exactly the
    keys of one of its groups (`edits_for`); any other mapping edit of the
    document composes it again when it is written (DocumentEdits.edits)."""

    __slots__ = ("_places",)

    def __init__(self, groups: Sequence[list[edit.LocatedEdit] | None], places: tuple) -> None:
        super().__init__(groups)
        # (template path, keys) of each group: the same for every workload
        # of the same shape, one object for all.
        self._places = edit.shared(places)

    def edits_for(self, obj: KubeObject, path: Path, values: dict[str, Value]) -> list[Edit] | None:
        """The edits giving the template at `path` `values`, if located
        for exactly those keys; else None."""
        metadata = values.get("metadata") if len(values) == 1 else None
        annotations = metadata.get("annotations") if type(metadata) is dict and len(metadata) == 1 else None
        if type(annotations) is not dict:
            return None
        try:
            index = self._places.index((path, tuple(annotations)))
        except ValueError:
            return None
        return self.group(index, values)


def template_keys(config_hash: bool, refs: bool) -> tuple[str, ...]:
    """The annotations a run gives pod templates (what TemplatesAhead
    locates): a config hash (--strategy=annotate), or a record of the
    versions each uses (--keep-previous, --retain). Never both: annotate
    keeps every name, so there is no version to record."""
    if config_hash:
        return (ANNOTATION_CONFIG_HASH,)
    return (ANNOTATION_REFS,) if refs else ()


def prepare_templates(obj: KubeObject, root: MappingNode, paths: Sequence[Path],
                      keys: tuple[str, ...]) -> TemplatesAhead | None:
    """`obj`'s template annotations `keys` (template_keys) located ahead
    from `root`, its mapping, for the templates at `paths`. A template that
    holds one of the keys already (a second run) or has a shape
    locate_entries refuses gets no group: its edits are made from the
    document composed again, as they always were. None: no group."""
    groups = [_located_annotations(obj.document, node_at(root, path), keys) for path in paths]
    if not any(group is not None for group in groups):
        return None
    return TemplatesAhead(groups, tuple((path, keys) for path in paths))


def _located_annotations(doc: Document, template: Node | None, names: tuple[str, ...]) -> list[edit.LocatedEdit] | None:
    if not isinstance(template, MappingNode):
        return None
    written = get(get(template, "metadata"), "annotations")
    if any(get(written, name) is not None for name in names):
        # Whether it is rewritten depends on the value it holds, known only
        # once planned.
        return None
    try:
        return edit.locate_entries(doc.text, template, {"metadata": {"annotations": dict.fromkeys(names, "")}},
                                   doc.newline)
    except Exception:
        return None  # set_entries refuses it when written, as before


def prepare(obj: KubeObject, root: MappingNode, options: Options, copies: bool, whole: bool = True,
            retention: RetentionAhead | None = None, versions_kustomized: bool = False,
            item_copies: PackedLines | None = None) -> Prepared | None:
    """`obj`'s edits made ahead from `root`, its mapping (Prepared);
    `copies`: whether the plan may give it an unsuffixed copy; `whole`:
    whether `root` holds its data's entries (read takes a large config's
    out as it composes it: index/folding.py); `retention`: the run records
    what each version is kept for, so its marks merged with those are made
    ahead too (PreparedRetained; not for a List's item, which keeps its
    tree). None for a shape the edits
    cannot be made for: the object then keeps its tree, and meets the same
    code when written as it always did; and for a List's item that may be
    copied when `root` is not whole (its copy is made from it).
    `item_copies`: where a List's items' copies are held (PreparedItem), one
    for a read's items; else one for this item's alone."""
    content = content_of(obj)
    if content.empty or content.refused is not None:
        return _NOTHING  # never versioned: no tree kept, and nothing made
    kept = kept_as_written(obj, content)
    if kept is not None:
        # A name kustomize suffixed is a version in a run that keeps previous
        # ones (versions.kustomized_version): its tree is kept for its marks.
        return None if versions_kustomized and takes_as_version(obj, kept) else _NOTHING
    doc = obj.document
    key = _expected(obj, options)
    retained = _retained_marks(obj, key, retention) if retention is not None else None
    try:
        # Where the run gives it retention marks too, its marks are never
        # asked for alone: only the two merged are located.
        located = [None if retained is not None else edit.locate_entries(doc.text, root, _marks(*key), doc.newline)]
        origin = located_from(obj)
        if copies and obj.item is not None:
            # A List's item's copy is an item of its own (_mark).
            if not whole:
                return None
            return PreparedItem(located, origin, item_copies if item_copies is not None else PackedLines(),
                                edit.json_line(_copy_as_item(obj, root, key[1])))
        if copies:
            located.append(edit.locate_entries(doc.text, root, _copy_marks(key[1], _own_id(obj)), doc.newline))
        if retained is None:
            # (Not a PreparedRetained: what it holds beyond its groups is
            # a run's options.)
            return edit.one_of_equals(Prepared(located, origin))
        if not copies:
            located.append(None)
        located.append(edit.locate_entries(doc.text, root, retained, doc.newline))
        return PreparedRetained(located, origin, retention)
    except Exception:
        # Whatever locate_entries refuses of a shape, set_entries refuses
        # at write as before, if the object is versioned at all.
        return None


def located_from(obj: KubeObject) -> int:
    """Where in its document's text `obj`'s edits made ahead (Prepared) are
    counted from: a List's item's from its own start, so that items of one
    shape share one, as the documents of a stream do (edit.one_of_equals:
    100,000 ConfigMaps as one List held 100,000 unequal ones, 10 MiB); any
    other's from the text's start. An item's node starts where it did as
    read however pruned (prune.stub)."""
    return 0 if obj.item is None else obj.node.start_mark


# What an object that is never versioned has made ahead: nothing. Were the
# plan to version it after all, its document would be composed again.
_NOTHING = Prepared(())


def _expected(obj: KubeObject, options: Options) -> _MarksKey:
    """What `_marks` is made from for the version `obj` becomes if versioned
    as its content says (plan/versions.py)."""
    base, name, digest = _expected_version(obj)
    return (base, name, digest, options.mutable)


def _expected_version(obj: KubeObject) -> tuple[str, str, str]:
    """(base name, name, hash) of the version `obj` becomes if versioned as
    its content says."""
    base = base_name_of(obj)
    digest = hash_of(obj)
    return base, versioned_name(base, digest), digest


def _marks_key(version: Version, options: Options) -> _MarksKey:
    return (version.base_name, version.name, version.hash, options.mutable)


# What a version's marks are made from: its base name, name and hash, and
# whether it stays mutable (`_marks`).
_MarksKey = tuple[str, str, str, bool]


@record(eq=False)
class DocumentEdits:
    """Changes to one document, merged per mapping so two stages that add
    keys under the same parent (say, pod-template annotations) never insert
    the same key twice.

    One is held per edited document until the stream is written, so it keeps
    what the changes mean, which is what writing needs, and turns them into
    text edits only then (`edits`); a container is made when first needed.
    """

    document: Document
    # Each mapping given keys (nodes compare by identity) and the keys and
    # values it is given, or what makes them (`set_later`).
    _entries: dict[MappingNode, dict[str, Value] | _Later] | None = None
    # Scalars replaced: each node and its new value, in the order asked, in
    # one flat list (node, value, node, ...): a tuple a pair was 64 bytes
    # of every reference rewritten, held from rewrite to write (25,000
    # small apps' 75,000: 4.8 MiB, rewrite's end their peak).
    _replaced: list[ScalarNode | str] | None = None
    # Items inserted into sequences: the sequence, the item it goes ahead of,
    # the new item's value and the style of the scalar it is written as
    # (None: a line of JSON; PACKED: a PreparedItem holding the line it is
    # written as), in the order asked.
    _inserted: list[tuple[SequenceNode, Node, object, str | None]] | None = None
    # Each Version an unsuffixed copy written after the document is a copy
    # of (`--keep-original`; the copies' edits are made when asked, `copies`).
    _copied: tuple[Version, ...] = ()
    # The document composed again, for keys given to a mapping read did not
    # keep (see mapping_at).
    _whole: MappingNode | None = None
    # The same for a List's items, each composed once, the others dropped
    # (read.compose.recompose): by item, the graph that holds it. Those expected
    # (`expect`) are composed together, at the first that is asked for.
    _items_whole: dict[int, MappingNode | None] | None = None
    _expected: set[int] | None = None
    # A config's marks as made ahead (Prepared): the object, the edits, and
    # the values they set, standing for set_later_at(obj, (), ...) until
    # another mapping edit of the object comes (mapping_at). A List's items
    # may each have theirs: then an ItemsAhead, by item.
    _ahead: tuple[KubeObject, Ahead, _Later] | ItemsAhead | None = None
    # Of a document that shares nodes, pruned (read.shared.KeptShared): the ids of
    # the shared nodes it holds and of those of each graph composed again
    # for edits, in which it shares the same nodes (`_shared`). The kept
    # ones' facts cannot tell a node composed again.
    _composed_shared: frozenset[int] | None = None
    # Keys given to a mapping of a document read did not keep for edits
    # (Document.kept_for_edits, not a List), by the object and the path of
    # the mapping, until the document is written (`edits`): made then from
    # edits located ahead (TemplatesAhead), else in the document composed
    # again there, one document at a time, not held from rewrite to write
    # for every document so edited. Merged per path as per mapping.
    _deferred: dict[tuple[KubeObject, Path], dict[str, Value] | _Later] | None = None

    def mapping_at(self, obj: KubeObject, path: Path) -> MappingNode:
        """The mapping at `path` in `obj`, to give keys to. Read keeps of most
        documents only the few nodes later stages read, not the mappings a
        rare edit gives keys to (a config hash on a pod template, say): such
        a document is composed again here, once, and every mapping edit of
        it goes to that graph, so edits to one mapping still merge. Replaced
        scalars and inserted items are placed by offset, the same in both.
        A List's item read kept for edits (Document.items_kept_for_edits) takes its
        keys where it is: every edit of that object goes there, and no
        mapping belongs to two items (a List with aliases is kept whole)."""
        later = self._take_ahead(obj) if self._ahead is not None else None
        if later is not None:
            # Marks made ahead cannot merge with other keys: they are set
            # again, first, as they would have been. (A document that is no
            # List holds one object; the items of a List are apart, and an
            # edit to one never merges with another's.)
            self._set_later(self._mapping(obj, ()), later)
        return self._mapping(obj, path)

    def whole_mapping(self, obj: KubeObject) -> MappingNode:
        """`obj`'s whole mapping, as read composed it: kept, or composed again."""
        return self._mapping(obj, ())

    def _ahead_of(self, obj: KubeObject) -> tuple[Ahead, _Later] | None:
        """`obj`'s marks made ahead and what they set, if held: looked up,
        not searched (a List's thousands of items each ask, for `graph`)."""
        ahead = self._ahead
        if type(ahead) is tuple:
            return ahead[1:] if ahead[0] is obj else None
        return ahead.of(obj) if ahead is not None else None  # type: ignore[union-attr]

    def _take_ahead(self, obj: KubeObject) -> _Later | None:
        """What `obj`'s marks made ahead set, no longer held as made ahead."""
        ahead = self._ahead
        if type(ahead) is not tuple:
            return ahead.take(obj) if ahead is not None else None  # type: ignore[union-attr]
        if ahead[0] is not obj:
            return None
        self._ahead = None
        return ahead[2]

    def _aheads(self) -> Iterable[tuple[KubeObject, Ahead, _Later]]:
        ahead = self._ahead
        if ahead is None:
            return ()
        return [ahead] if type(ahead) is tuple else ahead  # type: ignore[list-item]

    def expect(self, obj: KubeObject) -> None:
        """`obj`, a List's item, may be given keys by the edits to come: if
        it must be composed again for them (mapping_at), it is composed with
        the others expected, in one pass over the List's text."""
        if obj.item is not None:
            if self._expected is None:
                self._expected = set()
            self._expected.add(obj.item)

    def _mapping(self, obj: KubeObject, path: Path) -> MappingNode:
        root: Node | None = obj.node
        doc = self.document
        if not doc.kept_for_edits and obj.item not in doc.items_kept_for_edits:
            whole = self._whole_of(obj)
            root = object_node(whole, obj) if whole is not None else None
        mapping = node_at(root, path) if root is not None else None
        if not isinstance(mapping, MappingNode):
            raise AssertionError(f"no mapping at {quoted(path)} of {obj.describe()}")
        return mapping

    def _whole_of(self, obj: KubeObject) -> MappingNode | None:
        """The graph composed again that holds `obj`: the document's, or of
        a List only the items asked for, so that the List is not held whole
        for a few edits (a config hash on some workloads). Each item is in
        one graph only, so edits to one mapping still merge."""
        if obj.item is None:
            if self._whole is None:
                whole = self._whole = self._composed(recompose(self.document))
                deferred, self._deferred = self._deferred, None
                for (owner, path), entry in (deferred or {}).items():
                    root = object_node(whole, owner) if whole is not None else None
                    mapping = node_at(root, path) if root is not None else None
                    if not isinstance(mapping, MappingNode):
                        raise AssertionError(f"no mapping at {quoted(path)} of {owner.describe()}")
                    self._give(mapping, entry)
            return self._whole
        if self._items_whole is None:
            self._items_whole = {}
        composed = self._items_whole
        if obj.item not in composed:
            items = {obj.item} | (self._expected or set()) - composed.keys()
            whole = self._composed(recompose(self.document, items))
            composed.update(dict.fromkeys(items, whole))
        return composed[obj.item]

    def _composed(self, whole: MappingNode | None) -> MappingNode | None:
        """`whole`, composed again for edits, its shared nodes known (`_shared`)."""
        shared = self.document.shared
        if whole is not None and type(shared) in (KeptShared, ItemsShared):
            # (A List's item pruned once checked may share nodes within itself: read.shared.ItemsShared.)
            held = shared.ids if type(shared) is KeptShared else shared
            known = self._composed_shared if self._composed_shared is not None else held
            self._composed_shared = shared_nodes(whole).union(known)  # type: ignore[union-attr]
        return whole

    def _shared(self) -> Container[int]:
        """The ids of the shared nodes of every graph of the document an
        edit may reach: as read holds it, and as composed again."""
        return self._composed_shared if self._composed_shared is not None else self.document.shared

    def set_at(self, obj: KubeObject, path: Path, values: dict[str, Value]) -> None:
        """As `set`, on the mapping at `path` in `obj` (mapping_at)."""
        if self._defers(obj):
            self._defer(obj, path, values)
        else:
            self.set(self.mapping_at(obj, path), values)

    def set_later_at(self, obj: KubeObject, path: Path, make: Callable[..., dict[str, Value]], *args: object) -> None:
        """As `set_later`, on the mapping at `path` in `obj` (mapping_at)."""
        if self._defers(obj):
            self._defer(obj, path, (make, *args))
        else:
            self.set_later(self.mapping_at(obj, path), make, *args)

    def _defers(self, obj: KubeObject) -> bool:
        """Whether a mapping edit of `obj` waits for the document to be
        written (`_deferred`): one read did not keep for edits, not composed
        again yet."""
        doc = self.document
        return not doc.kept_for_edits and obj.item is None and self._whole is None and not doc.shared

    def _defer(self, obj: KubeObject, path: Path, entry: dict[str, Value] | _Later) -> None:
        deferred = self._deferred
        if deferred is None:
            deferred = self._deferred = {}
        later = self._take_ahead(obj) if self._ahead is not None else None
        if later is not None:
            deferred[(obj, ())] = later  # marks made ahead come first (mapping_at)
        current = deferred.get((obj, path))
        if current is None:
            deferred[(obj, path)] = entry
            return
        if not isinstance(current, dict):
            current = deferred[(obj, path)] = _made(current)
        _merge(current, _made(entry))

    def _give(self, mapping: MappingNode, entry: dict[str, Value] | _Later) -> None:
        if isinstance(entry, dict):
            self.set(mapping, entry)
        else:
            self._set_later(mapping, entry)

    def set(self, mapping: MappingNode, values: dict[str, Value]) -> None:
        """`values` becomes part of the edits: made for this call, and not
        changed by the caller afterwards."""
        if self.document.shared:
            _refuse_shared(self.document, self._shared(), mapping, values)
        if self._entries is None:
            self._entries = {}
        current = self._entries.get(mapping)
        if current is None:
            self._entries[mapping] = values
            return
        if not isinstance(current, dict):
            current = self._entries[mapping] = _made(current)
        _merge(current, values)

    def set_later(self, mapping: MappingNode, make: Callable[..., dict[str, Value]], *args: object) -> None:
        """As `set(mapping, make(*args))`, the values made only when read: a
        versioned object's marks, the same few keys made from its Version,
        are held for every object until written, and read once."""
        self._set_later(mapping, (make, *args))

    def _set_later(self, mapping: MappingNode, later: _Later) -> None:
        if self.document.shared or (self._entries is not None and mapping in self._entries):
            self.set(mapping, _made(later))
            return
        if self._entries is None:
            self._entries = {}
        self._entries[mapping] = later

    def set_ahead(self, obj: KubeObject, made: Ahead | None, make: Callable[..., dict[str, Value]],
                  *args: object) -> None:
        """As `set_later_at(obj, (), make, *args)`, with `made` the edits
        those values make, made ahead while the document was whole (Prepared;
        None: not made). Used as they are while no other mapping of the
        document gets keys."""
        # (A List's item's: set_item_ahead.)
        if made is None or obj.item is not None or (
                self._entries is not None or self._deferred is not None or self._ahead is not None):
            self.set_later_at(obj, (), make, *args)
        else:
            self._ahead = (obj, made, (make, *args))

    def set_item_ahead(self, version: Version, prepared: Prepared, mutable: bool) -> None:
        """As set_ahead for a List's item marked as `version`, its marks made
        ahead by `prepared` (made for exactly that version), the values
        `_marks` makes of it (`mutable`: Options', one run's, so the first
        item's stands for all). An item's marks come before any other edit
        of it, and no edit of another item merges with them (mapping_at)."""
        ahead = self._ahead
        if ahead is None:
            ahead = self._ahead = ItemsAhead(mutable)
        if type(ahead) is not ItemsAhead:  # (a document's one object's, set_ahead: not a List's)
            self.set_later_at(version.obj, (), _marks, version.base_name, version.name, version.hash, mutable)
            return
        ahead.add(version, prepared)

    def values_of(self, obj: KubeObject) -> dict[str, Value]:
        """What has been asked to be set in `obj`'s own mapping so far (for `graph`)."""
        held = self._ahead_of(obj)
        if held is not None:
            return _made(held[1])
        return self.values_at(self.mapping_at(obj, ()))

    def values_at(self, mapping: MappingNode) -> dict[str, Value]:
        """What has been asked to be set in mapping so far (mapping_at gives
        the mapping)."""
        entry = self._entries.get(mapping) if self._entries is not None else None
        return _made(entry) if entry is not None else {}

    def replace(self, node: ScalarNode, value: str) -> None:
        replaced = self._replaced
        if replaced is None:
            replaced = self._replaced = []
        replaced.append(node)
        replaced.append(value)

    def insert_item(self, sequence: SequenceNode, before: Node, value: object, style: str | None = None) -> None:
        """A new item ahead of `before`: the scalar `value` in `style`, or
        with no style, `value` written as one line of JSON; PACKED: `value`
        is a PreparedItem, whose item_copy is the line it is written as."""
        if self._inserted is None:
            self._inserted = []
        self._inserted.append((sequence, before, value, style))

    def add_copy(self, version: Version) -> None:
        """An unsuffixed copy of the document, marked as a copy of `version`."""
        if self.document.shared:
            _refuse_shared(self.document, self._shared(), version.obj.node,
                           _copy_marks(version.name, _own_id(version.obj)))
        self._copied += (version,)

    @property
    def copies(self) -> tuple[DocumentEdits, ...]:
        """The edits of each unsuffixed copy, in order. A copy is of a
        document that holds the one object, so every reference rewritten in
        it is rewritten in the copy too: a ConfigMap's data naming another
        config (a `--config` field spec) names, in the copy as in the
        version, the object the output holds, not a name renamed away."""
        return tuple(_copy(self.document, version, self._replaced) for version in self._copied)

    def entries(self) -> list[tuple[MappingNode, dict[str, Value]]]:
        """Each mapping given keys, with every key and value it is given;
        marks made ahead, on the object's mapping as read keeps it (which
        starts where the whole one did); keys deferred (`_deferred`), on the
        document composed again for them, as values_of does."""
        if self._deferred is not None:
            self._whole_of(next(iter(self._deferred))[0])
        ahead = [(obj.node, _made(later)) for obj, _, later in self._aheads()]
        return ahead + [(mapping, _made(entry)) for mapping, entry in (self._entries or {}).items()]

    @property
    def replaced(self) -> Sequence[tuple[ScalarNode, str]]:
        """Each scalar replaced and its new value, in order."""
        return _pairs(self._replaced) if self._replaced else ()

    @property
    def inserted(self) -> Sequence[tuple[SequenceNode, Node, object, str | None]]:
        """Each item inserted: the sequence, the item it goes ahead of, its
        value and its scalar style (None: a line of JSON; PACKED: a
        PreparedItem holding the line it is written as), in order."""
        return self._inserted or ()

    def edits(self, runs: edit.Runs | None = None, *, release_records: bool = False) -> list[Edit]:
        """The edits, in the order made; `runs`: takes them a run at a time
        as they are made (a large List's), and those left are returned.
        `release_records`: each record is let go as its edits are made (a
        List's items' nodes with them, once write let go of its objects):
        for a caller that then forgets these edits, never one that reads
        them (nor with copies to make: `copies` reads the scalars replaced)."""
        doc = self.document
        if doc.shared:
            _check_shared(doc, self.replaced)  # before any record is let go
        text, newline = doc.text, doc.newline
        located = self._deferred_located() if self._deferred is not None else []
        replaced, inserted, aheads, entries = self._records(release_records and not self._copied)
        # Replacements and insertions never start and end at the same place
        # (a replaced scalar has text; an item goes ahead of an item's text),
        # so all replacements first, then all insertions, splice as the order
        # they were asked in would.
        pairs = iter(replaced)  # (node, value, node, ...)
        out = [edit.replace_scalar(text, node, value) for node, value in zip(pairs, pairs)]
        _insertions(text, newline, inserted, out)
        for _, made, later in aheads:
            # What set_entries makes of them, in its order.
            out.extend(made.made(_made(later)))
            if runs is not None and len(out) >= runs.RUN:
                runs.take(out)
        for mapping, entry in entries:
            edit.set_entries(text, mapping, _made(entry), newline, out)
            if runs is not None and len(out) >= runs.RUN:
                runs.take(out)
        out += located
        return out

    def _records(self, taken: bool) -> tuple[
            Iterable[ScalarNode | str], Iterable[tuple[SequenceNode, Node, object, str | None]],
            Iterable[tuple[KubeObject, Ahead, _Later]], Iterable[tuple[MappingNode, dict[str, Value] | _Later]]]:
        """The records edits() makes its edits of, in order: the scalars
        replaced (node, value, node, ...: `_replaced`), the items inserted,
        the marks made ahead (object, edits, values) and each mapping's
        keys (mapping, entry). `taken`: each is let go as the next is asked
        for, and the slots are emptied now (a List of 4,000 apps held its
        items' nodes and records, 8 MiB, until its last edit was made); else
        kept, as plain sequences (most documents are not a List, and
        generators cost every edited document of a stream). Taken, the
        slots are empty from here on, even if a later edit fails: no caller
        reads them after a failure."""
        held = (self._replaced or (), self._inserted or (), self._aheads() if self._ahead is not None else (),
                (self._entries or {}).items())
        if not taken:
            return held
        items_ahead = self._ahead if type(self._ahead) is ItemsAhead else None
        self._replaced = self._inserted = self._ahead = self._entries = None
        replaced, inserted, aheads, entries = held
        del held
        # (An ItemsAhead lets go of its items itself: not copied to a list.)
        aheads = items_ahead.taken() if items_ahead is not None else _let_go(list(aheads))
        return _let_go(list(replaced)), _let_go(list(inserted)), aheads, _let_go(list(entries))

    def _deferred_located(self) -> list[Edit]:
        """The deferred keys' edits, located ahead (TemplatesAhead) when all
        of them were; else none, and all go to the document composed again
        (_whole_of), as the keys of any mapping read did not keep, so that
        edits at one offset keep the order they were asked in."""
        deferred = self._deferred
        assert deferred is not None
        made: list[Edit] = []
        for (obj, path), entry in deferred.items():
            ahead = obj.prepared
            edits = ahead.edits_for(obj, path, _made(entry)) if ahead is not None else None
            if edits is None:
                self._whole_of(obj)
                return []
            made.extend(edits)
        return made  # the keys stay asked for: `graph` reads them after writing (values_of)


# Values not made yet: the function that makes them, then its arguments.
_Later = tuple

# The style of a List's item's copy made ahead, inserted as its PreparedItem:
# its line is made again from the packed lines only as it is written.
PACKED = "packed"


def _made(entry: dict[str, Value] | _Later) -> dict[str, Value]:
    return entry if isinstance(entry, dict) else entry[0](*entry[1:])


def _insertions(text: str, newline: str, inserted: Iterable[tuple[SequenceNode, Node, object, str | None]],
                out: list[Edit]) -> None:
    """The edits inserting each item (DocumentEdits.inserted) added to `out`.
    (A function of its own: the last item's sequence, a List's items, is
    then held no longer than the records.)"""
    for sequence, before, value, style in inserted:
        if style is None:
            item = edit.json_line(value)
        elif style is PACKED:
            item = value.item_copy  # type: ignore[attr-defined]
        else:
            item = edit.render_scalar(value, style)
        out.append(edit.insert_item_before(text, sequence, before, item, newline))


def _pairs(flat: list) -> list[tuple]:
    """A flat list's (a, b, c, d, ...) pairs: [(a, b), (c, d), ...]."""
    return list(zip(flat[::2], flat[1::2]))


def _let_go(held: list) -> Iterator:
    """`held`'s records in order, each let go as the next is asked for
    (DocumentEdits._records): `held` is a list no one else holds."""
    for at in range(len(held)):
        record, held[at] = held[at], None
        yield record
        del record


def _check_shared(doc: Document, replaced: Sequence[tuple[ScalarNode, str]]) -> None:
    """A shared (aliased) scalar may be replaced only when every path to it
    is a reference getting the same new name (a container list reused with
    `*env`)."""
    asked: dict[int, tuple[ScalarNode, list[str]]] = {}
    for node, value in replaced:
        if id(node) in doc.shared:
            asked.setdefault(id(node), (node, []))[1].append(value)
    paths = doc.paths_to(asked.keys()) if asked else {}
    for node, values in asked.values():
        if len(set(values)) > 1 or len(values) < paths[id(node)]:
            raise _shared_error(doc, node)


def _refuse_shared(doc: Document, shared: Container[int], mapping: MappingNode, values: dict[str, Value]) -> None:
    """Keys are added or replaced in place; through an alias that would
    change every other place the node is used (or, under a merge key `<<`,
    hide the merged entries), so such input is refused. `shared`: the ids
    of the shared nodes of the graph `mapping` is in (DocumentEdits._shared)."""
    if id(mapping) in shared:
        raise _shared_error(doc, mapping)
    for key, value in values.items():
        current = get(mapping, key)
        if current is None:
            continue
        if isinstance(value, dict) and isinstance(current, MappingNode):
            _refuse_shared(doc, shared, current, value)
        elif id(current) in shared:
            raise _shared_error(doc, current)


def _shared_error(doc: Document, node: Node) -> PostrenderError:
    return PostrenderError(
        "postrender must edit a node that a YAML alias (or merge key) shares with another place; "
        "write it out in full instead of using the alias",
        doc.location(node),
    )


def _merge(into: dict[str, Value], values: dict[str, Value]) -> None:
    for key, value in values.items():
        existing = into.get(key)
        if isinstance(existing, dict) and isinstance(value, dict):
            _merge(existing, value)
        else:
            into[key] = value


@record
class Rewrite:
    """The edits of every edited document, by index. A document whose only
    edits are its configs' own marks holds, until they are asked for, just
    their versions: most versioned configs then cost a render no record of
    their own, and their marks are made as the document is written."""

    _by_document: dict[int, DocumentEdits | tuple[Version, ...]]
    renamed: list[Version]
    # Each reference rewritten and its new value, when asked for (`explain`).
    rewritten: list[tuple[Reference, str]]
    options: Options
    # How many documents' edits _by_document's table was last made for (see release).
    _table_for: int = 0

    def for_document(self, doc: Document) -> DocumentEdits | None:
        edits = self._by_document.get(doc.index)
        if edits is None or type(edits) is DocumentEdits:
            return edits
        return self._start(doc, edits)

    def edits_of(self, doc: Document) -> DocumentEdits:
        edits = self._by_document.get(doc.index)
        if type(edits) is DocumentEdits:
            return edits  # most calls
        return self._start(doc, edits or ())

    def release(self, doc: Document) -> None:
        """Forget `doc`'s edits, once written."""
        held = self._by_document
        self._table_for = max(self._table_for, len(held))
        held.pop(doc.index, None)
        # A dict keeps its table as its entries go, and writing keeps the
        # splices that replace them: once half are gone, the rest move to a
        # table their size (N=20000: a 2.4 MiB table, empty at the end).
        if len(held) * 2 < self._table_for:
            self._by_document = dict(held)
            self._table_for = len(held)

    @property
    def documents_pending(self) -> int:
        """How many documents' edits are held, not yet written."""
        return len(self._by_document)

    def _versioned(self, version: Version) -> None:
        obj = version.obj
        if obj.document.shared or obj.item is not None:
            # What may refuse the document (an alias its marks would
            # change, an item copy that is no JSON) refuses it now, before
            # the checks, as the rest of the rewrite would.
            _mark(self.edits_of(obj.document), version, self.options)
            return
        pending = self._by_document.get(obj.document.index)
        if pending is None:
            self._by_document[obj.document.index] = (version,)
        elif type(pending) is DocumentEdits:
            _mark(pending, version, self.options)
        else:
            self._by_document[obj.document.index] = pending + (version,)

    def _start(self, doc: Document, versions: tuple[Version, ...]) -> DocumentEdits:
        """The document's edits, beginning with its versions' marks: those
        come first, whatever asks for the edits first."""
        edits = self._by_document[doc.index] = DocumentEdits(doc)
        for version in versions:
            _mark(edits, version, self.options)
        return edits


def rewrite(graph: Graph, plan: Plan, options: Options, held: Collection[int] = (),
            config_hashes: Sequence[Place] = (), retention: Retention = Retention(),
            repointed: Sequence[Repointed] = (), explain: bool = False) -> Rewrite:
    """`held`: ids of references to leave as written (reloader.py);
    `config_hashes`: where config_hash.py put a hash; `retention`: keep.py's
    marks; `repointed`: copies a previous run wrote whose version is
    renamed (plan/copies.py); `explain`: keep each rewritten reference and
    its new value (for `-v`). Edits to one mapping merge, in this order."""
    if options.kustomize_maps_names:
        options = replace(options, names_recorded=_names_kustomize_maps(graph, plan))
    result = Rewrite({}, [], [], options)
    _versions(plan, result)
    _references(graph, plan, held, result, explain)
    for obj in chain((p.obj for p in config_hashes), (m.obj for m in retention.marks),
                     (r.referrer for r in retention.records), (r.copy for r in repointed)):
        if obj.item is not None:
            result.edits_of(obj.document).expect(obj)
    _config_hashes(config_hashes, result)
    _retention(retention, result)
    _repointed(repointed, result)
    return result


def _versions(plan: Plan, result: Rewrite) -> None:
    for version in plan.versioned:
        if version.unchanged:
            continue
        result._versioned(version)
        if version.renamed:
            result.renamed.append(version)


def _mark(edits: DocumentEdits, version: Version, options: Options) -> None:
    """A version's own edits: its marks, and its unsuffixed copy if it keeps one."""
    obj = version.obj
    key = _marks_key(version, options)
    prepared = obj.prepared if obj.prepared is not None and _expected(obj, options) == key else None
    if prepared is not None and obj.item is not None and prepared.has(0):
        edits.set_item_ahead(version, prepared, options.mutable)
    else:
        edits.set_ahead(obj, prepared.marks(obj) if prepared is not None else None, _marks, *key)
    if not version.keep_original:
        if id(obj) in options.names_recorded:
            edits.set_at(obj, (), {"metadata": {"annotations": dict(_history_renamed(obj))}})
        return
    history = _history_beside_copy(version)
    if history:
        edits.set_at(obj, (), {"metadata": {"annotations": dict(history)}})
    if obj.item is None:
        edits.add_copy(version)
        return
    items = get(obj.document.root, "items")
    assert isinstance(items, SequenceNode)
    if isinstance(prepared, PreparedItem):
        edits.insert_item(items, obj.node, prepared, PACKED)
    else:
        edits.insert_item(items, obj.node, _copy_as_item(obj, edits.whole_mapping(obj), version.name))


def _references(graph: Graph, plan: Plan, held: Collection[int], result: Rewrite, explain: bool) -> None:
    version_of, index = plan.of, graph.index
    # A grant's name may be a reference to objects of several kinds (a rule
    # for configmaps and secrets): its edits are decided once, for all.
    grants: dict[int, list[Reference]] = {}
    for ref in graph.references:
        is_held = id(ref) in held
        if ref.spec.grants and not is_held:
            grants.setdefault(id(ref.node), []).append(ref)
            continue
        value = new_value(ref, version_of, is_held, index)
        if value is None:
            continue
        text, namespace = value
        edits = result.edits_of(ref.referrer.document)
        edits.replace(ref.node, text)
        shown = text
        if namespace is not None and ref.spec.namespace_field is not None:
            edits.set_at(ref.referrer, ref.path[:-1], {ref.spec.namespace_field: namespace})
            if explain:
                field = format_path(ref.path[:-1] + (ref.spec.namespace_field,))
                shown += f"; {field}: {ref.namespace} -> {namespace}"
        if explain:
            result.rewritten.append((ref, shown))
    if grants:
        alive = plan.alive_names(index)
        for refs in grants.values():
            _grant(graph, plan, refs, alive, result, explain)


def _config_hashes(places: Sequence[Place], result: Rewrite) -> None:
    # Made when written (set_later_at), as the retention marks below: held
    # until then, three dicts a workload (25,000 workloads: 13 MiB); the
    # mapping's path one tuple for equal places'.
    parents: dict[Path, Path] = {}
    for p in places:
        parent = parents.get(p.at)
        if parent is None:
            parent = parents[p.at] = p.at[:-1]
        result.edits_of(p.obj.document).set_later_at(p.obj, parent, _hash_entry, p.at[-1], p.value)


def _hash_entry(key: str, value: str) -> dict[str, Value]:
    return {key: {"annotations": {ANNOTATION_CONFIG_HASH: value}}}


def _retention(retention: Retention, result: Rewrite) -> None:
    # Made when written (set_later): held until then for every config and
    # workload, the values would cost three dicts each.
    for mark in retention.marks:
        result.edits_of(mark.obj.document).set_later_at(mark.obj, (), _retention_marks, mark.scope, mark.keep)
    for refs in retention.records:
        result.edits_of(refs.referrer.document).set_later_at(refs.referrer, refs.template, _refs_record, refs.value)


def _repointed(repointed: Sequence[Repointed], result: Rewrite) -> None:
    # An annotation edit on the copy, as on any object: its data, which is
    # its version's, stays as written.
    for each in repointed:
        result.edits_of(each.copy.document).set_at(each.copy, (), {"metadata": {"annotations": {
            ANNOTATION_COPY_OF: each.name}}})


def _retention_marks(scope: str | None, keep: tuple[tuple[str, str], ...]) -> dict[str, Value]:
    values: dict[str, Value] = {}
    if scope:
        values["labels"] = {LABEL_SCOPE: scope}
    if keep:
        values["annotations"] = dict(keep)
    return {"metadata": values}


def _refs_record(value: str) -> dict[str, Value]:
    return {"metadata": {"annotations": {ANNOTATION_REFS: value}}}


def _grant(graph: Graph, plan: Plan, refs: list[Reference], alive: set[tuple[str, str, str]], result: Rewrite,
           explain: bool) -> None:
    """A grant by name (RBAC resourceNames) gains each versioned name; the
    original stays where it still names an object: a kept copy, another
    namespace's object, or any namespace's for a cluster-wide grant. `refs`:
    the references of one name, one per kind the grant names (a rule for
    configmaps and secrets): the original stays where it names an object
    of any of them (a ConfigMap versioned, a Secret of the name kept)."""
    ref = refs[0]
    names = sorted({version.name for each in refs for version in plan.versioned_by(each) if version.name != ref.name})
    sequence = node_at(ref.referrer.node, ref.path[:-1]) if isinstance(ref.path[-1], int) else None
    # A name that is one field of a list's item (a ReferenceGrant's `to`
    # entry {group, kind, name}): the grant gains an item like it, naming the
    # version, as a list of names gains the name.
    entry = _granting_entry(ref) if sequence is None else None
    if entry is not None:
        sequence = entry[0]
    if names and isinstance(sequence, SequenceNode):
        # A name the grant holds already is not added again: read again, a
        # grant a run gave a version's name beside the original (a name
        # two namespaces held) still matches that version.
        if entry is None:
            written = {item.value for item in sequence.value if isinstance(item, ScalarNode)}
        else:
            written = {fields[ref.path[-1]] for fields in map(_entry, sequence.value)  # type: ignore[index]
                       if fields is not None and _alike(fields, entry[2], ref.path[-1])}
        names = [name for name in names if name not in written]
    if not names:
        return
    namespace = graph.index.lookup_namespace(ref.referrer, ref.namespace)
    keep = namespace is None or any((each.target_kind, namespace, ref.name) in alive for each in refs)
    edits = result.edits_of(ref.referrer.document)
    if not isinstance(sequence, SequenceNode):
        edits.replace(ref.node, names[0])  # a lone name, not a list: nothing to add to
        if explain:
            result.rewritten.extend((each, names[0]) for each in refs)
        return
    added = names if keep else names[1:]
    if not keep:
        edits.replace(ref.node, names[0])
    if entry is not None:
        _, item, fields = entry
        for name in added:
            edits.insert_item(sequence, item, {**fields, ref.path[-1]: name})
    else:
        style = ref.node.style if ref.node.style in ("", "'", '"') else '"'
        for name in added:
            edits.insert_item(sequence, ref.node, name, style)
    if explain:
        shown = ", ".join(([ref.name] if keep else []) + names)
        result.rewritten.extend((each, shown) for each in refs)


def _granting_entry(ref: Reference) -> tuple[SequenceNode, MappingNode, dict[str, object]] | None:
    """The list, the item and the item as kubectl reads it, where a grant's
    name is a field of a list's item; None otherwise (the name is then
    replaced where it stands). None too for an item an alias shares: its
    text is where its anchor is, maybe in another list or object, and an
    entry written there would grant nothing here; the name replaced in a
    shared node is refused as every such edit is (_check_shared)."""
    listed = granting_list(ref)
    if listed is None:
        return None
    sequence, at = node_at(ref.referrer.node, listed), ref.path[-2]
    if not isinstance(sequence, SequenceNode) or not 0 <= at < len(sequence.value):  # type: ignore[operator]
        return None
    item = sequence.value[at]  # type: ignore[index]
    shared = ref.referrer.document.shared
    if not isinstance(item, MappingNode) or id(item) in shared or id(sequence) in shared:
        return None
    return sequence, item, _entry(item)  # type: ignore[return-value]


def _entry(item: Node) -> dict[str, object] | None:
    """A list item as kubectl reads it (merge keys merged, `~` null), where
    it is a mapping: what an entry like it is written from, as one line of
    JSON, so that every field it holds is granted alike."""
    value = to_json_value(item) if isinstance(item, MappingNode) else None
    return value if isinstance(value, dict) else None


def _alike(fields: dict[str, object], entry: dict[str, object], name_key: str | int) -> bool:
    """Whether two items grant alike but for their names."""
    return name_key in fields and {k: v for k, v in fields.items() if k != name_key} == \
        {k: v for k, v in entry.items() if k != name_key}


def _marks(base_name: str, name: str, digest: str, mutable: bool) -> dict[str, Value]:
    """A version's marks, from its _MarksKey."""
    base_label = label_value(base_name)
    labels: dict[str, Value] = {
        LABEL_VERSIONED: "true",
        LABEL_BASE_NAME: base_label,
        LABEL_CONTENT_HASH: digest,
    }
    metadata_values: dict[str, Value] = {"name": name, "labels": labels}
    if base_label != base_name:
        metadata_values["annotations"] = {ANNOTATION_ORIGINAL_NAME: base_name}
    top: dict[str, Value] = {"metadata": metadata_values}
    if not mutable:
        top["immutable"] = True
    return top


def _copy(doc: Document, version: Version, replaced: list[ScalarNode | str] | None = None) -> DocumentEdits:
    """`replaced`: the scalars the version's document has replaced, as
    DocumentEdits holds them (node, value, node, ...)."""
    copy = DocumentEdits(doc)
    obj = version.obj
    prepared = obj.prepared
    made = prepared.copy(obj) if prepared is not None and _expected_version(obj)[1] == version.name else None
    copy.set_ahead(obj, made, _copy_marks, version.name, _own_id(obj))
    if replaced:
        copy._replaced = replaced[:]
    return copy


def _copy_marks(name: str, own_id: tuple[tuple[str, str], ...] = ()) -> dict[str, Value]:
    return {"metadata": {"annotations": {ANNOTATION_VERSIONED: "false", ANNOTATION_COPY_OF: name, **dict(own_id)}}}


def _own_id(obj: KubeObject) -> tuple[tuple[str, str], ...]:
    """For a copy of an object kustomize renamed: the earlier names it
    records, replaced by the copy's own id. kustomize maps a name a
    reference still holds after the plugin to the object with that earlier
    name: the versioned one keeps them; on the copy too, a reference
    postrender did not rewrite would match both and fail the build ("found
    multiple possible referrals")."""
    if KUSTOMIZE_PREVIOUS_NAMES not in obj.annotations:
        return ()
    return _history([(obj.name or "", obj.kind, obj.namespace or "default")])


def _history_beside_copy(version: Version) -> tuple[tuple[str, str], ...]:
    """For a version that keeps an unsuffixed copy, of an object kustomize
    renamed: its earlier names, each that is the copy's own name (only
    `namespace:` moved it, so `secret` is still `secret`) replaced with the
    version's own id; () when none is. kustomize maps a name by the earlier
    names and then by the namespace the objects have now, which the two
    share: a reference to `secret` (held on the copy, or in a field only
    kustomize's configurations know) would match both and fail the build
    ("found multiple possible referrals"). It now matches the copy alone."""
    obj = version.obj
    if KUSTOMIZE_PREVIOUS_NAMES not in obj.annotations:
        return ()  # most objects: nothing to read
    earlier = previous_ids(obj)
    if all(name != obj.name for name, _, _ in earlier):
        return ()
    own = (version.name, obj.kind, obj.namespace or "default")
    return _history([own if entry[0] == obj.name else entry for entry in earlier])


def _history_renamed(obj: KubeObject) -> tuple[tuple[str, str], ...]:
    """For a version that keeps no copy, renamed under kustomize: its
    earlier names and the one it had here, as kustomize records its own
    renames. kustomize maps a name in a field only its `configurations:`
    know (a custom resource's) by those, after every transformer: without
    the name the object had, a field naming it was left naming nothing.
    (With a copy, the copy keeps that name, and a reference to it is the
    copy's: _history_beside_copy.)"""
    return _history([*previous_ids(obj), (obj.name or "", obj.kind, obj.namespace or "default")])


def _names_kustomize_maps(graph: Graph, plan: Plan) -> frozenset[int]:
    """The renamed versions without a copy whose name kustomize may map to
    them (_history_renamed): those no other object of their kind in their
    namespace competes with, by holding that name now (a generator's output
    too) or having held it (kustomize's own earlier names). Recorded beside
    a competitor, it would make the version a candidate for every name
    kustomize maps after the plugin, a reference postrender left as written
    (to a generator's output, say) among them, and kustomize's own rule
    (prefixes and suffixes) could take that reference to the version. Not
    recorded, the name is mapped as it would be without postrender: to the
    competitor."""
    index = graph.index
    recorded: set[int] = set()
    for version in plan.versioned:
        obj = version.obj
        if not version.renamed or version.keep_original or obj.name is None:
            continue
        namespace = index.namespace_of(obj)
        holders = [o for o in index.named(obj.group, obj.kind, obj.name)
                   if o is not obj and index.namespace_of(o) == namespace]
        renamed = [o for o, _ in index.previously_named(obj.group, obj.kind, obj.name)
                   if o is not obj and index.namespace_of(o) == namespace]
        if not holders and not renamed:
            recorded.add(id(obj))
    return frozenset(recorded)


def _history(ids: list[tuple[str, str, str]]) -> tuple[tuple[str, str], ...]:
    """kustomize's three annotations recording earlier (name, kind, namespace) ids."""
    return tuple((key, ",".join(entry[i] for entry in ids)) for i, key in
                 enumerate((KUSTOMIZE_PREVIOUS_NAMES, KUSTOMIZE_PREVIOUS_KINDS, KUSTOMIZE_PREVIOUS_NAMESPACES)))


def _copy_as_item(obj: KubeObject, whole: MappingNode, name: str) -> dict:
    """Inside a List the copy of `obj` (its whole mapping `whole`), kept for
    its version `name`, becomes a sibling item, written as one JSON line."""
    copy = to_json_value(whole)
    assert isinstance(copy, dict)
    metadata = copy.setdefault("metadata", {})
    annotations = {k: v for k, v in (metadata.get("annotations") or {}).items() if k not in IDENTITY_ANNOTATIONS}
    annotations.update(_copy_marks(name, _own_id(obj))["metadata"]["annotations"])
    metadata["annotations"] = annotations
    return copy
