"""One side of a diff: render it, read back what the render writes, keep the facts.

The render itself decides everything (which objects are versioned, which
references are left as written, where a config hash goes); this module only
records its decisions. Pod templates are taken from the render's *output*,
so "rolls" means exactly "the pod template postrender writes differs".
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ...pipeline.check import guard
from ...errors import PostrenderError, UsageError
from ...fieldspecs import ReferenceTable
from ...pipeline.graph.references import (
    Path, in_immutable_template, is_config_object, pod_metadata, pod_templates,
)
from ...pipeline.index.hashing import Fields, go_json, hash_suffix, kustomize_secret_hash, string_entries, to_json_value
from ...pipeline.index.objects import IMPLICIT, ObjectIndex, ObjectKey, base_name_of
from ...syntax.nodes import MappingNode, ScalarNode, entries, get, get_str, go_base64, json_value, unique_nodes
from ...options import RenderOptions
from ...pipeline.plan.config_hash import hashed_name
from ...pipeline.plan.versions import Version, suffixed_later_by_kustomize
from ...vocabulary import ANNOTATION_CONFIG_HASH, ANNOTATION_COPY_OF, ANNOTATION_REFS, LABEL_CONTENT_HASH
from ...pipeline.read import read
from ...pipeline.read.documents import KubeObject, Source
from ...records import replace
from ...pipeline.render import Analysis, render
from .. import as_rendered
from ...report import Diagnostic, Reporter
from .model import ObjectRef

# Annotations postrender computes from config: a change in them is a config
# change, never a change someone made to the pod template.
COMPUTED_ANNOTATIONS = (ANNOTATION_CONFIG_HASH, ANNOTATION_REFS)


@dataclass(frozen=True, order=True)
class ConfigId:
    """A ConfigMap or Secret across renders: its versioned name differs, this does not."""

    kind: str
    namespace: str  # index namespace (IMPLICIT: none given)
    name: str  # base name


@dataclass(frozen=True)
class Entry:
    field: str  # data or binaryData (a Secret's stringData counts as data, as the API server stores it)
    digest: str  # sha256 of the value's bytes: enough to say "changed"
    text: str | None = None  # the value itself: ConfigMap `data` only, never a Secret's


@dataclass
class Config:
    id: ConfigId
    name: str  # the name the render gives it
    hash: str
    excluded: str | None  # why it keeps its name
    entries: dict[str, Entry]
    secret_type: str | None = None
    # kustomize appends its hash to the name after the render (the object is
    # generator output, annotated needsHashSuffix): `name` is the name it
    # ends with, and kustomize rewrites the references to it.
    suffixed_by_kustomize: bool = False


@dataclass
class Stored:
    """A ConfigMap or Secret under a name as the deploy stores it: what the
    API server holds an update under the same name to (refused.py)."""

    config: ConfigId  # the config it is a version, a copy or the object itself of
    name: str
    immutable: bool  # it says `immutable: true`
    entries: dict[str, Entry]
    secret_type: str | None
    source: str | None  # the chart file (`# Source:`)


@dataclass
class Link:
    """A referrer's use of a config object."""

    config: ConfigId
    field: str
    held: str | None = None  # the reference is left as written, and why
    unrewritable: bool = False  # the guard found it: no field spec covers the field
    declared: bool = False  # by annotation (a Reloader reload list, hash-dependency)

    @property
    def active(self) -> bool:
        """Whether a change to the object can reach the referrer through this use."""
        return self.held is None and not self.unrewritable


@dataclass
class Shape:
    """A pod template (or a whole object) as the render writes it."""

    path: Path
    value: object  # its JSON value
    exact: str  # canonical JSON of value
    normalized: object  # references replaced by the object they resolve to; computed annotations dropped
    refs: str | None = None  # its postrender.io/refs annotation


# The fields of an immutable pod template an update may still change, by
# (group, kind), relative to the template (a bare Pod: the object itself).
# A bare Pod (ValidatePodUpdate, kubernetes pkg/apis/core/validation): each
# container's and init container's image, whose container the kubelet then
# restarts in the same pod; and its metadata (of which the template holds
# only the annotations: metadata, not spec). The update also takes added tolerations, a lowered
# activeDeadlineSeconds and a negative terminationGracePeriodSeconds set to
# 1; diff does not check those conditions, so a change there is still
# listed as refused.
UPDATED_IN_PLACE: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "Pod"): ("spec.containers[].image", "spec.initContainers[].image", "metadata"),
}


