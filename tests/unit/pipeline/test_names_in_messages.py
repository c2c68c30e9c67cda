"""Messages name what the user can find in the template: a data key as
written (and as Kubernetes reads it, where that differs), and an object the
API server names from metadata.generateName by that prefix and its
document, never Python's `None`."""

from __future__ import annotations

import pytest

from conftest import run_postrender


@pytest.mark.parametrize(("written", "read"), [("n", "false"), ("y", "true"), ("on", "true"), ("no", "false"),
                                               ("0x1", "1")])
def test_a_data_key_is_named_as_written_and_as_read(written, read):
    stream = f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: a}}\ndata:\n  {written}: 5\n"
    result = run_postrender([], stream)
    assert result.status == 1 and result.stdout == "", result.stderr
    assert f"data.{written} (a key Kubernetes reads as '{read}') must be a string" in result.stderr
    assert "line 5" in result.stderr


def test_a_key_read_as_written_is_named_once():
    stream = "apiVersion: v1\nkind: Secret\nmetadata: {name: a}\ndata:\n  token: '%%'\n"
    result = run_postrender([], stream)
    assert result.status == 1 and "data.token is not valid base64" in result.stderr, result.stderr


GENERATED = {
    "block": "metadata:\n  generateName: db-migrate-\n",
    "flow": "metadata: {generateName: db-migrate-, namespace: ops}\n",
    "quoted": 'metadata:\n  "generateName": "db-migrate-"\n',
}


@pytest.mark.parametrize("shape", GENERATED)
def test_an_object_named_by_generate_name_is_told_by_its_prefix_and_document(shape):
    job = ("apiVersion: batch/v1\nkind: Job\n" + GENERATED[shape] + "spec:\n  template:\n    spec:\n"
           "      restartPolicy: Never\n      containers: [{name: c, image: x, envFrom: [{secretRef: {name: gone}}]}]\n")
    result = run_postrender([], "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n---\n" + job)
    assert result.status == 0, result.stderr
    assert "db-migrate-* (document 2) spec.template.spec" in result.stderr and "None" not in result.stderr


def test_an_object_with_no_name_at_all_is_told_by_its_document():
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {labels: {a: b}}\nspec:\n"
           "  containers: [{name: c, image: x, envFrom: [{configMapRef: {name: gone}}]}]\n")
    result = run_postrender([], pod)
    assert "Pod/(no name) (document 1)" in result.stderr and "None" not in result.stderr, result.stderr


@pytest.mark.parametrize("shape", ["comment", "annotation value", "template's own", "List item"])
def test_only_the_objects_own_generate_name_is_told(shape):
    container = "      restartPolicy: Never\n      containers: [{name: c, image: x, envFrom: [{secretRef: {name: gone}}]}]\n"
    if shape == "List item":
        job = ('{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"generateName": "listed-"}, "spec": {"template": '
               '{"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "x", '
               '"envFrom": [{"secretRef": {"name": "gone"}}]}]}}}}')
        # Read from the document's text, only an object that is the whole
        # document is told by it: a List's item by its document alone.
        result = run_postrender([], f"apiVersion: v1\nkind: List\nitems:\n- {job}\n")
        assert "Job/(no name) (document 1)" in result.stderr, result.stderr
        return
    metadata = {"comment": "# generateName: wrong-\nmetadata: {labels: {a: b}}\n",
                "annotation value": 'metadata:\n  annotations: {x: "generateName: wrong-"}\n',
                "template's own": "metadata: {labels: {a: b}}\n"}[shape]
    template_metadata = "    metadata: {generateName: wrong-}\n" if shape == "template's own" else ""
    job = "apiVersion: batch/v1\nkind: Job\n" + metadata + "spec:\n  template:\n" + template_metadata + "    spec:\n" + container
    result = run_postrender([], job)
    assert "Job/(no name) (document 1)" in result.stderr and "wrong-" not in result.stderr, result.stderr


def test_a_cluster_scoped_object_is_named_without_a_namespace_and_hashes_say_where_they_cover():
    """A ClusterRole written twice is `ClusterRole/cr`, not `ClusterRole/(default)/cr`
    (the implicit namespace, which it is not in); a StorageClass's and a
    PersistentVolume's hash covers say which namespace's Secret each covers."""
    import json

    twice = ("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: cr}\n---\n"
             "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: cr, namespace: x}\n")
    out = run_postrender([], twice)
    assert out.status == 1 and "duplicate object ClusterRole/cr: also defined in document 1" in out.stderr
    stream = (
        "apiVersion: v1\nkind: Secret\nmetadata: {name: csi, namespace: x}\nstringData: {k: v}\n---\n"
        "apiVersion: v1\nkind: Secret\nmetadata: {name: csi, namespace: yy}\nstringData: {k: v}\n---\n"
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: sc}\nprovisioner: p\nparameters:\n"
        "  csi.storage.k8s.io/provisioner-secret-name: csi\n  csi.storage.k8s.io/provisioner-secret-namespace: yy\n"
        "---\napiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv}\nspec:\n  csi:\n    driver: p\n"
        "    volumeHandle: h\n    nodePublishSecretRef: {name: csi, namespace: x}\n")
    graph = run_postrender(["graph", "-o", "json"], stream)
    assert graph.status == 0, graph.stderr
    covers = {h["referrer"]["name"]: h["covers"] for h in json.loads(graph.stdout)["configHashes"]}
    assert covers == {"sc": ["Secret/yy/csi"], "pv": ["Secret/x/csi"]}
