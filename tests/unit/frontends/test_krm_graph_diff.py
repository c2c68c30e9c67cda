"""graph and diff on a KRM ResourceList show the render the function does:
its functionConfig applied (krm.taken_as_function), every option of it. A
render of a ResourceList it takes as a plain stream (a file named without
--krm) says its functionConfig is left unapplied (krm.read_plainly)."""

from __future__ import annotations

import json

import pytest
from ruamel.yaml import YAML

from conftest import run_postrender

_CONFIG = "functionConfig:\n  apiVersion: postrender.io/v1alpha1\n  kind: PostRender\n  metadata: {name: p}\n"
ANNOTATE = "  strategy: annotate\n"
NAMESPACE = "  namespace: shop\n"
# A custom resource's field, known only by the functionConfig's field spec.
NAME_REFERENCE = ("  nameReference:\n    - kind: ConfigMap\n      fieldSpecs:\n"
                  "        - {kind: Widget, path: spec/configName}\n")


def resource_list(sets: str, value: str = "1", config: str = _CONFIG) -> str:
    return f"""apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
  - {{apiVersion: v1, kind: ConfigMap, metadata: {{name: cfg}}, data: {{k: "{value}"}}}}
  - {{apiVersion: v1, kind: ConfigMap, metadata: {{name: lone}}, data: {{a: b}}}}
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {{name: web}}
    spec:
      selector: {{matchLabels: {{app: web}}}}
      template:
        metadata: {{labels: {{app: web}}}}
        spec:
          containers: [{{name: c, image: x, envFrom: [{{configMapRef: {{name: cfg}}}}]}}]
  - {{apiVersion: example.com/v1, kind: Widget, metadata: {{name: w}}, spec: {{configName: cfg}}}}
{config}{sets}"""


def graph(args: list[str], text: str = "") -> dict:
    result = run_postrender(["graph", "-o", "json", *args], text)
    assert result.status == 0, result.stderr
    return json.loads(result.stdout)


def config_object(view: dict, name: str) -> dict:
    (found,) = [c for c in view["configObjects"] if c["name"] == name]
    return found


# Each option a functionConfig sets, and what the function's render (and so graph) shows of it.
OPTIONS = {
    "strategy": (ANNOTATE, lambda v: config_object(v, "cfg")["finalName"] == "cfg" and v["configHashes"]),
    "namespace": (NAMESPACE, lambda v: config_object(v, "cfg")["namespace"] == "shop"),
    "mutable": ("  mutable: true\n", lambda v: config_object(v, "cfg")["marks"]["immutable"] is False),
    "keepOriginal": ("  keepOriginal: all\n", lambda v: config_object(v, "cfg")["unsuffixedCopy"]),
    "versionAll": ("  versionAll: true\n", lambda v: config_object(v, "lone")["finalName"].startswith("lone-")),
    "keepPrevious": ("  keepPrevious: argocd\n", lambda v: v["refsRecords"]),
    "scope": ("  scope: web\n",
              lambda v: config_object(v, "cfg")["marks"]["labels"].get("postrender.io/scope") == "web"),
    "nameReference": (NAME_REFERENCE, lambda v: [r for r in v["references"] if r["referrer"]["kind"] == "Widget"]),
}


@pytest.mark.parametrize("option", OPTIONS)
def test_graph_of_a_resource_list_on_standard_input_applies_its_function_config(option):
    sets, shown = OPTIONS[option]
    assert not shown(graph([], resource_list(""))), "the option shows nothing without the functionConfig"
    assert shown(graph([], resource_list(sets)))


@pytest.mark.parametrize("option", OPTIONS)
def test_graph_krm_applies_a_files_function_config(tmp_path, option):
    sets, shown = OPTIONS[option]
    path = tmp_path / "list.yaml"
    path.write_text(resource_list(sets))
    assert graph(["--krm", str(path)]) == graph([], resource_list(sets))


def test_graph_names_the_final_name_the_function_writes():
    text = resource_list(ANNOTATE)
    rendered = YAML(typ="safe").load(run_postrender([], text).stdout)
    written = {i["metadata"]["name"] for i in rendered["items"] if i["kind"] == "ConfigMap"}
    view = graph([], text)
    assert {c["finalName"] for c in view["configObjects"]} == written == {"cfg", "lone"}
    assert {r["target"]["finalName"] for r in view["references"]} == {"cfg"}


def test_graph_reads_under_the_limits_the_function_config_sets():
    dense = ("  - apiVersion: example.com/v1\n    kind: Thing\n    metadata: {name: t}\n"
             "    spec: {v: [" + ",".join(["1"] * 300_000) + "]}\n")
    text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + dense + _CONFIG
    assert run_postrender(["graph"], text).status == 1  # the command line's limit
    result = run_postrender(["graph"], text + "  maxNodes: 10000000\n")
    assert result.status == 0, result.stderr


def test_graph_of_a_function_config_the_function_refuses_fails_as_a_usage_error_with_nothing_on_stdout():
    result = run_postrender(["graph"], resource_list("  strategy: sideways\n"))
    assert result.status == 2 and result.stdout == ""
    assert "functionConfig" in result.stderr and "sideways" in result.stderr


