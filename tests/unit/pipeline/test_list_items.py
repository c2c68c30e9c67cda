"""A `List`'s items are read as the same objects written as documents would
be: the per-object work over text looks at each item's own text, so a List
reads in time linear in its size, and an alias reaching across items still
leads the walk to what it names."""

import io
import re
from pathlib import Path

import pytest

from conftest import FIXTURES
from postrender import fieldspecs
from postrender.errors import PostrenderError
from postrender.limits import Limits
from postrender.pipeline.read import compose as read_compose
from postrender.pipeline.read.compose import recompose
from postrender.syntax.nodes import MappingNode, ScalarNode, StubMapping, unique_nodes
from postrender.fieldspecs.walk import Compiled
from postrender.frontends import krm
from postrender.pipeline.graph.byname import pod_string_specs
from postrender.pipeline.needs import Needs
from postrender.options import RenderOptions
from postrender.pipeline.graph.references import NOTHING, _written_in
from postrender.pipeline.read import read
from postrender.pipeline.read.documents import Source
from postrender.pipeline.render import render
from postrender.report import Reporter

TABLE = fieldspecs.load_table()

_APP = """\
- apiVersion: v1
  kind: Secret
  metadata: {{name: s{i}}}
  stringData: {{k: v{i}}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {{name: d{i}}}
  spec:
    template:
      spec:
        containers: [{{name: c, image: x}}]
        volumes:
        - name: v
          secret: {{secretName: s{i}}}
"""


_HEADS = {
    "List": "apiVersion: v1\nkind: List\n",
    # A KRM function (kustomize --enable-exec, kpt) is given every object as
    # an item of one ResourceList.
    "ResourceList": "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n",
}


def _list(apps: int, kind: str = "List") -> str:
    return _HEADS[kind] + "items:\n" + "".join(_APP.format(i=i) for i in range(apps))


def _render(text: str) -> str:
    reporter = Reporter(verbose=False, stderr=io.StringIO())
    return render([Source("list.yaml", text)], RenderOptions(), reporter).output


@pytest.mark.parametrize("kind", sorted(_HEADS))
def test_the_text_scanned_for_a_lists_items_is_the_lists_size_not_its_square(monkeypatch, kind):
    # Each item used to hand the whole List to Compiled.may_reach: 200 apps
    # scanned 400 times the List's text (time ×14.8 from 1,000 apps to 5,000).
    scanned = []
    may_reach = Compiled.may_reach

    def counting(self, text):
        scanned.append(len(text))
        return may_reach(self, text)

    monkeypatch.setattr(Compiled, "may_reach", counting)
    text = _list(200, kind)
    if kind == "List":
        output = _render(text)
    else:
        reporter = Reporter(verbose=False, stderr=io.StringIO())
        output = krm.run([Source(None, text)], RenderOptions(), reporter)
    assert len(scanned) == 200  # every Deployment was asked about (Secrets have no specs)
    assert sum(scanned) <= 2 * len(text)
    assert output.count("secretName: s") == 200 and "secretName: s7-" in output  # each rewritten


def test_an_items_own_text_is_its_span_without_aliases():
    text = _list(3)
    stream = read([Source("list.yaml", text)], RenderOptions().limits)
    spans = [_written_in(obj) for obj in stream.objects]
    assert [span.lstrip().split("\n", 2)[1].strip() for span in spans] == ["kind: Secret", "kind: Deployment"] * 3
    at = 0
    for span in spans:  # each item's own lines, in order
        at = text.index(span, at) + len(span)
    assert "s2" in spans[-1] and "s1" not in spans[-1] and len(spans[-1]) < len(text) / 4


def test_an_alias_across_items_is_walked_from_the_item_that_uses_it():
    # The last Deployment's volumes are the first's, through an alias: its
    # own span holds no `secretName`, so it must be looked at in the whole
    # text, where the anchor is. The one scalar is then a reference from
    # each Deployment at the same path: two references, both rewritten
    # alike (as one, the render refused to edit a node an alias shares).
    text = _list(1).replace("        volumes:\n", "        volumes: &shared\n") + """\
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: uses-alias}
  spec:
    template:
      spec:
        containers: [{name: c, image: x}]
        volumes: *shared
"""
    stream = read([Source("list.yaml", text)], RenderOptions().limits)
    user = stream.objects[-1]
    assert "secretName" not in text[user.node.start_mark:user.node.end_mark]
    assert _written_in(user) == text
    reporter = Reporter(verbose=True, stderr=io.StringIO(), keep_infos=True)
    result = render([Source("list.yaml", text)], RenderOptions(), reporter)
    rewritten = sorted((ref.referrer.name, new) for ref, new in result.rewrite.rewritten)
    assert [name for name, _ in rewritten] == ["d0", "uses-alias"]
    assert rewritten[0][1] == rewritten[1][1] != "s0"
    assert result.output.count(f"secretName: {rewritten[0][1]}}}") == 1
    assert result.output.endswith("volumes: *shared\n")


