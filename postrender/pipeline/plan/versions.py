"""Stage 4: decide, per ConfigMap and Secret, whether and how it is versioned.

Naming rules (documented in the README):
- the versioned name is `<base>-<hash>`, the hash being kustomize's;
- a name stays within 253 characters: a base longer than 242 characters is
  cut to 236, trailing `-`/`.` dropped, and `-<5 characters of the hash of
  the full base>` appended, so distinct long names stay distinct;
- the `postrender.io/base-name` label holds the base when it is a valid label
  value, else its first 52 characters plus `-<10-character hash>`; the full
  base then also goes in the `postrender.io/original-name` annotation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable

from ...records import record, replace
from ...errors import PostrenderError
from ..graph.references import Graph
from ..index.hashing import Fields, content_hash, short_hash
from ..index.objects import ObjectIndex, base_name_of
from ...syntax.nodes import (
    STR_TAG,
    MappingNode,
    Node,
    ScalarNode,
    entries,
    get,
    go_base64,
    is_null,
    json_key,
    scalar_value,
    string_value,
)
from ..read import KubeObject
from ...vocabulary import (
    ANNOTATION_COPY_OF,
    ANNOTATION_KEEP_ORIGINAL,
    ANNOTATION_VERSIONED,
    KUSTOMIZE_NEEDS_HASH,
    LABEL_CONTENT_HASH,
    LABEL_VERSIONED,
    is_label_value,
)

MAX_NAME = 253
HASH_SUFFIX_LENGTH = 11  # "-" + 10 characters


@record(frozen=True, eq=False)
class Version:
    obj: KubeObject
    hash: str
    base_name: str
    name: str  # the name it ends with
    excluded: str | None = None  # why it keeps its name
    unchanged: bool = False  # already versioned with this content
    keep_original: bool = False

    @property
    def versioned(self) -> bool:
        return self.excluded is None

    @property
    def renamed(self) -> bool:
        return self.versioned and not self.unchanged and self.name != self.obj.name


@record
class Options:
    keep_original: str = "auto"  # options.KEEP_ORIGINAL_MODES
    hooks_hidden: bool = False
    # Version every object, referenced or not (--version-all).
    version_all: bool = False

    def keeps_original(self, obj: KubeObject) -> bool:
        """Whether a versioned object also keeps an unsuffixed, mutable copy.

        `auto` copies every Secret, so a chart's `lookup` of its own Secret
        (the generated-password idiom) finds last release's value and a
        no-change upgrade keeps it; under Helm 3 (hooks_hidden) every object,
        since hooks, which Helm 3 never shows a post-renderer, name originals.
        The object's own annotation wins either way.
        """
        marked = obj.annotations.get(ANNOTATION_KEEP_ORIGINAL)
        if marked in ("true", "false"):
            return marked == "true"
        mode = self.keep_original
        if mode == "auto":
            return obj.kind == "Secret" or self.hooks_hidden
        return mode == "all" or (mode == "secrets" and obj.kind == "Secret")


UNREFERENCED = (
    "no field postrender rewrites references it, so a new name would roll nothing "
    f'(opt in: {LABEL_VERSIONED}: "true" or --version-all)'
)
EMPTY = "no data: a placeholder a controller fills in; kept mutable"


class Plan:
    """Final once made: every stage after the plan reads it, none changes it."""

    def __init__(self, versions: Iterable[Version]):
        self.versions: tuple[Version, ...] = tuple(versions)
        # Keyed by the object itself (it hashes by identity): an id would be
        # an int object of its own per version.
        self._by_object = {v.obj: v for v in self.versions}

    def of(self, obj: KubeObject) -> Version | None:
        return self._by_object.get(obj)

    def alive_names(self, index: ObjectIndex) -> set[tuple[str, str, str]]:
        """(kind, namespace, name) of every ConfigMap and Secret the output holds:
        final names, and original names an object keeps or a copy carries on."""
        alive: set[tuple[str, str, str]] = set()
        for version in self.versions:
            obj = version.obj
            namespace = index.namespace_of(obj)
            alive.add((obj.kind, namespace, version.name))
            if not version.versioned or version.keep_original:
                alive.add((obj.kind, namespace, obj.name or ""))
        return alive


def plan(
    graph: Graph,
    options: Options,
    excluded_by_producers: dict[int, str] | None = None,
    held: Collection[int] = (),
    fixed: dict[int, str] | None = None,
    read_by_name: dict[int, str] | None = None,
    copies: Collection[int] = (),
) -> Plan:
    """`excluded_by_producers`: objects that keep their names whatever happens
    (produced, Reloader, --strategy=annotate), with why; `held`: ids of
    references left as written; `fixed` and `read_by_name`: objects a program
    reads by name (byname.py) — the fixed-name table wins over an opt-in, the
    other signals do not; `copies`: objects a reference left as written still
    needs, so a renamed one also keeps an unsuffixed copy (reloader.py)."""
    produced = excluded_by_producers or {}
    fixed = fixed or {}
    read_by_name = read_by_name or {}
    consumed = consumed_objects(graph, held)
    versions: list[Version] = []
    for obj in graph.config_objects:
        fields = validate(obj)
        key = id(obj)
        version = _version(obj, options, fields, produced.get(key), fixed.get(key), read_by_name.get(key),
                           key in consumed)
        if key in copies and version.renamed:
            version = replace(version, keep_original=True)
        versions.append(version)
    return Plan(versions)


def consumed_objects(graph: Graph, held: Collection[int] = ()) -> set[int]:
    """Objects a rewritable reference that reads their content resolves to:
    the ones a new name rolls something for."""
    return {
        id(ref.target) for ref in graph.references
        if ref.target is not None and ref.spec.consumes and id(ref) not in held
    }


def opted_in(obj: KubeObject) -> bool:
    return obj.annotations.get(ANNOTATION_VERSIONED) == "true" or obj.labels.get(LABEL_VERSIONED) == "true"


def is_empty(fields: Fields) -> bool:
    """No data at all: no or empty data, binaryData and stringData."""
    for field in ("data", "binaryData", "stringData"):
        node = fields.nodes[field]
        if isinstance(node, MappingNode) and node.value:
            return False
    return True


def validate(obj: KubeObject) -> Fields:
    """Refuses what the API server or the hash cannot take; returns the
    fields read, with the string fields' entries the hash then reads."""
    if not obj.name:
        raise PostrenderError(f"{obj.kind} has no metadata.name", obj.location())
    # postrender adds keys to these; anything but a mapping would be replaced.
    metadata = get(obj.node, "metadata")
    for field in ("labels", "annotations"):
        node = get(metadata, field)
        if node is not None and not isinstance(node, MappingNode) and not is_null(node):
            raise PostrenderError(f"metadata.{field} must be a mapping", obj.location(node))
    fields = Fields(obj.node)
    secret_type = fields.nodes["type"]
    if obj.kind == "Secret" and secret_type is not None and string_value(secret_type) is None and not is_null(secret_type):
        raise PostrenderError("Secret type must be a string" + _not_a_string(secret_type), obj.location(secret_type))
    for field in ("data", "binaryData", "stringData"):
        node = fields.nodes[field]
        if not isinstance(node, MappingNode):
            if node is None or is_null(node):
                continue
            raise PostrenderError(f"{obj.kind} {field} must be a mapping", obj.location(node))
        if field not in _STRING_FIELDS[obj.kind]:
            continue  # not a field of this kind: the API server drops it
        encoded = field == "binaryData" or (obj.kind == "Secret" and field == "data")
        strings: dict[str, object] = {}
        for key, value in entries(node):
            # Only the key is named: the value may be a secret.
            label = json_key(key)
            text = string_value(value)
            if text is None:
                what = "a base64 string" if encoded else "a string"
                hint = _not_a_string(value, label, show_value=obj.kind == "ConfigMap")
                raise PostrenderError(f"{field}.{label} must be {what}{hint}", obj.location(value))
            if encoded and go_base64(text) is None:
                raise PostrenderError(f"{field}.{label} is not valid base64 (encode it, or move it to stringData as plain text)", obj.location(value))
            strings[label] = text
        fields.strings[field] = strings  # as hashing.string_entries reads them
    return fields


