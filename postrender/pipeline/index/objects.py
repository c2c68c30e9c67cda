"""Stage 2: index objects by identity, with Kubernetes' namespace rules.

An object without `metadata.namespace` lands in the default namespace:
`--namespace`, else `$HELM_NAMESPACE`, else one implicit namespace that all
namespace-less objects share (the deployer decides it later).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Container

from ...records import record
from ...errors import PostrenderError
from ..read.documents import KubeObject
from ...vocabulary import (
    ANNOTATION_ORIGINAL_NAME, KUSTOMIZE_PREVIOUS_KINDS, KUSTOMIZE_PREVIOUS_NAMES, KUSTOMIZE_PREVIOUS_NAMESPACES,
    KUSTOMIZE_NEEDS_HASH, KUSTOMIZE_RENAMES, LABEL_BASE_NAME, LABEL_CONTENT_HASH, LABEL_VERSIONED, is_label_value,
)

IMPLICIT = ""  # the namespace nobody named; never a valid Kubernetes namespace


def across_namespaces(one: str, other: str) -> bool:
    """Whether a name looked up in one namespace may still find an object in
    the other, different one: when one side is the implicit namespace, which
    is whatever the deployer picks and may well be the explicit one a
    neighbour names. Reference resolution, dependencies and the guard all
    match this way (an equal namespace is an exact match, not this)."""
    return one != other and IMPLICIT in (one, other)


def base_name_of(obj: KubeObject) -> str:
    """The unversioned name, also for an object a previous run versioned
    (its marks say what it was called)."""
    name = obj.name or ""
    if obj.labels.get(LABEL_VERSIONED) != "true":
        return name
    original = obj.annotations.get(ANNOTATION_ORIGINAL_NAME)
    if original is not None and is_label_value(original):
        # A run writes the annotation only for a base the label cannot hold
        # as it is: one that could was put there by hand or copied from
        # another object, and trusted, named the next run's version after it
        # (oracle60).
        original = None
    original = original or obj.labels.get(LABEL_BASE_NAME)
    # Marks copied onto another object (a chart's common labels taken from a
    # versioned one) say nothing of it: a previous run's name holds its base
    # (`<base>-<hash>`, kustomize's prefix or suffix around it) or, a base
    # cut short to fit 253 characters, its hash.
    if original and (original in name or obj.labels.get(LABEL_CONTENT_HASH, "\0") in name):
        return original
    return name


def suffixed_later_by_kustomize(obj: KubeObject) -> bool:
    """Whether kustomize appends the content hash to the name after every
    transformer, postrender included, has run: its generators' output, in
    the stream a plugin is handed (annotated needsHashSuffix)."""
    return obj.annotations.get(KUSTOMIZE_NEEDS_HASH) == "enabled"


def previous_ids(obj: KubeObject) -> list[tuple[str, str, str]]:
    """(name, kind, namespace) of each earlier id kustomize recorded on an
    object it renamed (previousNames, with previousKinds and
    previousNamespaces alongside), oldest first; a kind it left out is the
    object's own, a namespace ""."""
    names = obj.annotations.get(KUSTOMIZE_PREVIOUS_NAMES)
    if names is None:
        return []
    kinds = obj.annotations.get(KUSTOMIZE_PREVIOUS_KINDS, "").split(",")
    namespaces = obj.annotations.get(KUSTOMIZE_PREVIOUS_NAMESPACES, "").split(",")
    return [(name, kinds[j] if j < len(kinds) and kinds[j] else obj.kind, namespaces[j] if j < len(namespaces) else "")
            for j, name in enumerate(names.split(","))]


@record(frozen=True)
class ObjectKey:
    group: str
    kind: str
    namespace: str
    name: str

    def describe(self) -> str:
        ns = self.namespace or "(default)"
        return f"{self.kind}/{ns}/{self.name}"


