"""Reading rendered manifests in integration tests, independently of postrender.

The reference paths here are written out by hand, not taken from
postrender's field specs, so a test built on them checks postrender's
output against a second opinion.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parent.parent
CHART = ROOT / "fixtures" / "charts" / "app"
HELM4_FILENAME = "postrenderer.helm.sh/postrender-filename"
HOOK = "helm.sh/hook"
_HASHED = re.compile(r"^(?P<base>.+)-(?P<hash>[a-z0-9]{10})$")

POD_SPEC_PATHS = {
    "Pod": ("spec",),
    "Deployment": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}


@dataclass(frozen=True)
class Ref:
    referrer: str  # Kind/name
    kind: str  # ConfigMap or Secret
    name: str
    where: str


def documents(text: str) -> list[dict[str, Any]]:
    return [d for d in YAML(typ="safe").load_all(text) if isinstance(d, dict)]


def without_copies(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The documents less postrender's unsuffixed keep-original copies."""
    return [d for d in docs if "postrender.io/copy-of" not in (d.get("metadata", {}).get("annotations") or {})]


def ident(doc: dict[str, Any]) -> str:
    return f"{doc['kind']}/{doc['metadata']['name']}"


def is_hook(doc: dict[str, Any]) -> bool:
    return HOOK in (doc.get("metadata", {}).get("annotations") or {})


def configs(docs: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (d["kind"], d["metadata"]["name"]): d
        for d in docs
        if d.get("apiVersion") == "v1" and d.get("kind") in ("ConfigMap", "Secret")
    }


def workloads(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [d for d in docs if d.get("kind") in POD_SPEC_PATHS]


def pod_spec(doc: dict[str, Any]) -> dict[str, Any]:
    node: Any = doc
    for key in POD_SPEC_PATHS[doc["kind"]]:
        node = node[key]
    return node


def references(doc: dict[str, Any]) -> list[Ref]:
    if doc.get("kind") not in POD_SPEC_PATHS:
        return []
    spec = pod_spec(doc)
    who = ident(doc)
    refs: list[Ref] = []

    def add(kind: str, name: Any, where: str) -> None:
        if isinstance(name, str):
            refs.append(Ref(who, kind, name, where))

    for volume in spec.get("volumes") or []:
        if "configMap" in volume:
            add("ConfigMap", volume["configMap"].get("name"), "volume")
        if "secret" in volume:
            add("Secret", volume["secret"].get("secretName"), "volume")
        for source in (volume.get("projected") or {}).get("sources") or []:
            if "configMap" in source:
                add("ConfigMap", source["configMap"].get("name"), "projected")
            if "secret" in source:
                add("Secret", source["secret"].get("name"), "projected")
    for pull in spec.get("imagePullSecrets") or []:
        add("Secret", pull.get("name"), "imagePullSecrets")
    for container in [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]:
        for source in container.get("envFrom") or []:
            if "configMapRef" in source:
                add("ConfigMap", source["configMapRef"].get("name"), "envFrom")
            if "secretRef" in source:
                add("Secret", source["secretRef"].get("name"), "envFrom")
        for env in container.get("env") or []:
            value_from = env.get("valueFrom") or {}
            if "configMapKeyRef" in value_from:
                add("ConfigMap", value_from["configMapKeyRef"].get("name"), "env")
            if "secretKeyRef" in value_from:
                add("Secret", value_from["secretKeyRef"].get("name"), "env")
    return refs


def all_references(docs: list[dict[str, Any]]) -> list[Ref]:
    return [ref for doc in docs for ref in references(doc)]


def unresolved(docs: list[dict[str, Any]]) -> list[Ref]:
    present = set(configs(docs))
    return [ref for ref in all_references(docs) if (ref.kind, ref.name) not in present]


def base_name(name: str) -> str:
    match = _HASHED.match(name)
    return match.group("base") if match else name


def versioned(doc: dict[str, Any]) -> bool:
    labels = doc["metadata"].get("labels") or {}
    name = doc["metadata"]["name"]
    return (
        labels.get("postrender.io/versioned") == "true"
        and name == f"{labels.get('postrender.io/base-name')}-{labels.get('postrender.io/content-hash')}"
        and doc.get("immutable") is True
    )


def source_comments(text: str) -> list[str]:
    return re.findall(r"^# Source: (.+)$", text, re.M)


def venv_bin() -> str:
    """Where the postrender console script of the Python running the tests is."""
    return str(Path(sys.executable).parent)


def tool_env(**extra: str) -> dict[str, str]:
    """The environment for real tools: postrender's bin dir first on PATH."""
    env = dict(os.environ)
    env.pop("HELM_NAMESPACE", None)
    env.pop("POSTRENDER_LOG_FILE", None)
    env["PATH"] = venv_bin() + os.pathsep + env.get("PATH", "")
    env.update(extra)
    return env


def helm_cluster_flags(folder: Path) -> list[tuple[list[str], dict[str, str]]]:
    """Each way Helm is told which cluster it deploys to (its flags, its
    variables), as (helm arguments, environment), with a kubeconfig of two
    contexts written in `folder`: what a render without --retain reads nothing of."""
    kubeconfig = folder / "kubeconfig"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: \"https://127.0.0.1:1\"}}]\n"
        "users: [{name: u, user: {token: t}}]\n"
        "contexts: [{name: one, context: {cluster: c, user: u}}, {name: two, context: {cluster: c, user: u}}]\n"
        "current-context: one\n")
    return [(["--kube-context", "two"], {"KUBECONFIG": str(kubeconfig)}),
            (["--kubeconfig", str(kubeconfig)], {}),
            ([], {"KUBECONFIG": str(kubeconfig), "HELM_KUBECONTEXT": "two"})]


# A merge key's entry overridden by another (tests/unit/pipeline/test_merge_overrides.py
# and, against kubectl, tests/integration/kubernetes/test_kubernetes_reading.py):
# {case: (a Deployment's volumes as written, the ConfigMap each volume names as Kubernetes reads it)}.
MERGE_OVERRIDES = {
    # An explicit name a later merge key sets again: the merged one is read.
    "explicit then merged, the same name": ("      - name: v\n        configMap:\n          name: a\n"
                                             "          <<: {name: a}\n", ["a"]),
    "explicit then merged, another name": ("      - name: v\n        configMap:\n          name: b\n"
                                            "          <<: {name: a}\n", ["a"]),
    # An anchored base a later explicit key overrides: read where not overridden.
    "anchored base overridden": ("      - name: v\n        configMap: &base {name: a}\n      - name: w\n"
                                 "        configMap:\n          <<: *base\n          name: b\n", ["a", "b"]),
    "anchored base overridden, flow": ("      - {name: v, configMap: &base {name: a, optional: true}}\n"
                                       "      - {name: w, configMap: {<<: *base, name: b}}\n", ["a", "b"]),
    # A merged value overriding an explicit one, through an alias used twice.
    "aliased merge over an explicit name": ("      - name: v\n        configMap: &base {name: a}\n      - name: w\n"
                                            "        configMap:\n          name: b\n          <<: *base\n", ["a", "a"]),
}


def merge_override_stream(volumes: str) -> str:
    """ConfigMaps a and b, and a Deployment with these volumes whose container reads b."""
    return ('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: "1"}\n---\n'
            'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {x: "2"}\n---\n'
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n"
            "      volumes:\n" + volumes + "      containers:\n      - name: c\n        image: x\n        envFrom:\n"
            "        - configMapRef: {name: b}\n")
