"""The read stage drops what no later stage reads (pipeline/needs.py,
syntax/prune.py): a render of the pruned documents must be the render of
the whole ones, byte for byte and message for message.

The reference is the same render given a stream read without pruning (as
KRM reads it), so each case compares the two paths on one input.
"""

import io
import re
import shlex
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import manifest_strategies as ms
from conftest import FIXTURES
from postrender.cli import parse, render_options
from postrender.errors import PostrenderError
from postrender.pipeline.graph.byname import pod_string_specs
from postrender.pipeline.needs import Needs
from postrender.pipeline.read import read
from postrender.pipeline.read.documents import Source
from postrender.pipeline.render import render
from postrender.report import Reporter
from postrender import fieldspecs
from postrender.limits import Limits
from postrender.syntax.nodes import MappingNode, node_at, unique_nodes

GOLDEN = sorted(p for p in (FIXTURES / "golden").iterdir() if (p / "input.yaml").exists())
CORPUS = sorted(p for p in (FIXTURES / "corpus").rglob("*.yaml"))
# Flags that change what the stages read: every one of them must agree too.
VARIANTS = ["", "--strategy annotate", "--version-all", "--keep-original=all --keep-previous helm",
            "--keep-original=all", "--mutable --keep-original=none"]


def _args(case: Path) -> str:
    path = case / "args"
    return path.read_text() if path.exists() else ""


def _render(text: str, argv: str, pruned: bool) -> tuple[str, list[str], list[str]]:
    args = parse([*shlex.split(argv), "-v"])
    options = render_options(args)
    sources = [Source("input.yaml", text)]
    reporter = Reporter(verbose=True, stderr=io.StringIO(), keep_infos=True)
    stream = None if pruned else read(sources, options.limits)
    try:
        output = render(sources, options, reporter, stream).output
    except PostrenderError as error:
        output = f"error: {error}"
    return output, [w.message for w in reporter.warnings], reporter.infos


def _same(text: str, argv: str) -> None:
    whole = _render(text, argv, pruned=False)
    assert _render(text, argv, pruned=True) == whole


@pytest.mark.parametrize("case", GOLDEN, ids=[c.name for c in GOLDEN])
def test_golden_inputs_render_alike(case: Path):
    text = (case / "input.yaml").read_text(encoding="utf-8")
    _same(text, _args(case))


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_corpus_renders_alike(path: Path, variant: str):
    _same(path.read_text(encoding="utf-8"), variant)


@settings(deadline=None, max_examples=60, suppress_health_check=list(HealthCheck))
@given(ms.written(ms.streams()))
def test_any_stream_renders_alike(drawn):
    _stream, text = drawn
    _same(text, "")


@pytest.mark.parametrize("argv", ["--strategy annotate", "--keep-previous argocd", "--keep-previous flux --scope x"])
@settings(deadline=None, max_examples=30, suppress_health_check=list(HealthCheck))
@given(ms.written(ms.streams()))
def test_any_stream_renders_alike_where_most_workloads_get_keys(argv, drawn):
    # Their keys are located as each workload is read (rewrite.TemplatesAhead).
    _stream, text = drawn
    _same(text, argv)


def _kept(text: str) -> tuple[int, int]:
    """(nodes composed, nodes kept) over the stream's documents."""
    table = fieldspecs.load_table([])
    whole = sum(len(unique_nodes(d.root)) for d in read([Source(None, text)], Limits()).documents if d.root)
    pruned = read([Source(None, text)], Limits(), Needs(table, pod_string_specs(table))).documents
    return whole, sum(len(unique_nodes(d.root)) for d in pruned if d.root)


WORKLOAD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx
        ports: [{containerPort: 80, protocol: TCP}, {containerPort: 443, protocol: TCP}]
        resources: {limits: {cpu: 100m, memory: 64Mi}, requests: {cpu: 50m, memory: 32Mi}}
        readinessProbe: {httpGet: {path: /healthz, port: 80}, periodSeconds: 5}
        securityContext: {runAsNonRoot: true, capabilities: {drop: [ALL]}}
        envFrom: [{configMapRef: {name: web-config}}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: web-config}
data: {a: "1", b: "2"}
"""

CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, minimum: 1, maximum: 10, description: how many}
              color: {type: string, enum: [red, green, blue]}
"""


def test_what_no_stage_reads_is_dropped():
    # The probe, resources and security context of a workload, and all of a
    # CRD's schema, are read by no stage: without them a few nodes are left.
    whole, kept = _kept(WORKLOAD)
    assert kept < whole * 0.75, (whole, kept)
    whole, kept = _kept(CRD)
    assert kept < whole * 0.5, (whole, kept)


