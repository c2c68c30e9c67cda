"""Shapes of a stream kubectl refuses as a whole though each object in it
reads: postrender must refuse exactly those, by document and line, and
pass the rest. The oracle is kubectl itself (tests/kube_reader.py).

- After a JSON document that starts the stream, kubectl reads JSON up to
  the next `---` line: blank and comment lines pass, a `...` line (YAML's
  document end) fails ("invalid character '.' looking for beginning of
  value"), once the objects before it were read.
- An item of a List that holds a list of `items` itself is read as a List,
  which an item cannot be ("is not a list: no Items field in this object").
"""

from __future__ import annotations

import pytest

from conftest import run_postrender
from kube_reader import kubectl_reads, read_streams

JSON = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": {"a": "b"}}'
YAML = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}\ndata: {c: d}\n"
DEPLOY = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n"
          "      containers:\n      - {name: c, image: i, envFrom: [{configMapRef: {name: cfg}}]}\n")

AFTER_JSON = {
    "a `...` line": "\n...\n",
    "a `...` line, then a document": "\n...\n---\n" + YAML,
    "a `...` line and a comment": "\n... # end\n---\n" + DEPLOY,
    "a comment, then a `...` line": "\n# c\n...\n",
    "a `...` line ending the text": "\n...",
    "a `---` line, then a document": "\n---\n" + DEPLOY,
    "comments, then a `---` line": "\n# a\n\n# b\n---\n" + DEPLOY,
    "a `---` line, then a `...` line": "\n---\n...\n",
    "a later document ended by `...`": "\n---\n" + YAML + "...\n---\n" + DEPLOY,
    "comments only": "\n# a\n",
}

IN_A_LIST = {
    "a List": "  kind: List\n  items:\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: cfg}, data: {a: b}}\n",
    "a typed list": "  kind: ConfigMapList\n  items: []\n",
    "an object holding items": "  kind: Widget\n  metadata: {name: w}\n  items: [{a: 1}]\n",
    "a List whose items are null": "  kind: List\n  metadata: {name: l}\n  items: null\n",
    "an object whose items is a number": "  kind: Widget\n  metadata: {name: w}\n  items: 3\n",
    "a List without items": "  kind: List\n  metadata: {name: l}\n",
}


def _in_a_list(item: str) -> str:
    version = "example.com/v1" if "Widget" in item else "v1"
    return (f"apiVersion: v1\nkind: List\nitems:\n- apiVersion: {version}\n{item}"
            "- {apiVersion: v1, kind: ConfigMap, metadata: {name: cfg}, data: {a: b}}\n---\n" + DEPLOY)


CASES = {**{f"after JSON: {name}": JSON + tail for name, tail in AFTER_JSON.items()},
         **{f"in a List: {name}": _in_a_list(item) for name, item in IN_A_LIST.items()}}


def _refused_as_kubectl_refuses(text: str) -> str | None:
    """Renders `text`: where kubectl reads it, postrender must too, and
    keep every object; where kubectl refuses it, postrender must fail with
    one line and nothing on stdout, which is returned (None: read)."""
    result = run_postrender([], text)
    if kubectl_reads(text):
        assert result.status == 0, result.stderr
        read_in, read_out = read_streams([text, result.stdout])
        assert len(read_out) == len(read_in)
        return None
    assert result.status == 1 and result.stdout == "", result.stderr
    (line,) = result.stderr.splitlines()
    return line


@pytest.mark.parametrize("name", CASES)
def test_a_stream_is_refused_exactly_where_kubectl_refuses_it(name):
    line = _refused_as_kubectl_refuses(CASES[name])
    if line is not None:
        assert line.startswith("postrender: error: document 1 ") and " line " in line, line


def test_the_class_has_both_verdicts():
    # Guards the oracle: were kubectl to read everything or nothing, the
    # test above would not tell the two apart.
    verdicts = {name: kubectl_reads(text) for name, text in CASES.items()}
    assert not verdicts["after JSON: a `...` line"] and not verdicts["in a List: a List"]
    assert verdicts["after JSON: a `---` line, then a document"] and verdicts["in a List: a List whose items are null"]


def test_the_line_named_is_the_document_ends():
    result = run_postrender([], JSON + "\n# c\n...\n---\n" + DEPLOY)
    assert result.stderr.startswith("postrender: error: document 1 line 3: a `...` line after a JSON document")
    result = run_postrender([], _in_a_list(IN_A_LIST["a List"]))
    assert result.stderr.startswith("postrender: error: document 1 (List/?) line 4: an item of a List that holds")


