"""After rewriting: strings that still name a renamed object.

A custom resource field no field spec covers keeps the old name, and the
object it names no longer exists once the release is applied. The keys that
look like references are data (fieldspecs/guard.yaml); a hit names a
vanished object, so it fails the render (broken.py) unless
--allow-broken-references, and says how to fix it.
"""

from __future__ import annotations

import json
import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from itertools import islice
from operator import attrgetter, le


from ...printable import quoted
from ...fieldspecs import argument_items, namespace_told
from ...fieldspecs.guardrules import guard_rules, keeps_name_why, squeezed
from ...fieldspecs.paths import kustomize_path as keys_as_kustomize_path
from ...options import Spelling
from ...records import record
from ..graph.references import Graph, Path, Reference, YamlNodes, is_config_object
from ..index.objects import IMPLICIT, ObjectIndex
from ...syntax.nodes import (
    MappingNode, Node, ScalarNode, SequenceNode, default_tag, format_path, get_str, is_string, node_at, read_entries,
    scalars,
)
from ..plan.versions import Plan, Version
from ...vocabulary import ANNOTATION_KEEP_ORIGINAL, ANNOTATION_VERSIONED
from ..read.compose import object_node, recompose
from ..read.documents import Document, KubeObject
from ..read.shared import ItemsShared, KeptShared
from ...lazyre import LazyPattern

# Identity and bookkeeping, never references to a ConfigMap or Secret.
_SKIPPED = {("metadata", "name"), ("metadata", "generateName"), ("metadata", "namespace"),
            ("metadata", "labels"), ("metadata", "ownerReferences"), ("metadata", "managedFields")}


@record(frozen=True)
class Finding:
    referrer: KubeObject
    path: Path
    # The node at `path` (node_at) in the referrer's document composed again
    # (read.compose.recompose), where messages place the finding; None where the
    # path reaches no node (a key Kubernetes reads as another, a merged key).
    node: Node | None
    version: Version
    where: str  # the referrer as kind/namespace/name
    target: str  # the renamed object, likewise
    namespace_field: bool  # a sibling `namespace` key says where the object is
    # A container argument or variable: the podSpecArgs row that would cover it.
    argument: str | None = None
    # The value is `namespace/name` (a field spec's namespacePrefix).
    namespace_prefix: bool = False
    # Where in a JSON text the string at `path` holds (_inside_json): the
    # name is inside it, where no field spec reaches.
    inside: Path | None = None
    # A sibling `kind` key gives the renamed object's kind ({kind: ConfigMap,
    # name: x}): the field spec suggested filters on it, so that it never
    # rewrites a same-named object of another kind listed beside it.
    kind_sibling: bool = False

    @property
    def field_path(self) -> str:
        if self.inside is not None:
            return f"{format_path(self.path)} (JSON: {format_path(self.inside) or '(the whole text)'})"
        return format_path(self.path)

    def message(self, spelling: Spelling = Spelling()) -> str:
        """`spelling`: how the options the advice names are written where
        the render was asked for (flags, or a config's fields)."""
        target = self.version.obj
        keep_original = f"({ANNOTATION_KEEP_ORIGINAL}: \"true\" on it, or {spelling.named('keep_original')})"
        if self.inside is not None:
            return (
                f"{self.where} {self.field_path}: still names {target.kind} {quoted(self.version.base_name)}, "
                f"which is renamed to {quoted(self.version.name)}, inside a JSON text, where no field spec "
                f"can rewrite it: it will point at nothing. Fix it one of these ways: opt {self.target} out "
                f"({ANNOTATION_VERSIONED}: \"false\"); or keep the original name as well {keep_original}"
            )
        spec = f"{{kind: {self.referrer.kind}"
        if self.referrer.group:
            spec += f", group: {self.referrer.group}"
        spec += f", path: {self._suggested_path()}"
        spec += ", namespaceField: namespace" if self.namespace_field else ""
        spec += ", namespacePrefix: true" if self.namespace_prefix else ""
        # A field where a new name breaks the program: the spec keeps it.
        why = keeps_name_why(target.kind, self.referrer.kind, self.referrer.group, kustomize_path(self.path))
        spec += f", keepsName: {json.dumps(why)}}}" if why else "}"
        config = f"nameReference: [{{kind: {target.kind}, fieldSpecs: [{spec}]}}]"
        if self.argument is not None:
            # A program's flag: a podSpecArgs row, which keeps no name (review62b).
            config, why = f"podSpecArgs: [{{target: {target.kind}, {self.argument}}}]", None
        return (
            f"{self.where} {self.field_path}: still names {target.kind} {quoted(self.version.base_name)}, "
            f"which is renamed to {quoted(self.version.name)}; no field spec covers this field, so it was "
            f"not rewritten and will point at nothing. Fix it one of these ways: add a field spec "
            f"{'that keeps the name ' if why else ''}"
            f"({spelling.field_specs(config, keeps_name=bool(why))}); "
            f"opt {self.target} out ({ANNOTATION_VERSIONED}: \"false\"); or keep the original "
            f"name as well {keep_original}"
        )

    def _suggested_path(self) -> str:
        """The path, as a YAML flow mapping's value: quoted where a
        character there would end or break a plain one (a filter's `[`)."""
        path = kustomize_path(self.path)
        if self.kind_sibling and isinstance(self.path[-1], str) and "/" not in self.path[-1]:
            head, _, last = path.rpartition("/")
            path = f"{head}[kind={self.version.obj.kind}]/{last}"
        return json.dumps(path) if _FLOW_UNSAFE.search(path) else path


