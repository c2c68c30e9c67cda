"""Stage 1: text → documents → Kubernetes objects.

The stream is split on `---` lines at column 0. YAML forbids such a line
inside any scalar or collection, so the split is exact, and each document can
be composed on its own: errors carry the document, and untouched documents are
written back byte for byte.
"""

from __future__ import annotations

import bisect
import math
import os
import re
from functools import cache, lru_cache
from array import array
from collections.abc import Callable, Collection, Container, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

from ruamel.yaml.error import MarkedYAMLError, YAMLError

from ..printable import quoted
from .. import fieldspecs
from ..errors import Location, PostrenderError
from ..vocabulary import KRM_RESOURCE_LIST, PATH_ANNOTATIONS
from ..records import field, record, replace
from ..report import Diagnostic
from ..limits import MAX_DEPTH_CEILING, Limits
from ..syntax.nodes import (
    BINARY_TAG,
    EXPLICIT_STR_STYLE,
    MERGE_KEY,
    PROPERTIES,
    SIGNED_ZERO_LABELS,
    STR_TAG,
    YAML_TAG_PREFIX,
    Composer,
    DroppingComposer,
    Fold,
    ListComposer,
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
    StringItems,
    drop_item,
    NONFINITE_WORDS,
    NotReadable,
    PLAIN_HINTS,
    Reach,
    anchors_are_values_within,
    anchors_may_all_be_values,
    children,
    read_children,
    entries,
    entries_by_go_key,
    flow_openings,
    forget_keys,
    get,
    get_str,
    go_key,
    is_float_zero,
    is_merge_key,
    is_null,
    is_string,
    json_key,
    json_value,
    line_starts,
    may_hold_aliases,
    may_hold_anchors,
    may_hold_merge_keys,
    may_hold_nonfinite,
    may_hold_tags,
    node_at,
    not_a_string_hint,
    plain_json_key,
    scalar_value,
    shared_int,
    string_map,
    string_value,
    unique_nodes,
)
from ..lazyre import LazyPattern
from . import packed
from .packed import PackedTexts

if TYPE_CHECKING:
    from ..syntax import blockkeys
    from ..syntax.earlier import Aliases, Cut, Cuts, CutsOf, DocumentCuts

HELM4_FILENAME_ANNOTATION = "postrenderer.helm.sh/postrender-filename"
# kustomize's record of the file an object came from, with `buildMetadata:
# [originAnnotations]`: YAML in the annotation, `path:` (or, generated,
# `configuredIn:` the kustomization) a line of it.
KUSTOMIZE_ORIGIN_ANNOTATION = "config.kubernetes.io/origin"
_ORIGIN_FILE_KEYS = ("path:", "configuredIn:")


def file_annotated(annotations: Callable[[str], str | None]) -> str | None:
    """The file an orchestrator that wrote the stream again says an object
    came from (Helm 4, kustomize, kpt), by its annotations (`annotations`:
    a lookup): the stream's lines are not that file's."""
    named = annotations(HELM4_FILENAME_ANNOTATION)
    if named:
        return named
    origin = annotations(KUSTOMIZE_ORIGIN_ANNOTATION)
    named = _origin_file(origin) if origin else None
    if named:
        return named
    return next((path for annotation in PATH_ANNOTATIONS if (path := annotations(annotation))), None)


def _origin_file(origin: str) -> str | None:
    """The `path:` (else `configuredIn:`) of kustomize's origin annotation, a
    line of its own at the top level, quotes taken off. Read line by line,
    in linear time: a pattern's backtracking over a run of blanks took
    minutes on one 250 KB annotation (an outside tester's find)."""
    found: dict[str, str] = {}
    for line in origin.splitlines():
        for key in _ORIGIN_FILE_KEYS:
            if line.startswith(key) and key not in found:
                value = line[len(key):].strip(" \t")
                if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                    value = value[1:-1]
                if value:
                    found[key] = value
    return next((found[key] for key in _ORIGIN_FILE_KEYS if key in found), None)

# Go's white space (unicode.IsSpace), which its strings.TrimSpace strips.
_GO_SPACE = " \t\n\v\f\r\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
# A document separator line as kubectl reads one (apimachinery's YAMLReader
# reads lines, LF-ended, and takes one that starts with `---` for a
# separator when what follows, trimmed of Go white space, is nothing or a
# comment): as a pattern, which opens_with_marker tests by hand (faster),
# and a test checks the two agree.
_DOCUMENT_START = LazyPattern("^---[" + _GO_SPACE.replace("\n", "") + "]*(?:#.*)?$", re.M)
_SOURCE_COMMENT = re.compile(r"^# Source: (.+?)\r?$", re.M)
_MARKER_LINE = re.compile(r"---(?:[ \t]*#.*)?|\.\.\.(?:[ \t]+#.*)?")
# Line breaks to libyaml (YAML 1.1) that are not LF or CRLF. Edits are placed
# by LF lines, so one between nodes would put an edit in the wrong place:
# such a document is refused. Inside a quoted scalar they are only content
# (kubectl kustomize writes U+2028 that way), and the scalar is edited whole.
# Line breaks YAML 1.1 reads that kubectl's line splitting does not, and a
# byte order mark that starts a line: libyaml skips one at any line start,
# kubectl only at the start of a file (elsewhere it reads it as text).
_ODD_LINE_BREAK = LazyPattern("\r(?!\n)|[\x85\u2028\u2029]|(?<=\n)\ufeff")
_LONE_CR = LazyPattern("\r(?!\n)")


class Source:
    """One input: a file, or standard input.

    Its text is held once. Once read() has split it, the documents' chunks
    are the text, and `text` joins them again only when asked (a KRM answer
    after a failure): a stream is never held both whole and in chunks. In a
    large stream the chunks are held compressed (pipeline/packed.py).
    """

    __slots__ = ("name", "size", "_text", "_chunks", "_packed", "first_document", "first_lines", "_rendered",
                 "left_out", "cuts", "anchors_renamed", "colons_hidden")

    def __init__(self, name: str | None, text: str) -> None:
        if text and not text.endswith("\n"):
            # kubectl and Helm read a manifest line by line, each given a
            # line break (apimachinery's LineReader), the last one too: a
            # block scalar ending the input without one holds a final
            # newline for them (`a: |` then `  b` is "b\n"), and so for the
            # content hash. A final CR becomes a CRLF, as it does for them.
            # Where the line before ends in CRLF, so does the last: both read
            # alike, and the output keeps one line ending.
            last = text.rfind("\n")
            text += "\r\n" if last > 0 and text[last - 1] == "\r" and not text.endswith("\r") else "\n"
        self.name = name
        self.size = len(text)  # in characters
        self._text: str | None = text
        self._chunks: list[str] = []
        self._packed: PackedTexts | None = None
        self.first_document = 0  # the stream's index (Document.index) of its first document, once read
        # The 0-based line each of its documents starts on, once read: 8
        # bytes a document, where an int object each was 28 and a slot.
        self.first_lines = _NO_LINES
        # Of each document Helm 3 headed with its chart file, where in that
        # file's rendered text it sits (Document.rendered): a Rendered's two
        # numbers a document, an origin of -1 where there is none. 16 bytes a
        # document, where a Rendered and its int were some 80 and a slot
        # (25,000 small apps: 149 -> 144 MiB); none where no header is.
        self._rendered: array[int] | None = None
        # Of each document (0-based) whose text read masked entries in
        # (_drop_earlier_keys), and said so in lines of its own: those, for
        # a read of the same source again (a KRM functionConfig's options)
        # to give its documents too.
        self.left_out: dict[int, Sequence[Diagnostic]] = {}
        # The cuts of those documents, and of every other read masked
        # entries in (Document.left_out): the writer's, never forgotten.
        # None where there are none (most sources: asked of each document).
        self.cuts: DocumentCuts | None = None
        # Of each document (0-based) that defines an anchor again, which
        # libyaml's composer refuses and go-yaml reads (syntax/anchors.py):
        # the text it is composed from, and that text with the anchors
        # renamed (None: they could not be, and it is refused).
        self.anchors_renamed: dict[int, tuple[str, str | None]] = {}
        # Likewise of each document holding a `:` in a flow collection's
        # plain scalar (`[--addr=:8080]`), which go-yaml reads and libyaml
        # 0.1.7 refuses (syntax/flowcolons.py): the text, and that text
        # with those hidden.
        self.colons_hidden: dict[int, tuple[str, str]] = {}

    @property
    def text(self) -> str:
        if self._text is not None:
            return self._text
        return self._packed.whole() if self._packed is not None else "".join(self._chunks)

    def held_in(self, chunks: list[str]) -> None:
        """From now on the text is these chunks, which join to it (the
        source keeps the list, and replaces a chunk in it in place)."""
        self._chunks, self._text = chunks, None

    def pack(self, starts: Sequence[int]) -> None:
        """From now on the text is held compressed, cut into documents
        where `starts` say."""
        self._packed, self._text = PackedTexts(self.text, starts), None

    def replace_document_text(self, document: int, text: str) -> None:
        """Its `document`th document's text (0-based) is `text` from now
        on, of the same length: read masks entries it drops
        (_drop_earlier_keys), which every later reader of the text must
        not meet either."""
        if self._packed is not None:
            self._packed.replace(document, text)
        else:
            self._chunks[document] = text  # in place: a copy per document would be quadratic

    def read_as(self, first_document: int, first_lines: array[int]) -> None:
        """Its documents are read as the stream's from `first_document`,
        starting on `first_lines`: what an earlier read found is forgotten."""
        self.first_document, self.first_lines, self._rendered = first_document, first_lines, None

    def rendered(self, document: int) -> Rendered | None:
        """Where its `document`th document (0-based) sits in its chart
        file's rendered text, if known."""
        held = self._rendered
        if held is None or held[2 * document + 1] < 0:
            return None
        return Rendered(held[2 * document], held[2 * document + 1])

    def set_rendered(self, document: int, rendered: Rendered | None) -> None:
        if self._rendered is None:
            if rendered is None:
                return
            self._rendered = array("q", (0, -1)) * len(self.first_lines)
        at = 2 * document
        self._rendered[at], self._rendered[at + 1] = (rendered.before, rendered.origin) if rendered else (0, -1)

    def left_out_warnings(self) -> list[Diagnostic]:
        """What reading said it left out (text_left_out), in the text's order."""
        return [said for _, warnings in sorted(self.left_out.items()) for said in warnings]

    def forget_left_out(self) -> None:
        """Forgets what read said it left out, for a render that reads the
        source no more and echoes none of it (a released render: the writer
        reads the cuts alone)."""
        self.left_out.clear()

    def cuts_of(self, document: int) -> CutsOf | tuple[()]:
        """The cuts read masked in its `document`th document (0-based), in order."""
        return () if self.cuts is None else self.cuts.of(document)

    def set_cuts(self, document: int, cuts: Sequence[Cut]) -> None:
        if self.cuts is None:
            from ..syntax.earlier import DocumentCuts  # few sources hold a key twice

            self.cuts = DocumentCuts()
        self.cuts.set(document, cuts)

    def text_left_out(self) -> str:
        """Its text as read, without the entries read left out
        (_drop_earlier_keys), where `text` holds them masked: what an answer
        that echoes the input (a KRM function's, on an error) writes."""
        if not self.cuts:
            return self.text
        parts = []
        for document in range(len(self.first_lines)):
            text = self.document_text(document)
            at = 0
            for cut in self.cuts_of(document):
                parts.append(text[at : cut.start])
                at = cut.end
            parts.append(text[at:])
        return "".join(parts)

    def document_text(self, document: int) -> str:
        """The text of its `document`th document (0-based), once held in
        chunks or packed."""
        return self._chunks[document] if self._packed is None else self._packed.text(document)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Source) and (self.name, self.size) == (other.name, other.size) and \
            self.text == other.text

    def __hash__(self) -> int:
        return hash((self.name, self.size))

    def __repr__(self) -> str:
        return f"Source(name={quoted(self.name)}, size={self.size})"


# The first lines of a source not read (yet): each document's is 0.
_NO_LINES = array("q")


@record(eq=False)
class _Seldom:
    """What few documents hold (Document.shared, line_starts,
    items_kept_for_edits): one slot of a Document for the three, unset in
    most (100,000 tiny ConfigMaps: 1.5 MiB)."""

    shared: frozenset[int] | KeptShared = frozenset()
    line_starts: array[int] | None = None
    items_kept_for_edits: frozenset[int] = frozenset()


@record(eq=False)
class Document:
    index: int  # 1-based, across all sources
    text: str
    source: Source
    root: Node | None
    newline: str
    source_comment: str | None = None
    # A `# Source:` comment heading the chunk, known before it is composed.
    header_source: str | None = None
    # Its size in libyaml's parse events (see Limits.max_nodes).
    nodes: int = 0
    # Whether what read kept of the node graph can take new keys: False when
    # it kept no metadata or pod templates (pipeline/needs.py), and an edit
    # that gives a mapping keys composes the document again (rewrite.py).
    kept_for_edits: bool = True
    # shared, line_starts and items_kept_for_edits, where one is set.
    _seldom: _Seldom | None = None

    @property
    def shared(self) -> frozenset[int] | KeptShared:
        """Ids of nodes reachable by more than one path (through aliases): an
        edit to one of them shows up at every alias. Once the document is
        pruned (pipeline/needs.py), those of the nodes it still holds (KeptShared)."""
        seldom = self._seldom
        return _NO_IDS if seldom is None else seldom.shared

    @shared.setter
    def shared(self, ids: frozenset[int] | KeptShared) -> None:
        self._set_seldom("shared", ids, not ids)

    @property
    def line_starts(self) -> array[int] | None:
        """Where each line of the text starts, once a line is asked for."""
        seldom = self._seldom
        return None if seldom is None else seldom.line_starts

    @line_starts.setter
    def line_starts(self, starts: array[int] | None) -> None:
        self._set_seldom("line_starts", starts, starts is None)

    @property
    def items_kept_for_edits(self) -> frozenset[int]:
        """Of a List that is not kept_for_edits, the items that can take keys
        themselves (configs whose edits were not made ahead, kept whole; in a
        run that gives most workloads keys, those that may get them): their
        edits need not compose the whole List again."""
        seldom = self._seldom
        return _NO_IDS if seldom is None else seldom.items_kept_for_edits

    @items_kept_for_edits.setter
    def items_kept_for_edits(self, items: frozenset[int]) -> None:
        self._set_seldom("items_kept_for_edits", items, not items)

    def _set_seldom(self, name: str, value: object, unset: bool) -> None:
        """Sets one of _Seldom's; `unset`: `value` is its default. Where all
        three are, the record goes: read drops the table of lines it made
        for a message of each document holding a key twice (40,000 of them:
        2 MiB of records held for nothing)."""
        seldom = self._seldom
        if seldom is None:
            if unset:
                return
            seldom = self._seldom = _Seldom()
        setattr(seldom, name, value)
        if not seldom.shared and seldom.line_starts is None and not seldom.items_kept_for_edits:
            self._seldom = None

    @property
    def left_out(self) -> CutsOf | tuple[()]:
        """Entries a later one with an equal key overrides, masked in `text`
        and left out as the document is written (_drop_earlier_keys): held
        by its source (Source.cuts_of), in order."""
        return self.source.cuts_of(self.index - self.source.first_document)

    @property
    def rendered(self) -> Rendered | None:
        """Where it sits in its chart file's rendered text, once Helm named
        the file: held by its source (Source.rendered)."""
        return self.source.rendered(self.index - self.source.first_document)

    @rendered.setter
    def rendered(self, rendered: Rendered | None) -> None:
        self.source.set_rendered(self.index - self.source.first_document, rendered)

    @property
    def first_line(self) -> int:
        """The 0-based line of the chunk within its source (Source.first_lines)."""
        lines = self.source.first_lines
        at = self.index - self.source.first_document
        return lines[at] if 0 <= at < len(lines) else 0

    def line_of(self, node: Node) -> int:
        return self.first_line + self.chunk_line(node.start_mark) + 1

    def chunk_line(self, offset: int) -> int:
        """The 0-based line of an offset in the chunk (lines end at LF: line_starts)."""
        if self.line_starts is None:
            self.line_starts = line_starts(self.text)
        return bisect.bisect_right(self.line_starts, offset) - 1

    def at(self, line: int) -> Location:
        """The document at a 1-based stream line, before objects are known."""
        where = self.where
        return Location(self.index, where, line=line, rendered_line=self.rendered_line(line),
                        stream_line=self._names_another_file(where))

    def _names_another_file(self, where: str | None) -> bool:
        """Whether `where` (self.where) is a file an annotation names, whose
        lines the stream's are not: a stream Helm 4 or kustomize wrote
        again. A `# Source:` comment's and an input file's lines are."""
        return where is not None and where != self.source.name and where != self.header_source and \
            where != leading_source_comment(self.text)

    @property
    def where(self) -> str | None:
        """Where it comes from, as a message names it: its chart file
        (`# Source:`, Helm 4's annotation), else its file. Helm 4's
        annotation is read from the root while no object is made of it
        yet: a structural error (a duplicate key) comes before."""
        return self.source_comment or self.header_source or self._annotated_file() or self.source.name

    def _annotated_file(self) -> str | None:
        root = self.root
        if not isinstance(root, MappingNode):
            return None
        annotations = get(get(root, "metadata"), "annotations")
        return file_annotated(lambda key: get_str(annotations, key)) if isinstance(annotations, MappingNode) else None

    def rendered_line(self, line: int) -> int | None:
        if self.rendered is None:
            return None
        rendered = self.rendered.line(line - self.first_line - 1)
        return rendered if rendered >= 1 else None  # a line Helm wrote before the template's first

    def paths_to(self, targets: Collection[int]) -> dict[int, int]:
        """How many paths Kubernetes reads lead from the root to each node
        of `targets` (ids): 1 unless it is shared; one through an entry
        another overrides is read nowhere (read_children). Of a pruned
        document, as counted in the whole graph (KeptShared), for its shared
        nodes (the others: 1)."""
        shared = self.shared
        if self.root is None or not any(target in shared for target in targets):
            return dict.fromkeys(targets, 1)
        if type(shared) is KeptShared:
            return {target: shared.paths_to(target) for target in targets}
        if type(shared) is ItemsShared and shared.paths:
            # An item pruned once checked: counted in it as composed (_SharingItems).
            counted = {target: shared.paths[target] for target in targets if target in shared.paths}
            rest = [target for target in targets if target not in counted]
            return {**counted, **path_counts(self.root, rest)} if rest else counted
        return path_counts(self.root, targets)

    def location(self, node: Node | None = None, kind: str | None = None, name: str | None = None,
                 line: int | None = None, offset: int | None = None) -> Location:
        """`line`: a stream line found in the text, where no node says it;
        `offset`: a place in the text, where no node says it."""
        if node is not None:
            offset = node.start_mark
        if kind is None and name is None and isinstance(self.root, MappingNode):
            # Structural errors come before objects exist; the root still says
            # what it is (as it said before it was pruned: KeptShared), and a
            # List's item what it is.
            shared = self.shared
            if type(shared) is KeptShared:
                kind, name = shared.named
            else:
                named = _item_at(self.root, offset) if offset is not None else None
                pruned = shared.named.get(named.start_mark) if named is not None and type(shared) is ItemsShared \
                    else None  # type: ignore[union-attr]
                kind, name = pruned or _named(named if named is not None else self.root)
        where = self.where
        if line is None:
            line = self.first_line + self.chunk_line(offset) + 1 if offset is not None else self.first_line + 1
        return Location(self.index, where, kind, name, line, self.rendered_line(line), self._names_another_file(where))


