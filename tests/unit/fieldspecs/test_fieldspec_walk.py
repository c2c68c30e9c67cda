"""fieldspecs.walk serves every spec of a kind in one walk of a prefix tree:
each spec must still reach exactly the leaves, in the order, that walking its
path alone reaches. The oracle here walks one path at a time, as the spec
format reads (README: field specs), over every golden fixture's objects."""

from conftest import FIXTURES

from postrender import fieldspecs
from postrender.fieldspecs.walk import WILDCARD, Compiled, walk
from postrender.pipeline.graph.byname import pod_string_specs
from postrender.pipeline.graph.references import YamlNodes, _written_in, find
from postrender.pipeline.read import read
from postrender.pipeline.read.documents import Source
from postrender.options import RenderOptions
from postrender.syntax.nodes import MappingNode, ScalarNode, SequenceNode, entries, get

TABLE = fieldspecs.load_table()
POD_STRINGS = pod_string_specs(TABLE)


def _alone(node, segments, path=()):
    """(leaf, path) pairs one spec's path reaches, walked on its own."""
    if not segments:
        if isinstance(node, ScalarNode):
            yield node, path
        elif isinstance(node, SequenceNode):
            yield from ((item, path + (j,)) for j, item in enumerate(node.value) if isinstance(item, ScalarNode))
        return
    if isinstance(node, SequenceNode):
        for j, item in enumerate(node.value):
            yield from _alone(item, segments, path + (j,))
        return
    if not isinstance(node, MappingNode):
        return
    segment, rest = segments[0], segments[1:]
    if segment.key == WILDCARD:
        for key, value in entries(node):
            if isinstance(key, ScalarNode):
                yield from _alone(value, rest, path + (key.value,))
        return
    child = get(node, segment.key)
    if child is None:
        return
    if not segment.filters:
        yield from _alone(child, rest, path + (segment.key,))
        return
    listed = child.value if isinstance(child, SequenceNode) else None
    for j, item in enumerate(listed if listed is not None else [child]):
        if YamlNodes.passes(item, segment):
            yield from _alone(item, rest, path + ((segment.key, j) if listed is not None else (segment.key,)))


def _objects():
    for case in sorted((FIXTURES / "golden").iterdir()):
        path = case / "input.yaml"
        if path.exists():
            yield from read([Source(str(path), path.read_text())], RenderOptions().limits).objects


def test_one_walk_reaches_what_each_path_reaches_alone():
    walked = 0
    for obj in _objects():
        compiled = TABLE.applicable(obj.kind, obj.group, obj.api_version.rpartition("/")[2])
        if compiled is None:
            continue
        together: dict[int, list] = {}
        for ends, node, _, path in walk(compiled.tree, obj.node, YamlNodes):
            for position in ends:
                together.setdefault(position, []).append((id(node), path))
        for position, spec in enumerate(compiled.specs):
            alone = [(id(node), path) for node, path in _alone(obj.node, spec.path)]
            assert together.get(position, []) == alone, (obj.describe(), spec.path_text)
            walked += len(alone)
    assert walked > 500  # the fixtures reach many leaves, through shared prefixes


def test_specs_sharing_a_prefix_share_its_steps():
    compiled = TABLE.applicable("Deployment", "apps", "v1")
    assert isinstance(compiled, Compiled) and len(compiled.specs) > 20
    assert list(compiled.tree.children) == [fieldspecs.Segment("spec")]
    assert [s.path for s in compiled.specs] == [s.path for s in TABLE.for_kind("Deployment") if s.matches("apps", "v1")]


SHAPES = """\
apiVersion: example.com/v1
kind: Shape
metadata: {name: s}
spec:
  x: [a, [b, c], {name: d}, [{name: e}]]
  y: {name: f, z: [[g]]}
  base: &base {name: h, env: [{name: V, value: i}, {name: W, value: j}]}
  merged: {<<: *base, name: k}
  any: {one: {name: l}, two: [{name: m}]}
"""


