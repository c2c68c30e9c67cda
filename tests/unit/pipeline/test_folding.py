"""A large config's data is read entry by entry as it is composed
(index/folding.py, syntax.nodes.Fold): its hash, the names its data gives,
and every error must be what reading it whole gives, byte for byte.

Each render here is compared with the render of the same stream read whole
(test_dropping._rendered): DROP_FROM at 0, so every document takes the
dropping composer, and runs of two entries, so that every merge is tried.
"""

import base64
import random
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from postrender import fieldspecs
from postrender.errors import PostrenderError
from postrender.limits import Limits
from postrender.pipeline.read import (
    compose as read_compose,
    libyaml as read_libyaml,
    parts as read_parts,
)
from postrender.pipeline.graph.byname import pod_string_specs
from postrender.pipeline.index.configs import content_of
from postrender.pipeline.index.folding import FoldedEntries
from postrender.pipeline.index.hashing import go_json
from postrender.pipeline.needs import Needs
from postrender.pipeline.read import read
from postrender.pipeline.read.documents import Source
from postrender.syntax import nodes as nodes_module, runs
from postrender.syntax.nodes import get

from test_dropping import _rendered
from test_pruning import VARIANTS

TABLE = fieldspecs.load_table()


@pytest.fixture(autouse=True)
def _small_runs(monkeypatch):
    """Runs of 2 entries; and every folded mapping's entries taken out as
    the next starts (from its first: nodes._FOLD_FROM)."""
    monkeypatch.setattr(runs, "RUN", 2)
    monkeypatch.setattr(nodes_module, "_FOLD_FROM", 1)


# --- The entries' JSON ------------------------------------------------------

_KEYS = st.text(alphabet="-._azAZ09", min_size=1, max_size=4)
_VALUES = st.text(alphabet=st.sampled_from("ab <>&\"\\\n\t\u2028\u2029é😀"), max_size=5)


def _fragment(key: str, value: str) -> str:
    return go_json({key: value})[1:-1]


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_KEYS, _VALUES, max_size=40), st.randoms(use_true_random=False))
def test_entries_merge_to_kustomizes_json_in_any_order(entries, rng):
    folded = FoldedEntries()
    pairs = list(entries.items())
    rng.shuffle(pairs)
    for key, value in pairs:
        folded.add(_fragment(key, value))
    if not entries:
        return  # a folded mapping holds one entry at least (ConfigFolder)
    assert folded.close()
    assert "".join(folded.pieces()) == go_json(entries)
    assert folded.as_dict() == entries


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_KEYS, _VALUES, min_size=1, max_size=20), st.data())
def test_two_entries_with_one_key_are_found_whatever_runs_they_fall_in(entries, data):
    pairs = list(entries.items())
    key = data.draw(st.sampled_from(pairs))[0]
    pairs.insert(data.draw(st.integers(0, len(pairs))), (key, data.draw(_VALUES)))
    folded = FoldedEntries()
    for k, v in pairs:
        folded.add(_fragment(k, v))
    assert not folded.close()


def test_a_key_that_is_a_prefix_of_another_is_no_duplicate():
    folded = FoldedEntries()
    for key in ("a.b", "a", "a-", "ab"):
        folded.add(_fragment(key, "x"))
    assert folded.close()
    assert "".join(folded.pieces()) == '{"a":"x","a-":"x","a.b":"x","ab":"x"}'


# --- Read as composed, rendered as read whole -------------------------------


def _config(kind: str, fields: dict[str, list[tuple[str, str]]], name: str = "settings",
            alphabetical: bool = False) -> str:
    """`alphabetical`: its keys in the order kustomize and kubectl write
    them (`apiVersion`, `binaryData`, `data`, `kind`, `metadata`,
    `stringData`): data before the kind, folded ahead of it."""
    parts = {"apiVersion": ["apiVersion: v1"], "kind": [f"kind: {kind}"], "metadata": ["metadata:", f"  name: {name}"]}
    for field, entries in fields.items():
        parts[field] = [f"{field}:" if entries else f"{field}: {{}}"] + [f"  {key}: {value}" for key, value in entries]
    order = sorted(parts) if alphabetical else parts
    return "\n".join(line for key in order for line in parts[key]) + "\n"


