"""The pure parts of retention and gc: the planners (with a property test
over random cluster states), reference extraction from live JSON, and the
re-emitted form of a retained version. No cluster needed."""

from __future__ import annotations

import io
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from postrender.cluster.args import parse_duration
from postrender.cluster.gc import Policy, format_duration, plan_gc
from postrender.cluster.live import LiveState, LiveVersion
from postrender.cluster.refs import uses
from postrender.cluster.retain import emit
from postrender.cluster.retention import Current, plan_retention
from postrender.errors import UsageError
from postrender.fieldspecs import load_table
from postrender.report import Reporter

NOW = datetime(2026, 1, 10, 12, 0, 0, tzinfo=timezone.utc)
TABLE = load_table()
SCOPE = {("app", "rel")}  # the (namespace, scope) a render deploys to


def version(name: str, *, ns: str = "app", kind: str = "ConfigMap", base: str = "config", scope: str | None = "rel",
            age: timedelta = timedelta(days=1), rv: int = 1, versioned: str | None = "true") -> LiveVersion:
    labels = {"postrender.io/base-name": base}
    if versioned is not None:
        labels["postrender.io/versioned"] = versioned
    if scope is not None:
        labels["postrender.io/scope"] = scope
    return LiveVersion(kind, ns, name, f"uid-{name}", str(rv), NOW - age, tuple(sorted(labels.items())))


# -- gc planner: property test -------------------------------------------

NAMESPACES = ["a", "b"]
BASES = ["config", "env"]
SCOPES = ["rel", "other", None]


@st.composite
def cluster_states(draw):
    count = draw(st.integers(0, 14))
    versions = []
    for i in range(count):
        versions.append(version(
            f"v{i}",
            ns=draw(st.sampled_from(NAMESPACES)),
            kind=draw(st.sampled_from(["ConfigMap", "Secret"])),
            base=draw(st.sampled_from(BASES)),
            scope=draw(st.sampled_from(SCOPES)),
            age=timedelta(seconds=draw(st.integers(-120, 3 * 86400))),  # a little clock skew too
            rv=draw(st.integers(1, 50)),
            versioned=draw(st.sampled_from(["true", "true", "true", "false", None])),
        ))
    users: dict = {}
    for v in versions:
        how = draw(st.sampled_from(["none", "none", "same-namespace", "any-namespace", "other-namespace"]))
        if how == "same-namespace":
            users[(v.kind, v.namespace, v.name)] = ["ReplicaSet/x"]
        elif how == "any-namespace":
            users[(v.kind, None, v.name)] = ["StorageClass/y"]
        elif how == "other-namespace":
            other = "b" if v.namespace == "a" else "a"
            users[(v.kind, other, v.name)] = ["Pod/z"]
    policy = Policy(draw(st.integers(0, 4)), timedelta(seconds=draw(st.integers(0, 2 * 86400))), NOW)
    return LiveState(versions, users), policy


def _referenced(state: LiveState, v: LiveVersion) -> bool:
    return (v.kind, v.namespace, v.name) in state.users or (v.kind, None, v.name) in state.users


@settings(max_examples=400, deadline=None)
@given(cluster_states())
def test_gc_never_plans_to_delete_what_it_must_keep(case):
    state, policy = case
    decisions = plan_gc(state, policy)
    assert sorted(d.version.name for d in decisions) == sorted(v.name for v in state.versions)
    groups: dict = {}
    for v in state.versions:
        if v.versioned:
            groups.setdefault((v.namespace, v.kind, v.base, v.scope), []).append(v)
    newest: set[str] = set()
    for vs in groups.values():
        oldest_first = sorted(vs, key=lambda v: (v.created, int(v.resource_version), v.name))
        newest |= {v.name for v in oldest_first[max(len(oldest_first) - policy.keep, 0):]} if policy.keep else set()
    for d in decisions:
        v = d.version
        must_keep = (not v.versioned or _referenced(state, v) or NOW - v.created < policy.min_age
                     or v.name in newest)
        if d.delete:
            assert not must_keep, (d, policy)
            assert v.label("postrender.io/versioned") == "true"
        else:
            # Nothing is kept without cause either: gc must collect.
            assert must_keep, (d, policy)