class HeldShared(frozenset[int]):
    """Document.shared of a document read with its data folded (read._Dropping's
    `aliases_allowed`): the ids of the nodes its aliases name, with the nodes
    themselves (`nodes`), held until the document is pruned (KeptShared), so
    that no other node takes the id of one folded away and let go of."""

    __slots__ = ("nodes",)

    def __new__(cls, nodes: dict[int, Node]) -> HeldShared:
        held = super().__new__(cls, nodes)
        held.nodes = list(nodes.values())
        return held


class ItemsShared(frozenset[int]):
    """Document.shared of a List read item by item though it shares nodes
    (read._SharingItems): the ids of the whole graph's shared nodes still
    held: those of the items it keeps whole, and of the items whose anchors
    and aliases are all their own, pruned once checked (as KeptShared: in
    their kept trees, or what the walk found in them). The guard and the
    rewrite compose again the items they ask for (recompose), never taking
    `doc.root` for the whole graph. `whole`: the items kept whole; every
    other shares no node with another item, and all its nodes are written
    in its own text. `paths`: of those pruned, how many paths led to each
    shared node the walk found in them (Document.paths_to); `named`: the
    kind and name a message gives a place in one (Document.location), by
    the item's start. Always true, as a List sharing nodes is, though none
    it holds now may be shared."""

    __slots__ = ("whole", "paths", "named")

    def __new__(cls, ids: Collection[int], whole: frozenset[int] = frozenset(),
                paths: dict[int, int] | None = None,
                named: dict[int, tuple[str | None, str | None]] | None = None) -> ItemsShared:
        shared = super().__new__(cls, ids)
        shared.whole = whole
        shared.paths = paths or {}
        shared.named = named or {}
        return shared

    def __bool__(self) -> bool:
        return True


# Each anchor's and alias's name as libyaml reads it (_SharingItems._aliased_later).
_ANCHOR_NAMED = LazyPattern(r"&([0-9A-Za-z_-]+)")
_ALIAS_NAMED = LazyPattern(r"\*([0-9A-Za-z_-]+)")

# Document.shared while a List's items are read one by one (_SharingItems),
# before the whole graph's walk knows which nodes are shared: an item's walk
# asks of the whole List's text, as of any item of a List that shares nodes
# (graph/references._written_in). No node has id 0.
_SHARING_ITEMS = ItemsShared((0,))


def path_counts(root: Node, targets: Collection[int]) -> dict[int, int]:
    """How many paths Kubernetes reads lead from `root` to each node of
    `targets` (ids) under it (Document.paths_to; 0 for one read nowhere).
    In one walk for them all: one walk per node made a List of items
    sharing nodes quadratic (review62a). Its tables are keyed by the nodes
    themselves (hashed by identity: no int object per node) and list the
    children of collections only, and only the targets' counts are kept
    to the end: over a List of 4,000 apps each sharing nodes, the walk
    held a child list, an id and a count for each of its 0.7 M nodes
    (+102 MiB traced at its peak; +46 MiB now)."""
    # Each collection's children once (a merge's entries are worked out),
    # and the collections in an order where each comes after every one above it.
    below: dict[Node, list[Node]] = {}
    order: list[Node] = []
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if children_done:
            order.append(node)
        elif node not in below and node.__class__ is not ScalarNode:
            kids = below[node] = read_children(node)
            stack.append((node, True))
            stack.extend((child, False) for child in kids if child not in below)
    paths: dict[Node, int] = {root: 1}
    for node in reversed(order):
        through = paths.get(node, 0)
        for child in below[node]:
            paths[child] = paths.get(child, 0) + through
    del below, order
    wanted = set(targets)
    counted = {id(node): count for node, count in paths.items() if id(node) in wanted}
    return {target: counted.get(target, 0) for target in wanted}


class KeptShared:
    """Document.shared of a document that shares nodes, once pruned after
    read's whole-graph checks (pipeline/needs.py; never a List): the ids of
    the shared nodes it still holds (in its kept tree, or a reference's or
    pod string's own scalar), and of those the walk found (which the
    rewrite may replace), how many paths led to each in the whole graph
    (`paths`, for Document.paths_to). The ids of nodes pruned away are not
    held: once a node is freed, a new one (a stub, a node composed again)
    may take its id. Always true, as a document sharing nodes is, though
    none it holds now may be shared."""

    __slots__ = ("ids", "paths", "named")

    def __init__(self, paths: dict[int, int], whole: MappingNode) -> None:
        """Made before the document is pruned, of its root (`whole`): the kind
        and name a message gives a place in it (Document.location). The ids of
        the shared nodes held are known once it is pruned (`ids`, set then)."""
        self.ids: frozenset[int] | tuple[int, ...] = ()
        self.paths = paths
        self.named = _named(whole)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self.ids

    def __bool__(self) -> bool:
        return True

    def paths_to(self, node_id: int) -> int:
        """Paths to a shared node: counted only for those the walk found,
        the only ones a stage replaces (rewrite._check_shared)."""
        if node_id not in self.paths:
            raise AssertionError("paths to a shared node the walk did not find were not counted")
        return self.paths[node_id]


def _named(node: MappingNode) -> tuple[str | None, str | None]:
    """The kind and name a message gives an object's mapping (Document.location)."""
    return _string(_last(node, "kind")), _string(_last(_last(node, "metadata"), "name"))


def _last(node: Node | None, key: str) -> Node | None:
    """get, where a key may still be written twice: a structural error comes
    before read leaves the earlier out, and kubectl reads the last."""
    if isinstance(node, MappingNode):
        for k, v in reversed(node.value):
            if isinstance(k, ScalarNode) and k.value == key:
                return v
    return get(node, key)  # merged in, or none


def _string(node: Node | None) -> str | None:
    return node.value if isinstance(node, ScalarNode) and is_string(node) else None


class PackedDocument(Document):
    """A document of a large stream, whose source holds its text compressed
    (pipeline/packed.py).

    Its text is its own while read works on it, in its slot (read asks for
    it some fifteen times a document). Then read lets go of it
    (`let_go_of_text`), and from then on `text` is cut from the source's
    packed texts each time it is asked for (__getattr__): a caller that
    reads it often holds it in a name. A class of its own, as a class with
    __getattr__ pays for it on every attribute looked up: a small stream's
    documents keep their text, and their lookups cost what they did
    (documents with __getattr__: render +1.4% instructions at N=1000).
    """

    __slots__ = ()

    def let_go_of_text(self) -> None:
        del self.text

    def __getattr__(self, name: str) -> str:
        # Called only for a slot that holds nothing: `text`, once let go of.
        if name != "text":
            raise AttributeError(name)
        return self.source.document_text(self.index - self.source.first_document)


@record(frozen=True)
class Rendered:
    """Maps a document's lines to lines of its chart file's rendered text:
    the file's documents, in the order Helm handed them over, joined by
    `---` lines, without the `---` and `# Source:` header Helm 3 adds for
    the post-renderer. Where a template does not add or drop lines, that is
    the line in the template. Helm 4 writes each document again (its
    filename annotation added, blank lines dropped, folded text folded
    anew), so its documents get none: their lines are not the template's."""

    before: int  # lines of the same file's earlier documents, and their `---`
    origin: int  # the chunk line that is the document's first

    def line(self, chunk_line: int) -> int:
        return self.before + chunk_line - self.origin + 1

    def next_before(self, lines: int) -> int:
        """`before` for the file's next document, given this chunk's lines."""
        return self.before + (lines - self.origin) + 1


# The annotations or labels of an object that has none, as most have no
# annotations: one read-only mapping for all, not an empty dict each.
NO_STRINGS: Mapping[str, str] = MappingProxyType({})


@record(eq=False)
class KubeObject:
    document: Document
    node: MappingNode
    api_version: str
    kind: str
    name: str | None
    namespace: str | None
    item: int | None = None  # position in a `List`'s items
    annotations: Mapping[str, str] = field(default_factory=dict)
    labels: Mapping[str, str] = field(default_factory=dict)
    # A ConfigMap's or Secret's content as read (index/configs.ConfigContent).
    content: Any = None
    # A ConfigMap's or Secret's own edits, made while its document was whole
    # (rewrite.Prepared), when read keeps none of its tree.
    prepared: Any = None

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0] if "/" in self.api_version else ""

    def location(self, node: Node | None = None) -> Location:
        return self.placed(self.document.location(node if node is not None else self.node, self.kind, self.name))

    def placed(self, where: Location) -> Location:
        """`where`, a place in its document, named by its own file where it
        is an item of a List (a KRM function's ResourceList) that names one,
        as kpt and kustomize annotate items: the List's lines are not that
        file's."""
        if self.item is not None and self.annotations:
            named = file_annotated(self.annotations.get)
            if named:
                return replace(where, source=named, stream_line=True, rendered_line=None)
        return where

    def describe(self) -> str:
        ns = f"{self.namespace}/" if self.namespace else ""
        if self.name is None:
            # A Job or Pod the API server names from metadata.generateName (a
            # hook, a per-sync Job): the prefix, and where it is written. Read
            # from the text of the document's own top-level `metadata:`: read
            # keeps no metadata of most objects, and a field for this on
            # every object would cost each of them.
            prefix = _generate_name(self.document.text) if self.item is None else None
            shown = f"{prefix}*" if prefix else "(no name)"
            return f"{self.kind}/{ns}{shown} (document {self.document.index})"
        return f"{self.kind}/{ns}{self.name}"


_TOP_METADATA = LazyPattern(r"^metadata[ \t]*:[ \t]*(\{[^\n]*)?$", re.M)
_NAME_PREFIX = r"""["']?generateName["']?[ \t]*:[ \t]*["']?([-a-z0-9.]+)"""
_FLOW_GENERATE_NAME = LazyPattern(r"[{,][ \t]*" + _NAME_PREFIX)
_BLOCK_GENERATE_NAME = LazyPattern(r"^([ \t]+)" + _NAME_PREFIX, re.M)
_BLOCK_KEY = LazyPattern(r"^([ \t]+)[^\s#]", re.M)


def _generate_name(text: str) -> str | None:
    """metadata.generateName of a document written in block style at the top
    level, its `metadata:` on a line of its own or flow on that line; None
    otherwise, or without one (a pod template's own sits deeper, a comment
    or a value is no key)."""
    found = _TOP_METADATA.search(text)
    if found is None:
        return None
    if found.group(1):
        flow = _FLOW_GENERATE_NAME.search(found.group(1))
        return flow.group(1) if flow else None
    # The block: up to the next line at the top level.
    rest = text[found.end():]
    end = re.search(r"\n(?=[^\s#])", rest)
    block = rest[: end.start()] if end else rest
    keys = [len(m.group(1)) for m in _BLOCK_KEY.finditer(block)]
    for key in _BLOCK_GENERATE_NAME.finditer(block):
        if keys and len(key.group(1)) == min(keys):
            return key.group(2)
    return None


@record
class Stream:
    sources: list[Source]
    documents: list[Document]
    objects: list[KubeObject]
    # What read says of the input without refusing it (keys written twice).
    warnings: list[Diagnostic] = field(default_factory=list)


def split(source: Source, count: _Count | None = None, documents_before: int = 0) -> list[tuple[str, int]]:
    """Chunks of a source, each with its first line (0-based), split where
    kubectl splits (_document_starts). With a count, refuses the source as
    soon as its documents outnumber the limit. `documents_before`:
    documents of the stream before this source (for messages)."""
    text = source.text
    starts = _chunk_starts(text, source.name, count, documents_before)
    return list(zip(_chunks(text, starts.begins), starts.lines))


def _chunks(text: str, begins: array) -> list[str]:
    ends = [*begins[1:], len(text)]
    return [text[start:end] for start, end in zip(begins, ends)]


class _ChunkStarts:
    """Where each chunk of split() starts (the first at 0), and its first
    line (0-based). Arrays of 8 bytes a chunk, where a tuple and two int
    objects a chunk were about 100 bytes (100,000 tiny ConfigMaps: 12 MiB
    at read's peak): `begins` is held through the whole read of a source,
    `lines` for the stream's life, as its documents' first lines
    (Source.first_lines). A plain class, as the others every run makes at
    start-up: a NamedTuple's class compiles each of its string annotations
    (typing.ForwardRef; with the two below, about 12 M instructions of a
    one-ConfigMap render's 325 M)."""

    __slots__ = ("begins", "lines")

    def __init__(self, begins: array, lines: array) -> None:
        self.begins = begins
        self.lines = lines


def _chunk_starts(text: str, name: str | None, count: _Count | None,
                  documents_before: int) -> _ChunkStarts:
    """Where each chunk of split() starts, and its first line: the chunks
    follow each other, the first at 0, and join to the text."""
    starts = _document_starts(text, count, name, documents_before)
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    chunks = _ChunkStarts(array("q"), array("q"))
    line = 0
    carried: int | None = None  # start of `%YAML`/`%TAG` directives, which belong to the next document
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        begin = carried if carried is not None else start
        # (Most chunks hold no `...` at all: asked of those alone.)
        if text.find("...", start, end) != -1 and not _separator_kept(text, starts, i):
            marker = _end_before_any_document(text, start, end)
            if marker is not None:
                where = leading_source_comment(text[begin:end]) or name
                raise PostrenderError(_END_WITHOUT_DOCUMENT, Location(
                    documents_before + len(chunks.begins) + 1, where, line=line + text.count("\n", begin, marker) + 1))
        chunk = text[begin:end] if text.find("%", begin, end) != -1 else ""  # only directives need a look
        if i == 0 and "%" in chunk and _only_directives(chunk):
            # Before the file's first `---`: kubectl's first chunk, which
            # go-yaml refuses, directives and no document.
            raise _stray_directive(chunk, 0, documents_before + 1, name)
        carried = None
        if i + 1 < len(starts) and "%" in chunk:
            # `...` ends a document; directives after it open the next one.
            found = _directives_after_end(chunk)
            if found is not None:
                marker, tail = found
                body = chunk.find("\n", start - begin) + 1 if opens_with_marker(text, start) else 0
                if not _holds_content(chunk[body:marker]):
                    # kubectl drops the `---` line before: its chunk opens
                    # with `...` and directives, which go-yaml refuses.
                    where = documents_before + len(chunks.begins) + 1
                    raise _stray_directive(chunk, tail, where, name, line)
                carried, end = begin + tail, begin + tail
        chunks.begins.append(begin)
        chunks.lines.append(line)
        line += text.count("\n", begin, end)
    return chunks


def _separator_kept(text: str, starts: array, i: int) -> bool:
    """Whether kubectl's reader (apimachinery's YAMLReader, Helm's too) keeps
    the separator line at starts[i] as the first line of its chunk: it drops
    one that ends a chunk holding a line, and keeps one that comes while its
    chunk holds none. That is at the file's start (starts[0] is 0 where a
    first chunk has no separator line: there is none to keep), after a JSON
    document the stream opens with, and right after a separator line it
    dropped: so of separator lines in a row, it drops and keeps them by
    turns, counted from the first of the row."""
    first = i
    while first > 0 and starts[first - 1] == text.rfind("\n", 0, starts[first] - 1) + 1 \
            and (starts[first - 1] or text.startswith("---")):
        first -= 1  # the separator line right before is one too
    at = starts[first]
    if at == 0:
        kept = text.startswith("---")
    else:
        # After a chunk holding a line (dropped), unless that chunk is the
        # file's first and a JSON document (kept).
        kept = first == 1 and not text.startswith("---") and _json_ends_just_before(text, at)
    return kept if (i - first) % 2 == 0 else not kept


def _end_before_any_document(text: str, start: int, end: int) -> int | None:
    """Where a `...` line is that kubectl's chunk from `start` (a separator
    line it drops, or the file's start) holds before any document: only
    blank lines and comments come before it there. go-yaml refuses such a
    chunk ("did not find expected node content"), and kubectl with it, where
    YAML reads an empty stream. None: the chunk's first line is content."""
    at = start
    if opens_with_marker(text, start):
        newline = text.find("\n", start, end)
        at = end if newline == -1 else newline + 1
    while at < end:
        newline = text.find("\n", at, end)
        line_end = end if newline == -1 else newline
        stripped = text[at:line_end].strip().lstrip("\ufeff") if at == 0 else text[at:line_end].strip()
        if stripped and not stripped.startswith("#"):
            # A marker starts its line; an indented `...` is a plain scalar.
            starts_line = text.startswith("...", at) or at == 0 and text.startswith("\ufeff...")
            return at if starts_line and _MARKER_LINE.fullmatch(stripped) else None
        at = line_end + 1
    return None


def _directives_after_end(chunk: str) -> tuple[int, int] | None:
    """(the start of the chunk's last `...` line, the start of the
    directives after it), where directives follow that line and belong to
    the next document (`...`, `%YAML 1.1`, `---` between two documents), or
    None."""
    marker = len(chunk)
    while (marker := chunk.rfind("\n...", 0, marker)) != -1:
        start = marker + 1
        newline = chunk.find("\n", start)
        after = len(chunk) if newline == -1 else newline + 1
        # (`... ` with white space after it ends a document too, as libyaml
        # and kubectl read it: syntax62.)
        if _MARKER_LINE.fullmatch(chunk[start:after].rstrip(" \t\r\n")):
            return (start, after) if after < len(chunk) and _only_directives(chunk[after:]) else None
    return None


def _holds_content(text: str) -> bool:
    """Whether text has a line that is not blank, a comment or `...`."""
    for line in _lines(text):
        stripped = line.strip().lstrip("\ufeff")
        if stripped and not stripped.startswith("#") and not _MARKER_LINE.fullmatch(stripped):
            return True
    return False


