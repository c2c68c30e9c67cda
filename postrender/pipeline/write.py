"""Stage 6: the edited stream, in input order, part by part.

Every edit is worked out, and every check it makes passed, before the first
part is given out: an error leaves stdout empty, never half a stream. The
parts are then spliced one document at a time, so the command line writes
them out without ever holding the whole output, or its bytes, at once.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from itertools import accumulate
from typing import TYPE_CHECKING

from ..syntax import edit
from .read import Stream
from .packed import PackedLines
from .read.documents import Document, KubeObject, PackedDocument
from .read.jsonfirst import as_later_document
from .read.split import ends_document, opens_with_directives, opens_with_marker
from .rewrite import Rewrite

if TYPE_CHECKING:
    from ..syntax.earlier import Cut, DocumentCuts


class _Piece:
    """One input document and the edits it gets, in order and checked. Its
    text is asked of the document as the piece is written, not held: the
    source holds it packed until then (pipeline/packed.py). (A plain class:
    a NamedTuple's costs every run's start-up, read.split._ChunkStarts.)"""

    __slots__ = ("document", "edits", "copies")

    def __init__(self, document: Document, edits: edit.Splice | None,
                 copies: tuple[edit.Splice, ...] = ()) -> None:
        self.document = document
        self.edits = edits  # None: written as read
        self.copies = copies


class _PackedPiece:
    """A piece of a large stream, its edits' texts (and its copies', after
    them) held among the stream's, compressed (Output's `texts`), and its
    edits' and each copy's bounds (Splice.one_chunk). The texts were a str
    each, and each Splice an object: 25,000 small apps' 75,000 edited
    documents held 22 MiB of them at the writer's end, its peak; the texts
    repeat (a config's marks), and compress some tenfold as its text does."""

    __slots__ = ("document", "bounds", "copies")

    def __init__(self, document: Document, bounds: array[int], copies: tuple[array[int], ...]) -> None:
        self.document = document
        self.bounds = bounds
        self.copies = copies

    def unpacked(self, texts: str) -> _Piece:
        """The piece, given its texts (the line Output's `texts` holds of it)."""
        at = sum(self.bounds[2::3])  # the new texts' lengths: the edits' texts end there
        edits = edit.Splice.of_chunk(self.bounds, texts[:at])
        copies = []
        for bounds in self.copies:
            length = sum(bounds[2::3])
            copies.append(edit.Splice.of_chunk(bounds, texts[at : at + length]))
            at += length
        return _Piece(self.document, edits, tuple(copies))


def _packed(piece: _Piece | Document, texts: PackedLines) -> _Piece | _PackedPiece | Document:
    """`piece` with its texts added to `texts` as their next line (an empty
    one for a document written as read, or a piece whose edits are held in
    several chunks, a large List's, kept as it is): line i is the ith
    piece's."""
    if piece.__class__ is not _Piece:
        texts.add("")
        return piece
    edits = piece.edits.one_chunk() if piece.edits is not None else None  # type: ignore[union-attr]
    copies = [copy.one_chunk() for copy in piece.copies]  # type: ignore[union-attr]
    if edits is None or any(copy is None for copy in copies):
        texts.add("")
        return piece
    texts.add(edits[1] + "".join(copy[1] for copy in copies))  # type: ignore[index]
    return _PackedPiece(piece.document, edits[0], tuple(copy[0] for copy in copies))  # type: ignore[index, union-attr]


class Output:
    """The edited stream: iterating gives its parts, afresh each time. It
    holds the documents' text and their edits, not their node graphs; a
    document written as read is held as itself, not as a piece (_piece)."""

    def __init__(self, pieces: list[_Piece | _PackedPiece | Document], texts: PackedLines | None = None) -> None:
        self._pieces = pieces
        self._texts = texts  # a large stream's pieces' texts (_packed): line i the ith piece's

    @property
    def _each(self) -> Iterator[_Piece]:
        texts = self._texts
        for i, piece in enumerate(self._pieces):
            if piece.__class__ is _Piece:
                yield piece  # type: ignore[misc]
            elif piece.__class__ is _PackedPiece:
                yield piece.unpacked(texts.line(i))  # type: ignore[union-attr]
            else:  # a document written as read, but for any entries read left out
                cuts = piece.source.cuts  # type: ignore[union-attr]
                yield _Piece(piece, None if cuts is None else _cuts_alone(piece, cuts))  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[str]:
        return self._parts(in_parts=True)

    def edits_of(self, document: Document) -> edit.Splice | None:
        """The edits `document` is written with (None: as read, or not here)."""
        return next((piece.edits for piece in self._each if piece.document is document), None)

    def insert(self, document: Document, at: int, text: str) -> bool:
        """Adds to `document`'s edits `text` inserted at offset `at` of its
        text, where no edit of it reaches: False (and nothing added) for a
        document not written here, one that gets copies written after it,
        or an offset an edit reaches or follows."""
        for i, piece in enumerate(self._each):
            if piece.document is not document:
                continue
            if piece.copies:
                return False
            # Added to the packed edits, not unpacked and spliced anew: a
            # ResourceList's items get hundreds of thousands of edits.
            edits = piece.edits.inserted(at, text) if piece.edits is not None else edit.Splice([(at, at, text)])
            if edits is None:
                return False
            self._pieces[i] = _Piece(document, edits)
            return True
        return False

    def text(self) -> str:
        """The whole stream as one string: each document made whole, as
        joining the parts of a large one would hold them and the whole at
        once."""
        return "".join(self._parts(in_parts=False))

    def _parts(self, in_parts: bool) -> Iterator[str]:
        last = None  # the part given out last
        previous_source = None
        for piece in self._each:
            doc = piece.document
            read, newline = doc.text, doc.newline
            # (The size asked here first: every document passes, most are small.)
            ends = _in_parts(piece.edits, read) if in_parts and len(read) >= _IN_PARTS_FROM else None
            # The edited document, or when it is given out in parts, its
            # opening lines: all that is asked below of its start.
            text = read if piece.edits is None else piece.edits.apply(read) if ends is None else ends[0]
            new_file = previous_source is not None and doc.source is not previous_source
            if new_file:
                # A byte-order mark opens a file, not a document inside a stream.
                text = text.lstrip("\ufeff")
                if last and not last.endswith("\n"):
                    yield (last := newline)
                yield (last := _between(last, text, newline))
            elif end := _document_end(last, text, newline):
                # A copy was written before it, after the `...` that ended
                # the document its directives follow.
                yield (last := end)
            previous_source = doc.source
            if ends is None:
                yield (last := text)
            else:
                parts = piece.edits.applied_in_parts(read, _PART)  # type: ignore[union-attr]
                first = next(parts)
                yield first.lstrip("\ufeff") if new_file else first
                del first  # a part, not held while the others are made
                yield from parts
                last = ends[1]  # its closing lines: all that is asked of what was written last
            if piece.edits is None:
                continue
            for copy in piece.copies:
                if last and not last.endswith("\n"):
                    yield (last := newline)
                text = as_later_document(doc, copy.apply(read)).lstrip("\ufeff")
                yield (last := _between(last, text, newline) + text)


# An edited document this large (a whole List, a KRM ResourceList's items
# written into a stream) is given out in parts of about 256 Ki characters
# each, made as they are written: its text, its edited text and the pieces
# that make it were held at once (the bench stream as one List peaked at 99
# MiB, 89 in parts of a MiB). A part, its pieces as it is made, and its
# bytes as written are held at once: parts of a MiB were 3 MB more at the
# end of every large List's run than parts of 256 Ki (4,000 small apps with
# anchors as one List: 55.3 MB, 52.7 now). Smaller parts gain little more
# (64 Ki: 0.3 MB) and cost a join and a write each.
_IN_PARTS_FROM = 1 << 20
_PART = 1 << 18
_CLOSING_APART = 1 << 20  # closing lines made apart from their document at most this long


def _in_parts(edits: edit.Splice | None, read: str) -> tuple[str, str] | None:
    """(opening lines, closing lines) of a large edited document (of
    _IN_PARTS_FROM characters or more) that can be given out in parts, or
    None to make it whole. The opening lines are the
    text up to its first line of content (neither blank, a comment, a
    directive nor a marker), written before any edit; the closing lines,
    from its last line of content on, after every edit. What the writer
    asks of a document's start (a byte-order mark, a `---` line,
    directives) and of its end (a line break, a `...` line: ends_document)
    stops at those lines, so they answer for the whole text."""
    if edits is None:
        return None
    first, last = edits.span()
    opening = _first_content_line_end(read, first)
    if opening < 0:
        return None
    after = read.find("\n", last)  # the line the last edit ends in is not whole
    closing = _last_content_line_start(read, after + 1) if after >= 0 else -1
    if closing >= 0:
        return read[:opening], read[closing:]
    closing_lines = _closing_lines_edited(edits, read)
    return None if closing_lines is None else (read[:opening], closing_lines)


def _closing_lines_edited(edits: edit.Splice, read: str) -> str | None:
    """The closing lines, from the last line of content on, as edited,
    where an edit reaches them (a List whose last item's last line names a
    config: made whole, the edited List and the pieces that made it were
    held at once, 4,000 apps' List +14 MiB); None where an edit starts
    before them and ends in them, none of them is content once edited, or
    they are longer than _CLOSING_APART (a List written as one JSON line: its
    closing line is the List, and made here it was held beside the parts
    made of it again, 89 -> 100 MiB for 8.3 MB; review66c)."""
    closing = _last_content_line_start(read, 0)
    if closing < 0 or len(read) - closing > _CLOSING_APART:
        return None
    lines = edits.applied_from(read, closing)
    return lines if lines is not None and _last_content_line_start(lines, 0) >= 0 else None


def _first_content_line_end(text: str, before: int) -> int:
    """The end (past its line break) of the first line of content wholly
    before offset `before`, or -1."""
    start = 0
    while (end := text.find("\n", start, before)) >= 0:
        stripped = text[start:end].strip()
        if stripped and not stripped.startswith(("#", "%", "---", "...")):
            return end + 1
        start = end + 1
    return -1


def _last_content_line_start(text: str, after: int) -> int:
    """The start of the last line of content (neither blank nor a comment,
    as ends_document reads lines) at or after offset `after`, a line's
    start, or -1."""
    end = len(text)
    while end > after:
        start = max(text.rfind("\n", after, end) + 1, after)
        stripped = text[start:end].strip()
        if stripped and not stripped.startswith("#"):
            return start
        end = start - 1
    return -1


def _between(last: str | None, text: str, newline: str) -> str:
    """What must come between the parts written so far and a document that
    does not follow them in its source (a copy, another file's first): a
    `---` line where it has none, and where it opens with directives
    (`%YAML 1.1`), a `...` line ending the document before, without which
    YAML reads the directives as content."""
    if opens_with_directives(text):
        return _document_end(last, text, newline)
    return "" if opens_with_marker(text) else "---" + newline


def _document_end(last: str | None, text: str, newline: str) -> str:
    """A `...` line, where `text` opens with directives and the parts
    written so far end no document."""
    if last is None or not opens_with_directives(text) or ends_document(last):
        return ""
    return "..." + newline


def write(stream: Stream, rewrite: Rewrite, release: bool = False) -> Output:
    """`release`: drop each document's node graph, and its edit records
    (the edits its configs had made ahead among them), as soon as its splice
    is made, so the splices take their place rather than adding to them at
    the end. Afterwards no document or object has nodes (`root` and `node`
    are None): only for a caller that just writes the stream out (the
    stream command), never one that reads the analysis."""
    # A large stream's (its documents' texts packed) pieces' texts are packed
    # too, as they are made (_packed).
    texts = PackedLines() if stream.documents and type(stream.documents[0]) is PackedDocument else None
    if not release:
        if texts is None:
            return Output([_piece(doc, rewrite) for doc in stream.documents])
        return Output([_packed(_piece(doc, rewrite), texts) for doc in stream.documents], texts)
    objects = stream.objects
    at = 0  # objects come in their documents' order: no index of them is made
    pieces = []
    for doc in stream.documents:
        first = at
        while at < len(objects) and objects[at].document is doc:
            at += 1
        a_list = first < at and objects[first].item is not None
        # A List's items are let go before its edits are made, which let go
        # of its records as they go (DocumentEdits.edits): its nodes then make
        # room for its edits as a stream's documents do (a List of 4,000 apps:
        # 29.6 -> 19.9 MiB traced at its peak). Not where they share nodes:
        # the check of a shared scalar walks the root. Its records go all the
        # same: that check reads the scalars replaced before any is let go.
        nodes_first = a_list and not doc.shared
        if nodes_first:
            _release_nodes(doc, objects, first, at)
        piece = _piece(doc, rewrite, release_records=a_list)
        pieces.append(piece if texts is None else _packed(piece, texts))
        del piece
        if not nodes_first:
            _release_nodes(doc, objects, first, at)
        rewrite.release(doc)
    for obj in objects[at:]:  # out of order (a library caller's stream)
        _release(obj)
    return Output(pieces, texts)


def _release_nodes(doc: Document, objects: list[KubeObject], first: int, end: int) -> None:
    """Drop `doc`'s node graph and those of its objects, `objects[first:end]`."""
    doc.root = None
    for at in range(first, end):
        _release(objects[at])


def _release(obj: KubeObject) -> None:
    obj.node = None  # type: ignore[assignment]
    obj.prepared = None


def _piece(doc: Document, rewrite: Rewrite, release_records: bool = False) -> _Piece | Document:
    """`release_records`: the document's edit records are let go as its
    edits are made (DocumentEdits.edits): a List's, being written."""
    edits = rewrite.for_document(doc)
    if edits is None:
        # Written as read, but for the entries read left out, it is its own
        # piece: a piece each was 80 bytes (100,000 tiny ConfigMaps: 8 MiB),
        # made as the stream is written, its cuts' too (_cuts_alone: 40,000
        # ConfigMaps each holding a key twice held 7 MiB of them).
        return doc
    cuts = doc.left_out
    if not cuts:
        # Taken a run at a time as they are made: a large List's are many.
        runs = edit.Runs()
        return _Piece(doc, runs.splice(edits.edits(runs, release_records=release_records)),
                      tuple(edit.Splice(copy.edits()) for copy in edits.copies))
    return _Piece(doc, edit.Splice(_with_cuts(edits.edits(), cuts)),
                  tuple(edit.Splice(_with_cuts(copy.edits(), cuts)) for copy in edits.copies))


def _cuts_alone(doc: Document, held: DocumentCuts) -> edit.Splice | None:
    """The edits of a document that has none but the deletion of each entry
    read dropped (Document.left_out, `held` by its source); None for one
    written as read."""
    cuts = held.of(doc.index - doc.source.first_document)
    return edit.Splice.deletions(*cuts.columns()) if cuts else None


def _with_cuts(edits: list[edit.Edit], cuts: Sequence[Cut]) -> list[edit.Edit]:
    """`edits` and the deletion of each entry read dropped (Document.left_out),
    but where an edit is: read masked the entry, so the stages saw comments
    or blanks there, and an edit that reaches into them (an insertion after
    the line before) keeps what it reaches."""
    if not cuts:
        return edits
    spans = sorted((start, end) for start, end, _ in edits)
    # The furthest any span up to each one reaches: the spans before the
    # first whose reach is the cut's start end before it, and are passed
    # over at once (a List holding thousands of keys written twice and
    # thousands of edits was cuts x edits).
    reach = list(accumulate((end for _, end in spans), max))
    made = list(edits)
    for cut in cuts:
        at = cut.start
        for i in range(bisect_left(reach, cut.start), len(spans)):
            start, end = spans[i]
            if start > cut.end:
                break  # (by start: every later one starts after the cut too)
            if end < cut.start or (start == end and start in (cut.start, cut.end)):
                continue
            if start > at:
                made.append((at, min(start, cut.end), ""))
            at = max(at, end)
        if at < cut.end:
            made.append((at, cut.end, ""))
    return made
