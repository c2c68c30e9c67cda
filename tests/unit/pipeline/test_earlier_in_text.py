"""A large document whose keys are not all distinct has the entries a later
one overrides found in its text (read.leftout._raise_earlier_in_text,
syntax/blockkeys.py), not by composing it whole. Whatever it finds must be
what composing the document whole finds: the same output byte for byte,
the same warnings and errors. Here every document takes that path (read's
DROP_FROM at 0), against the same render with the text not asked (the
document composed whole once its keys are found not distinct)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import run_postrender
from manifests import documents
from postrender.pipeline.read import (
    compose as read_compose,
    leftout as read_leftout,
    libyaml as read_libyaml,
)
from postrender.syntax import nodes as nodes_module

DEPLOY = ("---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n"
          "      containers:\n      - name: app\n        image: x\n        envFrom:\n        - configMapRef: {name: cfg}\n"
          "        - secretRef: {name: sec}\n")


def _both(text: str, args: list[str], monkeypatch) -> tuple[tuple, int, int]:
    """The render through the text, which must be the render composed
    whole; how many documents the text was asked of, and how many it told
    the entries of."""
    asked, told = [], []
    real = read_leftout._raise_earlier_in_text

    def spy(doc):
        asked.append(doc.index)
        try:
            real(doc)
        except read_leftout._EarlierKeys:
            told.append(doc.index)
            raise

    with monkeypatch.context() as patch:
        patch.setattr(read_compose, "DROP_FROM", 0)
        patch.setattr(nodes_module, "_FOLD_FROM", 1)  # a config's data taken out of the tree as it is composed
        patch.setattr(read_libyaml, "_raise_earlier_in_text", spy)
        through_text = run_postrender(args, text)
        patch.setattr(read_libyaml, "_raise_earlier_in_text", lambda doc: None)
        whole = run_postrender(args, text)
    assert (through_text.status, through_text.stdout, through_text.stderr) == (whole.status, whole.stdout,
                                                                              whole.stderr)
    return (through_text.status, through_text.stdout, through_text.stderr), len(asked), len(told)


CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n"
SECRET = "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: sec\n"

# name -> (stream, whether the text tells its entries)
SHAPES = {
    "data key twice": (CM + "data:\n  a: one\n  b: two\n  a: three\n", True),
    "data key three times": (CM + "data:\n  a: one\n  a: two\n  a: three\n", True),
    "comments and blanks between": (CM + "data:\n  a: one\n  # about b\n\n  b: two\n  a: three\n", True),
    "block scalar overridden": (CM + "data:\n  a: |\n    one: 1\n    a: 2\n  a: three\n", True),
    "quoted and plain alike": (CM + "data:\n  \"a\": one\n  'b': two\n  a: three\n  b: four\n", True),
    "multi-line quoted value": (CM + "data:\n  a: \"one\n    two\"\n  a: three\n", True),
    # Elsewhere than in a config's data (taken out of the tree as it is
    # composed), composing in parts finds them in the tree it kept.
    "metadata twice": ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: old\nmetadata:\n  name: cfg\n"
                       "data:\n  a: one\n", False),
    "label twice": ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  labels:\n    app: a\n"
                    "    app: b\ndata:\n  a: one\n", False),
    "name twice": ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: old\n  name: cfg\ndata:\n  a: one\n", False),
    "nested inside an overridden value": (CM + "data:\n  a: one\n  a: two\ndata:\n  b: three\n", True),
    "secret stringData twice": (CM + "data:\n  a: one\n" + SECRET + "stringData:\n  p: one\n  p: two\n", True),
    "inside a value of data (hidden)": (CM + "data:\n  a:\n    k: 1\n    k: 2\n", False),
    "last key written twice, after a sequence": (CM + "data:\n  a: one\nlist:\n- 1\n- 2\ndata:\n  b: two\n",
                                                  False),
    "in a sequence's item: composed whole": (CM + "data:\n  a: one\n  a: two\nitems:\n- k: 1\n  k: 2\n", False),
    "first key of an item: composed whole": (CM + "data:\n  a: one\n  a: two\nlist:\n- k: 1\n  j: 0\n  k: 2\n", False),
    "under a dash alone: composed whole": (CM + "data:\n  a: one\n  a: two\nlist:\n-\n  k: 1\n  k: 2\n", False),
    "YAML 1.1 alike: composed whole": (CM + "data:\n  a: one\n  a: two\nextra:\n  y: 1\n  yes: 2\n", False),
    "flow mapping: composed whole": (CM + "data:\n  a: one\n  a: two\nflow: {a: x, a: z}\n", False),
}


@pytest.mark.parametrize("args", [[], ["--version-all"], ["--strategy=annotate"]], ids=["default", "all", "annotate"])
@pytest.mark.parametrize("name", SHAPES)
def test_what_the_text_tells_is_what_composing_whole_finds(name, args, monkeypatch):
    stream, told = SHAPES[name]
    (status, stdout, stderr), asked, times = _both(stream + DEPLOY, args, monkeypatch)
    assert times == (1 if told else 0), (name, stderr)
    if name.endswith("composed whole"):
        assert asked == 1  # its data holds a key twice too: the text is asked, and says nothing
    if status == 0:
        assert "leaves the earlier out" in stderr or "refuse" in stderr, stderr
        assert documents(stdout)  # a stream a strict reader reads (no key twice)


def test_a_key_hidden_in_a_data_value_is_not_shown(monkeypatch):
    # The config's data holds a key twice (so the text is asked), and so
    # does a mapping in the value of another object's `data` field.
    stream = CM + "data:\n  a: one\n  a: two\nextra:\n  data:\n    p:\n      secretkey: 1\n      secretkey: 2\n"
    (status, _, stderr), _, times = _both(stream, [], monkeypatch)
    assert times == 1 and status == 0, stderr
    assert "secretkey" not in stderr and "inside the value of data.p (not shown" in stderr, stderr
    assert "duplicate key 'a'" in stderr


# Keys few enough that they repeat; quoted forms read as the plain ones.
KEYS = ["a", "b", "c", '"a"', "'b'", "data", "name"]
VALUES = ["x", "two words", "'q: v'", '"d\\" q"', "|\n{i}  text\n{i}  a: b", ">-\n{i}  folded", "[p, q]", "{}",
          '"multi\n{i}  line"']


@st.composite
def _mappings(draw, column: int, depth: int) -> list[str]:
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        indent = " " * column
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(["", indent + "# note", "# a: b"])))
        key = draw(st.sampled_from(KEYS))
        form = draw(st.sampled_from(["scalar", "scalar", "mapping", "sequence"] if depth < 3 else ["scalar"]))
        if form == "scalar":
            lines.append(f"{indent}{key}: " + draw(st.sampled_from(VALUES)).replace("{i}", indent))
        elif form == "mapping":
            lines.append(f"{indent}{key}:")
            lines += draw(_mappings(column + draw(st.sampled_from([2, 4])), depth + 1))
        else:
            lines.append(f"{indent}{key}:")
            at = column + draw(st.sampled_from([0, 2]))
            for _ in range(draw(st.integers(1, 2))):
                if draw(st.booleans()):
                    lines.append(" " * at + "- " + draw(st.sampled_from(["x", "'y'"])))
                else:
                    item = draw(_mappings(at + 2, depth + 1))
                    lines += [" " * at + "- " + item[0].lstrip(" "), *item[1:]] if item[0].strip() else item
    return lines


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["ConfigMap", "Secret", "Thing"]), _mappings(0, 0))
def test_any_text_renders_as_composing_it_whole(kind, body):
    name = "sec" if kind == "Secret" else "cfg"
    text = f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: {name}\n" + "\n".join(body) + "\n"
    with pytest.MonkeyPatch.context() as patch:
        _both(text + DEPLOY, [], patch)
