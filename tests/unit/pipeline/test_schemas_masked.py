"""A CustomResourceDefinition is composed with its schemas masked
(read.parts._Masked, syntax/blockkeys.py): its render must be the render
of the stream read whole, byte for byte, warning for warning and error for
error, whatever its schemas hold; and it must be masked where its schemas
are in the subset blockkeys reads, or nothing is gained.

The reference is the same render given a stream read without pruning
(test_pruning._same), which composes every document whole."""

from __future__ import annotations

import pytest

from postrender.errors import PostrenderError
from postrender.limits import Limits
from postrender.pipeline.read import compose as read_compose, parts as read_parts
from postrender.pipeline.read import read
from postrender.pipeline.read.documents import Source

from test_dropping import _needs
from test_pruning import VARIANTS, _render


def _same(text: str, argv: str) -> None:
    """The render, pruned (and so masked), against the render of the stream
    read whole; where the stream does not read, the same error either way."""
    try:
        whole = _render(text, argv, pruned=False)
    except PostrenderError as error:
        whole = (f"error: {error}", [], [])
    assert _render(text, argv, pruned=True) == whole

# What controller-gen writes: block scalars, CEL rules with `&&` and `!=`
# starting a line (which the anchor and tag screens cannot tell from an
# anchor or a tag), enums, quoted patterns, flow lists, nested items.
_PROPERTY = """\
                field{i}:
                  description: |-
                    The field {i}. See https://example.com/docs#field: it
                    names: a key-like line, and another
                      - an item-like one
                  type: string
                  enum:
                  - a
                  - b
                  pattern: '^[a-z]+: ?$'
                  x-kubernetes-list-map-keys: [name, port]
                  x-kubernetes-validations:
                  - message: "both or neither: \\"x\\""
                    rule: '(has(self.a) && has(self.b))
                      && self.c != "d"'
"""


def _crd(properties: int = 40, schema: str = "", name: str = "widgets.example.com") -> str:
    fields = "".join(_PROPERTY.format(i=i) for i in range(properties))
    return ("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
            f"  name: {name}\n  annotations:\n    cert-manager.io/inject-ca-from-secret: default/tls\n"
            "spec:\n  group: example.com\n  names:\n    kind: Widget\n    listKind: WidgetList\n"
            "    plural: widgets\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n"
            "    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n"
            "        properties:\n          spec:\n            type: object\n            properties:\n"
            + fields + schema + "  - name: v2\n    served: true\n    storage: false\n    schema:\n"
            "      openAPIV3Schema:\n        type: object\n        x-kubernetes-preserve-unknown-fields: true\n"
            "    subresources:\n      status: {}\n")


_APP = """\
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
data:
  a: b
---
apiVersion: v1
kind: Secret
metadata:
  name: tls
stringData:
  tls.crt: x
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - name: c
        image: x
        envFrom:
        - configMapRef: {name: cfg}
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
spec:
  field1: a
"""


def _masked(monkeypatch) -> list[int]:
    """The size of each document composed with its schemas masked, as read goes."""
    sizes: list[int] = []
    of = read_parts._Masked.of

    def spied(doc, prune):
        found = of(doc, prune)
        if found is not None:
            sizes.append(len(doc.text))
        return found

    monkeypatch.setattr(read_parts._Masked, "of", staticmethod(spied))
    return sizes


@pytest.mark.parametrize("argv", VARIANTS)
def test_a_crd_renders_as_read_whole(argv, monkeypatch):
    masked = _masked(monkeypatch)
    text = _crd() + _APP
    _same(text, argv)
    assert masked and masked[0] > read_compose._MASK_FROM  # (each render reads it: the pruned one masks)


