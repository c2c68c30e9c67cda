"""What `postrender graph` shows, independent of how it is written: edges
from referrers to config objects, the config objects, the config hashes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ...pipeline.check import broken, guard
from ...pipeline.graph.references import Resolution
from ...pipeline.index.objects import IMPLICIT
from ...pipeline.read.documents import KubeObject


@dataclass
class Edge:
    referrer: KubeObject
    field: str
    position: int  # of the name in its document, for reading order
    kind: str
    name: str  # as written
    namespace: str  # where the name is looked up ("(default)": the implicit one, "*": any)
    target: KubeObject | None
    # resolved, cross-namespace, ambiguous, dangling, optional, produced, produces, unsupported,
    # unrewritten (a field no field spec covers still names a renamed object: the guard's finding),
    # broken (a name left on an object the render removes: the render fails unless allowed)
    status: str
    note: str
    via: str  # "field spec", "producer", "guard", or the annotation's origin
    # The render leaves the name as written (Reloader, an immutable template,
    # a hook, keepsName, an annotation that declares a dependency): the
    # target's final name is not what it says.
    held: bool = False


@dataclass
class ConfigNode:
    obj: KubeObject
    final_name: str
    excluded: str | None
    referenced: bool
    copy: bool  # also written unsuffixed
    # What the render sets on it besides its name: immutable, labels, annotations.
    marks: dict = field(default_factory=dict)


@dataclass
class HashNode:
    referrer: KubeObject
    field: str
    covers: list[str]


@dataclass
class RefsNode:
    """A `postrender.io/refs` record (--keep-previous, --retain): what the
    referrer uses, where it goes."""

    referrer: KubeObject
    field: str
    value: str


@dataclass
class View:
    edges: list[Edge]
    configs: list[ConfigNode]
    hashes: list[HashNode]
    describe: Callable[[KubeObject], str]  # "Kind/namespace/name"
    namespace: Callable[[KubeObject], str | None]  # None: the implicit one
    warnings: list[str] = field(default_factory=list)  # the render's, word for word
    by_object: dict[int, ConfigNode] = field(default_factory=dict)
    refs: list[RefsNode] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.by_object = {id(c.obj): c for c in self.configs}

    def config_of(self, obj: KubeObject) -> ConfigNode | None:
        return self.by_object.get(id(obj))


def build_view(analysis, result=None, warnings: list[str] | None = None) -> View:
    """analysis: render.Analysis; result: the render.Result, for what the
    rewrite set and what the guard found."""
    graph, the_plan = analysis.graph, analysis.plan
    index = graph.index

    def describe(obj: KubeObject) -> str:
        return index.describe(obj)

    def _namespace_label(stated: str | None, referrer: KubeObject) -> str:
        namespace = index.lookup_namespace(referrer, stated)
        if namespace is None:
            return "*"
        return namespace if namespace != IMPLICIT else "(default)"

    edges: list[Edge] = []
    referenced: set[int] = set()
    for ref in graph.references:
        note, status = "", ref.resolution.value
        target = ref.target
        held = analysis.policy.held.get(id(ref)) if target is not None else None
        if target is not None:
            referenced.add(id(target))
            if held:
                note = f"left as written: {held}"
            elif ref.resolution is Resolution.CROSS_NAMESPACE:
                note = "matched across namespaces (one side has no metadata.namespace)"
        elif ref.resolution is Resolution.AMBIGUOUS:
            note = "matches " + ", ".join(describe(c) for c in ref.candidates)
        else:
            production = analysis.productions.making(ref, index)
            if production is not None:
                status, note = "produced", f"made by {describe(production.producer)} ({production.field})"
            elif ref.optional:
                status, note = "optional", "not in the stream (optional: true)"
            else:
                note = "not in the stream"
        edges.append(Edge(ref.referrer, ref.field_path, ref.node.start_mark, ref.target_kind, ref.name,
                          _namespace_label(ref.namespace, ref.referrer), target, status, note, "field spec",
                          held=bool(held)))
    for dep in analysis.dependencies:
        if not dep.supported:
            status, note = "unsupported", "only ConfigMaps and Secrets are hashed"
        elif dep.target is None:
            status, note = "dangling", "not in the stream"
        else:
            status, note = "resolved", "declared dependency: feeds postrender.io/config-hash"
            referenced.add(id(dep.target))
        # An annotation the render never rewrites: it names what the hash covers.
        edges.append(Edge(dep.referrer, dep.field_path, dep.start, dep.kind, dep.name,
                          _namespace_label(None, dep.referrer), dep.target, status, note, dep.origin, held=True))

    # Each edge by (referrer, field, target), asked of every reader: a scan
    # of the edges per reader made thousands of them take minutes.
    said = {(id(e.referrer), e.field, id(e.target)) for e in edges}
    for reader in analysis.by_name.readers:
        key = (id(reader.referrer), reader.field_path, id(reader.target))
        if key in said:
            continue  # a field-spec edge (RBAC), or a reader's edge before, says it already
        said.add(key)
        referenced.add(id(reader.target))
        note = "a program reads it by this name"
        if reader.rolls:
            note += "; the pod template gets postrender.io/config-hash"
        edges.append(Edge(reader.referrer, reader.field_path, reader.node.start_mark, reader.target.kind,
                          reader.name, _namespace_label(reader.namespace, reader.referrer), reader.target, "resolved",
                          note, "read by name"))
    # The render's own findings when there is a render: the same texts it warns with.
    findings = result.findings if result is not None else guard.check(graph, the_plan)
    for finding in findings:
        target = finding.version.obj
        referenced.add(id(target))
        position = finding.node.start_mark if finding.node is not None else finding.referrer.node.end_mark
        edges.append(Edge(finding.referrer, finding.field_path, position, target.kind, finding.version.base_name,
                          _namespace_label(None, finding.referrer), target, "unrewritten",
                          "no field spec covers this field, so it still names the old name", "guard"))
    problems = broken.find(graph, the_plan, analysis.policy.held, analysis.by_name.readers, findings)
    broken_at = {(id(p.referrer), p.field_path) for p in problems}
    for edge in edges:
        if (id(edge.referrer), edge.field) in broken_at:
            edge.status = "broken"
            edge.note = ("left on a name the render removes, so the render fails "
                         "(--allow-broken-references: a warning)" + (f"; {edge.note}" if edge.note else ""))

    made_by = {id(item): obj for obj in graph.config_objects
               if (item := analysis.productions.by_object.get(id(obj))) is not None}
    for item in analysis.productions.items:
        made = made_by.get(id(item))
        namespace = item.namespace if item.namespace is not None else "*"
        edges.append(Edge(item.producer, item.field, item.producer.node.start_mark, item.target_kind,
                          item.name, "(default)" if namespace == IMPLICIT else namespace, made,
                          "produces", item.rule.why, "producer"))
    edges.sort(key=_position)
    # A controller finds these by name even where no field says so.
    referenced.update(analysis.productions.by_object)
    configs = []
    for version in the_plan.versions:
        configs.append(ConfigNode(version.obj, version.name, version.excluded, id(version.obj) in referenced,
                                  version.keep_original and version.renamed, _marks(version.obj, result)))
    def covered(place) -> list[str]:
        """Kind/name of each object a hash covers, Kind/namespace/name where
        it is not the holder's namespace (as postrender.io/refs names them),
        and where it is several objects of the same content (one item)."""
        here = index.namespace_of(place.obj)
        names = set()
        for (kind, name, _), obj in place.objects:
            elsewhere = obj is not None and index.namespace_of(obj) not in (here, IMPLICIT)
            names.add(f"{kind}/{index.namespace_of(obj)}/{name}" if elsewhere else f"{kind}/{name}")
        return sorted(names)

    hashes = [HashNode(p.obj, p.field_path, covered(p)) for p in analysis.config_hashes]
    def namespace(obj: KubeObject) -> str | None:
        ns = index.namespace_of(obj)
        return None if ns == IMPLICIT else ns

    refs = [RefsNode(r.referrer, r.field_path, r.value) for r in analysis.retention.records]
    return View(edges, configs, hashes, describe, namespace, list(warnings or ()), refs=refs)


def _marks(obj: KubeObject, result) -> dict:
    """immutable, and the labels and annotations the render adds (not the name)."""
    if result is None:
        return {}
    edits = result.rewrite.for_document(obj.document)
    values = edits.values_of(obj) if edits is not None else {}
    metadata = values.get("metadata") if isinstance(values.get("metadata"), dict) else {}
    marks: dict = {"immutable": values.get("immutable") is True}
    for key in ("labels", "annotations"):
        if isinstance(metadata.get(key), dict) and metadata[key]:
            marks[key] = dict(sorted(metadata[key].items()))
    return marks


def _position(edge: Edge) -> tuple[int, int, int]:
    obj = edge.referrer
    return (obj.document.index, obj.item or 0, edge.position)


def target_label(view: View, edge: Edge) -> str:
    if edge.target is None:
        return f"{edge.kind}/{edge.namespace}/{edge.name}"
    label = view.describe(edge.target)
    config = view.config_of(edge.target)
    if config is not None and config.final_name != edge.target.name:
        label += f" -> {config.final_name}"
    return label
