"""kustomize's content hash (api/hasher, v3.8.2 and later), over what
Kubernetes stores.

kustomize hashes a ConfigMap's kind, data and binaryData, a Secret's kind,
type, data and stringData, and an empty name, so the hash is a pure function
of content and renaming never changes it. postrender feeds it the object as
Kubernetes reads it (go-yaml v2 through sigs.k8s.io/yaml: YAML 1.1 keys,
merge keys applied), and a Secret in the form the API server stores:
stringData merged into data as base64, a missing or empty type as Opaque.
A ConfigMap, or a Secret with only data and an explicit type (what
kustomize's generators write), gets exactly kustomize's name.
"""

from __future__ import annotations

import base64

from ...syntax.jsontext import dumps
from ...syntax.nodes import (
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
    entries,
    get,
    is_null,
    json_key,
    json_value,
    string_value,
)

_ENCODE = str.maketrans({"0": "g", "1": "h", "3": "k", "a": "m", "e": "t"})
# Go's encoding/json escapes these even inside strings; Python's does not.
_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
DEFAULT_SECRET_TYPE = "Opaque"


def content_hash(kind: str, node: MappingNode) -> str:
    return encode_hash(sha256_hex(canonical_json(kind, node)))


def sha256_hex(text: str) -> str:
    """SHA-256 of the text's UTF-8, in hex. hashlib loads at the first hash:
    a stream with nothing to hash never loads OpenSSL (~3 ms of start-up)."""
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def encode_hash(hex_digest: str) -> str:
    return hex_digest[:10].translate(_ENCODE)


def short_hash(text: str) -> str:
    return encode_hash(sha256_hex(text))


def canonical_json(kind: str, node: MappingNode) -> str:
    if kind == "ConfigMap":
        fields: dict[str, object] = {"kind": "ConfigMap", "name": "", "data": _field(node, "data")}
        binary = get(node, "binaryData")
        if isinstance(binary, MappingNode):  # kustomize leaves out a missing or null one
            fields["binaryData"] = string_entries(binary)
    else:
        fields = {"kind": "Secret", "name": "", "type": secret_type(node), "data": stored_secret_data(node)}
    return go_json(fields)


def secret_type(node: MappingNode) -> str:
    """The API server defaults a missing, null or empty type to Opaque."""
    value = get(node, "type")
    if value is None or is_null(value):
        return DEFAULT_SECRET_TYPE
    return string_value(value) or DEFAULT_SECRET_TYPE


def stored_secret_data(node: MappingNode) -> object:
    """A Secret's data as the API server stores it: stringData, when it holds
    anything, overwrites data's keys, base64-encoded. data values stay as
    written (kustomize hashes their text)."""
    string_data = get(node, "stringData")
    strings = string_entries(string_data) if isinstance(string_data, MappingNode) else {}
    if not strings:
        return _field(node, "data")
    data = get(node, "data")
    merged = string_entries(data) if isinstance(data, MappingNode) else {}
    for key, value in strings.items():
        text = value if isinstance(value, str) else go_json(value)  # validate refuses non-strings
        merged[key] = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return merged


def go_json(value: object) -> str:
    text = dumps(value, sort_keys=True, separators=(",", ":"))
    for char, escape in _GO_ESCAPES.items():
        if char in text:
            text = text.replace(char, escape)
    return text


def _field(node: MappingNode, key: str) -> object:
    """A top-level field as kustomize's hasher reads it: "" when missing, a
    scalar's text as written (`data: null` hashes "null", `data:` ""), a
    mapping's entries."""
    value = get(node, key)
    if value is None:
        return ""
    if isinstance(value, ScalarNode):
        return value.value
    if isinstance(value, MappingNode):
        return string_entries(value)
    return to_json_value(value)


def string_entries(node: MappingNode) -> dict[str, object]:
    """data, binaryData or stringData: JSON keys to the strings Kubernetes
    gets (plan.validate has refused anything else)."""
    out: dict[str, object] = {}
    for key, value in entries(node):
        text = string_value(value)
        out[json_key(key)] = text if text is not None else to_json_value(value)
    return out


def to_json_value(node: Node) -> object:
    """The JSON kubectl sends for a node.

    Callers bound the input first (read.py refuses alias bombs and what
    kubectl cannot read), and aliases resolve to shared nodes, so this
    stays linear in the expanded size. An explicit stack, not recursion:
    values nest as deep as --max-depth allows.
    """
    root: dict[str, object] = {}
    # Each task puts a node's value at container[slot].
    stack: list[tuple[Node, dict | list, object]] = [(node, root, "value")]
    while stack:
        current, into, slot = stack.pop()
        if isinstance(current, ScalarNode):
            into[slot] = json_value(current)  # type: ignore[index]
        elif isinstance(current, SequenceNode):
            into[slot] = items = [None] * len(current.value)  # type: ignore[index]
            stack.extend((item, items, i) for i, item in reversed(list(enumerate(current.value))))
        else:
            into[slot] = mapping = {}  # type: ignore[index]
            pairs = []
            for key, value in entries(current):
                label = json_key(key)
                mapping[label] = None
                # Tasks run in order, so of equal labels the later one wins, as in go-yaml v2.
                pairs.append((value, mapping, label))
            stack.extend(reversed(pairs))
    return root["value"]
