"""One document composed by libyaml into a node graph, and checked once composed.

The text (or its mask) composed whole or through parts, within the limits;
offsets mended after a byte order mark, stand-ins joined back; the root
must be a mapping (a null document holds no object); the whole graph's
checks run where the composer could not vouch for the text; a List read
item by item though it shares nodes is checked as read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ruamel.yaml.error import YAMLError

from ...errors import PostrenderError
from ...lazyre import LazyPattern
from ...limits import Limits
from ...syntax.nodes import (
    Composer,
    MappingNode,
    Node,
    NotReadable,
    ScalarNode,
    SequenceNode,
    may_hold_tags,
    scalar_value,
    unique_nodes,
)
from .documents import _list_items
from .events import _check_depth, _may_nest_deeply, _parse_events
from .jsonfirst import _is_json_first, _unmask_surrogates
from .kubectl import _check_structure, _mark_explicit_str, _may_need_a_look, _unreadable
from .leftout import _EarlierKeys, _raise_earlier_in_text
from .lines import leading_source_comment, only_comments
from .masks import _anchors_renamed, _colons_hidden, _masked, _release
from .parts import _anchored, _Dropping, _FoldsNothing, _Items, _Masked, _SharingItems
from .shared import HeldShared, ItemsShared
from .yamlerrors import UnreadableText, _parse_error

if TYPE_CHECKING:
    from .count import _Count
    from .documents import Document
    from .parts import _Parts


def _compose(doc: Document, limits: Limits, count: _Count, parts: _Parts | None = None) -> Node | None:
    text = doc.text
    if not text or (text.isspace() or only_comments(text)) and not _may_not_be_blank_to_yaml(text):
        count.add_nodes(doc, _EMPTY_DOCUMENT_NODES)
        return None
    masked = _masked(doc)
    if _may_nest_deeply(text, limits.max_depth):
        _check_depth(doc, limits.max_depth, masked)
    if count.may_exceed(doc):
        # Counted in C before a single node is built: composing costs about
        # ten times as much, and what is refused here is never composed.
        # (A document whose bulk values are masked was counted so already.)
        count.check_nodes(doc, parts.events if isinstance(parts, _Masked) else _parse_events(doc, masked))
    root = _compose_root(doc, limits, masked, parts)
    count.add_nodes(doc, doc.nodes if root is not None else _EMPTY_DOCUMENT_NODES)
    return root


# A document without an object: its start, a null and its end.
_EMPTY_DOCUMENT_NODES = 3

# What a blank or comment-only document may hold and still be skipped
# unread: printable ASCII, spaces and line breaks. Python's isspace() counts
# a tab, VT, FF, NBSP and \x1c-\x1f as white space, which YAML does not: a
# line of them alone is content to go-yaml and libyaml, and a control
# character anywhere, in a comment too, is refused by both (syntax62,
# review62a). A document holding anything else is composed: libyaml then
# refuses it, or reads it blank (a comment's tab, a BOM, `# héllo`).
_NOT_YAML_BLANK = LazyPattern(r"[^\x20-\x7e\r\n]")


def _may_not_be_blank_to_yaml(text: str) -> bool:
    return _NOT_YAML_BLANK.search(text) is not None


def _compose_root(doc: Document, limits: Limits, masked: str | None, parts: _Parts | None) -> Node | None:
    text = doc.text
    root, events, plain = _composed(doc, masked, parts)
    if root is None:
        return None
    doc.nodes = events
    comment = leading_source_comment(text)
    # Most often the header's own file: one string held, not two equal ones
    # (some 70 bytes a document).
    doc.source_comment = doc.header_source if comment == doc.header_source else comment
    if isinstance(root, ScalarNode) and _is_null_document(doc, root):
        return None
    if not isinstance(root, MappingNode):
        shape = "sequence" if isinstance(root, SequenceNode) else "scalar"
        raise PostrenderError(
            f"a document must be a mapping (a Kubernetes object), found a {shape}",
            doc.at(doc.line_of(root)),
        )
    doc.root = root
    if not plain or _may_need_a_look(text):
        if parts.__class__ is _SharingItems and parts.took:  # type: ignore[union-attr]
            if _sharing_items_read(doc, root, limits, parts):  # type: ignore[arg-type]
                return root
            root = doc.root = None  # let go of it: composed again whole, read as any document
            return _compose_root(doc, limits, masked, None)
        try:
            _check_structure(doc, root, limits, parts.checked if isinstance(parts, _Items) else None)
        except _EarlierKeys:
            if isinstance(parts, _Items):
                parts.forget()  # its items are read again, once the entries are left out
            raise
        except PostrenderError as exc:
            raise UnreadableText(exc.message, exc.location) from None
        if _anchored(parts) and parts.shared:  # type: ignore[union-attr]
            # What the whole graph shares: the nodes its aliases name, all
            # folded values (_Dropping), those still in the tree among them.
            doc.shared = HeldShared(parts.shared)  # type: ignore[union-attr]
    return root


def _sharing_items_read(doc: Document, root: MappingNode, limits: Limits, parts: _SharingItems) -> bool:
    """Whether `root`, a List whose items were read one by one (_SharingItems),
    is read: the whole graph's walk passes it, and finds nodes shared. Else
    its items are forgotten, to be composed again whole."""
    if parts.kept:
        try:
            _check_structure(doc, root, limits, expanded=parts.expanded)
        except PostrenderError:  # _EarlierKeys too: its entries are the whole read's to find
            pass
        else:
            # Nodes shared: found by the walk (shared_nodes), or within the
            # items pruned. Where the text holds no `*` the walk leaves
            # _SHARING_ITEMS, taken as sharing. (Nor the `items` themselves
            # aliased: then every item is shared.)
            shared = doc.shared
            sharing = type(shared) is ItemsShared or len(shared) > 0 or parts.own_shares  # type: ignore[arg-type]
            if sharing and id(_list_items(root)) not in shared and parts.apart(root):
                doc.shared = ItemsShared(shared | parts.held, frozenset(parts.whole), parts.paths, parts.named)
                return True
    parts.forget()
    return False


def _is_null_document(doc: Document, root: ScalarNode) -> bool:
    """Whether kubectl skips a document that is one scalar, as it skips an
    empty one: it does where go-yaml v2 reads the scalar as null (`null`,
    `~`, `!!null`, `&a`). Any other scalar, a `|` or `>` block of text
    included, is a string, number or bool kubectl cannot read as an object;
    a `!!null` tag on something else (`!!null x`) go-yaml refuses."""
    if may_hold_tags(doc.text):
        _mark_explicit_str(doc.text, root)  # `!!str ~` is the string "~"
    try:
        return scalar_value(root) is None
    except NotReadable as exc:
        _unreadable(doc, root, str(exc))


def _composed(doc: Document, masked: str | None, parts: _Parts | None = None) -> tuple[Node | None, int, bool]:
    """(root, parse events, whether the text holds no tag or merge key and
    every mapping plain, distinct keys) of the document's text as read sees
    it: surrogate escapes joined back, offsets counted in the text.
    `parts`: parts of it are taken or dropped as they are composed: a List's
    items (_Items, _OnlyItems), or what no stage reads (_Dropping)."""
    text = masked or doc.text  # (a document composed in parts has no masked lines: _in_parts)
    loader = Composer(text) if parts is None else parts.composer(text)
    whole_again = False  # composed whole below, out of the clause: its frames let go of first
    try:
        root = loader.get_single_node()
    except _FoldsNothing:
        root, whole_again = None, True
    except YAMLError as exc:
        # (A document composed in parts holds no anchor, but where _Dropping
        # or _SharingItems allows them: composed whole, it says what the anchors are.)
        if parts.__class__ is _SharingItems:
            parts.forget()  # type: ignore[union-attr]
            # Composed whole below, its anchors renamed where one is defined
            # twice (as go-yaml reads them): that root is read as any
            # document's, not composed once more from the text as written,
            # which libyaml refuses (review65c).
            parts.took = False  # type: ignore[union-attr]
        elif not _anchored(parts):
            remade = (_anchors_renamed(doc, text, exc) or _colons_hidden(doc, text, exc)) if parts is None else None
            if remade is None:
                raise _parse_error(doc, exc) from None
            return _composed(doc, remade)
        root, whole_again = None, True
    finally:
        events, plain = loader.events, loader.plain_keys and loader.plain_text
        _release(loader)
    if whole_again:
        return _composed(doc, masked)
    if parts is not None and not parts.finish(root, loader, plain):
        if parts.__class__ is _Dropping and not _anchored(parts):
            # Keys not distinct, most often (the composer's, the set-aside
            # entries', or the folded data's), which the text may tell.
            root = None  # let go of it before the text is read
            _raise_earlier_in_text(doc)
        root = None  # (and of what the folder holds: composed whole, it is read from there)
        return _composed(doc, masked)  # read whole, as any document
    if root is not None:
        if masked is not None and _is_json_first(doc):
            _unmask_surrogates(root)
        if masked is not None and doc.source.colons_hidden \
                and doc.index - doc.source.first_document in doc.source.colons_hidden:  # (most sources: none)
            # Only this document's: another's U+E7FF is its own character.
            from ...syntax import flowcolons

            flowcolons.restore(root)
        if doc.text.startswith("\ufeff"):
            shift_offsets(root, 1)
    return root, events, plain


def shift_offsets(root: Node, by: int) -> None:
    """libyaml skips a leading byte-order mark and counts offsets from after
    it; edits are placed in the text that still holds it."""
    for node in unique_nodes(root):
        # Both read before either is set: a stub's end is its start plus a length.
        start, end = node.start_mark, node.end_mark
        node.start_mark = start + by
        node.end_mark = end + by
