"""Documents that are not a mapping: a scalar, however written, or nothing.

kubectl skips a document go-yaml v2 reads as a null (empty, comments only,
`~`, `!!null`, an anchor on nothing) and refuses any other scalar (a
string, number or bool is no object), a `|` or `>` block of text included,
and a `!!null` tag on something else. postrender must refuse exactly what
kubectl refuses and pass what it reads. The oracle is kubectl itself
(tests/kube_reader.py).
"""

from __future__ import annotations

import pytest

from conftest import run_postrender
from kube_reader import kubectl_reads, read_streams

CONFIG = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  k: v\n"
DEPLOY = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      containers:\n"
    "      - name: c\n        envFrom: [{configMapRef: {name: settings}}]\n"
)

# Each written as a whole document, alone or between objects (see _streams).
ROOTS = {
    # text blocks: literal and folded, chomping and indentation indicators
    "literal": "|\n  text\n",
    "folded": ">\n  text\n  more\n",
    "literal, strip": "|-\n  text\n",
    "literal, keep": "|+\n  text\n\n",
    "literal, indented": "|2\n   text\n",
    "folded, indented and stripped": ">1-\n  text\n",
    "literal, comment after the indicator": "| # c\n  text\n",
    "literal holding null": "|\n  null\n",
    "empty literal": "|\n",
    "empty folded, stripped": ">-\n",
    "literal then ...": "|\n  text\n...\n",
    "comment, then a literal": "# c\n|\n  text\n",
    # tags and anchors
    "!!str literal": "!!str |\n  text\n",
    "custom tag literal": "!foo |\n  text\n",
    "non-specific tag folded": "! >\n  text\n",
    "!!binary literal": "!!binary |\n  aGVsbG8=\n",
    "anchored literal": "&a |\n  text\n",
    "anchored and tagged literal": "&a !!str |\n  text\n",
    "!!str ~": "!!str ~\n",
    "!!str null": "!!str null\n",
    "!!str alone": "!!str\n",
    "!!null literal": "!!null |\n  text\n",
    "!!null word": "!!null foo\n",
    "!!null quoted": '!!null "x"\n',
    "!!int word": "!!int x\n",
    # plain and quoted scalars
    "plain": "foo\n",
    "double-quoted": '"quoted"\n',
    "single-quoted empty": "''\n",
    "number": "3\n",
    "bool": "true\n",
    "timestamp": "2001-12-14\n",
    # nulls: kubectl skips these
    "empty": "",
    "comments only": "# only a comment\n",
    "null": "null\n",
    "Null": "Null\n",
    "~": "~\n",
    "!!null": "!!null\n",
    "!!null empty quoted": "!!null ''\n",
    "!!null empty literal": "!!null |\n",
    "anchor on nothing": "&a\n",
    "anchored ~": "&a ~\n",
    "anchored !!null": "&a !!null\n",
}


def _streams(root: str) -> dict[str, str]:
    return {
        "alone": root,
        "first": root + "---\n" + CONFIG + "---\n" + DEPLOY,
        "after an object": CONFIG + "---\n" + root + "---\n" + DEPLOY,
        "last": CONFIG + "---\n" + DEPLOY + "---\n" + root,
    }


CASES = [(f"{name}, {where}", text) for name, root in ROOTS.items() for where, text in _streams(root).items()]


@pytest.mark.parametrize("name", ROOTS)
def test_kubectl_reads_a_root_whatever_its_place(name):
    # So the verdict below is one per root: a document's place changes nothing.
    verdicts = {where: kubectl_reads(text) for where, text in _streams(ROOTS[name]).items()}
    assert len(set(verdicts.values())) == 1, verdicts


@pytest.mark.parametrize("text", [t for _, t in CASES], ids=[n for n, _ in CASES])
def test_a_document_root_is_refused_exactly_where_kubectl_refuses_it(text):
    result = run_postrender([], text)
    if not kubectl_reads(text):
        assert result.status == 1 and result.stdout == "", result.stderr
        line = result.stderr.splitlines()
        assert len(line) == 1 and line[0].startswith("postrender: error: document "), result.stderr
        assert "found a scalar" in line[0] or "!!" in line[0], line[0]
        return
    assert result.status == 0, result.stderr
    read_in, read_out = read_streams([text, result.stdout])
    assert {o["kind"] for o in read_out} == {o["kind"] for o in read_in}
    if any(o["kind"] == "Deployment" for o in read_out):
        deploy = next(o for o in read_out if o["kind"] == "Deployment")
        name = deploy["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"]
        assert name.startswith("settings-")
    assert root_text_written_back(text, result.stdout)


def root_text_written_back(text: str, output: str) -> bool:
    """A skipped document is written back as it was."""
    for part in text.split("---\n"):
        if not part.startswith(("apiVersion", "{")) and part not in output:
            return False
    return True


def test_the_class_has_both_verdicts():
    # Guards the oracle: were kubectl to read everything or nothing, the
    # test above would not tell the two apart.
    verdicts = {name: kubectl_reads(root) for name, root in ROOTS.items()}
    assert not verdicts["literal"] and not verdicts["!!str ~"] and not verdicts["!!null word"]
    assert verdicts["null"] and verdicts["!!null empty literal"] and verdicts["anchor on nothing"]
