"""syntax/blockkeys.py reads the keys of a document from its text, passing
over every scalar's lines, so that read can compose a CRD with its schemas
masked. Whatever it says of a text libyaml parses must be what composing
the text finds: plain, distinct keys in every mapping (the composer's
`plain_keys`), no tag, anchor, alias or merge key, and, composed with the
regions it gives masked, the same nodes at the same offsets but the masked
values, which read as null.

The streams are written line by line, not by a YAML writer, so that they
hold what a writer never makes: key-like lines inside block scalars and
quoted scalars (some less indented than their key), comments at any
column, keys YAML 1.1 reads as other than text, keys written twice,
indentation off by one, tabs, flow mappings, tags and anchors. In `clean`
streams, written in the subset it reads, it must also say yes.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import AliasEvent, CollectionStartEvent, ScalarEvent

from postrender.syntax import blockkeys
from postrender.syntax.nodes import Composer, MappingNode, ScalarNode, SequenceNode

WANTED = frozenset(("openAPIV3Schema",))

CLEAN_KEYS = ["type", "description", "properties", "items", "openAPIV3Schema", "name", "x-kubernetes-map-type",
              '"quoted key"', "'single key'", "minLength", "a.b/c-d", "$ref", "_x"]
ODD_KEYS = ["y", "on", "1", "~", "null", ".inf", "<<", "a b", "a:b", "-k", '"esc\\tkey"', "'it''s'", "? q", "[a]",
            "!!str t", "&an k", "*an", "a :"]
CLEAN_SCALARS = ["x", "two words", "http://host:80/p", "a#b", "'q: uoted'", '"d: q \\" x"', "-1", "--flag",
                 "[a, b]", "[]", "{}", "'it''s'", "^[a-z]+$", "1.5", "true"]
ODD_SCALARS = ["a: b", "#c", "{a: 1}", "{a: 1, a: 2}", "[&x a]", "[*x]", "&a v", "*a", "!!str v", "!!int 3", ".inf",
               "- x", "a\tb", "? x", '"\\/"', "[a,\n b]", "|\n   no", "<<", "[? ~]", "[a, ?null]", "[? <<]",
               "[?a]"]


@st.composite
def documents(draw, clean: bool) -> str:
    # Not clean: a clean stream but for one or two odd things, drawn where
    # they may stand, so that most streams are still ones libyaml parses and
    # blockkeys reads, with the odd part where it counts.
    budget = [0 if clean else draw(st.integers(1, 2))]

    def odd(one_in: int = 6) -> bool:
        if budget[0] and draw(st.integers(0, one_in - 1)) == 0:
            budget[0] -= 1
            return True
        return False

    def key() -> str:
        return draw(st.sampled_from(ODD_KEYS if odd() else CLEAN_KEYS + ["openAPIV3Schema"] * 2))

    def scalar() -> str:
        return draw(st.sampled_from(ODD_SCALARS if odd() else CLEAN_SCALARS))

    def shift(oddly: list[int]) -> int:
        return draw(st.sampled_from(oddly)) if odd(4) else 0

    def noise(column: int) -> list[str]:
        # Blank lines (of spaces too) and comments, at any column.
        return draw(st.lists(st.sampled_from(["", "   ", " " * column + "# a: b", "# c: d", "  #"]), max_size=1))

    def lines_below(column: int) -> list[str]:
        """A block scalar's lines, or more of a plain one: some key-like,
        and oddly, some less indented than the first."""
        deeper = column + draw(st.integers(1, 3))
        written = []
        for _ in range(draw(st.integers(0, 3))):
            text = draw(st.sampled_from(["text", "a: b", "- c", "d:", "# e", "'f", '"g', "h: 'i", "", "  j: k"]))
            written.append(" " * max(deeper + shift([-3, -2, -1, 1]), 0) + text if text else "")
        return written

    def entry(prefix: str, column: int, name: str, depth: int) -> list[str]:
        kinds = ["scalar", "scalar", "block", "quoted", "mapping", "sequence", "below"]
        kind = draw(st.sampled_from(kinds if depth < 3 else kinds[:4]))
        head = prefix + name + ":"
        if kind == "scalar":
            return [head + " " + scalar(), *(lines_below(column) if odd(4) else [])]
        if kind == "block":
            return [head + " " + draw(st.sampled_from(["|", "|-", ">", ">+", "|2", "|-2", ">2-"])),
                    *lines_below(column)]
        if kind == "quoted":
            quote = draw(st.sampled_from(["'", '"']))
            inner = draw(st.lists(st.sampled_from(["a: b", "- c", "k: v", "x", "# y"]), max_size=2))
            moved = shift([-4, -2, -1, 2])
            written = [head + " " + quote + "start", *(" " * max(column + 2 + moved, 0) + piece for piece in inner)]
            written[-1] += quote
            return written
        if kind == "mapping":
            return [head, *mapping(column + draw(st.sampled_from([2, 2, 4, 1])), depth + 1)]
        if kind == "sequence":
            return [head, *sequence(column + draw(st.sampled_from([0, 2, 2, 3])), depth + 1)]
        return [head, " " * (column + 2) + scalar()]  # the value on the line below

    def mapping(column: int, depth: int, first_prefix: str | None = None) -> list[str]:
        names: list[str] = []
        for _ in range(draw(st.integers(1, 4))):
            name = names[-1] if names and odd(8) else key()  # written twice, oddly
            if name not in names or not clean and name == names[-1]:
                names.append(name)
        written: list[str] = []
        for i, name in enumerate(names):
            prefix = first_prefix if i == 0 and first_prefix is not None else " " * column
            if i:
                prefix = " " * max(column + shift([-1, 1]), 0)  # off by one, oddly
            if i or first_prefix is None:
                written += noise(column)
            written += entry(prefix, len(prefix) if i == 0 and first_prefix is not None else column, name, depth)
        return written

    def sequence(column: int, depth: int) -> list[str]:
        written: list[str] = []
        for _ in range(draw(st.integers(1, 3))):
            form = draw(st.sampled_from(["scalar", "mapping", "alone"]))
            if form == "scalar":
                written += [" " * column + "- " + scalar(), *(lines_below(column) if odd(4) else [])]
            elif form == "mapping":
                written += mapping(column + 2, depth + 1, first_prefix=" " * column + "- ")
            else:
                written += [" " * column + "-", *mapping(column + 2, depth + 1)]
        return written

    head = draw(st.sampled_from(["", "---\n", "# Source: x\n"]))
    body = ["kind: CustomResourceDefinition", "apiVersion: apiextensions.k8s.io/v1", *mapping(0, 0)]
    text = head + "\n".join(body) + draw(st.sampled_from(["\n", "", "\n\n"]))
    if odd(10):
        text = text.replace("\n", "\n\t", 1)
    return text


def _events(text: str) -> list:
    return list(YAML(typ="safe", pure=True).parse(text))


def _compose(text: str):
    composer = Composer(text)
    root = composer.get_single_node()
    return composer, root


def _keys(root) -> list:
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        if isinstance(node, MappingNode):
            for key, value in node.value:
                found.append(key)
                stack.extend((key, value))
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
    return found


def _masked_entries(root, regions: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """The (key start, key end) of each entry of the original graph whose
    value a region is: its key's line ends where the region starts."""
    starts = {start for start, _ in regions}
    found = []
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, MappingNode):
            for key, value in node.value:
                line_end = text.find("\n", key.end_mark)
                if isinstance(key, ScalarNode) and line_end + 1 in starts and key.value in WANTED \
                        and value.start_mark > line_end:
                    found.append((key.start_mark, key.end_mark))
                else:
                    stack.append(value)
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
    return sorted(found)


