"""The object index: an object by its key, and every object of a name, as
Kubernetes' namespace rules place them."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_postrender
from postrender.errors import PostrenderError
from postrender.limits import Limits
from postrender.pipeline.index.objects import IMPLICIT, ObjectIndex, ObjectKey
from postrender.pipeline.read import read
from postrender.pipeline.read.documents import Source


def _stream(objects: list[tuple[str, str, str | None, str]]):
    docs = []
    for api_version, kind, namespace, name in objects:
        ns = f"\n  namespace: {namespace}" if namespace is not None else ""
        docs.append(f"apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: {name}{ns}\n")
    return read([Source(None, "---\n".join(docs))], Limits()).objects


def test_a_name_in_several_namespaces_is_found_by_key_and_listed_in_stream_order():
    objects = _stream([("v1", "ConfigMap", "nx", "a"), ("v1", "Secret", "nx", "a"), ("v1", "ConfigMap", None, "a"),
                       ("v1", "ConfigMap", "ny", "a"), ("apps/v1", "Deployment", "nx", "a"), ("v1", "Namespace", None, "a")])
    index = ObjectIndex(objects, None, frozenset({"Namespace"}))
    cm_x, secret, cm_implicit, cm_y, deploy, namespace = objects
    assert list(index.named("", "ConfigMap", "a")) == [cm_x, cm_implicit, cm_y]
    assert list(index.named("", "Secret", "a")) == [secret]
    assert list(index.named("apps", "Deployment", "a")) == [deploy]
    assert list(index.named("", "Deployment", "a")) == [] and list(index.named("", "ConfigMap", "b")) == []
    assert index.get(ObjectKey("", "ConfigMap", "ny", "a")) is cm_y
    assert index.get(ObjectKey("", "ConfigMap", IMPLICIT, "a")) is cm_implicit
    assert index.get(ObjectKey("", "ConfigMap", "nz", "a")) is None
    assert index.get(ObjectKey("", "Secret", "nx", "a")) is secret
    assert index.get(ObjectKey("", "Secret", "ny", "a")) is None
    assert index.get(ObjectKey("", "Namespace", IMPLICIT, "a")) is namespace
    assert index.get(index.key(deploy)) is deploy


def test_an_object_defined_twice_is_refused_naming_the_first():
    # Without metadata.namespace, an object lands in --namespace: the same as one that says so.
    objects = _stream([("v1", "ConfigMap", "ny", "a"), ("v1", "ConfigMap", "nx", "a"), ("v1", "ConfigMap", None, "a")])
    with pytest.raises(PostrenderError, match=r"duplicate object ConfigMap/nx/a: also defined in document 2(, line \d+)?$"):
        ObjectIndex(objects, "nx", frozenset())
    ObjectIndex(objects, "nz", frozenset())  # three namespaces: no duplicate


_OBJECTS = st.lists(st.tuples(st.sampled_from(["v1", "apps/v1"]), st.sampled_from(["ConfigMap", "Namespace"]),
                              st.sampled_from([None, "nx", "ny"]), st.sampled_from(["a", "b"])), max_size=12)


@settings(max_examples=60, deadline=None)
@given(_OBJECTS, st.sampled_from([None, "nx"]))
def test_the_index_answers_as_a_search_of_every_object(specs, default):
    objects = _stream(specs)
    cluster_scoped = frozenset({"Namespace"})

    def namespace_of(obj):
        return IMPLICIT if obj.kind in cluster_scoped else obj.namespace or default or IMPLICIT

    keys = [(o.group, o.kind, namespace_of(o), o.name) for o in objects]
    if len(set(keys)) < len(keys):
        with pytest.raises(PostrenderError, match="duplicate object"):
            ObjectIndex(objects, default, cluster_scoped)
        return
    index = ObjectIndex(objects, default, cluster_scoped)
    for group in ("", "apps"):
        for kind in ("ConfigMap", "Namespace"):
            for name in ("a", "b"):
                assert list(index.named(group, kind, name)) == [
                    o for o in objects if (o.group, o.kind, o.name) == (group, kind, name)]
                for namespace in (IMPLICIT, "nx", "ny"):
                    found = [o for o, key in zip(objects, keys) if key == (group, kind, namespace, name)]
                    assert index.get(ObjectKey(group, kind, namespace, name)) is (found[0] if found else None)


def test_objects_without_annotations_or_labels_share_one_read_only_mapping():
    bare = _stream([("v1", "ConfigMap", None, "a")])[0]
    labelled = read([Source(None, "kind: ConfigMap\nmetadata:\n  name: c\n  labels: {k: v}\n")], Limits()).objects[0]
    assert bare.annotations is bare.labels is labelled.annotations and bare.labels == {}
    assert dict(labelled.labels) == {"k": "v"}
    with pytest.raises(TypeError):
        bare.labels["k"] = "v"  # type: ignore[index]


@pytest.mark.parametrize("header, named", [("", "a.yaml"),
                                           ("# Source: chart/templates/cm.yaml\n", "chart/templates/cm.yaml, rendered line 1")])
def test_a_duplicate_in_another_file_names_that_file(header: str, named: str):
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
    stream = read([Source("a.yaml", header + text), Source("b.yaml", text)], Limits())
    with pytest.raises(PostrenderError, match=rf"also defined in document 1 \({re.escape(named)}\), line {1 + header.count(chr(10))}$"):
        ObjectIndex(stream.objects, None, frozenset())


def test_a_duplicate_item_of_the_same_list_names_the_item():
    # A KRM ResourceList is one document: its items are told apart by index.
    item = "- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n"
    stream = read([Source(None, "apiVersion: v1\nkind: List\nitems:\n" + item * 2)], Limits())
    with pytest.raises(PostrenderError, match=r"also defined in document 1 item 0, line 4$"):
        ObjectIndex(stream.objects, None, frozenset())


def test_a_duplicates_other_place_in_a_helm_3_chart_file_gives_its_rendered_line_too():
    # Its line is the stream's; beside its file's name it read as that file's
    # line (errors60): the rendered line is said, as for the place itself.
    stream = ("---\n# Source: c/templates/other.yaml\n# c\n# c2\napiVersion: v1\nkind: ConfigMap\nmetadata:\n"
              "  name: a\ndata:\n  x: \"2\"\n---\n# Source: c/templates/t.yaml\napiVersion: v1\nkind: ConfigMap\n"
              "metadata:\n  name: zz\ndata:\n  x: \"1\"\n---\n# Source: c/templates/t.yaml\napiVersion: v1\n"
              "kind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: \"1\"\n")
    out = run_postrender([], stream)
    assert out.status == 1 and out.stdout == ""
    assert out.stderr.rstrip().endswith("also defined in document 1 (c/templates/other.yaml, rendered line 3), line 5")
    assert "(c/templates/t.yaml, rendered line 8, ConfigMap/a) line 21" in out.stderr
