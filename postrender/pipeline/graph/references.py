"""Stage 3: the reference graph — who uses which ConfigMap and Secret, where."""

from __future__ import annotations

import re

from array import array
from bisect import bisect_left
from collections.abc import Callable, Container, Iterator, Mapping, Sequence
from enum import Enum
from typing import Any

from ...records import record
from ...fieldspecs import ARGUMENT_FIELDS, CONFIG_KINDS, FieldSpec, ReferenceTable, Segment, argument_items
from ...fieldspecs.walk import Accessor, Compiled, PathTree, SpecIndex, item_before, walk
from ..index.folding import STRING_FIELDS
from ..index.objects import ObjectIndex, ObjectKey, across_namespaces, suffixed_later_by_kustomize
from ...syntax.nodes import (
    DROPPED_ITEM, MERGE_KEY, NULL_WORDS, MappingNode, Node, ScalarNode, SequenceNode, StringItems, default_tag, entries,
    format_path, get, get_str, is_null, is_string, scalar_value, string_map,
)
from ..read.documents import NO_STRINGS, KubeObject

Path = tuple[str | int, ...]


class Resolution(Enum):
    RESOLVED = "resolved"
    CROSS_NAMESPACE = "cross-namespace"  # matched only between the implicit and an explicit namespace
    DANGLING = "dangling"
    AMBIGUOUS = "ambiguous"


@record(eq=False, extra_slots=("_field_path",))
class Reference:
    referrer: KubeObject
    spec: FieldSpec
    node: ScalarNode
    path: Path
    name: str
    namespace: str | None  # stated in the reference itself
    prefix: str  # text kept before the name, e.g. "ns/" in an nginx annotation
    optional: bool
    # Set only when the reference resolved, exactly or across namespaces.
    target: KubeObject | None = None
    resolution: Resolution = Resolution.DANGLING
    # The objects an AMBIGUOUS name matches; empty otherwise (one shared
    # empty tuple, not a list each: a render holds every reference).
    candidates: Sequence[KubeObject] = ()
    # Why the name means the object of that name in each namespace that uses
    # the referrer, where it does: the namespace field holds a CSI template
    # (`${volumesnapshot.namespace}`: each snapshot's, _csi_template), or
    # the reference states no namespace where the spec says its reader then
    # takes each user's (keepsNameWithoutNamespace). None elsewhere.
    each_namespace: str | None = None

    @property
    def target_kind(self) -> str:
        return self.spec.target_kind

    @property
    def keeps_name(self) -> str | None:
        """Why the name must stay as written (render._holds), or None: a
        name meant in each namespace (each_namespace), where a new name
        would reach the one namespace's object the render renamed and miss
        every other namespace's of that name, or the spec's keepsName."""
        return self.each_namespace or self.spec.keeps_name

    @property
    def field_path(self) -> str:
        # Asked for again and again by the reports; the path never changes.
        try:
            return self._field_path
        except AttributeError:
            self._field_path: str = format_path(self.path)
            return self._field_path


# A non-empty string some path of `build`'s `scanned` specs reaches:
# (object, the scalar, what comes before it (string_context), its path).
Scanned = tuple[KubeObject, ScalarNode, str | None, Path]


@record
class Graph:
    index: ObjectIndex
    references: list[Reference]
    config_objects: list[KubeObject]


@record(frozen=True, eq=False)
class PodTemplate:
    """A workload's pod template, as read while its document was whole: the
    read stage keeps none of its nodes (pipeline/needs.py), so what the
    stages after it read of a template is here. `path`: where it sits in the
    object (the empty path: a Pod is its own); `start`: its offset in the
    document's text; `annotations`: its metadata.annotations (Reloader's and
    dependency annotations count there too)."""

    path: Path
    start: int
    annotations: Mapping[str, str]


def pod_templates(obj: KubeObject, table: ReferenceTable, immutable: bool = False) -> tuple[PodTemplate, ...]:
    """The pod templates of a workload, for annotations that must roll it
    (one per item where the path crosses a list, as an Experiment's
    templates). `immutable`: only those the API server never lets change.

    Asked for each reference by several stages (holds, config hashes,
    dependencies, Reloader, retention): found once per workload and table,
    first while the object is whole (the read stage asks: templates_read).
    A kind without templates (most objects) needs no memo."""
    paths = table.template_paths_written(obj.kind, obj.api_version, immutable)
    if not paths:
        return ()
    what = "immutable pod templates" if immutable else "pod templates"
    facts = table.object_facts.get(what)
    if facts is None:
        facts = table.object_facts[what] = {}
    known = facts.get(obj)
    if known is None:
        known = facts[obj] = _find_pod_templates(obj.node, paths)
    return known


def pod_metadata(obj: KubeObject, table: ReferenceTable) -> Path | None:
    """Where an object that is no pod template itself keeps the metadata its
    controller copies into its pods (a Prometheus's spec/podMetadata: a
    podSpecs row's podMetadata); None where it keeps none."""
    segments = table.pod_metadata_path(obj.kind, obj.group, obj.api_version.rpartition("/")[2])
    return tuple(segment.key for segment in segments) if segments else None


def templates_read(obj: KubeObject, table: ReferenceTable) -> None:
    """Find an object's pod templates now, while its document is whole."""
    pod_templates(obj, table)
    pod_templates(obj, table, immutable=True)


def _find_pod_templates(root: MappingNode, paths: tuple[tuple[Segment, ...], ...]) -> tuple[PodTemplate, ...]:
    found: dict[Path, PodTemplate] = {}
    for segments in paths:
        for node, path in _templates_at(root, segments, ()):
            if path not in found:
                found[path] = PodTemplate(_PATHS.setdefault(path, path), node.start_mark, annotations_of(node))
    return tuple(found.values())


# Each template path found, one tuple for every workload where it is found
# (every Deployment's is ("spec", "template")): a workload's templates are
# held to the end of a render, and a path of its own took 64 bytes of each.
_PATHS: dict[Path, Path] = {}


def annotations_of(holder: MappingNode) -> Mapping[str, str]:
    """A mapping's metadata.annotations, as strings (most templates have
    none: read's one empty mapping, as for an object's)."""
    return string_map(get(get(holder, "metadata"), "annotations")) or NO_STRINGS


def _templates_at(node: Node | None, segments: tuple[Segment, ...], path: Path) -> Iterator[tuple[MappingNode, Path]]:
    if isinstance(node, SequenceNode) and segments:
        for j, item in enumerate(node.value):
            yield from _templates_at(item, segments, path + (j,))
    elif not segments:
        if isinstance(node, MappingNode):
            yield node, path
    else:
        yield from _templates_at(get(node, segments[0].key), segments[1:], path + (segments[0].key,))


def template_holding(obj: KubeObject, path: Path, table: ReferenceTable) -> PodTemplate | None:
    """The pod template a field sits in (a Pod is its own, at the empty path)."""
    for template in pod_templates(obj, table):
        if path[: len(template.path)] == template.path:
            return template
    return None


def in_immutable_template(obj: KubeObject, path: Path, table: ReferenceTable) -> bool:
    """Whether a field sits in a pod template the API server never lets
    change (a Job's, a bare Pod's; podSpecs rows marked `immutable`) of an
    object the deployer updates in place. A hook is deleted and re-created
    instead (recreatedWhenAnnotated), so its template may change."""
    if is_hook(obj, table):
        return False
    return any(path[: len(t.path)] == t.path for t in pod_templates(obj, table, immutable=True))


