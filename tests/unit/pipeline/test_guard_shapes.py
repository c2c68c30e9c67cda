"""Guard shapes beyond reference-looking keys (fieldspecs/guard.yaml):
`{name, key}` selectors under any key, and container arguments and variables
whose flag or variable name says secret, cert, tls or config."""

from __future__ import annotations

import json

import pytest

from conftest import run_postrender

# Without copies: with one (the default for Secrets) the old name still exists.
NO_COPIES = ["--keep-original=none"]

OBJECTS = """\
apiVersion: v1
kind: Secret
metadata: {name: objstore, namespace: mon}
data: {objstore.yml: dHlwZTogczM=}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: mon}
data: {k: v}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: user, namespace: mon}
spec:
  template:
    spec:
      containers:
        - name: c
          envFrom: [{configMapRef: {name: settings}}, {secretRef: {name: objstore}}]
"""


def custom(spec: dict) -> str:
    return "---\n" + json.dumps({"apiVersion": "example.com/v1", "kind": "Store",
                                 "metadata": {"name": "s", "namespace": "mon"}, "spec": spec}) + "\n"


def workload(container: dict) -> str:
    return "---\n" + json.dumps({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "w", "namespace": "mon"},
                                 "spec": {"template": {"spec": {"containers": [{"name": "c", **container}]}}}}) + "\n"


def warnings(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if "still names" in line]


@pytest.mark.parametrize("selector,kind,name", [
    ({"objectStorageConfig": {"name": "objstore", "key": "objstore.yml"}}, "Secret", "objstore"),
    ({"tracing": {"name": "objstore", "key": "t", "optional": True}}, "Secret", "objstore"),
    ({"remote": [{"auth": {"name": "objstore", "key": "k", "namespace": "mon"}}]}, "Secret", "objstore"),
    ({"rules": {"name": "settings", "key": "k"}}, "ConfigMap", "settings"),
])
def test_a_key_selector_under_any_key_is_a_reference_shape(selector, kind, name):
    result = run_postrender([*NO_COPIES, "--allow-broken-references"], OBJECTS + custom(selector))
    assert result.status == 0
    (warning,) = warnings(result)
    assert f"still names {kind} {name!r}" in warning and "nameReference" in warning


@pytest.mark.parametrize("spec", [
    {"objectStorageConfig": {"name": "objstore"}},                        # no key
    {"thing": {"name": "objstore", "key": "k", "image": "x"}},            # more than a selector
    {"items": [{"name": "settings", "key": "k", "value": "v"}]},
])
def test_other_name_and_key_mappings_are_not(spec):
    result = run_postrender([*NO_COPIES, "--allow-broken-references"], OBJECTS + custom(spec))
    assert result.status == 0 and warnings(result) == []


def test_the_suggested_field_spec_covers_the_selector(tmp_path):
    stream = OBJECTS + custom({"objectStorageConfig": {"name": "objstore", "key": "objstore.yml"}})
    (warning,) = warnings(run_postrender([*NO_COPIES, "--allow-broken-references"], stream))
    spec = warning.split("`nameReference: ")[1].split("`")[0]
    config = tmp_path / "specs.yaml"
    config.write_text(f"nameReference: {spec}\n")
    result = run_postrender(["--strict", "--config", str(config), *NO_COPIES], stream)
    assert result.status == 0, result.stderr
    assert '"objectStorageConfig": {"name": "objstore-' in result.stdout


@pytest.mark.parametrize("container,kind,row", [
    ({"args": ["--tls-secret=$(POD_NAMESPACE)/objstore"]}, "Secret", "flags: [--tls-secret]"),
    ({"args": ["--ca-cert", "mon/objstore"]}, "Secret", "flags: [--ca-cert]"),
    ({"command": ["app", "-app-config=settings"]}, "ConfigMap", "flags: [-app-config]"),
    ({"env": [{"name": "APP_CONFIG_MAP", "value": "settings"}]}, "ConfigMap", "env: [APP_CONFIG_MAP]"),
    ({"env": [{"name": "DB_SECRET", "value": "mon/objstore"}]}, "Secret", "env: [DB_SECRET]"),
])
def test_a_flag_or_variable_no_row_lists_is_flagged_with_the_row_to_add(container, kind, row, tmp_path):
    stream = OBJECTS + workload(container)
    # Read by name, the object would keep its name (test_read_by_name.py);
    # versioned anyway, the guard names the row that would rewrite the flag.
    result = run_postrender([*NO_COPIES, "--version-all", "--allow-broken-references"], stream)
    (warning,) = warnings(result)
    assert f"still names {kind}" in warning and f"`podSpecArgs: [{{target: {kind}, {row}}}]`" in warning
    config = tmp_path / "rows.yaml"
    config.write_text(f"podSpecArgs: [{{target: {kind}, {row}}}]\n")
    fixed = run_postrender(["--strict", "--config", str(config), *NO_COPIES], stream)
    assert fixed.status == 0, fixed.stderr


@pytest.mark.parametrize("container", [
    # ingress-nginx names its Service like its ConfigMap: not a config flag.
    {"args": ["--publish-service=$(POD_NAMESPACE)/settings", "--election-id=settings"]},
    {"args": ["--config=/etc/settings", "--config", "/etc/app/settings"]},   # file paths
    {"args": ["--config-timeout=settings=3"]},
    {"env": [{"name": "APP_NAME", "value": "settings"}, {"name": "CONFIG_DIR", "value": "/etc/settings"}]},
])
def test_arguments_that_only_look_alike_are_not(container):
    result = run_postrender([*NO_COPIES, "--allow-broken-references"], OBJECTS + workload(container))
    assert result.status == 0 and warnings(result) == []


def test_a_covered_flag_is_rewritten_not_flagged():
    # (With ingress-nginx's --publish-service naming a Service like the
    # ConfigMap beside it, the ConfigMap keeps its name: test_read_by_name.py.)
    stream = OBJECTS + workload({"args": ["--configmap=$(POD_NAMESPACE)/settings"]})
    result = run_postrender(["--strict", *NO_COPIES], stream)
    assert result.status == 0, result.stderr
    assert '"--configmap=$(POD_NAMESPACE)/settings-' in result.stdout
