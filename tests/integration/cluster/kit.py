"""Helpers for the control-plane tests: kubectl, helm 3/4 and postrender
against one namespace, and a second opinion on what references what."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from conftest import ROOT, Run, require_tool, run_cli

from .controlplane import ADMIN_TOKEN, GC_TOKEN, GC_USER, ControlPlane

CHART = ROOT / "fixtures" / "retention" / "app"
HELM4_PLUGIN = "postrender-retention-test"
# Kinds whose objects hold a pod template or a copy of one; the oracle below
# reads them as plain JSON, independently of postrender's field specs.
HOLDER_KINDS = ("pods", "replicasets", "replicationcontrollers", "controllerrevisions", "deployments",
                "statefulsets", "daemonsets", "jobs", "cronjobs")


def postrender_exe() -> str:
    exe = Path(sys.executable).parent / "postrender"
    assert exe.exists(), f"{exe} missing: install postrender into this venv (scripts/setup)"
    return str(exe)


@dataclass
class Kube:
    plane: ControlPlane
    namespace: str
    home: Path
    kubeconfig: Path
    env: dict[str, str] = field(default_factory=dict)

    # -- kubectl ---------------------------------------------------------

    def kubectl(self, *args: str, namespace: str | None = None, check: bool = True,
                input: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        ns = namespace or self.namespace
        cmd = [require_tool("kubectl"), *(["-n", ns] if ns else []), *args]
        proc = subprocess.run(cmd, capture_output=True, text=True, input=input, env={**self.env, **(env or {})},
                              timeout=120)
        if check:
            assert proc.returncode == 0, f"kubectl {' '.join(args)}: {proc.stderr}{proc.stdout}"
        return proc

    def get(self, resource: str, name: str | None = None, namespace: str | None = None,
            selector: str | None = None) -> dict:
        args = ["get", resource] + ([name] if name else []) + (["-l", selector] if selector else []) + ["-o", "json"]
        return json.loads(self.kubectl(*args, namespace=namespace).stdout)

    def names(self, resource: str, selector: str | None = None, namespace: str | None = None) -> set[str]:
        return {i["metadata"]["name"] for i in self.get(resource, selector=selector, namespace=namespace)["items"]}

    def versions(self, kind: str = "configmaps", namespace: str | None = None) -> set[str]:
        return self.names(kind, "postrender.io/versioned=true", namespace)

    def exists(self, resource: str, name: str, namespace: str | None = None) -> bool:
        proc = self.kubectl("get", resource, name, "-o", "name", namespace=namespace, check=False)
        return proc.returncode == 0

    def new_namespace(self, hint: str) -> str:
        name = _namespace_name(hint)
        self.kubectl("create", "namespace", name)
        return name

    def referenced(self, names: set[str], namespace: str | None = None) -> dict[str, list[str]]:
        """Which of `names` some holder object mentions as a whole JSON
        string — a second opinion that knows no field paths at all."""
        found: dict[str, list[str]] = {}
        for resource in HOLDER_KINDS:
            for item in self.get(resource, namespace=namespace)["items"]:
                strings = set(re.findall(r'"((?:[^"\\]|\\.)*)"', json.dumps(item)))
                for name in names & strings:
                    found.setdefault(name, []).append(f"{item['kind']}/{item['metadata']['name']}")
        return found

    def wait(self, condition, what: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return
            time.sleep(0.5)
        raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")

    def settle(self, deployment: str, namespace: str | None = None) -> None:
        """Wait until the Deployment controller has acted on the latest spec:
        observed it, and trimmed history to revisionHistoryLimit (a sync
        after the one that records observedGeneration does that)."""
        def done() -> bool:
            d = self.get("deployment", deployment, namespace=namespace)
            if d.get("status", {}).get("observedGeneration") != d["metadata"]["generation"]:
                return False
            if d["spec"].get("replicas"):
                # Pods stay Pending, so the rollout never completes and the
                # controller never trims history: nothing more to wait for.
                return True
            owned = [rs for rs in self.get("replicasets", namespace=namespace)["items"]
                     if any(o.get("uid") == d["metadata"]["uid"] for o in rs["metadata"].get("ownerReferences", []))]
            # With 0 replicas every ReplicaSet is idle; the current one is not history.
            return len(owned) <= d["spec"].get("revisionHistoryLimit", 10) + 1
        self.wait(done, f"deployment {deployment} to be observed")

    def settle_statefulset(self, name: str) -> None:
        """Wait until the StatefulSet controller has recorded the latest
        template as a ControllerRevision."""
        def done() -> bool:
            s = self.get("statefulset", name)
            return s.get("status", {}).get("observedGeneration") == s["metadata"]["generation"]
        self.wait(done, f"statefulset {name} to be observed")

    # -- postrender ------------------------------------------------------

    def postrender(self, args: list[str], stdin: str = "", env: dict[str, str] | None = None) -> Run:
        return run_cli(args, stdin, env={**self.env, **(env or {})}, timeout=120)

    # -- helm ------------------------------------------------------------

    def helm(self, major: int, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        helm = require_tool(f"helm{major}")
        env = {**self.env, **self._helm_env(major)}
        proc = subprocess.run([helm, *args, "--namespace", self.namespace], capture_output=True, text=True,
                              env=env, timeout=180)
        if check:
            assert proc.returncode == 0, f"helm{major} {' '.join(args)}:\n{proc.stderr}{proc.stdout}"
        return proc

    def post_renderer(self, major: int, *args: str) -> list[str]:
        """Flags that make helm run postrender with `args`. Helm 4 names a
        plugin and passes no namespace; both get it explicitly."""
        exe = postrender_exe() if major == 3 else HELM4_PLUGIN
        out = ["--post-renderer", exe]
        for arg in (*args, f"--namespace={self.namespace}", f"--log-file={self.home / 'postrender.log'}"):
            out.append(f"--post-renderer-args={arg}")
        return out

    def _helm_env(self, major: int) -> dict[str, str]:
        base = self.home / f"helm{major}"
        plugins = base / "plugins"
        if major == 4 and not (plugins / HELM4_PLUGIN / "plugin.yaml").exists():
            (plugins / HELM4_PLUGIN).mkdir(parents=True)
            (plugins / HELM4_PLUGIN / "plugin.yaml").write_text(
                "apiVersion: v1\n"
                f"name: {HELM4_PLUGIN}\n"
                "type: postrenderer/v1\n"
                "runtime: subprocess\n"
                "version: 0.1.0\n"
                "runtimeConfig:\n"
                "  platformCommand:\n"
                f"    - command: {postrender_exe()}\n"
            )
        plugins.mkdir(parents=True, exist_ok=True)
        return {
            "HELM_DATA_HOME": str(base / "data"),
            "HELM_CONFIG_HOME": str(base / "config"),
            "HELM_CACHE_HOME": str(base / "cache"),
            "HELM_PLUGINS": str(plugins),
        }

    def log(self) -> str:
        path = self.home / "postrender.log"
        return path.read_text() if path.exists() else ""


def _namespace_name(hint: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", hint.lower()).strip("-")[:40].strip("-")
    return f"{slug or 't'}-{secrets.token_hex(3)}"


def make_kube(plane: ControlPlane, home: Path, test_name: str) -> Kube:
    kubeconfig = plane.write_kubeconfig(home / "kubeconfig", ADMIN_TOKEN)
    env = {
        **os.environ,
        "KUBECONFIG": str(kubeconfig),
        "HOME": str(home),
        "POSTRENDER_LOG_FILE": "",
        "HELM_NAMESPACE": "",
    }
    env.pop("HELM_NAMESPACE")
    kube = Kube(plane, "", home, kubeconfig, env)
    kube.namespace = kube.new_namespace(test_name)
    return kube


def gc_kubeconfig(kube: Kube) -> Path:
    """A kubeconfig for a user whose only rights are integrations/gc/rbac.yaml's."""
    kube.kubectl("apply", "-f", str(ROOT / "integrations" / "gc" / "rbac.yaml"), namespace="postrender-gc")
    kube.kubectl("create", "clusterrolebinding", f"gc-user-{kube.namespace}", "--clusterrole=postrender-gc",
                 f"--user={GC_USER}")
    return kube.plane.write_kubeconfig(kube.home / "gc.kubeconfig", GC_TOKEN, user=GC_USER)


def version_manifest(name: str, base: str = "cfg", scope: str = "s") -> str:
    """A versioned ConfigMap as postrender renders one."""
    return (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
        f"  name: {name}\n  labels:\n    postrender.io/versioned: \"true\"\n"
        f"    postrender.io/base-name: {base}\n    postrender.io/scope: {scope}\n"
        "immutable: true\ndata:\n  a: b\n"
    )
