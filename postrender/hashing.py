"""kustomize's content hash (api/hasher, v3.8.2 and later), bit for bit.

The hash covers a ConfigMap's data/binaryData or a Secret's type/data/
stringData; kustomize always hashes an empty name, so the hash is a pure
function of content and renaming never changes it.
"""

from __future__ import annotations

import hashlib

from .jsontext import dumps
from .nodes import MappingNode, Node, ScalarNode, SequenceNode, entries, get, scalar_value

_ENCODE = str.maketrans({"0": "g", "1": "h", "3": "k", "a": "m", "e": "t"})
# Go's encoding/json escapes these even inside strings; Python's does not.
_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def content_hash(kind: str, node: MappingNode) -> str:
    return encode_hash(hashlib.sha256(canonical_json(kind, node).encode("utf-8")).hexdigest())


def encode_hash(hex_digest: str) -> str:
    return hex_digest[:10].translate(_ENCODE)


def short_hash(text: str) -> str:
    return encode_hash(hashlib.sha256(text.encode("utf-8")).hexdigest())


def canonical_json(kind: str, node: MappingNode) -> str:
    if kind == "ConfigMap":
        fields: dict[str, object] = {"kind": "ConfigMap", "name": "", "data": _field(node, "data")}
        binary = get(node, "binaryData")
        if isinstance(binary, MappingNode):
            fields["binaryData"] = to_json_value(binary)
    else:
        fields = {"kind": "Secret", "name": "", "type": _field(node, "type"), "data": _field(node, "data")}
        string_data = get(node, "stringData")
        if isinstance(string_data, MappingNode):
            fields["stringData"] = to_json_value(string_data)
    return go_json(fields)


def go_json(value: object) -> str:
    text = dumps(value, sort_keys=True, separators=(",", ":"))
    for char, escape in _GO_ESCAPES.items():
        if char in text:
            text = text.replace(char, escape)
    return text


def _field(node: MappingNode, key: str) -> object:
    value = get(node, key)
    return "" if value is None else to_json_value(value)


def to_json_value(node: Node) -> object:
    """What Go gets decoding the node into interface{}.

    Callers bound the input first (read.py refuses alias bombs and keys
    that are collections), and aliases resolve to shared nodes, so this
    stays linear in the expanded size. An explicit stack, not recursion:
    values nest as deep as --max-depth allows.
    """
    root: dict[str, object] = {}
    # Each task puts a node's value at container[slot].
    stack: list[tuple[Node, dict | list, object]] = [(node, root, "value")]
    while stack:
        current, into, slot = stack.pop()
        if isinstance(current, ScalarNode):
            into[slot] = scalar_value(current)  # type: ignore[index]
        elif isinstance(current, SequenceNode):
            into[slot] = items = [None] * len(current.value)  # type: ignore[index]
            stack.extend((item, items, i) for i, item in reversed(list(enumerate(current.value))))
        else:
            into[slot] = mapping = {}  # type: ignore[index]
            pairs = []
            for key, value in entries(current):
                label = key.value if isinstance(key, ScalarNode) else "?"
                if label not in mapping:  # the first of equal labels wins
                    mapping[label] = None
                    pairs.append((value, mapping, label))
            stack.extend(reversed(pairs))
    return root["value"]
