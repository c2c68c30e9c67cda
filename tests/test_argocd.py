"""The Argo CD Config Management Plugin's commands, run as Argo CD runs them.

Each test takes the command straight from integrations/argocd/plugin.yaml and
runs it in a copy of the fixture chart with the environment the CMP server
provides (ARGOCD_APP_*, ARGOCD_ENV_*, PARAM_*, KUBE_*).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from conftest import ROOT, require_tool
from manifests import CHART, all_references, configs, documents, ident, tool_env, unresolved, versioned, without_copies

PLUGIN = ROOT / "integrations" / "argocd" / "plugin.yaml"


def plugin() -> dict:
    return YAML(typ="safe").load(PLUGIN.read_text())


def command(phase: str) -> list[str]:
    spec = plugin()["spec"][phase]
    return [*spec["command"], *spec.get("args", [])]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The sidecar: `helm` (Helm 3, as in the Dockerfile) and postrender on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "helm").symlink_to(require_tool("helm3"))
    base = tool_env(
        HELM_DATA_HOME=str(tmp_path / "helm" / "data"),
        HELM_CONFIG_HOME=str(tmp_path / "helm" / "config"),
        HELM_CACHE_HOME=str(tmp_path / "helm" / "cache"),
        ARGOCD_APP_NAME="shop",
        ARGOCD_APP_NAMESPACE="prod",
        ARGOCD_APP_REVISION="0123456789abcdef",
        ARGOCD_APP_SOURCE_PATH="fixtures/charts/app",
        ARGOCD_APP_SOURCE_REPO_URL="https://example.com/repo.git",
    )
    base["PATH"] = f"{bin_dir}:{base['PATH']}"
    return base


@pytest.fixture
def app(tmp_path: Path) -> Path:
    """The application source directory Argo CD hands the plugin."""
    target = tmp_path / "app"
    shutil.copytree(CHART, target)
    return target


def run(phase: str, app: Path, env: dict[str, str], **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command(phase), cwd=app, env={**env, **extra}, capture_output=True, text=True, timeout=120)


def test_plugin_definition():
    data = plugin()
    assert data["apiVersion"] == "argoproj.io/v1alpha1" and data["kind"] == "ConfigManagementPlugin"
    assert data["metadata"]["name"] == "postrender"
    script = command("generate")[-1]
    assert command("generate")[:2] == ["bash", "-c"]
    assert "set -euo pipefail" in script
    assert 'helm template "$ARGOCD_APP_NAME" . --namespace "$ARGOCD_APP_NAMESPACE"' in script
    assert 'postrender --namespace "$ARGOCD_APP_NAMESPACE"' in script
    (param,) = data["spec"]["parameters"]["static"]
    assert param["name"] == "values-files" and param["collectionType"] == "array"


def test_generate_renders_the_chart_with_argo_cds_environment(app, env):
    result = run("generate", app, env)
    assert result.returncode == 0, result.stderr
    every = documents(result.stdout)
    docs = without_copies(every)
    assert len(docs) == 14
    assert unresolved(every) == []  # hooks included: the whole helm output went through postrender
    assert all(versioned(d) for d in configs(docs).values())
    assert {d["metadata"]["labels"]["postrender.io/base-name"] for d in configs(docs).values()} >= {"shop-settings"}
    worker = next(d for d in docs if ident(d) == "Deployment/shop-worker")
    assert worker["metadata"]["namespace"] == "prod"
    # ARGOCD_APP_NAMESPACE reached postrender: no cross-namespace guess was needed.
    assert "warning" not in result.stderr


def test_kube_version_from_argo_cd_selects_the_cronjob_api(app, env):
    modern = documents(run("generate", app, env).stdout)
    old = run("generate", app, env, KUBE_VERSION="1.20.2", KUBE_API_VERSIONS="v1,apps/v1,batch/v1,batch/v1beta1")
    assert old.returncode == 0, old.stderr
    api = {ident(d): d["apiVersion"] for d in documents(old.stdout)}
    assert api["CronJob/shop-report"] == "batch/v1beta1"
    assert {ident(d): d["apiVersion"] for d in modern}["CronJob/shop-report"] == "batch/v1"


def _settings(out: str) -> dict:
    (settings,) = [d for (_, n), d in configs(documents(out)).items() if n.startswith("shop-settings-")]
    return settings


@pytest.mark.parametrize("how", ["parameter", "plugin-env"])
def test_values_files(app, env, how):
    default = _settings(run("generate", app, env).stdout)
    extra = {"PARAM_VALUES_FILES_0": "values-prod.yaml"} if how == "parameter" else {
        "ARGOCD_ENV_VALUES_FILES": "values.yaml, values-prod.yaml"
    }
    result = run("generate", app, env, **extra)
    assert result.returncode == 0, result.stderr
    prod = _settings(result.stdout)
    assert prod["data"]["greeting"] == "bonjour" and default["data"]["greeting"] == "hello"
    assert prod["metadata"]["name"] != default["metadata"]["name"]
    users = {r.referrer for r in all_references(documents(result.stdout)) if r.name == prod["metadata"]["name"]}
    assert users == {"Deployment/shop-web", "CronJob/shop-report"}
    # The pre-upgrade hook runs before the new version exists: it keeps the
    # unsuffixed copy, which holds the previous release's data until applied.
    hook_refs = {r.name for r in all_references(documents(result.stdout)) if r.referrer == "Job/shop-migrate"}
    assert hook_refs == {"shop-settings"}


def test_a_postrender_failure_yields_no_manifest(app, env):
    (app / "broken.yaml").write_text(
        "extraManifests:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: bad}\n  data: {count: 3}\n"
    )
    result = run("generate", app, env, PARAM_VALUES_FILES_0="broken.yaml")
    assert result.returncode != 0
    assert result.stdout == ""
    assert "data.count must be a string" in result.stderr


def test_a_helm_failure_yields_no_manifest(app, env):
    result = run("generate", app, env, PARAM_VALUES_FILES_0="missing.yaml")
    assert result.returncode != 0 and result.stdout == ""


@pytest.mark.parametrize("path", ["../outside.yaml", "/etc/passwd", "values/../../x.yaml"])
def test_values_files_must_stay_inside_the_application(app, env, path):
    result = run("generate", app, env, ARGOCD_ENV_VALUES_FILES=path)
    assert result.returncode != 0 and result.stdout == ""
    assert "relative path inside the application" in result.stderr


def test_init_builds_dependencies_only_when_missing(app, env, tmp_path):
    before = sorted(p.relative_to(app) for p in app.rglob("*"))
    vendored = run("init", app, env)
    assert vendored.returncode == 0, vendored.stderr
    assert sorted(p.relative_to(app) for p in app.rglob("*")) == before

    # The same dependency fetched from a repository instead of vendored.
    shutil.rmtree(app / "charts")
    chart = app / "Chart.yaml"
    declared = "  - name: worker\n    version: 0.1.0\n"
    assert declared in chart.read_text()
    chart.write_text(
        chart.read_text().replace(declared, declared + f"    repository: file://{CHART / 'charts' / 'worker'}\n")
    )
    built = run("init", app, env)
    assert built.returncode == 0, built.stderr
    assert (app / "charts" / "worker-0.1.0.tgz").is_file()
    result = run("generate", app, env)
    assert result.returncode == 0, result.stderr
    assert "Deployment/shop-worker" in {ident(d) for d in documents(result.stdout)}
