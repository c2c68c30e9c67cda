"""The advice of the guard's and the broken-reference errors names what the
user can set where they run postrender (options.Spelling): flags on a
command line; a KRM functionConfig's fields, or a kustomize PostRender
config's (and the kustomization's configurations:), which take no flags
(krm62). Followed as written, it renders.
"""

from __future__ import annotations

import json

import pytest
from ruamel.yaml import YAML

from conftest import run_postrender

CONFIG = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": {"k": "v"}}
WIDGET = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"configMap": "cfg"}}
WEB = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
       "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x",
                                                      "envFrom": [{"configMapRef": {"name": "cfg"}}]}]}}}}
# A name in two namespaces, read by a Deployment of neither: ambiguous, left as is.
AMBIGUOUS = [{**CONFIG, "metadata": {"name": "cfg", "namespace": ns}} for ns in ("a", "b")] + [
    {**WEB, "metadata": {"name": "nons"}},
    {**WEB, "metadata": {"name": "web", "namespace": "a"}}]

FLAG_WORDS = ("--config FILE", "--keep-original", "--allow-broken-references", "--strict", "--namespace")


def _stream(objects: list[dict]) -> str:
    return "---\n".join(json.dumps(obj) + "\n" for obj in objects)


def _resource_list(objects: list[dict], config: str) -> str:
    items = "".join(f"- {json.dumps(obj)}\n" for obj in objects)
    return ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + items
            + "functionConfig:\n  apiVersion: postrender.io/v1alpha1\n  kind: PostRender\n  metadata: {name: p}\n"
            + "".join(f"  {line}\n" for line in config.splitlines()))


def _results(text: str) -> list[dict]:
    return YAML(typ="safe").load(text)["results"]


@pytest.mark.parametrize("config, advice, followed", [
    ("", "or set allowBrokenReferences: true in the functionConfig to render anyway",
     "allowBrokenReferences: true"),
    ("strict: true", "or set strict: false and allowBrokenReferences: true in the functionConfig to render anyway",
     "strict: false\nallowBrokenReferences: true"),
    ("strict: true\nallowBrokenReferences: true", "or set strict: false in the functionConfig to render anyway",
     "strict: false\nallowBrokenReferences: true"),
])
def test_a_functions_guard_error_names_its_function_configs_fields(config, advice, followed):
    result = run_postrender([], _resource_list([CONFIG, WIDGET, WEB], config))
    assert result.status == 1
    (error,) = _results(result.stdout)
    message = error["message"]
    assert error["severity"] == "error" and message.endswith(advice), message
    assert "(`nameReference: [{kind: ConfigMap, fieldSpecs: [{kind: Widget, group: example.com, path: " \
           "spec/configMap}]}]` in the functionConfig)" in message
    assert "or keepOriginal: true in the functionConfig)" in message
    assert not any(flag in message for flag in FLAG_WORDS), message
    # `field` where known, as a warning's; the place, which resourceRef and
    # field say, not again in the message.
    assert error["field"] == {"path": "spec.configMap", "currentValue": "cfg"}
    assert message.startswith("still names ConfigMap 'cfg'")
    assert run_postrender([], _resource_list([CONFIG, WIDGET, WEB], followed)).status == 0
    spec = message.split("(`")[1].split("`")[0]
    assert run_postrender([], _resource_list([CONFIG, WIDGET, WEB], f"{config}\n{spec}")).status == 0
    keep = run_postrender([], _resource_list([CONFIG, WIDGET, WEB], f"{config}\nkeepOriginal: true"))
    assert keep.status == 0, keep.stdout


def test_a_functions_broken_reference_error_names_its_namespace_field():
    result = run_postrender([], _resource_list(AMBIGUOUS, ""))
    assert result.status == 1
    (error,) = [r for r in _results(result.stdout) if r["severity"] == "error"]
    assert "(or set namespace: NS in the functionConfig)" in error["message"]
    assert "or keepOriginal: true in the functionConfig)" in error["message"]
    assert not any(flag in error["message"] for flag in FLAG_WORDS), error["message"]
    assert error["field"]["path"].endswith("configMapRef.name") and error["field"]["currentValue"] == "cfg"


def test_a_function_error_about_a_secrets_data_names_the_field_and_never_its_value():
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"pw": "not base64!"}}
    result = run_postrender([], _resource_list([secret], ""))
    assert result.status == 1
    (error,) = _results(result.stdout)
    assert error["field"] == {"path": "data.pw"} and "not base64" not in error["message"]