# What a plain scalar in a flow mapping cannot hold as written, or start with.
_FLOW_UNSAFE = re.compile(r"[\[\]{},#]|: |^[\s!&*|>'\"%@`?:-]|\s$")


def check(graph: Graph, the_plan: Plan) -> list[Finding]:
    stale = _stale_names(graph, the_plan)
    if not stale:
        return []
    index = graph.index
    # A scalar matters only if its text is a stale name or it may be an
    # argument (_argument's shapes): the rest, most of them, skip every test.
    stale_texts = set(stale)
    screen = _Screen(stale_texts, graph.references)
    findings: list[Finding] = []
    # The document walked now: read dropped what the other stages do not
    # read of it (pipeline/needs.py), so the guard composes it again, whole,
    # and holds one at a time. With it, the start offsets of its covered
    # references' scalars, which are those of the same scalars in the new graph.
    # Of a List, only the items that may hold one are composed again.
    walked: tuple[Document | None, MappingNode | None, set[int]] = (None, None, set())
    flagged = [obj for obj in index.objects if not is_config_object(obj) and screen.may_flag(obj)]
    if not flagged:
        return findings
    for at, obj in enumerate(flagged):
        if walked[0] is not obj.document:
            doc = obj.document
            items = _items_of(doc, flagged, at) if obj.item is not None else None
            walked = (doc, _whole_root(doc, items), screen.covered(doc))
        _, root, covered = walked
        top = object_node(root, obj) if root is not None else None
        if top is None:
            continue  # never: read found this object in the same text
        namespace = index.namespace_of(obj)
        cluster_scoped = obj.kind in index.cluster_scoped

        def named_here(kind: str, node: ScalarNode, path: Path, parent: Node | None,
                       namespace: str = namespace, cluster_scoped: bool = cluster_scoped,
                       ) -> tuple[Version, bool, bool] | None:
            """(the renamed object, whether a sibling states its namespace,
            whether the value does) where a string at a key that looks like
            a reference names one."""
            stated, name, sibling, prefixed = _named(node, parent)
            version = _lookup(stale, index, kind, stated or namespace, name, cluster_scoped and not stated)
            if version is None or not _looks_like_reference(kind, path, parent):
                return None
            return version, sibling, prefixed

        def judge(node: ScalarNode, path: Path, parent: Node | None, within: Node, where: Path,
                  inside: Path | None) -> None:
            """The finding for a string at `path` in `within` (the object's
            tree, or a JSON text's at `where` in it: `inside` its path
            there), if it names a renamed object: as an argument of a
            container, or at a key that looks like a reference. Called in
            the iteration that defines it, for the object it walks."""
            for kind in guard_rules():
                argument = _argument(kind, node, path, parent, lambda: node_at(within, path[:-2]))
                if argument is not None:
                    stated, name, row = argument
                    version = _lookup(stale, index, kind, stated or namespace, name,
                                      cluster_scoped and stated is None)
                    if version is not None:
                        findings.append(Finding(obj, where, node_at(top, where), version, index.describe(obj),
                                                index.describe(version.obj), False, row, inside=inside))
                    continue
                found = named_here(kind, node, path, parent)
                if found is not None:
                    version, sibling, prefixed = found
                    kind_sibling = isinstance(parent, MappingNode) and get_str(parent, "kind") == version.obj.kind
                    findings.append(Finding(obj, where, node_at(top, where), version, index.describe(obj),
                                            index.describe(version.obj), sibling, namespace_prefix=prefixed,
                                            inside=inside, kind_sibling=kind_sibling))

        for node, path, parent in _candidates(top, bool(obj.document.shared), stale_texts):
            if node.start_mark in covered or path[:2] in _SKIPPED or not is_string(node):
                continue
            inner = _inside_json(node.value, stale_texts)
            if inner is None:
                judge(node, path, parent, top, path, None)
                continue
            # Its strings as a document's are read, each found at the JSON text's place.
            for inner_node, inner_path, inner_parent in _candidates(inner, False, stale_texts):
                if is_string(inner_node):
                    judge(inner_node, inner_path, inner_parent, inner, path, inner_path)
    return findings


