"""Every level of a user's field-spec configuration is strict: a typo is a
usage error naming the file and the key's path, never a field spec dropped
in silence (which left the references it names unrewritten). The same in a
--config file, a kustomize PostRender config and a KRM functionConfig."""

import json

import pytest
from ruamel.yaml import YAML

from conftest import FIXTURES, run_postrender

from postrender.fieldspecs import builtin_config, schema

STREAM = (FIXTURES / "configs" / "stream.yaml").read_text()
WIDGET = {"kind": "Widget", "group": "example.com", "path": "spec/source/config"}

BAD = [
    ("fieldSpec-for-fieldSpecs", [{"kind": "ConfigMap", "fieldSpec": [WIDGET]}],
     "nameReference[0].fieldSpec: unknown key; a nameReference entry takes group, version, kind, fieldSpecs"),
    ("entry-without-kind", [{"fieldSpecs": [WIDGET]}], "nameReference[0]: a nameReference entry needs kind"),
    ("kind-in-the-wrong-case", [{"kind": "Configmap", "fieldSpecs": [WIDGET]}],
     "nameReference[0].kind: 'Configmap': kinds are case-sensitive; did you mean ConfigMap?"),
    ("kind-not-a-string", [{"kind": 5, "fieldSpecs": [WIDGET]}],
     "nameReference[0].kind: must be a non-empty string, not 5"),
    ("unknown-key-in-a-fieldSpec", [{"kind": "Secret", "fieldSpecs": [WIDGET, {**WIDGET, "typo": 1}]}],
     "nameReference[0].fieldSpecs[1].typo: unknown key; a fieldSpec takes group, version, kind, path, create,"),
    ("unknown-key-for-another-kind", [{"kind": "Service", "fieldSpecs": [{**WIDGET, "typo": 1}]}],
     "nameReference[0].fieldSpecs[0].typo: unknown key"),
    ("fieldSpecs-not-a-list", [{"kind": "Secret", "fieldSpecs": WIDGET}],
     "nameReference[0].fieldSpecs: must be a list"),
    ("fieldSpec-without-path", [{"kind": "Secret", "fieldSpecs": [{"kind": "Widget"}]}],
     "nameReference[0].fieldSpecs[0]: takes path or paths (a list of them): exactly one"),
    # kustomize refuses an empty key too ("cannot set or create an empty field name"); `/` leads once.
    ("two-leading-slashes", [{"kind": "ConfigMap", "fieldSpecs": [{**WIDGET, "path": "//spec/a"}]}],
     "nameReference[0].fieldSpecs[0].path: bad path '//spec/a'"),
    ("list-marker-alone", [{"kind": "ConfigMap", "fieldSpecs": [{**WIDGET, "path": "spec/[]/a"}]}],
     "nameReference[0].fieldSpecs[0].path: bad path 'spec/[]/a'"),
    ("bool-as-text", [{"kind": "Secret", "fieldSpecs": [{**WIDGET, "namespacePrefix": "yes"}]}],
     "nameReference[0].fieldSpecs[0].namespacePrefix: must be true or false, not 'yes'"),
    # Every key holding a path: the path parses, or its key path is named.
    ("bad-filter-in-path", [{"kind": "ConfigMap", "fieldSpecs": [WIDGET, {**WIDGET, "path": "spec/a[b]"}]}],
     "nameReference[0].fieldSpecs[1].path: bad filter [b] in path 'spec/a[b]'"),
    ("empty-segment-in-path", [{"kind": "ConfigMap", "fieldSpecs": [{**WIDGET, "path": "spec//a"}]}],
     "nameReference[0].fieldSpecs[0].path: bad path 'spec//a'"),
    ("bad-path-among-paths", [{"kind": "ConfigMap", "fieldSpecs": [
        {"kind": "Widget", "paths": ["spec/a", "spec/b[x]"]}]}],
     "nameReference[0].fieldSpecs[0].paths: bad filter [x] in path 'spec/b[x]'"),
    ("bad-kindFrom-name-path", [{"kind": "ConfigMap", "fieldSpecs": [
        {**WIDGET, "kindFrom": {"kind": "P", "name": "[1]", "path": "spec/k"}}]}],
     "nameReference[0].fieldSpecs[0].kindFrom: bad filter [1] in path '[1]'"),
    ("kindFrom-without-path", [{"kind": "ConfigMap", "fieldSpecs": [{**WIDGET, "kindFrom": {"kind": "P", "name": "n"}}]}],
     "nameReference[0].fieldSpecs[0].kindFrom: needs kind, name and path"),
    ("keepsName-not-text", [{"kind": "ConfigMap", "fieldSpecs": [{**WIDGET, "keepsName": True}]}],
     "nameReference[0].fieldSpecs[0].keepsName: says why, as text, not true"),
    ("keepsNameWithoutNamespace-not-text",
     [{"kind": "ConfigMap", "fieldSpecs": [{**WIDGET, "keepsNameWithoutNamespace": ""}]}],
     "nameReference[0].fieldSpecs[0].keepsNameWithoutNamespace: says why, as text, not ''"),
]


