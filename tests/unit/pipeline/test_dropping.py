"""A large document is composed with what no stage reads dropped as it goes
(read.parts._Dropping, syntax.nodes.DroppingComposer): what stays must be what
pruning the whole graph leaves (pipeline/needs.py), node for node and offset
for offset, and the render the same byte for byte.

Every case here is compared both ways: read with DROP_FROM at 0, so that
every document takes the dropping composer, and read with it out of reach.
"""

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import manifest_strategies as ms
from postrender import fieldspecs
from postrender.errors import PostrenderError
from postrender.limits import Limits
from postrender.pipeline.read import compose as read_compose, parts as read_parts
from postrender.pipeline.graph import references
from postrender.pipeline.graph.byname import pod_string_specs
from postrender.pipeline.needs import Needs, _merge_wildcards
from postrender.pipeline.read import read
from postrender.pipeline.read.documents import Source
from postrender.syntax import nodes as nodes_module, runs
from postrender.syntax.nodes import DROPPED_ITEM, DroppingComposer, MappingNode, ScalarNode, SequenceNode

from test_list_items import _dump
from test_pruning import CORPUS, GOLDEN, VARIANTS, _args, _render

TABLE = fieldspecs.load_table()


def _needs(edits_everywhere: bool, table=TABLE) -> Needs:
    return Needs(table, pod_string_specs(table), edits_everywhere=edits_everywhere)


def _read(text: str, dropping: bool, monkeypatch, edits_everywhere: bool = False, table=TABLE) -> object:
    """The documents read and pruned, and each object, as plain data."""
    with monkeypatch.context() as patch:
        patch.setattr(read_compose, "DROP_FROM", 0 if dropping else sys.maxsize)
        try:
            stream = read([Source("input.yaml", text)], Limits(), _needs(edits_everywhere, table))
        except PostrenderError as error:
            return f"error: {error}"
    return ([_dump(d.root) if d.root is not None else None for d in stream.documents],
            [d.nodes for d in stream.documents],  # what --max-nodes counts
            [(o.kind, o.name, o.item, _dump(o.node)) for o in stream.objects])


def _rendered(text: str, argv: str, monkeypatch) -> None:
    """The render with every document dropped from as composed, against the
    render of the stream read whole (no pruning at all)."""
    try:
        whole = _render(text, argv, pruned=False)
    except PostrenderError as error:  # the stream does not read: the same error either way
        whole = (f"error: {error}", [], [])
    with monkeypatch.context() as patch:
        patch.setattr(read_compose, "DROP_FROM", 0)
        assert _render(text, argv, pruned=True) == whole


_INPUTS = [p / "input.yaml" for p in GOLDEN] + CORPUS


@pytest.mark.parametrize("edits_everywhere", [False, True], ids=["render", "annotate"])
@pytest.mark.parametrize("path", _INPUTS, ids=[f"{p.parent.name}/{p.name}" for p in _INPUTS])
def test_what_stays_is_what_pruning_the_whole_graph_leaves(path: Path, edits_everywhere, monkeypatch):
    text = path.read_text(encoding="utf-8")
    assert _read(text, True, monkeypatch, edits_everywhere) == _read(text, False, monkeypatch, edits_everywhere)


@pytest.mark.parametrize("case", GOLDEN, ids=[c.name for c in GOLDEN])
def test_golden_inputs_render_alike_when_dropped_from_as_composed(case: Path, monkeypatch):
    _rendered((case / "input.yaml").read_text(encoding="utf-8"), _args(case), monkeypatch)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_corpus_renders_alike_when_dropped_from_as_composed(path: Path, variant: str, monkeypatch):
    _rendered(path.read_text(encoding="utf-8"), variant, monkeypatch)


@settings(deadline=None, max_examples=60, suppress_health_check=list(HealthCheck))
@given(ms.written(ms.streams()))
def test_any_stream_renders_alike_when_dropped_from_as_composed(monkeypatch, drawn):
    _stream, text = drawn
    _rendered(text, "", monkeypatch)


# Documents whose dropping the golden inputs do not exercise: where kind
# comes, keys that are not plain inside what is dropped, a pod template
# read whole, wildcard specs, lists beside a read path.
def _thing(body: str) -> str:
    return "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec:\n  deep:\n" + body + "  more: x\n"


@pytest.fixture(autouse=True)
def _small_thresholds(monkeypatch):
    """Every dropped mapping of more than 4 keys has them set aside (a run
    of 3 sorted at a time), and every config's data of more than 2 entries
    is read into its content as composed (the first 2 at once), so every
    golden input tries both."""
    monkeypatch.setattr(nodes_module, "_KEYS_HELD", 4)
    monkeypatch.setattr(nodes_module, "_FOLD_FROM", 2)
    monkeypatch.setattr(runs, "RUN", 3)