def test_gc_reasons_name_the_cause():
    old = timedelta(days=2)
    state = LiveState(
        [version("c-1", age=old, rv=1), version("c-2", age=old, rv=2), version("c-3", age=old, rv=3),
         version("c-4", age=timedelta(minutes=5), rv=4), version("c-0", age=old, rv=0, versioned=None)],
        {("ConfigMap", "app", "c-1"): ["ReplicaSet/web-1"]},
    )
    reasons = {d.version.name: (d.delete, d.reason) for d in plan_gc(state, Policy(1, timedelta(hours=1), NOW))}
    assert reasons == {
        "c-0": (False, "not labelled postrender.io/versioned=true"),
        "c-1": (False, "in use by ReplicaSet/web-1"),
        "c-2": (True, "unused, not among the newest 1"),
        "c-3": (True, "unused, not among the newest 1"),
        "c-4": (False, "the newest of its group: --keep 1"),
    }
    reasons = {d.version.name: d.reason for d in plan_gc(state, Policy(0, timedelta(hours=1), NOW))}
    assert reasons["c-4"] == "younger than --min-age 1h"
    reasons = {d.version.name: d.reason for d in plan_gc(state, Policy(3, timedelta(hours=1), NOW))}
    assert (reasons["c-4"], reasons["c-3"], reasons["c-2"]) == (
        "the newest of its group: --keep 3", "the 2nd newest of its group: --keep 3",
        "the 3rd newest of its group: --keep 3")


# -- retention planner ---------------------------------------------------

def test_retention_keeps_used_versions_and_the_newest_others_of_the_group_only():
    current = Current("app", "ConfigMap", "config", "rel", "config-new")
    live = [
        version("config-new", rv=9),  # the stream has it: not re-emitted
        version("config-1", rv=1), version("config-2", rv=2), version("config-3", rv=3), version("config-4", rv=4),
        version("config-x", scope="other", rv=8),  # another release
        version("config-y", ns="elsewhere", rv=8),
        version("config-z", base="env", rv=8),
        version("config-s", kind="Secret", rv=8),
        version("config-u", rv=8, versioned="false"),
    ]
    state = LiveState(live, {("ConfigMap", "app", "config-1"): ["ReplicaSet/web-1"],
                             ("ConfigMap", "app", "config-x"): ["Pod/other"]})
    kept = plan_retention([current], state, retain=2, scopes=SCOPE)
    assert [(r.version.name, r.reason) for r in kept] == [
        ("config-1", "in use by ReplicaSet/web-1"),
        ("config-4", "newest 2 of --retain 2"),
    ]
    assert [r.version.name for r in plan_retention([current], state, retain=1, scopes=SCOPE)] == ["config-1"]
    assert [r.version.name for r in plan_retention([current], state, retain=9, scopes=SCOPE)] == [
        "config-1", "config-2", "config-3", "config-4"]


def test_retention_keeps_used_versions_of_groups_the_render_dropped_in_its_own_scope_only():
    current = Current("app", "ConfigMap", "config", "rel", "config-new")
    live = [
        version("extra-1", base="extra", rv=1), version("extra-2", base="extra", rv=2),
        version("extra-3", base="extra", rv=3),  # the newest, unused: no --retain count for a dropped group
        version("extra-x", base="extra", scope="other", rv=4),  # another release's, in use
        version("extra-y", base="extra", ns="elsewhere", rv=5),  # a namespace the render does not deploy to
    ]
    used = ["ReplicaSet/web-1"]
    state = LiveState(live, {("ConfigMap", "app", name): used for name in ("extra-1", "extra-x")}
                      | {("ConfigMap", "elsewhere", "extra-y"): used})
    kept = plan_retention([current], state, retain=3, scopes=SCOPE)
    assert [(r.version.name, r.reason) for r in kept] == [
        ("extra-1", "in use by ReplicaSet/web-1; its group left the stream")]
    # A render with no versioned object left still knows its scope.
    assert [r.version.name for r in plan_retention([], state, retain=3, scopes=SCOPE)] == ["extra-1"]
    assert plan_retention([], state, retain=3, scopes=set()) == []


