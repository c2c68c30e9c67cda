"""Names inside a JSON text written as a string (an injector's annotation,
Istio's sidecar.istio.io/userVolume; Argo Workflows' podSpecPatch; a flag's
`--config={...}`): no field spec can rewrite them, so the guard reads the
JSON with its own rules and refuses a render that would leave one naming a
config it renamed, as it does a field no field spec covers."""

from __future__ import annotations

import json

import pytest

from conftest import run_postrender

CONFIGS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: boot, namespace: app}
data: {a: x}
---
apiVersion: v1
kind: Secret
metadata: {name: tls, namespace: app}
stringData: {ca.crt: "pem"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: user, namespace: app}
spec:
  selector: {matchLabels: {app: user}}
  template:
    metadata: {labels: {app: user}}
    spec:
      containers:
      - {name: c, image: x, envFrom: [{configMapRef: {name: boot}}, {secretRef: {name: tls}}]}
"""
# Without copies: with one (the default for Secrets) the old name still exists.
NO_COPIES = ["--keep-original=none"]


def pod_annotations(annotations: dict[str, str], args: list[str] | None = None) -> str:
    container: dict = {"name": "c", "image": "x"}
    if args is not None:
        container["args"] = args
    return CONFIGS + "---\n" + json.dumps({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "app"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {
            "metadata": {"labels": {"app": "web"}, "annotations": annotations},
            "spec": {"containers": [container]}}}}) + "\n"


USER_VOLUME_LIST = json.dumps([{"name": "v", "configMap": {"name": "boot"}}])
USER_VOLUME_MAP = json.dumps({"v": {"configMap": {"name": "boot"}}, "s": {"secret": {"secretName": "tls"}}})
JSON_PATCH = json.dumps([{"op": "add", "path": "/volumes/-", "value": {"name": "w", "configMap": {"name": "boot"}}}])


@pytest.mark.parametrize("annotation, value, found", [
    ("sidecar.istio.io/userVolume", USER_VOLUME_LIST, ["(JSON: [0].configMap.name): still names ConfigMap 'boot'"]),
    ("sidecar.istio.io/userVolume", USER_VOLUME_MAP, ["(JSON: v.configMap.name): still names ConfigMap 'boot'",
                                                      "(JSON: s.secret.secretName): still names Secret 'tls'"]),
    ("vault.hashicorp.com/agent-json-patch", JSON_PATCH,
     ["(JSON: [0].value.configMap.name): still names ConfigMap 'boot'"]),
    # Spelled with JSON's escapes: the name is what JSON reads.
    ("sidecar.istio.io/userVolume", '[{"configMap": {"name": "\\u0062oot"}}]',
     ["(JSON: [0].configMap.name): still names ConfigMap 'boot'"]),
])
def test_a_name_inside_json_fails_the_render_naming_where(annotation, value, found):
    result = run_postrender(NO_COPIES, pod_annotations({annotation: value}))
    assert result.status == 1 and result.stdout == ""
    errors = [line for line in result.stderr.splitlines() if "error:" in line]
    assert len(errors) == len(found)
    for error, text in zip(errors, found):
        assert error.startswith("postrender: error: document 4 (Deployment/app/web) line ") \
            or error.startswith("postrender: error: document 4 (Deployment/web) line "), error
        assert f'spec.template.metadata.annotations["{annotation}"] {text}' in error
        assert "inside a JSON text, where no field spec can rewrite it" in error
        assert "--config FILE" not in error  # no field spec would do


def test_written_as_yaml_double_quoted_with_escaped_quotes():
    stream = CONFIGS + """---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: app}
spec:
  template:
    metadata:
      annotations:
        sidecar.istio.io/userVolume: "[{\\"name\\":\\"v\\",\\"configMap\\":{\\"name\\":\\"boot\\"}}]"
    spec:
      containers: [{name: c, image: x}]
