"""A composed document's objects: kind, name, namespace, labels and annotations, as kubectl decodes them.

A document is one object or a List of them. What identifies each is read
as kubectl decodes TypeMeta and ObjectMeta, refusing what it refuses; the
labels and annotations of the objects of one app are shared, not held
once each.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from ...errors import PostrenderError
from ...syntax.nodes import (
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
    entries,
    get,
    get_str,
    is_null,
    is_string,
    json_key,
    not_a_string_hint,
    string_map,
    string_value,
)
from ...vocabulary import KRM_RESOURCE_LIST
from .documents import NO_STRINGS, KubeObject, _list_items, file_annotated, kube_object

if TYPE_CHECKING:
    from .documents import Document


def _objects_of(doc: Document, shared: _SharedMaps) -> list[KubeObject]:
    root = doc.root
    assert isinstance(root, MappingNode)
    if get(root, "items") is None:
        return [_object(doc, root, None, shared)]  # most documents: `items` is looked up once
    items = _list_items(root)
    if items is not None:
        kind = get_str(root, "kind")
        objects = []
        for i, item in enumerate(items.value):
            if not isinstance(item, MappingNode):
                raise PostrenderError(f"{kind} item {i} is not a mapping", doc.location(item))
            objects.append(_object(doc, item, i, shared))
        return objects
    if _an_empty_list(doc, root):
        return []
    return [_object(doc, root, None, shared)]


def _an_empty_list(doc: Document, root: MappingNode) -> bool:
    """Whether a root that is no List with items is an empty List (`items`
    null: a chart's range over nothing), which holds no object.

    Refuses one kubectl and Helm read as a List though its kind names none,
    or a List whose items are no list: apimachinery decodes any object with
    an `items` key as a list of its items (none, where it is null), whatever
    its kind, and applies those. Read as its kind says, it would be
    versioned and its references rewritten as an object Kubernetes never
    gets."""
    items = get(root, "items")
    if items is None:
        return False
    kind = get_str(root, "kind") if isinstance(get(root, "kind"), ScalarNode) else None
    if kind == KRM_RESOURCE_LIST:
        return False  # no object kubectl applies: the KRM front end reads its items, and says what is wrong
    if is_null(items) and kind is not None and kind.endswith("List"):
        return True
    metadata = get(root, "metadata")
    name = (get_str(metadata, "name")
            if isinstance(metadata, MappingNode) and isinstance(get(metadata, "name"), ScalarNode) else None)
    if isinstance(items, SequenceNode) or is_null(items):
        message = (f"kubectl and Helm read an object with a top-level `items` key as a List of those items "
                   f"(none, where it is null), not as {kind or 'the object'}: write `kind: List` to apply them, "
                   "or move `items` under `spec`")
    else:
        message = ("`items` must be a list: kubectl and Helm read any object with `items` as a List "
                   "(json: cannot unmarshal into decodeList.items)")
    raise PostrenderError(message, doc.location(items, kind, name))


def _chart_file_hint(doc: Document) -> str:
    """A chart's own files are no manifests: a chart folder given where its
    rendered output goes (`postrender ./mychart`) fails on Chart.yaml first."""
    file = os.path.basename(doc.source.name or "")
    if file in ("Chart.yaml", "values.yaml", "Chart.lock") or file.startswith("values-"):
        return (f" ({file} is a Helm chart's file, not a manifest: render the chart first,"
                " `helm template NAME CHART | postrender`, or use postrender as helm's --post-renderer)")
    return ""


def _object(doc: Document, node: MappingNode, item: int | None, shared: _SharedMaps) -> KubeObject:
    # What identifies the object, read as kubectl decodes an object's
    # TypeMeta and ObjectMeta: a string or null, and nothing else. kubectl
    # and Helm refuse the whole document otherwise ("cannot unmarshal number
    # into Go struct field"), so postrender does too, where it can say
    # which line, rather than name the object by a misreading of it.
    kind = _identity(doc, node, "kind", None, None)
    metadata = get(node, "metadata")
    name = _identity(doc, metadata, "name", kind, None, "metadata.")
    if not kind:  # kubectl: "Object 'Kind' is missing", for an empty one too
        written = get(node, "kind")  # an empty one's line, where there is one (errors60)
        raise PostrenderError("object has no kind" + _chart_file_hint(doc),
                              doc.location(written if written is not None else node, None, name))
    api_version, namespace = _type_and_namespace(doc, node, metadata, kind, name)
    if item is not None and isinstance(get(node, "items"), SequenceNode):
        # apimachinery decodes an object holding an `items` list as a List
        # (_an_empty_list), and a List's item cannot be one: kubectl fails
        # on the whole List ("is not a list: no Items field in this object").
        raise PostrenderError(
            "an item of a List that holds a list of `items` itself (a List in a List): kubectl and Helm read it as a"
            " List, which an item cannot be, and fail; write its items as items of the List around it",
            doc.location(node, kind, name),
        )
    if item is not None and not api_version:
        # kubectl reads a List's items with the unstructured decoder, which
        # needs one ("Object 'apiVersion' is missing"), and fails on the whole
        # List; a top-level object it maps by kind. Passed, its object was not
        # taken for a ConfigMap or Secret, and warned of as not in the stream (syntax62).
        raise PostrenderError("a List's item has no apiVersion: kubectl and Helm fail on the whole List"
                              " (Object 'apiVersion' is missing); write the item's apiVersion",
                              doc.location(node, kind, name))
    obj = kube_object(doc, node, api_version, kind, name, namespace, item,
                      _strings(doc, metadata, "annotations", kind, name, shared),
                      _strings(doc, metadata, "labels", kind, name, shared))
    if item is None and doc.source_comment is None and obj.annotations:
        doc.source_comment = file_annotated(obj.annotations.get)
    return obj


# The objects of one app or component write the same labels (often the
# same annotations) one after another: a dict of one entry costs 184 bytes,
# as much as the object holding it. So read keeps one mapping for each run
# of entries, in their order, and every object that writes them shares it
# (read-only, as NO_STRINGS is: a change through one would change them all).
_SharedMaps = dict[tuple[tuple[str, str], ...], Mapping[str, str]]


def _check_strings(doc: Document, node: MappingNode, field: str, kind: str | None, name: str | None) -> None:
    """Refuses a value of a labels or annotations mapping, merge keys
    applied, that kubectl decodes as neither a string nor null (`1`, `true`,
    a list): the few mappings holding anything but plain strings."""
    for key, value in entries(node):
        if string_value(value) is None and not is_null(value):
            raise PostrenderError(f"metadata.{field}.{json_key(key)} must be a string{not_a_string_hint(value)}",
                                  doc.location(value, kind, name))


def _identity(doc: Document, node: Node | None, key: str, kind: str | None, name: str | None,
              prefix: str = "") -> str | None:
    """The string `key` of `node` holds, None where it holds none or null;
    refuses anything kubectl cannot decode as a string there. A `!!binary`
    one (kubectl reads its decoded bytes) is refused too: the names
    postrender matches and edits are the text written."""
    value = get(node, key)
    if value is None:
        return None
    if value.__class__ is ScalarNode and is_string(value):  # type: ignore[union-attr]
        return value.value  # type: ignore[union-attr]
    if is_null(value):
        return None
    raise PostrenderError(f"{prefix}{key} must be a string{not_a_string_hint(value, key == 'kind')}",
                          doc.location(value, kind, name))


def _type_and_namespace(doc: Document, node: MappingNode, metadata: Node | None, kind: str | None,
                        name: str | None) -> tuple[str, str | None]:
    """The apiVersion ("" for none) and namespace (None for none) of an
    object or a List, as kubectl decodes them (_identity); refuses metadata
    (its `metadata`, looked up by the caller) that is no mapping."""
    api_version = _identity(doc, node, "apiVersion", kind, name) or ""
    if metadata is not None and not isinstance(metadata, MappingNode) and not is_null(metadata):
        raise PostrenderError("metadata must be a mapping", doc.location(metadata, kind, name))
    return api_version, _identity(doc, metadata, "namespace", kind, name, "metadata.") or None


def _string_map_node(doc: Document, metadata: Node | None, field: str, kind: str | None,
                     name: str | None) -> MappingNode | None:
    """The labels or annotations mapping of `metadata` (None where there is
    none, or null). Refuses what kubectl cannot decode as a map of strings:
    anything but a mapping or null, or a value that is neither a string nor
    null."""
    node = get(metadata, field)
    if node is None:
        return None
    if not isinstance(node, MappingNode):
        if is_null(node):
            return None
        raise PostrenderError(f"metadata.{field} must be a mapping", doc.location(node, kind, name))
    for _, value in node.value:
        if value.__class__ is not ScalarNode or not is_string(value):  # type: ignore[arg-type]
            _check_strings(doc, node, field, kind, name)
            break
    return node


def _check_list(doc: Document, root: MappingNode) -> None:
    """Refuses a List whose own apiVersion or metadata kubectl cannot
    decode, as of any object (_object): it decodes the List before its
    items."""
    kind = get_str(root, "kind")
    metadata = get(root, "metadata")
    name = _identity(doc, metadata, "name", kind, None, "metadata.")
    _type_and_namespace(doc, root, metadata, kind, name)
    for field in ("labels", "annotations"):
        _string_map_node(doc, metadata, field, kind, name)


def _strings(doc: Document, metadata: Node | None, field: str, kind: str, name: str | None,
             shared: _SharedMaps) -> Mapping[str, str]:
    """string_map of a metadata field (labels, annotations), shared with
    the objects before that wrote the same entries in the same order."""
    node = _string_map_node(doc, metadata, field, kind, name)
    if node is None:
        return NO_STRINGS
    strings = string_map(node)
    if not strings:
        return NO_STRINGS
    key = tuple(strings.items())
    known = shared.get(key)
    if known is None:
        known = shared[key] = MappingProxyType(strings)
    return known