def _named(node: ScalarNode, parent: Node | None) -> tuple[str | None, str, bool, bool]:
    """(the namespace it states, the name, whether a sibling states it,
    whether the value does) of a string that may name an object."""
    # A namespace written beside the name is where it points ({name,
    # namespace}: a Kyverno context, a Knative Broker's config), as a field
    # spec's namespaceField reads it.
    stated = get_str(parent, "namespace") if isinstance(parent, MappingNode) else None
    if stated is None and "/" in node.value and (named := _NAMED.fullmatch(node.value)) is not None:
        # `namespace/name` (Zalando's pod_environment_configmap, an nginx
        # annotation's): the name, there.
        return named.group("namespace"), named.group("name"), False, True
    return stated, node.value, stated is not None, False


def _json_text(value: str) -> str | None:
    """The JSON object or array a string is, or gives a flag
    (`--config={...}`), as a program or an injector reads it; None for any
    other string."""
    text = value.strip()
    if text[:1] == "-" and "=" in text:
        text = text.partition("=")[2].strip()
    if text[:1] not in ("{", "[") or len(text) > _JSON_READ_UP_TO:
        return None
    return text


# A string of more characters than this is not read as JSON: one that long
# is data (a dashboard's JSON), not settings naming objects, and an
# annotation the API server accepts is at most 256 KiB in all.
_JSON_READ_UP_TO = 1 << 18


def _holds_json_naming(value: object, texts: set[str]) -> bool:
    """Whether a scalar's value is a JSON text (_json_text) that writes one
    of `texts` as itself: as a field spec cannot reach into it, the guard
    reads it (_inside_json). JSON escapes spell a name otherwise only where
    a `\\` is: a string holding one is read too."""
    if value.__class__ is not str:
        return False
    text = _json_text(value)  # type: ignore[arg-type]
    return text is not None and ("\\" in text or not texts.isdisjoint(_NAME.findall(text)))


def _inside_json(value: str, texts: set[str]) -> Node | None:
    """A JSON text's value as nodes (the strings quoted, so `is_string`;
    numbers, booleans and null plain), for the guard's rules to read as
    they read a document's; None when the string is no JSON text
    (_json_text), writes none of `texts` and holds no escape
    (_holds_json_naming), or is a whole object."""
    if not _holds_json_naming(value, texts):
        return None
    try:
        read = json.loads(_json_text(value))  # type: ignore[arg-type]
    except (ValueError, RecursionError):
        return None
    if isinstance(read, dict) and "apiVersion" in read and "kind" in read:
        # A whole object, as a deployer records what it applied (kubectl's
        # last-applied-configuration, kapp's original): a record of the
        # object, not a reference to another.
        return None
    return _as_nodes(read) if isinstance(read, (dict, list)) else None


def _as_nodes(read: dict | list) -> Node:
    """JSON's value as nodes, without recursion: json.loads reads a text
    nested as deep as Python's stack allows, and a walk of it must too."""
    root = _node_of(read)
    stack = [(root, read)]
    while stack:
        node, value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                child = _node_of(item)
                node.value.append((_node_of(key), child))  # type: ignore[union-attr]
                stack.append((child, item))
        elif isinstance(value, list):
            for item in value:
                child = _node_of(item)
                node.value.append(child)  # type: ignore[union-attr]
                stack.append((child, item))
    return root


def _node_of(value: object) -> Node:
    """One JSON value's node: a collection empty, to be filled (_as_nodes)."""
    if isinstance(value, dict):
        return MappingNode(default_tag(MappingNode), [], 0, 0)
    if isinstance(value, list):
        return SequenceNode(default_tag(SequenceNode), [], 0, 0)
    if isinstance(value, str):
        return ScalarNode(default_tag(ScalarNode), value, 0, 0, '"')
    return ScalarNode(default_tag(ScalarNode), json.dumps(value), 0, 0, "")


