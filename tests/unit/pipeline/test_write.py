"""The writer gives the stream part by part (the command line writes it out
so, never holding it whole); `Result.output` is the same text in one string."""

from __future__ import annotations

import inspect
import io

import pytest

from postrender.options import RenderOptions
from postrender.pipeline.read.documents import Source
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


# Options acting only on renamed objects are refused under --strategy=annotate.
_RELEASED = [(case, extra) for case in GOLDEN
             for extra in ([], ["--keep-original=all"], ["--version-all", "--mutable", "--allow-broken-references"])
             if not extra or "--strategy=annotate" not in case[2]]


@pytest.mark.parametrize(("case", "extra"), _RELEASED,
                         ids=[f"{case[0]}-{' '.join(extra)}" for case, extra in _RELEASED])
def test_released_render_writes_the_same_stream_and_messages(case, extra):
    _name, text, argv = case
    kept, kept_output, kept_messages = _render_case(text, [*argv, *extra], release=False)
    released, output, messages = _render_case(text, [*argv, *extra], release=True)
    assert (output, messages) == (kept_output, kept_messages)
    # Without release, a library caller still finds every node the analysis read.
    assert all(obj.node is not None and obj.document.root is not None for obj in kept.analysis.stream.objects)
    assert all(doc.root is None for doc in released.analysis.stream.documents)
    assert all(obj.node is None and obj.prepared is None for obj in released.analysis.stream.objects)


def test_release_leaves_no_node_and_no_reference():
    import gc

    from postrender.syntax import prune
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
    # Stubs at small offsets are shared by every document of their shape,
    # as offsets are (prune.stub): held for the process, standing for none.
    shared = {id(o) for o in prune._SHARED_STUBS.values()}
    alive = {id(o) for o in gc.get_objects() if isinstance(o, Node)} - before - shared
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


_SECRET = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: sec\ntype: Opaque\ndata:\n  k: dmFsdWU="
_LIST = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
    "- " + item.replace("\n", "\n  ") + "\n" for item in (
        CM.format(name="cfg"), _SECRET,
        DEPLOY.rstrip("\n")
        + "\n        env:\n        - name: K\n          valueFrom: {secretKeyRef: {name: sec, key: k}}",
        CM.format(name="other")))


@pytest.mark.parametrize("argv", [[], ["-v"], ["--keep-original=all"], ["--strategy=annotate"],
                                  ["--keep-previous=argocd"], ["--version-all", "--mutable"]])
def test_a_list_lets_go_of_its_edit_records_as_it_is_written(argv, monkeypatch):
    # Released, a List's records (scalars replaced, items inserted, marks
    # made ahead, keys given) go as its edits are made, its items' nodes
    # with them (DocumentEdits.edits): the same stream and messages as kept.
    from postrender.pipeline.rewrite import DocumentEdits

    made = []
    edits = DocumentEdits.edits
    signature = inspect.signature(edits)

    def spy(*args, **kwargs):
        # Bound as the method binds them, by position or by keyword.
        call = signature.bind(*args, **kwargs)
        call.apply_defaults()
        made.append((call.arguments["self"], call.arguments["release_records"]))
        return edits(*args, **kwargs)

    monkeypatch.setattr(DocumentEdits, "edits", spy)
    kept, kept_output, kept_messages = _render_case(_LIST, argv, release=False)
    assert [release for _, release in made] == [False]
    records = made[0][0]
    assert (records._replaced, records._inserted, records._ahead, records._entries) != (None,) * 4
    made.clear()
    released, output, messages = _render_case(_LIST, argv, release=True)
    assert (output, messages) == (kept_output, kept_messages)
    assert [release for _, release in made] == [True]
    records = made[0][0]
    assert (records._replaced, records._inserted, records._ahead, records._entries) == (None,) * 4


def test_retain_keeps_the_analysis_it_reads_after_writing(monkeypatch):
    """--retain's cluster step runs after the render, where a way in
    delivers it (frontends.render), and reads the analysis: a released
    render keeps it then. A plain render runs no such step."""
    import postrender.cluster.retain as retain
    from postrender.frontends import render as deliver

    seen = []
    monkeypatch.setattr(retain, "carry_forward",
                        lambda analysis, *_: seen.append([d.root for d in analysis.stream.documents]) or "")
    from postrender.options import RenderOptions as Options

    deliver([Source(None, CM.format(name="cfg"))], Options(retain=1), Reporter(stderr=io.StringIO()), release=True)
    assert seen and all(root is not None for root in seen[0])
    seen.clear()
    deliver([Source(None, CM.format(name="cfg"))], Options(), Reporter(stderr=io.StringIO()), release=True)
    assert seen == []


