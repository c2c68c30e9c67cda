"""gc refuses a namespace it cannot collect in as asked, before it reads
the cluster: an empty `-n` (an unset `$NS` in a CI job) would otherwise be
a namespace-less path, every namespace, around the -A guards."""

from __future__ import annotations

import pytest

from conftest import run_postrender


@pytest.mark.parametrize(("args", "said"), [
    (["-n", ""], "-n: an empty namespace"),
    (["-n", "", "--local-refs-only", "--yes"], "-n: an empty namespace"),
    (["-n", "shop", "-n", ""], "-n: an empty namespace"),
    (["--namespace="], "-n: an empty namespace"),
    (["-n", "Shop_1"], "not a valid namespace name"),
])
def test_a_namespace_gc_cannot_collect_in_is_a_usage_error(args, said):
    result = run_postrender(["gc", *args, "--kubeconfig", "/nonexistent"])
    assert result.status == 2 and result.stdout == "", result.stderr
    assert said in result.stderr