def _whole_root(doc: Document, items: set[int] | None) -> MappingNode | None:
    """The document's node graph, whole. A List that shares nodes (aliases)
    is not pruned (pipeline/needs.py), so it holds the graph read composed:
    composed again, it was held twice (a List of 4,000 apps holding one
    anchor peaked at 297 MiB, 181 of them its first graph); but one read
    item by item (read.shared.ItemsShared) holds whole only its items that may
    share nodes. Any other document that shares nodes is pruned
    (read.shared.KeptShared), and composed again here as every document is."""
    # A List sharing nodes, never pruned. (A config folded with its anchors,
    # read.shared.HeldShared, is none: its data is not in its tree; but the guard
    # never reads a config object, so never asks this of one.)
    shared = doc.shared
    held_whole = shared and not isinstance(shared, KeptShared)
    if type(shared) is ItemsShared and not shared.whole.issuperset(items or ()):
        # A List read item by item holds only the items that may share
        # nodes whole (read.shared.ItemsShared), the others pruned: those asked for
        # composed again, as of any List.
        held_whole = False
    if held_whole and isinstance(doc.root, MappingNode):
        return doc.root
    return recompose(doc, items)


def _items_of(doc: Document, flagged: list[KubeObject], first: int) -> set[int]:
    """The items of the List `doc` among `flagged`, from `first` on (a
    document's objects are listed together, in order)."""
    items: set[int] = set()
    for obj in flagged[first:]:
        if obj.document is not doc:
            break
        items.add(obj.item)  # type: ignore[arg-type]
    return items


# What a name the screen looks for is made of. Every other character (space,
# line break, quote, `=`, `/`, a flow indicator, any non-ASCII one) bounds it.
_NAME_CHARACTERS = "A-Za-z0-9._-"
_NAME = re.compile(f"[{_NAME_CHARACTERS}]+")
# A character no name holds: where a big text is cut into pieces (_name_runs).
_BOUND = LazyPattern(f"[^{_NAME_CHARACTERS}]")
# Each byte that is no name character as a space (ASCII, then): split then
# gives a text's runs of name characters, all in C.
_BOUNDS_TO_SPACE = bytes(c if _NAME.fullmatch(chr(c)) else 0x20 for c in range(256))
# More stale names than this in one text are found in one pass over its runs
# (_Screen._writes_name).
_SEARCHED_ONE_BY_ONE = 16

# A big document's runs are split a piece at a time: as one list they could
# weigh more than its text (a long flow list of numbers).
_PIECE = 1 << 16


def _name_runs(text: str) -> Iterator[list[str]]:
    """The runs of name characters in `text`, in pieces, each encoded on
    its own: the whole text encoded and translated at once was two copies
    of it beside it (the bench's 5,000 apps as one List with one anchor,
    14 MB, held whole and screened whole for its two items sharing a node:
    105.6 -> 77.9 MB peak RSS)."""
    start = 0
    while start < len(text):
        bound = _BOUND.search(text, start + _PIECE) if len(text) - start > _PIECE else None
        end = len(text) if bound is None else bound.start()  # no run crosses a bound
        yield text[start:end].encode("utf-8", "surrogatepass").translate(_BOUNDS_TO_SPACE).decode("ascii").split()
        start = end


# An escape of a double-quoted scalar, as libyaml (and go-yaml) read one: a
# line break after a backslash is dropped with the next line's indentation,
# joining the two lines; `\\x`, `\\u` and `\\U` give the character their
# digits name; any other escape gives one character that is none of a
# name's, as does a backslash the text ends with. `\\\\u` and four digits,
# a JSON text's `\\u` escape written in a double-quoted scalar, gives the
# character too: the guard reads JSON texts (_inside_json).
_ESCAPE = LazyPattern(
    r"\\(?:\\u[0-9A-Fa-f]{4}|(?:\r\n?|[\n\x85\u2028\u2029])[ \t]*"
    r"|x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|[\s\S])?"
)


def _unescaped(text: str) -> str:
    """The text with each escape replaced by what it reads as, for the
    screen: a character of a name as itself, any other as a space."""
    return _ESCAPE.sub(_unescape, text)


def _unescape(match: re.Match[str]) -> str:
    escape = match.group()
    if escape.startswith("\\\\u"):
        # `\\u0062`: a JSON text's escape written in a double-quoted
        # scalar, read as JSON where the guard reads one (_inside_json).
        escape = escape[1:]
    if len(escape) > 2 and escape[1] in "xuU":
        code = int(escape[2:], 16)
        read = chr(code) if code < 0x80 else " "
        return read if _NAME.fullmatch(read) else " "
    return "" if len(escape) > 1 and escape[1] in "\r\n\x85\u2028\u2029" else " "


