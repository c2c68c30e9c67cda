"""Stage 1: text → documents → Kubernetes objects.

The stream is split on `---` lines at column 0. YAML forbids such a line
inside any scalar or collection, so the split is exact, and each document can
be composed on its own: errors carry the document, and untouched documents are
written back byte for byte.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ruamel.yaml.cyaml import CBaseLoader
from ruamel.yaml.error import MarkedYAMLError, StreamMark, YAMLError

from .errors import Location, PostrenderError
from .limits import Limits
from .nodes import (
    EXPLICIT_STR_STYLE,
    PROPERTIES,
    STR_TAG,
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
    children,
    get,
    get_str,
    is_null,
    string_map,
    unique_nodes,
)

HELM4_FILENAME_ANNOTATION = "postrenderer.helm.sh/postrender-filename"

_DOCUMENT_START = re.compile(r"^---(?=[ \t\r\n]|$)", re.M)
_SOURCE_COMMENT = re.compile(r"^# Source: (.+?)\r?$", re.M)
_MARKER_LINE = re.compile(r"(?:---|\.\.\.)(?:[ \t]+#.*)?")
# Line breaks to libyaml (YAML 1.1) that are not LF or CRLF. Edits are placed
# by LF lines, so one between nodes would put an edit in the wrong place:
# such a document is refused. Inside a quoted scalar they are only content
# (kubectl kustomize writes U+2028 that way), and the scalar is edited whole.
_ODD_LINE_BREAK = re.compile("\r(?!\n)|[\x85\u2028\u2029]")
_LONE_CR = re.compile("\r(?!\n)")


@dataclass(frozen=True)
class Source:
    """One input: a file, or standard input."""

    name: str | None
    text: str


@dataclass(eq=False)
class Document:
    index: int  # 1-based, across all sources
    text: str
    first_line: int  # 0-based line of the chunk within its source
    source: Source
    root: Node | None
    newline: str
    source_comment: str | None = None
    # Ids of nodes reachable by more than one path (through aliases): an edit
    # to one of them shows up at every alias.
    shared: frozenset[int] = frozenset()

    def line_of(self, node: Node) -> int:
        return self.first_line + node.start_mark.line + 1

    def paths_to(self, target: Node) -> int:
        """How many paths lead from the root to target (1 unless it is shared)."""
        if id(target) not in self.shared or self.root is None:
            return 1
        counts: dict[int, int] = {}
        stack: list[tuple[Node, bool]] = [(self.root, False)]
        while stack:
            node, children_done = stack.pop()
            if children_done:
                counts[id(node)] = 1 if node is target else sum(counts[id(c)] for c in children(node))
            elif id(node) not in counts:
                stack.append((node, True))
                stack.extend((c, False) for c in children(node) if id(c) not in counts)
        return counts[id(self.root)]

    def location(self, node: Node | None = None, kind: str | None = None, name: str | None = None) -> Location:
        if kind is None and name is None and isinstance(self.root, MappingNode):
            # Structural errors come before objects exist; the root still says what it is.
            kind, name = get_str(self.root, "kind"), get_str(get(self.root, "metadata"), "name")
        where = self.source_comment or self.source.name
        return Location(self.index, where, kind, name, self.line_of(node) if node is not None else self.first_line + 1)


@dataclass(eq=False)
class KubeObject:
    document: Document
    node: MappingNode
    api_version: str
    kind: str
    name: str | None
    namespace: str | None
    item: int | None = None  # position in a `List`'s items
    annotations: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0] if "/" in self.api_version else ""

    def location(self, node: Node | None = None) -> Location:
        return self.document.location(node if node is not None else self.node, self.kind, self.name)

    def describe(self) -> str:
        ns = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind}/{ns}{self.name}"


@dataclass
class Stream:
    sources: list[Source]
    documents: list[Document]
    objects: list[KubeObject]


def split(source: Source) -> list[tuple[str, int]]:
    """Chunks of a source, each with its first line (0-based)."""
    text = source.text
    starts = _document_starts(text)
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    chunks: list[tuple[str, int]] = []
    line = 0
    carried: int | None = None  # start of `%YAML`/`%TAG` directives, which belong to the next document
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        chunk = text[carried if carried is not None else start : end]
        if i + 1 < len(starts) and _only_directives(chunk):
            carried = carried if carried is not None else start
            continue
        carried = None
        chunks.append((chunk, line))
        line += chunk.count("\n")
    return chunks


def _document_starts(text: str) -> list[int]:
    """Offsets of the `---` lines (what _DOCUMENT_START matches).

    str.find runs at memory speed; a MULTILINE regex tries every offset,
    which is most of the time spent on a 50 MB ConfigMap.
    """
    starts: list[int] = []
    newline = -1  # as if the text followed a line break
    while True:
        at = newline + 1
        if text.startswith("---", at) and (at + 3 == len(text) or text[at + 3] in " \t\r\n"):
            starts.append(at)
        newline = text.find("\n---", at)
        if newline == -1:
            return starts


def _lines(text: str) -> Iterator[str]:
    """Lines one at a time: callers stop at the first that matters."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        yield text[start:end]
        start = end + 1