def original(name: str, *, ns: str = "app", kind: str = "ConfigMap", labels: dict | None = None,
             annotations: dict | None = None) -> LiveVersion:
    """A live object postrender did not version, as read_originals gives it."""
    return LiveVersion(kind, ns, name, f"uid-{name}", "1", NOW, tuple(sorted((labels or {}).items())),
                       tuple(sorted((annotations or {}).items())))


def test_retention_keeps_an_original_only_while_something_uses_it():
    """The first render through postrender names versions, and the deployer
    would prune the plain ConfigMap and Secret the earlier ReplicaSets still
    name. Kept while used; never counted among --retain's newest."""
    currents = [Current("app", "ConfigMap", "config", "rel", "config-new", original="config"),
                Current("app", "Secret", "creds", "rel", "creds-new", original="creds", copy_kept=True),
                Current("app", "ConfigMap", "env", "rel", "env-new", original="env")]
    originals = [
        original("config", labels={"app.kubernetes.io/instance": "rel"}, annotations={"meta.helm.sh/release-name": "rel"}),
        original("creds", kind="Secret"),  # the stream keeps an unsuffixed copy: the deployer keeps it anyway
        original("env"),  # nothing uses it
        original("config", ns="elsewhere"),  # no version of its group in the stream
        original("other"),  # not a name the stream has a version of
    ]
    used = ["ReplicaSet/web-1", "ControllerRevision/db-1"]
    state = LiveState([], {(o.kind, o.namespace, o.name): used for o in originals})
    state.users.pop(("ConfigMap", "app", "env"))
    kept = plan_retention(currents, state, retain=5, scopes=SCOPE, originals=originals)
    assert [(r.version.describe(), r.reason) for r in kept] == [
        ("ConfigMap/app/config", "the unversioned original, in use by ControllerRevision/db-1, ReplicaSet/web-1")]


APPLIED = {"kubectl.kubernetes.io/last-applied-configuration": "{}"}
RELEASE = {"meta.helm.sh/release-name": "rel"}
INSTANCE = {"app.kubernetes.io/instance": "rel"}


