"""Every output is YAML that Kubernetes reads as the input plus the intended edits.

The oracle is real kubectl (`kubectl label --local -f FILE zz=x -o json`,
go-yaml v2 rules, what kubectl and Helm send to the API server). For each
generated stream and each golden fixture input:

- kubectl reads the input (JSON I) and the output (JSON O);
- the expected reading E is built from I alone, in Python, by applying the
  edits the render reports in its Result (mappings given keys, scalars
  replaced, items inserted, documents copied): never from the output text;
- O must equal E, object for object.

So a name written into a block scalar's place, an `immutable:` left without
its space, or a label value kubectl reads as a number all fail here, whatever
caused them. Many streams share one kubectl call to keep this fast.
"""

from __future__ import annotations

import io
import json
import os
import shlex
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import manifest_strategies as ms
from conftest import FIXTURES, run_postrender
from kube_reader import ReadError, expected_objects, read_streams

from postrender import cli
from postrender.inputs import decode
from postrender.pipeline.read.documents import Source
from postrender.pipeline.read.split import split
from postrender.pipeline.render import Result, render
from postrender.report import Reporter

BATCH = 50  # streams per kubectl call
EXAMPLES = int(os.environ.get("POSTRENDER_FUZZ_EXAMPLES") or 200)


@dataclass
class Case:
    label: str
    text: str
    args: list[str]
    result: Result | None = None


def run(case: Case) -> Case:
    options = cli.render_options(cli.parse(["render", *case.args]))
    case.result = render([decode(case.text.encode("utf-8"), None)], options, Reporter(stderr=io.StringIO()))
    return case


