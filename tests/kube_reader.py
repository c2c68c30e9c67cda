"""What Kubernetes reads: kubectl's JSON of manifest streams, and what a
render's Result says it changed, applied to that JSON.

`kubectl label --local -f FILE zz=x -o json` reads YAML the way kubectl and
Helm send it to the API server (sigs.k8s.io/yaml, go-yaml v2 rules) and
prints the JSON offline. Many streams go into one call (kubectl starts
slowly), each in its own file and followed by a marker object, so the
objects can be told apart again.

`expected_objects` builds, independently of the output text, what the output
must read as: the input's JSON with the edits the render reports (the
mappings it gave keys, the scalars it replaced, the items it inserted, the
copies it wrote) applied in Python.
"""

from __future__ import annotations

import copy
import json
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from conftest import require_tool

from postrender.syntax.nodes import MappingNode, Node, ScalarNode, SequenceNode, entries, unique_nodes
from postrender.pipeline.read.compose import object_node, recompose
from postrender.pipeline.read.documents import Document, KubeObject
from postrender.pipeline.render import Result
from postrender.pipeline.rewrite import PACKED

MARKER_KIND = "PostrenderTestMarker"


class ReadError(AssertionError):
    """kubectl could not read one of the files (`index` in the list given)."""

    def __init__(self, message: str, index: int | None = None):
        super().__init__(message)
        self.index = index


def kubectl_reads(text: str) -> bool:
    """Whether kubectl reads the text at all: the verdict a refusal test compares with."""
    try:
        read_streams([text])
    except ReadError:
        return False
    return True


def read_streams(texts: list[str]) -> list[list[dict[str, Any]]]:
    """kubectl's objects for each text (Lists flattened), in one kubectl call."""
    if not texts:
        return []
    kubectl = require_tool("kubectl")
    with tempfile.TemporaryDirectory(prefix="postrender-kube-") as tmp:
        args = [kubectl, "label", "--local", "-o", "json"]
        for i, text in enumerate(texts):
            path = Path(tmp) / f"{i:04d}.yaml"
            path.write_bytes(text.encode("utf-8"))
            marker = Path(tmp) / f"{i:04d}-marker.yaml"
            marker.write_text(f"apiVersion: v1\nkind: {MARKER_KIND}\nmetadata:\n  name: m{i}\n")
            args += ["-f", str(path), "-f", str(marker)]
        proc = subprocess.run([*args, "zz=x"], capture_output=True, text=True)
        if proc.returncode != 0:
            raise _read_error(proc.stderr, texts)
    objects = _json_values(proc.stdout)
    streams: list[list[dict[str, Any]]] = [[]]
    for obj in objects:
        if obj.get("kind") == MARKER_KIND:
            streams.append([])
        else:
            streams[-1].append(obj)
    assert streams[-1] == [] and len(streams) == len(texts) + 1, "kubectl's output lost a marker"
    return streams[:-1]


def _read_error(stderr: str, texts: list[str]) -> ReadError:
    for line in stderr.splitlines():
        for i, text in enumerate(texts):
            if f"{i:04d}.yaml" in line:
                return ReadError(f"kubectl cannot read text {i}: {line}", i)
    return ReadError(f"kubectl failed: {stderr}")


def _json_values(text: str) -> list[dict[str, Any]]:
    decoder = json.JSONDecoder()
    values, at = [], 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            return values
        value, at = decoder.raw_decode(text, at)
        values.append(value)


# --- the expected reading ----------------------------------------------------

JsonPath = tuple[str | int, ...]