_WORKLOAD = """---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: web:1
        envFrom:
        - configMapRef: {name: settings}
        - secretRef: {name: creds}
"""

_TLS = """---
apiVersion: v1
kind: Secret
metadata:
  name: web-tls
type: Opaque
data:
  a: YQ==
"""

# Keys taken as composed, and keys that make the document read again whole,
# where read and validate say what they say of it: YAML 1.1 words, numbers,
# null, keys Kubernetes refuses, one written twice, quoted and plain alike.
_PLAIN_KEYS = ["a", "b.c", "x-1", "_k", "K9", "app.properties", "tls.crt"] + [f"k{i}" for i in range(30)]
_ODD_KEYS = ["yes", "on", "1", "0x1f", "~", "null", '"quoted"', "'single'", '"with space"', '""',
             '"a"', "'b.c'", "a:b", '"k\\u00e9"', "? complex\n ", "[1, 2]", "<<"]
# Values that read as strings (base64 or not), and ones that do not.
_STRING_VALUES = ["v", "YQ==", "aGVsbG8=", '"<&>"', '"<b>x</b>"', "a<b", "x > y", "'it''s'", '"é\\u2028x"', '"a\\tb"', "|\n    line one\n    line two",
                  ">-\n    folded\n    text", '"secretName: web-tls"', '"tlsSecret: web-tls\\nother: 1"', "''", "plain words"]
_ODD_VALUES = ["1", "true", "null", "~", "", "{a: b}", "[x]", "0x10", "2001-01-01", ".inf", "&anchor v", "*anchor",
               "!!str 1", "!!binary YQ==", "notbase64", "YQ"]


_BASE64_VALUES = ["YQ==", "aGVsbG8=", '"Yg=="', "'Yw=='", "''", "PGI+eDwvYj4="]


@st.composite
def _config_documents(draw):
    """A config whose entries are mostly taken as composed, now and then
    with one entry that makes it read whole."""
    kind = draw(st.sampled_from(["ConfigMap", "Secret"]))
    fields: dict[str, list[tuple[str, str]]] = {}
    for field in draw(st.lists(st.sampled_from(["data", "binaryData", "stringData"]), min_size=1, max_size=3, unique=True)):
        encoded = field == "binaryData" or kind == "Secret" and field == "data"
        values = st.sampled_from(_BASE64_VALUES if encoded else _STRING_VALUES)
        entries = [(key, draw(values)) for key in draw(st.lists(st.sampled_from(_PLAIN_KEYS), max_size=8, unique=True))]
        if entries and draw(st.integers(0, 3)) == 0:
            odd = draw(st.one_of(
                st.tuples(st.sampled_from(_ODD_KEYS + _PLAIN_KEYS), values),  # a plain key: a duplicate, likely
                st.tuples(st.sampled_from(["odd"]), st.sampled_from(_ODD_VALUES + _STRING_VALUES)),
            ))
            entries.insert(draw(st.integers(0, len(entries))), odd)
        fields[field] = entries
    name = "settings" if kind == "ConfigMap" else "creds"
    return _config(kind, fields, name, alphabetical=draw(st.booleans()))


def _as_list(*documents: str) -> str:
    """The documents as the items of one List (read item by item as they are
    composed: read.parts._DroppingItems, each a config's data folded as a
    document's is)."""
    items = []
    for document in documents:
        lines = document.removeprefix("---\n").rstrip("\n").split("\n")
        items.append("- " + lines[0] + "".join("\n  " + line for line in lines[1:]))
    return "apiVersion: v1\nkind: List\nitems:\n" + "\n".join(items) + "\n"


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(config=_config_documents(), argv=st.sampled_from(VARIANTS), listed=st.booleans())
def test_a_config_read_as_composed_renders_as_read_whole(monkeypatch, config, argv, listed):
    # As a document, or as a List's item: where the run may copy the item
    # (--keep-original), the List is composed again whole.
    _rendered(_as_list(config, _WORKLOAD, _TLS) if listed else config + _WORKLOAD + _TLS, argv, monkeypatch)


