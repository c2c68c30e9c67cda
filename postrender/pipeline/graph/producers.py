"""Objects another controller writes, or finds under a name it derives.

A cert-manager Certificate's Secret, an ExternalSecret's target: renaming
such an object in the stream would leave the controller writing the old
name, so it keeps its name. The rules are data (fieldspecs/producers.yaml).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

from ...records import field, record
from ... import fieldspecs
from ...fieldspecs import CONFIG_KINDS, FieldSpec, Segment, parse_path
from .references import Graph, Path, Reference, find
from ..index.objects import ObjectIndex, across_namespaces
from ...syntax.nodes import Node, format_path, get
from ..read.documents import KubeObject


@record(frozen=True)
class Rule:
    kind: str
    group: str | None
    target: str
    path: FieldSpec | None
    default: str | None
    only_default: bool
    if_annotation: tuple[str, ...]
    content: tuple[Segment, ...] | None
    why: str


@record(eq=False)
class Production:
    """One name a producer in the stream makes (or reads by convention)."""

    producer: KubeObject
    rule: Rule
    namespace: str | None  # None: a cluster-scoped producer, any namespace
    name: str
    field: str  # where the name came from

    @property
    def target_kind(self) -> str:
        return self.rule.target

    def describe(self) -> str:
        return f"{self.producer.describe()} {self.field}: {self.rule.why}"

    def content(self) -> Node | None:
        """The part of the producer the produced data is made of, if known."""
        if self.rule.content is None:
            return None
        node: Node | None = self.producer.node
        for segment in self.rule.content:
            node = get(node, segment.key)
        return node


@record
class Productions:
    items: list[Production] = field(default_factory=list)
    excluded: dict[int, str] = field(default_factory=dict)  # in-stream objects that keep their names
    by_object: dict[int, Production] = field(default_factory=dict)
    # The items by (target kind, name), in order: every dangling reference
    # asks, and a stream may hold a producer per workload (a Certificate each).
    _by_name: dict[tuple[str, str], list[Production]] = field(default_factory=dict, repr=False)

    def add(self, item: Production) -> None:
        self.items.append(item)
        self._by_name.setdefault((item.target_kind, item.name), []).append(item)

    def of(self, kind: str, namespace: str | None, name: str) -> Production | None:
        """The producer of a name; a None namespace (on either side) matches
        any, and the implicit namespace the explicit ones (_same_place)."""
        for item in self._by_name.get((kind, name), ()):
            if _same_place(item.namespace, namespace):
                return item
        return None

    def making(self, ref: Reference, index: ObjectIndex) -> Production | None:
        """The producer in the stream of what a dangling reference names."""
        return self.of(ref.target_kind, index.lookup_namespace(ref.referrer, ref.namespace), ref.name)


@cache
def rules() -> tuple[Rule, ...]:
    return tuple(_rule(raw) for raw in fieldspecs.data("producers.yaml").get("producers") or [])


@cache
def _rules_by_kind() -> dict[str, tuple[Rule, ...]]:
    """The rules for each kind a rule names: most objects are of none, and
    are asked about as each is read (reads) and once more (find_productions)."""
    by_kind: dict[str, list[Rule]] = {}
    for rule in rules():
        by_kind.setdefault(rule.kind, []).append(rule)
    return {kind: tuple(found) for kind, found in by_kind.items()}


def _rule(raw: dict[str, Any]) -> Rule:
    target = str(raw["target"])
    assert target in CONFIG_KINDS, target
    path = raw.get("path")
    spec = None
    if path:
        spec = FieldSpec(
            target_kind=target, kind=str(raw["kind"]), group=raw.get("group"), version=None,
            path=parse_path(str(path), "producers.yaml"), path_text=str(path),
            namespace_field=raw.get("namespaceField"),
        )
    content = raw.get("content")
    return Rule(
        kind=str(raw["kind"]),
        group=raw.get("group"),
        target=target,
        path=spec,
        default=raw.get("default"),
        only_default=bool(raw.get("onlyDefault", False)),
        if_annotation=tuple(raw.get("ifAnnotation") or ()),
        content=parse_path(str(content), "producers.yaml") if content else None,
        why=str(raw["why"]),
    )


def reads(obj: KubeObject) -> Iterator[tuple[Path, bool]]:
    """A producer is read whole: its name fields, and its content, which
    postrender/config-hash digests (see references.reads)."""
    if any(_applies(rule, obj) for rule in _rules_by_kind().get(obj.kind, ())):
        yield (), True


def may_produce(kind: str) -> bool:
    """Whether an object of this kind can be a producer (reads reads it
    whole): most kinds never are."""
    return kind in _rules_by_kind()


def _applies(rule: Rule, obj: KubeObject) -> bool:
    """Whether `obj` is a producer by `rule` (an Ingress only with
    cert-manager's annotations, say)."""
    if rule.kind != obj.kind or (rule.group is not None and rule.group != obj.group):
        return False
    return not rule.if_annotation or any(key in obj.annotations for key in rule.if_annotation)


def find_productions(graph: Graph) -> Productions:
    index = graph.index
    found = Productions()
    by_kind = _rules_by_kind()
    for obj in index.objects:
        for rule in by_kind.get(obj.kind, ()):
            if not _applies(rule, obj):
                continue
            for item in _names(obj, rule, index):
                found.add(item)
    configs: dict[tuple[str, str | None], list[KubeObject]] = {}
    for config in graph.config_objects if found.items else ():  # most streams produce nothing
        configs.setdefault((config.kind, config.name), []).append(config)
    for item in found.items:
        for config in configs.get((item.target_kind, item.name), ()):
            if _same_place(item.namespace, index.namespace_of(config)):
                found.excluded.setdefault(id(config), f"named by {item.describe()}")
                found.by_object.setdefault(id(config), item)
    return found


def _same_place(producer: str | None, config: str | None) -> bool:
    """Whether a producer in one namespace may make the object of its name
    in the other. As references match (objects.across_namespaces), the
    implicit namespace, whatever the deployer picks, may be any explicit
    one: a chart that gives `namespace: {{ .Release.Namespace }}` to its
    Secret but not to its Certificate (crd60). Matching there keeps a name
    that may not have needed keeping, where not matching renamed, and made
    immutable, a Secret cert-manager then writes into by its old name."""
    return producer is None or config is None or producer == config or across_namespaces(producer, config)


def _names(obj: KubeObject, rule: Rule, index: ObjectIndex) -> list[Production]:
    own_namespace = None if obj.kind in index.cluster_scoped else index.namespace_of(obj)
    made: list[Production] = []
    values = list(find(obj, rule.path)) if rule.path is not None else []
    if not rule.only_default:
        for ref in values:
            namespace = ref.namespace if ref.namespace is not None else own_namespace
            made.append(Production(obj, rule, namespace, ref.name, ref.field_path))
    if rule.default and not values and obj.name:
        name = rule.default.format(name=obj.name)
        where = (f"{format_path(tuple(s.key for s in rule.path.path))} (unset, default)" if rule.path
                 else "metadata.name")
        made.append(Production(obj, rule, own_namespace, name, where))
    return made
