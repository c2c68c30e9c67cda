"""An entry another overrides under a merge key: go-yaml v2 applies a
mapping's entries in order, a `<<` its mappings at its own place, the later
winning. So in `{name: a, <<: {name: b}}` Kubernetes reads b, and in
`{<<: *base, name: b}` it reads b and nothing of the base's `name`. What an
overridden entry holds is read nowhere: it is no reference for the guard,
and a node an alias shares with it is read in one place only (fuzz62: both
were refused). kubectl reads each of these as asserted here
(tests/integration/kubernetes/test_kubernetes_reading.py runs the same
streams through kubectl)."""

from __future__ import annotations

import re

import pytest

from conftest import run_postrender
from manifests import MERGE_OVERRIDES, merge_override_stream


@pytest.mark.parametrize("volumes, read", MERGE_OVERRIDES.values(), ids=MERGE_OVERRIDES.keys())
def test_an_overridden_entry_is_neither_guarded_nor_counted_as_a_place(volumes, read):
    text = merge_override_stream(volumes)
    result = run_postrender([], text)
    assert result.status == 0, result.stderr
    out = result.stdout
    # Both configs are versioned, and no place Kubernetes reads names an old one.
    assert re.search(r"name: a-\w{10}", out) and re.search(r"name: b-\w{10}", out)
    volumes_out = out[out.index("volumes:"):out.index("containers:")]
    for name in read:
        assert re.search(rf"\b{name}-\w{{10}}\b", volumes_out), volumes_out
    again = run_postrender([], out)
    assert (again.status, again.stdout) == (0, out), again.stderr


def test_a_shared_node_read_in_two_places_is_rewritten_once_for_both():
    # Not overridden: the base's name is read by both volumes, each of which
    # takes the same new name, so the one node is rewritten for both.
    volumes = ("      - name: v\n        configMap: &base {name: a}\n      - name: w\n"
               "        configMap:\n          <<: *base\n          optional: true\n")
    result = run_postrender([], merge_override_stream(volumes))
    assert result.status == 0, result.stderr
    assert result.stdout.count("<<: *base") == 1 and re.search(r"&base \{name: a-\w{10}\}", result.stdout)
