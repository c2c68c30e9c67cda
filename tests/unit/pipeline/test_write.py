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


@pytest.mark.parametrize("lead", ["---\t# a marker\n", "\ufeff---\n", "# a comment\n", "", "%YAML 1.1\n---\n"])
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