_FALLBACKS = {
    "a YAML 1.1 word as a key": [("yes", "v"), ("a", "v")],
    "a number as a key": [("a", "v"), ("1", "v")],
    "a key Kubernetes refuses": [("a", "v"), ('"with space"', "v")],
    "a key written twice, far apart": [("a", "v")] + [(f"k{i}", "v") for i in range(7)] + [("a", "w")],
    "a key quoted and plain": [("a", "v"), ('"a"', "w")],
    "a number as a value": [("a", "v"), ("b", "1")],
    "a mapping as a value": [("a", "v"), ("b", "{c: d}")],
    "null as a value": [("a", "v"), ("b", "~")],
    "a value that is no base64": [("a", "v"), ("b", "YQ")],
    "a complex key": [("a", "v"), ("? [x]\n ", "v")],
}


@pytest.mark.parametrize("alphabetical", [False, True], ids=["kind-first", "data-first"])
@pytest.mark.parametrize("listed", [False, True], ids=["document", "item"])
@pytest.mark.parametrize("entries", _FALLBACKS.values(), ids=list(_FALLBACKS))
@pytest.mark.parametrize("kind", ["ConfigMap", "Secret"])
def test_what_is_not_taken_as_composed_reads_whole_with_its_error(entries, kind, listed, alphabetical, monkeypatch):
    if kind == "Secret":
        entries = [(k, "YQ==" if v == "v" else v) for k, v in entries]
    name = "settings" if kind == "ConfigMap" else "creds"
    config = _config(kind, {"data": entries}, name, alphabetical)
    _rendered(_as_list(_WORKLOAD, config, _TLS) if listed else config + _WORKLOAD, "", monkeypatch)


_READS_TLS_BY_NAME = """---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ingress
spec:
  template:
    spec:
      volumes:
      - name: tls
        secret: {secretName: web-tls}
"""


@pytest.mark.parametrize("data_entries", [1, 2])
def test_data_names_are_found_whichever_fields_are_taken_as_composed(data_entries, monkeypatch):
    # A ConfigMap's data names a Secret a program reads by name, so the
    # Secret keeps its name though a workload references it. Its data too
    # small to be taken out (one entry: no entry follows it), its binaryData
    # taken: the names were looked for in the folder only, found none, and
    # the Secret was renamed under the program (found by the drawn test).
    data = [("a", '"secretName: web-tls"')] + [(f"k{i}", "v") for i in range(data_entries - 1)]
    config = _config("ConfigMap", {"data": data, "binaryData": [("a", "YQ=="), ("b.c", "YQ==")]})
    text = config + _WORKLOAD + _TLS + _READS_TLS_BY_NAME
    stream, folders = _read_folded(text, monkeypatch)
    folder = folders[0]  # the ConfigMap's
    assert ("data" in folder.fields) is (data_entries > 1) and "binaryData" in folder.fields
    config_map = stream.objects[0]
    assert [name for _, _, name, _ in content_of(config_map).named] == ["web-tls"]
    _rendered(text, "", monkeypatch)


def test_values_go_escapes_in_json_hash_as_kustomizes(monkeypatch):
    # Go's encoding/json writes <, > and & (an `&` in the text keeps the
    # document whole: it may be an anchor), U+2028 and U+2029 escaped.
    entries = [("a", '"<b>x</b>"'), ("b", '"line\\u2028sep\\u2029"'), ("c", "x > y")]
    _rendered(_config("ConfigMap", {"data": entries}) + _WORKLOAD, "", monkeypatch)
    _rendered(_config("Secret", {"stringData": entries}, "creds") + _WORKLOAD, "", monkeypatch)


def test_a_secret_with_data_and_string_data_both_folded_merges_them(monkeypatch):
    config = _config("Secret", {"data": [("a", "YQ=="), ("b", "Yg==")], "stringData": [("b", "plain"), ("c", "<&>")]}, "creds")
    _rendered(config + _WORKLOAD, "", monkeypatch)


def test_a_secret_named_with_kustomizes_own_hash_keeps_it(monkeypatch):
    # A stringData Secret kustomize suffixed reads its hash of it as written.
    config = _config("Secret", {"stringData": [("a", "x"), ("b", "y")]}, "creds-ccg4b5fch8")
    _rendered(config + _WORKLOAD.replace("name: creds}", "name: creds-ccg4b5fch8}"), "", monkeypatch)


