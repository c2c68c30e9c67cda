"""DocumentEdits keeps what the edits mean and makes the text edits when the
stream is written; values given to be made later (`set_later`) merge with
values set in the same mapping exactly as values set at once would.

That the text edits read as what they mean is
tests/integration/kubernetes/test_output_validity.py's to check, through
kubectl, with `entries`, `replaced`, `inserted` and `copies`."""

from __future__ import annotations

import pytest

from postrender.errors import PostrenderError
from postrender.limits import Limits
from postrender.options import RenderOptions
from postrender.pipeline.read import read
from postrender.pipeline.read.documents import Document, Source
from postrender.pipeline.render import analyse
from postrender.pipeline.rewrite import DocumentEdits, Options, rewrite
from postrender.syntax.edit import Splice
from postrender.syntax.nodes import get

ROLE = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: r}\nrules:\n- resourceNames: [x]\n"


def _document(text: str) -> Document:
    return read([Source(None, text)], Limits()).documents[0]


def _written(edits: DocumentEdits) -> str:
    return Splice(edits.edits()).apply(edits.document.text)


@pytest.mark.parametrize("later_first", [True, False])
def test_values_made_later_merge_in_the_order_given(later_first):
    doc = _document(ROLE)
    metadata = get(doc.root, "metadata")

    def marks(value: str) -> dict:
        return {"labels": {"a": value, "b": value}}

    edits, at_once = DocumentEdits(doc), DocumentEdits(doc)
    if later_first:
        edits.set_later(metadata, marks, "1")
        at_once.set(metadata, marks("1"))
    for e in (edits, at_once):
        e.set(metadata, {"labels": {"a": "2"}})
    if not later_first:
        edits.set_later(metadata, marks, "1")
        at_once.set(metadata, marks("1"))
    expected = {"labels": {"a": "2" if later_first else "1", "b": "1"}}
    assert edits.values_at(metadata) == at_once.values_at(metadata) == expected
    assert edits.entries() == at_once.entries() == [(metadata, expected)]
    assert _written(edits) == _written(at_once)


def test_values_made_later_are_made_when_read():
    doc = _document(ROLE)
    metadata = get(doc.root, "metadata")
    made = []
    edits = DocumentEdits(doc)
    edits.set_later(metadata, lambda: made.append(1) or {"labels": {"a": "b"}})
    assert made == []
    assert "labels: {a: b}" in _written(edits).replace('"', "")
    assert made == [1]


@pytest.mark.parametrize("order", ["replace first", "insert first"])
def test_a_replaced_item_and_an_item_inserted_ahead_of_it_are_written_in_either_order(order):
    # A flow sequence: the new item goes where the replaced one starts.
    doc = _document(ROLE)
    sequence = get(get(doc.root, "rules").value[0], "resourceNames")
    item = sequence.value[0]
    edits = DocumentEdits(doc)
    steps = [lambda: edits.replace(item, "new"), lambda: edits.insert_item(sequence, item, "added", "")]
    for step in steps if order == "replace first" else reversed(steps):
        step()
    assert _written(edits).endswith("resourceNames: [added, new]\n")
    assert list(edits.replaced) == [(item, "new")]
    assert list(edits.inserted) == [(sequence, item, "added", "")]



DEPLOYMENT = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n"
              "      containers:\n      - name: c\n        envFrom:\n        - configMapRef: {name: a}\n"
              "        - secretRef: {name: b}\n      volumes:\n      - name: v\n        secret: {secretName: b}\n")


def _names(doc: Document) -> list:
    spec = get(get(doc.root, "spec"), "template")
    pod = get(spec, "spec")
    container = get(pod, "containers").value[0]
    refs = [get(item.value[0][1], "name") for item in get(container, "envFrom").value]
    return [*refs, get(get(get(pod, "volumes").value[0], "secret"), "secretName")]


@pytest.mark.parametrize("taken", [False, True])
def test_scalars_replaced_are_given_back_in_order_held_or_taken(taken):
    doc = _document(DEPLOYMENT)
    a, b, secret_name = _names(doc)
    edits = DocumentEdits(doc)
    for node, value in ((a, "a-1"), (b, "b-1"), (secret_name, "b-1")):
        edits.replace(node, value)
    assert list(edits.replaced) == [(a, "a-1"), (b, "b-1"), (secret_name, "b-1")]
    made = edits.edits(release_records=taken)
    assert Splice(made).apply(doc.text) == DEPLOYMENT.replace("{name: a}", "{name: a-1}").replace(
        "{name: b}", "{name: b-1}").replace("{secretName: b}", "{secretName: b-1}")
    assert list(edits.replaced) == ([] if taken else [(a, "a-1"), (b, "b-1"), (secret_name, "b-1")])


def test_scalars_replaced_are_held_without_a_record_each():
    # Every edited document's records are held from rewrite to write: a
    # tuple a scalar replaced (64 bytes) set 25,000 small apps' peak, at
    # rewrite's end (their Deployments' 75,000 references: 4.8 MiB).
    import tracemalloc

    doc = _document(DEPLOYMENT)
    nodes = _names(doc)
    values = ["a-1", "b-1", "b-1"]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        held = [DocumentEdits(doc) for _ in range(2000)]
        for edits in held:
            for node, value in zip(nodes, values):
                edits.replace(node, value)
        per_document = (tracemalloc.get_traced_memory()[0] - before) / len(held)
    finally:
        tracemalloc.stop()
    # The record and one flat list of the three pairs: 249 bytes; with a
    # tuple a pair, 383.
    assert per_document < 320, per_document


SECRET_WITH_SHARED_ANNOTATIONS = (
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  annotations: &a {k: v}\nstringData: *a\n---\n"
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers:\n"
    "      - name: c\n        envFrom:\n        - secretRef: {name: s}\n"
)


def test_an_alias_only_the_copy_would_change_is_refused_when_the_copy_is_added():
    # The versioned Secret gets no annotations (its marks are labels), but
    # its unsuffixed copy does: the refusal comes from the rewrite, as it
    # did when the copy's marks were set at once, not later from the writer.
    analysis = analyse([Source(None, SECRET_WITH_SHARED_ANNOTATIONS)], RenderOptions(keep_original="all"))
    with pytest.raises(PostrenderError, match="YAML alias") as refused:
        rewrite(analysis.graph, analysis.plan, Options(), held=analysis.policy.held)
    assert "line 5" in str(refused.value)
    # Without the copy, nothing the render writes is shared.
    analysis = analyse([Source(None, SECRET_WITH_SHARED_ANNOTATIONS)], RenderOptions(keep_original="none"))
    result = rewrite(analysis.graph, analysis.plan, Options(), held=analysis.policy.held)
    assert [v.obj.name for v in result.renamed] == ["s"]