def is_hook(obj: KubeObject, table: ReferenceTable) -> bool:
    """A deployer's hook (helm.sh/hook, argocd.argoproj.io/hook)."""
    return any(annotation in obj.annotations for annotation in table.recreated_annotations)


def runs_before_apply(obj: KubeObject, table: ReferenceTable) -> bool:
    """A hook that runs before the release's other objects are applied
    (pre-install, pre-upgrade, PreSync): what it names must exist already."""
    for annotation, values in table.before_apply.items():
        written = obj.annotations.get(annotation, "")
        # Most objects carry none of these annotations: nothing to split
        # (the empty text's one phase is "", rarely a value listed).
        if (written or "" in values) and _phases(written) & values:
            return True
    return False


def created_before_every_apply(obj: KubeObject, table: ReferenceTable) -> bool:
    """A hook created before the release's other objects on every install
    and upgrade alike (Helm's pre-install and pre-upgrade, Argo CD's PreSync),
    so that a new version of it exists before anything names it. Each
    deployer reads its own annotation and ignores the other's (Helm never
    reads argocd.argoproj.io/hook), so every one the object carries must say
    so."""
    written = [(values, obj.annotations[annotation]) for annotation, values in table.before_every_apply.items()
               if annotation in obj.annotations]
    return bool(written) and all(values <= _phases(text) for values, text in written)


def _phases(written: str) -> set[str]:
    """A hook annotation's phases, in lower case: Helm reads `Pre-Upgrade`
    as `pre-upgrade` (its manifest sorter lowercases each). Argo CD reads
    its own exactly, a `presync` being no hook to it; taken for one, the
    hook keeps naming configs as written, and they keep their names: the
    safe side. The table's values are lowercased as it loads."""
    return {phase.strip().lower() for phase in written.split(",")}


def is_config_object(obj: KubeObject) -> bool:
    # is_config_kind, written out: asked of every object by several stages.
    return obj.kind in CONFIG_KINDS and obj.api_version == "v1"


def shown_value(obj: KubeObject, path: Path, value: str) -> str | None:
    """`value`, written at `path` in `obj`, where a KRM result's
    `currentValue` may show it: None in a Secret's data or stringData, whose
    entries are never shown, whatever they hold (a name a program reads)."""
    secret = obj.kind == "Secret" and is_config_object(obj)
    return None if secret and bool(path) and path[0] in STRING_FIELDS["Secret"] else value


def is_config_kind(kind: str, api_version: str) -> bool:
    """Whether objects of this kind and apiVersion are ConfigMaps or Secrets
    (is_config_object writes it out: change both)."""
    return kind in CONFIG_KINDS and api_version == "v1"


def kind_from_paths(obj: KubeObject, table: ReferenceTable) -> list[Path]:
    """Where a kindFrom spec's check reads an object of this kind (the same
    for every object of its kind, group and version)."""
    return kind_from_paths_of(table, obj.kind, obj.api_version)


def kind_from_paths_of(table: ReferenceTable, kind: str, api_version: str) -> list[Path]:
    """kind_from_paths, for a kind and apiVersion."""
    group, _, version = api_version.rpartition("/")
    compiled = table.applicable(kind, group, version)
    specs = compiled.specs if compiled is not None else ()
    return [tuple(segment.key for segment in spec.kind_from[1]) for spec in specs if spec.kind_from is not None]


def reads(obj: KubeObject, table: ReferenceTable, found: Found, templates: bool) -> Iterator[tuple[Path, bool]]:
    """The paths in an object later stages read, each with whether
    everything under it is read too: what the read stage must keep of the
    document (pipeline/needs.py). The references themselves were found as
    it was read (`found`, by a Finder): each keeps its own scalar, and the
    pod templates' facts are read then too (templates_read). Kept: what a
    kindFrom spec's check reads when the whole stream is known, a grant's
    list of names (it gains names beside the one it holds; any other name
    in a list, a container's flag, is its own scalar to the rewrite), and
    with `templates`, the pod templates with their metadata, for runs that
    annotate most of them (rewrite.py composes a document again for the
    few others)."""
    for path in kind_from_paths(obj, table):
        yield path, False
    for ref in found.references:
        if not ref.spec.grants:
            continue  # its own scalar is held (ref.node), which is all the rewrite replaces
        if isinstance(ref.path[-1], int):
            yield ref.path[:-1], True
        else:
            granting = granting_list(ref)
            if granting is not None:
                # A grant whose name is a field of a list's item gains an
                # item like it (rewrite._granting_entry): the list, and its items.
                yield granting, True
    if not templates:
        return
    for immutable in (False, True):
        for template in pod_templates(obj, table, immutable):
            yield template.path, False
            yield template.path + ("metadata",), True
    # A kind that is no pod template itself takes its hash where its pods'
    # metadata comes from (a Prometheus's spec/podMetadata; config_hash.py).
    keys = pod_metadata(obj, table)
    if keys:
        for end in range(1, len(keys)):
            yield keys[:end], False
        yield keys, True


def granting_list(ref: Reference) -> Path | None:
    """The path of the list a grant's name is an item's field of (a
    ReferenceGrant's `to`), or None: read keeps that list whole, and rewrite
    adds an item to it, so the two ask here."""
    path = ref.path
    return path[:-2] if ref.spec.grants and len(path) >= 3 and isinstance(path[-2], int) else None


class PodStrings:
    """The non-empty strings one walk found at the scanned paths, in the
    order the walk gives them, held as columns: a scalar, what comes before
    it (string_context), and its path as the path of the list it is an item
    of, shared by its items, and its index there (-1: the path is whole).
    Strings taken out as composed (TakenStrings) are one entry a run of
    them (_Run), their columns their list's own.

    Kept from read to graph.build for every object, and one Scanned tuple
    and one path each was some 190 bytes a string: a container of 200,000
    `args` held 36 MiB of them, though build keeps only the few that may
    name a config (`wanted`), made whole there."""

    __slots__ = ("nodes", "contexts", "paths", "indexes")

    def __init__(self) -> None:
        self.nodes: list[ScalarNode | _Run] = []
        self.contexts: list[str | None] = []
        self.paths: list[Path] = []
        self.indexes = array("q")

    def __len__(self) -> int:
        return len(self.nodes)

    def add(self, node: ScalarNode, context: str | None, path: Path) -> None:
        self.nodes.append(node)
        self.contexts.append(context)
        last = path[-1]
        if last.__class__ is int:
            held = self.paths[-1] if self.paths else None
            base = path[:-1]
            # The items of one list share its path: the one tuple, kept once.
            self.paths.append(held if held is not None and held == base else base)
            self.indexes.append(last)  # type: ignore[arg-type]
        else:
            self.paths.append(path)
            self.indexes.append(-1)

    def add_run(self, held: _TakenItems, lo: int, hi: int, base: Path) -> None:
        """The strings of a list's items taken out as they were composed,
        `held`'s from `lo` to `hi` (`base`: their list's path): one entry
        for all, their columns held's own (_Run)."""
        self.nodes.append(_Run(held, lo, hi))
        self.contexts.append(None)
        self.paths.append(base)
        self.indexes.append(-1)

    def add_from(self, other: PodStrings, at: int) -> None:
        """Another's string `at`, one the walk found (a node)."""
        self.nodes.append(other.nodes[at])
        self.contexts.append(other.contexts[at])
        self.paths.append(other.paths[at])
        self.indexes.append(other.indexes[at])

    def extend(self, other: PodStrings) -> None:
        self.nodes += other.nodes
        self.contexts += other.contexts
        self.paths += other.paths
        self.indexes += other.indexes

    def wanted(self, obj: KubeObject, wanted: Callable[[str, str | None], bool]) -> Iterator[Scanned]:
        """The strings `wanted` keeps (given each and its context), each as a Scanned of `obj`."""
        for at, node in enumerate(self.nodes):
            if node.__class__ is _Run:
                yield from node.wanted(obj, wanted, self.paths[at])  # type: ignore[union-attr]
                continue
            if wanted(node.value, self.contexts[at]):  # type: ignore[union-attr]
                index = self.indexes[at]
                path = self.paths[at]
                yield obj, node, self.contexts[at], path if index < 0 else path + (index,)  # type: ignore[misc]


