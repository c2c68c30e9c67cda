"""read walks a document's nodes for _check_structure only when the text or
the composer says it may find something: a document whose mappings all have
plain, distinct keys (the composer tallies them) and whose text holds no
tag, anchor, merge key, `\\/` escape or infinite number is not walked.

The screen must never let through what the walk refuses, and the parse
events the composer counts must be libyaml's."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import manifest_strategies as ms
from conftest import run_postrender
from postrender.errors import PostrenderError
from postrender.limits import Limits
from postrender.pipeline import read as read_stage
from postrender.pipeline.read import Document, Source, split
from postrender.syntax import nodes as nodes_module
from postrender.syntax.nodes import Composer

# Keys as written: plain words, plain keys go-yaml may read as another value
# (`y` is true, `1` and `0x1` are 1, `~` is null), quoted keys, empty ones.
KEYS = ["a", "b", "name", "y", "Y", "yes", "true", "on", "1", "01", "0x1", "1.0", "~", "null", "-", "''", "'a'",
        '"a"', "'1'", '"y"', "'true'", "a b", "<<x", ".5", "+1", "? a"]


def _document(text: str) -> Document:
    return Document(index=1, text=text, first_line=0, source=Source(None, text), root=None, newline="\n")


def _composed(text: str):
    loader = Composer(text)
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()
    return root, loader


def _walk_refuses(text: str, root) -> bool:
    try:
        read_stage._check_structure(_document(text), root, Limits())
    except PostrenderError:
        return True
    return False


@settings(deadline=None, max_examples=300, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(KEYS), min_size=1, max_size=5), st.lists(st.sampled_from(KEYS), max_size=4))
def test_what_the_walk_refuses_is_never_screened_out(outer, inner):
    lines = [f"{key}: v" if not key.startswith("?") else f"{key}\n: v" for key in outer]
    lines.append("data:")
    lines += [f"  {key}: w" if not key.startswith("?") else f"  {key}\n  : w" for key in inner] or ["  k: w"]
    text = "\n".join(lines) + "\n"
    root, loader = _composed(text)
    if _walk_refuses(text, root):
        assert not _screened_out(text, loader), text


def _screened_out(text: str, loader: Composer) -> bool:
    """read._compose_root's decision not to walk the document again."""
    return loader.plain_keys and loader.plain_text and not read_stage._may_need_a_look(text)


@pytest.mark.parametrize("text", [
    "a: 1\na: 2\n", "'a': 1\na: 2\n", "1: x\n'1': y\n", "y: 1\ntrue: 2\n", "0x1: a\n1: b\n", "~: a\nnull: b\n",
    "data:\n  k: 1\n  k: 2\n", "list:\n- a: 1\n  a: 2\n", "{a: 1, a: 2}\n", "? [a]\n: 1\n",
])
def test_each_key_that_kubernetes_reads_twice_is_walked_and_refused(text):
    root, loader = _composed(text)
    assert not loader.plain_keys
    assert _walk_refuses(text, root)


@pytest.mark.parametrize("learned", [False, True], ids=["keys-learned", "learned-keys-full"])
@pytest.mark.parametrize("text", [
    "zz.q: v\n[1, 2]: v\n", "zz.q: v\n{a: b}: v\n", "[1, 2]: v\nzz.q: v\n", "[1, 2]: v\n",
    "zz.q: v\nzz.r: v\n[1]: v\n", "zz.q: v\n? [x]\n: v\n",
])
def test_a_collection_as_a_key_is_walked_and_refused_whatever_keys_were_learned(text, learned, monkeypatch):
    # The composer learns the plain keys that read as their text (_TEXT_KEYS)
    # up to a bound: past it, a collection key once passed for a plain one
    # in a mapping of two keys, and read failed later with an internal error.
    if learned:
        monkeypatch.setattr(nodes_module, "_TEXT_KEYS_HELD", 0)
    monkeypatch.setattr(nodes_module, "_TEXT_KEYS", set())
    root, loader = _composed(text)
    assert not loader.plain_keys
    assert _walk_refuses(text, root)
    document = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n" + "".join(
        f"  {line}\n" for line in text.splitlines())
    with pytest.raises(PostrenderError, match="a mapping or sequence used as a key"):
        read_stage.read([Source(None, document)], Limits())


@pytest.mark.parametrize("text", ["a: !!str 1\n", "a: &x 1\nb: *x\n", "<<: {a: 1}\n", 'a: "x\\/y"\n', "a: .inf\n"])
def test_what_only_the_text_shows_is_walked(text):
    _root, loader = _composed(text)
    assert loader.plain_keys
    assert not _screened_out(text, loader)


