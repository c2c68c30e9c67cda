"""Dependencies declared by annotation: a workload naming a ConfigMap or
Secret it needs rolled for, whether or not it mounts it (Reloader's
`configmap.reloader.stakater.com/reload`, kpt's hash-dependency).

The annotations understood are data (fieldspecs/dependencies.yaml).
Names are the unversioned ones a chart author writes, so they also find an
object a previous run already renamed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any


from ...records import record
from ... import fieldspecs
from ...fieldspecs import CONFIG_KINDS, ReferenceTable
from .references import Graph, Path, is_config_object, pod_templates
from ..index.objects import across_namespaces, base_name_of
from ...syntax.nodes import format_path
from ..read.documents import KubeObject


@record(eq=False)
class Dependency:
    referrer: KubeObject
    start: int  # where the pod template declaring it, or the referrer itself, starts in the text
    template: Path | None  # that template's path; None: declared on the object
    annotation: str
    origin: str
    kind: str
    name: str
    target: KubeObject | None = None

    @property
    def supported(self) -> bool:
        return self.kind in CONFIG_KINDS

    @property
    def field_path(self) -> str:
        return format_path((self.template or ()) + ("metadata", "annotations", self.annotation))


@cache
def rules() -> tuple[dict[str, Any], ...]:
    return tuple(fieldspecs.data("dependencies.yaml").get("annotations") or ())


def declares(annotations: Mapping[str, str]) -> bool:
    """Whether annotations (an object's, or a pod template's) declare a
    dependency find_dependencies reads."""
    return any(_applies(rule, key) for key in annotations for rule in rules())


def find_dependencies(graph: Graph, table: ReferenceTable) -> list[Dependency]:
    found: list[Dependency] = []
    names: _ConfigNames | None = None  # made at the first dependency: most streams declare none
    for obj in graph.index.objects:
        if is_config_object(obj):
            continue
        places: list[tuple[int, Path | None, Mapping[str, str]]] = [(obj.node.start_mark, None, obj.annotations)]
        for template in pod_templates(obj, table):
            if template.path:  # the empty path is the object itself (a Pod), already covered
                places.append((template.start, template.path, template.annotations))
        for start, path, declared in places:
            for key, value in declared.items():
                for rule in rules():
                    if _applies(rule, key):
                        for kind, name in _parse(rule, value):
                            dep = Dependency(obj, start, path, key, str(rule.get("origin", key)), kind, name)
                            if dep.supported:
                                names = names or _ConfigNames(graph)
                                dep.target = names.resolve(dep)
                            found.append(dep)
    return found


def _applies(rule: dict[str, Any], key: str) -> bool:
    if "key" in rule:
        return key == rule["key"]
    return key.startswith(str(rule["keyPrefix"]))


def _parse(rule: dict[str, Any], value: str) -> list[tuple[str, str]]:
    if rule.get("format") == "kind/name":
        kind, slash, name = value.strip().partition("/")
        return [(kind, name)] if slash and kind and name else []
    return [(str(rule["kind"]), part.strip()) for part in value.split(",") if part.strip()]


class _ConfigNames:
    """The stream's config objects by kind and name, and by kind and
    unversioned name, in stream order: a chart may declare a dependency in
    every workload, and each looked through all config objects (quadratic:
    13 s for 1,000 workloads with Reloader's annotations)."""

    def __init__(self, graph: Graph):
        self._index = graph.index
        self._by_name: dict[tuple[str, str], list[KubeObject]] = {}
        self._by_base_name: dict[tuple[str, str], list[KubeObject]] = {}
        for obj in graph.config_objects:
            self._by_name.setdefault((obj.kind, obj.name), []).append(obj)
            self._by_base_name.setdefault((obj.kind, base_name_of(obj)), []).append(obj)

    def resolve(self, dep: Dependency) -> KubeObject | None:
        """The one object a dependency names: by name, then by unversioned
        name, in the referrer's namespace, then across the implicit one."""
        index = self._index
        namespace = index.namespace_of(dep.referrer)
        key = (dep.kind, dep.name)
        for matches in (lambda ns: ns == namespace, lambda ns: across_namespaces(namespace, ns)):
            for pool in (self._by_name.get(key, ()), self._by_base_name.get(key, ())):
                named = [c for c in pool if matches(index.namespace_of(c))]
                if len(named) == 1:
                    return named[0] if not self._versioned_elsewhere(dep, named[0], matches) else None
        return None

    def _versioned_elsewhere(self, dep: Dependency, found: KubeObject, matches: Callable[[str], bool]) -> bool:
        """Whether a version a previous run made of the name sits in another
        namespace the name is looked up in than `found`'s: the name matched
        both there (one object in each namespace) when that run read it, and
        led nowhere, as it must again (references.lookup, likewise)."""
        held = self._index.namespace_of(found)
        return bool(self._index.versions_named("", dep.kind, dep.name, lambda ns: ns != held and matches(ns)))