_UNTAGGED = default_tag(ScalarNode)


class TakenStrings:
    """What takes a large workload's plain env items out as they are
    composed (syntax.nodes.StringItems; pipeline/needs.py marks where): an
    item of a `name` and a `value`, both scalars, the value untagged, holds
    no reference (needs.py marks only lists where no reference spec reaches
    those keys) and nothing a stage reads but its value as a pod string,
    which columns keep (_TakenValues), in place of some 1,000 bytes of nodes
    and offsets (64,000 entries: 125 -> 59 MiB peak in stop 63; 48 MiB
    with texts joined and no copy in PodStrings, 42 MiB with the walk not
    stepping into the items taken out, stop 64). The walk of its object
    merges them in (_found). `root`: the root of the document they were
    taken from, once read keeps it (a document composed again whole takes
    none). A container's `args` and `command` likewise (_TakenArguments)."""

    __slots__ = ("root", "lists", "arguments")

    def __init__(self) -> None:
        self.root: Node | None = None
        self.lists: list[_TakenValues] = []  # a container's `env`, in document order
        self.arguments: list[_TakenArguments] = []  # a container's `args` and `command`, in document order

    def take(self, items: SequenceNode, at: int, mark: StringItems) -> bool:
        if mark.flags is not None:
            return self._take_argument(items, at, mark)
        item = items.value[at]
        if item.__class__ is not MappingNode or len(item.value) != 2:  # type: ignore[arg-type]
            return False
        if mark.keeps is not None and mark.keeps(item):
            return False
        (first, one), (second, other) = item.value  # type: ignore[misc, attr-defined]
        if not (first.__class__ is second.__class__ is one.__class__ is other.__class__ is ScalarNode):
            return False
        if first.tag is not _UNTAGGED or second.tag is not _UNTAGGED or first.style or second.style:
            return False
        if (first.value, second.value) == ("name", "value"):
            value = other
        elif (first.value, second.value) == ("value", "name"):
            value = one
        else:
            return False
        if value.tag is not _UNTAGGED:
            return False
        if is_string(value) and value.value:  # as _found keeps a string
            name = get_str(item, "name") or ""  # string_context's, for a `value` ("": None)
            if value.style not in _STYLE_CODES or "\0" in value.value or "\0" in name:  # type: ignore[operator]
                return False
            held = self.lists[-1] if self.lists and self.lists[-1].items is items else None
            if held is None:
                held = _TakenValues(items)
                self.lists.append(held)
            held.add(at, value, name)
        items.value[at] = DROPPED_ITEM
        return True

    def _take_argument(self, items: SequenceNode, at: int, mark: StringItems) -> bool:
        """Takes out a container's argument, an untagged string no flag spec
        reads as a name (StringItems' `flags`), keeping its text, offsets,
        style and what comes before it (string_context)."""
        item = items.value[at]
        if item.__class__ is not ScalarNode or item.tag is not _UNTAGGED or item.style not in _STYLE_CODES:
            return False
        arguments = self.arguments
        held = arguments[-1] if arguments and arguments[-1].items is items else None
        written, before = _argument_before(items, at, held)
        text: str = item.value  # type: ignore[assignment]
        if "\0" in text or not is_string(item) or _names_by_flag(text, before, mark.flags):  # type: ignore[arg-type]
            return False
        if held is None:
            held = _TakenArguments(items)
            arguments.append(held)
        held.add(at, item, mark.first if at == 0 else _flag_before(written))  # type: ignore[arg-type]
        items.value[at] = DROPPED_ITEM
        return True


def _argument_before(items: SequenceNode, at: int, held: _TakenArguments | None) -> tuple[str | None, str | None]:
    """The item before argument `at` as string_context reads it (a scalar's
    text) and as a flag spec does (a string's, _string_before); one taken
    out already is `held`'s last."""
    if at == 0:
        return None, None
    previous = items.value[at - 1]
    if previous is DROPPED_ITEM and held is not None and held.indexes[-1] == at - 1:
        return held.last, held.last
    if previous.__class__ is ScalarNode:
        return previous.value, previous.value if is_string(previous) else None  # type: ignore[arg-type, return-value]
    return None, None


def _names_by_flag(text: str, before: str | None, flags: frozenset[str]) -> bool:
    """Whether a flag spec of `flags` (every spelling) reads an argument as a
    name: FieldSpec.read's test."""
    flag, eq, _ = text.partition("=")
    return bool(eq) and flag in flags or not text.startswith("-") and before in flags


def _flag_before(written: str | None) -> str | None:
    """What comes before an argument (string_context) whose list's item
    before is written so, read as composed or taken out: the flag a bare
    `--flag` gives it, else None."""
    if written is not None and written.startswith("-") and "=" not in written:
        words = written.split()
        return words[-1] if words else None
    return None


# A taken argument's style (ScalarNode.style), one byte each.
_STYLES: tuple[str, ...] = ("", "'", '"', "|", ">")
_STYLE_CODES = {style: code for code, style in enumerate(_STYLES)}
# Taken arguments' texts are joined this many to a string: one str object
# an argument held some 56 bytes.
_TEXTS_JOINED = 1024


class _JoinedTexts:
    """Texts appended one by one, joined by NUL _TEXTS_JOINED to a string
    (none may hold a NUL): one str object a text held some 56 bytes."""

    __slots__ = ("_joined", "_texts", "_split")

    def __init__(self) -> None:
        self._joined: list[str] = []
        self._texts: list[str] = []  # those not joined yet
        self._split: tuple[int, list[str]] = (-1, [])  # the joined string split last

    def append(self, text: str) -> None:
        texts = self._texts
        texts.append(text)
        if len(texts) == _TEXTS_JOINED:
            self._joined.append("\0".join(texts))
            texts.clear()

    def between(self, lo: int, hi: int) -> Iterator[str]:
        """The texts from `lo` to `hi`, in order."""
        while lo < hi:
            group, first = divmod(lo, _TEXTS_JOINED)
            texts = self._group(group)
            last = min(hi - group * _TEXTS_JOINED, len(texts))
            yield from texts[first:last]
            lo = group * _TEXTS_JOINED + last

    def __getitem__(self, k: int) -> str:
        group, at = divmod(k, _TEXTS_JOINED)
        return self._group(group)[at]

    def _group(self, group: int) -> list[str]:
        if group == len(self._joined):
            return self._texts
        if self._split[0] != group:
            self._split = (group, self._joined[group].split("\0"))
        return self._split[1]


