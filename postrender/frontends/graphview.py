"""`postrender graph`: the reference graph as a table, JSON, Graphviz or Mermaid.

It shows what a render would do: who references which ConfigMap or Secret
and where, the name each one ends with, and why an object keeps its name.
Only names are printed, never data.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass, field

from ..pipeline.check import broken, guard
from ..errors import UsageError
from ..pipeline.graph.references import Resolution
from ..pipeline.index.objects import IMPLICIT
from ..syntax.nodes import node_at
from ..options import RenderOptions
from ..pipeline.plan.versions import UNREFERENCED
from ..pipeline.read import KubeObject, Source
from ..report import Reporter
from ..vocabulary import ANNOTATION_ORIGINAL_NAME, LABEL_BASE_NAME, LABEL_CONTENT_HASH, LABEL_VERSIONED

FORMATS = ("table", "json", "dot", "mermaid")


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
class View:
    edges: list[Edge]
    configs: list[ConfigNode]
    hashes: list[HashNode]
    describe: Callable[[KubeObject], str]  # "Kind/namespace/name"
    namespace: Callable[[KubeObject], str | None]  # None: the implicit one
    warnings: list[str] = field(default_factory=list)  # the render's, word for word
    by_object: dict[int, ConfigNode] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_object = {id(c.obj): c for c in self.configs}

    def config_of(self, obj: KubeObject) -> ConfigNode | None:
        return self.by_object.get(id(obj))


def show(sources: list[Source], options: RenderOptions, fmt: str, reporter: Reporter | None = None) -> str:
    """The graph of the render these options make. The render runs in full,
    so every option counts and its warnings (on stderr, as a render prints
    them) are the same; where the render fails on its input, graph fails the
    same way. A name the render would leave on a removed object is the one
    exception: graph is where one goes to see those, so it shows them (status
    `broken`, and as warnings) instead of failing, as with
    --allow-broken-references; --strict still fails."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown graph format {fmt!r} (choose from {', '.join(FORMATS)})")
    from ..pipeline.render import render

    reporter = reporter if reporter is not None else Reporter()
    result = render(sources, dataclasses.replace(options, allow_broken=True), reporter)
    view = build_view(result.analysis, result, [w.message for w in reporter.warnings])
    return {"table": as_table, "json": as_json, "dot": as_dot, "mermaid": as_mermaid}[fmt](view)


def build_view(analysis, result=None, warnings: list[str] | None = None) -> View:
    """analysis: render.Analysis; result: the render.Result, for what the
    rewrite set and what the guard found."""
    graph, the_plan = analysis.graph, analysis.plan
    index = graph.index

    def describe(obj: KubeObject) -> str:
        return index.key(obj).describe()

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
        if target is not None:
            referenced.add(id(target))
            held = analysis.policy.held.get(id(ref))
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
        edges.append(Edge(ref.referrer, ref.field_path, ref.node.start_mark.index, ref.target_kind, ref.name,
                          _namespace_label(ref.namespace, ref.referrer), target, status, note, "field spec"))
    for dep in analysis.dependencies:
        if not dep.supported:
            status, note = "unsupported", "only ConfigMaps and Secrets are hashed"
        elif dep.target is None:
            status, note = "dangling", "not in the stream"
        else:
            status, note = "resolved", "declared dependency: feeds postrender.io/config-hash"
            referenced.add(id(dep.target))
        edges.append(Edge(dep.referrer, dep.field_path, dep.holder.start_mark.index, dep.kind, dep.name,
                          _namespace_label(None, dep.referrer), dep.target, status, note, dep.origin))

    for reader in analysis.by_name.readers:
        if any(e.referrer is reader.referrer and e.field == reader.field_path and e.target is reader.target
               for e in edges):
            continue  # a field-spec edge (RBAC) says it already
        referenced.add(id(reader.target))
        note = "a program reads it by this name"
        if reader.rolls:
            note += "; the pod template gets postrender.io/config-hash"
        edges.append(Edge(reader.referrer, reader.field_path, reader.node.start_mark.index, reader.target.kind,
                          reader.name, _namespace_label(None, reader.referrer), reader.target, "resolved", note,
                          "read by name"))
    # The render's own findings when there is a render: the same texts it warns with.
    findings = result.findings if result is not None else guard.check(graph, the_plan)
    for finding in findings:
        target = finding.version.obj
        referenced.add(id(target))
        node = node_at(finding.referrer.node, finding.path)
        position = node.start_mark.index if node is not None else finding.referrer.node.end_mark.index
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
        edges.append(Edge(item.producer, item.field, item.producer.node.start_mark.index, item.target_kind,
                          item.name, "(default)" if namespace == IMPLICIT else namespace, made,
                          "produces", item.rule.why, "producer"))
    edges.sort(key=_position)
    # A controller finds these by name even where no field says so.
    referenced.update(analysis.productions.by_object)
    configs = []
    for version in the_plan.versions:
        configs.append(ConfigNode(version.obj, version.name, version.excluded, id(version.obj) in referenced,
                                  version.keep_original and version.renamed, _marks(version.obj, result)))
    hashes = [
        HashNode(p.obj, p.field_path, [f"{kind}/{name}" for kind, name, _ in sorted(p.items)])
        for p in analysis.config_hashes
    ]
    def namespace(obj: KubeObject) -> str | None:
        ns = index.namespace_of(obj)
        return None if ns == IMPLICIT else ns

    return View(edges, configs, hashes, describe, namespace, list(warnings or ()))


