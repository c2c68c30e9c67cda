"""A source's documents' texts, held compressed between read and write.

The writer splices edits into each document's original text, and nothing
can be written before every document is read (a config's hash renames its
references in documents before it). So every text is held from read to
write, and for a large stream it is a third of the peak: 53 MB of text at
N=20000 apps, against some 100 MB of the records the stages keep. Read is
done with a document's text once the document is composed, checked and
pruned; the later stages look again at few documents' text, and the writer
at each once, in order.

So a source's text is compressed as soon as it is split, in blocks of whole
documents, and a document's text is cut from its block when asked. Manifests
compress about fivefold with zlib's fastest level (4 to 12 times: their keys
and indentation repeat), which costs about 1% of a render's time: 45 ms for
13 MB, and a block's text is made again once for each stage that reads the
documents in order (one block is kept made: `_made`). A document of a
block's size or more is held as it is: its own reading (its nodes, its
hash) makes the peak, and compressing it would cost more time than it saves.
"""

from __future__ import annotations

import zlib
from array import array
from bisect import bisect_right

# Big enough that zlib finds the repeats between documents (a typical
# manifest is 0.5 to 5 KB), small enough that making a block again for one
# document's text is cheap (about 40 µs).
BLOCK = 1 << 16
_FASTEST = 1
# A text read with errors="surrogateescape" holds lone surrogates, which
# UTF-8 cannot encode: they go through as three bytes each, and back.
_SURROGATES = "surrogatepass"


class PackedTexts:
    """The texts of a source's documents, which join to the source's text,
    each given back exactly as it was (`text`, `whole`)."""

    __slots__ = ("_blocks", "_block_starts", "_starts", "_size", "_made", "_made_at")

    def __init__(self, text: str, starts: list[int]) -> None:
        """`starts`: where each document starts in `text`, the first at 0."""
        self._starts = array("q", starts)  # 8 bytes a document, where a list holds an int object each
        self._size = len(text)
        self._blocks: list[bytes | str] = []  # a str: one document of a block's size or more, as it is
        self._block_starts: list[int] = []  # the document each block starts with
        first, at = 0, 0  # the block being filled: its first document, and where it starts
        for i, start in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else len(text)
            if end - start >= BLOCK:
                if i > first:
                    self._add(first, zlib.compress(_utf8(text[at:start]), _FASTEST))
                self._add(i, text[start:end])
            elif end - at >= BLOCK or i + 1 == len(starts):
                self._add(first, zlib.compress(_utf8(text[at:end]), _FASTEST))
            else:
                continue
            first, at = i + 1, end
        self._made: str | None = None
        self._made_at = -1

    def _add(self, first: int, block: bytes | str) -> None:
        self._block_starts.append(first)
        self._blocks.append(block)

    def __len__(self) -> int:
        return len(self._starts)

    def text(self, document: int) -> str:
        """The text of the source's `document`th document (0-based)."""
        block = bisect_right(self._block_starts, document) - 1
        made = self._block(block)
        base = self._starts[self._block_starts[block]]
        start = self._starts[document] - base
        end = self._starts[document + 1] - base if document + 1 < len(self._starts) else self._size - base
        return made[start:end]

    def whole(self) -> str:
        """The source's text."""
        return "".join(self._block(block) for block in range(len(self._blocks)))

    def _block(self, block: int) -> str:
        if block == self._made_at:
            return self._made  # type: ignore[return-value]
        packed = self._blocks[block]
        made = packed if type(packed) is str else zlib.decompress(packed).decode("utf-8", _SURROGATES)
        self._made, self._made_at = made, block
        return made


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", _SURROGATES)