class _TakenItems:
    """The strings of one list's items TakenStrings took out, as columns:
    each one's index, offsets and style, and its text (_JoinedTexts). What
    comes before each (string_context) and its path are the kind's own
    (_TakenArguments, _TakenValues)."""

    __slots__ = ("items", "indexes", "starts", "ends", "styles", "_texts")

    def __init__(self, items: SequenceNode) -> None:
        self.items: SequenceNode | None = items  # until the walk has found its path (_merge_taken)
        self.indexes = array("q")
        self.starts = array("q")
        self.ends = array("q")
        self.styles = bytearray()
        self._texts = _JoinedTexts()

    def __len__(self) -> int:
        return len(self.indexes)

    def _add(self, at: int, node: ScalarNode) -> None:
        self.indexes.append(at)
        self.starts.append(node.start_mark)
        self.ends.append(node.end_mark)
        self.styles.append(_STYLE_CODES[node.style])  # type: ignore[index]
        self._texts.append(node.value)

    def strings(self, lo: int, hi: int) -> Iterator[tuple[int, str, str | None]]:
        """Each taken from `lo` to `hi`: its position, text and context."""
        raise NotImplementedError

    def path(self, base: Path, k: int) -> Path:
        """The path of the `k`th taken's string, its list's being `base`."""
        raise NotImplementedError

    def node(self, k: int) -> ScalarNode:
        """The node of the `k`th taken, as composed: a string, untagged."""
        return ScalarNode(_UNTAGGED, self._texts[k], self.starts[k], self.ends[k], _STYLES[self.styles[k]])


class _TakenArguments(_TakenItems):
    """The arguments of one container's list TakenStrings took out, and the
    contexts that are not None (an argument after a bare `--flag`: few), by
    position among those taken. One Pod of 200,000 `args`: some 30 bytes an
    argument, against some 190 of a node, its offsets and its text."""

    __slots__ = ("contexts", "last")

    def __init__(self, items: SequenceNode) -> None:
        super().__init__(items)
        self.contexts: dict[int, str] = {}
        self.last = ""  # the last one's text

    def add(self, at: int, node: ScalarNode, context: str | None) -> None:
        if context is not None:
            self.contexts[len(self.indexes)] = context
        self._add(at, node)
        self.last = node.value

    def strings(self, lo: int, hi: int) -> Iterator[tuple[int, str, str | None]]:
        contexts = self.contexts
        for k, text in enumerate(self._texts.between(lo, hi), lo):
            yield k, text, contexts.get(k)

    def path(self, base: Path, k: int) -> Path:
        return base + (self.indexes[k],)


class _TakenValues(_TakenItems):
    """The plain items of one container's `env` TakenStrings took out: each
    one's `value`, and its `name` (its context; "" for None), texts joined
    as the values' are. One Deployment of 64,000 `env` entries: some 40
    bytes an item, against some 220 of two str objects and a copy of its
    columns in PodStrings."""

    __slots__ = ("_names",)

    def __init__(self, items: SequenceNode) -> None:
        super().__init__(items)
        self._names = _JoinedTexts()

    def add(self, at: int, value: ScalarNode, name: str) -> None:
        self._add(at, value)
        self._names.append(name)

    def strings(self, lo: int, hi: int) -> Iterator[tuple[int, str, str | None]]:
        names = self._names.between(lo, hi)
        for k, text in enumerate(self._texts.between(lo, hi), lo):
            yield k, text, next(names) or None

    def path(self, base: Path, k: int) -> Path:
        return base + (self.indexes[k], "value")


class _Run:
    """PodStrings' entry for strings taken out as composed, `held`'s from
    `lo` to `hi`: their nodes are made only for those `wanted` keeps."""

    __slots__ = ("held", "lo", "hi")

    def __init__(self, held: _TakenItems, lo: int, hi: int) -> None:
        self.held, self.lo, self.hi = held, lo, hi

    def wanted(self, obj: KubeObject, wanted: Callable[[str, str | None], bool], base: Path) -> Iterator[Scanned]:
        held = self.held
        for k, text, context in held.strings(self.lo, self.hi):
            if text and wanted(text, context):  # an empty one as _found keeps a string
                yield obj, held.node(k), context, held.path(base, k)


# What one walk of an object found while its document was whole (Finder):
# the names at the reference specs' paths, unresolved, and the non-empty
# strings at the scanned paths.
@record(eq=False)
class Found:
    references: Sequence[Reference]
    strings: PodStrings  # _NO_STRINGS where it found none: nothing adds to a Found once made


class Finder:
    """Walks an object's field specs, and `scanned`'s paths with them: a
    workload's containers are stepped into once for both. The read stage
    asks it for each object while its document is whole (pipeline/needs.py),
    so that nothing the walk passes through needs to be kept for later."""

    def __init__(self, table: ReferenceTable, scanned: SpecIndex | None = None) -> None:
        self._table = table
        self._scanned = scanned
        self._walks: dict[tuple[str, str, str], tuple[Compiled, int] | None] = {}
        # The same by kind and apiVersion as written, as each object asks
        # (splitting the apiVersion for each cost render +0.13% instructions).
        self._walks_written: dict[tuple[str, str], tuple[Compiled, int] | None] = {}
        # One tuple for each path references were found at: the workloads
        # of a stream name their configs at the same few paths, and a
        # reference keeps its path to the end of a render.
        self._paths: dict[Path, Path] = {}
        # The List asked last of its whole text, and each walk's answer
        # (_may_reach).
        self._whole: list = [None, {}]

    def walked(self, kind: str, group: str, version: str) -> tuple[Compiled, int] | None:
        """The specs one walk of an object of this kind, group and version
        takes, reference specs and scanned ones together, and how many of
        them (the first) are reference specs; None: none apply."""
        key = (kind, group, version)
        both = self._walks.get(key, _MISSING)
        if both is _MISSING:
            scanned = self._scanned.applicable(*key) if self._scanned is not None else None
            both = self._walks[key] = _joined(self._table.applicable(*key), scanned)
        return both

    def __call__(self, obj: KubeObject, taken: TakenStrings | None = None) -> Found:
        """`taken`: the items of `obj` taken out as it was composed."""
        # Looked up here first: asked of every object, most kinds walked before.
        written = (obj.kind, obj.api_version)
        both = self._walks_written.get(written, _MISSING)
        if both is _MISSING:
            group, _, version = obj.api_version.rpartition("/")
            both = self._walks_written[written] = self.walked(obj.kind, group, version)
        if both is None:
            return NOTHING
        compiled, own = both
        return _found(obj, compiled, own, self._whole, self._paths, taken)


# What the walk finds in most objects, and in a workload its pod strings'
# walk found none in: one for all, which nothing adds to.
_NO_STRINGS = PodStrings()
NOTHING = Found((), _NO_STRINGS)


