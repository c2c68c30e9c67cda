"""Numbers as kubectl sends them: postrender's JSON of a value (go_json,
which `postrender diff` compares pod templates by, and the hash of
`--strategy annotate` reads) writes each number as Go's encoding/json does.

kubectl reads every YAML float as a float64 and writes it as Go does: `30.0`
and `8.08e3` go out as `30` and `8080`, `1e-5` as `0.00001`. Python writes
`30.0`, `8080.0` and `1e-05`: a pod template that changed only in such a
spelling was reported as rolling. The oracle is kubectl's own text of each
number (`kubectl label --local -o json`, read with every number kept as
written).
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import require_tool

from postrender.limits import Limits
from postrender.pipeline.index.hashing import go_json, to_json_value
from postrender.pipeline.read import read
from postrender.pipeline.read.documents import Source
from postrender.syntax.nodes import get

# Written as a plain scalar each; every one a number to go-yaml v2.
SPELLINGS = [
    "30", "30.0", "8.08e3", "8080.", "-0.0", "0.0", "0.", ".5", "-.5", "+.5", "1_000.5", "1e3", "1E3", "1.5e+3",
    "1e-5", "1e-6", "1e-7", "1.5e-7", "2.5e-10", "-1e-7", "1e-300", "5e-324", "1e16", "1e20", "1e21", "1e22",
    "1.2345678901234567e19", "123456789.123456789", "0.1", "0.3", "1e100", "1.7976931348623157e308",
    "18446744073709551616", "123456789012345678901234567890", "9007199254740993.0", "4.35", "100.0e-2",
    "9223372036854775807", "-9223372036854775808", "0x1F", "0o17", "017", "08", "0128", "09.5",
]


def _kubectl_numbers(values: list[str]) -> dict[str, str]:
    """kubectl's text of each value, by key, in one object."""
    text = "apiVersion: example.com/v1\nkind: Numbers\nmetadata:\n  name: numbers\nspec:\n" + "".join(
        f"  k{i}: {value}\n" for i, value in enumerate(values))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "n.yaml"
        path.write_text(text)
        proc = subprocess.run([require_tool("kubectl"), "label", "--local", "-f", str(path), "zz=x", "-o", "json"],
                              capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    # Numbers kept as kubectl wrote them: as text, not as Python's numbers.
    spec = json.loads(proc.stdout, parse_float=str, parse_int=str)["spec"]
    return {key: value if isinstance(value, str) else json.dumps(value) for key, value in spec.items()}, text


def _postrender_numbers(text: str) -> dict[str, str]:
    (obj,) = read([Source(None, text)], Limits()).objects
    spec = to_json_value(get(obj.node, "spec"))
    return {key: go_json(value) for key, value in spec.items()}  # type: ignore[union-attr]


def test_numbers_are_written_as_kubectl_sends_them():
    expected, text = _kubectl_numbers(SPELLINGS)
    found = _postrender_numbers(text)
    wrong = {SPELLINGS[int(key[1:])]: (found[key], kubectl) for key, kubectl in expected.items()
             if found[key] != kubectl}
    assert not wrong, wrong


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=50, max_size=120))
def test_any_float_is_written_as_kubectl_sends_it(floats):
    # repr gives each float's shortest digits, a spelling go-yaml reads as
    # the same float64.
    spellings = [repr(value) for value in floats]
    expected, text = _kubectl_numbers(spellings)
    found = _postrender_numbers(text)
    wrong = {spellings[int(key[1:])]: (found[key], kubectl) for key, kubectl in expected.items()
             if found[key] != kubectl}
    assert not wrong, wrong