def _config(name_reference: list) -> dict:
    return {"nameReference": name_reference}


@pytest.mark.parametrize("case,entries,message", BAD, ids=[c[0] for c in BAD])
def test_a_config_file_out_of_shape_is_refused_by_path(tmp_path, case, entries, message):
    config = tmp_path / "specs.yaml"
    config.write_text(json.dumps(_config(entries)))
    result = run_postrender(["--config", str(config)], STREAM)
    assert result.status == 2, result.stderr
    assert f"{config} (document 1): {message}" in result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.parametrize("case,entries,message", BAD, ids=[c[0] for c in BAD])
def test_a_plugin_config_out_of_shape_is_refused_by_path(tmp_path, case, entries, message):
    plugin = tmp_path / "postrender.yaml"
    plugin.write_text(json.dumps({"apiVersion": "postrender.io/v1alpha1", "kind": "PostRender",
                                  "metadata": {"name": "pr"}, **_config(entries)}))
    result = run_postrender(["--plugin-config", str(plugin)], STREAM)
    assert result.status == 2, result.stderr
    assert f"--plugin-config {plugin} (PostRender/pr): {message}" in result.stderr


@pytest.mark.parametrize("case,entries,message", BAD, ids=[c[0] for c in BAD])
def test_a_function_config_out_of_shape_is_an_error_result(case, entries, message):
    resource_list = {
        "apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
        "items": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"k": "v"}}],
        "functionConfig": {"apiVersion": "postrender.io/v1alpha1", "kind": "PostRender",
                           "metadata": {"name": "pr"}, **_config(entries)},
    }
    result = run_postrender([], json.dumps(resource_list))
    assert result.status == 2, result.stderr
    out = YAML(typ="safe").load(result.stdout)
    (error,) = out["results"]
    assert f"functionConfig (PostRender/pr): {message}" in error["message"]


@pytest.mark.parametrize("section,value,message", [
    ("nameReference", {"kind": "Secret"}, "nameReference: must be a list"),
    ("clusterScoped", "Widget", "clusterScoped: must be a list of non-empty strings, not 'Widget'"),
    ("podSpecs", [{"kind": "Widget", "path": "spec/pod", "immutible": True}],
     "podSpecs[0].immutible: unknown key; a podSpecs entry takes group, version, kind, path, immutable"),
    ("podSpecReferences", {"Configmap": ["volumes/configMap/name"]},
     "podSpecReferences.Configmap: unknown key; podSpecReferences takes ConfigMap, Secret"),
    ("podSpecReferences", {"ConfigMap": ["volumes/configMap/name[x]"]},
     "podSpecReferences.ConfigMap: bad filter [x] in path 'volumes/configMap/name[x]'"),
    ("podSpecs", [{"kind": "Widget", "path": "spec/pod", "podMetadata": "spec/bad[x"}],
     "podSpecs[0].podMetadata: bad path 'spec/bad[x'"),
    ("podSpecs", [{"kind": "Widget", "path": "spec//pod"}], "podSpecs[0].path: bad path 'spec//pod'"),
    ("podSpecs", [{"kind": "Widget", "path": "spec/pod", "waitsWhen": [{"path": "a[", "equals": 1, "why": "w"}]}],
     "podSpecs[0].waitsWhen: bad path 'a['"),
    ("runsBeforeApply", {"a": [1, {"b": "c"}]},
     "runsBeforeApply: maps an annotation to a list of its values (strings), not {'a': [1, {'b': 'c'}]}"),
])
def test_every_section_is_strict(tmp_path, section, value, message):
    config = tmp_path / "specs.yaml"
    config.write_text(json.dumps({section: value}))
    result = run_postrender(["--config", str(config)], STREAM)
    assert result.status == 2, result.stderr
    assert message in result.stderr