_SHAPES = {
    "a custom object with a long list": "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\n"
                                        "spec:\n  items:\n" + "".join(f"  - {i}\n" for i in range(50))
                                        + "  nested:\n  - {a: [1, 2], b: {c: d}}\n  - [x, {p: z}]\n",
    "kind after spec": "spec:\n  template:\n    spec:\n      volumes: [{name: v, configMap: {name: c}}]\n"
                       "  other: {a: {b: c}}\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n"
                       "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n",
    "a duplicate key where dropped": "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\n"
                                     "spec:\n  deep: {a: 1, a: 2}\n  more: x\n",
    "a key not plain where dropped": "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\n"
                                     "spec:\n  deep: {on: 1, 'on': 2}\n  more: x\n",
    "a complex key where dropped": "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\n"
                                   "spec:\n  deep: {? [a, b] : 1}\n  more: x\n",
    "a value kubectl cannot read where dropped": "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\n"
                                                 "spec:\n  deep: {when: 2001-13-45T00:00:00Z, x: [.inf]}\n  more: x\n",
    "a Deployment": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: 2\n"
                    "  selector: {matchLabels: {a: b}}\n  strategy: {rollingUpdate: {maxSurge: 1}}\n"
                    "  template:\n    metadata: {annotations: {configmap.reloader.stakater.com/reload: c}, labels: {a: b}}\n"
                    "    spec:\n"
                    "      containers:\n      - name: c\n        args: [--config=c, x]\n"
                    "        env: [{name: E, valueFrom: {configMapKeyRef: {name: c, key: k}}}]\n"
                    "        resources: {limits: {cpu: 1}}\n"
                    "      volumes: [{name: v, configMap: {name: c, items: [{key: k, path: p}]}}]\n"
                    "status: {replicas: 1, conditions: [{type: A}, {type: B}]}\n"
                    "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n",
    "a Pod": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, envFrom: "
             "[{secretRef: {name: s}}], resources: {limits: {cpu: 1}}}]\n"
             "---\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {k: v}\n",
    "a grant by name": "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: r}\nrules:\n"
                       "- {apiGroups: [''], resources: [configmaps], verbs: [get], resourceNames: [c], x: {p: {q: 1}, r: 2}}\n"
                       "- {apiGroups: [''], resources: [pods], verbs: [list]}\n"
                       "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n",
    "a List": "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}, "
              "data: {k: v}}\n- {apiVersion: example.com/v1, kind: Thing, metadata: {name: t}, spec: {a: {b: c}}}\n",
    # Large dropped mappings (more than _KEYS_HELD keys, 4 here) have their
    # entries taken out and their keys set aside in sorted runs (of 3).
    "a large mapping where dropped": _thing("".join(f"    k{i}: {{a: {i}}}\n" for i in range(40))),
    "a duplicate key far apart where dropped": _thing("    dup: 1\n" + "".join(f"    k{i}: v\n" for i in range(20)) + "    dup: 2\n"),
    "a duplicate key in the last entries where dropped": _thing("".join(f"    k{i}: v\n" for i in range(9)) + "    k3: w\n"),
    "a key quoted and plain where dropped": _thing("    a: 1\n" + "".join(f"    k{i}: v\n" for i in range(9)) + "    'a': 2\n"),
    "a YAML 1.1 key far in where dropped": _thing("".join(f"    k{i}: v\n" for i in range(9)) + "    on: 1\n    true: 2\n"
                                                 + "".join(f"    m{i}: v\n" for i in range(9))),
    "a key with a line break where dropped": _thing("".join(f"    k{i}: v\n" for i in range(9)) + '    "a\\nb": 1\n    "a\\nb": 2\n'
                                                   + "".join(f"    m{i}: v\n" for i in range(9))),
    "a complex key far in where dropped": _thing("".join(f"    k{i}: v\n" for i in range(9)) + "    ? [a]\n    : 1\n"
                                                + "".join(f"    m{i}: v\n" for i in range(9))),
    "large mappings nested where dropped": _thing("".join(f"    k{i}:\n" + "".join(f"      n{j}: {j}\n" for j in range(7)) for i in range(7))),
    # A List's items are each an object dropped from as composed, as a
    # document is (read.parts._DroppingItems): custom objects, configs' data
    # (past 2 entries here), a workload; items before the kind, as kubectl
    # writes them; and `items` in what turns out no List, composed again.
    "a List of objects dropped from": "apiVersion: v1\nkind: List\nitems:\n"
                                      "- apiVersion: example.com/v1\n  kind: Thing\n  metadata: {name: t}\n  spec:\n"
                                      + "".join(f"    k{i}: {{a: {i}}}\n" for i in range(9))
                                      + "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  data:\n"
                                      + "".join(f"    k{i}: v{i}\n" for i in range(6))
                                      + "- apiVersion: v1\n  kind: Secret\n  metadata: {name: s}\n  data: {a: YQ==, b: Yg==, c: Yw==}\n"
                                      "- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: d}\n  spec:\n"
                                      "    replicas: 2\n    strategy: {rollingUpdate: {maxSurge: 1}}\n"
                                      "    template:\n      spec:\n        containers: [{name: c, envFrom: [{configMapRef: {name: c}}]}]\n"
                                      "        volumes: [{name: v, secret: {secretName: s}}]\n"
                                      "  status: {replicas: 1}\n",
    "a List whose items come before its kind": "apiVersion: v1\nitems:\n"
                                               "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  data: {a: x, b: u, c: z, d: w}\n"
                                               "- apiVersion: example.com/v1\n  kind: Thing\n  metadata: {name: t}\n  spec: {a: {b: c}, d: [e, {f: g}]}\n"
                                               "kind: List\nmetadata: {resourceVersion: ''}\n",
    "items in what is no List": "apiVersion: example.com/v1\nitems:\n"
                                "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  data: {a: x, b: u, c: z, d: w}\n"
                                "- apiVersion: example.com/v1\n  kind: Thing\n  metadata: {name: t}\n  spec: {a: {b: c}}\n"
                                "kind: Thing\nmetadata: {name: outer}\nspec: {x: {y: z}}\n",
    "a List item's key written twice far apart": "apiVersion: v1\nkind: List\nitems:\n"
                                                 "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  data:\n"
                                                 "    a: x\n" + "".join(f"    k{i}: v\n" for i in range(5)) + "    a: u\n",
    "a List item's YAML 1.1 key far in": "apiVersion: v1\nkind: List\nitems:\n"
                                         "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  data:\n"
                                         + "".join(f"    k{i}: v\n" for i in range(5)) + "    on: x\n",
    "a List item's dropped key written twice far apart": "apiVersion: v1\nkind: List\nitems:\n- "
                                                         + _thing("    dup: 1\n" + "".join(f"    k{i}: v\n" for i in range(20))
                                                                  + "    dup: 2\n").replace("\n", "\n  ").rstrip(" "),
    "a List in a List": "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n"
                        "  - {apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {a: x, b: u, c: z}}\n"
                        "- {apiVersion: v1, kind: ConfigMap, metadata: {name: d}, data: {a: x, b: u, c: z}}\n",
    "a scalar document": "just text\n",
    "a sequence document": "- a\n- {b: c}\n",
}


