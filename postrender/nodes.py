"""Read-only helpers over composed YAML nodes.

postrender never constructs Python objects from the whole stream: it composes
node graphs with libyaml (fast, with source positions) and reads only the
fields it needs. Aliases share node objects, so every generic walk here is
cycle-safe and never expands an alias twice.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

__all__ = [
    "MappingNode",
    "Node",
    "ScalarNode",
    "SequenceNode",
    "entries",
    "get",
    "get_str",
    "is_null",
    "scalar_value",
    "scalars",
    "string_map",
    "unique_nodes",
]

STR_TAG = "tag:yaml.org,2002:str"
# read.py sets this as the style of a plain scalar with an explicit string tag
# (`!!str 1`): like a quoted scalar it is a string whatever it looks like.
EXPLICIT_STR_STYLE = "!"
MERGE_KEY = "<<"

# YAML 1.1 core resolution, as Kubernetes' sigs.k8s.io/yaml (go-yaml v2) reads
# plain scalars. Only used to tell strings from non-strings.
_BOOL = re.compile(r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$")
_TRUE = re.compile(r"^(?:y|Y|yes|Yes|YES|true|True|TRUE|on|On|ON)$")
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_INT = re.compile(r"^[-+]?(?:0b[0-1_]+|0o?[0-7_]+|0x[0-9a-fA-F_]+|[1-9][0-9_]*|0|[1-9][0-9_]*(?::[0-5]?[0-9])+)$")
_FLOAT = re.compile(
    r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)"
    r"|\.[0-9_]+(?:[eE][-+][0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)


# Anchors and tags written before a node (its start mark includes them); a
# verbatim tag (`!<tag:yaml.org,2002:str>`) may hold commas.
PROPERTIES = re.compile(r"(?:(?:!<[^>]*>|[&!][^\s,\[\]{}]*)\s+)+")


def is_null(node: Node | None) -> bool:
    if not isinstance(node, ScalarNode):
        return False
    # `!!null ''` is null too, quotes and all.
    return node.tag.endswith(":null") or not node.style and node.value in ("", "~", "null", "Null", "NULL")


def string_map(node: Node | None) -> dict[str, str]:
    """A mapping of scalars (labels, annotations) as text, as written."""
    if not isinstance(node, MappingNode):
        return {}
    return {k.value: v.value for k, v in node.value if isinstance(k, ScalarNode) and isinstance(v, ScalarNode)}


def entries(node: MappingNode) -> Iterator[tuple[Node, Node]]:
    """Key/value pairs of a mapping with YAML merge keys applied.

    Explicit keys win over merged ones, as in every YAML loader.
    """
    seen: set[str] = set()
    merges: list[Node] = []
    for key, value in node.value:
        if isinstance(key, ScalarNode) and key.value == MERGE_KEY and not key.style:
            merges.append(value)
            continue
        if isinstance(key, ScalarNode):
            seen.add(key.value)
        yield key, value
    stack = [m for merge in merges for m in (merge.value if isinstance(merge, SequenceNode) else [merge])]
    visited: set[int] = {id(node)}
    while stack:
        source = stack.pop(0)
        if not isinstance(source, MappingNode) or id(source) in visited:
            continue
        visited.add(id(source))
        for key, value in entries_direct(source):
            if isinstance(key, ScalarNode) and key.value in seen:
                continue
            if isinstance(key, ScalarNode):
                seen.add(key.value)
            yield key, value


def entries_direct(node: MappingNode) -> Iterator[tuple[Node, Node]]:
    for key, value in node.value:
        if isinstance(key, ScalarNode) and key.value == MERGE_KEY and not key.style:
            continue
        yield key, value


def get(node: Node | None, key: str) -> Node | None:
    if not isinstance(node, MappingNode):
        return None
    for k, v in node.value:
        if isinstance(k, ScalarNode) and k.value == key:
            return v
    if any(isinstance(k, ScalarNode) and k.value == MERGE_KEY for k, _ in node.value):
        for k, v in entries(node):
            if isinstance(k, ScalarNode) and k.value == key:
                return v
    return None


def get_str(node: Node | None, key: str) -> str | None:
    value = get(node, key)
    if isinstance(value, ScalarNode) and is_string(value):
        return value.value
    return None


def is_string(node: ScalarNode) -> bool:
    if node.style:
        return node.tag == STR_TAG
    return node.tag == STR_TAG and plain_is_string(node.value)


def plain_is_string(text: str) -> bool:
    """Whether `text`, written as a plain scalar, reads back as a string."""
    return not (_NULL.match(text) or _BOOL.match(text) or _INT.match(text) or _FLOAT.match(text))


def scalar_value(node: ScalarNode) -> object:
    """The JSON value a Go YAML decoder would give a scalar."""
    v = node.value
    tag = node.tag
    if node.style or tag not in (STR_TAG,):
        if tag == STR_TAG or tag.endswith(":binary"):
            return v
        if tag.endswith(":int"):
            return _int(v)
        if tag.endswith(":float"):
            return _float(v)
        if tag.endswith(":bool"):
            return bool(_TRUE.match(v))
        if tag.endswith(":null"):
            return None
        return v
    if _NULL.match(v):
        return None
    if _BOOL.match(v):
        return bool(_TRUE.match(v))
    if _INT.match(v):
        return _int(v)
    if _FLOAT.match(v):
        return _float(v)
    return v


def _int(v: str) -> object:
    try:
        text = v.replace("_", "")
        if ":" in text:
            sign = -1 if text.startswith("-") else 1
            total = 0
            for part in text.lstrip("+-").split(":"):
                total = total * 60 + int(part)
            return sign * total
        if text.lstrip("+-").startswith(("0b", "0x", "0o")):
            return int(text, 0)
        if len(text.lstrip("+-")) > 1 and text.lstrip("+-").startswith("0"):
            return int(text, 8)
        return int(text)
    except ValueError:
        return v


def _float(v: str) -> object:
    text = v.replace("_", "").lower()
    if text in (".nan",):
        return v
    if text.endswith(".inf"):
        return v
    try:
        return float(text)
    except ValueError:
        return v


def children(node: Node) -> list[Node]:
    if isinstance(node, MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, SequenceNode):
        return list(node.value)
    return []


def unique_nodes(root: Node) -> list[Node]:
    """Every node under root once: an alias's target is not visited again."""
    seen: dict[int, Node] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen[id(node)] = node
            stack.extend(children(node))
    return list(seen.values())


def scalars(root: Node) -> Iterator[tuple[ScalarNode, tuple[str | int, ...], Node | None]]:
    """Every scalar value under root once, with its path and the collection holding it."""
    seen: set[int] = set()
    stack: list[tuple[Node, tuple[str | int, ...], Node | None]] = [(root, (), None)]
    while stack:
        node, path, parent = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            yield node, path, parent
        elif isinstance(node, MappingNode):
            for key, value in reversed(node.value):
                if isinstance(key, ScalarNode):
                    stack.append((value, path + (key.value,), node))
        elif isinstance(node, SequenceNode):
            for i in range(len(node.value) - 1, -1, -1):
                stack.append((node.value[i], path + (i,), node))


def format_path(path: tuple[str | int, ...]) -> str:
    out: list[str] = []
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif out and (("." in part) or ("/" in part)):
            out.append(f"[{part!r}]".replace("'", '"'))
        else:
            out.append(("." if out else "") + part)
    return "".join(out)