def test_the_exec_transformers_advice_names_its_config_and_the_kustomizations_configurations(tmp_path):
    plugin = tmp_path / "postrender.yaml"
    plugin.write_text("apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {name: p}\nstrict: true\n")
    result = run_postrender(["--plugin-config", str(plugin)], _stream([CONFIG, WIDGET, WEB]))
    assert result.status == 1 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert "in the PostRender config or the kustomization's configurations:)" in line
    assert "or keepOriginal: true in the PostRender config)" in line
    assert line.endswith("or set strict: false and allowBrokenReferences: true in the PostRender config to render"
                         " anyway")
    assert not any(flag in line for flag in FLAG_WORDS), line


def test_the_command_lines_advice_still_names_its_flags():
    result = run_postrender(["--strict"], _stream([CONFIG, WIDGET, WEB]))
    assert result.status == 1
    assert "(--config FILE with `nameReference: [" in result.stderr and "or --keep-original)" in result.stderr
    assert result.stderr.rstrip().endswith("or drop --strict and pass --allow-broken-references to render anyway")
    ambiguous = run_postrender([], _stream(AMBIGUOUS))
    assert "(or pass --namespace)" in ambiguous.stderr


def test_a_functions_warning_of_a_match_across_namespaces_names_its_namespace_field():
    web = {**WEB, "metadata": {"name": "web"}}
    result = run_postrender([], _resource_list([{**CONFIG, "metadata": {"name": "cfg", "namespace": "shop"}}, web], ""))
    assert result.status == 0, result.stderr
    (warning,) = _results(result.stdout)
    assert warning["message"].endswith("; set namespace: NS in the functionConfig to be exact"), warning["message"]
    assert run_postrender([], _stream([CONFIG, web])).status == 0


def _configmap_resource_list(objects: list[dict], data: dict[str, str]) -> str:
    items = "".join(f"- {json.dumps(obj)}\n" for obj in objects)
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fc"}, "data": data}
    return ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + items
            + f"functionConfig: {json.dumps(config)}\n")


def test_a_configmap_function_configs_advice_names_its_data_keys_and_a_postrender_one_for_field_specs():
    # kpt's --fn-config ConfigMap: plain options under its data, as
    # strings; field specs only in a functionConfig of kind PostRender.
    result = run_postrender([], _configmap_resource_list([CONFIG, WIDGET, WEB], {"strict": "true"}))
    assert result.status == 1
    (error,) = _results(result.stdout)
    message = error["message"]
    assert "spec/configMap}]}]` in a functionConfig of kind PostRender (a ConfigMap's data takes no field specs))" \
        in message, message
    assert 'or keepOriginal: "true" under the functionConfig\'s data)' in message
    assert message.endswith('or set strict: "false" and allowBrokenReferences: "true" under the functionConfig\'s'
                            " data to render anyway"), message
    assert "in the functionConfig" not in message and not any(flag in message for flag in FLAG_WORDS), message
    # Followed as written, each renders.
    followed = {"strict": "false", "allowBrokenReferences": "true"}
    assert run_postrender([], _configmap_resource_list([CONFIG, WIDGET, WEB], followed)).status == 0
    kept = run_postrender([], _configmap_resource_list([CONFIG, WIDGET, WEB],
                                                       {"strict": "true", "keepOriginal": "true"}))
    assert kept.status == 0, kept.stdout
    spec = message.split("(`")[1].split("`")[0]
    assert run_postrender([], _resource_list([CONFIG, WIDGET, WEB], f"strict: true\n{spec}")).status == 0


def test_a_configmap_plugin_configs_advice_names_its_data_keys(tmp_path):
    plugin = tmp_path / "postrender.yaml"
    plugin.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: p}\ndata: {strict: 'true'}\n")
    result = run_postrender(["--plugin-config", str(plugin)], _stream([CONFIG, WIDGET, WEB]))
    assert result.status == 1 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert "in a config of kind PostRender (a ConfigMap's data takes no field specs) or the kustomization's" \
           " configurations:)" in line, line
    assert line.endswith('or set strict: "false" and allowBrokenReferences: "true" under the ConfigMap config\'s'
                         " data to render anyway"), line
    assert "in the PostRender config" not in line


OTEL = {"apiVersion": "opentelemetry.io/v1beta1", "kind": "OpenTelemetryCollector", "metadata": {"name": "otel"},
        "spec": {"configmaps": [{"name": "cfg", "mountpath": "/x"}]}}


