"""`-o json`: the view for scripts."""

from __future__ import annotations

import json

from ....pipeline.read.documents import KubeObject
from ....printable import printable
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
    text = json.dumps(data, indent=2, ensure_ascii=False)
    # The text as written, but what cannot be shown (bidi controls, U+2028,
    # Unicode's format characters, in names), as JSON escapes: the same
    # values, and nothing in them acts on a terminal, as every other output
    # escapes them (diagnostics.escape_controls). json.dumps escapes only
    # below U+0020. Line by line: indent=2 puts a line break between values.
    return "\n".join(line if printable(line) else "".join(map(_shown, line)) for line in text.split("\n")) + "\n"


def _shown(ch: str) -> str:
    if printable(ch):
        return ch
    code = ord(ch)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a UTF-16 surrogate pair, as JSON writes a character past U+FFFF
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