@dataclass
class Referrer:
    key: ObjectKey
    ref: ObjectRef
    templates: dict[Path, Shape]
    whole: Shape | None  # objects without a pod template: the object itself
    links: list[Link] = field(default_factory=list)
    hashed: set[ConfigId] = field(default_factory=set)  # covered by a postrender.io/config-hash
    recorded: set[ConfigId] = field(default_factory=set)  # named in postrender.io/refs
    # Why a change of its pod template replaces none of its pods by itself
    # (_waits); None: its controller rolls them.
    waits: str | None = None
    # Where its template is immutable, the fields an update may change all
    # the same (UPDATED_IN_PLACE, as path steps).
    in_place: tuple[tuple[str | None, ...], ...] = ()


@dataclass
class Side:
    label: str
    configs: dict[ConfigId, Config]
    referrers: dict[ObjectKey, Referrer]
    versions: dict[tuple[str, str, str], str]  # (kind, namespace, versioned name) -> base name
    warnings: list[Diagnostic]
    infos: list[str]
    # Each config another config's data names (a `--config` field spec), and
    # those configs: a change to it reaches theirs, and their new names.
    named_by_configs: dict[ConfigId, set[ConfigId]] = field(default_factory=dict)
    # Every ConfigMap and Secret the deploy stores, by (kind, namespace, name).
    stored: dict[tuple[str, str, str], Stored] = field(default_factory=dict)


def build(label: str, sources: list[Source], options: RenderOptions) -> Side:
    quiet = Reporter(stderr=io.StringIO(), keep_infos=True)
    # A side postrender wrote already is what was deployed: compared as
    # given, not as this version would write it again. The same version
    # writes it again unchanged; an older one may have versioned less (a
    # config it left named as written, which this one versions, is a
    # reference the deployed template does not hold yet: a roll).
    texts = [source.text for source in sources]  # as given: read may mask or pack them
    try:
        # A side that is one ResourceList is rendered as the KRM function
        # renders it: with the options its functionConfig sets.
        options, taken = as_rendered(sources, options, quiet, named=True)
        # A name the render would leave on a removed object fails a render; a
        # diff reports it (a reference that does not roll) instead, as graph does.
        result = render(sources, replace(options, show_broken=True), quiet, taken)
        analysis = result.analysis
        cluster_scoped = frozenset(analysis.table.cluster_scoped)
        output = read([Source(f"{label} (rendered)", result.output)], options.limits)
        out_index = ObjectIndex(output.objects, options.namespace, cluster_scoped)
        written = Written(out_index, *_post_rendered(sources, texts, options, cluster_scoped))
        ids, configs, versions, by_content = _configs(analysis, written)
        referrers = _referrers(analysis, written, ids, by_content, versions)
        stored = _stored(analysis, written, ids)
    except PostrenderError as exc:
        # Still one line; it says which side, which the render's own message cannot.
        raise PostrenderError(f"{label}: {exc}") from None
    except UsageError as exc:
        raise UsageError(f"{label}: {exc}") from None  # a functionConfig the function refuses
    named: dict[ConfigId, set[ConfigId]] = {}
    for ref in analysis.graph.references:
        if ref.target is not None and id(ref.referrer) in ids and id(ref.target) in ids:
            named.setdefault(ids[id(ref.target)], set()).add(ids[id(ref.referrer)])
    return Side(label, configs, referrers, versions, quiet.warnings, quiet.infos, named, stored)


@dataclass
class Written:
    """What would be deployed of each object: a raw file's as the render
    writes it (`rendered`), a file postrender wrote already as it gives it
    (`given`, its objects; `given_sources`, those files, by id)."""

    rendered: ObjectIndex
    given: ObjectIndex
    given_sources: frozenset[int]

    def as_given(self, obj: KubeObject) -> bool:
        return id(obj.document.source) in self.given_sources

    def index_of(self, obj: KubeObject) -> ObjectIndex:
        return self.given if self.as_given(obj) else self.rendered


