"""`--retain N`: carry previous versions forward in the rendered stream.

The deployer (Helm, `kubectl apply --prune`, Flux) then keeps exactly what
the stream holds and prunes the rest itself: no orphans, and `helm
uninstall` removes every version. Any failure to read the cluster fails the
render — a silently shorter stream would make the deployer delete versions
that running pods still mount.
"""

from __future__ import annotations

from ..syntax.edit import quote, render_scalar
from ..errors import UsageError
from ..pipeline.index.objects import IMPLICIT
from ..pipeline.plan.keep import scope_of
from ..options import RenderOptions
from ..pipeline.plan.versions import label_value
from ..pipeline.read.documents import HELM4_FILENAME_ANNOTATION
from ..report import Reporter
from .client import Cluster
from .live import LiveState, read_originals, read_users, read_versions
from .retention import Current, plan_retention

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
RETAINED_FILE = "postrender/retained.yaml"
# Everything else under metadata is set by the server (uid, resourceVersion,
# creationTimestamp, managedFields, generation, selfLink, ...) or by
# controllers, and must not be re-applied.
_METADATA_KEPT = ("name", "namespace", "labels", "annotations")
_BODY_ORDER = ("immutable", "type", "data", "binaryData")


def carry_forward(analysis, options: RenderOptions, reporter: Reporter, output: str) -> str:
    currents = currents_of(analysis, options.scope)
    scopes = scopes_of(analysis, options.scope)
    if not currents and not scopes:
        return output
    cluster = Cluster.connect(options.kubeconfig, options.context)
    namespaces = sorted({c.namespace for c in currents} | {namespace for namespace, _ in scopes})
    present: set[tuple[str, str, str]] = set()
    users = _users(cluster, namespaces, analysis.table, reporter, present)
    state = LiveState(read_versions(cluster, namespaces), users, present)
    state.report_missing(reporter)
    held = {(namespace, kind, name) for kind, namespace, name in analysis.plan.alive_names(analysis.graph.index)}
    originals = read_originals(cluster, {(c.namespace, c.kind, c.original) for c in currents if not c.copy_kept}
                               | _used_elsewhere(state, namespaces, held, analysis.productions))
    helm4 = any(HELM4_FILENAME_ANNOTATION in o.annotations for o in analysis.stream.objects)
    documents: list[str] = []
    for item in plan_retention(currents, state, options.retain or 1, scopes=scopes, originals=originals,
                               output=held, helm=options.hooks_hidden or helm4):
        version = item.version
        # Values are fetched only for what is re-emitted, never for the decision.
        obj = cluster.get(cluster.resource(version.kind, ""), version.namespace, version.name)
        if obj is None:
            reporter.info(f"{version.describe()} was deleted while planning; not retained")
            continue
        documents.append(emit(obj, helm4))
        reporter.info(f"retained {version.describe()}: {item.reason}")
    return append(output, documents)


def _used_elsewhere(state: LiveState, namespaces: list[str], output: set[tuple[str, str, str]],
                    productions) -> set[tuple[str, str, str]]:
    """(namespace, kind, name) of each config something in the render's
    namespaces uses that the output does not hold, nor a producer in the
    stream makes (a Certificate's Secret): where a dropped config's
    original may be (retention.py)."""
    wanted = set(namespaces)
    return {(namespace, kind, name) for kind, namespace, name in state.users
            if namespace in wanted and (namespace, kind, name) not in output
            and productions.of(kind, namespace, name) is None}


def _users(cluster: Cluster, namespaces: list[str], table, reporter: Reporter,
           present: set[tuple[str, str, str]] | None = None) -> dict:
    """Who uses which version in the namespaces the render deploys to, read
    as gc reads them: every kind the server lists there, custom resources
    too (a Knative Revision keeps the configuration it was created with, as
    a ReplicaSet does; any object may carry a postrender.io/refs record). A
    kind that cannot be read fails the render: a version it uses would be
    pruned. An aggregated API group that cannot be discovered (a metrics
    server down, most often) is said and passed over: it serves no custom
    resources (the API server serves those itself), and failing every
    deploy for it would be worse."""
    users = read_users(cluster, namespaces, table, present=present)
    if cluster.undiscovered:
        groups = ", ".join(f"{gv} ({why})" for gv, why in sorted(cluster.undiscovered.items()))
        reporter.warn(f"--retain: not checked for versions in use (cannot discover): {groups}")
    return users