def test_what_read_keeps_and_counts_is_what_composing_it_whole_gives(monkeypatch):
    text = _crd() + _APP
    masked = _masked(monkeypatch)
    stream = read([Source("input.yaml", text)], Limits(), _needs(False))
    whole = read([Source("input.yaml", text)], Limits())
    assert masked
    # What --max-nodes counts: the parse events of the text unmasked.
    assert [d.nodes for d in stream.documents] == [d.nodes for d in whole.documents]
    crd = stream.objects[0]
    assert (crd.kind, crd.name, dict(crd.annotations)) == ("CustomResourceDefinition", "widgets.example.com",
                                                           {"cert-manager.io/inject-ca-from-secret": "default/tls"})


def test_the_node_limit_counts_a_masked_crd_as_a_whole_one(monkeypatch):
    masked = _masked(monkeypatch)
    text = _crd(properties=200) + _APP
    nodes = read([Source("input.yaml", text)], Limits()).documents[0].nodes
    for limit in (nodes - 1, nodes):
        _same(text, f"--max-nodes {limit}")
    assert masked


# What the schemas may hold that composing them whole would refuse, warn of
# or read otherwise: each must come out as it does read whole (most are not
# masked: blockkeys says None, or a screen rules them out first).
_HOSTILE = {
    "a key written twice": "                dup:\n                  type: string\n                  type: integer\n",
    "an infinite number": "                inf:\n                  maximum: .inf\n",
    "a tag": "                tagged:\n                  maximum: !!int x\n",
    "an anchor and alias": "                a1: &x {type: string}\n                a2: *x\n",
    "a merge key": "                m1:\n                  <<: {type: string}\n",
    "bad indentation": "                bad:\n                 type: string\n                   x: y\n",
    "a YAML 1.1 key": "                y: {type: string}\n                'y': {type: string}\n",
    "a quoted key twice": "                \"q\": {}\n                q: {}\n",
    "a slash escape": "                s:\n                  description: \"a\\/b\"\n",
    "a tab": "                t:\n\t                  type: string\n",
    "a flow mapping holding a key twice": "                f: {type: string, type: integer}\n",
    "an explicit key": "                ? e\n                : {type: string}\n",
    "key-like lines in a quoted scalar, less indented":
        "                ql:\n                  description: 'one\n  type: integer\n                  two'\n",
    "comments at the first column": "# a: b\n                c: {}\n# c: d\n",
    "a key that is a flow sequence": "                [a, b]: {}\n",
    "an alias as a value only": "                al: *nothing\n",
    "a document end inside": "...\n",
    "a name of the stream's config as a default": "                cm:\n                  default: cfg\n",
    # A flow list holding a mapping through an explicit key: a null key, a
    # merge key, a key beyond 64 bits (an outside tester's finds).
    "a null key in a flow list": "                nk:\n                  enum: [? ~]\n",
    "a merge key in a flow list": "                mk:\n                  enum: [a, ? <<]\n",
    "a large integer key in a flow list": "                ik:\n                  enum: [? 9223372036854775808]\n",
}


@pytest.mark.parametrize("case", list(_HOSTILE), ids=list(_HOSTILE))
def test_what_the_schemas_hold_renders_as_read_whole(case, monkeypatch):
    text = _crd(schema=_HOSTILE[case]) + _APP
    _same(text, "")
    _same(text, "--strategy annotate")


# What blockkeys reads, so the CRD is masked: the render is the same as ever.
_READ = ["key-like lines in a quoted scalar, less indented", "comments at the first column",
         "a name of the stream's config as a default"]


@pytest.mark.parametrize("case", _READ)
def test_schemas_blockkeys_reads_are_masked(case, monkeypatch):
    masked = _masked(monkeypatch)
    text = _crd(schema=_HOSTILE[case]) + _APP
    _render(text, "", pruned=True)
    assert masked


# An `openAPIV3Schema` key elsewhere than where a CRD holds its schemas is
# read as any key: blockkeys reports its value's lines too, and read
# composes the CRD whole (the annotation's value is checked, a field spec's
# reference in it rewritten).
_ELSEWHERE = {
    "an annotation holding a mapping": ("    openAPIV3Schema:\n      a: b\n", ""),
    "a label holding a number": ("    openAPIV3Schema:\n      123\n", ""),
    "an annotation naming the config, on the line below": ("    openAPIV3Schema:\n      cfg\n", "spec"),
}


