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
        value.update({f.field: ([f.value] if f.field == "resources" else f.value) for f in segment.filters})
    if segment.key in LIST_KEYS and not (not rest and isinstance(leaf, list)):
        value = [value]
    return {segment.key: value}


def _referrer(spec: fieldspecs.FieldSpec, name: str) -> dict:
    last = spec.path[-1].key
    leaf = [name] if last == "resourceNames" else name
    if spec.namespace_prefix:
        leaf = f"apps/{name}"
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


@pytest.mark.parametrize("spec", SPECS, ids=[f"{s.kind}:{s.target_kind}:{s.path_text}" for s in SPECS])
def test_each_builtin_field_spec_is_rewritten(spec):
    config = {"apiVersion": "v1", "kind": spec.target_kind, "metadata": {"name": "cfg", "namespace": "apps"},
              "data": {"k": "dg==" if spec.target_kind == "Secret" else "v"}}
    stream = json.dumps(config) + "\n---\n" + json.dumps(_referrer(spec, "cfg")) + "\n"
    # A reference that does not read the object (RBAC) does not version it by itself.
    result = run_postrender([] if spec.consumes else ["--version-all"], stream)
    assert result.status == 0, result.stderr
    config_out, referrer_out = result.stdout.split("\n---\n")
    new_name = json.loads(config_out)["metadata"]["name"]
    assert new_name.startswith("cfg-") and len(new_name) == len("cfg-") + 10
    assert f'"{new_name}"' in referrer_out or f"apps/{new_name}" in referrer_out
    if spec.grants and spec.kind in TABLE.cluster_scoped:
        # A cluster-wide grant still covers `cfg` in every other namespace: it is kept.
        assert json.loads(referrer_out)["rules"][0]["resourceNames"] == [new_name, "cfg"]
    else:
        assert '"cfg"' not in referrer_out and "apps/cfg\"" not in referrer_out

