"""`--retain` and gc read the cluster kubectl and Helm use when $KUBECONFIG
lists several files: client-go takes the first file's current-context, the
Python client alone would take the last one's. kubectl is the oracle."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import require_tool, run_cli

from .controlplane import ADMIN_TOKEN, free_port
from .kit import CHART, Kube, version_manifest


def _kubeconfig(path: Path, current: str | None, clusters: dict[str, str], contexts: dict[str, tuple[str, str]],
                ca: Path | None = None, token: str = "t") -> Path:
    """contexts: name -> (cluster, namespace)."""
    authority = f", certificate-authority: \"{ca}\"" if ca else ""
    text = "apiVersion: v1\nkind: Config\n"
    if current is not None:
        text += f"current-context: \"{current}\"\n"
    text += "clusters:\n" + "".join(
        f"- name: {name}\n  cluster: {{server: \"{server}\"{authority}}}\n" for name, server in clusters.items())
    text += "contexts:\n" + "".join(
        f"- name: {name}\n  context: {{cluster: {cluster}, user: u, namespace: {ns}}}\n"
        for name, (cluster, ns) in contexts.items())
    text += f"users:\n- name: u\n  user: {{token: {token}}}\n"
    path.write_text(text)
    path.chmod(0o600)
    return path


def _dead() -> str:
    return f"https://127.0.0.1:{free_port()}"


def _layouts(tmp_path: Path) -> dict[str, str]:
    """$KUBECONFIG lists where the Python client's merge and client-go's differ."""
    both_current = (
        _kubeconfig(tmp_path / "a1", "prod", {"prod": _dead()}, {"prod": ("prod", "from-prod")}),
        _kubeconfig(tmp_path / "b1", "staging", {"staging": _dead()}, {"staging": ("staging", "from-staging")}),
    )
    # An empty current-context does not count; the same names in two files:
    # the first definition wins, whole.
    empty_first = (
        _kubeconfig(tmp_path / "a2", "", {"shared": _dead()}, {"ctx": ("shared", "from-a")}),
        _kubeconfig(tmp_path / "b2", "ctx", {"shared": _dead()}, {"ctx": ("shared", "from-b")}),
        _kubeconfig(tmp_path / "c2", "other", {"other": _dead()}, {"other": ("other", "from-c")}),
    )
    return {name: ":".join(map(str, files)) for name, files in
            (("both set current-context", both_current), ("first sets it empty", empty_first))}


def test_the_context_is_the_one_kubectl_uses(tmp_path):
    kubectl = require_tool("kubectl")
    for layout, listing in _layouts(tmp_path).items():
        env = {"KUBECONFIG": listing, "HOME": str(tmp_path)}
        view = json.loads(_run([kubectl, "config", "view", "--minify", "-o", "json"], env))
        server = view["clusters"][0]["cluster"]["server"]
        namespace = view["contexts"][0]["context"]["namespace"]
        result = run_cli(["gc", "-v", "--min-age", "0"], env=env, timeout=60)
        assert result.status == 1 and result.stdout == "", (layout, result.stderr)
        assert f"collecting in {namespace}\n" in result.stderr, (layout, result.stderr)
        assert re.search(rf"cannot reach the cluster at {re.escape(server)}\b", result.stderr), (layout, server,
                                                                                                result.stderr)


def test_retain_and_gc_read_the_first_files_cluster(kube: Kube):
    kube.kubectl("apply", "-f", "-", input=version_manifest("cfg-aaaaaaaaaa"))
    live = _kubeconfig(kube.home / "a.kubeconfig", "prod", {"prod": kube.plane.server},
                       {"prod": ("prod", kube.namespace)}, ca=kube.plane.ca, token=ADMIN_TOKEN)
    dead = _kubeconfig(kube.home / "b.kubeconfig", "staging", {"staging": _dead()},
                       {"staging": ("staging", "elsewhere")})
    env = {"KUBECONFIG": f"{live}:{dead}"}
    assert kube.kubectl("config", "current-context", env=env).stdout.strip() == "prod"

    gc = kube.postrender(["gc", "--min-age", "0", "-o", "json"], env=env)
    assert gc.status == 0, gc.stderr
    assert [i["name"] for i in json.loads(gc.stdout)["items"]] == ["cfg-aaaaaaaaaa"]

    template = kube.helm(3, "template", "rel", str(CHART), "--set", "statefulset=false").stdout
    rendered = kube.postrender(["--retain=2", f"--namespace={kube.namespace}"], template, env=env)
    assert rendered.status == 0, rendered.stderr


def _run(argv: list[str], env: dict[str, str]) -> str:
    proc = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, **env}, timeout=60)
    if proc.returncode:
        pytest.fail(f"{' '.join(argv)}: {proc.stderr}")
    return proc.stdout


def test_an_insecure_cluster_is_read_quietly_and_one_without_a_server_is_one_line(kube: Kube):
    # insecure-skip-tls-verify: as kubectl, no word of it per request (urllib3
    # warned on every one); a cluster entry without a server is said so.
    kube.kubectl("apply", "-f", "-", input=version_manifest("cfg-aaaaaaaaaa"))
    text = (f"apiVersion: v1\nkind: Config\ncurrent-context: x\n"
            f"clusters: [{{name: c, cluster: {{server: '{kube.plane.server}', insecure-skip-tls-verify: true}}}}]\n"
            f"users: [{{name: u, user: {{token: {ADMIN_TOKEN}}}}}]\n"
            f"contexts: [{{name: x, context: {{cluster: c, user: u, namespace: {kube.namespace}}}}}]\n")
    insecure = kube.home / "insecure.kubeconfig"
    insecure.write_text(text)
    gc = kube.postrender(["gc", f"--kubeconfig={insecure}", "--min-age", "0"])
    assert gc.status == 0 and "cfg-aaaaaaaaaa" in gc.stdout, gc.stderr
    assert gc.stderr == "", gc.stderr
    serverless = kube.home / "serverless.kubeconfig"
    serverless.write_text(text.replace(f"server: '{kube.plane.server}', ", ""))
    for argv in (["gc", f"--kubeconfig={serverless}"],
                 ["--retain=2", f"--namespace={kube.namespace}", f"--kubeconfig={serverless}"]):
        failed = kube.postrender(argv, version_manifest("cfg-bbbbbbbbbb"))
        assert failed.status == 1 and failed.stdout == "", failed.stderr
        (line,) = failed.stderr.splitlines()
        assert line == "postrender: error: the kubeconfig's cluster of context 'x' has no server", line
