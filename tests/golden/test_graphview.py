"""`postrender graph`: golden output for every format, and what each marks.

Fixtures: fixtures/graph/<case>/input.yaml [+ args] with one expected file
per format (expected.txt, .json, .dot, .mmd). UPDATE_GOLDEN=1 rewrites them.
"""

import json
import os
import re
import shlex
from pathlib import Path

import pytest

from conftest import FIXTURES, run_postrender

CASES = sorted(p for p in (FIXTURES / "graph").iterdir() if (p / "input.yaml").exists())
FORMATS = {"table": "txt", "json": "json", "dot": "dot", "mermaid": "mmd"}


def _graph(case: Path, fmt: str):
    args = shlex.split((case / "args").read_text()) if (case / "args").exists() else []
    return run_postrender(["graph", "-o", fmt, *args], (case / "input.yaml").read_bytes())


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_graph_golden(case: Path, fmt: str):
    result = _graph(case, fmt)
    assert result.status == 0, result.stderr
    expected = case / f"expected.{FORMATS[fmt]}"
    if os.environ.get("UPDATE_GOLDEN"):
        expected.write_text(result.stdout, encoding="utf-8", newline="")
    assert result.stdout == expected.read_text(encoding="utf-8")


def _overview() -> dict:
    result = _graph(FIXTURES / "graph" / "overview", "json")
    assert result.status == 0, result.stderr
    return json.loads(result.stdout)


def _reference(data: dict, name: str) -> dict:
    (found,) = [r for r in data["references"] if r["name"] == name]
    return found


def _config(data: dict, name: str) -> dict:
    (found,) = [c for c in data["configObjects"] if c["name"] == name]
    return found


def test_json_marks_dangling_and_optional_references_apart():
    data = _overview()
    assert _reference(data, "not-deployed")["status"] == "dangling"
    assert _reference(data, "extras")["status"] == "optional"
    assert _reference(data, "not-deployed")["target"] is None
    assert _reference(data, "not-deployed")["lookupNamespace"] == "shop"


def test_json_names_the_versioned_name_and_why_an_object_keeps_its_own():
    data = _overview()
    assert re.fullmatch(r"app-config-[a-z0-9]{10}", _config(data, "app-config")["finalName"])
    assert _config(data, "ca-bundle")["versioned"] is False
    assert "opted out" in _config(data, "ca-bundle")["excluded"]
    tls = _config(data, "shop-tls")
    assert tls["finalName"] == "shop-tls"
    assert "Certificate/shop/shop" in tls["excluded"] and "spec.secretName" in tls["excluded"]


def test_json_marks_unreferenced_config_objects():
    data = _overview()
    assert _config(data, "leftover")["referenced"] is False
    assert _config(data, "app-config")["referenced"] is True
    # Found by the Certificate's controller, so not "unreferenced" either.
    assert _config(data, "shop-tls")["referenced"] is True


def test_json_shows_reloader_decisions_and_the_hash_places():
    data = _overview()
    held = [r for r in data["references"] if r["referrer"]["name"] == "legacy"]
    assert held and "reloader.stakater.com/auto" in held[0]["note"]
    assert _config(data, "app-config")["unsuffixedCopy"] is True
    assert _reference(data, "flags")["via"] == "Reloader"
    (place,) = data["configHashes"]
    assert place["field"] == 'spec.template.metadata.annotations["postrender.io/config-hash"]'
    assert "ConfigMap/flags" in place["covers"] and "ConfigMap/ca-bundle" in place["covers"]


def test_graph_never_prints_secret_data():
    text = (FIXTURES / "graph" / "overview" / "input.yaml").read_text()
    values = {"aHVudGVyMg==", "hunter2"}
    assert "aHVudGVyMg==" in text
    for fmt in FORMATS:
        out = _graph(FIXTURES / "graph" / "overview", fmt).stdout
        assert not any(v in out for v in values), fmt


def test_dot_and_mermaid_have_one_node_per_object_and_one_edge_per_reference():
    data = _overview()
    dot = _graph(FIXTURES / "graph" / "overview", "dot").stdout
    mermaid = _graph(FIXTURES / "graph" / "overview", "mermaid").stdout
    assert dot.count(" -> ") == len(data["references"])
    assert len(re.findall(r"-->|-\.->|==>", mermaid)) == len(data["references"])
    assert dot.count("shape=note") == len(data["configObjects"])


