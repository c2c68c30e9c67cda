"""kustomize's own spellings of a fieldSpec, read as kustomize reads them
(kyaml PathSplitter, api/filters/fieldspec): a leading `/`, `[]` after a key
holding a list (kustomize steps through a list's items whatever the path
says), `\\/` for a slash within a key, and no kind for every kind. Refused,
a `configurations:` file holding one was skipped whole, without a word, and
the configs only it named never rolled. Real kustomize builds the same in
tests/integration/kustomize/test_kustomize.py."""

from __future__ import annotations

import re

import pytest

from conftest import run_postrender
from postrender import fieldspecs
from postrender.errors import UsageError
from postrender.fieldspecs.paths import kustomize_keys, kustomize_path, parse_path
from postrender.frontends.kustomize_exec import kustomization_name_references


@pytest.mark.parametrize("written,keys", [
    ("spec/cm", ("spec", "cm")),
    ("/spec/cm", ("spec", "cm")),
    ("spec/sources[]/cm", ("spec", "sources", "cm")),
    ("/spec/sources[]/cm", ("spec", "sources", "cm")),
    ("metadata/annotations/example.com\\/uses", ("metadata", "annotations", "example.com/uses")),
    ("data[]", ("data",)),
])
def test_a_path_reads_as_kustomize_reads_it(written, keys):
    assert kustomize_keys(written) == keys
    assert parse_path(written) == parse_path(kustomize_path(keys))
    assert kustomize_keys(kustomize_path(keys)) == keys


@pytest.mark.parametrize("written", ["//spec/cm", "spec/[]/cm", "[]", "/"])
def test_an_empty_key_stays_refused_as_kustomize_refuses_it(written):
    with pytest.raises(UsageError, match="bad path"):
        parse_path(written)


def test_a_fieldspec_without_a_kind_applies_to_every_kind_in_table_order():
    table = fieldspecs.load_table([("config", {"nameReference": [{"kind": "ConfigMap", "fieldSpecs": [
        {"path": "spec/any"}, {"kind": "Widget", "path": "/spec/cm"}]}]})])
    widget = table.applicable("Widget", "example.com", "v1")
    assert [spec.path_text for spec in widget.specs] == ["spec/any", "/spec/cm"]
    assert [spec.path_text for spec in table.applicable("Anything", "", "v1").specs] == ["spec/any"]
    # A Deployment's builtin specs come first, the user's for every kind after them.
    assert table.applicable("Deployment", "apps", "v1").specs[-1].path_text == "spec/any"


STREAM = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: b}
data: {x: "2"}
---
apiVersion: example.com/v1
kind: Gadget
metadata: {name: g}
spec:
  sources: [{cm: b}, {cm: b}]
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
spec: {cm: b, any: b}
"""
SPELLINGS = """\
nameReference:
  - kind: ConfigMap
    fieldSpecs:
      - {kind: Gadget, path: "spec/sources[]/cm"}
      - {kind: Widget, path: /spec/cm}
      - {path: spec/any}
"""


def _every_reference_names_the_version(stdout: str) -> bool:
    """b's version is named by itself and the four references, none left on `b`."""
    version = re.search(r"\bb-[a-z0-9]{10}\b", stdout)
    return version is not None and stdout.count(version.group(0)) == 5 and not re.search(r"(cm|any): b\b(?!-)", stdout)


@pytest.mark.parametrize("given", ["--config", "the PostRender's nameReference"])
def test_the_spellings_rewrite_every_reference(tmp_path, given):
    config = tmp_path / "specs.yaml"
    if given == "--config":
        config.write_text(SPELLINGS)
        result = run_postrender(["--config", str(config)], STREAM)
    else:
        config.write_text("apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {name: pr}\n" + SPELLINGS)
        result = run_postrender(["--plugin-config", str(config)], STREAM)
    assert result.status == 0, result.stderr
    assert _every_reference_names_the_version(result.stdout), result.stdout


def _configurations(tmp_path, text: str):
    (tmp_path / "kc.yaml").write_text(text)
    return kustomization_name_references(str(tmp_path), {"configurations": ["kc.yaml"]})