# A grant's list of names (a reference whose path ends in an index, the
# spec `grants: true`) is read whole, as the rewrite adds each version's
# name to it: prune keeps the mapping holding it, and the scalars and lists
# of scalars beside it. A custom kind, as the built-in grants (RBAC rules)
# are kept whole by byname's own reads.
_WIDGET_SPECS = ("nameReference:\n- kind: ConfigMap\n  version: v1\n  fieldSpecs:\n"
                 "  - {kind: Widget, group: example.com, path: spec/configs, grants: true}\n")
_WIDGET = ("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"
           "spec:\n  features: [a, b]\n  configs: [c]\n  mixed: [a, {b: c}, d]\n"
           "  resources: {requests: {memory: 1Gi}}\n  replicas: 2\n"
           "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n")


def _widget_read(specs: str, monkeypatch, tmp_path) -> str:
    """The Widget's tree as read, pruned, after checking that it reads and
    renders as when it is read whole."""
    from ruamel.yaml import YAML

    table = fieldspecs.load_table([("test", YAML(typ="safe").load(specs))])
    dropped = _read(_WIDGET, True, monkeypatch, table=table)
    assert dropped == _read(_WIDGET, False, monkeypatch, table=table)
    config = tmp_path / "widget.yaml"
    config.write_text(specs)
    _rendered(_WIDGET, f"--config {config}", monkeypatch)
    return repr(dropped[0][0])


def test_lists_beside_a_grants_list_of_names_read_and_render_alike(tmp_path, monkeypatch):
    widget = _widget_read(_WIDGET_SPECS, monkeypatch, tmp_path)
    assert "'features'" in widget and "'b'" in widget  # kept: the list of scalars beside
    assert "'memory'" not in widget  # a mapping beside is not


def test_a_list_of_names_no_grant_holds_is_not_kept(tmp_path, monkeypatch):
    """The rewrite replaces a listed name's own scalar, which the walk holds
    (a container's `--secret-name` flags: 25,000 Deployments 253 -> 180 MiB)."""
    widget = _widget_read(_WIDGET_SPECS.replace(", grants: true", ""), monkeypatch, tmp_path)
    assert "'configs'" not in widget and "'features'" not in widget


