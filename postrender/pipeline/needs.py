"""What the stages after read need of each document, so read can drop the rest.

Every document stays alive from read to write, and a composed node costs
some 210 bytes: kept whole, the node graphs are most of a render's memory.
So the field-spec walk runs here, once per object while its document is
fresh (references.Finder): its references and pod strings keep only their
own scalars, and its pod templates are read into facts (their paths and
annotations: references.PodTemplate). Then each stage says which nodes of
an object it still reads (its `reads`), and the rest is pruned
(syntax/prune.py). A ConfigMap's or Secret's content is read into facts
(index/configs.py) and its own edits, its version's marks, are made while
it is whole (rewrite.prepare), so none of its tree stays, with the marks
of what it is kept for in runs that record them (rewrite.PreparedRetained);
a List's config keeps its whole item in those runs, and in runs that may
copy it (its copy is made from it). Kept whole: producers and the
objects a kindFrom spec looks up. A List's items are walked and pruned one
by one as they are composed (`item`, read.parts._Items). Of every
other object: the lists and RBAC rules around names that grants add to.
In runs that give most workloads keys (a config hash, a record of what
each uses), those keys are located as each workload is read, as a
config's marks are (rewrite.TemplatesAhead), and none of its metadata is
kept for them; but a List's item keeps its metadata and its pod templates'.
An edit that gives a mapping read did not keep keys otherwise composes its
document again as it is written (rewrite.DocumentEdits), as the guard does
each document that may hold a finding (check/guard.py).

A large document (read.compose.DROP_FROM) is pruned as it is composed instead
(`reach`, read.parts._Dropping): what no stage reads is dropped as the next entry
starts, and a config's data entries are read into its content hash one by
one (index/folding.py, `folder`), so a dense one is never held whole.

A document with aliases or merge keys is pruned too (but a List sharing
nodes, whose graph peaks as it is read and which the guard walks as read),
once read's whole-graph checks are done: an alias makes one node sit at
several paths, so what a kept-whole node holds is never pruned through
another path, and the shared nodes' facts are kept (read.shared.KeptShared: which
nodes still held are shared, and how many paths led to each); a merge
key's value is never stubbed, as `get` finds keys in it (syntax/prune.py).
Its objects' edits are not made ahead: they are checked against the nodes
they would change through an alias as they are asked for (rewrite.py).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator
from itertools import chain

from ..fieldspecs import ARGUMENT_FIELDS, ReferenceTable, Segment, flag_spellings
from ..fieldspecs.walk import WILDCARD, Compiled, PathTree, SpecIndex
from ..syntax.nodes import (
    WHOLE_REACH, Fold, StringItems, MappingNode, Node, Reach, ScalarNode, SequenceNode, may_hold_merge_keys, node_at,
    StubMapping, StubSequence, unique_nodes,
)
from ..syntax.prune import Path, prune, stub
from .graph import byname, dependencies, producers, references
from .graph.references import is_config_object
from .index import folding
from .index.configs import content_of, hold_as_hash, in_content
from .read.compose import object_path
from .read.documents import Document, KubeObject
from .read.shared import ItemsShared, KeptShared, path_counts


def _set_kept_for_edits(doc: Document, objects: list[KubeObject], kept: list[bool], listed: bool) -> None:
    """Whether the document, or else which of its List's items (`kept`, one
    per object), can take keys where they are: the others are composed
    again for edits (rewrite.DocumentEdits)."""
    doc.kept_for_edits = all(kept)
    if listed and not doc.kept_for_edits and any(kept):
        doc.items_kept_for_edits = frozenset(obj.item for obj, can in zip(objects, kept) if can)  # type: ignore[misc]


class Needs:
    """read's pruner for one field-spec table (read.pruner.Pruner)."""

    def __init__(self, table: ReferenceTable, scanned: SpecIndex, prune: bool = True,
                 edits_everywhere: bool = False, prepare: Prepare | None = None,
                 copies: Callable[[str], bool] | None = None,
                 prepare_templates: PrepareTemplates | None = None) -> None:
        """`scanned`: the pod-string paths walked with the field specs
        (byname.pod_string_specs), the index graph.build is given too.
        `prune`: False walks each object as it is read but keeps every node
        (tests compare the two). `edits_everywhere`: the run gives most
        workloads keys (--strategy=annotate puts a config hash on every pod
        template, --keep-previous and --retain a record of what each uses),
        so their metadata and pod templates' metadata are kept for those
        edits, unless located ahead (`prepare_templates`); otherwise such an
        edit is rare, and composes its document again (rewrite.py).
        `prepare`: makes a config's own edits (its version's marks, and in
        a run that records what each is kept for, those marks too) from its
        whole mapping, so that none of its tree need be kept
        (rewrite.prepare); None keeps their trees, or what returns None
        keeps its own. Any edit to a config other than the marks made ahead
        composes its document again as it is written (rewrite.py), so this
        is about memory, never about what is written. `copies`: whether the
        run keeps a copy of a versioned object of a kind (unless the object
        says otherwise): a List's item is copied from its tree
        (rewrite._copy_as_item), so such a config item is kept whole.
        `prepare_templates`: in a run that gives most workloads keys, locates
        the annotations it gives a workload's pod templates (or its own
        metadata, if it has none) while its document is whole, so that
        neither need be kept (rewrite.TemplatesAhead); None: they are kept."""
        # read.pruner.Pruner's: only a pruner that prunes takes a List's items one
        # by one as they are composed (`item`), so as never to hold it whole.
        self.prunes = prune
        self._edits_everywhere = edits_everywhere
        self._prepare = prepare
        self._copies = copies
        self._prepare_templates = prepare_templates
        self._table = table
        self._finder = references.Finder(table, scanned)
        # Each object (which hashes by identity) -> what the walk found in it
        # (found_in): keyed by the object, not an id, which would be an int
        # object of its own per object (2.5 MiB at 80,000 objects). Only
        # objects it found something in: every object read is walked, and
        # most configs and Services hold nothing (100,000 tiny ConfigMaps:
        # a 5 MiB table of nothing). Looked up with .get where read asks it
        # for each object, not through found_in: a method call an object
        # costs 20,000 tiny ConfigMaps 0.25% of their instructions.
        self._found: dict[KubeObject, references.Found] = {}
        self._readers: _Readers | None = None  # made when a document is first pruned
        self._reaches: dict[tuple[str, str], Reach | None] = {}
        self._folder: folding.ConfigFolder | None = None  # the last document's (folder)
        self._taken: references.TakenStrings | None = None  # the last document's (string_taker)

    def __call__(self, doc: Document, objects: list[KubeObject], walked: bool = False) -> None:
        """`walked`: read gave each object to `item` already."""
        if not walked:
            for obj in objects:
                self._walk(obj)
        # Every document, small ones too: the walk is done, and what the
        # stages still read is a few paths (prune follows only those). But a
        # List that shares nodes: composed whole, it peaks as it is read, and
        # the guard walks its graph as read (check/guard._whole_root), where
        # composing it again pruned peaked higher (the 5,000 bench apps as
        # one List, one anchor and its alias: 289 -> 297 MiB).
        shares = bool(doc.shared)
        shared_list = shares and objects and objects[0].item is not None
        if shared_list and self.prunes and type(doc.shared) is ItemsShared:
            self._kept_for_edits(doc, objects)
        if not self.prunes or doc.root is None or not objects or shared_list:
            return
        merges = may_hold_merge_keys(doc.text)
        readers = self._readers_made()
        for obj in objects if not walked and not shares and not merges else ():
            self._prepared(obj, readers)
        keep: list[tuple[Path, bool]] = []
        for obj in objects:
            found = self._found.get(obj, references.NOTHING)
            if readers.reads_nothing(obj, found):
                continue
            at = object_path(obj)
            for path, all_of_it in readers.reads(obj, found):
                if all_of_it and not at and not path:
                    return  # the whole document stays
                keep.append((at + path, all_of_it))
        listed = objects[0].item is not None
        if listed:
            keep.append((("items",), False))  # where a copy of an item goes (rewrite._mark)
            # And the rest of the List's own mapping, a few small entries: a
            # KRM ResourceList's functionConfig is read after it (krm.py).
            keep.extend(((key.value,), True) for key, _ in doc.root.value  # type: ignore[union-attr]
                        if isinstance(key, ScalarNode) and key.value != "items")
        # What the rewrite asks of its shared nodes, known while it is whole.
        facts = KeptShared(self._paths_counted(doc, objects), doc.root) if shares else None
        if keep:
            prune(doc.text, doc.root, keep, shares, merges)
        else:
            # No stage reads anything of it (most workloads and Services in
            # a run that edits few of them): not even the keys stay. An
            # empty mapping stands for the object, where it was.
            doc.root = objects[0].node = stub(doc.text, doc.root)
        if facts is not None:
            facts.hold(self._shared_held(doc, objects))
            doc.shared = facts
        for obj in objects if listed else ():
            # A List's item no path kept is a stub in the list now; the
            # object must not hold the whole item on by itself.
            kept = node_at(doc.root, object_path(obj))
            obj.node = kept if isinstance(kept, MappingNode) else stub(doc.text, obj.node)
        # A config object whose edits were not made ahead keeps all they
        # touch (its metadata, and the scalars beside it); a workload, only
        # in runs that give most of them keys, and only if it may get them.
        kept = [readers.kept_for_edits(obj, self._found.get(obj, references.NOTHING)) for obj in objects]
        _set_kept_for_edits(doc, objects, kept, listed)

    def _kept_for_edits(self, doc: Document, objects: list[KubeObject]) -> None:
        """Of a List read item by item though it shares nodes (read.shared.ItemsShared),
        which items can take keys where they are: those kept whole, and those
        `item` pruned that kept what their edits touch; the others are
        composed again for edits (rewrite.DocumentEdits)."""
        readers = self._readers_made()
        whole = doc.shared.whole  # type: ignore[union-attr]
        kept = [obj.item in whole or readers.kept_for_edits(obj, self._found.get(obj, references.NOTHING))
                for obj in objects]
        _set_kept_for_edits(doc, objects, kept, listed=True)

    def _paths_counted(self, doc: Document, objects: list[KubeObject]) -> dict[int, int]:
        """How many paths lead to each shared node the walk found in a
        document (a reference's scalar, which the rewrite may replace:
        rewrite._check_shared), counted in its whole graph before it is
        pruned; none where it found no shared one (a ConfigMap whose values
        alias one anchored value: its graph is not walked again)."""
        shared = doc.shared
        found = [id(node) for node in self._found_nodes(objects) if id(node) in shared]
        if not found:
            return {}
        return path_counts(doc.root, found)  # type: ignore[arg-type]

    def _found_nodes(self, objects: Iterable[KubeObject]) -> Iterator[object]:
        """The nodes the walk found in `objects` and holds apart from their
        tree: references' scalars, pod strings."""
        for obj in objects:
            found = self._found.get(obj, references.NOTHING)
            yield from (ref.node for ref in found.references)
            yield from found.strings.nodes

    def _shared_held(self, doc: Document, objects: list[KubeObject]) -> frozenset[int] | tuple[int, ...]:
        """The ids of doc.shared that a pruned document still holds, in its
        tree or as what the walk found (`_found_nodes`) (read.shared.KeptShared).
        Not a stub's: prune made those, and one may have taken the id of a
        node it had just let go of. A few as a tuple: most such documents
        hold one or two, and a frozenset is 216 bytes (25,000 apps, each
        Deployment with an anchor, aliases and a merge key: 4 MiB)."""
        ids = self._held_ids(doc.root, objects, doc.shared)  # type: ignore[arg-type]
        return tuple(ids) if len(ids) <= _HELD_AS_TUPLE else ids

    def _held_ids(self, root: Node, objects: Iterable[KubeObject], shared: Container[int]) -> frozenset[int]:
        """The ids of `shared` still held under `root`, pruned, or as what
        the walk found in `objects` (`_found_nodes`): not a stub's
        (`_shared_held`, `shared_item`)."""
        held = chain((node for node in unique_nodes(root) if not isinstance(node, (StubMapping, StubSequence))),
                     self._found_nodes(objects))
        return frozenset(id(node) for node in held if id(node) in shared)

    def item(self, obj: KubeObject, items: SequenceNode, whole: bool = False) -> None:
        """Walks a List's item as soon as it is composed, and prunes it
        there, where `items` holds it, as the whole List is pruned once read
        (`__call__`, with walked=True, which finds the same paths to keep:
        pruning what is pruned already changes nothing). Only for a List
        read finds without aliases and merge keys, or an item that holds
        none of them in a List that does (read.parts._SharingItems), whose edits
        are made ahead here as any such item's (the 5,000 bench apps as one
        List, one anchor and its alias: 151 -> 106 MB). `whole`: an item of
        such a List that may share nodes, only walked, kept whole, its edits
        made as a List read whole makes them (`__call__`)."""
        folded = self._walk(obj)
        if whole:
            return
        found = self._found.get(obj, references.NOTHING)
        readers = self._readers_made()
        self._prepared(obj, readers, whole=not folded)
        if folded and obj.prepared is None:
            # Its edits need its tree (a copy of the item is made from it),
            # and its data was read into its content as composed: the List
            # is composed again whole (read.parts._DroppingItems).
            raise _NeedsWhole(obj.describe())
        at = obj.item
        assert at is not None and items.value[at] is obj.node
        keep = [] if readers.reads_nothing(obj, found) else list(readers.reads(obj, found))
        if keep:
            prune(obj.document.text, obj.node, keep)
        else:
            # As the List's prune leaves an item no path leads into. (An
            # item read found an object in is never empty: it has a kind.)
            items.value[at] = obj.node = stub(obj.document.text, obj.node)  # type: ignore[assignment]

    def shared_item(self, obj: KubeObject, items: SequenceNode, shared: frozenset[int],
                    merges: bool) -> tuple[frozenset[int], dict[int, int]]:
        """Walks and prunes a List's item whose anchors and aliases are all
        its own (read.parts._SharingItems), once read checked it, as `__call__`
        prunes a document sharing nodes: no edit made ahead, what a node
        kept whole holds kept whole, the paths to each shared node the walk
        found counted while it is whole. The ids of the shared nodes it
        still holds, and those counts (read.shared.ItemsShared). A List of 4,000
        small apps, each Deployment sharing nodes within itself: 183 -> 105 MB peak RSS."""
        # (Nothing folded: _SharingItems composes its items whole, and only
        # a composer that drops what it reads sets a folder: `item`, `_walk`.)
        self._walk(obj)
        found = self._found.get(obj, references.NOTHING)
        readers = self._readers_made()
        counted = [id(node) for node in self._found_nodes((obj,)) if id(node) in shared]
        paths = path_counts(obj.node, counted) if counted else {}
        keep = [] if readers.reads_nothing(obj, found) else list(readers.reads(obj, found))
        text = obj.document.text
        if keep:
            prune(text, obj.node, keep, True, merges)
        else:
            items.value[obj.item] = obj.node = stub(text, obj.node)  # type: ignore[index]
        return self._held_ids(obj.node, (obj,), shared), paths

    def reach(self, kind: str, api_version: str, item: bool = False) -> Reach | None:
        """Where in an object of this kind a stage may read, for a large
        document composed with what prune would drop dropped as it goes
        (pipeline/read, DroppingComposer); None: keep all of it. A stage reads an
        object along its field specs and the scanned pod-string specs (the
        walk), all of its metadata and pod templates, and nothing else
        (`reads`), but for the kinds kept whole or read by rules of their
        own: configs, the kinds a kindFrom spec looks up or reads, producers,
        grants by name, Lists. Decided once per kind and apiVersion.

        `item`: of a List's item, as of a document, but a config's data is
        read into its content only where its edits are made ahead and the
        run keeps no copy of its kind: else the item is kept whole, as its
        copy is made from it (an item that asks for a copy itself is
        composed again whole: `item`)."""
        key = (kind, api_version, item)
        if key not in self._reaches:
            self._reaches[key] = self._reach_of(kind, api_version, item)
        return self._reaches[key]

    def _reach_of(self, kind: str, api_version: str, item: bool) -> Reach | None:
        group, _, version = api_version.rpartition("/")
        if (not self.prunes or kind.endswith("List")
                or kind in self._readers_made().looked_up
                or references.kind_from_paths_of(self._table, kind, api_version)
                or producers.may_produce(kind) or byname.grants_by_name(kind, group)):
            return None
        walked = self._finder.walked(kind, group, version)
        if references.is_config_kind(kind, api_version):
            # All of it is read while it is whole (_walk), its data but
            # into its content (index/folding.py): unless a field spec
            # walks the data too.
            if item and (self._prepare is None or self._copies is not None and self._copies(kind)):
                return None
            folded = folding.STRING_FIELDS[kind]
            if walked is not None and any(segment.key in folded or segment.key == "*"
                                          for segment in walked[0].tree.children):
                return None
            return folding.fold_reach(kind)
        templates = self._table.template_paths(kind, group, version)
        # A Pod is its own pod template (the empty path): all of it is read.
        reach: Reach = {"*": WHOLE_REACH} if () in templates else {}
        if walked is not None:
            _add_tree(reach, walked[0].tree)
        for template in templates:
            if template:
                _add_path(reach, [segment.key for segment in template])
        reach["metadata"] = WHOLE_REACH
        _merge_wildcards(reach)
        if walked is not None and not item:
            for template in templates:
                _take_container_strings(reach, template, *walked)
        return reach

    def folds_ahead(self, field: str, api_version: str, item: bool, kind_after: Callable[[], str | None]) -> bool:
        """Whether an object's `field` written before its kind (a config's
        data, in kustomize's and kubectl's order) is worth reading entry by
        entry as it is composed, the kind not known yet (read.parts._Dropping):
        where the kind the text says it will be (`kind_after`), or else every
        config kind that has the field, reads it so (`reach`). Else it would
        be composed again whole once the kind is known."""
        having = [kind for kind, fields in folding.STRING_FIELDS.items() if field in fields]
        folding_it = [kind for kind in having
                      if (reach := self.reach(kind, api_version, item)) is not None
                      and reach.get(field).__class__ is Fold]
        if not folding_it:
            return False  # no config's data, or none folded here
        named = kind_after()
        return named in folding_it if named is not None else folding_it == having

    def forget(self, objects: list[KubeObject]) -> None:
        """Drops what `item` found in objects read will not keep: a List it
        reads again whole (pipeline/read)."""
        for obj in objects:
            self._found.pop(obj, None)

    def folder(self, kind: str | None) -> folding.ConfigFolder:
        """What takes the entries of a large config's data as its document
        is composed (read.parts._Dropping, the Reach's Fold marks): the next
        object walked whose node is its root reads its content from it."""
        self._folder = folding.ConfigFolder(kind, byname.NAMES)
        return self._folder

    def string_taker(self) -> references.TakenStrings:
        """What takes a large workload's plain env items out as its document
        is composed (read.parts._Dropping, the Reach's StringItems marks): the
        next object walked whose node is its root has their strings."""
        self._taken = references.TakenStrings()
        return self._taken

    def _walk(self, obj: KubeObject) -> bool:
        """Whether the object is a config whose data entries were read as
        they were composed (`folder`), and are not in its tree."""
        taken, self._taken = self._taken, None
        found = self._finder(obj, taken if taken is not None and taken.root is obj.node else None)
        if found is not references.NOTHING:
            self._found[obj] = found
        references.templates_read(obj, self._table)
        if not is_config_object(obj):
            return False
        folder, self._folder = self._folder, None
        folded = folder is not None and folder.root is obj.node
        content_of(obj, folder if folded else None)
        byname.data_names(obj)
        return folded

    def _prepared(self, obj: KubeObject, readers: _Readers, whole: bool = True) -> None:
        """A config's own edits made ahead, from its tree, so that none of it
        need stay (a List's item too: its copy made ahead as well). `whole`:
        False when its data entries are not in its tree (`_walk`). And a
        workload's keys located ahead (`prepare_templates`), but a List's
        item's: those keep their metadata, as the List is composed again
        item by item for edits (rewrite.DocumentEdits)."""
        if is_config_object(obj):
            # Not the marks of one that names another config (a user's field
            # spec): in its data, its hash, and so its name, is known only
            # once the plan has named what it names
            # (versions._hash_data_as_written_out); anywhere, it may get a
            # record of what it uses beside them (keep.py).
            if (self._prepare is not None and obj.kind not in readers.looked_up
                    and not self._found.get(obj, references.NOTHING).references):
                obj.prepared = self._prepare(obj, obj.node, whole)
            hold_as_hash(obj)  # read asks no more of its content
        elif (self._prepare_templates is not None and obj.item is None and obj.kind not in readers.looked_up
              and readers.takes_keys(obj, self._found.get(obj, references.NOTHING))):
            paths = [template.path for template in references.pod_templates(obj, self._table)]
            obj.prepared = self._prepare_templates(obj, obj.node, paths or [()])

    def _readers_made(self) -> _Readers:
        if self._readers is None:
            self._readers = _Readers(self._table, self._edits_everywhere)
        return self._readers

    def found_in(self, obj: KubeObject) -> references.Found:
        """What the field-spec walk found in an object as it was read, for
        graph.build: read gives this pruner every object it reads."""
        return self._found.get(obj, references.NOTHING)

    def take_found(self, obj: KubeObject) -> references.Found:
        """found_in, let go of as it is given: for a render's graph.build,
        which asks once for each object and builds it into the graph, so
        each is let go of as the graph grows, not all at its end (25,000
        Deployments whose flags name a Secret: 16 MiB of them beside the
        strings build gathers, its traced peak)."""
        return self._found.pop(obj, references.NOTHING)