def test_a_plain_document_is_not_walked(monkeypatch):
    walked = []
    monkeypatch.setattr(read_stage, "_check_structure", lambda doc, root, limits: walked.append(doc.index))
    head = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {}\ndata:\n"
    bodies = ["  k: v\n", "  '1': v\n  1: w\n", "  k: !!str v\n", "  <<: {k: v}\n", "  k: &a v\n  j: *a\n",
              "  k: .nan\n"]
    text = "---\n".join(head.format(f"c{i}") + body for i, body in enumerate(bodies))
    read_stage.read([Source(None, text)], Limits())
    # The keys (composer), a tag and a merge key (composer), the text (read).
    assert walked == [2, 3, 4, 5, 6]


@settings(deadline=None, max_examples=60, suppress_health_check=list(HealthCheck))
@given(ms.written(ms.streams()))
def test_the_composer_counts_libyamls_parse_events(drawn):
    _stream, text = drawn
    checked = 0
    for chunk, _ in split(Source(None, text.lstrip("\ufeff"))):
        root, loader = _composed(chunk)
        if root is None:
            continue
        counter = Composer(chunk)
        try:
            events = counter.raw_parse() - 2  # less the stream's start and end
        finally:
            counter.dispose()
        assert loader.events == events
        checked += 1
    assert checked


def test_a_duplicate_key_is_still_refused_where_it_is():
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n  other: w\n  k: x\n"
    result = run_postrender([], text)
    assert result.status == 1 and result.stdout == ""
    assert "document 1 (ConfigMap/a) line 8: duplicate key 'k' in a mapping" in result.stderr


# --- a `!` that cannot start a tag (nodes.may_hold_tags) ---------------------

def _tagged(text: str) -> bool:
    """Whether libyaml gave any node of the text a tag: one written out
    (`!!str`, `!t`, which its composer hands over instead of resolving), or
    the non-specific `!` (resolved as if untagged, but written at the
    node's start, where its start mark is)."""
    root, _ = _composed(text)
    untagged = {nodes_module._DEFAULT_TAGS[kind] for kind in (nodes_module.ScalarNode, nodes_module.SequenceNode,
                                                             nodes_module.MappingNode)}
    return any(node.tag not in untagged or text.startswith("!", node.start_mark)
               for node in nodes_module.unique_nodes(root))


TAGGED = ["a: ! 1\n", "a: !!str 1\n", "- !x 1\n", "!t a: b\n", "? !t a\n: b\n", "{a: !t b}\n", "[a,!t b]\n",
          '{"a":!t b}\n', "--- !t\na: b\n", "a: b\n!t c: d\n", "a:\r\n  !t b\n", "\ufeff!t a: b\n",
          "!<tag:yaml.org,2002:str> a: b\n", "a: !<!> b\n", "- - !t x\n", "a:\n-   !t x\n", "a: &x !t b\n",
          "%TAG !e! tag:example.com,2000:\n--- !e!t\na: b\n", "a: [b, c,\n  !t d]\n", "a: {b: c,\n\t!t d: e}\n"]
UNTAGGED = ["a: |\n  #!/bin/sh\n  [ \"$a\" != b ] && exit 1\n", "a: Hello!\n", "a: b!c\n", "a: '!x'\n",
            'a: "! x"\n', "a: [x!, y!z]\n", "a: b ! c\n", "a!: b\n", "a: if ! true; then\n"]


@pytest.mark.parametrize("text", TAGGED)
def test_a_tag_where_libyaml_reads_one_is_seen(text):
    assert _tagged(text), "the case must hold a tag"
    assert nodes_module.may_hold_tags(text)
    _root, loader = _composed(text)
    assert not _screened_out(text, loader)


@pytest.mark.parametrize("text", UNTAGGED)
def test_a_bang_inside_a_scalar_is_no_tag(text):
    assert not _tagged(text), "the case must hold no tag"
    assert not nodes_module.may_hold_tags(text)
    _root, loader = _composed(text)
    assert _screened_out(text, loader)


