"""What the guard (check/guard.py) holds at its peak: in a large List (a KRM
ResourceList is one) every renamed config and covered reference is of one
document, and the guard's own tables of them set a function's render's
peak (stop 68)."""

import tracemalloc

from postrender.inputs import decode
from postrender.options import RenderOptions
from postrender.pipeline.check import guard
from postrender.pipeline.render import analyse

APPS = 2_000


def _apps_as_one_list(count: int) -> str:
    items = []
    for i in range(count):
        items.append(f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cfg{i}\n  data:\n    a: '{i}'\n")
        items.append(f"- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: app{i}\n  spec:\n"
                     f"    template:\n      spec:\n        containers:\n        - name: c\n          image: nginx\n"
                     f"          envFrom:\n          - configMapRef: {{name: cfg{i}}}\n        volumes:\n"
                     f"        - name: v\n          configMap: {{name: cfg{i}}}\n")
    return "apiVersion: v1\nkind: List\nitems:\n" + "".join(items)


def test_the_guard_holds_little_beyond_its_findings_in_a_large_list():
    analysis = analyse([decode(_apps_as_one_list(APPS).encode(), None)], RenderOptions())
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        findings = guard.check(analysis.graph, analysis.plan)
        peak = tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()
    assert findings == []
    # Per renamed config (and its two covered references): 171 bytes at
    # stop 68; 490 when every name the output holds was gathered as a set,
    # a list of candidates held per name, and the spans as a tuple each.
    assert peak < 300 * APPS, peak / APPS


def test_a_documents_covered_spans_are_held_as_two_arrays():
    analysis = analyse([decode(_apps_as_one_list(APPS).encode(), None)], RenderOptions())
    references = analysis.graph.references
    screen = guard._Screen({"cfg1"}, references)
    document = references[0].referrer.document
    tracemalloc.start()
    try:
        spans = screen._spans_of(document)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    starts, ends = spans
    covered = sorted((ref.node.start_mark, ref.node.end_mark) for ref in references)
    assert list(zip(starts, ends)) == covered and len(covered) == 2 * APPS
    # Two 8-byte numbers a reference: a (start, end) tuple each took 64
    # bytes and more (its ints past the shared offsets).
    assert held < 24 * len(covered), held / len(covered)