@pytest.mark.parametrize("edits_everywhere", [False, True], ids=["render", "annotate"])
@pytest.mark.parametrize("shape", _SHAPES, ids=list(_SHAPES))
def test_a_shape_reads_and_renders_alike_when_dropped_from_as_composed(shape, edits_everywhere, monkeypatch):
    text = _SHAPES[shape]
    assert _read(text, True, monkeypatch, edits_everywhere) == _read(text, False, monkeypatch, edits_everywhere)
    _rendered(text, "--strategy annotate" if edits_everywhere else "", monkeypatch)


# --- The composer itself ----------------------------------------------------


def _composed(text: str, reach) -> tuple[MappingNode, bool]:
    composer = DroppingComposer(text, lambda kind, api_version, item: reach)
    try:
        return composer.get_single_node(), composer.dropped  # type: ignore[return-value]
    finally:
        composer.dispose()


def _value(node: MappingNode, key: str):
    return next(v for k, v in node.value if k.value == key)


def test_entries_off_every_read_path_are_dropped_as_the_next_starts():
    text = _SHAPES["a custom object with a long list"]
    root, dropped = _composed(text, {"metadata": True})
    assert dropped
    spec = _value(root, "spec")
    items = _value(spec, "items")
    # Beside the read paths, spec's values go once its next key starts: a
    # list of scalars under it goes item by item, all but the last.
    assert _value(spec, "items") is DROPPED_ITEM or all(i is DROPPED_ITEM for i in items.value[:-1])
    assert [k.value for k, _ in spec.value] == ["items", "nested"]  # keys stay, for the checks at the end
    nested = _value(spec, "nested")
    assert nested.value[0] is DROPPED_ITEM and isinstance(nested.value[-1], SequenceNode)
    # The metadata, read whole, and the root's scalars stay.
    assert _value(_value(root, "metadata"), "name").value == "t"
    assert _value(root, "kind").value == "Thing"


def test_a_read_path_keeps_its_nodes_and_the_scalars_and_scalar_lists_beside_it():
    text = _SHAPES["a Deployment"].split("---\n")[0]
    reach = {"metadata": True, "spec": {"template": True}}
    root, _ = _composed(text, reach)
    spec = _value(root, "spec")
    assert _value(spec, "replicas").value == "2"
    template = _value(spec, "template")
    containers = _value(_value(template, "spec"), "containers")
    assert _value(containers.value[0], "args").value[0].value == "--config=c"  # read whole
    # `selector`, off the read paths, beside them: its entries dropped
    # but the last; `status` the same from the root.
    assert isinstance(_value(_value(spec, "selector"), "matchLabels"), MappingNode)
    conditions = _value(_value(root, "status"), "conditions")
    assert conditions.value[0] is DROPPED_ITEM and isinstance(conditions.value[1], MappingNode)
    assert _value(_value(root, "status"), "replicas") is DROPPED_ITEM


def test_a_list_of_scalars_beside_a_read_path_keeps_its_items():
    text = "apiVersion: v1\nkind: Thing\nmetadata: {}\nlist: [a, b, c]\nmixed: [a, {b: c}, d]\n"
    root, _ = _composed(text, {"metadata": True})
    assert [i.value for i in _value(root, "list").value] == ["a", "b", "c"]
    mixed = _value(root, "mixed").value
    assert isinstance(mixed[0], ScalarNode) and mixed[1] is DROPPED_ITEM and mixed[2].value == "d"


def test_a_wildcard_reaches_every_key_and_what_a_named_key_reaches_beside_it():
    text = ("apiVersion: v1\nkind: Thing\nmetadata: {}\nspec:\n"
            "  a: {keep: {x: {y: 1}, z: 0}, drop: {y: {z: 1}, w: 2}, last: 0}\n"
            "  b: {keep: {x: {y: 1}, z: 0}, drop: {y: {z: 1}, w: 2}, last: 0}\n  c: 0\n")
    reach = {"metadata": True, "spec": {"*": {"keep": {}}, "b": {"drop": {}}}}
    _merge_wildcards(reach)
    assert reach["spec"]["b"] == {"keep": {}, "drop": {}}
    root, _ = _composed(text, reach)
    spec = _value(root, "spec")
    for key in ("a", "b"):  # `keep` reached by the wildcard: its children stay (prune stubs them)
        assert isinstance(_value(_value(_value(spec, key), "keep"), "x"), MappingNode)
    # `drop` is off a's paths: what is under it goes; b names it.
    assert _value(_value(_value(spec, "a"), "drop"), "y") is DROPPED_ITEM
    assert isinstance(_value(_value(_value(spec, "b"), "drop"), "y"), MappingNode)