# --- a large edited document is given out in parts (write._in_parts) ---------

from hypothesis import given, settings, strategies as st  # noqa: E402

from postrender.pipeline import write as write_module  # noqa: E402
from postrender.syntax.edit import Splice  # noqa: E402


@st.composite
def _spliced(draw):
    text = draw(st.text(alphabet="ab\n#-.%é", max_size=60))
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=8)))
    edits = [(start, end, draw(st.text(alphabet="xy\né", max_size=5)))
             for start, end in zip(cuts[::2], cuts[1::2])]
    return text, Splice(edits)


@settings(max_examples=300, deadline=None)
@given(_spliced(), st.integers(1, 20))
def test_a_splice_applied_in_parts_is_the_splice_applied(spliced, size):
    text, splice = spliced
    parts = list(splice.applied_in_parts(text, size))
    assert "".join(parts) == splice.apply(text)
    assert all(parts[:-1]) and all(len(part) >= size for part in parts[:-1])


def _leads_and_tails():
    # What opens and closes a document, as the writer reads its start and
    # end: markers, directives, comments, a byte-order mark, a `...` line.
    leads = ["", "---\n", "# c\n", "\ufeff", "--- # c\n# d\n"]
    tails = ["", "\n", "# end\n", "...\n", "...\n# c\n", "\n\n# c"]
    return [(lead, tail) for lead in leads for tail in tails]


@pytest.mark.parametrize(("lead", "tail"), _leads_and_tails())
@pytest.mark.parametrize("argv", [["--version-all"], ["--version-all", "--keep-original=all"]])
def test_a_document_written_in_parts_is_written_as_whole(lead, tail, argv, monkeypatch):
    # Every document with edits given out in parts of 7 characters: the
    # stream, with what separates documents and sources (a copy, another
    # file and what opens it, the `...` before directives, what ends a
    # document), is the stream written whole.
    # Content after the last edit (the reference, the marks), and before
    # the first: only such a document is written in parts.
    config = CM.format(name="cfg") + "\n  k2: v2\n" + tail
    deploy = DEPLOY + "        image: x\n"
    sources = [Source("a.yaml", deploy + "---\n" + config), Source("b.yaml", lead + config.replace("cfg", "other")),
               Source("c.yaml", deploy.replace("cfg", "third").replace("name: app", "name: app3")
                      + "...\n%YAML 1.1\n---\n" + config.replace("cfg", "third"))]
    whole = _written(sources, argv)
    monkeypatch.setattr(write_module, "_IN_PARTS_FROM", 0)
    monkeypatch.setattr(write_module, "_PART", 7)
    asked = []
    applied = Splice.applied_in_parts
    monkeypatch.setattr(Splice, "applied_in_parts",
                        lambda self, text, size: asked.append(text) or applied(self, text, size))
    assert _written(sources, argv) == whole
    assert not whole.startswith("error") and len(asked) >= 5  # the Deployments, and the configs


@pytest.mark.parametrize(("lead", "tail"), _leads_and_tails())
@pytest.mark.parametrize("end", ["", "\n", "  # c\n", "\n# end\n", "\n...\n", "\n...\n# c\n", "\n\n# c"])
def test_a_document_edited_on_its_last_line_is_written_in_parts_as_whole(lead, tail, end, monkeypatch):
    # The reference on the document's last line of content: its closing
    # lines are given out as edited (write._closing_lines_edited), not
    # the whole document made at once, and what follows it (a line break,
    # the `...` before directives, the next source) is written as when
    # the document was made whole.
    deploy = DEPLOY[:-1] + end
    third = DEPLOY[:-1].replace("cfg", "third").replace("name: app", "name: app3")
    sources = [Source("a.yaml", CM.format(name="cfg") + "\n---\n" + deploy),
               Source("b.yaml", lead + CM.format(name="other") + tail),
               Source("c.yaml", lead + third + "\n...\n%YAML 1.1\n---\n" + CM.format(name="third") + "\n")]
    argv = ["--version-all", "--keep-original=all"]
    whole = _written(sources, argv)
    monkeypatch.setattr(write_module, "_IN_PARTS_FROM", 0)
    monkeypatch.setattr(write_module, "_PART", 7)
    closing = write_module._closing_lines_edited
    edited = []
    monkeypatch.setattr(write_module, "_closing_lines_edited",
                        lambda edits, read: edited.append(closing(edits, read)) or edited[-1])
    assert _written(sources, argv) == whole
    # (A `...` line after the reference is content: the closing lines are then as read.)
    assert not whole.startswith("error") and None not in edited and bool(edited) is ("..." not in end)


