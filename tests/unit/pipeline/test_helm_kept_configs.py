"""A ConfigMap or Secret the chart itself marks `helm.sh/resource-policy:
keep`. Helm keeps such an object when it leaves the release, untracked: a
version of it would be kept so on every change, and the first `helm
rollback` to a release that used an earlier one fails (helm62; the
README's "Keeping previous versions", tests/integration/cluster/
test_retain_helm.py). So it keeps its name, and its readers roll by hash.
The annotation --keep-previous=helm puts on a version it makes is that
run's, not the chart's: read again, such a version is one still."""

from __future__ import annotations

import pytest
from ruamel.yaml import YAML

from conftest import run_postrender

STREAM = """\
apiVersion: v1
kind: {kind}
metadata:
  name: creds
  annotations:
    helm.sh/resource-policy: {policy}
{data}
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec:
  template:
    spec:
      containers: [{{name: c, image: i, envFrom: [{{{ref}: {{name: creds}}}}]}}]
"""


def _stream(kind: str, policy: str = "keep") -> str:
    data = "stringData: {password: one}" if kind == "Secret" else "data: {a: b}"
    ref = "secretRef" if kind == "Secret" else "configMapRef"
    return STREAM.format(kind=kind, policy=policy, data=data, ref=ref)


@pytest.mark.parametrize("kind", ["ConfigMap", "Secret"])
@pytest.mark.parametrize("args", [[], ["--keep-original=all"], ["--version-all"], ["--keep-previous=argocd"]])
def test_a_config_the_chart_keeps_keeps_its_name_and_rolls_its_readers_by_hash(kind, args):
    result = run_postrender(args, _stream(kind))
    assert result.status == 0, result.stderr
    config, deployment = [d for d in YAML(typ="safe").load_all(result.stdout) if d]
    assert config["metadata"]["name"] == "creds" and "immutable" not in config
    template = deployment["spec"]["template"]
    assert "postrender.io/config-hash" in template["metadata"]["annotations"]
    assert "creds" in str(template["spec"]) and "creds-" not in str(template["spec"])
    said = run_postrender(["-v", *args], _stream(kind)).stderr
    assert f"{kind}/creds keeps its name: helm.sh/resource-policy: keep" in said, said


@pytest.mark.parametrize("opt_in", ["annotations", "labels"])
def test_a_config_the_chart_keeps_and_opts_in_keeps_its_name_all_the_same(opt_in):
    # An opt-in does not override the other rows; as a label it read as the
    # mark of a version a run made (review62e).
    opted = '    postrender.io/versioned: "true"\n'
    metadata = f"  labels:\n{opted}  annotations:\n" if opt_in == "labels" else f"  annotations:\n{opted}"
    text = _stream("ConfigMap").replace("  annotations:\n", metadata)
    result = run_postrender([], text)
    assert result.status == 0, result.stderr
    assert "name: creds\n" in result.stdout and "name: creds-" not in result.stdout, result.stdout


@pytest.mark.parametrize("policy", ["delete", '""'])
def test_another_resource_policy_is_versioned_as_usual(policy):
    result = run_postrender([], _stream("ConfigMap", policy))
    assert result.status == 0 and "name: creds-" in result.stdout, result.stderr


def test_the_keep_policy_of_keep_previous_helm_leaves_its_versions_versions_when_read_again():
    plain = _stream("ConfigMap").replace("  annotations:\n    helm.sh/resource-policy: keep\n", "")
    first = run_postrender(["--keep-previous=helm"], plain)
    assert first.status == 0 and "helm.sh/resource-policy: keep" in first.stdout and "name: creds-" in first.stdout
    again = run_postrender(["--keep-previous=helm"], first.stdout)
    assert (again.status, again.stdout) == (0, first.stdout), again.stderr
