"""`--retain` under Helm 3.17 and 4.1 against a real API server and
controller-manager: old versions outlive the rollout, `kubectl rollout
undo` and `helm rollback` work at once, and Helm prunes what is no longer
carried forward."""

from __future__ import annotations

import re

import pytest
from ruamel.yaml import YAML

from .kit import CHART, Kube

HELM = [pytest.param(3, id="helm3"), pytest.param(4, id="helm4")]


def _deploy(kube: Kube, major: int, verb: str, *values: str, retain: str = "--retain=2") -> None:
    args = [verb, "rel", str(CHART), *kube.post_renderer(major, retain)]
    for value in values:
        args += ["--set", value]
    kube.helm(major, *args)
    if kube.exists("deployment", "rel-web"):
        kube.settle("rel-web")
    if kube.exists("statefulset", "rel-db"):
        kube.settle_statefulset("rel-db")


def _env_config(obj: dict) -> str:
    return obj["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"]


def _by_age(kube: Kube, names: set[str], resource: str = "configmaps") -> list[str]:
    items = [i for i in kube.get(resource)["items"] if i["metadata"]["name"] in names]
    items.sort(key=lambda i: (i["metadata"]["creationTimestamp"], int(i["metadata"]["resourceVersion"])))
    return [i["metadata"]["name"] for i in items]


@pytest.mark.parametrize("major", HELM)
def test_upgrade_keeps_the_previous_version_for_rollout_undo(kube: Kube, major: int):
    _deploy(kube, major, "install", "config.greeting=one")
    first = kube.versions()
    assert len(first) == 1, first
    _deploy(kube, major, "upgrade", "config.greeting=two")
    both = kube.versions()
    assert len(both) == 2 and first < both, both
    (old,), (new,) = first, both - first

    by_config = {_env_config(rs): rs["metadata"]["name"] for rs in kube.get("replicasets")["items"]}
    assert set(by_config) == {old, new}, "the old ReplicaSet must reference the old version"
    manifest = kube.helm(major, "get", "manifest", "rel").stdout
    assert old in manifest and new in manifest, "the previous version belongs to the release"

    kube.kubectl("rollout", "undo", "deployment/rel-web")
    kube.settle("rel-web")
    back = _env_config(kube.get("deployment", "rel-web"))
    assert back == old
    assert kube.exists("configmap", back), "rollout undo must land on an existing ConfigMap"


@pytest.mark.parametrize("major", HELM)
def test_helm_rollback_succeeds_on_the_first_try(kube: Kube, major: int):
    _deploy(kube, major, "install", "config.greeting=one")
    (old,) = kube.versions()
    _deploy(kube, major, "upgrade", "config.greeting=two")

    rollback = kube.helm(major, "rollback", "rel", "1", check=False)
    assert rollback.returncode == 0, rollback.stderr + rollback.stdout
    kube.settle("rel-web")
    assert _env_config(kube.get("deployment", "rel-web")) == old
    assert kube.exists("configmap", old)
    history = kube.helm(major, "history", "rel", "-o", "json").stdout
    assert '"revision":3' in history.replace(" ", "") and "deployed" in history


@pytest.mark.parametrize("major", HELM)
def test_keep_policy_breaks_the_first_rollback(kube: Kube, major: int):
    """Why --retain exists (and why --keep-previous=helm warns): with
    helm.sh/resource-policy: keep, Helm forgets the kept version and the
    first rollback fails. If Helm ever fixes this, the README's warning
    must change with it."""
    _deploy(kube, major, "install", "config.greeting=one", retain="--keep-previous=helm")
    _deploy(kube, major, "upgrade", "config.greeting=two", retain="--keep-previous=helm")
    assert len(kube.versions()) == 2
    first = kube.helm(major, "rollback", "rel", "1", check=False)
    assert first.returncode != 0
    # Helm 3: `no ConfigMap with the name ... found`; Helm 4: `original object ... not found`.
    assert re.search(r"no ConfigMap with the name .* found|not found", first.stderr), first.stderr
    second = kube.helm(major, "rollback", "rel", "1", check=False)
    assert second.returncode == 0, second.stderr


@pytest.mark.parametrize("major", HELM)
def test_a_config_the_chart_keeps_keeps_its_name_and_the_first_rollback_succeeds(kube: Kube, major: int):
    """A chart's own helm.sh/resource-policy: keep on its ConfigMap: a version
    of it broke the first rollback as above (helm62). It keeps its name, and
    the Deployment rolls by its hash."""
    _deploy(kube, major, "install", "config.greeting=one", "configKeep=true")
    template = kube.get("deployment", "rel-web")["spec"]["template"]
    assert _env_config({"spec": {"template": template}}) == "rel-config"
    _deploy(kube, major, "upgrade", "config.greeting=two", "configKeep=true")
    rolled = kube.get("deployment", "rel-web")["spec"]["template"]["metadata"]["annotations"]
    assert rolled["postrender.io/config-hash"] != template["metadata"]["annotations"]["postrender.io/config-hash"]
    rollback = kube.helm(major, "rollback", "rel", "1", check=False)
    assert rollback.returncode == 0, rollback.stderr + rollback.stdout
    assert kube.get("configmap", "rel-config")["data"]["greeting"] == "one"