@pytest.mark.parametrize("name, marks, helm, kept", [
    # the chart's own, by its instance label, applied by kubectl (its record)
    ("feature", {"labels": INSTANCE, "annotations": APPLIED}, False, True),
    # by Helm's release annotation, under Helm or not
    ("feature", {"annotations": RELEASE}, True, True),
    ("feature", {"labels": INSTANCE, "annotations": RELEASE}, False, True),
    # Flux's record
    ("feature", {"labels": {**INSTANCE, "kustomize.toolkit.fluxcd.io/name": "apps"}}, False, True),
    # the instance label alone: no deployer's record says it applied it (made
    # by hand, or by a Helm 3 hook: re-emitted, Helm refused every upgrade)
    ("feature", {"labels": INSTANCE}, False, False),
    ("feature", {"labels": INSTANCE}, True, False),
    # a hook, whatever else it carries
    ("feature", {"labels": INSTANCE, "annotations": {**APPLIED, "helm.sh/hook": "pre-install"}}, False, False),
    ("feature", {"annotations": {**RELEASE, "helm.sh/hook": "pre-install"}}, True, False),
    # kubectl's record under Helm: Helm takes in only what it made
    ("feature", {"labels": INSTANCE, "annotations": APPLIED}, True, False),
    # no owner marks, or another owner's
    ("feature", {"annotations": APPLIED}, False, False),
    ("feature", {"labels": {"app.kubernetes.io/instance": "other"}, "annotations": APPLIED}, False, False),
    # a controller's (an owner reference), even labelled as the chart's
    ("feature", {"labels": INSTANCE, "annotations": APPLIED, "controlled": True}, False, False),
    # the output holds it (kept under its name, or an unsuffixed copy)
    ("stays", {"labels": INSTANCE, "annotations": APPLIED}, False, False),
    # nothing uses it
    ("unused", {"labels": INSTANCE, "annotations": APPLIED}, False, False),
])
def test_an_original_of_a_config_the_render_dropped_is_kept_while_used(name, marks, helm, kept):
    """The first render through postrender versions `config` and drops
    `feature` (switched off): the deployer would prune the plain `feature`
    the earlier ReplicaSets still name. An outside tester's find: kept only
    `config`; `kubectl rollout undo` then named a ConfigMap that was gone."""
    current = Current("app", "ConfigMap", "config", "rel", "config-new", original="config")
    live = LiveVersion("ConfigMap", "app", name, f"uid-{name}", "1", NOW,
                       tuple(sorted(marks.get("labels", {}).items())),
                       tuple(sorted(marks.get("annotations", {}).items())), controlled=marks.get("controlled", False))
    users = {} if name == "unused" else {("ConfigMap", "app", name): ["ReplicaSet/web-1", "Pod/web-1-x"]}
    state = LiveState([], users)
    output = {("app", "ConfigMap", "config-new"), ("app", "ConfigMap", "stays")}
    planned = plan_retention([current], state, retain=2, scopes=SCOPE, originals=[live], output=output, helm=helm)
    assert [(r.version.name, r.reason) for r in planned] == ([(
        name, "the unversioned original of a config that left the stream, in use by Pod/web-1-x, ReplicaSet/web-1")]
        if kept else [])
    # Another namespace the render does not deploy to: never.
    elsewhere = LiveVersion("ConfigMap", "other-ns", name, "u", "1", NOW, live.labels, live.annotations)
    state = LiveState([], {("ConfigMap", "other-ns", name): ["ReplicaSet/web-1"]})
    assert plan_retention([current], state, retain=2, scopes=SCOPE, originals=[elsewhere], output=output,
                          helm=helm) == []


@pytest.mark.parametrize("labels, annotations, ours", [
    ({}, {}, True),  # it says nothing: the name is the group's own in its namespace
    ({"app.kubernetes.io/instance": "rel"}, {}, True),
    ({"app.kubernetes.io/instance": "other"}, {}, False),
    ({}, {"meta.helm.sh/release-name": "other"}, False),
    # An unsuffixed copy another release's render made: Helm's and the chart's marks, no scope label.
    ({"app.kubernetes.io/instance": "other"},
     {"meta.helm.sh/release-name": "other", "postrender.io/copy-of": "config-abc", "postrender.io/versioned": "false"},
     False),
    # A copy a render made under --scope rel, of a chart whose instance label says otherwise.
    ({"postrender.io/scope": "rel", "app.kubernetes.io/instance": "chart"}, {}, True),
    ({"postrender.io/scope": "other", "app.kubernetes.io/instance": "rel"}, {}, False),
])
def test_an_original_another_release_owns_is_left_alone(labels: dict, annotations: dict, ours: bool):
    """Re-emitted, it would be handed to this release: Helm refuses the
    upgrade ("invalid ownership metadata"), kubectl apply --prune takes it
    over and later prunes it."""
    current = Current("app", "ConfigMap", "config", "rel", "config-new", original="config")
    live = original("config", labels=labels, annotations=annotations)
    state = LiveState([], {("ConfigMap", "app", "config"): ["ReplicaSet/web-1"]})
    kept = plan_retention([current], state, retain=2, scopes=SCOPE, originals=[live])
    assert [r.version.name for r in kept] == (["config"] if ours else [])