def build(index: ObjectIndex, table: ReferenceTable, scanned: SpecIndex | None = None,
          wanted: Callable[[str, str | None], bool] = lambda text, context: True,
          found: Callable[[KubeObject], Found | None] | None = None) -> tuple[Graph, list[Scanned]]:
    """The graph, and the `wanted` strings at the paths of `scanned`
    (byname's container args, commands and env values). The strings come
    object by object, each spec's in document order; they are not kept in
    the graph, which lives to the end of a render, as their one reader is
    done with them long before (and `wanted` keeps the list to the few it
    needs).

    `found`: what a Finder with the same `scanned` found in an object as it
    was read, or None for an object to walk now."""
    references: list[Reference] = []
    strings: list[Scanned] = []
    # A user's config often restates a built-in spec (say, without the
    # group): the same field must still be one reference, not two. Two of a
    # List's items reaching one node through an alias, at the same path in
    # each, are two references, one from each. A ConfigMap's and a Secret's
    # spec reaching one node are two only where each grants by name (an RBAC
    # rule for both resources names objects of either kind); elsewhere a
    # field names one object, and the first spec (the built-in table's, then
    # a user's in order) reads it.
    # A kindFrom field whose kind is unknown may name a config of each kind
    # it can: each is its own reference, and one naming nothing is dropped.
    seen: set[tuple[int, int, Path, str | None]] = set()
    maybe: set[int] = set()
    finder = Finder(table, scanned)
    for obj in index.objects:
        walked = found(obj) if found is not None else None
        if walked is None:
            walked = finder(obj)
        strings.extend(walked.strings.wanted(obj, wanted))
        for ref in walked.references:
            applies = True if ref.spec.kind_from is None else _kind_applies(obj, ref.spec, index)
            if applies is False:
                continue
            key = (id(ref.node), id(obj), ref.path,
                   ref.spec.target_kind if ref.spec.grants or applies is None else None)
            if key not in seen:
                seen.add(key)
                references.append(ref)
                if applies is None:
                    maybe.add(id(ref))
    for ref in references:
        _resolve(ref, index)
    references = _in_each_namespace(references, index)
    # A flag's or variable's value that names nothing in the stream is just a
    # value; so is a field of unknown kind, as far as the stream tells.
    references = [ref for ref in references
                  if not ((ref.spec.stream_only or id(ref) in maybe) and ref.resolution is Resolution.DANGLING)]
    configs = [obj for obj in index.objects if is_config_object(obj)]
    return Graph(index, references, configs), strings


_MISSING: Any = object()


def _in_each_namespace(references: list[Reference], index: ObjectIndex) -> list[Reference]:
    """A name meant in each namespace (each_namespace), or kept as written
    by a cluster-scoped referrer, that matches objects in several namespaces
    is not ambiguous: it means each of them (a ClusterSecretStore's referent
    Secret, read in each ExternalSecret's namespace; a ClusterAnalysisTemplate's,
    in each AnalysisRun's). So it is a reference to each, each held, where
    one ambiguous reference held none: warned of, and refused under
    --keep-original=none with advice to give a cluster-scoped referrer a
    namespace (review62b). A namespaced referrer in the implicit namespace
    reads one of them, wherever it is deployed: still ambiguous (review62e)."""
    def in_each(ref: Reference) -> bool:
        return ref.resolution is Resolution.AMBIGUOUS and ref.keeps_name is not None and (
            ref.each_namespace is not None or ref.referrer.kind in index.cluster_scoped)

    if not any(in_each(ref) for ref in references):
        return references  # most streams
    out: list[Reference] = []
    for ref in references:
        if not in_each(ref):
            out.append(ref)
            continue
        for candidate in ref.candidates:
            one = Reference(ref.referrer, ref.spec, ref.node, ref.path, ref.name, ref.namespace, ref.prefix,
                            ref.optional, candidate, Resolution.RESOLVED)
            one.each_namespace = ref.each_namespace
            out.append(one)
    return out


def _joined(own: Compiled | None, scanned: Compiled | None) -> tuple[Compiled, int] | None:
    """One walk for the reference specs and the scanned ones: the specs of
    both, and how many of them (the first) are reference specs."""
    if scanned is None:
        return None if own is None else (own, len(own.specs))
    if own is None:
        return scanned, 0
    return Compiled([*own.specs, *scanned.specs]), len(own.specs)


Hit = tuple[ScalarNode, Node | None, Path]


def _hits(obj: KubeObject, compiled: Compiled, whole: list | None = None) -> list[tuple[int, FieldSpec, list[Hit]]]:
    """(position, spec, leaves) for each spec that reaches a leaf in one walk
    of the object, specs in table order, each spec's leaves in document
    order (the order references keep). `whole`: _may_reach's memo."""
    if not _may_reach(obj, compiled, whole):
        return []
    by_spec: dict[int, list[Hit]] = {}
    for ends, node, parent, path in walk(compiled.tree, obj.node, YamlNodes):
        hit = (node, parent, path)
        for position in ends:
            by_spec.setdefault(position, []).append(hit)
    specs = compiled.specs
    return [(position, specs[position], by_spec[position]) for position in sorted(by_spec)]


def _found(obj: KubeObject, compiled: Compiled, own: int, whole: list, paths: dict[Path, Path],
           taken: TakenStrings | None = None) -> Found:
    """What _hits gives, read as the walk meets each leaf: the references
    of the first `own` specs, the strings of the scanned ones after them.
    Each leaf is read as it comes, not held as a hit and a path for the
    whole walk: a container of 200,000 `args`, which the flag specs and the
    scanned ones both reach, held 34 MiB of hits at once, most naming
    nothing. The same references and strings, in the same order: table
    order, each spec's in document order."""
    if not _may_reach(obj, compiled, whole) and not (taken and (taken.lists or taken.arguments)):
        return NOTHING
    references: dict[int, list[Reference]] = {}
    strings: dict[int, PodStrings] = {}
    if taken is None or not taken.arguments:
        _walk_leaves(obj, compiled, own, paths, references, strings)
    else:
        # What comes before an argument kept may have been taken out.
        _arguments_taken.update((id(held.items), held) for held in taken.arguments)
        try:
            _walk_leaves(obj, compiled, own, paths, references, strings)
        finally:
            _arguments_taken.clear()
    if taken is not None and (taken.lists or taken.arguments):
        _merge_taken(obj.node, compiled.tree, own, [*taken.lists, *taken.arguments], strings)
    if not references and not strings:
        return NOTHING
    # Held from read to graph.build for every object the walk finds a name
    # in: the references a tuple, and no strings the one empty PodStrings
    # (a Deployment naming its configs held three empty lists and an array,
    # some 400 bytes: 25,000 small apps, 12 MB of 60 at read's end).
    return Found(_references_joined(references), _strings_joined(strings))


def _references_joined(references: dict[int, list[Reference]]) -> tuple[Reference, ...]:
    """The references of each spec, in table order (most objects: one spec's)."""
    if len(references) < 2:
        return tuple(next(iter(references.values()), ()))
    return tuple([ref for position in sorted(references) for ref in references[position]])


def _strings_joined(strings: dict[int, PodStrings]) -> PodStrings:
    """The strings of each scanned spec, in table order: the one spec's own
    where one found any (most workloads: a container's args), not a copy."""
    if len(strings) < 2:
        return next(iter(strings.values()), _NO_STRINGS)
    joined = PodStrings()
    for position in sorted(strings):
        joined.extend(strings[position])
    return joined


def _walk_leaves(obj: KubeObject, compiled: Compiled, own: int, paths: dict[Path, Path],
                 references: dict[int, list[Reference]], strings: dict[int, PodStrings]) -> None:
    """_found's walk: each leaf's references and strings, by spec position."""
    specs = compiled.specs
    for ends, node, parent, path in walk(compiled.tree, obj.node, YamlNodes):
        for position in ends:
            if position >= own:
                if is_string(node) and node.value:
                    held = strings.get(position)
                    if held is None:
                        held = strings[position] = PodStrings()
                    held.add(node, string_context(parent, path), path)
                continue
            for reference in _references(obj, specs[position], ((node, parent, path),), paths):
                references.setdefault(position, []).append(reference)


