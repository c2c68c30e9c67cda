"""The release, as .github/workflows/release.yml runs it: scripts/release
builds the sdist and wheel, installs the package in a fresh virtualenv and
runs tests from the unpacked sdist (--quick: a subset), packages the Helm
plugin, and builds the images (skipped, saying so, without a Docker engine)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from conftest import FIXTURES, ROOT, require_tool

from postrender import __version__

DIST = ROOT / "dist"


def test_release_script_builds_tests_and_packages(tmp_path):
    helm4 = require_tool("helm4")
    require_tool("docker")  # the image step asks it whether an engine is there
    done = subprocess.run([str(ROOT / "scripts" / "release"), "--quick"], capture_output=True, text=True,
                          timeout=1200, env={**os.environ, "PYTHON": sys.executable})
    assert done.returncode == 0, done.stderr[-4000:]
    log = done.stderr
    assert f"release: check: version {__version__} everywhere" in log
    assert re.search(r"^\d+ passed", done.stdout, re.M), done.stdout[-2000:]
    assert f"release: plugin: dist/postrender-{__version__}.tgz" in log
    assert ("release: image: skipped: no Docker engine here" in log) != ("release: image: building" in log)
    assert "release: done: check build test plugin image" in log

    with tarfile.open(DIST / f"postrender-{__version__}.tar.gz") as sdist:
        names = set(sdist.getnames())
    prefix = f"postrender-{__version__}/"
    for needed in ("tests/conftest.py", "fixtures/golden", "fixtures/charts/app/Chart.yaml", "LICENSE",
                   "CHANGELOG.md", "pyproject.toml", "scripts/release", ".github/workflows/release.yml"):
        assert prefix + needed in names, needed
    assert not any("__pycache__" in n or "/.venv/" in n for n in names)

    # The plugin archive installs into Helm 4 and runs its own copy of the
    # source: no postrender on PATH, only a python3 that has ruamel.yaml.
    home = tmp_path / "helm"
    only_python = tmp_path / "only-python"
    only_python.mkdir()
    # A wrapper, not a symlink: a venv's python found through a symlink elsewhere loses its venv.
    (only_python / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (only_python / "python3").chmod(0o755)
    env = {
        "HOME": str(home), "HELM_DATA_HOME": str(home / "data"), "HELM_PLUGINS": str(home / "data" / "plugins"),
        "HELM_CONFIG_HOME": str(home / "config"), "HELM_CACHE_HOME": str(home / "cache"),
        "PATH": f"{only_python}:/usr/bin:/bin", "KUBECONFIG": str(home / "none"),
        "POSTRENDER_LOG_FILE": str(tmp_path / "log"),
    }
    installed = subprocess.run([helm4, "plugin", "install", str(DIST / f"postrender-{__version__}.tgz"),
                                "--verify=false"], capture_output=True, text=True, env=env)
    assert installed.returncode == 0, installed.stderr
    plugin_dir = home / "data" / "plugins" / "postrender"
    assert (plugin_dir / "postrender" / "cli.py").exists() and (plugin_dir / "LICENSE").exists()
    rendered = subprocess.run([helm4, "template", "app", str(FIXTURES / "charts" / "app"), "--post-renderer",
                               "postrender"], capture_output=True, text=True, env=env)
    log = (tmp_path / "log").read_text() if (tmp_path / "log").exists() else ""
    assert rendered.returncode == 0, rendered.stderr + log
    assert "postrender.io/content-hash" in rendered.stdout


def test_workflow_runs_the_release_script():
    workflow = YAML(typ="safe").load((ROOT / ".github" / "workflows" / "release.yml").read_text())
    assert workflow["on"]["push"]["tags"] == ["v*"]
    runs = [step.get("run", "") for job in workflow["jobs"].values() for step in job["steps"]]
    for step in ("check", "build", "test", "plugin", "image --push"):
        assert any(re.search(rf"scripts/release {re.escape(step)}\b", run) for run in runs), step
    publish = workflow["jobs"]["publish"]
    assert publish["permissions"]["id-token"] == "write"
    (upload,) = [s for s in publish["steps"] if s.get("uses", "").startswith("pypa/gh-action-pypi-publish")]
    assert "with" not in upload or "password" not in upload["with"], "trusted publishing: no token"


def _dockerfiles() -> list[Path]:
    return sorted((ROOT / "integrations").glob("*/Dockerfile"))


@pytest.mark.parametrize("dockerfile", _dockerfiles(), ids=lambda p: p.parent.name)
def test_images_download_nothing_but_packages(dockerfile):
    text = dockerfile.read_text()
    assert not re.search(r"\b(curl|wget)\b|^ADD\s+https?:", text, re.M | re.I), "only package registries"
    runs = re.findall(r"^RUN (.*?)(?<!\\)$", text, re.M | re.S)
    for run in runs:
        fetching = re.findall(r"\b(pip|apt-get|tools)\b", run)
        assert fetching or "useradd" in run, run


@pytest.mark.parametrize("dockerfile", _dockerfiles(), ids=lambda p: p.parent.name)
def test_build_context_keeps_what_images_copy(dockerfile):
    allowed = [line[1:].rstrip("/") for line in (ROOT / ".dockerignore").read_text().splitlines()
               if line.startswith("!")]
    assert "**" in (ROOT / ".dockerignore").read_text().splitlines(), "everything else is left out"
    for sources in re.findall(r"^COPY (?:--\S+ )*(.+) \S+$", dockerfile.read_text(), re.M):
        for source in sources.split():
            assert (ROOT / source).exists(), source
            assert any(source == a or source.startswith(a + "/") for a in allowed), source


def test_the_argocd_images_helm_step_works_here(tmp_path):
    """What `RUN ... /tmp/tools helm3` does in the image, without Docker."""
    done = subprocess.run([str(ROOT / "scripts" / "tools"), "helm3"], capture_output=True, text=True,
                          env={**os.environ, "POSTRENDER_TOOLS_CACHE": str(tmp_path)}, timeout=600)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "bin").iterdir()) == ["helm3"]
    version = subprocess.run([tmp_path / "bin" / "helm3", "version", "--short"], capture_output=True, text=True)
    assert version.stdout.startswith("v3.17.2")


def test_not_installed_message_is_true(tmp_path):
    """bin/postrender (the Helm plugin's command) says how to install what it has."""
    sh = require_tool("sh")
    # A PATH with the shell's tools but neither postrender nor a python3.
    for tool in ("dirname",):
        (tmp_path / tool).symlink_to(require_tool(tool))
    done = subprocess.run([sh, str(ROOT / "bin" / "postrender")], capture_output=True, text=True,
                          env={"PATH": str(tmp_path)}, input="")
    assert done.returncode == 127
    match = re.search(r"pipx install '([^']+)'", done.stderr)
    assert match and (Path(match.group(1)) / "pyproject.toml").exists(), done.stderr
