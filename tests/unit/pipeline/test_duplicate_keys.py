"""A key written twice in a mapping, which go-yaml v2 holds equal: kubectl,
Helm and Argo CD read the last and never its earlier value. postrender
reads the same, leaves the earlier entry out of its output (so that strict
readers downstream read what kubectl did), and says so; keys that collide
only as JSON (`1` and `'1'`, where sigs.k8s.io/yaml picks one at random)
stay refused. kubectl itself is the oracle in
tests/integration/kubernetes/test_kubernetes_reading.py; here, each shape
such an entry is written in, what it does to names, edits and lines, and a
property over generated mappings."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from conftest import run_postrender
from manifests import documents
from postrender.limits import Limits
from postrender.pipeline import packed
from postrender.pipeline.read import compose as read_compose
from postrender.pipeline.read import read
from postrender.pipeline.read.documents import Source

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n"
DEPLOY = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n"
          "      containers:\n      - name: app\n        image: x\n        envFrom:\n        - configMapRef: {name: cfg}\n")


def _strict(text: str) -> list:
    """The documents as a reader that refuses a key written twice reads them."""
    return [doc for doc in YAML(typ="safe").load_all(text) if doc is not None]


# name -> (input, output): nothing refers to these objects, so the output
# is the input less the entries left out.
SHAPES = {
    "block, top level": (
        CM + "data:\n  a: x\nmetadata:\n  name: last\n",
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: x\nmetadata:\n  name: last\n",
    ),
    "block, nested, comments between": (
        CM + "data:\n  level: info   # the chart's\n  # set by values\n  level: debug\n  other: w\n",
        CM + "data:\n  level: debug\n  other: w\n",
    ),
    "three times": (
        CM + "data:\n  a: '1'\n  a: '2'\n  b: x\n  a: '3'\n",
        CM + "data:\n  b: x\n  a: '3'\n",
    ),
    "earlier value a block scalar": (
        CM + "data:\n  a: |\n    one\n    b: not a key\n\n  a: two\n",
        CM + "data:\n  a: two\n",
    ),
    "after a kept block scalar": (
        # Masked as blank lines, the entry would join `keep`'s trailing lines.
        CM + "data:\n  keep: |+\n    text\n\n  a: x\n  a: w\n",
        CM + "data:\n  keep: |+\n    text\n\n  a: w\n",
    ),
    "first key of a sequence item": (
        CM.replace("ConfigMap", "Example").replace("v1", "example.com/v1") + "spec:\n  rules:\n  - name: a\n    x: 1\n    name: b\n",
        CM.replace("ConfigMap", "Example").replace("v1", "example.com/v1") + "spec:\n  rules:\n  - x: 1\n    name: b\n",
    ),
    "first key of a nested sequence item": (
        CM.replace("ConfigMap", "Example").replace("v1", "example.com/v1") + "spec:\n  rules:\n  - - a: |\n        long\n      b: 2\n      a: 3\n    - a: 4\n",
        CM.replace("ConfigMap", "Example").replace("v1", "example.com/v1") + "spec:\n  rules:\n  - - b: 2\n      a: 3\n    - a: 4\n",
    ),
    "not a duplicate: two items": (
        CM.replace("ConfigMap", "Example").replace("v1", "example.com/v1") + "spec:\n  rules:\n  - a: 1\n  - a: 2\n",
        None,
    ),
    "flow mapping": (
        CM + "data: {a: x, b: w, a: z}\n",
        CM + "data: {b: w, a: z}\n",
    ),
    "flow mapping over lines": (
        CM + "data: {\n  a: x,\n  a: z\n}\n",
        CM + "data: {\n  a: z\n}\n",
    ),
    "JSON": (
        '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "name": "cfg"}, "data": {"k": "v"}}\n',
        '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": {"k": "v"}}\n',
    ),
    "YAML 1.1 words": (
        CM + "metadata:\n  name: cfg\n  labels:\n    y: a\n    on: b\n    yes: c\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  labels:\n    yes: c\n",
    ),
    "numbers": (
        CM.replace("ConfigMap", "Example").replace("v1", "example.com/v1") + "spec:\n  ports:\n    1: a\n    0x1: b\n    01: c\n",
        CM.replace("ConfigMap", "Example").replace("v1", "example.com/v1") + "spec:\n  ports:\n    01: c\n",
    ),
    "quoted and plain": (
        CM + "data:\n  'a': x\n  \"a\": w\n  a: z\n",
        CM + "data:\n  a: z\n",
    ),
    "inside a value left out": (
        CM + "data:\n  a: x\n  a: w\nmetadata:\n  name: cfg\n  labels: {b: '1', b: '2'}\n",
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: w\nmetadata:\n  name: cfg\n  labels: {b: '2'}\n",
    ),
    "CRLF": (
        (CM + "data:\n  a: x\n  a: w\n").replace("\n", "\r\n"),
        (CM + "data:\n  a: w\n").replace("\n", "\r\n"),
    ),
    # The later entry's explicit key: its `?` starts the entry, on the key's
    # line or above it, across comments.
    "later key explicit": (
        CM + "data:\n  a: x\n  ? a\n  : z\n  b: w\n",
        CM + "data:\n  ? a\n  : z\n  b: w\n",
    ),
    "later key explicit, its ? on a line of its own": (
        CM + "data:\n  a: x\n  ?\n    a\n  : z\n",
        CM + "data:\n  ?\n    a\n  : z\n",
    ),
    "later key explicit, comments between": (
        CM + "data:\n  a: x # -\n  # the key-\n  ? # why-\n    # more ?\n    a\n  : z\n",
        CM + "data:\n  ? # why-\n    # more ?\n    a\n  : z\n",
    ),
    # A `?` line ending the earlier value is the value's, not an explicit key.
    "earlier value a block scalar ending in a ? line": (
        CM + "data:\n  a: |\n    echo\n    ?\n  b: w\n  a: z\n",
        CM + "data:\n  b: w\n  a: z\n",
    ),
    "earlier value a plain scalar over lines ending in ?": (
        CM + "data:\n  a: x\n    ?\n  b: w\n  a: z\n",
        CM + "data:\n  b: w\n  a: z\n",
    ),
    "a List's item": (
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  kind: ConfigMap\n"
        "  metadata: {name: a}\n- " + CM.replace("\n", "\n  ").rstrip() + "\n  data:\n    k: v\n    k: w\n",
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n"
        "  metadata: {name: a}\n- " + CM.replace("\n", "\n  ").rstrip() + "\n  data:\n    k: w\n",
    ),
}


@pytest.mark.parametrize("large", [False, True], ids=["small", "read as a large stream"])
@pytest.mark.parametrize("name", SHAPES, ids=list(SHAPES))
def test_the_earlier_entry_is_left_out(name, large, monkeypatch):
    if large:
        _large(monkeypatch)
    text, expected = SHAPES[name]
    result = run_postrender([], text)
    assert result.status == 0, result.stderr
    if expected is None:
        assert result.stdout == text and result.stderr == ""
        return
    assert result.stdout == expected
    assert "leaves the earlier out" in result.stderr
    # Strict readers (go-yaml v3, kyaml, ruamel here) read the output.
    assert _strict(result.stdout)
    # And read again, it is what it was: nothing left to drop.
    again = run_postrender([], result.stdout)
    assert again.stdout == result.stdout and again.stderr == ""


def test_the_warning_names_both_lines_and_the_object():
    text = "# Source: chart/templates/cm.yaml\n" + CM + "data:\n  a: x\n  b: w\n  a: z\n"
    result = run_postrender([], text)
    assert result.stderr == (
        "postrender: warning: document 1 (chart/templates/cm.yaml, rendered line 8, ConfigMap/cfg) line 9: duplicate key 'a' in a"
        " mapping (written first on line 7): kubectl and Helm read the last, so postrender leaves the earlier out\n"
    )


def test_the_object_is_the_one_its_last_metadata_names():
    text = CM + "data:\n  k: v\nmetadata:\n  name: other\n---\n" + DEPLOY.replace("{name: cfg}", "{name: other}")
    docs = documents(run_postrender([], text).stdout)
    cfg = next(d for d in docs if d["kind"] == "ConfigMap")
    assert cfg["metadata"]["name"].startswith("other-")
    assert documents(run_postrender([], text).stdout)[1]["spec"]["template"]["spec"]["containers"][0]["envFrom"] == [
        {"configMapRef": {"name": cfg["metadata"]["name"]}}]


@pytest.mark.parametrize("large", [False, True], ids=["small", "read as a large stream"])
def test_a_config_is_named_by_the_data_kubectl_reads(large, monkeypatch):
    if large:
        _large(monkeypatch)
    with_duplicate = run_postrender([], CM + "data:\n  a: old\n  b: x\n  a: new\n---\n" + DEPLOY)
    without = run_postrender([], CM + "data:\n  b: x\n  a: new\n---\n" + DEPLOY)
    assert with_duplicate.status == 0 and without.status == 0
    assert with_duplicate.stdout == without.stdout


def test_a_reference_left_out_is_not_rewritten_or_guarded():
    text = CM + "data:\n  k: v\n---\n" + DEPLOY.replace("{name: cfg}", "{name: missing, name: cfg}")
    result = run_postrender([], text)
    assert result.status == 0, result.stderr
    assert "missing" not in result.stdout and "is not in the stream" not in result.stderr
    docs = documents(result.stdout)
    name = docs[0]["metadata"]["name"]
    assert docs[1]["spec"]["template"]["spec"]["containers"][0]["envFrom"] == [{"configMapRef": {"name": name}}]


def _large(monkeypatch) -> None:
    """Read as a large stream is: what no stage reads dropped as it is
    composed (an edit then composes its document again), the text compressed."""
    monkeypatch.setattr(read_compose, "DROP_FROM", 0)
    monkeypatch.setattr(packed, "COMPRESS_FROM", 0)


@pytest.mark.parametrize("large", [False, True], ids=["small", "read as a large stream"])
@pytest.mark.parametrize("where", ["before the labels", "after the labels", "the labels twice"])
def test_edits_beside_an_entry_left_out(where, large, monkeypatch):
    if large:
        _large(monkeypatch)
    # The config gets labels and a new name: edits at the places around the
    # entry masked in the text read.
    metadata = {
        "before the labels": "metadata:\n  name: x\n  name: cfg\n  labels:\n    app: a\n",
        "after the labels": "metadata:\n  labels:\n    app: a\n  name: x\n  name: cfg\n",
        "the labels twice": "metadata:\n  labels:\n    app: a\n  labels:\n    app: b\n  name: cfg\n",
    }[where]
    text = "apiVersion: v1\nkind: ConfigMap\n" + metadata + "data:\n  k: v\n---\n" + DEPLOY
    result = run_postrender(["--keep-original"], text)
    assert result.status == 0, result.stderr
    docs = _strict(result.stdout)
    versioned, copy = (d for d in docs if d["kind"] == "ConfigMap")
    assert versioned["metadata"]["name"].startswith("cfg-") and copy["metadata"]["name"] == "cfg"
    app = "b" if where == "the labels twice" else "a"
    assert versioned["metadata"]["labels"]["app"] == app and copy["metadata"]["labels"]["app"] == app
    assert "name: x" not in result.stdout


def test_lines_after_an_entry_left_out_are_named_as_written():
    # The entry is masked in place: what follows keeps its line.
    text = CM + "data:\n  a: |\n    1\n    2\n  a: x\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n" \
        "data:\n  k: not*base64\n"
    result = run_postrender([], text)
    assert result.status == 1 and result.stdout == ""
    assert "document 2 (Secret/s) line 16: data.k is not valid base64" in result.stderr, result.stderr


REFUSED = {
    "an anchor in the earlier value": (CM + "data:\n  a: &v x\n  b: *v\n  a: w\n", "defines an anchor (&) that an alias uses"),
    "an explicit key": (CM + "data:\n  ? a\n  : x\n  a: w\n", "explicit (`?`) key"),
    "a number and its text": (CM + "data:\n  1: x\n  '1': w\n", "which value wins is random"),
    "a word and its text": (CM + "metadata:\n  labels:\n    on: x\n    'true': w\n", "which value wins is random"),
    "null keys": (CM + "data:\n  ~: x\n  null: w\n", "null key"),
}


@pytest.mark.parametrize("name", REFUSED, ids=list(REFUSED))
def test_what_cannot_be_left_out_alone_is_refused(name):
    text, message = REFUSED[name]
    result = run_postrender([], text)
    assert result.status == 1 and result.stdout == ""
    assert message in result.stderr, result.stderr


@pytest.mark.parametrize("written", [
    "metadata:\n  name: a\n  name: b\n",
    "metadata: {name: a, name: b}\n",
    "metadata: {name: a}\nmetadata: {name: b}\n",
    "kind: ConfigMap\nmetadata: {name: b}\n",
])
def test_an_error_found_before_the_earlier_key_is_left_out_names_what_kubectl_reads(written):
    # Refused as read first, with both keys still there: the object is named
    # by the last of each, as kubectl reads it (Secret/b), not the first.
    text = "apiVersion: v1\nkind: Secret\n" + written + "stringData:\n  1: x\n  '1': y\n"
    if written.startswith("kind:"):
        text = text.replace("kind: Secret\nkind: ConfigMap", "kind: ConfigMap\nkind: Secret")
    result = run_postrender([], text)
    assert result.status == 1 and result.stdout == ""
    assert "(Secret/b)" in result.stderr and "which value wins is random" in result.stderr, result.stderr


def test_what_is_refused_in_a_value_left_out_is_still_refused():
    # go-yaml decodes the earlier value before the later replaces it: what
    # it cannot read, kubectl refuses.
    result = run_postrender([], CM + "data:\n  a: !!int many\n  a: x\n")
    assert result.status == 1 and "!!int" in result.stderr, result.stderr


@pytest.mark.parametrize("compressed", [False, True])
def test_the_source_holds_the_text_read(compressed, monkeypatch):
    # A large stream's texts are cut from compressed blocks: the one read
    # masked is the one every later stage and the writer get.
    monkeypatch.setattr(packed, "COMPRESS_FROM", 0 if compressed else 1 << 40)
    text = CM + "data:\n  a: x\n  a: w\n---\n" + DEPLOY
    source = Source(None, text)
    stream = read([source], Limits())
    [cfg_doc, _] = stream.documents
    assert cfg_doc.text == source.document_text(0) != text.split("---\n")[0]
    assert len(source.text) == len(text) and source.text.count("#") == 1
    assert [(cut.start, cut.end) for cut in cfg_doc.left_out] == [(len(CM) + 6, len(CM) + 13)]
    assert stream.warnings and "line 7" in stream.warnings[0].message


# --- generated mappings ------------------------------------------------------

_KEYS = {"a": "a", "b": "b", "c": "c", "'a'": "a", '"b"': "b"}
# Each value as written (a block one in block mappings only), and as read.
_VALUES = {"x": "x", "'w'": "w", "|\n    z": "z\n", "[1, 2]": [1, 2], "{p: q, p: r}": {"p": "r"}}


def _last_wins(pairs: list[tuple[str, str]]) -> dict:
    return {_KEYS[key]: _VALUES[value] for key, value in pairs}


@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(st.sampled_from(list(_KEYS)), st.sampled_from(list(_VALUES))), min_size=1, max_size=7),
       flow=st.booleans())
def test_generated_mappings_keep_the_last_of_each_key(pairs, flow):
    block_values = [v for _, v in pairs if v.startswith("|")]
    if flow and block_values:
        pairs = [(k, v) for k, v in pairs if not v.startswith("|")] or [("a", "x")]
    if flow:
        body = "spec: {" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}\n"
    else:
        body = "spec:\n" + "".join(f"  {k}: {v}\n" for k, v in pairs)
    text = CM.replace("ConfigMap", "Example").replace("v1", "example.com/v1") + body
    result = run_postrender([], text)
    assert result.status == 0, (text, result.stderr)
    [doc] = _strict(result.stdout)
    assert doc["spec"] == _last_wins(pairs), (text, result.stdout)


@pytest.mark.parametrize("setting", ["mutable: true", "keepOriginal: false"])
def test_a_resource_list_read_again_for_its_function_config_still_leaves_the_entry_out(setting):
    # Options that read a stream otherwise make the ResourceList read again,
    # from the text read masked: the entry is left out all the same, and said.
    text = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n"
            f"  apiVersion: postrender.io/v1alpha1\n  kind: PostRender\n  metadata: {{name: c}}\n  {setting}\n"
            "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    name: cfg\n  data: {k: v}\n")
    result = run_postrender([], text)
    assert result.status == 0, result.stderr
    [answer] = _strict(result.stdout)
    assert [item["metadata"]["name"] for item in answer["items"]] == ["cfg"]
    assert "#" not in result.stdout.split("results:")[0], result.stdout
    assert [r["severity"] for r in answer["results"]] == ["warning"], answer["results"]
    assert "duplicate key 'name'" in answer["results"][0]["message"]


# --- found by an outside tester ----------------------------------------------

ALIASED = {
    # An alias as a key stands where its anchor is: where its entry is
    # written is not known, so no cut is made next to one.
    "the key after it": "x-anchors:\n  z: &k z\ndata:\n  x: '1'\n  *k : '2'\n  x: '3'\n",
    "the earlier key": "x-anchors:\n  z: &k x\ndata:\n  *k : '1'\n  y: '2'\n  x: '3'\n",
    "the later key": "x-anchors:\n  z: &k x\ndata:\n  x: '1'\n  y: '2'\n  *k : '3'\n",
    "in a flow mapping": "x-anchors:\n  z: &k z\ndata: {x: '1', *k : '2', x: '3'}\n",
}


@pytest.mark.parametrize("large", [False, True], ids=["small", "read as a large stream"])
@pytest.mark.parametrize("name", ALIASED, ids=list(ALIASED))
def test_a_key_written_twice_beside_an_alias_key_is_refused_with_why(name, large, monkeypatch):
    if large:
        _large(monkeypatch)
    result = run_postrender([], CM + ALIASED[name])
    assert result.status == 1 and result.stdout == ""
    assert "a key next to it is an alias (*name); write the key out" in result.stderr, result.stderr
    assert "internal error" not in result.stderr


def test_a_byte_order_mark_before_the_first_key_written_twice_stays():
    text = "\ufeffapiVersion: v0\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: '1'}\n"
    result = run_postrender([], text)
    assert result.status == 0, result.stderr
    assert result.stdout == "\ufeff" + text[len("\ufeffapiVersion: v0\n"):]


OVERRIDDEN_VALUES = {
    # What only the JSON Kubernetes gets could not hold: the value left out
    # never becomes JSON (kubectl reads each, the last value every time).
    "keys meeting as one": "{1: x, '1': w}",
    "an infinite number": "{b: .inf}",
    "a null key": "{~: 1}",
    "a YAML 1.1 word and its text": "{on: x, 'true': w}",
    "a !!binary value outside data": "{b: !!binary aGk=}",
}


@pytest.mark.parametrize("name", OVERRIDDEN_VALUES, ids=list(OVERRIDDEN_VALUES))
@pytest.mark.parametrize("kind", ["ConfigMap", "Secret"])
def test_what_json_could_not_hold_in_a_value_left_out_is_no_error(name, kind):
    field = "data" if kind == "ConfigMap" else "stringData"
    text = CM.replace("ConfigMap", kind) + f"{field}:\n  a: {OVERRIDDEN_VALUES[name]}\n  a: fine\n"
    result = run_postrender([], text)
    assert result.status == 0, result.stderr
    assert result.stdout == CM.replace("ConfigMap", kind) + f"{field}:\n  a: fine\n"


@pytest.mark.parametrize("value,message", [
    ("{a: !!int many}", "!!int"),
    ("{<<: 5}", "a merge key (<<) needs a mapping"),
    ("{[a]: 1}", "a mapping or sequence used as a key"),
    ("{? {a: 1} : 1}", "a mapping or sequence used as a key"),
])
def test_what_go_yaml_cannot_decode_in_a_value_left_out_is_refused(value, message):
    # go-yaml v2 decodes the earlier value before the later replaces it.
    result = run_postrender([], CM + f"extra:\n  a: {value}\n  a: x\ndata: {{k: v}}\n")
    assert result.status == 1 and message in result.stderr, result.stderr


def test_a_key_hidden_in_a_value_is_said_so():
    text = ("apiVersion: example.com/v1\nkind: Vault\nmetadata:\n  name: v\ndata:\n  inner:\n"
            "    pin: 918273645\n    pin: 111\n")
    result = run_postrender([], text)
    assert result.status == 0, result.stderr
    assert result.stderr == (
        "postrender: warning: document 1 (Vault/v) line 8: duplicate key in a mapping inside the value of data.inner"
        " (not shown: values may be secret) (written first on line 7): kubectl and Helm read the last, so postrender"
        " leaves the earlier out\n")


def test_a_line_break_kubectl_does_not_read_is_said_before_the_cut():
    # YAML reads a line break there, kubectl does not: the entry after the
    # one left out starts no line it knows of.
    result = run_postrender([], CM + 'data:\n  a: "1"\u2028  a: "2"\n  c: "3"\n')
    assert result.status == 1 and "line break U+2028" in result.stderr, result.stderr


def test_a_resource_list_that_fails_echoes_its_items_without_the_entry_and_says_so():
    text = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n"
            "  apiVersion: postrender.io/v9\n  kind: PostRender\n  metadata: {name: c}\n"
            "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    name: cfg\n  data: {k: v}\n")
    result = run_postrender([], text)
    assert result.status == 2
    [answer] = _strict(result.stdout)
    assert answer["items"][0]["metadata"] == {"name": "cfg"} and "#" not in result.stdout.split("results:")[0]
    severities = {r["severity"]: r["message"] for r in answer["results"]}
    assert "duplicate key 'name'" in severities["warning"] and "apiVersion" in severities["error"]


def test_a_document_of_many_keys_written_twice_says_ten_and_counts_the_rest():
    # A line each would bury every other message: ten, then one that counts.
    data = "".join(f"  k{i}: a\n  k{i}: b\n" for i in range(25))
    result = run_postrender([], CM + "data:\n" + data)
    assert result.status == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 11 and all("leaves the earlier out" in line for line in lines), lines
    assert "duplicate key 'k9'" in lines[9] and "line 27: and 15 more keys of the document written twice" in lines[10]
    assert documents(result.stdout)[0]["data"] == {f"k{i}": "b" for i in range(25)}


def _configs_each_with_a_key_twice(n: int) -> str:
    return "".join(f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  k: a\n  k: b\n"
                   for i in range(n))


@pytest.mark.parametrize("n, counted", [(1, 0), (10, 0), (11, 1), (13, 3), (40, 30)])
def test_documents_after_ten_holding_a_key_twice_are_counted_in_one_line(n, counted):
    # A template that writes a key twice does so in every document it
    # renders: ten documents said, then one line that counts the rest from
    # the first of them on, and every document still has its entry left out.
    result = run_postrender([], _configs_each_with_a_key_twice(n))
    assert result.status == 0, result.stderr
    lines = result.stderr.splitlines()
    said = min(n, 10)
    assert len(lines) == said + (1 if counted else 0), lines
    for i, line in enumerate(lines[:said]):
        assert line.startswith(f"postrender: warning: document {i + 1} (ConfigMap/c{i}) line {8 * i + 8}:"), line
        assert "duplicate key 'k'" in line
    if counted:
        more = "document" if counted == 1 else "documents"
        assert lines[-1] == (f"postrender: warning: document 11 (ConfigMap/c10) line 88: and {counted} more {more} from"
                             " here on holding a key written twice (or keys YAML 1.1 reads as one): kubectl and Helm"
                             " read the last, so postrender leaves the earlier out")
    assert [doc["data"] for doc in _strict(result.stdout)] == [{"k": "b"}] * n
    assert "k: a" not in result.stdout


def test_the_count_of_documents_holding_keys_twice_follows_the_ten_said_of_one():
    # The cap on documents and the cap on one document's keys are apart: the
    # first document says ten keys and counts its own rest, the count of
    # documents starts at the eleventh.
    many = CM + "data:\n" + "".join(f"  k{i}: a\n  k{i}: b\n" for i in range(12))
    result = run_postrender([], "---\n" + many + _configs_each_with_a_key_twice(11))
    assert result.status == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 11 + 9 + 1, lines
    assert "and 2 more keys of the document written twice" in lines[10]
    assert "document 11 (ConfigMap/c9)" in lines[-1] and "and 2 more documents from here on" in lines[-1]
