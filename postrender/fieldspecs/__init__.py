"""The reference table: which fields of which kinds name a ConfigMap or Secret.

Loaded from data (builtin.yaml, then users' `--config` files in kustomize's
`nameReference` format); nothing else in postrender knows field paths.
"""

from __future__ import annotations

import re
from functools import cache
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from ..printable import quoted
from ..records import field, record
from ..errors import UsageError
from ..lazyre import LazyPattern
from .paths import Filter, Segment, kustomize_keys, kustomize_path, parse_path
from .schema import CONFIG_KINDS, check as check_schema
from .walk import ANY_KIND, WILDCARD, Accessor, Compiled, N, SpecIndex, list_items
# The sections of a field-spec configuration postrender reads.
SECTIONS = ("nameReference", "podSpecs", "podSpecReferences", "podMetadataReferences", "podSpecArgs", "clusterScoped",
            "recreatedWhenAnnotated", "runsBeforeApply", "createdBeforeEveryApply")
# Sections of a kustomize configuration file that are not about name
# references; a shared kustomizeconfig may carry them, postrender ignores them.
_OTHER_KUSTOMIZE_SECTIONS = {
    "namePrefix", "nameSuffix", "nameSpace", "namespace", "commonLabels", "commonAnnotations",
    "labels", "templateLabels", "varReference", "images", "replicas", "patchesStrategicMerge",
}


# A waitsWhen row's test of a field: ("equals", value), ("above", number), or ("always", None).
WaitTest = tuple[str, object]


@record(frozen=True)
class FieldSpec:
    target_kind: str  # ConfigMap or Secret
    kind: str  # ANY_KIND: every kind
    group: str | None  # None: any group
    version: str | None
    path: tuple[Segment, ...]
    path_text: str
    namespace_field: str | None = None
    namespace_prefix: bool = False
    # False where the referrer names the object without reading it (RBAC).
    consumes: bool = True
    # The referrer grants access to the name (RBAC resourceNames): a versioned
    # name is added next to the original, which stays where it still names an object.
    grants: bool = False
    # A container argument: `--flag=[namespace/]name`, or the item after
    # `--flag` (podSpecArgs).
    flags: tuple[str, ...] = ()
    # A name that matches no object in the stream is no reference at all
    # (podSpecArgs: a flag or variable may name anything, anywhere).
    stream_only: bool = False
    # kindFrom: the kind the name refers to is what another object says:
    # (that object's kind, the referrer's field naming it, its field holding
    # {apiVersion, kind}). An admission policy binding's paramRef names an
    # object of its policy's spec.paramKind.
    kind_from: tuple[str, tuple[Segment, ...], tuple[Segment, ...]] | None = None
    # keepsName: why the name written here must stay: it is also used as
    # itself beyond the field (an operator mounts each object at a path made
    # of its name, which other configuration names), or the API server never
    # lets the field change (a StorageClass's parameters). The reference is
    # held, and the object keeps its name, or an unsuffixed copy does
    # (render._holds).
    keeps_name: str | None = None
    # keepsNameWithoutNamespace: why a name stated without a namespace must
    # stay, where its reader takes it in the namespace of each object using
    # the referrer (a ClusterSecretStore's referent authentication, read in
    # each ExternalSecret's namespace): held as keeps_name is, and only so.
    keeps_name_without_namespace: str | None = None

    def matches(self, group: str, version: str) -> bool:
        return (self.group is None or self.group == group) and (self.version is None or self.version == version)

    def read(self, value: str, previous: Callable[[], str | None],
             arguments: Callable[[], Iterable[str]] = tuple) -> tuple[str, str, str | None] | None:
        """What a leaf this spec reaches names: (the text kept before the
        name, the name, the namespace the text states, None: the
        referrer's own), or None where it names nothing. `previous`: the
        list item before the leaf, where it is a string (asked only of an
        argument that may follow a bare `--flag`); `arguments`: the strings
        of its container's `command` and `args` (argument_items; asked only
        of a flag's name that states no namespace). The one reading of a leaf, for the render's YAML
        nodes and the cluster's JSON alike."""
        prefix = ""
        if self.flags:
            spellings = flag_spellings(self.flags)
            flag, eq, given = value.partition("=")
            if eq and flag in spellings:
                prefix, value = spellings[flag], given  # one string for every argument of a flag
            elif value.startswith("-") or previous() not in spellings:
                return None
        namespace = None
        if (self.namespace_prefix or self.flags) and "/" in value:
            written, _, value = value.rpartition("/")
            prefix += written + "/"
            # `$(POD_NAMESPACE)/name`: the variable holds the pod's own namespace.
            namespace = None if _VARIABLE.fullmatch(written) else written
        elif self.flags:
            namespace = namespace_told(arguments())
        return prefix, value, namespace


