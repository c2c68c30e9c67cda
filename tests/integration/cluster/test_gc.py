"""`postrender gc` on a real control plane: a GitOps flow (kubectl apply
with --keep-previous=argocd), run with nothing but the shipped RBAC, and
the race between planning and deleting."""

from __future__ import annotations

import io
import json
from datetime import datetime, timedelta, timezone

import kubernetes.config.incluster_config as incluster
import pytest
from ruamel.yaml import YAML

from conftest import ROOT, run_postrender
from postrender.cli import parse
from postrender.cluster import client
from postrender.cluster.client import Cluster, DeleteOutcome
from postrender.cluster.execute import execute
from postrender.cluster.gc import Policy, plan_gc
from postrender.cluster.live import LiveState, read_users, read_versions
from postrender.fieldspecs import load_table
from postrender.report import Reporter

from .controlplane import GC_TOKEN, READER_TOKEN, READER_USER
from .kit import CHART, Kube, gc_kubeconfig, version_manifest

ARGOCD = {"argocd.argoproj.io/sync-options": "Prune=false",
          "argocd.argoproj.io/compare-options": "IgnoreExtraneous"}


def _apply_release(kube: Kube, release: str, namespace: str, greeting: str) -> None:
    """What a GitOps tool does: render without a cluster, apply, never prune."""
    template = kube.helm(3, "template", release, str(CHART), "--set", f"config.greeting={greeting}",
                         "--set", "replicas=0", "--set", "revisionHistoryLimit=1", "--set", "statefulset=false")
    rendered = kube.postrender(["--keep-previous=argocd", f"--namespace={namespace}"], template.stdout)
    assert rendered.status == 0, rendered.stderr
    kube.kubectl("apply", "-f", "-", namespace=namespace, input=rendered.stdout)
    kube.settle(f"{release}-web", namespace)


def _newest_first(kube: Kube, names: set[str], namespace: str) -> list[str]:
    items = [i for i in kube.get("configmaps", namespace=namespace)["items"] if i["metadata"]["name"] in names]
    items.sort(key=lambda i: (i["metadata"]["creationTimestamp"], int(i["metadata"]["resourceVersion"])),
               reverse=True)
    return [i["metadata"]["name"] for i in items]


