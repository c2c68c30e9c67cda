"""`--keep-previous argocd` marks each version with Argo CD's options
(`Prune=false`, `IgnoreExtraneous`). Both annotations hold a comma-separated
list of options, which Argo CD reads whole: an object's own options must
stay beside ours (setting ours alone dropped `ServerSideApply=true`, and
changed how Argo CD applied the object), an option of our name gives way
to ours, and a second run changes nothing."""

from __future__ import annotations

import pytest
from ruamel.yaml import YAML

from conftest import run_postrender

SYNC, COMPARE = "argocd.argoproj.io/sync-options", "argocd.argoproj.io/compare-options"

STREAM = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
  annotations: {annotations}
data:
  a: b
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec:
  template:
    spec:
      containers: [{{name: c, image: i, envFrom: [{{configMapRef: {{name: cfg}}}}]}}]
"""


def _annotations(output: str) -> dict[str, str]:
    config = next(YAML(typ="safe").load_all(output))
    return config["metadata"]["annotations"]


@pytest.mark.parametrize("written, sync, compare", [
    ({}, "Prune=false", "IgnoreExtraneous"),
    ({SYNC: "ServerSideApply=true,Replace=true"}, "ServerSideApply=true,Replace=true,Prune=false",
     "IgnoreExtraneous"),
    ({SYNC: " ServerSideApply=true , Prune=true ,Replace=true"}, "ServerSideApply=true,Prune=false,Replace=true",
     "IgnoreExtraneous"),
    ({SYNC: "Prune=false"}, "Prune=false", "IgnoreExtraneous"),
    # Written twice: ours in the first's place, the other gone (an outside
    # tester's find: `Prune=false,Prune=true` was left).
    ({SYNC: "Replace=true,Prune=true,Prune=true"}, "Replace=true,Prune=false", "IgnoreExtraneous"),
    ({COMPARE: "IgnoreExtraneous,IgnoreExtraneous"}, "Prune=false", "IgnoreExtraneous"),
    ({SYNC: ""}, "Prune=false", "IgnoreExtraneous"),
    ({COMPARE: "ServerSideDiff=true"}, "Prune=false", "ServerSideDiff=true,IgnoreExtraneous"),
    ({SYNC: "Prune=confirm", COMPARE: "IgnoreExtraneous,ServerSideDiff=true"}, "Prune=false",
     "IgnoreExtraneous,ServerSideDiff=true"),
])
def test_an_objects_own_argo_cd_options_stay_beside_ours(written, sync, compare):
    annotations = "{" + ", ".join(f'"{k}": "{v}"' for k, v in written.items()) + "}"
    text = STREAM.format(annotations=annotations)
    first = run_postrender(["--keep-previous", "argocd"], text)
    assert first.status == 0, first.stderr
    marks = _annotations(first.stdout)
    assert (marks[SYNC], marks[COMPARE]) == (sync, compare)
    again = run_postrender(["--keep-previous", "argocd"], first.stdout)
    assert again.status == 0 and again.stdout == first.stdout


@pytest.mark.parametrize("policy, key, value", [("helm", "helm.sh/resource-policy", "keep"),
                                               ("flux", "kustomize.toolkit.fluxcd.io/prune", "disabled")])
def test_a_single_valued_policy_annotation_is_set_as_ever(policy, key, value):
    text = STREAM.format(annotations="{" + f'"{key}": "other", "{SYNC}": "Validate=false"' + "}")
    result = run_postrender(["--keep-previous", policy], text)
    assert result.status == 0, result.stderr
    marks = _annotations(result.stdout)
    assert marks[key] == value and marks[SYNC] == "Validate=false"


@pytest.mark.parametrize("null", ["~", "null", "Null", "NULL", "!!null", "", "~ # a comment", "!!null ~", "!!null NULL",
                                  "!<tag:yaml.org,2002:null> ~"])
def test_a_null_option_annotation_holds_no_option(null):
    # write61: `sync-options: ~` is null to Kubernetes, which stores "" for
    # it; read as the text "~", it was kept as an option beside ours.
    text = STREAM.format(annotations=f"\n    {SYNC}: {null}\n    {COMPARE}: {null}")
    first = run_postrender(["--keep-previous", "argocd"], text)
    assert first.status == 0, first.stderr
    marks = _annotations(first.stdout)
    assert (marks[SYNC], marks[COMPARE]) == ("Prune=false", "IgnoreExtraneous")


@pytest.mark.parametrize("text", ["'~'", "!!str null"])
def test_an_option_annotation_written_as_the_text_null_is_that_text(text):
    stream = STREAM.format(annotations=f"\n    {SYNC}: {text}")
    marks = _annotations(run_postrender(["--keep-previous", "argocd"], stream).stdout)
    assert marks[SYNC] == text.split()[-1].strip("'") + ",Prune=false"