def currents_of(analysis, explicit_scope: str | None) -> list[Current]:
    index = analysis.graph.index
    currents: list[Current] = []
    for version in analysis.plan.versioned:
        obj = version.obj
        namespace = index.namespace_of(obj)
        if namespace == IMPLICIT:
            raise UsageError(
                f"--retain needs the namespace of {obj.describe()}: pass --namespace "
                "(Helm: --post-renderer-args=--namespace=NS; kustomize: `namespace:` in the PostRender config)"
            )
        scope = scope_of(obj, explicit_scope)
        if not scope:
            raise UsageError(
                f"--retain needs a scope for {obj.describe()}: pass --scope NAME or label it "
                "app.kubernetes.io/instance; without one, versions of two releases with the same "
                f"name in namespace {namespace} would be mixed up"
            )
        currents.append(Current(namespace, obj.kind, label_value(version.base_name), scope, version.name,
                                original=obj.name, copy_kept=version.keep_original))
    return currents


def scopes_of(analysis, explicit_scope: str | None) -> set[tuple[str, str]]:
    """The (namespace, scope) pairs the render deploys to: those of every
    object in the stream, versioned or not, by the same rule that labels
    versions. So a group whose last versioned object left the stream is
    still known as this render's, through the Deployment that stayed; an
    object whose namespace is not known says nothing (it never did: only
    versioned objects need one)."""
    index = analysis.graph.index
    found: set[tuple[str, str]] = set()
    for obj in analysis.stream.objects:
        namespace = index.namespace_of(obj)
        scope = scope_of(obj, explicit_scope)
        if namespace != IMPLICIT and scope:
            found.add((namespace, scope))
    return found


def emit(obj: dict, helm4: bool = False) -> str:
    """A live object as a manifest: byte-stable for the same object, without
    server-set fields, keys in a fixed order.

    Helm 4 files post-rendered objects by an annotation (and strips it); with
    it, retained versions get a stable file name in the release instead of
    `generated-by-postrender-<position>.yaml`.
    """
    metadata = obj.get("metadata") or {}
    clean: dict = {"apiVersion": obj.get("apiVersion") or "v1", "kind": obj.get("kind")}
    meta: dict = {}
    for key in _METADATA_KEPT:
        value = metadata.get(key)
        if key == "annotations":
            value = {k: v for k, v in (value or {}).items() if k != LAST_APPLIED}
            if helm4:
                value[HELM4_FILENAME_ANNOTATION] = RETAINED_FILE
        if value:
            meta[key] = dict(sorted(value.items())) if isinstance(value, dict) else value
    clean["metadata"] = meta
    for key in _BODY_ORDER:
        value = obj.get(key)
        if value is None or value == {}:
            continue
        clean[key] = dict(sorted(value.items())) if isinstance(value, dict) else value
    comment = "" if helm4 else f"# Source: {RETAINED_FILE}\n"
    return comment + "".join(_yaml(clean, 0))


def _yaml(mapping: dict, indent: int) -> list[str]:
    lines: list[str] = []
    pad = " " * indent
    for key, value in mapping.items():
        label = _key(str(key))
        if isinstance(value, dict):
            lines.append(f"{pad}{label}:\n")
            lines.extend(_yaml(value, indent + 2))
        elif isinstance(value, bool):
            lines.append(f"{pad}{label}: {'true' if value else 'false'}\n")
        else:
            # Always quoted: a plain `2024-01-01` or `0777` means something else to Go's YAML.
            lines.append(f"{pad}{label}: {quote(str(value))}\n")
    return lines


def _key(key: str) -> str:
    # Plain only when no YAML 1.1 reader (Helm's, kubectl's) could take it
    # for a number, a date, a boolean or null.
    plain = render_scalar(key, "")
    return plain if plain == key and key[0].isalpha() else quote(key)


def append(output: str, documents: list[str]) -> str:
    if not documents:
        return output
    parts = [output]
    if output and not output.endswith("\n"):
        parts.append("\n")
    for doc in documents:
        parts.append("---\n" + doc)
    return "".join(parts)
