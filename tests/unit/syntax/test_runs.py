"""syntax/runs.py: strings held sorted in runs come back in order, and a
string added twice is found wherever the two fall."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from postrender.syntax import runs
from postrender.syntax.runs import SortedRuns, all_distinct

_TEXTS = st.lists(st.text(alphabet="ab.-é😀\"\\", max_size=4), max_size=60)


@pytest.fixture(autouse=True)
def _small_runs(monkeypatch):
    monkeypatch.setattr(runs, "RUN", 3)


def _runs(texts: list[str]) -> SortedRuns:
    held = SortedRuns()
    for text in texts:
        held.add(text)
    return held


@settings(max_examples=300, deadline=None)
@given(_TEXTS)
def test_batches_give_every_string_in_order_a_run_at_a_time(texts):
    batches = list(_runs(texts).batches())
    assert all(0 < len(batch) <= 3 for batch in batches)
    assert [text for batch in batches for text in batch] == sorted(texts)


@settings(max_examples=300, deadline=None)
@given(_TEXTS)
def test_all_distinct_is_whether_no_string_was_added_twice(texts):
    assert all_distinct(_runs(texts)) == (len(set(texts)) == len(texts))


def test_a_string_added_twice_across_a_batch_boundary_is_found():
    # Sorted: a b c | c d (the two c's in two batches of 3).
    assert not all_distinct(_runs(["d", "c", "b", "a", "c"]))
    assert all_distinct(_runs(["d", "c", "b", "a", "e"]))
