"""A KRM function's results, written by postrender's own block writer
(krm._block_yaml), read back as they were by both kinds of YAML reader:
kubectl's (go-yaml v2, YAML 1.1: `yes` is true, U+2028 a line break) and
a YAML 1.2 one (ruamel; kustomize and kpt read results as 1.2), and libyaml's (PyYAML,
YAML 1.1, which takes U+2028 and NEL for line breaks). Values are
what a result may hold: messages and names from the stream, however odd."""

from __future__ import annotations

import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from oracles import kubectl_read

from postrender.frontends.krm import _block_yaml

_ODD = ["yes", "No", "ON", "off", "y", "n", "null", "~", "true", "0755", "1e3", "-1", ".5", ".inf", "0x1F",
        "2001-12-14", "<<", "=", "", " ", "a: b", "a #b", "#a", "- a", "? a", "*a", "&a", "!a", "|", ">", "%a",
        "@a", "`a", "'a", '"a', "a'b", "[0]", "{a}", "a,b", "\t", "a\nb", "a\r\nb", "\x85", "\u2028", "\u2029",
        "\ufeff", "\x7f", "\x9b", "\x00", "\x1b[31m", "é", "日本", "\U0001f600", "\\", "a\\nb", "spec.x[0].y",
        "apps/v1", "/a/b", "_a", "d-0", "f0.yaml"]
_TEXTS = st.one_of(st.sampled_from(_ODD), st.text(max_size=12).filter(lambda t: not any(
    0xD800 <= ord(c) <= 0xDFFF for c in t)))
_RESULTS = st.lists(st.fixed_dictionaries(
    {"message": _TEXTS, "severity": st.sampled_from(["warning", "error"])},
    optional={"resourceRef": st.fixed_dictionaries({"apiVersion": _TEXTS, "kind": _TEXTS, "name": _TEXTS},
                                                   optional={"namespace": _TEXTS}),
              "file": st.fixed_dictionaries({"path": _TEXTS}, optional={"index": st.integers(0, 10**6)}),
              "field": st.fixed_dictionaries({"path": _TEXTS, "currentValue": _TEXTS})}),
    min_size=1, max_size=6)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_RESULTS, min_size=1, max_size=8))
def test_results_read_back_as_written_by_yaml_1_1_and_1_2(batches):
    pyyaml = pytest.importorskip("yaml", reason="PyYAML comes with the cluster extra (scripts/setup)")
    files = {}
    for at, results in enumerate(batches):
        # Under a custom object's spec, at the column a ResourceList's keys are.
        files[f"w{at}"] = ("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w%d\nspec:\n" % at
                           + _block_yaml({"results": results}, 2, "\n"))
    sent, errors = kubectl_read(files)
    assert not errors, errors
    for at, results in enumerate(batches):
        assert sent[f"w{at}"]["spec"] == {"results": results}, files[f"w{at}"]
        assert YAML(typ="safe", pure=True).load(io.StringIO(files[f"w{at}"]))["spec"] == {"results": results}
        assert pyyaml.load(files[f"w{at}"], Loader=pyyaml.CSafeLoader)["spec"] == {"results": results}


def test_a_result_is_laid_out_as_kustomize_writes_results():
    text = _block_yaml({"results": [{"message": "m: x", "severity": "warning",
                                      "file": {"path": "f.yaml", "index": 1}}]}, 0, "\r\n")
    assert text == ('results:\r\n  - message: "m: x"\r\n    severity: warning\r\n'
                    '    file:\r\n      path: f.yaml\r\n      index: 1\r\n')
