"""read walks a document's nodes for _check_structure only when the text or
the composer says it may find something: a document whose mappings all have
plain, distinct keys (the composer tallies them) and whose text holds no
tag, anchor, merge key, `\\/` escape or infinite number is not walked.

The screen must never let through what the walk refuses, and the parse
events the composer counts must be libyaml's."""

from __future__ import annotations

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
