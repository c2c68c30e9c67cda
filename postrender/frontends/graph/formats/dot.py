"""`-o dot`: Graphviz."""

from __future__ import annotations

from ....diagnostics import escape_controls
from ..view import View
from ._nodes import graph_nodes


def _dot_text(text: str) -> str:
    # Line breaks are Graphviz's; any other control character is spelled out.
    lines = (escape_controls(line).replace("\\", "\\\\").replace('"', '\\"') for line in text.split("\n"))
    return '"' + "\\n".join(lines) + '"'


_DOT_STYLE = {
    "referrer": "shape=box",
    "config": "shape=note",
    "excluded": "shape=note, style=dashed",
    "unreferenced": "shape=note, color=gray, fontcolor=gray",
    "missing": "shape=box, style=dotted",
}


def write(view: View) -> str:
    nodes, edges = graph_nodes(view)
    out = ["digraph postrender {", "  rankdir=LR;", "  node [fontname=\"monospace\"];"]
    for node, lines, style in nodes:
        out.append(f"  {node} [label={_dot_text(chr(10).join(lines))}, {_DOT_STYLE[style]}];")
    for source, target, label, style in edges:
        extra = "" if style == "solid" else f", style={style}"
        out.append(f"  {source} -> {target} [label={_dot_text(label)}{extra}];")
    out.append("}")
    return "\n".join(out) + "\n"