def _post_rendered(sources: list[Source], texts: list[str], options: RenderOptions,
                   cluster_scoped: frozenset[str]) -> tuple[ObjectIndex, frozenset[int]]:
    """The objects of the files postrender wrote already, read whole as
    given, and those files (by id): a file holding marks only postrender
    writes (a version's content hash, a copy, a pod template's config hash).
    A side may mix them with raw files (a folder)."""
    given: list[KubeObject] = []
    ids: set[int] = set()
    for source, text in zip(sources, texts):
        if LABEL_CONTENT_HASH not in text and ANNOTATION_COPY_OF not in text and ANNOTATION_CONFIG_HASH not in text:
            continue  # most raw files: not read again
        objects = read([Source(source.name, text)], options.limits).objects
        if any(LABEL_CONTENT_HASH in obj.labels or ANNOTATION_COPY_OF in obj.annotations
               or _holds_key(obj.node, ANNOTATION_CONFIG_HASH) for obj in objects):
            given.extend(objects)
            ids.add(id(source))
        # else: the words in a comment, say
    return ObjectIndex(given, options.namespace, cluster_scoped), frozenset(ids)


def _holds_key(root: MappingNode, key: str) -> bool:
    """Whether a mapping in the tree has the key `key`."""
    return any(isinstance(node, MappingNode)
               and any(isinstance(k, ScalarNode) and k.value == key for k, _ in node.value)
               for node in unique_nodes(root))


def _configs(analysis: Analysis, written: Written):
    """A config of a file postrender wrote already (Written.as_given) has
    the name it was deployed with; one of a raw file, the render's."""
    graph, the_plan = analysis.graph, analysis.plan
    index = graph.index
    referenced = {id(ref.target) for ref in graph.references if ref.target is not None}
    ids: dict[int, ConfigId] = {}
    candidates: dict[ConfigId, list[Version]] = {}
    versions: dict[tuple[str, str, str], str] = {}
    for version in the_plan.versions:
        obj = version.obj
        cid = ConfigId(obj.kind, index.namespace_of(obj), _config_name(version))
        ids[id(obj)] = cid
        candidates.setdefault(cid, []).append(version)
        if not written.as_given(obj):
            if version.versioned:
                versions[(obj.kind, cid.namespace, version.name)] = cid.name
        elif LABEL_CONTENT_HASH in obj.labels and obj.name:
            versions[(obj.kind, cid.namespace, obj.name)] = cid.name  # a version, as it was deployed
    configs: dict[ConfigId, Config] = {}
    # A postrender.io/config-hash item names a config as the plan does
    # (config_hash._item: kind, hashed_name, hash).
    by_content: dict[tuple[str, str, str], list[ConfigId]] = {}
    for cid, group in candidates.items():
        # A keep-original copy shares its base name; so may versions a
        # previous render carried forward (--retain). The one in use wins.
        primary = min(
            group,
            key=lambda v: (ANNOTATION_COPY_OF in v.obj.annotations, id(v.obj) not in referenced,
                           v.obj.document.index, v.obj.item or 0),
        )
        as_given = written.as_given(primary.obj)
        deployed = primary.obj.name if as_given and primary.obj.name else primary.name
        out = written.index_of(primary.obj).get(ObjectKey("", cid.kind, cid.namespace, deployed))
        node = (out or primary.obj).node
        found, secret_type = _entries(cid.kind, node)
        later = _suffix_to_come(primary, node)
        name = deployed if later is None else f"{deployed}-{later}"
        configs[cid] = Config(cid, name, primary.hash, primary.excluded, found, secret_type, later is not None)
        by_content.setdefault((cid.kind, hashed_name(primary.obj, primary), primary.hash), []).append(cid)
    return ids, configs, versions, by_content


def _stored(analysis: Analysis, written: Written, ids: dict[int, ConfigId]) -> dict[tuple[str, str, str], Stored]:
    """Each config under each name the deploy stores it by: a file
    postrender wrote already, as given; a raw one's, the render's version
    and the unsuffixed copy it may keep (--keep-original), or the object
    under the name it keeps. One kustomize is yet to name by its content
    (needsHashSuffix) is left out: its name follows its content."""
    stored: dict[tuple[str, str, str], Stored] = {}
    for version in analysis.plan.versions:
        obj = version.obj
        if suffixed_later_by_kustomize(obj):
            continue
        cid = ids[id(obj)]
        names = (obj.name,) if written.as_given(obj) else (version.name, obj.name)
        for name in dict.fromkeys(n for n in names if n):
            out = written.index_of(obj).get(ObjectKey("", obj.kind, cid.namespace, name))
            if out is None or (obj.kind, cid.namespace, name) in stored:
                continue
            found, secret_type = _entries(obj.kind, out.node)
            immutable = get(out.node, "immutable")
            stored[(obj.kind, cid.namespace, name)] = Stored(
                cid, name, isinstance(immutable, ScalarNode) and json_value(immutable) is True, found, secret_type,
                obj.document.source_comment)
    return stored


