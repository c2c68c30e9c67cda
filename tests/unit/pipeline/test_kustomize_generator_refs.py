"""A reference to kustomize generator output (annotated needsHashSuffix, as
kustomize hands it to a transformer) stays as written: kustomize suffixes
the name after postrender and rewrites the fields of its own table
(fieldspecs/kustomize.yaml). Any other field would keep the unsuffixed
name: postrender says so (a warning; an error under --strict), naming the
`configurations:` entry that has kustomize rewrite it."""

from __future__ import annotations

import pytest

from conftest import run_postrender

GENERATED = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: gen-config
  annotations: {internal.config.kubernetes.io/needsHashSuffix: enabled}
data: {a: b}
---
"""
WIDGET_SPECS = ("nameReference: [{kind: ConfigMap, fieldSpecs: "
                "[{kind: Widget, group: example.com, path: spec/configMapName}]}]\n")

REFERRERS = {
    # kustomize's own table: it rewrites these itself.
    "a Deployment's volume": ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n"
                              "    spec:\n      volumes: [{name: v, configMap: {name: gen-config}}]\n", None),
    # postrender's table, not kustomize's (ReplicationController, ephemeral containers).
    "a ReplicationController's volume": (
        "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: rc}\nspec:\n  template:\n"
        "    spec:\n      volumes: [{name: v, configMap: {name: gen-config}}]\n",
        "{kind: ReplicationController, path: spec/template/spec/volumes/configMap/name}"),
    "an ephemeral container's env": (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  ephemeralContainers:\n"
        "    - {name: e, envFrom: [{configMapRef: {name: gen-config}}]}\n",
        "{kind: Pod, path: spec/ephemeralContainers/envFrom/configMapRef/name}"),
    # a user's field spec.
    "a custom resource's field": ("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"
                                  "spec: {configMapName: gen-config}\n",
                                  "{kind: Widget, group: example.com, path: spec/configMapName}"),
}


@pytest.mark.parametrize("referrer", REFERRERS)
def test_a_field_kustomize_does_not_rewrite_is_said_and_fails_under_strict(referrer, tmp_path):
    text, row = REFERRERS[referrer]
    config = tmp_path / "specs.yaml"
    config.write_text(WIDGET_SPECS)
    plain = run_postrender(["--config", str(config)], GENERATED + text)
    strict = run_postrender(["--config", str(config), "--strict"], GENERATED + text)
    assert plain.status == 0, plain.stderr
    assert "gen-config-" not in plain.stdout, "generator output is kustomize's to suffix"
    if row is None:
        assert "kustomize generator output" not in plain.stderr and strict.status == 0, plain.stderr
        return
    assert "kustomize generator output" in plain.stderr and f"fieldSpecs: [{row}]" in plain.stderr, plain.stderr
    assert strict.status == 1 and strict.stdout == "" and "drop --strict" in strict.stderr, strict.stderr