class ObjectIndex:
    def __init__(self, objects: list[KubeObject], default_namespace: str | None, cluster_scoped: frozenset[str]):
        self.default_namespace = default_namespace or IMPLICIT
        self.cluster_scoped = cluster_scoped
        self.objects = objects
        # (group, kind) -> name -> the object of that name, or where several
        # namespaces hold one, namespace -> object in stream order. No key,
        # list or tuple per object: those took 3.5 MiB for 20,000 objects.
        self._by_name: dict[tuple[str, str], dict[str, KubeObject | dict[str, KubeObject]]] = {}
        # (group, kind) -> an earlier name -> (object, the namespace it had
        # then): the names kustomize records on objects it renamed (empty
        # outside a stream kustomize hands a transformer).
        self._by_previous_name: dict[tuple[str, str], dict[str, list[tuple[KubeObject, str]]]] = {}
        # (group, kind, base name) -> a previous run's versions of it: made
        # at first ask (versions_named), which few lookups make.
        self._versions: dict[tuple[str, str, str], list[KubeObject]] | None = None
        for obj in objects:
            if obj.name is None:
                continue  # generateName objects cannot be referenced by name
            if KUSTOMIZE_PREVIOUS_NAMES in obj.annotations:
                self._add_previous_names(obj)
            names = self._by_name.get((obj.group, obj.kind))
            if names is None:
                names = self._by_name[(obj.group, obj.kind)] = {}
            held = names.get(obj.name)
            if held is None:
                names[obj.name] = obj
                continue
            if isinstance(held, KubeObject):
                held = names[obj.name] = {self.namespace_of(held): held}
            namespace = self.namespace_of(obj)
            other = held.get(namespace)
            if other is not None:
                # Its line too: a List's items are one document.
                there = other.location()
                raise PostrenderError(
                    f"duplicate object {self.describe(obj)}: also defined in document {other.document.index}"
                    + (f" item {other.item}" if other.item is not None else "")
                    # Said as its own place is: `line` the stream's, beside
                    # the line in a Helm 3 chart file's rendered text (errors60).
                    + (f" ({there.source}" + (f", rendered line {there.rendered_line}"
                                              if there.rendered_line is not None else "") + ")"
                       if there.source else "")
                    + (f", {there.line_text(there.line)}" if there.line is not None else ""),
                    obj.location(),
                )
            held[namespace] = obj

    def _add_previous_names(self, obj: KubeObject) -> None:
        for name, kind, namespace in previous_ids(obj):
            held = self._by_previous_name.setdefault((obj.group, kind), {}).setdefault(name, [])
            if all(other is not obj or ns != namespace for other, ns in held):
                held.append((obj, namespace))

    @property
    def renamed_by_kustomize(self) -> bool:
        """Whether some object carries the earlier names kustomize records."""
        return bool(self._by_previous_name)

    def previously_named(self, group: str, kind: str, name: str) -> list[tuple[KubeObject, str]]:
        """(object, its namespace then) for each object kustomize renamed
        from that name, in stream order."""
        return self._by_previous_name.get((group, kind), _NONE).get(name, [])

    @staticmethod
    def kustomize_renames(obj: KubeObject) -> tuple[str | None, ...]:
        """The prefixes and suffixes kustomize applied to an object, as it
        records them (comma-separated); None where it recorded none."""
        return tuple(obj.annotations.get(annotation) for annotation in KUSTOMIZE_RENAMES)

    def namespace_of(self, obj: KubeObject) -> str:
        if obj.kind in self.cluster_scoped:
            return IMPLICIT
        return obj.namespace or self.default_namespace

    def lookup_namespace(self, referrer: KubeObject, stated: str | None) -> str | None:
        """Where a name a referrer writes is looked up: the namespace the
        reference states, else the referrer's; None means any namespace (a
        cluster-scoped referrer that does not say)."""
        if stated is not None:
            return stated
        if referrer.kind in self.cluster_scoped:
            return None
        return self.namespace_of(referrer)

    def key(self, obj: KubeObject) -> ObjectKey:
        return ObjectKey(obj.group, obj.kind, self.namespace_of(obj), obj.name or "")

    def describe(self, obj: KubeObject) -> str:
        """Kind/namespace/name as messages name an object; Kind/name for a
        cluster-scoped one, which has no namespace (not "(default)", the
        implicit one)."""
        if obj.kind in self.cluster_scoped:
            return f"{obj.kind}/{obj.name or ''}"
        return self.key(obj).describe()

    def get(self, key: ObjectKey) -> KubeObject | None:
        held = self._by_name.get((key.group, key.kind), _NONE).get(key.name)
        if isinstance(held, KubeObject):
            return held if self.namespace_of(held) == key.namespace else None
        return held.get(key.namespace) if held is not None else None

    def names_of_kinds(self, kinds: Collection[str]) -> list[Container[str]]:
        """For each group with objects of one of the kinds, the names its
        objects of that kind have (objects without a name have none)."""
        return [names for (_, kind), names in self._by_name.items() if kind in kinds]

    def named(self, group: str, kind: str, name: str) -> Collection[KubeObject]:
        """Every object of that name, in any namespace, in stream order."""
        held = self._by_name.get((group, kind), _NONE).get(name)
        if isinstance(held, KubeObject):
            return (held,)
        return held.values() if held is not None else ()

    def versions_named(self, group: str, kind: str, base: str,
                       where: Callable[[str], bool] | None = None) -> list[KubeObject]:
        """Every version a previous run made of an object named `base` (its
        marks say so: base_name_of), in stream order: a stream postrender
        wrote, read again. `where`: only those in the namespaces it accepts."""
        versions = self._versions_made().get((group, kind, base), [])
        return versions if where is None or not versions else [v for v in versions if where(self.namespace_of(v))]

    def version_bases(self, kinds: Collection[str]) -> set[str]:
        """The names a previous run made versions of, of objects of the kinds."""
        return {base for (_, kind, base) in self._versions_made() if kind in kinds}

    def _versions_made(self) -> dict[tuple[str, str, str], list[KubeObject]]:
        if self._versions is None:
            self._versions = {}
            for obj in self.objects:
                if obj.labels.get(LABEL_VERSIONED) == "true" and obj.name is not None:
                    base_of = base_name_of(obj)
                    if base_of != obj.name:
                        self._versions.setdefault((obj.group, obj.kind, base_of), []).append(obj)
        return self._versions


_NONE: dict = {}  # read only
