"""The fast paths of syntax.nodes give what the general readers give.

get() searches a small mapping by key text alone when its document's text
holds no tag and no merge key; _resolve_number rejects most texts as
strings before parsing them. Each is checked against the general code it
skips, over the keys and texts YAML 1.1 reads as other values."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from postrender.syntax import nodes
from postrender.syntax.nodes import Composer, MappingNode, get, unique_nodes

# Keys that read as themselves, as other values (`y` is true, `0x1` is 1),
# or as nothing Kubernetes accepts (`~`), plain or quoted.
_KEY_TEXTS = ["name", "y", "Y", "yes", "n", "on", "1", "01", "0x1", "0o7", "1_0", "1e3", ".5", "-1", "+1",
              "~", "null", "true", "True", "0b1", "-0b1", "1.0", "08", "nan", "a1", "3f2a"]
_KEYS = st.sampled_from(_KEY_TEXTS)
_FORMS = ["{}", "'{}'", '"{}"']
_TAGGED_FORMS = ["!!str {}", "!!int {}", "!!bool {}", "!foo {}"]


def _compose(text: str):
    loader = Composer(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def _general(root, key):
    """get() as it is without the composer's presets: the key index rebuilt."""
    for node in unique_nodes(root):
        if isinstance(node, MappingNode):
            node.merge = None
    return get(root, key)


@settings(max_examples=400, deadline=None)
@given(st.lists(_KEYS, min_size=1, max_size=7), st.data(), _KEYS)
def test_get_on_a_composed_document_is_get(keys, data, query):
    tagged = data.draw(st.booleans())
    forms = data.draw(st.lists(st.sampled_from(_FORMS + _TAGGED_FORMS if tagged else _FORMS),
                               min_size=len(keys), max_size=len(keys)))
    text = "{" + ", ".join(form.format(key) + f": {i}" for i, (key, form) in enumerate(zip(keys, forms))) + "}\n"
    fast = _compose(text)
    assert fast.merge is (nodes._SEARCH if nodes.may_hold_tags(text) else nodes._SEARCH_PLAIN)
    found = get(fast, query)
    expected = _general(_compose(text), query)
    assert (found.value if found is not None else None) == (expected.value if expected is not None else None)


@pytest.mark.parametrize("text", ["a: !!str 1\n", "a: {<<: {b: 1}}\n", "a: {b: ! c}\n"])
def test_a_tag_or_merge_key_in_the_text_keeps_the_general_search(text):
    root = _compose(text)
    assert all(node.merge is not nodes._SEARCH_PLAIN for node in unique_nodes(root) if isinstance(node, MappingNode))


@pytest.mark.parametrize("text", ["a: b!\n", "a: {b: 'c != d'}\n", "'<<': 1\n", "a: {b: c << d}\n", "run: |\n  #!/bin/sh\n  [ \"$a\" != b ] && exit\n"])
def test_a_bang_inside_a_scalar_keeps_the_plain_search(text):
    # A `!`, `&` or `<<` where no node can start (may_hold_tags and its kin).
    root = _compose(text)
    assert all(node.merge is nodes._SEARCH_PLAIN for node in unique_nodes(root) if isinstance(node, MappingNode))


@pytest.mark.parametrize("text, query, value", [
    ("{y: 1, 'y': 2}\n", "y", "2"),          # plain y is true
    ("{1: a, 0x1: b}\n", "0x1", None),       # 0x1 reads as 1
    ("{'0x1': a, name: b}\n", "0x1", "a"),
    ("{name: a}\n", "name", "a"),
])
def test_get_in_a_plain_document(text, query, value):
    found = get(_compose(text), query)
    assert (found.value if found is not None else None) == value


_NUMBER_ALPHABET = "0123456789_+-.eExXoObBaAfF~ yYnN:"


@settings(max_examples=3000, deadline=None)
@given(st.one_of(st.text(alphabet=_NUMBER_ALPHABET, min_size=1, max_size=12), st.text(min_size=1, max_size=12)))
def test_a_text_screened_out_as_no_number_is_a_string(text):
    if not nodes._MAY_BE_NUMBER.fullmatch(text):
        assert nodes._parse_number(text) == ("str", text)


@pytest.mark.parametrize("text", ["0x1", "-0x_1", "_0b101", "-0b1", "0O7", "1_000", "1e3", "-.5", "+1", "08",
                                  "0b-101", "1.", "0XFF"])
def test_numbers_pass_the_screen(text):
    assert nodes._parse_number(text)[0] != "str"
    assert nodes._MAY_BE_NUMBER.fullmatch(text)


@pytest.mark.parametrize("text", ["3f2a9c", "1.2.3-rc1", "12ab", "0a1", "1e3x"])
def test_hashes_and_versions_are_strings_at_once(text):
    assert not nodes._MAY_BE_NUMBER.fullmatch(text)
    assert nodes.resolve_plain(text) == ("str", text)


# Scalars of every style and the plain texts YAML 1.1 reads as other values.
_SCALAR_TEXTS = [*_KEY_TEXTS, "", "<<", "=", "2001-01-01", "2001-01-01t00:00:00z", ".inf", "-.Inf", ".NaN", "Null",
                 "NULL", "off", "Off", "a b", "é", "0.", "1:20", "0777", "_", "-a", "?a", ":a"]


@pytest.mark.parametrize("text", _SCALAR_TEXTS)
@pytest.mark.parametrize("form", [*_FORMS, *_TAGGED_FORMS, "!!binary {}"])
def test_is_string_is_plain_is_text_written_out(text, form):
    """is_string writes plain_is_text out (stop 67): it answers as the rule
    it copies, for every style and tag."""
    node = _compose(f"k: {form.format(text)}\n").value[0][1]
    written_out = nodes.is_string(node)
    if node.tag is nodes.default_tag(nodes.ScalarNode):
        assert written_out == (bool(node.style) or nodes.plain_is_text(node.value)
                               or nodes.plain_is_string(node.value))
    elif node.tag == nodes.STR_TAG:
        assert written_out == (bool(node.style) or nodes.plain_is_string(node.value))


@pytest.mark.parametrize("text, kind", [
    ("k: x", nodes.ScalarNode), ("k: ''", nodes.ScalarNode), ("k:", nodes.ScalarNode), ("k: ! x", nodes.ScalarNode),
    ("k: !<!> x", nodes.ScalarNode), ("k: [a]", nodes.SequenceNode), ("k: ! [a]", nodes.SequenceNode),
    ("k: {a: b}", nodes.MappingNode), ("k: ! {}", nodes.MappingNode), ("k:\n- a", nodes.SequenceNode),
    ("k:\n  a: b", nodes.MappingNode),
])
def test_an_untagged_node_has_its_kinds_default_tag(text, kind):
    """The composer's resolve hook answers "" and the node makers read it as
    the default tag (stop 67): each kind's, the very object default_tag
    gives, for a node with no tag or the non-specific `!`."""
    node = _compose(f"{text}\n").value[0][1]
    assert type(node) is kind
    assert node.tag is nodes.default_tag(kind)


@pytest.mark.parametrize("text, tag", [("!!str x", nodes.STR_TAG), ("!foo {}", "!foo"), ("!!map {}", None),
                                       ("!<tag:example.com,2000:x> [a]", "tag:example.com,2000:x")])
def test_a_tag_written_is_kept_as_written(text, tag):
    node = _compose(f"k: {text}\n").value[0][1]
    assert node.tag is not nodes.default_tag(type(node))
    if tag is not None:
        assert node.tag == tag
