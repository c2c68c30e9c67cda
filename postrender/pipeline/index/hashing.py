"""kustomize's content hash (api/hasher, v3.8.2 and later), over what
Kubernetes stores.

kustomize hashes a ConfigMap's kind, data and binaryData, a Secret's kind,
type, data and stringData, and an empty name, so the hash is a pure function
of content and renaming never changes it. postrender feeds it the object as
Kubernetes reads it (go-yaml v2 through sigs.k8s.io/yaml: YAML 1.1 keys,
merge keys applied), and a Secret in the form the API server stores:
stringData merged into data as base64, a missing or empty type as Opaque.
A ConfigMap, or a Secret with only data and an explicit type (what
kustomize's generators write), gets exactly kustomize's name.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Iterator

from ...syntax.jsontext import dumps, go_dumps, go_escaped
from ...syntax.nodes import (
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
    entries,
    get,
    json_key,
    json_value,
    string_value,
)
from .folding import FoldedEntries

_ENCODE = str.maketrans({"0": "g", "1": "h", "3": "k", "a": "m", "e": "t"})
DEFAULT_SECRET_TYPE = "Opaque"


def content_hash(kind: str, node: MappingNode, fields: Fields | None = None) -> str:
    return encode_hash(sha256_of(_canonical_pieces(kind, node, fields)))


def sha256_hex(*texts: str) -> str:
    """SHA-256 of the texts' UTF-8, one after the other, in hex."""
    return sha256_of(texts)


def sha256_of(pieces: Iterable[str]) -> str:
    """SHA-256 of the pieces' UTF-8, one after the other, in hex, each
    piece let go of once hashed (a generator's: _hashed_pieces). hashlib
    loads at the first hash: a stream with nothing to hash never loads
    OpenSSL (~3 ms of start-up)."""
    import hashlib

    digest = hashlib.sha256()
    for text in pieces:
        digest.update(text.encode("utf-8"))
    return digest.hexdigest()


def encode_hash(hex_digest: str) -> str:
    return hex_digest[:10].translate(_ENCODE)


def short_hash(*texts: str) -> str:
    return encode_hash(sha256_hex(*texts))


# What encode_hash writes: hex digits, 0 1 3 a e replaced.
_HASH_ALPHABET = frozenset("2456789bcdfghkmt")


def hash_suffix(name: str) -> str | None:
    """The last 10 characters of a name `<base>-<10 characters>` when they
    could be a content hash (encode_hash's alphabet); None otherwise."""
    if len(name) <= 11 or name[-11] != "-":
        return None
    suffix = name[-10:]
    return suffix if _HASH_ALPHABET.issuperset(suffix) else None


class Fields:
    """The top-level fields of a ConfigMap or Secret that its hash and the
    plan read, each looked up once: `nodes` holds each one's node (None when
    missing), `strings` each mapping's string_entries once read. The plan's
    validation reads every entry anyway and puts in what it read, so the
    hash reads no entry twice."""

    __slots__ = ("nodes", "strings", "folded")
    NAMES = ("type", "data", "binaryData", "stringData")

    def __init__(self, node: MappingNode) -> None:
        self.nodes: dict[str, Node | None] = {name: get(node, name) for name in self.NAMES}
        # A large config's entries may be folded as they were composed
        # (index/folding.py): their JSON, which the hash reads as it is;
        # `folded` says whether any field's are (validate sets it). Derived
        # from `strings` for every config hashed instead, it cost the
        # stream +0.1% instructions.
        self.strings: dict[str, dict[str, object] | FoldedEntries] = {}
        self.folded = False

    def written_length(self) -> int:
        """How many characters of text the fields are written in."""
        return sum(node.end_mark - node.start_mark for node in self.nodes.values() if node is not None)

    def entries_of(self, name: str) -> dict[str, object] | FoldedEntries:
        """string_entries of the field, a mapping."""
        known = self.strings.get(name)
        if known is None:
            known = self.strings[name] = string_entries(self.nodes[name])  # type: ignore[arg-type]
        return known

    def dict_of(self, name: str) -> dict[str, object]:
        """entries_of, as a dict."""
        known = self.entries_of(name)
        return known.as_dict() if isinstance(known, FoldedEntries) else known