def _prepared(text: str, argv: str = "", keep_nodes: bool = False):
    """The first object of `text` as read by a render with `argv`, which
    makes configs' edits ahead unless the run records what each is kept
    for (as render.read_for does)."""
    from postrender.pipeline.render import _edits_everywhere, _records_refs, _rewrite_options
    from postrender.pipeline.rewrite import prepare

    options = render_options(parse(shlex.split(argv)))
    table = fieldspecs.load_table([])

    def ahead(obj, root, whole):
        return prepare(obj, root, _rewrite_options(options), True, whole)

    needs = Needs(table, pod_string_specs(table), prune=not keep_nodes,
                  edits_everywhere=_edits_everywhere(options), prepare=None if _records_refs(options) else ahead)
    return read([Source(None, text)], Limits(), needs).objects[0]


def test_a_config_object_keeps_none_of_its_tree_once_its_edits_are_made():
    # Its content is read into facts as it is read (index/configs.py), and
    # its own edits made then (rewrite.prepare): nothing of it stays, not
    # even its metadata. A run that gives configs other keys too (a record
    # of what they are kept for) keeps their metadata and the scalars
    # beside it instead; in a List it stays whole: its copy is made from
    # its nodes.
    config = WORKLOAD.split("---\n")[1]
    obj = _prepared(config)
    assert obj.document.root.value == () and obj.prepared is not None
    assert not obj.document.kept_for_edits
    obj = _prepared(config, "--keep-previous helm")
    doc = obj.document
    assert obj.prepared is None
    assert node_at(doc.root, ("metadata", "name")).value == "web-config"
    assert node_at(doc.root, ("data",)).value == ()
    assert doc.kept_for_edits
    listed = "apiVersion: v1\nkind: List\nitems:\n- " + config.replace("\n", "\n  ").rstrip() + "\n"
    assert _kept(listed)[1] == _kept(listed)[0]


@pytest.mark.parametrize("argv", ["", "--strategy annotate", "--keep-previous helm", "--keep-previous argocd --scope x"])
def test_a_config_keeps_none_of_its_tree_in_any_run(argv):
    # Its marks are made ahead, and in a run that records what each version
    # is kept for (--keep-previous), merged with those marks too
    # (rewrite.PreparedRetained).
    from postrender.pipeline.render import read_for
    from postrender.pipeline.rewrite import PreparedRetained

    options = render_options(parse(shlex.split(argv)))
    stream = read_for([Source(None, WORKLOAD)], options).stream
    config = stream.objects[1]
    assert config.kind == "ConfigMap"
    assert config.prepared is not None
    assert isinstance(config.prepared, PreparedRetained) is ("keep-previous" in argv)
    assert config.document.root.value == ()
    # A referrer takes keys in the runs that give some: located as it was
    # read (rewrite.TemplatesAhead), with none of its metadata kept for them.
    workload = stream.objects[0]
    assert node_at(workload.document.root, ("metadata", "name")) is None
    assert (workload.prepared is not None) is bool(argv)



def test_a_list_items_retained_edits_are_placed_within_the_item():
    # A config's edits made ahead for a run that records what each version
    # is kept for (rewrite.PreparedRetained) are held counted from where
    # every Prepared's are (rewrite.located_from: a List's item's own
    # start), and placed back there. (render.prepare_config makes none for
    # an item today.)
    from postrender.pipeline.plan import keep
    from postrender.pipeline.render import _rewrite_options
    from postrender.pipeline.rewrite import PreparedRetained, RetentionAhead, _expected, _retained_marks, prepare

    options = render_options(parse(shlex.split("--keep-previous argocd")))
    items = "".join(f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c{i}\n  data:\n    k: v{i}\n"
                    for i in range(3))
    text = "apiVersion: v1\nkind: List\nitems:\n" + items
    table = fieldspecs.load_table([])
    objects = read([Source(None, text)], Limits(), Needs(table, pod_string_specs(table), prune=False)).objects
    rewrite_options = _rewrite_options(options)
    retention = RetentionAhead(rewrite_options, options.scope, keep.policy_marks(options.keep_previous))
    for obj in objects[1:]:
        prepared = prepare(obj, obj.node, rewrite_options, False, True, retention)
        assert isinstance(prepared, PreparedRetained)
        values = _retained_marks(obj, _expected(obj, rewrite_options), retention)
        edits = prepared.edits_for(obj, (), values)
        assert edits, edits
        assert all(obj.node.start_mark <= start <= end <= obj.node.end_mark for start, end, _ in edits), \
            (obj.node.start_mark, obj.node.end_mark, edits)

_SHAPES = {
    "block": WORKLOAD.split("---\n")[1].replace("metadata: {name: web-config}", "metadata:\n  name: web-config\n  labels:\n    a: b"),
    "flow": WORKLOAD.split("---\n")[1],
    "a Secret, marked by an earlier run": (
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s-old\n  labels:\n    postrender.io/versioned: \"true\"\n"
        "    postrender.io/base-name: s\n    postrender.io/content-hash: old\nimmutable: true\ntype: Opaque\n"
        "data:\n  a: eA==\n"),
    "a long name": WORKLOAD.split("---\n")[1].replace("web-config", "x" * 250),
}


