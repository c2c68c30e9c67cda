"""The guard's text screen (check/guard.py, _Screen) only spares walks: a
render that walks every document finds the same fields, in the same order,
with the same messages. Each case renders twice, screened and not."""

import io
import json
import shlex
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import manifest_strategies as ms
from conftest import FIXTURES
from postrender.cli import parse, render_options
from postrender.errors import PostrenderError
from postrender.inputs import decode
from postrender.options import RenderOptions
from postrender.pipeline.check import guard
from postrender.pipeline.read.documents import Source
from postrender.pipeline.render import analyse, render
from postrender.report import Reporter
from test_list_items import _as_list, _dump

GOLDEN = sorted(p for p in (FIXTURES / "golden").iterdir() if (p / "input.yaml").exists())
CORPUS = sorted(p for p in (FIXTURES / "corpus").rglob("*.yaml"))
VARIANTS = ["", "--version-all", "--keep-original=none", "--version-all --keep-original=none --namespace other"]


def _render(text: str, argv: str, screened: bool, monkeypatch) -> tuple[str, list[str], list[str], list[str]]:
    with monkeypatch.context() as patch:
        if not screened:
            patch.setattr(guard._Screen, "may_flag", lambda self, obj: True)
        options = render_options(parse([*shlex.split(argv), "-v", "--allow-broken-references"]))
        reporter = Reporter(verbose=True, stderr=io.StringIO(), keep_infos=True)
        try:
            result = render([Source("input.yaml", text)], options, reporter)
        except PostrenderError as error:
            return f"error: {error}", [], [], []
        findings = [f"{f.where} {f.field_path} {f.message()}" for f in result.findings]
        return result.output, [w.message for w in reporter.warnings], reporter.infos, findings


def _same(text: str, argv: str, monkeypatch) -> list[str]:
    """The findings, the same screened or not."""
    walked = _render(text, argv, False, monkeypatch)
    assert _render(text, argv, True, monkeypatch) == walked
    return walked[3]


@pytest.mark.parametrize("case", GOLDEN, ids=[c.name for c in GOLDEN])
def test_golden_inputs_find_alike(case: Path, monkeypatch):
    args = (case / "args").read_text() if (case / "args").exists() else ""
    _same((case / "input.yaml").read_text(encoding="utf-8"), args.replace("--strict", ""), monkeypatch)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_corpus_finds_alike(path: Path, variant: str, monkeypatch):
    _same(path.read_text(encoding="utf-8"), variant, monkeypatch)


@settings(deadline=None, max_examples=60, suppress_health_check=list(HealthCheck))
@given(ms.written(ms.streams()))
def test_any_stream_finds_alike(drawn):
    _stream, text = drawn
    with pytest.MonkeyPatch.context() as monkeypatch:
        _same(text, "--version-all", monkeypatch)


CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: web-config}
data: {a: "1"}
"""
WORKLOAD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, annotations: {note: "héllo wörld 日本 web"}}
spec:
  template:
    spec:
      containers:
      - name: web
        image: nginx
        envFrom: [{configMapRef: {name: web-config}}]
        env: [{name: LEVEL, value: debug}]
"""


def widget(field: str, name: str = "w") -> str:
    return f"apiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: {name}}}\nspec:\n  {field}\n"


def workload(container: str) -> str:
    return WORKLOAD.replace("        env: [", f"        {container}\n        env: [")


def listed(*items: str) -> str:
    indented = ["  - " + item.rstrip("\n").replace("\n", "\n    ") for item in items]
    return "apiVersion: v1\nkind: List\nitems:\n" + "\n".join(indented) + "\n"