def _merge_taken(root: Node, tree: PathTree, own: int, lists: list[_TakenItems],
                 strings: dict[int, PodStrings]) -> None:
    """Adds the strings of the items taken out (TakenStrings) to those the
    walk found, at the one scanned spec (past `own`) each list's strings
    end (_taken_position), in document order, where the walk would have met
    them: one spec's leaves come in document order (walk), so by offset. In
    runs (PodStrings.add_run): each run ends before the next string the
    walk found, one kept in its list (a flag's name, an env item a filtered
    spec reads) or in a list after it."""
    by_position: dict[int, list[tuple[_TakenItems, Path]]] = {}
    for held, base, here in _lists_taken(root, tree, {id(held.items): held for held in lists}):
        held.items = None  # its list is the document's to let go of
        by_position.setdefault(_taken_position(held, here, own), []).append((held, base))
    for position, taken in by_position.items():
        walked = strings.get(position, _NO_STRINGS)
        merged = strings[position] = PodStrings()
        at = 0
        for held, base in sorted(taken, key=lambda pair: pair[0].starts[0]):
            k = 0
            while k < len(held):
                while at < len(walked) and walked.nodes[at].start_mark < held.starts[k]:  # type: ignore[union-attr]
                    merged.add_from(walked, at)
                    at += 1
                after = len(held) if at == len(walked) else bisect_left(
                    held.starts, walked.nodes[at].start_mark, k)  # type: ignore[union-attr]
                merged.add_run(held, k, after, base)
                k = after
        for at in range(at, len(walked)):
            merged.add_from(walked, at)


def _taken_position(held: _TakenItems, here: PathTree, own: int) -> int:
    """The scanned spec a taken list's strings end at, `here` the walk's
    tree at the list: an argument list's own, or the one an `env` item's
    `value` ends (pipeline/needs.py marks only lists with one such spec)."""
    if held.__class__ is _TakenValues:
        here = next(below for segment, below in here.children.items() if segment.key == "value")
        return here.ends[0]
    return next(position for position in here.ends if position >= own)


def _lists_taken(root: Node, tree: PathTree,
                 lists: dict[int, _TakenItems]) -> Iterator[tuple[_TakenItems, Path, PathTree]]:
    """Each list items were taken out of, its path, and the walk's tree
    there (found along it, as walk steps: a list's items take the list's
    step)."""
    stack: list[tuple[Node, PathTree, Path]] = [(root, tree, ())]
    while stack and lists:
        node, here, path = stack.pop()
        if isinstance(node, SequenceNode):
            held = lists.pop(id(node), None)
            if held is not None:
                yield held, path, here
                continue
            stack.extend((item, here, path + (j,)) for j, item in enumerate(node.value)
                         if not isinstance(item, ScalarNode))
        elif isinstance(node, MappingNode):
            for segment, below in here.children.items():
                # A list's items are taken only where no filter is on the
                # way, but beside its own `env` a filtered `env[name=...]`
                # (its items stay): that step leads to the same list, and
                # its tree's specs are not the pod strings' (review63).
                child = get(node, segment.key) if not segment.filters else None
                if child is not None:
                    stack.append((child, below, path + (segment.key,)))


def passing_any(segments: Sequence[Segment]) -> Callable[[Node], bool] | None:
    """Whether a list item passes the filters of any of `segments` (as walk
    reads them), or None for none."""
    if not segments:
        return None
    return lambda item: any(YamlNodes.passes(item, segment) for segment in segments)


def _may_reach(obj: KubeObject, compiled: Compiled, whole: list | None) -> bool:
    """compiled.may_reach of the text `obj` is written in (_written_in).
    The items of a List an alias reaches into are each written in the
    whole List: with `whole` (the Finder's [document, {walk: answer}]),
    asked once per List and walk, not once per item (a List of 16,000
    items sharing an anchor searched all of it for each). Every walk's
    answer is kept, not the last one's: items of kinds in turn (an app's
    ConfigMap, Secret, Deployment and Service) each asked again (5,000
    apps: 60 s, against 4.4 s for the List without the anchor)."""
    if whole is None or obj.item is None or not obj.document.shared:
        return compiled.may_reach(_written_in(obj))
    if whole[0] is not obj.document:
        whole[:] = (obj.document, {})
    answers: dict[Compiled, bool] = whole[1]
    answer = answers.get(compiled)
    if answer is None:
        answer = answers[compiled] = compiled.may_reach(obj.document.text)
    return answer


def _written_in(obj: KubeObject) -> str:
    """The text all of `obj`'s nodes are written in: a List's item, its own
    span, where no alias reaches one node from two places (Document.shared
    is empty, so every node under the item is written inside it); the whole
    document otherwise. Every item asking about the whole List made reading
    a List quadratic (5,000 apps as one List: 21 s, against 2 s as a stream)."""
    doc = obj.document
    if obj.item is None or doc.shared:
        return doc.text
    return doc.text[obj.node.start_mark:obj.node.end_mark]


class YamlNodes(Accessor[Node]):
    """Composed YAML nodes, read as Kubernetes reads them (syntax.nodes)."""

    left_out = DROPPED_ITEM

    # isinstance(node, ScalarNode) and isinstance(node, MappingNode), as C
    # methods: the walk asks them of every node it meets, where a Python
    # function is a frame each.
    is_leaf = staticmethod(ScalarNode.__instancecheck__)

    @staticmethod
    def items(node: Node) -> list[Node] | None:
        return node.value if isinstance(node, SequenceNode) else None

    is_mapping = staticmethod(MappingNode.__instancecheck__)

    child = staticmethod(get)

    @staticmethod
    def pairs(node: MappingNode) -> Iterator[tuple[str, Node]]:
        return ((key.value, value) for key, value in entries(node) if isinstance(key, ScalarNode))

    @staticmethod
    def passes(item: Node, segment: Segment) -> bool:
        return all(flt.accepts(_filter_value(get(item, flt.field))) for flt in segment.filters)

    @staticmethod
    def keys(node: MappingNode) -> Container[str]:
        # `get` finds a key only where some key has its very text, or
        # through a merge key (`<<`): then any key may be there.
        texts = {key.value for key, _ in node.value if isinstance(key, ScalarNode)}
        return _EVERY_KEY if MERGE_KEY in texts else texts


class _EveryKey:
    def __contains__(self, key: object) -> bool:
        return True


_EVERY_KEY = _EveryKey()


def _kind_applies(obj: KubeObject, spec: FieldSpec, index: ObjectIndex) -> bool | None:
    """For a kindFrom spec: whether the object it names (in the referrer's
    group) is in the stream and says the name is a v1 object of the spec's
    target kind. Without that object the kind is unknown: None (it may be)
    where the spec keeps the name it reads, so that a config of that name
    keeps it too, as a platform chart's policy bound by an app's binding
    needs (refs61); keeping a name is safe whatever the kind, rewriting
    it is not, so elsewhere nothing counts."""
    if spec.kind_from is None:
        return True
    kind, name_path, kind_path = spec.kind_from
    name = _scalar_at(obj.node, name_path)
    others = index.named(obj.group, kind, name) if name else ()
    for other in others:
        holder = other.node
        for segment in kind_path:
            holder = get(holder, segment.key)
        if _scalar_at(holder, _API_VERSION) == "v1" and _scalar_at(holder, _KIND) == spec.target_kind:
            return True
    return None if not others and spec.keeps_name is not None else False


def _node_at(node: Node | None, path: tuple[Segment, ...]) -> Node | None:
    for segment in path:
        node = get(node, segment.key)
    return node


_API_VERSION = (Segment("apiVersion"),)
_KIND = (Segment("kind"),)


