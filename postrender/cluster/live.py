"""Read the live state that retention and gc decide on: the versioned
ConfigMaps and Secrets, and who still uses each of them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone

from ..fieldspecs import ReferenceTable
from ..pipeline.index.hashing import hash_suffix
from ..pipeline.plan.versions import HASH_SUFFIX_LENGTH, label_value
from ..vocabulary import ANNOTATION_ORIGINAL_NAME, INSTANCE_LABEL, LABEL_BASE_NAME, LABEL_SCOPE, LABEL_VERSIONED
from ..report import Reporter
from .client import Cluster, Resource
from .refs import Use, uses

CONFIG_KINDS = ("ConfigMap", "Secret")

# Never holders of references, and large: not worth listing.
_SKIPPED = {("", "Event"), ("events.k8s.io", "Event"),
            ("", "Endpoints"), ("discovery.k8s.io", "EndpointSlice"), ("coordination.k8s.io", "Lease")}
# Read as metadata only, their `postrender.io/refs` records: no field spec
# reads a Secret's values (fieldspecs refuses one), and none is fetched.
_METADATA_ONLY = {("", "Secret")}
_EXAMPLES = 3  # referrers named per version in reasons


@dataclass(frozen=True)
class LiveVersion:
    kind: str
    namespace: str
    name: str
    uid: str
    resource_version: str
    created: datetime
    labels: tuple[tuple[str, str], ...] = ()
    annotations: tuple[tuple[str, str], ...] = ()
    # Another object owns it (an owner reference): a controller's, not a deployer's to re-emit.
    controlled: bool = False

    def label(self, key: str) -> str | None:
        return dict(self.labels).get(key)

    @property
    def versioned(self) -> bool:
        return self.label(LABEL_VERSIONED) == "true"

    @property
    def base(self) -> str:
        return self.label(LABEL_BASE_NAME) or dict(self.annotations).get(ANNOTATION_ORIGINAL_NAME) or self.name

    @property
    def scope(self) -> str | None:
        # Versions rendered before the scope label existed fall back to the
        # instance label, as the render does.
        value = self.label(LABEL_SCOPE) or self.label(INSTANCE_LABEL)
        return label_value(value) if value else None

    @property
    def group(self) -> tuple[str, str, str, str | None]:
        return (self.namespace, self.kind, self.base, self.scope)

    def age_key(self) -> tuple:
        """Oldest first. creationTimestamp has whole seconds; within one
        second the resourceVersion breaks ties: the etcd revision of the
        last write, which is the creation order for versions nothing wrote
        to since (immutable ones, mostly); a version written since, or
        created again (a rollback), counts as the newer of the two. This
        orders only unused versions (--keep, the newest N-1 of --retain):
        one in use is kept whatever its age."""
        rv = int(self.resource_version) if self.resource_version.isdigit() else 0
        return (self.created, rv, self.name)

    def describe(self) -> str:
        return f"{self.kind}/{self.namespace}/{self.name}"


@dataclass
class LiveState:
    versions: list[LiveVersion]
    # (kind, namespace or None for "any", name) -> referrers, e.g. "ReplicaSet/web-5d9f"
    users: dict[Use, list[str]] = field(default_factory=dict)
    # (kind, namespace, name) of every ConfigMap and Secret read_users listed,
    # labelled a version or not.
    present: set[tuple[str, str, str]] = field(default_factory=set)

    def used_by(self, version: LiveVersion) -> list[str]:
        return (self.users.get((version.kind, version.namespace, version.name), [])
                + self.users.get((version.kind, None, version.name), []))

    def missing(self) -> list[tuple[str, list[str]]]:
        """Versions a live object still names that are not in the cluster
        (deleted by hand, or by a tool that reads no ReplicaSet): each as
        kind/namespace/name, with who names it. A name counts as a version
        when it is `<base>-<hash>` of a base with versions there; whatever
        else names nothing is no concern of postrender's, and neither is an
        object of that name without the versioned label (kustomize's
        `name-<hash>`; review61a)."""
        live = {(v.kind, v.namespace, v.name) for v in self.versions} | self.present
        bases = {(v.kind, v.namespace, v.base) for v in self.versions if v.versioned}
        found = []
        for (kind, namespace, name), users in self.users.items():
            if namespace is None or (kind, namespace, name) in live or hash_suffix(name) is None:
                continue
            if (kind, namespace, name[:-HASH_SUFFIX_LENGTH]) in bases:
                found.append((f"{kind}/{namespace}/{name}", users))
        return sorted(found)

    def report_missing(self, reporter: Reporter) -> None:
        for what, users in self.missing():
            # A `helm rollback` deletes the versions newer than its revision
            # (README), the likeliest cause (helm4x61).
            reporter.warn(f"{what} is named by {describe_users(users)}, but is not in the cluster: their pods, and"
                          " a rollback to them, fail to start (deleted by hand, or by a `helm rollback` to an"
                          " earlier revision?)")


def parse_time(value: str | None) -> datetime:
    if not value:
        return datetime.fromtimestamp(0, timezone.utc)
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


def to_version(obj: dict) -> LiveVersion:
    metadata = obj.get("metadata") or {}
    return LiveVersion(
        kind=str(obj.get("kind")),
        namespace=str(metadata.get("namespace") or ""),
        name=str(metadata.get("name") or ""),
        uid=str(metadata.get("uid") or ""),
        resource_version=str(metadata.get("resourceVersion") or ""),
        created=parse_time(metadata.get("creationTimestamp")),
        labels=tuple(sorted((metadata.get("labels") or {}).items())),
        annotations=tuple(sorted((metadata.get("annotations") or {}).items())),
        controlled=bool(metadata.get("ownerReferences")),
    )


def read_versions(cluster: Cluster, namespaces: list[str] | None, selector: str | None = None) -> list[LiveVersion]:
    """Versioned ConfigMaps and Secrets; metadata only, so no Secret value is
    ever read for a decision. `namespaces` None: all of them."""
    wanted = f"{LABEL_VERSIONED}=true" + (f",{selector}" if selector else "")
    found: list[LiveVersion] = []
    for kind in CONFIG_KINDS:
        resource = cluster.resource(kind, "")
        for namespace in _namespaces(namespaces):
            found.extend(to_version(o) for o in cluster.list(resource, namespace, wanted, metadata_only=True))
    return sorted(found, key=lambda v: (v.namespace, v.kind, v.name))


def read_originals(cluster: Cluster, names: Iterable[tuple[str, str, str]]) -> list[LiveVersion]:
    """The live ConfigMaps and Secrets of these (namespace, kind, name) that
    are not versions (retention.py: an original); metadata only, as
    read_versions. One list per namespace and kind, not a read per name: a
    Secret is never fetched whole for a decision."""
    wanted: dict[tuple[str, str], set[str]] = {}
    for namespace, kind, name in names:
        wanted.setdefault((namespace, kind), set()).add(name)
    found: list[LiveVersion] = []
    for (namespace, kind), named in sorted(wanted.items()):
        for obj in cluster.list(cluster.resource(kind, ""), namespace, f"{LABEL_VERSIONED}!=true", metadata_only=True):
            version = to_version(obj)
            if version.name in named:
                found.append(version)
    return sorted(found, key=lambda v: (v.namespace, v.kind, v.name))


def read_users(cluster: Cluster, namespaces: list[str] | None, table: ReferenceTable,
               reporter: Reporter | None = None,
               present: set[tuple[str, str, str]] | None = None) -> dict[Use, list[str]]:
    """Who uses which version: every kind the server lists (custom resources
    too), by the field specs and their `postrender.io/refs` records.
    `namespaces` None: all of them, cluster-scoped kinds too. `present`
    gains each ConfigMap and Secret listed (LiveState.present)."""
    users: dict[Use, list[str]] = {}
    for resource in _referrer_resources(cluster, namespaces):
        scopes = [None] if not resource.namespaced else _namespaces(namespaces)
        metadata_only = (resource.group, resource.kind) in _METADATA_ONLY
        configs = present if resource.group == "" and resource.kind in CONFIG_KINDS else None
        for namespace in scopes:
            for obj in cluster.list(resource, namespace, metadata_only=metadata_only):
                _add_uses(users, obj, table)
                if configs is not None:
                    meta = obj.get("metadata") or {}
                    configs.add((resource.kind, meta.get("namespace") or "", meta.get("name") or ""))
    if reporter is not None:
        reporter.info(f"found {sum(len(v) for v in users.values())} references to {len(users)} objects")
    return users


def _add_uses(users: dict[Use, list[str]], obj: dict, table: ReferenceTable) -> None:
    metadata = obj.get("metadata") or {}
    kind, name, namespace = obj.get("kind"), metadata.get("name"), metadata.get("namespace")
    for use in uses(obj, table):
        if use[0] in CONFIG_KINDS:
            # Named as a row of its config's namespace reads: a referrer in
            # another namespace (an Ingress's `auth-secret: shared/x`), or
            # cluster-scoped, says where it is.
            who = f"{kind}/{name}" if namespace == use[1] else f"{kind}/{namespace or '(cluster)'}/{name}"
            users.setdefault(use, []).append(who)


def _referrer_resources(cluster: Cluster, namespaces: list[str] | None) -> Iterable[Resource]:
    for resource in cluster.resources():
        if "list" not in resource.verbs or (resource.group, resource.kind) in _SKIPPED:
            continue
        if not resource.namespaced and namespaces is not None:
            # Cluster-scoped holders are read with -A only: a namespaced
            # Role cannot list them.
            continue
        yield resource


def _namespaces(namespaces: list[str] | None) -> list[str | None]:
    return [None] if namespaces is None else list(namespaces)


def describe_users(names: list[str]) -> str:
    unique = sorted(set(names))
    text = ", ".join(unique[:_EXAMPLES])
    return text + (f" and {len(unique) - _EXAMPLES} more" if len(unique) > _EXAMPLES else "")