@pytest.mark.parametrize("argv", ["", "--mutable", "--keep-original=all"])
@pytest.mark.parametrize("shape", _SHAPES, ids=list(_SHAPES))
def test_edits_made_ahead_are_what_the_whole_tree_makes(shape, argv):
    # The version the plan makes, its copy and a version it did not expect,
    # each edited from what was made ahead (or, unexpected, from the
    # document composed again), against the same edits on the whole tree.
    from postrender.pipeline.render import _rewrite_options
    from postrender.pipeline.rewrite import DocumentEdits, _copy, _marks, _marks_key
    from postrender.pipeline.plan.versions import Version
    from postrender.pipeline.index.configs import content_of

    text = _SHAPES[shape]
    options = _rewrite_options(render_options(parse(shlex.split(argv))))
    ahead = _prepared(text, argv)
    whole = _prepared(text, argv, keep_nodes=True)
    assert ahead.prepared is not None and ahead.node.value == () and whole.prepared is None
    digest = content_of(ahead).hash
    expected = Version(ahead, digest, "s" if "s-old" in text else ahead.name, "")
    for name in (f"{expected.base_name}-{digest}"[:253], "unexpected"):
        made = []
        for obj in (ahead, whole):
            version = Version(obj, digest, expected.base_name, name if len(name) < 253 else _expected_name(obj))
            edits = DocumentEdits(obj.document)
            prepared = obj.prepared
            key = _marks_key(version, options)
            usable = prepared is not None and name != "unexpected"
            edits.set_ahead(obj, prepared.marks(obj) if usable else None, _marks, *key)
            made.append((sorted(edits.edits()), sorted(_copy(obj.document, version).edits())))
        assert made[0] == made[1]


def _expected_name(obj):
    from postrender.pipeline.rewrite import _expected_version

    return _expected_version(obj)[1]


def test_marks_made_ahead_merge_with_a_later_edit_to_the_same_object():
    # Another stage giving the config keys: the marks are set again on the
    # document composed again, first, and the two merge as on the whole tree.
    from postrender.pipeline.rewrite import DocumentEdits, _marks

    config = _SHAPES["block"]
    key = ("web-config", "web-config-abc", "abc", False)
    made = []
    for obj in (_prepared(config), _prepared(config, keep_nodes=True)):
        edits = DocumentEdits(obj.document)
        edits.set_ahead(obj, obj.prepared.marks(obj) if obj.prepared is not None else None, _marks, *key)
        edits.set_at(obj, (), {"metadata": {"labels": {"extra": "1"}, "annotations": {"b": "2"}}})
        assert edits.values_of(obj)["metadata"]["labels"]["extra"] == "1"
        made.append(sorted(edits.edits()))
    assert made[0] == made[1]
    assert sum(text.count("extra") + text.count("content-hash") for _, _, text in made[0]) == 2


def test_aliases_and_merge_keys_no_longer_keep_a_document_whole():
    # Pruned once read's whole-graph checks are done, as any document is
    # (tests/unit/pipeline/test_pruning_shared.py), and rendered alike.
    aliased = CRD.replace("  group: example.com", "  group: &g example.com\n  other: *g")
    whole, kept = _kept(aliased)
    assert kept < whole
    _same(aliased, "")
    merged = CRD.replace("  scope: Namespaced", "  scope: Namespaced\n  extra: {<<: {a: 1}}")
    whole, kept = _kept(merged)
    assert kept < whole
    _same(merged, "")


def test_a_stub_ends_where_its_content_did():
    # A value inserted after a dropped block collection lands where it
    # would have: on the line after its last item, not after the blank lines.
    text = WORKLOAD.replace("        envFrom:", "        extra:\n          deep: {x: 1}\n\n\n        envFrom:")
    _same(text, "")
    _same(text.replace("  template:\n    metadata: {labels: {app: web}}\n", "  template:\n"), "")


def _tiny(name: str, data: str = "  k: v\n", head: str = "") -> str:
    return f"{head}apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n{data}"


