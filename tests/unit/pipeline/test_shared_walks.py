"""The whole-graph walks read makes of a document that shares nodes
(read.shared.path_counts, read.shared.shared_nodes, read.kubectl._expansion) keep their
tables keyed by the nodes themselves, not by ids (stop 65: an id is an int
object of its own per node, and a List of 4,000 apps sharing nodes peaked
in them). Each must say what a walk by brute force says: how many paths
Kubernetes reads lead to a node (merge keys applied, an overridden entry
read nowhere), which nodes an alias shares, and whether aliases expand past
the limit, where, and for a recursive alias, that it is one."""

import pytest

from postrender.errors import PostrenderError
from postrender.limits import Limits
from postrender.pipeline.read import read
from postrender.pipeline.read.documents import Source
from postrender.pipeline.read.shared import path_counts, shared_nodes
from postrender.syntax.nodes import Composer, MappingNode, ScalarNode, children, read_children

SHAPES = [
    # anchors in one item, aliased by a later item (a List's shape)
    "kind: List\nitems:\n- metadata: {labels: &l {a: b}}\n  spec: {selector: *l}\n- spec: {x: *l, y: [*l, *l]}\n",
    # a merge key of an earlier mapping, and an entry the merge overrides
    "a: &m {k: v, n: {z: 1}}\nb: {<<: *m, k: w}\nc: {<<: [*m, {k: u}], extra: *m}\n",
    # a scalar aliased many times, a key written twice (the first read nowhere)
    "x: &s one\ny: [*s, *s, {q: *s}]\nz: {k: *s, k: two}\n",
    # nested sharing: an aliased mapping holding an alias
    "a: &a {b: &b [1, 2]}\nc: {d: *a, e: *b}\nf: [*a, *a, *b]\n",
]


def _compose(text: str) -> MappingNode:
    root = Composer(text).get_single_node()
    assert isinstance(root, MappingNode)
    return root


def _paths_by_brute_force(node, counts):
    counts[id(node)] = counts.get(id(node), 0) + 1
    for child in read_children(node):
        _paths_by_brute_force(child, counts)
    return counts


def _every_node(root):
    seen, stack = {}, [root]
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen[id(node)] = node
            stack.extend(children(node))
    return seen


@pytest.mark.parametrize("text", SHAPES)
def test_path_counts_are_the_paths_a_brute_force_walk_takes(text):
    root = _compose(text)
    nodes = _every_node(root)
    expected = _paths_by_brute_force(root, {})
    targets = list(nodes)  # every node, scalars and collections, a list as needs gives it
    counted = path_counts(root, targets)
    assert counted == {target: expected.get(target, 0) for target in targets}
    assert any(count > 1 for count in counted.values())
    some = [target for target in targets if isinstance(nodes[target], ScalarNode)][:3]
    assert path_counts(root, some) == {target: expected.get(target, 0) for target in some}


@pytest.mark.parametrize("text", SHAPES)
def test_shared_nodes_are_those_reached_twice_and_all_below(text):
    root = _compose(text)
    reached: dict[int, int] = {}

    def walk(node):
        reached[id(node)] = reached.get(id(node), 0) + 1
        for child in children(node):
            walk(child)

    walk(root)
    twice = [node for key, node in _every_node(root).items() if reached[key] > 1]
    below = {id(node) for top in twice for node in _every_node(top).values()}
    assert shared_nodes(root) == frozenset(below) and below


def _render_error(text: str, **limits) -> str:
    try:
        read([Source(None, text)], Limits(**limits))
    except PostrenderError as exc:
        return str(exc)
    return ""


def _bomb_item(levels: int) -> str:
    lines = ["  - apiVersion: v1", "    kind: ConfigMap", "    metadata: {name: b}",
             "    x:", "      l0: &l0 [lol, lol, lol]"]
    lines += [f"      l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 3) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("levels, refused", [(3, False), (9, True)])
def test_an_alias_bomb_in_a_list_item_is_refused_where_it_passes_the_limit(levels, refused):
    text = ("apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: ConfigMap\n"
            "    metadata: {name: a}\n" + _bomb_item(levels))
    message = _render_error(text, max_expanded_nodes=1000)
    if refused:
        # The first node past the limit, counted as the walk goes (l8), as before stop 65.
        assert "aliases expand to more than 1000 nodes beyond those written (an alias bomb?)" in message
        assert "line 16" in message, message
    else:
        assert message == ""


def test_a_recursive_alias_is_refused_as_one():
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nx: &a [1, *a]\n"
    try:
        _compose(text)
    except Exception:  # libyaml's composer refuses it before read's walk sees it
        pytest.skip("composer refuses a recursive alias itself")
    assert "recursive alias: a node contains itself" in _render_error(text)