@pytest.mark.parametrize("reach", [None, {"metadata": True}], ids=["kept whole", "dropped"])
def test_nothing_is_dropped_before_kind_and_api_version_are_known(reach):
    text = "spec: {a: {b: c}, d: e}\nkind: Thing\napiVersion: v1\nlater: {a: {b: c}, d: e}\n"
    root, dropped = _composed(text, reach)
    assert isinstance(_value(_value(root, "spec"), "a"), MappingNode)
    assert dropped is (reach is not None)
    assert (_value(_value(root, "later"), "a") is DROPPED_ITEM) is (reach is not None)


def test_a_dense_document_is_composed_without_holding_its_list(monkeypatch):
    # Read's own path: a document of DROP_FROM characters or more, a custom
    # object whose 100,000 items no stage reads, reaches the pruner with
    # every item but the last already gone.
    text = ("apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec:\n  items:\n"
            + "".join(f"  - {i}\n" for i in range(100_000)))
    assert len(text) >= read_compose.DROP_FROM
    seen = []
    needs = _needs(False)
    call = Needs.__call__

    def spy(self, doc, objects, walked=False):
        items = _value(_value(doc.root, "spec"), "items")
        seen.append(sum(item is not DROPPED_ITEM for item in items.value))
        return call(self, doc, objects, walked)

    monkeypatch.setattr(Needs, "__call__", spy)
    stream = read([Source("input.yaml", text)], Limits(), needs)
    assert seen == [1]
    assert stream.documents[0].root.value == ()  # pruned to a stub, as the whole graph is


def _crd(properties: int) -> str:
    """A CRD whose schema has `properties` properties: its text names its
    List kind and describes `items`, as every CRD's does."""
    fields = "".join(f"                field{i}:\n                  type: string\n"
                     f"                  description: the items of field {i}\n" for i in range(properties))
    return ("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
            "  name: widgets.example.com\nspec:\n  group: example.com\n"
            "  names: {kind: Widget, listKind: WidgetList, plural: widgets}\n  scope: Namespaced\n"
            "  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n"
            "      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n"
            "            type: object\n            properties:\n" + fields)


@pytest.mark.parametrize("kind", ["CustomResourceDefinition", "List", "'CustomResourceDefinition'"])
def test_a_large_document_naming_a_list_is_read_as_a_list_only_if_its_kind_may_be_one(kind, monkeypatch):
    # A CRD names its List kind and describes `items`, the marks of a List
    # read item by item: read at the first column that its kind is none,
    # it is dropped from as composed. A List, or a kind read cannot tell
    # (quoted), takes the List's way (dropped from too, its items each as
    # an object), which reads it whole if it is none.
    text = _crd(3000).replace("kind: CustomResourceDefinition", f"kind: {kind}", 1)
    assert len(text) >= read_compose.DROP_FROM and "List" in text and "items" in text
    as_list = []
    composer = read_parts._Dropping.composer
    monkeypatch.setattr(read_parts._Dropping, "composer",
                        lambda self, t: as_list.append(self.on_item is not None) or composer(self, t))
    stream = read([Source("input.yaml", text)], Limits(), _needs(False))
    assert as_list == [kind != "CustomResourceDefinition"]
    assert stream.documents[0].root.value == ()  # pruned to a stub either way
    assert _read(text, True, monkeypatch) == _read(text, False, monkeypatch)


_LISTS = [shape for shape in _SHAPES if "List" in shape or "items" in shape]


@pytest.mark.parametrize("argv", VARIANTS)
@pytest.mark.parametrize("shape", _LISTS)
def test_a_lists_items_render_alike_when_dropped_from_as_composed(shape, argv, monkeypatch):
    # Every variant: where a config item may be copied (--keep-original) or
    # its edits are not made ahead (--keep-previous), it is read whole.
    _rendered(_SHAPES[shape], argv, monkeypatch)


def test_a_large_list_is_dropped_from_item_by_item_only_if_an_item_may_be_large(monkeypatch):
    monkeypatch.undo()  # read's own thresholds
    small = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n"
             + "".join(f"  key{j}: value\n" for j in range(40)))
    items = "".join(_indented(small.format(i=i)) for i in range(1500))
    dense = _indented("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dense\ndata:\n"
                      + "".join(f"  k{j}: v\n" for j in range(40_000)))
    named = _indented("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: named\ndata:\n"
                      + "".join(f"  kind{j}: v\n" for j in range(40_000)))
    for body, dropped in ((items, False), (items + dense, True), (dense + items, True), (items + named, True),
                          (named + items, True)):
        text = "apiVersion: v1\nkind: List\nitems:\n" + body
        assert len(text) >= read_compose.DROP_FROM
        assert read_compose._may_hold_a_large_item(text) is dropped
        # The same indented under `items`, and in kubectl's order (`kind` after `items`).
        indented = "apiVersion: v1\nitems:\n" + "".join("  " + line if line else line
                                                         for line in body.splitlines(True)) + "kind: List\n"
        assert read_compose._may_hold_a_large_item(indented) is dropped
    # A large item that names `kind` all through is found from the items'
    # starts in block style only: as JSON (one line per item here) it is not.
    as_json = ('{"apiVersion": "v1", "kind": "List", "items": [\n'
               + ",\n".join('{"kind": "ConfigMap", "data": {"a": "b"}}' for _ in range(8000))
               + ',\n{"kind": "ConfigMap", "data": {' + ", ".join(f'"kind{j}": "v"' for j in range(40_000)) + "}}]}\n")
    assert len(as_json) >= read_compose.DROP_FROM
    assert not read_compose._may_hold_a_large_item(as_json)


