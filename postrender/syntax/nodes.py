"""Read-only helpers over composed YAML nodes.

postrender never constructs Python objects from the whole stream: it composes
node graphs with libyaml (fast, with source positions) and reads only the
fields it needs. Aliases share node objects, so every generic walk here is
cycle-safe and never expands an alias twice.

Positions are offsets. The node classes are postrender's own, and libyaml's
composer builds them directly (Composer): each node holds its tag, its value
and the offsets of its start and end in the document's text, where ruamel's
nodes hold two libyaml `Mark` objects and slots postrender never reads. A
Mark costs about 96 bytes and every node had two: kept until the output is
written, they were a third of a render's memory, and converting them
afterwards took a walk of every node. Lines and columns, which few need,
are worked out from the text (`line_starts`, `column`).
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import struct
from array import array
from collections.abc import Callable, Collection, Iterable, Iterator
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING

import _ruamel_yaml
from ruamel.yaml.cyaml import CParser

from ..printable import quoted
from ..errors import PostrenderError
from ..lazyre import LazyPattern

if TYPE_CHECKING:
    from .runs import SortedRuns

__all__ = [
    "Composer",
    "MappingNode",
    "Node",
    "ScalarNode",
    "SequenceNode",
    "NotReadable",
    "entries",
    "get",
    "get_str",
    "is_null",
    "json_key",
    "json_value",
    "plain_is_string",
    "plain_is_text",
    "plain_json_key",
    "scalar_value",
    "scalars",
    "shared_int",
    "string_map",
    "string_value",
    "unique_nodes",
]

YAML_TAG_PREFIX = "tag:yaml.org,2002:"
STR_TAG = YAML_TAG_PREFIX + "str"
BINARY_TAG = YAML_TAG_PREFIX + "binary"
MERGE_TAG = YAML_TAG_PREFIX + "merge"
# pipeline/read sets this as the style of a plain scalar with an explicit string tag
# (`!!str 1`): like a quoted scalar it is a string whatever it looks like.
EXPLICIT_STR_STYLE = "!"
MERGE_KEY = "<<"


# Offsets and short texts are shared between nodes. libyaml gives every
# node its own copies, yet most keys (`name`, `metadata`) and many values
# (labels, kinds, versions) recur in every document, and so do the offsets
# into each document's text. One object for each: a large render's peak
# memory is a sixth lower (bench N=5000: 272 -> 226 MiB). Texts are interned
# below a length past which they are mostly unique (certificates, scripts),
# where interning would only add a table entry; offsets from a table made
# once (about 0.5 MiB), past which documents are rare.
#
# The texts are shared through a table of this run's own, not sys.intern:
# the interpreter's table keeps an entry for every interned text still
# alive, and names, hashes and label values that each object holds for the
# whole run are mostly unique (100,000 tiny ConfigMaps: 3.7 MiB of table).
# This one is emptied once it holds more than _SHARED_TEXTS_HELD texts,
# where a document or a List's item is composed and where the composer
# lets nodes go (a mapping of 500,000 keys, folded or set aside), so that
# it never holds the texts of nodes let go: the recurring keys are soon
# back in it. Not as each scalar comes: a check there costs render +0.4%
# instructions at N=1000.
_SHARED_OFFSETS = list(range(1 << 14))
_SHARED_TEXT_BELOW = 64
_SHARED_TEXTS_HELD = 1 << 12
_BOUND_EVERY = 1 << 10  # entries and items a composer lets go between two checks
# The table starts from the texts the stages compare most, as the
# interpreter's own objects (code constants are interned): a key that is
# the same object as the constant it is compared with compares at once
# (100,000 tiny ConfigMaps: +0.8% instructions when it started empty).
_COMPARED_TEXTS = {text: text for text in (
    "apiVersion", "kind", "metadata", "name", "namespace", "generateName", "labels", "annotations", "data",
    "binaryData", "stringData", "type", "immutable", "items", "spec", "template", "selector", "containers",
    "initContainers", "env", "envFrom", "valueFrom", "configMapKeyRef", "secretKeyRef", "configMapRef",
    "secretRef", "volumes", "configMap", "secret", "secretName", "projected", "sources", "key", "optional",
    "imagePullSecrets", "v1", "List", "ConfigMap", "Secret",
)}
_shared_texts: dict[str, str] = dict(_COMPARED_TEXTS)
_share = _shared_texts.setdefault


def _bound_shared_texts() -> None:
    if len(_shared_texts) > _SHARED_TEXTS_HELD:
        _shared_texts.clear()
        _shared_texts.update(_COMPARED_TEXTS)
_SHARED_BELOW = len(_SHARED_OFFSETS)


# Offsets below this are the one shared int object each (_SHARED_OFFSETS).
SHARED_OFFSETS_BELOW = _SHARED_BELOW


def shared_int(value: int) -> int:
    """The one object for a small non-negative int (as offsets are shared):
    for numbers every document keeps, its index and first line."""
    return _SHARED_OFFSETS[value] if value < _SHARED_BELOW else value


def _offset(mark: object) -> int:
    """A position as an offset, shared where it can be: libyaml's composer
    gives a Mark, postrender's own code an int."""
    index: int = mark if type(mark) is int else mark.index  # type: ignore[attr-defined]
    return _SHARED_OFFSETS[index] if index < _SHARED_BELOW else index


class Node:
    """A composed YAML node: its tag (as written, or the default one), its
    value, and where it starts and ends in its document's text (offsets).

    libyaml's composer makes them with its `Mark`s, through
    _composed_scalar and its kin (Composer); code that makes a node calls
    the class, with offsets.
    """

    __slots__ = ("tag", "value", "start_mark")

    tag: str
    value: object
    start_mark: int
    end_mark: int


class ScalarNode(Node):
    """`value` is the scalar's text; `style` is "" (plain), "'", '"', "|"
    or ">" (pipeline/read sets EXPLICIT_STR_STYLE on a plain `!!str` scalar)."""

    __slots__ = ("end_mark", "style")

    value: str

    def __init__(self, tag: str, value: str, start_mark: object, end_mark: object, style: str | None = None) -> None:
        # _offset, written out.
        if type(start_mark) is not int:
            start_mark, end_mark = start_mark.index, end_mark.index  # type: ignore[attr-defined]
        if end_mark < _SHARED_BELOW:  # type: ignore[operator]
            start_mark, end_mark = _SHARED_OFFSETS[start_mark], _SHARED_OFFSETS[end_mark]  # type: ignore[index]
        self.tag = tag
        self.value = _share(value, value) if len(value) < _SHARED_TEXT_BELOW else value
        self.start_mark = start_mark  # type: ignore[assignment]
        self.end_mark = end_mark  # type: ignore[assignment]
        self.style = style


def _composed_scalar(tag: str, value: str, start_mark: object, end_mark: object, style: str | None,
                     new: Callable[[type], object] = object.__new__) -> ScalarNode:
    """ScalarNode(...) for libyaml's composer (Composer), which gives Marks.

    A function, as are the two below: the composer calls it directly,
    where it calls a class through type.__call__ and then its __init__ with
    the arguments copied behind the new instance (render -1.3%
    instructions at N=1000 for the three)."""
    node: ScalarNode = new(ScalarNode)  # type: ignore[assignment]
    start: int = start_mark.index  # type: ignore[attr-defined]
    end: int = end_mark.index  # type: ignore[attr-defined]
    if end < _SHARED_BELOW:
        start, end = _SHARED_OFFSETS[start], _SHARED_OFFSETS[end]
    node.tag = tag or _UNTAGGED  # untagged: "" (Composer.resolve)
    node.value = _share(value, value) if len(value) < _SHARED_TEXT_BELOW else value
    node.start_mark = start
    node.end_mark = end
    node.style = style
    return node


class _Collection(Node):
    """libyaml's composer makes a collection before its content and gives
    its end once the content is composed, by assigning `end_mark`."""

    __slots__ = ("_end", "flow_style")

    def __init__(self, tag: str, value: list, start_mark: object, end_mark: object | None,
                 flow_style: bool | None = None) -> None:
        # _offset, written out: the composer gives a Mark, and no end yet.
        index: int = start_mark if type(start_mark) is int else start_mark.index  # type: ignore[attr-defined]
        self.tag = tag
        self.value = value
        self.start_mark = _SHARED_OFFSETS[index] if index < _SHARED_BELOW else index
        self._end = -1 if end_mark is None else _offset(end_mark)
        self.flow_style = flow_style

    @property
    def end_mark(self) -> int:
        # Assigned through each kind's setter, which also tells the Composer
        # what it composed.
        return self._end


class SequenceNode(_Collection):
    """`value` is the list of items."""

    __slots__ = ()

    value: list[Node]

    @_Collection.end_mark.setter
    def end_mark(self, mark: object) -> None:
        # _offset, written out: the composer gives every collection its end
        # (a Mark; code that moves a node, an int: shift_offsets, for a
        # document opening with a byte order mark, which pays the exception).
        try:
            index: int = mark.index  # type: ignore[attr-defined]
        except AttributeError:
            index = mark  # type: ignore[assignment]
        self._end = _SHARED_OFFSETS[index] if index < _SHARED_BELOW else index
        composing = _composing
        if composing is not None:
            composing.events += 1 + len(self.value)  # its end, and each item


class MappingNode(_Collection):
    """`value` is the list of (key, value) pairs, in order; `merge` holds
    what get() uses to find a key (see _key_index)."""

    __slots__ = ("merge",)

    value: list[tuple[Node, Node]]

    def __init__(self, tag: str, value: list, start_mark: object, end_mark: object | None,
                 flow_style: bool | None = None) -> None:
        _Collection.__init__(self, tag, value, start_mark, end_mark, flow_style)
        self.merge: dict[str, Node] | None = None

    @_Collection.end_mark.setter
    def end_mark(self, mark: object) -> None:
        try:  # as SequenceNode's
            index: int = mark.index  # type: ignore[attr-defined]
        except AttributeError:
            index = mark  # type: ignore[assignment]
        self._end = _SHARED_OFFSETS[index] if index < _SHARED_BELOW else index
        composing = _composing
        if composing is None:
            return
        # The composer gives the end once the pairs are all there.
        pairs = self.value
        count = len(pairs)  # (asked once: this runs for every mapping)
        composing.events += 1 + 2 * count  # its end, each key and each value
        if count < _INDEX_FROM:
            # How get() may search it (decided per document, from its
            # text), so that most mappings need no _key_index.
            small = composing.small_mappings
            if small is not None:
                self.merge = small
        if composing.plain_keys:
            # Whether every key surely reads as its own text and no two are
            # written alike, so that no two keys reach Kubernetes as one:
            # quoted keys, and plain ones that can read as nothing but their
            # text (plain_is_text). Here, not in a function of its own: it
            # is asked of every mapping, and most have only known keys.
            try:
                if count < 3:
                    # Most mappings (labels, selectors, a reference): one
                    # key or two, compared without a set.
                    if not count:
                        return
                    first = pairs[0][0].value
                    if count == 1:
                        known = first in _TEXT_KEYS
                    else:
                        second = pairs[1][0].value
                        if first == second:
                            composing.plain_keys = False
                            return
                        known = first in _TEXT_KEYS and second in _TEXT_KEYS
                    if not known and not _plain_keys(pairs):
                        composing.plain_keys = False
                    return
                texts = set(map(_VALUE, map(_FIRST, pairs)))
            except TypeError:  # a collection as a key: its value is a list
                composing.plain_keys = False
                return
            if len(texts) != count or not texts <= _TEXT_KEYS and not _plain_keys(pairs):
                composing.plain_keys = False


