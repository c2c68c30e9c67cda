"""`-o json`: the whole report for scripts. Keys are camelCase, as kubectl's."""

from __future__ import annotations

import json

from ..model import Cause, ConfigChange, KeyChanges, ObjectRef, Report, Roll, VersionRef


def write(report: Report) -> str:
    data = {
        "rolls": [_roll(r) for r in report.rolls],
        "doesNotRoll": [
            {"workload": None if h.workload is None else _object(h.workload),
             "config": None if h.config is None else _config(h.config), "reason": h.reason,
             "changedFields": h.direct}
            for h in report.does_not_roll
        ],
        "updatedInPlace": [_roll(r) for r in report.in_place],
        "updated": [_roll(r) for r in report.updated],
        "configChanges": [_config(c, full=True, values=report.show_values) for c in report.config_changes],
        "versions": {
            "created": [_version(v) for v in report.versions_created],
            "noLongerReferenced": [_version(v) for v in report.versions_unreferenced],
        },
        "warnings": report.warnings,
        "unpaired": report.unpaired,
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _object(ref: ObjectRef) -> dict:
    return {"kind": ref.kind, "namespace": ref.namespace, "name": ref.name, "source": ref.source}


def _roll(roll: Roll) -> dict:
    return {
        **_object(roll.workload),
        "because": [_cause(c) for c in roll.because],
        "podTemplateChangedDirectly": bool(roll.direct),
        "changedFields": roll.direct,
    }


def _cause(cause: Cause) -> dict:
    config = cause.config
    return {
        "kind": config.kind,
        "namespace": config.namespace,
        "name": config.name,
        "oldName": config.old_name,
        "newName": config.new_name,
        "change": cause.change,
        "via": cause.via,
        "keys": _keys(config.keys),
    }


def _keys(keys: KeyChanges) -> dict:
    return {"changed": keys.changed, "added": keys.added, "removed": keys.removed}


def _config(change: ConfigChange, full: bool = False, values: bool = False) -> dict:
    data = {
        "kind": change.kind,
        "namespace": change.namespace,
        "name": change.name,
        "oldName": change.old_name,
        "newName": change.new_name,
        "keys": _keys(change.keys),
    }
    if full:
        data.update(status=change.status, notes=change.notes, keepsNameBecause=change.kept)
        if values and change.values is not None:
            data["values"] = [{"key": v.key, "old": v.old, "new": v.new} for v in change.values]
    return data


def _version(v: VersionRef) -> dict:
    return {"kind": v.kind, "namespace": v.namespace, "name": v.name, "baseName": v.base}
