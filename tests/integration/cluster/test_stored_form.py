"""ConfigMap and Secret content on the real API server (v1.20.2).

- postrender accepts data exactly when the API server does, for values
  kubectl reads in every way YAML 1.1 allows (tests/integration/kubernetes/test_kubernetes_reading.py
  checks the same against kubectl's reading alone);
- a Secret's stored form is what postrender hashes: the server merges
  stringData into data and defaults the type, and kustomize's name for what
  it stores is postrender's name for what was written.
"""

from __future__ import annotations

import pytest

from oracles import NEEDS_HASH, kustomize_hashes, postrender_reading, yaml_quoted

from .kit import Kube

# (case, kind, body): the body follows metadata.
CASES = [
    ("plain", "ConfigMap", "data: {k: v}"),
    ("sexagesimal", "ConfigMap", "data:\n  BACKUP_TIME: 23:59"),
    ("octal-looking", "ConfigMap", "data:\n  k: 08"),
    ("octal-looking-2", "ConfigMap", "data:\n  k: 0128"),
    ("dot-float", "ConfigMap", "data:\n  k: -.5"),
    ("dot-exponent", "ConfigMap", "data:\n  k: .5e3"),
    ("boolean", "ConfigMap", "data:\n  k: yes"),
    ("quoted", "ConfigMap", "data:\n  k: '08'"),
    ("binary-tag", "ConfigMap", "data:\n  k: !!binary aGk="),
    ("custom-tag", "ConfigMap", "data:\n  k: !custom 0755"),
    ("timestamp", "ConfigMap", "data:\n  k: 2001-12-14"),
    ("yaml11-keys", "ConfigMap", "data:\n  yes: a\n  0x10: b"),
    ("merge", "ConfigMap", "x-anchors: [&d {L: info}]\ndata: {L: debug, <<: *d}"),
    ("binary-data", "ConfigMap", "binaryData: {k: aGk=}"),
    ("binary-data-not-base64", "ConfigMap", "binaryData: {k: hello}"),
    ("binary-data-number", "ConfigMap", "binaryData: {k: 1234}"),
    ("secret", "Secret", "data: {k: aGk=}"),
    ("secret-line-broken", "Secret", "data:\n  k: |\n    YWJj\n    ZGVm"),
    ("secret-not-base64", "Secret", "data: {k: not-base64}"),
    ("secret-unpadded", "Secret", "data: {k: aGk}"),
    ("secret-number", "Secret", "data: {k: 1234}"),
    ("secret-type-number", "Secret", "type: 123\ndata: {k: aGk=}"),
    ("secret-type-null", "Secret", "type: ~\ndata: {k: aGk=}"),
    ("string-data", "Secret", "stringData: {k: v}"),
    ("string-data-number", "Secret", "stringData: {k: 08}"),
]
# (--validate=false: x-anchors, which holds anchors, is no field of the API.)
# Kubernetes reads `k:` as null; the server stores it as "", but kubectl did
# not send a string: postrender refuses it, asking for ''.
NULL_VALUE = ("null-value", "ConfigMap", "data:\n  k:")


def _document(name: str, kind: str, body: str) -> str:
    return f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: {name}\n{body}\n"


def test_postrender_accepts_what_the_api_server_accepts(kube: Kube):
    disagreements = []
    for name, kind, body in CASES:
        text = _document(name, kind, body)
        created = kube.kubectl("create", "--validate=false", "-f", "-", input=text, check=False)
        _, error, _ = postrender_reading(text)
        if (created.returncode == 0) != (error is None):
            disagreements.append(f"{name}: API server {created.returncode == 0} ({created.stderr.strip()}),"
                                 f" postrender {error}")
    assert disagreements == []


def test_a_null_value_is_refused_though_the_server_stores_an_empty_string(kube: Kube):
    name, kind, body = NULL_VALUE
    text = _document(name, kind, body)
    kube.kubectl("create", "--validate=false", "-f", "-", input=text)
    assert kube.get("configmap", name).get("data", {}).get("k", "") == ""
    _, error, _ = postrender_reading(text)
    assert error is not None and 'write "" for an empty string' in error


@pytest.mark.parametrize("body", [
    "stringData: {password: s3cr3t}",
    "type: Opaque\nstringData: {password: s3cr3t, user: ü}",
    "data: {password: b2xk, keep: a2VlcA==}\nstringData: {password: s3cr3t}",
    "type: ''\ndata: {password: czNjcjN0}",
    "type: kubernetes.io/basic-auth\nstringData: {username: u, password: p}",
    "x-anchors: [&d {L: info}]\nstringData: {L: debug, <<: *d}",
])
def test_the_stored_secret_is_what_postrender_hashes(kube: Kube, body):
    text = _document("s", "Secret", body)
    kube.kubectl("create", "--validate=false", "-f", "-", input=text)
    stored = kube.get("secret", "s")
    assert "stringData" not in stored
    data = ", ".join(f"{yaml_quoted(k)}: {yaml_quoted(v)}" for k, v in sorted(stored["data"].items()))
    as_stored = (f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  annotations: {{{NEEDS_HASH}: enabled}}\n"
                 f"type: {yaml_quoted(stored['type'])}\ndata: {{{data}}}\n")
    assert postrender_reading(text)[0] == kustomize_hashes([as_stored])["s"]
