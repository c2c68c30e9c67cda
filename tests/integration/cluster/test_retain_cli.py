"""`--retain` outside Helm: with `kubectl apply --prune`, with exec
credentials and the shipped read-only Role, refused loudly when the
cluster cannot be read, and byte-stable."""

from __future__ import annotations

import json
import stat
import subprocess

import pytest

from ruamel.yaml import YAML

from conftest import ROOT, require_tool

from .controlplane import ADMIN_TOKEN, READER_TOKEN, READER_USER
from .kit import CHART, Kube

VALUES = ["--set", "replicas=0", "--set", "revisionHistoryLimit=1", "--set", "statefulset=false"]


def _template(kube: Kube, greeting: str, *values: str) -> str:
    return kube.helm(3, "template", "rel", str(CHART), "--set", f"config.greeting={greeting}", *VALUES,
                     *values).stdout


def _apply(kube: Kube, stream: str) -> None:
    kube.kubectl("apply", "--prune", "-l", "app.kubernetes.io/instance=rel",
                 "--prune-allowlist=core/v1/ConfigMap", "--prune-allowlist=core/v1/Secret",
                 "--prune-allowlist=apps/v1/Deployment", "-f", "-", input=stream)
    kube.settle("rel-web")


def test_kubectl_apply_prune_keeps_what_the_stream_carries(kube: Kube):
    render = ["--retain=2", f"--namespace={kube.namespace}"]
    pruned: set[str] = set()
    for i in range(5):
        before = kube.versions()
        used = set(kube.referenced(before))
        unused = [n for n in _oldest_first(kube, before) if n not in used]
        expected = used | set(unused[-1:])
        result = kube.postrender(render, _template(kube, f"k{i}"))
        assert result.status == 0, result.stderr
        _apply(kube, result.stdout)
        after = kube.versions()
        assert after - before and after - (after - before) == expected, (i, sorted(after), sorted(expected))
        pruned |= before - after
    assert pruned, "kubectl must have pruned versions the stream no longer carried"


def test_a_configmap_the_upgrade_drops_stays_while_rollout_history_uses_it(kube: Kube):
    render = ["--retain=2", f"--namespace={kube.namespace}", "-v"]
    _apply(kube, kube.postrender(render, _template(kube, "d0", "--set", "extra=true")).stdout)
    (extra,) = kube.names("configmaps", "postrender.io/base-name=rel-extra")

    # The feature is switched off: the Deployment stops mounting its ConfigMap,
    # whose version the previous ReplicaSet (rollout history) still names.
    dropped = kube.postrender(render, _template(kube, "d1"))
    assert dropped.status == 0, dropped.stderr
    assert extra in _names(dropped.stdout), dropped.stderr
    assert "its group left the stream" in dropped.stderr
    _apply(kube, dropped.stdout)
    assert kube.exists("configmap", extra), "kubectl must not prune what the old ReplicaSet mounts"
    assert any(u.startswith("ReplicaSet/") for u in kube.referenced({extra})[extra])

    # Two upgrades later that ReplicaSet has left history (revisionHistoryLimit 1): nothing
    # uses the version any more, so it is not carried forward again, and is pruned.
    for greeting in ("d2", "d3"):
        _apply(kube, kube.postrender(render, _template(kube, greeting)).stdout)
    assert extra not in kube.referenced({extra})
    assert not kube.exists("configmap", extra)


def test_a_retained_configmap_version_keeps_the_secret_version_it_names(kube: Kube):
    # The ConfigMap's data names the Secret (a --config field spec): rolled
    # back to, the old ConfigMap version must find the Secret version it names.
    from .test_gc import NAMED_IN_DATA, named_in_data_app

    config = kube.home / "named-in-data.yaml"
    config.write_text(NAMED_IN_DATA)
    for password in ("one", "two"):
        stream = named_in_data_app(password).replace("metadata: {name:", "metadata: {labels: {app.kubernetes.io/instance: web}, name:")
        result = kube.postrender(["--retain=1", f"--namespace={kube.namespace}", f"--config={config}"], stream)
        assert result.status == 0, result.stderr
        kube.kubectl("apply", "--prune", "-l", "app.kubernetes.io/instance=web",
                     "--prune-allowlist=core/v1/ConfigMap", "--prune-allowlist=core/v1/Secret",
                     "--prune-allowlist=apps/v1/Deployment", "-f", "-", input=result.stdout)
        kube.settle("web")
    kube.kubectl("rollout", "undo", "deployment/web")
    kube.settle("web")
    template = kube.get("deployment", "web")["spec"]["template"]["spec"]
    settings = template["containers"][0]["envFrom"][0]["configMapRef"]["name"]
    assert kube.get("configmap", settings)["data"]["mode"] == "one"
    names = kube.get("configmap", settings)["data"]["credentialsSecret"]
    assert kube.exists("secret", names), f"ConfigMap {settings} names Secret {names}, which was pruned"