_DATA_SPECS = ("nameReference:\n- kind: Secret\n  version: v1\n  fieldSpecs:\n"
               "  - {kind: ConfigMap, version: v1, path: data/secret}\n")


def test_a_field_spec_into_the_data_keeps_it_whole(monkeypatch, tmp_path):
    from ruamel.yaml import YAML

    table = fieldspecs.load_table([("test", YAML(typ="safe").load(_DATA_SPECS))])
    assert Needs(table, pod_string_specs(table)).reach("ConfigMap", "v1") is None
    assert Needs(TABLE, pod_string_specs(TABLE)).reach("ConfigMap", "v1") is not None
    specs = tmp_path / "specs.yaml"
    specs.write_text(_DATA_SPECS)
    config = _config("ConfigMap", {"data": [("a", "v"), ("secret", "web-tls")]})
    _rendered(config + _WORKLOAD + _TLS, f"--config {specs}", monkeypatch)


# --- What is held --------------------------------------------------------------


def _ahead(obj, root, whole):
    """A config's edits made ahead, as a render without copies makes them."""
    from postrender.pipeline.rewrite import Options, prepare

    return prepare(obj, root, Options(), False, whole)


def _read_folded(text: str, monkeypatch, dropping: bool = True):
    """The stream read, and each folder made (Needs.folder). Its configs'
    edits are made ahead, as in a render: only then are a List's configs
    read as composed."""
    folders = []
    made = Needs.folder

    def folder(self, kind):
        folders.append(made(self, kind))
        return folders[-1]

    monkeypatch.setattr(Needs, "folder", folder)
    monkeypatch.setattr(read_compose, "DROP_FROM", 0 if dropping else sys.maxsize)
    stream = read([Source("input.yaml", text)], Limits(), Needs(TABLE, pod_string_specs(TABLE), prepare=_ahead))
    return stream, folders


def test_a_large_configs_entries_are_taken_out_as_composed(monkeypatch):
    monkeypatch.setattr(runs, "RUN", 64)
    entries = [(f"k{i}", f"v{i}") for i in range(1000)]
    random.Random(7).shuffle(entries)
    text = _config("ConfigMap", {"data": entries, "binaryData": [("b", "YQ=="), ("a", "Yg==")]})
    stream, folders = _read_folded(text, monkeypatch)
    [folder] = folders
    # finish found each mapping holding its last entry alone, and took it.
    assert folder.root is not None and folder.fields["data"].count == 1000 and folder.fields["binaryData"].count == 2
    [obj] = stream.objects
    whole, _ = _read_folded(text, monkeypatch, dropping=False)
    assert content_of(obj).hash == content_of(whole.objects[0]).hash
    # Entries taken out still count against --max-nodes.
    assert stream.documents[0].nodes == whole.documents[0].nodes
    assert obj.node.value == ()  # its edits made ahead, nothing of it stays


def test_a_folded_configs_data_names_are_found_in_order(monkeypatch):
    entries = [("a", '"secretName: web-tls"'), ("b", "v"), ("c", '"secretName: other\\ntlsSecretName: third"')]
    text = _config("ConfigMap", {"data": entries})
    stream, folders = _read_folded(text, monkeypatch)
    assert folders and folders[0].root is not None
    whole, _ = _read_folded(text, monkeypatch, dropping=False)
    named = [(path, value.value, name, via) for path, value, name, via in content_of(stream.objects[0]).named]
    assert named == [(path, value.value, name, via) for path, value, name, via in content_of(whole.objects[0]).named]
    assert [(path, name) for path, _, name, _ in named][:2] == [(("data", "a"), "web-tls"), (("data", "c"), "other")]


