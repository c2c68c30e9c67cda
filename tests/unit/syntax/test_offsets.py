"""Node positions are offsets (syntax.nodes: the composer builds
postrender's nodes with them); lines and columns are worked out from the
text. Columns must be libyaml's own: edits are indented by them. Lines are
counted at LF, as kubectl, Helm and an editor count them (error messages
quote them): libyaml's own, but where a CR, NEL, U+2028 or U+2029 in a
quoted string is a line break to libyaml too."""

import bisect

import pytest
from hypothesis import HealthCheck, given, settings
from ruamel.yaml import nodes as ruamel_nodes
from ruamel.yaml.composer import ComposerError
from ruamel.yaml.cyaml import CBaseLoader

import manifest_strategies as ms
from postrender.pipeline.read.documents import Source
from postrender.pipeline.read.split import split
from postrender.syntax import nodes
from postrender.syntax.nodes import Composer, MappingNode, ScalarNode, SequenceNode, column, line_starts, unique_nodes


def _nodes(loader_class, text: str) -> list:
    loader = loader_class(text)
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()
    return unique_nodes(root) if root is not None else []


def _ruamel_nodes(text: str) -> list:
    """Every node ruamel's own loader composes, once each (its classes, not ours)."""
    loader = CBaseLoader(text)
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()
    seen: dict[int, object] = {}
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen[id(node)] = node
        if isinstance(node, ruamel_nodes.MappingNode):
            stack.extend(n for pair in node.value for n in pair)
        elif isinstance(node, ruamel_nodes.SequenceNode):
            stack.extend(node.value)
    return list(seen.values())


def _marks(text: str) -> list[tuple[int, int, int, int]]:
    """(offset, line, column, end offset) of every node, from libyaml's marks;
    the line counted at LF up to the offset libyaml gives."""
    bom = text.startswith("\ufeff")  # libyaml's offsets count from after it
    return sorted((node.start_mark.index, text.count("\n", 0, node.start_mark.index + bom), node.start_mark.column,
                   node.end_mark.index)
                  for node in _ruamel_nodes(text))


def _ours(text: str) -> list[tuple[int, int, int, int]]:
    """The same, from the offsets our composer keeps and the text."""
    starts = line_starts(text)
    return sorted((node.start_mark, bisect.bisect_right(starts, node.start_mark) - 1, column(text, node.start_mark),
                   node.end_mark) for node in _nodes(Composer, text))


CASES = {
    "block": "a: 1\nb:\n  c: [x, y]\n  d: {e: f}\n",
    "crlf": "a: 1\r\nb:\r\n  - c\r\n  - d: e\r\n",
    "quoted breaks": 'a: "x\\u2028y"\nb: "one\u2028two\u2029three\x85four"\nc: 3\n',
    "flow after a quoted break": '{a: "x\u2028y", b: 1}\n',
    "block scalar": "a: |\n  one\n  two\nb: >-\n  three\n\nc: 4\n",
    "explicit keys": "? a\n: 1\n? [b, c]\n: 2\n",
    "anchors": "a: &x {b: 1}\nc: *x\n",
    # Past the table of shared offsets (nodes._SHARED_OFFSETS), and a scalar across its end.
    "long": "".join(f"key{i}: value-{i}\n" for i in range(1500)) + "last: " + "x" * 20000 + "\n",
}


def _straddling(features: list[tuple[str, str, int]]) -> str:
    """A mapping whose k-th entry puts its feature's `split`-th character at
    the k-th end of a piece libyaml is given (nodes._READ_PIECE), each
    entry's value padded to reach it: (opening of the value, feature, split)."""
    text = ""
    for k, (opening, feature, split) in enumerate(features, 1):
        line = f"k{k}: {opening}"
        text += line + "x" * (k * nodes._READ_PIECE - split - len(text) - len(line)) + feature
    return text


# Past each end of a piece of what libyaml is given at a time: a CR LF, a CR
# alone, U+2028 and U+0085 in a quoted value, characters of two to four
# bytes each side of it (a piece is cut between characters, never in one).
CASES["read in pieces"] = _straddling([
    ("", "\r\n", 1), ("", "\rk: v\n", 1), ('"', "\u2028y\"\n", 1), ('"', "\x85y\"\n", 0),
    ('"', "é😀€\"\n", 1), ("", "\r\n", 2),
])


@pytest.mark.parametrize("text", CASES.values(), ids=CASES.keys())
def test_columns_are_libyamls_and_lines_end_at_lf(text):
    ours = _ours(text)
    assert ours == _marks(text)
    assert len(ours) > 3


def test_a_big_text_is_given_to_libyaml_a_piece_at_a_time(monkeypatch):
    # CParser holds what it is given, encoded, until libyaml has read it all:
    # a big text given whole was a copy of it held as it was composed.
    text = CASES["read in pieces"]
    assert len(text) > 4 * nodes._READ_PIECE
    given = []
    read = nodes._TextInPieces.read
    monkeypatch.setattr(nodes._TextInPieces, "read", lambda self, size: given.append(read(self, size)) or given[-1])
    assert Composer(text).get_single_node() is not None
    assert "".join(given) == text and given[-1] == ""
    assert len(given) > 4 and max(map(len, given)) == nodes._READ_PIECE
    # One holding a lone surrogate, whole: encoding it fails before libyaml reads any.
    broken = text + "a: \ud800\n"
    assert nodes._readable(broken).read(16384) is broken


