"""Hypothesis strategies: manifest streams written the many ways YAML allows.

A stream is a list of apps (ConfigMap, Secret, a workload using both, a
Service) plus unrelated objects, each written with randomly chosen styles:
block or flow collections, plain or quoted scalars, literal and folded block
scalars (strip/clip/keep, indentation indicators, header comments), nulls in
every spelling (`key:`, `~`, `!!null`, `{key}`), comments, `# Source:` lines,
`kind: List` documents, `...` markers, CRLF, a byte-order mark. Names include
ones YAML 1.1 would read as numbers (`08`, `1e3`) and ones too long for a
label value. Everything drawn is valid input, so postrender must accept it.
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
# Names a YAML 1.1 reader takes for numbers when written plain, and one too
# long for the base-name label (it goes in an annotation instead).
ODD_NAMES = ["08", "0800", "1e3", "012", "0x1f", "12.5", "2020-01-01", "y", "no", "null", "a" * 70]
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
    if draw(st.integers(0, 3)) == 0:
        config_name = draw(st.sampled_from(ODD_NAMES))
    if draw(st.integers(0, 3)) == 0:
        secret_name = draw(st.sampled_from(ODD_NAMES))

    def meta(name: str) -> dict[str, Any]:
        m: dict[str, Any] = {"name": name}
        if namespace:
            m["namespace"] = namespace
        labels = draw(st.sampled_from(["none", "app", "instance", "null"]))
        if labels == "app":
            m["labels"] = {"app": base}
        elif labels == "instance":
            m["labels"] = {"app.kubernetes.io/instance": draw(st.sampled_from(["web", "0800", "1e3", "yes"]))}
        elif labels == "null":
            m["labels"] = None
        if draw(st.integers(0, 5)) == 0:
            m["annotations"] = None
        return m

    def config_marks(body: dict[str, Any]) -> None:
        """A null `immutable:` (Helm's `immutable: {{ .Values.x }}`), or an opt-out."""
        choice = draw(st.integers(0, 5))
        if choice == 0:
            body["immutable"] = None
        elif choice == 1 and isinstance(body["metadata"].get("annotations", {}), dict):
            body["metadata"].setdefault("annotations", {})["postrender.io/versioned"] = "false"

    data = draw(st.dictionaries(keys, text_values, max_size=4))
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(config_name), "data": data}
    config_marks(config)
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
    config_marks(secret)
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
    """A stream and its text, every node written in a drawn style; a run of
    objects may share one `kind: List` document."""
    stream = draw(stream_strategy)
    docs = [draw(document_text(m)) for m in stream.manifests]
    if len(docs) > 1 and draw(st.integers(0, 3)) == 0:
        first = draw(st.integers(0, len(docs) - 1))
        last = draw(st.integers(first + 1, len(docs)))
        docs[first:last] = [draw(list_text([m.body for m in stream.manifests[first:last]]))]
    return stream, join(stream, docs)


def join(stream: Stream, docs: list[str]) -> str:
    parts = []
    if stream.leading_comment:
        parts.append("# Rendered by a fuzzer.\n")
    for doc in docs:
        parts.append("---\n" + doc)
        # kubectl reads a document that is JSON as JSON, where `...` is an error.
        if stream.document_end and not _is_json(doc):
            parts.append("...\n")
    text = "".join(parts)
    if stream.crlf:
        text = text.replace("\n", "\r\n")
    return ("\ufeff" if stream.bom else "") + text


def _is_json(doc: str) -> bool:
    try:
        json.loads("".join(line for line in doc.splitlines(True) if not line.startswith("#")))
    except ValueError:
        return False
    return True


@st.composite
def document_text(draw, manifest: Manifest) -> str:
    head = f"# Source: {manifest.source}\n" if manifest.source else ""
    if draw(st.integers(0, 5)) == 0:
        return head + flow(draw, manifest.body) + "\n"
    if draw(st.integers(0, 9)) == 0:
        return head + json.dumps(manifest.body, indent=draw(st.sampled_from([None, 2]))) + "\n"
    return head + "".join(block_mapping(draw, manifest.body, 0))