def _dump(node, masked_keys: set[int]):
    """The graph as data, offsets and styles kept; the value of a key that
    starts at an offset in `masked_keys` as "MASKED"."""
    if isinstance(node, ScalarNode):
        return ("scalar", node.tag, node.value, node.style, node.start_mark, node.end_mark)
    if isinstance(node, SequenceNode):
        return ("seq", node.start_mark, [_dump(item, masked_keys) for item in node.value])
    return ("map", node.start_mark,
            [(_dump(k, masked_keys), "MASKED" if k.start_mark in masked_keys else _dump(v, masked_keys))
             for k, v in node.value])


def _check(text: str, must_read: bool) -> None:
    found = blockkeys.scan(text, WANTED)
    if must_read:
        assert found is not None, text
    if found is None:
        return
    try:
        composer, root = _compose(text)
        events = _events(text)
    except YAMLError:
        return  # libyaml refuses the text: read never asks blockkeys then
    # What composing finds, it says: every mapping's keys plain and distinct,
    # none of them a merge key (a `<<` value is none), no tag, anchor or alias.
    assert composer.plain_keys, text
    assert not any(key.value == "<<" and not key.style for key in _keys(root)), text
    for event in events:
        assert not isinstance(event, AliasEvent), text
        if isinstance(event, (ScalarEvent, CollectionStartEvent)):
            assert event.anchor is None and event.tag is None, text
    # The regions are whole lines, and each is the value of a key asked for.
    entries = _masked_entries(root, found.regions, text)
    assert len(entries) == len(found.regions), (text, found)
    for start, end in found.regions:
        assert start == 0 or text[start - 1] == "\n"
        assert end == len(text) or text[end - 1] == "\n"
    # Composed masked: the same nodes at the same offsets, but the values
    # masked, which read as null.
    masked = blockkeys.masked(text, found.regions)
    assert len(masked) == len(text)
    _, masked_root = _compose(masked)
    keys = {start for start, _ in entries}
    assert _dump(masked_root, keys) == _dump(root, keys), text
    stack = [masked_root]
    while stack:
        node = stack.pop()
        if isinstance(node, MappingNode):
            for key, value in node.value:
                if key.start_mark in keys:
                    assert isinstance(value, ScalarNode) and value.value == "" and not value.style
                stack.append(value)
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
    # What read counts of the text (its parse events, in C) is what
    # composing it whole counts (Composer.events): read takes the first.
    assert Composer(text).raw_parse() - 2 == composer.events


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(clean=True))
def test_clean_documents_are_read_and_agree_with_composing(text):
    _check(text, must_read=True)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(clean=False))
def test_whatever_it_reads_agrees_with_composing(text):
    _check(text, must_read=False)
