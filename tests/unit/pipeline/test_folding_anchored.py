"""A large config whose data values alias an anchored value is read entry by
entry as it is composed, as one without anchors is (read.parts._Dropping's
`aliases_allowed`, index/folding.py): the render, the errors, what stays
after pruning and what --max-nodes counts must be what reading it whole
gives. Anything else with an anchor or an alias (on a key, a key that is an
alias, a merge key, an anchor on `data:` itself, one outside the data) is
composed again whole, where the whole-graph checks say what they say.

Each render is compared with the render of the same stream read whole
(test_dropping._rendered), every folded mapping's entries taken out from
its first (nodes._FOLD_FROM at 1), runs of two entries.
"""

import pytest

from postrender.errors import PostrenderError
from postrender.limits import Limits
from postrender.pipeline.read import compose as read_compose, parts as read_parts
from postrender.pipeline.read import read
from postrender.pipeline.read.documents import Source
from postrender.pipeline.read.shared import KeptShared
from postrender.syntax import nodes as nodes_module, runs

from test_dropping import _needs, _read, _rendered
from test_folding import _WORKLOAD
from test_pruning import VARIANTS


@pytest.fixture(autouse=True)
def _small_runs(monkeypatch):
    monkeypatch.setattr(runs, "RUN", 2)
    monkeypatch.setattr(nodes_module, "_FOLD_FROM", 1)


def _config(data: str, kind: str = "ConfigMap", metadata: str = "  name: settings\n", field: str = "data",
            data_first: bool = False) -> str:
    head = f"apiVersion: v1\nkind: {kind}\nmetadata:\n{metadata}"
    body = f"{field}:\n{data}"
    if data_first:
        return f"apiVersion: v1\n{body}kind: {kind}\nmetadata:\n{metadata}"
    return head + body


def _aliases(n: int, anchor: str = "v", start: int = 0) -> str:
    return "".join(f"  k{i}: *{anchor}\n" for i in range(start, start + n))


# Read as composed: every anchor and alias a value of the folded data.
FOLDED = {
    "values alias one anchored value": _config("  k: &v value\n" + _aliases(6)),
    "an anchor in the last entries": _config("".join(f"  a{i}: x\n" for i in range(5))
                                             + "  last: &v value\n  after: *v\n"),
    "many anchors, each aliased": _config("".join(f"  a{i}: &n{i} v{i}\n  b{i}: *n{i}\n" for i in range(4))),
    "an anchor never aliased": _config("  k: &v value\n  j: w\n  i: x\n"),
    "data before the kind": _config("  k: &v value\n" + _aliases(5), data_first=True),
    "a Secret's stringData": _config("  k: &v value\n" + _aliases(5), "Secret", "  name: creds\n", "stringData"),
    "a Secret's data": _config("  k: &v dmFsdWU=\n" + _aliases(5), "Secret", "  name: creds\n"),
    "binaryData": _config("  k: &v dmFsdWU=\n" + _aliases(5), field="binaryData"),
    "binaryData aliasing data": _config("  k: &v dmFsdWU=\n  j: x\n", field="data")
    + "binaryData:\n" + "".join(f"  b{i}: *v\n" for i in range(4)),
    "a value that reads `: *v` in quotes": _config("  k: &v value\n" + _aliases(3) + "  q: ': *v'\n"),
    "a key written twice, one an alias's": _config("  k: &v value\n" + _aliases(5) + "  k2: *v\n"),
}
# Composed again whole, or refused as composed whole.
WHOLE = {
    "an anchor on a key": _config("  &a k: value\n" + _aliases(5, "a")),
    "an alias as a key": _config("  k: &a j\n" + _aliases(3).replace("*v", "x") + "  *a : y\n"),
    "an alias as a key, written twice": _config("  k: &a k1\n" + _aliases(3).replace("*v", "x") + "  *a : y\n"),
    "a merge key": _config("  <<: &m {a: b}\n" + _aliases(3).replace("*v", "x")),
    "an anchor on data itself": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata: &d\n"
    + "".join(f"  k{i}: x\n" for i in range(4)) + "binaryData: *d\n",
    "an anchor in metadata aliased in data": _config(_aliases(5, "n"), metadata="  name: &n settings\n"),
    "a label aliased in data": _config(_aliases(5, "n"), metadata="  name: settings\n  labels: {a: &n x}\n"),
    "a data value aliased in metadata": "apiVersion: v1\nkind: ConfigMap\ndata:\n  k: &n val\n" + _aliases(4, "n")
    + "metadata:\n  name: settings\n  labels: {a: *n}\n",
    "an alias of a mapping": _config("  k: &v {a: b}\n" + _aliases(4)),
    "an alias of a number": _config("  k: &v 1\n" + _aliases(4)),
    "an alias in a flow list": _config("  k: &v value\n" + _aliases(3) + "  l: [*v]\n"),
    "an undefined alias": _config("  k: &v value\n" + _aliases(3, "w")),
    "an anchor defined twice": _config("  k: &v value\n" + _aliases(3) + "  z: &v other\n  z2: *v\n"),
    "a tag beside": _config("  k: &v !!str value\n" + _aliases(3)),
    "an infinite number beside": _config("  k: &v value\n" + _aliases(3) + "  n: .inf\n"),
    "no base64 where it must be": _config("  k: &v value\n" + _aliases(3), "Secret", "  name: creds\n"),
    "a custom object": "apiVersion: example.com/v1\nkind: Thing\nmetadata:\n  name: t\nspec:\n  a: &v x\n  b: *v\n"
    + "".join(f"  k{i}: v\n" for i in range(4)),
}