def _add_tree(reach: Reach, tree: PathTree) -> None:
    """Adds the paths of a prefix tree of field-spec paths (fieldspecs.walk)."""
    for segment, below in tree.children.items():
        here = reach.get(segment.key)
        if here is WHOLE_REACH:
            continue
        if here is None:
            here = reach[segment.key] = {}
        _add_tree(here, below)  # type: ignore[arg-type]


def _add_path(reach: Reach, keys: list[str]) -> None:
    """Adds a path everything under which is read."""
    for key in keys[:-1]:
        here = reach.get(key)
        if here is WHOLE_REACH:
            return
        if here is None:
            here = reach[key] = {}
        reach = here  # type: ignore[assignment]
    reach[keys[-1]] = WHOLE_REACH


def _take_container_strings(reach: Reach, template: tuple[Segment, ...], compiled: Compiled, own: int) -> None:
    """Marks the `env`, `args` and `command` of a pod template's containers
    StringItems, where the template is read whole (a large document's,
    read.parts._Dropping; a Pod's template is the object itself, the empty path):
    their plain items are read only for their strings, pod strings, which
    the walk merges in from columns (references.TakenStrings); an argument
    a flag spec reads as a name stays. Only where the walk's tree
    (`compiled`, its first `own` specs reference specs) says so: no `*` or
    filter on the way, which would read the items otherwise, but a filtered
    `env`'s: the items it passes stay."""
    keys = [segment.key for segment in template]
    if any(segment.filters for segment in template):
        return
    holder: object = reach
    for key in keys[:-1]:
        holder = holder.get(key) if holder.__class__ is dict else None  # type: ignore[attr-defined]
    if holder.__class__ is not dict:
        return
    read_whole = holder.get(keys[-1]) if keys else _below(holder, "spec")  # type: ignore[arg-type, attr-defined]
    if read_whole is not WHOLE_REACH:
        return
    pod = _step(compiled.tree, keys + ["spec"])
    if pod is None or any(segment.key == WILDCARD for segment in pod.children):
        return
    containers: Reach = {}
    for segment, below in pod.children.items():
        marks = _container_marks(below, compiled, own) if not segment.filters else {}
        if marks:
            containers[segment.key] = {"*": WHOLE_REACH, **marks}
    # A filtered spec beside (`containers[name=x]/...`) reads the same items otherwise.
    if not containers or any(segment.filters for segment in pod.children if segment.key in containers):
        return
    spec: Reach = {"*": WHOLE_REACH, **containers}
    if keys:
        holder[keys[-1]] = {"*": WHOLE_REACH, "spec": spec}  # type: ignore[index]
    else:
        reach["spec"] = spec  # the object is its template: its own `*` reaches the rest whole