def _config_name(version: Version) -> str:
    """The name a config keeps from one render to the next: its base name,
    or a kustomize name (`app-config-hf678c7m2b`) without its content hash,
    so that kustomize's old and new names pair up as postrender's own do.
    An object kustomize is yet to suffix (needsHashSuffix) has no hash in
    its name to take off."""
    obj = version.obj
    if version.kustomized and not suffixed_later_by_kustomize(obj):
        suffix = hash_suffix(version.name)
        if suffix is not None:
            return version.name[: -len(suffix) - 1]
    return base_name_of(obj)


def _suffix_to_come(version: Version, node: MappingNode) -> str | None:
    """The hash kustomize appends to the name of its generator's output
    (annotated needsHashSuffix) once every transformer, postrender
    included, has run: its hash of the object as written (a Secret's
    `stringData` or missing `type` counted as kustomize counts them)."""
    if not suffixed_later_by_kustomize(version.obj):
        return None
    if version.obj.kind == "Secret":
        return kustomize_secret_hash(Fields(node)) or version.hash
    return version.hash


def _entries(kind: str, node: MappingNode) -> tuple[dict[str, Entry], str | None]:
    found: dict[str, Entry] = {}
    if kind == "ConfigMap":
        for key, value in _pairs(get(node, "data")):
            found[key] = Entry("data", _digest(value.encode("utf-8")), value)
        for key, value in _pairs(get(node, "binaryData")):
            found[key] = Entry("binaryData", _digest(_decode(value)))
        return found, None
    for key, value in _pairs(get(node, "data")):
        found[key] = Entry("data", _digest(_decode(value)))
    for key, value in _pairs(get(node, "stringData")):
        found[key] = Entry("data", _digest(value.encode("utf-8")))
    return found, get_str(node, "type") or "Opaque"


def _pairs(node) -> list[tuple[str, str]]:
    """The entries as Kubernetes reads them, as the hash does: each key as
    its JSON key (`yes` is "true"), each value the string it gets (`!!binary`
    decoded), merge keys applied. The render has refused any other value."""
    if not isinstance(node, MappingNode):
        return []
    return [(key, value) for key, value in string_entries(node).items() if isinstance(value, str)]


def _decode(text: str) -> bytes:
    # As the API server decodes (go_base64); the render has refused anything else.
    data = go_base64(text)
    return text.encode("utf-8") if data is None else data


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _referrers(analysis: Analysis, deployed: Written, ids: dict[int, ConfigId],
               by_content: dict[tuple[str, str, str], list[ConfigId]],
               versions: dict[tuple[str, str, str], str]) -> dict[ObjectKey, Referrer]:
    graph, table = analysis.graph, analysis.table
    index = graph.index
    links: dict[int, list[Link]] = {}
    tokens: dict[int, list[tuple[Path, str, str]]] = {}
    for ref in graph.references:
        target = ref.target
        if target is None or id(target) not in ids:
            continue
        cid = ids[id(target)]
        tokens.setdefault(id(ref.referrer), []).append((ref.path, ref.prefix, token(cid)))
        if ref.spec.consumes:
            links.setdefault(id(ref.referrer), []).append(
                Link(cid, ref.field_path, held=analysis.policy.held.get(id(ref))))
    for dep in analysis.dependencies:
        if dep.target is not None and id(dep.target) in ids:
            links.setdefault(id(dep.referrer), []).append(Link(ids[id(dep.target)], dep.field_path, declared=True))
    for finding in guard.check(graph, analysis.plan):
        if id(finding.version.obj) in ids:
            links.setdefault(id(finding.referrer), []).append(
                Link(ids[id(finding.version.obj)], finding.field_path, unrewritable=True))
    hashed: dict[int, set[ConfigId]] = {}
    for place in analysis.config_hashes:
        namespace = index.namespace_of(place.obj)
        for item, config in place.objects:
            if config is not None and id(config) in ids:
                # The object itself: not one of the same content elsewhere.
                hashed.setdefault(id(place.obj), set()).add(ids[id(config)])
                continue
            # One a producer makes: found by its content.
            matches = by_content.get(item, [])
            same = [cid for cid in matches if cid.namespace == namespace]
            hashed.setdefault(id(place.obj), set()).update(same or matches)

    referrers: dict[ObjectKey, Referrer] = {}
    for obj in index.objects:
        if obj.name is None or is_config_object(obj):
            continue
        templates = pod_templates(obj, table)
        if not templates and id(obj) not in links and id(obj) not in hashed:
            continue
        key = index.key(obj)
        written = deployed.index_of(obj).get(key)
        if written is None:
            continue
        exact = to_json_value(written.node)
        tokenized = exact
        for path, prefix, text in tokens.get(id(obj), []):
            tokenized = _replaced(tokenized, path, prefix + text)
        metadata_at = pod_metadata(obj, table)
        typed = obj.group in _TYPED_GROUPS
        shapes = {t.path: _shape(t.path, exact, tokenized, template=True, pod_metadata=metadata_at, typed=typed)
                  for t in templates}
        namespace = index.namespace_of(obj)
        whole = None if shapes else _shape((), exact, tokenized)
        recorded = {
            ConfigId(kind, ns, versions[(kind, ns, name)])
            for shape in ([whole] if whole else shapes.values())
            for kind, ns, name in _recorded(shape.refs, namespace)
            if (kind, ns, name) in versions
        }
        referrers[key] = Referrer(
            key,
            ObjectRef(obj.kind, None if namespace == IMPLICIT else namespace, obj.name, obj.document.source_comment),
            shapes,
            whole,
            links.get(id(obj), []),
            hashed.get(id(obj), set()),
            recorded,
            _waits(obj, exact, table) if shapes else None,
            _in_place(obj, table) if shapes else (),
        )
    return referrers