def test_graph_reads_the_same_options_as_render(tmp_path):
    stream = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n"
    renamed = json.loads(run_postrender(["graph", "-o", "json", "--version-all"], stream).stdout)
    kept = json.loads(run_postrender(["graph", "-o", "json", "--strategy=annotate"], stream).stdout)
    unreferenced = json.loads(run_postrender(["graph", "-o", "json"], stream).stdout)
    assert renamed["configObjects"][0]["finalName"] != "c"
    assert kept["configObjects"][0]["finalName"] == "c"
    assert "--strategy=annotate" in kept["configObjects"][0]["excluded"]
    assert unreferenced["configObjects"][0]["finalName"] == "c"
    assert "no field postrender rewrites references it" in unreferenced["configObjects"][0]["excluded"]


def test_unknown_format_is_a_usage_error():
    result = run_postrender(["graph", "-o", "svg"], "")
    assert result.status == 2


# --- graph says what the render would say ------------------------------------------

GUARD = FIXTURES / "graph" / "guard" / "input.yaml"
WIDGET_ONLY = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: widget-settings}
data: {color: blue}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: gadget}
spec: {configMapName: widget-settings}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: user}
spec: {template: {spec: {containers: [{name: c, image: x, envFrom: [{configMapRef: {name: widget-settings}}]}]}}}
"""


def test_guard_findings_are_references_too():
    data = json.loads(run_postrender(["graph", "-o", "json"], WIDGET_ONLY).stdout)
    (edge,) = [r for r in data["references"] if r["referrer"]["kind"] == "Widget"]
    # The Pod's reference versions it, so the Widget's name would vanish: graph
    # shows that instead of failing as the render does.
    assert (edge["status"], edge["via"], edge["field"]) == ("broken", "guard", "spec.configMapName")
    assert _config(data, "widget-settings")["referenced"] is True
    table = run_postrender(["graph"], WIDGET_ONLY).stdout
    assert "unreferenced" not in table and "broken:" in table


def test_json_warnings_are_the_renders_word_for_word():
    # graph shows broken references as --allow-broken-references renders them.
    render = run_postrender(["--allow-broken-references"], GUARD.read_bytes())
    warnings = [line.removeprefix("postrender: warning: ") for line in render.stderr.splitlines()]
    assert warnings and all("still names" in w for w in warnings)
    graph = run_postrender(["graph", "-o", "json"], GUARD.read_bytes())
    assert json.loads(graph.stdout)["warnings"] == warnings
    # And on stderr, as the render prints them.
    assert graph.stderr == render.stderr


def test_graph_fails_where_the_render_fails():
    render = run_postrender(["--strict"], GUARD.read_bytes())
    graph = run_postrender(["graph", "--strict"], GUARD.read_bytes())
    assert render.status == graph.status == 1 and graph.stdout == ""
    # The same error, with the advice that gets the render through: graph's
    # said only "drop --strict", which got graph through and left the render
    # failing (newcomer60). Followed, it gets graph through too.
    graph_line, render_line = graph.stderr.splitlines()[-1], render.stderr.splitlines()[-1]
    assert render_line.endswith("; or drop --strict and pass --allow-broken-references to render anyway")
    assert graph_line == render_line
    assert run_postrender(["--allow-broken-references"], GUARD.read_bytes()).status == 0
    assert run_postrender(["graph", "--allow-broken-references"], GUARD.read_bytes()).status == 0
    # Given --allow-broken-references, dropping --strict is all either needs.
    both = [run_postrender([*command, "--strict", "--allow-broken-references"], GUARD.read_bytes())
            for command in ([], ["graph"])]
    assert {r.stderr.splitlines()[-1] for r in both} == {render_line.replace(" and pass --allow-broken-references", "")}
    assert graph_line.rpartition("; or ")[0] == render_line.rpartition("; or ")[0]


def _configs(args: list[str]) -> dict:
    result = run_postrender(["graph", "-o", "json", *args], GUARD.read_bytes())
    assert result.status == 0, result.stderr
    return _config(json.loads(result.stdout), "widget-settings")


def test_graph_reflects_each_render_option():
    plain = _configs([])
    assert plain["marks"]["immutable"] is True and plain["unsuffixedCopy"] is False
    assert _configs(["--mutable"])["marks"]["immutable"] is False
    assert _configs(["--keep-original"])["unsuffixedCopy"] is True
    assert _configs(["--scope", "web"])["marks"]["labels"]["postrender.io/scope"] == "web"
    kept = _configs(["--keep-previous", "argocd"])["marks"]["annotations"]
    assert kept["argocd.argoproj.io/sync-options"] == "Prune=false"
    annotate = _configs(["--strategy", "annotate"])
    assert annotate["versioned"] is False and annotate["finalName"] == "widget-settings"
    assert "namespace" in _configs(["-n", "other"])  # accepted; objects here name their own


def test_graph_table_shows_what_options_set():
    table = run_postrender(["graph", "--mutable", "--scope", "web", "--keep-previous", "flux"],
                           GUARD.read_bytes()).stdout
    assert "mutable" in table and "postrender.io/scope=web" in table
    assert "kustomize.toolkit.fluxcd.io/prune=disabled" in table


def test_graph_parses_every_render_option_as_render_does():
    from postrender.cli import parse, render_options
    from postrender.options import OPTIONS

    samples = {"count": "2", "size": "1Mi", "text": "web", "files": str(GUARD), "bool": None}
    argv: list[str] = []
    for option in OPTIONS:
        value = option.choices[0] if option.kind == "choice" else samples[option.kind]
        # `--flag=VALUE`: a flag whose value is optional (--keep-original) takes it no other way.
        argv.append(option.flag if value is None else f"{option.flag}={value}")
    assert render_options(parse(["graph", *argv])) == render_options(parse(argv))


def test_json_shows_names_read_by_programs_and_broken_references():
    result = _graph(FIXTURES / "graph" / "by-name", "json")
    assert result.status == 0, result.stderr
    data = json.loads(result.stdout)
    read = {(r["referrer"]["name"], r["field"]): r for r in data["references"] if r["via"] == "read by name"}
    flag = read[("edge", "spec.template.spec.containers[0].args[0]")]
    assert flag["target"]["name"] == "edge-controller" and flag["target"]["finalName"] == "edge-controller"
    assert "postrender.io/config-hash" in flag["note"]
    assert read[("operator-config", 'data["config.yaml"]')]["target"]["name"] == "bucket-creds"
    (broken,) = [r for r in data["references"] if r["status"] == "broken"]
    assert broken["referrer"] == {"kind": "Job", "namespace": None, "name": "migrate"} and broken["target"] is None
    reasons = {c["name"]: c["excluded"] for c in data["configObjects"] if not c["versioned"]}
    assert reasons["argocd-cm"].startswith("read by a fixed name: Argo CD")
    assert "(--settings)" in reasons["edge-controller"] and "(SETTINGS_NAME)" in reasons["policy-config"]
    assert reasons["leader-config"].startswith("Role/ops/edge grants update on it by name")
    assert reasons["webhook-cert"].startswith("no data")


def test_control_characters_from_the_stream_are_spelled_out():
    # A name is the stream's text: a terminal escape or a line break in it
    # must not reach the terminal, nor end a Mermaid line.
    name = '"web\\e[31m\\nred"'
    stream = f"""\