def node_paths(root: Node) -> dict[int, list[JsonPath]]:
    """Every JSON path at which each node under `root` is read: an alias
    puts a node at several, a merge key (`<<`) adds a mapping's entries to
    the mapping holding it unless written there explicitly, as YAML readers do."""
    paths: dict[int, list[JsonPath]] = {}
    stack: list[tuple[Node, JsonPath]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        paths.setdefault(id(node), []).append(path)
        if isinstance(node, MappingNode):
            stack.extend((value, path + (key.value,)) for key, value in entries(node) if isinstance(key, ScalarNode))
        elif isinstance(node, SequenceNode):
            stack.extend((item, path + (i,)) for i, item in enumerate(node.value))
    return paths


def scalar_paths(doc: Document, obj: KubeObject) -> dict[int | tuple[str, int], list[JsonPath]]:
    """The JSON paths of each scalar of `obj` by its start offset, and of
    each mapping by ("mapping", its start offset), from its document
    composed again whole: read prunes each document to what later stages
    read, so a replaced reference's scalar is no longer in the tree (its
    Reference holds it), and an edit may give keys to a mapping of a graph
    composed again (rewrite.DocumentEdits.mapping_at). Two scalars never
    start at one offset, nor two mappings."""
    root = recompose(doc)
    whole = object_node(root, obj) if root is not None else None
    if whole is None:
        return {}
    paths = node_paths(whole)
    by_offset: dict[int | tuple[str, int], list[JsonPath]] = {}
    for node in unique_nodes(whole):
        if isinstance(node, ScalarNode):
            by_offset.setdefault(node.start_mark, []).extend(paths.get(id(node), ()))  # a key has none
        elif isinstance(node, MappingNode):
            by_offset.setdefault(("mapping", node.start_mark), []).extend(paths.get(id(node), ()))
    return by_offset


def _at(value: Any, path: JsonPath, create: bool = False) -> Any:
    for part in path:
        if isinstance(value, dict):
            if create and not isinstance(value.get(part), dict):
                value[part] = {}
            value = value[part]
        else:
            value = value[part]
    return value


def _merge(target: dict[str, Any], values: dict[str, Any]) -> None:
    for key, value in values.items():
        if isinstance(value, dict):
            if not isinstance(target.get(key), dict):
                target[key] = {}
            _merge(target[key], value)
        else:
            target[key] = value


def _set(obj: dict[str, Any], path: JsonPath, value: Any) -> None:
    parent = _at(obj, path[:-1])
    parent[path[-1]] = value


def _inserted(edits: Any) -> list[tuple[Any, Any, Any]]:
    """Each item inserted: its sequence, the item it goes ahead of, and its
    value (a List item's copy made ahead is held as the JSON line written,
    packed: PreparedItem.item_copy)."""
    return [(sequence, before, json.loads(value.item_copy) if style == PACKED else value)
            for sequence, before, value, style in edits.inserted]


def expected_objects(result: Result, read_input: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the output must read as, object by object, from the input's reading."""
    stream = result.analysis.stream
    objects: list[KubeObject] = stream.objects
    assert len(objects) == len(read_input), (
        f"kubectl reads {len(read_input)} objects where postrender reads {len(objects)}"
    )
    by_document: dict[int, list[tuple[KubeObject, dict[str, Any]]]] = {}
    for obj, json_obj in zip(objects, read_input):
        by_document.setdefault(obj.document.index, []).append((obj, copy.deepcopy(json_obj)))
    out: list[dict[str, Any]] = []
    for doc in stream.documents:
        members = by_document.get(doc.index, [])
        edits = result.rewrite.for_document(doc)
        if edits is None:
            out.extend(o for _, o in members)
            continue
        originals = [copy.deepcopy(o) for _, o in members]
        inserted_before: dict[int, list[dict[str, Any]]] = {}
        for position, (obj, json_obj) in enumerate(members):
            paths = node_paths(obj.node)
            _apply(edits.entries(), edits.replaced, paths, json_obj, scalar_paths(doc, obj))
            # Items inserted into a sequence of the object: last position first,
            # so each index still counts items of the input.
            inside = [(sequence, before, value) for sequence, before, value in _inserted(edits) if id(sequence) in paths]
            # Several ahead of one item are written in order: the last first.
            for sequence, before, value in sorted(reversed(inside), key=lambda e: -_index(e[0], e[1])):
                for seq_path in paths[id(sequence)]:
                    _at(json_obj, seq_path).insert(_index(sequence, before), copy.deepcopy(value))
            for sequence, before, value in _inserted(edits):
                if before is obj.node:
                    # A new object, a List item ahead of this one: a copy of the
                    # input as kubectl read it, with the annotations the copy states.
                    duplicate = copy.deepcopy(originals[position])
                    duplicate.setdefault("metadata", {})["annotations"] = value["metadata"]["annotations"]
                    inserted_before.setdefault(id(obj), []).append(duplicate)
        for obj, json_obj in members:
            out.extend(inserted_before.get(id(obj), []))
            out.append(json_obj)
        for document_copy in edits.copies:
            assert len(members) == 1, "a copied document holds one object"
            (obj, _), original = members[0], originals[0]
            _apply(document_copy.entries(), document_copy.replaced, node_paths(obj.node), original,
                   scalar_paths(doc, obj))
            out.append(original)
    return out


def _index(sequence: SequenceNode, item: Node) -> int:
    return next(i for i, other in enumerate(sequence.value) if other is item)


def _apply(
    given: Iterable[tuple[MappingNode, dict[str, Any]]],
    replaced: Iterable[tuple[ScalarNode, str]],
    paths: dict[int, JsonPath],
    json_obj: dict[str, Any],
    at_offset: dict[int | tuple[str, int], list[JsonPath]],
) -> None:
    for mapping, values in given:
        for path in paths.get(id(mapping)) or at_offset.get(("mapping", mapping.start_mark), []):
            _merge(_at(json_obj, path, create=True), values)
    for node, value in replaced:
        for path in paths.get(id(node)) or at_offset.get(node.start_mark, []):
            _set(json_obj, path, value)