def namespace_told(arguments: Iterable[str]) -> str | None:
    """The namespace a program's `--namespace` flag tells it (`--namespace=x`
    or `--namespace x`; Go's flag package takes `-namespace` alike, and the
    last given wins), where it reads the objects its other flags name by
    name alone (kube-webhook-certgen's `--secret-name`); None where it is
    given none, or a variable (`$(POD_NAMESPACE)`: the pod's own)."""
    told = None
    waiting = False
    for argument in arguments:
        if waiting:
            told, waiting = argument, False
            continue
        flag, eq, given = argument.partition("=")
        if flag in NAMESPACE_FLAGS:
            if eq:
                told = given
            else:
                waiting = True
    if told is None or _VARIABLE.fullmatch(told) or not NAMESPACE_NAME.fullmatch(told):
        return None
    return told


def tells_namespace(argument: str, before: str | None) -> bool:
    """Whether an argument is part of a `--namespace` flag (namespace_told):
    the flag, `--namespace=x`, or the value after a bare one (`before`)."""
    return argument.partition("=")[0] in NAMESPACE_FLAGS or before in NAMESPACE_FLAGS


def argument_items(access: type[Accessor[N]], holder: N | None, path: tuple[str | int, ...]) -> list[N]:
    """A container's arguments, `command` then `args`, where the item at
    `path` is one of them (`holder` as walk.item_before's); else the items
    of the list it is in. What a `--namespace` among them tells the
    program holds for all of them."""
    if len(path) >= 2 and path[-2] in ARGUMENT_FIELDS and isinstance(path[-1], int) \
            and holder is not None and access.is_mapping(holder):
        return [item for field in ARGUMENT_FIELDS[::-1] for item in access.items(access.child(holder, field)) or ()]
    return list_items(access, holder, path) or []