"""
    result = run_postrender(NO_COPIES, stream)
    assert result.status == 1 and result.stdout == ""
    line = stream.splitlines().index('        sidecar.istio.io/userVolume: "[{\\"name\\":\\"v\\",\\"configMap\\":{\\"name\\":\\"boot\\"}}]"') + 1
    assert f"line {line}: spec.template.metadata.annotations[\"sidecar.istio.io/userVolume\"] (JSON: [0].configMap.name)" \
        in result.stderr


def test_a_custom_resources_json_field_and_a_flags_json_value():
    patch = json.dumps({"containers": [{"name": "main", "envFrom": [{"configMapRef": {"name": "boot"}}]}]})
    stream = CONFIGS + "---\n" + json.dumps({
        "apiVersion": "argoproj.io/v1alpha1", "kind": "WorkflowTemplate", "metadata": {"name": "wt", "namespace": "app"},
        "spec": {"podSpecPatch": patch, "templates": [{"name": "main", "container": {"image": "x"}}]}}) + "\n"
    result = run_postrender([], stream)
    assert result.status == 1 and result.stdout == ""
    assert "spec.podSpecPatch (JSON: containers[0].envFrom[0].configMapRef.name): still names ConfigMap 'boot'" \
        in result.stderr
    # Compact, as a template's toJson writes it: written with spaces, the
    # words of the flag's value are read by name as a program's (graph/byname.py).
    flag = pod_annotations({}, args=["--config=" + json.dumps({"configMapName": "boot", "secretName": "tls"},
                                                              separators=(",", ":"))])
    result = run_postrender(NO_COPIES, flag)
    assert result.status == 1 and result.stdout == ""
    assert "args[0] (JSON: configMapName): still names ConfigMap 'boot'" in result.stderr
    assert "args[0] (JSON: secretName): still names Secret 'tls'" in result.stderr


def _workflow_patch(container: dict) -> str:
    patch = json.dumps({"containers": [{"name": "main", **container}]})
    return CONFIGS + "---\n" + json.dumps({
        "apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": "w", "namespace": "app"},
        "spec": {"podSpecPatch": patch, "templates": [{"name": "main", "container": {"image": "x"}}]}}) + "\n"


@pytest.mark.parametrize("container, found", [
    ({"args": ["--configmap=boot"]}, ["(JSON: containers[0].args[0]): still names ConfigMap 'boot'"]),
    ({"command": ["app", "--tls-secret", "tls"]}, ["(JSON: containers[0].command[2]): still names Secret 'tls'"]),
    ({"args": ["--configmap=app/boot"]}, ["(JSON: containers[0].args[0]): still names ConfigMap 'boot'"]),
    ({"env": [{"name": "CONFIG_MAP", "value": "boot"}]},
     ["(JSON: containers[0].env[0].value): still names ConfigMap 'boot'"]),
    # Names the guard's argument rule does not take as a config's.
    ({"args": ["--service=boot", "--configmap=other/boot"]}, []),
    ({"args": ["--namespace=other", "--configmap=boot"]}, []),
    ({"env": [{"name": "HOST", "value": "boot"}]}, []),
])
def test_a_containers_arguments_inside_json_are_read_as_a_containers(container, found):
    # The guard read a JSON text's keys as a document's, but not its
    # containers' arguments and variables: `--configmap=boot` inside Argo
    # Workflows' podSpecPatch was left naming the renamed ConfigMap, exit 0.
    result = run_postrender(NO_COPIES, _workflow_patch(container))
    assert (result.status, result.stdout == "") == ((1, True) if found else (0, False)), result.stderr
    for line in found:
        assert f"spec.podSpecPatch {line}" in result.stderr
    assert result.stderr.count("still names") == len(found)


@pytest.mark.parametrize("args, annotations", [
    # A name that still exists: a copy keeps it.
    (["--keep-original"], {"sidecar.istio.io/userVolume": USER_VOLUME_MAP}),
    # A key that says nothing of a reference.
    (NO_COPIES, {"example.com/notes": json.dumps({"title": "boot", "tags": ["tls"]})}),
    # A whole object recorded by a deployer, not a reference to another.
    (NO_COPIES, {"kubectl.kubernetes.io/last-applied-configuration": json.dumps({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"volumes": [{"name": "v", "configMap": {"name": "boot"}}]}}}})}),
    # Not JSON, or JSON of another kind of value.
    (NO_COPIES, {"a": "[not json, configMap: boot", "b": '"boot"', "c": "{}"}),
])
def test_what_is_no_stale_reference_renders(args, annotations):
    result = run_postrender(args, pod_annotations(annotations))
    assert result.status == 0, result.stderr
    assert "still names" not in result.stderr


def test_allowed_it_is_a_warning_and_the_text_is_kept():
    result = run_postrender([*NO_COPIES, "--allow-broken-references"],
                            pod_annotations({"sidecar.istio.io/userVolume": USER_VOLUME_LIST}))
    assert result.status == 0
    assert "warning:" in result.stderr and "(JSON: [0].configMap.name)" in result.stderr
    assert json.dumps(USER_VOLUME_LIST) in result.stdout or USER_VOLUME_LIST.replace('"', '\\"') in result.stdout \
        or USER_VOLUME_LIST in result.stdout


def test_json_nested_as_deep_as_json_loads_reads_is_read_without_recursion():
    # json.loads reads some 490 levels and more: the guard's walk of them
    # recursed, an internal error (RecursionError) for a render kubectl reads.
    for depth in (600, 5000):
        value = "[" * depth + '{"configMap": {"name": "boot"}}' + "]" * depth
        result = run_postrender(NO_COPIES, pod_annotations({"example.com/deep": value}))
        assert "internal error" not in result.stderr
        read = depth < 1000  # past json.loads' own depth, the text is no JSON it reads
        assert (result.status, "still names ConfigMap 'boot'" in result.stderr) == ((1, True) if read else (0, False))