def _marks(obj: KubeObject, result) -> dict:
    """immutable, and the labels and annotations the render adds (not the name)."""
    if result is None:
        return {}
    edits = result.rewrite.for_document(obj.document)
    values = edits.values_at(obj.node) if edits is not None else {}
    metadata = values.get("metadata") if isinstance(values.get("metadata"), dict) else {}
    marks: dict = {"immutable": values.get("immutable") is True}
    for key in ("labels", "annotations"):
        if isinstance(metadata.get(key), dict) and metadata[key]:
            marks[key] = dict(sorted(metadata[key].items()))
    return marks


def _position(edge: Edge) -> tuple[int, int, int]:
    obj = edge.referrer
    return (obj.document.index, obj.item or 0, edge.position)


def _target_label(view: View, edge: Edge) -> str:
    if edge.target is None:
        return f"{edge.kind}/{edge.namespace}/{edge.name}"
    label = view.describe(edge.target)
    config = view.config_of(edge.target)
    if config is not None and config.final_name != edge.target.name:
        label += f" -> {config.final_name}"
    return label


def _config_note(config: ConfigNode) -> str:
    notes = []
    if config.excluded:
        notes.append(f"not versioned: {config.excluded}")
    elif config.marks and not config.marks.get("immutable") and config.final_name != config.obj.name:
        notes.append("mutable")
    added = {**config.marks.get("labels", {}), **config.marks.get("annotations", {})}
    option_marks = [f"{key}={value}" for key, value in added.items() if not key.startswith(_OWN_MARKS)]
    if option_marks:
        notes.append("sets " + ", ".join(option_marks))
    if config.copy:
        notes.append(f"also keeps an unsuffixed copy named {config.obj.name}")
    if not config.referenced and config.excluded != UNREFERENCED:
        notes.append("unreferenced")
    return "; ".join(notes)


# Set on every version whatever the options; the table leaves them out.
_OWN_MARKS = (LABEL_VERSIONED, LABEL_BASE_NAME, LABEL_CONTENT_HASH, ANNOTATION_ORIGINAL_NAME)


def as_table(view: View) -> str:
    out: list[str] = []
    rows = [("REFERRER", "FIELD", "CONFIG", "NOTE")]
    for edge in view.edges:
        note = edge.note if edge.via in ("field spec", "producer", "guard") else f"{edge.via}: {edge.note}"
        if edge.status in ("dangling", "optional", "ambiguous", "produced", "produces", "unsupported", "unrewritten",
                           "broken"):
            note = f"{edge.status}: {note}"
        rows.append((view.describe(edge.referrer), edge.field, _target_label(view, edge), note))
    out.extend(_columns(rows))
    out.append("")
    rows = [("CONFIG OBJECT", "NAME", "NOTE")]
    for config in view.configs:
        rows.append((view.describe(config.obj), config.final_name, _config_note(config)))
    out.extend(_columns(rows))
    if view.hashes:
        out.append("")
        rows = [("REFERRER", "POSTRENDER.IO/CONFIG-HASH AT", "COVERS")]
        for h in view.hashes:
            rows.append((view.describe(h.referrer), h.field, ", ".join(h.covers)))
        out.extend(_columns(rows))
    return "\n".join(out) + "\n"


def _columns(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]


def _ref(obj: KubeObject, view: View) -> dict:
    return {"kind": obj.kind, "namespace": view.namespace(obj), "name": obj.name}