def _scalar_at(node: Node | None, path: tuple[Segment, ...]) -> str | None:
    node = _node_at(node, path)
    return node.value if isinstance(node, ScalarNode) and is_string(node) else None


def find(obj: KubeObject, spec: FieldSpec) -> Iterator[Reference]:
    """The names at one spec's path in one object, unresolved."""
    compiled = _single.get(spec)
    if compiled is None:
        compiled = _single[spec] = Compiled([spec])
    return find_all(obj, compiled)


def find_all(obj: KubeObject, compiled: Compiled) -> Iterator[Reference]:
    """The names at the paths of compiled specs in one object, unresolved:
    spec by spec in their order, as `find` for each would give them."""
    for _position, spec, hits in _hits(obj, compiled):
        yield from _references(obj, spec, hits)


# Specs walked one at a time (producers.yaml rules), compiled once each.
_single: dict[FieldSpec, Compiled] = {}


def _references(obj: KubeObject, spec: FieldSpec, hits: list[Hit],
                paths: dict[Path, Path] | None = None) -> Iterator[Reference]:
    """The names one spec finds at the leaves its path reaches. `paths`:
    the paths met before, each to be kept as the one tuple."""
    for node, parent, path in hits:
        if not is_string(node) or not node.value:
            continue
        read = spec.read(node.value, lambda: _string_before(parent, path), lambda: _strings_of(parent, path))
        if read is None:
            continue
        prefix, value, namespace = read
        each_namespace = None
        if spec.namespace_field and isinstance(parent, MappingNode):
            ns_node = get(parent, spec.namespace_field)
            if isinstance(ns_node, ScalarNode) and is_string(ns_node) and ns_node.value:
                if _csi_template(spec.namespace_field, ns_node.value):
                    namespace, each_namespace = None, (
                        f"its namespace is the template {ns_node.value}: the name means the object of that name"
                        " in each one's own namespace")
                else:
                    namespace = ns_node.value
        if namespace is None and each_namespace is None:
            each_namespace = spec.keeps_name_without_namespace
        optional_node = get(parent, "optional") if isinstance(parent, MappingNode) else None
        optional = isinstance(optional_node, ScalarNode) and scalar_value(optional_node) is True
        if paths is not None:
            path = paths.setdefault(path, path)
        reference = Reference(obj, spec, node, path, value, namespace, prefix, optional)
        if each_namespace is not None:
            reference.each_namespace = each_namespace
        yield reference


# A template the CSI external-provisioner and snapshotter fill in for each
# claim or snapshot (`${pvc.namespace}`, `${volumesnapshot.namespace}`), in
# their own parameters only: elsewhere `${VAR}` is text (Flux substitutes it
# before the API server sees it, into a namespace of its own).
_CSI_TEMPLATE = re.compile(r"\$\{(pvc|pv|volumesnapshot|volumesnapshotcontent|volumegroupsnapshot)\.[a-z.]+\}")


def _csi_template(field: str, value: str) -> bool:
    """Whether a CSI parameter's namespace is a template: the name may then
    mean the object of that name in any namespace, as a field that states none."""
    return field.startswith("csi.storage.k8s.io/") and _CSI_TEMPLATE.fullmatch(value) is not None


def _strings_of(holder: Node | None, path: Path) -> list[str]:
    """The strings of a container's arguments (fieldspecs.argument_items),
    for FieldSpec.read: the last container's kept, as its flags are read
    one after another (asked again for each, a container of many flags
    made its read quadratic)."""
    key = (holder, path[-2:-1])
    if _last_arguments[0] != key:
        items = argument_items(YamlNodes, holder, path)
        if _arguments_taken and any(item is DROPPED_ITEM for item in items):
            items = _arguments_with_taken(holder)
        _last_arguments[:] = [key, [item.value for item in items if isinstance(item, ScalarNode) and is_string(item)]]
    return _last_arguments[1]


# (the container and its list's key, its arguments' strings): see _strings_of.
_last_arguments: list = [None, []]

# id(list) -> the arguments taken out of it, while `_found` walks their object.
_arguments_taken: dict[int, _TakenArguments] = {}


def _arguments_with_taken(holder: Node | None) -> list[Node]:
    """A container's arguments (argument_items), those taken out as they
    were composed made again."""
    out: list[Node] = []
    for field in ARGUMENT_FIELDS[::-1]:
        listed = get(holder, field)
        held = _arguments_taken.get(id(listed))
        taken = 0
        for item in YamlNodes.items(listed) or ():  # type: ignore[arg-type]
            if item is DROPPED_ITEM and held is not None:
                item = held.node(taken)
                taken += 1
            out.append(item)
    return out


def _item_before(holder: Node | None, path: Path) -> Node | None:
    """walk.item_before, an argument taken out as composed made again."""
    previous = item_before(YamlNodes, holder, path)
    if previous is DROPPED_ITEM and _arguments_taken:
        held = _arguments_taken.get(id(get(holder, path[-2])))  # type: ignore[arg-type]
        if held is not None:
            return held.node(bisect_left(held.indexes, path[-1] - 1))  # type: ignore[operator]
    return previous


def _string_before(holder: Node | None, path: Path) -> str | None:
    """The text of the list item before the one at `path`, where it is a string."""
    previous = _item_before(holder, path)
    return previous.value if isinstance(previous, ScalarNode) and is_string(previous) else None


def string_context(parent: Node | None, path: Path) -> str | None:
    """What comes before a string: the flag of a `--flag value` pair, the
    variable an env value sets, or "" for a command's first word (the program).
    `parent`: the mapping holding the string or the list it is an item of
    (an env entry, a container), as the walk that found it gives it."""
    if path[-1] == "value":
        return get_str(parent, "name") or None
    index = path[-1]
    if not isinstance(index, int):
        return None
    if index == 0:
        return "" if path[-2] == "command" else None
    previous = _item_before(parent, path)
    return _flag_before(previous.value) if isinstance(previous, ScalarNode) else None  # type: ignore[arg-type]


def _filter_value(node: Node | None) -> str | list[str] | None:
    """A filtered field's value as Kubernetes reads it: a null field is
    absent (a pointer left nil, a custom object's field pruned and then
    defaulted), and a null item of a list of strings is "" (Go's zero value:
    `apiGroups: [~]` is the core group)."""
    if node is None:
        return None
    if isinstance(node, ScalarNode):
        return None if node.value in NULL_WORDS and is_null(node) else node.value
    if isinstance(node, SequenceNode):
        return ["" if v.value in NULL_WORDS and is_null(v) else v.value
                for v in node.value if isinstance(v, ScalarNode)]
    return []  # a mapping matches no filter value


def _resolve(ref: Reference, index: ObjectIndex) -> None:
    ref.target, ref.resolution, ref.candidates = lookup(index, ref.referrer, ref.target_kind, ref.name, ref.namespace)


