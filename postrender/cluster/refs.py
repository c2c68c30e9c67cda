"""Which ConfigMaps and Secrets a live object uses.

The same reference table the render uses (builtin.yaml plus `--config`),
walked over JSON from the API server instead of YAML nodes, plus the
`postrender.io/refs` record anywhere in the object — which is how
ReplicaSets, ControllerRevisions and custom resources that copy a pod
template are honoured.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..fieldspecs import FieldSpec, ReferenceTable, Segment, argument_items
from ..fieldspecs.walk import Accessor, item_before, walk
from ..pipeline.plan.keep import parse_refs
from ..vocabulary import ANNOTATION_REFS

# (kind, namespace, name); namespace None: "any", from a cluster-scoped
# referrer that does not say which (kept on the safe side).
Use = tuple[str, str | None, str]

# A ControllerRevision stores its owner's template as a patch of the owner.
_REVISION_OWNERS = ("StatefulSet", "DaemonSet")


def uses(obj: dict, table: ReferenceTable) -> set[Use]:
    kind = str(obj.get("kind") or "")
    api_version = str(obj.get("apiVersion") or "")
    group, _, version = api_version.rpartition("/")
    namespace = (obj.get("metadata") or {}).get("namespace")
    found: set[Use] = set()
    if kind == "ControllerRevision" and group == "apps":
        data = obj.get("data")
        if isinstance(data, dict):
            owner = _owner_kind(obj)
            found |= _by_table(data, owner, "apps", "v1", namespace, table)
    else:
        found |= _by_table(obj, kind, group, version, namespace, table)
    found |= recorded(obj, namespace)
    return found


def recorded(obj: Any, namespace: str | None) -> set[Use]:
    """Entries of every `postrender.io/refs` annotation in the object, at
    any depth (its metadata, a pod template, a template inside a template)."""
    found: set[Use] = set()
    stack = [obj]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            metadata = node.get("metadata")
            if isinstance(metadata, dict):
                annotations = metadata.get("annotations")
                if isinstance(annotations, dict) and isinstance(annotations.get(ANNOTATION_REFS), str):
                    found |= parse_refs(annotations[ANNOTATION_REFS], namespace)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def _owner_kind(revision: dict) -> str:
    for owner in (revision.get("metadata") or {}).get("ownerReferences") or []:
        if owner.get("kind") in _REVISION_OWNERS:
            return owner["kind"]
    return "StatefulSet"  # the template sits at the same path in both


def _by_table(obj: dict, kind: str, group: str, version: str, namespace: str | None,
              table: ReferenceTable) -> set[Use]:
    found: set[Use] = set()
    compiled = table.applicable(kind, group, version)
    if compiled is None:
        return found
    cluster_scoped = kind in table.cluster_scoped
    for ends, value, parent, path in walk(compiled.tree, obj, JsonValues):
        if not value:
            continue
        for position in ends:
            spec = compiled.specs[position]
            read = spec.read(value, lambda: _string_before(parent, path),
                             lambda: [item for item in argument_items(JsonValues, parent, path)
                                      if isinstance(item, str)])
            if read is None:
                continue
            _, name, stated = read
            found.add((spec.target_kind, _target_namespace(spec, stated, parent, namespace, cluster_scoped), name))
    return found


def _string_before(holder: Any, path: tuple) -> str | None:
    """The list item before the leaf at `path`, where it is a string: an
    argument after a bare `--flag` (FieldSpec.read)."""
    previous = item_before(JsonValues, holder, path)
    return previous if isinstance(previous, str) else None


def _target_namespace(spec: FieldSpec, stated: str | None, parent: Any, namespace: str | None,
                      cluster_scoped: bool) -> str | None:
    """The namespace a reference's target is in: the one its text states,
    else a namespaceField beside it, else the referrer's own (None, any:
    a cluster-scoped referrer that does not say)."""
    if stated is not None:
        return stated
    if spec.namespace_field and isinstance(parent, dict):
        explicit = parent.get(spec.namespace_field)
        if isinstance(explicit, str) and explicit:
            return explicit
    return None if cluster_scoped else namespace


class JsonValues(Accessor[Any]):
    """An object as the API server returns it, decoded from JSON."""

    @staticmethod
    def is_leaf(node: Any) -> bool:
        return isinstance(node, str)

    @staticmethod
    def items(node: Any) -> list[Any] | None:
        return node if isinstance(node, list) else None

    @staticmethod
    def is_mapping(node: Any) -> bool:
        return isinstance(node, dict)

    @staticmethod
    def child(node: dict, key: str) -> Any:
        return node.get(key)

    @staticmethod
    def pairs(node: dict) -> Iterator[tuple[str, Any]]:
        return iter(node.items())

    @staticmethod
    def passes(item: Any, segment: Segment) -> bool:
        if not isinstance(item, dict):
            return False
        return all(flt.accepts(_filter_value(item.get(flt.field))) for flt in segment.filters)

    @staticmethod
    def keys(node: dict) -> dict:
        return node


def _filter_value(value: Any) -> str | list[str] | None:
    if value is None or isinstance(value, list):
        return value
    return str(value)
