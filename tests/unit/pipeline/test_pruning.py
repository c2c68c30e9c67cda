"""The read stage drops what no later stage reads (pipeline/needs.py,
syntax/prune.py): a render of the pruned documents must be the render of
the whole ones, byte for byte and message for message.

The reference is the same render given a stream read without pruning (as
KRM reads it), so each case compares the two paths on one input.
"""

import io
import shlex
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import manifest_strategies as ms
from conftest import FIXTURES
from postrender.cli import parse, render_options
from postrender.errors import PostrenderError
from postrender.pipeline import needs
from postrender.pipeline.needs import Needs
from postrender.pipeline.read import Source, read
from postrender.pipeline.render import render
from postrender.report import Reporter
from postrender import fieldspecs
from postrender.limits import Limits
from postrender.syntax.nodes import unique_nodes

@pytest.fixture(autouse=True)
def prune_every_document(monkeypatch):
    # Renders prune only large documents; these cases are small.
    monkeypatch.setattr(needs, "SMALLEST_PRUNED", 0)


GOLDEN = sorted(p for p in (FIXTURES / "golden").iterdir() if (p / "input.yaml").exists())
CORPUS = sorted(p for p in (FIXTURES / "corpus").rglob("*.yaml"))
# Flags that change what the stages read: every one of them must agree too.
VARIANTS = ["", "--strategy annotate", "--version-all", "--keep-original all --keep-previous helm"]


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


def _kept(text: str) -> tuple[int, int]:
    """(nodes composed, nodes kept) over the stream's documents."""
    table = fieldspecs.load_table([])
    whole = sum(len(unique_nodes(d.root)) for d in read([Source(None, text)], Limits()).documents if d.root)
    pruned = read([Source(None, text)], Limits(), Needs(table)).documents
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


def test_config_objects_and_aliases_are_kept_whole():
    config = WORKLOAD.split("---\n")[1]
    assert _kept(config)[1] == _kept(config)[0]
    aliased = CRD.replace("  group: example.com", "  group: &g example.com\n  other: *g")
    whole, kept = _kept(aliased)
    assert kept == whole
    merged = CRD.replace("  scope: Namespaced", "  scope: Namespaced\n  extra: {<<: {a: 1}}")
    whole, kept = _kept(merged)
    assert kept == whole


def test_a_stub_ends_where_its_content_did():
    # A value inserted after a dropped block collection lands where it
    # would have: on the line after its last item, not after the blank lines.
    text = WORKLOAD.replace("        envFrom:", "        extra:\n          deep: {x: 1}\n\n\n        envFrom:")
    _same(text, "")
    _same(text.replace("  template:\n    metadata: {labels: {app: web}}\n", "  template:\n"), "")


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


def test_small_documents_are_kept_whole(monkeypatch):
    monkeypatch.setattr(needs, "SMALLEST_PRUNED", 200)
    assert _kept(WORKLOAD)[1] == _kept(WORKLOAD)[0]
    big = CRD.replace("              size:", "".join(f"              f{i}: {{type: string}}\n" for i in range(200))
                      + "              size:")
    whole, kept = _kept(big)
    assert kept < whole * 0.1, (whole, kept)
