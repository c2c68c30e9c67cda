"""`-o json`: the view for scripts."""

from __future__ import annotations

import json

from ....pipeline.read import KubeObject
from ..view import View


def _ref(obj: KubeObject, view: View) -> dict:
    return {"kind": obj.kind, "namespace": view.namespace(obj), "name": obj.name}


def write(view: View) -> str:
    final = {id(c.obj): c.final_name for c in view.configs}
    data = {
        "references": [
            {
                "referrer": _ref(e.referrer, view),
                "field": e.field,
                "via": e.via,
                "kind": e.kind,
                "name": e.name,
                "lookupNamespace": None if e.namespace in ("(default)", "*") else e.namespace,
                "status": e.status,
                # The name the output holds there: the target's final name, unless left as written.
                "leftAsWritten": e.held,
                "target": None if e.target is None else {
                    **_ref(e.target, view),
                    "finalName": final.get(id(e.target), e.target.name),
                },
                "note": e.note or None,
            }
            for e in view.edges
        ],
        "configObjects": [
            {**_ref(c.obj, view), "finalName": c.final_name, "versioned": c.excluded is None,
             "excluded": c.excluded, "unsuffixedCopy": c.copy, "referenced": c.referenced, "marks": c.marks}
            for c in view.configs
        ],
        "configHashes": [
            {"referrer": _ref(h.referrer, view), "field": h.field, "covers": h.covers} for h in view.hashes
        ],
        "refsRecords": [
            {"referrer": _ref(r.referrer, view), "field": r.field, "value": r.value} for r in view.refs
        ],
        "warnings": view.warnings,
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