def test_shapes_that_share_prefixes():
    # Paths that end where others go on, lists of lists, filters, merge keys, `*`.
    table = fieldspecs.ReferenceTable()
    paths = ["spec/x", "spec/x/name", "spec/y/name", "spec/y/z", "spec/y", "spec/base/env[name=V]/value",
             "spec/merged/name", "spec/merged/env/value", "spec/*/name", "spec/any/*/name", "spec/x"]
    table.extend({"nameReference": [{"kind": "ConfigMap", "fieldSpecs": [{"kind": "Shape", "path": p} for p in paths]}]},
                 "test")
    obj = read([Source("shapes.yaml", SHAPES)], RenderOptions().limits).objects[0]
    compiled = table.applicable("Shape", "example.com", "v1")
    together: dict[int, list] = {}
    for ends, node, _, path in walk(compiled.tree, obj.node, YamlNodes):
        for position in ends:
            together.setdefault(position, []).append((node.value, path))
    found = {spec.path_text: together.get(position, []) for position, spec in enumerate(compiled.specs)}
    for spec in compiled.specs:
        assert found[spec.path_text] == [(n.value, p) for n, p in _alone(obj.node, spec.path)], spec.path_text
    assert found["spec/x"] == [("a", ("spec", "x", 0))]
    assert found["spec/x/name"] == [("d", ("spec", "x", 2, "name")), ("e", ("spec", "x", 3, 0, "name"))]
    assert found["spec/merged/name"] == [("k", ("spec", "merged", "name"))]
    assert [v for v, _ in found["spec/merged/env/value"]] == ["i", "j"]
    assert [v for v, _ in found["spec/*/name"]] == ["d", "e", "f", "h", "k"]
    assert [v for v, _ in found["spec/any/*/name"]] == ["l", "m"]


def test_a_document_the_text_test_skips_has_no_leaf_to_reach():
    # may_reach is a superset: wherever it says no, the walk finds nothing.
    # Asked of the text the walk asks it of (a List's item: its own). Both tables: the references', and byname's strings in pod specs.
    skipped = 0
    for obj in _objects():
        for table in (TABLE, POD_STRINGS):
            compiled = table.applicable(obj.kind, obj.group, obj.api_version.rpartition("/")[2])
            if compiled is None or compiled.may_reach(_written_in(obj)):
                continue
            skipped += 1
            assert list(walk(compiled.tree, obj.node, YamlNodes)) == [], obj.describe()
    assert skipped > 30  # workloads without args or env values; Services


def _compiled(*paths):
    return Compiled([fieldspecs.FieldSpec("ConfigMap", "Pod", None, None, fieldspecs.parse_path(p), p) for p in paths])


def test_a_key_counts_only_where_it_could_end():
    compiled = _compiled("spec/containers/env/value", "spec/containers/args")
    assert not compiled.may_reach("env:\n- name: A\n  valueFrom: {}\n  value_2: x\n")
    assert compiled.may_reach("env:\n- name: A\n  value: x\n")
    assert compiled.may_reach('{"env": [{"value": "x"}]}')
    assert compiled.may_reach("args: [a]")
    assert compiled.may_reach("args")  # at the very end


def test_an_escape_or_a_path_of_wildcards_always_walks():
    compiled = _compiled("spec/containers/env/value")
    assert compiled.may_reach('env: [{"v\\x61lue": x}]')  # "value", escaped
    assert _compiled("*").may_reach("nothing here")
    assert _compiled("spec/*/name", "a/b c").may_reach("nothing here")  # a key a document may fold


def test_an_escaped_key_is_still_found():
    compiled = _compiled("spec/containers/env/value")
    text = 'kind: Pod\nmetadata: {name: p}\nspec: {containers: [{env: [{"v\\x61lue": x}]}]}\n'
    obj = read([Source("t", text)], RenderOptions().limits).objects[0]
    assert [ref.name for ref in find(obj, compiled.specs[0])] == ["x"]
