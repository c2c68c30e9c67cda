"""The whole graph's checks that make postrender read what kubectl reads.

Run on a composed document before anything walks it (_check_structure):
keys as go-yaml v2 and sigs.k8s.io/yaml give them to Kubernetes (two that
meet as one, merge keys), scalars JSON cannot hold, tags, `\\/` escapes,
alias bombs. Only a document whose text may hold one of these is walked
(_may_need_a_look).
"""

from __future__ import annotations

from collections.abc import Container
from typing import TYPE_CHECKING, NoReturn

from ...errors import PostrenderError
from ...limits import Limits
from ...printable import quoted
from ...syntax.nodes import (
    BINARY_TAG,
    EXPLICIT_STR_STYLE,
    MERGE_KEY,
    NONFINITE_WORDS,
    PLAIN_HINTS,
    PROPERTIES,
    SIGNED_ZERO_LABELS,
    STR_TAG,
    MappingNode,
    Node,
    NotReadable,
    ScalarNode,
    SequenceNode,
    children,
    entries_by_go_key,
    forget_keys,
    go_key,
    is_float_zero,
    is_merge_key,
    json_key,
    json_value,
    may_hold_anchors,
    may_hold_nonfinite,
    may_hold_tags,
    plain_json_key,
    scalar_value,
)
from .jsonfirst import _ESCAPE, _is_json_first, _one_stream_note
from .leftout import _VALUE_MAPPINGS, _Earlier, _EarlierKeys
from .shared import shared_nodes

if TYPE_CHECKING:
    from .documents import Document

_SLASH_HINT = (
    "a \\/ escape in a double-quoted string: go-yaml v2 (kubectl, Helm) reads it only in a JSON document that"
    " starts the stream; write / instead"
)


def _may_need_a_look(text: str) -> bool:
    """Whether a document whose text holds no tag or merge key and whose
    mappings all have plain, distinct keys (the composer tells) may still
    hold something _check_structure refuses, which only a walk of the node
    graph finds: an anchor (and so aliases), a `\\/` escape, an infinite or
    NaN number. Most documents hold none of these, and are not walked
    again; each is looked for in the text at C speed, then where a node may
    start (may_hold_anchors, may_hold_nonfinite)."""
    return may_hold_anchors(text) or _may_need_a_look_but_for_anchors(text)


def _may_need_a_look_but_for_anchors(text: str) -> bool:
    """_may_need_a_look's other questions, asked alone where anchors are
    checked as the parts come (_in_parts)."""
    return "\\/" in text or may_hold_nonfinite(text)


def _check_structure(doc: Document, root: Node, limits: Limits, checked: Node | None = None,
                     expanded: int = 0) -> None:
    """Refuse duplicate keys, alias bombs and what kubectl cannot read
    before anything walks the graph. `checked`: a node of it checked
    already, not walked again (a List's items, each checked as it was
    composed: _Items); `expanded`: how far the aliases of items pruned
    once checked expanded beyond what they wrote (_SharingItems)."""
    text = doc.text
    # Without an anchor there is no alias: every node is reached once.
    anchors = may_hold_anchors(text)
    if anchors:
        _expansion(doc, root, limits.max_expanded_nodes, expanded)
        if "*" in text:
            doc.shared = shared_nodes(root)
    _check_nodes(doc, root, anchors, may_hold_tags(text), "\\/" in text and not _is_json_first(doc), checked)