# Each is written so that the guard must flag it: the screen must not hide it.
FLAGGED = {
    "plain": widget("configMapName: web-config"),
    "flow": widget("deep: {nested: [{settings: {configMapName: web-config}}]}"),
    "single quoted": widget("configMapName: 'web-config'"),
    "double quoted": widget('configMapName: "web-config"'),
    "an escape": widget(r'configMapName: "web\x2dconfig"'),
    "an escape elsewhere": widget('configMapName: web-config\n  other: "tab\\there"'),
    "an escaped letter": widget(r'configMapName: "\u0077eb-confi\U00000067"'),
    "an escaped line break": widget('configMapName: "web-\\\n    config"'),
    "an escaped line break, CRLF": widget('configMapName: "web-\\\n    config"').replace("\n", "\r\n"),
    "escapes in a List's item": listed(WORKLOAD, widget(r'configMapName: "web\x2dconfig"')),
    "an escape after a plain backslash": widget('pattern: a\\d\n  configMapName: "web\\x2dconfig"'),
    "folded": widget("configMapName: >-\n    web-config"),
    "literal": widget("configMapName: |-\n    web-config"),
    "windows line breaks": widget("configMapName: web-config").replace("\n", "\r\n"),
    "a comment beside it": widget("configMapName: web-config # web-config"),
    "JSON": '{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},'
            ' "spec": {"configMapName": "web-config"}}\n',
    "JSON escape": '{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},'
                   ' "spec": {"configMapName": "web\\u002dconfig"}}\n',
    "a flag's value": workload("args: [--app-config=web-config]"),
    "a namespaced flag value": workload("args: [--app-config=$(POD_NAMESPACE)/web-config]"),
    "after a bare flag": workload("command: [app, --app-config, default/web-config]"),
    "an env value": WORKLOAD.replace("{name: LEVEL, value: debug}", "{name: APP_CONFIG_MAP, value: web-config}"),
    # A covered reference writes the name in the same document, before and after it.
    "beside a covered reference": listed(WORKLOAD, widget("configMapName: web-config")),
    "before a covered reference": listed(widget("configMapName: web-config"), WORKLOAD),
    "an anchor it aliases": listed(widget("configMapName: &n web-config"), widget("configMapRef2: {name: *n}", "w2")),
}


@pytest.mark.parametrize("text", FLAGGED.values(), ids=FLAGGED.keys())
def test_a_name_however_written_is_found_screened(text, monkeypatch):
    findings = _same(CONFIG + "---\n" + text, "--version-all", monkeypatch)
    assert any("still names ConfigMap 'web-config'" in finding for finding in findings), findings


@pytest.mark.parametrize("piece", [1, 2, 5, 40])
def test_a_big_document_is_read_in_pieces(piece, monkeypatch):
    # Pieces end at a space: no name is cut in two, wherever it sits.
    monkeypatch.setattr(guard, "_PIECE", piece)
    text = widget("configMapName: web-config\n  other: [a, bb, ccc]\n  again: 'x web-config'")
    runs = [run for runs in guard._name_runs(text) for run in runs]
    assert runs == guard._NAME.findall(text)
    assert runs.count("web-config") == 2
    findings = _same(CONFIG + "---\n" + text, "--version-all", monkeypatch)
    assert any("still names ConfigMap 'web-config'" in finding for finding in findings), findings


def test_a_big_text_is_encoded_a_piece_at_a_time():
    # A List held whole is screened whole: its text encoded and translated
    # at once was two copies of it (the bench's 5,000 apps as one List with
    # one anchor, 14 MB: 28 MiB). Pieces of 64 KiB: a few of them at most.
    text = "web-config é,\n" * 300_000  # 4.2 M characters, 4.5 MB encoded
    tracemalloc.start()
    try:
        found = sum(runs.count("web-config") for runs in guard._name_runs(text))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found == 300_000
    assert peak < 1 << 20, peak


@pytest.mark.parametrize("name", ["web:config", "web config", "web'config", "Web_Config.1"])
def test_names_the_screen_cannot_see_are_walked(name, monkeypatch):
    # A quote, a colon or a space could be written other ways: no screen.
    written = json.dumps(name)
    text = CONFIG.replace("{name: web-config}", f"{{name: {written}}}") + "---\n" + widget(f"configMapName: {written}")
    findings = _same(text, "--version-all", monkeypatch)
    assert any("still names ConfigMap" in finding for finding in findings), findings


def _screen(text: str) -> tuple[guard._Screen, list]:
    analysis = analyse([decode(text.encode(), None)], RenderOptions(version_all=True))
    names = set(guard._stale_names(analysis.graph, analysis.plan))
    return guard._Screen(names, analysis.graph.references), analysis.graph.index.objects


def test_covered_references_and_unrelated_documents_are_not_walked():
    service = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}}\n"
    screen, objects = _screen(CONFIG + "---\n" + WORKLOAD + "---\n" + service)
    assert [screen.may_flag(obj) for obj in objects[1:]] == [False, False]
    # The name outside a covered reference, even where no rule looks: walked.
    screen, objects = _screen(CONFIG + "---\n" + WORKLOAD.replace("image: nginx", "image: web-config"))
    assert screen.may_flag(objects[1])


