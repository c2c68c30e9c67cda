"""read.compose.recompose composes a document again from its text, for the guard,
which reads what read pruned away: the new graph must be the first one as
read left it before pruning, node for node (kinds, tags, values, styles,
offsets), and composing it must change nothing read recorded."""

import pytest
from hypothesis import HealthCheck, given, settings

import manifest_strategies as ms
from postrender.limits import Limits
from postrender.pipeline.read import read
from postrender.pipeline.read.compose import object_node, recompose
from postrender.pipeline.read.documents import Document, Source
from postrender.syntax.nodes import MappingNode, Node, ScalarNode, children


def _shape(node: Node) -> list[tuple]:
    """Every node in document order, as what a stage may read of it."""
    out: list[tuple] = []
    stack = [node]
    seen: dict[int, int] = {}
    while stack:
        node = stack.pop()
        if id(node) in seen:  # an alias: the node it names, by its first place
            out.append(("alias", seen[id(node)]))
            continue
        seen[id(node)] = len(out)
        style = node.style if isinstance(node, ScalarNode) else node.flow_style
        value = node.value if isinstance(node, ScalarNode) else len(node.value)
        out.append((type(node).__name__, node.tag, value, style, node.start_mark, node.end_mark))
        stack.extend(reversed(children(node)))
    return out


def _facts(doc: Document) -> tuple:
    return (doc.root, doc.nodes, doc.source_comment, doc.shared, doc.rendered, doc.line_starts)


def _same(text: str) -> int:
    """How many documents held objects; each recomposes as read composed it."""
    stream = read([Source("input.yaml", text)], Limits())
    composed = 0
    for doc in stream.documents:
        before = _facts(doc)
        root = recompose(doc)
        assert _facts(doc) == before  # nothing read recorded changes
        if doc.root is None:
            assert root is None
            continue
        composed += 1
        assert root is not doc.root
        assert _shape(root) == _shape(doc.root)
        for obj in stream.objects:
            if obj.document is doc:
                node = object_node(root, obj)
                assert isinstance(node, MappingNode)
                assert _shape(node) == _shape(obj.node)
    return composed


