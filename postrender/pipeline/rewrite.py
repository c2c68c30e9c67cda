"""Stage 5: turn the plan into text edits — renames, marks, rewritten
references, config hashes, retention marks. The only stage that makes edits:
the plan stage decides, this writes."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ..records import field, record
from ..syntax import edit
from ..syntax.edit import Edit, Value
from .graph.references import Graph, Reference
from .index.hashing import to_json_value
from ..errors import PostrenderError
from ..syntax.nodes import MappingNode, Node, ScalarNode, SequenceNode, get, node_at
from .plan.config_hash import Place
from .plan.keep import Retention
from .plan.versions import Plan, Version, label_value
from ..vocabulary import (
    ANNOTATION_CONFIG_HASH,
    ANNOTATION_COPY_OF,
    ANNOTATION_ORIGINAL_NAME,
    ANNOTATION_REFS,
    ANNOTATION_VERSIONED,
    IDENTITY_ANNOTATIONS,
    LABEL_BASE_NAME,
    LABEL_CONTENT_HASH,
    LABEL_SCOPE,
    LABEL_VERSIONED,
)
from .read import Document


@record
class Options:
    mutable: bool = False


@record(eq=False)
class DocumentEdits:
    """Changes to one document, merged per mapping so two stages that add
    keys under the same parent (say, pod-template annotations) never insert
    the same key twice."""

    document: Document
    raw: list[Edit] = field(default_factory=list)
    _entries: dict[int, tuple[MappingNode, dict[str, Value]]] = field(default_factory=dict)
    # Unsuffixed copies written after the document (`--keep-original`).
    copies: list["DocumentEdits"] = field(default_factory=list)

    # Shared (aliased) scalars being replaced: node and the values asked for.
    _shared_replaces: dict[int, tuple[ScalarNode, list[str]]] = field(default_factory=dict)
    # What the text edits mean, node by node (the output-validity test reads
    # them back): scalars replaced, and items inserted into sequences.
    replaced: list[tuple[ScalarNode, str]] = field(default_factory=list)
    inserted: list[tuple[SequenceNode, Node, object]] = field(default_factory=list)

    def set(self, mapping: MappingNode, values: dict[str, Value]) -> None:
        if self.document.shared:
            _refuse_shared(self.document, mapping, values)
        _, current = self._entries.setdefault(id(mapping), (mapping, {}))
        _merge(current, values)

    def values_at(self, mapping: MappingNode) -> dict[str, Value]:
        """What has been asked to be set in mapping so far (for `graph`)."""
        entry = self._entries.get(id(mapping))
        return entry[1] if entry is not None else {}

    def replace(self, node: ScalarNode, value: str) -> None:
        if id(node) in self.document.shared:
            self._shared_replaces.setdefault(id(node), (node, []))[1].append(value)
        self.replaced.append((node, value))
        self.raw.append(edit.replace_scalar(self.document.text, node, value))

    def insert_item(self, sequence: SequenceNode, before: Node, value: object) -> None:
        """A new item, `value` written as one line of JSON, ahead of `before`."""
        doc = self.document
        self.inserted.append((sequence, before, value))
        self.raw.append(edit.insert_item_before(doc.text, sequence, before, edit.json_line(value), doc.newline))

    def entries(self) -> list[tuple[MappingNode, dict[str, Value]]]:
        """Each mapping given keys, with every key and value it is given."""
        return list(self._entries.values())

    def edits(self) -> list[Edit]:
        doc = self.document
        for node, values in self._shared_replaces.values():
            # Fine only when every path to the node is a reference getting
            # the same new name (a container list reused with `*env`).
            if len(set(values)) > 1 or len(values) < doc.paths_to(node):
                raise _shared_error(doc, node)
        out = list(self.raw)
        for mapping, values in self._entries.values():
            edit.set_entries(doc.text, mapping, values, doc.newline, out)
        return out


def _refuse_shared(doc: Document, mapping: MappingNode, values: dict[str, Value]) -> None:
    """Keys are added or replaced in place; through an alias that would
    change every other place the node is used (or, under a merge key `<<`,
    hide the merged entries), so such input is refused."""
    if id(mapping) in doc.shared:
        raise _shared_error(doc, mapping)
    for key, value in values.items():
        current = get(mapping, key)
        if current is None:
            continue
        if isinstance(value, dict) and isinstance(current, MappingNode):
            _refuse_shared(doc, current, value)
        elif id(current) in doc.shared:
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
    by_document: dict[int, DocumentEdits]
    renamed: list[Version]
    rewritten: list[tuple[Reference, str]]

    def for_document(self, doc: Document) -> DocumentEdits | None:
        return self.by_document.get(doc.index)

    def edits_of(self, doc: Document) -> DocumentEdits:
        edits = self.by_document.get(doc.index)
        if edits is None:
            # Made only when missing: most calls find it.
            edits = self.by_document[doc.index] = DocumentEdits(doc)
        return edits


def rewrite(graph: Graph, plan: Plan, options: Options, held: Collection[int] = (),
            config_hashes: Sequence[Place] = (), retention: Retention = Retention()) -> Rewrite:
    """`held`: ids of references to leave as written (reloader.py);
    `config_hashes`: where config_hash.py put a hash; `retention`: keep.py's
    marks. Edits to one mapping merge, in this order."""
    result = Rewrite({}, [], [])
    _versions(plan, options, result)
    _references(graph, plan, held, result)
    _config_hashes(config_hashes, result)
    _retention(retention, result)
    return result


def _versions(plan: Plan, options: Options, result: Rewrite) -> None:
    for version in plan.versions:
        if not version.versioned or version.unchanged:
            continue
        doc = version.obj.document
        edits = result.edits_of(doc)
        edits.set(version.obj.node, _marks(version, options))
        if version.renamed:
            result.renamed.append(version)
        if version.keep_original:
            if version.obj.item is None:
                copy = DocumentEdits(doc)
                copy.set(version.obj.node, _copy_marks(version))
                edits.copies.append(copy)
            else:
                items = get(doc.root, "items")
                assert isinstance(items, SequenceNode)
                edits.insert_item(items, version.obj.node, _copy_as_item(version))


def _references(graph: Graph, plan: Plan, held: Collection[int], result: Rewrite) -> None:
    alive: set[tuple[str, str, str]] | None = None
    for ref in graph.references:
        if id(ref) in held:
            continue
        if ref.spec.grants:
            if alive is None:
                alive = plan.alive_names(graph.index)
            _grant(graph, plan, ref, alive, result)
            continue
        if ref.target is None:
            continue
        version = plan.of(ref.target)
        if version is None or not version.versioned or ref.name == version.name:
            continue
        new_value = ref.prefix + version.name
        result.edits_of(ref.referrer.document).replace(ref.node, new_value)
        result.rewritten.append((ref, new_value))


def _config_hashes(places: Sequence[Place], result: Rewrite) -> None:
    for p in places:
        result.edits_of(p.obj.document).set(p.holder, {"metadata": {"annotations": {ANNOTATION_CONFIG_HASH: p.value}}})


def _retention(retention: Retention, result: Rewrite) -> None:
    for mark in retention.marks:
        values: dict[str, Value] = {}
        if mark.scope:
            values["labels"] = {LABEL_SCOPE: mark.scope}
        if mark.keep:
            values["annotations"] = dict(mark.keep)
        result.edits_of(mark.obj.document).set(mark.obj.node, {"metadata": values})
    for refs in retention.records:
        result.edits_of(refs.referrer.document).set(
            refs.holder, {"metadata": {"annotations": {ANNOTATION_REFS: refs.value}}})


def _grant(graph: Graph, plan: Plan, ref: Reference, alive: set[tuple[str, str, str]], result: Rewrite) -> None:
    """A grant by name (RBAC resourceNames) gains each versioned name; the
    original stays where it still names an object: a kept copy, another
    namespace's object, or any namespace's for a cluster-wide grant."""
    targets = [ref.target] if ref.target is not None else ref.candidates
    names = sorted({v.name for t in targets if (v := plan.of(t)) is not None and v.versioned and v.name != ref.name})
    if not names:
        return
    namespace = graph.index.lookup_namespace(ref.referrer, ref.namespace)
    keep = namespace is None or (ref.target_kind, namespace, ref.name) in alive
    edits = result.edits_of(ref.referrer.document)
    doc = ref.referrer.document
    sequence = node_at(ref.referrer.node, ref.path[:-1]) if isinstance(ref.path[-1], int) else None
    if not isinstance(sequence, SequenceNode):
        edits.replace(ref.node, names[0])  # a lone name, not a list: nothing to add to
        result.rewritten.append((ref, names[0]))
        return
    added = names if keep else names[1:]
    if not keep:
        edits.replace(ref.node, names[0])
    style = ref.node.style if ref.node.style in ("", "'", '"') else '"'
    for name in added:
        edits.inserted.append((sequence, ref.node, name))
        edits.raw.append(edit.insert_item_before(doc.text, sequence, ref.node, edit.render_scalar(name, style),
                                                 doc.newline))
    result.rewritten.append((ref, ", ".join(([ref.name] if keep else []) + names)))


def _marks(version: Version, options: Options) -> dict[str, Value]:
    base_label = label_value(version.base_name)
    labels: dict[str, Value] = {
        LABEL_VERSIONED: "true",
        LABEL_BASE_NAME: base_label,
        LABEL_CONTENT_HASH: version.hash,
    }
    metadata_values: dict[str, Value] = {"name": version.name, "labels": labels}
    if base_label != version.base_name:
        metadata_values["annotations"] = {ANNOTATION_ORIGINAL_NAME: version.base_name}
    top: dict[str, Value] = {"metadata": metadata_values}
    if not options.mutable:
        top["immutable"] = True
    return top


def _copy_marks(version: Version) -> dict[str, Value]:
    return {"metadata": {"annotations": {ANNOTATION_VERSIONED: "false", ANNOTATION_COPY_OF: version.name}}}


def _copy_as_item(version: Version) -> dict:
    """Inside a List the copy becomes a sibling item, written as one JSON line."""
    copy = to_json_value(version.obj.node)
    assert isinstance(copy, dict)
    metadata = copy.setdefault("metadata", {})
    annotations = {k: v for k, v in (metadata.get("annotations") or {}).items() if k not in IDENTITY_ANNOTATIONS}
    annotations.update({ANNOTATION_VERSIONED: "false", ANNOTATION_COPY_OF: version.name})
    metadata["annotations"] = annotations
    return copy
