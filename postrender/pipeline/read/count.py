"""Nodes, documents and List items counted against the limits as the input is read.

One counter (_Count) for a whole read, asked by the splitter (documents) and
by composing (nodes, before and after): a dense start is refused before
the rest is parsed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ...errors import Location, PostrenderError
from ...limits import Limits

if TYPE_CHECKING:
    from .documents import Document, Source


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