# -- references in live objects -------------------------------------------

def test_uses_of_live_objects():
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "app"},
           "spec": {"containers": [{"envFrom": [{"configMapRef": {"name": "a"}}],
                                    "env": [{"valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]}],
                    "imagePullSecrets": [{"name": "pull"}],
                    "volumes": [{"projected": {"sources": [{"configMap": {"name": "b"}}]}}]}}
    assert uses(pod, TABLE) == {("ConfigMap", "app", "a"), ("ConfigMap", "app", "b"),
                                ("Secret", "app", "s"), ("Secret", "app", "pull")}

    revision = {"apiVersion": "apps/v1", "kind": "ControllerRevision",
                "metadata": {"name": "db-1", "namespace": "app",
                             "ownerReferences": [{"kind": "StatefulSet", "name": "db"}]},
                "data": {"spec": {"template": {"$patch": "replace", "spec": {
                    "volumes": [{"configMap": {"name": "db-config"}}]}}}}}
    assert uses(revision, TABLE) == {("ConfigMap", "app", "db-config")}

    rollout = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "metadata": {"name": "r", "namespace": "app"},
               "spec": {"template": {"metadata": {"annotations": {
                   "postrender.io/refs": "ConfigMap/c-1,Secret/other-ns/s-1"}}}}}
    assert uses(rollout, TABLE) == {("ConfigMap", "app", "c-1"), ("Secret", "other-ns", "s-1")}

    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "r", "namespace": "app"},
            "rules": [{"apiGroups": [""], "resources": ["secrets"], "resourceNames": ["s-2"]},
                      {"apiGroups": [""], "resources": ["pods"], "resourceNames": ["not-a-secret"]},
                      # the apps group's every resource: no Secret among them
                      {"apiGroups": ["apps"], "resources": ["*"], "resourceNames": ["s-3"]}]}
    assert uses(role, TABLE) == {("Secret", "app", "s-2")}

    storage = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "fast"},
               "parameters": {"csi.storage.k8s.io/node-stage-secret-name": "stage",
                              "csi.storage.k8s.io/node-stage-secret-namespace": "kube-system",
                              "secretRef": "anywhere"}}
    assert uses(storage, TABLE) == {("Secret", "kube-system", "stage"), ("Secret", None, "anywhere")}


# -- re-emission -----------------------------------------------------------

def test_emit_strips_server_fields_and_is_stable():
    live = {
        "apiVersion": "v1", "kind": "Secret", "type": "Opaque", "immutable": True,
        "data": {"z": "MQ==", "a": "Mg=="},
        "metadata": {
            "name": "creds-abc", "namespace": "app", "uid": "u", "resourceVersion": "7", "generation": 1,
            "creationTimestamp": "2026-01-01T00:00:00Z", "selfLink": "/x",
            "managedFields": [{"manager": "helm"}],
            "labels": {"postrender.io/versioned": "true", "app.kubernetes.io/managed-by": "Helm"},
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}",
                            "meta.helm.sh/release-name": "rel", "note": "two words: here"},
        },
    }
    text = emit(live)
    assert text == (
        "# Source: postrender/retained.yaml\n"
        "apiVersion: \"v1\"\n"
        "kind: \"Secret\"\n"
        "metadata:\n"
        "  name: \"creds-abc\"\n"
        "  namespace: \"app\"\n"
        "  labels:\n"
        "    app.kubernetes.io/managed-by: \"Helm\"\n"
        "    postrender.io/versioned: \"true\"\n"
        "  annotations:\n"
        "    meta.helm.sh/release-name: \"rel\"\n"
        "    note: \"two words: here\"\n"
        "immutable: true\n"
        "type: \"Opaque\"\n"
        "data:\n"
        "  a: \"Mg==\"\n"
        "  z: \"MQ==\"\n"
    )
    assert emit(dict(reversed(list(live.items())))) == text
    helm4 = emit(live, helm4=True)
    assert "# Source" not in helm4 and "postrenderer.helm.sh/postrender-filename: \"postrender/retained.yaml\"" in helm4