def test_backslashes_that_spell_no_name_leave_a_document_unwalked():
    # Every CRD's descriptions and patterns hold backslashes: each was
    # composed again whole (kube-prometheus-stack: a third of a render).
    crd = widget('pattern: "^[a-z]\\\\.[0-9]+$"\n  description: "line\\none \\"quoted\\" web\\tconfig"\n'
                 '  plain: C:\\web\\config\n  regex: \'\\d+\\x2d\'')
    screen, objects = _screen(CONFIG + "---\n" + crd)
    assert not screen.may_flag(objects[1])
    # A covered reference that spells the name with escapes is no finding,
    # in a document whose other backslashes spell nothing either.
    spelled = WORKLOAD.replace("configMapRef: {name: web-config}", r'configMapRef: {name: "web\x2dconfig"}')
    screen, objects = _screen(CONFIG + "---\n" + spelled.replace("image: nginx", r'image: "nginx\tx"'))
    assert len(set(screen._indexes)) == 1 and not screen.may_flag(objects[1])


NAME_CHARACTERS = "abcXYZ019.-_"


@settings(deadline=None, max_examples=300)
@given(st.lists(st.tuples(st.sampled_from(NAME_CHARACTERS + " \t\\\"/é\u2028"),
                          st.sampled_from(["as is", "x", "u", "U", "escaped break", "json"])), max_size=30))
def test_the_screen_reads_escapes_as_libyaml_does(drawn):
    # Written as a double-quoted scalar with each character escaped one of
    # the ways YAML allows: every name the value holds (a run of name
    # characters) is in the screen's reading of the text.
    from ruamel.yaml import YAML

    written = []
    for char, how in drawn:
        if char in "\\\"" or how == "json":
            written.append(json.dumps(char)[1:-1])
        elif how == "x" and ord(char) < 0x100:
            written.append(f"\\x{ord(char):02x}")
        elif how == "u":
            written.append(f"\\u{ord(char):04X}")
        elif how == "U":
            written.append(f"\\U{ord(char):08x}")
        elif how == "escaped break":
            # The next line's indentation is dropped with the break: a space
            # or tab after it is escaped to stay.
            written.append("\\\n   " + (f"\\x{ord(char):02x}" if char in " \t" else json.dumps(char)[1:-1]))
        else:
            written.append(json.dumps(char, ensure_ascii=char == "\u2028")[1:-1])
    text = 'key: "' + "".join(written) + '"\n'
    value = "".join(char for char, _ in drawn)
    assert YAML(typ="safe").load(text)["key"] == value
    read = {run for runs in guard._name_runs(guard._unescaped(text)) for run in runs}
    assert set(guard._NAME.findall(value)) <= read


@pytest.mark.parametrize("newline, bom", [("\n", ""), ("\r\n", ""), ("\r\n", "\ufeff")])
def test_positions_are_characters_of_the_document_text(newline, bom):
    # The screen compares a found name's place with covered references' texts.
    text = listed(WORKLOAD, widget("configMapName: web-config"),
                  WORKLOAD.replace("{name: web,", "{name: web2,")) + "---\n" + CONFIG
    text = bom + text.replace("\n", newline)
    analysis = analyse([decode(text.encode(), None)], RenderOptions(version_all=True))
    assert analysis.graph.references
    for ref in analysis.graph.references:
        written = ref.referrer.document.text[ref.node.start_mark:ref.node.end_mark]
        assert written == ref.node.value, (written, ref.node.value)


@pytest.mark.parametrize("case", GOLDEN, ids=[c.name for c in GOLDEN])
def test_golden_inputs_as_lists_find_alike(case: Path, monkeypatch):
    # A List's items are screened each on its own text, and only those
    # that may hold a finding are composed again (read.compose.recompose's
    # `items`): against every item walked in the List composed whole.
    from postrender.pipeline.read import compose as read_compose

    text = _as_list((case / "input.yaml").read_text(encoding="utf-8"), kind_last=False)
    if text is None:
        pytest.skip("no object")
    args = (case / "args").read_text() if (case / "args").exists() else ""
    screened = _render(text, args.replace("--strict", ""), True, monkeypatch)
    with monkeypatch.context() as patch:
        patch.setattr(guard, "recompose", lambda doc, items=None: read_compose.recompose(doc))
        assert _render(text, args.replace("--strict", ""), False, monkeypatch) == screened


