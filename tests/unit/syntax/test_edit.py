"""Text edits (syntax.edit): the plain-or-quoted rule, the splice and the
column an insertion is indented to."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from postrender.syntax.edit import (
    Located,
    Runs,
    Splice,
    _first_entry,
    insert_item_before,
    is_plain_safe,
    locate_entries,
    render_scalar,
    set_entries,
)
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


def _spliced_plainly(edits: list) -> list:
    """What a Splice of `edits` holds, made the plain way (as before stop 65
    packed them in one pass): each edit given twice once, where it was first
    given, then a stable sort by place; an overlap refused."""
    ordered = sorted(dict.fromkeys(edits), key=lambda e: (e[0], e[1]))
    for before, after in zip(ordered, ordered[1:]):
        if after[0] < before[1]:
            raise AssertionError(f"overlapping edits at offset {after[0]}")
    return ordered


@given(st.lists(st.tuples(st.integers(0, 12), st.integers(0, 2), st.sampled_from(["a", "b", "é", ""])),
                max_size=40), st.integers(1, 6), st.integers(1, 5), st.integers(1, 5))
def test_edits_taken_in_runs_splice_as_all_at_once(given_edits, run, joined, looked_up) -> None:
    # A large document's edits are sorted and packed a run at a time and the
    # runs merged (Runs): the same splice as of all of them at once made
    # plainly, the order of those at one place, the duplicates across runs
    # and the overlap refused too; the texts joined `joined` at a time and
    # those at one place looked up in a set from `looked_up` on.
    from postrender.syntax import edit

    edits = [(start, start if size == 0 else start + size, text) for start, size, text in given_edits]
    try:
        plain: list | str = _spliced_plainly(edits)
    except AssertionError as refused:
        plain = str(refused)
    saved = edit._JOINED, edit._LOOKED_UP_FROM
    edit._JOINED, edit._LOOKED_UP_FROM = joined, looked_up
    try:
        for whole in (lambda: Splice(edits), lambda: _in_runs(edits, run)):
            try:
                splice = whole()
            except AssertionError as refused:
                assert str(refused) == plain
                continue
            assert list(splice) == plain
            text = "0123456789abcdef"
            expected = text
            for start, end, new in reversed(plain):  # type: ignore[arg-type]
                expected = expected[:start] + new + expected[end:]
            assert splice.apply(text) == expected
    finally:
        edit._JOINED, edit._LOOKED_UP_FROM = saved


def _in_runs(edits: list, run: int) -> Splice:
    runs = Runs()
    made = list(edits)
    pending: list = []
    while made:
        pending.append(made.pop(0))
        if len(pending) >= run:
            runs.take(pending)
    return runs.splice(pending)


def test_many_edits_at_one_place_keep_their_order_and_drop_those_given_twice() -> None:
    # Past _LOOKED_UP_FROM insertions at one offset, those given twice are
    # found in a set: the same splice, in linear time.
    edits = [(3, 3, f"<{i % 500}>") for i in range(2_000)]
    assert Splice(edits).apply("0123456") == "012" + "".join(f"<{i}>" for i in range(500)) + "3456"


@given(st.lists(st.tuples(st.integers(0, 12), st.integers(0, 2), st.text("ab", max_size=2)), max_size=8,
                unique_by=lambda e: e[0]), st.integers(0, 16), st.text("xé", max_size=2))
def test_an_insertion_after_every_edit_is_packed_as_spliced_anew(given_edits, at, text) -> None:
    # Output.insert adds a ResourceList's results to its packed edits
    # (Splice.inserted), without unpacking them: as Splice of them all.
    edits = sorted({(start, start + size, t) for start, size, t in given_edits})
    if any(b[0] < a[1] for a, b in zip(edits, edits[1:])):
        return
    inserted = Splice(edits).inserted(at, text)
    if any(end >= at for _, end, _ in edits):
        assert inserted is None
    else:
        assert inserted is not None and list(inserted) == list(Splice([*edits, (at, at, text)]))


def test_a_splice_in_chunks_inserts_gives_out_and_refuses_as_one_of_all_its_edits(monkeypatch) -> None:
    # A Splice holds its edits in chunks of _JOINED (a merged run's chunks
    # let go of as they are used up): two edits a chunk here. Inserted
    # into, given out in parts and refused for a lone surrogate as if held
    # whole, the error's position that of the texts joined.
    from postrender.syntax import edit

    monkeypatch.setattr(edit, "_JOINED", 2)
    edits = [(at, at + 1, f"<{at}>") for at in range(0, 10, 2)]
    text = "0123456789abc"
    splice = _in_runs(edits, 2)
    assert list(splice) == edits and len(splice._chunks) == 3
    assert splice.apply(text) == "<0>1<2>3<4>5<6>7<8>9abc"
    assert "".join(splice.applied_in_parts(text, 4)) == splice.apply(text)
    assert splice.span() == (0, 9)
    inserted = splice.inserted(11, "R")
    assert inserted is not None and inserted.apply(text) == "<0>1<2>3<4>5<6>7<8>9aRbc"
    assert splice.inserted(9, "R") is None
    bad = [*edits[:4], (8, 9, "\ud83d")]
    with pytest.raises(UnicodeEncodeError) as refused:
        Splice(bad)
    with pytest.raises(UnicodeEncodeError) as joined:
        "".join(t for _, _, t in bad).encode("utf-8")
    assert str(refused.value) == str(joined.value)


def test_runs_merged_let_go_of_their_chunks() -> None:
    from postrender.syntax.edit import Packed, Splice as Spliced

    runs = [[Packed([(0, 1, "a")]), Packed([(4, 5, "b")])], [Packed([(2, 3, "c")])]]
    assert list(Spliced.merged(runs)) == [(0, 1, "a"), (2, 3, "c"), (4, 5, "b")]
    assert runs == [[], []]


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
    for node in nodes:  # as pipeline/read places them: in the text that still holds the byte-order mark
        node.start_mark += len(bom)
        node.end_mark += len(bom)
    keys = [key for node in nodes if isinstance(node, MappingNode) for key, _ in node.value]
    assert len(keys) == 7
    for key in keys:
        start, key_column = _first_entry(text, key)
        explicit = text[start] == "?"
        assert key_column == column(text, start)
        assert start == (key.start_mark - 2 if explicit else key.start_mark)


def _tagged(value: str, tag: str) -> str:
    return tag + value


_EDIT_TEXT = st.text(max_size=12)
_LOCATED = st.lists(st.tuples(st.integers(0, 1 << 40), st.integers(0, 1 << 40), st.sampled_from("abc"), _EDIT_TEXT),
                    max_size=4)


@settings(max_examples=500)
@given(st.lists(st.one_of(st.none(), _LOCATED), max_size=3), st.dictionaries(st.sampled_from("abc"), _EDIT_TEXT))
def test_located_edits_give_back_each_group_made_from_the_values(groups, values) -> None:
    # Whatever the offsets (narrow or wide), each group comes back in its
    # order, each text made from the values given, and a group not made as None.
    values = {key: values.get(key, "") for key in "abc"}
    located = Located([None if group is None else [(start, end, (_tagged, (), key, tag)) for start, end, key, tag in group]
                       for group in groups])
    for index, group in enumerate(groups + [None]):
        made = located.group(index, values)
        assert made == (None if group is None else [(start, end, tag + values[key]) for start, end, key, tag in group])
        assert located.has(index) == (group is not None)


def _mapping(text: str) -> MappingNode:
    loader = Composer(text)
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()
    assert isinstance(root, MappingNode)
    return root


_MARKS = {"metadata": {"name": "cm-1-h1", "labels": {"versioned": "true", "base": "cm 1"}}, "immutable": True}


@pytest.mark.parametrize("text", [
    "kind: ConfigMap\nmetadata:\n  name: cm-1\ndata:\n  k: v\n",
    "kind: ConfigMap\nmetadata:\n  name: 'cm-1'  # note\n  labels:\n    base: cm 1\nimmutable: false\n",
    "kind: ConfigMap\nmetadata: {name: cm-1}\nimmutable:\n",
    'metadata: {"name": "cm-1", "labels": {}}\n',
    "metadata:\n  name: |\n    cm-1\n  labels: ~\n",
    "metadata:\n  ? name\n  : cm-1\n  labels:\n    - x\n",
    "metadata:\n  name: !!str\n",
])
def test_located_edits_make_what_set_entries_makes(text: str) -> None:
    # Located ahead and made later, a config's marks are the edits
    # set_entries makes at once, whatever shape its mapping has.
    root = _mapping(text)
    expected = set_entries(text, root, _MARKS, "\n")
    assert Located([locate_entries(text, root, _MARKS, "\n")]).group(0, _MARKS) == expected
    assert expected


def test_located_edits_of_one_shape_share_what_makes_their_texts() -> None:
    # Marks differ between configs in their offsets and the values set:
    # what each keeps of how its texts are made is one shared object.
    def marks(name: str, padding: str) -> tuple[Located, dict]:
        text = f"kind: ConfigMap\nmetadata:\n  name: {name}{padding}\ndata:\n  k: v\n"
        values = {"metadata": {"name": name + "-h1", "labels": {"base": name}}}
        return Located([locate_entries(text, _mapping(text), values, "\n")]), values

    (first, _), (second, values) = marks("cm-1", ""), marks("cm-22", " " * 300)
    assert first._shape is second._shape
    assert second.group(0, values) == [(34, 39, "cm-22-h1"), (339, 339, "\n  labels:\n    base: cm-22")]




# An item of a block sequence, written with what may stand between its dash
# and its content: blanks, comments and properties, any of which may hold a
# `-` of its own (a Helm `# Source: my-chart/...` comment on the dash line).
_ITEM_OPENINGS = [
    "- ",
    "-   ",
    "- # Source: my-chart/templates/secret.yaml\n  ",
    "- #---\n  ",
    "- # -\n  ",
    "-\n  # a-b\n  ",
    "-\n  # a-b\n\n  # - c\n  ",
    "- &my-anchor ",
    "- &my-anchor\n  ",
    "- &a-b # c-d\n  ",
    "- !my-tag ",
    "- !my-tag &x-\n  ",
]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("opening", _ITEM_OPENINGS)
@pytest.mark.parametrize("content", ["k: v", "value"])
def test_an_item_inserted_goes_ahead_of_the_items_own_dash_whatever_stands_after_it(opening, content, newline):
    text = ("items:\n- first\n" + opening + content + "\n- last\n").replace("\n", newline)
    root = _mapping(text)
    (_, items), = root.value
    before = items.value[1]
    splice = Splice([insert_item_before(text, items, before, '{"new": "item"}', newline)])
    out = splice.apply(text)
    read = YAML().load(out)["items"]  # round-trip: custom tags read as tagged values
    assert len(read) == 4 and read[:2] == ["first", {"new": "item"}] and read[3] == "last", out
    # The one line added, ahead of the item's dash: the rest as written.
    assert out.replace('- {"new": "item"}' + newline, "", 1) == text


@pytest.mark.parametrize("opening", ["- # a-b\n    ", "- &x-y "])
def test_an_item_inserted_into_a_sequence_in_a_sequences_item_goes_ahead_of_its_own_dash(opening):
    # `- - x`: of the two dashes on the line, the inner sequence's.
    text = "items:\n- - first\n  " + opening + "second\n"
    root = _mapping(text)
    (_, outer), = root.value
    inner = outer.value[0]
    splice = Splice([insert_item_before(text, inner, inner.value[1], '"new"', "\n")])
    assert YAML(typ="safe").load(splice.apply(text)) == {"items": [["first", "new", "second"]]}
