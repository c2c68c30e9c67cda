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
from postrender.pipeline.read import kubectl as read_kubectl, libyaml as read_libyaml
from postrender.pipeline.read.documents import Document, Source
from postrender.pipeline.read.split import split
from postrender.syntax import nodes as nodes_module
from postrender.syntax.nodes import Composer

# Keys as written: plain words, plain keys go-yaml may read as another value
# (`y` is true, `1` and `0x1` are 1, `~` is null), quoted keys, empty ones.
KEYS = ["a", "b", "name", "y", "Y", "yes", "true", "on", "1", "01", "0x1", "1.0", "~", "null", "-", "''", "'a'",
        '"a"', "'1'", '"y"', "'true'", "a b", "<<x", ".5", "+1", "? a"]


def _document(text: str) -> Document:
    return Document(index=1, text=text, source=Source(None, text), root=None, newline="\n")


def _composed(text: str):
    loader = Composer(text)
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()
    return root, loader


def _walk_refuses(text: str, root) -> bool:
    try:
        read_kubectl._check_structure(_document(text), root, Limits())
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
    """read.libyaml._compose_root's decision not to walk the document again."""
    return loader.plain_keys and loader.plain_text and not read_kubectl._may_need_a_look(text)


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
    monkeypatch.setattr(read_libyaml, "_check_structure", lambda doc, root, limits, checked=None: walked.append(doc.index))
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


def test_keys_that_collide_are_still_refused_where_they_are():
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n  1: w\n  '1': x\n"
    result = run_postrender([], text)
    assert result.status == 1 and result.stdout == ""
    assert "document 1 (ConfigMap/a) line 8: keys `1` and `'1'` of a mapping" in result.stderr


# --- what a value holds is no tag, anchor, merge key or number --------------
#
# A `!`, `&`, `<<`, `.inf` or `.nan` in the text counts only where libyaml
# may start a node (nodes.may_hold_tags and its kin): elsewhere it is inside
# a scalar. Each screen may say yes where there is none, never no where
# there is one; texts drawn from pieces and composed by libyaml check it.


def _tagged(root, text: str) -> bool:
    """A tag libyaml gave a node: one written out (`!!str`, `!t`, which its
    composer hands over instead of resolving), or the non-specific `!`
    (resolved as if untagged, but written at the node's start, where its
    start mark is)."""
    untagged = {nodes_module._DEFAULT_TAGS[kind] for kind in (nodes_module.ScalarNode, nodes_module.SequenceNode,
                                                             nodes_module.MappingNode)}
    return any(node.tag not in untagged or text.startswith("!", _offset(text, node))
               for node in nodes_module.unique_nodes(root))


def _offset(text: str, node) -> int:
    """Where a node starts in `text`: libyaml's marks count from after a
    byte order mark (with one, `? a!`'s empty value seemed to start at the
    `!`, and a tag to be read where none is)."""
    return node.start_mark + text.startswith("\ufeff")


def _anchored(root, text: str) -> bool:
    """An anchor libyaml read: some node's properties, written from its
    start mark, hold one."""
    for node in nodes_module.unique_nodes(root):
        written = _WRITTEN_PROPERTIES.match(text, _offset(text, node))
        if written and any(token.startswith("&") for token in written.group().split()):
            return True
    return False


_WRITTEN_PROPERTIES = re.compile(r"(?:(?:!<[^>]*>|[&!][^\s,\[\]{}]*)(?:\s+|$))+")


def _merged(root, text: str) -> bool:
    """A mapping libyaml read holds a merge key."""
    return any(isinstance(node, nodes_module.MappingNode) and any(nodes_module.is_merge_key(key) for key, _ in node.value)
               for node in nodes_module.unique_nodes(root))


def _nonfinite(root, text: str) -> bool:
    """A plain scalar libyaml read is an infinite or NaN number's word."""
    return any(isinstance(node, nodes_module.ScalarNode) and not node.style
               and node.value in nodes_module.NONFINITE_WORDS for node in nodes_module.unique_nodes(root))