def _check_nodes(doc: Document, root: Node, anchors: bool, tags: bool, slashes: bool,
                 checked: Node | None = None, shared: Container[int] | None = None) -> None:
    """_check_structure's walk of the nodes under `root` (but `checked`),
    with what the document's text says it may hold: anchors, tags, `\\/`
    escapes. A List's item is walked alone as the whole graph's walk would
    reach it: its keys shown, as the root's are. `shared`: the ids of the
    nodes aliases share (doc.shared, or an item's own: _SharingItems)."""
    seen_nodes: set[int] = set()
    earlier: list[_Earlier] = []
    # Each node with what a message may say about its keys: None, anything;
    # ("keys", field), the keys only (a data mapping); ("hidden", where),
    # nothing (inside a value, or shared through an alias); _DROPPED,
    # inside the value of an entry a later one overrides.
    stack: list[tuple[Node, tuple[str, str] | None]] = [(root, None)]
    if shared is None:
        shared = doc.shared
    push = stack.append
    while stack:
        node, shown = stack.pop()
        if node is checked:
            continue
        dropped = shown is _DROPPED
        if isinstance(node, ScalarNode):
            # Untagged, only a plain .inf or .nan needs a look.
            if tags or not node.style and node.value in NONFINITE_WORDS and not dropped:
                _check_scalar(doc, node, tags, shown is None, dropped)
            if slashes and node.style == '"':
                _check_escapes(doc, node)
            continue
        if anchors:
            key = id(node)
            if key in seen_nodes:
                continue
            if not dropped:  # reached by another path, it is read there: checked as read
                seen_nodes.add(key)
            if key in shared and shown is None:
                shown = ("hidden", "a mapping an alias uses")
        if isinstance(node, MappingNode):
            if dropped:
                _check_dropped_mapping(doc, node, tags)
            else:
                before = len(earlier)
                _check_mapping(doc, node, tags, shown, earlier)
                overridden = {entry.index for entry in earlier[before:]} if len(earlier) > before else None
            if slashes:
                for k, _ in node.value:
                    if k.style == '"':
                        _check_escapes(doc, k)
            if dropped or overridden:
                for at, (k, v) in enumerate(node.value):
                    push((v, _DROPPED if dropped or at in overridden else _inside(shown, k)))
            elif shown is None:
                # _check_mapping refused any key that is not a scalar.
                for k, v in node.value:
                    push((v, ("keys", k.value) if k.value in _VALUE_MAPPINGS else None))
            else:
                for k, v in node.value:
                    push((v, _inside(shown, k)))
        else:
            inner = _inside(shown, None)
            for item in node.value:
                push((item, inner))
    if earlier:
        # Only now: what else the document holds, the values dropped too,
        # is refused first, as kubectl refuses it.
        raise _EarlierKeys(doc, earlier)


# What _check_structure knows of a value that a later entry overrides: go-yaml
# v2 decodes it, and fails on what it cannot decode (a bad tag, a merge key
# of no mapping, a collection as a key), but sigs.k8s.io/yaml never turns it
# into JSON, where a null key, `.inf` or two keys meeting as one would fail.
_DROPPED = ("dropped", "")


def _check_dropped_mapping(doc: Document, node: MappingNode, tags: bool) -> None:
    """What go-yaml v2 refuses of a mapping inside an overridden value."""
    for key, value in node.value:
        if not isinstance(key, ScalarNode):
            _unreadable(doc, key, "a mapping or sequence used as a key")
        if tags:
            _mark_explicit_str(doc.text, key)
        if key.value == MERGE_KEY and is_merge_key(key):
            _check_merge(doc, key, value)
        elif tags:
            try:
                scalar_value(key)
            except NotReadable as exc:
                _unreadable(doc, key, str(exc))


def _inside(shown: tuple[str, str] | None, key: Node | None) -> tuple[str, str] | None:
    """What a message may show of the keys under `key` of a mapping shown as `shown`."""
    name = key.value if isinstance(key, ScalarNode) else "?"
    if shown is None:
        return ("keys", name) if name in _VALUE_MAPPINGS else None
    if shown[0] == "keys":
        return ("hidden", f"{shown[1]}.{name}")
    return shown


_NAN_KEYS = "NaN, which equals no other value"


def _random_key(doc: Document, first: ScalarNode, key: ScalarNode, label: str, shown: tuple[str, str] | None,
                merged: bool = False, why: str = "YAML 1.1 reads them as values of different types") -> PostrenderError:
    """Two keys go-yaml keeps apart (values of different types, or NaNs)
    that sigs.k8s.io/yaml turns into one JSON key, `label`, picking either
    value. `merged`: one of them is merged in with <<."""
    how = " (one merged with <<)" if merged else ""
    if shown is not None and shown[0] == "hidden":
        return PostrenderError(
            f"two keys{how} of a mapping inside the value of {shown[1]} reach Kubernetes as one, and which value"
            " wins is random (not shown: values may be secret)",
            doc.location(key),
        )
    return PostrenderError(
        f"keys {_as_written(doc, first)} and {_as_written(doc, key)}{how or ' of a mapping'} both reach Kubernetes as"
        f" {quoted(label)} ({why}), and which value wins is random;"
        " quote both or remove one",
        doc.location(key),
    )


def _as_written(doc: Document, key: ScalarNode) -> str:
    """A key for a message as the text writes it (its quotes, its tag), so
    that two that differ in type alone read apart: `1` and `'1'`, not '1'
    and '1' (leak62). On one line: a key written over several is cut."""
    written = doc.text[key.start_mark:key.end_mark].splitlines()[:1]
    # (Its value where the text there is not the key's: escapes written in it.)
    return f"`{written[0] if written and key.value in written[0] else key.value}`"