def test_many_bangs_are_searched_alike(monkeypatch):
    # Past _WRITTEN_LOOKED_AT the rest of the text is searched by a regex: the
    # same answer, for a tag before that point, after it, or none.
    script = "  [ a != b ]\n" * 100
    for text in ("a: |\n" + script + "b: ok\n", "a: |\n" + script + "b: !t ok\n", "b: !t ok\na: |\n" + script):
        expected = nodes_module.may_hold_tags(text)
        monkeypatch.setattr(nodes_module, "_WRITTEN_LOOKED_AT", 1)
        assert nodes_module.may_hold_tags(text) == expected
        monkeypatch.setattr(nodes_module, "_WRITTEN_LOOKED_AT", 10_000)
        assert nodes_module.may_hold_tags(text) == expected
        monkeypatch.undo()
    assert [nodes_module.may_hold_tags(t) for t in ("a: |\n" + script, "a: |\n" + script + "b: !t ok\n")] == [False, True]


# Pieces of text drawn around a `!`: whatever libyaml reads of them, a
# tagged node is never missed.
_PIECES = ["a", "b: ", "- ", "? ", ": ", "[", "]", "{", "}", ", ", ",", "\n", "\n  ", "\t", " ", "'", '"', "|\n  ",
           ">\n  ", "#", "!", "!!str ", "!t ", "! ", "&x ", "*x", "---\n", "x!", "\r\n", "\ufeff"]


@settings(deadline=None, max_examples=1500, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=12), st.integers(0, 1))
def test_a_tagged_node_is_never_missed(pieces, bang_first):
    text = "".join(pieces)
    if bang_first:
        text = "!" + text
    try:
        tagged = _tagged(text)
    except Exception:  # not YAML libyaml reads as one document: nothing to miss
        return
    if tagged:
        assert nodes_module.may_hold_tags(text), repr(text)


def test_a_script_with_bangs_is_not_walked(monkeypatch):
    walked = []
    monkeypatch.setattr(read_stage, "_check_structure", lambda doc, root, limits: walked.append(doc.index))
    head = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {}\ndata:\n"
    bodies = ["  run.sh: |\n    #!/bin/sh\n    [ \"$A\" != b ] || exit 1\n", "  k: Hello!\n", "  k: ! v\n"]
    text = "---\n".join(head.format(f"c{i}") + body for i, body in enumerate(bodies))
    read_stage.read([Source(None, text)], Limits())
    assert walked == [3]


ANCHORED = ["a: &x 1\n", "- &x 1\n", "&x a: b\n", "{a: &x b}\n", "[a,&x b]\n", "a: !t &x b\n", "--- &x\na: b\n",
            "a: b\n&x c: d\n"]
UNANCHORED = ["a: |\n  make && make install\n", "a: http://x/?a=1&b=2\n", "a: '&x'\n", "a: b&c\n", "a: b & c\n"]


@pytest.mark.parametrize("text", ANCHORED)
def test_an_anchor_where_libyaml_reads_one_is_seen(text):
    assert nodes_module.may_hold_anchors(text)
    _root, loader = _composed(text)
    assert not _screened_out(text, loader)


@pytest.mark.parametrize("text", UNANCHORED)
def test_an_ampersand_inside_a_scalar_is_no_anchor(text):
    assert not nodes_module.may_hold_anchors(text) and not nodes_module.may_hold_tags(text)
    _root, loader = _composed(text)
    assert _screened_out(text, loader)


def _anchored(text: str) -> bool:
    """Whether libyaml read an anchor in the text: some node's properties,
    written from its start mark, hold one."""
    root, _ = _composed(text)
    for node in nodes_module.unique_nodes(root):
        written = _WRITTEN_PROPERTIES.match(text, node.start_mark)
        if written and any(token.startswith("&") for token in written.group().split()):
            return True
    return False


_WRITTEN_PROPERTIES = re.compile(r"(?:(?:!<[^>]*>|[&!][^\s,\[\]{}]*)(?:\s+|$))+")


@settings(deadline=None, max_examples=1500, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(_PIECES + ["&", "& ", "&&"]), min_size=1, max_size=12))
def test_an_anchored_node_is_never_missed(pieces):
    text = "".join(pieces)
    try:
        anchored = _anchored(text)
    except Exception:  # not YAML libyaml reads as one document
        return
    if anchored:
        assert nodes_module.may_hold_anchors(text), repr(text)


MERGED = ["<<: {a: 1}\n", "a:\n  <<: {b: 1}\n", "- <<: {a: 1}\n", "{<<: {a: 1}}\n", "[{b: 2, <<: {a: 1}}]\n",
          "? <<\n: {a: 1}\n", "&x <<: {a: 1}\n", "!!merge <<: {a: 1}\n", "a: {b: 1,\n  <<: {c: 2}}\n"]