class _Screen:
    """Which documents may hold a finding, from their text, so that most are
    never walked.

    A finding is a scalar, not a covered reference, whose value is a stale
    name or holds one (an argument: after `=` or `/`, up to its end). Without
    a backslash (an escape in a double-quoted scalar) and when every stale
    name is a run of _NAME's characters, such a scalar's text holds the
    name as written, with no such character either side: folding only turns
    line breaks into spaces, and a single-quoted scalar's `''` is a quote.
    So a document may hold a finding only if its text holds a stale name
    somewhere outside the text of every covered reference: two scalars'
    texts never overlap, and an alias names a node written in the same
    document, whose text is where the anchor is.
    """

    def __init__(self, names: set[str], references: list[Reference]) -> None:
        # None: a name a document may write other than as itself; walk them all.
        self._names = names if all(_NAME.fullmatch(name) for name in names) else None
        # Each covered reference's document (Document.index: one stream's,
        # as the graph's; the documents' own ints), in the graph's order,
        # which is the documents' (read's objects come so; a library
        # caller's out of order are sorted, stably): a document's references
        # are a run of them (_covered_of). A list of scalars per document was
        # 3.6 MiB of 25,000 apps' guard, where the screen asks for every
        # Deployment's and flags none. (Read by comprehension, not
        # attrgetter: attributes looked up so cost three times as much.)
        indexes = [ref.referrer.document.index for ref in references]
        if not all(map(le, indexes, islice(indexes, 1, None))):
            references = sorted(references, key=_document_index)
            indexes = [ref.referrer.document.index for ref in references]
        self._references, self._indexes = references, indexes
        # Where the run last asked for ends: documents are asked for in
        # order, so the next document's starts there.
        self._next = 0
        # The document last asked about and its answer.
        self._last: tuple[Document | None, bool] = (None, False)
        # The document last asked about an item of, and where its covered references start and end (_spans_of).
        self._spans: tuple[Document | None, _Spans] = (None, (array("q"), array("q")))

    def covered(self, document: Document) -> set[int]:
        """Where the document's covered references' scalars start: a scalar
        found there, in any graph of the same text, is one of them."""
        return {ref.node.start_mark for ref in self._covered_of(document)}

    def _covered_of(self, document: Document) -> list[Reference]:
        """The document's covered references: the run of them that starts
        where the last asked for ended, else the one found by bisection
        (in a list of the documents' own ints: an array made an int for
        each probe)."""
        indexes, at = self._indexes, document.index
        start = end = self._next
        if start and indexes[start - 1] >= at or start < len(indexes) and indexes[start] < at:
            start = end = bisect_left(indexes, at)
        # A run is most often a few: stepped over, not bisected.
        while end < len(indexes) and indexes[end] == at:
            end += 1
        self._next = end
        return self._references[start:end]

    def may_flag(self, obj: KubeObject) -> bool:
        document = obj.document
        shared = document.shared
        if obj.item is not None and (not shared or type(shared) is ItemsShared and obj.item not in shared.whole):
            # A List's item: its own text, where all its scalars are written
            # when no alias reaches into it. Were the whole List's asked,
            # its configs' own names would make every item a candidate.
            return self._may_flag(document, obj.node.start_mark, obj.node.end_mark)
        last, answer = self._last
        if document is not last:
            answer = self._may_flag(document, 0, None)
            self._last = (document, answer)
        return answer

    def _may_flag(self, document: Document, start: int, end: int | None) -> bool:
        """Whether the document's text from `start` to `end` (None: its end) may hold a finding."""
        text = document.text if end is None else document.text[start:end]
        if self._names is None:
            return True
        return self._writes_name(document, start, text) or "\\" in text and self._escapes_name(document, start, text)

    def _writes_name(self, document: Document, start: int, text: str) -> bool:
        """Whether the text writes a stale name as itself outside the covered references' texts."""
        found: set[str] = set()
        for runs in _name_runs(text):
            found |= self._names.intersection(runs)  # type: ignore[union-attr]
        if not found:
            return False
        starts, ends = self._spans_of(document)
        if len(found) > _SEARCHED_ONE_BY_ONE:
            # Many: one pass over the text's runs (a document naming
            # thousands of configs was searched once per name, quadratic).
            for run in _NAME.finditer(text):
                if run.group() in found:
                    i = bisect_right(starts, start + run.start()) - 1
                    if i < 0 or start + run.end() > ends[i]:
                        return True
            return False
        # A few: each searched for in C (inside longer runs too, which only
        # asks for more).
        for name in found:
            at = text.find(name)
            while at >= 0:
                i = bisect_right(starts, start + at) - 1  # the last starting at or before it
                if i < 0 or start + at + len(name) > ends[i]:
                    return True  # not all within a covered reference's text
                at = text.find(name, at + 1)
        return False

    def _escapes_name(self, document: Document, start: int, text: str) -> bool:
        """Whether a double-quoted scalar of the text may spell a stale name
        with escapes (`"web\\x2dconfig"`, a `\\` ending a line that joins
        `web-` and `config`): the text with every escape read as a double-
        quoted scalar reads it (_unescaped) holds one, outside the covered
        references' texts. An escape stands for the same characters wherever
        it is read from: a double-quoted scalar opens after a space or an
        indicator, never after a backslash, so reading the whole text so
        reads each such scalar's escapes as libyaml does. Elsewhere (a plain
        scalar's `\\d`, a block of shell) it only finds more: the names
        written as themselves are looked for in the text as it is
        (_writes_name). Real manifests hold backslashes mostly in regular
        expressions and scripts (every CRD's descriptions do): this spares
        them being composed again whole."""
        pieces, at = [], 0
        starts, ends = self._spans_of(document)
        # From the first span that may reach the text: an item's text is a
        # small part of its List's, whose spans were each passed per item.
        first = bisect_right(starts, start)
        if first and ends[first - 1] > start:
            first -= 1
        for i in range(first, len(starts)):
            covered_start, covered_end = starts[i] - start, ends[i] - start
            if covered_start >= len(text):
                break  # (by start: so does every later one)
            if covered_end <= at:
                continue
            pieces += (text[at:max(covered_start, at)], " ")
            at = covered_end
        pieces.append(text[at:])
        unescaped = _unescaped("".join(pieces))
        return any(self._names.intersection(runs) for runs in _name_runs(unescaped))  # type: ignore[union-attr]

    def _spans_of(self, document: Document) -> _Spans:
        """The starts and the ends of the document's covered references'
        scalars, by start: a scalar's text never overlaps another's, so two
        that start alike are one node (referred to twice), and end alike.
        As two arrays, not a (start, end) tuple each: a List's 75,000
        references held 4.6 MiB so at the guard's peak."""
        if self._spans[0] is not document:
            nodes = [ref.node for ref in self._covered_of(document)]
            nodes.sort(key=_start_of)
            self._spans = (document, (array("q", map(_start_of, nodes)), array("q", map(_end_of, nodes))))
        return self._spans[1]


