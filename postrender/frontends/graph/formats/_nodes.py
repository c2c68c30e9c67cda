"""The view as nodes and edges, shared by the drawn formats (dot, mermaid)."""

from __future__ import annotations

from ..view import View, target_label


class _Ids:
    """Stable node ids, one per object (or per missing name)."""

    def __init__(self) -> None:
        self.ids: dict[object, str] = {}
        self.order: list[object] = []

    def of(self, key: object) -> str:
        if key not in self.ids:
            self.ids[key] = f"n{len(self.ids)}"
            self.order.append(key)
        return self.ids[key]


def graph_nodes(view: View):
    """(id, label lines, style) per node and (from, to, label, style) per edge."""
    ids = _Ids()
    nodes: dict[str, tuple[list[str], str]] = {}
    edges: list[tuple[str, str, str, str]] = []
    configs = {id(c.obj): c for c in view.configs}
    for config in view.configs:
        node = ids.of(id(config.obj))
        lines = [view.describe(config.obj)]
        style = "config"
        if config.excluded:
            lines.append(f"keeps its name: {config.excluded}")
            style = "excluded"
        elif config.final_name != config.obj.name:
            lines.append(f"-> {config.final_name}")
        if not config.referenced:
            lines.append("(unreferenced)")
            style = "unreferenced" if style == "config" else style
        nodes[node] = (lines, style)
    for edge in view.edges:
        source = ids.of(id(edge.referrer))
        nodes.setdefault(source, ([view.describe(edge.referrer)], "referrer"))
        if edge.target is not None and id(edge.target) in configs:
            target = ids.of(id(edge.target))
        else:
            target = ids.of(("missing", edge.kind, edge.namespace, edge.name, edge.status))
            nodes.setdefault(target, ([target_label(view, edge), f"{edge.status}: {edge.note}"], "missing"))
        label = edge.field if edge.via == "field spec" else f"{edge.field} ({edge.via})"
        held = edge.held and edge.target is not None
        dashed = held or edge.status in ("unrewritten", "broken")
        style = "solid" if edge.target is not None and not dashed else "dashed"
        suffix = {"broken": " [broken]", "unrewritten": " [not rewritten]"}.get(
            edge.status, " [left as written]" if held else "")
        edges.append((source, target, label + suffix,
                      "dotted" if edge.status == "produces" else style))
    return [(i, *nodes[i]) for i in (ids.ids[k] for k in ids.order)], edges