def as_json(view: View) -> str:
    final = {id(c.obj): c.final_name for c in view.configs}
    data = {
        "references": [
            {
                "referrer": _ref(e.referrer, view),
                "field": e.field,
                "via": e.via,
                "kind": e.kind,
                "name": e.name,
                "lookupNamespace": None if e.namespace in ("(default)", "*") else e.namespace,
                "status": e.status,
                "target": None if e.target is None else {
                    **_ref(e.target, view),
                    "finalName": final.get(id(e.target), e.target.name),
                },
                "note": e.note or None,
            }
            for e in view.edges
        ],
        "configObjects": [
            {**_ref(c.obj, view), "finalName": c.final_name, "versioned": c.excluded is None,
             "excluded": c.excluded, "unsuffixedCopy": c.copy, "referenced": c.referenced, "marks": c.marks}
            for c in view.configs
        ],
        "configHashes": [
            {"referrer": _ref(h.referrer, view), "field": h.field, "covers": h.covers} for h in view.hashes
        ],
        "warnings": view.warnings,
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


class _Ids:
    """Stable node ids, one per object (or per missing name)."""

    def __init__(self) -> None:
        self.ids: dict[object, str] = {}
        self.order: list[object] = []

    def of(self, key: object) -> str:
        if key not in self.ids:
            self.ids[key] = f"n{len(self.ids)}"
            self.order.append(key)
        return self.ids[key]


def _graph_nodes(view: View):
    """(id, label lines, style) per node and (from, to, label, style) per edge."""
    ids = _Ids()
    nodes: dict[str, tuple[list[str], str]] = {}
    edges: list[tuple[str, str, str, str]] = []
    configs = {id(c.obj): c for c in view.configs}
    for config in view.configs:
        node = ids.of(id(config.obj))
        lines = [view.describe(config.obj)]
        style = "config"
        if config.excluded:
            lines.append(f"keeps its name: {config.excluded}")
            style = "excluded"
        elif config.final_name != config.obj.name:
            lines.append(f"-> {config.final_name}")
        if not config.referenced:
            lines.append("(unreferenced)")
            style = "unreferenced" if style == "config" else style
        nodes[node] = (lines, style)
    for edge in view.edges:
        source = ids.of(id(edge.referrer))
        nodes.setdefault(source, ([view.describe(edge.referrer)], "referrer"))
        if edge.target is not None and id(edge.target) in configs:
            target = ids.of(id(edge.target))
        else:
            target = ids.of(("missing", edge.kind, edge.namespace, edge.name, edge.status))
            nodes.setdefault(target, ([_target_label(view, edge), f"{edge.status}: {edge.note}"], "missing"))
        label = edge.field if edge.via == "field spec" else f"{edge.field} ({edge.via})"
        held = edge.note.startswith("left as written")
        dashed = held or edge.status in ("unrewritten", "broken")
        style = "solid" if edge.target is not None and not dashed else "dashed"
        suffix = {"broken": " [broken]", "unrewritten": " [not rewritten]"}.get(edge.status, " [left as written]" if held else "")
        edges.append((source, target, label + suffix,
                      "dotted" if edge.status == "produces" else style))
    return [(i, *nodes[i]) for i in (ids.ids[k] for k in ids.order)], edges


def _dot_text(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


_DOT_STYLE = {
    "referrer": "shape=box",
    "config": "shape=note",
    "excluded": "shape=note, style=dashed",
    "unreferenced": "shape=note, color=gray, fontcolor=gray",
    "missing": "shape=box, style=dotted",
}


def as_dot(view: View) -> str:
    nodes, edges = _graph_nodes(view)
    out = ["digraph postrender {", "  rankdir=LR;", "  node [fontname=\"monospace\"];"]
    for node, lines, style in nodes:
        out.append(f"  {node} [label={_dot_text(chr(10).join(lines))}, {_DOT_STYLE[style]}];")
    for source, target, label, style in edges:
        extra = "" if style == "solid" else f", style={style}"
        out.append(f"  {source} -> {target} [label={_dot_text(label)}{extra}];")
    out.append("}")
    return "\n".join(out) + "\n"


def _mermaid_text(text: str) -> str:
    # Inside quotes only the quote itself ends a label; `<` would start HTML.
    escaped = text.replace("#", "#35;").replace('"', "#quot;").replace("<", "#lt;")
    return '"' + escaped + '"'


_MERMAID_SHAPE = {
    "referrer": ("[", "]"),
    "config": ("[(", ")]"),
    "excluded": ("[(", ")]"),
    "unreferenced": ("[(", ")]"),
    "missing": ("{{", "}}"),
}


def as_mermaid(view: View) -> str:
    nodes, edges = _graph_nodes(view)
    out = ["flowchart LR"]
    for node, lines, style in nodes:
        left, right = _MERMAID_SHAPE[style]
        label = '"' + "<br/>".join(_mermaid_text(line)[1:-1] for line in lines) + '"'
        out.append(f"  {node}{left}{label}{right}")
    for source, target, label, style in edges:
        arrow = {"solid": "-->", "dashed": "-.->", "dotted": "==>"}[style]
        out.append(f"  {source} {arrow}|{_mermaid_text(label)}| {target}")
    for style, css in (("excluded", "stroke-dasharray: 5 5"), ("unreferenced", "stroke:#999,color:#999"),
                       ("missing", "stroke-dasharray: 2 2")):
        members = [node for node, _, s in nodes if s == style]
        if members:
            out.append(f"  classDef {style} {css}")
            out.append(f"  class {','.join(members)} {style}")
    return "\n".join(out) + "\n"