@pytest.mark.parametrize("small", [None, "stringData", "data"])
@pytest.mark.parametrize("alphabetical", [False, True], ids=["kind-first", "data-first"])
def test_a_folded_secrets_data_names_are_found_as_read_whole(alphabetical, small, monkeypatch):
    # A Secret's data decoded, and its stringData, name objects as a
    # ConfigMap's data does: taken out as composed, before the kind is known
    # (kustomize's order) or after, or one field too small to be taken out
    # and read in the tree, the names are those read whole, in the order written.
    def encoded(text: str) -> str:
        return base64.b64encode(text.encode()).decode()

    data = [("a", encoded("secretName: web-tls")), ("b", "YQ=="), ("c", encoded("caConfigMap: {name: ca}"))]
    string_data = [("s", '"existingSecret: creds"'), ("t", "x")]
    fields = {"data": data[:1] if small == "data" else data,
              "stringData": string_data[:1] if small == "stringData" else string_data}
    text = _config("Secret", fields, "operator", alphabetical=alphabetical)
    stream, folders = _read_folded(text, monkeypatch)
    assert folders and folders[0].root is not None and folders[0].kind == "Secret"
    assert sorted(folders[0].fields) == sorted(set(fields) - {small})
    whole, _ = _read_folded(text, monkeypatch, dropping=False)
    named = [(path, name) for path, _, name, _ in content_of(stream.objects[0]).named]
    assert named == [(path, name) for path, _, name, _ in content_of(whole.objects[0]).named]
    expected = [(("data", "a"), "web-tls"), (("data", "c"), "ca"), (("stringData", "s"), "creds")]
    if small == "data":
        expected.remove((("data", "c"), "ca"))
    assert named == sorted(expected, key=lambda found: text.index(f"\n  {found[0][1]}: "))


def test_a_config_whose_kind_comes_late_is_composed_whole(monkeypatch):
    text = "data:\n  a: v\n  b: w\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: late\n"
    _, folders = _read_folded(text, monkeypatch)
    assert all(not folder.fields for folder in folders)  # data came before the kind was known
    _rendered(text, "", monkeypatch)


def test_a_list_items_config_entries_are_taken_out_as_composed(monkeypatch):
    # As a document's (above), item by item: each item's folder is finished
    # with that item, before the next is composed.
    entries = [(f"k{i}", f"v{i}") for i in range(200)]
    random.Random(3).shuffle(entries)
    first = _config("ConfigMap", {"data": entries})
    second = _config("Secret", {"data": [(f"s{i}", "YQ==") for i in range(50)]}, "creds")
    text = _as_list(first, _WORKLOAD, second)
    stream, folders = _read_folded(text, monkeypatch)
    assert [folder.root is not None for folder in folders] == [True, True]
    assert [folder.fields["data"].count for folder in folders] == [200, 50]
    whole, _ = _read_folded(text, monkeypatch, dropping=False)
    assert [content_of(obj).hash for obj in stream.objects] == [content_of(obj).hash for obj in whole.objects]
    assert stream.documents[0].nodes == whole.documents[0].nodes
    # Their edits made ahead, nothing of the configs stays.
    assert [obj.node.value for obj in stream.objects if obj.kind != "Deployment"] == [(), ()]


def test_a_list_item_that_may_be_copied_is_read_whole(monkeypatch):
    # Its copy, an item of its own, is made from its tree: so the List is
    # composed again whole, and the same written.
    text = _as_list(_config("ConfigMap", {"data": [(f"k{i}", "v") for i in range(20)]}), _WORKLOAD)
    _rendered(text, "--keep-original=all", monkeypatch)
    _rendered(text.replace("  name: settings\n", "  name: settings\n    annotations: {postrender.io/keep-original: 'true'}\n"),
              "", monkeypatch)


@pytest.mark.parametrize("entries", [1, 2, 3, 4, 7])
def test_a_small_mapping_is_read_whole_and_a_larger_one_from_its_first_entry(entries, monkeypatch):
    # Entries are taken out once the mapping holds _FOLD_FROM (3 here), the
    # first three at once: a config of three entries or fewer is read whole.
    monkeypatch.setattr(nodes_module, "_FOLD_FROM", 3)
    text = _config("ConfigMap", {"data": [(f"k{i}", f"v{i}") for i in range(entries)]})
    stream, [folder] = _read_folded(text, monkeypatch)
    assert (folder.fields["data"].count if folder.fields else 0) == (entries if entries > 3 else 0)
    whole, _ = _read_folded(text, monkeypatch, dropping=False)
    assert content_of(stream.objects[0]).hash == content_of(whole.objects[0]).hash
    _rendered(text + _WORKLOAD, "", monkeypatch)