CONFIG = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-config}\ndata: {a: \"1\"}\n"
WIDGET = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  configMapName: web-config\n"

SHAPES = {
    "block and flow": CONFIG + "---\n" + WIDGET,
    "a byte-order mark": "\ufeff" + WIDGET + "---\n" + CONFIG,
    "windows line breaks": (WIDGET + "---\n" + CONFIG).replace("\n", "\r\n"),
    "a List": "apiVersion: v1\nkind: List\nitems:\n- " + CONFIG.replace("\n", "\n  ") + "\n- "
              + WIDGET.replace("\n", "\n  ") + "\n",
    "a flow List": '{"apiVersion": "v1", "kind": "ConfigMapList", "items": [{"apiVersion": "v1",'
                   ' "kind": "ConfigMap", "metadata": {"name": "a"}}, {"apiVersion": "v1", "kind": "ConfigMap",'
                   ' "metadata": {"name": "b"}}]}\n',
    "JSON first, a surrogate pair": '{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},'
                                    ' "spec": {"note": "\\ud83d\\ude00 x", "configMapName": "web-config"}}\n',
    "JSON first, a lone surrogate": '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "w"},'
                                    ' "data": {"a": "\\ud83d", "b": "\\ude00\\u00e9"}}\n',
    "an alias": WIDGET + "  other: &n {name: web-config}\n  again: *n\n",
    "a merge key": WIDGET + "  base: &b {a: 1}\n  merged: {<<: *b, c: 2}\n",
    "tags": WIDGET + "  s: !!str 123\n  !!str 1: x\n  t: !!str\n  b: !custom aGk=\n  i: !!int '7'\n",
    "block scalars": WIDGET + "  lit: |-\n    web-config\n  fold: >\n    a\n    b\n",
    "quoted with escapes": WIDGET + '  q: "web\\x2dconfig"\n  s: \'it\'\'s\'\n',
    "tagged null documents": "---\n!!null\n---\n&a ~\n---\n!!null |\n---\n" + CONFIG,
    "null and comment documents": "---\n# only a comment\n---\nnull\n---\n~\n---\n" + CONFIG,
    "a Helm source heading": "---\n# Source: chart/templates/w.yaml\n" + WIDGET,
}


@pytest.mark.parametrize("text", SHAPES.values(), ids=SHAPES.keys())
def test_recompose_gives_the_graph_read_composed(text):
    assert _same(text) >= 1


@settings(deadline=None, max_examples=60, suppress_health_check=list(HealthCheck))
@given(ms.written(ms.streams()))
def test_any_stream_recomposes_alike(drawn):
    _stream, text = drawn
    _same(text)


def test_the_new_graph_shares_nothing_with_the_first():
    # The guard may hold it while read's graph, pruned, lives on: two graphs.
    stream = read([Source(None, SHAPES["an alias"])], Limits())
    doc = stream.documents[0]
    first = {id(node) for node in _walk(doc.root)}
    assert not first & {id(node) for node in _walk(recompose(doc))}


def _walk(root: Node):
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(children(node))


def _list_of(*objects: str) -> str:
    return "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        "- " + text.rstrip("\n").replace("\n", "\n  ") + "\n" for text in objects)


# A schema that names `kind` all through, as a CRD's does, and holds more
# nodes than the rest of the List.
_DENSE = ("apiVersion: example.com/v1\nkind: Schema\nmetadata: {name: s}\nspec:\n"
          + "".join(f"  kind{i}: {{type: object, kind: x{i}}}\n" for i in range(300)))


@pytest.mark.parametrize("dropping", [True, False], ids=["dropped-as-composed", "dropped-once-composed"])
@pytest.mark.parametrize("text", [_list_of(CONFIG, _DENSE, WIDGET, CONFIG.replace("web-config", "b")),
                                  SHAPES["a flow List"]], ids=["block", "flow"])
def test_only_the_items_asked_for_are_composed_again(text, dropping, monkeypatch):
    # Each item asked for is as a whole recompose gives it, node for node;
    # the others are dropped. In a large List, what they hold is dropped as
    # it is composed too (a DroppingComposer given `wanted`).
    from postrender.pipeline.read import compose as read_compose
    from postrender.syntax import nodes

    stream = read([Source("list.yaml", text)], Limits())
    doc = stream.documents[0]
    whole = recompose(doc)
    objects = [obj for obj in stream.objects if obj.document is doc]
    assert len(objects) >= 2
    made = []
    composer = nodes.DroppingComposer.__init__
    monkeypatch.setattr(nodes.DroppingComposer, "__init__",
                        lambda self, *a, **k: made.append(a[2:] or k) or composer(self, *a, **k))
    monkeypatch.setattr(read_compose, "DROP_FROM", 0 if dropping else 10**9)
    # An item not asked for, as it is handed over: dropped from already?
    handed: list[bool] = []
    take = read_compose._OnlyItems.take

    def spy(self, items, at):
        item = items.value[at]
        if at not in self.wanted and isinstance(item, MappingNode) and len(item.value) > 1:
            handed.append(item.value[0][1] is nodes.DROPPED_ITEM)
        take(self, items, at)

    monkeypatch.setattr(read_compose._OnlyItems, "take", spy)
    for wanted in [{obj.item} for obj in objects] + [{objects[0].item, objects[-1].item}]:
        root = recompose(doc, wanted)
        for obj in objects:
            node = object_node(root, obj)
            if obj.item in wanted:
                assert _shape(node) == _shape(object_node(whole, obj))
            else:
                assert isinstance(node, MappingNode) and node.value in ((), [])
    assert bool(made) == dropping
    assert handed and set(handed) == {dropping}
