"""A large config's data read entry by entry as it is composed, so that a
dense one (a ConfigMap of 500,000 keys) is never held as a node graph.

What the stages after read need of a config's data is its content hash, the
names its entries give a program (graph/byname.data_names), and whether it
holds any entry (index/configs.py). The hash is of kustomize's JSON: each
entry's key and value, keys sorted. So a large document's data, binaryData
and stringData entries are handed over one by one as they are composed
(syntax.nodes.Fold, read.parts._Dropping) and kept as their JSON text alone,
in sorted runs, merged once the document is read.

Only what needs no other rule is taken this way: keys Kubernetes accepts as
a config's keys (`[-._a-zA-Z0-9]+`, so their JSON is their text, quoted,
and JSON texts sort as their keys do), each written plain so it reads as its
text, or quoted; values that are strings (valid base64 where the field is
encoded). Anything else, and two keys alike, makes the document composed
again whole (`ok` False), where the read stage refuses or reads it as ever.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from json.encoder import encode_basestring  # type: ignore[attr-defined]

from ...lazyre import LazyPattern
from ...syntax.jsontext import go_escaped
from ...syntax.nodes import (
    WHOLE_REACH, Fold, MappingNode, Node, Reach, ScalarNode, entries, get, go_base64, is_string, surely_its_text,
)

# What the API server accepts as a ConfigMap's or Secret's key.
_CONFIG_KEY = LazyPattern(r"[-._a-zA-Z0-9]+")
# The fields whose values the API server takes as strings, of each kind,
# and whether as base64 (binaryData, a Secret's data): a ConfigMap's
# stringData or a Secret's binaryData is no field of theirs. The fields
# folded, and the ones configs.validate checks.
STRING_FIELDS = {"ConfigMap": {"data": False, "binaryData": True}, "Secret": {"data": True, "stringData": False}}
# Of a config whose kind is not known yet (ConfigFolder): whether a field is
# base64 where every kind that has it agrees, else None (`data`: a
# Secret's is, a ConfigMap's is not).
def _encoded_in_either(field: str) -> bool | None:
    encoded = {fields[field] for fields in STRING_FIELDS.values() if field in fields}
    return encoded.pop() if len(encoded) == 1 else None


_EITHER_KIND = {field: _encoded_in_either(field) for fields in STRING_FIELDS.values() for field in fields}
# The fields whose entries a program may read names from (graph/byname.data_names),
# each with whether it holds base64: not binaryData, which holds no text.
NAMING_FIELDS = {kind: {field: STRING_FIELDS[kind][field] for field in fields}
                 for kind, fields in {"ConfigMap": ("data",), "Secret": ("stringData", "data")}.items()}


class FoldedEntries:
    """A mapping's string entries as kustomize's hasher writes them: their
    JSON object, keys sorted, in parts (`pieces`), once `close`d. Held in
    parts of RUN entries, and hashed part by part (hashing.content_hash):
    one string of it all, and the canonical JSON around it, and their UTF-8,
    would be three copies at once."""

    __slots__ = ("parts", "_entries")

    def __init__(self) -> None:
        from ...syntax.runs import SortedRuns  # (and heapq): for large documents only

        self.parts: list[str] = []  # the entries' JSON, `"key":"value"`, joined by "," a batch at a time
        self._entries = SortedRuns()  # each entry's JSON, which holds no line break

    @property
    def count(self) -> int:
        return self._entries.count

    def pieces(self) -> Iterator[str]:
        """The JSON object's text, in parts."""
        yield "{"
        for at, part in enumerate(self.parts):
            if at:
                yield ","
            yield part
        yield "}"

    def as_dict(self) -> dict[str, object]:
        """The entries as string_entries reads them (a Secret's stringData
        merged into its data: hashing.stored_secret_data)."""
        import json

        return json.loads("".join(self.pieces()))

    def add(self, entry: str) -> None:
        self._entries.add(entry)

    def close(self) -> bool:
        """Merges the entries into `parts`; False when two keys are alike.
        Keys hold no `"` and sort before any text that follows them (`":`),
        so the entries sort as their keys do."""
        last = None  # the key before this batch's
        for batch in self._entries.batches():
            # Sorted, two alike are neighbours: each entry's key is its
            # text up to the second `"`.
            keys = _KEY.findall("\n".join(batch))
            if len(set(keys)) != len(keys) or keys[0] == last:
                return False
            last = keys[-1]
            self.parts.append(",".join(batch))
        return True