def test_retained_output_is_byte_stable_and_ordered(kube: Kube):
    render = ["--retain=3", f"--namespace={kube.namespace}"]
    for i in range(3):
        result = kube.postrender(render, _template(kube, f"b{i}"))
        assert result.status == 0, result.stderr
        _apply(kube, result.stdout)
    stream = _template(kube, "b3")
    first = kube.postrender(render, stream)
    second = kube.postrender(render, stream)
    assert first.status == 0 and first.stdout == second.stdout
    tail = first.stdout.split("# Source: postrender/retained.yaml\n")[1:]
    names = [_names(part)[0] for part in tail]
    assert len(names) == 3 and names == sorted(names)
    for part in tail:
        for server_set in ("uid:", "resourceVersion:", "creationTimestamp:", "managedFields",
                           "last-applied-configuration"):
            assert server_set not in part


def test_exec_credentials_and_the_shipped_read_only_role(kube: Kube):
    # The reader user gets only integrations/retain/rbac.yaml's Role, and its
    # token comes from an exec plugin, as with cloud providers' kubeconfigs.
    kube.kubectl("apply", "-f", str(ROOT / "integrations" / "retain" / "rbac.yaml"))
    kube.kubectl("create", "rolebinding", "reader", "--role=postrender-retain", f"--user={READER_USER}")
    _apply(kube, kube.postrender(["--retain=2", f"--namespace={kube.namespace}"], _template(kube, "e0")).stdout)
    (old,) = kube.versions()
    _apply(kube, kube.postrender(["--retain=2", f"--namespace={kube.namespace}"], _template(kube, "e1")).stdout)

    plugin = kube.home / "credential-plugin"
    plugin.write_text(
        "#!/bin/sh\n"
        f"echo '{json.dumps({'apiVersion': 'client.authentication.k8s.io/v1beta1', 'kind': 'ExecCredential', 'status': {'token': READER_TOKEN}})}'\n"
    )
    plugin.chmod(plugin.stat().st_mode | stat.S_IEXEC)
    kubeconfig = kube.home / "exec.kubeconfig"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\n"
        f"clusters: [{{name: c, cluster: {{server: '{kube.plane.server}', certificate-authority: '{kube.plane.ca}'}}}}]\n"
        "users:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n"
        f"      command: {plugin}\n      interactiveMode: Never\n"
        "contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n"
    )
    result = kube.postrender(["--retain=2", f"--namespace={kube.namespace}", f"--kubeconfig={kubeconfig}", "-v"],
                             _template(kube, "e2"))
    assert result.status == 0, result.stderr
    assert old in _names(result.stdout), "the exec-authenticated reader must see and retain the old version"

    plugin.write_text("#!/bin/sh\necho 'no credentials today' >&2\nexit 1\n")
    failed = kube.postrender(["--retain=2", f"--namespace={kube.namespace}", f"--kubeconfig={kubeconfig}"],
                             _template(kube, "e2"))
    assert failed.status == 1 and failed.stdout == "", "a failing credential plugin fails the render"
    # One line, naming the plugin's failure: not the client's own log line,
    # then the HTTP 401 it went on to.
    (line,) = failed.stderr.splitlines()
    assert line.startswith("postrender: error: cannot load cluster credentials: exec: process returned 1"), line
    assert "no credentials today" in line and "Unauthorized" not in line, line


