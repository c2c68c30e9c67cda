"""What a reference is written as once versions are named: one rule, read
by rewrite.py as it edits, and by versions.py for a reference in a
config's own data, whose hash must be taken of the data as it is written
out (else new data would keep an immutable name).

Not for a grant by name (RBAC resourceNames): rewrite.py adds names there,
and no config's data holds one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ...vocabulary import KUSTOMIZE_PREVIOUS_NAMES
from ..graph.references import Reference, moved_namespace
from ..index.objects import ObjectIndex
from ..read.documents import KubeObject


class NamedVersion(Protocol):
    """What this rule reads of a version (versions.Version, which reads
    this rule as it names versions: so it is not imported here)."""

    @property
    def name(self) -> str: ...

    @property
    def versioned(self) -> bool: ...

    @property
    def renamed(self) -> bool: ...

    @property
    def keep_original(self) -> bool: ...


VersionOf = Callable[[KubeObject], NamedVersion | None]


# The scalar's new text (the name, with what is kept before it), and where
# kustomize moved the target away from a namespace the reference states,
# its namespace now (for the spec's namespaceField, if it has one). A tuple:
# a render makes one for each reference it rewrites.
NewValue = tuple[str, "str | None"]


def new_value(ref: Reference, version_of: VersionOf, held: bool, index: ObjectIndex) -> NewValue | None:
    """The reference's new text, None where it stays as written. `held`:
    reloader.py leaves it naming what it names now."""
    if held:
        name = _held_name(ref, version_of)
        if name is None:
            return None
    else:
        if ref.target is None:
            return None
        version = version_of(ref.target)
        if version is None or not version.versioned or ref.name == version.name:
            return None
        name = version.name
    # Most references state no namespace: nothing to look up.
    namespace = moved_namespace(ref, index) if ref.namespace is not None else None
    if name == ref.name and namespace is None:
        return None  # a held reference that already says it
    return _moved_prefix(ref, namespace) + name, namespace


def _held_name(ref: Reference, version_of: VersionOf) -> str | None:
    """The name a held reference is written with, where kustomize renamed or
    moved its target before postrender ran (None elsewhere: it stays as
    written): the target's name now, the unsuffixed copy's when it is
    versioned. kustomize rewrites references after every transformer, by
    the earlier names, which the version keeps while its copy records only
    its own (rewrite._own_id): it would map `cfg` (`p-cfg` by now) to the
    version. And it never moves a namespace a field of another key states (a
    StorageClass's): new_value moves it, as for a rewritten reference."""
    target = ref.target
    if target is None or KUSTOMIZE_PREVIOUS_NAMES not in target.annotations:
        return None
    version = version_of(target)
    if version is not None and version.renamed and not version.keep_original:
        return None  # nothing keeps the name (reloader.policy gives every held target a copy)
    return target.name


def _moved_prefix(ref: Reference, namespace: str | None) -> str:
    """The text kept before a rewritten name, its `old/` now `namespace/`
    where the namespace the reference states there moved (moved_namespace).
    A spec with a namespaceField states it in that field instead (as
    graph/references.py reads it, the field overrides the text)."""
    if namespace is None or ref.spec.namespace_field is not None:
        return ref.prefix
    assert ref.namespace is not None and ref.prefix.endswith(ref.namespace + "/")  # new_value wrote it so
    return ref.prefix[: len(ref.prefix) - len(ref.namespace) - 1] + namespace + "/"
