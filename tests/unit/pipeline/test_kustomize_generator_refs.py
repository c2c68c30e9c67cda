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


PLUGIN_CONFIG = "apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {name: postrender}\nstrict: true\n"


def _as_exec_transformer(tmp_path, configurations: str | None, stream: str):
    """postrender as kustomize's exec transformer, listed by a kustomization
    in `tmp_path` whose configurations: file holds `configurations`."""
    (tmp_path / "postrender.yaml").write_text(PLUGIN_CONFIG)
    listed = "configurations: [kc.yaml]\n" if configurations is not None else ""
    (tmp_path / "kustomization.yaml").write_text(f"resources: [all.yaml]\n{listed}transformers: [postrender.yaml]\n")
    if configurations is not None:
        (tmp_path / "kc.yaml").write_text(configurations)
    env = {"KUSTOMIZE_PLUGIN_CONFIG_ROOT": str(tmp_path), "KUSTOMIZE_PLUGIN_CONFIG_STRING": PLUGIN_CONFIG}
    return run_postrender([str(tmp_path / "postrender.yaml")], stream, env=env)


@pytest.mark.parametrize("referrer", [r for r in REFERRERS if REFERRERS[r][1] is not None])
@pytest.mark.parametrize("spelling", ["as the message writes it", "with a leading /"])
def test_a_field_the_kustomizations_configurations_name_is_no_finding(referrer, spelling, tmp_path):
    """The row the message asks for, in the kustomization's configurations:
    (which kustomize reads, and postrender too): kustomize rewrites the
    field, so there is nothing to say, and strict builds. It failed, asking
    for the row that was there."""
    text, row = REFERRERS[referrer]
    if spelling != "as the message writes it":
        row = row.replace("path: ", "path: /")
    result = _as_exec_transformer(tmp_path, f"nameReference: [{{kind: ConfigMap, fieldSpecs: [{row}]}}]\n",
                                  GENERATED + text)
    assert result.status == 0 and "kustomize generator output" not in result.stderr, result.stderr
    assert "gen-config" in result.stdout and "gen-config-" not in result.stdout


def test_a_configurations_row_for_another_field_leaves_the_finding(tmp_path):
    text, _ = REFERRERS["a ReplicationController's volume"]
    other = "nameReference: [{kind: ConfigMap, fieldSpecs: [{kind: ReplicationController, path: spec/other}]}]\n"
    for configurations in (None, other):
        result = _as_exec_transformer(tmp_path, configurations, GENERATED + text)
        assert result.status == 1 and "kustomize generator output" in result.stderr, result.stderr
        assert "none that postrender read does" in result.stderr
