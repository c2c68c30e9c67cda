"""Fuzzing that stays: generated streams and mutated real manifests.

Properties, for every input: exit 0 or 1, never anything else and never a
traceback or an internal error; exit 1 says one line and leaves stdout empty
(in KRM function mode: the ResourceList with the error in `results`);
exit 0 keeps every input object, parses as YAML, leaves no reference behind
on an old name, and a second run changes nothing.

About a minute by default. POSTRENDER_FUZZ_EXAMPLES=N runs N examples per
test instead (bench/fuzz does, for hunting).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from ruamel.yaml import YAML

import manifest_strategies as ms
from conftest import FIXTURES, run_postrender

EXAMPLES = int(os.environ.get("POSTRENDER_FUZZ_EXAMPLES", "0"))
FUZZ = settings(deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)


def _examples(default: int) -> settings:
    return settings(FUZZ, max_examples=EXAMPLES or default)


def _corpus() -> list[bytes]:
    files = [*sorted((FIXTURES / "golden").glob("*/input.yaml")), *sorted((FIXTURES / "corpus").rglob("*.yaml"))]
    # The 1 MB line case only slows mutation down; its shape is covered by the golden test.
    return [p.read_bytes() for p in files if p.stat().st_size < 200_000]


CORPUS = _corpus()

# --- checking a run ---------------------------------------------------------

VERSIONED = "postrender.io/versioned"
# Workloads by (apiVersion, kind). A mutation that breaks an apiVersion makes
# an object postrender rightly does not know (it warns about the reference).
POD_SPEC_PATHS = {
    ("v1", "Pod"): ("spec",),
    ("apps/v1", "Deployment"): ("spec", "template", "spec"),
    ("apps/v1", "StatefulSet"): ("spec", "template", "spec"),
    ("apps/v1", "DaemonSet"): ("spec", "template", "spec"),
    ("apps/v1", "ReplicaSet"): ("spec", "template", "spec"),
    ("v1", "ReplicationController"): ("spec", "template", "spec"),
    ("batch/v1", "Job"): ("spec", "template", "spec"),
    ("batch/v1", "CronJob"): ("spec", "jobTemplate", "spec", "template", "spec"),
}


def load_objects(text: str) -> list[dict[str, Any]] | None:
    """Objects as an independent YAML loader sees them; None if it cannot read the text."""
    try:
        docs = list(YAML(typ="safe").load_all(text))
    except Exception:  # noqa: BLE001 - any failure means "cannot compare"
        return None
    objects: list[dict[str, Any]] = []
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        kind, items = doc.get("kind"), doc.get("items")
        if isinstance(kind, str) and kind.endswith("List") and isinstance(items, list):
            objects.extend(item for item in items if isinstance(item, dict))
        else:
            objects.append(doc)
    return objects


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def identity(obj: dict[str, Any]) -> tuple:
    """Who an object is, before versioning: a renamed ConfigMap keeps its base name."""
    meta = _meta(obj)
    labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
    annotations = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
    name = meta.get("name")
    if labels.get(VERSIONED) == "true":
        name = annotations.get("postrender.io/original-name") or labels.get("postrender.io/base-name") or name
    return (str(obj.get("apiVersion")), str(obj.get("kind")), str(meta.get("namespace")), str(name))


def pod_references(obj: dict[str, Any]) -> list[tuple[str, str]]:
    """(kind, name) of every ConfigMap/Secret a workload's pod spec names."""
    spec: Any = obj
    kind = (obj.get("apiVersion"), obj.get("kind"))
    if not all(isinstance(part, str) for part in kind):
        return []  # no workload kubectl reads (an apiVersion written as a list, say)
    for key in POD_SPEC_PATHS.get(kind, ("-",)):
        spec = spec.get(key) if isinstance(spec, dict) else None
    if not isinstance(spec, dict):
        return []
    refs: list[tuple[str, str]] = []

    def add(kind: str, holder: Any, field: str = "name") -> None:
        if isinstance(holder, dict) and isinstance(holder.get(field), str):
            refs.append((kind, holder[field]))

    for volume in _list(spec.get("volumes")):
        add("ConfigMap", volume.get("configMap"))
        add("Secret", volume.get("secret"), "secretName")
    for pull in _list(spec.get("imagePullSecrets")):
        add("Secret", pull)
    for container in [*_list(spec.get("containers")), *_list(spec.get("initContainers"))]:
        for source in _list(container.get("envFrom")):
            add("ConfigMap", source.get("configMapRef"))
            add("Secret", source.get("secretRef"))
        for env in _list(container.get("env")):
            value_from = env.get("valueFrom") if isinstance(env.get("valueFrom"), dict) else {}
            add("ConfigMap", value_from.get("configMapKeyRef"))
            add("Secret", value_from.get("secretKeyRef"))
    return refs