def test_a_byte_order_mark_is_not_a_column():
    # libyaml skips it: offsets count from after it (pipeline/read shifts them), columns too.
    text = "\ufeffa: 1\nb: 2\n"
    theirs = _marks(text)
    assert [(line, col) for _, line, col, _ in theirs] == [(0, 0), (0, 0), (0, 3), (1, 0), (1, 3)]
    assert [column(text, offset + 1) for offset, *_ in theirs] == [col for _, _, col, _ in theirs]


@settings(deadline=None, max_examples=80, suppress_health_check=list(HealthCheck))
@given(ms.written(ms.streams()))
def test_any_written_stream(drawn):
    _stream, text = drawn
    for chunk, _ in split(Source(None, text.lstrip("\ufeff"))):
        if chunk.strip():
            assert _ours(chunk) == _marks(chunk)


def test_recurring_texts_and_offsets_are_one_object():
    # Every document of a stream has its own `name` key at its own offset 42:
    # one shared object each, not one per node (a sixth of a large render).
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {app: web}\n"
    first, second = _nodes(Composer, text), _nodes(Composer, text)
    assert len(first) == len(second) > 8
    for one, other in zip(first, second):
        assert one.start_mark is other.start_mark and one.end_mark is other.end_mark
        if isinstance(one.value, str):
            assert one.value is other.value
    unique = "x" * 100  # long texts are mostly unique: not interned
    one, other = ([n for n in _nodes(Composer, f"k: {unique}\n") if n.value == unique][0] for _ in range(2))
    assert one.value is not other.value


def test_ruamels_loaders_still_get_ruamels_nodes():
    # Composer puts postrender's node classes in the C composer's module only
    # while it composes, and ruamel's back after, also when composing fails.
    text = "a: [b, {c: d}]\n"
    ours = _nodes(Composer, text)
    assert {type(n) for n in ours} == {MappingNode, SequenceNode, ScalarNode}
    assert all(not hasattr(n, "__dict__") and type(n.start_mark) is int for n in ours)
    theirs = _ruamel_nodes(text)
    assert {type(n) for n in theirs} == {ruamel_nodes.MappingNode, ruamel_nodes.SequenceNode, ruamel_nodes.ScalarNode}
    with pytest.raises(ComposerError):
        _nodes(Composer, "a: &x 1\nb: &x 2\n")
    assert {type(n) for n in _ruamel_nodes(text)} == {type(n) for n in theirs}
    assert nodes._composing is None


def test_small_mappings_are_told_how_to_search_as_they_are_composed():
    # Decided per document from its text (Composer): a `!` anywhere means a
    # key may be tagged; a mapping of 8 keys or more is indexed, not searched.
    plain = "a: {b: 1}\nc: {" + ", ".join(f"k{i}: {i}" for i in range(8)) + "}\n"
    root = _nodes(Composer, plain)
    mappings = [n for n in root if isinstance(n, MappingNode)]
    assert sorted(len(m.value) for m in mappings) == [1, 2, 8]
    assert [m.merge is nodes._SEARCH_PLAIN for m in sorted(mappings, key=lambda m: len(m.value))] == [True, True, False]
    tagged = [n for n in _nodes(Composer, "a: {b: !!str 1}\n") if isinstance(n, MappingNode)]
    assert tagged and all(m.merge is nodes._SEARCH for m in tagged)


def test_a_composer_that_makes_its_own_nodes_is_refused(monkeypatch):
    # Should a ruamel.yaml.clib stop looking its node classes up by name,
    # its nodes would reach code that reads offsets: refused at once, naming it.
    from postrender.errors import PostrenderError

    monkeypatch.setattr(nodes, "_OUR_NODES", nodes._RUAMEL_NODES)
    with pytest.raises(PostrenderError, match=r"ruamel.yaml.clib \S+ composes its own nodes"):
        _nodes(Composer, "a: 1\n")


@pytest.mark.parametrize("path", [
    ("spec", "it's.configMap"), ("spec", 'say "x".configMap'), ("spec", "a]b[0]configMap"), ("a.b", "c"),
    ("metadata", "annotations", "postrender.io/refs"), ("spec", "containers", 0, "name"), ("spec", "a b"),
    ("spec", ""), ("spec", "back\\slash"),
])
def test_a_field_path_reads_back_as_the_keys_it_is_made_of(path):
    """Keys went through repr with `'` made `"`: `spec["it"s.configMap"]`,
    and `spec.a]b[0]configMap` read as an index."""
    import json
    import re

    from postrender.syntax.nodes import format_path

    text = format_path(path)
    parts: list = []
    for bare, index, quoted in re.findall(r'\.?([^.\[\]"]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]', text):
        parts.append(bare if bare else int(index) if index else json.loads(quoted))
    assert tuple(parts) == path, text