def test_gitops_gc_deletes_only_unused_versions_beyond_keep(kube: Kube):
    ns = kube.namespace
    other_ns = kube.new_namespace("elsewhere")
    for i in range(6):
        _apply_release(kube, "rel", ns, f"g{i}")
    for i in range(4):
        _apply_release(kube, "other", ns, f"o{i}")  # another scope, same namespace
        _apply_release(kube, "rel", other_ns, f"x{i}")  # same scope, another namespace
    rel_versions = kube.names("configmaps", "postrender.io/scope=rel")
    assert len(rel_versions) == 6
    for item in kube.get("configmaps", selector="postrender.io/scope=rel")["items"]:
        assert ARGOCD.items() <= item["metadata"]["annotations"].items()

    # A lookalike without the versioned label, and an object of a kind no
    # field spec knows (a Service) that records a reference to an otherwise
    # unused version. test_custom_resources.py does the same with a real
    # custom resource.
    kube.kubectl("create", "configmap", "rel-config-lookalike0", "--from-literal=a=b")
    kube.kubectl("label", "configmap", "rel-config-lookalike0", "postrender.io/base-name=rel-config",
                 "postrender.io/scope=rel")

    used = kube.referenced(rel_versions)
    in_history = {name for name, users in used.items()
                  if any(u.startswith("ReplicaSet/") for u in users)
                  and not any(u.startswith("Deployment/") for u in users)}
    assert in_history, "the scenario needs a version that only an old ReplicaSet uses"
    unused_newest_first = [n for n in _newest_first(kube, rel_versions, ns) if n not in used]
    newest_two = set(_newest_first(kube, rel_versions, ns)[:2])
    candidates = [n for n in unused_newest_first if n not in newest_two]
    assert len(candidates) >= 2, candidates
    recorded = candidates[0]
    kube.kubectl("apply", "-f", "-", input=(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: w\n  annotations:\n"
        f"    postrender.io/refs: ConfigMap/{recorded}\n"
        "spec:\n  ports: [{port: 80}]\n"
    ))
    expected_deleted = set(candidates[1:])

    kubeconfig = gc_kubeconfig(kube)
    args = ["gc", f"--kubeconfig={kubeconfig}", "-n", ns, "--scope", "rel", "--keep", "2", "--min-age", "0"]
    before = {n: kube.versions(namespace=n) for n in (ns, other_ns)}

    dry = kube.postrender([*args, "-o", "json"])
    assert dry.status == 0, dry.stderr
    plan = json.loads(dry.stdout)
    assert plan["dryRun"] is True
    assert {i["name"] for i in plan["items"] if i["decision"] == "delete"} == expected_deleted
    assert {i["name"] for i in plan["items"] if i["kind"] == "ConfigMap"} == rel_versions
    assert {i["scope"] for i in plan["items"]} == {"rel"}
    assert {n: kube.versions(namespace=n) for n in (ns, other_ns)} == before, "a dry run deletes nothing"
    reasons = {i["name"]: i["reason"] for i in plan["items"]}
    assert "Service/w" in reasons[recorded]

    done = kube.postrender([*args, "--yes"])
    assert done.status == 0, done.stderr
    assert "NAMESPACE" in done.stdout and "deleted" in done.stdout
    after = kube.versions()
    assert after == before[ns] - expected_deleted
    assert in_history <= after, "a version in rollout history is never deleted"
    assert recorded in after, "postrender.io/refs on any object keeps a version"
    assert kube.versions(namespace=other_ns) == before[other_ns], "other namespaces are untouched"
    assert len(kube.names("configmaps", "postrender.io/scope=other")) == 4, "other scopes are untouched"
    assert kube.exists("configmap", "rel-config-lookalike0"), "unlabelled objects are untouched"

    # Every namespace, with the same shipped rights: a plan, and nothing to fail on.
    everywhere = kube.postrender(["gc", f"--kubeconfig={kubeconfig}", "-A", "--min-age", "0", "-o", "json"])
    assert everywhere.status == 0, everywhere.stderr
    namespaces = {i["namespace"] for i in json.loads(everywhere.stdout)["items"]}
    assert {ns, other_ns} <= namespaces


def _cross_namespace_secret(kube: Kube) -> tuple[str, str, str]:
    """A Secret in our namespace that an Ingress in another one uses
    (ingress-nginx `auth-secret: ns/name`), rendered with a record."""
    web = kube.new_namespace("xweb")
    shared = kube.namespace
    stream = (
        f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: basic-auth\n  namespace: {shared}\n"
        "  labels: {app.kubernetes.io/instance: web}\nstringData: {auth: not-a-real-password}\n---\n"
        f"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  namespace: {web}\n"
        "  labels: {app.kubernetes.io/instance: web}\n  annotations:\n"
        f"    nginx.ingress.kubernetes.io/auth-secret: {shared}/basic-auth\n"
        "spec: {defaultBackend: {service: {name: web, port: {number: 80}}}}\n"
    )
    rendered = kube.postrender(["--keep-previous=argocd"], stream)
    assert rendered.status == 0, rendered.stderr
    for document in YAML(typ="safe").load_all(rendered.stdout):
        kube.kubectl("apply", "-f", "-", input=json.dumps(document), namespace=document["metadata"]["namespace"])
    (secret,) = kube.versions("secrets")
    record = kube.get("ingress", "web", namespace=web)["metadata"]["annotations"]["postrender.io/refs"]
    assert record == f"Secret/{shared}/{secret}"
    return shared, web, secret


def test_gc_in_one_namespace_honours_references_from_another(kube: Kube):
    shared, web, secret = _cross_namespace_secret(kube)
    kubeconfig = gc_kubeconfig(kube)  # the shipped ClusterRole: list everywhere
    done = kube.postrender(["gc", f"--kubeconfig={kubeconfig}", "-n", shared, "--keep", "0", "--min-age", "0",
                            "--yes"])
    assert done.status == 0, done.stderr
    # The Ingress is in another namespace than the row's: it says which.
    assert f"Secret/{secret}" in done.stdout and f"in use by Ingress/{web}/web" in done.stdout, done.stdout
    assert kube.versions("secrets") == {secret}


