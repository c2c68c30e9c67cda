"""Stage 3: the reference graph — who uses which ConfigMap and Secret, where."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum

from .fieldspecs import CONFIG_KINDS, FieldSpec, ReferenceTable, Segment
from .index import IMPLICIT, ObjectIndex, ObjectKey
from .nodes import MappingNode, Node, ScalarNode, SequenceNode, format_path, get, is_string, scalar_value
from .read import KubeObject

Path = tuple[str | int, ...]


class Resolution(Enum):
    RESOLVED = "resolved"
    CROSS_NAMESPACE = "cross-namespace"  # matched only between the implicit and an explicit namespace
    DANGLING = "dangling"
    AMBIGUOUS = "ambiguous"


@dataclass(eq=False)
class Reference:
    referrer: KubeObject
    spec: FieldSpec
    node: ScalarNode
    path: Path
    name: str
    namespace: str | None  # stated in the reference itself
    prefix: str  # text kept before the name, e.g. "ns/" in an nginx annotation
    optional: bool
    # Set only when the reference resolved, exactly or across namespaces.
    target: KubeObject | None = None
    resolution: Resolution = Resolution.DANGLING
    candidates: list[KubeObject] = field(default_factory=list)

    @property
    def target_kind(self) -> str:
        return self.spec.target_kind

    @property
    def field_path(self) -> str:
        return format_path(self.path)


@dataclass
class Graph:
    index: ObjectIndex
    references: list[Reference]
    config_objects: list[KubeObject]


def pod_templates(obj: KubeObject, table: ReferenceTable) -> list[tuple[MappingNode, Path]]:
    """The pod templates of a workload, for annotations that must roll it."""
    version = obj.api_version.rpartition("/")[2]
    found: list[tuple[MappingNode, Path]] = []
    for segments in table.template_paths(obj.kind, obj.group, version):
        node: Node | None = obj.node
        path: Path = ()
        for segment in segments:
            node = get(node, segment.key)
            path += (segment.key,)
        if isinstance(node, MappingNode):
            found.append((node, path))
    return found


def template_holding(obj: KubeObject, path: Path, table: ReferenceTable) -> tuple[MappingNode, Path] | None:
    """The pod template a field sits in (a Pod is its own, at the empty path)."""
    for holder, template in pod_templates(obj, table):
        if path[: len(template)] == template:
            return holder, template
    return None


def is_config_object(obj: KubeObject) -> bool:
    return obj.kind in CONFIG_KINDS and obj.api_version == "v1"


def build(index: ObjectIndex, table: ReferenceTable) -> Graph:
    references: list[Reference] = []
    # A user's config often restates a built-in spec (say, without the
    # group): the same field must still be one reference, not two.
    seen: set[tuple[int, Path]] = set()
    for obj in index.objects:
        specs = table.for_kind(obj.kind)
        if not specs:
            continue
        version = obj.api_version.rpartition("/")[2]
        for spec in specs:
            if spec.matches(obj.group, version):
                for ref in find(obj, spec):
                    if (id(ref.node), ref.path) not in seen:
                        seen.add((id(ref.node), ref.path))
                        references.append(ref)
    for ref in references:
        _resolve(ref, index)
    configs = [obj for obj in index.objects if is_config_object(obj)]
    return Graph(index, references, configs)


def find(obj: KubeObject, spec: FieldSpec) -> Iterator[Reference]:
    """The names at one spec's path in one object, unresolved."""
    for node, parent, path in _walk(obj.node, spec.path, 0, (), None):
        if not is_string(node) or not node.value:
            continue
        value = node.value
        namespace: str | None = None
        prefix = ""
        if spec.namespace_prefix and "/" in value:
            prefix, _, value = value.rpartition("/")
            namespace = prefix
            prefix += "/"
        if spec.namespace_field and isinstance(parent, MappingNode):
            ns_node = get(parent, spec.namespace_field)
            if isinstance(ns_node, ScalarNode) and is_string(ns_node) and ns_node.value:
                namespace = ns_node.value
        optional_node = get(parent, "optional") if isinstance(parent, MappingNode) else None
        optional = isinstance(optional_node, ScalarNode) and scalar_value(optional_node) is True
        yield Reference(obj, spec, node, path, value, namespace, prefix, optional)


def _walk(
    node: Node, segments: tuple[Segment, ...], i: int, path: Path, parent: Node | None
) -> Iterator[tuple[ScalarNode, Node | None, Path]]:
    # An explicit stack: sequences may nest as deep as --max-depth allows.
    stack: list[tuple[Node, int, Path, Node | None]] = [(node, i, path, parent)]
    while stack:
        node, i, path, parent = stack.pop()
        if i == len(segments):
            if isinstance(node, ScalarNode):
                yield node, parent, path
            elif isinstance(node, SequenceNode):
                for j, item in enumerate(node.value):
                    if isinstance(item, ScalarNode):
                        yield item, parent, path + (j,)
            continue
        if isinstance(node, SequenceNode):
            stack.extend((item, i, path + (j,), parent) for j, item in reversed(list(enumerate(node.value))))
            continue
        if not isinstance(node, MappingNode):
            continue
        segment = segments[i]
        child = get(node, segment.key)
        if child is None:
            continue
        if segment.filters:
            items = child.value if isinstance(child, SequenceNode) else [child]
            passing = []
            for j, item in enumerate(items):
                if _passes(item, segment):
                    item_path = path + (segment.key, j) if isinstance(child, SequenceNode) else path + (segment.key,)
                    passing.append((item, i + 1, item_path, item))
            stack.extend(reversed(passing))
            continue
        stack.append((child, i + 1, path + (segment.key,), node))


def _passes(item: Node, segment: Segment) -> bool:
    return all(flt.accepts(_filter_value(get(item, flt.field))) for flt in segment.filters)


def _filter_value(node: Node | None) -> str | list[str] | None:
    if node is None:
        return None
    if isinstance(node, ScalarNode):
        return node.value
    if isinstance(node, SequenceNode):
        return [v.value for v in node.value if isinstance(v, ScalarNode)]
    return []  # a mapping matches no filter value


def _resolve(ref: Reference, index: ObjectIndex) -> None:
    namespace = index.lookup_namespace(ref.referrer, ref.namespace)
    candidates = [
        c for c in index.named("", ref.target_kind, ref.name) if c.api_version == "v1"
    ]
    if namespace is None:
        # A cluster-scoped referrer with no namespace field: any namespace.
        ref.candidates = candidates
        if len(candidates) == 1:
            ref.target, ref.resolution = candidates[0], Resolution.RESOLVED
        elif candidates:
            ref.resolution = Resolution.AMBIGUOUS
        return
    exact = index.get(ObjectKey("", ref.target_kind, namespace, ref.name))
    if exact is not None and exact.api_version == "v1":
        ref.target, ref.resolution = exact, Resolution.RESOLVED
        return
    # The implicit namespace is whatever the deployer picks; it may well be
    # the explicit one a neighbour names. Resolve, but say so.
    if namespace == IMPLICIT:
        across = [c for c in candidates if index.namespace_of(c) != IMPLICIT]
    else:
        across = [c for c in candidates if index.namespace_of(c) == IMPLICIT]
    ref.candidates = across
    if len(across) == 1:
        ref.target, ref.resolution = across[0], Resolution.CROSS_NAMESPACE
    elif across:
        ref.resolution = Resolution.AMBIGUOUS
