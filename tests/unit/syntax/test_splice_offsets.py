"""A Splice's numbers (each edit's start, end and new text's length) are
held 4 bytes each where they fit: a large document's edits (the 25,000 small
apps as one KRM ResourceList: 250,000) were 24 bytes of numbers an edit,
made at the writer's peak. Offsets past 4 Gi characters still come back
exactly (--max-bytes allows a TiB)."""

import tracemalloc

from postrender.syntax.edit import Runs, Splice


def _taken(edits):
    """`edits` taken by Runs as DocumentEdits.edits takes a large document's."""
    runs, made = Runs(), []
    for one in edits:
        made.append(one)
        if len(made) >= runs.RUN:
            runs.take(made)
    return runs.splice(made)


def test_a_large_documents_splice_holds_its_numbers_in_four_bytes_each():
    count = 3 * Runs.RUN
    # Deletions: their texts are all the one empty string, so what the
    # Splice holds is its numbers and a few objects a chunk.
    edits = [(at * 10, at * 10 + 4, "") for at in range(count)]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        splice = _taken(edits)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert list(splice) == edits
    # 12 bytes of numbers an edit, and each chunk's objects (24 with 8-byte numbers).
    assert held < 16 * count


def test_offsets_past_four_gi_come_back_exactly():
    big = 1 << 32
    edits = [(1, 2, "a"), (big - 1, big, "b"), (big + 5, big + 9, "cd"), (big + 9, big + 9, "e")]
    assert list(Splice(edits)) == edits
    assert list(_taken(edits)) == edits
    # A large document's: the chunk whose numbers first pass 4 Gi is held
    # 8 bytes a number from there, the edits before it kept as they were.
    many = [(at, at + 1, "x") for at in range(0, 2 * Runs.RUN, 2)] + [(big + at, big + at, "y") for at in range(5)]
    assert list(_taken(many)) == many
    assert list(Splice(many)) == many