def test_gc_with_rights_in_its_namespace_only_stops_unless_told(kube: Kube):
    shared, _web, secret = _cross_namespace_secret(kube)
    kube.kubectl("apply", "-f", str(ROOT / "integrations" / "gc" / "rbac-namespace.yaml"))
    kube.kubectl("create", "rolebinding", "reader-gc", "--role=postrender-gc", f"--user={READER_USER}")
    kubeconfig = kube.plane.write_kubeconfig(kube.home / "ns-gc.kubeconfig", READER_TOKEN, user=READER_USER)
    args = ["gc", f"--kubeconfig={kubeconfig}", "-n", shared, "--keep", "0", "--min-age", "0", "--yes"]
    stopped = kube.postrender(args)
    assert stopped.status == 1 and stopped.stdout == "", stopped.stderr
    (line,) = stopped.stderr.splitlines()
    assert "forbidden" in line.lower() and "--local-refs-only" in line and "rbac.yaml" in line, line
    assert kube.versions("secrets") == {secret}

    # Told to, it honours only what it can read, says so, and the Secret goes.
    local = kube.postrender([*args, "--local-refs-only"])
    assert local.status == 0, local.stderr
    assert "warning: not checked (--local-refs-only)" in local.stderr
    assert kube.versions("secrets") == set()


def _controller(greeting: str, args: list[str]) -> str:
    """A controller told its ConfigMap by a flag, as ingress-nginx is."""
    return (f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nginx-conf\ndata: {{greeting: {greeting}}}\n---\n"
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: controller\nspec:\n  replicas: 0\n"
            "  selector: {matchLabels: {app: c}}\n  template:\n    metadata: {labels: {app: c}}\n    spec:\n"
            f"      containers:\n      - name: c\n        image: x\n        args: {json.dumps(args)}\n")


def test_gc_keeps_what_a_container_argument_names(kube: Kube):
    # A plain render writes no postrender.io/refs record: gc reads the
    # argument itself, every way the table's flags are written.
    ns = kube.namespace
    for args in (["/nginx-ingress-controller", "--configmap=$(POD_NAMESPACE)/nginx-conf"],
                 ["/nginx-ingress-controller", "--configmap", "nginx-conf"],
                 ["/nginx-ingress-controller", f"--configmap={ns}/nginx-conf"]):
        for greeting in ("a", "b", "c"):
            rendered = kube.postrender([f"--namespace={ns}"], _controller(greeting, args))
            assert rendered.status == 0, rendered.stderr
            kube.kubectl("apply", "-f", "-", namespace=ns, input=rendered.stdout)
        kube.settle("controller", ns)
        live = kube.get("deployment", "controller", namespace=ns)["spec"]["template"]["spec"]["containers"][0]["args"]
        (named,) = [v for v in kube.versions() if v in live[-1]]
        done = kube.postrender(["gc", "-n", ns, "--keep", "0", "--min-age", "0", "--yes"])
        assert done.status == 0, done.stderr
        assert named in kube.versions(), (args, done.stdout)
        assert f"ConfigMap/{named}" in done.stdout and "in use by Deployment/controller" in done.stdout, done.stdout


# A ConfigMap whose data names a Secret (a --config field spec): its
# version carries a record of the Secret's version it names.
NAMED_IN_DATA = "nameReference:\n- kind: Secret\n  fieldSpecs:\n  - {kind: ConfigMap, path: data/credentialsSecret}\n"


def named_in_data_app(password: str) -> str:
    return (f"apiVersion: v1\nkind: Secret\nmetadata: {{name: creds}}\nstringData: {{password: {password}}}\n---\n"
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n"
            f"data: {{credentialsSecret: creds, mode: {password}}}\n---\n"
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 0\n"
            "  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n"
            "      containers:\n      - {name: c, image: x, envFrom: [{configMapRef: {name: settings}}]}\n")