def test_a_lists_config_items_take_their_marks_without_the_list_composed_again(monkeypatch):
    # A List's configs keep their whole items (pipeline/needs.py), so their
    # marks go there; composing the whole List again for them doubled the
    # peak memory of a large one (5,000 apps: 421 MiB, now 275).
    from postrender.pipeline import rewrite

    composed = []
    recompose = rewrite.recompose
    monkeypatch.setattr(rewrite, "recompose", lambda doc: composed.append(doc) or recompose(doc))
    text = _list(3).replace("  kind: Secret\n", "  kind: ConfigMap\n").replace("stringData:", "data:")
    text = text.replace("secret: {secretName:", "configMap: {name:")
    sources = [Source("list.yaml", text)]
    reporter = Reporter(verbose=False, stderr=io.StringIO())
    # Pruned as a render reads it, the List cannot take keys as a whole (its
    # Deployments kept no metadata), but its three ConfigMaps can.
    options = RenderOptions()
    needs = Needs(TABLE, pod_string_specs(TABLE))
    (doc,) = read(sources, options.limits, needs).documents
    assert not doc.kept_for_edits and doc.items_kept_for_edits == {0, 2, 4}
    whole = render(sources, options, reporter, read(sources, options.limits)).output  # nothing pruned
    pruned = render(sources, options, reporter).output
    assert pruned == whole and composed == []
    assert pruned.count("postrender.io/content-hash") == 3 and "name: s2-" in pruned


# --- A List read item by item (read.parts._Items) ---------------------------------


_GOLDEN = sorted(p for p in (FIXTURES / "golden").iterdir() if (p / "input.yaml").exists())


def _as_list(stream: str, kind_last: bool) -> str | None:
    """The stream's documents as one List's items, written as kubectl writes
    one (`items` before `kind` when kind_last); None for a stream with no
    object."""
    items = []
    for doc in stream.split("\n---\n"):
        lines = [line for line in doc.strip("\n").split("\n") if not line.startswith("---")]
        while lines and (not lines[0].strip() or lines[0].startswith("#")):
            lines.pop(0)
        if lines:
            items.append("- " + lines[0] + "\n" + "".join(("  " + line if line else "") + "\n" for line in lines[1:]))
    if not items:
        return None
    if kind_last:
        return "apiVersion: v1\nitems:\n" + "".join(items) + "kind: List\nmetadata: {resourceVersion: ''}\n"
    return "apiVersion: v1\nkind: List\nitems:\n" + "".join(items)


def _dump(node) -> object:
    """A node graph as plain data: every node's class, tag, value and offsets."""
    if isinstance(node, ScalarNode):
        return ("scalar", node.tag, node.value, node.style, node.start_mark, node.end_mark)
    if isinstance(node, MappingNode):
        pairs = [(_dump(k), _dump(v)) for k, v in node.value]
        return (type(node).__name__, node.tag, node.start_mark, node.end_mark, pairs)
    return (type(node).__name__, node.tag, node.start_mark, node.end_mark, [_dump(i) for i in node.value])


def _read_pruned(text: str, items_as_composed: bool, monkeypatch) -> tuple[object, list[str]]:
    """(the documents read, pruned, as data; each object's kind, name and
    node as data), a List's items taken as composed or not."""
    with monkeypatch.context() as patch:
        if not items_as_composed:
            patch.setattr(read_compose, "_takes_items", lambda doc: False)
        try:
            stream = read([Source("list.yaml", text)], Limits(), Needs(TABLE, pod_string_specs(TABLE)))
        except PostrenderError as error:
            return f"error: {error}", []
    return ([_dump(d.root) if d.root is not None else None for d in stream.documents],
            [(o.kind, o.name, o.item, _dump(o.node)) for o in stream.objects])


@pytest.mark.parametrize("kind_last", [False, True], ids=["kind-first", "items-first"])
@pytest.mark.parametrize("case", _GOLDEN, ids=[c.name for c in _GOLDEN])
def test_a_list_read_item_by_item_keeps_what_a_list_read_whole_keeps(case: Path, kind_last, monkeypatch):
    # Pruning each item as it is composed must leave the very tree pruning
    # the whole List leaves, node for node and offset for offset; and so
    # must a List that falls back to being read whole (tags, aliases, keys
    # that are not plain): both sides then read it whole.
    text = _golden_as_list(case, kind_last)
    assert _read_pruned(text, True, monkeypatch) == _read_pruned(text, False, monkeypatch)


@pytest.mark.parametrize("kind_last", [False, True], ids=["kind-first", "items-first"])
@pytest.mark.parametrize("case", _GOLDEN, ids=[c.name for c in _GOLDEN])
def test_a_golden_input_as_a_list_renders_alike_pruned_and_whole(case: Path, kind_last):
    # The render of the List read item by item (pruned) against the render
    # of the same List read without pruning: output, warnings and notes.
    args = case / "args"
    _renders_alike(_golden_as_list(case, kind_last), args.read_text() if args.exists() else "")