_DEFAULT_TAGS = {
    ScalarNode: STR_TAG,
    SequenceNode: YAML_TAG_PREFIX + "seq",
    MappingNode: YAML_TAG_PREFIX + "map",
}


# The tag of every scalar written without one (what the makers give for
# Composer.resolve's ""): told apart from a written `!!str` by identity, as
# libyaml makes a new text for each tag it reads.
_UNTAGGED = _DEFAULT_TAGS[ScalarNode]


def _collection_maker(kind: type[_Collection]) -> Callable[..., _Collection]:
    """SequenceNode(...) or MappingNode(...) for libyaml's composer, which
    gives the end once the content is composed: see _composed_scalar. One
    function made for each class, which the composer calls directly."""
    mapping = kind is MappingNode
    untagged = _DEFAULT_TAGS[kind]

    def composed(tag: str, value: list, start_mark: object, end_mark: None, flow_style: bool | None,
                 new: Callable[[type], object] = object.__new__) -> _Collection:
        node: _Collection = new(kind)  # type: ignore[assignment]
        index: int = start_mark.index  # type: ignore[attr-defined]
        node.tag = tag or untagged  # untagged: "" (Composer.resolve)
        node.value = value
        node.start_mark = _SHARED_OFFSETS[index] if index < _SHARED_BELOW else index
        node._end = -1
        node.flow_style = flow_style
        if mapping:
            node.merge = None  # type: ignore[attr-defined]
        return node

    return composed


_composed_sequence = _collection_maker(SequenceNode)
_composed_mapping = _collection_maker(MappingNode)


class _StubPlace:
    """A stub's place: its start, and its length where a node holds its end.

    A stub far into a document (a List's item) has a start and an end past
    the shared offsets, an int object each; its length is most often a
    shared one (100,000 tiny ConfigMaps as one List: 3.2 MB of ends). No
    stub is composed into, so no composer is told of its end."""

    __slots__ = ()

    start_mark: int
    _end: int

    def __init__(self, tag: str, value: list, start_mark: int, end_mark: int,
                 flow_style: bool | None = None) -> None:
        length = end_mark - start_mark
        self.tag = tag
        self.value = value
        self.start_mark = _SHARED_OFFSETS[start_mark] if start_mark < _SHARED_BELOW else start_mark
        self._end = _SHARED_OFFSETS[length] if 0 <= length < _SHARED_BELOW else length
        self.flow_style = flow_style

    @property
    def end_mark(self) -> int:
        return self.start_mark + self._end

    @end_mark.setter
    def end_mark(self, end: int) -> None:
        # (shift_offsets moves the start first: the length is taken from it)
        length = end - self.start_mark
        self._end = _SHARED_OFFSETS[length] if 0 <= length < _SHARED_BELOW else length


class StubMapping(_StubPlace, MappingNode):
    """What syntax/prune.py leaves where a mapping no later stage reads was:
    empty, though the text holds its entries, so no edit may give it keys
    (syntax/edit.py refuses to)."""

    __slots__ = ()

    def __init__(self, tag: str, value: list, start_mark: int, end_mark: int,
                 flow_style: bool | None = None) -> None:
        _StubPlace.__init__(self, tag, value, start_mark, end_mark, flow_style)
        self.merge = None


class StubSequence(_StubPlace, SequenceNode):
    """What syntax/prune.py leaves where a sequence no later stage reads was."""

    __slots__ = ()


STUBS = (StubMapping, StubSequence)


def _plain_keys(pairs: list[tuple[Node, Node]]) -> bool:
    """Whether every key is quoted or a plain one that reads as its text,
    learning the texts that do (_TEXT_KEYS)."""
    for key, _ in pairs:
        if key.__class__ is not ScalarNode:
            # A collection as a key (`[1, 2]: v`): the whole-graph checks
            # refuse it. Its value is a list, which plain_is_text must not
            # be asked about: it would say yes once _TEXT_KEYS is full.
            return False
        text = key.value
        if plain_is_text(text):  # type: ignore[arg-type]
            if len(_TEXT_KEYS) < _TEXT_KEYS_HELD and len(text) < _SHARED_TEXT_BELOW:  # type: ignore[arg-type]
                _TEXT_KEYS.add(text)  # type: ignore[arg-type]
        elif not key.style:  # type: ignore[attr-defined]
            return False
    return True


# Key texts plain_is_text found to read as themselves: the same keys
# (`name`, `metadata`, `labels`) recur in every document, and a mapping
# whose keys are all known needs no key looked at (a set's subset test, in
# C). Held up to a bound, as unique keys (a ConfigMap's) would only add
# entries.
_TEXT_KEYS: set[str] = set()
_TEXT_KEYS_HELD = 1024
_FIRST = itemgetter(0)
_VALUE = attrgetter("value")


def default_tag(kind: type) -> str:
    """The tag of a node of this kind written without one (the one object)."""
    return _DEFAULT_TAGS[kind]

# The Composer composing now (None between documents): the collections'
# end_mark setters report to it.
_composing: Composer | None = None

# The node classes ruamel.yaml.clib's composer makes: it looks them up by
# name in its module on each node, so Composer puts postrender's makers in
# their place while it composes, and ruamel's classes back after (ruamel's own loaders
# use that module too). tests/unit/syntax/test_offsets.py checks both. A
# program that runs ruamel's C loaders in another thread while postrender
# composes could get postrender's nodes: postrender itself composes in one
# thread, and a library caller must do the same.
_RUAMEL_NODES = (_ruamel_yaml.ScalarNode, _ruamel_yaml.SequenceNode, _ruamel_yaml.MappingNode)
_OUR_NODES = (_composed_scalar, _composed_sequence, _composed_mapping)


def may_hold_tags(text: str) -> bool:
    """Whether a node of the text may be tagged (`!!str 1`, `!foo`, a
    non-specific `! 1`): some `!` stands where a node may start
    (_may_start_a_node). Elsewhere a `!` is inside a scalar: `#!/bin/sh`,
    `[ "$a" != b ]`, `Hello!`. A document whose `!`s all stand elsewhere is
    read as one without any: no tag checks, and a large one may be
    composed in parts (read.compose._in_parts)."""
    return "!" in text and (_may_start_a_node(text, "!") or _may_follow_properties(text, "!"))


def may_hold_anchors(text: str) -> bool:
    """Whether a node of the text may have an anchor (`&a x`), and so
    others be aliases of it: as may_hold_tags, for `&`, which a scalar holds
    as often (`a && b`, a URL's query)."""
    return "&" in text and (_may_start_a_node(text, "&") or _may_follow_properties(text, "&"))


def may_hold_aliases(text: str) -> bool:
    """Whether a node of the text may be an alias (`*a`): a `*` where a node
    may start, as may_hold_anchors (a glob, a wildcard host, `a * b`)."""
    return "*" in text and _may_start_a_node(text, "*")


def may_hold_merge_keys(text: str) -> bool:
    """Whether a mapping of the text may hold a merge key: a plain `<<`
    where a node may start, as may_hold_tags (a tagged one is a tag). A
    shell script's here-document (`cat <<EOF`) is none."""
    return MERGE_KEY in text and (_may_start_a_node(text, MERGE_KEY) or _may_follow_properties(text, MERGE_KEY))


def may_hold_nonfinite(text: str) -> bool:
    """Whether a plain scalar of the text may be an infinite or NaN number
    (`.inf`, `-.Inf`, `.nan`), which JSON cannot hold: one of their words
    where a node may start (_may_start_a_node), a sign before it, and
    ending where a plain scalar may end. `logging.info`, `.nanos` and
    `x-.inf` are none. Past _WRITTEN_LOOKED_AT such words it says yes."""
    first = _NONFINITE_WRITTEN.search(text)  # most texts hold none: one search
    if first is None:
        return False
    for looked_at, match in enumerate(_NONFINITE_WRITTEN.finditer(text, first.start())):
        if looked_at == _WRITTEN_LOOKED_AT:
            return True
        end = match.end()
        if end < len(text) and text[end] not in _AFTER_A_PLAIN_SCALAR:
            continue
        start = match.start()
        if start > 0 and text[start - 1] in "+-":
            start -= 1
        if _at_a_node_start(text, start):
            return True
    return False


def anchors_are_values_within(text: str, spans: Iterable[tuple[int, int]]) -> bool:
    """Whether every `&` and `*` of the text that may start a node (an
    anchor, an alias: as may_hold_anchors reads the text) stands inside one
    of `spans` (start, end offsets), right after a `:` and spaces: a block
    mapping's value there, never a key, an item or a flow collection's
    node. It may say no where there is none of those (a `&` in a quoted
    value outside the spans), never yes where one stands elsewhere."""
    at = 0
    for start, end in sorted(spans):
        # A property at a span's start is outside it: a key's.
        if _A_PROPERTY_STARTING.search(text, _lead(text, at), start + 1) is not None:
            return False
        if _A_PROPERTY_NOT_A_VALUE.search(text, _lead(text, start), end) is not None:
            return False
        at = max(at, end)
    return _A_PROPERTY_STARTING.search(text, _lead(text, at)) is None


def anchors_may_all_be_values(text: str) -> bool:
    """Whether every `&` and `*` of the text that may start a node stands
    right after a `:` (a mapping's value), as anchors_are_values_within
    asks within its spans: a screen of the whole text, at C speed, before
    a document is read in parts for it."""
    return _A_PROPERTY_NOT_A_VALUE.search(text) is None