def _only_directives(chunk: str) -> bool:
    found = False
    for line in _lines(chunk):
        stripped = line.strip().lstrip("\ufeff")
        if stripped.startswith("%"):
            found = True
        elif stripped and not stripped.startswith("#"):
            return False
    return found


def _has_odd_line_breaks(text: str) -> bool:
    # Substring tests first: scanning 50 MB with the regex takes most of a second.
    return "\x85" in text or "\u2028" in text or "\u2029" in text or ("\r" in text and _LONE_CR.search(text) is not None)


def read(sources: list[Source], limits: Limits) -> Stream:
    documents: list[Document] = []
    objects: list[KubeObject] = []
    for source in sources:
        odd_breaks = _has_odd_line_breaks(source.text)
        for chunk, first_line in split(source):
            doc = Document(
                index=len(documents) + 1,
                text=chunk,
                first_line=first_line,
                source=source,
                root=None,
                newline="\r\n" if "\r\n" in chunk else "\n",
            )
            documents.append(doc)
            doc.root = _compose(doc, limits)
            if odd_breaks:
                _check_line_breaks(doc)
            if doc.root is None:
                continue
            objects.extend(_objects_of(doc))
    return Stream(sources, documents, objects)


def _check_line_breaks(doc: Document) -> None:
    matches = list(_ODD_LINE_BREAK.finditer(doc.text))
    if not matches:
        return
    quoted = sorted(
        (node.start_mark.index, node.end_mark.index)
        for node in unique_nodes(doc.root)
        if isinstance(node, ScalarNode) and node.style in ("'", '"')
    ) if doc.root is not None else []
    starts = [start for start, _ in quoted]
    for match in matches:
        i = bisect.bisect_right(starts, match.start()) - 1
        if i < 0 or match.start() >= quoted[i][1]:
            break
    else:
        return
    name = {"\r": "a CR without LF", "\x85": "NEL (U+0085)", "\u2028": "U+2028", "\u2029": "U+2029"}[match.group()]
    line = doc.first_line + doc.text.count("\n", 0, match.start()) + 1
    raise PostrenderError(
        f"line break {name} outside a quoted string is not supported; use LF or CRLF line endings",
        Location(doc.index, doc.source.name, line=line),
    )


def _compose(doc: Document, limits: Limits) -> Node | None:
    text = doc.text
    if not text.strip() or only_comments(text):
        return None
    location = Location(doc.index, doc.source.name, line=doc.first_line + 1)
    if _may_nest_deeply(text, limits.max_depth):
        _check_depth(doc, limits.max_depth)
    loader = CBaseLoader(text)
    try:
        root = loader.get_single_node()
    except MarkedYAMLError as exc:
        raise _yaml_error(doc, exc) from None
    except YAMLError as exc:
        position = getattr(exc, "position", None)  # a ReaderError's, in UTF-8 bytes
        if isinstance(position, int):
            line = doc.first_line + text.encode("utf-8")[:position].count(b"\n") + 1
            location = Location(doc.index, location.source, line=line)
        raise PostrenderError(f"invalid YAML: {_first_line(str(exc))}", location) from None
    finally:
        _release(loader)
    if root is None:
        return None
    if text.startswith("\ufeff"):
        _shift_marks(root, 1)
    if isinstance(root, ScalarNode) and root.style in ("|", ">"):
        # `--- |` is text someone wrote as a document on purpose; it holds no
        # object to version, so it passes through. Other scalars are refused
        # below: they are what a broken template leaves behind.
        return None
    doc.source_comment = leading_source_comment(text)
    if isinstance(root, ScalarNode) and root.tag.endswith(":null") or is_null(root):
        return None
    if not isinstance(root, MappingNode):
        shape = "sequence" if isinstance(root, SequenceNode) else "scalar"
        raise PostrenderError(
            f"a document must be a mapping (a Kubernetes object), found a {shape}",
            Location(doc.index, doc.source_comment or doc.source.name, line=doc.line_of(root)),
        )
    doc.root = root
    _check_structure(doc, root, limits)
    return root