def test_gc_keeps_the_secret_a_kept_configmap_version_names(kube: Kube):
    ns = kube.namespace
    config = kube.home / "named-in-data.yaml"
    config.write_text(NAMED_IN_DATA)
    for password in ("one", "two"):
        rendered = kube.postrender([f"--namespace={ns}", "--keep-previous=argocd", f"--config={config}"],
                                   named_in_data_app(password))
        assert rendered.status == 0, rendered.stderr
        kube.kubectl("apply", "-f", "-", namespace=ns, input=rendered.stdout)
        kube.settle("web", ns)
    configmaps = kube.versions()
    named = {kube.get("configmap", name, namespace=ns)["data"]["credentialsSecret"] for name in configmaps}
    assert len(configmaps) == 2 and len(named) == 2 and named == kube.versions("secrets")
    done = kube.postrender(["gc", "-n", ns, "--keep", "0", "--min-age", "0", f"--config={config}", "--yes"])
    assert done.status == 0, done.stderr
    # Both ConfigMap versions are in use (the Deployment, its old ReplicaSet),
    # and each keeps the Secret version it names.
    assert kube.versions() == configmaps, done.stdout
    assert kube.versions("secrets") == named, done.stdout
    assert "in use by ConfigMap/settings-" in done.stdout, done.stdout


def test_a_namespace_named_twice_is_collected_once(kube: Kube):
    ns = kube.namespace
    for name in ("cfg-aaaaaaaaaa", "cfg-bbbbbbbbbb", "cfg-cccccccccc"):
        kube.kubectl("apply", "-f", "-", input=version_manifest(name))
    done = kube.postrender(["gc", "-n", ns, "-n", ns, "--keep", "2", "--min-age", "0", "--yes"])
    assert done.status == 0, done.stderr
    assert kube.versions() == {"cfg-bbbbbbbbbb", "cfg-cccccccccc"}, done.stdout
    assert done.stdout.count("cfg-aaaaaaaaaa") == 1, done.stdout


@pytest.mark.parametrize("selector, usage", [
    ("a in (", True), ("a in b", True), ("=b", True), ("a=b=c", True), ("Bad Key=x", True), ("a=-x", True),
    ("app.kubernetes.io/instance=web", False), ("a in (x, y),!b", False), ("a", False), ("a=", False),
    (" a = b ", False), ("a notin (x)", False),
])
def test_a_selector_the_api_server_cannot_parse_is_a_usage_error(kube: Kube, selector: str, usage: bool):
    """An outside tester's find: `-l 'a in ('` exited 1 as an API error. The
    API server is the parser: what it refuses is a usage error (exit 2,
    nothing on stdout), what it reads runs."""
    kube.kubectl("apply", "-f", "-", input=version_manifest("cfg-aaaaaaaaaa"))
    done = kube.postrender(["gc", "-n", kube.namespace, "-l", selector, "--min-age", "0"])
    if usage:
        assert done.status == 2 and done.stdout == "", done
        assert f"-l {selector!r} is not a label selector the API server reads" in done.stderr, done.stderr
    else:
        assert done.status == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_a_version_changed_between_plan_and_delete_survives(kube: Kube):
    ns = kube.namespace
    for name in ("cfg-aaaaaaaaaa", "cfg-bbbbbbbbbb", "cfg-cccccccccc"):
        kube.kubectl("apply", "-f", "-", input=version_manifest(name))
    cluster = Cluster.connect(str(kube.kubeconfig))
    state = LiveState(read_versions(cluster, [ns]), read_users(cluster, [ns], load_table()))
    decisions = plan_gc(state, Policy(keep=0, min_age=timedelta(0), now=datetime.now(timezone.utc)))
    assert [d.delete for d in decisions] == [True, True, True]

    kube.kubectl("label", "configmap", "cfg-aaaaaaaaaa", "touched=yes")  # a new resourceVersion
    kube.kubectl("delete", "configmap", "cfg-bbbbbbbbbb")  # the same name, a new uid
    kube.kubectl("apply", "-f", "-", input=version_manifest("cfg-bbbbbbbbbb"))

    stderr = io.StringIO()
    outcomes = {o.decision.version.name: o.result for o in execute(cluster, decisions, Reporter(stderr=stderr))}
    assert outcomes == {"cfg-aaaaaaaaaa": DeleteOutcome.CONFLICT, "cfg-bbbbbbbbbb": DeleteOutcome.CONFLICT,
                        "cfg-cccccccccc": DeleteOutcome.DELETED}
    assert kube.versions() == {"cfg-aaaaaaaaaa", "cfg-bbbbbbbbbb"}
    assert "changed since planning" in stderr.getvalue()