def _golden_as_list(case: Path, kind_last: bool) -> str:
    text = _as_list(case.joinpath("input.yaml").read_text(encoding="utf-8"), kind_last)
    if text is None:
        pytest.skip("no object")
    return text


def _renders_alike(text: str, argv: str) -> None:
    from test_pruning import _render as render_with  # the comparison every pruning test makes

    try:
        whole = render_with(text, argv, pruned=False)
    except PostrenderError as error:  # the List does not read: the same error either way
        whole = (f"error: {error}", [], [])
    assert render_with(text, argv, pruned=True) == whole


# Tags a List's items may hold, each read as written and checked as a whole
# List's walk checks them (read.kubectl._check_structure), and each item still taken
# as it is composed (read.parts._Items): (what is written, with what).
_TAGGED = {
    "none": ("", ""),
    "a !!str name": ("name: s", "name: !!str s"),
    "a !!str key": ("  kind: Service", "  !!str kind: Service"),
    "a non-specific tag": ("name: svc", "name: ! svc"),
    "a !!str number in data": ("stringData: {{k: v{i}}}", "stringData: {{k: !!str {i}}}"),
    "a !!binary value in data": ("stringData: {{k: v{i}}}", "data: {{k: !!binary dg==}}"),
    "an !!int port": ("ports: [{{port: {i}}}]", "ports: [{{port: !!int '{i}'}}]"),
    "a !!map and a !!seq": ("spec: {{ports:", "spec: !!map {{ports: !!seq"),
}


@pytest.mark.parametrize("tagged", _TAGGED, ids=list(_TAGGED))
@pytest.mark.parametrize("edits_everywhere", [False, True], ids=["render", "annotate"])
def test_each_item_is_pruned_before_the_next_is_composed(monkeypatch, edits_everywhere, tagged):
    # When item k is handed over, every item before it must be pruned as it
    # is at the end of the read: a List pruned only once composed held its
    # whole graph (5,000 apps: 269 MiB, 51 as a stream). Services, which no
    # stage reads, become stubs, and so do Deployments (the walk keeps their
    # facts); Secrets stay whole. In a run that gives workloads keys
    # (--strategy annotate), a Deployment keeps its metadata and its pod
    # template's, and the rest goes.
    service = "- apiVersion: v1\n  kind: Service\n  metadata: {{name: svc{i}}}\n  spec: {{ports: [{{port: {i}}}]}}\n"
    probed = "        containers: [{name: c, image: x, resources: {limits: {cpu: 1}}, readinessProbe: {periodSeconds: 5}}]"
    app = _APP.replace("        containers: [{{name: c, image: x}}]", probed.replace("{", "{{").replace("}", "}}"))
    # A List that may hold tags is walked item by item (a `!!str` name:
    # 5,000 apps as one List peaked at 221 MiB, 89 untagged).
    written, tag = _TAGGED[tagged]
    app, service = app.replace(written, tag), service.replace(written, tag)
    assert tag in app + service
    text = "apiVersion: v1\nkind: List\nitems:\n" + "".join((app + service).format(i=i) for i in range(20))
    seen: list[tuple[int, list[int]]] = []
    item = Needs.item

    def watching(self, obj, items):
        seen.append((obj.item, [len(unique_nodes(node)) for node in items.value[:obj.item]]))
        return item(self, obj, items)

    monkeypatch.setattr(Needs, "item", watching)
    needs = Needs(TABLE, pod_string_specs(TABLE), edits_everywhere=edits_everywhere)
    stream = read([Source("list.yaml", text)], Limits(), needs)
    (doc,) = stream.documents
    assert [at for at, _ in seen] == list(range(60))
    final = [len(unique_nodes(node)) for node in doc.root.value[-1][1].value]
    assert all(sizes == final[:at] for at, sizes in seen), "an item stayed whole after the next was composed"
    assert any(size > 1 for size in final)  # some items keep paths: not all are stubs
    whole = len(unique_nodes(recompose(doc).value[-1][1].value[1]))  # a Deployment's
    for obj in stream.objects:
        if obj.kind == "Secret":
            assert not isinstance(obj.node, StubMapping)
        elif edits_everywhere and obj.kind == "Deployment":  # metadata kept, its probe not
            assert 1 < len(unique_nodes(obj.node)) < whole
        else:  # a Service gets no keys even then (needs._Readers.takes_keys)
            assert isinstance(obj.node, StubMapping)


def _tagged_list(tagged: str, apps: int = 4) -> str:
    written, tag = _TAGGED[tagged]
    service = "- apiVersion: v1\n  kind: Service\n  metadata: {{name: svc{i}}}\n  spec: {{ports: [{{port: {i}}}]}}\n"
    app = (_APP + service).replace(written, tag)
    return "apiVersion: v1\nkind: List\nitems:\n" + "".join(app.format(i=i) for i in range(apps))


