"""Hypothesis strategies: manifest streams written the many ways YAML allows.

A stream is a list of apps (ConfigMap, Secret, a workload using both, a
Service) plus unrelated objects, each written with randomly chosen styles:
block or flow collections, plain or quoted scalars, literal blocks, comments,
`# Source:` lines, `...` markers, CRLF, a byte-order mark. Everything drawn is
valid input, so postrender must accept it.
"""

from __future__ import annotations

import base64
import json
import re
import string
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

NAME_CHARS = string.ascii_lowercase + string.digits
_PLAIN_SAFE = re.compile(r"^[A-Za-z_/][A-Za-z0-9_./-]*\Z")  # \Z: `$` would let "A\n" through as plain
_NOT_STRING = re.compile(
    r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|~|null|Null|NULL)$"
)


@dataclass
class Manifest:
    """One object and how to write it."""

    body: dict[str, Any]
    source: str | None = None  # a `# Source:` comment


@dataclass
class Stream:
    manifests: list[Manifest]
    crlf: bool = False
    bom: bool = False
    leading_comment: bool = False
    document_end: bool = False
    secret_values: list[str] = field(default_factory=list)


names = st.text(NAME_CHARS, min_size=1, max_size=12).map(lambda s: "n" + s)
keys = st.text(string.ascii_lowercase + string.digits + "._-", min_size=1, max_size=10).map(lambda s: "k" + s)
# Values that tempt a writer to drop the quotes: numbers, booleans, nulls.
tricky_values = st.sampled_from(["8080", "0755", "true", "off", "yes", "null", "~", "1e3", "0x1F", "12:30", "", " "])
text_values = st.one_of(
    tricky_values,
    st.text(string.ascii_letters + string.digits + " -_.:/#'\"\\\t", max_size=30),
    st.lists(st.text(string.ascii_letters + string.digits + " =.", min_size=1, max_size=20), min_size=1, max_size=4)
    .map(lambda lines: "\n".join(line.strip() or "x" for line in lines) + "\n"),
)


@st.composite
def apps(draw, marker: str | None = None) -> tuple[list[Manifest], list[str]]:
    base = draw(names)
    namespace = draw(st.one_of(st.none(), st.sampled_from(["apps", "team-a"])))
    config_name, secret_name = f"{base}-config", f"{base}-secret"

    def meta(name: str) -> dict[str, Any]:
        m: dict[str, Any] = {"name": name}
        if namespace:
            m["namespace"] = namespace
        if draw(st.booleans()):
            m["labels"] = {"app": base}
        return m

    data = draw(st.dictionaries(keys, text_values, max_size=4))
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(config_name), "data": data}
    secret_plain = draw(st.dictionaries(keys, st.text(string.ascii_letters + string.digits, max_size=16), min_size=1, max_size=3))
    values = list(secret_plain.values())
    if marker is not None:
        secret_plain["token"] = marker
        values.append(marker)
    secret: dict[str, Any] = {"apiVersion": "v1", "kind": "Secret", "metadata": meta(secret_name), "type": "Opaque"}
    if draw(st.booleans()):
        secret["data"] = {k: base64.b64encode(v.encode()).decode() for k, v in secret_plain.items()}
    else:
        secret["stringData"] = secret_plain
    container: dict[str, Any] = {"name": "app", "image": "nginx:1.27"}
    uses = draw(st.sets(st.sampled_from(["volume", "env", "envFrom", "secretEnv", "pullSecret", "dangling"]), max_size=6))
    pod: dict[str, Any] = {"containers": [container]}
    if "env" in uses or "secretEnv" in uses:
        container["env"] = []
        if "env" in uses and data:
            container["env"].append({"name": "A", "valueFrom": {"configMapKeyRef": {"name": config_name, "key": next(iter(data))}}})
        if "secretEnv" in uses:
            container["env"].append({"name": "B", "valueFrom": {"secretKeyRef": {"name": secret_name, "key": "token"}}})
    if "envFrom" in uses:
        container["envFrom"] = [{"configMapRef": {"name": config_name}}, {"secretRef": {"name": secret_name}}]
    if "volume" in uses:
        pod["volumes"] = [{"name": "c", "configMap": {"name": config_name}}, {"name": "s", "secret": {"secretName": secret_name}}]
    if "pullSecret" in uses:
        pod["imagePullSecrets"] = [{"name": secret_name}]
    if "dangling" in uses:
        pod.setdefault("volumes", []).append({"name": "d", "configMap": {"name": f"{base}-missing", "optional": True}})
    workload_kind = draw(st.sampled_from(["Deployment", "StatefulSet", "DaemonSet", "Pod", "Job", "CronJob"]))
    workload = _workload(workload_kind, meta(base), base, pod)
    service = {"apiVersion": "v1", "kind": "Service", "metadata": meta(base),
               "spec": {"selector": {"app": base}, "ports": [{"port": 80, "targetPort": 8080}]}}
    manifests = [Manifest(config), Manifest(secret), Manifest(workload), Manifest(service)]
    for m in manifests:
        if draw(st.booleans()):
            m.source = f"chart/templates/{m.body['kind'].lower()}.yaml"
    return draw(st.permutations(manifests)), values


def _workload(kind: str, metadata: dict[str, Any], base: str, pod: dict[str, Any]) -> dict[str, Any]:
    template = {"metadata": {"labels": {"app": base}}, "spec": pod}
    if kind == "Pod":
        return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": pod}
    if kind == "Job":
        return {"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata, "spec": {"template": template}}
    if kind == "CronJob":
        return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": metadata,
                "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": template}}}}
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": metadata,
            "spec": {"selector": {"matchLabels": {"app": base}}, "template": template}}