_KEY = LazyPattern(r'^"[^"]*"', re.M)


# The names a config's data entry gives a program (graph/byname.entry_names):
# (field, key, value, its text) -> what it found, each (path, value, name,
# via), `value` the entry's scalar; kept with the object's content.
ScanEntry = Callable[[str, str, ScalarNode, str], Iterable[tuple]]


class NameScan:
    """How a config's entries are read for names (graph/byname): `entry`
    reads an entry's text (ScanEntry); `names_itself(key)`, whether an
    entry of one line under `key` may be a name itself (`configMapName: x`),
    asked of each such entry before its text is handed to `entry`. (A plain
    class: a NamedTuple's costs every run's start-up, read.split._ChunkStarts.)"""

    __slots__ = ("entry", "names_itself")

    def __init__(self, entry: ScanEntry, names_itself: Callable[[str], bool]) -> None:
        self.entry = entry
        self.names_itself = names_itself


class ConfigFolder:
    """One object's folded entries (read.parts._Dropping): `take` is the
    composer's `fold`, `finish` takes each mapping's last entries, which the
    composer leaves in place, and tells whether all were taken."""

    def __init__(self, kind: str | None, scan: NameScan | None = None) -> None:
        """`kind` None: not known yet, as the data comes before it (kustomize
        and kubectl write `apiVersion`, `data`, `kind`): `settle` says it."""
        self.kind = kind
        self._encoded = STRING_FIELDS[kind] if kind is not None else _EITHER_KIND
        self._scan = scan
        # Whether every `data` value taken before the kind was known is
        # base64, as a Secret's must be.
        self._base64 = True
        self.fields: dict[str, FoldedEntries] = {}
        # What `scan` found, in the order of the entries: as the kind reads
        # them, or before it is known, as a ConfigMap would; and as a Secret
        # would (its `data` decoded, its `stringData`), for `settle`.
        self.named: list[tuple] = []
        self._named_as_secret: list[tuple] = []
        self.ok = True
        self.root: MappingNode | None = None  # the document's root, once finished
        # Where each field's first entry taken starts: its mapping's text
        # runs from there to its end (read.parts._Dropping, of a document with anchors).
        self.first_keys: dict[str, int] = {}
        # The values taken that are aliases, each the node it names (its
        # anchor stands before its key), by id: the nodes a document
        # composed whole shares (read.shared.shared_nodes), where every alias is
        # a folded value; and how many aliases there were.
        self.aliased: dict[int, Node] = {}
        self.aliases = 0

    def take(self, name: str, key: Node, value: Node) -> None:
        if not self.ok:
            return
        text = key.value if key.__class__ is ScalarNode else None
        # (is_string: its text is the string Kubernetes reads.)
        string = value.value if value.__class__ is ScalarNode and is_string(value) else None  # type: ignore[arg-type]
        encoded = self._encoded[name]
        data = go_base64(string) if encoded and string is not None else None
        if (text is None or string is None or _CONFIG_KEY.fullmatch(text) is None  # type: ignore[arg-type]
                or not surely_its_text(key)  # type: ignore[arg-type]
                or encoded and data is None):
            self.ok = False  # read again whole, where read and validate say why
            return
        if encoded is None and self._base64 and go_base64(string) is None:  # (a ConfigMap's: its first, mostly)
            self._base64 = False
        entry = go_escaped(f'"{text}":{encode_basestring(string)}')
        entries = self.fields.get(name)
        if entries is None:
            entries = self.fields[name] = FoldedEntries()
            self.first_keys[name] = key.start_mark
        entries.add(entry)
        if value.start_mark < key.start_mark:  # an alias: its node is written before
            self.aliases += 1
            self.aliased[id(value)] = value
        if self._scan is None:
            return
        if self.kind is not None:
            encoded = NAMING_FIELDS[self.kind].get(name)
            if encoded is not None:
                self._scan_entry(self.named, name, text, value, string, data, encoded)  # type: ignore[arg-type]
            return
        # The kind not known yet: as each kind that has the field reads it.
        for kind, named in (("ConfigMap", self.named), ("Secret", self._named_as_secret)):
            encoded = NAMING_FIELDS[kind].get(name)
            if encoded is not None:
                self._scan_entry(named, name, text, value, string, data, encoded)  # type: ignore[arg-type]

    def _scan_entry(self, named: list[tuple], name: str, key: str, value: ScalarNode, string: str,
                    data: bytes | None, encoded: bool) -> None:
        """What an entry taken names, into `named`: its text, or its base64
        decoded (`data`, when decoded already), holding a `:` (`key: name`)."""
        text = naming_text(string, encoded, key, self._scan.names_itself, data)  # type: ignore[union-attr]
        if text is not None:
            named.extend(self._scan.entry(name, key, value, text))  # type: ignore[union-attr]

    def settle(self, kind: str) -> None:
        """The kind of a folder made without one, once the composer knows it
        is a config's whose data is folded: the entries taken must be of
        that kind's fields, and a Secret's `data` base64, or the document is
        composed again whole. (A folder never settled is, too: `finish`.)"""
        fields = STRING_FIELDS[kind]
        if (any(name not in fields for name in self.fields)
                or fields["data"] and "data" in self.fields and not self._base64):
            self.ok = False
            return
        self.kind = kind
        self._encoded = fields
        if kind != "ConfigMap":
            self.named = self._named_as_secret
        self._named_as_secret = []

    def finish(self, root: Node | None) -> bool:
        """Whether every entry of the folded mappings was taken, and no two
        keys of one are alike: then `root` is the document's, and `fields`
        what its data holds."""
        if not self.ok:
            return False
        if not self.fields:
            return True  # nothing was taken out: the document is whole
        if self.kind is None:
            return False  # taken before a kind that never came, or folds nothing
        if not isinstance(root, MappingNode):
            return False
        for name in self.fields:
            node = get(root, name)
            if not isinstance(node, MappingNode) or not node.value:
                return False
            for key, value in node.value:  # those after the last taken out (syntax.nodes.Fold)
                self.take(name, key, value)
        if not self.ok or not all(entries.close() for entries in self.fields.values()):
            return False
        if self._scan is not None:
            # A field too small to be taken out is whole in the tree: what it
            # names is found there, so that `named` is all the data names.
            for name, encoded in NAMING_FIELDS[self.kind].items():
                if name not in self.fields:
                    self.named.extend(names_in_field(get(root, name), encoded, self._scan, name))
            self.named.sort(key=in_document_order)
        self.root = root
        return True