@pytest.mark.parametrize("argv", ["", "--strategy annotate"])
@pytest.mark.parametrize("tagged", _TAGGED, ids=list(_TAGGED))
def test_a_tagged_list_read_item_by_item_reads_and_renders_as_read_whole(tagged, argv, monkeypatch):
    text = _tagged_list(tagged)
    taken = _read_pruned(text, True, monkeypatch)
    assert not isinstance(taken, str) and taken == _read_pruned(text, False, monkeypatch)
    _renders_alike(text, argv)


def _tag_names(stream: str) -> str:
    """Each plain name of the stream written with a `!!str` tag."""
    return re.sub(r"(\bname: )(?=[A-Za-z])", r"\1!!str ", stream)


@pytest.mark.parametrize("case", _GOLDEN, ids=[c.name for c in _GOLDEN])
def test_a_golden_input_as_a_list_with_tagged_names_reads_and_renders_alike_pruned_and_whole(case: Path, monkeypatch):
    text = _tag_names(_golden_as_list(case, kind_last=True))
    assert _read_pruned(text, True, monkeypatch) == _read_pruned(text, False, monkeypatch)
    args = case / "args"
    _renders_alike(text, args.read_text() if args.exists() else "")


def test_a_tagged_list_holding_a_key_twice_in_its_own_fields_reads_its_items_once(monkeypatch):
    # The List's own walk finds the key after its items were taken: they are
    # taken again, once, from the text without the earlier entry.
    text = _tagged_list("a !!str name").replace("kind: List\n", "kind: List\napiVersion: v1\n", 1)
    taken = _read_pruned(text, True, monkeypatch)
    assert taken == _read_pruned(text, False, monkeypatch)
    assert len(taken[1]) == 12 and len({(kind, name) for kind, name, _, _ in taken[1]}) == 12
    _renders_alike(text, "")
    # What the walk found in the items taken first is not kept.
    needs = Needs(TABLE, pod_string_specs(TABLE))
    stream = read([Source("list.yaml", text)], Limits(), needs)
    kept = {id(obj) for obj in stream.objects}
    assert needs._found and all(id(obj) in kept for obj in needs._found)
    assert any(needs.found_in(obj).references for obj in stream.objects if obj.kind == "Deployment")


_FALLBACKS = {
    # Each is read whole after all, so that what it says is what it said.
    "an unreadable tag in an item": ("", "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: t}\n"
                                         "  data: {a: !!int many}\n"),
    "a !!binary name": ("", "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: !!binary dg==}\n"),
    "a tagged key written twice in an item": ("", "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: k}\n"
                                                  "  data: {a: x, !!str a: y}\n"),
    "a kind that is no List": ("kind: Listing\nmetadata: {name: w}\n", None),
    "an item that is no mapping": ("", "- just text\n"),
    "an item without a kind": ("", "- apiVersion: v1\n  metadata: {name: nameless}\n"),
    "a duplicate key in an item": ("", "- apiVersion: v1\n  kind: ConfigMap\n  kind: Secret\n  metadata: {name: d}\n"),
    "a key that is not plain": ("", "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: why}\n  data: {y: a}\n"),
    "items twice": ("items: []\n", None),
}


@pytest.mark.parametrize("name", _FALLBACKS, ids=list(_FALLBACKS))
def test_a_document_that_is_not_read_item_by_item_is_read_whole(name, monkeypatch):
    head, extra = _FALLBACKS[name]
    text = _list(3)
    if extra is not None:
        text += extra
    text = (text.replace("kind: List\n", "") + head) if "kind:" in head else text + head
    forgotten: list = []
    found_before: list = []
    forget = Needs.forget

    def forgetting(self, objects):
        forgotten.extend(objects)
        found_before.extend(self.found_in(obj) for obj in objects)
        forget(self, objects)

    monkeypatch.setattr(Needs, "forget", forgetting)
    taken = _read_pruned(text, True, monkeypatch)
    assert taken == _read_pruned(text, False, monkeypatch)
    assert forgotten, "items were taken, then given up"
    forgotten.clear()
    found_before.clear()
    needs = Needs(TABLE, pod_string_specs(TABLE))
    try:
        stream = read([Source("list.yaml", text)], Limits(), needs)
    except PostrenderError:
        return
    # What the walk found is kept for the objects read, and nothing of the
    # items given up: the walk found references in them, held until then.
    assert all(needs.found_in(obj).references for obj in stream.objects if obj.kind == "Deployment")
    assert any(found.references for found in found_before)
    assert all(needs.found_in(obj) is NOTHING for obj in forgotten)


# --- A List's configs made ahead (rewrite.prepare) ---------------------------

_FLAGS = ["--keep-original=all", "--keep-original=none --mutable", "--keep-original --keep-previous helm"]


@pytest.mark.parametrize("flags", _FLAGS)
@pytest.mark.parametrize("case", _GOLDEN, ids=[c.name for c in _GOLDEN])
def test_a_golden_input_as_a_list_renders_alike_pruned_and_whole_with_flags(case: Path, flags):
    # The flags that decide whether a List's configs keep copies, and so
    # whether their copies are made ahead as items (rewrite.prepare).
    _renders_alike(_golden_as_list(case, kind_last=True), flags)