def test_graph_krm_refuses_what_is_no_resource_list_with_nothing_on_stdout(tmp_path):
    path = tmp_path / "plain.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n")
    result = run_postrender(["graph", "--krm", str(path)])
    assert result.status == 1 and result.stdout == "" and "not a single ResourceList" in result.stderr
    assert "Traceback" not in result.stderr


def diff(old: str, new: str, tmp_path, stdin: bool = False) -> dict:
    (tmp_path / "old.yaml").write_text(old)
    (tmp_path / "new.yaml").write_text(new)
    args = ["diff", "-o", "json", str(tmp_path / "old.yaml"), "-" if stdin else str(tmp_path / "new.yaml")]
    result = run_postrender(args, new if stdin else "")
    assert result.status == 0, result.stderr
    return json.loads(result.stdout)


def because(report: dict, kind: str) -> dict:
    (found,) = [r for r in report["rolls"] + report["updated"] if r["kind"] == kind]
    (config,) = found["because"]
    return config


@pytest.mark.parametrize("stdin", [False, True], ids=["files", "NEW on stdin"])
def test_diff_renders_a_resource_list_side_with_its_function_config(tmp_path, stdin):
    report = diff(resource_list(ANNOTATE), resource_list(ANNOTATE, "2"), tmp_path, stdin)
    config = because(report, "Deployment")
    assert (config["oldName"], config["newName"], config["via"]) == ("cfg", "cfg", "postrender.io/config-hash")
    assert report["versions"] == {"created": [], "noLongerReferenced": []}


def test_diff_takes_a_resource_list_sides_namespace_from_its_function_config(tmp_path):
    report = diff(resource_list(NAMESPACE), resource_list(NAMESPACE, "2"), tmp_path)
    assert because(report, "Deployment")["namespace"] == "shop"
    assert [c["namespace"] for c in report["configChanges"]] == ["shop"]


def test_diff_takes_a_resource_list_sides_field_specs_from_its_function_config(tmp_path):
    report = diff(resource_list(NAME_REFERENCE), resource_list(NAME_REFERENCE, "2"), tmp_path)
    assert because(report, "Widget")["newName"].startswith("cfg-")
    plain = diff(resource_list(""), resource_list("", "2"), tmp_path)
    assert not [r for r in plain["updated"] if r["kind"] == "Widget"]


def test_diff_of_a_resource_list_among_other_documents_warns_its_function_config_is_not_applied(tmp_path):
    other = "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n---\n"
    (tmp_path / "old.yaml").write_text(other + resource_list(ANNOTATE))
    (tmp_path / "new.yaml").write_text(other + resource_list(ANNOTATE, "2"))
    result = run_postrender(["diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")])
    assert result.status == 0, result.stderr
    # One for each side, each named by its file.
    warnings = [line for line in result.stderr.splitlines() if "functionConfig" in line]
    assert len(warnings) == 2
    for side in ("old", "new"):
        (warning,) = [w for w in warnings if f"warning: {side} (" in w]
        assert f"document 2 ({tmp_path / side}.yaml) line 20: its functionConfig is not applied" in warning
        assert "give it alone as a side" in warning and "--krm" not in warning  # diff takes no --krm


def test_render_of_a_resource_list_file_warns_once_its_function_config_is_not_applied(tmp_path):
    path = tmp_path / "list.yaml"
    path.write_text(resource_list(ANNOTATE))
    result = run_postrender([str(path)])
    assert result.status == 0, result.stderr
    rendered = YAML(typ="safe").load(result.stdout)
    assert rendered["functionConfig"]["strategy"] == "annotate"  # written back as is
    assert any(i["metadata"]["name"].startswith("cfg-") for i in rendered["items"])  # a plain stream's render
    (warning,) = [line for line in result.stderr.splitlines() if "warning" in line]
    assert f"document 1 ({path}) line 16: its functionConfig is not applied" in warning
    assert "give it alone on standard input, or add --krm" in warning
    # graph on the same file shows that render, with the same warning
    shown = run_postrender(["graph", str(path)])
    assert shown.status == 0 and shown.stderr == result.stderr


@pytest.mark.parametrize("config", [
    "",  # none at all
    _CONFIG,  # one that sets nothing
    _CONFIG + "  strategy: rename\n",  # one that sets what the command line does
    # A ConfigMap one that sets nothing: its kind changes how advice is spelled, not the render.
    "functionConfig: {apiVersion: v1, kind: ConfigMap, metadata: {name: fc}, data: {}}\n",
])
def test_render_of_a_resource_list_file_whose_function_config_sets_nothing_says_nothing(tmp_path, config):
    path = tmp_path / "list.yaml"
    path.write_text(resource_list("", config=config))
    result = run_postrender([str(path)])
    assert result.status == 0 and result.stderr == ""


def test_render_on_standard_input_applies_the_function_config_and_says_nothing_of_it():
    result = run_postrender([], resource_list(ANNOTATE))
    assert result.status == 0 and "warning" not in result.stderr
    assert "postrender.io/config-hash" in result.stdout


def test_graph_krm_help_is_help():
    # Help is refused with --krm only to a render, whose output a host reads.
    result = run_postrender(["graph", "--krm", "--help"])
    assert result.status == 0 and "--krm" in result.stdout and result.stderr == ""
    assert run_postrender(["--krm", "--help"]).status == 2