# Go's flag package takes `-namespace` as `--namespace`.
NAMESPACE_FLAGS = ("--namespace", "-namespace")
# What a namespace may be called (a DNS label).
NAMESPACE_NAME = LazyPattern(r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?")


_VARIABLE = LazyPattern(r"\$\([A-Za-z_][A-Za-z0-9_]*\)")


@cache
def flag_spellings(flags: tuple[str, ...]) -> dict[str, str]:
    """Every way an argument may write one of `flags` (Go's flag package
    takes `-flag` as `--flag`), each with its `=` (a reference's prefix):
    asked for each argument of each container, for the few flag lists the
    table has."""
    spelled = (dashes + flag.lstrip("-") for flag in flags for dashes in ("-", "--"))
    return {spelling: spelling + "=" for spelling in spelled}


@record
class ReferenceTable:
    cluster_scoped: set[str] = field(default_factory=set)
    _index: SpecIndex = field(default_factory=SpecIndex, repr=False, compare=False)
    _known: set[FieldSpec] = field(default_factory=set)
    # Every spec added, in table order: a FieldSpec, None for a duplicate
    # dropped, or still the (target, raw entry, origin) it is built from (the
    # raw entry of a pod path still (holder, entry)). The
    # builtin table holds some 1700 specs and a render meets a few kinds: a
    # kind's specs are built when the kind is first asked for (`_settle`).
    _slots: list[Any] = field(default_factory=list, repr=False)
    # Kind -> positions in _slots not yet built or indexed.
    _unsettled: dict[str, list[int]] = field(default_factory=dict, repr=False)
    # podSpecs × (podSpecReferences and podSpecArgs), kept so either side
    # can grow later: per target, the paths under a PodSpec, each with the
    # field-spec keys it adds (flags, namespacePrefix).
    _pod_paths: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    _pod_holders: list[dict[str, Any]] = field(default_factory=list)
    # Annotations on which a deployer deletes and re-creates an object
    # (hooks) instead of updating it: its immutable fields may then change.
    recreated_annotations: set[str] = field(default_factory=set)
    # Annotation -> values (comma-separated in it) marking a hook that runs
    # before the release's other objects are applied.
    before_apply: dict[str, set[str]] = field(default_factory=dict)
    # Annotation -> the values a hook must all hold to be created before
    # the release's other objects on every install and upgrade alike.
    before_every_apply: dict[str, set[str]] = field(default_factory=dict)
    # template_paths per (kind, group, version, immutable): asked for every
    # object by several stages. Emptied whenever the table grows.
    _template_paths: dict[tuple[str, str, str, bool], tuple[tuple[Segment, ...], ...]] = field(
        default_factory=dict, repr=False, compare=False)
    # template_paths per (kind, apiVersion as written, immutable), emptied
    # with it: pod_templates asks for every object, several times each,
    # where splitting the apiVersion each time cost render +0.7%
    # instructions at N=1000.
    _template_paths_written: dict[tuple[str, str, bool], tuple[tuple[Segment, ...], ...]] = field(
        default_factory=dict, repr=False, compare=False)
    # pod_metadata_path per (kind, group, version), emptied with _template_paths.
    _pod_metadata: dict[tuple[str, str, str], tuple[Segment, ...] | None] = field(
        default_factory=dict, repr=False, compare=False)
    # Facts a render derives from one object through this table (its pod
    # templates, asked for by five stages, per reference): what -> object
    # (which hashes by identity) -> the fact. One table per fact, keyed by
    # the object itself: a (what, id) key and an (object, fact) pair took
    # some 150 bytes per workload and fact, held to the end of a render.
    # Emptied with _template_paths.
    object_facts: dict[str, dict[Any, Any]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def specs(self) -> list[FieldSpec]:
        """Every field spec, in table order."""
        for kind in list(self._unsettled):
            self._settle(kind)
        return [spec for spec in self._slots if spec is not None]

    def for_kind(self, kind: str) -> list[FieldSpec]:
        self._settle_for(kind)
        return self._index.for_kind(kind)

    def applicable(self, kind: str, group: str, version: str) -> Compiled | None:
        """The specs that apply to an object of this kind, group and version
        (in table order), compiled for one walk: see fieldspecs.walk."""
        self._settle_for(kind)
        return self._index.applicable(kind, group, version)

    def _settle_for(self, kind: str) -> None:
        """A kind's pending specs built, and those for every kind."""
        for pending in (kind, ANY_KIND):
            if pending in self._unsettled:
                self._settle(pending)

    def template_paths(self, kind: str, group: str, version: str,
                       immutable: bool = False) -> tuple[tuple[Segment, ...], ...]:
        """Paths to the pod templates (the mapping holding `metadata` and
        `spec`) in a kind; the empty path is the object itself (a Pod).
        `immutable`: only those the API server never lets change (a Job's)."""
        key = (kind, group, version, immutable)
        paths = self._template_paths.get(key)
        if paths is None:
            paths = self._template_paths[key] = tuple(self._find_template_paths(kind, group, version, immutable))
        return paths

    def template_paths_written(self, kind: str, api_version: str,
                               immutable: bool = False) -> tuple[tuple[Segment, ...], ...]:
        """template_paths, for a kind and its apiVersion as written."""
        key = (kind, api_version, immutable)
        paths = self._template_paths_written.get(key)
        if paths is None:
            group, _, version = api_version.rpartition("/")
            paths = self._template_paths_written[key] = self.template_paths(kind, group, version, immutable)
        return paths

    def pod_metadata_path(self, kind: str, group: str, version: str) -> tuple[Segment, ...] | None:
        """Where a kind that is no pod template itself keeps the metadata its
        controller copies into its pods (a podSpecs row's podMetadata: a
        Prometheus's spec/podMetadata); None where it keeps none."""
        key = (kind, group, version)
        if key not in self._pod_metadata:
            self._pod_metadata[key] = next(
                (parse_path(str(holder["podMetadata"])) for holder in self._holders_of(kind, group, version)
                 if holder.get("podMetadata")),
                None)
        return self._pod_metadata[key]

    def waits_when(self, kind: str, group: str, version: str) -> list[tuple[tuple[str, ...], WaitTest, str]]:
        """(path, test, why) of each podSpecs row's waitsWhen for a kind:
        while the object's field at path passes the test (it `equals` a
        value, or is a whole number `above` one), its controller does not
        replace all of its running pods when their template changes."""
        return [(tuple(segment.key for segment in parse_path(str(row["path"]))) if "path" in row else (),
                 ("equals", row["equals"]) if "equals" in row else ("above", row["above"]) if "above" in row
                 else ("always", None), str(row["why"]))
                for holder in self._holders_of(kind, group, version) for row in holder.get("waitsWhen") or ()]

    def _holders_of(self, kind: str, group: str, version: str) -> Iterator[dict[str, Any]]:
        """The podSpecs rows that apply to a kind (group and version, where a row names them)."""
        for holder in self._pod_holders:
            if holder.get("kind") != kind:
                continue
            if holder.get("group") is not None and str(holder["group"]) != group:
                continue
            if holder.get("version") is not None and str(holder["version"]) != version:
                continue
            yield holder

    def _find_template_paths(self, kind: str, group: str, version: str, immutable: bool) -> list[tuple[Segment, ...]]:
        paths: list[tuple[Segment, ...]] = []
        for holder in self._holders_of(kind, group, version):
            if immutable and holder.get("immutable") is not True:
                continue
            path = parse_path(str(holder["path"]))[:-1]
            if path not in paths:
                paths.append(path)
        return paths

    def kind_from_kinds(self) -> frozenset[str]:
        """The kinds a kindFrom spec looks up to learn a name's kind (an
        admission policy's paramKind): read apart from any spec of their own."""
        kinds = set()
        for slot in self._slots:
            if isinstance(slot, FieldSpec):
                if slot.kind_from is not None:
                    kinds.add(slot.kind_from[0])
            elif slot is not None and not isinstance(slot[1], tuple):
                kind_from = slot[1].get("kindFrom")
                if isinstance(kind_from, dict) and kind_from.get("kind"):
                    kinds.add(str(kind_from["kind"]))
        return frozenset(kinds)

    def pod_holders(self) -> list[dict[str, Any]]:
        """The podSpecs entries: where a PodSpec sits in a kind that embeds one."""
        return list(self._pod_holders)

    def add(self, spec: FieldSpec) -> None:
        self._unsettled.setdefault(spec.kind, []).append(len(self._slots))
        self._slots.append(spec)

    def _add_raw(self, target: str, raw: dict[str, Any], origin: str, lazy: bool) -> None:
        """`lazy`: build the spec when its kind is asked for, for a table
        known to be valid (the builtin one); a user's entries are built at
        once, so that a bad one is reported as the configuration loads."""
        if not lazy:
            self.add(_field_spec(target, raw, origin))
            return
        kind = raw.get("kind") or ANY_KIND
        self._unsettled.setdefault(str(kind), []).append(len(self._slots))
        self._slots.append((target, raw, origin))

    def _settle(self, kind: str) -> None:
        """Builds and indexes a kind's pending specs, in table order; a spec
        equal to one added before is dropped."""
        for position in self._unsettled.pop(kind):
            spec = self._slots[position]
            if not isinstance(spec, FieldSpec):
                target, raw, origin = spec
                if isinstance(raw, tuple):  # a pod path: (holder, entry), see _add_pod_path
                    raw = _pod_spec(*raw)
                    if raw is None:  # no pod metadata there
                        self._slots[position] = None
                        continue
                spec = _field_spec(target, raw, origin)
            if spec in self._known:
                self._slots[position] = None
                continue
            self._known.add(spec)
            self._slots[position] = spec
            self._index.add(spec, position)

    def extend(self, data: dict[str, Any], origin: str, lazy: bool = False) -> None:
        """Merge one configuration document (builtin or a user's). `lazy`: see _add_raw."""
        if not isinstance(data, dict):
            raise UsageError(f"{origin}: a field-spec configuration must be a mapping")
        unknown = set(data) - set(SECTIONS) - _OTHER_KUSTOMIZE_SECTIONS
        if unknown:
            raise UsageError(f"{origin}: unknown section(s) {', '.join(sorted(unknown))}; "
                             f"postrender reads {', '.join(SECTIONS)}")
        if not lazy:  # the builtin table passes the same check in the tests, not at every start
            check_schema(data, origin)
        for kind in data.get("clusterScoped") or []:
            self.cluster_scoped.add(str(kind))
        for annotation in data.get("recreatedWhenAnnotated") or []:
            self.recreated_annotations.add(str(annotation))
        _add_annotation_values(self.before_apply, data, "runsBeforeApply", origin)
        _add_annotation_values(self.before_every_apply, data, "createdBeforeEveryApply", origin)
        pod_paths = data.get("podSpecReferences") or {}
        for target, paths in pod_paths.items():
            _check_target(target, origin)
            for path in paths:
                self._add_pod_entry(target, {"path": path}, origin, lazy)
        for target, paths in (data.get("podMetadataReferences") or {}).items():
            _check_target(target, origin, "podMetadataReferences")
            for path in paths:
                self._add_pod_entry(target, {"path": path, _UNDER: "metadata"}, origin, lazy)
        for target, entries in _argument_entries(data.get("podSpecArgs") or [], origin).items():
            for entry in entries:
                self._add_pod_entry(target, entry, origin, lazy)
        for holder in data.get("podSpecs") or []:
            holder = _mapping(holder, origin, "podSpecs entry")
            self._pod_holders.append(holder)
            # Both: the second keys the first's answers by apiVersion as written.
            self._template_paths.clear()
            self._template_paths_written.clear()
            self._pod_metadata.clear()
            self.object_facts.clear()
            for target, entries in self._pod_paths.items():
                for entry in entries:
                    self._add_pod_path(target, holder, entry, origin, lazy)
        for ref in data.get("nameReference") or []:
            ref = _mapping(ref, origin, "nameReference entry")
            target = ref.get("kind")
            if target not in CONFIG_KINDS:
                continue  # references to other kinds (Service, ...) are not ours
            for spec in ref.get("fieldSpecs") or []:
                for one in _each_path(_mapping(spec, origin, "fieldSpec"), origin):
                    self._add_raw(target, one, origin, lazy)

    def _add_pod_entry(self, target: str, entry: dict[str, Any], origin: str, lazy: bool) -> None:
        entries = self._pod_paths.setdefault(target, [])
        if entry not in entries:
            entries.append(entry)
            for holder in self._pod_holders:
                self._add_pod_path(target, holder, entry, origin, lazy)

    def _add_pod_path(self, target: str, holder: dict[str, Any], entry: dict[str, Any], origin: str,
                      lazy: bool) -> None:
        if lazy and holder.get("kind"):  # merged when the kind is met: most never are
            self._unsettled.setdefault(str(holder["kind"]), []).append(len(self._slots))
            self._slots.append((target, (holder, entry), origin))
            return
        raw = _pod_spec(holder, entry)
        if raw is not None:
            self._add_raw(target, raw, origin, lazy)


def pod_path_spec(target: str, holder: dict[str, Any], entry: dict[str, Any], origin: str) -> FieldSpec:
    """The field spec for a path under a PodSpec holder (a `podSpecs` row)."""
    return _field_spec(target, _pod_spec(holder, entry), origin)


def _pod_spec(holder: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any] | None:
    """A field spec's entry for a path under a PodSpec: the holder's keys, the entry's, and the two paths joined.
    An entry of podMetadataReferences is under the metadata the pods get
    (_pod_metadata_of); None for a holder that gives them none."""
    spec = {**holder, **entry}
    if spec.pop(_UNDER, None) is not None:
        under = _pod_metadata_of(holder)
        if under is None:
            return None
        spec["path"] = f"{under}/{entry['path']}" if under else entry["path"]
        return spec
    spec["path"] = f"{holder['path']}/{entry['path']}" if holder.get("path") else entry["path"]
    return spec


# An entry's mark for a path under a pod's metadata (podMetadataReferences),
# not under its spec: taken out before the entry is a field spec.
_UNDER = "_under"


def _pod_metadata_of(holder: dict[str, Any]) -> str | None:
    """Where the metadata a podSpecs row's pods get is, as a path from the
    object: its podMetadata (a Prometheus's spec/podMetadata), the
    `metadata` beside a template's PodSpec, or a Pod's own. None for an
    object whose own spec is a PodSpec (a Knative Revision, a FluentBit):
    its metadata is its own, which the pods it makes may not get."""
    if holder.get("podMetadata"):
        return str(holder["podMetadata"])
    path = str(holder.get("path") or "")
    if path == "spec":
        return "metadata" if holder.get("kind") == "Pod" and not holder.get("group") else None
    if path.endswith("/spec"):
        return path[: -len("spec")] + "metadata"
    return None


# Where a PodSpec keeps containers, and where a container keeps its arguments
# (the Kubernetes API's shape, not a list of programs).
CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")
ARGUMENT_FIELDS = ("args", "command")
_ENV_NAME = re.compile(r"[-._A-Za-z][-._A-Za-z0-9]*")


def _argument_entries(rows: list[Any], origin: str) -> dict[str, list[dict[str, Any]]]:
    """podSpecArgs rows as pod paths, per target: the flags of all rows in
    every container's args and command, and the variables named in `env`."""
    flags: dict[str, list[str]] = {}
    env: dict[str, list[str]] = {}
    for row in rows:
        row = _mapping(row, origin, "podSpecArgs row")
        target = row.get("target")
        if target not in CONFIG_KINDS:
            raise UsageError(f"{origin}: a podSpecArgs row needs target: ConfigMap or Secret (got {quoted(row)})")
        row_flags, row_env = _strings(row, "flags", origin), _strings(row, "env", origin)
        if set(row) - {"target", "flags", "env"} or bool(row_flags) == bool(row_env):
            raise UsageError(f"{origin}: a podSpecArgs row has target and one of flags or env (got {quoted(row)})")
        if any(not flag.startswith("-") or flag.strip("-") == "" or "=" in flag for flag in row_flags):
            raise UsageError(f"{origin}: podSpecArgs flags are written -name or --name (got {quoted(row_flags)})")
        if any(not _ENV_NAME.fullmatch(name) for name in row_env):
            raise UsageError(f"{origin}: podSpecArgs env holds variable names (got {quoted(row_env)})")
        flags.setdefault(target, []).extend(f for f in row_flags if f not in flags[target])
        env.setdefault(target, []).extend(n for n in row_env if n not in env[target])
    entries: dict[str, list[dict[str, Any]]] = {}
    for target in CONFIG_KINDS:
        if flags.get(target):
            entries.setdefault(target, []).extend(
                {"path": f"{containers}/{field}", "flags": flags[target], "streamOnly": True}
                for containers in CONTAINER_LISTS for field in ARGUMENT_FIELDS)
        if env.get(target):
            entries.setdefault(target, []).extend(
                {"path": f"{containers}/env[name={'|'.join(env[target])}]/value", "namespacePrefix": True,
                 "streamOnly": True}
                for containers in CONTAINER_LISTS)
    return entries


def _strings(row: dict[str, Any], key: str, origin: str) -> list[str]:
    value = row.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise UsageError(f"{origin}: podSpecArgs {key} must be a list of strings (got {quoted(value)})")
    return value


def _check_target(target: str, origin: str, section: str = "podSpecReferences") -> None:
    if target not in CONFIG_KINDS:
        raise UsageError(f"{origin}: {section} keys must be ConfigMap or Secret, not {quoted(target)}")


def _mapping(value: Any, origin: str, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise UsageError(f"{origin}: each {what} must be a mapping")
    return value


def _each_path(raw: dict[str, Any], origin: str) -> list[dict[str, Any]]:
    """`paths: [a, b]` is shorthand for one field spec per path, the other keys alike."""
    if "paths" not in raw:
        return [raw]
    paths = raw["paths"]
    if "path" in raw or not isinstance(paths, list) or not paths or not all(isinstance(p, str) for p in paths):
        raise UsageError(f"{origin}: a fieldSpec has path, or paths as a list of strings (got {quoted(raw)})")
    rest = {k: v for k, v in raw.items() if k != "paths"}
    return [{**rest, "path": path} for path in paths]


def expanded(raw: dict[str, Any]) -> list[dict[str, Any]]:
    """A configuration's fieldSpec entry as one mapping per path."""
    return _each_path(raw, "field spec")


def _field_spec(target: str, raw: dict[str, Any], origin: str) -> FieldSpec:
    kind = raw.get("kind") or ANY_KIND  # kustomize's fieldspec filter: no kind is every kind
    path = raw.get("path")
    if not path:
        raise UsageError(f"{origin}: a fieldSpec for {target} needs path (got {quoted(raw)})")
    group = raw.get("group")
    version = raw.get("version")
    parsed = parse_path(str(path), origin)
    kind_from = _kind_from(raw.get("kindFrom"), origin)
    own = _in_secret_values(str(kind), group, parsed)
    if own or kind_from is not None and _in_secret_values(kind_from[0], group, kind_from[2]):
        # Its own path, or its kindFrom's (review61c): the one that reads them.
        shown = path if own else "kindFrom path " + kustomize_path(
            tuple(segment.key for segment in kind_from[2]))  # type: ignore[index]
        kindless = own and str(kind) == ANY_KIND
        how = " may read, having no kind," if kindless else " reads"
        raise UsageError(f"{origin}: a fieldSpec for {target}{how} a Secret's data or stringData ({quoted(shown)}):"
                         " postrender shows what a reference names (warnings, -v, graph), and never a Secret's"
                         " values" + ("; give it the kind it is for" if kindless else ""))
    return FieldSpec(
        target_kind=target,
        kind=str(kind),
        group=None if group is None else str(group),
        version=None if version is None else str(version),
        path=parsed,
        path_text=str(path),
        namespace_field=raw.get("namespaceField"),
        namespace_prefix=bool(raw.get("namespacePrefix", False)),
        consumes=raw.get("consumes", True) is not False,
        grants=raw.get("grants", False) is True,
        flags=tuple(raw.get("flags") or ()),
        stream_only=raw.get("streamOnly", False) is True,
        kind_from=kind_from,
        keeps_name=_keeps_name(raw.get("keepsName"), origin),
        keeps_name_without_namespace=_keeps_name(raw.get("keepsNameWithoutNamespace"), origin,
                                                 "keepsNameWithoutNamespace"),
    )


# Where a Secret holds its values: `*` steps into them too.
_SECRET_VALUES = frozenset({"data", "stringData", WILDCARD})


def _in_secret_values(kind: str, group: Any, path: tuple[Segment, ...]) -> bool:
    """Whether a path of an object of `kind` (ANY_KIND: any; in `group`:
    None, any) may lead into a core Secret's values."""
    return kind in ("Secret", ANY_KIND) and group in (None, "") and bool(path) and path[0].key in _SECRET_VALUES


def _keeps_name(raw: Any, origin: str, key: str = "keepsName") -> str | None:
    if raw is None:
        return None
    if not isinstance(raw, str) or not raw.strip():
        raise UsageError(f"{origin}: {key} says why, as text (got {quoted(raw)})")
    return raw


def _kind_from(raw: Any, origin: str) -> tuple[str, tuple[Segment, ...], tuple[Segment, ...]] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or set(raw) != {"kind", "name", "path"} or not all(raw.values()):
        raise UsageError(f"{origin}: kindFrom needs kind, name and path (got {quoted(raw)})")
    return str(raw["kind"]), parse_path(str(raw["name"]), origin), parse_path(str(raw["path"]), origin)


def load_config_file(path: str) -> list[dict[str, Any]]:
    return load_yaml_file(path, "--config")


def load_yaml_file(path: str, flag: str) -> list[Any]:
    """The documents of a YAML file the user names with `flag` (--config,
    --plugin-config), as the safe loader reads them, null ones left out.
    Whatever makes it unreadable is a usage error naming the flag and the
    file: a file that is not UTF-8, and a tagged value its tag cannot read
    (`!!int abc`, where the loader raises the builtin's own error), named
    by its line and never quoted (a file named by mistake may be a
    Secret's)."""
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except OSError as exc:
        raise UsageError(f"{flag} {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"{flag} {path}: not UTF-8 (byte {exc.start})") from None
    from ruamel.yaml.constructor import ConstructorError, DuplicateKeyError

    try:
        return [doc for doc in YAML(typ="safe").load_all(text) if doc is not None]
    except (ConstructorError, DuplicateKeyError) as exc:
        # Their messages quote the values (a duplicate key's two, a
        # timestamp's text): only where it is is said.
        mark = exc.problem_mark or exc.context_mark
        where = f" line {mark.line + 1}" if mark is not None else ""
        what = "a key written twice" if isinstance(exc, DuplicateKeyError) else "a tagged value its tag cannot read"
        raise UsageError(f"{flag} {path}{where}: invalid YAML: {what}") from None
    except YAMLError as exc:
        raise UsageError(f"{flag} {path}{_yaml_error_place(exc)}: invalid YAML: {_yaml_error_text(exc)}") from None
    # The safe constructor raises what its converters raise (ValueError, KeyError, ...).
    except Exception as exc:  # noqa: BLE001
        line = _unreadable_scalar_line(text)
        where = f" line {line}" if line is not None else ""
        raise UsageError(f"{flag} {path}{where}: invalid YAML: a tagged value its tag cannot read"
                         f" ({type(exc).__name__})") from None


def _yaml_error_place(exc: Exception) -> str:
    """` line L, column C` of a YAML error, where it says."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return f" line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""


def _yaml_error_text(exc: Exception) -> str:
    """What a YAML error says, without its marks: they name the text as
    `"<unicode string>"`, where the file is named already (leak62)."""
    problem, context = getattr(exc, "problem", None), getattr(exc, "context", None)
    if problem and context:
        return f"{problem} ({context})"
    return problem or context or " ".join(str(exc).split())


def _unreadable_scalar_line(text: str) -> int | None:
    """The line of the first scalar the safe loader cannot construct."""
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

    yaml = YAML(typ="safe")
    try:
        for root in yaml.compose_all(text):
            stack = [root]
            while stack:
                node = stack.pop()
                if isinstance(node, ScalarNode):
                    try:
                        yaml.constructor.construct_object(node, deep=True)
                    except Exception:  # noqa: BLE001 - the value this is looking for
                        return int(node.start_mark.line) + 1
                elif isinstance(node, MappingNode):
                    stack.extend(child for pair in reversed(node.value) for child in reversed(pair))
                elif isinstance(node, SequenceNode):
                    stack.extend(reversed(node.value))
    except (YAMLError, RecursionError):
        return None
    return None


def data(file: str) -> Any:
    """One of the packaged data files next to this module (`builtin.yaml`, ...),
    as scripts/compile-fieldspecs compiled it: a run parses no YAML for them."""
    from .compiled import TABLES

    return TABLES[file]


def kustomize_rewrites(target_kind: str, kind: str, group: str, path: str,
                       configured: KustomizeFields | None = None, version: str = "") -> bool:
    """Whether kustomize itself rewrites a reference to its generator output
    at `path` (kustomize's form: `spec/volumes/configMap/name`, list items
    left out) of an object of `kind`, `group` and `version`: a field of its
    own name-reference table (kustomize.yaml; a row without a group takes
    any), or of the kustomization's `configurations:` (`configured`)."""
    rows = _kustomize_rows()
    if (target_kind, kind, group, path) in rows or (target_kind, kind, None, path) in rows:
        return True
    return configured is not None and configured.rewrites(target_kind, kind, group, version, path)


@record(frozen=True)
class KustomizeField:
    """A `configurations:` fieldSpec as kustomize matches it (its fieldspec
    filter): an empty kind, group or version takes any; the path as
    kustomize reads it (paths.kustomize_keys)."""
    target_kind: str
    kind: str
    group: str
    version: str
    path: str

    def covers(self, target_kind: str, kind: str, group: str, version: str, path: str) -> bool:
        return (self.target_kind == target_kind and self.path == path and self.kind in ("", kind)
                and self.group in ("", group) and self.version in ("", version))


@record(frozen=True)
class KustomizeFields:
    """The fields the kustomization's `configurations:` have kustomize rewrite."""
    rows: tuple[KustomizeField, ...] = ()

    def rewrites(self, target_kind: str, kind: str, group: str, version: str, path: str) -> bool:
        return any(row.covers(target_kind, kind, group, version, path) for row in self.rows)


def kustomize_fields(configurations: Iterable[tuple[str, dict[str, Any]]]) -> KustomizeFields:
    """The nameReference rows of `configurations` ((origin, document), as
    the exec transformer read them) for ConfigMaps and Secrets."""
    rows = []
    for _origin, document in configurations:
        for entry in document.get("nameReference") or []:
            if not isinstance(entry, dict) or entry.get("kind") not in CONFIG_KINDS:
                continue
            for raw in entry.get("fieldSpecs") or []:
                for spec in _each_path(raw, "configurations"):
                    rows.append(KustomizeField(
                        str(entry["kind"]), str(spec.get("kind") or ""), str(spec.get("group") or ""),
                        str(spec.get("version") or ""), kustomize_path(kustomize_keys(str(spec["path"])))))
    return KustomizeFields(tuple(rows))


@cache
def _kustomize_rows() -> frozenset[tuple[str, str, str | None, str]]:
    return frozenset((target, row["kind"], row.get("group"), row["path"])
                     for target, rows in data("kustomize.yaml").items() for row in rows)


@cache
def masked_values() -> dict[str, tuple[str, tuple[tuple[str, ...], ...]]]:
    """bulk.yaml's maskedValues: kind -> (group, the paths of the values,
    each as its keys)."""
    return {row["kind"]: (row["group"], tuple(tuple(segment.key for segment in parse_path(path, "bulk.yaml"))
                                              for path in row["paths"]))
            for row in data("bulk.yaml")["maskedValues"]}


def builtin_config() -> dict[str, Any]:
    return data("builtin.yaml")


def _add_annotation_values(into: dict[str, set[str]], data: dict[str, Any], section: str, origin: str) -> None:
    """A section mapping an annotation to a list of its values, added to `into`."""
    read = data.get(section) or {}
    if not isinstance(read, dict) or not all(isinstance(v, list) for v in read.values()):
        raise UsageError(f"{origin}: {section} maps an annotation to a list of its values")
    for annotation, values in read.items():
        # Lowercased, as graph.references compares the phases an object's
        # annotation holds.
        into.setdefault(str(annotation), set()).update(str(v).lower() for v in values)


def load_table(extra: list[tuple[str, dict[str, Any]]] = ()) -> ReferenceTable:
    table = ReferenceTable()
    # The builtin table is valid (tests/unit/fieldspecs build all of it): its
    # specs are built as a render meets their kinds.
    table.extend(builtin_config(), "builtin field specs", lazy=True)
    for origin, data in extra:
        table.extend(data, origin)
    return table