def _lead(text: str, at: int) -> int:
    """Where a search for what stands at `at` starts (anchors_are_values_within):
    the patterns hold what stands before a property, an indicator or a line
    break and spaces, so at the line break before the spaces that lead to
    `at`, or else at the character before it."""
    line = text.rfind("\n", 0, at)
    return max(line, 0) if not text[line + 1:at].strip(" \t") else max(at - 1, 0)


def flow_openings(text: str, enough: int) -> int:
    """How many of the text's `[` and `{` may open a flow collection: those
    standing where a node may start (_at_a_node_start), counted up to
    `enough`. The others are a scalar's (`e.g. {{x}}`, `[0-9]+`). Without
    tags and anchors, which may stand between an indicator and a bracket,
    a document cannot nest deeper in flow collections than this."""
    count = 0
    for bracket in "[{":
        at = text.find(bracket)
        while at >= 0:
            if _at_a_node_start(text, at):
                count += 1
                if count >= enough:
                    return count
            at = text.find(bracket, at + 1)
    return count


def _may_follow_properties(text: str, written: str) -> bool:
    """Whether `written` may follow a tag or an anchor (`&a !t x`, `!t &a
    x`, `&a <<: x`): where the text may hold either, this says yes, rather
    than tell a property's end from a scalar's text."""
    return any(indicator in text and _may_start_a_node(text, indicator) for indicator in "!&" if indicator != written)


def _may_start_a_node(text: str, written: str) -> bool:
    """Whether some `written` (`!` a tag, `&` an anchor, `*` an alias, `<<` a merge key)
    stands where libyaml may start a node. It reads a node's properties,
    and a plain key, only at a token's start, and a node starts only after
    a line break (or the text's start, or a byte order mark) or an
    indicator that opens one (`-`, `?`, `:`, `[`, `{`, `,`, and `---`), with
    spaces or tabs between, or after another node's properties
    (_may_follow_properties). It may say yes where no node starts (a line
    of a block scalar starting `!`), never no where one does."""
    at = text.find(written)
    looked_at = -1
    # Most texts hold a few: each is looked at where it is. A text holding
    # many is searched once, at C speed (about 11 ms a MB), and there a `[`
    # or `{` counts wherever it stands.
    for _ in range(_WRITTEN_LOOKED_AT):
        if at < 0:
            return False
        if _at_a_node_start(text, at):
            return True
        looked_at = at
        at = text.find(written, at + 1)
    # Searched from just past the last one looked at, not from the next one:
    # the pattern starts at what stands before it (a line break, an
    # indicator, and spaces), so from the next one it could never find that
    # one. Nothing of what stands before it is before the last one looked
    # at, which is none of those characters.
    return at >= 0 and _A_NODE_STARTING[written].search(text, looked_at + 1) is not None


def _at_a_node_start(text: str, at: int) -> bool:
    """Whether a node may start at offset `at` (_may_start_a_node). A `[` or
    `{` before it opens a flow collection only where a node may start
    itself: in a block context anywhere else it is a plain scalar's (`if [ !
    -f x ]`), and in a flow context a plain scalar cannot hold one."""
    for _ in range(_BRACKETS_LOOKED_AT):
        before = at - 1
        while before >= 0 and text[before] in " \t":
            before -= 1
        if before < 0:
            return True
        if text[before] not in "[{":
            return text[before] in _BEFORE_A_NODE
        at = before
    return True


# What may stand before a node, spaces and tabs between (_may_start_a_node):
# libyaml's line breaks, a byte order mark, the indicators after which a
# node starts.
_BEFORE_A_NODE = "\n\r\x85\u2028\u2029\ufeff-?:[{,"
_A_NODE_STARTING = {
    written: LazyPattern("(?:\\A|[" + re.escape(_BEFORE_A_NODE) + "])[ \t]*" + re.escape(written))
    for written in ("!", "&", "*", MERGE_KEY)
}
_WRITTEN_LOOKED_AT = 64
# An anchor or an alias where a node may start (anchors_are_values_within);
# and one that stands anywhere but after a `:` (a brackets' too, which
# _at_a_node_start would follow back).
_A_PROPERTY_STARTING = LazyPattern("(?:\\A|[" + re.escape(_BEFORE_A_NODE) + "])[ \t]*[&*]")
_A_PROPERTY_NOT_A_VALUE = LazyPattern("(?:\\A|[" + re.escape(_BEFORE_A_NODE.replace(":", "")) + "])[ \t]*[&*]")
# Brackets before a node followed back to where they stand (_at_a_node_start).
_BRACKETS_LOOKED_AT = 16
# What may follow a plain scalar's last character: a line break, a space or
# tab (then a comment, or more of it), a flow indicator, a `:` (a key).
_AFTER_A_PLAIN_SCALAR = " \t\n\r\x85\u2028\u2029,]}:#"


class Composer(CParser):
    """libyaml's composer (ruamel.yaml.clib), building postrender's nodes,
    with the resolver hooks it calls answered directly.

    ruamel's CBaseLoader is the same parser plus a BaseConstructor and a
    BaseResolver, set up per document and asked per node; with no implicit
    or path resolvers (BaseResolver has none) they always give the default
    tags. Tags written in the text (`!!str 1`, `!foo`) do not go through
    `resolve`: libyaml hands them over as written.
    """

    # No instance dict: libyaml's composer looks up three of its methods
    # for every node (resolve, descend_resolver, ascend_resolver), and each
    # lookup would search the dict first. It also leaves nothing that refers
    # back to the loader, which reference counting alone then frees.
    __slots__ = ("plain_text", "small_mappings", "events", "plain_keys")

    def __init__(self, stream: object) -> None:
        CParser.__init__(self, _readable(stream) if type(stream) is str else stream)
        # What the text rules out at once: a merge key is a plain `<<` or a
        # tagged one, and a tag is always written with a `!`, each where a
        # node may start (may_hold_merge_keys, may_hold_tags). `plain_text`:
        # neither is anywhere in it.
        text = stream if isinstance(stream, str) else None
        merges = text is None or may_hold_merge_keys(text)
        self.plain_text = not merges and not may_hold_tags(text)  # type: ignore[arg-type]
        # How get() may search the document's small mappings.
        self.small_mappings: dict[str, Node] | None = (
            None if merges else _SEARCH_PLAIN if self.plain_text else _SEARCH
        )
        # Tallied as collections end: libyaml's parse events (a start per
        # node, an end per collection; aliases are not seen, and count 0),
        # and whether every mapping so far has plain, distinct keys
        # (MappingNode.end_mark).
        self.events = 0
        self.plain_keys = True

    # libyaml's composer calls it for every untagged node, as
    # resolve(kind, value, implicit), and gives what it returns to the
    # node's maker as the tag. A C method returning the empty text (a
    # format without fields ignores its arguments), which the makers read
    # as their kind's default tag: no tag libyaml reads is empty (a
    # verbatim `!<>` and a %TAG prefix must hold a character). A Python
    # function here cost render +0.16% instructions at N=1000.
    resolve = "".format

    # libyaml's composer calls these two around every node it composes;
    # with no path resolvers there is nothing for them to do. Methods of
    # C objects that do nothing measurable (a lookup in an empty dict, the
    # length of the empty tuple) cost a sixth of two Python calls per node:
    # read -5% instructions at N=1000. Both are called with positional
    # arguments, which they ignore.
    descend_resolver = {}.get
    ascend_resolver = ().__len__

    def get_single_node(self) -> Node | None:
        """The document's node graph, postrender's nodes, positions as offsets."""
        global _composing
        clib = _ruamel_yaml
        clib.ScalarNode, clib.SequenceNode, clib.MappingNode = _OUR_NODES
        _composing = self
        try:
            root = super().get_single_node()
        finally:
            clib.ScalarNode, clib.SequenceNode, clib.MappingNode = _RUAMEL_NODES
            _composing = None
        _bound_shared_texts()
        if root is not None:
            self.events += 3  # the document's start and end, and the root's start
        if root is not None and not isinstance(root, Node):
            # A ruamel.yaml.clib that no longer looks its node classes up
            # by name: nothing here would read its nodes right.
            raise PostrenderError(
                f"ruamel.yaml.clib {_clib_version()} composes its own nodes, which postrender cannot read;"
                " install ruamel.yaml.clib 0.2.8 to 0.2.15, the versions it is tested with"
            )
        return root


class ListComposer(Composer):
    """A Composer that hands over each item of the root's `items` sequence
    as soon as it is composed, before the next one is: the caller may prune
    it there (pipeline/read/), so a `List` of 20,000 objects is never held
    whole.

    libyaml's composer calls `descend_resolver(parent, index)` before every
    node it composes. A call with the items sequence as the parent and index
    k says item k-1 is complete, and appended to the sequence's list; the
    last item is never followed by one, and is the caller's to take once the
    document is composed. Whether the root is a List at all is only known
    then (kubectl writes `items` before `kind`): the caller decides what an
    early item means.
    """

    __slots__ = ("on_item", "items", "_root", "_after_items_key")

    def __init__(self, stream: object, on_item: Callable[[SequenceNode, int], None]) -> None:
        Composer.__init__(self, stream)
        self.on_item = on_item
        self.items: SequenceNode | None = None  # the root's `items`, once its first item starts
        self._root: Node | None = None
        self._after_items_key = False

    # A Python method, called for every node: about 3% more for a List's
    # read, and only documents that may be a List are composed with it.
    def descend_resolver(self, parent: Node | None, index: object) -> None:  # type: ignore[override]
        if parent is self.items:
            if index:  # the item before this one is complete
                _bound_shared_texts()
                self.on_item(parent, index - 1)  # type: ignore[arg-type, operator]
        elif parent is self._root:
            # A root key composed, its value next: `items`?
            self._after_items_key = index.__class__ is ScalarNode and index.value == "items"  # type: ignore[union-attr]
        elif self._after_items_key:
            # The first call after the `items` key's: the first item of its
            # value when that is a non-empty sequence.
            self._after_items_key = False
            if index == 0 and parent.__class__ is SequenceNode and self.items is None:
                self.items = parent  # type: ignore[assignment]
        elif self._root is None and parent is not None:
            self._root = parent  # the call for the root's first key