@pytest.mark.parametrize("case", list(_ELSEWHERE), ids=list(_ELSEWHERE))
def test_a_key_named_as_a_schema_elsewhere_is_read_as_any(case, tmp_path, monkeypatch):
    value, config = _ELSEWHERE[case]
    field = "labels" if "label" in case else "annotations"
    text = (_crd().replace("  annotations:\n", f"  {field}:\n{value}", 1) if field == "annotations"
            else _crd().replace("  annotations:\n", f"  labels:\n{value}  annotations:\n", 1)) + _APP
    argv = ""
    if config:
        specs = tmp_path / "specs.yaml"
        specs.write_text("nameReference:\n- kind: ConfigMap\n  fieldSpecs:\n"
                         "  - {kind: CustomResourceDefinition, path: metadata/annotations/openAPIV3Schema}\n")
        argv = f"--config {specs}"
    _same(text, argv)
    if config:
        assert "      cfg-" in _render(text, argv, pruned=True)[0]


@pytest.mark.parametrize("field, written, spec", [
    ("kind", "kind: CustomResourceDefinition\n  Foo\n", "kind: CustomResourceDefinition Foo"),
    ("apiVersion", "apiVersion: apiextensions.k8s.io/v1\n  beta\n",
     "kind: CustomResourceDefinition, version: v1 beta"),
])
def test_a_kind_or_apiversion_going_on_below_is_read_as_written(field, written, spec, tmp_path, monkeypatch):
    # blockkeys reads a root field's first line; YAML reads the plain
    # scalar on (an outside tester's find): a field spec written for the
    # kind read must still find its field in the schema.
    line = "kind: CustomResourceDefinition\n" if field == "kind" else "apiVersion: apiextensions.k8s.io/v1\n"
    schema = "                ref:\n                  configMapRef:\n                    name: cfg\n"
    text = _crd(schema=schema).replace(line, written, 1) + _APP
    specs = tmp_path / "specs.yaml"
    specs.write_text("nameReference:\n- kind: ConfigMap\n  fieldSpecs:\n  - {" + spec + ", group: apiextensions.k8s.io,"
                     " path: spec/versions/schema/openAPIV3Schema/properties/spec/properties/ref/configMapRef/name}\n")
    _same(text, f"--config {specs}")
    assert "name: cfg-" in _render(text, f"--config {specs}", pruned=True)[0].split("---")[0]


def test_crlf_and_a_byte_order_mark_render_as_read_whole(monkeypatch):
    masked = _masked(monkeypatch)
    for text in ((_crd() + _APP).replace("\n", "\r\n"), "\ufeff" + _crd() + _APP):
        _same(text, "")
    assert not masked


def test_a_field_spec_reading_a_crds_spec_keeps_it_whole(tmp_path, monkeypatch):
    config = tmp_path / "specs.yaml"
    config.write_text("nameReference:\n- kind: ConfigMap\n  fieldSpecs:\n"
                      "  - {kind: CustomResourceDefinition, path: spec/versions/schema/openAPIV3Schema/default}\n")
    masked = _masked(monkeypatch)
    text = _crd() + _APP
    _same(text, f"--config {config}")
    assert not masked
    _same(text, "")
    assert masked


def test_a_small_crd_or_another_kind_is_composed_as_ever(monkeypatch):
    masked = _masked(monkeypatch)
    _same(_crd(properties=1) + _APP, "")
    assert not masked  # below _MASK_FROM
    other = _crd().replace("kind: CustomResourceDefinition", "kind: Thing", 1)
    _same(other + _APP, "")
    assert not masked
    # Of another group than bulk.yaml's row names: as any object.
    grouped = _crd().replace("apiVersion: apiextensions.k8s.io/v1", "apiVersion: example.com/v1", 1)
    _same(grouped + _APP, "")
    assert not masked
    _same(_crd().replace("apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1", 1) + _APP, "")
    assert masked  # its own group's other version
