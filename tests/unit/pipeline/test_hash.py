import pytest

from postrender.pipeline.index.hashing import content_hash
from postrender.syntax.nodes import Composer

# kustomize api/hasher/hasher_test.go, and real kustomize builds.
VECTORS = [
    ("kind: ConfigMap", "6ct58987ht"),
    ("kind: ConfigMap\ndata: {one: ''}", "9g67k2htb6"),
    ("kind: ConfigMap\nbinaryData: {one: ''}", "6mtk2m274t"),
    ("kind: ConfigMap\ndata: {one: ''}\nbinaryData: {two: ''}", "698h7c7t9m"),
    ("kind: ConfigMap\ndata: {fruit: apple}", "c9867f8446"),
    ("kind: ConfigMap\ndata: {foo: bar}", "798k5k7g9f"),
    ("kind: Secret\ntype: my-type", "5gmgkf8578"),
    ("kind: Secret\ntype: my-type\ndata: {one: ''}", "74bd68bm66"),
    # The stored form (DECISIONS 5): stringData merged into data as base64, no type = Opaque.
    # Each expected name is kustomize's for the stored form, written out with data and type.
    ("kind: Secret\ntype: my-type\ndata: {one: ''}\nstringData: {two: '2'}", "8ktbbb5h9g"),
    ("kind: Secret\ntype: my-type\ndata: {one: '', two: Mg==}", "8ktbbb5h9g"),
    ("kind: Secret\nstringData: {password: s3cr3t}", "25k92892fb"),
    ("kind: Secret\ntype: Opaque\ndata: {password: czNjcjN0}", "25k92892fb"),
    ("kind: Secret\ntype: Opaque\ndata: {password: czNjcjN0}\nstringData: {}", "25k92892fb"),
    ("kind: Secret", "8226t8dd99"),
    ("kind: Secret\ntype:", "8226t8dd99"),
    ("kind: Secret\ntype: ''", "8226t8dd99"),
    ("kind: Secret\ntype: Opaque", "8226t8dd99"),
]


@pytest.mark.parametrize("text,expected", VECTORS)
def test_kustomize_hash_vectors(text, expected):
    node = Composer(text).get_single_node()
    kind = "Secret" if "Secret" in text else "ConfigMap"
    assert content_hash(kind, node) == expected


def test_name_does_not_change_the_hash():
    a = Composer("kind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}").get_single_node()
    b = Composer("kind: ConfigMap\nmetadata: {name: b}\ndata: {k: v}").get_single_node()
    assert content_hash("ConfigMap", a) == content_hash("ConfigMap", b)


def test_go_escapes_change_the_hash_like_go():
    # Go writes "<" as \u003c; a plain json.dumps would hash different bytes.
    from postrender.pipeline.index.hashing import canonical_json

    node = Composer("kind: ConfigMap\ndata: {k: '<a&b>'}").get_single_node()
    assert canonical_json("ConfigMap", node) == '{"data":{"k":"\\u003ca\\u0026b\\u003e"},"kind":"ConfigMap","name":""}'