def test_gc_keeps_young_versions_and_needs_yes(kube: Kube):
    for name in ("young-aaaaaaaaaa", "young-bbbbbbbbbb"):
        kube.kubectl("apply", "-f", "-", input=version_manifest(name, base="young"))
    # Without -n, gc works in the context's namespace ("default" here), not ours.
    result = kube.postrender(["gc", "--keep", "0", "--min-age", "0", "--yes"])
    assert result.status == 0, result.stderr
    assert kube.versions() == {"young-aaaaaaaaaa", "young-bbbbbbbbbb"}
    result = kube.postrender(["gc", "-n", kube.namespace, "--keep", "0", "--yes"])
    assert result.status == 0, result.stderr
    assert kube.versions() == {"young-aaaaaaaaaa", "young-bbbbbbbbbb"}, "younger than --min-age 1h"
    assert "younger than --min-age 1h" in result.stdout
    dry = kube.postrender(["gc", "-n", kube.namespace, "--keep", "0", "--min-age", "0"])
    assert dry.status == 0 and dry.stdout.count(" delete ") == 2, dry.stdout
    assert kube.versions() == {"young-aaaaaaaaaa", "young-bbbbbbbbbb"}, "no --yes, no deletion"


BROKEN_API = """
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1.broken.example.com
spec:
  group: broken.example.com
  version: v1
  groupPriorityMinimum: 100
  versionPriority: 100
  insecureSkipTLSVerify: true
  service: {name: nothing-here, namespace: default}
"""


def test_an_api_group_that_cannot_be_discovered_stops_gc_but_not_retain(kube: Kube):
    kube.kubectl("apply", "-f", "-", input=version_manifest("cfg-aaaaaaaaaa"))
    kube.kubectl("apply", "-f", "-", input=BROKEN_API)
    try:
        kube.wait(lambda: kube.plane.get("/apis/broken.example.com/v1")[0] == 503, "the broken API group")
        stopped = kube.postrender(["gc", "-n", kube.namespace, "--min-age", "0", "--keep", "0"])
        assert stopped.status == 1 and stopped.stdout == ""
        assert "cannot discover broken.example.com/v1" in stopped.stderr, stopped.stderr
        assert "--skip-unavailable" in stopped.stderr

        skipped = kube.postrender(["gc", "-n", kube.namespace, "--min-age", "0", "--keep", "0",
                                   "--skip-unavailable"])
        assert skipped.status == 0, skipped.stderr
        assert "warning: not checked for postrender.io/refs" in skipped.stderr
        assert "ConfigMap/cfg-aaaaaaaaaa" in skipped.stdout and " delete " in skipped.stdout

        # --retain says it and goes on: an aggregated API (a metrics server
        # down) serves no custom resources, and failing every deploy for it
        # would be worse.
        template = kube.helm(3, "template", "rel", str(CHART)).stdout
        rendered = kube.postrender(["--retain=2", f"--namespace={kube.namespace}"], template)
        assert rendered.status == 0, rendered.stderr
        assert "cannot discover" in rendered.stderr and "broken.example.com/v1" in rendered.stderr
    finally:
        kube.kubectl("delete", "apiservice", "v1.broken.example.com")


