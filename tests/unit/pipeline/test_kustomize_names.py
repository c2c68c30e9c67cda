"""A ConfigMap or Secret `kustomize build` already suffixed keeps its name.

The streams below are `kubectl kustomize` output (kustomize v5.7.1): each
generated name is `<base>-<hash>`, the hash of the object's content alone
(kustomize's hasher reads no name, namespace, labels or annotations), after
namePrefix and nameSuffix. tests/integration/kustomize/test_kustomize_output.py
runs the real kustomize; here its names are facts written down.
"""

from __future__ import annotations

import json

import pytest
from ruamel.yaml import YAML

from conftest import run_postrender

# configMapGenerator (literals, options.labels/annotations, no data) and
# secretGenerator (Opaque, kubernetes.io/tls) under namePrefix: pre-,
# nameSuffix: -suf, namespace: ns1, and a Deployment naming each.
KUSTOMIZED = """\
apiVersion: v1
data:
  LOG: debug
  "on": "on"
  ts: "2001-12-14"
  "yes": "1"
kind: ConfigMap
metadata:
  labels:
    app: x
  name: pre-app-config-suf-gm9945hf95
  namespace: ns1
---
apiVersion: v1
kind: ConfigMap
metadata:
  labels:
    app: x
  name: pre-empty-suf-6ct58987ht
  namespace: ns1
---
apiVersion: v1
data:
  a: b
kind: ConfigMap
metadata:
  annotations:
    an: v
  labels:
    app: x
    l1: v1
  name: pre-labelled-suf-4h2mbtbbt6
  namespace: ns1
---
apiVersion: v1
data:
  password: aHVudGVyMg==
kind: Secret
metadata:
  labels:
    app: x
  name: pre-app-secret-suf-cf85kd65mm
  namespace: ns1
type: Opaque
---
apiVersion: v1
data:
  tls.crt: Yw==
  tls.key: aw==
kind: Secret
metadata:
  labels:
    app: x
  name: pre-tls-suf-d94tkf5ft2
  namespace: ns1
type: kubernetes.io/tls
---
apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    app: x
  name: pre-web-suf
  namespace: ns1
spec:
  selector:
    matchLabels:
      app: x
  template:
    metadata:
      labels:
        app: x
    spec:
      containers:
      - envFrom:
        - configMapRef:
            name: pre-app-config-suf-gm9945hf95
        - secretRef:
            name: pre-app-secret-suf-cf85kd65mm
        image: nginx
        name: c
      volumes:
      - configMap:
          name: pre-labelled-suf-4h2mbtbbt6
        name: v
      - name: t
        secret:
          secretName: pre-tls-suf-d94tkf5ft2
      - configMap:
          name: pre-empty-suf-6ct58987ht
        name: e
"""
SUFFIXED = {
    "ConfigMap/ns1/pre-app-config-suf-gm9945hf95",
    "ConfigMap/ns1/pre-empty-suf-6ct58987ht",
    "ConfigMap/ns1/pre-labelled-suf-4h2mbtbbt6",
    "Secret/ns1/pre-app-secret-suf-cf85kd65mm",
    "Secret/ns1/pre-tls-suf-d94tkf5ft2",
}

# kustomize's names for Secrets it hashes as written, where postrender's hash
# (of what the API server stores) differs: annotated needsHashSuffix, built.
SECRETS_AS_WRITTEN = """\
apiVersion: v1
data:
  a: Yg==
kind: Secret
metadata:
  name: notype-254c6b4h75
---
apiVersion: v1
data:
  a: Yg==
kind: Secret
metadata:
  name: emptytype-254c6b4h75
type: ""
---
apiVersion: v1
kind: Secret
metadata:
  name: strings-925dbhhk98
stringData:
  a: b
type: Opaque
---
apiVersion: v1
data:
  a: Yg==
kind: Secret
metadata:
  name: patched-m8htbh9bm6
stringData:
  c: d
type: Opaque
"""

WORKLOAD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec:
  template:
    spec:
      containers:
        - name: c
          envFrom:
{refs}"""


def docs(text: str) -> list[dict]:
    return [d for d in YAML(typ="safe").load_all(text) if d]


def config(name: str, metadata: str = "") -> str:
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n{metadata}data:\n  a: b\n"


def workload(*refs: tuple[str, str]) -> str:
    key = {"ConfigMap": "configMapRef", "Secret": "secretRef"}
    return WORKLOAD.format(refs="".join(f"            - {key[kind]}: {{name: {name}}}\n" for kind, name in refs))


def env_refs(output: str) -> list[str]:
    (deploy,) = [d for d in docs(output) if d["kind"] == "Deployment"]
    return [next(iter(ref.values()))["name"] for ref in deploy["spec"]["template"]["spec"]["containers"][0]["envFrom"]]


def config_names(output: str) -> list[str]:
    return [d["metadata"]["name"] for d in docs(output) if d["kind"] in ("ConfigMap", "Secret")]


@pytest.mark.parametrize("args", [[], ["--version-all"], ["--keep-original=all"], ["--mutable"]])
def test_kustomize_output_goes_through_unchanged(args):
    """No second suffix, no marks, no copies, no config-hash: the bytes stay."""
    out = run_postrender(["-v", *args], KUSTOMIZED)
    assert out.status == 0, out.stderr
    assert out.stdout == KUSTOMIZED
    for name in SUFFIXED:
        assert f"{name} keeps its name: its name already ends in its content hash (-{name[-10:]})" in out.stderr
    assert "renamed" not in out.stderr and "rewrote" not in out.stderr


def test_an_opt_in_from_generator_options_labels_adds_no_second_suffix():
    stream = KUSTOMIZED.replace("    l1: v1\n", '    l1: v1\n    postrender.io/versioned: "true"\n')
    out = run_postrender([], stream)
    assert out.status == 0, out.stderr
    assert out.stdout == stream


@pytest.mark.parametrize("name", ["notype-254c6b4h75", "emptytype-254c6b4h75", "strings-925dbhhk98",
                                  "patched-m8htbh9bm6"])
def test_secrets_kustomize_hashes_as_written_keep_their_names(name):
    """kustomize hashes a Secret's stringData apart and its type as written;
    postrender's own hash reads them as stored, so both are asked."""
    (chunk,) = [c for c in SECRETS_AS_WRITTEN.split("---\n") if f"name: {name}\n" in c]
    stream = chunk + "---\n" + workload(("Secret", name))
    out = run_postrender(["-v"], stream)
    assert out.status == 0, out.stderr
    assert out.stdout == stream
    assert f"Secret/{name} keeps its name: its name already ends in its content hash" in out.stderr


