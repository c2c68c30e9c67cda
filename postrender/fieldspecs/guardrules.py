"""The guard's table (guard.yaml), read once: which keys, key suffixes,
selectors and argument words look like a reference to a ConfigMap or Secret,
and at which fields the field spec it suggests must keep the name.

The guard (pipeline/check/guard.py) uses it to find names no field spec
rewrote; the graph stage (pipeline/graph/byname.py) uses the same keys to
find names in ConfigMap data. It lives with the tables so that both read it
without one stage importing a later one.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from . import data


@cache
def guard_rules() -> dict[str, dict[str, Any]]:
    raw = data("guard.yaml")
    return {
        kind: {
            # Squeezed as the keys they are compared with are (snake_case,
            # kebab-case and dotted keys: pod_environment_configmap).
            "keys": {squeezed(k) for k in spec.get("keys") or ()},
            "suffixes": tuple(squeezed(k) for k in spec.get("keySuffixes") or ()),
            "under": tuple(squeezed(k) for k in spec.get("nameUnder") or ()),
            "lists": tuple(squeezed(k) for k in spec.get("lists") or ()),
            "typed": bool(spec.get("typedName")),
            "selector": {k: frozenset(v) for k, v in (spec.get("keySelector") or {}).items()},
            "words": tuple(squeezed(w) for w in spec.get("argumentWords") or ()),
            # (kind, group, path or None: any) -> why a field spec there keeps the name.
            "keeps": {(row["kind"], row["group"], row.get("path")): row["why"] for row in spec.get("keepsName") or ()},
        }
        for kind, spec in raw.items()
    }


def keeps_name_why(target_kind: str, kind: str, group: str, path: str) -> str | None:
    """Why a field spec for this field must say keepsName (guard.yaml
    keepsName: renaming there breaks the program), or None."""
    keeps = guard_rules()[target_kind]["keeps"]
    return keeps.get((kind, group, path)) or keeps.get((kind, group, None))


def squeezed(text: str) -> str:
    """Lower case without `-`, `_` and `.`: how keys and argument words are compared."""
    return re.sub(r"[-_.]", "", text.lower())