@settings(max_examples=300, deadline=None)
@given(_spliced(), st.integers(0, 60))
def test_a_splice_applied_from_an_offset_ends_the_splice_applied(spliced, at):
    text, splice = spliced
    at = min(at, len(text))
    edits = list(splice)
    tail = splice.applied_from(text, at)
    if any(start < at < end for start, end, _ in edits):
        assert tail is None
    else:
        before = Splice([(start, end, new) for start, end, new in edits if start < at])
        assert before.apply(text[:at]) + tail == splice.apply(text)


def _written(sources, argv):
    from postrender.cli import parse, render_options

    try:
        result = render(sources, render_options(parse(argv)), Reporter(stderr=io.StringIO()))
    except Exception as error:  # noqa: BLE001 — the same refusal either way
        return f"error: {error}"
    return list(result.written) and "".join(result.written)


@pytest.mark.parametrize(("name", "text", "argv"), GOLDEN, ids=[case[0] for case in GOLDEN])
def test_golden_streams_write_alike_in_parts(name, text, argv, monkeypatch):
    # The parts written out (every edited document in parts of 5
    # characters, where it can be) join to `output`, which makes each
    # document whole, and to the output written before parts were.
    whole = _render_case(text, argv, release=True)[1]
    monkeypatch.setattr(write_module, "_IN_PARTS_FROM", 0)
    monkeypatch.setattr(write_module, "_PART", 5)
    result, output, _ = _render_case(text, argv, release=True)
    assert "".join(result.written) == output == whole


def test_a_large_list_is_never_made_whole_when_written(monkeypatch):
    # The edited List is given out a part at a time: neither the whole
    # edited text nor its pieces are ever held at once.
    items = "".join(f"- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: c{i}}}\n  data: {{k: v{i}}}\n"
                    for i in range(30_000))
    text = "apiVersion: v1\nkind: List\nitems:\n" + items
    assert len(text) > write_module._IN_PARTS_FROM
    monkeypatch.setattr(Splice, "apply", lambda self, text: pytest.fail("made whole"))
    result = render([Source("list.yaml", text)], RenderOptions(version_all=True), Reporter(stderr=io.StringIO()),
                    release=True)
    parts = list(result.written)
    assert len(parts) > 1 and max(map(len, parts)) < 2 * write_module._PART
    assert "name: c29999-" in parts[-1] or "name: c29999-" in "".join(parts[-3:])


def test_output_makes_a_large_document_whole_not_from_parts(monkeypatch):
    # Joining the parts of a large document would hold them and their
    # join at once: `output` (a KRM run's, --retain's) makes it whole.
    text = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        f"- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: c{i}}}\n  data: {{k: v{i}}}\n"
        for i in range(30_000))
    result = render([Source("list.yaml", text)], RenderOptions(version_all=True), Reporter(stderr=io.StringIO()))
    parts = "".join(result.written)
    monkeypatch.setattr(Splice, "applied_in_parts", lambda self, text, size: pytest.fail("made in parts"))
    assert result.output == parts


# --- the entries read left out, among the edits (write._with_cuts) -----------

from postrender.syntax.earlier import Cut  # noqa: E402


def _with_cuts_each_edit_per_cut(edits, cuts):
    """write._with_cuts as it was written first: every edit looked at for
    every cut (cuts x edits: a List holding thousands of keys written twice
    and thousands of edits took minutes). The one used skips the edits that
    end before a cut; it must make the same edits."""
    spans = sorted((start, end) for start, end, _ in edits)
    made = list(edits)
    for cut in cuts:
        at = cut.start
        for start, end in spans:
            if end < cut.start or start > cut.end or (start == end and start in (cut.start, cut.end)):
                continue
            if start > at:
                made.append((at, min(start, cut.end), ""))
            at = max(at, end)
        if at < cut.end:
            made.append((at, cut.end, ""))
    return made