@pytest.mark.parametrize("name", [
    "settings-4h2mbtbbt7",  # ten hash-like characters, not its hash
    "settings-gm9945hf95",  # another content's hash
    "settings4h2mbtbbt6",  # its hash without the dash
    "4h2mbtbbt6",  # its hash alone: no base
    "settings-4H2MBTBBT6",  # not the hash's alphabet
    "settings-2024m01d15",  # a date, not the hash's alphabet
])
def test_a_name_that_only_looks_suffixed_is_versioned(name):
    out = run_postrender(["-v"], config(name) + "---\n" + workload(("ConfigMap", name)))
    assert out.status == 0, out.stderr
    assert config_names(out.stdout) == [f"{name}-4h2mbtbbt6"]
    assert env_refs(out.stdout) == [f"{name}-4h2mbtbbt6"]
    assert "already ends in its content hash" not in out.stderr


def test_kustomize_output_edited_after_the_build_is_versioned():
    """A suffix that no longer matches the content names old content: the
    object is versioned (the edit must roll its readers)."""
    stream = KUSTOMIZED.replace("  a: b\n", "  a: changed\n")
    out = run_postrender([], stream)
    assert out.status == 0, out.stderr
    (labelled,) = [d for d in docs(out.stdout) if d["metadata"]["name"].startswith("pre-labelled-suf-")]
    assert labelled["metadata"]["name"].startswith("pre-labelled-suf-4h2mbtbbt6-")
    assert labelled["immutable"] is True


def test_postrender_output_stays_its_own_previous_run():
    """postrender's names have kustomize's shape; its marks keep a second run
    on the previous-run rule (unchanged, not excluded)."""
    first = run_postrender([], config("settings") + "---\n" + workload(("ConfigMap", "settings")))
    assert first.status == 0, first.stderr
    second = run_postrender(["-v"], first.stdout)
    assert second.stdout == first.stdout
    assert "keeps its name" not in second.stderr
    graph = run_postrender(["graph", "-o", "json"], first.stdout)
    assert graph.status == 0, graph.stderr
    (cm,) = json.loads(graph.stdout)["configObjects"]
    assert cm["versioned"] is True and cm["excluded"] is None


def test_a_workload_naming_only_kustomize_objects_gets_no_config_hash():
    """Like needsHashSuffix output, a kustomize name carries its content; a
    kept name postrender cannot roll still gets the hash."""
    configs = config("pre-labelled-suf-4h2mbtbbt6") + "---\n" + config(
        "opted-out", '  annotations: {postrender.io/versioned: "false"}\n') + "---\n"
    stream = configs + workload(("ConfigMap", "pre-labelled-suf-4h2mbtbbt6"))
    out = run_postrender([], stream)
    assert out.status == 0, out.stderr
    assert out.stdout == stream
    out = run_postrender([], configs + workload(("ConfigMap", "pre-labelled-suf-4h2mbtbbt6"), ("ConfigMap", "opted-out")))
    assert out.status == 0, out.stderr
    assert "postrender.io/config-hash" in out.stdout


def test_graph_says_why_the_name_is_kept():
    text = run_postrender(["graph"], KUSTOMIZED)
    assert text.status == 0, text.stderr
    assert "its name already ends in its content hash (-gm9945hf95)" in text.stdout
    data = json.loads(run_postrender(["graph", "-o", "json"], KUSTOMIZED).stdout)
    kept = {c["finalName"]: c for c in data["configObjects"]}
    assert set(kept) == {name.rsplit("/", 1)[1] for name in SUFFIXED}
    for name, entry in kept.items():
        assert entry["versioned"] is False
        assert entry["excluded"].startswith(f"its name already ends in its content hash (-{name[-10:]})")


def test_a_secret_kustomize_would_hash_as_written_is_versioned_when_neither_hash_matches():
    stream = ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds-7g2k9m8h5t\nstringData:\n  a: b\n---\n"
              + workload(("Secret", "creds-7g2k9m8h5t")))
    out = run_postrender(["-v", "--keep-original=none"], stream)
    assert out.status == 0, out.stderr
    assert config_names(out.stdout) == ["creds-7g2k9m8h5t-k695gkmbtk"]
    assert env_refs(out.stdout) == ["creds-7g2k9m8h5t-k695gkmbtk"]