def _waits(obj: KubeObject, written: object, table: ReferenceTable) -> str | None:
    """Why a change of the object's pod template replaces none of its pods
    by itself, as written: its podSpecs row's waitsWhen (a paused
    Deployment, updateStrategy OnDelete, a StatefulSet's partition, whose
    `why` may say `{value}`, the field's), or a template the API server
    never lets change on an object updated in place (a Job's)."""
    for path, (test, value), why in table.waits_when(obj.kind, obj.group, obj.api_version.rpartition("/")[2]):
        if test == "always":
            return why
        held = _whole(_at(written, path))
        equal = test == "equals" and held == value and type(held) is type(value)  # `true`, never 1
        if equal or test == "above" and type(held) is int and held > value:  # type: ignore[operator]
            return why.replace("{value}", str(held))
    if _immutable(obj, table):
        return ("the API server refuses a change to this pod template once the object exists (field is "
                "immutable): delete it first, or make it a hook")
    return None


def _whole(value: object) -> object:
    """A number as the API server reads it into an integer field: `2.0`
    (and `2e0`) as 2, as the JSON kubectl sends says `2`."""
    if type(value) is float and value.is_integer():
        return int(value)
    return value


def _immutable(obj: KubeObject, table: ReferenceTable) -> bool:
    return any(in_immutable_template(obj, template.path, table) for template in pod_templates(obj, table))


def _in_place(obj: KubeObject, table: ReferenceTable) -> tuple[tuple[str | None, ...], ...]:
    """The fields of its immutable template an update may change (UPDATED_IN_PLACE)."""
    paths = UPDATED_IN_PLACE.get((obj.group, obj.kind), ())
    return tuple(steps(path) for path in paths) if paths and _immutable(obj, table) else ()


def _own_template(obj: object, pod_metadata: Path | None = None) -> object:
    """What of an object that is its own pod template reaches its pods: its
    spec, and the annotations of its metadata, or of the mapping its
    controller copies into its pods' metadata (`pod_metadata`, a
    Prometheus's spec/podMetadata: its own metadata reaches no pod), moved
    to `metadata` so the shape is read as a template's."""
    if not isinstance(obj, dict):
        return obj
    out: dict = {}
    source = _at(obj, pod_metadata) if pod_metadata else obj.get("metadata")
    if isinstance(source, dict) and "annotations" in source:
        out["metadata"] = {"annotations": source["annotations"]}
    if "spec" in obj:
        out["spec"] = obj["spec"]
        if pod_metadata and isinstance(source, dict) and "annotations" in source:
            out["spec"] = _without(obj, pod_metadata + ("annotations",))["spec"]
    return out