@st.composite
def _edits_and_cuts(draw):
    # Edits that do not overlap (insertions among them, two at one place
    # too) and cuts that do not either, as read leaves entries out.
    bounds = sorted(draw(st.lists(st.integers(0, 60), max_size=16)))
    edits = [(start, draw(st.sampled_from([start, end])), "x") for start, end in zip(bounds[::2], bounds[1::2])]
    edits += draw(st.lists(st.sampled_from(edits), max_size=2)) if edits else []
    marks = sorted(set(draw(st.lists(st.integers(0, 60), max_size=12))))
    cuts = tuple(Cut(start, end, draw(st.booleans())) for start, end in zip(marks[::2], marks[1::2]))
    return draw(st.permutations(edits)), cuts


@settings(max_examples=500, deadline=None)
@given(_edits_and_cuts())
def test_cuts_among_edits_are_made_as_when_each_edit_was_asked_per_cut(drawn):
    edits, cuts = drawn
    assert write_module._with_cuts(list(edits), cuts) == _with_cuts_each_edit_per_cut(edits, cuts)


def test_closing_lines_longer_than_a_part_are_not_made_apart(monkeypatch):
    # A List written as one JSON line: its last line of content is the List.
    # Made as the closing lines, it was held beside the parts made of it
    # again (review66c: 8.3 MB, 89 -> 100 MiB): it is made whole instead.
    items = ",".join(f'{{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {{"name": "c{i}"}}, '
                     f'"data": {{"k": "v{i}"}}}}' for i in range(20))
    deploy = ('{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "app"}, "spec": {"template": '
              '{"spec": {"containers": [{"name": "c", "envFrom": [{"configMapRef": {"name": "c19"}}]}]}}}}')
    sources = [Source("list.yaml", f"apiVersion: v1\nkind: List\nitems: [{items}, {deploy}]\n")]
    argv = ["--version-all"]
    whole = _written(sources, argv)
    monkeypatch.setattr(write_module, "_IN_PARTS_FROM", 0)
    monkeypatch.setattr(write_module, "_PART", 7)
    monkeypatch.setattr(write_module, "_CLOSING_APART", 64)
    applied = []
    applied_from = Splice.applied_from
    monkeypatch.setattr(Splice, "applied_from",
                        lambda self, text, at: applied.append(at) or applied_from(self, text, at))
    assert _written(sources, argv) == whole
    assert not whole.startswith("error") and "name: c19-" not in whole and '"c19-' in whole and applied == []
    monkeypatch.setattr(write_module, "_CLOSING_APART", 1 << 20)  # the line shorter: made apart
    assert _written(sources, argv) == whole and applied


def test_a_large_list_written_out_holds_about_one_part_at_a_time(monkeypatch):
    # Written out (cli.write_stdout), each part is let go before the next
    # is made, and each part's pieces before it is written: the first part,
    # the part before and its bytes, and a part's pieces held beside it were
    # six parts at the peak (4,000 small apps as one List: 2 MiB), now three
    # (the part made, its pieces as it is made; then it and its bytes).
    import sys
    import tracemalloc

    from postrender import cli

    class Discarding(io.RawIOBase):
        def writable(self):
            return True

        def write(self, data):
            return len(data)

    items = "".join(f"- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: c{i}}}\n  data: {{k: v{i}}}\n"
                    for i in range(30_000))
    text = "apiVersion: v1\nkind: List\nitems:\n" + items
    result = render([Source("list.yaml", text)], RenderOptions(version_all=True), Reporter(stderr=io.StringIO()),
                    release=True)
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BufferedWriter(Discarding()), encoding="utf-8"))
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        cli.write_stdout(result.written)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert len(text) > 2 * write_module._PART
    assert peak < 4.5 * write_module._PART
    # And a part is small beside the List (2.4 MB): in parts of a MiB,
    # writing it held 3.5 MB, more than the List's own text.
    assert peak < (1 << 20) < len(text) / 2