def canonical_json(kind: str, node: MappingNode, fields: Fields | None = None) -> str:
    """`fields`: the object's, when read already."""
    return "".join(_canonical_pieces(kind, node, fields))


def _canonical_pieces(kind: str, node: MappingNode, fields: Fields | None) -> Iterator[str]:
    """canonical_json's text, in pieces."""
    if fields is None:
        fields = Fields(node)
    if kind == "ConfigMap":
        hashed: dict[str, object] = {"kind": "ConfigMap", "name": "", "data": _field(fields, "data")}
        if isinstance(fields.nodes["binaryData"], MappingNode):  # kustomize leaves out a missing or null one
            hashed["binaryData"] = fields.entries_of("binaryData")
    else:
        hashed = {"kind": "Secret", "name": "", "type": secret_type(fields), "data": stored_secret_data(fields)}
    return _hashed_pieces(hashed, fields)


def _hashed_pieces(hashed: dict[str, object], fields: Fields) -> Iterator[str]:
    """go_json of what is hashed, in pieces: a folded field's are its own
    (FoldedEntries.pieces), each of many entries; a long text's are parts of
    it (_parted_pieces)."""
    if not fields.folded:
        if fields.written_length() < _PARTED_FROM:
            yield _go_json_of_strings(hashed)
        else:
            yield from _parted_pieces(hashed)
        return
    first = True
    # Its keys are kustomize's field names: their JSON is their text, quoted.
    for key, value in sorted(hashed.items()):
        yield ("{" if first else ",") + f'"{key}":'
        first = False
        if isinstance(value, FoldedEntries):
            yield from value.pieces()
        else:
            yield from _parted_pieces(value)
    yield "}"


# What is hashed is written whole where its fields are written in fewer
# characters than this (their values are longer only through aliases).
# From it on, it is written in pieces of about this length, each hashed and
# let go of before the next is written. A ConfigMap holding one value of 24
# MB had it four times over at once as it was hashed, and five as the JSON
# was joined (the text read, the value composed, the JSON's parts, its
# whole, its UTF-8): 143 MiB at its peak, more than composing it took
# (118). JSON escapes each character on its own, so a text's JSON is the
# JSON of its parts, joined.
_PARTED_FROM = 1 << 20


def _texts_length(value: object) -> int:
    """The length of the texts in what is hashed: its own, and its entries'
    (a config's fields are texts, or mappings of texts)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(map(_texts_length, value.values()))
    return 0


def _parted_pieces(value: object) -> Iterator[str]:
    """_go_json_of_strings(value) in pieces of at most _PARTED_FROM
    characters before escaping, but where a mapping's key is longer."""
    if isinstance(value, str) and len(value) >= _PARTED_FROM:
        yield '"'
        for at in range(0, len(value), _PARTED_FROM):
            yield _go_json_of_strings(value[at : at + _PARTED_FROM])[1:-1]
        yield '"'
    elif isinstance(value, dict) and _texts_length(value) >= _PARTED_FROM:
        # Sorted as json.dumps sorts them (sort_keys): by the keys' code points.
        for at, (key, item) in enumerate(sorted(value.items())):
            yield ("{" if not at else ",") + _go_json_of_strings(key) + ":"
            yield from _parted_pieces(item)
        yield "}"
    else:
        yield _go_json_of_strings(value)