def _stray_directive(chunk: str, at: int, document: int, name: str | None, first_line: int = 0) -> PostrenderError:
    """The error for directives from `at` in the chunk that kubectl refuses."""
    lines = chunk.count("\n", 0, at)
    for text in _lines(chunk[at:]):
        if text.strip().lstrip("\ufeff").startswith("%"):
            break
        lines += 1
    where = leading_source_comment(chunk) or name
    return PostrenderError(_STRAY_DIRECTIVE, Location(document, where, line=first_line + lines + 1))


def _document_starts(text: str, count: _Count | None = None, name: str | None = None,
                     documents_before: int = 0) -> array:
    """Offsets of the document separator lines (opens_with_marker); refuses
    a line that starts with `---` and is none, and a separator line kubectl
    reads as text (_read_as_text).

    str.find runs at memory speed; a MULTILINE regex tries every offset,
    which is most of the time spent on a 50 MB ConfigMap.
    """
    starts = array("q")  # 8 bytes a document, not an int object each
    newline = -1  # as if the text followed a line break
    while True:
        at = newline + 1
        if text.startswith("---", at):
            if not opens_with_marker(text, at):
                raise _refused_separator(_INVALID_SEPARATOR, text, at, starts, name, documents_before)
            if _hidden_from_yaml(text, at) and _read_as_text(text, at, starts):
                glued = at + 3 < len(text) and text[at + 3] not in " \t"
                raise _refused_separator(_SEPARATOR_READ_AS_TEXT if glued else _SEPARATOR_WITH_A_NODE, text, at,
                                         starts, name, documents_before)
            if count is not None and len(starts) > count.spare_objects:
                # The documents before this one, each ended (as read() counts them).
                ended = len(starts) + (0 if at == 0 or starts and starts[0] == 0 else 1)
                count.check_objects(count.objects + ended, at, lambda: text.count("\n", 0, at) + 1)
            starts.append(at)
        newline = text.find("\n---", at)
        if newline == -1:
            return starts


def _refused_separator(message: str, text: str, at: int, starts: array, name: str | None,
                       documents_before: int) -> PostrenderError:
    document = documents_before + len(starts) + (0 if starts and starts[0] == 0 else 1)
    # Named as any other error in that document: by its `# Source:` heading, else the file.
    where = leading_source_comment(text[starts[-1] if starts else 0 : at]) or name
    return PostrenderError(message, Location(document, where, line=text.count("\n", 0, at) + 1))


# kubectl's reader (and Helm's, which is the same code) refuses a line that
# starts with `---` and goes on with more than white space and a comment:
# `---x`, `----`, and `--- x` or `--- |`, which YAML reads as a marker and
# a document's first node.
_INVALID_SEPARATOR = (
    "a line starts with --- and goes on with more than white space and a comment, which kubectl and Helm"
    " refuse as a document separator (invalid Yaml document separator); put what follows --- on a line of its own"
)
# A separator line YAML reads as text (`---#x`, no space before the comment)
# where kubectl reads it as a document's first line: go-yaml then reads it
# as text as well, and kubectl fails on that document.
_SEPARATOR_READ_AS_TEXT = (
    "a --- line with no space or tab after ---, but a comment or other white space, opens the file or follows"
    " another --- line or a JSON document: there kubectl reads it as text, not as a document separator;"
    " put a space after --- or remove the line"
)
# The same place, the line `--- ` and white space only Go trims (NBSP,
# U+3000, VT): YAML reads that as a node after the marker (review62a: the
# message above told to put a space where one was).
_SEPARATOR_WITH_A_NODE = (
    "a --- line holding white space YAML does not take for it (a no-break space, U+3000, VT, FF ...) opens the"
    " file or follows another --- line or a JSON document: there kubectl reads it as the document's first line,"
    " and YAML reads that white space as a value; remove it from the line, or remove the line"
)
# kubectl and Helm never apply a directive: a `---` line after it always
# splits it off, into a chunk of its own or the end of the document before.
# go-yaml ignores what follows the `...` that ends that document, and
# refuses a chunk that opens with directives.
_STRAY_DIRECTIVE = (
    "a directive (a line that starts with %) before the file's first document, or after a ... line that ends"
    " none: kubectl and Helm refuse it there (they read a directive only after the ... line that ends a"
    " document, and then ignore it); remove it"
)


# go-yaml refuses a chunk that holds a `...` line before any node: after a
# `---` line kubectl drops, or at the start of the file.
_END_WITHOUT_DOCUMENT = (
    "a ... line with no document before it since the --- line before (or the file's start): kubectl and Helm"
    " refuse it (did not find expected node content); remove the ... line"
)


def opens_with_marker(text: str, at: int = 0) -> bool:
    """Whether a document separator line starts at `at`, as kubectl reads
    one: `---`, then nothing but Go white space and maybe a comment
    (`---kind:` and `--- x` are none, and read refuses them). The one rule
    the splitter and the writer share."""
    if not text.startswith("---", at):
        return False
    after = at + 3
    if after == len(text) or text[after] == "\n" or text.startswith("\r\n", after):
        return True  # most separators
    end = text.find("\n", after)
    rest = (text[after:] if end == -1 else text[after:end]).strip(_GO_SPACE)
    return not rest or rest[0] == "#"


def _hidden_from_yaml(text: str, at: int) -> bool:
    """Whether the separator line at `at` (one to kubectl) holds text to
    YAML: libyaml takes `---` for a marker only before a space, a tab or a
    line break (`---#x` is text), and reads white space only Go trims
    (`--- ` and NBSP, VT, U+3000...) as a scalar after the marker (syntax62).
    Composed with the line masked (_masked)."""
    after = at + 3
    if after == len(text) or text[after] == "\n":
        return False  # most separators
    if text[after] not in " \t\r":
        return True
    end = text.find("\n", after)
    rest = (text[after:] if end == -1 else text[after:end]).lstrip(" \t").rstrip("\r")
    return bool(rest) and rest[0] != "#"


def _read_as_text(text: str, at: int, starts: array) -> bool:
    """Whether kubectl may read the separator line at `at` as its chunk's
    first line, not as a separator. Its reader drops a separator line only
    when some line came since the last one it dropped (or the file's, or a
    JSON document's, start), and keeps it otherwise, where go-yaml reads
    `---#x` as text. Judged by the line before alone, which the writer keeps
    before it: a separator line there may be dropped or kept (each second of
    a run is), and a copy or another file written before the run could turn
    one into the other."""
    if at == 0:
        return True
    before = text.rfind("\n", 0, at - 1) + 1
    if starts and starts[-1] == before:
        return True
    return not starts and _json_ends_just_before(text, at)


def _json_ends_just_before(text: str, at: int) -> bool:
    """Whether the text before `at` is a JSON value followed by white space
    with at most one line break. kubectl reads a stream that opens with `{`
    as JSON first; it goes on as YAML past white space and one line break
    after the value, and a separator line there opens that YAML's first chunk."""
    head = text[:at]
    start = _json_start(head)
    end = _go_json_end(head, start) if start is not None else None
    if end is None:
        return False  # kubectl reads it as YAML from the start
    return head[end:].lstrip(_GO_SPACE.replace("\n", "")) in ("", "\n")


def _json_start(text: str) -> int | None:
    """Where the `{` is that makes kubectl read the text as JSON: its first
    character past white space (and a byte-order mark), within the first
    4096 bytes, all kubectl looks at to tell JSON from YAML (apimachinery's
    GuessJSONStream; past them it reads YAML, oracle60b). None: YAML."""
    start = 1 if text.startswith("\ufeff") else 0  # kubectl drops the mark as it reads a file
    body = text.lstrip(_GO_SPACE) if not start else text[1:].lstrip(_GO_SPACE)
    if not body.startswith("{"):
        return None
    at = len(text) - len(body)
    if at - start >= _JSON_SNIFFED or len(text[start:at].encode("utf-8")) >= _JSON_SNIFFED:
        return None
    return at


def _go_json_end(text: str, start: int) -> int | None:
    """The end of the JSON value at `start`, where Go's decoder reads one;
    None where it finds a syntax error (a trailing comma, a comment, NaN):
    kubectl then reads the whole stream as YAML instead (review60b)."""
    import json  # only for this rare shape: a plain render does without it

    def constant(name: str) -> object:
        raise ValueError(name)  # NaN, Infinity: Python's JSON reads them, Go's does not

    def number(text: str) -> int:
        return 0  # only the syntax counts: int() refuses 4,300 digits and more (review60c)

    try:
        _, end = json.JSONDecoder(parse_constant=constant, parse_int=number, parse_float=number).raw_decode(text, start)
    except ValueError:
        return None
    except RecursionError:
        # Nested past Python's stack (Go's decoder takes 10,000 levels): read
        # as YAML, where --max-depth refuses it with the line (review60c).
        return None
    return end


def _leading_directives(text: str) -> int | None:
    """Where the separator line is that follows the directives a chunk opens
    with (`%YAML 1.1`, `%TAG ...`), or None."""
    if opens_with_marker(text) or "%" not in text:
        return None  # most chunks: a `---` line first, or no directive at all
    starts = _document_starts(text)
    return starts[0] if starts and _only_directives(text[: starts[0]]) else None


def opens_with_directives(text: str) -> bool:
    """Whether a chunk opens with directives (`%YAML 1.1`, `%TAG ...`) before
    its `---` line: the document before it must end with a `...` line."""
    return _leading_directives(text) is not None


def ends_document(text: str) -> bool:
    """Whether text ends with a `...` line (and comments or blank lines)."""
    for line in reversed(text.splitlines()):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return _MARKER_LINE.fullmatch(stripped) is not None and stripped.startswith("...")
    return False


def _lines(text: str) -> Iterator[str]:
    """Lines one at a time: callers stop at the first that matters."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        yield text[start:end]
        start = end + 1


def _opens_with_content(text: str) -> bool:
    """Whether a chunk is a `---` line and then a line that starts with a
    letter, as Helm and kustomize write every document: no comment,
    directive or blank line before its content, so the line scans below
    can answer at once."""
    if text.startswith("---\n"):
        return text[4:5].isalpha()
    return text.startswith("---\r\n") and text[5:6].isalpha()


def _only_directives(chunk: str) -> bool:
    found = False
    for line in _lines(chunk):
        stripped = line.strip().lstrip("\ufeff")
        if stripped.startswith("%"):
            found = True
        elif stripped and not stripped.startswith("#"):
            return False
    return found


def _has_odd_line_breaks(text: str) -> bool:
    # Substring tests first: scanning 50 MB with the regex takes most of a second.
    return ("\x85" in text or "\u2028" in text or "\u2029" in text
            or ("\r" in text and _LONE_CR.search(text) is not None) or text.find("\ufeff", 1) != -1)


class _Count:
    """Nodes, documents and List items read so far, held against the limits
    as the input is read: a dense start is refused before the rest is parsed."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.source: Source | None = None
        self.before = 0  # characters in the sources already read
        self.position = 0  # characters of the current source before the current document
        self.nodes = 0
        self.objects = 0

    @property
    def spare_objects(self) -> int:
        """Documents the fixed allowance leaves, whatever the density: below
        it no check is needed."""
        return self.limits.objects_allowed(0) - self.objects

    def check_objects(self, objects: int, end: int, line: Callable[[], int]) -> None:
        """`objects` documents and List items in the first `end` characters of this source."""
        allowed = self.limits.objects_allowed(self.before + end)
        if objects > allowed:
            raise PostrenderError(
                f"more than {allowed:,} documents and List items in the first {self.before + end:,} characters"
                " of input, far denser than real manifests; raise it with --max-nodes (maxNodes in a config)",
                Location(None, self.source.name if self.source else None, line=line()),
            )

    def _end(self, doc: Document) -> int:
        """Characters of input up to the end of `doc`, the current document."""
        return self.before + self.position + len(doc.text)

    def add_nodes(self, doc: Document, nodes: int) -> None:
        self.check_nodes(doc, nodes)
        self.nodes += nodes

    def check_nodes(self, doc: Document, nodes: int) -> None:
        """Whether the stream so far and `nodes` more in `doc` stay within the limit."""
        end = self._end(doc)
        allowed = self.limits.nodes_allowed(end)
        if self.nodes + nodes > allowed:
            raise PostrenderError(
                f"more than {allowed:,} YAML nodes in the first {end:,} characters of input, far denser than"
                " real manifests; raise it with --max-nodes (maxNodes in a config)",
                doc.at(doc.first_line + 1),
            )

    def may_exceed(self, doc: Document) -> bool:
        """Whether `doc` could hold more nodes than are left. No document has
        more than two parse events per character."""
        return self.nodes + 2 * len(doc.text) + 3 > self.limits.nodes_allowed(self._end(doc))


class Pruner(Protocol):
    """Drops from a document what no later stage reads, once its objects are
    known (pipeline/needs.py): read keeps every document until the end, and
    most of a composed document is never read again."""

    # Whether it prunes at all: only then is `item` given a List's items as
    # they are composed.
    prunes: bool

    def __call__(self, doc: Document, objects: list[KubeObject], walked: bool = False) -> None:
        """Prunes `doc`, whose objects are `objects`; `walked`: each was given to `item`."""

    def item(self, obj: KubeObject, items: SequenceNode, whole: bool = False) -> None:
        """Reads and prunes a List's item, `items`' item obj.item, as soon as
        it is composed; `whole`: only reads it (it may share nodes: _SharingItems)."""

    def shared_item(self, obj: KubeObject, items: SequenceNode, shared: frozenset[int],
                    merges: bool) -> tuple[frozenset[int], dict[int, int]]:
        """Reads and prunes a List's item whose nodes aliases share within it
        only (`shared`, their ids; `merges`: it may hold a merge key), as a
        document sharing nodes is once checked: the ids of the shared nodes
        it still holds, and the paths to each the walk found (_SharingItems)."""

    def forget(self, objects: list[KubeObject]) -> None:
        """Forgets objects given to `item` that read will not keep."""

    def reach(self, kind: str, api_version: str, item: bool = False) -> Reach | None:
        """Where a stage may read in an object of this kind (DroppingComposer):
        what is off those paths may be dropped as its document is composed;
        None: none of it. `item`: the object is a List's item."""

    def folds_ahead(self, field: str, api_version: str, item: bool, kind_after: Callable[[], str | None]) -> bool:
        """Whether an object's `field` written before its kind may be folded
        as composed, the kind not known yet: a config's data. `kind_after`:
        what the text says the kind will be, if it says (asked only of a
        field some config kind folds)."""

    def string_taker(self) -> StringTaker:
        """What takes a large workload's plain env items out as they are
        composed (graph/references.TakenStrings): its `root` is set once read
        keeps the document."""

    def folder(self, kind: str | None) -> Folder:
        """What takes the entries of the mappings a reach marks Fold, as the
        document is composed; `kind` None: before the kind is known (it is
        told, `settle`)."""


class Folder(Protocol):
    """A Pruner's folder, for one document (pipeline/index/folding.py)."""

    def take(self, name: str, key: Node, value: Node) -> None:
        """An entry of the mapping `name` (a Fold's), complete, taken out of it."""

    def settle(self, kind: str) -> None:
        """The object's kind, once known, of a folder made without it."""

    def finish(self, root: Node | None) -> bool:
        """Whether the document composed (`root`) may be read as it is: else
        it is composed again whole."""


class StringTaker(Protocol):
    """A Pruner's taker of the env items a reach marks StringItems, for one
    document (graph/references.TakenStrings, which the walk reads)."""

    root: Node | None  # the document's, once read keeps it

    def take(self, items: SequenceNode, at: int, mark: StringItems) -> bool:
        """Item `at` of `items`, complete: whether it was taken out (DROPPED_ITEM)."""


def read(sources: list[Source], limits: Limits, prune: Pruner | None = None) -> Stream:
    documents: list[Document] = []
    objects: list[KubeObject] = []
    said = _LeftOutSaid()
    rendered_so_far = _ChartFiles()
    count = _Count(limits)
    shared: _SharedMaps = {}
    compress = sum(source.size for source in sources) >= packed.COMPRESS_FROM
    kind = PackedDocument if compress else Document
    for source in sources:
        count.source, count.position = source, 0
        text = source.text
        odd_breaks = _has_odd_line_breaks(text)
        starts = _chunk_starts(text, source.name, count, len(documents))
        sorted_files = _files_helm_may_have_sorted(text, starts.begins)
        if compress:
            source.pack(starts.begins)
        else:
            source.held_in(_chunks(text, starts.begins))
        del text  # packed: the source holds it no more
        source.read_as(len(documents) + 1, starts.lines)
        for at in range(len(starts.lines)):
            chunk = source.document_text(at)
            doc = kind(
                index=shared_int(len(documents) + 1),
                text=chunk,
                source=source,
                root=None,
                newline="\r\n" if "\r\n" in chunk else "\n",
            )
            documents.append(doc)
            _read_document(doc, limits, count, odd_breaks, rendered_so_far, sorted_files, shared, prune, objects,
                           said)
            if compress:
                doc.let_go_of_text()  # type: ignore[attr-defined]
        count.before += source.size
    return Stream(sources, documents, objects, said.warnings())


def _read_document(doc: Document, limits: Limits, count: _Count, odd_breaks: bool, rendered_so_far: _ChartFiles,
                   sorted_files: frozenset[str], shared: _SharedMaps, prune: Pruner | None, objects: list[KubeObject],
                   said: _LeftOutSaid) -> None:
    """Composes, checks and prunes one document, adding its objects.
    `rendered_so_far` and `sorted_files`: as _helm3_header takes them."""
    _helm3_header(doc, rendered_so_far, sorted_files)
    if doc.index == 1 and "\n..." in doc.text and _is_json_first(doc):
        _check_json_document_end(doc)
    dropped: _Dropped | None = None
    try:
        try:
            items = _compose_document(doc, limits, count, odd_breaks, shared, prune)
        except _EarlierKeys as found:
            dropped = _drop_earlier_keys(doc, found)
        if dropped is not None:
            # Read again from the start, as the text the stages and the
            # writer now see: what reads its text (a List's items taken as
            # they come, a kind looked for) must not meet the entries
            # dropped. Out of the except clause: the exception, its entries
            # and the frames that composed the first tree are gone by now.
            items = _compose_document(doc, limits, count, odd_breaks, shared, prune)
    except PostrenderError:
        if odd_breaks:
            _check_byte_order_marks(doc)  # what libyaml fails on after a mark it did not skip
        raise
    count.position += len(doc.text)
    count.objects += 1
    if odd_breaks:
        _check_line_breaks(doc)
    if doc.root is None:
        return
    if doc.index == 1 and _is_json_first(doc):
        _check_json_numbers(doc)
    walked = items is not None and items.kept
    found = items.objects if walked else _objects_of(doc, shared)  # type: ignore[union-attr]
    if found[0].item is not None if found else _list_items(doc.root) is not None:  # type: ignore[arg-type]
        _check_list(doc, doc.root)  # type: ignore[arg-type]
    if found and found[0].item is not None:  # a List's items
        count.objects += len(found)
        count.check_objects(count.objects, count.position, lambda: doc.first_line + 1)
    if dropped or doc.source.cuts is not None:
        _left_out(doc, dropped, found, said)
    if prune is not None:
        prune(doc, found, walked)
    objects.extend(found)


