"""What read leaves out of a document holding keys written twice is held
as columns (syntax/earlier.py's Cuts and DocumentCuts, blockkeys'
EarlierFound and _Keys), not a record per entry: the same cuts, warnings
and output as records gave, in far less room (issue 12's hostile members:
40,000 ConfigMaps each holding a key twice, one ConfigMap of 100,000 keys
each written twice)."""

from __future__ import annotations

import io
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from postrender.options import RenderOptions
from postrender.pipeline.read.documents import Source
from postrender.pipeline.render import render
from postrender.report import Reporter
from postrender.syntax import blockkeys
from postrender.syntax.earlier import Cut, Cuts, DocumentCuts
from postrender.syntax.edit import Splice

HEAD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: twice\ndata:\n"


def _render(text: str) -> tuple[str, list[str], Source]:
    reporter = Reporter(stderr=io.StringIO())
    source = Source(None, text)
    result = render([source], RenderOptions(), reporter)
    return "".join(result.written), [w.message for w in reporter.warnings], source


@pytest.mark.parametrize("before", [0, 100], ids=["few keys: a dict", "many: the table"])
def test_keys_of_one_hash_are_told_apart_by_their_text(monkeypatch, before):
    # Every key hashed alike: the table keeps 32 bits of a hash, and tells
    # keys that agree in them apart by their text, read again.
    monkeypatch.setattr(blockkeys, "hash", lambda label: 7, raising=False)
    first, second = "alpha", "beta"
    filler = "".join(f"  f{i}: x\n" for i in range(before))
    text = HEAD + filler + f"  {first}: a\n  {second}: b\n  {first}: c\n"
    found = blockkeys.EarlierFound(text)
    assert blockkeys.scan(text, frozenset(), found) is not None
    assert [entry.key for entry in (found[i] for i in range(len(found)))] == [first]
    assert found[0].start == text.index(f"  {first}: a")
    assert found[0].end == text.index(f"  {second}: b")


@settings(max_examples=200)
@given(st.lists(st.sampled_from([f"k{i}" for i in range(90)] + ['"k1"', "'k2'", '"k 3"']), max_size=150),
       st.sampled_from([0, 40, 70]), st.booleans())
def test_a_mappings_keys_say_what_each_overrides_as_a_dict_would(labels, distinct_first, colliding):
    # _Keys holds the first keys in a dict and the rest in its table (past
    # _TABLED_FROM): what each key overrides is where it was last written,
    # with every hash alike too. `distinct_first` keys first, so that the
    # table takes over before, among or after the keys drawn.
    labels = [f"p{i}" for i in range(distinct_first)] + labels
    keys_text = "".join(f"{label}: v\n" for label in labels)
    keys = blockkeys._Keys(keys_text, 0)
    if colliding:
        blockkeys.hash = lambda label: 3  # type: ignore[attr-defined]
    try:
        last: dict[str, int] = {}
        line = 0
        for place, label in enumerate(labels):
            text = label.strip("'\"")
            assert keys.put(text, line) == last.get(text, -1)
            last[text] = place
            line += len(label) + 4
    finally:
        if colliding:
            del blockkeys.hash  # type: ignore[attr-defined]


def test_a_key_written_three_times_leaves_out_the_first_two():
    text = HEAD + "  a: one\n  b: two\n  a: three\n  a: four\n"
    found = blockkeys.EarlierFound(text)
    assert blockkeys.scan(text, frozenset(), found) is not None
    entries = [found[i] for i in range(len(found))]
    assert [(e.key, text[e.start:e.end]) for e in entries] == [("a", "  a: one\n"), ("a", "  a: three\n")]
    assert [e.later_at for e in entries] == [text.index("a: three"), text.index("a: four")]
    assert all(text.startswith(e.key, e.key_at) for e in entries)


def test_the_scan_of_many_keys_written_twice_holds_no_object_a_key():
    keys = 20_000
    text = HEAD + "".join(f"  key{i}: a\n  key{i}: b\n" for i in range(keys))
    tracemalloc.start()
    try:
        found = blockkeys.EarlierFound(text)
        assert blockkeys.scan(text, frozenset(), found) is not None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(found) == keys
    # A dict of the keys' texts, a list of the lines' offsets and an Earlier
    # each held some 440 bytes a key; the columns and the table, about 110.
    assert peak < 150 * keys, peak


def test_a_large_document_leaves_out_what_a_small_one_does():
    # The large one's entries are found in its text (read.leftout._raise_earlier_in_text),
    # the small one's in its composed tree: one cut and one warning each.
    small = HEAD + "  a: one\n  a: two\n"
    large = HEAD + "".join(f"  key{i}: {i}\n  key{i}: {i}x\n" for i in range(30_000))
    for text, count in ((small, 1), (large, 30_000)):
        out, warnings, source = _render(text)
        assert out.count(": ") == text.count(": ") - count
        assert len(source.cuts_of(0)) == count
        assert all(cut.lines for cut in source.cuts_of(0))
        assert len(warnings) == min(count, 11)


def test_documents_cuts_are_held_by_their_source_in_order():
    text = "".join(f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  k: v\n  k: w\n"
                   for i in range(30))
    out, warnings, source = _render(text)
    assert "k: v" not in out and out.count("k: w") == 30
    assert [len(source.cuts_of(i)) for i in range(30)] == [1] * 30
    assert source.cuts_of(30) == ()
    assert len(warnings) == 11  # ten documents said, and one that counts the rest


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(1, 5), st.booleans()), max_size=12))
def test_cuts_held_as_columns_are_the_cuts_given(drawn):
    at, cuts = 0, []
    for gap, size, lines in drawn:
        cuts.append(Cut(at + gap, at + gap + size, lines))
        at += gap + size
    held = Cuts(cuts)
    assert list(held) == cuts and [held[i] for i in range(len(cuts))] == cuts
    assert held[-1:] == cuts[-1:]
    by_document = DocumentCuts()
    by_document.set(3, cuts[::2])
    by_document.set(1, cuts[1::2])  # out of order: a document read again
    by_document.set(3, cuts)  # its cuts given again
    assert list(by_document.of(3)) == cuts
    assert list(by_document.of(1)) == cuts[1::2]
    assert by_document.of(2) == ()
    if cuts:
        starts, ends = by_document.of(3).columns()  # type: ignore[union-attr]
        assert list(Splice.deletions(starts, ends)) == list(Splice([(c.start, c.end, "") for c in cuts]))
