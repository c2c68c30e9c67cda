"""User field specs in kustomize's nameReference format: --config, the
kustomize plugin config and RenderOptions.inline_configs (KRM functionConfig)."""

import re

import pytest

from conftest import FIXTURES, run_postrender

from postrender.fieldspecs import load_config_file
from postrender.options import RenderOptions
from postrender.pipeline.read.documents import Source
from postrender.pipeline.render import render
from postrender.report import Reporter

CONFIG = FIXTURES / "configs" / "kustomizeconfig.yaml"
STREAM = (FIXTURES / "configs" / "stream.yaml").read_text()


def _names(output: str) -> dict[str, str]:
    return dict(re.findall(r"name: ([a-z-]+)-([a-z0-9]{10})\b", output))


def _check(output: str) -> None:
    hashes = _names(output)
    settings, admin = f"settings-{hashes['settings']}", f"db-admin-{hashes['db-admin']}"
    # The in-house CRD, both fields, one a bare name.
    assert f"settingsConfigMapRef: {{name: {settings}}}" in output
    assert f"adminSecretName: {admin}" in output
    # An Argo Rollouts kind postrender has no built-in spec for.
    assert f"configMap: {{name: {settings}}}" in output
    # The Rollout field the config restates, rewritten once.
    assert f"secret: {{secretName: {admin}}}" in output
    # A Service reference is not postrender's to rewrite.
    assert "stableService: web}" in output


def test_a_users_kustomizeconfig_works_unchanged_with_config():
    result = run_postrender(["--config", str(CONFIG), "-v"], STREAM)
    assert result.status == 0, result.stderr
    _check(result.stdout)
    # Restating a built-in spec must not make the field two references.
    rewrites = [line for line in result.stderr.splitlines() if "rewrote Rollout/web" in line]
    assert len(rewrites) == 1, rewrites
    assert "warning" not in result.stderr


def test_without_the_config_the_guard_points_at_the_crd_fields():
    # Without copies: the Secret's unsuffixed copy (the default) would still answer to the old name.
    # --allow-broken-references: the names left behind are warnings here (test_guard.py covers the errors).
    result = run_postrender(["--keep-original=none", "--allow-broken-references"], STREAM)
    assert result.status == 0
    assert "(Database/orders) line 17: spec.adminSecretName: still names Secret 'db-admin'" in result.stderr
    assert "(Database/orders) line 16: spec.settingsConfigMapRef.name: still names ConfigMap 'settings'" in result.stderr
    # An Argo Rollouts Experiment's templates are built in now: rewritten, not flagged.
    assert "Experiment/(default)/canary-check" not in result.stderr
    assert "configMap: {name: settings-" in result.stdout.split("kind: Experiment")[1].split("---")[0]


def test_the_same_format_inline_as_a_krm_function_config_passes_it():
    (data,) = load_config_file(str(CONFIG))
    options = RenderOptions(inline_configs=[("functionConfig", data)])
    result = render([Source(None, STREAM)], options, Reporter(stderr=open("/dev/null", "w")))
    _check(result.output)


def test_the_same_format_in_a_kustomize_plugin_config(tmp_path):
    body = CONFIG.read_text()
    # The PostRender object carries the nameReference section as is.
    name_reference = body[body.index("nameReference:"):body.index("commonLabels:")]
    plugin = tmp_path / "postrender.yaml"
    plugin.write_text(f"apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {{name: pr}}\n{name_reference}")
    result = run_postrender(["--plugin-config", str(plugin)], STREAM)
    assert result.status == 0, result.stderr
    _check(result.stdout)