def _list(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _tally(outcome: str) -> None:
    """Count outcomes for --hypothesis-show-statistics (bench/fuzz prints them)."""
    try:
        event(outcome)
    except InvalidArgument:
        pass  # called outside a hypothesis test


def check_run(data: str | bytes, must_succeed: bool = False) -> int:
    result = run_postrender([], data)
    _tally(f"exit {result.status}: " + re.sub(r"document \d+.*?line \d+: |\d+", "", result.stderr.strip())[:60])
    assert result.status in (0, 1), result.status
    assert "Traceback" not in result.stderr, result.stderr
    assert "internal error" not in result.stderr, result.stderr
    if result.status == 1:
        assert not must_succeed, result.stderr
        if result.stdout:
            # KRM function mode answers a ResourceList, the error in `results`, even on failure.
            krm = YAML(typ="safe").load(result.stdout)
            assert krm.get("kind") == "ResourceList", result.stdout[:300]
            assert any(r.get("severity") == "error" for r in krm.get("results") or []), result.stdout[-500:]
        # One line per problem (several names may be left on removed objects),
        # warnings before them; never anything else.
        lines = result.stderr.splitlines()
        assert lines and all(line.startswith("postrender: ") for line in lines), result.stderr
        assert lines[-1].startswith("postrender: error: "), result.stderr
        return 1
    out = result.stdout
    again = run_postrender([], out)
    assert again.status == 0, again.stderr
    if "leaves the earlier out" in result.stderr:
        # A key written twice: the first run leaves the earlier out, and
        # says so (in a KRM answer's results too), which the run on its
        # output has no cause to: from there on, the output is a fixed point.
        assert "leaves the earlier out" not in again.stderr, again.stderr
        out = again.stdout
        again = run_postrender([], out)
    assert again.stdout == out, "not idempotent"

    text = data if isinstance(data, str) else data.decode("utf-8")
    before, after = load_objects(text), load_objects(out)
    if before is not None:
        assert after is not None, "the output no longer parses"
        missing = Counter(identity(o) for o in before) - Counter(identity(o) for o in after)
        assert not missing, f"objects lost: {missing}"
    if after is not None:
        _check_references(after)
    return 0


def _check_references(objects: list[dict[str, Any]]) -> None:
    """No reference still names a ConfigMap/Secret by the name it had before versioning."""
    existing = {(str(o.get("kind")), _meta(o).get("name")) for o in objects}
    renamed: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for o in objects:
        meta = _meta(o)
        if o.get("kind") in ("ConfigMap", "Secret") and (meta.get("labels") or {}).get(VERSIONED) == "true":
            renamed.setdefault((o["kind"], identity(o)[3]), []).append(o)
    for o in objects:
        for kind, name in pod_references(o):
            if (kind, name) in existing:
                continue
            candidates = renamed.get((kind, name), [])
            same_namespace = [c for c in candidates if _near(_meta(c).get("namespace"), _meta(o).get("namespace"))]
            assert len(same_namespace) != 1, (
                f"{o.get('kind')}/{_meta(o).get('name')} still names {kind} {name!r}, "
                f"versioned as {_meta(same_namespace[0]).get('name')!r}"
            )


def _near(a: Any, b: Any) -> bool:
    # postrender matches an object without a namespace to any namespace (with a warning).
    return a == b or a is None or b is None


# --- generated streams ------------------------------------------------------


@_examples(120)
@given(ms.written(ms.streams()))
def test_generated_streams_are_versioned(stream_and_text):
    stream, text = stream_and_text
    check_run(text, must_succeed=True)


# --- mutated real manifests -------------------------------------------------

TOKENS = [b"---\n", b"...\n", b"&a ", b"*a", b"<<: ", b": ", b"- ", b"? ", b"!!str ", b"!!binary ", b"|\n", b">-\n",
          b"%YAML 1.1\n", b"#", b"\t", b"\r", b"\r\n", b"\xef\xbb\xbf", b"\xff", b"\x00", b"\xe2\x80\xa8", b"[", b"{",
          b"]", b"}", b",", b"'", b'"', b"\\", b"  ", b"\n", b"kind: Secret\n", b"kind: ConfigMap\n", b"name: x\n",
          b"data:\n", b"data: [", b"~", b"null", b"<<: *a\n"]


@st.composite
def mutated(draw) -> bytes:
    data = draw(st.sampled_from(CORPUS))
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["truncate", "splice", "flip", "insert", "delete-line", "duplicate-line", "swap-lines"]))
        position = draw(st.integers(0, len(data)))
        if how == "truncate":
            data = data[:position]
        elif how == "splice":
            other = draw(st.sampled_from(CORPUS))
            data = data[:position] + other[draw(st.integers(0, len(other))) :]
        elif how == "flip" and data:
            at = min(position, len(data) - 1)
            data = data[:at] + bytes([draw(st.integers(0, 255))]) + data[at + 1 :]
        elif how == "insert":
            data = data[:position] + draw(st.sampled_from(TOKENS)) + data[position:]
        else:
            lines = data.split(b"\n")
            i = draw(st.integers(0, len(lines) - 1))
            if how == "delete-line":
                del lines[i]
            elif how == "duplicate-line":
                lines.insert(i, lines[i])
            else:
                j = draw(st.integers(0, len(lines) - 1))
                lines[i], lines[j] = lines[j], lines[i]
            data = b"\n".join(lines)
    return data


def test_every_corpus_file_passes_unmutated():
    assert len(CORPUS) >= 20
    for data in CORPUS:
        check_run(data, must_succeed=True)


@_examples(600)
@given(mutated())
def test_mutated_manifests_pass_or_fail_cleanly(data):
    check_run(data)


@_examples(150)
@given(st.data())
def test_mutated_generated_streams_pass_or_fail_cleanly(data):
    _, text = data.draw(ms.written(ms.streams()))
    raw = bytearray(text.encode("utf-8"))
    for _ in range(data.draw(st.integers(1, 4))):
        if not raw:
            break
        at = data.draw(st.integers(0, len(raw) - 1))
        raw[at : at + 1] = data.draw(st.sampled_from(TOKENS))
    check_run(bytes(raw))

