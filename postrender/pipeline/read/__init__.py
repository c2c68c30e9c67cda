"""Stage 1: text → documents → Kubernetes objects.

The stream is split on `---` lines at column 0. YAML forbids such a line
inside any scalar or collection, so the split is exact, and each document can
be composed on its own: errors carry the document, and untouched documents are
written back byte for byte.

The read stage's modules, each a step of the read or what several share
(bottom first: a module imports only those above it):
  lines.py: A chunk's text line by line, as kubectl's reader and libyaml see its lines.
  shared.py: Nodes shared through aliases: what Document.shared holds, and the walks that find them.
  documents.py: The read stage's document model: Source, Document, KubeObject, and where each comes from.
  count.py: Nodes, documents and List items counted against the limits as the input is read.
  jsonfirst.py: A stream that starts with `{`: kubectl reads its first document as JSON.
  split.py: The stream's documents: where kubectl splits it, and what it refuses there.
  helm.py: Helm 3's `# Source:` headers: the chart file of each document, and its lines there.
  yamlerrors.py: What libyaml's refusals become: postrender's messages for text YAML cannot read.
  masks.py: The text libyaml is given in place of a document's own, where that reads as kubectl reads it.
  events.py: libyaml's parse events, walked before a document is composed: the node count and the depth.
  breaks.py: Line breaks and byte order marks kubectl and YAML read apart.
  leftout.py: Keys written twice: the earlier entries read leaves out, their cuts, and what it says of them.
  kubectl.py: The whole graph's checks that make postrender read what kubectl reads.
  objects.py: A composed document's objects: kind, name, namespace, labels and annotations, as kubectl decodes them.
  pruner.py: What read asks of the pruner (pipeline/needs.py): the Pruner, Folder and StringTaker interfaces.
  parts.py: Reading a document in parts: what is taken or dropped as libyaml composes it.
  libyaml.py: One document composed by libyaml into a node graph, and checked once composed.
  compose.py: How read composes each document, whole or in which parts; and composing one again.
  __init__.py: read(), Stream, and the names other stages import from the stage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# Loaded first: where ruamel is missing, the error names it (tests/unit/cli/test_exit.py),
# not the C extension syntax/nodes.py loads first.
import ruamel.yaml.error  # noqa: F401

from ...errors import PostrenderError
from ...limits import Limits
from ...records import field, record
from ...report import Diagnostic
from ...syntax.nodes import shared_int
from .. import packed
from .breaks import _check_byte_order_marks, _check_line_breaks
from .compose import DROP_FROM, _compose_document, object_node, object_path, recompose
from .count import _Count
from .documents import (
    HELM4_FILENAME_ANNOTATION,
    KUSTOMIZE_ORIGIN_ANNOTATION,
    NO_STRINGS,
    Document,
    KubeObject,
    PackedDocument,
    Rendered,
    Source,
    _list_items,
    file_annotated,
)
from .helm import _ChartFiles, _files_helm_may_have_sorted, _helm3_header
from .jsonfirst import (
    _check_json_document_end,
    _check_json_numbers,
    _is_json_first,
    as_later_document,
    mask_surrogate_escapes,
)
from .leftout import _drop_earlier_keys, _EarlierKeys, _left_out, _LeftOutSaid
from .libyaml import shift_offsets
from .lines import _has_odd_line_breaks, leading_source_comment, only_comments
from .objects import _check_list, _objects_of
from .pruner import Folder, Pruner, StringTaker
from .shared import HeldShared, ItemsShared, KeptShared, path_counts, shared_nodes
from .split import (
    _chunk_starts,
    _chunks,
    ends_document,
    opens_with_directives,
    opens_with_marker,
    split,
)
from .yamlerrors import UnreadableText

if TYPE_CHECKING:
    from .leftout import _Dropped
    from .objects import _SharedMaps

__all__ = [
    "DROP_FROM", "HELM4_FILENAME_ANNOTATION", "KUSTOMIZE_ORIGIN_ANNOTATION", "NO_STRINGS", "Document", "Folder",
    "HeldShared", "ItemsShared", "KeptShared", "KubeObject", "PackedDocument", "Pruner", "Rendered", "Source",
    "Stream", "StringTaker", "UnreadableText", "as_later_document", "ends_document", "file_annotated",
    "leading_source_comment", "mask_surrogate_escapes", "object_node", "object_path", "only_comments",
    "opens_with_directives", "opens_with_marker", "path_counts", "read", "recompose", "shared_nodes", "shift_offsets",
    "split",
]


@record
class Stream:
    sources: list[Source]
    documents: list[Document]
    objects: list[KubeObject]
    # What read says of the input without refusing it (keys written twice).
    warnings: list[Diagnostic] = field(default_factory=list)


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