def _left_out(doc: Document, dropped: _Dropped | None, objects: list[KubeObject], said: _LeftOutSaid) -> None:
    """Says what read left out of the document (`dropped`), or what a read
    of its source before did, and keeps that with the source."""
    source, at = doc.source, doc.index - doc.source.first_document
    if dropped:
        lines = _dropped_warnings(doc, dropped, objects) if said.says_another() else _NONE_SAID
        if lines:
            source.left_out[at] = lines
        else:
            source.left_out.pop(at, None)
        first = dropped.said[0].later_at
    elif cuts := doc.left_out:  # a read of the source before masked them
        lines = source.left_out.get(at, _NONE_SAID)
        first = cuts[0].start
    else:
        return
    if lines:
        said.lines.extend(lines)
    elif doc.left_out:  # a document after those said: no lines of its own (_DOCUMENTS_SAID)
        said.count_unsaid(lambda: _holder_location(doc, first, _holder(doc, first, objects)))


# What a document after those said keeps: one empty tuple for them all.
_NONE_SAID: tuple[Diagnostic, ...] = ()

# Documents whose entries left out get their own warnings; every document
# after them is counted in one more line. A generated stream may hold a key
# written twice in thousands of documents (one template's labels written
# twice over): a line each buried every other message, and 40,000 of them
# held 8.8 MiB of warnings.
_DOCUMENTS_SAID = 10


class _LeftOutSaid:
    """What read says of the entries it left out, across the stream."""

    __slots__ = ("lines", "_documents", "_unsaid", "_first_unsaid")

    def __init__(self) -> None:
        self.lines: list[Diagnostic] = []
        self._documents = 0  # documents said, each in its own lines
        self._unsaid = 0  # documents after those, counted
        self._first_unsaid: Location | None = None

    def says_another(self) -> bool:
        """Whether the next document left out of gets its own lines."""
        self._documents += 1
        return self._documents <= _DOCUMENTS_SAID

    def count_unsaid(self, where: Callable[[], Location]) -> None:
        """Counts a document with entries left out and no lines of its own
        (`where`: its first entry's place, asked of the first such document)."""
        self._unsaid += 1
        if self._first_unsaid is None:
            self._first_unsaid = where()

    def warnings(self) -> list[Diagnostic]:
        if not self._unsaid:
            return self.lines
        n = self._unsaid
        return [*self.lines, Diagnostic(
            f"{self._first_unsaid.describe()}: and {n:,} more"  # type: ignore[union-attr]
            f" {'document' if n == 1 else 'documents'} from here on holding a key written twice (or keys YAML"
            " 1.1 reads as one): kubectl and Helm read the last, so postrender leaves the earlier out")]


def _compose_document(doc: Document, limits: Limits, count: _Count, odd_breaks: bool, shared: _SharedMaps,
                      prune: Pruner | None) -> _Items | None:
    """Composes the document into doc.root, its List's items taken one by
    one where it may be one (the _Items returned)."""
    items: _Items | None = None
    parts: _Parts | None = None
    if prune is not None and prune.prunes and not odd_breaks:
        size = len(doc.text)
        large = size >= DROP_FROM
        if size >= _MASK_FROM and (masking := _Masked.of(doc, prune)) is not None:
            parts = masking
        elif (listed := "List" in doc.text) and _takes_items(doc) and not (large and _not_a_list(doc.text)):
            tags = may_hold_tags(doc.text)
            if not (large and _may_hold_a_large_item(doc.text)):
                parts = items = _Items(doc, prune, shared, tags)
            elif not tags:  # (what is dropped as it is composed, the checks of tags could not see)
                parts = items = _DroppingItems(doc, prune, shared)
        elif listed and _takes_sharing_items(doc) and not (large and _not_a_list(doc.text)) \
                and not (large and _may_hold_a_large_item(doc.text)):
            parts = items = _SharingItems(doc, prune, shared, limits)
        elif large and _in_parts(doc, anchors_checked=True):
            if not may_hold_anchors(doc.text):
                parts = _Dropping(prune)
            elif doc.text.count("*") <= limits.max_expanded_nodes and anchors_may_all_be_values(doc.text):
                # A config whose data values alias an anchored one (_Dropping's
                # `aliases_allowed`). With more `*` than aliases allowed it may be
                # an alias bomb, refused at once composed whole: read in parts
                # first, one of 1,000,010 aliases of a scalar took 7.7 s, not 3.9.
                # Nor a text with an `&` or `*` at a node start that is no
                # mapping's value (a script's `&&` line, a Markdown list's
                # `* item`), which could never stay folded: read in parts first,
                # a ConfigMap of 300,000 entries and such a script took 7.1 s, not 5.3.
                parts = _Dropping(prune, aliases_allowed=limits.max_expanded_nodes)
    doc.root = _compose(doc, limits, count, parts)
    return items


def _takes_items(doc: Document) -> bool:
    """Whether a document may be a List whose items can be taken one by one
    as they are composed (_Items, _OnlyItems): it names a List and `items`,
    and may be composed in parts (_in_parts), tags aside: each item's own
    walk checks them as it is composed (_Items), and recompose reads a
    document read's checks passed. Most documents say no List."""
    return "List" in doc.text and "items" in doc.text and _in_parts(doc, tags_checked=True)


def _takes_sharing_items(doc: Document) -> bool:
    """Whether a document may be a List whose items share nodes (an alias,
    `*`, where a node may start) and can be taken one by one all the same
    (_SharingItems): as _takes_items, but for anchors, aliases and merge
    keys, and with no tag (an item's walk would have to check them)."""
    text = doc.text
    return ("items" in text and "*" in text and may_hold_anchors(text) and not may_hold_tags(text)
            and not _may_need_a_look_but_for_anchors(text) and not text.startswith("\ufeff")
            and _masked(doc) is None)


def _in_parts(doc: Document, tags_checked: bool = False, anchors_checked: bool = False) -> bool:
    """Whether a document may be composed in parts, some taken or dropped
    as they are composed (_Parts): not one that needs a whole-document walk
    before its objects are read (_check_structure: aliases, tags, merge
    keys, escapes), or offsets mended after composing (a byte-order mark,
    masked lines). `tags_checked`: the caller checks tags as the parts
    come, so tags do not need the whole walk; `anchors_checked`: likewise
    anchors and aliases (_Dropping's `aliases_allowed`)."""
    text = doc.text
    return (not may_hold_merge_keys(text) and (tags_checked or not may_hold_tags(text))
            and (anchors_checked or not may_hold_anchors(text)) and not _may_need_a_look_but_for_anchors(text)
            and not text.startswith("\ufeff") and _masked(doc) is None)


def _not_a_list(text: str) -> bool:
    """Whether a document surely is no List: its root's `kind` is written
    on a line of its own at the first column, and names no List (a CRD
    names its kind's List in `listKind`, and describes `items`). Anything
    else, a kind written in flow style or quoted, may be one."""
    if text.startswith("kind:"):
        at = 0
    elif (at := text.find("\nkind:") + 1) == 0:
        return False
    end = text.find("\n", at)
    value = text[at + len("kind:"):end if end >= 0 else len(text)].strip()
    return value.isidentifier() and not value.endswith("List")


def _kind_written_after(text: str, at: int) -> str | None:
    """The kind an object names after its key at offset `at`, read from the
    text: a `kind:` line at the key's own column, as kustomize and kubectl
    write it after the data (`apiVersion`, `data`, `kind`). None if there is
    none so written. A guess, to choose how to compose: a line that only
    looks so (another object's) makes the composer fold data it then reads
    whole again, or not fold data it could have."""
    column = at - (text.rfind("\n", 0, at) + 1)
    line = "\n" + " " * column + "kind:"
    start = text.find(line, at)
    if start < 0:
        return None
    start += len(line)
    end = text.find("\n", start)
    value = text[start:end if end >= 0 else len(text)].split(" #", 1)[0].strip().strip("'\"")
    return value if value.isidentifier() else None