def test_documents_of_one_shape_share_their_stubs(monkeypatch):
    # A stub is a place and nothing else (prune.stub): unreferenced configs
    # of one shape stand for their trees by the same one, as offsets are
    # shared, but one written elsewhere, tagged or in flow style has its own.
    from postrender.pipeline.render import read_for
    from postrender.syntax import prune
    from postrender.syntax.nodes import StubMapping

    # As a run starts: the shapes earlier tests met may have filled the cache.
    monkeypatch.setattr(prune, "_SHARED_STUBS", {})

    docs = [_tiny("a1"), _tiny("b2"), _tiny("longer"), _tiny("c3", head="# moved\n"),
            _tiny("d4", head="!!map\n"), _tiny("e5").replace("\ndata:\n  k: v", "\ndata: {k: v}")]
    text = "---\n" + "---\n".join(docs)
    objects = read_for([Source(None, text)], render_options(parse([]))).stream.objects
    nodes = [obj.node for obj in objects]
    assert all(type(node) is StubMapping and node.value == () for node in nodes)
    # The same place (e5's data is written in flow style, its root is not).
    assert nodes[0] is nodes[1] is nodes[5]
    assert len({id(node) for node in nodes}) == 4
    assert nodes[0].start_mark == nodes[3].start_mark - len("# moved\n") == 4
    assert nodes[4].tag == "tag:yaml.org,2002:map" and nodes[4] is not nodes[0]
    # Each ends where its document's content does (each chunk opens with `---`).
    assert [node.end_mark for node in nodes] == [len("---\n" + doc.rstrip("\n")) for doc in docs]
    # Edits next to a shared stub land in each document where its own would.
    _same(text + "---\n" + _DEPLOYS.format(names=["a1", "b2", "longer", "c3", "d4", "e5"]), "")
    _same(text, "--version-all")
    _same(text, "--strategy annotate")


_DEPLOYS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: w}}
spec:
  template:
    spec:
      volumes: [{{name: v, configMap: {{name: a1}}}}]
      containers:
      - name: c
        envFrom: {names}
"""


@pytest.mark.parametrize("config, held", [
    (_tiny("plain"), True),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: empty\ndata: {}\n", False),
    (_tiny("named", "  config.yaml: 'secretName: other'\n"), False),
    ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ntype: Opaque\ndata:\n  k: dg==\n", False),
    ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  k: dg==\n", True),
    (_tiny("bad", "  k: [1]\n"), False),
])
def test_a_config_is_held_as_its_hash_where_that_is_all_its_content_says(config, held):
    # Read holds the content of most configs as their hash alone
    # (configs.hold_as_hash); content_of makes the same record again.
    from postrender.pipeline.index.configs import content_of
    from postrender.records import fields

    pruned = _prepared(config)
    whole = _prepared(config, keep_nodes=True)
    assert (type(pruned.content) is str) is held
    assert whole.content.__class__ is not str
    again, first = content_of(pruned), content_of(whole)

    def facts(content):
        named = [(path, node.start_mark, name, key) for path, node, name, key in content.named]
        refused = None if content.refused is None else str(content.refused)
        return [getattr(content, f) for f in fields(content) if f not in ("named", "refused")] + [named, refused]

    assert facts(again) == facts(first)


def test_configs_of_equal_data_held_as_their_hash_share_one_string(monkeypatch):
    # configs._shared_hash: an equal hash is the string held before, and
    # the table is bounded (emptied once full), as the shared texts are.
    from postrender.pipeline.index import configs
    from postrender.pipeline.render import read_for

    monkeypatch.setattr(configs, "_shared_hashes", {})
    monkeypatch.setattr(configs, "_SHARED_HASHES_HELD", 2)
    docs = [_tiny("a1"), _tiny("b2"), _tiny("c3", "  k: w\n"), _tiny("d4", "  k: x\n"), _tiny("e5"), _tiny("f6")]
    objects = read_for([Source(None, "---\n" + "---\n".join(docs))], render_options(parse([]))).stream.objects
    held = [obj.content for obj in objects]
    assert all(type(h) is str for h in held)
    assert held[0] is held[1] and held[0] == held[4] == held[5]
    assert held[2] != held[0] and held[3] != held[0]
    # Emptied when d4 came (two held): e5 holds a string of its own, f6 e5's.
    assert held[4] is not held[0] and held[5] is held[4]


GUARDED = WORKLOAD + """\
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
spec:
  deep:
    nested: [{settings: {configMapName: web-config}}]
  unrelated: {a: {b: [1, 2, 3]}}
