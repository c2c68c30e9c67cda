"""podMetadataReferences: annotations of a pod that an admission webhook reads
as it creates the pod, naming a ConfigMap or Secret it mounts (Vault's agent
injector, Istio's sidecar injector). Each path is under the metadata the
pods get: a template's, a Pod's own, or a podSpecs row's podMetadata."""

from __future__ import annotations

import json
import re

import pytest

from conftest import run_postrender
from postrender.fieldspecs import ReferenceTable, builtin_config

CONFIGS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: agent-cfg}
data: {config.hcl: x}
---
apiVersion: v1
kind: Secret
metadata: {name: agent-tls}
stringData: {ca.crt: pem}
"""
ANNOTATIONS = {
    "vault.hashicorp.com/agent-inject": "true",
    "vault.hashicorp.com/agent-configmap": "agent-cfg",
    "vault.hashicorp.com/tls-secret": "agent-tls",
    "vault.hashicorp.com/agent-extra-secret": "agent-tls",
    "sidecar.istio.io/bootstrapOverride": "agent-cfg",
}
POD_SPEC = {"containers": [{"name": "c", "image": "x", "envFrom": [{"configMapRef": {"name": "agent-cfg"}}]}],
            "volumes": [{"name": "t", "secret": {"secretName": "agent-tls"}}]}


def objects(kind: str) -> dict:
    template = {"metadata": {"annotations": ANNOTATIONS}, "spec": POD_SPEC}
    return {
        "Deployment": {"apiVersion": "apps/v1", "spec": {"template": template}},
        "CronJob": {"apiVersion": "batch/v1", "spec": {"jobTemplate": {"spec": {"template": template}}}},
        "Prometheus": {"apiVersion": "monitoring.coreos.com/v1",
                       "spec": {"podMetadata": {"annotations": ANNOTATIONS}, **POD_SPEC}},
    }[kind]


@pytest.mark.parametrize("kind, where", [
    ("Deployment", ("spec", "template", "metadata", "annotations")),
    ("CronJob", ("spec", "jobTemplate", "spec", "template", "metadata", "annotations")),
    ("Prometheus", ("spec", "podMetadata", "annotations")),
])
def test_each_injector_annotation_is_rewritten_with_the_pod_spec(kind, where):
    stream = CONFIGS + "---\n" + json.dumps({"kind": kind, "metadata": {"name": "web"}, **objects(kind)}) + "\n"
    result = run_postrender([], stream)
    assert result.status == 0, result.stderr
    out = result.stdout
    config_name = re.search(r"\{name: (agent-cfg-[a-z0-9]+)", out).group(1)
    secret_name = re.search(r"\{name: (agent-tls-[a-z0-9]+)", out).group(1)
    annotations = json.loads(out.split("---\n")[-1])
    for key in where:
        annotations = annotations[key]
    assert annotations["vault.hashicorp.com/agent-configmap"] == config_name
    assert annotations["sidecar.istio.io/bootstrapOverride"] == config_name
    assert annotations["vault.hashicorp.com/tls-secret"] == secret_name
    assert annotations["vault.hashicorp.com/agent-extra-secret"] == secret_name
    assert annotations["vault.hashicorp.com/agent-inject"] == "true"


def test_a_pods_own_annotations_stay_as_its_immutable_spec_does():
    # A Pod is immutable once created (its spec; the injector read its
    # annotations then): its references stay, and what they name keeps its name.
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "annotations": ANNOTATIONS}, "spec": POD_SPEC}
    result = run_postrender(["-v"], CONFIGS + "---\n" + json.dumps(pod) + "\n")
    assert result.status == 0, result.stderr
    assert '"vault.hashicorp.com/agent-configmap": "agent-cfg"' in result.stdout
    assert "metadata: {name: agent-cfg}" in result.stdout  # the name, or an unsuffixed copy of it


def test_only_pod_metadata_is_read():
    # The same annotation on the Deployment itself, not its pods, is not one.
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment",
                  "metadata": {"name": "web", "annotations": {"sidecar.istio.io/bootstrapOverride": "agent-cfg"}},
                  "spec": {"template": {"spec": POD_SPEC}}}
    result = run_postrender([], CONFIGS + "---\n" + json.dumps(deployment) + "\n")
    assert result.status == 0, result.stderr
    assert '"annotations": {"sidecar.istio.io/bootstrapOverride": "agent-cfg"}' in result.stdout


def test_a_kind_whose_own_spec_is_the_pod_spec_gets_no_such_row():
    table = ReferenceTable()
    table.extend(builtin_config(), "builtin.yaml")
    paths = {(spec.kind, spec.path_text) for spec in table.specs if "bootstrapOverride" in spec.path_text}
    assert ("Deployment", "spec/template/metadata/annotations/sidecar.istio.io\\/bootstrapOverride") in paths
    assert ("Pod", "metadata/annotations/sidecar.istio.io\\/bootstrapOverride") in paths
    assert ("Prometheus", "spec/podMetadata/annotations/sidecar.istio.io\\/bootstrapOverride") in paths
    assert not {kind for kind, _ in paths} & {"Revision", "FluentBit", "Collector"}


def test_a_users_config_adds_its_own(tmp_path):
    config = tmp_path / "specs.yaml"
    config.write_text(json.dumps({"podMetadataReferences": {"ConfigMap": ["annotations/example.com\\/settings"]}}))
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                  "spec": {"template": {"metadata": {"annotations": {"example.com/settings": "agent-cfg"}},
                                        "spec": POD_SPEC}}}
    stream = CONFIGS + "---\n" + json.dumps(deployment) + "\n"
    result = run_postrender(["--config", str(config)], stream)
    assert result.status == 0, result.stderr
    assert '"example.com/settings": "agent-cfg-' in result.stdout
    assert '"example.com/settings": "agent-cfg"' in run_postrender([], stream).stdout


@pytest.mark.parametrize("value, message", [
    ({"Configmap": ["annotations/x"]}, "podMetadataReferences.Configmap: unknown key; podMetadataReferences takes ConfigMap, Secret"),
    ({"ConfigMap": ["annotations/x[y]"]}, "podMetadataReferences.ConfigMap: bad filter [y] in path 'annotations/x[y]'"),
    ({"ConfigMap": "annotations/x"}, "podMetadataReferences.ConfigMap: must be a list"),
])
def test_a_config_out_of_shape_is_a_usage_error(tmp_path, value, message):
    config = tmp_path / "specs.yaml"
    config.write_text(json.dumps({"podMetadataReferences": value}))
    result = run_postrender(["--config", str(config)], CONFIGS)
    assert result.status == 2 and result.stdout == ""
    assert message in result.stderr
