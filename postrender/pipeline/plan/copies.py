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
"""

from __future__ import annotations

from ...errors import PostrenderError, Problems
from ...records import record
from ...vocabulary import ANNOTATION_COPY_OF
from ..graph.references import Graph
from ..index.objects import ObjectIndex, ObjectKey
from ..read import KubeObject
from .versions import Plan, Version, opted_out


@record(frozen=True, eq=False)
class Repointed:
    """A copy whose `postrender.io/copy-of` is set to its version's new name."""

    copy: KubeObject
    name: str


def repointed_copies(graph: Graph, the_plan: Plan) -> tuple[Repointed, ...]:
    """The copies in the stream whose version is renamed for the copy's
    content; refuses each copy whose content is not its version's."""
    repointed: list[Repointed] = []
    refused: list[PostrenderError] = []
    for copy in graph.config_objects:
        # Most configs hold no annotation at all, and few a copy's.
        if not copy.annotations or ANNOTATION_COPY_OF not in copy.annotations or not opted_out(copy):
            continue
        held, found = the_plan.of(copy), _version_copied(graph.index, the_plan, copy)
        if held is None or found is None:
            continue
        original, version = found
        # Both as written out: a reference in their data (a --config field
        # spec) is rewritten alike in the two.
        if held.hash != version.hash:
            refused.append(_differs(copy, original))
        elif version.renamed:
            repointed.append(Repointed(copy, version.name))
    if refused:
        raise refused[0] if len(refused) == 1 else Problems(refused)
    return tuple(repointed)


def _version_copied(index: ObjectIndex, the_plan: Plan, copy: KubeObject) -> tuple[KubeObject, Version] | None:
    """The object a copy's `copy-of` names, of its kind and namespace, and
    its version, where postrender versions it; else None. kustomize's names
    keep no copy, and an object that keeps its name (or one of another
    namespace, or none at all) is nothing this copy was made of: left as
    written."""
    name = copy.annotations[ANNOTATION_COPY_OF]
    original = index.get(ObjectKey(copy.group, copy.kind, index.namespace_of(copy), name))
    version = the_plan.of(original) if original is not None else None
    if original is None or version is None or not version.versioned or version.kustomized:
        return None
    return original, version


def _differs(copy: KubeObject, original: KubeObject) -> PostrenderError:
    # No value: a Secret's would be shown.
    return PostrenderError(
        f"this unsuffixed copy ({ANNOTATION_COPY_OF}: {original.name}) holds other data than the version it is a copy of, "
        f"{original.location().describe()}: one of the two was edited and not the other, and which edit is meant "
        "is not postrender's to guess. Make the same change in both (postrender then points "
        f"{ANNOTATION_COPY_OF} at the new version), or delete the copy to drop it",
        copy.location(),
    )