def test_the_exec_transformers_advice_for_a_row_that_keeps_the_name_is_the_postrender_config_alone(tmp_path):
    # kustomize refuses keepsName under configurations: ("unknown field"),
    # and would rewrite the field the row says must keep its name.
    plugin = tmp_path / "postrender.yaml"
    plugin.write_text("apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {name: p}\n")
    result = run_postrender(["--plugin-config", str(plugin)], _stream([CONFIG, OTEL, WEB]))
    assert result.status == 1 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert "keepsName: " in line and "add a field spec that keeps the name" in line, line
    assert "}]}]` in the PostRender config)" in line and "configurations:" not in line, line
    spec = line.split("(`")[1].split("`")[0]
    plugin.write_text(plugin.read_text() + spec + "\n")
    followed = run_postrender(["--plugin-config", str(plugin)], _stream([CONFIG, OTEL, WEB]))
    assert followed.status == 0, followed.stderr


SECRET_READER = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "app-settings"},
                 "stringData": {"configMapName": "cfg", "password": "hunter2"}}


@pytest.mark.parametrize("config", ["keepOriginal: none\nversionAll: true",
                                    "keepOriginal: none\nversionAll: true\nallowBrokenReferences: true"])
def test_a_functions_result_about_a_secrets_data_shows_no_current_value(config):
    # A name a program reads from a Secret's data is that Secret's data:
    # the result says the field, never what it holds, error or warning.
    result = run_postrender([], _resource_list([CONFIG, SECRET_READER], config))
    (found,) = [r for r in _results(result.stdout) if r.get("field", {}).get("path") == "stringData.configMapName"]
    assert found["severity"] == ("warning" if "allowBroken" in config else "error")
    assert found["field"] == {"path": "stringData.configMapName"}
    # A reader that is not a Secret still shows it.
    reader = {**SECRET_READER, "kind": "ConfigMap", "data": SECRET_READER["stringData"]}
    del reader["stringData"]
    shown = run_postrender([], _resource_list([CONFIG, reader], config))
    (found,) = [r for r in _results(shown.stdout) if r.get("field", {}).get("path") == "data.configMapName"]
    assert found["field"] == {"path": "data.configMapName", "currentValue": "cfg"}


IMMUTABLE = {**CONFIG, "immutable": True}


@pytest.mark.parametrize("config, said, flags_said", [
    ("keepOriginal: all", "the unsuffixed copy it keeps (keepOriginal in the functionConfig): ",
     "the unsuffixed copy it keeps (--keep-original): "),
    ("strategy: annotate", "keeps its name, strategy: annotate in the functionConfig keeps every name: ",
     "keeps its name, --strategy=annotate keeps every name: "),
    ("keepPrevious: helm", "keepPrevious: helm in the functionConfig: Helm then keeps old versions",
     "--keep-previous=helm: Helm then keeps old versions"),
])
def test_a_functions_warnings_name_its_fields_and_the_command_lines_its_flags(config, said, flags_said):
    result = run_postrender([], _resource_list([IMMUTABLE, WEB], config))
    assert result.status == 0, result.stdout
    (warning,) = [r["message"] for r in _results(result.stdout)]
    assert said in warning, warning
    flags = ("--keep-original", "--strategy", "--keep-previous", "Prefer --retain")
    assert not any(flag in warning for flag in flags), warning
    flag = "--" + {"keepOriginal": "keep-original", "strategy": "strategy", "keepPrevious": "keep-previous"}[
        config.split(":")[0]] + "=" + config.split(": ")[1]
    assert flags_said in run_postrender([flag], _stream([IMMUTABLE, WEB])).stderr


def test_keep_previous_helm_tells_a_function_what_it_can_do_instead_of_retain():
    # --retain has no config field: a function cannot take it.
    result = run_postrender([], _resource_list([CONFIG, WEB], "keepPrevious: helm"))
    (warning,) = [r["message"] for r in _results(result.stdout)]
    assert "Prefer postrender as Helm's --post-renderer with --retain N" in warning
    assert "no config sets it" in warning
    flags = run_postrender(["--keep-previous=helm"], _stream([CONFIG, WEB])).stderr
    assert "Prefer --retain N, which keeps them in the release;" in flags


def test_require_objects_is_named_as_it_was_set():
    result = run_postrender([], _resource_list([], "requireObjects: true").replace("items:\n", "items: []\n"))
    assert result.status == 1, result.stdout
    (error,) = _results(result.stdout)
    assert "(requireObjects: true in the functionConfig)" in error["message"], error["message"]
    cm = run_postrender([], _configmap_resource_list([], {"requireObjects": "true"}).replace("items:\n", "items: []\n"))
    assert '(requireObjects: "true" under the functionConfig\'s data)' in _results(cm.stdout)[0]["message"]
    assert "(--require-objects)" in run_postrender(["--require-objects"], "").stderr