@pytest.mark.parametrize("flags", ["", "--keep-original=all", "--mutable"])
def test_a_lists_configs_keep_nothing_of_their_items_and_the_list_is_never_composed_again(monkeypatch, flags):
    # Their marks are made ahead as they are read, and so is the copy a
    # Secret keeps (--keep-original=auto) as an item of its own: none of
    # their trees stay, and nothing composes the List again to edit them
    # (5,000 apps as one List: 159 MiB with whole config items, 116 now).
    from postrender.cli import parse, render_options
    from postrender.pipeline import rewrite
    from postrender.pipeline.rewrite import PreparedItem
    import shlex

    composed = []
    monkeypatch.setattr(rewrite, "recompose", lambda doc, *a: composed.append(doc) or recompose(doc, *a))
    text = _list(3) + _list(2).split("items:\n", 1)[1].replace("kind: Secret", "kind: ConfigMap").replace(
        "stringData:", "data:").replace("{name: s", "{name: cm").replace("{name: d", "{name: dcm").replace(
        "secret: {secretName: s", "configMap: {name: cm")
    sources = [Source("list.yaml", text)]
    options = render_options(parse(shlex.split(flags)))
    reporter = Reporter(verbose=False, stderr=io.StringIO())
    pruned = render(sources, options, reporter)
    assert composed == []
    configs = [obj for obj in pruned.analysis.stream.objects if obj.kind in ("ConfigMap", "Secret")]
    assert len(configs) == 5 and all(isinstance(obj.node, StubMapping) for obj in configs)
    copies = [isinstance(obj.prepared, PreparedItem) for obj in configs]
    assert copies == ([True] * 5 if "all" in flags else [True] * 3 + [False] * 2)
    whole = render(sources, options, reporter, read(sources, options.limits)).output  # nothing pruned
    assert pruned.output == whole
    assert pruned.output.count("postrender.io/copy-of") == sum(copies)


def test_an_item_versioned_other_than_expected_is_copied_from_its_item_composed_again():
    # The plan versions it under a name its content did not say (here by
    # hand): what was made ahead does not fit, and the copy comes from the
    # List composed again, as the marks do; the same edits as from a List
    # whose items were kept whole.
    from postrender.pipeline.render import _rewrite_options
    from postrender.pipeline.rewrite import DocumentEdits, PreparedItem, _mark, prepare
    from postrender.pipeline.plan.versions import Version
    from postrender.pipeline.index.configs import content_of
    from postrender.cli import parse, render_options

    text = _list(2)
    options = _rewrite_options(render_options(parse([])))

    def ahead(obj, root, whole):
        return prepare(obj, root, options, True, whole)

    made = []
    for keep_nodes in (False, True):
        needs = Needs(TABLE, pod_string_specs(TABLE), prune=not keep_nodes, prepare=ahead)
        stream = read([Source("list.yaml", text)], Limits(), needs)
        secret = stream.objects[2]
        assert secret.item == 2 and (keep_nodes or isinstance(secret.prepared, PreparedItem))
        edits = DocumentEdits(secret.document)
        version = Version(secret, content_of(secret).hash, "s1", "s1-unexpected", keep_original=True)
        _mark(edits, version, options)
        made.append(sorted(edits.edits()))
    assert made[0] == made[1]
    assert any('"postrender.io/copy-of": "s1-unexpected"' in text for _, _, text in made[0])


# --- A KRM ResourceList read item by item -----------------------------------

_FUNCTION_CONFIGS = {
    "none": "",
    # Only a namespace: the stream read to recognise the ResourceList is rendered.
    "namespace": "functionConfig:\n  apiVersion: postrender.io/v1alpha1\n  kind: PostRender\n"
                 "  metadata: {name: p}\n  namespace: other\n",
    # Options that prune otherwise: read again for them.
    "keep-original": "functionConfig:\n  apiVersion: postrender.io/v1alpha1\n  kind: PostRender\n"
                     "  metadata: {name: p}\n  keepOriginal: all\n  strategy: annotate\n",
}


def _krm(text: str, whole: bool) -> tuple[str, int]:
    sources = [Source(None, text)]
    options = RenderOptions()
    reporter = Reporter(verbose=False, stderr=io.StringIO())
    try:
        stream = read(sources, options.limits) if whole else None  # whole: read as any options may render it
        return krm.run(sources, options, reporter, stream), 0
    except krm.ResourceListError as error:
        return str(error), error.status
    except PostrenderError as error:  # read whole, it fails as the run does
        return str(error), 1