def test_a_list_items_config_is_read_whole_where_its_edits_are_not_made_ahead(monkeypatch):
    # (--keep-previous, --retain: a config item is kept whole then.) None is
    # read as composed: it would be composed again whole.
    made = []
    monkeypatch.setattr(Needs, "folder", lambda self, kind: made.append(kind))
    monkeypatch.setattr(read_compose, "DROP_FROM", 0)
    text = _as_list(_config("ConfigMap", {"data": [(f"k{i}", "v") for i in range(20)]}), _WORKLOAD)
    stream = read([Source("input.yaml", text)], Limits(), Needs(TABLE, pod_string_specs(TABLE)))
    assert made == [] and len(get(stream.objects[0].node, "data").value) == 20


@pytest.mark.parametrize("listed", [False, True], ids=["document", "item"])
def test_data_written_before_the_kind_is_taken_as_composed(listed, monkeypatch):
    # kustomize and kubectl write a config's keys in order: `apiVersion`,
    # `binaryData`, `data`, `kind`, `metadata`, `stringData`, `type`. Its
    # data is folded before its kind is known, and the kind then settles it.
    config_map = _config("ConfigMap", {"binaryData": [("b", "YQ=="), ("a", "Yg==")],
                                       "data": [(f"k{i}", f'"secretName: s{i}"') for i in range(30)]}, alphabetical=True)
    secret = _config("Secret", {"data": [(f"s{i}", "YQ==") for i in range(30)], "stringData": [("t", "x1"), ("u", "y1")]}, "creds",
                     alphabetical=True)
    assert config_map.index("data:") < config_map.index("kind:") and secret.index("data:") < secret.index("kind:")
    text = _as_list(config_map, _WORKLOAD, secret) if listed else config_map + _WORKLOAD + "---\n" + secret
    stream, folders = _read_folded(text, monkeypatch)
    assert [(folder.kind, sorted((name, f.count) for name, f in folder.fields.items())) for folder in folders] == [
        ("ConfigMap", [("binaryData", 2), ("data", 30)]), ("Secret", [("data", 30), ("stringData", 2)])]
    assert all(folder.root is not None for folder in folders)
    whole, _ = _read_folded(text, monkeypatch, dropping=False)
    assert [content_of(obj).hash for obj in stream.objects] == [content_of(obj).hash for obj in whole.objects]
    config = [obj for obj in stream.objects if obj.kind == "ConfigMap"][0]
    assert [name for _, _, name, _ in content_of(config).named][:2] == ["s0", "s1"]
    for argv in VARIANTS:
        _rendered(text, argv, monkeypatch)


_AHEAD_OF_NO_CONFIG = {
    "a custom kind": "apiVersion: v1\ndata:\n  a: x\n  b: w\n  c: z\nkind: Thing\nmetadata:\n  name: t\n",
    "a ConfigMap's stringData": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n".replace(
        "kind: ConfigMap\n", "stringData:\n  a: x\n  b: w\nkind: ConfigMap\n"),
    "a Secret's data not base64": "apiVersion: v1\ndata:\n  a: YQ==\n  b: plain\n  c: Yw==\nkind: Secret\nmetadata:\n  name: creds\n",
    "a Secret's binaryData": "apiVersion: v1\nbinaryData:\n  a: YQ==\n  b: Yg==\nkind: Secret\nmetadata:\n  name: creds\n",
    # The composer learns a kind as the next key starts: one written last
    # never settles what was taken ahead of it (not even a Secret's base64).
    "a kind written last": "apiVersion: v1\nmetadata:\n  name: creds\ndata:\n  a: YQ==\n  b: plain\n  c: Yw==\nkind: Secret\n",
    "no kind at all": "apiVersion: v1\ndata:\n  a: x\n  b: w\nmetadata:\n  name: settings\n",
    "an apiVersion that is not v1": "apiVersion: v2\ndata:\n  a: x\n  b: w\nkind: ConfigMap\nmetadata:\n  name: settings\n",
}


# Where the text names the kind after the data (read.parts._kind_written_after),
# and it is none that folds that field: nothing is folded ahead of it.
_KIND_READ_AHEAD_SAYS_NO = {"a custom kind", "a ConfigMap's stringData", "a Secret's binaryData"}


