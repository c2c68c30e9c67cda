"""The writer gives the stream part by part (the command line writes it out
so, never holding it whole); `Result.output` is the same text in one string."""

from __future__ import annotations

import io

import pytest

from postrender.options import RenderOptions
from postrender.pipeline.read import Source
from postrender.pipeline.render import render
from postrender.report import Reporter

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  k: v"
DEPLOY = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\n"
    "spec:\n  template:\n    spec:\n      containers:\n      - name: c\n        envFrom:\n"
    "        - configMapRef:\n            name: cfg\n"
)


def test_parts_join_to_the_output_and_can_be_read_again():
    # Two sources, the first without a final line break; unsuffixed copies (--keep-original).
    sources = [Source("a.yaml", CM.format(name="cfg")), Source("b.yaml", DEPLOY)]
    result = render(sources, RenderOptions(keep_original="all"), Reporter(stderr=io.StringIO()))
    first, second = list(result.written), list(result.written)
    assert first == second and len(first) > 2
    assert result.output == "".join(first)
    # The separators between sources and copies are parts of their own.
    assert result.output.count("---\n") == 2, result.output
    assert "name: cfg\n" in result.output and "name: cfg-" in result.output


def test_edits_that_cannot_be_written_fail_before_any_part():
    from postrender.syntax.edit import Splice

    with pytest.raises(UnicodeEncodeError):
        Splice([(0, 1, "\udc80")])
    assert Splice([(0, 1, "é"), (2, 2, "!")]).apply("abc") == "éb!c"


@pytest.mark.parametrize("lead", ["---\t# a marker\n", "\ufeff---\n", "# a comment\n", "", "# a comment\n---#glued\n"])
def test_a_copy_and_a_next_source_are_documents_of_their_own(lead):
    # Whatever opens the next source, the writer must separate the
    # unsuffixed copy and that source's document.
    from postrender.limits import Limits
    from postrender.pipeline.read import read

    config = lead + CM.format(name="cfg") + "\n"
    sources = [Source("a.yaml", DEPLOY), Source("b.yaml", config)]
    output = render(sources, RenderOptions(keep_original="all"), Reporter(stderr=io.StringIO())).output
    stream = read([Source(None, output)], Limits())
    assert [(o.kind, o.name) for o in stream.objects] == [
        ("Deployment", "app"), ("ConfigMap", stream.objects[1].name), ("ConfigMap", "cfg")], output
    assert stream.objects[1].name.startswith("cfg-")
    again = render([Source(None, output)], RenderOptions(keep_original="all"), Reporter(stderr=io.StringIO()))
    assert again.output == output


# --- release: the stream command drops each document's nodes once spliced ----

def _render_case(text: str, argv: list[str], release: bool):
    from postrender.cli import parse, render_options

    err = io.StringIO()
    result = render([Source("input.yaml", text)], render_options(parse(argv)), Reporter(verbose=True, stderr=err),
                    release=release)
    return result, result.output, err.getvalue()


def _golden_cases():
    from pathlib import Path
    import shlex

    golden = Path(__file__).parents[3] / "fixtures" / "golden"
    for case in sorted(golden.iterdir()):
        if (case / "input.yaml").exists():
            args = case / "args"
            yield case.name, (case / "input.yaml").read_text(encoding="utf-8"), \
                shlex.split(args.read_text()) if args.exists() else []


GOLDEN = list(_golden_cases())


@pytest.mark.parametrize("extra", [[], ["--keep-original=all"], ["--version-all", "--mutable", "--allow-broken-references"]])
@pytest.mark.parametrize(("name", "text", "argv"), GOLDEN, ids=[case[0] for case in GOLDEN])
def test_released_render_writes_the_same_stream_and_messages(name, text, argv, extra):
    kept, kept_output, kept_messages = _render_case(text, [*argv, *extra], release=False)
    released, output, messages = _render_case(text, [*argv, *extra], release=True)
    assert (output, messages) == (kept_output, kept_messages)
    # Without release, a library caller still finds every node the analysis read.
    assert all(obj.node is not None and obj.document.root is not None for obj in kept.analysis.stream.objects)
    assert all(doc.root is None for doc in released.analysis.stream.documents)
    assert all(obj.node is None and obj.prepared is None for obj in released.analysis.stream.objects)


def test_release_leaves_no_node_and_no_reference():
    import gc

    from postrender.syntax.nodes import Node

    # A workload's pod templates are memoised, edits are recorded per
    # document, copies are made (--keep-original), a List holds items: every
    # holder of a node a render has.
    text = "\n---\n".join([
        CM.format(name="cfg"), DEPLOY,
        "apiVersion: v1\nkind: List\nitems:\n- " + CM.format(name="other").replace("\n", "\n  "),
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  template:\n    spec:\n"
        "      containers:\n      - name: c\n        envFrom:\n        - configMapRef:\n            name: other\n",
    ])
    gc.collect()
    before = {id(o) for o in gc.get_objects() if isinstance(o, Node)}
    result, _, _ = _render_case(text, ["--keep-original=all"], release=True)
    gc.collect()
    alive = {id(o) for o in gc.get_objects() if isinstance(o, Node)} - before
    # Writing reads no reference (the edits hold the scalars they replace,
    # until spliced): they go before it, with their scalars, but for those
    # -v reports as rewritten.
    assert not result.analysis.graph.references
    assert alive <= {id(ref.node) for ref, _ in result.rewrite.rewritten}
    assert not result.rewrite.documents_pending
    assert all(obj.node is None for obj in result.analysis.stream.objects)
    kept, _, _ = _render_case(text, ["--keep-original=all"], release=False)
    gc.collect()
    assert len(kept.analysis.graph.references) >= 2
    assert len({id(o) for o in gc.get_objects() if isinstance(o, Node)} - before) > 6


def test_retain_keeps_the_analysis_it_reads_after_writing(monkeypatch):
    import postrender.cluster.retain as retain

    seen = []
    monkeypatch.setattr(retain, "carry_forward",
                        lambda analysis, *_: seen.append([d.root for d in analysis.stream.documents]) or "")
    from postrender.options import RenderOptions as Options

    render([Source(None, CM.format(name="cfg"))], Options(retain=1), Reporter(stderr=io.StringIO()), release=True)
    assert seen and all(root is not None for root in seen[0])