"""

READ_BY_NAME = WORKLOAD.replace(
    "        envFrom:", "        args: [--configmap=$(POD_NAMESPACE)/web-config]\n"
    "        env: [{name: CONFIG_MAP, value: web-config}]\n        envFrom:")


@pytest.mark.parametrize("text, shows", [
    # The guard reads every field named like a reference, however deep.
    (GUARDED, "still names ConfigMap 'web-config'"),
    # byname reads container arguments and env values.
    (READ_BY_NAME, "keeps its name"),
])
def test_what_later_stages_find_deep_in_a_document_survives(text, shows):
    output, warnings, infos = _render(text, "--allow-broken-references", pruned=True)
    assert any(shows in message for message in warnings + infos), (warnings, infos)
    _same(text, "--allow-broken-references")
    _same(text, "")


def test_every_document_keeps_only_what_is_read_later():
    # A small workload keeps next to nothing (the tests below say what, run
    # by run); the reference was found as it was read.
    whole, kept = _kept(WORKLOAD)
    assert kept < whole * 0.5, (whole, kept)
    big = CRD.replace("              size:", "".join(f"              f{i}: {{type: string}}\n" for i in range(200))
                      + "              size:")
    whole, kept = _kept(big)
    assert kept < whole * 0.1, (whole, kept)


# The guard reads no pruned graph: it composes the documents it walks again
# (read.compose.recompose). Each stream holds a field only the guard sees naming a
# renamed ConfigMap or Secret, written as each shape the recompose must
# reproduce (offsets, escapes, items of a List, aliases).
SECRET = """\
apiVersion: v1
kind: Secret
metadata: {name: web-secret}
stringData: {a: "1"}
"""


def _widget(spec: str, name: str = "w") -> str:
    return f"apiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: {name}}}\nspec:\n{spec}"


def _listed(*docs: str) -> str:
    return "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        "- " + doc.rstrip("\n").replace("\n", "\n  ") + "\n" for doc in docs)


_DEEP = "  deep:\n    nested:\n    - settings: {configMapName: web-config, secretName: web-secret}\n" \
        "  unrelated: {a: {b: [1, 2, 3]}}\n"
_ARGS = WORKLOAD.replace(
    "        envFrom:", "        args: [--app-config=web-config, --app-config-map, default/web-config]\n"
    "        envFrom:")
GUARD_FINDS = {
    "block": WORKLOAD + "---\n" + SECRET + "---\n" + _widget(_DEEP),
    "flow": WORKLOAD + "---\n" + SECRET + "---\n" + _widget(
        "  deep: {nested: [{settings: {configMapName: web-config, secretName: web-secret}}], other: [x, y]}\n"),
    "in a List": SECRET + "---\n" + _listed(*WORKLOAD.split("---\n"), _widget(_DEEP)),
    # The covered envFrom reference and the finding in one document, offsets counted after a BOM.
    "a byte-order mark": "\ufeff" + _listed(WORKLOAD.split("---\n")[0], _widget(_DEEP)) + "---\n"
                         + WORKLOAD.split("---\n")[1] + "---\n" + SECRET,
    "JSON first, a surrogate escape": '{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},'
                                      ' "spec": {"note": "\\ud83d\\ude00 and web-config", "deep": [{"x": 1},'
                                      ' {"configMapName": "web-config"}]}}\n---\n' + WORKLOAD,
    "an alias": WORKLOAD + "---\n" + _widget("  configMapName: &n web-config\n  more: {configMapName: *n}\n"),
    "arguments": _ARGS,
    "an escape in a double-quoted scalar": WORKLOAD + "---\n" + _widget(
        '  deep:\n    configMapName: "web\\x2dconfig"\n    probe: {a: [1, 2]}\n'),
    "windows line breaks": (WORKLOAD + "---\n" + _widget(_DEEP)).replace("\n", "\r\n"),
}


def _findings(text: str, argv: str, pruned: bool) -> list[tuple]:
    options = render_options(parse([*shlex.split(argv), "--allow-broken-references"]))
    sources = [Source("input.yaml", text)]
    stream = None if pruned else read(sources, options.limits)
    result = render(sources, options, Reporter(stderr=io.StringIO()), stream)
    return [(f.where, f.field_path, f.message(), f.referrer.document.line_of(f.node), f.node.start_mark)
            for f in result.findings]


@pytest.mark.parametrize("argv", ["", "--version-all"])
@pytest.mark.parametrize("text", GUARD_FINDS.values(), ids=GUARD_FINDS.keys())
def test_the_guard_finds_alike_in_pruned_documents(text, argv):
    findings = _findings(text, argv, pruned=True)
    assert findings == _findings(text, argv, pruned=False)
    # Without --version-all a ConfigMap a program reads by name (arguments) keeps its name.
    if argv or text is not _ARGS:
        assert any("still names ConfigMap 'web-config'" in message for _, _, message, _, _ in findings), findings
    _same(text, argv + " --allow-broken-references")
    _same(text, argv)


def test_the_guard_keeps_nothing_in_a_pruned_document():
    # Read drops what only the guard would look at: of the Widget, which no
    # field spec reaches, an empty mapping is left; the guard still finds the field.
    table = fieldspecs.load_table([])
    text = WORKLOAD + "---\n" + _widget(_DEEP)
    widget = read([Source(None, text)], Limits(), Needs(table, pod_string_specs(table))).documents[-1]
    assert isinstance(widget.root, MappingNode) and widget.root.value == (), widget.root
    assert any(path == "spec.deep.nested[0].settings.configMapName"
               for _, path, _, _, _ in _findings(text, "", pruned=True))


# A workload keeps no metadata and no pod template unless the run gives most
# workloads keys; an edit that gives one a key then composes its document
# again (rewrite.DocumentEdits.mapping_at), and must land as on the whole one.
def _workload_kept(edits_everywhere: bool):
    table = fieldspecs.load_table([])
    needs = Needs(table, pod_string_specs(table), edits_everywhere=edits_everywhere)
    return read([Source(None, WORKLOAD.split("---\n")[0])], Limits(), needs).documents[0]


def test_a_workload_keeps_its_metadata_only_for_runs_that_edit_most_of_them():
    doc = _workload_kept(False)
    assert not doc.kept_for_edits
    assert doc.root.value == (), "nothing is read of it later: not even its keys stay"
    doc = _workload_kept(True)
    assert doc.kept_for_edits
    assert node_at(doc.root, ("spec", "template", "metadata", "labels", "app")).value == "web"


# Each edit that gives a workload's mapping keys: a config hash on its pod
# template (a name read by a program; --strategy annotate), on its own
# metadata (a kind with no template), a record of what it uses
# (--keep-previous), in a List beside the config it uses. Runs that edit
# most workloads keep what those edits need instead (the second and third).
_READ_BY_PROGRAM = WORKLOAD.replace(
    "        envFrom:", "        args: [--config-map=web-config]\n        envFrom:")
_NO_TEMPLATE = """\
apiVersion: v1
kind: Secret
metadata: {name: pull, annotations: {postrender.io/versioned: "false"}}
type: kubernetes.io/dockerconfigjson
data: {.dockerconfigjson: e30=}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: web
  labels: {app: web}
