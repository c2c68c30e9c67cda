"""KRM function mode: a `ResourceList` in, a `ResourceList` out.

Per the KRM Functions Specification (config.kubernetes.io/v1): options come
from `functionConfig`; warnings and errors go in `results`. Unlike plain mode,
a failure still writes the ResourceList (items untouched, the error in
`results`) and exits non-zero, so orchestrators such as kpt can show it.

The ResourceList is edited as text like any other stream (its `items` are
read as a List's items), so comments and `internal.config.kubernetes.io/*`
annotations come through as they were.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from ruamel.yaml.error import YAMLError

from ..errors import Location, PostrenderError, Problems, UsageError
from . import resource_list_text
from ..pipeline.index.hashing import to_json_value
from ..syntax.edit import render_scalar
from ..syntax.nodes import (
    Composer, ListComposer, MappingNode, Node, ScalarNode, SequenceNode, children, column, drop_item, get, get_str,
    is_null,
)
from ..limits import MAX_BYTES_CEILING, MAX_DEPTH_CEILING, MAX_NODES_CEILING, Limits
from ..options import FUNCTION_CONFIG, RenderOptions
from ..records import replace
from ..vocabulary import INDEX_ANNOTATIONS, KRM_RESOURCE_LIST, PATH_ANNOTATIONS
from ..pipeline.read import Stream
from ..pipeline.read.documents import Document, KubeObject, Source
from ..pipeline.read.jsonfirst import mask_surrogate_escapes
from ..pipeline.read.libyaml import shift_offsets
from ..pipeline.read.lines import only_comments
from ..pipeline.read.split import split
from ..pipeline.read.yamlerrors import UnreadableText
from ..pipeline.write import Output
from ..report import Diagnostic, Reporter

if TYPE_CHECKING:
    from ..pipeline.render import ReadStream, Result
    from .kustomize_exec import PluginConfig

KIND = KRM_RESOURCE_LIST
GROUP = "config.kubernetes.io"
_MAP_TAG = "tag:yaml.org,2002:map"  # a mapping's tag, written or not
DEFAULT_API_VERSION = f"{GROUP}/v1"
# Cheap screen before parsing: a top-level `kind: ResourceList` (YAML or JSON).
_SCREEN = re.compile(
    r"^kind:[ \t]*[\"']?ResourceList[\"']?[ \t]*(?:#.*)?\r?$"  # YAML, top level
    r'|"kind"\s*:\s*"ResourceList"',  # JSON
    re.M,
)
# Any other spelling a reader takes (a flow mapping, a quoted key, a tag, the
# value on the next line): the text is then asked whether its one document
# claims to be a ResourceList before it is read (claims_resource_list), as
# such words in a ConfigMap's data or a schema would read a plain stream twice.
_SCREEN_ANY = re.compile(r"""["']?\bkind["']?[ \t]*:\s*(?:!\S*\s+)?["']?ResourceList\b""")


class ResourceListError(PostrenderError):
    """A failed KRM run: `output` (a ResourceList with the error result) still goes to stdout."""

    def __init__(self, message: str, output: str, status: int, location: Location | None = None,
                 problems: list[PostrenderError] | None = None) -> None:
        super().__init__(message, location)
        self.output = output
        self.status = status
        self._problems = problems

    def problems(self) -> list[PostrenderError]:
        return list(self._problems) if self._problems else [self]


def detect(sources: list[Source], options: RenderOptions, named: bool = False) -> ReadStream | None:
    """The parsed stream when standard input (`named`: or the one file) is
    exactly one ResourceList, read for a render with `options`
    (render.read_for: its items pruned as they are read; read again if its
    functionConfig sets other options)."""
    # The substring test first: _SCREEN alone takes 0.7 s on a 50 MB stream.
    text = resource_list_text(sources, named)
    if not text or not _SCREEN.search(text) and not (_SCREEN_ANY.search(text) and claims_resource_list(text)):
        return None
    try:
        read = _read_for(sources, options)
    except PostrenderError as exc:
        if not claims_resource_list(text):
            raise  # a plain stream: a plain error, nothing on stdout
        # It says it is a ResourceList at the top level: answer as a KRM
        # function must, with the error in `results`, not as a plain stream.
        raise _failed(exc, 1, sources[0], None, []) from None
    if _resource_list(read.stream) is not None:
        return read
    problem = _misread(text)
    if problem is not None:
        raise _failed(PostrenderError(problem), 1, sources[0], None, [])
    return None


def _read_for(sources: list[Source], options: RenderOptions) -> ReadStream:
    """The ResourceList read for a render with `options`, or, where that
    read is refused and the functionConfig sets other limits (maxNodes: a
    dense custom resource's), read again with them: the functionConfig is
    read only once the whole ResourceList is, and a function cannot be
    given --max-nodes. Only a functionConfig written in block style at the
    top level is found so (kustomize and kpt write it so, after `items`)."""
    from ..pipeline.render import read_for

    try:
        return read_for(sources, options)
    except PostrenderError:
        config = _config_apart(sources[0].text if len(sources) == 1 else "")
        limits = config.apply(options).limits if config is not None else options.limits
        if limits == options.limits:
            raise
    return read_for(sources, replace(options, limits=limits))


# A block-style functionConfig at the top level: its key's line, then every
# line that is indented, blank or a comment.
_CONFIG_APART = re.compile(r"^functionConfig[ \t]*:[ \t]*(?:#[^\n]*)?\r?\n"
                           r"(?:(?:[ \t][^\n]*|[ \t]*(?:#[^\n]*)?)(?:\r?\n|\Z))*",
                           re.M)
_CONFIG_APART_MAX = 64 * 1024  # a functionConfig is a few lines; more is no config to read apart


def _config_apart(text: str) -> PluginConfig | None:
    """The functionConfig of a ResourceList that could not be read whole,
    read from its own lines; None where there is none to read so, or it
    does not read (the whole read's error then stands)."""
    found = [m for m in _CONFIG_APART.finditer(text) if len(m.group()) <= _CONFIG_APART_MAX]
    if len(found) != 1:
        return None
    try:
        loader = Composer(found[0].group())
        try:
            root = loader.get_single_node()
        finally:
            loader.dispose()
        node = get(root, "functionConfig") if isinstance(root, MappingNode) else None
        return _config_of(node) if isinstance(node, MappingNode) else None
    except (YAMLError, PostrenderError, UsageError):
        return None


def _misread(text: str) -> str | None:
    """Why a text that says it is one ResourceList was read as one object
    instead: its `items` are no list (the reader takes only a sequence as a
    List's items). Rendered so, a run succeeded on no items at all."""
    if not claims_resource_list(text):
        return None
    chunks = (_compose(chunk) for chunk, _ in split(Source(None, text)))
    root = next((root for root in chunks if root is not None), None)
    items = get(root, "items") if isinstance(root, MappingNode) else None
    if items is None or is_null(items) or isinstance(items, SequenceNode):
        return None
    return f"{KIND}: items must be a list, not a {'mapping' if isinstance(items, MappingNode) else 'scalar'}"


def claims_resource_list(text: str) -> bool:
    """Whether a stream that fails to read says, as far as it parses, that
    it is one ResourceList: a single document whose top-level mapping has
    `kind: ResourceList` and a config.kubernetes.io apiVersion. The text
    screen alone cannot tell: a quoted or block value may hold those lines."""
    chunks = [chunk for chunk, _ in split(Source(None, text)) if not only_comments(chunk)]
    if len(chunks) != 1:
        return False
    found: dict[str, str] = {}
    loader = Composer(chunks[0])
    try:
        depth, position, key = 0, 0, None
        while loader.check_event() and not {"kind", "apiVersion"} <= found.keys():
            event = loader.get_event()
            name = type(event).__name__
            if name in ("MappingStartEvent", "SequenceStartEvent"):
                if depth == 0 and name == "SequenceStartEvent":
                    return False
                if depth == 1:
                    position += 1
                depth += 1
            elif name in ("MappingEndEvent", "SequenceEndEvent"):
                depth -= 1
            elif depth == 1 and name in ("ScalarEvent", "AliasEvent"):
                value = getattr(event, "value", None)
                if position % 2 == 0:
                    key = value
                elif key in ("kind", "apiVersion") and isinstance(value, str):
                    found[key] = value
                position += 1
    except YAMLError:
        pass  # what parsed so far decides
    finally:
        loader.dispose()
    return found.get("kind") == KIND and found.get("apiVersion", "").startswith(f"{GROUP}/")


def run(sources: list[Source], options: RenderOptions, reporter: Reporter,
        read: Stream | ReadStream | None = None) -> str:
    """The output ResourceList, whole (`written` gives it part by part)."""
    output = written(sources, options, reporter, read)
    return output if isinstance(output, str) else output.text()


def written(sources: list[Source], options: RenderOptions, reporter: Reporter,
            read: Stream | ReadStream | None = None) -> Output | str:
    """The output ResourceList, as the command line writes it out: part by
    part where its `results` could be written in as an edit (_with_results).
    `read`: the ResourceList as detect read it, or read whole (read.read)."""
    from . import render

    read, document = _the_resource_list(sources, options, read)
    source = sources[0]
    stream = read if isinstance(read, Stream) else read.stream
    try:
        effective = function_options(document, options)
        place = _results_place(document)
        # The stream read above is the one rendered, unless the functionConfig
        # set options it is read otherwise for (render.analyse reads it again).
        # Released, as a plain render is: what writing never reads (the graph,
        # the plan) is dropped before the answer's splice is made, not held
        # beside it (25,000 apps as one ResourceList: traced 23 MiB less at
        # write). Its `results` go where they were found before (`place`).
        result = render(sources, effective, reporter, read, release=True)
    except UsageError as exc:
        raise _failed(exc, 2, source, stream, _said(reporter, stream)) from None
    except PostrenderError as exc:
        raise _failed(exc, 1, source, stream, _said(reporter, stream)) from None
    warnings = warning_results(reporter.warnings)
    output = _with_results(result, document.index, place, warnings)
    try:
        return output if output is not None else set_results(result.output, warnings)
    except UnreplaceableResults:
        error = PostrenderError(UnreplaceableResults.MESSAGE)
        raise ResourceListError(str(error), _unreplaceable(warnings), 1, problems=[error]) from None


def _the_resource_list(sources: list[Source], options: RenderOptions, read: Stream | ReadStream | None
                       ) -> tuple[Stream | ReadStream, Document]:
    """The one ResourceList a function renders, as read (`read`, as detect
    read it, or read here for `options`), and its document; a failure is
    answered as a function's (ResourceListError)."""
    if len(sources) != 1:
        raise UsageError("--krm reads one ResourceList (standard input or one file)")
    source = sources[0]
    if read is None:
        try:
            read = _read_for(sources, options)
        except PostrenderError as exc:
            raise _failed(exc, 1, source, None, []) from None
    document = _resource_list(read if isinstance(read, Stream) else read.stream)
    if document is None:
        error = PostrenderError(_misread(source.text) or f"--krm: input is not a single {KIND} ({GROUP}/*)")
        raise _failed(error, 1, source, None, [])
    return read, document


def function_options(document: Document, options: RenderOptions) -> RenderOptions:
    """The options a function renders its ResourceList with: its
    functionConfig's fields over the command line's (the more specific
    instruction), advice naming them as written there."""
    config = function_config(document)
    return replace(config.apply(options) if config else options,
                   written_in=FUNCTION_CONFIG.of_kind(config.kind) if config else FUNCTION_CONFIG)


def taken_as_function(sources: list[Source], options: RenderOptions, reporter: Reporter, forced: bool = False,
                      named: bool = False) -> tuple[RenderOptions, ReadStream | Stream]:
    """How the command line's render takes `sources`, for graph and diff,
    which show what it does: a function's ResourceList (--krm: `forced`;
    detected on standard input, or, `named`, in the one file) with the
    options its functionConfig sets, as `written` renders it; else a plain
    stream (read_plainly). A failure is a plain render's: graph and diff
    answer with no ResourceList."""
    try:
        read = _the_resource_list(sources, options, None)[0] if forced else detect(sources, options, named)
    except ResourceListError as exc:
        raise Problems(exc.problems()) from None
    if read is None:
        # diff, which looks in a file too, takes no --krm: its advice names none.
        return options, read_plainly(sources, options, reporter, krm_flag=not named)
    document = _resource_list(read if isinstance(read, Stream) else read.stream)
    assert document is not None  # detect and _the_resource_list found it
    return function_options(document, options), read


def read_plainly(sources: list[Source], options: RenderOptions, reporter: Reporter,
                 krm_flag: bool = True) -> ReadStream:
    """`sources` read for a render as a plain stream, whatever ResourceList
    they hold (a file without --krm, or one among other documents: its
    items read as a List's), warning of each whose functionConfig sets an
    option the render so leaves unapplied. `krm_flag`: the command takes
    --krm, which the advice names."""
    from ..pipeline.render import read_for

    read = read_for(sources, options)
    for document in read.stream.documents:
        if _is_resource_list(document) and _sets_options(document, options):
            advice = "give it alone on standard input, or add --krm," if krm_flag else "give it alone as a side"
            where = document.at(_key_line(document, "functionConfig")).describe()
            reporter.warn(f"{where}: its functionConfig is not applied: a {KIND} read from a file named, or among "
                          f"other documents, is rendered as a plain stream (its items as a List's); {advice} to "
                          "render it as a KRM function does, with its functionConfig")
    return read


def _key_line(document: Document, key: str) -> int:
    """The stream line of a top-level key (the document's first where absent)."""
    root = document.root
    found = [k for k, _ in root.value if isinstance(k, ScalarNode) and k.value == key] \
        if isinstance(root, MappingNode) else []
    return document.line_of(found[-1]) if found else document.first_line + 1


def _sets_options(document: Document, options: RenderOptions) -> bool:
    """Whether a ResourceList's functionConfig changes the options it is
    rendered with; one a function refuses is not applied either."""
    try:
        # Compared as options: where they are written (a ConfigMap's or a
        # PostRender's) changes how advice is spelled, not the render.
        return replace(function_options(document, options), written_in=options.written_in) != options
    except (PostrenderError, UsageError):
        return True


def _said(reporter: Reporter, stream: Stream) -> list[dict[str, Any]]:
    """The warnings of a run that failed: what reading said (a key written
    twice, left out), where the render did not get as far as saying it, then
    the render's."""
    said = {warning.message for warning in reporter.warnings}
    read = [warning for warning in stream.warnings if warning.message not in said]
    return warning_results(read + reporter.warnings)


def _with_results(result: Result, index: int, place: tuple[int, int, int] | None,
                  results: list[dict[str, Any]]) -> Output | None:
    """The rendered ResourceList (the stream's document `index`) with
    `results` written in as one more edit of its document, given out part
    by part as any stream (write.Output), or None where set_results must
    compose the output to place them. That composing read the whole output
    again (a third of a run on a large ResourceList, which it also held
    whole). The place (_results_place) is found in the ResourceList as
    read, where no edit reaches: a block mapping without `results`, whose
    end, and first key, come after and before every edit of it (a
    function's edits are inside `items`): there the output is the input
    moved by the edits before it, so set_results would put the same text
    at the same place."""
    written = result.written
    if not isinstance(written, Output) or place is None:
        return None
    if not results:
        return written  # set_results changes nothing
    document = next((d for d in result.analysis.stream.documents if d.index == index), None)
    if document is None:  # (read again otherwise: set_results places them)
        return None
    first_key, at, column_of_keys = place
    edits = written.edits_of(document)
    if edits is not None and edits.span()[0] <= first_key:
        return None  # the first key's column, which `results` takes, moved
    text = document.text
    block = _results_block(text, at, column_of_keys, results, "\r\n" if "\r\n" in text else "\n")
    return written if written.insert(document, at, block) else None


def _results_place(document: Document) -> tuple[int, int, int] | None:
    """Where _with_results writes `results` into the ResourceList as read:
    (its first key's start, the offset they go at, the column of its keys);
    None where set_results places them (a flow mapping, an empty one, one
    with `results` of its own). Found before the render, which drops the
    document's nodes as it writes it."""
    root = document.root
    assert isinstance(root, MappingNode)
    if root.flow_style or not root.value or _results_entry(root) is not None:
        return None
    return (root.value[0][0].start_mark, *_results_at(document.text, root))


def _resource_list(stream: Stream) -> Document | None:
    documents = [d for d in stream.documents if d.root is not None]
    if len(documents) != 1 or not _is_resource_list(documents[0]):
        return None
    return documents[0]


def _is_resource_list(document: Document) -> bool:
    root = document.root
    return get_str(root, "kind") == KIND and (get_str(root, "apiVersion") or "").startswith(f"{GROUP}/")


# A functionConfig has a small fixed shape (field specs are its deepest
# part, five levels down); messages about a value print it, so a value nested
# as deep as --max-depth allows is refused first.
MAX_CONFIG_DEPTH = 32


def function_config(document: Document) -> PluginConfig | None:
    node = get(document.root, "functionConfig")
    if node is None or is_null(node):
        return None
    return _config_of(node)


def _config_of(node: Node) -> PluginConfig:
    """A functionConfig's node as a config: the one reading of it, for the
    ResourceList read whole and for its lines read apart (_config_apart)."""
    if _nesting(node) > MAX_CONFIG_DEPTH:
        raise UsageError(f"functionConfig: nested deeper than {MAX_CONFIG_DEPTH} levels")
    # Imported here: a plain render checks for a ResourceList, and needs no config parser.
    from .kustomize_exec import parse

    return parse(_as_a_config_file_reads_it(node), "functionConfig")


# Plain words YAML 1.1 (go-yaml v2, how the items are read) takes for true
# or false, and YAML 1.2 (how a --plugin-config file is read) for strings.
_YAML11_ONLY_BOOLEANS = frozenset(
    w for word in ("y", "yes", "on", "n", "no", "off") for w in (word, word.capitalize(), word.upper()))


def _as_a_config_file_reads_it(node: Node) -> Any:
    """The functionConfig's value, its options read as a --plugin-config
    file's are: a plain `yes`, `no`, `on` or `off` is the word, not a
    boolean. So the same PostRender text sets the same options either way
    (`mutable: yes` refused in both, `namespace: yes` the namespace "yes"),
    at any depth (a field spec's `create: yes`)."""
    value = to_json_value(node)
    _words_kept(node, value)
    return value


def _words_kept(node: Node, value: Any) -> None:
    """Puts back, in `value` (node's JSON value), each plain YAML 1.1-only
    boolean word as the word."""
    if isinstance(node, MappingNode) and isinstance(value, dict):
        places = [(key.value, item) for key, item in node.value if isinstance(key, ScalarNode) and key.value in value]
    elif isinstance(node, SequenceNode) and isinstance(value, list) and len(node.value) == len(value):
        places = list(enumerate(node.value))
    else:
        return
    for at, item in places:
        if (isinstance(item, ScalarNode) and item.style == "" and item.tag == "tag:yaml.org,2002:str"
                and item.value in _YAML11_ONLY_BOOLEANS):
            value[at] = item.value
        else:
            _words_kept(item, value[at])


def _nesting(node: Node) -> int:
    deepest = 0
    stack = [(node, 1)]
    while stack:
        current, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth <= MAX_CONFIG_DEPTH:
            stack.extend((child, depth + 1) for child in children(current))
    return deepest


# --- results ---------------------------------------------------------------


def warning_results(warnings: list[Diagnostic]) -> list[dict[str, Any]]:
    """One result per warning; one about an object names it (and its file),
    one about a field of it the field too."""
    results: list[dict[str, Any]] = []
    for warning in warnings:
        result: dict[str, Any] = {"message": warning.message, "severity": "warning"}
        if warning.about is not None:
            obj, path, value = warning.about
            result.update(_about(obj))
            if path and "resourceRef" in result:
                # No value where it would show a Secret's data (shown_value).
                result["field"] = {"path": path, **({"currentValue": value} if value is not None else {})}
                result["message"] = _without_the_place(warning.message, path)
        results.append(result)
    return results


def _without_the_place(message: str, path: str) -> str:
    """The message without the `Kind/name path: ` it opens with, which the
    result's resourceRef and field say: kpt prints both, and then printed
    the place twice (newcomer60)."""
    head, said, rest = message.partition(f" {path}: ")
    # `Deployment/web`, or a location: `document 1 (web.yaml, Gizmo/g) stream line 78:`.
    return rest if said and "/" in head and (" " not in head or head.startswith("document ")) else message


def _about(obj: KubeObject) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if obj.name:
        ref = {"apiVersion": obj.api_version, "kind": obj.kind, "name": obj.name}
        if obj.namespace:
            ref["namespace"] = obj.namespace
        out["resourceRef"] = ref
    path = next((obj.annotations[a] for a in PATH_ANNOTATIONS if obj.annotations.get(a)), None)
    if path:
        file: dict[str, Any] = {"path": path}
        index = next((obj.annotations[a] for a in INDEX_ANNOTATIONS if obj.annotations.get(a)), None)
        if index is not None and index.isascii() and index.isdigit():  # `²` is a digit int() refuses
            file["index"] = int(index)
        out["file"] = file
    return out


def error_result(exc: Exception, stream: Stream | None) -> dict[str, Any]:
    """As a warning's (warning_results): the field too where the error
    names one, its value where that shows no secret."""
    result: dict[str, Any] = {"message": str(exc), "severity": "error"}
    location = getattr(exc, "location", None)
    if stream is not None and location is not None and location.kind and location.name:
        about = _object_at(stream, location)
        if about is not None:
            result.update(_about(about))
    path = getattr(exc, "field", None)
    if path and "resourceRef" in result:
        value = getattr(exc, "value", None)
        result["field"] = {"path": path, **({"currentValue": value} if value is not None else {})}
        result["message"] = _without_the_place(result["message"], path)
    return result


def _object_at(stream: Stream, location: Location) -> KubeObject | None:
    """The object an error is about: of its kind and name, the one in the
    file the message names, the last to start at or before its line. The
    first of its kind and name was another namespace's or another file's
    (errors60), so kpt showed the wrong file beside the right message."""
    named = [obj for obj in stream.objects if obj.kind == location.kind and obj.name == location.name]
    if len(named) > 1:
        placed = [(obj, obj.location()) for obj in named]
        in_file = [(obj, where) for obj, where in placed if where.source == location.source] or placed
        if location.line is not None:
            before = [(obj, where) for obj, where in in_file if where.line is not None and where.line <= location.line]
            in_file = before[-1:] or in_file
        named = [in_file[0][0]]
    return named[0] if named else None


def _failed(
    exc: Exception, status: int, source: Source, stream: Stream | None, warnings: list[dict[str, Any]]
) -> ResourceListError:
    problems = exc.problems() if isinstance(exc, PostrenderError) else [exc]
    if stream is None and source.cuts is not None:
        # Read failed: the echo below leaves out what reading did, and says so.
        warnings = [*warning_results(source.left_out_warnings()), *warnings]
    results = [*warnings, *(error_result(problem, stream) for problem in problems)]
    if stream is not None and _resource_list(stream) is not None:
        try:
            output = set_results(source.text_left_out(), results)
        except UnreplaceableResults:
            output = _unreplaceable(results)
    else:
        output = _unread(source.text_left_out(), results)
    return ResourceListError(str(exc), output, status, problems=[p for p in problems if isinstance(p, PostrenderError)])


def unread(exc: PostrenderError) -> ResourceListError:
    """The answer to a ResourceList that could not even be decoded (not
    UTF-8): an empty one, its error in `results`."""
    problems = exc.problems()
    return ResourceListError(str(exc), _empty_list([error_result(p, None) for p in problems]), 1, problems=problems)


def _unread(text: str, results: list[dict[str, Any]]) -> str:
    """The answer to an input that failed to read (an item without kind, a
    name read as a boolean, nesting beyond --max-depth): a ResourceList's
    text untouched but for its `results`, as for any other error, where its
    top level still composes. An empty ResourceList answers a text that does
    not parse, that strict readers refuse (a duplicate key, a mapping tagged
    `!!str`: written back, the orchestrator could not read the results
    either), or that nests deeper than the reader ever composes (composing
    nests in C)."""
    if claims_resource_list(text) and _nests_within(text, MAX_DEPTH_CEILING) and _written_readably(text):
        try:
            answer = set_results(text, results)
        except ValueError:
            pass  # no mapping composed at the top level
        else:
            if "!" not in text or _top_mapping_plain(answer):
                return answer
    return _empty_list(results)


def _top_mapping_plain(text: str) -> bool:
    """Whether the ResourceList's mapping carries no tag but `!!map`: go-yaml
    v2 reads `!!str {...}` as a mapping, strict readers refuse it."""
    for chunk, _ in split(Source(None, text)):
        root = _compose(chunk)
        if root is not None:
            return isinstance(root, MappingNode) and root.tag == _MAP_TAG
    return False


def _written_readably(text: str) -> bool:
    """Whether the reader finds nothing wrong with how the text is written
    (read.yamlerrors.UnreadableText), whatever it finds wrong with what it says. Its
    other limits raised: an error they stop at first would hide the text's."""
    from ..pipeline.read import read

    limits = Limits(max_bytes=MAX_BYTES_CEILING, max_depth=MAX_DEPTH_CEILING, max_nodes=MAX_NODES_CEILING)
    source = Source(None, text)
    before = source.text
    try:
        read([source], limits)
    except UnreadableText:
        return False
    except PostrenderError:
        pass  # what it says: an item without kind, a name that is no string
    # A key written twice, which read drops, masking it in the source's text.
    return source.text == before


def _nests_within(text: str, depth: int) -> bool:
    loader = Composer(text)
    level = 0
    try:
        while loader.check_event():
            name = type(loader.get_event()).__name__
            if name in ("MappingStartEvent", "SequenceStartEvent"):
                level += 1
                if level > depth:
                    return False
            elif name in ("MappingEndEvent", "SequenceEndEvent"):
                level -= 1
    except YAMLError:
        return False
    finally:
        loader.dispose()
    return True


def _empty_list(results: list[dict[str, Any]]) -> str:
    # Nothing readable came in, so no items go out; the exit status says it failed.
    return set_results(f"apiVersion: {DEFAULT_API_VERSION}\nkind: {KIND}\nitems: []\n", results)


# --- writing `results` into the ResourceList text ---------------------------


def set_results(text: str, results: list[dict[str, Any]]) -> str:
    """The ResourceList text with its top-level `results` replaced by ours.

    Only the `results` entry changes; the rest of the text is kept byte for byte.
    """
    parts: list[str] = []
    done = False
    for chunk, _ in split(Source(None, text)):
        root = None if done else _compose(chunk)
        if isinstance(root, MappingNode):
            chunk = _set_in_chunk(chunk, root, results)
            done = True
        parts.append(chunk)
    if not done:
        raise ValueError("set_results needs a ResourceList mapping")
    return "".join(parts)


def _compose(chunk: str) -> Any:
    """The ResourceList's top-level mapping, its items dropped as they are
    composed (only `results` and where the mapping ends are read): the
    whole of a large one held 30 times its size."""
    if not chunk.strip():
        return None
    loader = ListComposer(chunk, drop_item)
    try:
        root = loader.get_single_node()
    except YAMLError as exc:
        # An anchor defined again, as go-yaml reads it (pipeline/read reads the
        # items so): composed with the later ones renamed in place.
        from ..syntax import anchors

        renamed = anchors.renamed_after(exc, chunk)
        if renamed is None:
            # A JSON ResourceList's surrogate escapes (`\ud83d\ude00`), which
            # libyaml refuses and the items were read past (pipeline/read masks
            # them so): the same length, so `results` is found where it is
            # (oracle60b: an internal error, and no ResourceList out).
            renamed = mask_surrogate_escapes(chunk)
        return _compose(renamed) if renamed is not None and renamed != chunk else None
    finally:
        loader.dispose()
    if root is not None and chunk.startswith("\ufeff"):
        shift_offsets(root, 1)  # offsets in the text, which holds the mark libyaml skips
    return root


def _set_in_chunk(text: str, root: MappingNode, results: list[dict[str, Any]]) -> str:
    entry = _results_entry(root)
    newline = "\r\n" if "\r\n" in text else "\n"
    # Only results that hold an `&` can define an anchor: the event scan,
    # a whole read of the text, is for those alone.
    if entry is not None and "&" in text[entry[1].start_mark:entry[1].end_mark] and \
            _results_anchor_aliased_after(text) is not None:
        raise UnreplaceableResults()
    if root.flow_style:
        flow = json.dumps(results, ensure_ascii=False)
        if entry is not None:
            key, value = entry
            colon = text.index(":", key.end_mark)
            return text[: colon + 1] + " " + flow + text[max(value.end_mark, colon + 1) :]
        brace = text.rindex("}", 0, root.end_mark)
        separator = ", " if root.value else ""
        return text[:brace] + f'{separator}"results": {flow}' + text[brace:]
    if entry is not None:
        text, root = _remove_entry(text, *entry)
    if not results:
        return text
    at, block = _block_results(text, root, results, newline)
    return text[:at] + block + text[at:]


def _results_entry(root: MappingNode) -> tuple[ScalarNode, Node] | None:
    """The ResourceList's own `results` entry, if it has one."""
    return next(((k, v) for k, v in root.value if isinstance(k, ScalarNode) and k.value == "results"), None)


def _block_results(text: str, root: MappingNode, results: list[dict[str, Any]], newline: str) -> tuple[int, str]:
    """Where `results` go in a block-style ResourceList `text` (its root
    mapping `root`) that has none, and the text that goes there: at its
    root's end, before any `...` line, indented as its keys are."""
    at, column_of_keys = _results_at(text, root)
    return at, _results_block(text, at, column_of_keys, results, newline)


def _results_at(text: str, root: MappingNode) -> tuple[int, int]:
    """Where `results` go in a block-style ResourceList `text` that has none
    (its root mapping `root`): at its root's end, before any `...` line; and
    the column its keys are written at."""
    column_of_keys = _column_of_keys(text, root) if root.value else 0
    at = root.end_mark
    end_marker = _DOCUMENT_END.search(text, at)
    if end_marker:
        at = end_marker.start()
    return at, column_of_keys


def _results_block(text: str, at: int, column_of_keys: int, results: list[dict[str, Any]], newline: str) -> str:
    """The text of `results` inserted at offset `at` of `text`, their keys at `column_of_keys`."""
    lead = newline if at and not text.endswith("\n", 0, at) else ""
    return lead + _block_yaml({"results": results}, column_of_keys, newline)


_DOCUMENT_END = re.compile(r"^\.\.\.[ \t]*\r?$", re.M)


def _column_of_keys(text: str, root: MappingNode) -> int:
    """The column a block mapping's keys are written at: where the mapping
    starts, at its first key or at the `?` of an explicit one (`?  key`,
    whose key starts further in: results written at the key's column were
    no entry of the ResourceList, and its output no YAML). A tag or anchor
    on the mapping itself starts it, on a line of its own: past them."""
    start = root.start_mark
    if text.startswith(("!", "&"), start):
        start = _PROPERTIES.match(text, start).end()  # type: ignore[union-attr]
    return column(text, start)


# A node's tag and anchor, and the blank lines and comments after them.
_PROPERTIES = re.compile(r"(?:[!&]\S*\s+)+(?:#[^\n]*\n\s*)*")


def _remove_entry(text: str, key: ScalarNode, value: Any) -> tuple[str, MappingNode]:
    start = text.rfind("\n", 0, key.start_mark) + 1
    end = max(value.end_mark, key.end_mark)
    if text[end - 1 : end] != "\n":
        line_end = text.find("\n", end)
        end = len(text) if line_end == -1 else line_end + 1
    text = text[:start] + text[end:]
    root = _compose(text)
    assert isinstance(root, MappingNode)  # an anchor its results defined for the rest was found before
    return text, root


def _results_anchor_aliased_after(text: str) -> str | None:
    """An anchor the ResourceList's own `results` define that an alias after
    them names, if any: removing them would leave the alias naming nothing,
    or an earlier anchor of that name (go-yaml reads the last one defined),
    which would change what an item holds without a word."""
    loader = Composer(text)
    defined: set[str] = set()
    depth, at_key, key = 0, True, None
    in_results = done = False
    try:
        while loader.check_event():
            event = loader.get_event()
            kind = type(event).__name__
            anchor = getattr(event, "anchor", None)
            if depth == 1 and kind in ("ScalarEvent", "AliasEvent", "MappingStartEvent", "SequenceStartEvent"):
                # The root mapping's own keys and values, one after the other.
                if at_key:
                    key = event.value if kind == "ScalarEvent" else None
                elif key == "results" and not done:
                    in_results = True
                at_key = not at_key
            if kind == "AliasEvent":
                if done and anchor in defined:
                    return anchor
            elif anchor:
                if in_results:
                    defined.add(anchor)
                elif done:
                    defined.discard(anchor)  # defined again after them: aliases after name this one
            if kind in ("MappingStartEvent", "SequenceStartEvent"):
                depth += 1
            elif kind in ("MappingEndEvent", "SequenceEndEvent"):
                depth -= 1
            if in_results and depth == 1 and kind in ("ScalarEvent", "AliasEvent", "MappingEndEvent",
                                                      "SequenceEndEvent"):
                in_results, done = False, True
    except YAMLError:
        return None
    finally:
        loader.dispose()
    return None


def _unreplaceable(results: list[dict[str, Any]]) -> str:
    """The answer where the ResourceList's own results cannot be replaced:
    no items, `results` and the error saying why."""
    return _empty_list([*results, error_result(PostrenderError(UnreplaceableResults.MESSAGE), None)])


class UnreplaceableResults(ValueError):
    """The ResourceList's own `results` define an anchor its other parts
    alias: without them, the rest no longer reads, or reads otherwise."""

    MESSAGE = ("the ResourceList's results define an anchor that other parts of it alias, so postrender cannot"
               " replace them with its own; write the aliased value out where it is used")


def _block_yaml(data: dict[str, Any], column: int, newline: str) -> str:
    """`data` (a ResourceList's results: mappings of strings, ints and
    mappings, lists of mappings) as block YAML, its keys at `column`, a
    list's items two spaces in under their key. Written here, not by an
    emitter: ruamel's took 2 ms a result and held them all as nodes (3,000
    warnings: 6 s of a 7.6 s run, 89 MiB against 39 without them)."""
    lines: list[str] = []
    _block_lines(data, column, " " * column, lines)
    return "".join(line + newline for line in lines)


def _block_lines(mapping: dict[str, Any], indent: int, first: str, lines: list[str]) -> None:
    """The mapping's entries, its keys at `indent`; the first entry's line
    starts with `first` (a list item's `- `)."""
    lead = first
    for key, value in mapping.items():
        if isinstance(value, dict) and value:
            lines.append(f"{lead}{_block_scalar(key)}:")
            _block_lines(value, indent + 2, " " * (indent + 2), lines)
        elif isinstance(value, list) and value:
            lines.append(f"{lead}{_block_scalar(key)}:")
            for item in value:
                dash = " " * (indent + 2) + "- "
                if isinstance(item, dict) and item:
                    _block_lines(item, indent + 4, dash, lines)
                else:
                    lines.append(dash + _block_scalar(item))
        else:
            lines.append(f"{lead}{_block_scalar(key)}: {_block_scalar(value)}")
        lead = " " * indent


def _block_scalar(value: Any) -> str:
    """A scalar as every YAML reader, 1.1 (kubectl, Helm) and 1.2 (kustomize,
    kpt), reads it back: a string as the rewrite writes one
    (edit.render_scalar: plain only where both read it as that string, else
    double-quoted), but a field path (`spec.containers[0].image`) plain too,
    as results have always named fields; an int as its digits."""
    if isinstance(value, str):
        return value if _FIELD_PATH.fullmatch(value) else render_scalar(value)
    if isinstance(value, bool):
        return render_scalar(value)
    if isinstance(value, int):
        return str(value)
    if value is None:
        return "null"
    if isinstance(value, (dict, list)):
        return "{}" if isinstance(value, dict) else "[]"  # (an empty one: the others are blocks)
    return json.dumps(value)


# A field path with an index in it: a letter first and `[digits]` after,
# so no reader takes it for a number, a boolean or null.
_FIELD_PATH = re.compile(r"[A-Za-z][-A-Za-z0-9_./]*(?:\[[0-9]+\][-A-Za-z0-9_./]*)+")