# Two items sharing a node no stage edits: the List is read whole, and no
# stage prunes it.
_ANCHORED = ("- apiVersion: example.com/v1\n  kind: Widget\n  metadata: {name: anchored}\n  spec: &shared {a: b}\n"
             "- apiVersion: example.com/v1\n  kind: Widget\n  metadata: {name: aliased}\n  spec: *shared\n")


_GUARDED = FIXTURES / "graph" / "guard" / "input.yaml"  # findings: names no field spec covers


@pytest.mark.parametrize("case", [*GOLDEN, _GUARDED.parent], ids=[c.name for c in GOLDEN] + ["graph-guard"])
def test_a_list_sharing_nodes_is_walked_as_read_not_composed_again(case: Path, monkeypatch):
    # Read item by item (read.shared.ItemsShared), the List holds whole only the
    # two Widgets, which share a node, as read composed them: the guard
    # walks them there, where composing the whole List again held it twice
    # (a List of 4,000 apps holding one anchor: 297 MiB), and composes again
    # only the other items it flags (here all but configs: unscreened).
    # Against the List composed again whole.
    from postrender.pipeline import read
    from postrender.pipeline.read import compose as read_compose

    listed = _as_list((case / "input.yaml").read_text(encoding="utf-8"), kind_last=False)
    if listed is None:
        pytest.skip("no object")
    text = listed.rstrip("\n") + "\n" + _ANCHORED
    args = (case / "args").read_text().replace("--strict", "") if (case / "args").exists() else ""
    composed: list[set[int] | None] = []
    monkeypatch.setattr(guard, "recompose",
                        lambda doc, items=None: composed.append(items) or read_compose.recompose(doc, items))
    as_read = _render(text, args, False, monkeypatch)
    with monkeypatch.context() as patch:
        patch.setattr(guard, "_whole_root", lambda doc, items: read_compose.recompose(doc, items))
        assert _render(text, args, False, monkeypatch) == as_read
    if as_read[0].startswith("error"):
        # An empty document is no item; a List, or an object holding a list
        # of `items`, is no item kubectl reads.
        assert any(said in as_read[0] for said in ("is not a mapping", "invalid YAML", "(a List in a List)"))
        return
    (doc,) = read.read([Source("l.yaml", text)], RenderOptions().limits).documents
    assert doc.shared
    widgets = {len(doc.root.value[-1][1].value) - 2, len(doc.root.value[-1][1].value) - 1}  # (`items` last)
    assert all(items is not None and not items <= widgets for items in composed), composed
    if case == _GUARDED.parent:
        assert len(as_read[3]) == 1, as_read[3]  # the walk of the graph as read finds it


def test_a_list_composes_again_only_the_items_that_may_hold_a_finding(monkeypatch):
    # The Widget's spec.secretName names a Secret that is renamed: the one
    # finding. The List's Secrets name themselves, which made the whole
    # List a candidate, composed again whole (5,000 apps: 270 MiB).
    from postrender.pipeline import read
    from postrender.pipeline.read import compose as read_compose

    apps = "".join(
        f"- apiVersion: v1\n  kind: Secret\n  metadata: {{name: s{i}}}\n  stringData: {{k: v{i}}}\n"
        f"- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: d{i}}}\n  spec:\n    template:\n"
        f"      spec: {{containers: [{{name: c, image: x}}], volumes: [{{name: v, secret: {{secretName: s{i}}}}}]}}\n"
        for i in range(4))
    widget = "- apiVersion: example.com/v1\n  kind: Widget\n  metadata: {name: w}\n  spec: {secretName: s2}\n"
    text = "apiVersion: v1\nkind: List\nitems:\n" + apps + widget
    asked = []
    monkeypatch.setattr(guard, "recompose", lambda doc, items=None: asked.append(items) or read_compose.recompose(doc, items))
    screened = _render(text, "--keep-original=none", True, monkeypatch)  # s2 is gone, not kept as a copy
    assert asked == [{8}]
    assert len(screened[3]) == 1 and screened[3][0].startswith("Widget/(default)/w spec.secretName")
    stream = read.read([Source("l.yaml", text)], RenderOptions().limits)
    (doc,), stream_objects = stream.documents, stream.objects
    whole, only = read_compose.recompose(doc), read_compose.recompose(doc, {8})
    items = [item for key, item in only.value if key.value == "items"][0].value
    assert [len(item.value) for item in items] == [0] * 8 + [4]
    assert read_compose.object_node(only, stream_objects[8]) is items[8]
    assert _dump(items[8]) == _dump([i for k, i in whole.value if k.value == "items"][0].value[8])