def _shift_marks(root: Node, by: int) -> None:
    """libyaml skips a leading byte-order mark and counts offsets from after
    it; edits are placed in the text that still holds it."""
    moved: dict[int, StreamMark] = {}

    def shifted(mark: StreamMark) -> StreamMark:
        if id(mark) not in moved:
            moved[id(mark)] = StreamMark(mark.name, mark.index + by, mark.line, mark.column)
        return moved[id(mark)]

    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        node.start_mark, node.end_mark = shifted(node.start_mark), shifted(node.end_mark)
        stack.extend(children(node))


def _release(loader: CBaseLoader) -> None:
    """Free a loader now: it refers to itself (as its parser, composer,
    resolver...), and cli.py runs with the cyclic collector paused."""
    loader.dispose()
    vars(loader).clear()


def only_comments(text: str) -> bool:
    for line in _lines(text):
        stripped = line.strip().lstrip("\ufeff")
        if stripped and not stripped.startswith("#") and stripped not in ("---", "..."):
            return False
    return True


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "invalid YAML"


def _yaml_error(doc: Document, exc: MarkedYAMLError) -> PostrenderError:
    mark = exc.problem_mark or exc.context_mark
    line = doc.first_line + mark.line + 1 if mark is not None else doc.first_line + 1
    message = exc.problem or exc.context or "invalid YAML"
    if exc.context and exc.problem:
        started = f" at line {doc.first_line + exc.context_mark.line + 1}" if exc.context_mark else ""
        message += f" ({exc.context}{started})"
    where = doc.source_comment or leading_source_comment(doc.text) or doc.source.name
    return PostrenderError(f"invalid YAML: {message}", Location(doc.index, where, line=line))


def leading_source_comment(text: str) -> str | None:
    """The file a `# Source:` comment names, from the comment lines before
    the document's first line of content only: anywhere else such a line
    may be inside a value (a Secret's, say), which no message may show."""
    for line in _lines(text):
        stripped = line.strip().lstrip("\ufeff")
        match = _SOURCE_COMMENT.match(line.lstrip("\ufeff"))
        if match:
            return match.group(1).strip()
        if stripped and not stripped.startswith(("#", "%")) and not _MARKER_LINE.fullmatch(stripped):
            return None
    return None