imagePullSecrets:
- name: pull
"""
EDITED = {
    "a hash on a template": (_READ_BY_PROGRAM, ""),
    "a hash everywhere": (WORKLOAD, "--strategy annotate"),
    "a record of what it uses": (WORKLOAD, "--keep-previous helm"),
    "in a List": (_listed(*WORKLOAD.split("---\n")), "--keep-previous argocd"),
    "a List, renamed": (_listed(*_READ_BY_PROGRAM.split("---\n")), ""),
    "an object without a template": (_NO_TEMPLATE, ""),
    "... and a record": (_NO_TEMPLATE.replace(', annotations: {postrender.io/versioned: "false"}', ""), "--keep-previous argocd"),
}


@pytest.mark.parametrize("case", EDITED, ids=list(EDITED))
def test_an_edit_to_a_mapping_read_did_not_keep_lands_as_on_the_whole(case):
    text, argv = EDITED[case]
    output, _, _ = _render(text, argv, pruned=True)
    assert not output.startswith("error:"), output
    assert output != text
    _same(text, argv)


def test_no_edit_gives_a_stub_keys():
    from postrender.syntax.edit import set_entries
    from postrender.syntax.prune import stub

    doc = read([Source(None, WORKLOAD.split("---\n")[0])], Limits()).documents[0]
    metadata = node_at(doc.root, ("metadata",))
    with pytest.raises(AssertionError):
        set_entries(doc.text, stub(doc.text, metadata), {"labels": {"a": "b"}}, "\n")


def test_a_list_item_nothing_is_read_of_holds_no_nodes():
    # The object held its item on by itself while the list held a stub.
    table = fieldspecs.load_table([])
    text = _listed(*WORKLOAD.split("---\n"))
    objects = read([Source(None, text)], Limits(), Needs(table, pod_string_specs(table))).objects
    workload, config = objects
    assert workload.node.value == () and workload.node is node_at(workload.document.root, ("items", 0))
    assert config.node is node_at(config.document.root, ("items", 1)) and config.node.value


_INGRESS = """\
apiVersion: v1
kind: Secret
metadata: {name: web-tls}
type: kubernetes.io/tls
data: {tls.crt: eA==, tls.key: eA==}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  annotations: {team: web}
spec:
  tls:
  - hosts: [example.com]
    secretName: web-tls
  rules:
  - host: example.com
    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}
