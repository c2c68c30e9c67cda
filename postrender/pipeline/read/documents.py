"""The read stage's document model: Source, Document, KubeObject, and where each comes from.

An input (Source) is cut into documents (Document; PackedDocument in a
large stream, its text held compressed), each composed into a node graph
and read into objects (KubeObject). Every later stage takes these, and
every other module of the read stage fills them: so they stand alone here,
with the little they need to name a place in a message (a List's items,
the file an annotation names, Helm's rendered lines).
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Callable, Collection, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

from ...errors import Location
from ...lazyre import LazyPattern
from ...printable import quoted
from ...records import record, replace
from ...report import Diagnostic
from ...syntax.nodes import MappingNode, Node, SequenceNode, get, get_str, line_starts, shared_int
from ...vocabulary import PATH_ANNOTATIONS
from ..packed import PackedTexts
from .lines import leading_source_comment
from .shared import _NO_IDS, ItemsShared, KeptShared, _named, path_counts

if TYPE_CHECKING:
    from ...syntax.earlier import Cut, CutsOf, DocumentCuts

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
            from ...syntax.earlier import DocumentCuts  # few sources hold a key twice

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

    # Its truth: whether the document shares nodes (KeptShared and
    # ItemsShared are true even holding no id: read.shared.ItemsShared).
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
        """Lets go of its text, and of the chart file its leading `# Source:`
        comment names where that is all its source_comment (and
        header_source) hold: read again from the text when a message asks
        (__getattr__). A generated chart's files are one a document, its
        name a string of its own: 25,000 small apps (75,000 files), 5.1 MiB."""
        text = self.text
        del self.text
        comment = self.source_comment
        header = self.header_source
        if comment is not None and (header is None or header is comment) and \
                (_opens_with_comment_on(text, comment) or comment == leading_source_comment(text)):
            del self.source_comment
            if header is not None:
                del self.header_source

    def __getattr__(self, name: str) -> str | None:
        # Called only for a slot that holds nothing: `text`, or the file its
        # comment names (source_comment, header_source), once let go of.
        if name == "text":
            return self.source.document_text(self.index - self.source.first_document)
        if name == "source_comment" or name == "header_source":
            return leading_source_comment(self.text)
        raise AttributeError(name)


def _opens_with_comment_on(text: str, file: str) -> bool:
    """Whether `text` opens with the `# Source:` line naming `file` as Helm
    writes it, after a `---` line or not: then its leading_source_comment is
    `file`, known without reading its lines (2.6 µs a document, some 2% of
    a render of 25,000 small apps). A name that line could not spell so (a
    line break in it, spaces around it, empty) is left to the lines' read."""
    if not file.isprintable() or file != file.strip() or not file:
        return False
    line = f"# Source: {file}\n"
    return text.startswith(line) or text.startswith("---\n") and text.startswith(line, 4)


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
    """An object read from a document. Made by `kube_object`: one with
    neither annotations nor labels, not a List's item, is a KubeObject,
    whose `item`, `annotations` and `labels` are the class's (None and
    NO_STRINGS); a List's item without either an `_Item`, and any other a
    `_Described`, which hold them in slots of their own. 8 slots, not 11:
    96 bytes an object, not 128 (25,000 small apps' 75,000 objects, none
    annotated: 2.3 MiB)."""

    document: Document
    node: MappingNode
    api_version: str
    kind: str
    name: str | None
    namespace: str | None
    # A ConfigMap's or Secret's content as read (index/configs.ConfigContent).
    content: Any = None
    # A ConfigMap's or Secret's own edits, made while its document was whole
    # (rewrite.Prepared), when read keeps none of its tree.
    prepared: Any = None
    item: ClassVar[int | None] = None  # position in a `List`'s items
    annotations: ClassVar[Mapping[str, str]] = NO_STRINGS
    labels: ClassVar[Mapping[str, str]] = NO_STRINGS

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


class _Described(KubeObject):
    """An object with annotations or labels: those and `item` in slots of
    its own (a subclass's slot is found before its base's class attribute)."""

    __slots__ = ("item", "annotations", "labels")


class _Item(KubeObject):
    """A List's item with neither annotations nor labels, as most are: its
    position in a slot of its own, 104 bytes where a `_Described` is 120
    (100,000 ConfigMaps as one List: 1.5 MiB)."""

    __slots__ = ("item",)


def kube_object(document: Document, node: MappingNode, api_version: str, kind: str, name: str | None,
                namespace: str | None, item: int | None, annotations: Mapping[str, str],
                labels: Mapping[str, str]) -> KubeObject:
    """A KubeObject, an `_Item` or a `_Described`, by which of `item`,
    `annotations` and `labels` are not the class's (the empty ones are
    NO_STRINGS)."""
    if item is not None:
        # An item's position, the composer's own int (32 bytes apiece past
        # 256), is the one shared object below 16 Ki (100,000 tiny
        # ConfigMaps as one List: 0.5 MB).
        item = shared_int(item)
    if annotations is NO_STRINGS and labels is NO_STRINGS:
        if item is None:
            return KubeObject(document, node, api_version, kind, name, namespace)
        obj = _Item(document, node, api_version, kind, name, namespace)
        obj.item = item  # type: ignore[misc]
        return obj
    obj = _Described(document, node, api_version, kind, name, namespace)
    obj.item, obj.annotations, obj.labels = item, annotations, labels  # type: ignore[misc]
    return obj


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
