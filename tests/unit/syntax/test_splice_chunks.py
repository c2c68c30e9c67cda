"""Splice, held in chunks of _JOINED edits (and merged from Runs), against a
plain reference: sorted, an edit given twice made once, overlaps refused.
_JOINED and _LOOKED_UP_FROM are made small so that every chunk boundary,
and one falling at the offset applied_from starts at, is exercised (a
review found applied_from looking only at the last chunk passed the rest of
the suite)."""
import sys
from array import array

from hypothesis import given, settings, strategies as st, HealthCheck

from postrender.syntax import edit
from postrender.syntax.edit import Runs, Splice


def ref_ordered(edits):
    ordered = sorted(dict.fromkeys(edits), key=lambda e: (e[0], e[1]))
    for a, b in zip(ordered, ordered[1:]):
        if b[0] < a[1]:
            raise AssertionError(f"overlapping edits at offset {b[0]}")
    return ordered


def ref_apply(ordered, text):
    out, pos = [], 0
    for s, e, t in ordered:
        out += (text[pos:s], t)
        pos = e
    out.append(text[pos:])
    return "".join(out)


def in_runs(edits, run):
    runs = Runs()
    pending = []
    for e in edits:
        pending.append(e)
        if len(pending) >= run:
            runs.take(pending)
    return runs.splice(pending)


TEXT = "0123456789abcdef\nghij"
EDITS = st.lists(st.tuples(st.integers(0, len(TEXT)), st.integers(0, 3),
                           st.sampled_from(["", "a", "b", "é", "xy"])), max_size=40)


@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(EDITS, st.integers(1, 4), st.integers(1, 4), st.integers(1, 6), st.integers(0, len(TEXT)),
       st.integers(1, 7), st.sampled_from(["", "R", "é"]), st.booleans())
def test_a_chunked_splice_is_the_plain_splice(given_edits, joined, looked, run, at, size, ins, use_runs):
    edits = [(s, min(s + n, len(TEXT)), t) for s, n, t in given_edits]
    try:
        plain = ref_ordered(edits)
    except AssertionError as exc:
        plain = str(exc)
    saved = edit._JOINED, edit._LOOKED_UP_FROM
    edit._JOINED, edit._LOOKED_UP_FROM = joined, looked
    try:
        try:
            splice = in_runs(edits, run) if use_runs else Splice(edits)
        except AssertionError as exc:
            assert str(exc) == plain
            return
        assert not isinstance(plain, str), plain
        assert list(splice) == plain
        # no empty chunk unless no edits at all
        assert all(len(c._bounds) for c in splice._chunks) or (len(splice._chunks) == 1 and not plain)
        # chunk sizes: edits at one place in one chunk
        expected = ref_apply(plain, TEXT)
        assert splice.apply(TEXT) == expected
        parts = list(splice.applied_in_parts(TEXT, size))
        assert "".join(parts) == expected
        assert all(len(p) >= size for p in parts[:-1])
        assert splice.span() == ((plain[0][0], plain[-1][1]) if plain else (0, 0))
        tail = splice.applied_from(TEXT, at)
        if any(s < at < e for s, e, _ in plain):
            assert tail is None
        else:
            assert tail == ref_apply([(s - at, e - at, t) for s, e, t in plain if s >= at], TEXT[at:])
            assert ref_apply([e for e in plain if e[0] < at], TEXT[:at]) + tail == expected
        got = splice.inserted(at, ins)
        if any(e >= at for _, e, _ in plain):
            assert got is None
        else:
            assert got is not None and list(got) == ref_ordered(plain + [(at, at, ins)])
            assert got.apply(TEXT) == ref_apply(ref_ordered(plain + [(at, at, ins)]), TEXT)
            assert "".join(got.applied_in_parts(TEXT, size)) == got.apply(TEXT)
            # inserted twice: still consistent
            got2 = got.inserted(len(TEXT), "Z")
            if got2 is not None:
                assert got2.apply(TEXT) == got.apply(TEXT) + "Z"
                both = ref_ordered(plain + [(at, at, ins), (len(TEXT), len(TEXT), "Z")])
                assert got2.applied_from(TEXT, at) == ref_apply(
                    [(s - at, e - at, t) for s, e, t in both if s >= at], TEXT[at:])
    finally:
        edit._JOINED, edit._LOOKED_UP_FROM = saved


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.integers(1, 3)), max_size=10, unique_by=lambda x: x[0]),
       st.integers(0, 21), st.sampled_from(["", "R"]))
def test_deletions_are_the_plain_splice(spans, at, ins):
    spans = sorted(spans)
    clean = []
    pos = 0
    for s, n in spans:
        if s >= pos:
            clean.append((s, s + n))
            pos = s + n
    splice = Splice.deletions(array("q", [s for s, _ in clean]), array("q", [e for _, e in clean]))
    text = "abcdefghijklmnopqrstuvwxyz"
    plain = [(s, e, "") for s, e in clean]
    assert splice.apply(text) == ref_apply(plain, text)
    assert splice.span() == ((plain[0][0], plain[-1][1]) if plain else (0, 0))
    tail = splice.applied_from(text, at)
    if any(s < at < e for s, e, _ in plain):
        assert tail is None
    else:
        assert tail == ref_apply([(s - at, e - at, t) for s, e, t in plain if s >= at], text[at:])
    got = splice.inserted(at, ins)
    if any(e >= at for _, e, _ in plain):
        assert got is None
    else:
        assert got.apply(text) == ref_apply(ref_ordered(plain + [(at, at, ins)]), text)


def test_a_splice_of_no_edits_gives_the_text():
    s = Splice([])
    assert s.apply("abc") == "abc" and s.span() == (0, 0) and s.applied_from("abc", 1) == "bc"
    assert list(s.applied_in_parts("abc", 2)) == ["ab", "c"]
    assert s.inserted(1, "x").apply("abc") == "axbc"
    assert s.inserted(1, "x").span() == (1, 1)


def test_a_few_edits_are_held_without_spare_room():
    # Every edited document holds its Splice from write's start to its end
    # (25,000 small apps: 100,000 of them at the writer's peak): the bounds
    # array grown edit by edit held room for more (3 edits: 144 bytes of
    # data for 72).
    edits = [(10, 14, "cfg0-g52d29226d"), (20, 20, "\nimmutable: true"), (40, 44, "x")]
    splice = Splice(edits)
    assert splice._bounds == array("q", [10, 14, 15, 20, 20, 16, 40, 44, 1])
    assert sys.getsizeof(splice._bounds) == sys.getsizeof(array(splice._bounds.typecode, [0] * 9))
    assert list(splice) == edits