"""


@pytest.mark.parametrize("issuer", [False, True])
def test_a_producer_is_kept_whole_only_when_its_rule_applies(issuer):
    # cert-manager's ingress-shim makes the Secret only for an annotated Ingress.
    text = _INGRESS.replace("{team: web}", "{team: web, cert-manager.io/cluster-issuer: le}") if issuer else _INGRESS
    whole, kept = _kept(text.split("---\n")[1])
    assert (kept == whole) is issuer, (whole, kept)
    _same(text, "")
    _same(text, "--keep-previous argocd")


# Runs that give most workloads keys (a config hash on every pod template
# under --strategy annotate, a record of what each uses under
# --keep-previous) locate those keys as each workload is read
# (rewrite.TemplatesAhead), so it keeps none of its metadata for them. Every
# shape must render as the whole document does, whether its keys were
# located ahead or its document is composed again when written (a key
# already there, a podMetadata, a List's item).
_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: one-off
  annotations: {team: a}
spec:
  containers:
  - {name: c, image: x, envFrom: [{configMapRef: {name: web-config}}]}
---
""" + WORKLOAD.split("---\n")[1]
_CRONJOB = """\
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "@daily"
  jobTemplate:
    spec:
      template:
        spec:
          containers:
          - name: c
            image: x
            volumes: []
            env:
            - {name: A, valueFrom: {configMapKeyRef: {name: web-config, key: a}}}
---
""" + WORKLOAD.split("---\n")[1]
_PROMETHEUS = """\
apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata: {name: main}
spec:
  podMetadata: {labels: {a: b}}
  configMaps: [web-config]
---
""" + WORKLOAD.split("---\n")[1]
TEMPLATE_SHAPES = {
    "flow metadata": WORKLOAD,
    "block metadata": WORKLOAD.replace("    metadata: {labels: {app: web}}\n",
                                       "    metadata:\n      labels:\n        app: web\n"),
    "annotations beside": WORKLOAD.replace("    metadata: {labels: {app: web}}\n",
                                           "    metadata:\n      annotations:\n        team: a # why\n"
                                           "      labels: {app: web}\n"),
    "annotations null": WORKLOAD.replace("    metadata: {labels: {app: web}}\n",
                                         "    metadata:\n      labels: {app: web}\n      annotations:\n"),
    "metadata null": WORKLOAD.replace("    metadata: {labels: {app: web}}\n", "    metadata:\n"),
    "metadata empty": WORKLOAD.replace("    metadata: {labels: {app: web}}\n", "    metadata: {}\n"),
    "no metadata": WORKLOAD.replace("    metadata: {labels: {app: web}}\n", ""),
    "metadata last": WORKLOAD.replace("    metadata: {labels: {app: web}}\n", "").replace(
        "        envFrom: [{configMapRef: {name: web-config}}]\n",
        "        envFrom: [{configMapRef: {name: web-config}}]\n    metadata:\n      labels:\n        app: web\n"),
    "CRLF": WORKLOAD.replace("\n", "\r\n"),
    "a Pod": _POD,
    "a CronJob": _CRONJOB,
    "a kind with podMetadata": _PROMETHEUS,
    "an object without a template": _NO_TEMPLATE.replace(', annotations: {postrender.io/versioned: "false"}', ""),
    "in a List": _listed(*WORKLOAD.split("---\n")),
}
TEMPLATE_RUNS = ["--strategy annotate", "--keep-previous argocd", "--keep-previous flux --scope x",
                 "--keep-previous helm --keep-original=all"]


@pytest.mark.parametrize("argv", TEMPLATE_RUNS)
@pytest.mark.parametrize("shape", TEMPLATE_SHAPES, ids=list(TEMPLATE_SHAPES))
def test_keys_located_ahead_land_as_on_the_whole(shape, argv):
    first = _alike_twice(TEMPLATE_SHAPES[shape], argv)
    # A bare Pod's template never changes (the API server refuses it): it
    # takes no keys, and its references stay as written.
    assert ("postrender.io/config-hash" in first or "postrender.io/refs" in first) is (shape != "a Pod")


def _alike_twice(text: str, argv: str) -> str:
    """The render of `text`, checked to be the whole one's, and again on
    its own output: a second run finds the keys there, with the values they
    get again (those are never located ahead), and changes nothing."""
    first, _, _ = _render(text, argv, pruned=True)
    assert not first.startswith("error:"), first
    _same(text, argv)
    _same(first, argv)
    assert _render(first, argv, pruned=True)[0] == first
    return first


def _recomposed(monkeypatch) -> list:
    from postrender.pipeline import rewrite
    from postrender.pipeline.read.compose import recompose

    composed: list = []
    monkeypatch.setattr(rewrite, "recompose", lambda doc, *a: composed.append(doc.index) or recompose(doc, *a))
    return composed


@pytest.mark.parametrize("argv", TEMPLATE_RUNS)
def test_a_workload_takes_its_keys_with_none_of_its_metadata_kept(monkeypatch, argv):
    from postrender.pipeline.read.documents import Source as _Source
    from postrender.pipeline.render import read_for
    from postrender.pipeline.rewrite import TemplatesAhead

    text = TEMPLATE_SHAPES["block metadata"]
    options = render_options(parse(shlex.split(argv)))
    workload = read_for([_Source(None, text)], options).stream.objects[0]
    assert isinstance(workload.prepared, TemplatesAhead)
    assert not workload.document.kept_for_edits
    # Only the references' scalars stay: no metadata, no template's.
    assert node_at(workload.node, ("metadata",)) is None
    assert node_at(workload.node, ("spec", "template", "metadata")) is None
    composed = _recomposed(monkeypatch)
    output, _, _ = _render(text, argv, pruned=True)
    assert "postrender.io/" in output.split("---")[0]
    # The configs under --keep-previous keep their metadata (the marks of
    # what each is kept for are not located ahead): only the workload counts.
    assert 1 not in composed


