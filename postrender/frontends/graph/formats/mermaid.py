"""`-o mermaid`: a Mermaid flowchart, to paste into Markdown."""

from __future__ import annotations

from ....diagnostics import escape_controls
from ..view import View
from ._nodes import graph_nodes


def _mermaid_text(text: str) -> str:
    # Inside quotes only the quote itself ends a label; `<` would start HTML.
    # A line break or other control character is spelled out: it would end
    # the line, or reach a terminal.
    escaped = escape_controls(text).replace("#", "#35;").replace('"', "#quot;").replace("<", "#lt;")
    return '"' + escaped + '"'


_MERMAID_SHAPE = {
    "referrer": ("[", "]"),
    "config": ("[(", ")]"),
    "excluded": ("[(", ")]"),
    "unreferenced": ("[(", ")]"),
    "missing": ("{{", "}}"),
}


def write(view: View) -> str:
    nodes, edges = graph_nodes(view)
    out = ["flowchart LR"]
    for node, lines, style in nodes:
        left, right = _MERMAID_SHAPE[style]
        label = '"' + "<br/>".join(_mermaid_text(line)[1:-1] for line in lines) + '"'
        out.append(f"  {node}{left}{label}{right}")
    for source, target, label, style in edges:
        arrow = {"solid": "-->", "dashed": "-.->", "dotted": "==>"}[style]
        out.append(f"  {source} {arrow}|{_mermaid_text(label)}| {target}")
    for style, css in (("excluded", "stroke-dasharray: 5 5"), ("unreferenced", "stroke:#999,color:#999"),
                       ("missing", "stroke-dasharray: 2 2")):
        members = [node for node, _, s in nodes if s == style]
        if members:
            out.append(f"  classDef {style} {css}")
            out.append(f"  class {','.join(members)} {style}")
    return "\n".join(out) + "\n"
