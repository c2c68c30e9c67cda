"""Custom resources on the real apiserver: a CRD-backed object that records
`postrender.io/refs` keeps the versions it names through `postrender gc`.

Also a guard for the control-plane build: kube-apiserver 1.20 built with Go
>= 1.18 and the vendored reflect2 v1.0.1 segfaulted on the first custom
resource write (scripts/control-plane now builds it with reflect2 1.0.2).
"""

from __future__ import annotations

import json

from .kit import Kube, gc_kubeconfig, version_manifest

GROUP = "postrender-tests.example.com"
CRD = f"""
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.{GROUP}
spec:
  group: {GROUP}
  scope: Namespaced
  names: {{plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
"""


def _install_crd(kube: Kube) -> None:
    # Cluster-scoped and shared by the session's tests; left installed (the
    # control plane is thrown away), so `apply` is idempotent here.
    kube.kubectl("apply", "-f", "-", input=CRD)
    kube.kubectl("wait", "--for=condition=Established", f"crd/widgets.{GROUP}", "--timeout=60s")


def _widget(name: str, refs: str | None) -> str:
    annotations = f"\n  annotations:\n    postrender.io/refs: {refs}" if refs is not None else ""
    return (f"apiVersion: {GROUP}/v1\nkind: Widget\nmetadata:\n  name: {name}{annotations}\n"
            "spec:\n  size: 3\n  template: {metadata: {labels: {app: w}}}\n")


def test_custom_resource_writes_do_not_crash_the_apiserver(kube: Kube):
    _install_crd(kube)
    kube.kubectl("apply", "-f", "-", input=_widget("w", "ConfigMap/cfg-aaaaaaaaaa"))
    kube.plane.check_alive()
    got = kube.get("widgets", "w")
    assert got["metadata"]["annotations"]["postrender.io/refs"] == "ConfigMap/cfg-aaaaaaaaaa"
    assert got["spec"]["size"] == 3
    kube.kubectl("patch", "widget", "w", "--type=merge", "-p", '{"spec": {"size": 4}}')
    assert kube.get("widgets", "w")["spec"]["size"] == 4
    assert kube.names("widgets") == {"w"}
    everywhere = json.loads(kube.kubectl("get", "widgets", "-A", "-o", "json").stdout)["items"]
    assert (kube.namespace, "w") in {(i["metadata"]["namespace"], i["metadata"]["name"]) for i in everywhere}
    kube.kubectl("delete", "widget", "w")
    assert kube.names("widgets") == set()
    kube.plane.check_alive()
    assert kube.plane.get("/readyz")[0] == 200


def test_gc_keeps_versions_a_custom_resource_records(kube: Kube):
    ns = kube.namespace
    elsewhere = kube.new_namespace("cr-elsewhere")
    _install_crd(kube)
    scope = ns  # unique in this control plane: gc -A below touches nothing of other tests'
    oldest_first = [f"cfg-{c * 10}" for c in "abcd"]
    for name in oldest_first:
        kube.kubectl("apply", "-f", "-", input=version_manifest(name, scope=scope))
    local, remote, unused, newest = oldest_first
    # Both forms of an entry: same namespace, and namespace-qualified from another one.
    kube.kubectl("apply", "-f", "-", input=_widget("holder", f"ConfigMap/{local},Secret/not-a-version"))
    kube.kubectl("apply", "-f", "-", input=_widget("far", f"ConfigMap/{ns}/{remote}"), namespace=elsewhere)
    kube.plane.check_alive()

    # The shipped RBAC lists every kind, custom resources included.
    kubeconfig = gc_kubeconfig(kube)
    args = ["gc", f"--kubeconfig={kubeconfig}", "-A", "--scope", scope, "--keep", "1", "--min-age", "0"]
    dry = kube.postrender([*args, "-o", "json"])
    assert dry.status == 0, dry.stderr
    plan = {i["name"]: i for i in json.loads(dry.stdout)["items"]}
    assert set(plan) == set(oldest_first)
    assert {n for n, i in plan.items() if i["decision"] == "delete"} == {unused}
    assert "Widget/holder" in plan[local]["reason"], plan[local]
    # The Widget is in another namespace than the version: it says which.
    assert f"Widget/{elsewhere}/far" in plan[remote]["reason"], plan[remote]
    assert kube.versions() == set(oldest_first), "a dry run deletes nothing"

    done = kube.postrender([*args, "--yes"])
    assert done.status == 0, done.stderr
    assert kube.versions() == {local, remote, newest}, done.stdout
    assert kube.exists("widget", "holder") and kube.exists("widget", "far", namespace=elsewhere)

    # The records, and only they, kept those two: drop them and gc deletes both.
    kube.kubectl("apply", "-f", "-", input=_widget("holder", None))
    assert "postrender.io/refs" not in kube.get("widget", "holder")["metadata"].get("annotations", {})
    kube.kubectl("delete", "widget", "far", namespace=elsewhere)
    again = kube.postrender([*args, "--yes"])
    assert again.status == 0, again.stderr
    assert kube.versions() == {newest}, again.stdout
    kube.plane.check_alive()
