"""Node positions are offsets (syntax.nodes.to_offsets); lines and columns
are worked out from the text. They must be libyaml's own: error messages
quote the line, and edits are indented by the column."""

import bisect

import pytest
from hypothesis import HealthCheck, given, settings
from ruamel.yaml.cyaml import CBaseLoader

import manifest_strategies as ms
from postrender.pipeline.read import Source, split
from postrender.syntax.nodes import Composer, column, line_starts, unique_nodes


def _nodes(loader_class, text: str) -> list:
    loader = loader_class(text)
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()
    return unique_nodes(root) if root is not None else []


def _marks(text: str) -> list[tuple[int, int, int, int]]:
    """(offset, line, column, end offset) of every node, from libyaml's marks."""
    return sorted((node.start_mark.index, node.start_mark.line, node.start_mark.column, node.end_mark.index)
                  for node in _nodes(CBaseLoader, text))


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
    # Past the table of shared offsets (to_offsets), and a scalar across its end.
    "long": "".join(f"key{i}: value-{i}\n" for i in range(1500)) + "last: " + "x" * 20000 + "\n",
}


@pytest.mark.parametrize("text", CASES.values(), ids=CASES.keys())
def test_lines_and_columns_are_libyamls(text):
    ours = _ours(text)
    assert ours == _marks(text)
    assert len(ours) > 3


def test_a_byte_order_mark_is_not_a_column():
    # libyaml skips it: offsets count from after it (read.py shifts them), columns too.
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