def test_keys_not_located_ahead_compose_the_document_when_it_is_written(monkeypatch):
    # A config hash on a Prometheus goes to spec.podMetadata, which is not
    # located ahead: its document is composed again, but only as it is
    # written (DocumentEdits.edits, asked by write), not held from the
    # rewrite on.
    import traceback

    from postrender.pipeline import rewrite
    from postrender.pipeline.read.compose import recompose

    callers: list = []

    def recording(doc, *a):
        callers.append([frame.name for frame in traceback.extract_stack()])
        return recompose(doc, *a)

    monkeypatch.setattr(rewrite, "recompose", recording)
    output, _, _ = _render(_PROMETHEUS, "--strategy annotate", pruned=True)
    assert "podMetadata: {labels: {a: b}, annotations: {postrender.io/config-hash:" in output
    assert len(callers) == 1
    assert "write" in callers[0] and "rewrite" not in callers[0]


# A run that records what each version is kept for (--keep-previous) gives
# a versioned config those marks too; they are located with its own as it
# is read (rewrite.PreparedRetained), where the marks it gets can be known
# then: its scope (--scope, or its instance or scope label) and the
# policy's annotations. Every shape must render as the whole one does.
_CONFIG = WORKLOAD.split("---\n")[1]
_DEPLOYMENT = WORKLOAD.split("---\n")[0]
_BLOCK_CONFIG = _CONFIG.replace("metadata: {name: web-config}\n", "metadata:\n  name: web-config\n  labels:\n    a: b\n")
CONFIG_SHAPES = {
    "flow metadata": _CONFIG,
    "block metadata": _BLOCK_CONFIG,
    "an instance label": _BLOCK_CONFIG.replace("    a: b\n", "    app.kubernetes.io/instance: rel\n"),
    "a scope label": _BLOCK_CONFIG.replace("    a: b\n", "    postrender.io/scope: other\n"),
    "annotations": _BLOCK_CONFIG.replace("  labels:\n", "  annotations: {team: a}\n  labels:\n"),
    "the policy's annotation": _BLOCK_CONFIG.replace(
        # (Not Helm's keep: a chart's own keeps the config's name, helm62.)
        "  labels:\n", "  annotations:\n    kustomize.toolkit.fluxcd.io/prune: disabled\n"
        "    argocd.argoproj.io/sync-options: Prune=false\n  labels:\n"),
    "metadata last": "apiVersion: v1\nkind: ConfigMap\ndata: {a: \"1\", b: \"2\"}\nmetadata:\n  name: web-config\n",
    "CRLF": _BLOCK_CONFIG.replace("\n", "\r\n"),
    "a Secret": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: web-config\ntype: Opaque\nstringData: {a: b}\n"
                + "---\n" + _DEPLOYMENT.replace("configMapRef", "secretRef"),
    "in a List": _listed(_DEPLOYMENT, _BLOCK_CONFIG),
    # Versioned by a run before, then renamed around by an overlay's
    # namePrefix, and changed since: it gets a name its content alone does
    # not give, so its marks were not located with it.
    "renamed around": _BLOCK_CONFIG.replace("name: web-config", "name: o-web-config-old0000000").replace(
        "    a: b\n", "    postrender.io/versioned: \"true\"\n    postrender.io/base-name: web-config\n"
        "    postrender.io/content-hash: old0000000\n"),
    # Renamed by kustomize (its history annotations): with --keep-original
    # the versioned one gets its history beside the marks, which were not
    # located with it, so its document is composed again when written.
    "renamed by kustomize": _BLOCK_CONFIG.replace("name: web-config", "name: prod-web-config").replace(
        "  labels:\n", "  annotations:\n    internal.config.kubernetes.io/previousNames: web-config\n"
        "    internal.config.kubernetes.io/previousKinds: ConfigMap\n"
        "    internal.config.kubernetes.io/previousNamespaces: default\n  labels:\n"),
}
RETAINED_RUNS = ["--keep-previous argocd", "--keep-previous helm --keep-original=all", "--keep-previous flux --scope team",
                 "--keep-previous argocd --mutable"]


@pytest.mark.parametrize("argv", RETAINED_RUNS)
@pytest.mark.parametrize("shape", CONFIG_SHAPES, ids=list(CONFIG_SHAPES))
def test_retention_marks_located_ahead_land_as_on_the_whole(shape, argv):
    text = CONFIG_SHAPES[shape]
    if "kind: Deployment" not in text:
        config_name = re.search(r"name: ([\w.-]+)", text).group(1)
        text = _DEPLOYMENT.replace("name: web-config", f"name: {config_name}") + "---\n" + text
    first = _alike_twice(text, argv)
    assert "postrender.io/versioned" in first and "postrender.io/refs" in first


@pytest.mark.parametrize("argv", RETAINED_RUNS)
def test_a_run_that_keeps_previous_versions_composes_no_document_again(monkeypatch, argv):
    composed = _recomposed(monkeypatch)
    output, _, _ = _render(WORKLOAD.replace("metadata: {name: web-config}", "metadata: {name: web-config, labels: {a: b}}"),
                           argv, pruned=True)
    assert "postrender.io/refs" in output and "postrender.io/versioned" in output
    assert composed == []