# The fields whose values the API server takes as strings (base64 for
# binaryData and a Secret's data); a ConfigMap's stringData or a Secret's
# binaryData is no field of theirs.
_STRING_FIELDS = {"ConfigMap": ("data", "binaryData"), "Secret": ("data", "stringData")}


def _not_a_string(node: Node, label: str = "", show_value: bool = False) -> str:
    """Why Kubernetes reads a node as something other than a string, and the
    mechanical fix. The value itself is quoted back only when `show_value`
    (a short ConfigMap value): a Secret's never is."""
    if not isinstance(node, ScalarNode):
        return f" (write the text as a block scalar: `{label or 'key'}: |`)"
    value = scalar_value(node)  # read.py has refused what kubectl cannot read
    if value is None:
        what = "null"
        fix = 'write "" for an empty string' if not node.style else "drop the !!null tag"
    else:
        what = "a boolean" if isinstance(value, bool) else "a number"
        fix = "drop its tag or make it !!str"
        if node.tag == STR_TAG:
            shown = show_value and len(node.value) <= 40
            fix = f"quote it: {json.dumps(node.value, ensure_ascii=False)}" if shown else "quote it"
    if node.tag == STR_TAG:
        return f" ({fix}; unquoted, Kubernetes reads it as {what} under YAML 1.1)"
    return f" ({fix}; its tag makes it {what})"


