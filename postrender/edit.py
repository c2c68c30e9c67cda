"""Text edits on a document, placed by node positions.

Everything postrender changes is expressed as an insertion or a replacement
at a known offset of the original text, so comments, quoting, key order and
indentation of everything else stay exactly as they were.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .nodes import (
    EXPLICIT_STR_STYLE,
    PROPERTIES,
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
    entries,
    get,
    plain_is_string,
    scalar_value,
)

_SAFE_PLAIN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._/-]*$")


@dataclass(frozen=True, order=True)
class Edit:
    start: int
    end: int
    text: str


Value = str | bool | dict[str, "Value"]


def apply(text: str, edits: list[Edit]) -> str:
    if not edits:
        return text
    # Duplicates arise when an alias makes two references one node.
    ordered = sorted(dict.fromkeys(edits), key=lambda e: (e.start, e.end))
    parts: list[str] = []
    position = 0
    for edit in ordered:
        if edit.start < position:
            raise AssertionError(f"overlapping edits at offset {edit.start}")
        parts.append(text[position : edit.start])
        parts.append(edit.text)
        position = edit.end
    parts.append(text[position:])
    return "".join(parts)


def content_start(text: str, node: Node) -> int:
    """Offset of a node's content, past any anchor or tag written before it."""
    start = node.start_mark.index
    match = PROPERTIES.match(text, start)
    return match.end() if match else start


