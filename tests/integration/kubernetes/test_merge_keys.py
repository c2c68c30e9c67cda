"""Edits where a merge key (`<<`) gives the value: the output reads, for
kubectl, as the same stream written out without merge keys reads once
rendered.

go-yaml v2 applies a merge in its place: of a written key and a merged one,
the later wins, whole (a merged `labels` mapping is not combined with a
written one). An edit that adds a key beside `<<: {name: cfg}` loses to
it, and one that adds `labels` beside merged labels drops them: the
deployed ConfigMap was `cfg` while every reference named `cfg-<hash>`. The
oracle here needs no knowledge of the edits: kubectl reads the input, the
objects it reads are written out as JSON (no merge key left), and both
streams are rendered alike; kubectl must then read the two outputs alike.
"""

from __future__ import annotations

import json

import pytest

from conftest import run_postrender
from kube_reader import read_streams

WORKLOAD = """\
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: c
        image: nginx
        envFrom: [{configMapRef: {name: cfg}}]
"""


def config(metadata: str, root: str = "", data: str = "data: {a: b}") -> str:
    return f"apiVersion: v1\nkind: ConfigMap\n{root}{metadata}{data}\n" + WORKLOAD


CASES = {
    "the name only merged": config("metadata:\n  <<: {name: cfg}\n"),
    "the name merged, flow": config("metadata: {<<: {name: cfg}}\n"),
    "metadata merged at the root": config("", root="<<: {metadata: {name: cfg}}\n"),
    "a merged name after a written one": config("metadata:\n  name: other\n  <<: {name: cfg}\n"),
    "a written name after a merged one": config("metadata:\n  <<: {name: other}\n  name: cfg\n"),
    "labels merged, the name written after": config("metadata:\n  <<: {labels: {app: web}}\n  name: cfg\n"),
    "labels merged after written ones": config("metadata:\n  name: cfg\n  labels: {tier: x}\n  <<: {labels: {app: web}}\n"),
    "written labels after merged ones": config("metadata:\n  <<: {labels: {app: web}}\n  name: cfg\n  labels: {tier: x}\n"),
    "a list of merged mappings": config("metadata:\n  <<: [{name: cfg}, {labels: {app: web}, name: other}]\n"),
    "an anchored merge used once": config("metadata:\n  <<: &m {name: cfg, annotations: {a: b}}\n"),
    "immutable merged at the root": config("metadata: {name: cfg}\n", root="<<: {immutable: false}\n"),
    # Read, not edited, through a merge: the instance label gives the scope
    # label; an annotation opts the ConfigMap out.
    "a label merged into the labels": config(
        "metadata:\n  name: cfg\n  labels:\n    tier: x\n    <<: {app.kubernetes.io/instance: rel}\n"),
    "an opt-out merged into the annotations": config(
        "metadata:\n  name: cfg\n  annotations:\n    <<: {postrender.io/versioned: \"false\"}\n"),
    "annotations merged into a pod template": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {a: b}\n"
        + WORKLOAD.replace("metadata: {labels: {app: web}}", "metadata: {<<: {annotations: {note: x}}, labels: {app: web}}")
    ),
    "a reference merged": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {a: b}\n"
        + WORKLOAD.replace("configMapRef: {name: cfg}", "configMapRef: {<<: {name: cfg}}")
    ),
}

OPTIONS = [[], ["--keep-original"], ["--strategy=annotate"], ["--namespace=prod", "--keep-previous=argocd"]]


def _flattened(text: str) -> str:
    """The stream as kubectl reads it, written as JSON documents."""
    (objects,) = read_streams([text])
    for obj in objects:
        obj["metadata"]["labels"].pop("zz")
        if not obj["metadata"]["labels"]:
            del obj["metadata"]["labels"]
    return "".join(f"---\n{json.dumps(obj)}\n" for obj in objects)


@pytest.mark.parametrize("args", OPTIONS, ids=" ".join)
def test_edits_under_merge_keys_read_as_the_stream_written_out(args):
    rendered = []
    for name, text in CASES.items():
        merged, flat = run_postrender(args, text), run_postrender(args, _flattened(text))
        assert (merged.status, flat.status) == (0, 0), (name, merged.stderr, flat.stderr)
        assert merged.stdout != text or "opt-out" in name, name
        rendered += [merged.stdout, flat.stdout]
    readings = read_streams(rendered)
    for i, name in enumerate(CASES):
        assert readings[2 * i] == readings[2 * i + 1], (name, CASES[name], rendered[2 * i])


def test_a_merged_mapping_two_objects_share_is_refused():
    # Both items of the List merge one anchored mapping: giving it the
    # first one's new name renames the second too. Refused, in one line.
    text = ("apiVersion: v1\nkind: List\nitems:\n"
            "- {apiVersion: v1, kind: ConfigMap, metadata: {<<: &m {labels: {app: web}}, name: cfg}, data: {a: b}}\n"
            "- {apiVersion: v1, kind: ConfigMap, metadata: {<<: *m, name: other}, data: {a: c}}\n") + WORKLOAD
    result = run_postrender([], text)
    assert (result.status, result.stdout) == (1, "")
    assert result.stderr.count("\n") == 1 and "alias" in result.stderr and "line 4" in result.stderr, result.stderr
