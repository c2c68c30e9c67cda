"""Bounds that keep hostile input from exhausting time or memory."""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class Limits:
    # The whole input; larger streams are refused before parsing.
    max_bytes: int = DEFAULT_MAX_BYTES
    # Nesting of mappings and sequences in one document. Real manifests
    # (CRD schemas included) stay far below; libyaml's composer recurses in C.
    max_depth: int = DEFAULT_MAX_DEPTH
    # Nodes a document would have with every alias expanded.
    max_expanded_nodes: int = DEFAULT_MAX_EXPANDED_NODES