def render_scalar(value: str | bool, style: str | None = None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if style == "'" and "\n" not in value:
        return "'" + value.replace("'", "''") + "'"
    if style in ("", None) and _SAFE_PLAIN.match(value) and plain_is_string(value):
        return value
    return json.dumps(value, ensure_ascii=False)


def replace_scalar(text: str, node: ScalarNode, value: str) -> Edit:
    start = content_start(text, node)
    # After an explicit `!!str` tag a plain scalar is a string whatever it reads as.
    style = "" if node.style == EXPLICIT_STR_STYLE else node.style if node.style in ("", "'", '"') else '"'
    return Edit(start, node.end_mark.index, render_scalar(value, style))


def set_entries(text: str, mapping: MappingNode, values: dict[str, Value], newline: str) -> list[Edit]:
    """Make `mapping` hold each key with its value: replace or insert."""
    edits: list[Edit] = []
    missing: dict[str, Value] = {}
    for key, value in values.items():
        current = get(mapping, key)
        if current is None or _is_merged(mapping, key):
            missing[key] = value
        elif isinstance(value, dict):
            if isinstance(current, MappingNode):
                edits.extend(set_entries(text, current, value, newline))
            else:
                edits.append(_replace_with_mapping(text, mapping, key, current, value))
        elif not (isinstance(current, ScalarNode) and _same_scalar(current, value)):
            edits.append(_replace_value(text, current, value))
    if missing:
        edits.append(_insert(text, mapping, missing, newline))
    return edits


def _is_merged(mapping: MappingNode, key: str) -> bool:
    return not any(isinstance(k, ScalarNode) and k.value == key for k, _ in mapping.value)


def _same_scalar(node: ScalarNode, value: str | bool) -> bool:
    if isinstance(value, bool):
        return not node.style and node.value == ("true" if value else "false")
    return node.value == value and (node.style != "" or plain_is_string(value))


def _replace_value(text: str, node: Node, value: str | bool) -> Edit:
    if isinstance(node, ScalarNode) and not isinstance(value, bool):
        return replace_scalar(text, node, value)
    start = content_start(text, node)
    return Edit(start, node.end_mark.index, render_scalar(value, "" if isinstance(value, bool) else '"'))


def _replace_with_mapping(text: str, parent: MappingNode, key: str, current: Node, value: dict[str, Value]) -> Edit:
    """A key whose value is null (or not a mapping) becomes a flow mapping."""
    key_node = next(k for k, v in parent.value if isinstance(k, ScalarNode) and k.value == key)
    colon = text.index(":", key_node.end_mark.index)
    end = current.end_mark.index if current.end_mark.index > current.start_mark.index else colon + 1
    return Edit(colon + 1, max(end, colon + 1), " " + _flow(value))


def _insert(text: str, mapping: MappingNode, values: dict[str, Value], newline: str) -> Edit:
    if mapping.flow_style or not mapping.value:
        return _insert_flow(text, mapping, values)
    start, indent = _first_entry(text, mapping.value[0][0])
    lines = _block_lines(values, indent)
    anchor = _line_end_anchor(text, mapping)
    if anchor is not None:
        return Edit(anchor, anchor, "".join(newline + line for line in lines))
    # No safe line end: insert ahead of the first entry, which then moves down.
    body = lines[0][indent:] + "".join(newline + line for line in lines[1:])
    return Edit(start, start, body + newline + " " * indent)


def _first_entry(text: str, key: Node) -> tuple[int, int]:
    """Offset and column of a block mapping's first entry: its key's (with
    any anchor or tag), or the `?` in front of an explicit key."""
    start = key.start_mark.index
    before = text[text.rfind("\n", 0, start) + 1 : start]
    indicator = before.rstrip(" \t")
    if indicator.endswith("?"):
        back = len(before) - (len(indicator) - 1)
        return start - back, key.start_mark.column - back
    return start, key.start_mark.column


def _line_end_anchor(text: str, mapping: MappingNode) -> int | None:
    """End of the line of the last entry whose value is a one-line scalar.

    Inserting there appends after a complete entry, keeping any comment on
    that line where it was.
    """
    for key, value in reversed(mapping.value):
        if not isinstance(key, ScalarNode) or not isinstance(value, ScalarNode):
            continue
        if value.style not in ("", "'", '"', EXPLICIT_STR_STYLE):
            continue
        if value.start_mark.index < key.end_mark.index:  # an alias to an earlier node
            continue
        if not (key.start_mark.line == value.start_mark.line == value.end_mark.line):
            continue
        if value.end_mark.index == value.start_mark.index:  # empty value: `key:`
            continue
        end = text.find("\n", value.end_mark.index)
        if end == -1:
            return len(text)
        return end - 1 if end > 0 and text[end - 1] == "\r" else end
    return None


def _block_lines(values: dict[str, Value], indent: int, step: int = 2) -> list[str]:
    lines: list[str] = []
    for key, value in values.items():
        rendered_key = render_scalar(key, "")
        if isinstance(value, dict):
            lines.append(" " * indent + rendered_key + ":")
            lines.extend(_block_lines(value, indent + step, step))
        else:
            lines.append(" " * indent + rendered_key + ": " + render_scalar(value, ""))
    return lines


def _insert_flow(text: str, mapping: MappingNode, values: dict[str, Value]) -> Edit:
    start = content_start(text, mapping)
    if text[start] != "{":
        raise AssertionError("flow mapping without a brace")
    if not mapping.value:
        return Edit(start + 1, start + 1, _flow(values)[1:-1])
    # JSON stays JSON: new entries follow the style of the first key.
    json_style = mapping.value[0][0].style == '"'
    body = _flow(values, json_style)[1:-1]
    key, value = mapping.value[-1]
    if value.end_mark.index > key.start_mark.index:  # not an alias to an earlier node
        return Edit(value.end_mark.index, value.end_mark.index, ", " + body)
    return Edit(start + 1, start + 1, body + ", ")


def _flow(values: dict[str, Value], json_style: bool = True) -> str:
    items = []
    for key, value in values.items():
        if isinstance(value, dict):
            rendered = _flow(value, json_style)
        elif isinstance(value, bool):
            rendered = render_scalar(value)
        else:
            rendered = render_scalar(value, '"' if json_style else "")
        label = json.dumps(key, ensure_ascii=False) if json_style else render_scalar(key, "")
        items.append(f"{label}: {rendered}")
    return "{" + ", ".join(items) + "}"


def insert_item_before(text: str, sequence: SequenceNode, item: Node, item_text: str, newline: str) -> Edit:
    """A new sequence item, written as one flow line, placed before `item`."""
    start = content_start(text, item)
    if sequence.flow_style:
        return Edit(start, start, item_text + ", ")
    dash = text.rfind("-", 0, start)
    column = dash - (text.rfind("\n", 0, dash) + 1)
    return Edit(dash, dash, "- " + item_text + newline + " " * column)


def json_line(value: object) -> str:
    """One line of JSON, which is valid YAML in any context."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def plain(node: Node) -> Any:
    """Python values for a node: for copies, never for the whole stream."""
    if isinstance(node, ScalarNode):
        return scalar_value(node) if not node.style else node.value
    if isinstance(node, SequenceNode):
        return [plain(item) for item in node.value]
    return {(k.value if isinstance(k, ScalarNode) else json_line(plain(k))): plain(v) for k, v in entries(node)}