# Each screen: what libyaml reads, the screen, texts that hold one and texts
# that hold none, and pieces drawn with the shared ones (_PIECES).
_SCREENS = {
    "tag": (_tagged, nodes_module.may_hold_tags, [
        "a: ! 1\n", "a: !!str 1\n", "- !x 1\n", "!t a: b\n", "? !t a\n: b\n", "{a: !t b}\n", "[a,!t b]\n",
        '{"a":!t b}\n', "--- !t\na: b\n", "a: b\n!t c: d\n", "a:\r\n  !t b\n", "\ufeff!t a: b\n",
        "!<tag:yaml.org,2002:str> a: b\n", "a: !<!> b\n", "- - !t x\n", "a:\n-   !t x\n", "a: &x !t b\n",
        "%TAG !e! tag:example.com,2000:\n--- !e!t\na: b\n", "a: [b, c,\n  !t d]\n", "a: {b: c,\n\t!t d: e}\n",
        "a: [[ ! b ]]\n", "{a: [ ! b]}\n", "a: [x, [ ! b]]\n", "- [ {b: ! c} ]\n",
    ], [
        "a: |\n  #!/bin/sh\n  [ \"$a\" != b ] && exit 1\n", "a: Hello!\n", "a: b!c\n", "a: '!x'\n", 'a: "! x"\n',
        "a: [x!, y!z]\n", "a: b ! c\n", "a!: b\n", "a: if ! true; then\n",
        "a: |\n  if [ ! -f x ]; then\n    until [[ ! -e y ]]; do :; done\n  fi\n", "x: if [ ! -f x ]\n",
        # After a byte order mark libyaml's marks are one short: the empty
        # value seemed to start at the key's `!` (hypothesis found it).
        "\ufeff? a!",
    ], ["!", "if [ ", "x [{ "]),
    "anchor": (_anchored, nodes_module.may_hold_anchors, [
        "a: &x 1\n", "- &x 1\n", "&x a: b\n", "{a: &x b}\n", "[a,&x b]\n", "a: !t &x b\n", "--- &x\na: b\n",
        "a: b\n&x c: d\n",
    ], [
        "a: |\n  make && make install\n", "a: http://x/?a=1&b=2\n", "a: '&x'\n", "a: b&c\n", "a: b & c\n",
    ], ["&", "& ", "&&", "if [ "]),
    "merge key": (_merged, nodes_module.may_hold_merge_keys, [
        "<<: {a: 1}\n", "a:\n  <<: {b: 1}\n", "- <<: {a: 1}\n", "{<<: {a: 1}}\n", "[{b: 2, <<: {a: 1}}]\n",
        "? <<\n: {a: 1}\n", "&x <<: {a: 1}\n", "!!merge <<: {a: 1}\n", "a: {b: 1,\n  <<: {c: 2}}\n",
    ], [
        "a: |\n  cat <<EOF\n  x\n  EOF\n", "a: 'x << y'\n", "a: b<<c\n", "a: 1 << 2\n",
    ], ["<<", "<<: ", "<< ", "<<: {a: 1}"]),
    "infinite number": (_nonfinite, nodes_module.may_hold_nonfinite, [
        "a: .inf\n", "a: -.Inf\n", "- +.inf\n", "[.nan]\n", "{a: .NaN}\n", "a:\n  .INF\n", "a: .inf # c\n",
        "a: [x,-.inf]\n", "a: .nan", "a: [[ .inf ]]\n",
    ], [
        "a: logging.info\n", "a: x.nan\n", "a: .nanos\n", "a: x-.inf\n", "a: '.inf'\n", 'a: ".nan"\n',
        "a: |\n  x.inf\n", "a: www.info.com\n", "a: if [ .inf ]\n",
    ], [".inf", "-.inf", "+.Inf", ".nan", ".info", ".NaN ", "if [ "]),
}


@pytest.mark.parametrize("screen, text", [(name, text) for name, (_, _, held, _, _) in _SCREENS.items()
                                          for text in held])
def test_what_libyaml_reads_is_seen_and_walked(screen, text):
    reads, says, _, _, _ = _SCREENS[screen]
    root, loader = _composed(text)
    assert reads(root, text), "the case must hold one"
    assert says(text)
    assert not _screened_out(text, loader)


@pytest.mark.parametrize("screen, text", [(name, text) for name, (_, _, _, none, _) in _SCREENS.items()
                                          for text in none])
