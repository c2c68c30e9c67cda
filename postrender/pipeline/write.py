"""Stage 6: the edited stream, in input order, as one string.

Nothing is written to stdout until this returns: an error anywhere earlier
leaves stdout empty, never half a stream.
"""

from __future__ import annotations

from ..syntax import edit
from .read import Document, Stream
from .rewrite import Rewrite


def write(stream: Stream, rewrite: Rewrite) -> str:
    parts: list[str] = []
    previous_source = None
    for doc in stream.documents:
        if previous_source is not None and doc.source is not previous_source:
            _join_sources(parts, doc)
        previous_source = doc.source
        edits = rewrite.for_document(doc)
        if edits is None:
            parts.append(doc.text)
            continue
        parts.append(edit.apply(doc.text, edits.edits()))
        for copy in edits.copies:
            _end_line(parts, doc.newline)
            text = edit.apply(doc.text, copy.edits())
            if not text.startswith("---"):
                text = "---" + doc.newline + text.lstrip("\ufeff")
            parts.append(text)
    return "".join(parts)


def _end_line(parts: list[str], newline: str) -> None:
    if parts and parts[-1] and not parts[-1].endswith("\n"):
        parts.append(newline)


def _join_sources(parts: list[str], doc: Document) -> None:
    _end_line(parts, doc.newline)
    if not doc.text.startswith("---"):
        parts.append("---" + doc.newline)