# Where each covered scalar starts and ends, in order (_Screen._spans_of).
_Spans = tuple[array, array]
_start_of = attrgetter("start_mark")
_end_of = attrgetter("end_mark")
_document_index = attrgetter("referrer.document.index")


def _candidates(top: MappingNode, shared: bool, texts: set[str]) -> Iterator[tuple[ScalarNode, Path, Node | None]]:
    """The scalars under an object's node `top` that `check` looks at (a
    stale name's text, or an argument's shape), as `scalars` gives them, in
    document order. `shared`: its document has nodes aliases reach twice.

    Most scalars are neither: they are not visited one by one with a path,
    which over a whole stream costs more than the checks. Where an alias
    makes a node reachable twice, `scalars` decides which path counts.
    """
    if shared:
        for node, path, parent in scalars(top):
            if node.value in texts or _may_be_argument(path) or _prefixed_name_in(node.value, texts) \
                    or _holds_json_naming(node.value, texts):
                yield node, path, parent
        return
    stack: list[tuple[Node, Path, Node | None]] = [(top, (), None)]
    while stack:
        node, path, parent = stack.pop()
        if isinstance(node, ScalarNode):
            yield node, path, parent
        elif isinstance(node, MappingNode):
            # Every key is a scalar: pipeline/read refuses any other.
            for key, value in reversed(read_entries(node)):
                if not isinstance(value, ScalarNode) or value.value in texts or key.value == "value" \
                        or _prefixed_name_in(value.value, texts) or _holds_json_naming(value.value, texts):
                    stack.append((value, path + (key.value,), node))
        elif isinstance(node, SequenceNode):
            arguments = bool(path) and path[-1] in ("args", "command")
            items = node.value
            for i in range(len(items) - 1, -1, -1):
                item = items[i]
                if not isinstance(item, ScalarNode) or arguments or item.value in texts \
                        or _prefixed_name_in(item.value, texts) or _holds_json_naming(item.value, texts):
                    stack.append((item, path + (i,), node))


