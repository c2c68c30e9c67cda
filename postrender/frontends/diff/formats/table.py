"""The default format: plain columns for a terminal."""

from __future__ import annotations

from ...graph.formats.table import columns as _columns
from ..model import Report, Roll
from . import _text

SECRET_NOTE = "Secret values are never shown"


def write(report: Report) -> str:
    out = [f"postrender diff: {_text.summary(report)}"]

    if report.warnings:
        out += ["", "WARNINGS"]
        out.extend(_text.printable(w) for w in report.warnings)

    if report.does_not_roll:
        rows = [("WORKLOAD", "CONFIG", "NAMES", "KEYS", "WHY", "SOURCE")]
        for held in report.does_not_roll:
            who = held.workload.describe() if held.workload else "(no pod template)"
            rows.append((who, _text.held_config(held), _text.held_names(held),
                         _text.held_keys(held), held.reason,
                         (held.workload.source or "") if held.workload else ""))
        _section(out, f"{_text.held_title(report).upper()} {_text.HELD_NOTE}", rows)

    if report.rolls_config:
        rows = [("WORKLOAD", "BECAUSE", "KEYS", "SOURCE")]
        for roll in report.rolls_config:
            _cause_rows(rows, roll)
        _section(out, "ROLLS BECAUSE ITS CONFIG CHANGED", rows)

    if report.rolls_direct:
        rows = [("WORKLOAD", "POD TEMPLATE FIELDS", "SOURCE")]
        for roll in report.rolls_direct:
            rows.append((roll.workload.describe(), _text.fields(roll.direct), roll.workload.source or ""))
        _section(out, "ROLLS BECAUSE ITS POD TEMPLATE CHANGED DIRECTLY", rows)

    if report.in_place:
        rows = [("WORKLOAD", "POD TEMPLATE FIELDS", "SOURCE")]
        for roll in report.in_place:
            rows.append((roll.workload.describe(), _text.fields(roll.direct), roll.workload.source or ""))
        _section(out, f"{_text.IN_PLACE_TITLE.upper()} {_text.IN_PLACE_NOTE}", rows)

    if report.updated:
        rows = [("OBJECT", "BECAUSE", "KEYS", "SOURCE")]
        for update in report.updated:
            _cause_rows(rows, update)
        _section(out, "UPDATED WITH ITS CONFIG (no pod template to roll)", rows)

    if report.config_changes:
        rows = [("OBJECT", "STATUS", "NAMES", "KEYS")]
        for change in report.config_changes:
            rows.append((change.describe(), change.status, _text.config_names(change), _text.config_keys(change)))
        _section(out, "CONFIG CHANGES", rows)

    valued = [c for c in report.config_changes if c.values]
    if report.show_values and valued:
        out += ["", f"VALUES (ConfigMaps only; {SECRET_NOTE})"]
        for change in valued:
            for value in change.values or []:
                named = f"{_text.printable(change.describe())} {_text.printable(value.key)}"
                out.append(f"{named} ({_text.value_status(value)}):")
                out.extend(f"  {line}" for line in _text.value_lines(value))

    if report.versions_created:
        replaced = {(c.kind, c.namespace, c.new_name): c.old_name for c in report.config_changes}
        rows = [("VERSION", "REPLACES")]
        for v in report.versions_created:
            rows.append((_version(v), replaced.get((v.kind, v.namespace, v.name)) or ""))
        _section(out, "VERSIONS CREATED", rows)
    if report.versions_unreferenced:
        rows = [("VERSION", "BASE NAME")]
        for v in report.versions_unreferenced:
            rows.append((_version(v), v.base))
        _section(out, "VERSIONS NO LONGER REFERENCED (postrender gc collects them later)", rows)
    return "\n".join(out) + "\n"


def _cause_rows(rows: list[tuple[str, ...]], roll: Roll) -> None:
    for i, cause in enumerate(roll.because):
        first = i == 0
        rows.append((roll.workload.describe() if first else "", _text.cause(cause), _text.cause_keys(cause),
                     (roll.workload.source or "") if first else ""))


def _version(v) -> str:
    ns = f"{v.namespace}/" if v.namespace else ""
    return f"{v.kind}/{ns}{v.name}"


def _section(out: list[str], title: str, rows: list[tuple[str, ...]]) -> None:
    # A column nobody filled in (no `# Source:` anywhere, say) is left out.
    keep = [i for i in range(len(rows[0])) if any(row[i] for row in rows[1:])]
    out += ["", title]
    out.extend(_columns([tuple(_text.printable(row[i]) for i in keep) for row in rows]))