@pytest.mark.parametrize("argv", VARIANTS)
@pytest.mark.parametrize("config", list(FOLDED.values()) + list(WHOLE.values()), ids=list(FOLDED) + list(WHOLE))
def test_an_anchored_config_renders_as_read_whole(config, argv, monkeypatch):
    _rendered(config + _WORKLOAD, argv, monkeypatch)


@pytest.mark.parametrize("config", list(FOLDED.values()) + list(WHOLE.values()), ids=list(FOLDED) + list(WHOLE))
def test_what_stays_and_what_is_counted_is_what_the_whole_graph_leaves(config, monkeypatch):
    assert _read(config + _WORKLOAD, True, monkeypatch) == _read(config + _WORKLOAD, False, monkeypatch)


def _read_in_parts(text: str, monkeypatch, limits: Limits = Limits()) -> tuple[object, list[bool]]:
    """The stream read with every document in parts, and for each config
    with anchors read so, whether it stayed so."""
    stayed: list[bool] = []
    made = read_parts._Dropping._anchors_folded

    def anchors_folded(self, root):
        stayed.append(made(self, root))
        return stayed[-1]

    monkeypatch.setattr(read_parts._Dropping, "_anchors_folded", anchors_folded)
    monkeypatch.setattr(read_compose, "DROP_FROM", 0)
    return read([Source("input.yaml", text)], limits, _needs(False)), stayed


@pytest.mark.parametrize("config", FOLDED.values(), ids=list(FOLDED))
def test_a_config_whose_aliases_are_its_data_values_is_read_as_composed(config, monkeypatch):
    stream, stayed = _read_in_parts(config + _WORKLOAD, monkeypatch)
    assert stayed and stayed[-1]
    doc = stream.documents[0]
    # Pruned as one composed whole is: the shared nodes' facts kept.
    assert (type(doc.shared) is KeptShared) is ("*" in config)


@pytest.mark.parametrize("config", WHOLE.values(), ids=list(WHOLE))
def test_anything_else_with_an_anchor_is_composed_whole(config, monkeypatch):
    try:
        _, stayed = _read_in_parts(config + _WORKLOAD, monkeypatch)
    except PostrenderError as error:
        # Refused as the whole read refuses it (review64b).
        with monkeypatch.context() as patch:
            patch.setattr(read_compose, "DROP_FROM", 10**9)
            with pytest.raises(PostrenderError) as whole:
                read([Source("input.yaml", config + _WORKLOAD)], Limits(), _needs(False))
        assert str(error) == str(whole.value)
        return
    assert not any(stayed)


