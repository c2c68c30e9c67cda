"""The exec transformer's check of what the kustomization runs after it
(kustomize_exec.transformers_after): each builtin transformer is judged by
its config, its paths read as kustomize reads them. Real kustomize runs the
same cases in tests/integration/kustomize/test_kustomize.py."""

from __future__ import annotations

import pytest
from ruamel.yaml import YAML

from postrender.frontends.kustomize_exec import transformers_after

CONFIG = "apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata:\n  name: postrender\n"


def _after(tmp_path, late: dict) -> tuple[list[str], list[str], str | None]:
    """What the check says of `late`, listed after postrender."""
    yaml = YAML(typ="safe")
    (tmp_path / "postrender.yaml").write_text(CONFIG)
    with open(tmp_path / "late.yaml", "w") as handle:
        yaml.dump({"apiVersion": "builtin", "metadata": {"name": "late"}, **late}, handle)
    kustomization = {"resources": ["all.yaml"], "transformers": ["postrender.yaml", "late.yaml"]}
    return transformers_after(str(tmp_path), kustomization, CONFIG)


def _fieldspecs(kind: str, path: str, **config) -> dict:
    return {"kind": kind, **config, "fieldSpecs": [{"kind": "ConfigMap", "path": path}]}


# kustomize drops one leading `/` and a key's `[]` (kyaml PathSplitter,
# fieldspec.isSequenceField): these all write into a config's data.
INTO_CONTENT = ["data/x", "/data/x", "data[]/x", "/binaryData/x", "stringData", "/type"]
# A slash within a key (`data\/x`) is one key, `data/x`, which no config has as content.
OUTSIDE_CONTENT = ["metadata/annotations/x", "/metadata/labels/x", "data\\/x"]


@pytest.mark.parametrize("path", INTO_CONTENT)
@pytest.mark.parametrize("kind,config", [("PrefixSuffixTransformer", {"prefix": "zz-"}),
                                         ("AnnotationsTransformer", {"annotations": {"a": "b"}}),
                                         ("ImageTagTransformer", {"imageTag": {"name": "nginx", "newTag": "1"}})])
def test_a_fieldspec_into_a_configs_content_is_an_edit_however_kustomize_spells_it(tmp_path, kind, config, path):
    assert _after(tmp_path, _fieldspecs(kind, path, **config)) == (["%s/late" % kind], [], None)


@pytest.mark.parametrize("path", OUTSIDE_CONTENT)
def test_a_fieldspec_outside_a_configs_content_is_no_edit(tmp_path, path):
    assert _after(tmp_path, _fieldspecs("PrefixSuffixTransformer", path, prefix="zz-")) == ([], [], None)


def _value_add(field_path: str, selector: dict | None = None) -> dict:
    target = {"fieldPath": field_path, **({"selector": selector} if selector is not None else {})}
    return {"kind": "ValueAddTransformer", "value": "two", "targets": [target]}


@pytest.mark.parametrize("late,edits", [
    (_value_add("data/y", {"kind": "ConfigMap"}), True),
    # kustomize's valueadd filter skips empty keys: `/data/y` writes data/y too.
    (_value_add("/data/y", {"kind": "ConfigMap"}), True),
    (_value_add("data/y"), True),  # no selector: every object
    (_value_add("stringData/y", {"kind": "Secret|Deployment"}), True),
    (_value_add("data/y", {"kind": "Deployment"}), False),
    (_value_add("metadata/annotations/y", {"kind": "ConfigMap"}), False),
    (_value_add("metadata/namespace"), False),
    # ...but keeps `[]` in a key: `data[]/y` writes a key `data[]` beside data.
    (_value_add("data[]/y", {"kind": "ConfigMap"}), False),
])
def test_a_value_add_transformer_is_judged_by_its_targets(tmp_path, late, edits):
    """It states the kind (selector.kind) and the field (fieldPath): it was
    only warned of, and wrote into a version's data, exit 0."""
    assert _after(tmp_path, late) == ((["ValueAddTransformer/late"], [], None) if edits else ([], [], None))


def test_a_value_add_transformers_targets_from_a_file_are_judged_too(tmp_path):
    (tmp_path / "targets.yaml").write_text("targets:\n- selector: {kind: ConfigMap}\n  fieldPath: data/y\n")
    late = {"kind": "ValueAddTransformer", "value": "two", "targetFilePath": "targets.yaml"}
    assert _after(tmp_path, late) == (["ValueAddTransformer/late"], [], None)
    (tmp_path / "targets.yaml").write_text("targets:\n- selector: {kind: ConfigMap}\n  fieldPath: metadata/labels/y\n")
    assert _after(tmp_path, late) == ([], [], None)


# Every builtin kustomize v5.7 loads (api/internal/plugins/builtinhelpers), with a
# config that leaves configs alone: each is judged, none merely warned of.
HARMLESS = [
    {"kind": "AnnotationsTransformer", "annotations": {"a": "b"}},
    {"kind": "LabelTransformer", "labels": {"a": "b"}, "fieldSpecs": [{"path": "metadata/labels", "create": True}]},
    {"kind": "NamespaceTransformer", "namespace": "x"},
    {"kind": "PrefixSuffixTransformer", "prefix": "a-"},
    {"kind": "PrefixTransformer", "prefix": "a-"},
    {"kind": "SuffixTransformer", "suffix": "-a"},
    {"kind": "ImageTagTransformer", "imageTag": {"name": "nginx", "newTag": "1"}},
    {"kind": "ReplicaCountTransformer", "replica": {"name": "web", "count": 2}},
    {"kind": "HashTransformer"},
    {"kind": "PatchTransformer", "target": {"kind": "Deployment"}, "patch": "[]"},
    {"kind": "PatchJson6902Transformer", "target": {"kind": "Deployment", "name": "web"}, "jsonOp": "[]"},
    {"kind": "PatchStrategicMergeTransformer", "patches": "{apiVersion: apps/v1, kind: Deployment}"},
    {"kind": "ReplacementTransformer", "replacements": [{"source": {"kind": "ConfigMap", "fieldPath": "metadata.name"},
                                                         "targets": [{"select": {"kind": "Deployment"}}]}]},
    _value_add("metadata/annotations/a"),
    # Generators: kustomize refuses one listed under transformers itself.
    {"kind": "ConfigMapGenerator", "literals": ["a=b"]},
    {"kind": "SecretGenerator", "literals": ["a=b"]},
    {"kind": "HelmChartInflationGenerator", "name": "chart"},
    {"kind": "IAMPolicyGenerator", "cloud": "gke"},
]


@pytest.mark.parametrize("late", HARMLESS, ids=[late["kind"] for late in HARMLESS])
def test_every_builtin_is_judged_not_warned_of(tmp_path, late):
    assert _after(tmp_path, late) == ([], [], None)


def test_a_transformer_postrender_cannot_judge_is_warned_of(tmp_path):
    assert _after(tmp_path, {"apiVersion": "example.com/v1", "kind": "Exec"}) == ([], ["Exec/late"], None)
