"""What a ConfigMap or Secret holds, read once while its document is whole
(or, for a large one, its data's entries as they are composed:
index/folding.py).

The read stage keeps of a config object its metadata and the scalars beside
it, not its data (pipeline/needs.py): the data is most of a config's nodes
and text, and what the stages after read need of it is small. So it is read
here, as the document is read, into a ConfigContent kept on the object:
its content hash (index/hashing.py), whether it holds any data, whether it
is a service-account token Secret, and what the API server or the hash
would refuse, raised only when the plan is made, as before. byname adds the
names its data entries give a program (graph/byname.data_names).
"""

from __future__ import annotations

from typing import Any

from ...printable import quoted
from ...errors import PostrenderError
from ...records import record
from ...syntax.nodes import (
    MappingNode,
    Node,
    ScalarNode,
    entries,
    format_path,
    get,
    get_str,
    go_base64,
    is_null,
    json_key,
    json_value,
    not_a_string_hint,
    string_value,
)
from ..read.documents import KubeObject
from .folding import STRING_FIELDS, ConfigFolder
from .hashing import Fields, content_hash, hash_suffix, kustomize_secret_hash


@record(eq=False)
class ConfigContent:
    hash: str  # kustomize's content hash; "" when refused
    empty: bool  # no data, binaryData or stringData entry at all
    token: bool  # a Secret of type kubernetes.io/service-account-token
    type: str | None  # a Secret's `type` as written, when a string
    # What validate refused: raised when the plan is made, so that the
    # stream's other errors keep coming first, as when it was read later.
    refused: PostrenderError | None = None
    # What byname found in the data (graph/byname.data_names), once asked.
    named: Any = None
    # kustomize's hash of a Secret as written, where it is not `hash`
    # (hashing.kustomize_secret_hash): the suffix kustomize gave it. Only
    # for a name ending in what could be a hash other than `hash`.
    kustomize_hash: str | None = None
    # It says `immutable: true` itself (as go-yaml reads it): a name that
    # stays (--strategy=annotate) can then never take new data.
    immutable: bool = False


def content_of(obj: KubeObject, folded: ConfigFolder | None = None) -> ConfigContent:
    """The object's content, read now if no stage has yet: the read stage
    asks while the document is whole (pipeline/needs.py), or with its data's
    entries `folded` as they were composed (index/folding.py); a stream read
    without pruning (KRM, library callers) is read when first asked."""
    known = obj.content
    if known is None:
        known = obj.content = _read(obj, folded)
        if folded is not None:
            # What its data names was found as the entries were taken, and
            # in the fields too small to be taken out (ConfigFolder.finish).
            known.named = tuple(folded.named)
    elif known.__class__ is str:
        return ConfigContent(known, False, False, None, None, ())  # held as its hash alone (hold_as_hash)
    return known


def hash_of(obj: KubeObject) -> str:
    """content_of(obj).hash, without making again the record of one held as its hash."""
    known = obj.content
    return known if known.__class__ is str else content_of(obj).hash


def names_in_data(obj: KubeObject) -> Any:
    """What byname found in the config's data (ConfigContent.named), None
    until asked: without making again the record of one held as its hash."""
    known = obj.content
    return () if known.__class__ is str else content_of(obj).named


def hold_as_hash(obj: KubeObject) -> None:
    """Once read has found all it asks of a config's content: hold it as
    its hash alone where that is all it says (data, no token or type, no
    names in its data, nothing refused, as most ConfigMaps), and make its
    record again when asked. A render holds every config's content to the
    end: a record each was 88 bytes (100,000 tiny ConfigMaps: 8 MiB)."""
    known = obj.content
    if (known.__class__ is ConfigContent and known.named == () and known.type is None and known.refused is None
            and known.kustomize_hash is None and not known.empty and not known.token and known.hash
            and not known.immutable):
        obj.content = _shared_hash(known.hash)


# Equal hashes held as one string: configs of equal data (generated ones,
# placeholders) hash alike, and each held its own 10 characters, 64 bytes
# with the object's header (100,000 tiny ConfigMaps of one entry: 5.6 MiB).
# Bounded as syntax/nodes.py's shared texts are: most hashes are unique.
_SHARED_HASHES_HELD = 1 << 10
_shared_hashes: dict[str, str] = {}


def _shared_hash(digest: str) -> str:
    shared = _shared_hashes.get(digest)
    if shared is not None:
        return shared
    if len(_shared_hashes) >= _SHARED_HASHES_HELD:
        _shared_hashes.clear()
    _shared_hashes[digest] = digest
    return digest


def says_immutable(obj: KubeObject) -> bool:
    """Whether a config says `immutable: true` itself; one held as its hash
    alone does not (hold_as_hash keeps the record of one that does)."""
    return obj.content.__class__ is not str and content_of(obj).immutable


def in_content(config: KubeObject, path: tuple) -> bool:
    """Whether a path of a config object leads into what its hash covers
    (data, binaryData, stringData): where a reference found there changes
    the content, and so the name (plan/versions.py, pipeline/needs.py)."""
    return bool(path) and path[0] in STRING_FIELDS[config.kind]