@pytest.mark.parametrize("major", HELM)
def test_five_upgrades_keep_exactly_the_referenced_and_the_newest(kube: Kube, major: int):
    # No kubelet runs, so Pods never become ready and a rollout never
    # finishes: with replicas > 0 every ReplicaSet keeps Pods (and uses its
    # version) forever. With 0 replicas and revisionHistoryLimit 1, old
    # ReplicaSets go, versions fall out of use, and Helm must prune them.
    def values(i: int) -> list[str]:
        return [f"config.greeting=g{i}", f"secret.token=t{i}", "replicas=0", "revisionHistoryLimit=1",
                "statefulset=false"]

    _deploy(kube, major, "install", *values(0))
    pruned: set[str] = set()
    for i in range(1, 6):
        before = {r: kube.versions(r) for r in ("configmaps", "secrets")}
        expected: dict[str, set[str]] = {}
        for resource, names in before.items():
            used = set(kube.referenced(names))
            newest_unused = _by_age(kube, names - used, resource)[-1:]
            expected[resource] = used | set(newest_unused)
        _deploy(kube, major, "upgrade", *values(i))
        for resource, names in before.items():
            after = kube.versions(resource)
            new = after - names
            assert len(new) == 1, (resource, new)
            assert after == expected[resource] | new, (
                f"upgrade {i}, {resource}: kept {sorted(after)}, expected {sorted(expected[resource] | new)}"
            )
            pruned |= names - after
    assert pruned, "the scenario must make Helm prune some versions"

    kube.helm(major, "uninstall", "rel")
    assert kube.versions("configmaps") == set() and kube.versions("secrets") == set(), (
        "helm uninstall removes every version: none is orphaned"
    )


@pytest.mark.parametrize("major", HELM)
def test_statefulset_history_keeps_its_versions(kube: Kube, major: int):
    values = ["deployment=false", "cronjob=false"]
    for i in range(4):
        _deploy(kube, major, "install" if i == 0 else "upgrade", f"config.greeting=s{i}", *values,
                retain="--retain=1")
    revisions = [r for r in kube.get("controllerrevisions")["items"]
                 if r["metadata"]["name"].startswith("rel-db-")]
    assert len(revisions) == 4, [r["metadata"]["name"] for r in revisions]
    in_history = {r["revision"]: r["data"]["spec"]["template"]["spec"]["volumes"][0]["configMap"]["name"]
                  for r in revisions}
    kept = kube.versions()
    assert set(in_history.values()) <= kept, "every version in StatefulSet history must survive"

    # Revision 2's version is used by nothing but its ControllerRevision.
    only_history = in_history[2]
    users = kube.referenced({only_history})[only_history]
    assert all(u.startswith("ControllerRevision/") for u in users), users

    kube.kubectl("rollout", "undo", "statefulset/rel-db", "--to-revision=2")
    sts = kube.get("statefulset", "rel-db")
    name = sts["spec"]["template"]["spec"]["volumes"][0]["configMap"]["name"]
    assert name == only_history and kube.exists("configmap", name)


_ADOPTED = ["replicas=0", "revisionHistoryLimit=1", "cronjob=false"]


def _adopt(kube: Kube, major: int) -> None:
    """A release deployed before postrender ran for it: its ConfigMap and
    Secret are plain `rel-config` and `rel-secret`, which the first
    ReplicaSet and the StatefulSet's first ControllerRevision name. Then its
    first upgrade through postrender, which names versions instead: Helm
    prunes what its manifest no longer holds, and under Helm 4 (no
    unsuffixed copy of a ConfigMap by default) that was `rel-config`."""
    kube.helm(major, "install", "rel", str(CHART),
              *(flag for value in ["config.greeting=one", *_ADOPTED] for flag in ("--set", value)))
    kube.settle("rel-web")
    kube.settle_statefulset("rel-db")
    _deploy(kube, major, "upgrade", "config.greeting=two", "secret.token=two", *_ADOPTED)


@pytest.mark.parametrize("major", HELM)
def test_the_first_upgrade_with_postrender_keeps_the_original_history_uses(kube: Kube, major: int):
    _adopt(kube, major)
    for resource, original in (("configmap", "rel-config"), ("secret", "rel-secret")):
        assert kube.exists(resource, original), f"{original}, which rollout history names, was pruned"
        users = kube.referenced({original})[original]
        assert any(u.startswith(("ReplicaSet/", "ControllerRevision/")) for u in users), users
    kube.kubectl("rollout", "undo", "deployment/rel-web")
    kube.settle("rel-web")
    back = _env_config(kube.get("deployment", "rel-web"))
    assert back == "rel-config" and kube.exists("configmap", back)


