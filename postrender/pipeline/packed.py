"""A source's documents' texts, held compressed between read and write.

The writer splices edits into each document's original text, and nothing
can be written before every document is read (a config's hash renames its
references in documents before it). So every text is held from read to
write, and for a large stream it is a third of the peak: 53 MB of text at
N=20000 apps, against some 100 MB of the records the stages keep. Read is
done with a document's text once the document is composed, checked and
pruned; the later stages look again at few documents' text, and the writer
at each once, in order.

So in a large stream a source's text is compressed as soon as it is split,
in blocks of whole documents, and the whole text let go of; a document's
text is cut from its block, made again, when asked (one block is kept
made: read and the stages after it that look at texts look in document
order). zlib's fastest level, without its header and checksum, makes
manifests some ten times smaller (their keys and indentation repeat: the
bench stream and a rendered Argo CD chart both 11 times). A document of a
block's size or more is held as it is: its own reading (its nodes, its
hash) makes the peak, and compressing it would cost more time than it
saves.

(Compressing each block only once read is done with it would spare read
making it again, but the blocks, cut from the text at once, were then
malloc's to keep: N=5000 peaked at 65 MiB, not 58.)
"""

from __future__ import annotations

import zlib
from array import array
from bisect import bisect_right
from collections.abc import Sequence

# Big enough that zlib finds the repeats between documents (a typical
# manifest is 0.5 to 5 KB), small enough that making a block again for one
# document's text is cheap (about 40 µs).
BLOCK = 1 << 16
# Compressing costs about 9% of a render's instructions (zlib's own work,
# once to compress and once for each stage that reads the texts): it
# pays where the text is a large part of the peak, not in a small render,
# whose peak is the interpreter's 17 MiB and its records. From this many
# characters in a stream (the goal's allowance, 40 MiB, holds 10 times it).
COMPRESS_FROM = 1 << 22
_FASTEST = 1
# A text read with errors="surrogateescape" holds lone surrogates, which
# UTF-8 cannot encode: they go through as three bytes each, and back.
_SURROGATES = "surrogatepass"


class PackedTexts:
    """The texts of a source's documents, which join to the source's text,
    each given back exactly as it was (`text`, `whole`)."""

    __slots__ = ("_blocks", "_block_starts", "_starts", "_size", "_made", "_made_at", "_replaced")

    def __init__(self, text: str, starts: Sequence[int]) -> None:
        """`starts`: where each document starts in `text`, the first at 0."""
        self._starts = array("q", starts)  # 8 bytes a document, where a list holds an int object each
        self._size = len(text)
        # Compressed, or a str: a document of a block's size or more.
        self._blocks: list[bytes | str] = []
        self._block_starts: list[int] = []  # the document each block starts with
        first, at = 0, 0  # the block being filled: its first document, and where it starts
        for i, start in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else len(text)
            if end - start >= BLOCK:
                if i > first:
                    self._add(first, _deflate(text[at:start]))  # the documents before it
                self._add(i, text[start:end])
            elif end - at >= BLOCK or i + 1 == len(starts):
                self._add(first, _deflate(text[at:end]))
            else:
                continue
            first, at = i + 1, end
        self._made: str | None = None
        self._made_at = -1
        # Documents whose text read replaced (Source.replace_document_text):
        # few or none, so held as they are.
        self._replaced: dict[int, str] = {}

    def _add(self, first: int, block: bytes | str) -> None:
        self._block_starts.append(first)
        self._blocks.append(block)

    def __len__(self) -> int:
        return len(self._starts)

    def replace(self, document: int, text: str) -> None:
        """The `document`th document's text is `text`, of the same length, from now on."""
        assert len(text) == len(self.text(document))
        self._replaced[document] = text

    def text(self, document: int) -> str:
        """The text of the source's `document`th document (0-based)."""
        if self._replaced and document in self._replaced:
            return self._replaced[document]
        block = bisect_right(self._block_starts, document) - 1
        made = self._block(block)
        base = self._starts[self._block_starts[block]]
        start = self._starts[document] - base
        end = self._starts[document + 1] - base if document + 1 < len(self._starts) else self._size - base
        return made[start:end]

    def whole(self) -> str:
        """The source's text."""
        if self._replaced:
            return "".join(self.text(document) for document in range(len(self._starts)))
        return "".join(self._block(block) for block in range(len(self._blocks)))

    def _block(self, block: int) -> str:
        held = self._blocks[block]
        if type(held) is str:
            return held
        if block != self._made_at:
            self._made, self._made_at = _inflate(held), block
        return self._made  # type: ignore[return-value]


class PackedLines:
    """Lines added one at a time (`add`, numbered from 0), held compressed
    in blocks of about BLOCK characters once a block is full, each given
    back as it was (`line`); the last block's lines are held as they are
    until it fills. Read back in the order added, a block is made once.

    A List's items' unsuffixed copies made ahead (rewrite.PreparedItem) are
    such lines, one JSON line an item, held from read to write: 25,000
    Secrets as one KRM ResourceList held 6.4 MiB of them, and lines of one
    shape compress as a stream's documents do."""

    __slots__ = ("_blocks", "_firsts", "_ends", "_filling", "_filled", "_made", "_made_at")

    def __init__(self) -> None:
        self._blocks: list[bytes] = []
        self._firsts = array("q")  # the number of each block's first line
        self._ends = array("q")  # where each line ends in its block's text: 8 bytes a line
        self._filling: list[str] = []  # the lines of the block being filled
        self._filled = 0  # their characters
        self._made = ""
        self._made_at = -1

    def add(self, line: str) -> int:
        """`line` held from now on; its number, for `line`."""
        number = len(self._ends)
        self._filled += len(line)
        self._ends.append(self._filled)
        self._filling.append(line)
        if self._filled >= BLOCK:
            self._firsts.append(number + 1 - len(self._filling))
            self._blocks.append(_deflate("".join(self._filling)))
            self._filling, self._filled = [], 0
        return number

    def __len__(self) -> int:
        return len(self._ends)

    def line(self, number: int) -> str:
        """The line added as `number`."""
        filling_from = len(self._ends) - len(self._filling)
        if number >= filling_from:
            return self._filling[number - filling_from]
        block = bisect_right(self._firsts, number) - 1
        if block != self._made_at:
            self._made, self._made_at = _inflate(self._blocks[block]), block
        start = self._ends[number - 1] if number > self._firsts[block] else 0
        return self._made[start:self._ends[number]]


# Raw deflate, without zlib's header and checksum, which guard data that
# leaves the process: these blocks never do (-35% time to compress them).
_RAW = -15


def _deflate(text: str) -> bytes:
    packer = zlib.compressobj(_FASTEST, zlib.DEFLATED, _RAW)
    return packer.compress(text.encode("utf-8", _SURROGATES)) + packer.flush()


def _inflate(packed: bytes) -> str:
    return zlib.decompress(packed, _RAW).decode("utf-8", _SURROGATES)