def _duplicate_key(doc: Document, key: ScalarNode, shown: tuple[str, str] | None) -> PostrenderError:
    if shown is not None and shown[0] == "hidden":
        return PostrenderError(
            f"duplicate key in a mapping inside the value of {shown[1]} (not shown: values may be secret)",
            doc.location(key),
        )
    return PostrenderError(f"duplicate key {quoted(key.value)} in a mapping", doc.location(key))


def _check_scalar(doc: Document, node: ScalarNode, tags: bool, outside_data: bool, dropped: bool = False) -> None:
    """`outside_data`: not in a data, binaryData or stringData mapping's
    values; `dropped`: inside a value a later entry overrides (_DROPPED)."""
    # Where no `!` may start a tag (may_hold_tags) every scalar is untagged: no tag to read
    # (ruamel builds node.tag anew on each access). A `!!str` written gives
    # the plain scalar a style first: `!!str .inf` is text (oracle61).
    explicit_str = tags and node.tag == STR_TAG and _mark_explicit_str(doc.text, node)
    if not node.style and node.value in NONFINITE_WORDS and (not tags or node.tag == STR_TAG) and not dropped:
        _unreadable(doc, node, "an infinite or NaN number (.inf, .nan), which JSON cannot hold")
    if not tags or explicit_str or node.tag == STR_TAG:
        return
    try:
        scalar_value(node) if dropped else json_value(node)
    except NotReadable as exc:
        _unreadable(doc, node, str(exc))
    if outside_data and not dropped and node.tag == BINARY_TAG:
        # Kubernetes reads its decoded text: a name written so would be
        # matched, rewritten and guarded as its base64, and left dangling.
        raise PostrenderError(
            "a !!binary value outside data, binaryData or stringData: Kubernetes reads its decoded text, and "
            "postrender reads names and references as written; write the text itself",
            doc.location(node),
        )


def _check_escapes(doc: Document, node: ScalarNode) -> None:
    start = doc.text.index('"', node.start_mark)
    if any(m.group() == "\\/" for m in _ESCAPE.finditer(doc.text, start, node.end_mark)):
        raise PostrenderError(_SLASH_HINT + _one_stream_note(doc), doc.location(node))


def _check_mapping(doc: Document, node: MappingNode, tags: bool, shown: tuple[str, str] | None,
                   earlier: list[_Earlier]) -> None:
    """Keys as Kubernetes gets them (go-yaml v2 through sigs.k8s.io/yaml):
    `y` and `yes` are both "true", `1` and `0x1` both "1". Of two keys that
    reach it alike, go-yaml keeps the last where it holds them equal (the
    earlier entry is added to `earlier`, for read to drop),
    and sigs.k8s.io/yaml picks one at random where they differ in type
    (`1` and `'1'`): refused."""
    keys: dict[str, int] = {}  # JSON key -> the index of the entry that has it
    merges = False
    for at, (key, value) in enumerate(node.value):
        if not isinstance(key, ScalarNode):
            _unreadable(doc, key, "a mapping or sequence used as a key")
        if tags and _mark_explicit_str(doc.text, key):
            forget_keys(node)  # a message may have looked a key up already
        label = key.value
        if label == MERGE_KEY and is_merge_key(key):
            merges = True
            _check_merge(doc, key, value)
            continue
        if tags or not key.style and (not label or label[0] in PLAIN_HINTS):
            # Most keys are quoted or plain words, which read as their text.
            try:
                label = json_key(key) if tags else plain_json_key(label)
            except NotReadable as exc:
                _unreadable(doc, key, str(exc))
            if label in SIGNED_ZERO_LABELS:
                _one_float_zero(node, keys, label, key, shown, earlier)
        first = keys.get(label)
        if first is not None:
            written, identity = node.value[first][0], go_key(key)
            if identity[0] == "node" and label == ".nan":  # NaN equals no NaN: go-yaml keeps both (oracle61)
                both = go_key(written)[0] == "node"  # type: ignore[index]  # else a string ".nan" (review61c)
                raise _random_key(doc, written, key, label, shown, **({"why": _NAN_KEYS} if both else {}))
            if identity[0] == "node":  # a null or unreadable key: go-yaml cannot use it
                raise _duplicate_key(doc, key, shown)
            if go_key(written) != identity:
                raise _random_key(doc, written, key, label, shown)  # type: ignore[arg-type]
            earlier.append(_Earlier(node, first, key, shown))
        keys[label] = at
    if merges:
        _check_merged_keys(doc, node, shown)