def test_a_configurations_file_in_kustomizes_spellings_is_read_whole(tmp_path):
    found, skipped = _configurations(tmp_path, SPELLINGS)
    assert skipped == []
    ((origin, document),) = found
    assert origin == "the kustomization's configurations: kc.yaml"
    assert len(document["nameReference"][0]["fieldSpecs"]) == 3


def test_a_row_postrender_cannot_read_is_skipped_alone_and_said(tmp_path):
    found, skipped = _configurations(tmp_path, """\
nameReference:
  - kind: Service
    fieldSpecs: [{kind: Ingress, path: "spec//x"}]
  - kind: ConfigMap
    fieldSpecs:
      - {kind: Widget, path: spec/cm}
      - {kind: Gadget, path: "spec//cm"}
      - {kind: Gadget, path: spec/other}
  - kind: Secret
    fieldSpecs: {kind: Widget, path: spec/secret}
""")
    ((_, document),) = found
    assert document == {"nameReference": [{"kind": "ConfigMap", "fieldSpecs": [
        {"kind": "Widget", "path": "spec/cm"}, {"kind": "Gadget", "path": "spec/other"}]}]}
    # The Service's row is kustomize's alone: nothing to say of it.
    assert len(skipped) == 2, skipped
    assert skipped[0].startswith("the kustomization's configurations: kc.yaml: nameReference[1].fieldSpecs[1].path:"
                                 " bad path 'spec//cm'; postrender skips this row (kustomize reads it still)")
    assert skipped[1].startswith("the kustomization's configurations: kc.yaml: nameReference[2].fieldSpecs:"
                                 " must be a list")


def test_a_problem_of_the_entry_itself_is_said_once_at_its_place(tmp_path):
    # review61b: an unknown key of the entry was said once per fieldSpec,
    # each time as that fieldSpec's.
    found, skipped = _configurations(tmp_path, """\
nameReference:
  - kind: ConfigMap
    bogus: 1
    fieldSpecs: [{kind: Widget, path: spec/cm}, {kind: Gadget, path: spec/cm}]
""")
    assert found == []
    (said,) = skipped
    assert said.startswith("the kustomization's configurations: kc.yaml: nameReference[0].bogus: unknown key;")


def test_a_kind_kustomize_does_not_match_is_no_configs_entry(tmp_path):
    # kustomize matches a nameReference kind exactly: `configmap` rewrites nothing.
    found, skipped = _configurations(tmp_path, "nameReference:\n  - kind: configmap\n"
                                               "    fieldSpecs: [{kind: Widget, path: spec/cm}]\n")
    assert (found, skipped) == ([], [])


def test_the_skipped_row_is_warned_of_as_the_exec_transformer(tmp_path):
    config = "apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {name: pr}\n"
    (tmp_path / "postrender.yaml").write_text(config)
    (tmp_path / "kustomization.yaml").write_text("resources: [all.yaml]\nconfigurations: [kc.yaml]\n"
                                                 "transformers: [postrender.yaml]\n")
    (tmp_path / "kc.yaml").write_text(SPELLINGS + '      - {kind: Gadget, path: "spec//cm"}\n')
    env = {"KUSTOMIZE_PLUGIN_CONFIG_ROOT": str(tmp_path), "KUSTOMIZE_PLUGIN_CONFIG_STRING": config}
    result = run_postrender([str(tmp_path / "postrender.yaml")], STREAM, env=env)
    assert result.status == 0, result.stderr
    assert "kc.yaml: nameReference[0].fieldSpecs[3].path: bad path 'spec//cm'; postrender skips this row" \
        in result.stderr
    assert _every_reference_names_the_version(result.stdout), result.stdout


def test_an_entry_of_no_field_specs_reads():
    # kustomize_exec checks an entry's own fields alone by giving it none:
    # the reader must take that, or every entry would be said unreadable.
    from postrender.fieldspecs import ReferenceTable

    ReferenceTable().extend({"nameReference": [{"kind": "ConfigMap", "version": "v1", "fieldSpecs": []}]}, "t")
