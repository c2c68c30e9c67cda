"""Phrases the text formats (table, markdown) share."""

from __future__ import annotations

import difflib

from ....diagnostics import escape_controls
from ..model import (
    ADDED,
    CHANGED,
    NO_LONGER_USED,
    NOW_USED,
    REMOVED,
    RENAMED,
    VIA_HASH,
    VIA_KUSTOMIZE_SUFFIX,
    VIA_REFS,
    Cause,
    ConfigChange,
    Held,
    KeyChanges,
    Report,
    ValueChange,
)

MAX_FIELDS = 10


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def summary(report: Report) -> str:
    parts = []
    rolls = len(report.rolls)
    if rolls:
        # Disjoint counts: each workload once.
        both = sum(1 for roll in report.rolls if roll.because and roll.direct)
        detail = [f"{count} {why}" for count, why in (
            (len(report.rolls_config) - both, "because config changed"),
            (len(report.rolls_direct) - both, "because the pod template changed directly"),
            (both, "because config and the pod template itself changed"),
        ) if count]
        parts.append(f"{plural(rolls, 'workload')} {'rolls' if rolls == 1 else 'roll'} ({', '.join(detail)})")
    else:
        parts.append("nothing rolls")
    if report.in_place:
        parts.append(f"{plural(len(report.in_place), 'workload')} updated in place (no new pod)")
    if report.does_not_roll:
        changed = "config or pod template" if report.held_directly else "config"
        parts.append(f"{len(report.does_not_roll)} "
                     f"{'does' if len(report.does_not_roll) == 1 else 'do'} not roll, "
                     f"though {changed} changed (listed first)")
    if report.updated:
        parts.append(f"{plural(len(report.updated), 'object')} without a pod template "
                     f"{'changes with its' if len(report.updated) == 1 else 'change with their'} config")
    changed = len(report.config_changes)
    if changed:
        parts.append(f"{plural(changed, 'ConfigMap or Secret', 'ConfigMaps and Secrets')} "
                     f"{'differs' if changed == 1 else 'differ'}")
    else:
        parts.append("no ConfigMap or Secret differs")
    if report.refused:
        parts.append(f"{plural(len(report.refused), 'update')} of a ConfigMap or Secret the API server refuses: "
                     "the deploy fails (see the warnings)")
    if report.unpaired:
        parts.append(f"{plural(len(report.unpaired), 'object')} not compared: "
                     "no namespace on one side, several on the other (see the warnings)")
    return "; ".join(parts)


# report.in_place's section title: no pod is replaced, but the kubelet
# restarts each container whose image changes.
IN_PLACE_TITLE = "Updated in place, no new pod"
IN_PLACE_NOTE = "(a container whose image changed restarts)"

# Said after the first section's title (held_title), as each format writes it.
HELD_NOTE = "(check these first)"


def held_title(report: Report) -> str:
    """The first section's title: its config changed, or (a workload that
    waits: side.Referrer.waits) its own pod template."""
    changed = "config or pod template" if report.held_directly else "config"
    return f"Does not roll, though its {changed} changed"


def held_config(held: Held) -> str:
    return held.config.describe() if held.config is not None else "(its pod template)"


def held_names(held: Held) -> str:
    return config_names(held.config) if held.config is not None else ""


def held_keys(held: Held) -> str:
    """The config's keys, or the fields of the pod template that changed."""
    return config_keys(held.config) if held.config is not None else fields(held.direct)


def keys(changes: KeyChanges) -> str:
    parts = []
    for label, names in (("changed", changes.changed), ("added", changes.added), ("removed", changes.removed)):
        if names:
            parts.append(f"{label}: {', '.join(names)}")
    return "; ".join(parts)


def config_keys(change: ConfigChange) -> str:
    return "; ".join(p for p in (keys(change.keys), *change.notes) if p)


def config_names(change: ConfigChange) -> str:
    if change.old_name == change.new_name:
        return f"{change.new_name} (keeps its name{': ' + change.kept if change.kept else ''})"
    if change.suffixed_by_kustomize:
        return f"{change.old_name or '(none)'} -> {change.new_name} (kustomize's suffix, added after postrender)"
    return f"{change.old_name or '(none)'} -> {change.new_name or '(none)'}"


def cause(c: Cause) -> str:
    config = c.config
    if c.change == CHANGED and c.via == VIA_HASH:
        return f"{config.describe()}: {config_names(config)}; carried by postrender.io/config-hash"
    if c.change == CHANGED and c.via == VIA_KUSTOMIZE_SUFFIX:
        return (f"{config.describe()}: {config.old_name} -> {config.new_name}, "
                "kustomize's hash suffix (generator output: kustomize renames it and the reference after postrender)")
    if c.change == CHANGED and c.via == VIA_REFS:
        return (f"{config.describe()}: {config.old_name} -> {config.new_name}, "
                "named only in postrender.io/refs (the reference itself is left as written)")
    if c.change == CHANGED:
        return f"{config.describe()}: {config.old_name} -> {config.new_name}"
    if c.change == RENAMED:
        return f"{config.describe()}: {config.old_name} -> {config.new_name} (same content)"
    if c.change == ADDED:
        return f"{config.describe()}: new, {config.new_name}"
    if c.change == REMOVED:
        return f"{config.describe()}: removed ({config.old_name})"
    if c.change == NOW_USED:
        return f"{config.describe()}: now used ({config.new_name})"
    if c.change == NO_LONGER_USED:
        return f"{config.describe()}: no longer used"
    return config.describe()


def cause_keys(c: Cause) -> str:
    return config_keys(c.config) if c.change == CHANGED else ""


def fields(paths: list[str]) -> str:
    shown = ", ".join(paths[:MAX_FIELDS])
    if len(paths) > MAX_FIELDS:
        shown += f" and {len(paths) - MAX_FIELDS} more"
    return shown


def printable(text: str) -> str:
    """A value as text: control characters (a terminal escape, say) spelled
    out as diagnostics spell them; tabs, common in config files, kept."""
    return "\t".join(escape_controls(part) for part in text.split("\t"))


def value_lines(value: ValueChange) -> list[str]:
    """A ConfigMap value's change as unified-diff lines."""
    old = _lines(value.old)
    new = _lines(value.new)
    if value.old is not None and value.new is not None and (len(old) > 1 or len(new) > 1):
        lines = list(difflib.unified_diff(old, new, lineterm="", n=2))[2:]
    else:
        lines = [f"-{line}" for line in old] + [f"+{line}" for line in new]
    if not lines:
        lines = ["(only line breaks or trailing whitespace differ)"]
    return [printable(line) for line in lines]


def _lines(text: str | None) -> list[str]:
    if text is None:
        return []
    return text.splitlines() or [""]


def value_status(value: ValueChange) -> str:
    if value.old is None:
        return "added"
    if value.new is None:
        return "removed"
    return "changed"