@pytest.mark.parametrize("config", _FUNCTION_CONFIGS)
@pytest.mark.parametrize("case", _GOLDEN, ids=[c.name for c in _GOLDEN])
def test_a_golden_input_as_a_resource_list_renders_alike_pruned_and_whole(case: Path, config):
    # A KRM function's input is read for the command line's options, its
    # items pruned as they are composed; the render reuses that read when
    # the functionConfig prunes alike, with the table it was read with
    # (pod templates found as it was read are memoised on it: a new table
    # put a config hash on the Deployment's own metadata).
    text = _golden_as_list(case, kind_last=False).replace("apiVersion: v1\nkind: List\n", _HEADS["ResourceList"], 1) + _FUNCTION_CONFIGS[config]
    assert _krm(text, whole=False) == _krm(text, whole=True)


def test_results_are_written_into_a_resource_list_composed_without_its_items():
    # krm.set_results reads only the top-level mapping (where `results` is,
    # where it ends): composing the items too held a large ResourceList
    # whole again at the very end (5,000 apps: 429 MiB).
    from postrender.syntax.nodes import DROPPED_ITEM

    text = _list(3, "ResourceList") + "results: [{message: old, severity: info}]\n"
    root = krm._compose(text)
    items = [value for key, value in root.value if key.value == "items"][0].value
    assert items[:-1] == [DROPPED_ITEM] * 5 and items[-1].value  # the last is never followed by another
    written = krm.set_results(text, [{"message": "new", "severity": "warning"}])
    assert written.startswith(text.split("results:")[0]) and "old" not in written
    assert krm._compose(written) is not None and "message: new" in written


# --- `results` written in as an edit (krm._with_results) ---------------------

_RESULT_SHAPES = {
    # A warning (a reference to a Secret not in the stream) and the end of
    # the ResourceList written in the ways the place of `results` depends on.
    "block": "",
    "a `...` line": "...\n",
    "comments after": "# after\n\n# more\n",
    "crlf": None,
    "no final line break": None,
    "flow": None,
    "results already": "results:\n- {message: old, severity: info}\n",
}


def _with_a_warning(shape: str) -> str:
    if shape == "flow":
        return ('{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": ['
                '{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": '
                '{"spec": {"volumes": [{"name": "v", "secret": {"secretName": "gone"}}]}}}}]}\n')
    text = _HEADS["ResourceList"] + "items:\n" + _APP.format(i=0).replace("secretName: s0", "secretName: gone")
    text += _RESULT_SHAPES[shape] or ""
    if shape == "crlf":
        text = text.replace("\n", "\r\n")
    elif shape == "no final line break":
        text = text.rstrip("\n")
    return text


def _krm_both(text: str, monkeypatch) -> tuple[object, object, bool]:
    """(the run's output, the output with `results` placed by composing
    the output again, whether they were written in as an edit)."""
    placed = []
    with_results = krm._with_results
    monkeypatch.setattr(krm, "_with_results", lambda *a: placed.append(with_results(*a)) or placed[-1])
    fast = _krm(text, whole=False)
    monkeypatch.setattr(krm, "_with_results", lambda *a: None)
    return fast, _krm(text, whole=False), placed[0] is not None if placed else False


@pytest.mark.parametrize("shape", _RESULT_SHAPES)
def test_results_written_in_as_an_edit_are_where_composing_the_output_puts_them(shape, monkeypatch):
    fast, composed, as_edit = _krm_both(_with_a_warning(shape), monkeypatch)
    assert fast == composed
    assert "results:" in fast[0] or '"results"' in fast[0]
    assert as_edit is (shape not in ("flow", "results already"))


@pytest.mark.parametrize("config", _FUNCTION_CONFIGS)
@pytest.mark.parametrize("case", _GOLDEN, ids=[c.name for c in _GOLDEN])
def test_a_golden_input_as_a_resource_list_gets_its_results_where_composing_puts_them(case: Path, config, monkeypatch):
    text = _golden_as_list(case, kind_last=False).replace("apiVersion: v1\nkind: List\n", _HEADS["ResourceList"], 1) + _FUNCTION_CONFIGS[config]
    fast, composed, _ = _krm_both(text, monkeypatch)
    assert fast == composed


# _APP's Deployment, in kube-system, mounting aws-auth.
_NAMED_APP = ("- apiVersion: apps/v1" + _APP.split("- apiVersion: apps/v1", 1)[1]).replace(
    "{{name: d{i}}}", "{{name: reads-auth{i}, namespace: kube-system}}").replace(
    "secret: {{secretName: s{i}}}", "configMap: {{name: aws-auth}}")


@pytest.mark.parametrize("flags", ["", "--keep-original=all"])
def test_a_lists_items_given_a_config_hash_are_composed_again_together_not_the_whole_list(monkeypatch, flags):
    # aws-auth keeps its name (a fixed name), so each workload mounting it
    # gets a config hash on its pod template, which read did not keep: the
    # List is composed again for them, with only those items, in one pass
    # (the Argo CD chart as one List held whole for five: 58 MiB, now 42).
    from postrender.cli import parse, render_options
    from postrender.pipeline import rewrite
    import shlex

    asked = []
    monkeypatch.setattr(rewrite, "recompose", lambda doc, items=None: asked.append(items) or recompose(doc, items))
    text = (_list(6) + "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: aws-auth, namespace: kube-system}\n"
            "  data: {mapRoles: x}\n" + "".join(_NAMED_APP.format(i=i) for i in range(3)))
    sources = [Source("list.yaml", text)]
    options = render_options(parse(shlex.split(flags)))
    reporter = Reporter(verbose=False, stderr=io.StringIO())
    pruned = render(sources, options, reporter)
    hashed = [obj.item for obj in pruned.analysis.stream.objects if obj.name.startswith("reads-auth")]
    assert hashed == [13, 14, 15]
    assert asked == [set(hashed)]
    whole = render(sources, options, reporter, read(sources, options.limits)).output  # nothing pruned
    assert pruned.output == whole
    assert pruned.output.count("postrender.io/config-hash") == 3