def lookup(
    index: ObjectIndex, referrer: KubeObject, kind: str, name: str, namespace: str | None
) -> tuple[KubeObject | None, Resolution, Sequence[KubeObject]]:
    """Where a name a referrer writes leads: (target, resolution, candidates).

    `namespace` is the one the referrer states, if any. The target is set only
    when the name resolved, exactly or across namespaces."""
    if index.renamed_by_kustomize:
        return _lookup_renamed(index, referrer, kind, name, namespace)
    namespace = index.lookup_namespace(referrer, namespace)
    if namespace is not None:
        exact = index.get(ObjectKey("", kind, namespace, name))
        if exact is not None and exact.api_version == "v1":
            # Found by key: the objects of that name in other namespaces
            # (one per tenant, in a stream of many) are not looked at.
            return exact, Resolution.RESOLVED, ()
        if any(version.api_version == "v1"
               for version in index.versions_named("", kind, name, lambda ns: ns == namespace)):
            # A previous run versioned the object of that name here: the
            # name led here then, not across to another namespace's (read
            # again, a name a program reads, left on the old name, would
            # lead to a placeholder the implicit namespace holds).
            return None, Resolution.DANGLING, ()
    candidates = [c for c in index.named("", kind, name) if c.api_version == "v1"]
    if namespace is None:
        # A cluster-scoped referrer with no namespace field: any namespace.
        if len(candidates) == 1:
            candidates = _and_earlier_versions(index, kind, name, candidates, None)
            if len(candidates) == 1:
                return candidates[0], Resolution.RESOLVED, ()
        return (None, Resolution.AMBIGUOUS, candidates) if candidates else (None, Resolution.DANGLING, ())
    # Resolve across the implicit namespace, but say so.
    across = [c for c in candidates if across_namespaces(namespace, index.namespace_of(c))]
    if len(across) == 1:
        across = _and_earlier_versions(index, kind, name, across, namespace)
        if len(across) == 1:
            return across[0], Resolution.CROSS_NAMESPACE, ()
    return (None, Resolution.AMBIGUOUS, across) if across else (None, Resolution.DANGLING, ())


def _and_earlier_versions(index: ObjectIndex, kind: str, name: str, found: list[KubeObject],
                          namespace: str | None) -> list[KubeObject]:
    """`found` (the one object a name leads to in another namespace than
    the referrer's, or in any), and the versions a previous run made of an
    object of that name in another namespace still, where the name is
    looked up in another or in any (`namespace` None). A run made such a
    version where two namespaces each held the name and the referrer said
    neither: the name matched both, and was left as it was. Read again, the
    one left holding the name must not make it match alone (then its config
    hash, a rewrite), or the second run would not write what the first did."""
    held = {index.namespace_of(obj) for obj in found}
    earlier = [version for version in index.versions_named(
        "", kind, name, lambda ns: ns not in held and (namespace is None or across_namespaces(namespace, ns)))
        if version.api_version == "v1"]
    return found + earlier if earlier else found


def _lookup_renamed(
    index: ObjectIndex, referrer: KubeObject, kind: str, name: str, stated: str | None
) -> tuple[KubeObject | None, Resolution, Sequence[KubeObject]]:
    """`lookup` in a stream kustomize hands a transformer, where its
    namePrefix/nameSuffix/namespace already renamed objects but references
    still name them as they were (kustomize rewrites them after every
    transformer ran). kustomize maps a name to an object it renamed from
    that name (its nameref filter looks at earlier names alone), so where
    one is in the referrer's namespace, the name leads there, even past an
    object that holds the name now, never renamed. Only where none is does
    kustomize leave the name, and it leads to what holds it now. A
    namespace the reference states matches the object's namespace now or
    the one it had under that name. Where several remain, kustomize's own
    rule picks (_kustomize_pick)."""
    namespace = index.lookup_namespace(referrer, stated)
    current = dict.fromkeys(c for c in index.named("", kind, name) if c.api_version == "v1")
    renamed: dict[KubeObject, str | None] = {}
    for candidate, earlier in index.previously_named("", kind, name):
        if candidate.api_version == "v1" and (candidate not in renamed or earlier == stated):
            # An object that still holds the name matches by its namespace now.
            renamed[candidate] = earlier if candidate not in current or earlier == stated else None
    for candidate in current:
        # A generator's output, which kustomize suffixes with its hash after
        # every transformer, recording the name it has now: it is renamed
        # from that name as much as a prefixed object is.
        if suffixed_later_by_kustomize(candidate):
            renamed.setdefault(candidate, None)
    if namespace is None:
        return _kustomize_pick(index, referrer, list(renamed) or list(current), Resolution.RESOLVED)
    for group in (renamed, {c: None for c in current if c not in renamed}):
        exact = [c for c, earlier in group.items()
                 if index.namespace_of(c) == namespace or (stated is not None and earlier == stated)]
        if exact:
            picked = _kustomize_pick(index, referrer, exact, Resolution.RESOLVED)
            if picked[1] is not Resolution.DANGLING:
                return picked
    # kustomize maps a name within the referrer's namespace alone: across
    # the implicit one, the name stays as written and leads where it does
    # when applied, to an object that holds it, never one renamed from it.
    across = [c for c in current if c not in renamed and across_namespaces(namespace, index.namespace_of(c))]
    return _kustomize_pick(index, referrer, across, Resolution.CROSS_NAMESPACE)


def moved_namespace(ref: Reference, index: ObjectIndex) -> str | None:
    """The namespace a reference must state once its name is rewritten: its
    target's, where kustomize's `namespace:` moved the target away from the
    namespace the reference states (in a field of its own, namespaceField,
    or before the name, `old/name`), so it was found through
    previousNamespaces. kustomize would set a namespaceField itself after
    every transformer ran (for a field spec of its own that leads to the
    {name, namespace} mapping), but only for a name it still recognises,
    and postrender's versioned name is none it knows. None where the stated
    namespace still holds, or none is stated (the implicit one moved with
    the referrer, or is no namespace at all)."""
    stated, target = ref.namespace, ref.target
    if (stated is None or target is None or ref.resolution is not Resolution.RESOLVED
            or not index.renamed_by_kustomize or not target.namespace or target.namespace == stated):
        return None
    moved = any(candidate is target and earlier == stated
                for candidate, earlier in index.previously_named("", ref.target_kind, ref.name))
    return target.namespace if moved else None


def _kustomize_pick(index: ObjectIndex, referrer: KubeObject, candidates: list[KubeObject], found: Resolution
                    ) -> tuple[KubeObject | None, Resolution, Sequence[KubeObject]]:
    """kustomize's choice among objects a name may lead to (nameref's
    selectReferral): the one renamed with prefixes and suffixes that end as
    the referrer's do, an object or the referrer with none passing first;
    of several, the first where they all have one name. None left: kustomize
    leaves the name (DANGLING here: the caller looks further)."""
    if len(candidates) > 1:
        candidates = [c for c in candidates if _renamed_alike(index, c, referrer, allow_none=True)]
        if len(candidates) > 1:
            candidates = [c for c in candidates if _renamed_alike(index, c, referrer, allow_none=False)]
    if len(candidates) > 1 and len({c.name for c in candidates}) == 1:
        candidates = candidates[:1]
    if len(candidates) == 1:
        return candidates[0], found, ()
    return (None, Resolution.AMBIGUOUS, candidates) if candidates else (None, Resolution.DANGLING, ())


def _renamed_alike(index: ObjectIndex, candidate: KubeObject, referrer: KubeObject, allow_none: bool) -> bool:
    """kustomize's PrefixesSuffixesEquals: each list of prefixes (and of
    suffixes) ends as the other's does; with `allow_none`, an empty one on
    either side passes too."""
    for theirs, ours in zip(index.kustomize_renames(candidate), index.kustomize_renames(referrer)):
        a, b = _csv(theirs), _csv(ours)
        if allow_none and (not a or not b):
            continue
        short, long = (a, b) if len(a) <= len(b) else (b, a)
        if (not short and long) or (short and long[len(long) - len(short):] != short):
            return False
    return True


def _csv(value: str | None) -> list[str]:
    """A list kustomize keeps in an annotation: none where it is absent."""
    return [] if value is None else value.split(",")