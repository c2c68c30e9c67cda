"""Unsuffixed copies a previous run wrote, read again: a stream postrender
wrote (a GitOps repo's committed output, kpt writing a function's answer
back over the package) rendered once more.

A copy (annotated `postrender.io/copy-of: X`, opted out) keeps its name and
data as written, and X, a version, is renamed when its content changed. So
a change to one of them alone left the copy serving other data than its
version, naming a version no longer in the output. Which of the two edits
the user meant is not for postrender to guess: a copy whose data is its
version's as written out follows the version's new name; one whose data
differs is refused, naming both.

An overlay's namePrefix or nameSuffix over that output renames the copy and
its version alike (`o-creds`, `o-creds-<hash>`) but leaves the annotation,
which still names `creds-<hash>`: the version is then the one whose name
holds that name once, with what was put around it the copy's name holds
around its base.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...errors import Location, PostrenderError, Problems
from ...records import record
from ...syntax.nodes import get
from ...vocabulary import ANNOTATION_COPY_OF
from ..graph.references import Graph
from ..index.objects import ObjectIndex, ObjectKey, base_name_of
from ..read.compose import object_node, recompose
from ..read.documents import KubeObject
from .versions import Plan, Version, name_written_within, opted_out


@record(frozen=True, eq=False)
class Repointed:
    """A copy whose `postrender.io/copy-of` is set to its version's new name."""

    copy: KubeObject
    name: str


def repointed_copies(graph: Graph, the_plan: Plan) -> tuple[Repointed, ...]:
    """The copies in the stream whose version is renamed for the copy's
    content, or under another name than its `copy-of` says; refuses each
    copy whose content is not its version's."""
    repointed: list[Repointed] = []
    refused: list[PostrenderError] = []
    renamed = _RenamedAround(graph.index, graph.config_objects)
    for copy in graph.config_objects:
        # Most configs hold no annotation at all, and few a copy's.
        if not copy.annotations or ANNOTATION_COPY_OF not in copy.annotations or not opted_out(copy):
            continue
        held, found = the_plan.of(copy), _version_copied(graph.index, renamed, the_plan, copy)
        if held is None or found is None:
            continue
        original, version = found
        # Both as written out: a reference in their data (a --config field
        # spec) is rewritten alike in the two.
        if held.hash != version.hash:
            refused.append(_differs(copy, original))
        elif version.name != copy.annotations[ANNOTATION_COPY_OF]:
            repointed.append(Repointed(copy, version.name))
    if refused:
        raise refused[0] if len(refused) == 1 else Problems(refused)
    return tuple(repointed)


def _version_copied(index: ObjectIndex, renamed: _RenamedAround, the_plan: Plan,
                    copy: KubeObject) -> tuple[KubeObject, Version] | None:
    """The object a copy's `copy-of` names, of its kind and namespace (or
    that name with the copy's prefix and suffix around it), and its
    version, where postrender versions it; else None. kustomize's names
    keep no copy, and an object that keeps its name (or one of another
    namespace, or none at all) is nothing this copy was made of: left as
    written."""
    name = copy.annotations[ANNOTATION_COPY_OF]
    namespace = index.namespace_of(copy)
    exact = index.get(ObjectKey(copy.group, copy.kind, namespace, name))
    if exact is not None and base_name_of(exact) == copy.name:
        original: KubeObject | None = exact
    else:
        # Where the stream holds the plain and the prefixed output both, the
        # one the copy's own name is made like; none or several found, the
        # name as written.
        around = renamed.holding(copy, namespace, name)
        original = around[0] if len(around) == 1 else exact
    version = the_plan.of(original) if original is not None else None
    if original is None or version is None or not version.versioned or version.kustomized:
        return None
    return original, version


class _RenamedAround:
    """The previous run's versions renamed around their versioned name since
    (versions.renamed_around), by kind, namespace and that name; gathered at
    the first copy whose `copy-of` names no object of the copy's name."""

    def __init__(self, index: ObjectIndex, configs: Iterable[KubeObject]):
        self._index, self._configs = index, configs
        self._by_written: dict[tuple[str, str, str, str], list[tuple[KubeObject, str]]] | None = None

    def holding(self, copy: KubeObject, namespace: str, written: str) -> list[KubeObject]:
        """The versions whose name is `written` with the same put around it
        as around their base in the copy's name (`o-` + `creds-<hash>`, the
        copy `o-` + `creds`)."""
        held = self._gathered().get((copy.group, copy.kind, namespace, written), [])
        return [version for version, copy_name in held if copy_name == copy.name]

    def _gathered(self) -> dict[tuple[str, str, str, str], list[tuple[KubeObject, str]]]:
        if self._by_written is None:
            self._by_written = {}
            for obj in self._configs:
                base = base_name_of(obj)
                written = name_written_within(obj, base)
                if written is None:
                    continue
                before, after = (obj.name or "").split(written)
                key = (obj.group, obj.kind, self._index.namespace_of(obj), written)
                self._by_written.setdefault(key, []).append((obj, before + base + after))
        return self._by_written


def _differs(copy: KubeObject, original: KubeObject) -> PostrenderError:
    # No value: a Secret's would be shown.
    written = copy.annotations[ANNOTATION_COPY_OF]
    return PostrenderError(
        f"this unsuffixed copy ({ANNOTATION_COPY_OF}: {written}) holds other data than the version it is a copy "
        f"of, {original.location().describe()}: the two were edited differently, or only one of them, and which "
        "edit is meant is not postrender's to guess. Make the same change in both (postrender then points "
        f"{ANNOTATION_COPY_OF} at the new version), or delete the copy to drop it",
        _copy_of_place(copy),
    )


def _copy_of_place(copy: KubeObject) -> Location:
    """The line of the copy's `copy-of` annotation, the name to mend. Read
    kept little of a copy's tree (its edits were located ahead): composed
    again, as this is a refusal, once per copy refused."""
    root = recompose(copy.document, None if copy.item is None else (copy.item,))
    node = object_node(root, copy) if root is not None else None
    written = get(get(get(node, "metadata"), "annotations"), ANNOTATION_COPY_OF)
    return copy.location(written) if written is not None else copy.location()