other_objects = st.builds(
    lambda name, spec: Manifest({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name}, "spec": spec}),
    names,
    st.recursive(
        text_values | st.integers(-5, 10**6) | st.booleans() | st.none(),
        lambda children: st.lists(children, max_size=3) | st.dictionaries(keys, children, max_size=3),
        max_leaves=12,
    ),
)


@st.composite
def streams(draw, marker: str | None = None) -> Stream:
    manifests: list[Manifest] = []
    secret_values: list[str] = []
    for i in range(draw(st.integers(1, 3))):
        app_manifests, values = draw(apps(marker if i == 0 else None))
        manifests.extend(app_manifests)
        secret_values.extend(values)
    manifests.extend(draw(st.lists(other_objects, max_size=2)))
    if len({(m.body["kind"], m.body["metadata"].get("namespace"), m.body["metadata"]["name"]) for m in manifests}) != len(manifests):
        manifests = _dedupe(manifests)
    return Stream(
        manifests=manifests,
        crlf=draw(st.booleans()),
        bom=draw(st.integers(0, 9)) == 0,
        leading_comment=draw(st.booleans()),
        document_end=draw(st.booleans()),
        secret_values=secret_values,
    )


def _dedupe(manifests: list[Manifest]) -> list[Manifest]:
    seen: set[tuple] = set()
    out = []
    for m in manifests:
        key = (m.body["kind"], m.body["metadata"].get("namespace"), m.body["metadata"]["name"])
        if key not in seen:
            seen.add(key)
            out.append(m)
    return out


# --- writing ----------------------------------------------------------------


@st.composite
def written(draw, stream_strategy) -> tuple[Stream, str]:
    """A stream and its text, every node written in a drawn style."""
    stream = draw(stream_strategy)
    docs = [draw(document_text(m)) for m in stream.manifests]
    return stream, join(stream, docs)


def join(stream: Stream, docs: list[str]) -> str:
    parts = []
    if stream.leading_comment:
        parts.append("# Rendered by a fuzzer.\n")
    for doc in docs:
        parts.append("---\n" + doc)
        if stream.document_end:
            parts.append("...\n")
    text = "".join(parts)
    if stream.crlf:
        text = text.replace("\n", "\r\n")
    return ("\ufeff" if stream.bom else "") + text


@st.composite
def document_text(draw, manifest: Manifest) -> str:
    head = f"# Source: {manifest.source}\n" if manifest.source else ""
    if draw(st.integers(0, 5)) == 0:
        return head + flow(draw, manifest.body) + "\n"
    return head + "".join(block_mapping(draw, manifest.body, 0))


def scalar(draw, value: Any) -> str:
    if value is None:
        return draw(st.sampled_from(["null", "~"]))
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    style = draw(st.sampled_from(["plain", "single", "double"]))
    if style == "plain" and _PLAIN_SAFE.match(value) and not _NOT_STRING.match(value) and not value.endswith(":"):
        return value
    if style == "single" and "\n" not in value and "\t" not in value:
        return "'" + value.replace("'", "''") + "'"
    return json.dumps(value, ensure_ascii=False)


def flow(draw, value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{scalar(draw, k)}: {flow(draw, v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(flow(draw, v) for v in value) + "]"
    return scalar(draw, value)


def _literal_ok(value: Any) -> bool:
    return (
        isinstance(value, str) and value.endswith("\n") and not value.endswith("\n\n") and "\t" not in value
        and all(line and line == line.strip() for line in value[:-1].split("\n"))
    )


def block_mapping(draw, mapping: dict[str, Any], indent: int) -> list[str]:
    pad = " " * indent
    lines = []
    for key, value in mapping.items():
        k = scalar(draw, key)
        if isinstance(value, (dict, list)) and value and draw(st.integers(0, 3)) != 0:
            lines.append(f"{pad}{k}:" + (" # a comment" if draw(st.integers(0, 7)) == 0 else "") + "\n")
            if isinstance(value, dict):
                lines.extend(block_mapping(draw, value, indent + 2))
            else:
                lines.extend(block_sequence(draw, value, indent + draw(st.sampled_from([0, 2]))))
        elif _literal_ok(value) and draw(st.booleans()):
            lines.append(f"{pad}{k}: |\n" + "".join(f"{pad}  {line}\n" for line in value[:-1].split("\n")))
        else:
            lines.append(f"{pad}{k}: {flow(draw, value)}\n")
    return lines


def block_sequence(draw, items: list[Any], indent: int) -> list[str]:
    pad = " " * indent
    lines = []
    for item in items:
        if isinstance(item, dict) and item:
            inner = block_mapping(draw, item, indent + 2)
            lines.append(pad + "- " + inner[0][indent + 2 :])
            lines.extend(inner[1:])
        elif isinstance(item, list) and item:
            lines.append(f"{pad}- {flow(draw, item)}\n")
        else:
            lines.append(f"{pad}- {flow(draw, item)}\n")
    return lines


def resource_list(docs: list[str]) -> str:
    """The same objects as a KRM ResourceList (each document becomes an item)."""
    out = ["apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"]
    for doc in docs:
        lines = [line for line in doc.split("\n") if line and not line.startswith("#")]
        out.append("- " + lines[0] + "\n" + "".join("  " + line + "\n" for line in lines[1:]))
    return "".join(out)