def kustomize_secret_hash(fields: Fields) -> str | None:
    """kustomize's own hash of a Secret as written, where it is not
    content_hash's; None where they agree.

    kustomize's hasher reads a Secret as written: `type` as its text ("" when
    missing), `stringData` apart from `data` (kept when it is a mapping), so a
    Secret it suffixes with `stringData` or without `type` (a generator's
    output patched, a resource annotated needsHashSuffix) carries this hash.
    Its generators write neither: `data` and an explicit `type` only.
    """
    type_node = fields.nodes["type"]
    written_type = type_node.value if isinstance(type_node, ScalarNode) else ""
    string_data = isinstance(fields.nodes["stringData"], MappingNode)
    if not string_data and written_type == secret_type(fields):
        return None
    hashed = {"kind": "Secret", "name": "", "type": written_type, "data": _field(fields, "data")}
    if string_data:
        hashed["stringData"] = fields.entries_of("stringData")
    return encode_hash(sha256_of(_hashed_pieces(hashed, fields)))


def secret_type(fields: Fields) -> str:
    """The API server defaults a missing, null or empty type to Opaque
    (string_value reads no string in a missing or null one)."""
    value = fields.nodes["type"]
    text = string_value(value) if value is not None else None
    return text or DEFAULT_SECRET_TYPE


def stored_secret_data(fields: Fields) -> object:
    """A Secret's data as the API server stores it: stringData, when it holds
    anything, overwrites data's keys, base64-encoded. data values stay as
    written (kustomize hashes their text)."""
    strings = fields.dict_of("stringData") if isinstance(fields.nodes["stringData"], MappingNode) else {}
    if not strings:
        return _field(fields, "data")
    # A copy: what `fields` holds stays data as written.
    merged = dict(fields.dict_of("data")) if isinstance(fields.nodes["data"], MappingNode) else {}
    for key, value in strings.items():
        text = value if isinstance(value, str) else go_json(value)  # validate refuses non-strings
        merged[key] = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return merged


def go_json(value: object) -> str:
    """The JSON Go's encoding/json writes for a value: what kubectl sends,
    and what kustomize's hasher reads."""
    return go_escaped(go_dumps(value))


def _go_json_of_strings(value: object) -> str:
    """go_json of a value that holds no float: what a config's hash reads
    (kind, name, type, and data entries that configs.validate has found to
    be strings), without go_json's look for floats through every entry."""
    return go_escaped(dumps(value, sort_keys=True, separators=(",", ":")))


def _field(fields: Fields, name: str) -> object:
    """A top-level field as kustomize's hasher reads it: "" when missing, a
    scalar's text as written (`data: null` hashes "null", `data:` ""), a
    mapping's entries."""
    value = fields.nodes[name]
    if value is None:
        return ""
    if isinstance(value, ScalarNode):
        return value.value
    if isinstance(value, MappingNode):
        return fields.entries_of(name)
    return to_json_value(value)


def string_entries(node: MappingNode) -> dict[str, object]:
    """data, binaryData or stringData: JSON keys to the strings Kubernetes
    gets (index/configs.validate has refused anything else)."""
    out: dict[str, object] = {}
    for key, value in entries(node):
        text = string_value(value)
        out[json_key(key)] = text if text is not None else to_json_value(value)
    return out


def to_json_value(node: Node) -> object:
    """The JSON kubectl sends for a node.

    Callers bound the input first (pipeline/read refuses alias bombs and what
    kubectl cannot read), and aliases resolve to shared nodes, so this
    stays linear in the expanded size. An explicit stack, not recursion:
    values nest as deep as --max-depth allows.
    """
    root: dict[str, object] = {}
    # Each task puts a node's value at container[slot].
    stack: list[tuple[Node, dict | list, object]] = [(node, root, "value")]
    while stack:
        current, into, slot = stack.pop()
        if isinstance(current, ScalarNode):
            into[slot] = json_value(current)  # type: ignore[index]
        elif isinstance(current, SequenceNode):
            into[slot] = items = [None] * len(current.value)  # type: ignore[index]
            stack.extend((item, items, i) for i, item in reversed(list(enumerate(current.value))))
        else:
            into[slot] = mapping = {}  # type: ignore[index]
            pairs = []
            for key, value in entries(current):
                label = json_key(key)
                mapping[label] = None
                # Tasks run in order, so of equal labels the later one wins, as in go-yaml v2.
                pairs.append((value, mapping, label))
            stack.extend(reversed(pairs))
    return root["value"]