@st.composite
def list_text(draw, bodies: list[dict[str, Any]]) -> str:
    """Objects as the items of one `kind: List` document."""
    head = "apiVersion: v1\nkind: List\nitems:"
    if draw(st.integers(0, 3)) == 0:
        return head + " " + flow(draw, bodies) + "\n"
    return head + "\n" + "".join(block_sequence(draw, bodies, draw(st.sampled_from([0, 2]))))


NULLS = ["null", "~", "Null", "NULL", "!!null", "!!null ''"]


def scalar(draw, value: Any) -> str:
    if value is None:
        return draw(st.sampled_from(NULLS))
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
        entries = []
        for k, v in value.items():
            if v is None and draw(st.integers(0, 2)) == 0:
                # `{key}` and `{key: }`: a null written as nothing.
                entries.append(scalar(draw, k) + draw(st.sampled_from(["", ": "])))
            else:
                entries.append(f"{scalar(draw, k)}: {flow(draw, v)}")
        return "{" + ", ".join(entries) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(flow(draw, v) for v in value) + "]"
    return scalar(draw, value) + (" " if value is None else "")


def block_scalar(draw, value: Any, indent: int) -> list[str] | None:
    """`value` as a literal or folded block scalar under a key at `indent`:
    the header (which follows `key: `) and the content lines; None when a
    block scalar cannot hold it exactly."""
    if not isinstance(value, str) or not all(c in "\n\t" or c.isprintable() for c in value):
        return None
    body = value.rstrip("\n")
    trailing = len(value) - len(body)
    lines = body.split("\n") if body else []
    if not lines and trailing:
        return None
    chomp = "-" if trailing == 0 else draw(st.sampled_from(["", "+"])) if trailing == 1 else "+"
    style = ">" if len(lines) == 1 and chomp == "-" and draw(st.booleans()) else "|"
    # An indentation indicator, needed when the text itself starts with a
    # space or a tab (without one, YAML takes a leading tab for indentation).
    leading_space = any(line[:1] in (" ", "\t") for line in lines if line)
    indicator = "2" if leading_space or draw(st.integers(0, 4)) == 0 else ""
    header = style + (indicator + chomp if draw(st.booleans()) else chomp + indicator)
    if draw(st.integers(0, 3)) == 0:
        header += " # a block scalar"
    pad = " " * (indent + 2)
    return [header + "\n"] + [(pad + line if line else "") + "\n" for line in lines] + ["\n"] * (trailing - 1)


def block_mapping(draw, mapping: dict[str, Any], indent: int) -> list[str]:
    pad = " " * indent
    lines = []
    for i, (key, value) in enumerate(mapping.items()):
        if i and draw(st.integers(0, 9)) == 0:
            lines.append(f"{pad}# a comment line\n")
        k = scalar(draw, key)
        comment = " # a comment" if draw(st.integers(0, 7)) == 0 else ""
        if isinstance(value, (dict, list)) and value and draw(st.integers(0, 3)) != 0:
            lines.append(f"{pad}{k}:{comment}\n")
            if isinstance(value, dict):
                lines.extend(block_mapping(draw, value, indent + 2))
            else:
                lines.extend(block_sequence(draw, value, indent + draw(st.sampled_from([0, 2]))))
            continue
        block = block_scalar(draw, value, indent) if draw(st.integers(0, 2)) == 0 else None
        if block is not None:
            lines.append(f"{pad}{k}: " + "".join(block))
        elif value is None and draw(st.booleans()):
            lines.append(f"{pad}{k}:{comment}\n")  # `key:` is null too
        else:
            lines.append(f"{pad}{k}: {flow(draw, value)}{comment}\n")
    return lines


def block_sequence(draw, items: list[Any], indent: int) -> list[str]:
    pad = " " * indent
    lines = []
    for item in items:
        if isinstance(item, dict) and item:
            inner = block_mapping(draw, item, indent + 2)
            lines.append(pad + "- " + inner[0][indent + 2 :])
            lines.extend(inner[1:])
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