def _below(reach: Reach, key: str) -> object:
    """What a reach gives `key`: its own, or its `*`'s."""
    return reach.get(key, reach.get("*"))


def _container_marks(container: PathTree, compiled: Compiled, own: int) -> Reach:
    """The StringItems marks for one container list's items (_take_container_strings)."""
    marks: Reach = {}
    envs = [(step, tree) for step, tree in container.children.items() if step.key in ("env", WILDCARD)]
    plain = [tree for step, tree in envs if step.key == "env" and not step.filters]
    # An item a filtered spec reads (`env[name=...]/value`) stays whole.
    filtered = [step for step, _ in envs if step.filters]
    if len(plain) == 1 and all(step.key == "env" for step, _ in envs) and _strings_only(plain[0], own):
        marks["env"] = StringItems(references.passing_any(filtered))
    if any(step.key == WILDCARD for step in container.children):
        return marks
    for key in ARGUMENT_FIELDS:
        flags = _argument_flags(container, key, compiled, own)
        if flags is not None:
            marks[key] = StringItems(flags=flags, first="" if key == "command" else None)
    return marks


def _argument_flags(container: PathTree, key: str, compiled: Compiled, own: int) -> frozenset[str] | None:
    """Every spelling of the flags whose specs read a container's `key` list
    (`args`, `command`) for names, where its items are read only by those
    and by one scanned spec, a pod string's; else None."""
    steps = [(step, tree) for step, tree in container.children.items() if step.key == key]
    if len(steps) != 1 or steps[0][0].filters or steps[0][1].children:
        return None
    ends = steps[0][1].ends
    specs = [compiled.specs[position] for position in ends if position < own]
    if len(ends) - len(specs) != 1 or any(not spec.flags or spec.grants or spec.kind_from for spec in specs):
        return None
    return frozenset(spelling for spec in specs for spelling in flag_spellings(spec.flags))