def _indented(document: str) -> str:
    lines = document.rstrip("\n").split("\n")
    return "- " + lines[0] + "".join("\n  " + line for line in lines[1:]) + "\n"


# A container's env items taken out as they are composed (needs._take_env_strings):
# values naming the ConfigMap plainly, quoted, as a flag, before their
# name, through a filtered spec's variable, and as the last item (a tag
# anywhere has the document composed whole).
_ENV_ITEMS = ["value: v", "value: settings", "value: 'settings'", "value: settings-x",
              'value: "--config=settings"', "value: ''", "value: ~",
              "valueFrom:\n    configMapKeyRef: {name: settings, key: k}"]


@pytest.mark.parametrize("last", ["value: settings", "value: v"])
@pytest.mark.parametrize("argv", ["", "--strategy annotate"])
def test_env_items_taken_out_as_composed_render_alike(last: str, argv: str, monkeypatch):
    entries = [f"- name: VAR_{i}\n  {_ENV_ITEMS[i % len(_ENV_ITEMS)]}" for i in range(40)]
    entries += ["- value: settings\n  name: POD_NAMESPACE", "- name: INIT_CONFIG\n  value: settings",
                f"- name: LAST\n  {last}"]
    env = "".join("        " + line + "\n" for entry in entries for line in entry.split("\n"))
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  k: v\n---\n"
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n"
            "      initContainers:\n      - name: i\n        env:\n" + env +
            "      containers:\n      - name: c\n        env:\n" + env)
    taken = []
    take = references.TakenStrings.take
    monkeypatch.setattr(references.TakenStrings, "take", lambda self, *args: taken.append(take(self, *args)) or taken[-1])
    _rendered(text, argv, monkeypatch)
    assert sum(taken) > 40  # both lists' plain items, but the filtered one's and those of valueFrom


@pytest.mark.parametrize("first", ['"name": A\n  "value": settings', "name: A\n  value: settings\n  extra: x",
                                   "name: A\n  value: v"])
@pytest.mark.parametrize("args", ["", 'args: ["--config-map-name=other", "settings"]'])
def test_the_reader_cited_is_the_same_when_env_items_are_taken(first: str, args: str, monkeypatch):
    """An item kept whole (quoted keys, a third key) before taken items that
    name the same ConfigMap, beside flags that name it too: -v names the same
    first reader either way (review63: the taken values were merged in under
    a filtered spec's place, ahead of the kept ones and of `args`)."""
    entries = [f"- {first}", "- name: B\n  value: settings"] + [f"- name: V{i}\n  value: v{i}" for i in range(20)]
    env = "".join("        " + line + "\n" for entry in entries for line in entry.split("\n"))
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  k: v\n---\n"
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n"
            "      containers:\n      - name: c\n" + (f"        {args}\n" if args else "") + "        env:\n" + env)
    _rendered(text, "", monkeypatch)


def test_a_users_spec_filtering_env_leaves_the_env_items_taken_readable(tmp_path, monkeypatch):
    """A field spec of the user's on `env[name=...]` whose tree has no `value`
    (review63: the walk took its step for the plain `env`'s, and failed)."""
    config = tmp_path / "spec.yaml"
    config.write_text("nameReference:\n- kind: ConfigMap\n  version: v1\n  fieldSpecs:\n  - kind: Deployment\n"
                      "    path: spec/template/spec/containers/env[name=CFG]/valueFrom/configMapKeyRef/name\n")
    env = "".join(f"        - name: V{i}\n          value: v{i}\n" for i in range(20))
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  k: v\n---\n"
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n"
            "      containers:\n      - name: c\n        env:\n        - name: CFG\n          valueFrom:\n"
            "            configMapKeyRef: {name: settings, key: k}\n" + env)
    taken = []
    take = references.TakenStrings.take
    monkeypatch.setattr(references.TakenStrings, "take", lambda self, *a: taken.append(take(self, *a)) or taken[-1])
    _rendered(text, f"--config {config}", monkeypatch)
    assert sum(taken) >= 19  # the plain items were taken, the filtered one's list read all the same