def _configs_and_one_workload(count: int, extra: str = "") -> str:
    configs = "".join(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm-{i}}}\ndata: {{k: v{i}}}\n---\n"
                      for i in range(count))
    env = "".join(f"        - {{name: E{i}, valueFrom: {{configMapKeyRef: {{name: cm-{i}, key: k}}}}}}\n"
                  for i in range(count))
    return (configs + "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: big}\nspec:\n  template:\n"
            f"    spec:\n      containers:\n      - name: c\n        image: nginx{extra}\n        env:\n" + env)


@pytest.mark.parametrize("count", [3, guard._SEARCHED_ONE_BY_ONE + 5])
def test_a_document_naming_many_renamed_configs_is_screened_alike(count, monkeypatch):
    # Few stale names are searched for one by one; many, in one pass over
    # the text's runs (each searched for across the text was quadratic).
    # Either way: every name within its covered reference, no walk; one
    # written elsewhere too (the image), walked and found.
    screen, objects = _screen(_configs_and_one_workload(count))
    assert not screen.may_flag(objects[-1])
    text = _configs_and_one_workload(count, extra=f"\n        args: [cm-{count - 1}]")
    screen, objects = _screen(text)
    assert screen.may_flag(objects[-1])
    assert _same(text, "", monkeypatch) == _same(text, "--version-all", monkeypatch) == []  # args: no rule reads them


def test_list_items_with_backslashes_are_screened_on_their_own_text(monkeypatch):
    # Each Deployment item holds a backslash, and only the last writes a
    # renamed config's name with escapes outside its reference: the one
    # item walked, found as when every item is walked.
    items = "".join(
        f"- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: cm-{i}}}\n  data: {{k: v{i}}}\n"
        f"- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: d-{i}, annotations: {{note: \"a\\tb\"}}}}\n"
        f"  spec:\n    template:\n      spec:\n        containers: [{{name: c, image: x}}]\n"
        f"        volumes: [{{name: v, configMap: {{name: cm-{i}}}}}]\n"
        for i in range(6))
    widget = '- apiVersion: example.com/v1\n  kind: Widget\n  metadata: {name: w}\n  spec: {configMap: "cm\\x2d5"}\n'
    text = "apiVersion: v1\nkind: List\nitems:\n" + items + widget
    screen, objects = _screen(text)
    # (The ConfigMaps name themselves: each may flag, walked on its own text.)
    assert [screen.may_flag(obj) for obj in objects[1::2]] == [False] * 6 and screen.may_flag(objects[-1])
    found = _same(text, "--keep-original=none", monkeypatch)
    assert len(found) == 1 and found[0].startswith("Widget/(default)/w spec.configMap"), found


APP = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg%(i)d}
data: {a: "%(i)d"}
---
apiVersion: v1
kind: Secret
metadata: {name: sec%(i)d}
data: {k: dmFsdWU=}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app%(i)d}
spec:
  template:
    spec:
      containers:
      - name: c
        image: nginx
        envFrom: [{configMapRef: {name: cfg%(i)d}}]
        env: [{name: X, valueFrom: {secretKeyRef: {name: sec%(i)d, key: k}}}]
"""


def test_the_guard_of_a_stream_it_flags_nothing_in_holds_little():
    # Many renamed configs, no document the screen flags (a chart's apps):
    # the guard held the set of every name the output holds, a filtered copy
    # of the stale names and a table of them by (kind, name) with a list
    # each, all at once at the render's peak (25,000 small apps). Traced: 453
    # bytes an app before stop 68, 231 before stop 70 held the stale names by
    # name alone (no (kind, namespace, name) tuple each) and the covered
    # references as the graph's list and their documents' indexes (no list
    # per document), 105 now.
    apps = 1000
    text = "---\n".join(APP % {"i": i} for i in range(apps))
    analysis = analyse([decode(text.encode(), None)], RenderOptions())
    assert len(guard._stale_names(analysis.graph, analysis.plan)) >= apps
    tracemalloc.start()
    try:
        findings = guard.check(analysis.graph, analysis.plan)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert findings == []
    assert peak < 150 * apps, peak / apps