def test_what_a_value_holds_is_none(screen, text):
    reads, says, _, _, _ = _SCREENS[screen]
    root, loader = _composed(text)
    assert not reads(root, text), "the case must hold none"
    assert not says(text)
    assert _screened_out(text, loader)


@pytest.mark.parametrize("text", _SCREENS["infinite number"][2])
def test_an_infinite_number_the_screen_sees_is_refused(text):
    root, _ = _composed(text)
    assert _walk_refuses(text, root)


# Pieces of text drawn around what each screen looks for.
_PIECES = ["a", "b: ", "- ", "? ", ": ", "[", "]", "{", "}", ", ", ",", "\n", "\n  ", "\t", " ", "'", '"', "|\n  ",
           ">\n  ", "#", "!", "!!str ", "!t ", "! ", "&x ", "*x", "---\n", "x!", "\r\n", "\ufeff"]


def _drawn(screen: str, data) -> str:
    """A text drawn of pieces around what the screen looks for."""
    return "".join(data.draw(st.lists(st.sampled_from(_PIECES + _SCREENS[screen][4]), min_size=1, max_size=12)))


def _held(screen: str, text: str):
    """(whether libyaml's graph of the text holds what the screen looks
    for, the loader); (False, None) for a text libyaml does not read as one
    document: nothing to miss."""
    try:
        root, loader = _composed(text)
        return _SCREENS[screen][0](root, text), loader
    except Exception:
        return False, None