UNMERGED = ["a: |\n  cat <<EOF\n  x\n  EOF\n", "a: 'x << y'\n", "a: b<<c\n", "a: 1 << 2\n"]


@pytest.mark.parametrize("text", MERGED)
def test_a_merge_key_where_libyaml_reads_one_is_seen(text):
    assert _merged(text), "the case must hold a merge key"
    assert nodes_module.may_hold_merge_keys(text)
    _root, loader = _composed(text)
    assert not _screened_out(text, loader)


@pytest.mark.parametrize("text", UNMERGED)
def test_a_here_document_is_no_merge_key(text):
    assert not _merged(text), "the case must hold no merge key"
    assert not nodes_module.may_hold_merge_keys(text)
    _root, loader = _composed(text)
    assert _screened_out(text, loader)


def _merged(text: str) -> bool:
    """Whether some mapping libyaml read from the text holds a merge key."""
    root, _ = _composed(text)
    return any(isinstance(node, nodes_module.MappingNode) and any(nodes_module.is_merge_key(key) for key, _ in node.value)
               for node in nodes_module.unique_nodes(root))


@settings(deadline=None, max_examples=1500, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(_PIECES + ["<<", "<<: ", "<< ", "<<: {a: 1}"]), min_size=1, max_size=12))
def test_a_merge_key_is_never_missed(pieces):
    text = "".join(pieces)
    try:
        merged = _merged(text)
    except Exception:  # not YAML libyaml reads as one document
        return
    if merged:
        assert nodes_module.may_hold_merge_keys(text), repr(text)


def test_a_script_with_a_here_document_is_pruned_and_not_walked(monkeypatch):
    walked = []
    monkeypatch.setattr(read_stage, "_check_structure", lambda doc, root, limits: walked.append(doc.index))
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  run.sh: |\n    cat <<EOF >x\n    a\n    EOF\n"
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\ndata:\n  <<: {k: v}\n")
    read_stage.read([Source(None, text)], Limits())
    assert walked == [2]


NONFINITE = ["a: .inf\n", "a: -.Inf\n", "- +.inf\n", "[.nan]\n", "{a: .NaN}\n", "a:\n  .INF\n",
             "a: .inf # c\n", "a: [x,-.inf]\n", "a: .nan"]
FINITE = ["a: logging.info\n", "a: x.nan\n", "a: .nanos\n", "a: x-.inf\n", "a: '.inf'\n", 'a: ".nan"\n',
          "a: |\n  x.inf\n", "a: www.info.com\n"]


def _nonfinite(text: str) -> bool:
    root, _ = _composed(text)
    return any(isinstance(node, nodes_module.ScalarNode) and not node.style
               and node.value in nodes_module.NONFINITE_WORDS for node in nodes_module.unique_nodes(root))


@pytest.mark.parametrize("text", NONFINITE)
def test_an_infinite_number_where_libyaml_reads_one_is_walked_and_refused(text):
    assert _nonfinite(text), "the case must hold one"
    assert nodes_module.may_hold_nonfinite(text)
    root, loader = _composed(text)
    assert not _screened_out(text, loader)
    assert _walk_refuses(text, root)


@pytest.mark.parametrize("text", FINITE)
def test_an_infinite_numbers_word_inside_a_scalar_is_none(text):
    assert not _nonfinite(text), "the case must hold none"
    assert not nodes_module.may_hold_nonfinite(text)
    _root, loader = _composed(text)
    assert _screened_out(text, loader)


@settings(deadline=None, max_examples=1500, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(_PIECES + [".inf", "-.inf", "+.Inf", ".nan", ".info", ".NaN "]), min_size=1,
                max_size=12))
def test_an_infinite_number_is_never_missed(pieces):
    # Tagged (`!!str .inf`), it is the tags' screen that sends it to the walk.
    text = "".join(pieces)
    try:
        nonfinite = _nonfinite(text)
        _root, loader = _composed(text)
    except Exception:  # not YAML libyaml reads as one document
        return
    if nonfinite:
        assert not _screened_out(text, loader), repr(text)


def test_many_infinite_numbers_words_say_yes(monkeypatch):
    text = "a: |\n" + "  x.info\n" * 10
    assert not nodes_module.may_hold_nonfinite(text)
    monkeypatch.setattr(nodes_module, "_WRITTEN_LOOKED_AT", 3)
    assert nodes_module.may_hold_nonfinite(text)
