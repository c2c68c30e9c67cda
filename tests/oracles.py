"""The two real oracles for reading and hashing, batched.

- What Kubernetes reads: `kubectl label --local -f DIR zz=x -o json` prints,
  offline, the JSON kubectl (and Helm, through the same sigs.k8s.io/yaml over
  go-yaml v2) sends for every file in DIR; a file it cannot read gets one
  `error parsing FILE: ...` line and the others go on.
- What kustomize names: kustomize hashes any ConfigMap or Secret annotated
  `internal.config.kubernetes.io/needsHashSuffix: enabled`, so one
  `kubectl kustomize DIR` names a whole batch of arbitrary objects.

Also postrender's own reading of one object, through its library (read,
validate, hash), for objects a render would not rename (no data at all).
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from conftest import require_tool
from manifests import tool_env

NEEDS_HASH = "internal.config.kubernetes.io/needsHashSuffix"
_PROBE_LABEL = "zz"
# Characters libyaml reads raw inside a quoted scalar (YAML 1.1 "printable",
# minus the line breaks it would fold): everything else is written escaped.
_UNPRINTABLE = re.compile("[^\t\n\x20-\x7e\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]|[\u2028\u2029]")


def yaml_quoted(text: str) -> str:
    """A double-quoted YAML scalar any YAML reader reads back as `text`."""
    body = json.dumps(text, ensure_ascii=False)[1:-1]
    body = _UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}" if ord(m.group()) < 0x10000 else f"\\U{ord(m.group()):08x}", body)
    return f'"{body}"'


def kubectl_read(files: dict[str, str]) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """Each text as its own file, read by one kubectl run.

    Returns the objects kubectl would send, by metadata.name (the probe label
    taken off again; an object without a name is not among them), and
    kubectl's error for each file it cannot read: YAML it cannot parse
    ("error parsing FILE: ..."), or an object whose TypeMeta or ObjectMeta
    it cannot decode ("unable to decode "FILE": ...").
    """
    kubectl = require_tool("kubectl")
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in files.items():
            (Path(tmp) / f"{name}.yaml").write_text(text, encoding="utf-8")
        proc = subprocess.run([kubectl, "label", "--local", "-f", tmp, f"{_PROBE_LABEL}=x", "-o", "json"],
                              capture_output=True, text=True, env=tool_env())
    objects: dict[str, dict[str, Any]] = {}
    decoder, text, at = json.JSONDecoder(), proc.stdout, 0
    while text[at:].strip():
        at += len(text[at:]) - len(text[at:].lstrip())
        obj, at = decoder.raw_decode(text, at)
        metadata = obj.get("metadata") or {}
        labels = metadata.get("labels") or {}
        labels.pop(_PROBE_LABEL, None)
        if not labels:
            metadata.pop("labels", None)
        if metadata.get("name") is not None:
            objects[metadata["name"]] = obj
    errors: dict[str, str] = {}
    for line in proc.stderr.splitlines():
        match = re.search(r'(?:error parsing .*/|unable to decode "(?:.*/)?)([^/"]+)\.yaml"?: (.*)', line)
        if match:
            errors[match.group(1)] = match.group(2)
    assert proc.returncode == 0 or errors, proc.stderr
    return objects, errors


def kustomize_hashes(documents: list[str]) -> dict[str, str]:
    """kustomize's 10-character hash for each document, by its metadata.name.

    Every document must carry the needsHashSuffix annotation.
    """
    kubectl = require_tool("kubectl")
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "objects.yaml").write_text("---\n".join(documents), encoding="utf-8")
        (Path(tmp) / "kustomization.yaml").write_text("resources: [objects.yaml]\n")
        proc = subprocess.run([kubectl, "kustomize", tmp], capture_output=True, text=True, env=tool_env())
    assert proc.returncode == 0, proc.stderr
    hashes: dict[str, str] = {}
    for name in re.findall(r"^  name: (\S+)$", proc.stdout, re.M):
        hashes[name[:-11]] = name[-10:]
    return hashes


def postrender_reading(text: str) -> tuple[str | None, str | None, dict[str, Any] | None]:
    """postrender's verdict on a one-object document: (hash, error, hashed fields).

    Through the library, so objects a render leaves unrenamed (no data) are
    hashed too.
    """
    from postrender.errors import PostrenderError
    from postrender.pipeline.index.hashing import canonical_json, content_hash
    from postrender.limits import Limits
    from postrender.pipeline.index.configs import validate
    from postrender.pipeline.read import read
    from postrender.pipeline.read.documents import Source

    try:
        stream = read([Source(None, text)], Limits())
        (obj,) = stream.objects
        validate(obj)
    except PostrenderError as exc:
        return None, str(exc), None
    return content_hash(obj.kind, obj.node), None, json.loads(canonical_json(obj.kind, obj.node))