def _without(value: object, path: Path) -> object:
    """`value` without the key at `path`; only the containers on the path are copied."""
    if not isinstance(value, dict) or path[0] not in value:
        return value
    if len(path) == 1:
        return {k: v for k, v in value.items() if k != path[0]}
    return {**value, path[0]: _without(value[path[0]], path[1:])}


def _recorded(refs: str | None, namespace: str) -> list[tuple[str, str, str]]:
    """The versions a postrender.io/refs value lists: `Kind/name` or `Kind/namespace/name`."""
    found = []
    for item in (refs or "").split(","):
        parts = item.strip().split("/")
        if len(parts) == 2:
            found.append((parts[0], namespace, parts[1]))
        elif len(parts) == 3:
            found.append((parts[0], parts[1], parts[2]))
    return found


def token(cid: ConfigId) -> str:
    # Not a valid Kubernetes name, so it never equals a name someone wrote.
    return f"<{cid.kind} {cid.namespace}/{cid.name}>"


def _at(value: object, path: Path) -> object:
    for part in path:
        if isinstance(part, int) and isinstance(value, list) and 0 <= part < len(value):
            value = value[part]
        elif isinstance(part, str) and isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return None
    return value


def _replaced(value: object, path: Path, new: str) -> object:
    """`value` with the string at `path` replaced; only the containers on the
    path are copied, so the original stays as the render wrote it."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(head, int) and isinstance(value, list) and 0 <= head < len(value):
        copied = list(value)
        copied[head] = _replaced(value[head], rest, new)
        return copied
    if isinstance(head, str) and isinstance(value, dict) and head in value:
        return {**value, head: _replaced(value[head], rest, new)}
    return value


# Fields of a pod template (PodTemplateSpec; a bare Pod's own metadata and
# spec alike) where an empty mapping is stored as no field, from
# k8s.io/api core/v1 types.go and meta/v1 ObjectMeta and LabelSelector:
# a Go map with `omitempty` (JSON and protobuf leave an empty map out, and
# the Deployment controller's semantic equality takes nil and empty maps as
# equal), and a struct held by value, not by pointer (it decodes to the
# same zero value whether written `{}` or left out). An empty mapping
# anywhere else, a pointer to a struct (`securityContext: {}`), is stored
# and rolls. `[]` steps into every item of a list.
_EMPTY_IS_ABSENT = (
    "metadata", "metadata.labels", "metadata.annotations",
    "spec.nodeSelector", "spec.overhead", "spec.resources.limits", "spec.resources.requests",
    *(f"spec.{containers}[].resources{field}"
      for containers in ("containers", "initContainers", "ephemeralContainers")
      for field in ("", ".limits", ".requests")),
    "spec.volumes[].csi.volumeAttributes",
    "spec.volumes[].flexVolume.options",
    "spec.volumes[].projected.sources[].podCertificate.userAnnotations",
    "spec.volumes[].ephemeral.volumeClaimTemplate.metadata",
    "spec.volumes[].ephemeral.volumeClaimTemplate.metadata.labels",
    "spec.volumes[].ephemeral.volumeClaimTemplate.metadata.annotations",
    "spec.volumes[].ephemeral.volumeClaimTemplate.spec.resources",
    "spec.volumes[].ephemeral.volumeClaimTemplate.spec.resources.limits",
    "spec.volumes[].ephemeral.volumeClaimTemplate.spec.resources.requests",
    "spec.volumes[].ephemeral.volumeClaimTemplate.spec.selector.matchLabels",
    "spec.volumes[].projected.sources[].clusterTrustBundle.labelSelector.matchLabels",
    "spec.topologySpreadConstraints[].labelSelector.matchLabels",
    *(f"spec.affinity.{affinity}.{term}.{selector}.matchLabels"
      for affinity in ("podAffinity", "podAntiAffinity")
      for term in ("requiredDuringSchedulingIgnoredDuringExecution[]",
                   "preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm")
      for selector in ("labelSelector", "namespaceSelector")),
)


# The groups of the workloads the API server decodes into its own Go types
# (Pod, ReplicationController, Deployment, StatefulSet, DaemonSet, Job,
# CronJob...; extensions/v1beta1, their legacy group), so that an empty map in their templates is stored as none.
# A custom resource's template (an Argo Rollout, a Knative Service) is
# stored as written, `{}` and all, and its controller, decoding it into an
# empty map rather than nil, may hash it otherwise (as a Rollout's pod
# template hash does): there an empty mapping still counts.
_TYPED_GROUPS = frozenset({"", "apps", "batch", "extensions"})


def steps(path: str) -> tuple[str | None, ...]:
    """A table's dotted path as steps; None for `[]`, any item of a list."""
    return tuple(None if step == "[]" else step for step in re.findall(r"\[\]|[^.\[\]]+", path))