def test_a_lists_item_not_expected_is_composed_again_alone_and_its_edits_still_merge():
    # An edit to an item nobody said to expect composes that item alone;
    # two edits to one mapping of it merge into one set of keys.
    from postrender.pipeline.rewrite import DocumentEdits

    stream = read([Source("list.yaml", _list(3))], Limits(), Needs(TABLE, pod_string_specs(TABLE)))
    deployment, later = stream.objects[1], stream.objects[5]
    edits = DocumentEdits(deployment.document)
    edits.expect(deployment)
    assert not deployment.document.kept_for_edits
    assert {deployment.item, later.item} == {1, 5} and not {1, 5} & deployment.document.items_kept_for_edits
    for obj in (deployment, later):
        edits.set_at(obj, ("spec", "template"), {"metadata": {"annotations": {"a": "1"}}})
        edits.set_at(obj, ("spec", "template"), {"metadata": {"annotations": {"b": "2"}}})
    assert edits._items_whole is not None and sorted(edits._items_whole) == [1, 5]
    assert edits._items_whole[1] is not edits._items_whole[5]
    merged = 'metadata:\n        annotations:\n          a: "1"\n          b: "2"\n      '
    assert [text for _, _, text in sorted(edits.edits())] == [merged, merged]


# --- Errors in an item name the item -----------------------------------------

_ITEM_ERRORS = {
    # name -> (the second item's lines, the line the error names, what it names)
    "keys colliding": ("  data:\n    1: x\n    '1': y\n", 16, "ConfigMap/two"),
    "a merged key colliding": ("  data:\n    <<: {1: x}\n    '1': y\n", 16, "ConfigMap/two"),
    "a collection as a key": ("  data:\n    ? [a]\n    : x\n", 15, "ConfigMap/two"),
    "an unreadable tag": ("  data:\n    a: !!int many\n", 15, "ConfigMap/two"),
}


@pytest.mark.parametrize("kind", ["List", "ConfigMapList"])
@pytest.mark.parametrize("name", _ITEM_ERRORS, ids=list(_ITEM_ERRORS))
def test_a_structural_error_in_an_item_names_the_item(name, kind):
    # Found before any object is read (read.kubectl._check_structure): the
    # document's root is the List, the error is in an item, and the item is
    # what the message names, as the error of an object read names it.
    lines, line, named = _ITEM_ERRORS[name]
    text = (f"apiVersion: v1\nkind: {kind}\nitems:\n"
            "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: one\n  stringData:\n    k: v\n"
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: two\n" + lines)
    with pytest.raises(PostrenderError) as caught:
        read([Source("list.yaml", text)], Limits(), Needs(TABLE, pod_string_specs(TABLE)))
    assert str(caught.value).startswith(f"document 1 (list.yaml, {named}) line {line}: "), str(caught.value)


def test_an_error_in_a_lists_own_fields_names_the_list():
    text = "apiVersion: v1\nkind: List\n1: a\n'1': b\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n"
    with pytest.raises(PostrenderError) as caught:
        read([Source("list.yaml", text)], Limits())
    assert str(caught.value).startswith("document 1 (list.yaml, List/?) line 4: keys `1` and `'1'`"), str(caught.value)


def test_a_krm_items_error_names_the_item():
    text = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: two\n  data:\n    1: x\n    '1': y\n")
    with pytest.raises(krm.ResourceListError) as caught:  # the command line writes it into `results`
        krm.run([Source(None, text)], RenderOptions(), Reporter(stderr=io.StringIO()))
    assert "document 1 (ConfigMap/two) line 10: keys `1` and `'1'`" in str(caught.value), str(caught.value)


def test_items_of_a_list_an_alias_reaches_into_find_what_they_find_without_it():
    # An alias makes every item's text the whole List's (graph._written_in):
    # whether a walk may reach a leaf is asked once per List and kind, and
    # each item, whatever its kind, still finds its own references.
    from postrender.options import RenderOptions
    from postrender.pipeline.read.documents import Source
    from postrender.pipeline.render import analyse

    def items(note: str) -> str:
        # A Service first: its walk may reach nothing in this List, the
        # Pod's may, and each is asked for its own walk.
        return "apiVersion: v1\nkind: List\nitems:\n" + "".join(
            f"- apiVersion: v1\n  kind: Service\n  metadata: {{name: s{i}, annotations: {{n: {note if i else '&n x'}}}}}\n"
            f"- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: cm{i}, annotations: {{n: {note}}}}}\n"
            f"  data: {{k: v}}\n"
            f"- apiVersion: v1\n  kind: Pod\n  metadata: {{name: p{i}}}\n"
            f"  spec: {{containers: [{{name: c, image: x, envFrom: [{{configMapRef: {{name: cm{i}}}}}]}}]}}\n"
            for i in range(5))

    def found(text: str) -> list[tuple]:
        graph = analyse([Source(None, text)], RenderOptions()).graph
        return [(r.referrer.name, r.path, r.target.name if r.target else None) for r in graph.references]

    aliased, plain = items("*n"), items("x")
    assert "*n" in aliased and found(aliased) == found(plain)
    assert [name for name, _, _ in found(plain)] == ["p0", "p1", "p2", "p3", "p4"]


def test_a_list_an_alias_reaches_into_is_searched_once_per_walk_whatever_the_order_of_kinds(monkeypatch):
    # Items of kinds in turn (an app's Service, ConfigMap and Pod) each
    # asked the whole List's text again when only the last walk's answer
    # was kept: 5,000 apps sharing one anchor took 60 s, 4.4 s without it.
    from postrender.fieldspecs.walk import Compiled
    from postrender.options import RenderOptions
    from postrender.pipeline.read.documents import Source
    from postrender.pipeline.render import analyse

    text = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        f"- apiVersion: v1\n  kind: Service\n  metadata: {{name: s{i}, annotations: {{n: {'&n x' if i == 0 else '*n'}}}}}\n"
        f"- apiVersion: v1\n  kind: Pod\n  metadata: {{name: p{i}}}\n"
        f"  spec: {{containers: [{{name: c, image: x, envFrom: [{{configMapRef: {{name: cm}}}}]}}]}}\n"
        for i in range(40))
    searched = []
    real = Compiled.may_reach
    monkeypatch.setattr(Compiled, "may_reach", lambda self, written: searched.append(
        (id(self), len(written) == len(text))) or real(self, written))
    graph = analyse([Source(None, text)], RenderOptions()).graph
    assert len(graph.references) == 40
    whole = [walk for walk, of_the_list in searched if of_the_list]
    assert whole and len(whole) == len(set(whole)) <= 2, searched  # once per walk (a Service's, a Pod's)