def _may_hold_a_large_item(text: str) -> bool:
    """Whether a large List may hold an item of DROP_FROM characters or
    more: some stretch of half as many, aligned to its size, names no
    `kind` (every item names its own), or, written in block style, two of
    its items start that far apart (a CRD, which names `kind` all through).
    Only then are its items dropped from as they are composed
    (_DroppingItems): for a List of small items the dropping composer's
    call per node costs more than it saves (the 5,000 bench apps as one
    List: +8% time). A large item that names `kind` all through in a List
    written otherwise (JSON) is composed whole, then pruned, as any item."""
    half = max(DROP_FROM // 2, 1)
    return (any(text.find("kind", start, start + half) < 0 for start in range(0, len(text) - half + 1, half))
            or _has_a_large_block_item(text))


def _has_a_large_block_item(text: str) -> bool:
    """Whether an item of the root's `items`, written in block style as
    kubectl, kustomize and Helm write it (each item a `- ` at one column),
    spans DROP_FROM characters or more, measured between the items' starts:
    a CRD names `kind` all through its schema, and as an item it was
    composed whole (the Argo CD chart as one List: 10 MiB more than as a
    stream). A List written otherwise (JSON, flow style) says no here."""
    at = 0 if text.startswith("items:") else text.find("\nitems:") + 1
    if at == 0 and not text.startswith("items:"):
        return False
    line = text.find("\n", at)
    while line >= 0 and text.startswith(("\n\n", "\n#"), line):  # blank lines and comments before the first item
        line = text.find("\n", line + 1)
    if line < 0:
        return False
    column = 0
    while text.startswith(" ", line + 1 + column):
        column += 1
    if not text.startswith("- ", line + 1 + column):
        return False
    item_start = "\n" + " " * column + "- "
    start = line
    while True:
        after = text.find(item_start, start + 1)
        if (after if after >= 0 else len(text)) - start >= DROP_FROM:
            return True
        if after < 0:
            return False
        start = after


# Documents from this size on are composed with what no stage reads dropped
# as it goes (_Dropping): below it, what a document holds whole is small,
# and the composer's call per node costs more than it saves.
DROP_FROM = 256 * 1024


class _Parts(Protocol):
    """How a document is composed in parts (_composed)."""

    def composer(self, text: str) -> Composer:
        """The composer for the document's text."""

    def finish(self, root: Node | None, loader: Composer, plain: bool) -> bool:
        """Whether the document is read (else it is composed again whole)."""


class _Dropping:
    """A large document composed with what the pruner would drop dropped as
    it goes (DroppingComposer, Pruner.reach), so that a dense one is never
    held whole. What is dropped is what prune drops once it is composed:
    the same nodes stay, and read does with them what it does with the
    whole graph. A document whose keys are not all plain needs every node
    for _check_structure, and is composed again whole; so is one whose
    folded entries (a large config's data) the folder could not take.
    `on_item`: a List's items are handed to it as they are complete
    (_DroppingItems), each with its own folder (`item_done`).

    `aliases_allowed`: the document may hold anchors (--max-expanded-nodes).
    It is read so only where every anchor and alias is a value of a config's
    data folded (a ConfigMap whose values alias one anchored value), no
    alias names anything but a string, and there are no more aliases than
    allowed: there the whole-graph checks find nothing the folder does not
    (each alias of a scalar adds one node expanded, and shares that one
    node), and `shared` says which nodes the whole graph shares. Anything
    else is composed again whole, where the checks say what they say."""

    def __init__(self, prune: Pruner, on_item: Callable[[SequenceNode, int], None] | None = None,
                 aliases_allowed: int | None = None) -> None:
        self.prune = prune
        self.on_item = on_item
        self.aliases_allowed = aliases_allowed
        # Of a document with anchors, read so: the nodes its folded aliases
        # name, by id, once finished (Document.shared).
        self.shared: dict[int, Node] | None = None
        self.folder: Folder | None = None  # the root's
        self._item_folder: Folder | None = None  # the item's being composed
        self._composer: DroppingComposer | None = None
        self._text = ""
        self._taken: StringTaker | None = None

    def composer(self, text: str) -> Composer:
        self._text = text
        self._composer = DroppingComposer(text, self._reach, self.on_item)
        self._composer.speculate = self._speculate
        self._taken = self.prune.string_taker()
        self._composer.strings = self._taken.take
        return self._composer

    def _reach(self, kind: str, api_version: str, item: bool) -> Reach | None:
        reach = self.prune.reach(kind, api_version, item)
        folder = self._folder_of(item)  # made before the kind was known, if its data came first (_speculate)
        folds = reach is not None and any(below.__class__ is Fold for below in reach.values())
        if not folds and self.aliases_allowed is not None:
            # Its anchors need the whole-graph checks: composed whole now, not
            # once more after (a custom object of 30,000 keys, one anchor: +54%).
            raise _FoldsNothing
        if folds:
            if folder is None:
                folder = self._set_folder(self.prune.folder(kind), item)
            else:
                folder.settle(kind)
            # Entries it folds go straight to the folder: one call each.
            self._composer.fold = folder.take  # type: ignore[union-attr]
        # (A folder made ahead of a kind that folds nothing is never settled:
        # its finish composes the document again whole.)
        return reach

    def _speculate(self, field: str, api_version: str, item: bool, at: int) -> Callable[[str, Node, Node], None] | None:
        """The fold for an object's `field` written before its kind, its key
        at offset `at` (DroppingComposer._undecided): its folder, made
        without a kind; None where no config's data is folded there
        (Pruner.folds_ahead), as far as the text tells before it is
        composed (_kind_written_after)."""
        if not self.prune.folds_ahead(field, api_version, item, lambda: _kind_written_after(self._text, at)):
            return None
        folder = self._folder_of(item)
        if folder is None:
            folder = self._set_folder(self.prune.folder(None), item)
        return folder.take

    def _folder_of(self, item: bool) -> Folder | None:
        return self._item_folder if item else self.folder

    def _set_folder(self, folder: Folder, item: bool) -> Folder:
        if item:
            self._item_folder = folder
        else:
            self.folder = folder
        return folder

    def item_done(self) -> Folder | None:
        """The folder of the item just complete, if its reach folds (and
        none for the next)."""
        folder, self._item_folder = self._item_folder, None
        return folder

    def finish(self, root: Node | None, loader: Composer, plain: bool) -> bool:
        if not plain and loader.dropped:  # type: ignore[attr-defined]
            return False
        kept = loader.keys_distinct()  # type: ignore[attr-defined]
        kept = kept and (self.folder is None or self.folder.finish(root))
        if kept and self.aliases_allowed is not None:
            kept = self._anchors_folded(root)
        if kept and self._taken is not None:
            self._taken.root = root
        return kept

    def _anchors_folded(self, root: Node | None) -> bool:
        """Whether a document with anchors read so may stay so (`aliases_allowed`)."""
        folder = self.folder
        # (More aliases than allowed: an alias bomb, refused as composed
        # whole. _compose_document sends a text with more `*` than that
        # whole already; asked here too, so that this method stands alone.)
        if folder is None or not folder.fields or folder.aliases > self.aliases_allowed:  # type: ignore[operator]
            return False
        # Each folded field's text: from its first entry to its mapping's end.
        spans = [(start, get(root, name).end_mark)  # type: ignore[union-attr]
                 for name, start in folder.first_keys.items()]
        if not anchors_are_values_within(self._text, spans):
            return False
        self.shared = folder.aliased
        return True


class _Masked:
    """An object composed with the lines of values no stage reads made
    blank, so that none of their nodes is made: a CustomResourceDefinition's
    schemas (fieldspecs/bulk.yaml), most of the text of a chart that ships
    its CRDs (4.5 of kube-prometheus-stack's 4.7 MB), as the pruner's reach
    for the kind says. What composing them would have found, they are found
    to hold: libyaml's parse of the whole text, counted in C (its events,
    which the limits count), and plain, distinct keys in every mapping and
    no tag, anchor, alias or merge key, read from the text
    (syntax/blockkeys.py), where the text holds nothing else the checks look
    for (`of`). Offsets are kept, so the nodes composed are those composing
    the whole text gives, and a stage that needs the values composes the
    text again (recompose: the guard)."""

    def __init__(self, masked: str, events: int, starts: frozenset[int], kind: str, api_version: str,
                 paths: tuple[tuple[str, ...], ...]) -> None:
        self.masked = masked
        self.events = events
        self.starts = starts  # where each masked region starts
        # As blockkeys read them, and the reach was asked of.
        self.kind, self.api_version = kind, api_version
        self.paths = paths

    @staticmethod
    def of(doc: Document, prune: Pruner) -> _Masked | None:
        """The masking for an object of a kind bulk.yaml lists whose values
        there no stage reads, written in the subset of YAML blockkeys reads;
        None: it is composed as any other."""
        text = doc.text
        table, kind_lines, wanted = _bulk()
        if not any(text.startswith(line[1:]) or line in text for line in kind_lines):
            return None
        # What the checks look for in scalars, which blockkeys passes over:
        # a `\\/` escape, an infinite number; and offsets mended after
        # composing (_in_parts). A tag, an anchor, an alias or a merge key
        # stands where a node starts, where blockkeys reads (and says None):
        # so a CRD whose descriptions hold `&&` or `!=` at a line's start,
        # which may_hold_anchors and may_hold_tags cannot tell from one, is
        # masked too.
        if "\\/" in text or may_hold_nonfinite(text) or text.startswith("\ufeff") or _masked(doc) is not None:
            return None
        from ..syntax import blockkeys  # few documents are CRDs

        found = blockkeys.scan(text, wanted)
        if found is None or not found.regions or found.kind not in table or found.api_version is None:
            return None
        group, paths = table[found.kind]
        if found.api_version.rpartition("/")[0] != group:
            return None
        reach = prune.reach(found.kind, found.api_version)
        if not isinstance(reach, dict) or "*" in reach or any(path[0] in reach for path in paths):
            return None  # a field spec reads there (--config): composed as any other
        try:
            events = _parse_events(doc, None)
        except PostrenderError:
            return None  # composed whole, which says what libyaml refuses, and where
        return _Masked(blockkeys.masked(text, found.regions), events, frozenset(start for start, _ in found.regions),
                       found.kind, found.api_version, paths)

    def composer(self, text: str) -> Composer:
        return _Counted(self.masked, self.events)

    def finish(self, root: Node | None, loader: Composer, plain: bool) -> bool:
        # Read whole, as any document, unless every region masked is the
        # value of a key at one of the kind's paths: blockkeys masks the
        # value of a key of that name wherever it stands, and one elsewhere
        # (an annotation's, a label's) is read, checked and rewritten. And
        # unless the kind and apiVersion are those the reach was asked of:
        # blockkeys reads a root field's first line, and a plain one may go
        # on below (`kind: A\n  B` is kind "A B", which a field spec may
        # read). (Not plain: a key outside the values needs the whole-graph
        # checks; blockkeys found every key plain, but it is asked.)
        if not plain or not isinstance(root, MappingNode):
            return False
        if get_str(root, "kind") != self.kind or get_str(root, "apiVersion") != self.api_version:
            return False
        masked = {self.masked.find("\n", key.end_mark) + 1 for path in self.paths for key in _keys_at(root, path)}
        return self.starts <= masked


@cache
def _bulk() -> tuple[dict[str, tuple[str, tuple[tuple[str, ...], ...]]], tuple[str, ...], frozenset[str]]:
    """bulk.yaml's table; each kind's `kind:` line, as a root's is written
    at the first column; and the keys whose values may be masked."""
    table = fieldspecs.masked_values()
    return (table, tuple(f"\nkind: {kind}\n" for kind in table),
            frozenset(path[-1] for _, paths in table.values() for path in paths))


def _keys_at(root: MappingNode, path: tuple[str, ...]) -> Iterator[Node]:
    """The key nodes at `path` (its last key, under the others), a list's
    items passed through, as a field spec's path goes."""
    holders: list[MappingNode] = [root]
    for key in path[:-1]:
        holders = [mapping for holder in holders for mapping in _mappings(get(holder, key))]
    for holder in holders:
        for written, _ in holder.value:
            if isinstance(written, ScalarNode) and written.value == path[-1]:
                yield written


def _mappings(node: Node | None) -> list[MappingNode]:
    """A mapping, or a list's mapping items."""
    if isinstance(node, SequenceNode):
        return [item for item in node.value if isinstance(item, MappingNode)]
    return [node] if isinstance(node, MappingNode) else []


# Below this, an object is composed as any small document: the masking's own
# reads (the text's parse, blockkeys' scan) save little on it.
_MASK_FROM = 8 * 1024


class _Counted(Composer):
    """A Composer of masked text that tells the parse events of the text
    unmasked (counted before: _parse_events), as composing it would have."""

    __slots__ = ("_unmasked_events",)

    def __init__(self, text: str, events: int) -> None:
        Composer.__init__(self, text)
        self._unmasked_events = events

    def get_single_node(self) -> Node | None:
        root = Composer.get_single_node(self)
        self.events = self._unmasked_events
        return root


class _ListParts:
    """A List's items handed over as they are composed (ListComposer), to `take`."""

    def take(self, items: SequenceNode, at: int) -> None:
        raise NotImplementedError

    def composer(self, text: str) -> Composer:
        return ListComposer(text, self.take)


class _Items(_ListParts):
    """A List's items read one by one as libyaml composes them (ListComposer),
    each pruned before the next is composed, so the List is never held
    whole: the 5,000 bench apps as one List peaked at 269 MiB, 51 as a
    stream.

    What read would do once the List is composed, done early, per item: the
    object read (`_object`), walked and pruned (Pruner.item). It holds only
    when the document turns out to be what was assumed: a List (its kind is
    known only at the end), with plain keys, and items read without error.
    Otherwise `finish` forgets it all and the document is composed again and
    read as any other, so that errors and their order are what they were.

    `tags`: the List may hold tags (may_hold_tags), which the whole graph's
    walk checks before any object is read (_check_structure). Each item is
    walked for them as it is composed, before it is read (a `!!str` name is
    read as the string it is), and the whole graph's walk then leaves the
    items out (`checked`): a List whose names are tagged is never held whole
    either.
    Anything the walk of an item refuses, or a key written twice, and the
    List is read again whole, where the whole walk meets it in order."""

    def __init__(self, doc: Document, prune: Pruner, shared: _SharedMaps, tags: bool = False) -> None:
        self.doc = doc
        self.prune = prune
        self.shared = shared
        self.tags = tags
        self.objects: list[KubeObject] = []
        self.failed = False
        self.kept = False  # finish found the items read right
        self.checked: SequenceNode | None = None  # the items, once each was walked as it was taken

    def take(self, items: SequenceNode, at: int) -> None:
        """Item `at` of `items` is composed (ListComposer.on_item)."""
        if self.failed:
            return
        try:
            node = items.value[at]
            if not isinstance(node, MappingNode):
                raise ValueError("not a mapping")  # read's own error, from the whole List
            if self.tags:
                # (No anchor, no `\/`: _in_parts.)
                _check_nodes(self.doc, node, anchors=False, tags=True, slashes=False)
            obj = _object(self.doc, node, at, self.shared)
            self.objects.append(obj)  # forgotten with the rest if the item fails
            self.prune.item(obj, items)
        except Exception:  # whatever it is, the whole List read again meets it in order
            self.failed = True

    def finish(self, root: Node | None, loader: Composer, plain: bool) -> bool:
        """Whether the document is read: a List whose items were all taken."""
        items = loader.items  # type: ignore[attr-defined]
        if items is None:
            return True  # no item was taken: read as any document
        if not self.failed and (plain or self.tags) and isinstance(root, MappingNode) and _list_items(root) is items:
            if items.value:
                self.take(items, len(items.value) - 1)  # the last, never followed by another
            self.kept = not self.failed
            self.checked = items if self.kept and self.tags else None
        if not self.kept:
            self.forget()
        return self.kept

    def forget(self) -> None:
        """Forgets the items taken: the List is composed again whole."""
        self.prune.forget(self.objects)
        self.objects = []
        self.kept = False
        self.checked = None


class _DroppingItems(_Items):
    """A large List's items read one by one as they are composed (_Items),
    with what no stage reads of each dropped as it goes, and a dense
    config's data read into its content, as of a large document
    (_Dropping): so that a List holding a dense object is never held
    whole either. An item's folded entries are all taken (those left in
    each mapping too) before the item is read; anything they cannot be read
    from makes the List composed again whole."""

    def __init__(self, doc: Document, prune: Pruner, shared: _SharedMaps) -> None:
        super().__init__(doc, prune, shared)
        self.dropping = _Dropping(prune, self.take)

    def composer(self, text: str) -> Composer:
        return self.dropping.composer(text)

    def take(self, items: SequenceNode, at: int) -> None:
        folder = self.dropping.item_done()
        if folder is not None and not self.failed and not folder.finish(items.value[at]):
            self.failed = True
        super().take(items, at)

    def finish(self, root: Node | None, loader: Composer, plain: bool) -> bool:
        if self.dropping.finish(root, loader, plain) and super().finish(root, loader, plain):
            return True
        self.forget()
        return False


class _SharingItems(_Items):
    """A List's items read one by one as they are composed (_Items), though
    its text holds aliases: an item whose text (from the end of the item
    before) holds no `&`, `*` or `<<` where a node may start holds no node
    another reaches, nor reaches one of another's, and is read and pruned
    as _Items does; any other is kept whole, and walked (Pruner.item's
    `whole`). The whole graph's walk (_check_structure) then runs on the
    List so read: the shared nodes, and so every path to one, are all in
    the items kept whole, and a pruned item adds as many nodes expanded as
    written. Anything it refuses, a key written twice, the `items`
    themselves aliased, or no node shared after all, and the List is
    composed again whole and read as any other (_sharing_items_read), so
    every message is the whole read's. The bench's 5,000 apps as one List,
    one anchor and its alias: 288 -> 106 MB peak RSS (goal 96)."""

    def __init__(self, doc: Document, prune: Pruner, shared: _SharedMaps, limits: Limits) -> None:
        super().__init__(doc, prune, shared)
        self.limits = limits
        self.after = 0  # where the text of the next item starts: the end of the one before
        self.took = False  # no item taken: not a List, read as any document
        self.next = 0  # the next item to take
        self.whole: list[int] = []  # the items kept whole
        # Of the items pruned once checked (_take_own): where each starts
        # and ends, whether any
        # shares a node, the ids of their shared nodes held and the paths
        # to those the walk found, their kinds and names by their nodes'
        # starts, and how far their aliases expand beyond what is written.
        self.own_starts: list[int] = []
        self.own_ends: list[int] = []
        self.own_shares = False
        self.held: set[int] = set()
        self.paths: dict[int, int] = {}
        self.named: dict[int, tuple[str | None, str | None]] = {}
        self.expanded = 0
        self._last_alias: dict[str, int] | None = None  # (_aliased_later)
        doc.shared = _SHARING_ITEMS

    def take(self, items: SequenceNode, at: int) -> None:
        # libyaml's composer does not descend into an alias: the item before
        # one is never handed over (ListComposer), and is taken here, first.
        self.took = True
        while self.next <= at:
            self._take(items, self.next)
            self.next += 1

    def _take(self, items: SequenceNode, at: int) -> None:
        if self.failed:
            return
        node = items.value[at]
        start = self.after if at else items.start_mark
        # An item written before the end of the one before is an alias of a
        # node written earlier: kept whole, and its text left to the next item's.
        written_here = node.start_mark >= start
        span = self.doc.text[start:node.end_mark] if written_here else "*"
        self.after = node.end_mark if written_here else start
        if not may_hold_anchors(span) and not may_hold_aliases(span) and not may_hold_merge_keys(span):
            super().take(items, at)
            return
        try:
            if not isinstance(node, MappingNode):
                raise ValueError("not a mapping")
            if written_here and not self._aliased_later(span, node.end_mark) \
                    and _written_within(node, node.start_mark, node.end_mark):
                self._take_own(items, at, node, span)
                return
            obj = _object(self.doc, node, at, self.shared)
            self.objects.append(obj)
            self.whole.append(at)
            self.prune.item(obj, items, whole=True)
        except Exception:  # as _Items: the whole List read again meets it in order
            self.failed = True

    def _aliased_later(self, span: str, end: int) -> bool:
        """Whether the text after `end` may hold an alias of an anchor `span`
        names: read so, such an item would be pruned before the alias is
        composed, and the List composed again whole (`apart`). The last
        place of each alias name, found in the whole text once (libyaml's
        names: letters, digits, `_` and `-`); a name defined again in
        between still counts (it may say yes where none is, never no)."""
        if self._last_alias is None:
            self._last_alias = {match[1]: match.start() for match in _ALIAS_NAMED.finditer(self.doc.text)}
        last = self._last_alias
        return any(last.get(name, -1) >= end for name in _ANCHOR_NAMED.findall(span))

    def _take_own(self, items: SequenceNode, at: int, node: MappingNode, span: str) -> None:
        """Item `at`, whose nodes are all written in its own text (`span`), so that its anchors and aliases are its own, unless a later
        item aliases one of them (`apart`): checked as the whole graph's
        walk checks it, and pruned as a document sharing nodes is
        (Pruner.shared_item), what the rewrite asks of its shared nodes kept
        (ItemsShared). Its expansion beyond the nodes written counts against
        the alias-bomb limit (`expanded`) for the walk of the List so read."""
        doc = self.doc
        self.expanded += _expansion(doc, node, self.limits.max_expanded_nodes)
        if self.expanded > self.limits.max_expanded_nodes:
            raise ValueError("an alias bomb across items")  # the whole List's read refuses it
        shared = shared_nodes(node)
        _check_nodes(doc, node, anchors=True, tags=False, slashes=False, shared=shared)
        named = _named(node)
        obj = _object(doc, node, at, self.shared)
        self.objects.append(obj)
        held, paths = self.prune.shared_item(obj, items, shared, may_hold_merge_keys(span))
        self.own_starts.append(node.start_mark)
        self.own_ends.append(node.end_mark)
        self.own_shares = self.own_shares or bool(shared)
        self.held.update(held)
        self.paths.update(paths)
        self.named[node.start_mark] = named

    def apart(self, root: MappingNode) -> bool:
        """Whether no node outside the items pruned once checked (`_take_own`)
        is one written in one of them: no later item nor root key aliases
        a node of theirs (the whole graph's walk of the List so read)."""
        starts, ends = self.own_starts, self.own_ends
        if not starts:
            return True
        items = _list_items(root)
        own = {id(items.value[at]) for at in range(len(items.value))  # type: ignore[union-attr]
               if items.value[at].start_mark in self.named}  # type: ignore[union-attr]
        seen: set[int] = set()
        stack: list[Node] = [root]
        while stack:
            node = stack.pop()
            if id(node) in seen or id(node) in own:
                continue
            seen.add(id(node))
            at = bisect.bisect_right(starts, node.start_mark) - 1
            if at >= 0 and node.start_mark < ends[at]:
                return False
            stack.extend(children(node))
        return True

    def finish(self, root: Node | None, loader: Composer, plain: bool) -> bool:
        # Keys plain and distinct all through; a merge key may be in an item kept whole.
        read = super().finish(root, loader, loader.plain_keys)  # type: ignore[attr-defined]
        if not self.took:
            self.doc.shared = _NO_IDS
        return read

    def forget(self) -> None:
        super().forget()
        self.doc.shared = _NO_IDS


class _ChartFiles:
    """The chart files (Helm 3's `# Source:`) a read has met: each one's
    name, one string for all its documents (25,000 small apps, three
    files: 5.4 MiB of equal names, one a document), and the lines of its
    rendered text so far."""

    __slots__ = ("names", "lines")

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.lines: dict[str, int] = {}


def _helm3_header(doc: Document, so_far: _ChartFiles, sorted_files: frozenset[str] = frozenset()) -> None:
    """A chunk Helm 3 wrote starts `---`, `# Source: FILE`. Where in FILE's
    rendered text it is, is known but for a file of `sorted_files`."""
    found = _helm3_source(doc.text)
    if found is not None:
        file, line = found
        doc.header_source = file = so_far.names.setdefault(file, file)
        if file in sorted_files:
            return
        rendered = doc.rendered = Rendered(so_far.lines.get(file, 0), line)
        so_far.lines[file] = rendered.next_before(_line_count(doc.text))


def _files_helm_may_have_sorted(text: str, begins: Sequence[int]) -> frozenset[str]:
    """The chart files of more than one document in a stream Helm 3 wrote
    (`text`, its chunks starting at `begins`).

    Helm 3 hands a post-renderer its manifests sorted by kind (releaseutil's
    InstallOrder), each document headed `# Source: FILE`: the documents of
    one file then come in another order than the file's where they are of
    more than one kind, and where each sits in the file's rendered text is
    not known. Their kinds are known only once read, and a message may name
    the place before: no document of such a file of more than one kind (as
    its text says) is given one."""
    if len(begins) < 2:
        return frozenset()
    # Only the first chunk's lines up to its `# Source:` line are read: no
    # copy of a first document that may be most of the stream.
    source_line = text.find("# Source: ", 0, begins[1])
    head_end = text.find("\n", source_line, begins[1]) + 1 or begins[1]
    first = _helm3_source(text[:head_end]) if source_line >= 0 else None
    if first is None:
        return frozenset()  # not Helm 3's: no scan
    # Each chunk's file, and where it ends; found with str.find, in C.
    ends = [*begins[1:], len(text)]
    files = [first[0]] + [_written_after(text, "\n# Source: ", begin - 1, end) for begin, end in zip(begins[1:], ends[1:])]
    seen: set[str | None] = set()
    twice: set[str | None] = set()
    for name in files:
        (twice if name in seen else seen).add(name)
    twice.discard(None)
    if not twice:
        return frozenset()
    # Of one kind, a file's documents keep its order (the sort is stable):
    # each one's top-level `kind` line, as the text says it.
    kinds: dict[str, set[str | None]] = {}
    for name, begin, end in zip(files, begins, ends):
        if name in twice:
            kinds.setdefault(name, set()).add(_kind_written(text, max(begin - 1, 0), end))  # type: ignore[arg-type]
    return frozenset(name for name, found in kinds.items() if len(found) > 1 or None in found)


# A line at column 0 that is not a plain `key:` of a block mapping there, a
# comment, a blank line, a marker or a directive: a root written otherwise
# (a quoted or tagged key, a flow mapping), or a quoted scalar's line (libyaml
# does not ask them to be indented), where a `kind:` line may not be the key.
_NOT_A_ROOT_KEY_LINE = LazyPattern(r"^(?![ \t]|#|\r?$|---|\.\.\.|%|[A-Za-z0-9_][\w./-]*[ \t]*:(?:[ \t]|\r?$))", re.M)
# The first line of content from where a search starts (after the `---` and
# `# Source:` lines): neither blank nor a comment, a marker or a directive.
_FIRST_CONTENT_LINE = LazyPattern(r"^(?![ \t]*(?:#|\r?$)|---|%)", re.M)
# A root `kind` key's line, `kind:` or `kind :`; and what may follow it for
# the kind to be sure: a plain word, quoted or not, then a comment at most.
_KIND_LINE = LazyPattern(r"^kind[ \t]*:([^\n]*)", re.M)
_KIND_VALUE = LazyPattern(r"[ \t]*(['\"]?)([A-Za-z][A-Za-z0-9]*)\1(?:[ \t]+#.*|[ \t]*)\r?")


def _kind_written(text: str, start: int, end: int) -> str | None:
    """The kind text[start:end]'s one top-level `kind` line says, where the
    text surely says it so: a block mapping at column 0 whose every line
    there is a plain key, one of them `kind`, with a plain word after it on
    that line alone. None otherwise: a key written twice is read last-wins,
    a line may be inside a quoted scalar, a value may go on (`kind: A`, then
    an indented `B`, after blank lines or not, is `A B`)."""
    chunk = start + 1 if text.startswith("\n", start) else start
    if _ODD_LINE_BREAK.search(text, chunk, end):
        return None  # go-yaml breaks lines there too (a lone CR, NEL, U+2028, U+2029): the lines below are not its
    lines = _KIND_LINE.finditer(text, chunk, end)
    line = next(lines, None)
    if line is None or next(lines, None) is not None:
        return None
    first = _FIRST_CONTENT_LINE.search(text, chunk, end)
    if first is None or text.startswith((" ", "\t"), first.start()) or _NOT_A_ROOT_KEY_LINE.search(text, chunk, end):
        return None
    # The next line with content starts a key at column 0, or none comes.
    following = _FIRST_CONTENT_LINE.search(text, line.end() + 1, end) if line.end() < end else None
    if following is not None and text.startswith((" ", "\t"), following.start()):
        return None
    value = _KIND_VALUE.fullmatch(line.group(1))
    return value.group(2) if value else None


def _written_after(text: str, opening: str, start: int, end: int) -> str | None:
    """The rest of the first line in text[start:end] that starts with
    `opening` (a line break, then the line's first characters), stripped."""
    at = text.find(opening, start, end)
    if at < 0:
        return None
    line_end = text.find("\n", at + 1, end)
    return text[at + len(opening) : line_end if line_end >= 0 else end].strip()


def _helm3_source(text: str) -> tuple[str, int] | None:
    """(FILE, the number of the line after it) of a chunk that starts as
    Helm 3 writes one: `---`, `# Source: FILE`."""
    if _opens_with_content(text):
        return None
    for number, line in enumerate(_lines(text)):
        stripped = line.strip().lstrip("\ufeff")
        match = _SOURCE_COMMENT.match(stripped)
        if match:
            return match.group(1).strip(), number + 1
        if stripped and not stripped.startswith(("#", "---", "%")):
            return None
    return None


def _line_count(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def _check_line_breaks(doc: Document) -> None:
    """Refuses what kubectl and YAML read differently about lines: a line
    break YAML 1.1 reads and kubectl does not, outside a quoted string (in
    a JSON document that starts the stream, inside one too: kubectl reads
    its strings as JSON, where they are plain characters), and a byte order
    mark that starts a line."""
    matches = list(_ODD_LINE_BREAK.finditer(doc.text))
    if not matches:
        return
    json_first = _is_json_first(doc)
    quoted = sorted(
        (node.start_mark, node.end_mark)
        for node in unique_nodes(doc.root)
        if isinstance(node, ScalarNode) and node.style in ("'", '"')
    ) if doc.root is not None and not json_first else []
    starts = [start for start, _ in quoted]
    for match in matches:
        if doc.text.startswith("\r\n", match.end()):
            # kubectl reads each CRLF as LF (apimachinery's LineReader), so
            # CR CR LF is one line break to it and two to YAML read as
            # written: a quoted string folds them to " " or to "\n".
            problem = "a CR before a CRLF line break is not supported (kubectl reads it as one line break, YAML as two)"
            break
        i = bisect.bisect_right(starts, match.start()) - 1
        if i < 0 or match.start() >= quoted[i][1]:
            name = _ODD_NAMES.get(match.group())
            if name is None:  # a byte order mark
                problem = _MARK_STARTS_A_LINE
            elif json_first:
                problem = (f"line break {name} in a JSON document that starts the stream is not supported (kubectl"
                           " reads the document as JSON, where it is a character, YAML as a line break); escape it")
            else:
                problem = f"line break {name} outside a quoted string is not supported; use LF or CRLF line endings"
            break
    else:
        return
    line = doc.first_line + doc.text.count("\n", 0, match.start()) + 1
    raise PostrenderError(problem, doc.location(line=line))


def _check_byte_order_marks(doc: Document) -> None:
    """Refuses a byte order mark that starts a line, for a document that did
    not compose: libyaml fails on one right after a `---` line ("did not
    find expected <document start>"), and the mark, not that message, is
    what to fix."""
    match = _LINE_START_MARK.search(doc.text)
    if match is not None:
        line = doc.first_line + doc.text.count("\n", 0, match.start()) + 1
        raise PostrenderError(_MARK_STARTS_A_LINE, doc.location(line=line))


_LINE_START_MARK = LazyPattern("(?<=\n)\ufeff")
_MARK_STARTS_A_LINE = ("a byte order mark (U+FEFF) starts a line: kubectl and YAML read one alike only at the start of"
                       " a file (YAML skips it at any line start, kubectl reads it as text or fails); remove it")
_ODD_NAMES = {"\r": "a CR without LF", "\x85": "NEL (U+0085)", "\u2028": "U+2028", "\u2029": "U+2029"}


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


def _depth_limit(max_depth: int) -> str:
    """The --max-depth limit a document passed, and how to raise it while it may be (cli62)."""
    levels = f"{max_depth} level{'' if max_depth == 1 else 's'}"
    if max_depth >= MAX_DEPTH_CEILING:
        return f"{levels} (--max-depth, at its ceiling)"
    return f"{levels} (raise it with --max-depth, up to {MAX_DEPTH_CEILING})"


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


def _parse_events(doc: Document, masked: str | None) -> int:
    text = masked or doc.text
    loader = Composer(text)
    try:
        return loader.raw_parse() - 2  # less the stream's start and end
    except YAMLError as exc:
        hidden = _colons_hidden(doc, text, exc)
        if hidden is None:
            raise _parse_error(doc, exc) from None
    finally:
        _release(loader)
    return _parse_events(doc, hidden)


def _parse_error(doc: Document, exc: YAMLError) -> PostrenderError:
    if isinstance(exc, MarkedYAMLError):
        return _yaml_error(doc, exc)
    location = doc.at(doc.first_line + 1)
    position = getattr(exc, "position", None)  # a ReaderError's, in UTF-8 bytes
    reason = getattr(exc, "reason", None)
    if isinstance(position, int):
        before = doc.text.encode("utf-8")[:position]
        line = doc.first_line + before.count(b"\n") + 1
        location = doc.at(line)
        if isinstance(reason, str):
            # Where the character is, not which: it may be one of a Secret's
            # value (review60; invalid UTF-8 is named so too, inputs.decode).
            column = len(before[before.rfind(b"\n") + 1:].decode("utf-8", "replace")) + 1
            return PostrenderError(f"invalid YAML: a character YAML does not allow at column {column} ({reason});"
                                   " remove it, or write it as an escape in a double-quoted string", location)
    return PostrenderError(f"invalid YAML: {_first_line(str(exc))}", location)


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
            # (Nor the `items` themselves aliased: then every item is shared.)
            shared = doc.shared
            if (shared or parts.own_shares) and id(_list_items(root)) not in shared and parts.apart(root):
                doc.shared = ItemsShared(shared | parts.held, frozenset(parts.whole), parts.paths, parts.named)
                return True
    parts.forget()
    return False


class UnreadableText(PostrenderError):
    """The text itself is what kubectl and strict YAML readers refuse (a
    duplicate key, a bad merge key, an alias bomb), not only what it says:
    written back as it is (a KRM function's answer), it is refused again."""


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
            from ..syntax import flowcolons

            flowcolons.restore(root)
        if doc.text.startswith("\ufeff"):
            shift_offsets(root, 1)
    return root, events, plain


class _FoldsNothing(Exception):
    """Raised through libyaml's composer where a document with anchors read
    in parts (_Dropping's `aliases_allowed`) turns out to fold nothing."""



def _anchored(parts: _Parts | None) -> bool:
    """Whether `parts` composes a document that may hold anchors (_Dropping's `aliases_allowed`)."""
    return parts.__class__ is _Dropping and parts.aliases_allowed is not None  # type: ignore[attr-defined]


def _raise_earlier_in_text(doc: Document) -> None:
    """Raises _EarlierKeys with the entries a later one overrides in a
    large document composed in parts (_Dropping) that could not be read so
    (its keys not all distinct, most often), as its text tells them
    (syntax/blockkeys.py), so that it is never composed whole for them (a
    ConfigMap of 100,000 keys each written twice took 154 MiB to find where
    they were). What _check_structure would find of it is only these: a
    document composed in parts holds no tag, anchor, merge key, `\\/`
    escape or infinite number (_in_parts), and every key blockkeys reads
    reads as its text. Returns where blockkeys does not read the text, or
    a key is written twice inside a sequence (it cannot tell there what a
    message may show): it is composed whole, as before. (Raised here: held
    by a caller's frame, the exception would hold that frame through its
    traceback, a cycle nothing collects while a render runs.)"""
    from ..syntax import blockkeys  # few documents hold a key twice

    earlier = blockkeys.EarlierFound(doc.text)
    if blockkeys.scan(doc.text, frozenset(), earlier, _VALUE_MAPPINGS) is not None and earlier:
        raise _EarlierKeys(doc, _InText(earlier))


def recompose(doc: Document, items: Collection[int] | None = None) -> MappingNode | None:
    """The document's node graph composed again from its text, whole: the
    nodes read composed, at the same offsets, with the same values and
    styles, before any stage pruned them (pipeline/needs.py). None for a
    document that holds no object. It changes nothing: the document passed
    read's checks and limits once already. The caller drops it when done
    with the document.

    `items`: of a List, only these items are asked for (object_node); the
    others may be dropped as they are composed, so that the List is never
    held whole (where read took its items one by one too: _Items)."""
    if doc.root is None:
        return None  # read found no object: a null, comments
    sharing = type(doc.shared) is ItemsShared  # (an item dropped keeps its anchors in the composer's table)
    only = _OnlyItems(items, dropping=not sharing) if items is not None and (sharing or _takes_items(doc)) else None
    root, _, _ = _composed(doc, _masked(doc), only)
    if not isinstance(root, MappingNode):
        return None  # never: the same text composed to a mapping once
    if may_hold_tags(doc.text):
        # The styles _check_structure gives the first graph's `!!str` scalars.
        for node in unique_nodes(root):
            if isinstance(node, ScalarNode):
                _mark_explicit_str(doc.text, node)
    return root


class _OnlyItems(_ListParts):
    """Drops the items of a List that recompose is not asked for, as they
    are composed: an empty mapping stands for each (object_node of one is
    never asked). In a large List, what an item not asked for holds is
    dropped as it is composed too (DroppingComposer's `wanted`): a CRD
    among its items is never held whole."""

    def __init__(self, wanted: Collection[int], dropping: bool = True) -> None:
        self.wanted = wanted
        # False: not inside an item either (an anchor there may be aliased by an item asked for).
        self.dropping = dropping

    def composer(self, text: str) -> Composer:
        if len(text) < DROP_FROM or not self.dropping:
            return super().composer(text)
        return DroppingComposer(text, _keeps_everything, self.take, self.wanted)

    def take(self, items: SequenceNode, at: int) -> None:
        if at not in self.wanted:
            drop_item(items, at)

    def finish(self, root: Node | None, loader: Composer, plain: bool) -> bool:
        """Whether what was dropped were a List's items (else: compose it whole)."""
        items = loader.items  # type: ignore[attr-defined]
        if items is None:
            return True
        if items.value:
            self.take(items, len(items.value) - 1)
        return isinstance(root, MappingNode) and _list_items(root) is items


def _keeps_everything(kind: str, api_version: str, item: bool) -> None:
    """A DroppingComposer's reach_of that drops nothing of what it is asked
    about (recompose asks for whole items; `wanted` drops the others)."""
    return None


def object_node(root: MappingNode, obj: KubeObject) -> MappingNode | None:
    """`obj`'s node in a graph recompose gave for its document."""
    if obj.item is not None and _list_items(root) is None:
        return None  # never: read found a List's item in the same text
    node = node_at(root, object_path(obj))
    return node if isinstance(node, MappingNode) else None


def object_path(obj: KubeObject) -> tuple[str | int, ...]:
    """Where an object sits in its document: the root, or a `List`'s item
    (see _list_items)."""
    return () if obj.item is None else ("items", obj.item)


def shift_offsets(root: Node, by: int) -> None:
    """libyaml skips a leading byte-order mark and counts offsets from after
    it; edits are placed in the text that still holds it."""
    for node in unique_nodes(root):
        node.start_mark += by
        node.end_mark += by


def _release(loader: Composer) -> None:
    """Done with a loader. A Composer refers to nothing that refers back to
    it (no instance dict: Composer.__slots__), so reference counting frees
    it even while cli.py runs with the cyclic collector paused; a
    DroppingComposer forgets its reader's methods, which refer back to it."""
    loader.dispose()
    if loader.__class__ is DroppingComposer:
        loader.let_go_of_callers()  # type: ignore[attr-defined]


def only_comments(text: str) -> bool:
    if _opens_with_content(text):
        return False
    for line in _lines(text):
        stripped = line.strip().lstrip("\ufeff")
        if stripped and not stripped.startswith("#") and not (
                stripped in ("---", "...") and line.lstrip("\ufeff").startswith(stripped)):
            # (Indented, `...` is a plain scalar: a document kubectl cannot read.)
            return False
    return True


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "invalid YAML"


def _yaml_error(doc: Document, exc: MarkedYAMLError) -> PostrenderError:
    mark = exc.problem_mark or exc.context_mark
    line = doc.first_line + _mark_line(doc, mark) + 1 if mark is not None else doc.first_line + 1
    message = exc.problem or exc.context or "invalid YAML"
    if exc.context and exc.problem:
        started = f" at line {doc.first_line + _mark_line(doc, exc.context_mark) + 1}" if exc.context_mark else ""
        message += f" ({exc.context}{started})"
    if exc.problem == "found invalid Unicode character escape code" and _surrogate_escape(doc.text, mark):
        message += f"; {_SURROGATE_HINT}{_one_stream_note(doc)}"
    elif exc.problem == "found unexpected ':'":
        message += f"; {_FLOW_COLON_HINT}"
    elif exc.problem == "did not find expected <document start>" and _is_json_first(doc):
        message += f"; {_JSON_STREAM_HINT}"
    # Only a `# Source:` heading the document names it: one further down may
    # sit inside a quoted value, a Secret's perhaps.
    return PostrenderError(f"invalid YAML: {message}", doc.at(line))


def _mark_line(doc: Document, mark: object) -> int:
    """The 0-based line of an error's mark in the chunk. libyaml's composer
    marks some errors with a node's start (a duplicate anchor's first
    occurrence, the document a second one follows), and a node's start is
    an offset, counted as libyaml counts it: from after a byte-order mark."""
    text = doc.text
    # libyaml's own line counts a CR, NEL, U+2028 and U+2029 in a quoted
    # string too; its index is in characters, as offsets are.
    offset = (mark if isinstance(mark, int) else mark.index) + text.startswith("\ufeff")  # type: ignore[attr-defined]
    # An input that ends too soon (an unclosed quote or bracket) is marked
    # at its end: past the last line, where the next document's `---` or
    # nothing is. postrender names the last line, where the quote or bracket
    # runs out, as Helm 3 does (kubectl counts one past it, within the
    # document: a line the file may not have).
    return doc.chunk_line(min(offset, len(text) - 1)) if text else 0


# kubectl reads a stream that starts with "{" as JSON up to the end of that
# first value (apimachinery's YAMLOrJSONDecoder), and everything else with
# go-yaml v2. JSON strings allow two escapes YAML's double-quoted scalars do
# not: a surrogate pair for a character beyond U+FFFF (\ud83d\ude00), which
# libyaml refuses, and \/, which libyaml reads and go-yaml v2 refuses. Helm
# puts `---` before every document, so it reads neither.
_SURROGATE_HINT = (
    "a \\uD800-\\uDFFF escape (a JSON surrogate pair) is read by kubectl only in a JSON document that starts"
    " the stream, and never by Helm; write the character itself or a \\U0001F600-style escape"
)


def _surrogate_escape(text: str, mark) -> bool:
    """Whether libyaml refused a \\u or \\U escape of a surrogate (its mark
    is at the escape's hex digits, counted after a byte-order mark, as
    _mark_line counts), not one past U+10FFFF, which no reader takes
    (oracle61); where the text does not tell, it may be one."""
    at = mark.index + text.startswith("\ufeff") if mark is not None else -1
    if not 0 < at <= len(text) or text[at - 1] not in "uU":
        return True
    digits = text[at : at + (4 if text[at - 1] == "u" else 8)]
    try:
        return 0xD800 <= int(digits, 16) <= 0xDFFF
    except ValueError:
        return True


# kubectl reads each file given as a stream of its own; postrender writes
# its inputs as one, which only the first input's first document starts
# (oracle60b: a folder of JSON files written by json.dumps, read whole by
# kubectl, was refused here as its names sorted).
_ONE_STREAM = (" (postrender writes all its inputs as one stream, which only the first input starts: give that"
               " file first, or run postrender on it alone)")


def _one_stream_note(doc: Document) -> str:
    """_ONE_STREAM, for an input's first document kubectl would read as JSON
    that is not the stream's first."""
    return _ONE_STREAM if doc.index != 1 and doc.first_line == 0 and _json_value_end(doc.text) is not None else ""
# libyaml 0.1.7 refuses `a:b` inside a flow collection (`{url: http://x}`),
# which go-yaml v2 reads as text; postrender reads it too
# (syntax/flowcolons.py), but not past HIDDEN_UP_TO of them in a document,
# nor in one read in parts (of 256 KiB or more, a List's items).
_FLOW_COLON_HINT = (
    "kubectl and Helm read `a:b` inside {...} or [...] as text, and postrender does up to 256 in a document"
    " under 256 KiB outside a List that holds no U+E7FF; quote the value, or write the collection in block style"
)
# kubectl reads a stream that starts with "{" as JSON objects one after
# another; postrender reads documents as YAML, separated by `---` lines.
_JSON_STREAM_HINT = (
    "JSON objects one after another without a `---` line between them are read by kubectl, not by postrender;"
    " put `---` between them"
)
_SLASH_HINT = (
    "a \\/ escape in a double-quoted string: go-yaml v2 (kubectl, Helm) reads it only in a JSON document that"
    " starts the stream; write / instead"
)
_ESCAPE = LazyPattern(r"\\(?:u([0-9a-fA-F]{4})|.)", re.S)
# Surrogates are parsed as stand-ins from this private-use range, one for one
# (same escape length, so every position stays put), then joined back.
_STAND_INS = LazyPattern("[\ue000-\ue7ff]")
_STAND_IN_ESCAPE = LazyPattern(r"\\u[eE][0-7]|\\U0000[eE][0-7]")
_HIGH, _LOW, _STAND_IN = 0xD800, 0xDC00, 0xE000


def as_later_document(doc: Document, text: str) -> str:
    """`text`, made from `doc`'s, written as a document after the stream's
    first (a copy of it, written after it). kubectl reads a document that
    starts the stream with "{" as JSON, with escapes YAML has not, and
    refuses those anywhere after it: so a copy's are written as YAML writes
    what they mean (`\\/` as `/`, a surrogate pair `\\ud83d\\ude00` as
    `\\U0001F600`, a lone surrogate as what Go's JSON reads, U+FFFD). In
    such a document a backslash stands only in a string."""
    if not _is_json_first(doc) or "\\" not in text:  # (most copies: not of the first document)
        return text
    return _JSON_ONLY_ESCAPE.sub(_as_yaml_escape, text)


def _as_yaml_escape(match: re.Match[str]) -> str:
    high, low, lone, slash = match.groups()
    if high is not None:
        return f"\\U{_joined(int(high, 16), int(low, 16)):08X}"
    if lone is not None:
        return "\\uFFFD"
    return "/" if slash is not None else match.group()


# Each escape, left to right (so `\\\\/` is an escaped backslash, then a
# slash): a surrogate pair, a lone surrogate, `\\/`, or any other, kept.
_JSON_ONLY_ESCAPE = LazyPattern(
    r"\\(?:u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})|u([dD][89a-fA-F][0-9a-fA-F]{2})|(/)|.)", re.S)


def _joined(high: int, low: int) -> int:
    """The character a UTF-16 surrogate pair stands for."""
    return 0x10000 + ((high - _HIGH) << 10) + (low - _LOW)


def _is_json_first(doc: Document) -> bool:
    """Whether kubectl reads the document as JSON: the stream's first, a
    `{` it sees as JSON (_json_start) opening a value Go's decoder reads
    (_go_json_end); one it does not (a trailing comma) makes kubectl read
    the stream as YAML from its start."""
    return doc.index == 1 and _json_value_end(doc.text) is not None


@lru_cache(maxsize=4)
def _json_value_end(text: str) -> int | None:
    """Where the JSON value kubectl reads a text as ends, or None (YAML).
    (Asked of the first document by several checks: read once.)"""
    start = _json_start(text)
    return _go_json_end(text, start) if start is not None else None


# The bytes kubectl reads to tell a JSON stream from YAML.
_JSON_SNIFFED = 4096
# A JSON number, as Go's decoder reads one into a float64 (kubectl's objects
# are map[string]interface{}): one past its range fails the whole document.
_JSON_NUMBER = LazyPattern(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")


def _check_json_numbers(doc: Document) -> None:
    """Refuses a number kubectl's JSON decoder cannot hold (`1E400`, a
    400-digit integer: "cannot unmarshal number into Go value of type
    float64"), in a document kubectl reads as JSON. In YAML the same text is
    a string, and libyaml composes it so: read as written, it would pass."""
    for node in unique_nodes(doc.root):
        if not isinstance(node, ScalarNode) or node.style:
            continue
        value = node.value
        # (Only an exponent or 309 digits and more reach past 1.8e308.)
        if ("e" in value or "E" in value or len(value) > 308) and _JSON_NUMBER.fullmatch(value) \
                and math.isinf(float(value)):
            # Not the number itself: it may be a Secret's value.
            raise PostrenderError(
                "a number out of the range kubectl reads a JSON number in (a 64-bit float): it refuses the whole"
                " document (cannot unmarshal number); write a smaller one, or quote it", doc.location(node))


def _check_json_document_end(doc: Document) -> None:
    """Refuses a `...` line after a JSON document that starts the stream:
    kubectl reads such a stream as JSON up to the next `---` line, blank
    and comment lines between, and fails on anything else there ("invalid
    character '.' looking for beginning of value"), once it has read the
    objects before; YAML, and so libyaml, reads the line as the document's
    end. (A JSON string holds no line break: the line is after the value.)"""
    found = _DOCUMENT_END_LINE.search(doc.text)
    if found is None:
        return
    end = _json_value_end(doc.text)
    if end is not None and doc.text[end:found.start()].strip(_GO_SPACE) and \
            not doc.text[end:found.start()].lstrip(_GO_SPACE).startswith("#"):
        # YAML right after the JSON value, in the same chunk: kubectl reads
        # it (as YAML past the value), a `...` after it too; postrender
        # reads a chunk as one document (review60b: the reason given was
        # kubectl's refusal, which this is not).
        raise PostrenderError(
            "a JSON document that starts the stream, and YAML after it with no `---` line between them: kubectl"
            " reads them as two documents, postrender as one; put a `---` line after the JSON document",
            doc.at(doc.first_line + doc.chunk_line(end) + 1),
        )
    raise PostrenderError(
        "a `...` line after a JSON document that starts the stream: kubectl reads such a stream as JSON, where"
        " `...` is an error; remove the line (a `---` line ends the document), or start the stream with `---`",
        doc.at(doc.first_line + doc.chunk_line(found.start()) + 1),
    )


_DOCUMENT_END_LINE = LazyPattern(r"(?m)^\.\.\.(?=[ \t\r\n]|\Z)")


def _masked(doc: Document) -> str | None:
    """The text libyaml composes for a JSON-first document with surrogate
    escapes (see mask_surrogate_escapes), or for one that opens with what
    kubectl reads and YAML does not (_mask_kubectl_lines), and for one that
    defines an anchor again, with those renamed (_anchors_renamed); None:
    the document's own."""
    masked = mask_surrogate_escapes(doc.text) if _is_json_first(doc) else _mask_kubectl_lines(doc.text)
    renamed = doc.source.anchors_renamed
    if renamed:  # (most sources: none)
        made = renamed.get(doc.index - doc.source.first_document)
        if made is not None:
            text = masked or doc.text
            if made[0] != text:  # masked since (_drop_earlier_keys)
                from ..syntax import anchors

                made = renamed[doc.index - doc.source.first_document] = (text, anchors.renamed(text))
            masked = made[1] or masked
    hidden = doc.source.colons_hidden
    if hidden:  # (most sources: none)
        at = doc.index - doc.source.first_document
        made_hidden = hidden.get(at)
        if made_hidden is not None:
            text = masked or doc.text
            if made_hidden[0] != text:  # masked since (_drop_earlier_keys), or its anchors renamed
                remade = _hide_colons(text)
                if remade is None:
                    return masked
                made_hidden = hidden[at] = (text, remade)
            return made_hidden[1]
    return masked


def _anchors_renamed(doc: Document, text: str, exc: YAMLError) -> str | None:
    """`text` with the anchors it defines again renamed, when that is why
    libyaml's composer refused it (syntax/anchors.py): go-yaml reads an
    alias as the latest node anchored so, and so does postrender. The
    document's own text keeps its names: its meaning is the same, and the
    later reads of it compose what _masked gives. None: refused."""
    from ..syntax import anchors

    at = doc.index - doc.source.first_document
    if at in doc.source.anchors_renamed:
        return None  # renamed already, and still refused
    renamed = anchors.renamed_after(exc, text)
    if renamed is None and anchors.is_duplicate_anchor(exc):
        # A `:` libyaml refuses after the anchor (`&x {u: http://x}`) stops
        # the renaming's own parse: hidden first (_colons_hidden), then renamed.
        hidden = _hide_colons(text)
        renamed = anchors.renamed(hidden) if hidden is not None else None
        if renamed is not None:
            doc.source.colons_hidden[at] = (text, hidden)  # type: ignore[assignment]
    if renamed is not None:
        doc.source.anchors_renamed[at] = (text, renamed)
    return renamed


def _colons_hidden(doc: Document, text: str, exc: YAMLError) -> str | None:
    """`text` with each `:` libyaml refuses in a flow collection's plain
    scalars hidden (syntax/flowcolons.py), when that is why it refused it:
    go-yaml reads `[--addr=:8080]` as ["--addr=:8080"]. The later reads of
    the document compose what _masked gives. None: refused."""
    from ..syntax import flowcolons

    at = doc.index - doc.source.first_document
    made = doc.source.colons_hidden.get(at)
    if made is not None:
        return made[1] if made[1] != text else None  # hidden already, and still refused
    remade = flowcolons.hidden(text, exc)
    if remade is not None:
        doc.source.colons_hidden[at] = (text, remade)
    return remade


def _hide_colons(text: str) -> str | None:
    """`text` (a document's, masked since) with the `:` libyaml refuses
    hidden again; None where it now parses as it is, or cannot be."""
    from ..syntax import flowcolons

    loader = Composer(text)
    try:
        loader.raw_scan()
        return None
    except YAMLError as exc:
        return flowcolons.hidden(text, exc)
    finally:
        _release(loader)


def _mask_kubectl_lines(text: str) -> str | None:
    """The text with its opening lines as kubectl reads them, each masked
    in place (same length, so every offset stays put): a `---#x` separator
    line becomes `---` and spaces (_hidden_from_yaml), and directives
    before it, which kubectl never applies (_STRAY_DIRECTIVE), comments.
    An undefined `!k!` tag handle then fails as it does in kubectl. None:
    nothing to mask (most documents: `---` and a line break)."""
    if text.startswith("---"):
        if not _hidden_from_yaml(text, 0):
            return None
        separator, head = 0, ""
    elif text[:1].isalnum() or (found := _leading_directives(text)) is None:
        return None
    else:
        separator = found
        head = re.sub("^%", "#", text[:separator], flags=re.M)
    end = text.find("\n", separator)
    end = len(text) if end == -1 else end
    line = text[separator:end]
    if _hidden_from_yaml(text, separator):
        cr = "\r" if line.endswith("\r") else ""
        line = "---" + " " * (len(line) - 3 - len(cr)) + cr
    return head + line + text[end:]


def mask_surrogate_escapes(text: str) -> str | None:
    if not re.search(r"\\u[dD][89a-fA-F]", text) or _STAND_INS.search(text) or _STAND_IN_ESCAPE.search(text):
        return None

    def stand_in(match: re.Match[str]) -> str:
        code = int(match.group(1), 16) if match.group(1) else 0
        if _HIGH <= code <= 0xDFFF:
            return f"\\u{code - _HIGH + _STAND_IN:04X}"
        return match.group()

    return _ESCAPE.sub(stand_in, text)


def _unmask_surrogates(root: Node) -> None:
    """Join stand-ins back as Go's JSON decoder joins surrogates: a high one
    followed by a low one is one character, any other is U+FFFD."""
    for node in unique_nodes(root):
        if not isinstance(node, ScalarNode) or not _STAND_INS.search(node.value):
            continue
        out: list[str] = []
        value, i = node.value, 0
        while i < len(value):
            code = ord(value[i]) - _STAND_IN + _HIGH
            following = ord(value[i + 1]) - _STAND_IN + _HIGH if i + 1 < len(value) else 0
            if _HIGH <= code < _LOW and _LOW <= following <= 0xDFFF:
                out.append(chr(_joined(code, following)))
                i += 2
                continue
            out.append("\ufffd" if _HIGH <= code <= 0xDFFF else value[i])
            i += 1
        node.value = "".join(out)


def leading_source_comment(text: str) -> str | None:
    """The file a `# Source:` comment names, from the comment lines before
    the document's first line of content only: anywhere else such a line
    may be inside a value (a Secret's, say), which no message may show."""
    if _opens_with_content(text):
        return None
    for line in _lines(text):
        stripped = line.strip().lstrip("\ufeff")
        match = _SOURCE_COMMENT.match(line.lstrip("\ufeff"))
        if match:
            return match.group(1).strip()
        if stripped and not stripped.startswith(("#", "%")) and not _MARKER_LINE.fullmatch(stripped):
            return None
    return None


def _may_nest_deeply(text: str, max_depth: int, brackets: int | None = None) -> bool:
    """Cheap screen: composing deep nesting overflows libyaml's C stack.

    Flow nesting needs one bracket per level. Block nesting needs the
    leading run of indentation and `- `/`? `/`: ` indicators to grow: by at
    least one column for every two levels (a block sequence may sit at its
    parent key's column). Both kinds add up in one document. `brackets`:
    how many brackets may open a level, once counted (below).
    """
    counted = brackets is not None
    if brackets is None:
        # Most documents hold no bracket: found at memchr's speed, not counted.
        brackets = text.count("[") + text.count("{") if "[" in text or "{" in text else 0
    if brackets < max_depth:
        run = max(1, (max_depth - brackets) // 2 - 1)
        screens = _INDENTATION_RUNS.get(run)
        if screens is None:
            # "\n" first rather than "^" with MULTILINE: a literal lets the regex
            # engine skip ahead, ten times faster on big documents.
            indicators = r"[ \t\-?:]{%d,}" % run
            screens = _INDENTATION_RUNS[run] = (re.compile(indicators), re.compile("\n" + indicators))
        at_start, after_break = screens
        if at_start.match(text) is None and after_break.search(text) is None:
            return False
    # Most brackets of a large document are a scalar's (a CRD's
    # descriptions: `{{request.object}}`, `[0-9]`), and the walk of its
    # events that would count the levels costs more than composing it: only
    # those that may open a level count (flow_openings), each looked at
    # where it stands, up to _BRACKETS_LOOKED_AT of them.
    if counted or not brackets or brackets > _BRACKETS_LOOKED_AT or may_hold_anchors(text) or may_hold_tags(text):
        return True
    return _may_nest_deeply(text, max_depth, flow_openings(text, max_depth))


# _may_nest_deeply looks at each bracket of a document holding fewer: a
# dense flow document holding more is walked for its depth, as before.
_BRACKETS_LOOKED_AT = 1 << 16

# _may_nest_deeply's patterns by the run they look for: compiled once, where
# re.match with a pattern's text looks it up in re's cache on every call.
_INDENTATION_RUNS: dict[int, tuple[re.Pattern[str], re.Pattern[str]]] = {}


def _check_depth(doc: Document, max_depth: int, masked: str | None = None) -> None:
    text = masked or doc.text
    loader = Composer(text)
    depth = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            name = type(event).__name__
            if name in ("MappingStartEvent", "SequenceStartEvent"):
                depth += 1
                if depth > max_depth:
                    raise PostrenderError(f"nesting deeper than {_depth_limit(max_depth)}",
                        doc.at(doc.first_line + event.start_mark.line + 1),
                    )
            elif name in ("MappingEndEvent", "SequenceEndEvent"):
                depth -= 1
    except MarkedYAMLError as exc:
        hidden = _colons_hidden(doc, text, exc)
        if hidden is None:
            raise _yaml_error(doc, exc) from None
    else:
        return
    finally:
        _release(loader)
    _check_depth(doc, max_depth, hidden)


# Mappings whose keys a message may name but whose values it may not: a
# Secret's values, and any key written inside one, may be secret.
_VALUE_MAPPINGS = ("data", "stringData", "binaryData")


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
        _check_expansion(doc, root, limits.max_expanded_nodes - expanded)
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


class _Earlier:
    """An entry of a mapping that a later one with a key go-yaml v2 holds
    equal overrides: kubectl and Helm never read its value. (A plain class:
    a NamedTuple's class costs every run's start-up, and few meet one.)"""

    __slots__ = ("mapping", "index", "later", "shown")

    def __init__(self, mapping: MappingNode, index: int, later: ScalarNode, shown: tuple[str, str] | None) -> None:
        self.mapping = mapping
        self.index = index  # of the entry in mapping.value
        self.later = later  # the key that wins
        self.shown = shown  # what a message may show of the keys (_check_structure)

    @property
    def key(self) -> ScalarNode:
        return self.mapping.value[self.index][0]  # type: ignore[return-value]

    @property
    def later_at(self) -> int:
        return self.later.start_mark

    @property
    def hidden(self) -> bool:
        return self.shown is not None and self.shown[0] == "hidden"

    def what(self) -> str:
        """The key, as a message may show it: `duplicate ` comes before."""
        return _what(self.key.value, self.shown[1] if self.hidden else None)  # type: ignore[index]

    def cut(self, text: str, aliases: Aliases | None) -> Cut | str:
        """The cut that leaves the entry out of `text`, or why none can."""
        from ..syntax import earlier as earlier_keys

        return earlier_keys.cut_of(text, self.mapping, self.index, self.later, aliases)

    def left_out(self) -> _LeftOut:
        key = self.key
        return _LeftOut(self.later_at, key.start_mark, key.value, self.later.value, self.what(), self.hidden)


class _InText:
    """The entries read found overridden in the text of a large document
    (_raise_earlier_in_text), with no node: their cuts are found with them,
    held as columns (blockkeys.EarlierFound), an entry made where one is
    asked for (_EarlierInText)."""

    __slots__ = ("found",)

    def __init__(self, found: blockkeys.EarlierFound) -> None:
        self.found = found

    def __len__(self) -> int:
        return len(self.found)

    def __getitem__(self, i: int) -> _EarlierInText:
        return _EarlierInText(self.found[i])

    def kept(self) -> tuple[Sequence[Cut], _Said]:
        """The cuts that leave the entries out, in order, less those inside
        another; and the entries they leave out, by where the key that wins
        is, but only the first few said of them (_DROPPED_SAID), and how many."""
        from operator import le

        from ..syntax.earlier import Cut, Cuts

        found = self.found
        starts, ends = found.starts, found.ends
        if all(map(le, ends, starts[1:])):
            # Most: in order, none inside another (an entry of a value written
            # twice, whose later key comes before the one that overrides it).
            return Cuts.of_lines(starts, ends), _Said(self, range(len(found)))
        cuts = [Cut(start, end, True) for start, end in zip(starts, ends)]
        return _kept(cuts, self)


class _EarlierInText:
    """An entry read found overridden in the text of a large document
    (_raise_earlier_in_text), with no node: its cut is found with it."""

    __slots__ = ("found",)

    def __init__(self, found: blockkeys.Earlier) -> None:
        self.found = found

    @property
    def later_at(self) -> int:
        return self.found.later_at

    @property
    def hidden(self) -> bool:
        return self.found.hidden_in is not None

    def what(self) -> str:
        return _what(self.found.key, self.found.hidden_in)

    def left_out(self) -> _LeftOut:
        found = self.found
        return _LeftOut(found.later_at, found.key_at, found.key, found.key, self.what(), self.hidden)


class _Said:
    """Entries left out, by where the key that wins is (`order`, places in
    `entries`): how many, and the first said of them, each made when asked."""

    __slots__ = ("entries", "order")

    def __init__(self, entries: Sequence[_Earlier] | _InText, order: Sequence[int]) -> None:
        self.entries, self.order = entries, order

    def dropped(self) -> _Dropped:
        entries = self.entries
        return _Dropped(len(self.order), [entries[i].left_out() for i in self.order[: _DROPPED_SAID + 1]])


def _kept(cuts: list[Cut], entries: Sequence[_Earlier] | _InText) -> tuple[list[Cut], _Said]:
    """The cuts not inside another, in order, and the entries they leave
    out (`cuts[i]` leaves out `entries[i]`), by where the key that wins is."""
    if len(cuts) == 1:
        return cuts, _Said(entries, _FIRST)  # most documents holding a key twice: once
    from ..syntax.earlier import outermost

    kept = outermost(cuts)
    kept_cuts = set(kept)  # a document may hold thousands: a list here made it quadratic
    order = sorted((i for i, cut in enumerate(cuts) if cut in kept_cuts), key=lambda i: entries[i].later_at)
    return kept, _Said(entries, order)


_FIRST = (0,)


def _what(key: str, hidden_in: str | None) -> str:
    """A key written twice, as a message may show it: `duplicate ` comes
    before. `hidden_in`: the field whose value holds it, which may be secret."""
    if hidden_in is not None:
        return f"key in a mapping inside the value of {hidden_in} (not shown: values may be secret)"
    return f"key {quoted(key)} in a mapping"


class _EarlierKeys(PostrenderError):
    """Entries read drops: raised once a whole document passed
    _check_structure, for read to read it again without them (or once its
    text told them, where it is large: _raise_earlier_in_text)."""

    def __init__(self, doc: Document, found: list[_Earlier] | _InText) -> None:
        first = found[0]
        super().__init__(f"duplicate {first.what()}", doc.location(offset=first.later_at))
        self.entries = found


def _drop_earlier_keys(doc: Document, found: _EarlierKeys) -> _Dropped:
    """Masks the entries found in the document's text, and its source's,
    for the writer to leave out (Document.left_out); the entries dropped, in
    the text's order, less those inside a value dropped whole. Refuses an
    entry that cannot be cut out alone."""
    from ..syntax import earlier as earlier_keys  # few inputs hold a key twice

    text = doc.text
    entries = found.entries
    kept, said = entries.kept() if entries.__class__ is _InText else _kept(_cuts(doc, entries), entries)
    masked = earlier_keys.masked(text, kept)
    source = doc.source
    at = doc.index - source.first_document
    source.replace_document_text(at, masked)
    doc.text = masked
    if doc.index == 1:
        _json_value_end.cache_clear()  # it held the text as read, as a key (2.3 MiB for one of 100,000 keys twice)
    source.set_cuts(at, kept)
    # What the warnings need, and no node: the tree read first is let go of
    # before the document is read again, and the table of its lines the
    # error found (_EarlierKeys), made again if a line is asked for.
    dropped = said.dropped()
    doc.root, doc.shared, doc.nodes, doc.line_starts = None, _NO_IDS, 0, None
    # Said without the objects' names (the tree read first may name one by
    # a key left out), should reading the document again fail: an answer
    # that echoes the input, as a KRM function's does, says what it left
    # out. Said with them once read again (_left_out).
    source.left_out[at] = _dropped_warnings(doc, dropped, [])
    return dropped


def _cuts(doc: Document, entries: list[_Earlier]) -> list[Cut]:
    """The cut that leaves out each entry found in the composed tree;
    refuses one that cannot be cut out alone."""
    from ..syntax import earlier as earlier_keys  # few inputs hold a key twice

    text = doc.text
    cuts: list[Cut] = []
    # Looked up per entry, found once: a walk of the document each was quadratic.
    aliases = earlier_keys.Aliases(doc.root, doc.shared) if doc.shared and doc.root is not None else None
    for entry in entries:
        cut = entry.cut(text, aliases)
        if isinstance(cut, str):
            if _has_odd_line_breaks(text):
                _check_line_breaks(doc)  # what the cut could not follow, said as for any document
            raise UnreadableText(f"duplicate {entry.what()}: kubectl and Helm read the last, but postrender cannot"
                                 f" leave the earlier out: {cut}", doc.location(offset=entry.later_at))
        cuts.append(cut)
    return cuts


# One empty set for every document that holds none: an empty frozenset is an
# object of 216 bytes each time one is made (40,000 documents each with a key
# written twice held 8 MiB of them).
_NO_IDS: frozenset[int] = frozenset()


class _LeftOut:
    """What a warning says of an entry left out (_Earlier), without its nodes:
    where the key that wins and the earlier one start, the two as written
    (YAML 1.1 may read two texts alike), the key as a message may show it,
    and whether it is hidden."""

    __slots__ = ("later_at", "key_at", "first", "last", "what", "hidden")

    def __init__(self, later_at: int, key_at: int, first: str, last: str, what: str, hidden: bool) -> None:
        self.later_at, self.key_at = later_at, key_at
        self.first, self.last = first, last
        self.what, self.hidden = what, hidden


class _Dropped:
    """The entries of a document left out: how many, and the first few (said)."""

    __slots__ = ("count", "said")

    def __init__(self, count: int, said: list[_LeftOut]) -> None:
        self.count, self.said = count, said


# The entries of one document left out that a warning each names; the rest
# are counted in one more. A generated document may hold a key written twice
# thousands of times over: a line each would bury every other message (and
# cost more than the read).
_DROPPED_SAID = 10


def _dropped_warnings(doc: Document, dropped: _Dropped, objects: list[KubeObject]) -> list[Diagnostic]:
    # The table of line starts these lines are found by is not kept for
    # them alone: a document said to hold a key twice is rarely asked for a
    # line again, and 40,000 of them held 7 MiB of tables.
    line_starts = doc.line_starts
    said = [_dropped_warning(doc, entry, objects) for entry in dropped.said[:_DROPPED_SAID]]
    if dropped.count > _DROPPED_SAID:
        at = dropped.said[_DROPPED_SAID].later_at
        more = dropped.count - _DROPPED_SAID
        said.append(_about_holder(
            doc, at, objects, lambda _: f"and {more:,} more {'key' if more == 1 else 'keys'} of the document written"
            " twice from here on: kubectl and Helm read the last of each, so postrender leaves the earlier out"))
    doc.line_starts = line_starts
    return said


def _holder(doc: Document, at: int, objects: list[KubeObject]) -> KubeObject | None:
    """The object among `objects` that holds offset `at` of the document."""
    return next((obj for obj in objects if obj.node.start_mark <= at < obj.node.end_mark), None)


def _holder_location(doc: Document, at: int, holder: KubeObject | None) -> Location:
    """Where offset `at` is, named by the object holding it (_holder)."""
    if holder is None:
        return doc.location(offset=at)
    return holder.placed(doc.location(offset=at, kind=holder.kind, name=holder.name))


def _about_holder(doc: Document, at: int, objects: list[KubeObject], said: Callable[[Location], str]) -> Diagnostic:
    """A warning of what is at offset `at`, placed there and about the object
    holding it (a KRM result's resourceRef and file); `said` is told the
    place, for a line it names to be called as the place's is."""
    holder = _holder(doc, at, objects)
    where = _holder_location(doc, at, holder)
    return Diagnostic(f"{where.describe()}: {said(where)}", None if holder is None else (holder, "", ""))


def _dropped_warning(doc: Document, entry: _LeftOut, objects: list[KubeObject]) -> Diagnostic:
    """Said once the document is read again: its objects name themselves."""
    earlier_line = doc.first_line + doc.chunk_line(entry.key_at) + 1
    first, last = entry.first, entry.last

    def said(where: Location) -> str:
        earlier = where.line_text(earlier_line)
        what = (f"duplicate {entry.what} (written first on {earlier})" if first == last or entry.hidden
                else f"key {quoted(last)} in a mapping reads as {quoted(first)} on {earlier} does (YAML 1.1)")
        return f"{what}: kubectl and Helm read the last, so postrender leaves the earlier out"

    return _about_holder(doc, entry.later_at, objects, said)


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


def _check_expansion(doc: Document, root: Node, limit: int) -> None:
    """Refuses a document whose aliases, expanded, add more than `limit`
    nodes to those written (an alias bomb), computed without expanding it.
    What is written is bounded by --max-nodes: a dense document holding
    one small alias is no bomb, however many nodes it writes."""
    _expansion(doc, root, limit)


def _expansion(doc: Document, root: Node, limit: int) -> int:
    """How many nodes the aliases under `root` add, expanded, to those
    written, refused past `limit` (_check_expansion)."""
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
            if total - len(sizes) > limit:
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


def shared_nodes(root: Node) -> frozenset[int]:
    """The ids of the nodes under `root` reachable by more than one path
    (through aliases), and of every node under those."""
    # The nodes seen, themselves (hashed by identity), not their ids: an id
    # is an int object of its own, and the walk sees every node of the
    # graph (a List of 4,000 apps and one alias: +41 MiB traced at its
    # peak, +24 MiB now). The graph holds them all while it runs.
    seen: set[Node] = set()
    aliased: list[Node] = []
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        if node in seen:
            aliased.append(node)
            continue
        seen.add(node)
        stack.extend(children(node))
    del seen
    shared: set[int] = set()
    stack = aliased
    while stack:
        node = stack.pop()
        if id(node) not in shared:
            shared.add(id(node))
            stack.extend(children(node))
    return frozenset(shared)


def _objects_of(doc: Document, shared: _SharedMaps) -> list[KubeObject]:
    root = doc.root
    assert isinstance(root, MappingNode)
    if get(root, "items") is None:
        return [_object(doc, root, None, shared)]  # most documents: `items` is looked up once
    items = _list_items(root)
    if items is not None:
        kind = get_str(root, "kind")
        objects = []
        for i, item in enumerate(items.value):
            if not isinstance(item, MappingNode):
                raise PostrenderError(f"{kind} item {i} is not a mapping", doc.location(item))
            objects.append(_object(doc, item, i, shared))
        return objects
    if _an_empty_list(doc, root):
        return []
    return [_object(doc, root, None, shared)]


def _an_empty_list(doc: Document, root: MappingNode) -> bool:
    """Whether a root that is no List with items is an empty List (`items`
    null: a chart's range over nothing), which holds no object.

    Refuses one kubectl and Helm read as a List though its kind names none,
    or a List whose items are no list: apimachinery decodes any object with
    an `items` key as a list of its items (none, where it is null), whatever
    its kind, and applies those. Read as its kind says, it would be
    versioned and its references rewritten as an object Kubernetes never
    gets."""
    items = get(root, "items")
    if items is None:
        return False
    kind = get_str(root, "kind") if isinstance(get(root, "kind"), ScalarNode) else None
    if kind == KRM_RESOURCE_LIST:
        return False  # no object kubectl applies: the KRM front end reads its items, and says what is wrong
    if is_null(items) and kind is not None and kind.endswith("List"):
        return True
    metadata = get(root, "metadata")
    name = (get_str(metadata, "name")
            if isinstance(metadata, MappingNode) and isinstance(get(metadata, "name"), ScalarNode) else None)
    if isinstance(items, SequenceNode) or is_null(items):
        message = (f"kubectl and Helm read an object with a top-level `items` key as a List of those items "
                   f"(none, where it is null), not as {kind or 'the object'}: write `kind: List` to apply them, "
                   "or move `items` under `spec`")
    else:
        message = ("`items` must be a list: kubectl and Helm read any object with `items` as a List "
                   "(json: cannot unmarshal into decodeList.items)")
    raise PostrenderError(message, doc.location(items, kind, name))


def _written_within(root: Node, start: int, end: int) -> bool:
    """Whether every node under `root` is written between `start` and `end`
    (offsets): none is an alias of one written elsewhere."""
    return all(start <= node.start_mark < end for node in unique_nodes(root))


def _item_at(root: MappingNode, offset: int) -> MappingNode | None:
    """The item of a List (_list_items) that holds `offset`, if any."""
    items = _list_items(root)
    for item in items.value if items is not None else ():
        if isinstance(item, MappingNode) and item.start_mark <= offset < item.end_mark:
            return item
    return None


def _list_items(root: MappingNode) -> SequenceNode | None:
    """The items of a document that is a `List` (any kind ending in List
    with a sequence of `items`), each an object; None for any other."""
    items = get(root, "items")
    if not isinstance(items, SequenceNode):
        return None  # most documents: their kind is not looked up twice (-0.6% on 20,000 ConfigMaps)
    kind = get_str(root, "kind")
    return items if kind and kind.endswith("List") else None


def _chart_file_hint(doc: Document) -> str:
    """A chart's own files are no manifests: a chart folder given where its
    rendered output goes (`postrender ./mychart`) fails on Chart.yaml first."""
    file = os.path.basename(doc.source.name or "")
    if file in ("Chart.yaml", "values.yaml", "Chart.lock") or file.startswith("values-"):
        return (f" ({file} is a Helm chart's file, not a manifest: render the chart first,"
                " `helm template NAME CHART | postrender`, or use postrender as helm's --post-renderer)")
    return ""


def _object(doc: Document, node: MappingNode, item: int | None, shared: _SharedMaps) -> KubeObject:
    # What identifies the object, read as kubectl decodes an object's
    # TypeMeta and ObjectMeta: a string or null, and nothing else. kubectl
    # and Helm refuse the whole document otherwise ("cannot unmarshal number
    # into Go struct field"), so postrender does too, where it can say
    # which line, rather than name the object by a misreading of it.
    kind = _identity(doc, node, "kind", None, None)
    metadata = get(node, "metadata")
    name = _identity(doc, metadata, "name", kind, None, "metadata.")
    if not kind:  # kubectl: "Object 'Kind' is missing", for an empty one too
        written = get(node, "kind")  # an empty one's line, where there is one (errors60)
        raise PostrenderError("object has no kind" + _chart_file_hint(doc),
                              doc.location(written if written is not None else node, None, name))
    api_version, namespace = _type_and_namespace(doc, node, kind, name)
    if item is not None and isinstance(get(node, "items"), SequenceNode):
        # apimachinery decodes an object holding an `items` list as a List
        # (_an_empty_list), and a List's item cannot be one: kubectl fails
        # on the whole List ("is not a list: no Items field in this object").
        raise PostrenderError(
            "an item of a List that holds a list of `items` itself (a List in a List): kubectl and Helm read it as a"
            " List, which an item cannot be, and fail; write its items as items of the List around it",
            doc.location(node, kind, name),
        )
    if item is not None and not api_version:
        # kubectl reads a List's items with the unstructured decoder, which
        # needs one ("Object 'apiVersion' is missing"), and fails on the whole
        # List; a top-level object it maps by kind. Passed, its object was not
        # taken for a ConfigMap or Secret, and warned of as not in the stream (syntax62).
        raise PostrenderError("a List's item has no apiVersion: kubectl and Helm fail on the whole List"
                              " (Object 'apiVersion' is missing); write the item's apiVersion",
                              doc.location(node, kind, name))
    obj = KubeObject(
        document=doc,
        node=node,
        api_version=api_version,
        kind=kind,
        name=name,
        namespace=namespace,
        item=item,
        annotations=_strings(doc, metadata, "annotations", kind, name, shared),
        labels=_strings(doc, metadata, "labels", kind, name, shared),
    )
    if item is None and doc.source_comment is None and obj.annotations:
        doc.source_comment = file_annotated(obj.annotations.get)
    return obj


# The objects of one app or component write the same labels (often the
# same annotations) one after another: a dict of one entry costs 184 bytes,
# as much as the object holding it. So read keeps one mapping for each run
# of entries, in their order, and every object that writes them shares it
# (read-only, as NO_STRINGS is: a change through one would change them all).
_SharedMaps = dict[tuple[tuple[str, str], ...], Mapping[str, str]]


def _check_strings(doc: Document, node: MappingNode, field: str, kind: str | None, name: str | None) -> None:
    """Refuses a value of a labels or annotations mapping, merge keys
    applied, that kubectl decodes as neither a string nor null (`1`, `true`,
    a list): the few mappings holding anything but plain strings."""
    for key, value in entries(node):
        if string_value(value) is None and not is_null(value):
            raise PostrenderError(f"metadata.{field}.{json_key(key)} must be a string{not_a_string_hint(value)}",
                                  doc.location(value, kind, name))


def _identity(doc: Document, node: Node | None, key: str, kind: str | None, name: str | None,
              prefix: str = "") -> str | None:
    """The string `key` of `node` holds, None where it holds none or null;
    refuses anything kubectl cannot decode as a string there. A `!!binary`
    one (kubectl reads its decoded bytes) is refused too: the names
    postrender matches and edits are the text written."""
    value = get(node, key)
    if value is None:
        return None
    if value.__class__ is ScalarNode and is_string(value):  # type: ignore[union-attr]
        return value.value  # type: ignore[union-attr]
    if is_null(value):
        return None
    raise PostrenderError(f"{prefix}{key} must be a string{not_a_string_hint(value, key == 'kind')}",
                          doc.location(value, kind, name))


def _type_and_namespace(doc: Document, node: MappingNode, kind: str | None, name: str | None) -> tuple[str, str | None]:
    """The apiVersion ("" for none) and namespace (None for none) of an
    object or a List, as kubectl decodes them (_identity); refuses metadata
    that is no mapping."""
    api_version = _identity(doc, node, "apiVersion", kind, name) or ""
    metadata = get(node, "metadata")
    if metadata is not None and not isinstance(metadata, MappingNode) and not is_null(metadata):
        raise PostrenderError("metadata must be a mapping", doc.location(metadata, kind, name))
    return api_version, _identity(doc, metadata, "namespace", kind, name, "metadata.") or None


def _string_map_node(doc: Document, metadata: Node | None, field: str, kind: str | None,
                     name: str | None) -> MappingNode | None:
    """The labels or annotations mapping of `metadata` (None where there is
    none, or null). Refuses what kubectl cannot decode as a map of strings:
    anything but a mapping or null, or a value that is neither a string nor
    null."""
    node = get(metadata, field)
    if node is None:
        return None
    if not isinstance(node, MappingNode):
        if is_null(node):
            return None
        raise PostrenderError(f"metadata.{field} must be a mapping", doc.location(node, kind, name))
    for _, value in node.value:
        if value.__class__ is not ScalarNode or not is_string(value):  # type: ignore[arg-type]
            _check_strings(doc, node, field, kind, name)
            break
    return node


def _check_list(doc: Document, root: MappingNode) -> None:
    """Refuses a List whose own apiVersion or metadata kubectl cannot
    decode, as of any object (_object): it decodes the List before its
    items."""
    kind = get_str(root, "kind")
    metadata = get(root, "metadata")
    name = _identity(doc, metadata, "name", kind, None, "metadata.")
    _type_and_namespace(doc, root, kind, name)
    for field in ("labels", "annotations"):
        _string_map_node(doc, metadata, field, kind, name)


def _strings(doc: Document, metadata: Node | None, field: str, kind: str, name: str | None,
             shared: _SharedMaps) -> Mapping[str, str]:
    """string_map of a metadata field (labels, annotations), shared with
    the objects before that wrote the same entries in the same order."""
    node = _string_map_node(doc, metadata, field, kind, name)
    if node is None:
        return NO_STRINGS
    strings = string_map(node)
    if not strings:
        return NO_STRINGS
    key = tuple(strings.items())
    known = shared.get(key)
    if known is None:
        known = shared[key] = MappingProxyType(strings)
    return known