def _one_float_zero(node: MappingNode, keys: dict[str, int], label: str, key: ScalarNode,
                    shown: tuple[str, str] | None, earlier: list[_Earlier]) -> None:
    """`0.0` and `-0.0` are one key in go-yaml's map (float64s, equal),
    which takes the later one's spelling too (Go updates a float key): of
    two JSON keys, "0" and "-0", Kubernetes gets the later only (oracle61).
    The earlier entry is left out as any overridden one is."""
    other = SIGNED_ZERO_LABELS[label]
    twin = keys.get(other)
    if twin is not None and is_float_zero(key, label) and is_float_zero(node.value[twin][0], other):
        earlier.append(_Earlier(node, twin, key, shown))
        del keys[other]


def _mark_explicit_str(text: str, node: ScalarNode) -> bool:
    """Give a plain scalar written with a `!!str` tag EXPLICIT_STR_STYLE,
    which tells it from an untagged one (nodes.is_string); whether it did."""
    if node.tag == STR_TAG and not node.style and _has_tag(text, node):
        node.style = EXPLICIT_STR_STYLE
        return True
    return False


def _check_merge(doc: Document, key: ScalarNode, value: Node) -> None:
    """go-yaml v2 merges a mapping, an alias of one, or a sequence of those."""
    # An alias is the node it names, which the text defines before the key.
    aliased = value.start_mark < key.start_mark
    if isinstance(value, MappingNode):
        return
    if isinstance(value, SequenceNode) and not aliased and all(isinstance(v, MappingNode) for v in value.value):
        return
    _unreadable(doc, value, "a merge key (<<) needs a mapping, an alias of one, or a list of them")


def _check_merged_keys(doc: Document, node: MappingNode, shown: tuple[str, str] | None) -> None:
    """Merged keys of different types that Kubernetes gets as one key (`1` and
    `'1'`): go-yaml keeps both and sigs.k8s.io/yaml picks one at random.
    `shown`: what the message may show of the keys (_check_structure)."""
    seen: dict[str, tuple[object, Node]] = {}
    for key, _ in entries_by_go_key(node):
        label = json_key(key)
        identity = go_key(key)
        if label in seen and seen[label][0] != identity:
            nan = label == ".nan" and identity[0] == seen[label][0][0] == "node"  # type: ignore[index]
            raise _random_key(doc, seen[label][1], key, label, shown, merged=True,  # type: ignore[arg-type]
                              **({"why": _NAN_KEYS} if nan else {}))
        seen[label] = (identity, key)


def _unreadable(doc: Document, node: Node, what: str) -> NoReturn:
    raise PostrenderError(f"{what}: kubectl and Helm cannot read this document", doc.location(node))


def _has_tag(text: str, node: Node) -> bool:
    start = node.start_mark
    if text[start : start + 1] not in ("!", "&"):
        return False
    match = PROPERTIES.match(text, start)
    return match is not None and any(token.startswith("!") for token in match.group().split())


def _expansion(doc: Document, root: Node, limit: int, expanded: int = 0) -> int:
    """How many nodes the aliases under `root` add, expanded, to those
    written. Refuses a document whose aliases add more than `limit` nodes
    (--max-expanded-nodes), `expanded` of them counted already (a List's
    items pruned once checked: _SharingItems), as an alias bomb, computed
    without expanding it. What is written is bounded by --max-nodes: a
    dense document holding one small alias is no bomb, however many
    nodes it writes."""
    room = limit - expanded
    # Keyed by the nodes themselves, hashed by identity, as in
    # shared_nodes and path_counts: an id is an int object of its own per node
    # (a List of 4,000 apps and one alias: +41 -> +30 MiB traced at its peak).
    sizes: dict[Node, int] = {}
    on_path: set[Node] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if children_done:
            on_path.discard(node)
            total = 1 + sum(sizes[child] for child in children(node))
            sizes[node] = total
            # The distinct nodes under this one are among those sized so
            # far, so aliases under it add at least total - len(sizes): a
            # bomb is refused at the first node past the limit. At the root
            # the two are equal.
            if total - len(sizes) > room:
                raise PostrenderError(
                    f"aliases expand to more than {limit} nodes beyond those written (an alias bomb?)",
                    doc.location(node),
                )
            continue
        if node in sizes:
            continue
        if node in on_path:
            raise PostrenderError("recursive alias: a node contains itself", doc.location(node))
        if isinstance(node, ScalarNode):
            sizes[node] = 1
            continue
        on_path.add(node)
        stack.append((node, True))
        for child in children(node):
            if child not in sizes:
                stack.append((child, False))
    return sizes[root] - len(sizes)