def anchor_table(loader: Composer) -> dict[str, Node] | None:
    """The anchor table of libyaml's composer (ruamel.yaml.clib's CParser)
    for the document `loader` is about to compose: each anchor's name and
    its node, held until the document is composed, and then replaced. It is
    no attribute Python can read; the collector's referents of the parser
    are its fields, and the table is the one dict among them not the
    Composer's own (`small_mappings`). None: not found so (a clib laid out
    otherwise), and nothing may be taken out of it."""
    import gc  # (only a List read item by item though it shares nodes asks)

    found = [field for field in gc.get_referents(loader)
             if field.__class__ is dict and field is not loader.small_mappings]
    return found[0] if len(found) == 1 and not found[0] else None


# Where in a document a later stage may read (DroppingComposer): each key
# that leads to such a place names what it may read under it, another Reach,
# or WHOLE_REACH for everything. "*" stands for any key not named, and its
# Reach is already merged into each named key's (the maker's part). A
# sequence's items are reached as the sequence is.
Reach = dict[str, "Reach | bool | Fold | StringItems"]
WHOLE_REACH = True


class Fold:
    """A Reach's mark for a mapping whose entries a stage reads once, as
    they are composed, and no stage reads after (a config's data, read into
    its content hash: pipeline/index/folding.py). Each time the mapping
    holds _FOLD_FROM entries as the next starts, they are handed to the
    composer's `fold` and taken out of it: a smaller mapping costs little
    held whole, and is read whole. The entries after the last of those stay
    (one at least), so that the mapping's end is found where it was
    (edit.content_end), and are the caller's to take once the document is
    composed."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name  # the mapping's key, told to `fold` with each entry

    def __repr__(self) -> str:
        return f"Fold({quoted(self.name)})"


class StringItems:
    """A Reach's mark for a container's `env`: a stage reads its plain items
    (a `name` and a `value`, both scalars) only for their strings (byname's
    pod strings), which a column holds as well as nodes do. Each item
    complete as the next starts is handed to the composer's `strings`, which
    takes it out (DROPPED_ITEM) where it can, keeping its strings, but an
    item `keeps` says stays (one a filtered field spec reads); anything else
    stays, as under WHOLE_REACH, as does the last item (its list's end is
    found where it was). One Deployment of 64,000 env entries held some
    1,000 bytes of nodes and offsets for each.

    With `flags`, the mark of a container's `args` or `command` instead: its
    items are strings, each taken but one a flag spec reads as a name
    (`--flag=name`, or the item after a `--flag` of `flags`, every spelling),
    and `first` is what comes before its first item (string_context: "" for
    a command's program). One Pod of 200,000 `args` held some 190 bytes of
    node, offsets and text for each."""

    __slots__ = ("keeps", "flags", "first")

    def __init__(self, keeps: Callable[[Node], bool] | None = None, flags: frozenset[str] | None = None,
                 first: str | None = None) -> None:
        self.keeps = keeps
        self.flags = flags
        self.first = first

    def __repr__(self) -> str:
        return "StringItems()" if self.flags is None else f"StringItems(flags={sorted(self.flags)})"


# strings(items, at, mark): a complete item of a sequence a StringItems
# marks; whether it was taken out.
TakeItem = Callable[["SequenceNode", int, StringItems], bool]

# fold(name, key, value): an entry of the mapping a Fold marks, complete.
FoldEntry = Callable[[str, "Node", "Node"], None]

# reach_of(kind, apiVersion, item): where a stage may read in an object
# (DroppingComposer); `item`: the object is a List's item, not the root.
ReachOf = Callable[[str, str, bool], "Reach | None"]


class _Object:
    """A DroppingComposer's mark for an object's own mapping, the root's or
    a List's item's: what its first entries said of its kind and
    apiVersion, and the Reach they give (or _UNDECIDED)."""

    __slots__ = ("kind", "api_version", "reach")

    def __init__(self) -> None:
        self.kind: str | None = None
        self.api_version: str | None = None
        self.reach: object = _UNDECIDED


class DroppingComposer(Composer):
    """A Composer that drops, as it composes a large document, what the
    read stage's pruner would drop once it is composed (syntax/prune.py), so
    that a dense document (a CRD's schema, a custom object with a list of a
    million items) is never held whole.

    It learns the object's `kind` and `apiVersion` from the root's first
    entries (where kubectl, Helm and kustomize write them) and asks
    `reach_of(kind, apiVersion, False)` where a later stage may read; None:
    keep everything. A collection off those paths is one prune stubs (or
    holds inside one it stubs), so each of its entries is dropped as soon as
    the next one starts: a value of a mapping, any item of a sequence whose
    parent is dropped too, and the collection items of a sequence beside a
    read path (prune keeps a list of scalars there, and stubs any other).
    The last entry of a collection stays, so that its end is found where it
    was (edit.content_end). Keys stay too, for the checks made when their
    mapping ends, but in a mapping past _KEYS_HELD entries, whose keys'
    texts are set aside (_set_aside, keys_distinct). Entries before `kind`
    and `apiVersion` are known are kept whole.

    Given `on_item`, it is also a ListComposer: the items of the root's
    `items`, while the root is not known to be anything but a List, are
    handed to `on_item` as each is complete, and each is an object of its
    own: what no stage reads of it is dropped as it is composed, as of a
    root (`reach_of(kind, apiVersion, True)`). So a List holding a dense
    object is never held whole either. Whether the root is a List is known
    only once it is composed: if it is not, whatever was dropped of its
    items means it is composed again whole (the caller's `finish`).

    A mapping the Reach marks with a Fold has its entries handed to `fold`
    as they are complete, and taken out of it (Fold): its caller sets
    `fold` once `reach_of` has given such a Reach (read.parts._Dropping), or
    `speculate` gives it for a config's data before the kind is known
    (`_undecided`).

    What it drops is only what the caller may rebuild: a document whose
    keys turn out not plain (the whole-graph checks need every node) must
    be composed again whole, when `dropped` says anything was.
    """

    # `ascend_resolver`, a slot: libyaml's composer calls it after every
    # node, and the instance's own `list.pop` is a call into C.
    __slots__ = ("reach_of", "fold", "speculate", "_stack", "ascend_resolver", "_root", "dropped", "_aside", "on_item",
                 "items", "wanted", "strings", "_drops_to_bound")

    def __init__(self, stream: object, reach_of: ReachOf,
                 on_item: Callable[[SequenceNode, int], None] | None = None,
                 wanted: Collection[int] | None = None) -> None:
        Composer.__init__(self, stream)
        self.reach_of = reach_of
        self.fold: FoldEntry | None = None
        # speculate(key, apiVersion, item, at): the fold for the value of
        # `key`, at offset `at`, written before its object's kind
        # (_undecided), or None to read it whole.
        self.speculate: Callable[[str, str, bool, int], FoldEntry | None] | None = None
        # What may be dropped under each node being composed, root first:
        # an _Object, a Reach, WHOLE_REACH, _BESIDE, _DEAD or _ITEMS.
        self._stack: list[object] = []
        self.ascend_resolver = self._stack.pop
        self._root = _Object()
        self.dropped = False
        # id(mapping) -> the mapping and its keys set aside (_set_aside).
        self._aside: dict[int, tuple[MappingNode, SortedRuns]] = {}
        self.on_item = on_item
        self.items: SequenceNode | None = None  # the root's `items`, once its first item starts (as ListComposer's)
        # Given: only these items are asked for, each whole, and the others
        # are dropped as they are composed (read.compose.recompose).
        self.wanted = wanted
        # Takes out the items of a sequence StringItems marks (None: keeps them).
        self.strings: TakeItem | None = None
        # Entries and items still to be let go before the shared texts' bound
        # is checked again (_let_go): wherever they are, however deep, and
        # however few each collection holds.
        self._drops_to_bound = _BOUND_EVERY

    def descend_resolver(self, parent: Node | None, index: object) -> None:  # type: ignore[override]
        # Called before each node (index: a sequence item's position; a
        # mapping's key node before its value, None before a key).
        stack = self._stack
        if not stack:
            stack.append(self._root)
            return
        here = stack[-1]
        if here is WHOLE_REACH:
            stack.append(WHOLE_REACH)
            return
        if here is _DEAD or here is _BESIDE:
            pairs = parent.value  # type: ignore[union-attr]
            if parent.__class__ is MappingNode:
                if index is None and pairs:  # the entry before this key is complete
                    key, last = pairs[-1]
                    if last is not DROPPED_ITEM:
                        pairs[-1] = (key, DROPPED_ITEM)
                        self.dropped = True
                        self._drops_to_bound -= 1  # _let_go, written out: one call an entry cost 2%
                        if not self._drops_to_bound:
                            self._let_go()
                    if len(pairs) >= _KEYS_HELD:
                        self._set_aside(parent, pairs)  # type: ignore[arg-type]
            elif index:  # the item before this one is complete
                last = pairs[index - 1]  # type: ignore[operator]
                if here is _DEAD or last.__class__ is not ScalarNode:
                    pairs[index - 1] = DROPPED_ITEM  # type: ignore[operator]
                    self.dropped = True
                    self._drops_to_bound -= 1  # (as above)
                    if not self._drops_to_bound:
                        self._let_go()
            stack.append(_DEAD)
            return
        if here.__class__ is Fold:
            if (index is None and parent.__class__ is MappingNode
                    and len(parent.value) >= _FOLD_FROM):  # type: ignore[union-attr]
                # The entries before this key are complete, and enough of
                # them to be taken out (Fold). Taken out, each key and value
                # still count as the mapping's (Composer.events).
                pairs = parent.value  # type: ignore[union-attr]
                fold, name = self.fold, here.name  # type: ignore[attr-defined]
                for key, value in pairs:
                    fold(name, key, value)  # type: ignore[misc]
                self.events += 2 * len(pairs)
                pairs.clear()
                self.dropped = True
                _bound_shared_texts()
            stack.append(WHOLE_REACH)
            return
        if here.__class__ is StringItems:
            if index and parent.__class__ is SequenceNode and self.strings is not None \
                    and self.strings(parent, index - 1, here):  # type: ignore[arg-type, operator]
                self.dropped = True  # the item before this one, complete, taken out
                self._drops_to_bound -= 1  # (as above)
                if not self._drops_to_bound:
                    self._let_go()
            stack.append(WHOLE_REACH)
            return
        if here.__class__ is _Object:
            reach = here.reach  # type: ignore[attr-defined]
            if index is None:
                if reach is _UNDECIDED:  # (asked here: every key of every item comes by)
                    self._learn(here, parent)  # type: ignore[arg-type]
                stack.append(WHOLE_REACH)
                return
            if reach is _UNDECIDED or reach is None:
                stack.append(self._undecided(here, index)  # type: ignore[arg-type]
                             if index.__class__ is ScalarNode else WHOLE_REACH)
                return
            here = reach
        elif here is _ITEMS:
            if parent.__class__ is not SequenceNode:
                stack.append(WHOLE_REACH)  # `items` is no sequence: no List
                return
            if parent is self.items:
                if index:  # the item before this one is complete
                    _bound_shared_texts()
                    self.on_item(parent, index - 1)  # type: ignore[misc, operator]
            elif self.items is None:
                self.items = parent  # type: ignore[assignment]
            wanted = self.wanted
            stack.append(_Object() if wanted is None else WHOLE_REACH if index in wanted else _DEAD)
            return
        if parent.__class__ is SequenceNode:
            stack.append(here)
        elif index.__class__ is not ScalarNode:  # a key, or a value under a complex key
            stack.append(WHOLE_REACH)
        else:
            below = here.get(index.value)  # type: ignore[union-attr]
            if below is None:
                below = here.get("*", _BESIDE)  # type: ignore[union-attr]
            stack.append(below)

    def _let_go(self) -> None:
        """_BOUND_EVERY entries or items were let go (`_drops_to_bound`
        counts them down): the texts of the nodes they held may be held by
        the shared texts' table alone, which is bounded now (a tree of many
        small lists dropped, a PrometheusRule's groups of rules, reaches no
        other check)."""
        self._drops_to_bound = _BOUND_EVERY
        _bound_shared_texts()

    def _set_aside(self, mapping: MappingNode, pairs: list[tuple[Node, Node]]) -> None:
        """Takes a large dropped mapping's entries out, but its last, keeping
        their keys' texts in sorted runs (syntax/runs.py), which `keys_distinct`
        checks once the document is composed: a mapping of a million keys
        never holds a node for each. Its end checks what stays. A key that
        may not read as its text is left to the whole-graph checks: the
        document is composed again whole."""
        moved = pairs[:-1]
        if not _plain_keys(moved):
            self.plain_keys = False
            return
        aside = self._aside.get(id(mapping))
        if aside is None:
            from .runs import SortedRuns  # (and heapq): for large documents only

            aside = self._aside[id(mapping)] = (mapping, SortedRuns())
        add = aside[1].add
        for key, _ in moved:
            add(key.value)  # type: ignore[arg-type]
        del pairs[:-1]
        self.events += 2 * len(moved)  # still the mapping's (Composer.events)
        _bound_shared_texts()

    def let_go_of_callers(self) -> None:
        """Forgets what it calls back, once done composing: its reader's
        bound methods hold the reader, which holds this composer, a cycle
        nothing collects while a render runs (cli.py pauses the collector).
        A document read in parts and then again (its keys written twice)
        held its first text and the runs of its keys set aside (one
        ConfigMap of 100,000 keys each written twice: 4.7 MiB)."""
        self.reach_of = self.speculate = self.fold = self.strings = self.on_item = None  # type: ignore[assignment]

    def keys_distinct(self) -> bool:
        """Whether no two keys of a mapping `_set_aside` took entries from
        are written alike, those it took and those that stayed. (A key
        holding a line break is two strings in the runs: at worst two keys
        seem alike, and the document is composed again whole.)"""
        if not self._aside:
            return True
        from .runs import all_distinct

        for mapping, texts in self._aside.values():
            for key, _ in mapping.value:
                texts.add(key.value)  # type: ignore[arg-type]
            if not all_distinct(texts):
                return False
        return True

    def _undecided(self, obj: _Object, key: ScalarNode) -> object:
        """The mark for a value of an object whose Reach is not known (or
        None): the root's `items`, unless it is known to be no List; a
        mapping written before `kind` (a config's data, as kustomize and
        kubectl write it: `apiVersion`, `data`, `kind`), folded ahead of the
        kind where `speculate` gives a fold for it: `reach_of` then says
        whether the kind folds it too, and if not the document is composed
        again whole."""
        name = key.value
        if name == "items" and obj is self._root and self.on_item is not None:
            return _ITEMS
        if (obj.reach is _UNDECIDED and obj.kind is None and obj.api_version is not None
                and self.speculate is not None):
            fold = self.speculate(name, obj.api_version, obj is not self._root, key.start_mark)
            if fold is not None:
                self.fold = fold
                return Fold(name)
        return WHOLE_REACH

    def _learn(self, obj: _Object, mapping: MappingNode) -> None:
        """Reads the object's entry just composed: `kind` and `apiVersion`."""
        if not mapping.value:
            return
        key, value = mapping.value[-1]
        if key.__class__ is not ScalarNode or value.__class__ is not ScalarNode:
            return
        if key.value == "kind":
            obj.kind = value.value  # type: ignore[assignment]
        elif key.value == "apiVersion":
            obj.api_version = value.value  # type: ignore[assignment]
        else:
            return
        if obj.kind is not None and obj.api_version is not None:
            obj.reach = self.reach_of(obj.kind, obj.api_version, obj is not self._root)


# A dropped mapping's entries are taken out once it holds this many
# (DroppingComposer._set_aside): most hold a few, checked as ever.
_KEYS_HELD = 1024
# A folded mapping's entries are taken out each time it holds this many
# (Fold): a config's data of a few entries costs less held whole than read
# apart, and a dense one holds no more than this many nodes at a time.
_FOLD_FROM = 1024

# A DroppingComposer's marks for what may go under a node: nothing of it is
# read, but its parent is (prune keeps its scalars, and its items if all
# are scalars); nothing under it is read, nor its parent; the root's
# `items`, each item an object of its own (on_item).
_BESIDE, _DEAD, _ITEMS, _UNDECIDED = object(), object(), object(), object()


def drop_item(items: SequenceNode, at: int) -> None:
    """A ListComposer's `on_item` that keeps no item: an empty mapping
    stands for each (but the last, which no next item hands over)."""
    items.value[at] = DROPPED_ITEM


# What stands for an item nothing reads (drop_item, read.compose.recompose).
DROPPED_ITEM = StubMapping(_DEFAULT_TAGS[MappingNode], (), 0, 0)  # type: ignore[arg-type]


class _Text:
    """A text as a stream CParser reads, all at once: given a str itself,
    CParser first asks it for a `read` method, and the AttributeError that
    answers costs more than reading through this (about 2 µs a document).
    The text is the same to libyaml, encoded to UTF-8 either way."""

    __slots__ = ("text",)

    name = "<unicode string>"  # what CParser calls a str it reads (ReaderError names it)

    def __init__(self, text: str) -> None:
        self.text = text

    def read(self, size: int) -> str:
        # CParser keeps what is beyond `size` for later calls; "" ends it.
        text, self.text = self.text, ""
        return text


class _TextInPieces(_Text):
    """A big text (a List is one document), given a piece at a time: CParser
    holds what it was given, encoded, until libyaml has taken all of it, so
    the whole text given at once was a copy of it held beside it while
    composed (100,000 tiny ConfigMaps as one List, 8.1 MB: read's traced
    peak 62.2 -> 55.3 MiB)."""

    __slots__ = ("_at",)

    def __init__(self, text: str) -> None:
        self.text = text
        self._at = 0

    def read(self, size: int) -> str:
        text, at = self.text, self._at
        piece = text[at : at + _READ_PIECE]
        self._at = at + len(piece)
        if self._at >= len(text):
            self.text = ""  # its last piece given
        return piece


# A text longer than this is given in pieces of it, in characters
# (_TextInPieces); libyaml asks for 16 KiB at a time.
_READ_PIECE = 1 << 16
# A surrogate, paired or lone: UTF-8 cannot encode either.
_SURROGATE = LazyPattern("[\\ud800-\\udfff]")


def _readable(text: str) -> _Text:
    """`text` as libyaml reads it: in pieces when it is big, but whole when
    it holds a surrogate, so that encoding it fails before libyaml reads
    anything, as it did."""
    if len(text) <= _READ_PIECE or not text.isascii() and _SURROGATE.search(text):
        return _Text(text)
    return _TextInPieces(text)


def _clib_version() -> str:
    from importlib import metadata  # only when refusing: costs start-up time

    try:
        return metadata.version("ruamel.yaml.clib")
    except metadata.PackageNotFoundError:
        return "(version unknown)"


class NotReadable(ValueError):
    """kubectl (sigs.k8s.io/yaml over go-yaml v2) cannot read this node.

    The message describes the problem without quoting the value, which may
    be a secret.
    """


# --- go-yaml v2's plain-scalar resolution ------------------------------------
#
# go-yaml v2's resolve() (go.yaml.in/yaml/v2, which sigs.k8s.io/yaml, and so
# kubectl and Helm, read manifests with), rule for rule, checked value by
# value against kubectl (tests/test_kubernetes_reading.py). The first
# character of a plain scalar hints at what it may be; anything else is a
# string. It is not the YAML 1.1 spec: no base-60 numbers (`23:59` is a
# string), leading zeros are octal when they can be and else a float (`08`
# is 8.0), underscores go anywhere in a number (`1__0`), and a float may
# start with its point (`.5`, `-.5e3`).

_HINT_SIGN, _HINT_DIGIT, _HINT_WORD, _HINT_DOT = "S", "D", "M", "."
_HINTS = {"+": _HINT_SIGN, "-": _HINT_SIGN, ".": _HINT_DOT}
_HINTS.update(dict.fromkeys("0123456789", _HINT_DIGIT))
_HINTS.update(dict.fromkeys("yYnNtTfFoO~", _HINT_WORD))
# First characters of a plain scalar that may read as other than its text.
PLAIN_HINTS = frozenset(_HINTS)

_WORDS: dict[str, tuple[str, object]] = {}
for _kind, _value, _words in (
    ("bool", True, "y Y yes Yes YES true True TRUE on On ON"),
    ("bool", False, "n N no No NO false False FALSE off Off OFF"),
    ("null", None, "~ null Null NULL"),
    ("float", math.nan, ".nan .NaN .NAN"),
    ("float", math.inf, ".inf .Inf .INF +.inf +.Inf +.INF"),
    ("float", -math.inf, "-.inf -.Inf -.INF"),
):
    _WORDS.update(dict.fromkeys(_words.split(), (_kind, _value)))
_WORDS[""] = ("null", None)
NULL_WORDS = frozenset(w for w, (kind, _) in _WORDS.items() if kind == "null")
NONFINITE_WORDS = frozenset(w for w, (kind, value) in _WORDS.items() if kind == "float")
# Their words without a sign, found in a text at C speed (all start with a
# ".", which a regex finds at memchr's speed): may_hold_nonfinite.
_NONFINITE_WRITTEN = LazyPattern("|".join(re.escape(word)
                                          for word in sorted({w.lstrip("+-") for w in NONFINITE_WORDS})))
# First characters of the words above: a plain scalar starting with one
# that is not one of them is a string (`name`, `type`, `ports`).
_WORD_HINTS = frozenset(c for c, hint in _HINTS.items() if hint == _HINT_WORD)

# go-yaml's yamlStyleFloat, applied after underscores are removed.
_YAML_STYLE_FLOAT = LazyPattern(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
# Go's strconv.ParseFloat syntax for a decimal starting with ".": digits and
# underscores (checked by _underscores_ok), an optional exponent.
_DOT_FLOAT = LazyPattern(r"\.[0-9_]*(?:[eE][-+]?[0-9][0-9_]*)?")
_INT64 = 1 << 63
_UINT64 = 1 << 64
_DIGITS = {c: int(c, 16) for c in "0123456789abcdefABCDEF"}


def resolve_plain(text: str) -> tuple[str, object]:
    """What go-yaml v2 reads an untagged plain scalar as: (kind, value).

    kind is "str", "null", "bool", "int" (value may exceed int64: a uint64)
    or "float" (value may be inf or nan). go-yaml also recognises
    timestamps, but gives them back as the text itself, and no timestamp
    (`2001-12-14...`) parses as a number: they are strings here.
    """
    hint = _hint(text)
    if not hint:
        return "str", text
    word = _WORDS.get(text)
    if word is not None:
        return word
    if hint == _HINT_DOT:
        value = _go_parse_dot_float(text)
        return ("float", value) if value is not None else ("str", text)
    if hint not in (_HINT_DIGIT, _HINT_SIGN):
        return "str", text
    return _resolve_number(text)


def _hint(text: str) -> str:
    return _HINTS.get(text[0], "") if text else "N"


# A superset of the texts _resolve_number reads as a number: go-yaml's
# decimal ints and floats hold only these characters (underscores go
# anywhere), and its other ints are a 0b/0o/0x prefix (any case) after
# underscores and a sign. Anything else, a content hash (`3f2a...`) or a
# version (`1.2.3-rc1`), is a string without parsing.
_MAY_BE_NUMBER = LazyPattern(r"[-+0-9_.eE]*|[-+_]*0_*[bBoOxX].*", re.DOTALL)


def _resolve_number(text: str) -> tuple[str, object]:
    if not _MAY_BE_NUMBER.fullmatch(text):
        return "str", text
    return _parse_number(text)


def _parse_number(text: str) -> tuple[str, object]:
    plain = text.replace("_", "")
    number = _go_parse_int(plain, 0)
    if number is None:
        number = _go_parse_uint(plain, 0)
    if number is not None:
        return "int", number
    if _YAML_STYLE_FLOAT.fullmatch(plain):
        value = float(plain)
        if not math.isinf(value):  # Go: out of range is an error
            return "float", value
    # Leftovers of go-yaml's own binary parsing: `0b-101` is -5.
    if plain.startswith("0b"):
        number = _go_parse_int(plain[2:], 2)
        if number is None:
            number = _go_parse_uint(plain[2:], 2)
    elif plain.startswith("-0b"):
        number = _go_parse_int("-" + plain[3:], 2)
    if number is not None:
        return "int", number
    return "str", text


def _go_parse_uint(text: str, base: int) -> int | None:
    """strconv.ParseUint(text, base, 64), without underscores (callers strip them)."""
    if not text:
        return None
    if base == 0:
        base = 10
        if text[0] == "0":
            prefix = text[1:2].lower()
            if len(text) >= 3 and prefix in ("b", "o", "x"):
                base, text = {"b": 2, "o": 8, "x": 16}[prefix], text[2:]
            else:
                base, text = 8, text[1:]
    value = 0
    for char in text:
        digit = _DIGITS.get(char, 99)
        if digit >= base:
            return None
        value = value * base + digit
    return value if value < _UINT64 else None


def _go_parse_int(text: str, base: int) -> int | None:
    """strconv.ParseInt(text, base, 64)."""
    negative = text[:1] == "-"
    unsigned = _go_parse_uint(text[1:] if text[:1] in ("+", "-") else text, base)
    if unsigned is None:
        return None
    if negative:
        return -unsigned if unsigned <= _INT64 else None
    return unsigned if unsigned < _INT64 else None


def _go_parse_dot_float(text: str) -> float | None:
    """strconv.ParseFloat(text, 64) for a text starting with "."."""
    if not _DOT_FLOAT.fullmatch(text):
        return None
    mantissa = re.split("[eE]", text, maxsplit=1)[0]
    if not any("0" <= c <= "9" for c in mantissa):
        return None
    if "_" in text and not _underscores_ok(text):
        return None
    value = float(text.replace("_", ""))
    return None if math.isinf(value) else value


def _underscores_ok(text: str) -> bool:
    """Go's strconv underscoreOK for a decimal number: each `_` between digits."""
    saw = "^"
    for char in text.lstrip("+-"):
        if "0" <= char <= "9":
            saw = "0"
        elif char == "_":
            if saw != "0":
                return False
            saw = "_"
        elif saw == "_":
            return False
        else:
            saw = "!"
    return saw != "_"


def _resolve_tagged(short: str, text: str) -> object:
    """go-yaml v2's resolve() with an explicit !!bool/!!int/!!float/!!null/!!timestamp tag."""
    if short == "timestamp" and is_go_timestamp(text):
        return text  # decoded into an interface{}, a timestamp stays its text
    kind, value = resolve_plain(text)
    if kind == short:
        return value
    if short == "float" and kind == "int" and -_INT64 <= value < _INT64:  # type: ignore[operator]
        return float(value)  # type: ignore[arg-type]
    raise NotReadable(f"a !!{short} value that is not one")


def go_string(data: bytes) -> str:
    """Bytes as Go's encoding/json writes a string: each invalid byte becomes U+FFFD."""
    text = data.decode("utf-8", "surrogateescape")
    return re.sub("[\udc80-\udcff]", "\ufffd", text)


def go_base64(text: str) -> bytes | None:
    """Go's base64.StdEncoding.DecodeString, which skips CR and LF: what
    go-yaml v2 uses for !!binary and the API server for []byte fields."""
    compact = text.replace("\r", "").replace("\n", "")
    # Go reads whole quanta of four, padding only in the last and never
    # followed by data: Python's decoder also takes `MQAB=` (a padding quantum
    # of its own), which the API server refuses, as kubectl refuses it in a
    # !!binary. Bits left over past the last byte (`MR==`) Go ignores, as Python does.
    if len(compact) % 4 or "=" in compact[:-2] or compact[-2:-1] == "=" != compact[-1:]:
        return None
    try:
        return base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        return None


def decode_binary(text: str) -> str:
    """A !!binary scalar as go-yaml v2 decodes it and kubectl sends it."""
    data = go_base64(text)
    if data is None:
        raise NotReadable("a !!binary value that is not valid base64")
    return go_string(data)


# go-yaml v2 tries these time.Parse layouts for a !!timestamp: RFC 3339 with
# 1-2 digit fields and T or t; date and time with no zone (Go lets a layout's
# space match a run of spaces); date only. A fraction may follow the seconds
# after "." or ",". Ranges as time.Parse checks them, zone offsets included.
_TS_DATE = r"(?P<y>[0-9]{4})-(?P<mo>[0-9]{1,2})-(?P<d>[0-9]{1,2})"
_TS_TIME = r"(?P<h>[0-9]{1,2}):(?P<mi>[0-9]{1,2}):(?P<s>[0-9]{1,2})(?:[.,][0-9]+)?"
_TS_ZONE = r"(?:Z|[-+](?P<zh>[0-9]{2}):(?P<zm>[0-9]{2}))"
# Compiled (by re's cache) when first used: only an explicit !!timestamp tag needs them.
_TS_LAYOUTS = (
    _TS_DATE + "T" + _TS_TIME + _TS_ZONE,
    _TS_DATE + "t" + _TS_TIME + _TS_ZONE,
    _TS_DATE + " +" + _TS_TIME,
    _TS_DATE,
)


def is_go_timestamp(text: str) -> bool:
    """go-yaml v2's parseTimestamp: Go's time.Parse with its layouts."""
    for layout in _TS_LAYOUTS:
        match = re.fullmatch(layout, text)
        if match is not None and _timestamp_in_range(match.groupdict()):
            return True
    return False


def _timestamp_in_range(fields: dict[str, str | None]) -> bool:
    year, month, day = int(fields["y"] or 0), int(fields["mo"] or 0), int(fields["d"] or 0)
    if not 1 <= month <= 12 or not 1 <= day <= _days_in(month, year):
        return False
    if fields.get("h") is not None and (int(fields["h"] or 0) >= 24 or int(fields["mi"] or 0) >= 60
                                        or int(fields["s"] or 0) >= 60):
        return False
    if fields.get("zh") is not None and (int(fields["zh"] or 0) > 24 or int(fields["zm"] or 0) > 60):
        return False
    return True


def _days_in(month: int, year: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


# --- node readers ------------------------------------------------------------

# Anchors and tags written before a node (its start mark includes them); a
# verbatim tag (`!<tag:yaml.org,2002:str>`) may hold commas.
PROPERTIES = LazyPattern(r"(?:(?:!<[^>]*>|[&!][^\s,\[\]{}]*)\s+)+")


def is_null(node: Node | None) -> bool:
    if not isinstance(node, ScalarNode):
        return False
    if node.tag == STR_TAG:
        return not node.style and node.value in NULL_WORDS
    try:
        return scalar_value(node) is None
    except NotReadable:
        return False


def string_map(node: Node | None) -> dict[str, str]:
    """A mapping of scalars (labels, annotations) as text, as written, merge
    keys applied as Kubernetes reads them (`labels: {<<: *common, tier: web}`).
    A null value (`~`, `null`) is "", as the API server stores it: not the
    word, which an annotation's reader would take for its text (write61:
    `sync-options: ~` became the option `~`)."""
    if not isinstance(node, MappingNode):
        return {}
    pairs = read_entries(node)
    return {k.value: v.value if v.style or v.tag == STR_TAG and v.value not in NULL_WORDS else _text_or_null(v)
            for k, v in pairs if isinstance(k, ScalarNode) and isinstance(v, ScalarNode)}


def _text_or_null(node: ScalarNode) -> str:
    """A plain null word, or a tagged value (`!!null ~`; review61a): "" where
    Kubernetes reads null."""
    return "" if is_null(node) else node.value


def is_merge_key(node: Node) -> bool:
    """go-yaml v2's isMerge: a plain untagged `<<`, or `!!merge <<`."""
    if not isinstance(node, ScalarNode) or node.value != MERGE_KEY:
        return False
    return node.tag == MERGE_TAG or (node.tag == STR_TAG and not node.style)


def merge_sources(value: Node) -> list[Node]:
    """The mappings a merge key's value applies, in the order they apply.

    go-yaml v2 applies a sequence of mappings from the last to the first, so
    the first wins. Anything else is refused by pipeline/read before this runs.
    """
    if isinstance(value, MappingNode):
        return [value]
    if isinstance(value, SequenceNode):
        return [item for item in reversed(value.value) if isinstance(item, MappingNode)]
    return []


def entries(node: MappingNode) -> Iterator[tuple[Node, Node]]:
    """Key/value pairs of a mapping as go-yaml v2 reads it, merge keys applied.

    Entries apply in order, each overwriting an equal key set before it, and
    a merge key (`<<`) applies its mappings at its own place. So in
    `{a: 1, <<: {a: 2}}` a is 2, and in `{<<: {a: 2}, a: 1}` it is 1.
    Keys are equal when Kubernetes gets the same JSON key for them (pipeline/read
    refuses keys of different types that would meet).
    """
    if not any(is_merge_key(k) for k, _ in node.value):
        yield from node.value
        return
    yield from _merged(node, _json_identity)


def entries_by_go_key(node: MappingNode) -> Iterator[tuple[Node, Node]]:
    """As entries, with keys equal only when go-yaml v2 holds them equal
    (`1` and `0x1` are, `1` and `'1'` are not)."""
    yield from _merged(node, go_key)


def _merged(node: MappingNode, identity: Callable[[Node], object]) -> Iterator[tuple[Node, Node]]:
    for _holder, key, value in _merged_entries(node, identity):
        yield key, value


def _merged_entries(node: MappingNode, identity: Callable[[Node], object]) -> Iterable[tuple[MappingNode, Node, Node]]:
    """(the mapping it is written in, key, value) of each entry _merged gives."""
    result: dict[object, tuple[MappingNode, Node, Node]] = {}
    # Iterative: merged mappings may chain through any number of aliases.
    # A frame walks a mapping's entries, or a merge key's mappings in turn.
    stack: list[tuple[Node | None, Iterator]] = [(node, iter(node.value))]
    while stack:
        owner, items = stack[-1]
        item = next(items, None)
        if item is None:
            stack.pop()
        elif owner is None:  # the next mapping of a merge
            if all(item is not frame_owner for frame_owner, _ in stack):  # pipeline/read refuses recursion
                stack.append((item, iter(item.value)))
        elif is_merge_key(item[0]):
            stack.append((None, iter(merge_sources(item[1]))))
        else:
            result[identity(item[0])] = (owner, item[0], item[1])  # type: ignore[assignment]
    return result.values()


def holder(node: MappingNode, key: str) -> MappingNode | None:
    """The mapping whose entry gives `key` the value get() reads: `node`
    itself, or a mapping a merge key applies (`<<: {name: cfg}`), where an
    edit of that value goes."""
    for owner, written, _ in _merged_entries(node, _json_identity):
        if written.value == key and isinstance(written, ScalarNode) and _reads_as(written, key):
            return owner
    return None


def _json_identity(key: Node) -> object:
    try:
        label = json_key(key)
    except NotReadable:
        return ("node", id(key))
    # `0.0` and `-0.0` are one float key to go-yaml, whose JSON key is the
    # later's ("0" or "-0"), as pipeline/read reads a mapping's own (review61a).
    return _FLOAT_ZERO if is_float_zero(key, label) else label


# The JSON keys of a float zero key, each to the other's.
SIGNED_ZERO_LABELS = {"0": "-0", "-0": "0"}
_FLOAT_ZERO = ("float", 0.0)


def is_float_zero(key: Node, label: str) -> bool:
    """Whether a key whose JSON key is `label` is a float zero (`0.0`,
    `-0.0`, `-0e0`): go-yaml holds all of them as one key of its map."""
    return label in SIGNED_ZERO_LABELS and go_key(key) == _FLOAT_ZERO


def go_key(key: Node) -> object:
    """A key as a value in go-yaml v2's map[interface{}]interface{}."""
    try:
        value = scalar_value(key) if isinstance(key, ScalarNode) else None
    except NotReadable:
        value = None
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ("node", id(key))  # NaN equals nothing; unreadable keys are refused anyway
    return (type(value).__name__, value)


def get(node: Node | None, key: str) -> Node | None:
    """The value of the key written `key` that Kubernetes reads as `key`, merge keys applied."""
    if not isinstance(node, MappingNode):
        return None
    index = node.merge
    if index is None:
        index = node.merge = _key_index(node)
    if index is _SEARCH_PLAIN:
        for k, v in node.value:
            # No key here is tagged: one written `key` reads as `key`, quoted
            # or plain, unless `key` itself may read as another value.
            if k.value == key and (key in _TEXT_KEYS or plain_is_text(key) or _reads_as(k, key)):
                return v
        return None
    if index is _SEARCH:
        for k, v in node.value:
            if k.value == key and isinstance(k, ScalarNode) and _reads_as(k, key):
                return v
        return None
    return index.get(key)


# A mapping's keys, looked up by text, are kept in its `merge` slot: ruamel
# sets it to None and uses it only in its round-trip constructor, which
# postrender never runs. Lookups then cost a dict lookup, however often
# field specs ask the same mapping. The index is built on the first lookup,
# so pipeline/read clears it where a key's reading may still change (see forget_keys).


# Mappings with fewer keys (most) are searched in place, not indexed: an
# index for each would cost memory.
_INDEX_FROM = 8
# The `merge` slot of a small mapping without merge keys (see get).
_SEARCH: dict[str, Node] = {}
# The same, for a small mapping in a document whose text holds no `!` and
# no `<<` (Composer): no key is tagged or a merge key, so a key reads as its
# text unless it is a plain one that go-yaml may read as another value (`y`,
# `1`, `0x1`, `~`). The composer sets either as it composes
# (MappingNode.end_mark), so that most mappings need no _key_index.
_SEARCH_PLAIN: dict[str, Node] = {}


def _key_index(node: MappingNode) -> dict[str, Node]:
    pairs = node.value
    if len(pairs) < _INDEX_FROM and not any(k.value == MERGE_KEY and is_merge_key(k) for k, _ in pairs):
        return _SEARCH
    index: dict[str, Node] = {}
    for k, v in pairs:
        if not isinstance(k, ScalarNode):
            continue
        text = k.value
        if text == MERGE_KEY and is_merge_key(k):
            return _merged_key_index(node)
        if text not in index and _reads_as(k, text):
            index[text] = v
    return index


def _merged_key_index(node: MappingNode) -> dict[str, Node]:
    index: dict[str, Node] = {}
    for k, v in entries(node):
        if isinstance(k, ScalarNode):
            text = k.value
            if text not in index and _reads_as(k, text):
                index[text] = v
    return index


def plain_is_text(text: str) -> bool:
    """Whether an untagged plain scalar surely reads as its own text
    (False: it may not, ask resolve_plain). Written out in is_string and
    MappingNode.end_mark: change the three together
    (tests/unit/syntax/test_nodes_fast_paths.py checks is_string's)."""
    if not text:
        return False
    first = text[0]
    return first not in _HINTS or first in _WORD_HINTS and text not in _WORDS


def forget_keys(node: MappingNode) -> None:
    """Drop the key index get() built, after a key's style changed."""
    node.merge = None


def surely_its_text(key: ScalarNode) -> bool:
    """Whether Kubernetes surely reads an untagged key as its text, decided
    without resolving: a quoted key, or a plain one that cannot read as
    anything else (most keys). False: it may not."""
    return key.tag is _UNTAGGED and bool(key.style or plain_is_text(key.value))


def _reads_as(key: ScalarNode, text: str) -> bool:
    """Whether Kubernetes reads `key` (whose text is `text`) as that very key."""
    if key.tag is _UNTAGGED and (key.style or plain_is_text(text)):
        # surely_its_text, without a call: asked of most keys get() indexes.
        return True
    if key.tag == STR_TAG and (key.style or not _hint(text)):
        return True
    try:
        return json_key(key) == text
    except NotReadable:
        return False


def get_str(node: Node | None, key: str) -> str | None:
    value = get(node, key)
    if isinstance(value, ScalarNode) and is_string(value):
        return value.value
    return None


def is_string(node: ScalarNode) -> bool:
    """Whether Kubernetes reads the scalar as a string, and that string is its text.

    A `!!binary` scalar reads as its decoded bytes: see string_value.
    """
    if node.tag is _UNTAGGED:
        if node.style:
            return True
        text = node.value
        # plain_is_text, written out: asked of most names and labels read.
        if text and (text[0] not in _HINTS or text[0] in _WORD_HINTS and text not in _WORDS):
            return True
        return plain_is_string(text)
    if node.tag == STR_TAG:
        return bool(node.style) or plain_is_string(node.value)
    if node.tag == BINARY_TAG:
        return False
    try:
        return isinstance(scalar_value(node), str)
    except NotReadable:
        return False


def string_value(node: Node) -> str | None:
    """The string Kubernetes reads for a node, or None when it reads no string."""
    if not isinstance(node, ScalarNode):
        return None
    try:
        value = scalar_value(node)
    except NotReadable:
        return None
    return value if isinstance(value, str) else None


def not_a_string_hint(node: Node, show_value: bool = False, secret: bool = False) -> str:
    """Why Kubernetes reads a node as something other than a string, and
    the mechanical fix, for a message: " (quote it; ...)". The value itself
    is quoted back only when `show_value` (a short ConfigMap value, a kind):
    a Secret's never is. Nor, for a `secret` value, is what it reads as: "a
    number" says it is digits (a PIN), "a boolean" that it is one of a score
    of words (leak60). An empty one is still said to be empty, as that is
    all its fix says."""
    if not isinstance(node, ScalarNode):
        return f" (found a {'mapping' if isinstance(node, MappingNode) else 'sequence'})"
    if node.tag == BINARY_TAG:
        return " (write its text itself: postrender reads no !!binary text here)"
    value = scalar_value(node)  # pipeline/read has refused what kubectl cannot read
    if value is None:
        what = "null"
        fix = 'write "" for an empty string' if not node.style else "drop the !!null tag"
    else:
        what = "a boolean" if isinstance(value, bool) else "a number"
        fix = "drop its tag or make it !!str"
        if node.tag == STR_TAG:
            shown = show_value and len(node.value) <= 40
            fix = f"quote it: {json.dumps(node.value, ensure_ascii=False)}" if shown else "quote it"
    if secret and value is not None:
        # The fix for what is written: an untagged value has no tag to drop (fuzz62).
        fix = "quote it" if node.tag == STR_TAG else "drop its tag or make it !!str"
        return f" ({fix}: Kubernetes does not read it as a string)"
    if node.tag == STR_TAG:
        return f" ({fix}; unquoted, Kubernetes reads it as {what} under YAML 1.1)"
    return f" ({fix}; its tag makes it {what})"


def plain_is_string(text: str) -> bool:
    """Whether `text`, written as a plain scalar, reads back as a string."""
    return resolve_plain(text)[0] == "str"


def scalar_value(node: ScalarNode) -> object:
    """The value go-yaml v2 decodes a scalar to in an interface{}: str,
    None, bool, int (possibly beyond int64, a uint64), or float (possibly
    inf or nan, which kubectl then fails to write as JSON).

    Raises NotReadable where go-yaml v2 fails (`!!int abc`, bad `!!binary`).
    """
    # An untagged scalar's tag is STR_TAG itself (_UNTAGGED): `==` answers by identity.
    if node.tag == STR_TAG:
        return node.value if node.style else resolve_plain(node.value)[1]
    return tagged_value(node.tag, node.value)


def tagged_value(tag: str, text: str) -> object:
    """A scalar with an explicit tag other than !!str, quoted or not."""
    short = tag[len(YAML_TAG_PREFIX) :] if tag.startswith(YAML_TAG_PREFIX) else None
    if short == "binary":
        return decode_binary(text)
    if short in ("bool", "int", "float", "null", "timestamp"):
        return _resolve_tagged(short, text)
    # Any other tag (`!foo`, `!`, `!!map` on a scalar): go-yaml leaves it unresolved, a string.
    return text


def json_value(node: ScalarNode) -> object:
    """The JSON value kubectl sends for a scalar: scalar_value, finite."""
    value = scalar_value(node)
    if isinstance(value, float) and not math.isfinite(value):
        raise NotReadable("an infinite or NaN number, which JSON cannot hold")
    return value


def json_key(node: Node) -> str:
    """The JSON key Kubernetes gets for a mapping key.

    sigs.k8s.io/yaml turns go-yaml's non-string keys into strings: an int in
    decimal, a bool as true/false, a float as Go formats a float32 (%g,
    shortest: `1e3` is "1000", `0.1234567890123` "0.12345679", `1e300`
    ".inf"). It cannot convert a null key, an integer beyond int64, or a
    mapping or sequence used as a key: kubectl refuses those.
    """
    if not isinstance(node, ScalarNode):
        raise NotReadable("a mapping or sequence used as a key")
    if node.tag == STR_TAG:
        return node.value if node.style else plain_json_key(node.value)
    return _key_text(scalar_value(node))


def plain_json_key(text: str) -> str:
    """json_key of an untagged plain scalar: most keys need one dict lookup."""
    if plain_is_text(text):
        return text
    return _key_text(resolve_plain(text)[1])


def _key_text(value: object) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        raise NotReadable("a null key (empty, ~ or null)")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if not -_INT64 <= value < _INT64:
            # Only 2^63 .. 2^64-1 gets here: go-yaml reads it as a uint64, which
            # sigs.k8s.io/yaml makes no JSON key of; past it, a float (1e+23).
            raise NotReadable("an integer key from 2^63 to 2^64-1 (an unsigned 64-bit number, no JSON key)")
        return str(value)
    return go_float32_key(float(value))  # type: ignore[arg-type]


def go_float32_key(value: float) -> str:
    """strconv.FormatFloat(value, 'g', -1, 32), with Inf and NaN as YAML spells them."""
    if math.isnan(value):
        return ".nan"
    try:
        single = struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        single = math.copysign(math.inf, value)
    if math.isinf(single):
        return ".inf" if single > 0 else "-.inf"
    sign = "-" if math.copysign(1.0, single) < 0 else ""
    if single == 0:
        return sign + "0"
    digits, point = _shortest_float32(abs(single))
    exponent = point - 1
    if exponent < -4 or exponent >= 6:  # Go's shortest %g: exponent form outside [1e-4, 1e6)
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def _shortest_float32(value: float) -> tuple[str, int]:
    """Shortest decimal digits that read back as this float32, and the
    position of the decimal point (value = 0.DIGITS * 10**point); of several
    equally short, the closest. Exact arithmetic, as Go's Ryu."""
    from fractions import Fraction  # only here: it loads decimal, ~2 ms of every run's start-up

    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    exponent_field, fraction = (bits >> 23) & 0xFF, bits & 0x7FFFFF
    if exponent_field:
        mantissa, exponent = fraction | (1 << 23), exponent_field - 150
    else:
        mantissa, exponent = fraction, -149
    exact = Fraction(mantissa) * Fraction(2) ** exponent
    step = Fraction(2) ** exponent
    upper = exact + step / 2
    lower = exact - (step / 4 if fraction == 0 and exponent_field > 1 else step / 2)
    inclusive = mantissa % 2 == 0

    def inside(candidate: Fraction) -> bool:
        if inclusive:
            return lower <= candidate <= upper
        return lower < candidate < upper

    # exact = 0.d1d2... * 10**point
    point = len(str(exact.numerator // exact.denominator)) if exact >= 1 else 0
    if exact < 1:
        while exact * Fraction(10) ** (-point) < Fraction(1, 10):
            point -= 1
    for count in range(1, 18):
        scale = Fraction(10) ** (point - count)
        low = exact / scale
        floor = low.numerator // low.denominator
        best = None
        for digits in (floor, floor + 1):
            candidate = digits * scale
            if inside(candidate):
                distance = abs(candidate - exact)
                if best is None or distance < best[0] or (distance == best[0] and digits % 2 == 0):
                    best = (distance, digits)
        if best is not None:
            text = str(best[1])
            shift = len(text) - count  # rounding up may add a digit (9.99 -> 10.0)
            return text.rstrip("0") or "0", point + shift
    raise AssertionError("a float32 always has a 9-digit representation")


# What libyaml counts as a line break (a CRLF is one): its lines and columns
# restart after each.
LINE_BREAK = re.compile("\r\n?|[\n\x85\u2028\u2029]")
_BREAKS = "\n\r\x85\u2028\u2029"


def line_starts(text: str) -> array[int]:
    """The offset each line of `text` starts at, lines ending at LF, as
    kubectl, Helm and editors count them: libyaml counts a CR, NEL, U+2028
    and U+2029 too, which read refuses outside a quoted string, where a
    line number would count them. (8 bytes a line: a list's int objects
    took 40, 7.8 MiB for a ConfigMap of 200,000 lines.)"""
    starts = array("q", (0,))
    at = text.find("\n")
    while at != -1:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    return starts


def column(text: str, offset: int) -> int:
    """libyaml's column of an offset: characters since the line began (a
    byte-order mark, which libyaml skips, does not count)."""
    start = max(text.rfind(c, 0, offset) for c in _BREAKS) + 1
    if start == 0 and text.startswith("\ufeff"):
        start = 1
    return offset - start


def one_line(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] holds no line break."""
    return LINE_BREAK.search(text, start, end) is None


def children(node: Node) -> list[Node]:
    if isinstance(node, MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, SequenceNode):
        return list(node.value)
    return []


def read_entries(node: MappingNode) -> list[tuple[Node, Node]]:
    """The entries of a mapping Kubernetes reads: its own pairs, or where it
    holds a merge key, entries() in order. An entry another overrides (an
    explicit key a later `<<` sets again, or a merged one an explicit key
    does) is read nowhere: a name there is no reference, and a node shared
    with it is not read twice (fuzz62)."""
    pairs = node.value
    # The composer marks a small mapping of a text without `<<` (get's
    # search modes): most labels and annotations, asked of every object.
    if node.merge is _SEARCH_PLAIN or node.merge is _SEARCH or not any(
            k.value == MERGE_KEY and is_merge_key(k) for k, _ in pairs):
        return pairs
    return list(entries(node))


def read_children(node: Node) -> list[Node]:
    """children() as Kubernetes reads them: merge keys applied (read_entries)."""
    if isinstance(node, MappingNode):
        return [n for pair in read_entries(node) for n in pair]
    return children(node)


def unique_nodes(root: Node) -> list[Node]:
    """Every node under root once: an alias's target is not visited again."""
    seen: dict[int, Node] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen[id(node)] = node
            stack.extend(children(node))
    return list(seen.values())


def scalars(root: Node) -> Iterator[tuple[ScalarNode, tuple[str | int, ...], Node | None]]:
    """Every scalar value under root Kubernetes reads (merge keys applied:
    read_entries) once, with its path and the collection holding it."""
    seen: set[int] = set()
    stack: list[tuple[Node, tuple[str | int, ...], Node | None]] = [(root, (), None)]
    while stack:
        node, path, parent = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            yield node, path, parent
        elif isinstance(node, MappingNode):
            for key, value in reversed(read_entries(node)):
                if isinstance(key, ScalarNode):
                    stack.append((value, path + (key.value,), node))
        elif isinstance(node, SequenceNode):
            for i in range(len(node.value) - 1, -1, -1):
                stack.append((node.value[i], path + (i,), node))


def node_at(root: Node | None, path: tuple[str | int, ...]) -> Node | None:
    """The node at a path of keys and sequence indexes, or None."""
    node = root
    for part in path:
        if isinstance(part, int):
            node = node.value[part] if isinstance(node, SequenceNode) and 0 <= part < len(node.value) else None
        else:
            node = get(node, part)
    return node


# What makes a key read as more than one key, or as an index, if written bare.
_BRACKETED_KEY = LazyPattern(r"[./\[\]\"'\s\\]|\A\Z")


def format_path(path: tuple[str | int, ...]) -> str:
    """`spec.template.metadata.annotations["postrender.io/refs"]`: a key
    that holds a dot, a slash, a bracket, a quote or a space (or is empty)
    goes in brackets as a JSON string, so that the path reads back as the
    keys it is made of."""
    out: list[str] = []
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif _BRACKETED_KEY.search(part):
            out.append(f"[{json.dumps(part, ensure_ascii=False)}]")
        else:
            out.append(("." if out else "") + part)
    return "".join(out)