def test_a_value_read_as_a_date_is_shown_as_written_and_told_to_be_quoted(tmp_path):
    # YAML reads an unquoted 2020-01-01 as a date: the message shows it as
    # the user wrote it, never as Python's datetime.date(2020, 1, 1).
    config = tmp_path / "specs.yaml"
    config.write_text("nameReference: [{kind: ConfigMap, fieldSpecs: [{kind: Widget, path: 2020-01-01}]}]\n")
    result = run_postrender(["--config", str(config)], STREAM)
    assert result.status == 2 and "datetime" not in result.stderr, result.stderr
    assert "path: must be a non-empty string, not 2020-01-01 (read as a date: quote it)" in result.stderr


@pytest.mark.parametrize(("written", "read"), [("1.10", "1.1"), ("0x10", "16"), ("1e3", "1000.0")])
def test_a_value_read_as_a_number_is_told_to_be_quoted(tmp_path, written, read):
    config = tmp_path / "specs.yaml"
    config.write_text(f"nameReference: [{{kind: ConfigMap, fieldSpecs: [{{kind: Widget, version: {written}, path: a}}]}}]\n")
    result = run_postrender(["--config", str(config)], STREAM)
    assert result.status == 2, result.stderr
    assert f"version: must be a string, not {read} (read as a number: quote it)" in result.stderr


def test_kustomize_fieldspec_keys_and_other_kinds_are_accepted(tmp_path):
    # What kustomize's own FieldSpec takes (group, version, kind, path,
    # create), nulls as unset, and a reference to a kind postrender does not
    # version, as a kustomizeconfig shared with `configurations:` holds.
    config = tmp_path / "specs.yaml"
    config.write_text(json.dumps(_config([
        {"kind": "ConfigMap", "version": "v1", "group": None,
         "fieldSpecs": [{**WIDGET, "version": "v1", "create": False}]},
        {"kind": "Service", "version": "v1", "fieldSpecs": [{"kind": "Rollout", "path": "spec/x", "create": True}]},
    ])))
    result = run_postrender(["--config", str(config), "--allow-broken-references"], STREAM)
    assert result.status == 0, result.stderr


def test_kustomizes_own_spellings_are_accepted(tmp_path):
    """What kustomize's fieldspec filter reads (kyaml PathSplitter): a
    leading `/`, `[]` after a key holding a list, and a fieldSpec without a
    kind (every kind). Refused, a `configurations:` file holding one was
    skipped whole, and `--config` or a PostRender failed."""
    config = tmp_path / "specs.yaml"
    config.write_text(json.dumps(_config([{"kind": "ConfigMap", "fieldSpecs": [
        {**WIDGET, "path": "/spec/source/config"}, {**WIDGET, "path": "spec/sources[]/config"}, {"path": "spec/any"}]}])))
    result = run_postrender(["--config", str(config), "--allow-broken-references"], STREAM)
    assert result.status == 0, result.stderr


def test_the_builtin_tables_pass_the_same_check():
    # Loaded lazily, the builtin table is not checked at each start: here instead.
    schema.check(builtin_config(), "builtin field specs")
