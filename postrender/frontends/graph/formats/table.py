"""`-o table`: the references, the config objects and the config hashes as aligned columns."""

from __future__ import annotations

from ....diagnostics import escape_controls
from ....pipeline.plan.versions import UNREFERENCED
from ....vocabulary import ANNOTATION_ORIGINAL_NAME, LABEL_BASE_NAME, LABEL_CONTENT_HASH, LABEL_VERSIONED
from ..view import ConfigNode, View, target_label


def write(view: View) -> str:
    out: list[str] = []
    rows = [("REFERRER", "FIELD", "CONFIG", "NOTE")]
    for edge in view.edges:
        note = edge.note if edge.via in ("field spec", "producer", "guard") else f"{edge.via}: {edge.note}"
        if edge.status in ("dangling", "optional", "ambiguous", "produced", "produces", "unsupported", "unrewritten",
                           "broken"):
            note = f"{edge.status}: {note}"
        rows.append((view.describe(edge.referrer), edge.field, target_label(view, edge), note))
    out.extend(columns(rows))
    out.append("")
    rows = [("CONFIG OBJECT", "NAME", "NOTE")]
    for config in view.configs:
        rows.append((view.describe(config.obj), config.final_name, _config_note(config)))
    out.extend(columns(rows))
    if view.hashes:
        out.append("")
        rows = [("REFERRER", "POSTRENDER.IO/CONFIG-HASH AT", "COVERS")]
        for h in view.hashes:
            rows.append((view.describe(h.referrer), h.field, ", ".join(h.covers)))
        out.extend(columns(rows))
    if view.refs:
        out.append("")
        rows = [("REFERRER", "POSTRENDER.IO/REFS AT", "USES")]
        for r in view.refs:
            rows.append((view.describe(r.referrer), r.field, r.value))
        out.extend(columns(rows))
    return "\n".join(out) + "\n"


def columns(rows: list[tuple[str, ...]]) -> list[str]:
    # Names and keys come from the stream: a control character in one (a
    # terminal escape, say) is spelled out, as in diagnostics.
    rows = [tuple(escape_controls(cell) for cell in row) for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]


def _config_note(config: ConfigNode) -> str:
    notes = []
    if config.excluded:
        notes.append(f"not versioned: {config.excluded}")
    elif config.marks and not config.marks.get("immutable") and config.final_name != config.obj.name:
        notes.append("mutable")
    added = {**config.marks.get("labels", {}), **config.marks.get("annotations", {})}
    option_marks = [f"{key}={value}" for key, value in added.items() if not key.startswith(_OWN_MARKS)]
    if option_marks:
        notes.append("sets " + ", ".join(option_marks))
    if config.copy:
        notes.append(f"also keeps an unsuffixed copy named {config.obj.name}")
    if not config.referenced and config.excluded != UNREFERENCED:
        notes.append("unreferenced")
    return "; ".join(notes)


# Set on every version whatever the options; the table leaves them out.
_OWN_MARKS = (LABEL_VERSIONED, LABEL_BASE_NAME, LABEL_CONTENT_HASH, ANNOTATION_ORIGINAL_NAME)