def test_a_bad_path_in_a_user_config_is_a_usage_error(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("nameReference:\n- kind: Secret\n  fieldSpecs:\n  - {kind: X, path: 'spec/[oops'}\n")
    result = run_postrender(["--config", str(bad)], STREAM)
    assert result.status == 2
    assert "bad.yaml" in result.stderr


UNREADABLE_FILES = {
    # name -> (bytes, the line the error names, or None)
    "not UTF-8": (b"nameReference:\n- kind: Secret # caf\xe9\n", None),
    "!!int of no number": (b"nameReference: []\nvalue: !!int ZQSECRETMARKER\n", 2),
    "!!float of no number": (b"a: 1\n---\nb:\n  c: !!float ZQSECRETMARKER\n", 4),
    "!!timestamp of no time": (b"a: !!timestamp ZQSECRETMARKER\n", 1),
    "!!binary of no base64": (b"a: !!binary ZQSECRETMARKER*\n", 1),
    "!!bool of no bool": (b"a: [x, !!bool ZQSECRETMARKER]\n", 1),
    "an unknown tag": (b"a: !secret ZQSECRETMARKER\n", 1),
    "a key written twice": (b"a: ZQSECRETMARKER1\nb: 1\na: ZQSECRETMARKER2\n", 3),
}


@pytest.mark.parametrize("flag", ["--config", "--plugin-config"])
@pytest.mark.parametrize("name", UNREADABLE_FILES)
def test_an_unreadable_config_file_is_a_usage_error_that_names_its_line_not_its_values(tmp_path, flag, name):
    written, line = UNREADABLE_FILES[name]
    config = tmp_path / "specs.yaml"
    config.write_bytes(written)
    result = run_postrender([flag, str(config)], STREAM)
    assert (result.status, result.stdout) == (2, ""), result.stderr
    (message,) = result.stderr.splitlines()
    assert message.startswith(f"postrender: error: {flag} {config}"), message
    assert "internal error" not in message and "ZQSECRETMARKER" not in message, message
    if line is not None:
        assert f" line {line}" in message or f"line {line}," in message, message


@pytest.mark.parametrize("flag", ["--config", "--plugin-config"])
def test_a_config_files_yaml_error_names_its_place_once_and_not_as_a_unicode_string(tmp_path, flag):
    # The parser's marks named the text `"<unicode string>"`, twice, after
    # the file was named already (leak62).
    config = tmp_path / "specs.yaml"
    config.write_text('nameReference:\n- kind: ConfigMap\n  fieldSpecs: [{kind: X, path: "ZQSECRETMARKER\n')
    result = run_postrender([flag, str(config)], STREAM)
    assert (result.status, result.stdout) == (2, ""), result.stderr
    assert result.stderr == (f"postrender: error: {flag} {config} line 4, column 1: invalid YAML: found unexpected end"
                             " of stream (while scanning a quoted scalar)\n"), result.stderr


# A field spec that reads a Secret's values would show what it finds there:
# a reference's name is in warnings, -v and `graph`, and a Secret's values
# are never shown. So a configuration that reads them is refused as it loads.
SECRET_VALUES = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  password: WlFTRUNSRVRNQVJLRVI=\n" \
                "stringData:\n  other: ZQSECRETMARKER\n"
READING_SECRET_VALUES = {
    "data": "nameReference:\n- kind: Secret\n  fieldSpecs:\n  - {kind: Secret, path: data/password}\n",
    "stringData": "nameReference:\n- kind: ConfigMap\n  fieldSpecs:\n  - {kind: Secret, path: stringData/other}\n",
    "the core group, named": "nameReference:\n- kind: Secret\n  fieldSpecs:\n"
                             "  - {kind: Secret, group: '', version: v1, path: data/password}\n",
    "a wildcard": "nameReference:\n- kind: Secret\n  fieldSpecs:\n  - {kind: Secret, path: '*/password'}\n",
    # No kind is every kind (kustomize's reading), Secret among them; a leading / is kustomize's too.
    "any kind": "nameReference:\n- kind: Secret\n  fieldSpecs:\n  - {path: data/password}\n",
    "any kind, rooted": "nameReference:\n- kind: ConfigMap\n  fieldSpecs:\n  - {path: /stringData/other}\n",
    "one of paths": "nameReference:\n- kind: Secret\n  fieldSpecs:\n"
                    "  - {kind: Secret, paths: [metadata/annotations/a, data/password]}\n",
    "a podSpecs row": "podSpecs:\n- {kind: Secret, path: data}\n",
    "kindFrom": "nameReference:\n- kind: Secret\n  fieldSpecs:\n  - kind: Widget\n    path: spec/secret\n"
                "    kindFrom: {kind: Secret, name: spec/from, path: stringData/other}\n",
    # Its kindFrom reads them, not its own path: a kind would not help (review61c).
    "no kind, by kindFrom": "nameReference:\n- kind: Secret\n  fieldSpecs:\n  - path: spec/secret\n"
                            "    kindFrom: {kind: Secret, name: spec/from, path: stringData/other}\n",
}


@pytest.mark.parametrize("flag", ["--config", "--plugin-config"])
@pytest.mark.parametrize("name", READING_SECRET_VALUES)
def test_a_field_spec_reading_a_secrets_values_is_a_usage_error(tmp_path, flag, name):
    config = tmp_path / "specs.yaml"
    body = READING_SECRET_VALUES[name]
    if flag == "--plugin-config":
        body = "apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {name: pr}\n" + body
    config.write_text(body)
    for args in ([], ["graph", "-o", "json"]) if flag == "--config" else ([],):
        result = run_postrender([*args, flag, str(config), "-v"], SECRET_VALUES)
        assert (result.status, result.stdout) == (2, ""), result.stderr
        assert "a Secret's data or stringData" in result.stderr, result.stderr
        # Without a kind it only may (review61b): the missing kind is the fix.
        assert ("give it the kind it is for" in result.stderr) == name.startswith("any kind"), result.stderr
        assert ("'kindFrom path stringData/other'" in result.stderr) == ("kindFrom" in name), result.stderr
        assert "ZQSECRETMARKER" not in result.stderr and "WlFTRUNSRVRNQVJLRVI" not in result.stderr


def test_a_field_spec_reading_a_secret_elsewhere_or_another_groups_secret_still_loads(tmp_path):
    config = tmp_path / "specs.yaml"
    config.write_text("nameReference:\n- kind: Secret\n  fieldSpecs:\n"
                      "  - {kind: Secret, path: metadata/annotations/example.com~1uses}\n"
                      "  - {kind: Secret, group: vault.example.com, path: data/secretName}\n")
    result = run_postrender(["--config", str(config)], SECRET_VALUES)
    assert result.status == 0, result.stderr


def test_a_krm_function_config_reading_a_secrets_values_is_refused_in_results():
    config = READING_SECRET_VALUES["data"].replace("\n", "\n  ")
    resource_list = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- "
                     + SECRET_VALUES.replace("\n", "\n  ").rstrip()
                     + "\nfunctionConfig:\n  apiVersion: postrender.io/v1alpha1\n  kind: PostRender\n"
                     + "  metadata: {name: pr}\n  " + config.rstrip() + "\n")
    result = run_postrender([], resource_list)
    assert "reads a Secret's data or stringData" in result.stdout + result.stderr, (result.stdout, result.stderr)
    assert "ZQSECRETMARKER" not in result.stderr
    assert "WlFTRUNSRVRNQVJLRVI=" not in result.stdout.split("results:")[-1]