def test_an_original_is_kept_only_while_something_uses_it(kube: Kube):
    _adopt(kube, 4)  # Helm 3 writes an unsuffixed copy of every config by default, which it keeps
    # The Deployment's history (revisionHistoryLimit 1) no longer names the
    # original two upgrades later; the StatefulSet's ControllerRevisions
    # (its history limit is 10) and its Pod (Pending, with no kubelet, so
    # never replaced) still do, and only they keep it.
    for greeting in ("three", "four"):
        _deploy(kube, 4, "upgrade", f"config.greeting={greeting}", *_ADOPTED)
    users = kube.referenced({"rel-config"}).get("rel-config", [])
    assert users and all(u.startswith(("ControllerRevision/rel-db", "Pod/rel-db")) for u in users), users
    assert kube.exists("configmap", "rel-config")
    # Without the StatefulSet nothing names it: not carried forward, and pruned.
    _deploy(kube, 4, "upgrade", "config.greeting=five", *_ADOPTED, "statefulset=false")
    kube.wait(lambda: not kube.referenced({"rel-config"}), "the StatefulSet's ControllerRevisions and Pod to go")
    _deploy(kube, 4, "upgrade", "config.greeting=six", *_ADOPTED, "statefulset=false")
    assert not kube.exists("configmap", "rel-config"), "an original nothing uses is not carried forward"


@pytest.mark.parametrize("major", HELM)
def test_the_first_upgrade_with_postrender_keeps_a_dropped_original_history_uses(kube: Kube, major: int):
    """Deployed before postrender with the feature on, then its first
    upgrade through postrender with it off: Helm would delete the plain
    `rel-extra` (its release annotation says it is Helm's), which the first
    ReplicaSet mounts. Re-emitted while history uses it, Helm keeps it."""
    values = ["config.greeting=one", *_ADOPTED, "statefulset=false"]
    kube.helm(major, "install", "rel", str(CHART), "--set", "extra=true",
              *(flag for value in values for flag in ("--set", value)))
    kube.settle("rel-web")
    _deploy(kube, major, "upgrade", "config.greeting=two", *_ADOPTED, "statefulset=false")
    assert kube.exists("configmap", "rel-extra"), "rel-extra, which rollout history names, was deleted"
    assert any(u.startswith("ReplicaSet/") for u in kube.referenced({"rel-extra"})["rel-extra"])
    kube.kubectl("rollout", "undo", "deployment/rel-web")
    kube.settle("rel-web")
    assert kube.exists("configmap", "rel-extra")


HOOKED = {
    "Chart.yaml": "apiVersion: v2\nname: hooked\nversion: 0.1.0\n",
    "values.yaml": "greeting: one\n",
    "templates/seed.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-seed\n"
        "  labels: {app.kubernetes.io/instance: '{{ .Release.Name }}'}\n"
        "  annotations: {helm.sh/hook: pre-install}\ndata: {seed: '1'}\n"),
    "templates/app.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cfg\n"
        "  labels: {app.kubernetes.io/instance: '{{ .Release.Name }}'}\ndata: {greeting: {{ .Values.greeting | quote }}}\n"
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}-web\n"
        "  labels: {app.kubernetes.io/instance: '{{ .Release.Name }}'}\nspec:\n  replicas: 0\n"
        "  selector: {matchLabels: {app: hooked}}\n  template:\n    metadata: {labels: {app: hooked}}\n    spec:\n"
        "      containers:\n      - name: c\n        image: x\n        envFrom:\n"
        "        - configMapRef: {name: '{{ .Release.Name }}-cfg'}\n"
        "        - configMapRef: {name: '{{ .Release.Name }}-seed'}\n"),
}


@pytest.mark.parametrize("major", HELM)
def test_a_hooks_config_a_workload_reads_is_never_taken_into_the_release(kube: Kube, major: int, tmp_path):
    """A pre-install hook's ConfigMap (a generated password's, often) that
    the Deployment reads: Helm creates it outside the release and never
    shows it to a post-renderer under Helm 3. An outside reviewer's find:
    --retain re-emitted it, and Helm refused every upgrade ("invalid
    ownership metadata")."""
    chart = tmp_path / "hooked"
    for name, text in HOOKED.items():
        (chart / name).parent.mkdir(parents=True, exist_ok=True)
        (chart / name).write_text(text)
    for verb, greeting in (("install", "one"), ("upgrade", "two"), ("upgrade", "three")):
        kube.helm(major, verb, "rel", str(chart), "--set", f"greeting={greeting}",
                  *kube.post_renderer(major, "--retain=2"))
    assert kube.exists("configmap", "rel-seed")
    manifest = kube.helm(major, "get", "manifest", "rel").stdout
    released = [(d["kind"], d["metadata"]["name"]) for d in YAML(typ="safe").load_all(manifest) if d]
    assert ("ConfigMap", "rel-seed") not in released and ("Deployment", "rel-web") in released, released
