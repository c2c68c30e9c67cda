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


# --- what is hashed, written in parts (hashing._PARTED_FROM) ----------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from postrender.pipeline.index import hashing  # noqa: E402

# What JSON escapes, Go's own escapes, and text past the Basic Multilingual Plane.
_TEXTS = st.text(st.sampled_from('ab"\\\t\n\x00\x7f<>&\u2028\u2029é\U0001F600 '), max_size=12)


@settings(max_examples=300, deadline=None)
@given(value=st.one_of(_TEXTS, st.dictionaries(_TEXTS, st.one_of(_TEXTS, st.dictionaries(_TEXTS, _TEXTS, max_size=3)),
                                               max_size=4)),
       parted_from=st.integers(1, 6))
def test_what_is_hashed_written_in_parts_is_its_json_whole(value, parted_from):
    with pytest.MonkeyPatch.context() as patch:  # (a function's fixture is not reset between examples)
        patch.setattr(hashing, "_PARTED_FROM", parted_from)
        assert "".join(hashing._parted_pieces(value)) == hashing._go_json_of_strings(value)


@pytest.mark.parametrize("text", [
    "kind: ConfigMap\ndata:\n  big: '" + "x<é" * 50 + "'\n  small: v\nbinaryData: {b: AAAA}",
    "kind: Secret\ntype: kubernetes.io/tls\ndata: {a: " + "QUFB" * 60 + "}\nstringData:\n  s: \"" + "\\t<" * 40 + "\"",
    "kind: Secret\ndata: {a: " + "QUFB" * 60 + "}",  # kustomize_secret_hash's own form (no type)
])
def test_a_config_past_the_length_hashes_as_written_whole(text, monkeypatch):
    node = Composer(text).get_single_node()
    kind = "Secret" if "Secret" in text else "ConfigMap"

    def hashes():
        secret = hashing.kustomize_secret_hash(hashing.Fields(node)) if kind == "Secret" else None
        return hashing.canonical_json(kind, node), content_hash(kind, node), secret

    whole = hashes()
    assert len(list(hashing._canonical_pieces(kind, node, None))) == 1
    monkeypatch.setattr(hashing, "_PARTED_FROM", 16)
    pieces = list(hashing._canonical_pieces(kind, node, None))
    # Parted: many pieces, none longer than 16 characters written with JSON's
    # longest escape (6 characters each), or a mapping's key.
    assert len(pieces) > 10 and max(map(len, pieces)) <= 16 * 6
    assert hashes() == whole
