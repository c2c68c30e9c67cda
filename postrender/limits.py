"""Bounds that keep hostile input from exhausting time or memory."""

from __future__ import annotations

from .records import record

DEFAULT_MAX_BYTES = 256 * 1024 * 1024
# --max-bytes cannot go above this. A stream takes about 30 times its size in
# memory, so a larger limit would be a limit in name only.
MAX_BYTES_CEILING = 1024**4
DEFAULT_MAX_DEPTH = 512
# --max-depth cannot go above this: libyaml's composer uses about 330 bytes
# of C stack per level and overflowing it is a segfault, not an error; 1000
# levels fit in a 512 KiB stack.
MAX_DEPTH_CEILING = 1000
DEFAULT_MAX_EXPANDED_NODES = 1_000_000
# A render costs time and memory per YAML node and per document (or List
# item): a few hundred bytes per node while the stream is read. Real
# manifests hold a node per 7-18 characters and a document per 100 or more
# (Helm's empty templates: 40); input several times denser is built to
# exhaust memory (a 9 MB flow list of one-letter items, a million 12-byte
# documents). So beyond a fixed allowance the counts may grow only with the
# input read so far, which lets a stream of any size through at the density
# of real manifests.
DEFAULT_MAX_NODES = 100_000
MAX_NODES_CEILING = 10**12
BYTES_PER_NODE = 4
BYTES_PER_OBJECT = 32
# Documents and List items each cost as much as this many nodes.
NODES_PER_OBJECT = 20


@record(frozen=True)
class Limits:
    # The whole input; larger streams are refused before parsing.
    max_bytes: int = DEFAULT_MAX_BYTES
    # Nesting of mappings and sequences in one document. Real manifests
    # (CRD schemas included) stay far below; libyaml's composer recurses in C.
    max_depth: int = DEFAULT_MAX_DEPTH
    # Nodes a document's aliases would add to those written, expanded.
    max_expanded_nodes: int = DEFAULT_MAX_EXPANDED_NODES
    # YAML nodes accepted at any density; beyond it, one per BYTES_PER_NODE
    # characters of input, and a twentieth as many documents and List items
    # beyond one per BYTES_PER_OBJECT. Nodes count as libyaml's parse events:
    # each scalar and alias one, each mapping, sequence and document two.
    max_nodes: int = DEFAULT_MAX_NODES

    def nodes_allowed(self, offset: int) -> int:
        """Nodes allowed in the first `offset` characters of the input."""
        return self.max_nodes + offset // BYTES_PER_NODE

    def objects_allowed(self, offset: int) -> int:
        """Documents and List items allowed in the first `offset` characters."""
        return self.max_nodes // NODES_PER_OBJECT + offset // BYTES_PER_OBJECT