def check(cases: list[Case]) -> None:
    """Each case's output reads as its input with its edits applied."""
    for case in cases:
        if case.result is None:
            run(case)
    texts = [t for case in cases for t in (case.text, case.result.output)]
    try:
        readings = read_streams(texts)
    except ReadError as exc:
        if exc.index is None:
            raise
        case = cases[exc.index // 2]
        which = "output" if exc.index % 2 else "input (a test bug: inputs must be readable)"
        raise AssertionError(
            f"{case.label} {shlex.join(case.args)}: {exc} -- the {which}\n"
            f"--- input:\n{case.text}\n--- output:\n{case.result.output}"
        ) from None
    for i, case in enumerate(cases):
        read_in, read_out = readings[2 * i], readings[2 * i + 1]
        expected = expected_objects(case.result, read_in)
        if read_out != expected:
            raise AssertionError(_explain(case, expected, read_out))


def _explain(case: Case, expected: list[dict], actual: list[dict]) -> str:
    lines = [f"{case.label} {shlex.join(case.args)}: kubectl reads the output differently than intended"]
    if len(expected) != len(actual):
        lines.append(f"{len(actual)} objects where {len(expected)} were expected")
    for e, a in zip(expected, actual):
        if e != a:
            lines += ["expected:", json.dumps(e, indent=1, sort_keys=True), "read:", json.dumps(a, indent=1, sort_keys=True)]
            break
    lines += ["--- input:", case.text, "--- output:", case.result.output]
    return "\n".join(lines)


# --- generated streams -------------------------------------------------------

# Options that change what gets written: every edit kind appears with some draw.
OPTION_SETS = st.fixed_dictionaries({
    "keep": st.sampled_from([[], ["--keep-original"]]),
    "mutable": st.sampled_from([[], [], ["--mutable"]]),
    "strategy": st.sampled_from([[], [], ["--strategy=annotate"]]),
    # Scopes YAML 1.1 would read as numbers or booleans when written plain.
    "scope": st.sampled_from([[], [], ["--scope=0800"], ["--scope=08"], ["--scope=1e3"], ["--scope=yes"]]),
    "previous": st.sampled_from([[], [], ["--keep-previous=argocd"], ["--keep-previous=flux"]]),
    "namespace": st.sampled_from([[], ["--namespace=prod"]]),
}).map(lambda parts: [arg for key, group in parts.items()
                      # --strategy=annotate refuses options that act only on renamed objects.
                      if not (parts["strategy"] and key in ("keep", "mutable", "previous"))
                      for arg in group])


def test_generated_outputs_read_as_input_plus_edits():
    """Hypothesis draws and renders the streams (a render failure shrinks as
    usual); kubectl then reads them all in a few calls."""
    rendered: list[Case] = []

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(ms.written(ms.streams()), OPTION_SETS)
    def render_generated(stream_and_text, args):
        rendered.append(run(Case(f"generated stream {len(rendered)}", stream_and_text[1], args)))

    render_generated()
    assert len(rendered) >= EXAMPLES
    for start in range(0, len(rendered), BATCH):
        check(rendered[start : start + BATCH])


# --- golden fixture inputs ---------------------------------------------------

GOLDEN = sorted(p for p in (FIXTURES / "golden").iterdir() if (p / "input.yaml").exists())


def _golden_case(path) -> Case:
    args_file = path / "args"
    args = shlex.split(args_file.read_text()) if args_file.exists() else []
    return Case(path.name, (path / "input.yaml").read_text(encoding="utf-8"), args)


def _readable_part(case: Case) -> Case:
    """The fixture without the documents kubectl cannot read at all (`|` text
    documents, an invalid `!!binary`); the golden test holds those
    byte for byte. What remains must still pass the oracle."""
    chunks = [chunk for chunk, _ in split(Source(None, case.text))]
    readable = []
    for chunk in chunks:
        try:
            read_streams([chunk if chunk.startswith("---") else "---\n" + chunk])
            readable.append(chunk)
        except ReadError:
            pass
    assert len(readable) < len(chunks)
    return Case(case.label + " (kubectl-readable documents)", "".join(readable), case.args)


def test_golden_outputs_read_as_input_plus_edits():
    cases = [run(_golden_case(path)) for path in GOLDEN]
    try:
        read_streams([c.text for c in cases])
    except ReadError:
        unreadable = []
        for i, c in enumerate(cases):
            try:
                read_streams([c.text])
            except ReadError:
                unreadable.append(i)
        for i in unreadable:
            cases[i] = _readable_part(cases[i])
    check(cases)


# --- the classes the issue names, one by one ----------------------------------

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  a: b\n"
POD = (
    "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers:\n  - name: c\n    image: x\n"
    "    envFrom:\n    - configMapRef:\n        name: {ref}\n      prefix: X_\n"
)

BLOCK_NAMES = [
    "|-\n    cm", "|-\n    cm\n", "|-\n    cm\n\n\n", "|\n    cm", ">-\n    cm", ">-\n    cm\n\n", "|2-\n    cm",
    "|-2\n    cm", "|- # a comment\n    cm", ">-2 # a comment\n      cm", "!!str |-\n    cm", "&anchor |-\n    cm",
    "|+\n    cm",
]


@pytest.mark.parametrize("name", BLOCK_NAMES)
def test_block_scalar_names_and_references(name):
    # A clip or keep scalar ends in a line break: that name has one too, so
    # the reference is written the same way to match.
    ref = name.replace("\n    ", "\n          ")
    text = CM.format(name=name) + "---\n" + POD.format(ref=ref)
    cases = [Case(f"name {name!r}", text, args) for args in ([], ["--keep-original"])]
    cases.append(Case(f"name {name!r}, CRLF", text.replace("\n", "\r\n"), []))
    check(cases)


# A tag the new name must keep reading under, or lose (oracle61: `!!timestamp
# 2001-12-14` got `-<hash>` after it, which go-yaml refuses as a timestamp).
TAGGED_NAMES = [
    ("!!timestamp 2001-12-14", "!!timestamp 2001-12-14"), ("!!timestamp '2001-12-14'", "2001-12-14"),
    ("&a !!timestamp 2001-12-14", "!!timestamp 2001-12-14"), ("!!timestamp &a 2001-12-14", '"2001-12-14"'),
    ("!<tag:yaml.org,2002:timestamp> 2001-12-14", "2001-12-14"),
    ("!!timestamp 2001-12-14t21:59:43.10-05:00", "!!timestamp 2001-12-14t21:59:43.10-05:00"),
    ("!!str 2001-12-14", "!!str 2001-12-14"), ("!custom cm", "cm"), ("!<tag:yaml.org,2002:str> cm", "!!str cm"),
]


DEPLOYMENT = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d}}\nspec:\n  template:\n    spec:\n"
    "      containers:\n      - name: c\n        image: x\n        envFrom:\n        - configMapRef:\n"
    "            name: {ref}\n"
)


