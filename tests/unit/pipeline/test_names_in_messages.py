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
