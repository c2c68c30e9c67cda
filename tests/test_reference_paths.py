"""Every field spec in the built-in table, exercised one at a time.

For each spec a minimal referrer is built along the spec's path; postrender
must rewrite exactly that reference. A spec whose path the walker cannot
follow fails here, so the table cannot silently rot.
"""

from __future__ import annotations

import json

import pytest

from conftest import run_postrender
from postrender import fieldspecs

LIST_KEYS = {
    "volumes", "sources", "containers", "initContainers", "ephemeralContainers", "env", "envFrom",
    "imagePullSecrets", "tls", "rules", "secrets", "listeners", "certificateRefs",
}
DEFAULT_API = {
    "Deployment": "apps/v1", "ReplicaSet": "apps/v1", "DaemonSet": "apps/v1", "StatefulSet": "apps/v1",
    "Job": "batch/v1", "CronJob": "batch/v1", "Ingress": "networking.k8s.io/v1",
}
TABLE = fieldspecs.load_table()


def _api_version(spec: fieldspecs.FieldSpec) -> str:
    version = spec.version or "v1"
    if spec.group:
        return f"{spec.group}/{version}"
    return DEFAULT_API.get(spec.kind, version)


def _build(segments, leaf):
    segment, rest = segments[0], segments[1:]
    value = _build(rest, leaf) if rest else leaf
    if segment.filters and isinstance(value, dict):
        # The first of a filter's alternatives (`[name=A|B]`).
        value.update({f.field: ([f.value] if f.field == "resources" else f.value.split("|")[0])
                      for f in segment.filters})
    if segment.key in LIST_KEYS and not (not rest and isinstance(leaf, list)):
        value = [value]
    return {segment.key: value}


def _referrer(spec: fieldspecs.FieldSpec, name: str) -> dict:
    last = spec.path[-1].key
    leaf = [name] if last == "resourceNames" else name
    if spec.namespace_prefix:
        leaf = f"apps/{name}"
    if spec.flags:
        leaf = ["/controller", f"{spec.flags[0]}=apps/{name}"]
    body = _build(spec.path, leaf)
    if spec.namespace_field:
        parent = body
        for segment in spec.path[:-1]:
            parent = parent[segment.key]
            parent = parent[0] if isinstance(parent, list) else parent
        parent[spec.namespace_field] = "apps"
    body.setdefault("metadata", {})
    body["metadata"] = {**body["metadata"], "name": "referrer"}
    if spec.kind not in TABLE.cluster_scoped:
        body["metadata"]["namespace"] = "apps"
    return {"apiVersion": _api_version(spec), "kind": spec.kind, **body}


SPECS = [s for s in TABLE.specs]
DATA = {"ConfigMap": {"data": {"k": "v"}}, "Secret": {"data": {"k": "dg=="}}}


def _immutable(spec: fieldspecs.FieldSpec) -> bool:
    group, _, version = _api_version(spec).rpartition("/")
    templates = TABLE.template_paths(spec.kind, group, version, immutable=True)
    return any(spec.path[: len(t)] == t for t in templates)


def render_one(spec: fieldspecs.FieldSpec, referrer: dict) -> tuple[dict, list[dict]]:
    """The referrer and the config objects postrender writes for one spec."""
    config = {"apiVersion": "v1", "kind": spec.target_kind, "metadata": {"name": "cfg", "namespace": "apps"},
              **DATA[spec.target_kind]}
    stream = json.dumps(config) + "\n---\n" + json.dumps(referrer) + "\n"
    result = run_postrender([], stream)
    assert result.status == 0, result.stderr
    docs = [json.loads(d) for d in result.stdout.split("\n---\n")]
    (out,) = [d for d in docs if d["kind"] == referrer["kind"]]
    return out, [d for d in docs if d is not out]


@pytest.mark.parametrize("spec", SPECS, ids=[f"{s.kind}:{s.target_kind}:{s.path_text}" for s in SPECS])
def test_each_builtin_field_spec_is_rewritten(spec):
    referrer = _referrer(spec, "cfg")
    out, configs = render_one(spec, referrer)
    referrer_out = json.dumps(out)
    names = {c["metadata"]["name"] for c in configs}
    if _immutable(spec):
        # A Job's or bare Pod's template can never change: the reference
        # stays, and the name it holds stays in the output.
        assert out == referrer and "cfg" in names
        return
    (new_name,) = [n for n in names if n != "cfg"]
    assert new_name.startswith("cfg-") and len(new_name) == len("cfg-") + 10
    assert f'"{new_name}"' in referrer_out or f"apps/{new_name}" in referrer_out
    assert '"cfg"' not in referrer_out and "apps/cfg\"" not in referrer_out
