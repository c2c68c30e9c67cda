"""Under Helm, `--retain` reads the cluster, namespace and release Helm was
told, not the kubeconfig's current context: the current context here points
at a dead server (and another namespace), while Helm is given `--kube-context
live -n NS`, and the chart labels nothing with app.kubernetes.io/instance."""

from __future__ import annotations

import subprocess

import pytest

from conftest import require_tool

from .controlplane import ADMIN_TOKEN, free_port
from .kit import CHART, HELM4_PLUGIN, Kube, postrender_exe

HELM = [pytest.param(3, id="helm3"), pytest.param(4, id="helm4")]
RELEASE = "rel"


def _two_contexts(kube: Kube) -> str:
    """A kubeconfig whose current context is a dead server; `live` is the real one."""
    path = kube.home / "two-contexts.kubeconfig"
    ca = kube.plane.ca
    path.write_text(f"""apiVersion: v1
kind: Config
clusters:
- name: live
  cluster: {{server: "{kube.plane.server}", certificate-authority: "{ca}"}}
- name: dead
  cluster: {{server: "https://127.0.0.1:{free_port()}", certificate-authority: "{ca}"}}
users:
- name: admin
  user: {{token: {ADMIN_TOKEN}}}
contexts:
- name: live
  context: {{cluster: live, user: admin}}
- name: dead
  context: {{cluster: dead, user: admin, namespace: wrong}}
current-context: dead
""")
    path.chmod(0o600)
    return str(path)


def _helm(kube: Kube, major: int, *args: str, retain: str = "--retain=2",
          extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    renderer = postrender_exe() if major == 3 else HELM4_PLUGIN
    env = {**kube.env, **kube._helm_env(major), "KUBECONFIG": _two_contexts(kube)}
    command = [require_tool(f"helm{major}"), *args, "--post-renderer", renderer,
               f"--post-renderer-args={retain}", *extra]
    # A new session: no controlling terminal, so diagnostics go to Helm's cache log.
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=180, start_new_session=True)


def _deploy(kube: Kube, major: int, verb: str, greeting: str) -> None:
    result = _helm(kube, major, verb, RELEASE, str(CHART), "--kube-context", "live", "-n", kube.namespace,
                   "--set", f"config.greeting={greeting}", "--set", "instanceLabel=false",
                   "--set", "statefulset=false", "--set", "cronjob=false")
    assert result.returncode == 0, result.stderr + result.stdout
    kube.settle(f"{RELEASE}-web")


@pytest.mark.parametrize("major", HELM)
def test_retain_uses_helms_context_namespace_and_release(kube: Kube, major: int):
    _deploy(kube, major, "install", "one")
    (first,) = kube.versions()
    _deploy(kube, major, "upgrade", "two")
    both = kube.versions()
    assert len(both) == 2 and first in both, both
    for item in kube.get("configmaps", selector="postrender.io/versioned=true")["items"]:
        labels = item["metadata"]["labels"]
        assert labels["postrender.io/scope"] == RELEASE
        assert "app.kubernetes.io/instance" not in labels
    manifest = kube.helm(major, "get", "manifest", RELEASE).stdout
    assert first in manifest, "the previous version was carried forward into the release"


@pytest.mark.parametrize("major", HELM)
def test_explicit_postrender_flags_still_win(kube: Kube, major: int):
    # Told the dead context explicitly, postrender reads it, and fails loudly.
    result = _helm(kube, major, "install", RELEASE, str(CHART), "--kube-context", "live", "-n", kube.namespace,
                   extra=("--post-renderer-args=--context=dead",))
    assert result.returncode != 0
    assert not kube.exists("configmap", f"{RELEASE}-config")
    log = (kube.home / f"helm{major}" / "cache" / "postrender" / "postrender.log").read_text()
    assert "postrender: error:" in log


@pytest.mark.parametrize("major", HELM)
def test_retain_refuses_a_cluster_it_cannot_know_for_certain(kube: Kube, major: int):
    result = _helm(kube, major, "install", RELEASE, str(CHART), "-n", kube.namespace,
                   "--kube-apiserver", kube.plane.server, "--kube-ca-file", str(kube.plane.ca),
                   "--kube-token", ADMIN_TOKEN)
    assert result.returncode != 0
    log = (kube.home / f"helm{major}" / "cache" / "postrender" / "postrender.log").read_text()
    (line,) = [line for line in log.splitlines() if line.startswith("postrender: error:")]
    assert "--retain under Helm" in line and "--kube-apiserver" in line
    assert "--post-renderer-args=--context=CONTEXT" in line
    if major == 3:  # Helm 3 shows a failing post-renderer's stderr; Helm 4 does not
        assert line in result.stderr
    assert not kube.exists("configmap", f"{RELEASE}-config")