def _prefixed_name_in(value: object, texts: set[str]) -> bool:
    """Whether a scalar's value is `something/<one of texts>`."""
    return value.__class__ is str and "/" in value and value.rpartition("/")[2] in texts  # type: ignore[union-attr]


def kustomize_path(path: Path) -> str:
    """A field's place as a kustomize fieldSpec path: its keys, list items left out."""
    return keys_as_kustomize_path(tuple(part for part in path if isinstance(part, str)))


# The names that no longer exist after the render, each to the version it
# became, or where several kinds or namespaces hold the name, to a table of
# them by (kind, namespace) (_stale_names).
_Stale = dict[str, "Version | dict[tuple[str, str], Version]"]


def _stale_names(graph: Graph, the_plan: Plan) -> _Stale:
    """The names that no longer exist after the render, each to the version
    it became. Held by the name alone: the kind and namespace are the
    version's object's. Where several kinds or namespaces hold a name, a
    table of its versions by (kind, namespace), in the order each place was
    first added (one added again for its place takes the earlier one's),
    the order a table by (kind, namespace, name) held them in: _lookup's
    first of a kind is that order's. A (kind, namespace, name) tuple each
    was 3.2 MiB of 25,000 apps' 50,000 renamed configs at the guard's peak,
    where the screen flags no document and reads nothing but the names. A
    table, not a list, for the names many places hold: a stream of many
    tenants holds the same name in every namespace, and a list searched for
    each place added or dropped made 5,000 tenants' guard take 3 times as
    long as their render (quadratic)."""
    index = graph.index
    stale: _Stale = {}
    for version in the_plan.versioned:
        obj = version.obj
        for old in (version.base_name, obj.name or ""):
            if old and old != version.name:
                held = stale.get(old)
                if held is None:  # most names: one version
                    stale[old] = version
                elif held is not version:  # (its base name is most often its object's: added for both)
                    stale[old] = _placed(index, held, version)
    # Each name the output holds is dropped as it is found, not gathered
    # first into a set and the rest copied (25,000 apps: 9 MiB more at the
    # guard's peak). None is asked when nothing was renamed.
    for kind, namespace, alive in the_plan.each_alive_name(index) if stale else ():
        held = stale.get(alive)
        if held is None:
            continue
        if held.__class__ is not dict:  # most names: one version
            if held.obj.kind == kind and index.namespace_of(held.obj) == namespace:  # type: ignore[union-attr]
                del stale[alive]
        elif held.pop((kind, namespace), None) is not None and len(held) == 1:  # type: ignore[union-attr]
            stale[alive] = next(iter(held.values()))  # type: ignore[union-attr]  (a table holds two or more)
    return stale


def _placed(index: ObjectIndex, held: Version | dict[tuple[str, str], Version],
            version: Version) -> Version | dict[tuple[str, str], Version]:
    """What a stale name stands for once `version` is added for it: in place
    of the one of its kind and namespace, else after them all."""
    place = (version.obj.kind, index.namespace_of(version.obj))
    if held.__class__ is dict:
        held[place] = version  # type: ignore[index]  (a dict keeps a replaced key where it was)
        return held
    other = (held.obj.kind, index.namespace_of(held.obj))  # type: ignore[union-attr]
    return version if other == place else {other: held, place: version}  # type: ignore[dict-item]


def _lookup(stale: _Stale, index: ObjectIndex, kind: str, namespace: str, name: str,
            any_namespace: bool) -> Version | None:
    """The renamed object a name found in `namespace` stands for. Mirrors
    reference resolution: the same namespace first, then across the implicit
    one; a cluster-scoped referrer may name any namespace (the first version
    of the kind the name stands for). Each answer is a lookup: a stream of
    many tenants holds the same name in every namespace."""
    held = stale.get(name)
    if held is None:
        return None
    if held.__class__ is not dict:  # most names: one version
        if held.obj.kind != kind:  # type: ignore[union-attr]
            return None
        where = index.namespace_of(held.obj)  # type: ignore[union-attr]
        found = where in (namespace, IMPLICIT) or any_namespace or namespace == IMPLICIT
        return held if found else None  # type: ignore[return-value]
    exact = held.get((kind, namespace))  # type: ignore[union-attr]
    if exact is not None:
        return exact
    if any_namespace or namespace == IMPLICIT:
        # The first of the kind: most often the first or second (a name's ConfigMap and Secret).
        return next((version for (of, _), version in held.items() if of == kind), None)  # type: ignore[union-attr]
    return held.get((kind, IMPLICIT))  # type: ignore[union-attr]