def _step(tree: PathTree, keys: list[str]) -> PathTree | None:
    """The tree's node along `keys`, each one segment without filters, none
    beside a `*`; else None."""
    for key in keys:
        found = [(segment, below) for segment, below in tree.children.items() if segment.key in (key, WILDCARD)]
        if len(found) != 1 or found[0][0].filters or found[0][0].key != key:
            return None
        tree = found[0][1]
    return tree


def _strings_only(env: PathTree, own: int) -> bool:
    """Whether what the walk reads of a plain env item (_take_env_strings)
    is its `value`, as one scanned spec's leaf (a position past `own`)."""
    keys = {segment.key for segment in env.children}
    value = _step(env, ["value"])
    return ("name" not in keys and WILDCARD not in keys and not any(segment.filters for segment in env.children)
            and value is not None and not value.children and len(value.ends) == 1 and value.ends[0] >= own)


def _merge_wildcards(reach: Reach) -> None:
    """Gives each key named beside a `*` what `*` reaches too (Reach)."""
    anything = reach.get("*")
    for key, below in list(reach.items()):
        if anything is not None and key != "*":
            reach[key] = _union(below, anything)
    for below in reach.values():
        if below is not WHOLE_REACH:
            _merge_wildcards(below)  # type: ignore[arg-type]