def test_gc_in_a_pod_uses_the_service_account(kube: Kube, tmp_path, monkeypatch):
    """The CronJob path: no kubeconfig, the service account's token and CA
    files, and the pod's namespace. Only the file locations are redirected."""
    kube.kubectl("apply", "-f", "-", input=version_manifest("cfg-aaaaaaaaaa"))
    kube.kubectl("apply", "-f", "-", input=version_manifest("cfg-bbbbbbbbbb"))
    gc_kubeconfig(kube)  # binds the shipped ClusterRole to the gc user
    account = tmp_path / "serviceaccount"
    account.mkdir()
    (account / "token").write_text(GC_TOKEN)
    (account / "ca.crt").write_bytes(kube.plane.ca.read_bytes())
    (account / "namespace").write_text(kube.namespace)
    monkeypatch.setattr(incluster, "SERVICE_TOKEN_FILENAME", str(account / "token"))
    monkeypatch.setattr(incluster, "SERVICE_CERT_FILENAME", str(account / "ca.crt"))
    monkeypatch.setattr(client, "_SA_NAMESPACE", account / "namespace")
    monkeypatch.delenv("KUBECONFIG", raising=False)
    host, port = kube.plane.server.removeprefix("https://").split(":")
    result = run_postrender(["gc", "--keep", "1", "--min-age", "0", "--yes"], env={
        "HOME": str(tmp_path), "KUBERNETES_SERVICE_HOST": host, "KUBERNETES_SERVICE_PORT": port,
    })
    assert result.status == 0, result.stderr
    assert kube.versions() == {"cfg-bbbbbbbbbb"}, "the pod's namespace, the newest kept, the other deleted"


def test_shipped_cronjob_is_valid_and_runs_a_valid_gc_command(kube: Kube):
    path = ROOT / "integrations" / "gc" / "cronjob.yaml"
    (cronjob,) = YAML(typ="safe").load_all(path.read_text())
    container = cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]
    args = parse(container["args"])
    assert args.command == "gc" and args.yes and args.all_namespaces
    kube.kubectl("apply", "-f", str(ROOT / "integrations" / "gc" / "rbac.yaml"), namespace="postrender-gc")
    # The test server is 1.20, which serves CronJob as batch/v1beta1 only.
    legacy = path.read_text().replace("apiVersion: batch/v1\n", "apiVersion: batch/v1beta1\n")
    kube.kubectl("apply", "--dry-run=server", "-f", "-", input=legacy, namespace="postrender-gc")


def _in_history_only(kube: Kube) -> str:
    """Two releases applied: a version only an old ReplicaSet uses."""
    for greeting in ("one", "two"):
        _apply_release(kube, "rel", kube.namespace, greeting)
    used = kube.referenced(kube.names("configmaps", "postrender.io/scope=rel"))
    in_history = sorted(name for name, users in used.items()
                        if any(u.startswith("ReplicaSet/") for u in users)
                        and not any(u.startswith("Deployment/") for u in users))
    assert in_history, "the scenario needs a version that only an old ReplicaSet uses"
    return in_history[0]


@pytest.mark.parametrize("narrowed", [[], ["-l", "postrender.io/scope=rel"]])
def test_a_version_deleted_by_hand_that_history_still_names_is_warned_about(kube: Kube, narrowed):
    # cluster61: gc and --retain said nothing of it, even with -v; with -l or
    # --scope, which read some versions only, it is said all the same.
    ns = kube.namespace
    old = _in_history_only(kube)
    kube.kubectl("delete", "configmap", old, namespace=ns)
    result = kube.postrender(["gc", f"--kubeconfig={gc_kubeconfig(kube)}", "-n", ns, "--min-age", "0", *narrowed])
    assert result.status == 0, result.stderr
    (warning,) = [line for line in result.stderr.splitlines() if "is not in the cluster" in line]
    assert warning.startswith(f"postrender: warning: ConfigMap/{ns}/{old} is named by ReplicaSet/")
    assert old not in result.stdout, "nothing to decide about what is not there"


def test_a_version_there_but_unlabelled_is_not_said_missing(kube: Kube):
    # review61a/c: a ConfigMap of a version's name without the versioned label
    # (kustomize's own name-<hash>) is there: read_users lists it.
    ns = kube.namespace
    old = _in_history_only(kube)
    kube.kubectl("label", "configmap", old, "postrender.io/versioned-", namespace=ns)
    result = kube.postrender(["gc", f"--kubeconfig={gc_kubeconfig(kube)}", "-n", ns, "--min-age", "0"])
    assert result.status == 0, result.stderr
    assert "is not in the cluster" not in result.stderr
