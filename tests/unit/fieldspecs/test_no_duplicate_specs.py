"""No packaged field-spec table names a field twice.

Two entries alike but for the path, whose paths name the same field (the
same text, or one a `*` path already covers: `spec/provider/vault/x` beside
`spec/provider/*/x`), are one entry written twice: harmless to a run (specs
are deduplicated), but an edit to one leaves the other behind, and the
table reads as covering more than it does.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import pytest

from postrender.fieldspecs import compiled, expanded, parse_path
from postrender.fieldspecs.walk import WILDCARD

# An entry's identity but for its path: where it sits (the scalars of the
# mappings around it: a nameReference block's target kind, say) and its own
# other keys (kind, group, namespaceField...).
Key = tuple[tuple[str, ...], tuple[tuple[str, str], ...]]


def _entries(value: Any, where: tuple[str, ...], found: dict[Key, list[str]]) -> None:
    if isinstance(value, list):
        strings = [v for v in value if isinstance(v, str)]
        if strings:
            found[(where, ())].extend(strings)
        for item in value:
            if not isinstance(item, str):
                _entries(item, where, found)
    elif isinstance(value, dict):
        if "path" in value or "paths" in value:
            for row in expanded(value):
                rest = tuple(sorted((k, json.dumps(v, sort_keys=True)) for k, v in row.items() if k != "path"))
                found[(where, rest)].append(row["path"])
            return
        # The scalars of a mapping place the entries under it: two
        # nameReference blocks for Secret are one target.
        around = where + tuple(f"{k}={v}" for k, v in sorted(value.items()) if isinstance(v, (str, int, bool)))
        for key, item in value.items():
            if not isinstance(item, (str, int, bool)):
                _entries(item, around + (str(key),), found)


def _covers(general: str, specific: str) -> bool:
    """Whether path `general` names every field `specific` names: alike
    step by step, or `*` where `specific` has a key."""
    if general == specific:
        return False
    wide, narrow = parse_path(general), parse_path(specific)
    return len(wide) == len(narrow) and all(w == n or w.key == WILDCARD for w, n in zip(wide, narrow))


def duplicates(table: Any) -> list[str]:
    found: dict[Key, list[str]] = defaultdict(list)
    _entries(table, (), found)
    problems = []
    for (where, rest), paths in found.items():
        seen: set[str] = set()
        for path in paths:
            if path in seen:
                problems.append(f"{'/'.join(where)} {dict(rest)}: {path} twice")
            seen.add(path)
        if not rest and not all("/" in path for path in seen):
            continue  # a list of names or verbs (`*` is any verb), not of paths
        for path in seen:
            for other in seen:
                if _covers(other, path):
                    problems.append(f"{'/'.join(where)} {dict(rest)}: {path} is covered by {other}")
    return sorted(problems)


@pytest.mark.parametrize("name", sorted(compiled.TABLES))
def test_no_table_names_a_field_twice(name):
    assert duplicates(compiled.TABLES[name]) == []


def test_duplicates_are_found_within_a_block_across_blocks_and_under_a_wildcard():
    # So the test above can fail: each shape of duplicate is found.
    spec = {"kind": "SecretStore", "group": "external-secrets.io", "namespaceField": "namespace"}
    table = {"nameReference": [
        {"kind": "Secret", "version": "v1", "fieldSpecs": [{**spec, "paths": ["a/b", "a/b"]}]},
        {"kind": "Secret", "version": "v1", "fieldSpecs": [{**spec, "path": "spec/provider/vault/ca[type=Secret]/name"}]},
        {"kind": "Secret", "version": "v1", "fieldSpecs": [{**spec, "path": "spec/provider/*/ca[type=Secret]/name"},
                                                           {**spec, "path": "x/y"}]},
        {"kind": "ConfigMap", "version": "v1", "fieldSpecs": [{**spec, "path": "x/y"}]},
        {"kind": "Secret", "version": "v1", "fieldSpecs": [{**spec, "group": "other.io", "path": "x/y"}]},
    ], "podSpecStrings": ["containers/args", "containers/args"]}
    problems = duplicates(table)
    assert len(problems) == 3, problems
    assert any("a/b twice" in p for p in problems)
    assert any("spec/provider/vault/ca[type=Secret]/name is covered by spec/provider/*/ca[type=Secret]/name" in p
               for p in problems)
    assert any("containers/args twice" in p for p in problems)