_EMPTY_IS_ABSENT_PATHS = frozenset(steps(path) for path in _EMPTY_IS_ABSENT)
# Every path leading to one: below any other, no field is in the table.
_EMPTY_IS_ABSENT_PREFIXES = frozenset(path[:n] for path in _EMPTY_IS_ABSENT_PATHS for n in range(len(path) + 1))


def _as_stored(value: object, at: tuple | None = None) -> object:
    """A template as the API server stores it, as far as that is known
    without its schema: a field written null or as an empty list is no
    field (Go's nil pointer, and a slice `omitempty` leaves out), so adding
    `args: []` creates no ReplicaSet; so is an empty mapping where the
    field is a Go map or a struct held by value (_EMPTY_IS_ABSENT,
    `annotations: {}`). Any other empty mapping stays: a pointer to an
    empty struct (`securityContext: {}`) is stored as one. `at`: the path
    of `value` in a pod template, None outside one (or below every field
    the table names).

    Walked with a stack of its own, not by recursion: --max-depth lets a
    value nest 1,000 levels, past Python's recursion limit."""
    if not isinstance(value, (dict, list)):
        return value
    # Each frame: the value's stored form being built, its children still to
    # read (key, child, the child's path), and the child being built below it.
    stack: list[list] = [[_empty_like(value), _stored_children(value, at), None, None]]
    while True:
        frame = stack[-1]
        for key, child, below in frame[1]:
            if isinstance(child, (dict, list)):
                frame[2], frame[3] = key, below
                stack.append([_empty_like(child), _stored_children(child, below), None, None])
                break
            _store(frame[0], key, child, below)
        else:
            done = stack.pop()[0]
            if not stack:
                return done
            parent = stack[-1]
            _store(parent[0], parent[2], done, parent[3])


def _empty_like(value: dict | list) -> dict | list:
    return {} if isinstance(value, dict) else []


def _stored_children(value: dict | list, at: tuple | None) -> Iterator[tuple[object, object, tuple | None]]:
    if isinstance(value, dict):
        for k, v in value.items():
            if v is None or v == []:
                continue
            below = None if at is None else at + (k,)
            yield k, v, below if below in _EMPTY_IS_ABSENT_PREFIXES else None
    else:
        item = None if at is None or at + (None,) not in _EMPTY_IS_ABSENT_PREFIXES else at + (None,)
        for v in value:
            yield None, v, item


def _store(out: dict | list, key: object, value: object, at: tuple | None) -> None:
    if isinstance(out, list):
        out.append(value)
    elif not (value == {} and at in _EMPTY_IS_ABSENT_PATHS):
        out[key] = value


def _shape(path: Path, exact: object, tokenized: object, template: bool = False,
           pod_metadata: Path | None = None, typed: bool = False) -> Shape:
    """`typed`: the object is of a kind the API server stores through its Go
    types (_TYPED_GROUPS), where an empty map is no field (_EMPTY_IS_ABSENT)."""
    at = () if template and typed else None
    value = _as_stored(_at(exact, path), at)
    normalized = _as_stored(_at(tokenized, path), at)
    if template and not path:
        # An object that is its own pod template (a Pod, a Knative Revision, a
        # Prometheus): its spec and annotations are the template; its name,
        # labels and status are not.
        value, normalized = _own_template(value, pod_metadata), _own_template(normalized, pod_metadata)
    refs = None
    metadata = normalized.get("metadata") if isinstance(normalized, dict) else None
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if isinstance(annotations, dict):
        refs = annotations.get(ANNOTATION_REFS) if isinstance(annotations.get(ANNOTATION_REFS), str) else None
        # Copies, not edits: `normalized` shares its containers with `value`.
        annotations = {k: v for k, v in annotations.items() if k not in COMPUTED_ANNOTATIONS}
        metadata = {k: v for k, v in metadata.items() if k != "annotations"}
        if annotations:
            metadata["annotations"] = annotations
        # An annotations mapping postrender alone filled is no change either.
        normalized = {k: v for k, v in normalized.items() if k != "metadata"}
        if metadata:
            normalized["metadata"] = metadata
    return Shape(path, value, go_json(value), normalized, refs)
