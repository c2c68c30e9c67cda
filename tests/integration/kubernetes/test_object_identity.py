"""postrender refuses an object's identity exactly where kubectl does.

kubectl decodes every object's TypeMeta and ObjectMeta before anything else
(`metadataOnlyObject`): an apiVersion, kind, name or namespace that is not a
string, or labels and annotations that are not a map of strings, fail the
whole document ("cannot unmarshal number into Go struct field"), and Helm
fails the same way. postrender reads these fields to name objects and match
references, so it refuses the same documents, with the line, rather than
name an object by a misreading of it (it read `namespace: 5` as no
namespace, and passed the document on).

The oracle is kubectl (`kubectl label --local`, oracles.kubectl_read), fed every token of the
ConfigMap value table in each field. The one difference, by design: a
`!!binary` value (kubectl reads its decoded bytes) is refused in these
fields as anywhere outside data, binaryData and stringData, since the names
postrender matches and edits are the text written.
"""

from __future__ import annotations

import re

from conftest import run_postrender
from oracles import kubectl_read
from test_kubernetes_reading import VALUES

# Collections, and the empty and null spellings, on top of the value table.
TOKENS = [*VALUES, "[a]", "[]", "{a: b}", "{}", "''", "~", ""]


def _indented(token: str, indent: int) -> str:
    # The table's block scalars continue at four spaces: deeper under a deeper key.
    return token.replace("\n    ", "\n" + " " * (indent + 4))


FIELDS = {
    "apiVersion": lambda t: f"apiVersion: {t}\nkind: ServiceAccount\nmetadata:\n  name: sa\n",
    "kind": lambda t: f"apiVersion: v1\nkind: {t}\nmetadata:\n  name: sa\n",
    "metadata.name": lambda t: f"apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: {_indented(t, 2)}\n",
    "metadata.namespace": lambda t: (f"apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n"
                                     f"  namespace: {_indented(t, 2)}\n"),
    "metadata.labels": lambda t: f"apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n  labels: {_indented(t, 2)}\n",
    "a label": lambda t: (f"apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n  labels:\n"
                          f"    a: {_indented(t, 4)}\n"),
    "an annotation": lambda t: (f"apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n  annotations:\n"
                                f"    a: {_indented(t, 4)}\n"),
    # A List is decoded before its items: its own apiVersion and metadata too.
    "a List's apiVersion": lambda t: f"apiVersion: {t}\nkind: List\nitems:\n{_ITEM}",
    "a List's metadata.namespace": lambda t: (f"apiVersion: v1\nkind: List\nmetadata:\n  namespace: {_indented(t, 2)}\n"
                                              f"items:\n{_ITEM}"),
    "a List's label": lambda t: (f"apiVersion: v1\nkind: List\nmetadata:\n  labels:\n    a: {_indented(t, 4)}\n"
                                 f"items:\n{_ITEM}"),
}
_ITEM = "- apiVersion: v1\n  kind: ServiceAccount\n  metadata:\n    name: sa\n"


def test_identity_fields_are_refused_where_kubectl_refuses_them():
    cases = {f"{re.sub('[^a-zA-Z]+', '-', field)}-{i:03d}": (field, token, write(token))
             for field, write in FIELDS.items() for i, token in enumerate(TOKENS)}
    _, refused_by_kubectl = kubectl_read({name: text for name, (_, _, text) in cases.items()})
    problems, binary = [], 0
    for name, (field, token, text) in cases.items():
        result = run_postrender([], text)
        assert result.status in (0, 1) and "Traceback" not in result.stderr, result.stderr
        if result.status == 1:
            assert result.stdout == "" and result.stderr.startswith("postrender: error: document 1 "), result.stderr
            assert re.search(r"\bline \d+\b", result.stderr), result.stderr
        else:
            assert result.stdout == text, "an object postrender takes passes through as written"
        refused = result.status == 1
        if refused and name not in refused_by_kubectl and token.startswith("!!binary"):
            binary += 1  # by design (module docstring)
            assert "!!binary" in result.stderr, result.stderr
            continue
        if refused != (name in refused_by_kubectl):
            problems.append(f"{field} {token!r}: kubectl {refused_by_kubectl.get(name, 'reads it')!r}, "
                            f"postrender {result.stderr.strip() or 'reads it'!r}")
    assert problems == [], "\n".join(problems)
    assert binary >= 4, "the table's !!binary names that kubectl reads, one per identity field at least"




# `items` of each shape, under kinds that do and do not name a List.
ITEMS = ["5", "x", "{a: b}", "[]", "~", "[{apiVersion: v1, kind: ServiceAccount, metadata: {name: inner}}]"]
ITEM_KINDS = ["List", "ServiceAccountList", "ServiceAccount", "ConfigMap", "Widget"]


def test_an_object_with_items_is_read_as_kubectl_reads_it_or_refused():
    # apimachinery decodes any object whose `items` is not null as a list of
    # its items, whatever its kind: kubectl and Helm apply those, not it.
    from postrender.errors import PostrenderError
    from postrender.limits import Limits
    from postrender.pipeline.read import read
    from postrender.pipeline.read.documents import Source

    problems = []
    for kind in ITEM_KINDS:
        for items in ITEMS:
            text = f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: outer\nitems: {items}\n"
            read_by_kubectl, refused = kubectl_read({"case": text})
            theirs = None if refused else sorted(read_by_kubectl)
            try:
                ours = sorted(obj.name for obj in read([Source(None, text)], Limits()).objects if obj.name)
            except PostrenderError as exc:
                assert re.search(r"\bline 5\b", str(exc)), exc
                ours = None
            # Refused by postrender: kubectl refuses it too, or applies
            # something else than the object written.
            if ours is None and theirs == ["outer"] or ours is not None and ours != theirs:
                problems.append(f"{kind} items: {items}: kubectl {theirs or refused}, postrender {ours}")
    assert problems == [], "\n".join(problems)