def _may_nest_deeply(text: str, max_depth: int) -> bool:
    """Cheap screen: composing deep nesting overflows libyaml's C stack.

    Flow nesting needs one bracket per level. Block nesting needs the
    leading run of indentation and `- `/`? `/`: ` indicators to grow: by at
    least one column for every two levels (a block sequence may sit at its
    parent key's column). Both kinds add up in one document.
    """
    brackets = text.count("[") + text.count("{")
    if brackets >= max_depth:
        return True
    run = max(1, (max_depth - brackets) // 2 - 1)
    # "\n" first rather than "^" with MULTILINE: a literal lets the regex
    # engine skip ahead, ten times faster on big documents.
    indicators = r"[ \t\-?:]{%d,}" % run
    return re.match(indicators, text) is not None or re.search("\n" + indicators, text) is not None


def _check_depth(doc: Document, max_depth: int) -> None:
    loader = CBaseLoader(doc.text)
    depth = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            name = type(event).__name__
            if name in ("MappingStartEvent", "SequenceStartEvent"):
                depth += 1
                if depth > max_depth:
                    raise PostrenderError(
                        f"nesting deeper than {max_depth} levels (--max-depth)",
                        Location(doc.index, doc.source.name, line=doc.first_line + event.start_mark.line + 1),
                    )
            elif name in ("MappingEndEvent", "SequenceEndEvent"):
                depth -= 1
    except MarkedYAMLError as exc:
        raise _yaml_error(doc, exc) from None
    finally:
        _release(loader)


# Mappings whose keys a message may name but whose values it may not: a
# Secret's values, and any key written inside one, may be secret.
_VALUE_MAPPINGS = ("data", "stringData", "binaryData")


def _check_structure(doc: Document, root: Node, limits: Limits) -> None:
    """Refuse duplicate keys and alias bombs before anything walks the graph."""
    text = doc.text
    if "&" in text:
        _check_expansion(doc, root, limits.max_expanded_nodes)
        if "*" in text:
            doc.shared = _shared_nodes(root)
    tags = "!" in text
    seen_nodes: set[int] = set()
    # Each node with what a message may say about its keys: None, anything;
    # ("keys", field), the keys only (a data mapping); ("hidden", where),
    # nothing (inside a value, or shared through an alias).
    stack: list[tuple[Node, tuple[str, str] | None]] = [(root, None)]
    while stack:
        node, shown = stack.pop()
        if isinstance(node, ScalarNode):
            if tags and not node.style and node.tag == STR_TAG and _has_tag(text, node):
                node.style = EXPLICIT_STR_STYLE
            continue
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if id(node) in doc.shared and shown is None:
            shown = ("hidden", "a mapping an alias uses")
        if isinstance(node, MappingNode):
            keys: set[str] = set()
            for k, v in node.value:
                if isinstance(k, ScalarNode):
                    if k.value in keys and k.value != "<<":
                        raise _duplicate_key(doc, k, shown)
                    keys.add(k.value)
                else:
                    # sigs.k8s.io/yaml refuses these too ("invalid map key"):
                    # no Kubernetes object has one, and written out as JSON
                    # labels nested keys would double in size at every level.
                    raise PostrenderError(
                        f"a mapping key that is a {'mapping' if isinstance(k, MappingNode) else 'sequence'}: "
                        "Kubernetes cannot read it",
                        doc.location(k),
                    )
                stack.append((v, _inside(shown, k)))
        else:
            stack.extend((item, _inside(shown, None)) for item in node.value)


def _inside(shown: tuple[str, str] | None, key: Node | None) -> tuple[str, str] | None:
    """What a message may show of the keys under `key` of a mapping shown as `shown`."""
    name = key.value if isinstance(key, ScalarNode) else "?"
    if shown is None:
        return ("keys", name) if name in _VALUE_MAPPINGS else None
    if shown[0] == "keys":
        return ("hidden", f"{shown[1]}.{name}")
    return shown


def _duplicate_key(doc: Document, key: ScalarNode, shown: tuple[str, str] | None) -> PostrenderError:
    if shown is not None and shown[0] == "hidden":
        return PostrenderError(
            f"duplicate key in a mapping inside the value of {shown[1]} (not shown: values may be secret)",
            doc.location(key),
        )
    return PostrenderError(f"duplicate key {key.value!r} in a mapping", doc.location(key))


def _has_tag(text: str, node: Node) -> bool:
    start = node.start_mark.index
    if text[start : start + 1] not in ("!", "&"):
        return False
    match = PROPERTIES.match(text, start)
    return match is not None and any(token.startswith("!") for token in match.group().split())


def _check_expansion(doc: Document, root: Node, limit: int) -> None:
    """Size of the tree the aliases stand for, computed without expanding it."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            on_path.discard(key)
            total = 1 + sum(sizes[id(child)] for child in children(node))
            sizes[key] = total
            if total > limit:
                raise PostrenderError(
                    f"aliases expand to more than {limit} nodes (an alias bomb?)", doc.location(node)
                )
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise PostrenderError("recursive alias: a node contains itself", doc.location(node))
        if isinstance(node, ScalarNode):
            sizes[key] = 1
            continue
        on_path.add(key)
        stack.append((node, True))
        for child in children(node):
            if id(child) not in sizes:
                stack.append((child, False))


def _shared_nodes(root: Node) -> frozenset[int]:
    nodes: dict[int, Node] = {}
    aliased: list[Node] = []
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        if id(node) in nodes:
            aliased.append(node)
            continue
        nodes[id(node)] = node
        stack.extend(children(node))
    shared: set[int] = set()
    stack = aliased
    while stack:
        node = stack.pop()
        if id(node) not in shared:
            shared.add(id(node))
            stack.extend(children(node))
    return frozenset(shared)


def _objects_of(doc: Document) -> list[KubeObject]:
    root = doc.root
    assert isinstance(root, MappingNode)
    kind = get_str(root, "kind")
    items = get(root, "items")
    if kind and kind.endswith("List") and isinstance(items, SequenceNode):
        objects = []
        for i, item in enumerate(items.value):
            if not isinstance(item, MappingNode):
                raise PostrenderError(f"{kind} item {i} is not a mapping", doc.location(item))
            objects.append(_object(doc, item, i))
        return objects
    return [_object(doc, root, None)]


def _object(doc: Document, node: MappingNode, item: int | None) -> KubeObject:
    api_version = get_str(node, "apiVersion") or ""
    kind = get_str(node, "kind")
    metadata = get(node, "metadata")
    name = get_str(metadata, "name")
    if kind is None:
        raise PostrenderError("object has no kind", doc.location(node, None, name))
    if metadata is not None and not isinstance(metadata, MappingNode) and not is_null(metadata):
        raise PostrenderError("metadata must be a mapping", doc.location(metadata, kind, name))
    obj = KubeObject(
        document=doc,
        node=node,
        api_version=api_version,
        kind=kind,
        name=name,
        namespace=get_str(metadata, "namespace") or None,
        item=item,
        annotations=string_map(get(metadata, "annotations")),
        labels=string_map(get(metadata, "labels")),
    )
    if item is None and doc.source_comment is None:
        doc.source_comment = obj.annotations.get(HELM4_FILENAME_ANNOTATION)
    return obj
