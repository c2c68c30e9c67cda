"""`postrender diff` end to end: real `helm template` of the fixture chart at
two values files, one side piped in on standard input, postrender run as its
own process. Which workloads must roll is read from Helm's output by
tests/manifests.py, a reader independent of postrender's field specs.
"""

from __future__ import annotations

import base64
import json
import subprocess
from pathlib import Path

from conftest import require_tool
from manifests import CHART, all_references, base_name, documents, ident, is_hook, tool_env, venv_bin
from test_helm4 import helm, helm4  # noqa: F401 - the fixture: helm 4 with this checkout's plugin

MARKER = "LEAKMARKERE2EPASSWORD"
NEW_VALUES = ["-f", str(CHART / "values-prod.yaml"), "--set", f"database.password={MARKER}"]


def _pipe(render: list[str], diff_args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    """`render | postrender diff ARGS`, failing if either side fails."""
    producer = subprocess.Popen(render, stdout=subprocess.PIPE, env=env)
    result = subprocess.run([f"{venv_bin()}/postrender", "diff", *diff_args], stdin=producer.stdout,
                            capture_output=True, env=env)
    producer.stdout.close()
    assert producer.wait() == 0
    return result


def _expected(raw: str) -> tuple[set[str], set[str]]:
    """(what rolls, what does not) among the workloads referencing what
    values-prod.yaml and --set change: the settings ConfigMap (greeting) and
    the db Secret (password). A Job's or bare Pod's pod template is immutable
    and a Helm hook here runs before the release is applied: their
    references are left as written, so they do not roll."""
    docs = documents(raw)
    users = {ref.referrer for ref in all_references(docs)
             if (ref.kind, ref.name) in {("ConfigMap", "app-settings"), ("Secret", "app-db")}}
    held = {ident(d) for d in docs if ident(d) in users and (d["kind"] in ("Job", "Pod") or is_hook(d))}
    return users - held, held


def _held(report: dict) -> set[str]:
    return {f"{h['workload']['kind']}/{h['workload']['name']}" for h in report["doesNotRoll"] if h["workload"]}


def _no_leak(result: subprocess.CompletedProcess[bytes]) -> None:
    encoded = base64.b64encode(MARKER.encode()).decode()
    for text in (result.stdout, result.stderr):
        assert MARKER.encode() not in text and encoded.encode() not in text


def test_helm3_template_at_two_values_files_piped_into_diff(tmp_path: Path):
    helm3 = require_tool("helm3")
    env = tool_env(HELM_CACHE_HOME=str(tmp_path / "cache"), HELM_CONFIG_HOME=str(tmp_path / "config"),
                   HELM_DATA_HOME=str(tmp_path / "data"), KUBECONFIG=str(tmp_path / "no-kubeconfig"))
    old = tmp_path / "old.yaml"
    rendered = subprocess.run([helm3, "template", "app", str(CHART)], capture_output=True, text=True, env=env)
    assert rendered.returncode == 0, rendered.stderr
    old.write_text(rendered.stdout)
    new_render = [helm3, "template", "app", str(CHART), *NEW_VALUES]
    raw_new = subprocess.run(new_render, capture_output=True, text=True, env=env).stdout

    result = _pipe(new_render, ["-o", "json", "--exit-code", "-n", "default", "--show-values", str(old), "-"], env)
    assert result.returncode == 1, result.stderr  # something rolls
    _no_leak(result)
    report = json.loads(result.stdout)
    rolls = {f"{r['kind']}/{r['name']}": r for r in report["rolls"]}
    assert (set(rolls), _held(report)) == _expected(raw_new)
    assert {"Deployment/app-web", "CronJob/app-report", "StatefulSet/app-db"} <= set(rolls)
    assert "Job/app-migrate" in _held(report)
    for roll in rolls.values():
        assert roll["changedFields"] == []
        for cause in roll["because"]:
            expected = {"app-settings": ["greeting"], "app-db": ["password"]}[cause["name"]]
            assert cause["keys"]["changed"] == expected and cause["via"] == "name"
    assert rolls["Deployment/app-web"]["source"] == "app/templates/deployment.yaml"
    changes = {c["name"]: c for c in report["configChanges"]}
    assert set(changes) == {"app-settings", "app-db"}
    assert changes["app-settings"]["values"] == [{"key": "greeting", "old": "hello", "new": "bonjour"}]
    assert "values" not in changes["app-db"]

    # The same in every format, and the same bytes every time.
    for fmt in ("table", "markdown"):
        first = _pipe(new_render, ["-o", fmt, "-n", "default", "--show-values", str(old), "-"], env)
        again = _pipe(new_render, ["-o", fmt, "-n", "default", "--show-values", str(old), "-"], env)
        assert first.returncode == 0, first.stderr
        assert first.stdout == again.stdout
        _no_leak(first)


def test_helm4_post_rendered_base_against_a_raw_head(helm4, tmp_path: Path):  # noqa: F811
    """OLD is what Helm 4 deployed through the plugin (versioned names, copies,
    postrender's labels); NEW is a plain render of the change."""
    binary, env = helm4
    old = tmp_path / "old.yaml"
    old.write_text(helm(helm4, "template", "app", str(CHART), "--post-renderer", "postrender").stdout)
    assert 'postrender.io/versioned: "true"' in old.read_text()
    new_render = [binary, "template", "app", str(CHART), *NEW_VALUES]
    raw_new = helm(helm4, "template", "app", str(CHART), *NEW_VALUES).stdout

    result = _pipe(new_render, ["-o", "json", "-n", "default", str(old), "-"], env)
    assert result.returncode == 0, result.stderr.decode()
    _no_leak(result)
    report = json.loads(result.stdout)
    assert ({f"{r['kind']}/{r['name']}" for r in report["rolls"]}, _held(report)) == _expected(raw_new)
    # Matched by base name and content: the versioned names in OLD are what NEW replaces.
    old_names = {d["metadata"]["name"] for d in documents(old.read_text())}
    for change in report["configChanges"]:
        assert change["oldName"] in old_names and base_name(change["oldName"]) == change["name"]
    assert {c["name"] for c in report["configChanges"]} == {"app-settings", "app-db"}

    markdown = _pipe(new_render, ["-o", "markdown", "-n", "default", str(old), "-"], env)
    assert markdown.returncode == 0
    assert markdown.stdout.startswith(b"<!-- postrender-diff -->\n### postrender diff\n")
    _no_leak(markdown)