def test_forbidden_reads_fail_the_render_with_no_output(kube: Kube):
    kubeconfig = kube.plane.write_kubeconfig(kube.home / "nobody.kubeconfig", READER_TOKEN, user=READER_USER)
    result = kube.postrender(["--retain=2", f"--namespace={kube.namespace}", f"--kubeconfig={kubeconfig}"],
                             _template(kube, "f0"))
    assert result.status == 1
    assert result.stdout == ""
    assert "forbidden" in result.stderr.lower() and "cannot list" in result.stderr, result.stderr


def test_a_cluster_that_went_away_fails_the_render(kube: Kube):
    kubeconfig = kube.plane.write_kubeconfig(kube.home / "wrong-context.kubeconfig", ADMIN_TOKEN)
    text = kubeconfig.read_text().replace(kube.plane.server, "https://127.0.0.1:1")
    kubeconfig.write_text(text)
    result = kube.postrender(["--retain=2", f"--namespace={kube.namespace}", f"--kubeconfig={kubeconfig}"],
                             _template(kube, "w0"))
    assert result.status == 1 and result.stdout == ""
    assert "cannot reach the cluster at https://127.0.0.1:1" in result.stderr, result.stderr


def _oldest_first(kube: Kube, names: set[str]) -> list[str]:
    items = [i for i in kube.get("configmaps")["items"] if i["metadata"]["name"] in names]
    items.sort(key=lambda i: (i["metadata"]["creationTimestamp"], int(i["metadata"]["resourceVersion"])))
    return [i["metadata"]["name"] for i in items]


def _names(stream: str) -> list[str]:
    return [d["metadata"]["name"] for d in YAML(typ="safe").load_all(stream) if d]


_REVISION_CRDS = "".join(
    "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
    f"metadata: {{name: {plural}.serving.knative.dev}}\nspec:\n  group: serving.knative.dev\n  scope: Namespaced\n"
    f"  names: {{plural: {plural}, singular: {plural[:-1]}, kind: {kind}}}\n"
    "  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: "
    "{type: object, x-kubernetes-preserve-unknown-fields: true}}}]\n"
    for plural, kind in (("services", "Service"), ("revisions", "Revision")))


def _knative_app(greeting: str) -> str:
    return ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, labels: {app.kubernetes.io/instance: kn}}\n"
            f"data: {{greeting: {greeting}}}\n---\n"
            "apiVersion: serving.knative.dev/v1\nkind: Service\n"
            "metadata: {name: hello, labels: {app.kubernetes.io/instance: kn}}\nspec:\n  template:\n    spec:\n"
            "      containers: [{image: x, envFrom: [{configMapRef: {name: cfg}}]}]\n")


def _uses(kind: str, name: str, version: str) -> str:
    """An object of a kind no workload controller makes here, using `version`
    as the history it stands for would (a Knative Revision snapshots its
    Service's template; a PodTemplate holds one)."""
    spec = f"{{containers: [{{name: c, image: x, envFrom: [{{configMapRef: {{name: {version}}}}}]}}]}}"
    if kind == "Revision":
        return f"apiVersion: serving.knative.dev/v1\nkind: Revision\nmetadata: {{name: {name}}}\nspec: {spec}\n"
    return f"apiVersion: v1\nkind: PodTemplate\nmetadata: {{name: {name}}}\ntemplate: {{spec: {spec}}}\n"


@pytest.mark.parametrize("kind", ["Revision", "PodTemplate"])
def test_a_version_any_kind_in_the_namespace_uses_is_carried_forward(kube: Kube, kind: str):
    # --retain reads users as gc does: every kind the server lists in the
    # namespace, custom resources included, not a fixed list of workloads.
    kube.kubectl("apply", "-f", "-", input=_REVISION_CRDS)
    kube.kubectl("wait", "--for=condition=Established", "crd/services.serving.knative.dev",
                 "crd/revisions.serving.knative.dev")
    render = ["--retain=1", f"--namespace={kube.namespace}"]
    apply = ["apply", "--prune", "-l", "app.kubernetes.io/instance=kn", "--prune-allowlist=core/v1/ConfigMap",
             "-f", "-"]
    first = kube.postrender(render, _knative_app("one"))
    assert first.status == 0, first.stderr
    kube.kubectl(*apply, input=first.stdout)
    (old,) = kube.versions()
    kube.kubectl("apply", "-f", "-", input=_uses(kind, "hello-00001", old))
    second = kube.postrender(render, _knative_app("two"))
    assert second.status == 0, second.stderr
    assert old in _names(second.stdout), f"{kind} uses {old}: it must be carried forward"
    kube.kubectl(*apply, input=second.stdout)
    assert old in kube.versions()