def test_an_object_with_anchors_that_folds_nothing_is_composed_whole_once_its_kind_is_known(monkeypatch):
    # Not read in parts to its end first, then again whole.
    finished: list[bool] = []
    made = read_parts._Dropping.finish

    def finish(self, root, loader, plain):
        finished.append(made(self, root, loader, plain))
        return finished[-1]

    monkeypatch.setattr(read_parts._Dropping, "finish", finish)
    stream, stayed = _read_in_parts(WHOLE["a custom object"] + _WORKLOAD, monkeypatch)
    assert stream.objects[0].kind == "Thing" and stayed == [] and finished == [True]  # the Deployment's


@pytest.mark.parametrize("aliases", [7, 8])
def test_more_aliases_than_allowed_are_refused_as_composed_whole(aliases, monkeypatch):
    # Seven aliases of a scalar add seven nodes expanded: allowed at 7, an
    # alias bomb at 8, with the message and place composing it whole gives
    # (composed whole from the start: more `*` than aliases allowed).
    text = _config("  k: &v value\n" + _aliases(aliases)) + _WORKLOAD
    with monkeypatch.context() as patch:
        patch.setattr(read_compose, "DROP_FROM", 10**9)
        try:
            read([Source("input.yaml", text)], Limits(max_expanded_nodes=7), _needs(False))
            whole = None
        except PostrenderError as error:
            whole = str(error)
    try:
        _, stayed = _read_in_parts(text, monkeypatch, Limits(max_expanded_nodes=7))
        folded = None
    except PostrenderError as error:
        folded, stayed = str(error), []
    assert folded == whole
    assert (whole is None) is (aliases == 7) and stayed == ([True] if aliases == 7 else [])


@pytest.mark.parametrize(("text", "spans", "within"), [
    ("data:\n  k: &v x\n  j: *v\n", [(8, 24)], True),
    ("data:\n  k: &v x\n  j: *v\n", [(9, 26)], True),
    ("data:\n  k: &v x\n  j: *v\n", [(8, 20)], False),  # the alias outside
    ("data:\n  &a k: x\n  j: *a\n", [(8, 26)], False),  # a key's anchor, at the span's start
    ("  data:\n    k: x\n  &a meta: y\n", [(12, 19)], False),  # an anchor where the span ends
    ("data:\n  k: x\n  *a : y\n", [(8, 22)], False),  # an alias as a key
    ("data:\n  k: [*a]\n", [(8, 16)], False),
    ("data:\n  k: {a: *a}\n", [(8, 19)], True),  # (a mapping as a value: the folder refuses it)
    ("data:\n- &a x\n", [(6, 12)], False),
    ("data: &d\n  k: x\n", [(11, 16)], False),
    ("a: 'x: *v'\ndata:\n  k: x\n", [(19, 24)], False),  # may say no where there is none
    ("data:\n  k: x\nlast: *v", [(8, 13)], False),  # after the spans, at the text's end
])
def test_anchors_are_values_within_spans(text, spans, within):
    from postrender.syntax.nodes import anchors_are_values_within

    assert anchors_are_values_within(text, spans) is within


@pytest.mark.parametrize("stray", [
    "  build.sh: |\n    apt-get update \\\n      && apt-get install -y foo\n",  # a script's `&&` line
    "  README.md: |\n    * one\n    * two\n",  # a Markdown list
])
def test_a_config_whose_text_holds_a_property_that_is_no_value_is_composed_whole_at_once(stray, monkeypatch):
    # Never read in parts for its anchors first: it could never stay so
    # (review64b: a ConfigMap of 300,000 entries and such a script took a
    # third longer). Its render is the whole read's.
    chosen: list[object] = []
    made = read_parts._Dropping.__init__

    def init(self, prune, on_item=None, aliases_allowed=None):
        chosen.append(aliases_allowed)
        made(self, prune, on_item, aliases_allowed)

    monkeypatch.setattr(read_parts._Dropping, "__init__", init)
    text = _config("  k: &v value\n  j: *v\n" + stray) + _WORKLOAD
    _, stayed = _read_in_parts(text, monkeypatch)
    assert stayed == [] and all(allowed is None for allowed in chosen)
    _rendered(text, "", monkeypatch)
    assert read_compose.anchors_may_all_be_values("a: &x 1\nb: *x\n") and not read_compose.anchors_may_all_be_values(stray)
