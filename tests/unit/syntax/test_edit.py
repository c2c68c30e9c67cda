"""Text edits (syntax.edit): the plain-or-quoted rule, the splice and the
column an insertion is indented to."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from postrender.syntax.edit import Splice, Stencil, _first_entry, is_plain_safe, render_scalar
from postrender.syntax.nodes import Composer, MappingNode, column, plain_is_string, unique_nodes

# Characters a plain value may hold, with the letters and signs that make
# numbers (e, x, o, b, _), booleans and nulls (y, n, t, f, o), and dates.
_PLAINISH = "0123456789eExXoObB_.-/aknytfYNTFOl"


@settings(max_examples=2000)
@given(st.text(_PLAINISH, min_size=1, max_size=8))
def test_a_plain_safe_value_reads_as_a_string_for_go_yaml(value: str) -> None:
    # The resolver is no longer asked at run time: the rule alone must
    # never let through what go-yaml v2 reads as other than its text.
    if is_plain_safe(value):
        assert plain_is_string(value), value


@pytest.mark.parametrize(
    ("value", "plain"),
    [
        ("app-config", True),
        ("g6579f42fb", True),  # content hashes: plain whatever they start with
        ("6579f42fb9", True),
        ("2b4c6d8f9m", True),
        ("b46cgfd7b9", True),
        ("yesterday", True),
        ("offset", True),
        ("postrender.io/versioned", True),
        ("1e3", False),
        ("1_000", False),
        ("0x1F", False),
        ("0o17", False),
        ("0b101", False),
        ("08", False),
        ("2001-12-14", False),
        ("12345", False),
        ("yes", False),
        ("On", False),
        ("NULL", False),
        ("n", False),
        ("-app", False),
        (".inf", False),
        ("a b", False),
        ("", False),
    ],
)
def test_plain_or_quoted(value: str, plain: bool) -> None:
    assert is_plain_safe(value) is plain
    assert render_scalar(value) == (value if plain else f'"{value}"')


def test_splice_keeps_the_order_edits_at_one_offset_were_given_and_drops_duplicates() -> None:
    edits = [(4, 4, "b"), (1, 2, "X"), (4, 4, "a"), (4, 4, "b")]
    assert Splice(edits).apply("0123456") == "0X23ba456"


def test_splice_refuses_overlapping_edits() -> None:
    with pytest.raises(AssertionError, match="overlapping edits at offset 2"):
        Splice([(1, 3, "x"), (2, 4, "y")])


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r", "\x85", "\u2028"])
@pytest.mark.parametrize("bom", ["", "\ufeff"])
def test_first_entry_column_is_libyamls_whatever_the_line_breaks(newline: str, bom: str) -> None:
    text = bom + newline.join(["a:", "  b: 1", "  c:", "  - d: 2", "    e: 3", "f:", "  ? g", "  : 4", ""])
    loader = Composer(text)
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()
    nodes = unique_nodes(root)
    for node in nodes:  # as read.py places them: in the text that still holds the byte-order mark
        node.start_mark += len(bom)
        node.end_mark += len(bom)
    keys = [key for node in nodes if isinstance(node, MappingNode) for key, _ in node.value]
    assert len(keys) == 7
    for key in keys:
        start, key_column = _first_entry(text, key)
        explicit = text[start] == "?"
        assert key_column == column(text, start)
        assert start == (key.start_mark - 2 if explicit else key.start_mark)


_EDIT_TEXT = st.text(st.characters(blacklist_characters="\x00\x01\x02\x03\x04\x05\x06"), max_size=12)
_EDITS = st.lists(st.tuples(st.integers(0, 1 << 40), st.integers(0, 1 << 40), _EDIT_TEXT), max_size=4)


@settings(max_examples=500)
@given(st.lists(st.one_of(st.none(), st.tuples(_EDITS, st.lists(_EDIT_TEXT, max_size=5).map(tuple))), max_size=3))
def test_a_stencil_gives_back_each_group_as_made(groups) -> None:
    # Whatever the values (empty, inside one another, inside the texts) and
    # offsets (narrow or wide), each group comes back as it was given, and
    # a group not made as None.
    stencil = Stencil(groups)
    for index, group in enumerate(groups + [None]):
        values = group[1] if group is not None else ()
        assert stencil.group(index, values) == (group[0] if group is not None else None)
        assert stencil.has(index) == (group is not None)


def test_stencils_of_one_shape_share_their_texts() -> None:
    # Marks differ between configs only in the names taken out: what each
    # keeps of the texts is one shared object.
    def marks(name: str, at: int) -> Stencil:
        return Stencil([([(at, at + len(name), f"{name}-h1"), (at + 30, at + 30, f"\n  labels:\n    base: {name}")],
                         (name, "h1"))])

    first, second = marks("cm-1", 10), marks("cm-22", 200)
    assert first._template is second._template
    assert second.group(0, ("cm-22", "h1")) == [(200, 205, "cm-22-h1"), (230, 230, "\n  labels:\n    base: cm-22")]


def test_a_stencil_refuses_a_text_holding_what_it_reserves() -> None:
    with pytest.raises(ValueError):
        Stencil([([(0, 0, "a\x05b")], ())])
