"""Many short strings held sorted, in runs: what a large mapping's keys need
to be checked distinct (DroppingComposer) or hashed in order (a config's
data entries, pipeline/index/folding.py) without a Python object each.

Strings are sorted a run at a time and each run joined into one string; the
runs are merged lazily, a batch at a time, when read. A string here holds
no line break (the runs' separator): callers keep such strings elsewhere.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from itertools import islice

# Strings sorted and joined per run, and handed back per batch: until then
# each is a Python string of its own (some 60 bytes).
RUN = 16384


class SortedRuns:
    __slots__ = ("count", "_runs", "_pending")

    def __init__(self) -> None:
        self.count = 0
        self._runs: list[str] = []  # each run's strings, sorted, joined by "\n"
        self._pending: list[str] = []

    def add(self, text: str) -> None:
        self._pending.append(text)
        self.count += 1
        if len(self._pending) >= RUN:
            self._flush()

    def _flush(self) -> None:
        pending = self._pending
        if pending:
            pending.sort()
            self._runs.append("\n".join(pending))
            self._pending = []

    def batches(self) -> Iterator[list[str]]:
        """Every string, in order, RUN at a time; once only."""
        self._flush()
        runs, self._runs = self._runs, []
        if not runs:
            return
        merged = heapq.merge(*map(_split, runs)) if len(runs) > 1 else _split(runs[0])
        while batch := list(islice(merged, RUN)):
            yield batch


def _split(run: str) -> Iterator[str]:
    start = 0
    while (end := run.find("\n", start)) >= 0:
        yield run[start:end]
        start = end + 1
    yield run[start:]


def all_distinct(runs: SortedRuns) -> bool:
    """Whether no string was added twice."""
    last = None
    for batch in runs.batches():
        # Sorted, two alike are neighbours: in one batch, or across two.
        if len(set(batch)) != len(batch) or batch[0] == last:
            return False
        last = batch[-1]
    return True