def test_kustomize_generator_output_keeps_the_version_rollout_history_uses(kube: Kube, tmp_path):
    # The README's pipeline: `kustomize build . | postrender --retain 2 |
    # kubectl apply --prune`. A configMapGenerator's output, already named
    # by its content hash, is a version to --retain: the one the previous
    # ReplicaSet uses stays, so `kubectl rollout undo` finds it.
    from manifests import tool_env

    kubectl = require_tool("kubectl")
    (tmp_path / "deploy.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 0\n"
        "  revisionHistoryLimit: 5\n  selector: {matchLabels: {app: web}}\n  template:\n"
        "    metadata: {labels: {app: web}}\n    spec:\n"
        "      containers: [{name: c, image: x, envFrom: [{configMapRef: {name: gen}}]}]\n")
    built = []
    for value in ("1", "2"):
        (tmp_path / "kustomization.yaml").write_text(
            f"namespace: {kube.namespace}\n"
            "labels: [{pairs: {app.kubernetes.io/instance: web}, includeSelectors: false}]\n"
            f"configMapGenerator: [{{name: gen, literals: [a={value}]}}]\nresources: [deploy.yaml]\n")
        stream = subprocess.run([kubectl, "kustomize", str(tmp_path)], capture_output=True, text=True,
                                env=tool_env(), check=True).stdout
        result = kube.postrender(["--retain=2", f"--namespace={kube.namespace}"], stream)
        assert result.status == 0, result.stderr
        kube.kubectl("apply", "--prune", "-l", "app.kubernetes.io/instance=web",
                     "--prune-allowlist=core/v1/ConfigMap", "--prune-allowlist=apps/v1/Deployment",
                     "-f", "-", input=result.stdout)
        kube.settle("web")
        built.append(next(name for name in _names(stream) if name.startswith("gen-")))
    assert built[0] != built[1]
    assert {built[0], built[1]} <= kube.names("configmaps"), "the previous ReplicaSet's version was pruned"
    kube.kubectl("rollout", "undo", "deployment/web")
    kube.settle("web")
    template = kube.get("deployment", "web")["spec"]["template"]["spec"]["containers"][0]
    assert template["envFrom"][0]["configMapRef"]["name"] == built[0]


def test_a_configmap_dropped_by_the_first_render_through_postrender_stays_while_history_uses_it(kube: Kube):
    """Deployed plainly first, then through postrender with the feature
    switched off at once: the plain `rel-extra` is no version and no name in
    the stream leads to it, yet the first ReplicaSet mounts it. An outside
    tester's find: kubectl pruned it, and `rollout undo` named a ConfigMap
    that was gone."""
    _apply(kube, _template(kube, "p0", "--set", "extra=true"))
    assert kube.exists("configmap", "rel-extra")
    render = ["--retain=2", f"--namespace={kube.namespace}", "-v"]
    first = kube.postrender(render, _template(kube, "p1"))
    assert first.status == 0, first.stderr
    assert "rel-extra" in _names(first.stdout), first.stderr
    # The live Deployment still mounts it too, until this render is applied.
    assert "retained ConfigMap/" + kube.namespace + "/rel-extra: the unversioned original of a config that left" \
        " the stream, in use by Deployment/rel-web, ReplicaSet/rel-web-" in first.stderr, first.stderr
    _apply(kube, first.stdout)
    assert kube.exists("configmap", "rel-extra"), "kubectl must not prune what the old ReplicaSet mounts"
    # Once history no longer holds that ReplicaSet (revisionHistoryLimit 1), it goes.
    for greeting in ("p2", "p3"):
        _apply(kube, kube.postrender(render, _template(kube, greeting)).stdout)
    assert "rel-extra" not in kube.referenced({"rel-extra"})
    assert not kube.exists("configmap", "rel-extra")