def _version(
    obj: KubeObject,
    options: Options,
    fields: Fields,
    produced_by: str | None,
    fixed: str | None,
    read_by_name: str | None,
    consumed: bool,
) -> Version:
    """`fields`: the object's, as validate read them."""
    digest = content_hash(obj.kind, obj.node, fields)
    name = obj.name or ""
    if obj.annotations.get(KUSTOMIZE_NEEDS_HASH) == "enabled":
        return Version(obj, digest, name, name, excluded="kustomize generator output: kustomize adds its own suffix")
    if obj.annotations.get(ANNOTATION_VERSIONED) == "false" or obj.labels.get(LABEL_VERSIONED) == "false":
        reason = "a keep-original copy" if ANNOTATION_COPY_OF in obj.annotations else "opted out (postrender.io/versioned: \"false\")"
        return Version(obj, digest, name, name, excluded=reason)
    if obj.kind == "Secret" and _is_token_type(fields.nodes["type"]):
        return Version(obj, digest, name, name, excluded="service-account token Secret (filled in by the token controller)")
    if produced_by:
        return Version(obj, digest, name, name, excluded=produced_by)
    # A controller writes into an empty object under its name; an immutable,
    # renamed copy would stay empty while the controller writes elsewhere.
    if is_empty(fields):
        return Version(obj, digest, name, name, excluded=EMPTY)
    if fixed:
        return Version(obj, digest, name, name, excluded=fixed)
    if not (opted_in(obj) or options.version_all):
        if read_by_name:
            return Version(obj, digest, name, name, excluded=read_by_name)
        if not consumed:
            return Version(obj, digest, name, name, excluded=UNREFERENCED)
    keep = options.keeps_original(obj)
    base = base_name_of(obj)
    target = versioned_name(base, digest)
    if obj.labels.get(LABEL_VERSIONED) == "true" and obj.labels.get(LABEL_CONTENT_HASH) == digest and name == target:
        return Version(obj, digest, base, name, unchanged=True, keep_original=False)
    return Version(obj, digest, base, target, keep_original=keep)


def is_service_account_token(obj: KubeObject) -> bool:
    """The token controller fills such a Secret in, under its own name."""
    return obj.kind == "Secret" and _is_token_type(get(obj.node, "type"))


def _is_token_type(node: Node | None) -> bool:
    return isinstance(node, ScalarNode) and node.value == "kubernetes.io/service-account-token"


def versioned_name(base: str, digest: str) -> str:
    if len(base) + HASH_SUFFIX_LENGTH > MAX_NAME:
        base = base[: MAX_NAME - HASH_SUFFIX_LENGTH - 6].rstrip("-.") + "-" + short_hash(base)[:5]
    return f"{base}-{digest}"


def label_value(base: str) -> str:
    if is_label_value(base):
        return base
    head = re.sub(r"[^-A-Za-z0-9_.]", "-", base[:52]).rstrip("-_.").lstrip("-_.")
    return f"{head}-{short_hash(base)}" if head else short_hash(base)