apiVersion: v1
kind: ConfigMap
metadata: {{name: {name}}}
data: {{a: "1"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec:
  template:
    spec:
      containers: [{{name: web, image: nginx, envFrom: [{{configMapRef: {{name: {name}}}}}]}}]
"""
    for fmt in ("table", "dot", "mermaid"):
        result = run_postrender(["graph", "-o", fmt], stream)
        assert result.status == 0, result.stderr
        assert "\x1b" not in result.stdout, fmt
        assert "x1b[31m" in result.stdout, (fmt, result.stdout)
        if fmt != "dot":  # Graphviz labels keep their line breaks, as \n
            assert "web\\x1b[31m\\x0ared" in result.stdout, (fmt, result.stdout)


@pytest.mark.parametrize("policy", ["argocd", "flux", "helm"])
def test_graph_and_v_show_each_refs_record_the_render_writes(policy: str):
    """With --keep-previous every referrer gets a postrender.io/refs record
    (and rolls once for it): graph and -v said nothing of it."""
    from ruamel.yaml import YAML

    stream = ("apiVersion: v1\nkind: Secret\nmetadata: {name: db}\nstringData: {p: q}\n---\n"
              "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {k: v}\n---\n"
              "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n"
              "      containers: [{name: c, image: x, envFrom: [{configMapRef: {name: cfg}}],"
              " env: [{name: P, valueFrom: {secretKeyRef: {name: db, key: p}}}]}]\n---\n"
              "apiVersion: v1\nkind: Pod\nmetadata: {name: bare}\nspec:\n"
              "  containers: [{name: c, image: x, envFrom: [{configMapRef: {name: cfg}}]}]\n")
    args = [f"--keep-previous={policy}"]
    rendered = run_postrender(["-v", *args], stream)
    assert rendered.status == 0, rendered.stderr
    written = {}
    for doc in YAML(typ="safe").load_all(rendered.stdout):
        template = doc.get("spec", {}).get("template", doc)
        value = ((template.get("metadata") or {}).get("annotations") or {}).get("postrender.io/refs")
        if value:
            written[doc["kind"] + "/" + doc["metadata"]["name"]] = value
    assert set(written) >= {"Deployment/web"}, rendered.stdout
    shown = json.loads(run_postrender(["graph", "-o", "json", *args], stream).stdout)["refsRecords"]
    assert {r["referrer"]["kind"] + "/" + r["referrer"]["name"]: r["value"] for r in shown} == written
    for who, value in written.items():
        assert any(line.startswith(f"postrender: set {who} ") and line.endswith(f'["postrender.io/refs"]: {value}')
                   for line in rendered.stderr.splitlines()), rendered.stderr
    table = run_postrender(["graph", *args], stream).stdout
    assert "POSTRENDER.IO/REFS AT" in table and written["Deployment/web"] in table


def test_each_name_read_is_one_edge_even_where_a_field_spec_says_it_too():
    """A Role granting a config by name is a field-spec edge and a reader of
    it: one edge, as each reader asked of every edge had it (a scan per
    reader that made thousands of them take minutes)."""
    result = _graph(FIXTURES / "graph" / "by-name", "json")
    assert result.status == 0, result.stderr
    references = json.loads(result.stdout)["references"]
    keys = [(json.dumps(r["referrer"], sort_keys=True), r["field"], json.dumps(r["target"], sort_keys=True))
            for r in references]
    assert len(keys) == len(set(keys))
    granted = [r for r in references if r["referrer"]["kind"] == "Role" and (r["target"] or {}).get("name")
               == "leader-config"]
    assert len(granted) == 1 and granted[0]["via"] == "field spec", granted


@pytest.mark.parametrize("written, looked_up", [
    ("other/cfg", "other"), ("$(POD_NAMESPACE)/cfg", "a"), ("cfg", "a"),
])
def test_a_name_read_says_the_namespace_it_is_looked_up_in(written, looked_up):
    # A program told `--foo-configmap=other/cfg` (or MY_CONFIGMAP=other/cfg)
    # reads `cfg` in `other`: the edge says so, as its target does.
    stream = "---\n".join([
        f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cfg, namespace: {looked_up}}}\ndata: {{k: v}}\n",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: a}\nspec:\n  template:\n    spec:\n"
        f"      containers:\n      - name: c\n        image: i\n        args: [--foo-configmap={written}]\n"
        f"        env: [{{name: MY_CONFIGMAP, value: \"{written}\"}}]\n",
    ])
    result = run_postrender(["graph", "-o", "json"], stream)
    assert result.status == 0, result.stderr
    read = [r for r in json.loads(result.stdout)["references"] if r["via"] == "read by name"]
    assert len(read) == 2
    for reference in read:
        assert reference["lookupNamespace"] == looked_up == reference["target"]["namespace"], reference