@pytest.mark.parametrize("screen", _SCREENS)
@settings(deadline=None, max_examples=1500, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_what_libyaml_reads_is_never_missed(screen, data):
    text = _drawn(screen, data)
    held, loader = _held(screen, text)
    if held:
        # A tagged `!!str .inf` is sent to the walk by the tags' screen:
        # what counts is the decision, the composer's and the text's.
        assert not _screened_out(text, loader), repr(text)
        if screen != "infinite number":
            assert _SCREENS[screen][1](text), repr(text)


@pytest.mark.parametrize("screen, text, yes", [
    ("tag", "a: |\n" + "  [ a != b ]\n" * 100, False), ("tag", "a: |\n" + "  [ a != b ]\n" * 100 + "b: !t ok\n", True),
    ("tag", "b: !t ok\na: |\n" + "  [ a != b ]\n" * 100, True),
    ("anchor", "a: |\n" + "  a && b\n" * 100 + "b: &x ok\n", True), ("anchor", "a: |\n" + "  a && b\n" * 100, False),
])
def test_past_the_first_few_the_rest_is_searched_alike(screen, text, yes, monkeypatch):
    # Past _WRITTEN_LOOKED_AT the rest of the text is searched by a regex.
    says = _SCREENS[screen][1]
    for looked_at in (1, 10_000):
        monkeypatch.setattr(nodes_module, "_WRITTEN_LOOKED_AT", looked_at)
        assert says(text) is yes


@pytest.mark.parametrize("screen, decoy, held", [
    ("tag", "x! ", "b: !!str 1\n"), ("tag", "[ a != b ] ", "b: [!t x]\n"), ("anchor", "a && ", "b: &x 1\n"),
    ("anchor", "x& ", "b:\n- - &x 1\n"), ("merge key", "<", "b: {<<: {a: 1}}\n"), ("merge key", "cat <<EOF ", "<<: {a: 1}\n"),
])
@pytest.mark.parametrize("looked_at", [1, 2, 5, None])
def test_one_held_after_any_number_of_others_is_seen(screen, decoy, held, looked_at, monkeypatch):
    # Past _WRITTEN_LOOKED_AT occurrences inside scalars, the first that
    # stands where a node starts is searched for by the regex: it must find
    # that one too, the one right after those looked at among them.
    says = _SCREENS[screen][1]
    if looked_at is not None:
        monkeypatch.setattr(nodes_module, "_WRITTEN_LOOKED_AT", looked_at)
    for decoys in range(nodes_module._WRITTEN_LOOKED_AT + 3):
        text = "a: '" + decoy * decoys + "'\n" + held
        assert _SCREENS[screen][0](_composed(text)[0], text), "the case must hold one"
        assert says(text), (decoys, text)


@pytest.mark.parametrize("screen", [screen for screen in _SCREENS if screen != "infinite number"])
@settings(deadline=None, max_examples=600, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_what_libyaml_reads_is_never_missed_past_the_first_few(screen, data, monkeypatch):
    # As test_what_libyaml_reads_is_never_missed, after a comment holding as
    # many of each as are looked at one by one: what the drawn text holds is
    # left to the regex, its first one included.
    looked_at = data.draw(st.sampled_from([1, 2]))
    monkeypatch.setattr(nodes_module, "_WRITTEN_LOOKED_AT", looked_at)
    text = "# " + "x! x& x<< " * looked_at + "\n" + _drawn(screen, data)
    if _held(screen, text)[0]:
        assert _SCREENS[screen][1](text), repr(text)


def test_past_the_first_few_infinite_numbers_words_it_says_yes(monkeypatch):
    text = "a: |\n" + "  x.info\n" * 10
    assert not nodes_module.may_hold_nonfinite(text)
    monkeypatch.setattr(nodes_module, "_WRITTEN_LOOKED_AT", 3)
    assert nodes_module.may_hold_nonfinite(text)


@pytest.mark.parametrize("script, walked", [
    ("  run.sh: |\n    #!/bin/sh\n    [ \"$A\" != b ] || exit 1\n    cat <<EOF >x\n    a && b\n    EOF\n", False),
    ("  k: Hello! logging.info\n", False), ("  k: ! v\n", True), ("  <<: {k: v}\n", True), ("  k: &a v\n", True),
])
def test_a_script_is_not_walked(script, walked, monkeypatch):
    seen = []
    monkeypatch.setattr(read_libyaml, "_check_structure", lambda doc, root, limits, checked=None: seen.append(doc.index))
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n" + script
    read_stage.read([Source(None, text)], Limits())
    assert seen == ([1] if walked else [])


# A reviewer's three renders: each holds, in an annotation, as many of a
# tag's, an anchor's or a merge key's characters as the screen looks at one
# by one, and then one that is real. A render must decide as it does with
# one fewer of them, where the real one is looked at.
_CONFIG = "kind: ConfigMap\napiVersion: v1\nmetadata: {name: cfg}\ndata: {a: b}\n---\n"
_AFTER_MANY = {
    "merge key": ("<", 1, _CONFIG + """kind: Deployment
apiVersion: apps/v1
metadata: {name: d, annotations: {n: "DECOYS"}}
spec:
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers: [{name: c, image: x}]
      volumes:
      - {name: v, configMap: {<<: {name: cfg}}}
      - {name: w, configMap: {name: cfg}}
"""),
    "tag": ("!", 0, """kind: Deployment
apiVersion: apps/v1
metadata: {name: d, annotations: {n: "DECOYS"}}
spec:
  replicas: !!int abc
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers: [{name: c, image: x}]
"""),
    "anchor": ("&", 0, _CONFIG + """kind: Deployment
apiVersion: apps/v1
metadata: {name: d, annotations: {n: "DECOYS"}}
spec:
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d, cm: &n cfg}}
    spec:
      containers: [{name: c, image: x}]
      volumes: [{name: v, configMap: {name: *n}}]
"""),
}


@pytest.mark.parametrize("screen", _AFTER_MANY)
def test_a_render_after_many_decides_as_after_fewer(screen):
    decoy, extra, template = _AFTER_MANY[screen]
    # `<<` is two characters: n + 1 of them are n occurrences.
    many = template.replace("DECOYS", decoy * (nodes_module._WRITTEN_LOOKED_AT + extra))
    fewer = template.replace("DECOYS", decoy * (nodes_module._WRITTEN_LOOKED_AT + extra - 1))
    after_many, after_fewer = run_postrender([], many), run_postrender([], fewer)
    assert (after_many.status, after_many.stderr) == (after_fewer.status, after_fewer.stderr)
    assert after_many.stdout.replace(decoy + '"', '"') == after_fewer.stdout
    if screen == "merge key":
        assert after_many.status == 0 and "configMap: {<<: {name: cfg-" in after_many.stdout
    else:
        assert after_many.status == 1 and after_many.stdout == ""
