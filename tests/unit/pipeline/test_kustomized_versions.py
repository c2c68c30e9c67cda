"""A run that keeps previous versions (--keep-previous, --retain) takes a
name kustomize already suffixed with its content hash (configMapGenerator
and secretGenerator output of `kustomize build`, piped to postrender) as a
version: it keeps its name, and gets the marks --retain and gc group
versions by, and the keep-policy's. Unmarked, --retain carried none of its
previous versions forward and `kubectl apply --prune` deleted the one the
previous ReplicaSet still used; Argo CD pruned it."""

from __future__ import annotations

import pytest

from conftest import run_postrender
from manifests import documents

# `kubectl kustomize` of a configMapGenerator (a=1) and a secretGenerator
# (p=x), named by kustomize's hash.
BUILT = """\
apiVersion: v1
data:
  a: "1"
kind: ConfigMap
metadata:
  labels: {app.kubernetes.io/instance: web}
  name: gen-h29d89cmmt
  namespace: shop
---
apiVersion: v1
data:
  p: eA==
kind: Secret
metadata:
  labels: {app.kubernetes.io/instance: web}
  name: sec-bm76c6cd96
  namespace: shop
type: Opaque
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, labels: {app.kubernetes.io/instance: web}}
spec:
  template:
    spec:
      containers: [{name: c, image: x, envFrom: [{configMapRef: {name: gen-h29d89cmmt}}, {secretRef: {name: sec-bm76c6cd96}}]}]
"""
NAMES = {"ConfigMap": ("gen-h29d89cmmt", "gen"), "Secret": ("sec-bm76c6cd96", "sec")}


def _configs(out: str) -> dict[str, dict]:
    return {d["kind"]: d for d in documents(out) if d["kind"] in NAMES}


@pytest.mark.parametrize("policy", ["argocd", "flux", "helm"])
def test_a_kustomize_suffixed_name_is_a_version_where_previous_ones_are_kept(policy):
    result = run_postrender([f"--keep-previous={policy}"], BUILT)
    assert result.status == 0, result.stderr
    for kind, doc in _configs(result.stdout).items():
        name, base = NAMES[kind]
        labels = doc["metadata"]["labels"]
        assert doc["metadata"]["name"] == name, "kustomize's name stays"
        assert labels["postrender.io/versioned"] == "true" and labels["postrender.io/base-name"] == base
        assert labels["postrender.io/content-hash"] == name[-10:] and labels["postrender.io/scope"] == "web"
    [web] = [d for d in documents(result.stdout) if d["kind"] == "Deployment"]
    assert web["spec"]["template"]["metadata"]["annotations"]["postrender.io/refs"] == \
        "ConfigMap/gen-h29d89cmmt,Secret/sec-bm76c6cd96"
    assert len(documents(result.stdout)) == 3, "no unsuffixed copy: kustomize's output had none"
    assert run_postrender([f"--keep-previous={policy}"], result.stdout).stdout == result.stdout


def test_a_render_that_keeps_no_previous_versions_leaves_it_as_kustomize_wrote_it():
    result = run_postrender([], BUILT)
    assert result.status == 0 and result.stdout == BUILT, result.stderr


@pytest.mark.parametrize("which", ["opted out", "suffixed later"])
def test_one_opted_out_or_suffixed_after_postrender_is_no_version(which):
    mark = ('annotations: {postrender.io/versioned: "false"}' if which == "opted out"
            else "annotations: {internal.config.kubernetes.io/needsHashSuffix: enabled}")
    stream = BUILT.replace("  name: gen-h29d89cmmt\n", f"  name: gen-h29d89cmmt\n  {mark}\n", 1)
    if which == "suffixed later":  # a plugin is handed generator output unsuffixed
        stream = stream.replace("gen-h29d89cmmt", "gen")
    result = run_postrender(["--keep-previous=argocd"], stream)
    assert result.status == 0, result.stderr
    labels = _configs(result.stdout)["ConfigMap"]["metadata"].get("labels") or {}
    assert "postrender.io/versioned" not in labels


RBAC_WRITER = """\
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: writer, namespace: shop}
rules:
- {apiGroups: [""], resources: [configmaps], resourceNames: [gen-h29d89cmmt], verbs: [get, update, patch]}
"""


@pytest.mark.parametrize("why", ["a program writes to it", "a controller fills it in"])
def test_one_that_keeps_its_name_for_another_reason_is_no_version(why):
    # The other reasons an object keeps its name hold for kustomize's
    # output too: made immutable, a program's writes would be refused.
    stream = BUILT + RBAC_WRITER if why == "a program writes to it" else BUILT.replace(
        'data:\n  a: "1"\n', "data: {}\n", 1).replace("gen-h29d89cmmt", "gen-42745tchd9")  # kustomize's hash of no data
    result = run_postrender(["--keep-previous=argocd"], stream)
    assert result.status == 0, result.stderr
    config = _configs(result.stdout)["ConfigMap"]
    assert "immutable" not in config and "postrender.io/versioned" not in (config["metadata"].get("labels") or {})


# The class of one way of reading it: a program's flag that names it, or a
# reference no field spec covers but the name-reading table knows.
READ_BY_FLAG = BUILT.replace(
    "envFrom: [{configMapRef: {name: gen-h29d89cmmt}}, {secretRef: {name: sec-bm76c6cd96}}]",
    "args: [--app-config=gen-h29d89cmmt, --tls-secret-name=sec-bm76c6cd96]")


@pytest.mark.parametrize("policy", ["argocd", "flux", "helm"])
def test_a_kustomize_suffixed_name_a_program_reads_by_a_flag_is_a_version_too(policy):
    """An outside tester's find: read by a container flag alone, it kept no
    marks, and the GitOps deployer pruned the version the previous
    ReplicaSet (the rollback's target) still passes on its command line.
    Marking it renames nothing, so the flag keeps naming it."""
    assert "envFrom" not in READ_BY_FLAG
    result = run_postrender([f"--keep-previous={policy}"], READ_BY_FLAG)
    assert result.status == 0, result.stderr
    for kind, doc in _configs(result.stdout).items():
        name, base = NAMES[kind]
        labels = doc["metadata"]["labels"]
        assert doc["metadata"]["name"] == name and doc.get("immutable") is True
        assert labels["postrender.io/versioned"] == "true" and labels["postrender.io/base-name"] == base
    [web] = [d for d in documents(result.stdout) if d["kind"] == "Deployment"]
    assert web["spec"]["template"]["spec"]["containers"][0]["args"] == [
        "--app-config=gen-h29d89cmmt", "--tls-secret-name=sec-bm76c6cd96"]


def test_a_flag_reading_a_name_kustomize_gave_by_content_gets_no_config_hash():
    # The README: no hash over kustomize's names, which change with the
    # content: the flag that names it changes with it.
    result = run_postrender(["-v"], READ_BY_FLAG)
    assert result.status == 0, result.stderr
    assert "postrender.io/config-hash" not in result.stdout and "config-hash" not in result.stderr
    # A plain name the flag reads does get one: nothing else rolls it.
    plain = READ_BY_FLAG.replace("gen-h29d89cmmt", "gen").replace("sec-bm76c6cd96", "sec")
    assert "postrender.io/config-hash" in run_postrender([], plain).stdout