@pytest.mark.parametrize("written", ["", "  apiVersion: \"\"\n", "  apiVersion: ~\n"])
def test_a_list_item_without_an_api_version_is_refused_as_kubectl_refuses_the_list(written):
    # kubectl reads a List's items with the unstructured decoder and fails on
    # the whole List ("Object 'apiVersion' is missing"); postrender passed it
    # and warned that the ConfigMap was not in the stream (syntax62).
    text = ("apiVersion: v1\nkind: List\nitems:\n- kind: ConfigMap\n" + written
            + "  metadata:\n    name: cfg\n  data:\n    a: \"1\"\n")
    with pytest.raises(PostrenderError) as caught:
        read([Source("list.yaml", text)], Limits())
    assert str(caught.value).startswith("document 1 (list.yaml, ConfigMap/cfg) line 4: a List's item has no apiVersion"), \
        str(caught.value)


@pytest.mark.parametrize("flags", ["", "--version-all", "--version-all --keep-original=all", "--version-all --mutable"])
def test_a_lists_configs_of_one_shape_share_their_edits_made_ahead(flags):
    # Each config's marks are located as it is read (rewrite.Prepared), and
    # configs of one shape share one (edit.one_of_equals), as a stream's do:
    # a List's items are counted from their own starts for it, where offsets
    # in the whole List's text made 100,000 ConfigMaps' 100,000 unequal ones
    # (10 MiB). Past 64 KiB of text too, and the output is the List's as
    # read whole (versioned, the marks made from them are placed).
    from postrender.cli import parse, render_options
    from postrender.pipeline.render import read_for
    from postrender.pipeline.rewrite import PreparedItem
    import shlex

    configs = 1200  # some 100 KiB
    text = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c{i}\n  data:\n    k: v{i % 7}\n"
        for i in range(1000, 1000 + configs))
    assert len(text) > 1 << 16
    sources = [Source("list.yaml", text)]
    options = render_options(parse(shlex.split(flags)))
    prepared = [obj.prepared for obj in read_for(sources, options).stream.objects]
    assert len(prepared) == configs and None not in prepared
    if "keep-original=all" in flags:
        assert all(isinstance(each, PreparedItem) for each in prepared)  # each holds its own copy
    else:
        assert len({id(each) for each in prepared}) == 1
    reporter = Reporter(verbose=False, stderr=io.StringIO())
    pruned = render(sources, options, reporter).output
    assert pruned == render(sources, options, reporter, read(sources, options.limits)).output  # nothing pruned
    assert pruned.count("postrender.io/content-hash") == (configs if "version-all" in flags else 0)