def test_durations():
    assert [parse_duration(t) for t in ("0", "45s", "90m", "1h30m", "2d")] == [0, 45, 5400, 5400, 172800]
    for bad in ("", "1x", "h", "1 h", "-1h"):
        with pytest.raises(UsageError):
            parse_duration(bad)
    assert format_duration(timedelta(seconds=5400)) == "1h30m"
    assert format_duration(timedelta(0)) == "0"


KEYS = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._", min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, st.text(max_size=40), max_size=6), st.sampled_from([(1, 1), (1, 2)]))
def test_emitted_data_reads_back_exactly(data, version):
    """Whatever a ConfigMap holds, the re-emitted manifest carries the same
    strings, for YAML 1.1 readers (Go's, as Helm and kubectl use) and 1.2."""
    from ruamel.yaml import YAML

    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c-1", "namespace": "app",
                                                                   "labels": {"k": "2024-01-01"}},
           "immutable": True, "data": data}
    yaml = YAML(typ="safe", pure=True)
    yaml.version = version
    loaded = yaml.load(emit(obj))
    assert loaded["data"] if data else "data" not in loaded
    assert (loaded.get("data") or {}) == data
    assert loaded["metadata"]["labels"] == {"k": "2024-01-01"} and loaded["immutable"] is True


def test_uses_of_live_objects_step_through_wildcards():
    # The live walker is the render's (fieldspecs.walk): `*` steps into every
    # key, here each service-discovery config of a ScrapeConfig.
    scrape = {"apiVersion": "monitoring.coreos.com/v1alpha1", "kind": "ScrapeConfig",
              "metadata": {"name": "s", "namespace": "mon"},
              "spec": {"kubernetesSDConfigs": [{"tlsConfig": {"ca": {"configMap": {"name": "ca-1", "key": "ca"}}}}],
                       "httpSDConfigs": [{"tlsConfig": {"cert": {"configMap": {"name": "cert-1", "key": "c"}}}}],
                       "jobName": "x"}}
    assert uses(scrape, TABLE) == {("ConfigMap", "mon", "ca-1"), ("ConfigMap", "mon", "cert-1")}


# Every way a container argument names a config (podSpecArgs `flags`), for
# every flag the table has: the cluster (gc, --retain) reads what the render
# reads. It took the whole argument for the name, so gc deleted the
# version a running ingress-nginx controller's `--configmap=...` named.
def _argument_forms(flag: str) -> dict[str, list[str]]:
    bare = flag.lstrip("-")
    return {
        "flag=name": [f"{flag}=cfg-1"],
        "flag=namespace/name": [f"{flag}=other/cfg-2"],
        "flag=$(POD_NAMESPACE)/name": [f"{flag}=$(POD_NAMESPACE)/cfg-3"],
        "the other dash count": [("--" if flag.startswith("-") and not flag.startswith("--") else "-") + bare + "=cfg-4"],
        "flag, then the name": [flag, "cfg-5"],
        "flag, then namespace/name": [flag, "other/cfg-6"],
        "flag, then another flag": [flag, "--verbose"],
        "a name alone": ["cfg-7"],
        "another flag=": ["--not-this-one=cfg-8"],
    }


def _flag_rows() -> list[tuple[str, str]]:
    from postrender.fieldspecs import builtin_config

    return sorted({(row["target"], flag) for row in builtin_config()["podSpecArgs"] for flag in row.get("flags", ())})