# Env items of every shape taken or kept (references._TakenValues): values
# and names quoted, block scalars, an empty name and one no string (their
# context None: -v cites the first to name `blank` and `five` so), a NUL in
# a name or a value (kept), no string values (taken, no pod string), and
# items read whole between taken ones (a third key, quoted keys, valueFrom).
_ENV_SHAPES = ["name: V{i}\n  value: v_{i}", "name: V{i}\n  value: settings", "name: 'V{i}'\n  value: 'web'",
               'name: V{i}\n  value: "--config=settings"', "value: creds\n  name: S{i}", "name: ''\n  value: blank",
               "name: 5\n  value: five", "name: V{i}\n  value: ''", "name: V{i}\n  value: 12",
               'name: "a\\0b"\n  value: settings', 'name: V{i}\n  value: "x\\0web"',
               "name: V{i}\n  value: |-\n    settings", "name: V{i}\n  value: >-\n    web",
               "name: V{i}\n  value: settings\n  extra: x", '"name": V{i}\n  "value": web',
               "name: V{i}\n  valueFrom:\n    configMapKeyRef: {{name: web, key: k}}"]


@pytest.mark.parametrize("joined", [2, 7, 1024])
@pytest.mark.parametrize("argv", ["-v", "--strategy annotate -v", "--keep-previous=argocd"])
def test_env_items_of_every_shape_render_alike_their_texts_joined(joined: int, argv: str, monkeypatch):
    """However many texts are joined to a string (_TEXTS_JOINED), taken
    items read as the whole document's do, in the same order."""
    monkeypatch.setattr(references, "_TEXTS_JOINED", joined)
    items = [_ENV_SHAPES[(i * 7) % len(_ENV_SHAPES)].format(i=i) for i in range(3 * len(_ENV_SHAPES))]
    env = "".join(f"        {line}\n" for item in items for line in f"- {item}".split("\n"))
    configs = "".join(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n---\n" for name in ("blank", "five"))
    text = (_CONFIGS + configs + "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n"
            "  template:\n    spec:\n      initContainers:\n      - name: i\n        env:\n" + env
            + "      containers:\n      - name: c\n        env:\n" + env)
    taken = []
    take = references.TakenStrings.take
    monkeypatch.setattr(references.TakenStrings, "take", lambda self, *a: taken.append(take(self, *a)) or taken[-1])
    _rendered(text, argv, monkeypatch)
    assert sum(taken) > len(items)  # most of both lists' items
    assert sum(taken) < len(taken) - 10  # not the NULs', the third key's, the quoted keys', valueFrom's


def test_the_shared_texts_of_nodes_let_go_are_let_go_however_small_their_lists(monkeypatch):
    """A tree of many small lists no stage reads, each under any one list's
    own count: the table of shared texts (syntax/nodes.py) is bounded as
    their items are let go, not only at the document's end (review63: a
    cube of 2×1000×1000 short texts took 4× the memory of sys.intern)."""
    monkeypatch.setattr(nodes_module, "_SHARED_TEXTS_HELD", 64)
    # What earlier tests in this process left in the table goes first: the
    # bound is asked as a document starts, after the first texts are shared
    # (review64: 5,011 entries at the first, run after other tests).
    nodes_module._bound_shared_texts()
    rows = "".join("    - [" + ", ".join(f"x{r}_{c}" for c in range(100)) + "]\n" for r in range(50))
    text = "apiVersion: example.com/v1\nkind: Thing\nmetadata:\n  name: t\nspec:\n  rows:\n" + rows
    table, share, sizes = nodes_module._shared_texts, nodes_module._share, []

    def counted(text: str, default: str) -> str:
        sizes.append(len(table))
        return share(text, default)

    monkeypatch.setattr(nodes_module, "_share", counted)
    _read(text, True, monkeypatch)
    assert len(sizes) > 5000
    assert max(sizes) <= 64 + 2 * nodes_module._BOUND_EVERY


# A container's `args` and `command` taken out as they are composed
# (needs._take_container_strings, references.TakenStrings): plain and
# quoted strings, flags naming the ConfigMap or the Secret as `--flag=name`
# and as `--flag name` (podSpecArgs: those stay), a `--namespace` pair those
# read, items no string (a number, `-5` before a value, null), an empty
# string and a NUL, which stay, and names the pod strings read (`--config=`;
# `web` only after `--publish-service`, which names a Service: not the
# ConfigMap `web`, which is renamed where its flag is read).
_ARGUMENTS = ["a", "settings", "'settings'", '"--config=settings"', "--secret-name=creds", "--configmap",
              "settings", "--configmap=settings", "-5", "settings", "7", "~", '""', '"x\\0y"', "--namespace",
              "default", "--config-map-name", "'settings'", "-default-server-tls-secret", "creds",
              "--log-level  debug", "settings", "|-\n  settings", "--config=$(POD_NAMESPACE)/settings",
              "--publish-service", "web"]


def _pod(kind: str, last: str, anchors: bool = False) -> str:
    items = [_ARGUMENTS[i % len(_ARGUMENTS)] for i in range(70)] + [last]
    listed = "".join("".join(f"      {line}\n" if at else f"    - {line}\n" for at, line in enumerate(item.split("\n")))
                     for item in items)
    anchor, alias = ("&first ", "\n    - *first") if anchors else ("", "")
    spec = ("spec:\n  containers:\n  - name: c\n    command:\n    - " + anchor + "/bin/app" + alias + "\n"
            "    - --config=settings\n    args:\n" + listed + "  - name: d\n    args:\n" + listed)
    if kind == "Deployment":
        spec = "spec:\n  template:\n    " + spec.replace("\n", "\n    ").rstrip(" ")
    return (f"apiVersion: {'apps/v1' if kind == 'Deployment' else 'v1'}\nkind: {kind}\nmetadata:\n  name: app\n"
            + spec)


_CONFIGS = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  k: v\n---\n"
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\nstringData:\n  k: v\n---\n"
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  k: v\n---\n")


@pytest.mark.parametrize("kind", ["Pod", "Deployment"])
@pytest.mark.parametrize("last", ["settings", "--secret-name=creds", "x"])
@pytest.mark.parametrize("argv", ["", "--strategy annotate", "--keep-original=all --keep-previous helm"])
@pytest.mark.parametrize("joined", [3, 1024])
def test_arguments_taken_out_as_composed_render_alike(kind: str, last: str, argv: str, joined: int, monkeypatch):
    # With 3 texts joined to a string, a `--flag value` pair and the runs
    # the walk merges in cross the strings' bounds (review64).
    monkeypatch.setattr(references, "_TEXTS_JOINED", joined)
    taken = []
    take = references.TakenStrings.take
    monkeypatch.setattr(references.TakenStrings, "take", lambda self, *a: taken.append(take(self, *a)) or taken[-1])
    _rendered(_CONFIGS + _pod(kind, last), argv, monkeypatch)
    assert sum(taken) > 60  # the plain ones of both containers' args, but the flags' names
    assert sum(taken) < len(taken) - 20


@pytest.mark.parametrize("kind", ["Pod", "Deployment"])
def test_a_pod_with_anchors_and_aliases_renders_alike(kind: str, monkeypatch):
    """Composed whole (an anchor needs the whole-graph checks): nothing taken."""
    _rendered(_CONFIGS + _pod(kind, "settings", anchors=True), "", monkeypatch)


def test_a_pod_is_read_whole_but_its_containers_lists_of_strings():
    """A Pod is its own pod template: read whole, as a Deployment's template
    is, but for its containers' `env`, `args` and `command` (None before:
    a Pod of 200,000 `args` was composed whole, 86 MiB peak)."""
    reach = _needs(False).reach("Pod", "v1")
    assert reach is not None and reach["*"] is nodes_module.WHOLE_REACH
    containers = reach["spec"]["containers"]
    assert {key for key, mark in containers.items() if isinstance(mark, nodes_module.StringItems)} == {
        "env", "args", "command"}
    assert containers["args"].flags >= {"--configmap", "-configmap", "--secret-name"}
    assert containers["command"].first == "" and containers["args"].first is None


@pytest.mark.parametrize("path", ["spec/containers[name=c]/args", "spec/containers/args"])
def test_a_users_spec_reading_arguments_leaves_them_in_the_tree(path: str, tmp_path, monkeypatch):
    """A user's field spec that reads every argument as a name, through a
    filtered container or not: the `args` are not taken out, and read so
    (the `command`, which it does not read, is taken but for a filtered
    container's: a filtered step beside the plain one keeps its lists)."""
    config = tmp_path / "spec.yaml"
    config.write_text("nameReference:\n- kind: ConfigMap\n  version: v1\n  fieldSpecs:\n"
                      f"  - kind: Pod\n    path: {path}\n")
    taken = []
    take = references.TakenStrings.take

    def spied(self, items, at, mark):
        taken.append((mark.first, take(self, items, at, mark)))
        return taken[-1][1]

    monkeypatch.setattr(references.TakenStrings, "take", spied)
    _rendered(_CONFIGS + _pod("Pod", "settings"), f"--config {config}", monkeypatch)
    assert not any(done for first, done in taken if first is None)  # no argument of `args`
