"""Errors and warnings reach the person running Helm or kustomize.

Helm 4 discards a post-renderer's stderr; Helm 3 and kustomize show it only
on failure. Each test runs the real tool in a pseudo-terminal, as a person
would, and reads what the terminal shows; without a terminal (CI), the lines
go to the default log in Helm's cache directory.
"""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import signal
import stat
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, require_tool
from manifests import CHART, tool_env

HELMS = [pytest.param("helm3", id="helm3"), pytest.param("helm4", id="helm4")]
MARKER = "SENSITIVE-VALUE-ZQX"
BAD_SECRET = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "broken"},
              "data": {"token": f"not*base64-{MARKER}"}}
DANGLING = {
    "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "lonely"},
    "spec": {"template": {"spec": {"containers": [
        {"name": "c", "image": "x", "envFrom": [{"configMapRef": {"name": "missing-config"}}]}]}}},
}
ERROR_LINE = "data.token is not valid base64"
WARNING_LINE = "ConfigMap 'missing-config' is not in the stream; left as is"


def run_in_terminal(argv: list[str], env: dict[str, str], cwd: Path, timeout: float = 120) -> tuple[int, str]:
    """Run `argv` with a new pseudo-terminal as its controlling terminal and
    its stdin, stdout and stderr; return the exit status and what the terminal showed."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: only exec, nothing that could touch the test process' state
        try:
            os.chdir(cwd)
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    chunks: list[bytes] = []
    try:
        while True:
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                os.kill(pid, signal.SIGKILL)
                raise AssertionError(f"{argv[0]} did not finish in {timeout}s")
            try:
                data = os.read(fd, 65536)
            except OSError:  # EIO: every process holding the terminal is gone
                break
            if not data:
                break
            chunks.append(data)
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    return os.waitstatus_to_exitcode(status), b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


@pytest.fixture
def helm_home(tmp_path) -> tuple[Path, dict[str, str]]:
    home = tmp_path / "helm"
    env = tool_env(
        HELM_DATA_HOME=str(home / "data"), HELM_PLUGINS=str(home / "data" / "plugins"),
        HELM_CONFIG_HOME=str(home / "config"), HELM_CACHE_HOME=str(home / "cache"),
        KUBECONFIG=str(home / "no-kubeconfig"), TERM="dumb",
    )
    return home, env


def _helm(binary: str, env: dict[str, str]) -> str:
    helm = require_tool(binary)
    if binary == "helm4":
        installed = subprocess.run([helm, "plugin", "install", str(ROOT)], capture_output=True, text=True, env=env)
        assert installed.returncode == 0, installed.stderr
    return helm


def _renderer(binary: str) -> str:
    # Helm 3 runs a program on PATH (the venv's postrender); Helm 4 the plugin.
    return "postrender"


def _values(tmp_path: Path, *manifests: dict) -> Path:
    values = tmp_path / "extra.yaml"
    values.write_text(json.dumps({"extraManifests": list(manifests)}))
    return values


def _default_log(home: Path) -> Path:
    return home / "cache" / "postrender" / "postrender.log"


@pytest.mark.parametrize("binary", HELMS)
def test_a_refused_chart_is_seen_once_in_the_terminal(binary, helm_home, tmp_path):
    home, env = helm_home
    helm = _helm(binary, env)
    status, screen = run_in_terminal(
        [helm, "template", "app", str(CHART), "-f", str(_values(tmp_path, BAD_SECRET)),
         "--post-renderer", _renderer(binary)], env, tmp_path)
    assert status != 0
    assert screen.count(ERROR_LINE) == 1, screen
    assert "postrender: error: document" in screen
    assert MARKER not in screen
    # The default log has it too, with a separator line naming the run.
    log = _default_log(home).read_text()
    assert ERROR_LINE in log and MARKER not in log
    assert log.startswith("--- ") and f"under helm {binary[-1]} template: release app, namespace default" in log.splitlines()[0]
    assert stat.S_IMODE(_default_log(home).stat().st_mode) == 0o600


@pytest.mark.parametrize("binary", HELMS)
def test_a_warning_on_success_is_seen_in_the_terminal(binary, helm_home, tmp_path):
    home, env = helm_home
    helm = _helm(binary, env)
    status, screen = run_in_terminal(
        [helm, "template", "app", str(CHART), "-f", str(_values(tmp_path, DANGLING)),
         "--post-renderer", _renderer(binary)], env, tmp_path)
    assert status == 0, screen
    assert screen.count(WARNING_LINE) == 1, screen
    assert "kind: Deployment" in screen  # Helm's own output is there as usual


@pytest.mark.parametrize("binary", HELMS)
def test_without_a_terminal_the_default_log_has_each_run(binary, helm_home, tmp_path):
    home, env = helm_home
    helm = _helm(binary, env)
    command = [helm, "template", "app", str(CHART), "-f", str(_values(tmp_path, DANGLING)),
               "--post-renderer", _renderer(binary)]
    for _ in range(2):
        # A new session has no controlling terminal: as in CI.
        result = subprocess.run(command, capture_output=True, text=True, env=env, start_new_session=True)
        assert result.returncode == 0, result.stderr
        assert WARNING_LINE not in result.stdout + result.stderr
    lines = _default_log(home).read_text().splitlines()
    separators = [line for line in lines if line.startswith("--- ")]
    assert len(separators) == 2 and all(line.endswith(" ---") for line in separators)
    assert separators[0][4:24] <= separators[1][4:24]  # ISO timestamps, in order
    assert sum(WARNING_LINE in line for line in lines) == 2

    # A clean run adds nothing; an explicit --log-file takes the place of the default one.
    before = _default_log(home).read_text()
    clean = subprocess.run([helm, "template", "app", str(CHART), "--post-renderer", _renderer(binary)],
                           capture_output=True, text=True, env=env, start_new_session=True)
    assert clean.returncode == 0
    explicit = tmp_path / "mine.log"
    subprocess.run([*command, f"--post-renderer-args=--log-file={explicit}"], capture_output=True, env=env,
                   start_new_session=True, check=True)
    assert _default_log(home).read_text() == before
    assert WARNING_LINE in explicit.read_text() and explicit.read_text().startswith("--- ")


@pytest.mark.parametrize("binary", HELMS)
def test_the_default_log_never_follows_a_symlink(binary, helm_home, tmp_path):
    home, env = helm_home
    helm = _helm(binary, env)
    target = tmp_path / "precious"
    target.write_text("keep\n")
    target.chmod(0o644)
    _default_log(home).parent.mkdir(parents=True)
    _default_log(home).symlink_to(target)
    result = subprocess.run(
        [helm, "template", "app", str(CHART), "-f", str(_values(tmp_path, DANGLING)), "--post-renderer",
         _renderer(binary)], capture_output=True, text=True, env=env, start_new_session=True)
    assert result.returncode == 0, result.stderr  # a log that cannot be written never fails a deploy
    assert target.read_text() == "keep\n" and stat.S_IMODE(target.stat().st_mode) == 0o644


def test_kustomize_plugin_warnings_and_errors_reach_the_terminal(tmp_path):
    kubectl = require_tool("kubectl")
    plugin_home = tmp_path / "plugins"
    target = plugin_home / "postrender.io" / "v1alpha1" / "postrender" / "PostRender"
    target.parent.mkdir(parents=True)
    shutil.copy2(ROOT / "integrations" / "kustomize" / "postrender.io" / "v1alpha1" / "postrender" / "PostRender",
                 target)
    app = tmp_path / "app"
    app.mkdir()
    (app / "kustomization.yaml").write_text("resources: [app.yaml]\ntransformers: [postrender.yaml]\n")
    (app / "postrender.yaml").write_text("apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {name: p}\n")
    (app / "app.yaml").write_text(json.dumps(DANGLING))
    env = tool_env(KUSTOMIZE_PLUGIN_HOME=str(plugin_home), XDG_CACHE_HOME=str(tmp_path / "cache"), TERM="dumb")
    status, screen = run_in_terminal([kubectl, "kustomize", "--enable-alpha-plugins", str(app)], env, tmp_path)
    assert status == 0 and screen.count(WARNING_LINE) == 1, screen
    assert WARNING_LINE in (tmp_path / "cache" / "postrender" / "postrender.log").read_text()

    (app / "app.yaml").write_text(json.dumps(BAD_SECRET))
    status, screen = run_in_terminal([kubectl, "kustomize", "--enable-alpha-plugins", str(app)], env, tmp_path)
    # kustomize shows a failing plugin's stderr itself: once, not twice.
    assert status != 0 and screen.count(ERROR_LINE) == 1, screen
    assert MARKER not in screen


def test_a_plain_run_leaves_the_terminal_alone(tmp_path):
    """Outside Helm and kustomize, stderr is where the user sent it: a run
    whose stderr goes to a file writes nothing on the terminal."""
    postrender = shutil.which("postrender", path=tool_env()["PATH"])
    stream = tmp_path / "in.yaml"
    stream.write_text(json.dumps(DANGLING))
    script = tmp_path / "run.sh"
    script.write_text(f'#!/bin/sh\n"{postrender}" "{stream}" >/dev/null 2>"{tmp_path}/err"\n')
    script.chmod(0o755)
    status, screen = run_in_terminal([str(script)], tool_env(HOME=str(tmp_path)), tmp_path)
    assert status == 0
    assert WARNING_LINE in (tmp_path / "err").read_text()
    assert WARNING_LINE not in screen
    assert not (tmp_path / ".cache" / "postrender").exists()