# A `...` line (YAML's document end) where kubectl's chunk holds no document
# before it: go-yaml refuses the chunk ("did not find expected node
# content"), where YAML reads an empty stream (oracle60). kubectl's reader
# keeps a `---` line that comes while its chunk is empty (the file's first,
# one right after a `---` it dropped), so `---`, `---`, `...` reads.
END = "...\n"
OBJECT = YAML
END_MARKERS = {
    "a `...` chunk after a document": OBJECT + "---\n" + END,
    "only a `...` line": END,
    "a comment, then `...`, before the first `---`": "# c\n" + END + "---\n" + OBJECT,
    "a blank line before `...`, a comment after": OBJECT + "---\n\n" + END + "# t\n",
    "`...` twice after `---`": OBJECT + "---\n" + END + END,
    "`...`, `---`, `...`": OBJECT + END + "---\n" + END,
    "`...` with a comment": OBJECT + "---\n... # c\n",
    "`...`, then a document, in one chunk": OBJECT + "---\n" + END + DEPLOY,
    "a byte-order mark, then `...`": "\ufeff" + END + "---\n" + OBJECT,
    "`...` after a kept `---`": OBJECT + "---\n---\n" + END,
    "`...` after a third `---` in a row": OBJECT + "---\n---\n---\n" + END,
    "`...` after the file's first `---`": "---\n" + END + "---\n" + OBJECT,
    "`...` ending a document, twice": OBJECT + END + END,
    "a null document ended by `...`": OBJECT + "---\n~\n" + END,
    "comments only after `---`": OBJECT + "---\n# only\n",
    "an indented `...` (a scalar)": OBJECT + "---\n  ...\n",
    "`....` (a scalar)": OBJECT + "---\n....\n",
    "CRLF, `...` after `---`": (OBJECT + "---\n" + END).replace("\n", "\r\n"),
    # A first chunk of one line, no separator before it (review60): the
    # file's start is no `---` line kubectl kept, so the `---` after it is
    # dropped, and kept again after that, by turns.
    "a comment line, `---`, `...`": "# c\n---\n" + END + "---\n" + OBJECT,
    "a blank line, `---`, `...`": "\n---\n" + END + "---\n" + OBJECT,
    "a one-line document, `---`, `...`": "{apiVersion: v1, kind: ConfigMap, metadata: {name: f}}\n---\n" + END
                                         + "---\n" + OBJECT,
    "a comment line, `---`, `---`, `...`": "# c\n---\n---\n" + END + "---\n" + OBJECT,
    # After a JSON document that starts the stream kubectl keeps the first `---`.
    "JSON on two lines, `---`, `...`": '{"apiVersion": "v1",\n "kind": "ConfigMap", "metadata": {"name": "j"}}\n---\n'
                                       + END + "---\n" + OBJECT,
    "JSON on two lines, `---`, `---`, `...`": '{"apiVersion": "v1",\n "kind": "ConfigMap", "metadata": {"name": "j"}}\n'
                                              "---\n---\n" + END + "---\n" + OBJECT,
}


@pytest.mark.parametrize("name", END_MARKERS)
def test_a_document_end_with_no_document_is_refused_where_kubectl_refuses_it(name):
    text = END_MARKERS[name]
    line = _refused_as_kubectl_refuses(text)
    if line is not None and (text.lstrip("\ufeff").lstrip().startswith("...") or "\n..." in text):
        # The line named is the `...` line kubectl stops at, where that is the cause.
        number = int(line.split(" line ", 1)[1].split(":", 1)[0])
        named = text.splitlines()[number - 1].lstrip("\ufeff")
        assert named.startswith("...") or "a document must be a mapping" in line, line


def test_the_end_markers_have_both_verdicts():
    verdicts = {name: kubectl_reads(text) for name, text in END_MARKERS.items()}
    assert not verdicts["a `...` chunk after a document"] and not verdicts["`...` after a third `---` in a row"]
    assert verdicts["`...` after a kept `---`"] and verdicts["`...` ending a document, twice"]
    assert not verdicts["a comment line, `---`, `...`"] and verdicts["a comment line, `---`, `---`, `...`"]
    assert verdicts["JSON on two lines, `---`, `...`"] and not verdicts["JSON on two lines, `---`, `---`, `...`"]


# kubectl tells a JSON stream from YAML by its first 4096 bytes: a `{` past
# white space within them opens JSON (where `\/` is an escape and a number
# must fit a float64), one past them YAML (oracle60b).
_JSON_OBJECT = ('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "annotations": '
                '{"postrender.io/versioned": "true"}}, "data": {"a": "x\\/y"}%s}\n')
JSON_SHAPES = {
    "4095 spaces, then JSON": " " * 4095 + _JSON_OBJECT % "",
    "4096 spaces, then JSON": " " * 4096 + _JSON_OBJECT % "",
    "4096 line breaks, then JSON": "\n" * 4096 + _JSON_OBJECT % "",
    "2047 no-break spaces (4094 bytes), then JSON": "\u00a0" * 2047 + _JSON_OBJECT % "",
    "2048 no-break spaces (4096 bytes), then JSON": "\u00a0" * 2048 + _JSON_OBJECT % "",
    "a number past a float64": _JSON_OBJECT % ', "x": 1E400',
    "a negative one": _JSON_OBJECT % ', "x": -1e309',
    "a 400-digit integer": _JSON_OBJECT % (', "x": 1' + "0" * 400),
    # Past the 4,300 digits Python's int() takes (review60c: read as YAML, exit 0).
    "a 4,301-digit integer": _JSON_OBJECT.replace("x\\/y", "xy") % (', "x": 1' + "0" * 4300),
    "a number just inside": _JSON_OBJECT % ', "x": 1.7e308',
    "a tiny one (0)": _JSON_OBJECT % ', "x": 1e-400',
}


@pytest.mark.parametrize("name", JSON_SHAPES)
def test_json_is_read_as_kubectl_tells_it_from_yaml(name):
    line = _refused_as_kubectl_refuses(JSON_SHAPES[name])
    assert line is None or line.startswith("postrender: error: document 1 "), line


def test_the_json_shapes_have_both_verdicts():
    verdicts = {name: kubectl_reads(text) for name, text in JSON_SHAPES.items()}
    assert verdicts["4095 spaces, then JSON"] and not verdicts["4096 spaces, then JSON"]
    assert not verdicts["a number past a float64"] and verdicts["a number just inside"]