def in_document_order(found: tuple) -> int:
    """What a scan found sorts by where its entry is (a stable sort keeps an
    entry's own names in order): a Secret's fields in the order written,
    whether taken out as composed or read whole."""
    return found[1].start_mark


def names_in_field(node: Node | None, encoded: bool, scan: NameScan, field: str) -> Iterator[tuple]:
    """What the entries of a config's field, whole in its tree, name
    (graph/byname.data_names): each string entry's naming_text, handed to `scan`."""
    if not isinstance(node, MappingNode):
        return
    for key, value in entries(node):
        if isinstance(value, ScalarNode) and is_string(value):
            written = key.value if isinstance(key, ScalarNode) else "?"
            text = naming_text(value.value, encoded, written, scan.names_itself)
            if text is not None:
                yield from scan.entry(field, written, value, text)


def naming_text(string: str, encoded: bool, key: str, names_itself: Callable[[str], bool],
                data: bytes | None = None) -> str | None:
    """The text of an entry a name may be read from, or None: one holding a
    `:` (a file of settings, `key: name`), or one short line under a key
    that says it names one (`names_itself`: `configMapName: x`); `string`
    itself, or, `encoded`, its base64 decoded (`data`, when decoded already)
    when that is UTF-8 text. Binary data holds no configuration a program
    reads names from."""
    if not encoded:
        if ":" in string:
            return string
        return string if len(string) <= NAME_LINE and "\n" not in string and names_itself(key) else None
    if data is None:
        data = go_base64(string)
    # (Looked at before decoding: most values name nothing, and are not decoded.)
    if data is None or b":" not in data and (len(data) > NAME_LINE or b"\n" in data or not names_itself(key)):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


# The longest entry that may be a name itself: a namespace, a `/` and a
# name (253 characters), or a few of them, comma-separated.
NAME_LINE = 1024


def fold_reach(kind: str) -> Reach:
    """What a DroppingComposer keeps of a config of this kind: everything
    but the entries of the fields folded."""
    reach: Reach = {name: Fold(name) for name in STRING_FIELDS[kind]}
    reach["*"] = WHOLE_REACH
    return reach
