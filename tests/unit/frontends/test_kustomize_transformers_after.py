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
