"""The shape of a user's field-spec configuration, checked whole as it loads.

A key postrender does not know, or a value of the wrong type, would otherwise
drop a field spec without a word, and leave the references it names
unrewritten. So every level is strict, and an error names the key's path
(`nameReference[0].fieldSpecs[1].typo`) and what that level takes.

kustomize's own keys (api/types.FieldSpec, builtinconfig.NameBackReferences)
are all accepted, so a `configurations:` file works unchanged; the builtin
tables pass the same check (tests/unit/fieldspecs/test_config_schema.py).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from ..printable import quoted
from ..errors import UsageError
from .paths import path_problem

CONFIG_KINDS = ("ConfigMap", "Secret")

Check = Callable[[Any], str | None]  # what is wrong with a value, or None


def _text(value: Any) -> str | None:
    return None if isinstance(value, str) else "must be a string"


def _name(value: Any) -> str | None:
    return None if isinstance(value, str) and value else "must be a non-empty string"


class Said(str):
    """A problem whose text shows the value already (a path's)."""


def _path(value: Any) -> str | None:
    if not isinstance(value, str) or not value:
        return "must be a non-empty string"
    return _said(path_problem(value))


def _said(problem: str | None) -> str | None:
    return None if problem is None else Said(problem)


def _paths(value: Any) -> str | None:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        return "must be a list of non-empty strings"
    return _said(next(filter(None, map(path_problem, value)), None))


def _why(value: Any) -> str | None:
    return None if isinstance(value, str) and value.strip() else "says why, as text"


def _kind_from(value: Any) -> str | None:
    if not isinstance(value, dict) or set(value) != {"kind", "name", "path"}:
        return "needs kind, name and path"
    return _name(value["kind"]) and f"kind {_name(value['kind'])}" or _path(value["name"]) or _path(value["path"])


def _flag(value: Any) -> str | None:
    return None if isinstance(value, bool) else "must be true or false"


def _texts(value: Any) -> str | None:
    ok = isinstance(value, list) and all(isinstance(v, str) and v for v in value)
    return None if ok else "must be a list of non-empty strings"


def _mapping(value: Any) -> str | None:
    return None if isinstance(value, dict) else "must be a mapping"


def _list(value: Any) -> str | None:
    return None if isinstance(value, list) else "must be a list"


_GVK = {"group": _text, "version": _text, "kind": _name}
# kustomize's NameBackReferences: a target kind and the fields naming it.
NAME_REFERENCE = {**_GVK, "fieldSpecs": _list}
# kustomize's FieldSpec: group, version, kind, path, create (which postrender
# never needs: it rewrites names that are there).
KUSTOMIZE_FIELD_SPEC = {**_GVK, "path": _path, "create": _flag}
# postrender's additions (fieldspecs._field_spec reads them; README
# "References in custom resources").
FIELD_SPEC = {
    **KUSTOMIZE_FIELD_SPEC,
    "paths": _paths,
    "namespaceField": _name,
    "namespacePrefix": _flag,
    "consumes": _flag,
    "grants": _flag,
    "flags": _texts,
    "streamOnly": _flag,
    "kindFrom": _kind_from,
    "keepsName": _why,
    "keepsNameWithoutNamespace": _why,
}
def _waits(value: Any) -> str | None:
    ok = isinstance(value, list) and all(
        isinstance(row, dict) and _name(row.get("why")) is None
        and (set(row) == {"why"}
             or _name(row.get("path")) is None
             and (set(row) == {"path", "equals", "why"} and isinstance(row["equals"], (str, bool, int))
                  or set(row) == {"path", "above", "why"} and type(row["above"]) is int))
        for row in value)
    if not ok:
        return ("must be a list of {path, equals, why} (equals a string, number or true/false), {path, above, why}"
                " (above a whole number) or {why} alone (always)")
    return _said(next(filter(None, (path_problem(row["path"]) for row in value if "path" in row)), None))


def _before_apply(value: Any) -> str | None:
    ok = isinstance(value, dict) and all(
        isinstance(values, list) and all(isinstance(v, (str, bool, int)) for v in values) for values in value.values())
    return None if ok else "maps an annotation to a list of its values (strings)"


# keepsName: every field spec made under the row takes it (fieldspecs._pod_spec).
POD_SPEC_HOLDER = {**_GVK, "path": _path, "immutable": _flag, "podMetadata": _path, "waitsWhen": _waits,
                   "keepsName": _why}
# The sections' own values. Which sections there are is ReferenceTable.extend's
# to check; runsBeforeApply and podSpecArgs rows are checked where they are read.
SECTION_VALUES = {
    "nameReference": _list, "podSpecs": _list, "podSpecArgs": _list, "podSpecReferences": _mapping,
    "podMetadataReferences": _mapping,
    "clusterScoped": _texts, "recreatedWhenAnnotated": _texts, "runsBeforeApply": _before_apply,
    "createdBeforeEveryApply": _before_apply,
}


def check(data: dict[str, Any], origin: str) -> None:
    """Raises UsageError for the first key or value out of shape."""
    for key, check_value in SECTION_VALUES.items():
        if data.get(key) is not None:
            _value(data[key], check_value, key, origin)
    for i, entry in enumerate(data.get("nameReference") or []):
        _name_reference(entry, f"nameReference[{i}]", origin)
    for i, holder in enumerate(data.get("podSpecs") or []):
        _keys(holder, POD_SPEC_HOLDER, f"podSpecs[{i}]", "a podSpecs entry", origin, required=("kind", "path"))
    for section in ("podSpecReferences", "podMetadataReferences"):
        for target, paths in (data.get(section) or {}).items():
            where = f"{section}.{target}"
            if target not in CONFIG_KINDS:
                _fail(origin, where, f"unknown key; {section} takes {_listed(CONFIG_KINDS)}")
            _value(paths, _paths, where, origin)


def _name_reference(entry: Any, where: str, origin: str) -> None:
    _keys(entry, NAME_REFERENCE, where, "a nameReference entry", origin, required=("kind",))
    kind = entry["kind"]
    near = next((k for k in CONFIG_KINDS if k.lower() == kind.lower()), None)
    if near is not None and near != kind:
        # Any other kind is kustomize's to follow (a shared kustomizeconfig names
        # Services); one that differs from ConfigMap or Secret only in case is a typo.
        _fail(origin, f"{where}.kind", f"{quoted(kind)}: kinds are case-sensitive; did you mean {near}?")
    for i, spec in enumerate(entry.get("fieldSpecs") or []):
        # No kind is every kind, as kustomize's fieldspec filter reads it.
        _keys(spec, FIELD_SPEC, f"{where}.fieldSpecs[{i}]", "a fieldSpec", origin)
        if (spec.get("path") is None) == (spec.get("paths") is None):
            _fail(origin, f"{where}.fieldSpecs[{i}]", "takes path or paths (a list of them): exactly one")


def _keys(value: Any, schema: dict[str, Check], where: str, what: str, origin: str,
          required: tuple[str, ...] = ()) -> None:
    if not isinstance(value, dict):
        _fail(origin, where, f"{what} must be a mapping")
    for key, item in value.items():
        if key not in schema:
            _fail(origin, f"{where}.{key}", f"unknown key; {what} takes {_listed(schema)}")
        if item is not None:  # null is unset, as in kustomize
            _value(item, schema[key], f"{where}.{key}", origin)
    for key in required:
        if value.get(key) is None:
            _fail(origin, where, f"{what} needs {key}")


def _value(value: Any, check_value: Check, where: str, origin: str) -> None:
    problem = check_value(value)
    if problem:
        _fail(origin, where, problem if isinstance(problem, Said) else f"{problem}, not {_shown(value)}")


def _listed(keys: Any) -> str:
    return ", ".join(str(k) for k in keys)


def _shown(value: Any) -> str:
    text = _flow(value)
    if isinstance(value, (datetime.date, datetime.datetime)):
        return f"{text} (read as a date: quote it)"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        # 1.10 reads as 1.1, 0x10 as 16: what was written is gone, so say how it was read.
        return f"{text} (read as a number: quote it)"
    return text if len(text) <= 60 else text[:57] + "..."


def _flow(value: Any) -> str:
    """A value as YAML's flow style writes it: what the user wrote, more or
    less, and no Python repr (`datetime.date(2020, 1, 1)` for 2020-01-01)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_flow(k)}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(map(_flow, value)) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return repr(value)


def _fail(origin: str, where: str, problem: str) -> None:
    raise UsageError(f"{origin}: {where}: {problem}")