@pytest.mark.parametrize("read_ahead", [True, False], ids=["kind read ahead", "kind not read ahead"])
@pytest.mark.parametrize("listed", [False, True], ids=["document", "item"])
@pytest.mark.parametrize("case", _AHEAD_OF_NO_CONFIG, ids=list(_AHEAD_OF_NO_CONFIG))
def test_data_folded_ahead_of_what_is_no_config_is_read_whole(case, listed, read_ahead, monkeypatch):
    # Not read ahead (a kind the text does not name so): the kind, once
    # learned, must refuse what was folded ahead of it.
    if not read_ahead:
        monkeypatch.setattr(read_parts, "_kind_written_after", lambda text, at: None)
    text = _AHEAD_OF_NO_CONFIG[case]
    _rendered(_as_list(text, _WORKLOAD) if listed else text + _WORKLOAD, "", monkeypatch)
    try:
        _, folders = _read_folded(text, monkeypatch)
    except PostrenderError:
        return  # read whole, as it must be, to say what it says
    # Entries were taken ahead of the kind (but where the apiVersion or the
    # kind read ahead says no config), and the document read whole.
    taken = [folder for folder in folders if folder.fields]
    assert bool(taken) is ("v2" not in text and not (read_ahead and case in _KIND_READ_AHEAD_SAYS_NO))
    assert all(folder.root is None for folder in folders)


def test_the_kind_is_read_ahead_where_kustomize_and_kubectl_write_it():
    item = "items:\n- apiVersion: v1\n  data:\n    a: x\n    kind: no\n  kind: Secret\n  metadata: {name: s}\n"
    assert read_parts._kind_written_after(item, item.index("data:")) == "Secret"
    root = "apiVersion: v1\nbinaryData:\n  a: YQ==\ndata:\n  kind: Secret\nkind: 'ConfigMap'  # generated\n"
    assert read_parts._kind_written_after(root, root.index("binaryData:")) == "ConfigMap"
    first = "- data:\n    a: x\n  kind: ConfigMap\n"  # the item's first key
    assert read_parts._kind_written_after(first, first.index("data:")) == "ConfigMap"
    for none in ("apiVersion: v1\ndata:\n  a: x\n  kind: Secret\n", "apiVersion: v1\ndata:\n  a: x\nkind: {a: b}\n"):
        assert read_parts._kind_written_after(none, none.index("data:")) is None


def test_data_folded_ahead_of_a_field_spec_into_it_is_read_whole(monkeypatch, tmp_path):
    specs = tmp_path / "specs.yaml"
    specs.write_text(_DATA_SPECS)
    config = _config("ConfigMap", {"data": [("a", "v"), ("b", "w"), ("secret", "web-tls")]}, alphabetical=True)
    _rendered(config + _WORKLOAD + _TLS, f"--config {specs}", monkeypatch)


def _read_counted(text: str, monkeypatch, copies) -> tuple[list, int]:
    """The folders made and how many times the document was composed, read
    as a render that keeps a copy of `copies`' kinds (Needs' `copies`)."""
    folders, composed = [], []
    made, compose = Needs.folder, read_libyaml._composed
    monkeypatch.setattr(Needs, "folder", lambda self, kind: folders.append(made(self, kind)) or folders[-1])
    monkeypatch.setattr(read_libyaml, "_composed", lambda *args: composed.append(1) or compose(*args))
    monkeypatch.setattr(read_compose, "_composed", lambda *args: composed.append(1) or compose(*args))
    monkeypatch.setattr(read_compose, "DROP_FROM", 0)
    needs = Needs(TABLE, pod_string_specs(TABLE), prepare=_ahead, copies=lambda kind: kind in copies)
    read([Source("input.yaml", text)], Limits(), needs)
    return folders, len(composed)