@pytest.mark.parametrize(("target", "flag"), _flag_rows())
def test_the_cluster_reads_container_arguments_as_the_render_does(target, flag):
    import io

    from ruamel.yaml import YAML

    from postrender.options import RenderOptions
    from postrender.pipeline.read.documents import Source
    from postrender.pipeline.render import analyse

    for form, args in _argument_forms(flag).items():
        names = [f"cfg-{i}" for i in range(1, 9)]
        # streamOnly rows count a name only where the stream has it: every one is there, in both namespaces.
        configs = "".join(f"---\napiVersion: v1\nkind: {target}\nmetadata: {{name: {n}, namespace: {ns}}}\n"
                          + ("data: {k: v}\n" if target == "ConfigMap" else "stringData: {k: v}\n")
                          for n in names for ns in ("app", "other"))
        deployment = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: app}\nspec:\n"
                      "  template:\n    spec:\n      containers:\n      - name: c\n        image: x\n"
                      f"        args: {args!r}\n")
        graph = analyse([Source(None, configs + "---\n" + deployment)], RenderOptions()).graph
        rendered = {(ref.target_kind, ref.namespace or "app", ref.name) for ref in graph.references
                    if ref.referrer.kind == "Deployment" and ref.spec.flags}
        live = YAML(typ="safe").load(io.StringIO(deployment))
        read = {use for use in uses(live, TABLE) if use[2].startswith("cfg-")}
        assert read == rendered, (flag, form, args)
        expected = {"flag=name": "cfg-1", "flag=namespace/name": "cfg-2", "flag=$(POD_NAMESPACE)/name": "cfg-3",
                    "the other dash count": "cfg-4", "flag, then the name": "cfg-5",
                    "flag, then namespace/name": "cfg-6"}.get(form)
        assert {name for _, _, name in read} == ({expected} if expected else set()), (flag, form, read)


def test_a_version_live_objects_name_but_the_cluster_lacks_is_said_missing():
    # cluster61: a version deleted by hand while a ReplicaSet's pods name it
    # went unremarked by --retain and gc, even with -v.
    live = [version("config-5h7k9mbt2d"), version("config-cf85kd65mm", age=timedelta(days=2))]
    users = {
        ("ConfigMap", "app", "config-5h7k9mbt2d"): ["ReplicaSet/web-1"],
        ("ConfigMap", "app", "config-b2ct8d4hmg"): ["ReplicaSet/web-0", "Pod/web-0-x"],  # gone
        ("ConfigMap", "app", "other-b2ct8d4hmg"): ["ReplicaSet/api"],  # no versions of `other`: not ours
        ("ConfigMap", "app", "config"): ["Job/seed"],  # no version's name
        ("ConfigMap", "other", "config-b2ct8d4hmg"): ["ReplicaSet/x"],  # no versions of it there
        ("ConfigMap", None, "config-b2ct8d4hmg"): ["StorageClass/s"],  # any namespace: not said where
        # There, but not read as a version (review61a): unlabelled (kustomize's
        # own name-<hash>), or another scope's, which --scope left unread.
        ("ConfigMap", "app", "config-9d7c2g5f8h"): ["ReplicaSet/kustomized"],
        ("ConfigMap", "app", "config-m2k4t6h8b9"): ["ReplicaSet/other-scope"],
    }
    present = {("ConfigMap", "app", "config-9d7c2g5f8h"), ("ConfigMap", "app", "config-m2k4t6h8b9"),
               ("ConfigMap", "app", "config-5h7k9mbt2d")}
    state = LiveState(live, users, present)
    assert state.missing() == [("ConfigMap/app/config-b2ct8d4hmg", ["ReplicaSet/web-0", "Pod/web-0-x"])]
    stderr = io.StringIO()
    state.report_missing(Reporter(stderr=stderr))
    assert stderr.getvalue() == (
        "postrender: warning: ConfigMap/app/config-b2ct8d4hmg is named by Pod/web-0-x, ReplicaSet/web-0, but is not in"
        " the cluster: their pods, and a rollback to them, fail to start (deleted by hand, or by a `helm rollback`"
        " to an earlier revision?)\n")