# `[namespace/]name`; a `$(VAR)/` prefix is the pod's own namespace (POD_NAMESPACE).
_NAMED = LazyPattern(
    r"(?:(?:(?P<namespace>[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)|\$\([A-Za-z_][A-Za-z0-9_]*\))/)?(?P<name>[^/\s=$]+)"
)


def _may_be_argument(path: Path) -> bool:
    """Whether a scalar's path has a shape _argument looks at."""
    return len(path) >= 2 and (path[-2] in ("args", "command") or path[-1] == "value")


def _argument(kind: str, node: ScalarNode, path: Path, parent: Node | None,
              container: Callable[[], Node | None] = lambda: None) -> tuple[str | None, str, str] | None:
    """(the namespace it states, the name, the podSpecArgs row that would cover it) when the scalar is
    a container argument `--flag=[namespace/]name` (or the item after a bare
    `--flag`), or an `env` value, whose flag or variable name has one of the
    kind's argumentWords; None when it is no such thing. `container`: the
    container an argument is of, asked where a `--namespace` among its
    arguments may say where the name is (fieldspecs.namespace_told)."""
    words = guard_rules()[kind]["words"]
    if not words or len(path) < 2:
        return None
    key, last = path[-2], path[-1]
    if key in ("args", "command") and isinstance(last, int) and isinstance(parent, SequenceNode):
        flag, eq, value = node.value.partition("=")
        if not eq:
            previous = parent.value[last - 1] if last > 0 else None
            flag, value = (previous.value if isinstance(previous, ScalarNode) else ""), node.value
        if not flag.startswith("-") or value.startswith("-") or not any(w in squeezed(flag) for w in words):
            return None
        row = f"flags: [{flag}]"
    elif last == "value" and isinstance(key, int) and len(path) >= 3 and path[-3] == "env":
        variable = get_str(parent, "name") or ""
        if not any(w in squeezed(variable) for w in words):
            return None
        value, row = node.value, f"env: [{variable}]"
    else:
        return None
    match = _NAMED.fullmatch(value)
    if match is None:
        return None
    stated = match.group("namespace")
    if stated is None and "/" not in value and key in ("args", "command"):
        # A program told its namespace by a flag reads its other flags' names there.
        items = argument_items(YamlNodes, container(), path)
        stated = namespace_told(item.value for item in items if isinstance(item, ScalarNode))
    return stated, match.group("name"), row


def _looks_like_reference(kind: str, path: Path, parent: Node | None) -> bool:
    rules = guard_rules()[kind]
    if not path:
        return False
    last = path[-1]
    if isinstance(last, int):
        key = _nearest_key(path[:-1])
        return key is not None and squeezed(key).endswith(rules["lists"])
    key = squeezed(last)
    if key in rules["keys"] or key.endswith(rules["suffixes"]):
        return True
    if key != "name":
        return False
    outer = _nearest_key(path[:-1])
    if outer is not None and any(text in squeezed(outer) for text in rules["under"]):
        return True
    selector = rules["selector"]
    if selector and isinstance(parent, MappingNode):
        # A key selector under any key: objectStorageConfig: {name: x, key: y}.
        keys = {k.value for k, _ in parent.value if isinstance(k, ScalarNode)}
        if selector["required"] <= keys <= selector["required"] | selector.get("optional", frozenset()):
            return True
    return rules["typed"] and isinstance(parent, MappingNode) and get_str(parent, "kind") == kind \
        and _in_the_core_group(parent)


def _in_the_core_group(reference: MappingNode) -> bool:
    """Whether a typed reference ({kind, name}) may name a core (v1) kind:
    one stating another API group (`apiGroup`, `group`, or an `apiVersion`
    with a group) names a custom kind that happens to be called ConfigMap or
    Secret (an IngressClass's parameters {apiGroup: example.com, kind:
    ConfigMap}), as the field specs' `[apiGroup=]` filters read it."""
    for key in ("apiGroup", "group"):
        if get_str(reference, key) not in _CORE_GROUP:
            return False
    api_version = get_str(reference, "apiVersion")
    return not api_version or api_version.rpartition("/")[0] in _CORE_GROUP


# How a reference may spell the core group: "" (the API's own spelling),
# "core" (as some APIs and users write it), or not at all.
_CORE_GROUP = (None, "", "core")


def _nearest_key(path: Path) -> str | None:
    for part in reversed(path):
        if isinstance(part, str):
            return part
    return None