def hash_as_written_out(obj: KubeObject, texts: dict[int, str], beside: dict[tuple[str, str], str]) -> str:
    """The content hash of a config whose data holds references, as its data
    is written out: the scalars `texts` names (by id) with their new text,
    and the entries `beside` ((field, key): text) set. Read from its tree:
    needs.py keeps the data of a config the field-spec walk found a
    reference in whole."""
    fields = validate(obj)
    for field in STRING_FIELDS[obj.kind]:
        node = fields.nodes[field]
        if not isinstance(node, MappingNode):
            continue
        strings = dict(fields.dict_of(field))
        for key, value in entries(node):
            if id(value) in texts:
                strings[json_key(key)] = texts[id(value)]
        for (at, key), text in beside.items():
            if at == field:
                strings[key] = text
        fields.strings[field] = strings
    fields.folded = False
    return content_hash(obj.kind, obj.node, fields)


def _read(obj: KubeObject, folded: ConfigFolder | None) -> ConfigContent:
    written_type = get_str(obj.node, "type")
    try:
        fields = validate(obj, folded)
    except PostrenderError as refused:
        return ConfigContent("", False, False, written_type, refused)
    secret = obj.kind == "Secret"
    token = secret and _is_token_type(fields.nodes["type"])
    content = ConfigContent(content_hash(obj.kind, obj.node, fields), is_empty(fields), token, written_type)
    # The text first: most configs never say it, and a search in C is cheaper
    # than a lookup. A key may also be written with escapes ("immut\u0061ble").
    # Only a document's own object: a List's item's document is the whole
    # List, and searched for each item it made reading a List quadratic (a
    # List of 100,000 ConfigMaps: over 10 minutes).
    text = obj.document.text if obj.item is None else None
    immutable = get(obj.node, "immutable") if text is None or "immutable" in text or "\\" in text else None
    content.immutable = isinstance(immutable, ScalarNode) and json_value(immutable) is True
    # Only a name kustomize may have suffixed is worth kustomize's own hash.
    if secret and hash_suffix(obj.name or "") not in (None, content.hash):
        content.kustomize_hash = kustomize_secret_hash(fields)
    return content


def _is_token_type(node: Node | None) -> bool:
    return isinstance(node, ScalarNode) and node.value == "kubernetes.io/service-account-token"


def is_empty(fields: Fields) -> bool:
    """No data at all: no or empty data, binaryData and stringData."""
    for field in ("data", "binaryData", "stringData"):
        node = fields.nodes[field]
        if isinstance(node, MappingNode) and node.value:
            return False
    return True


def validate(obj: KubeObject, folded: ConfigFolder | None = None) -> Fields:
    """Refuses what the API server or the hash cannot take; returns the
    fields read, with the string fields' entries the hash then reads.
    `folded`: the entries of the fields it holds, checked as they were
    composed (index/folding.py)."""
    if not obj.name:
        # Where the name goes: its `metadata:` line, where there is one (errors60).
        key = next((k for k, _ in obj.node.value if k.value == "metadata"), None)
        raise PostrenderError(f"{obj.kind} has no metadata.name", obj.location(key))
    fields = Fields(obj.node)
    secret_type = fields.nodes["type"]
    if (obj.kind == "Secret" and secret_type is not None and string_value(secret_type) is None
            and not is_null(secret_type)):
        raise PostrenderError("Secret type must be a string" + not_a_string_hint(secret_type),
                              obj.location(secret_type))
    immutable = get(obj.node, "immutable")
    if immutable is not None and not is_null(immutable) and not (
            isinstance(immutable, ScalarNode) and isinstance(json_value(immutable), bool)):
        # The API server refuses it (a *bool); a version would say true over it.
        hint = (" (it is written as a string: write true or false unquoted)"
                if string_value(immutable) is not None else "")
        raise PostrenderError(f"{obj.kind} immutable must be true or false{hint}", obj.location(immutable))
    for field in ("data", "binaryData", "stringData"):
        node = fields.nodes[field]
        if not isinstance(node, MappingNode):
            if node is None or is_null(node):
                continue
            raise PostrenderError(f"{obj.kind} {field} must be a mapping", obj.location(node))
        if field not in STRING_FIELDS[obj.kind]:
            continue  # not a field of this kind: the API server drops it
        if folded is not None and field in folded.fields:
            fields.strings[field] = folded.fields[field]
            fields.folded = True
            continue
        encoded = STRING_FIELDS[obj.kind][field]
        strings: dict[str, object] = {}
        for key, value in entries(node):
            # Only the key is named: the value may be a secret.
            label = json_key(key)
            text = string_value(value)
            if text is None or encoded and go_base64(text) is None:
                # As written, and as Kubernetes reads it where that differs
                # (`n:` is the key "false"): the template holds the former.
                shown = label if key.value == label else f"{key.value} (a key Kubernetes reads as {quoted(label)})"
            if text is None:
                what = "a base64 string" if encoded else "a string"
                hint = (not_a_string_hint(value, obj.kind == "ConfigMap", obj.kind == "Secret")
                        if isinstance(value, ScalarNode)
                        else f" (write the text as a block scalar: `{key.value}: |`)")
                raise PostrenderError(f"{field}.{shown} must be {what}{hint}", obj.location(value),
                                      format_path((field, label)))
            if encoded and go_base64(text) is None:
                plain = "stringData" if obj.kind == "Secret" else "data"  # a ConfigMap has no stringData
                raise PostrenderError(f"{field}.{shown} is not valid base64 (encode it, or move it to {plain} as plain"
                                      " text)", obj.location(value), format_path((field, label)))
            strings[label] = text
        fields.strings[field] = strings  # as hashing.string_entries reads them
    return fields