@pytest.mark.parametrize("name,ref", TAGGED_NAMES)
def test_tagged_names_and_references(name, ref):
    # A Deployment's reference, which is rewritten (a bare Pod's is held).
    text = CM.format(name=name) + "---\n" + DEPLOYMENT.format(ref=ref)
    check([Case(f"name {name!r}, reference {ref!r}", text, args) for args in ([], ["--keep-original"])])


NULL_IMMUTABLE = [
    "immutable:\n", "immutable:", "immutable: ~\n", "immutable: null\n", "immutable: !!null\n",
    "immutable: # set by a template\n", "immutable: !!null # comment\n", "immutable: &i\n", "immutable: false\n",
    "? immutable\n",
]
# A string is no *bool: the API server refuses the object, and so does postrender, as for a Secret's type.
STRING_IMMUTABLE = ["immutable: !!str false\n", "immutable: 'true'\n", "immutable: |-\n  x\n"]


@pytest.mark.parametrize("tail", STRING_IMMUTABLE)
def test_an_immutable_that_is_a_string_is_refused(tail):
    out = run_postrender(["--version-all"], CM.format(name="cm") + tail)
    assert out.status == 1 and out.stdout == "" and "ConfigMap immutable must be true or false" in out.stderr


@pytest.mark.parametrize("tail", NULL_IMMUTABLE)
def test_immutable_replaces_every_empty_or_other_value(tail):
    text = CM.format(name="cm") + tail
    cases = [Case(f"{tail!r}", text, []), Case(f"{tail!r}, CRLF", text.replace("\n", "\r\n"), [])]
    # The same at the top of the document, before other keys.
    cases.append(Case(f"{tail!r} first", tail.rstrip("\n") + "\n" + CM.format(name="cm"), []))
    check(cases)


FLOW_NULLS = [
    "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm}, data: {a: b}, immutable}",
    "{apiVersion: v1, kind: ConfigMap, immutable, metadata: {name: cm}, data: {a: b}}",
    "{apiVersion: v1, kind: ConfigMap, immutable: , metadata: {name: cm}, data: {a: b}}",
    "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm}, data: {a: b}, immutable: !!null }",
    "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm, labels}, data: {a: b}}",
    "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm, labels: , annotations: ~}, data: {a: b}}",
    "{apiVersion: v1, kind: ConfigMap, metadata: {? name : cm, ? labels}, data: {a: b}}",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels:\n  annotations: # later\ndata: {a: b}\n",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels: !!null\n  annotations: null\ndata: {a: b}\n",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  ? labels\n  name: cm\ndata: {a: b}\n",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  ? labels\ndata: {a: b}\n",
    "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: cm, labels: }\n"
    "  data: {a: b}\n  immutable:\n",
]


@pytest.mark.parametrize("text", FLOW_NULLS)
def test_null_values_in_flow_and_block_mappings(text):
    pod = "---\n" + POD.format(ref="cm")
    check([Case(f"{text!r}", text + "\n" + pod, args) for args in ([], ["--keep-original"], ["--scope=web"])])


# Values that YAML 1.1 reads as something else when written plain.
ODD_VALUES = ["08", "0800", "1e3", "012", "0x1F", "0o17", "0b101", "1_000", "2020-01-01", "12.5", ".5", "yes",
              "y", "n", "off", "Null", "~", "1e", "07a"]


@pytest.mark.parametrize("value", ODD_VALUES)
def test_written_values_are_quoted_when_yaml_reads_them_otherwise(value):
    # As a name (the base-name label), as the scope (--scope and the
    # instance label), as an opted-out object's config-hash holder.
    quoted = json.dumps(value)
    cm = CM.format(name=quoted)
    labelled = cm.replace("\ndata:", f"\n  labels: {{app.kubernetes.io/instance: {quoted}}}\ndata:")
    pod = "---\n" + POD.format(ref=quoted)
    cases = [Case(f"name {value!r}", cm + pod, []), Case(f"instance label {value!r}", labelled + pod, [])]
    if value.replace("_", "").replace(".", "").replace("-", "").isalnum() and len(value) <= 63 and value[0].isalnum() and value[-1].isalnum():
        cases.append(Case(f"--scope {value!r}", cm + pod, [f"--scope={value}"]))
    check(cases)