@pytest.mark.parametrize("read_ahead", [True, False], ids=["kind read ahead", "kind not read ahead"])
@pytest.mark.parametrize("alphabetical", [False, True], ids=["kind-first", "data-first"])
def test_a_list_item_of_a_kind_the_run_copies_is_not_folded_only_to_be_composed_again(alphabetical, read_ahead,
                                                                                     monkeypatch):
    # Under --keep-original=auto every Secret keeps a copy, made from its
    # item's tree: its data is read whole at once, not folded and then
    # composed again. Data before a kind the text does not name may be a
    # Secret's: not folded either. A ConfigMap's is, as the run copies none.
    if not read_ahead:
        monkeypatch.setattr(read_parts, "_kind_written_after", lambda text, at: None)
    secret = _config("Secret", {"data": [(f"s{i}", "YQ==") for i in range(30)]}, "creds", alphabetical)
    config_map = _config("ConfigMap", {"data": [(f"k{i}", "v") for i in range(30)]}, alphabetical=alphabetical)
    folders, composed = _read_counted(_as_list(secret, _WORKLOAD, config_map), monkeypatch, {"Secret"})
    assert composed == 1
    taken = [folder.kind for folder in folders if folder.fields]
    assert taken == ([] if alphabetical and not read_ahead else ["ConfigMap"])
    folders, composed = _read_counted(_as_list(secret, _WORKLOAD, config_map), monkeypatch, set())
    assert composed == 1 and [folder.kind for folder in folders if folder.fields] == ["Secret", "ConfigMap"]


def test_data_before_the_kind_is_folded_where_every_kind_with_it_folds_it():
    def needs(prepare, copies=()):
        return Needs(TABLE, pod_string_specs(TABLE), prepare=prepare, copies=lambda kind: kind in copies)

    every = ("data", "binaryData", "stringData")
    assert [needs(_ahead).folds_ahead(field, "v1", True, lambda: None) for field in every] == [True, True, True]
    assert [needs(_ahead, {"Secret"}).folds_ahead(field, "v1", True, lambda: None) for field in every] == [False, True, False]
    assert [needs(_ahead, {"ConfigMap"}).folds_ahead(field, "v1", True, lambda: None) for field in every] == [False, False, True]
    assert [needs(None).folds_ahead(field, "v1", True, lambda: None) for field in every] == [False, False, False]
    # A document's copy is made from its text: its data is folded whatever the run copies.
    assert [needs(None, {"Secret", "ConfigMap"}).folds_ahead(field, "v1", False, lambda: None) for field in every] == [True, True, True]
    # The kind read ahead: only its own fields, and only a config kind's.
    assert [needs(_ahead, {"Secret"}).folds_ahead(field, "v1", True, lambda: "ConfigMap") for field in every] == [True, True, False]
    assert [needs(_ahead).folds_ahead(field, "v1", False, lambda: "Secret") for field in every] == [True, False, True]
    assert [needs(_ahead).folds_ahead(field, "v1", False, lambda: "Thing") for field in every] == [False, False, False]
    # No config's field, or no config's apiVersion: nothing folded, and the text not read ahead.
    unread = lambda: pytest.fail("the text read ahead for what no config folds")  # noqa: E731
    assert not needs(_ahead).folds_ahead("spec", "v1", False, unread)
    assert not needs(_ahead).folds_ahead("data", "apps/v1", False, unread)


@pytest.mark.parametrize("guess", ["ConfigMap", "Secret", "Thing"])
@pytest.mark.parametrize("argv", ["", "--keep-original=all", "--keep-original=none"])
def test_a_kind_read_ahead_wrongly_only_changes_how_it_is_composed(guess, argv, monkeypatch):
    # The text may name a kind at the key's column that is not the object's
    # (another object's line): the kind learned then settles, or refuses,
    # what was folded ahead, as when nothing was read ahead.
    monkeypatch.setattr(read_parts, "_kind_written_after", lambda text, at: guess)
    secret = _config("Secret", {"data": [(f"s{i}", "YQ==") for i in range(6)]}, "creds", alphabetical=True)
    config_map = _config("ConfigMap", {"data": [(f"k{i}", "v") for i in range(6)]}, alphabetical=True)
    thing = _AHEAD_OF_NO_CONFIG["a custom kind"]
    _rendered(_as_list(secret, _WORKLOAD, config_map, thing), argv, monkeypatch)
    _rendered(secret + _WORKLOAD + "---\n" + config_map + "---\n" + thing, argv, monkeypatch)