def _union(a: Reach | bool, b: Reach | bool) -> Reach | bool:
    if a is WHOLE_REACH or b is WHOLE_REACH:
        return WHOLE_REACH
    merged: Reach = dict(a)  # type: ignore[arg-type]
    for key, below in b.items():  # type: ignore[union-attr]
        merged[key] = _union(merged[key], below) if key in merged else below
    return merged


class _Readers:
    """What the stages read of one object, asked of each in turn."""

    def __init__(self, table: ReferenceTable, edits_everywhere: bool) -> None:
        self._table = table
        self.looked_up = table.kind_from_kinds()
        self._edits_everywhere = edits_everywhere
        # (kind, apiVersion) -> whether no stage reads an object of it in
        # which the walk found no reference (reads_nothing).
        self._quiet: dict[tuple[str, str], bool] = {}
        # The object takes_keys was last asked about, and its answer.
        self._takes: tuple[KubeObject | None, bool] = (None, False)

    def reads_nothing(self, obj: KubeObject, found: references.Found) -> bool:
        """Whether `reads` would give nothing for `obj`, known without asking
        each stage: an object the walk found no reference in, of a kind no
        stage reads for its kind alone (most configs and Services). Decided
        once per kind (needs -2% instructions on 20,000 ConfigMaps)."""
        if found.references:
            return False
        key = (obj.kind, obj.api_version)
        quiet = self._quiet.get(key)
        if quiet is None:
            quiet = self._quiet[key] = not (
                obj.kind in self.looked_up
                or references.kind_from_paths(obj, self._table) or producers.may_produce(obj.kind))
        # A config whose edits were not made ahead keeps what they touch.
        return quiet and (obj.prepared is not None or not is_config_object(obj)) and not (
            self._edits_everywhere and self.keeps_for_keys(obj, found))

    def takes_keys(self, obj: KubeObject, found: references.Found) -> bool:
        """In a run that gives most workloads keys (edits_everywhere): whether
        `obj` is one that may get them: a referrer, or an object whose
        annotations (or its templates') declare a dependency. Its keys are
        located as it is read, or else it keeps its metadata and its pod
        templates' (keeps_for_keys). Any other object a rarer edit reaches
        has its document composed again as it is written (rewrite.py)."""
        if not self._edits_everywhere:
            return False
        last, takes = self._takes
        if last is not obj:
            takes = bool(found.references) or dependencies.declares(obj.annotations) or any(
                dependencies.declares(template.annotations) for template in references.pod_templates(obj, self._table))
            # reads_nothing, reads and kept_for_edits ask of each object in turn.
            self._takes = (obj, takes)
        return takes

    def keeps_for_keys(self, obj: KubeObject, found: references.Found) -> bool:
        """Whether `obj` takes keys (takes_keys) that were not located ahead
        (Needs' `prepare_templates`), so keeps its metadata and its pod
        templates' for them."""
        return self.takes_keys(obj, found) and (obj.prepared is None or is_config_object(obj))

    def kept_for_edits(self, obj: KubeObject, found: references.Found) -> bool:
        """Whether what `reads` keeps of `obj` can take the keys the run
        gives it: a config whose edits were not made ahead keeps all they
        touch; an object that takes keys not located ahead, its metadata
        and its pod templates' (keeps_for_keys)."""
        return is_config_object(obj) and obj.prepared is None or self.keeps_for_keys(obj, found)

    def reads(self, obj: KubeObject, found: references.Found) -> Iterator[tuple[Path, bool]]:
        if obj.kind in self.looked_up:
            yield (), True
            return
        takes_keys = self.keeps_for_keys(obj, found)
        if is_config_object(obj):
            if obj.prepared is None:
                # Its content was read (index/configs.py), but not its edits made.
                # A List's item is copied from its nodes (rewrite._copy_as_item).
                yield ((), True) if obj.item is not None else (("metadata",), True)
            # A reference in its own data: the plan hashes the data again as
            # it is written out (versions._hash_data_as_written_out).
            if found.references:
                yield from {((field,), True) for field in _in_data(obj, found)}
        elif takes_keys:
            yield ("metadata",), True
        yield from references.reads(obj, self._table, found, takes_keys)
        yield from byname.reads(obj, found)
        yield from producers.reads(obj)


def _in_data(config: KubeObject, found: references.Found) -> set[str]:
    """The fields of a config's content (data, binaryData, stringData) the
    walk found a reference in: mostly none, found in a spec's field specs."""
    return {ref.path[0] for ref in found.references if in_content(config, ref.path)}


# A config object, its mapping, and whether that holds its data entries ->
# its edits made ahead, or None (rewrite.prepare, with the run's options).
Prepare = Callable[[KubeObject, MappingNode, bool], object | None]
# A workload, its mapping and the paths of its pod templates (the empty
# path: its own metadata) -> the keys the run gives them located, or None
# (rewrite.prepare_templates, with the run's keys).
PrepareTemplates = Callable[[KubeObject, MappingNode, list], object | None]


class _NeedsWhole(Exception):
    """A List's item read as it was composed cannot be read so (`item`):
    read composes the List again whole (read.parts._Items)."""


# KeptShared.ids of at most this many shared nodes are a tuple, not a frozenset (_shared_held).
_HELD_AS_TUPLE = 8
