"""What `postrender diff` reports, independent of how it is written.

Secret values never enter this model: a Secret contributes key names and
"changed" only. ConfigMap values are kept only when asked for
(--show-values).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...vocabulary import ANNOTATION_CONFIG_HASH, ANNOTATION_REFS


@dataclass(frozen=True)
class ObjectRef:
    kind: str
    namespace: str | None  # None: no namespace was given (the deployer's default)
    name: str
    source: str | None = None  # the chart file (`# Source:` or Helm 4's filename annotation)

    def describe(self) -> str:
        ns = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind}/{ns}{self.name}"


@dataclass(frozen=True)
class ValueChange:
    """One ConfigMap key's values (--show-values). None: absent on that side."""

    key: str
    old: str | None
    new: str | None


@dataclass
class KeyChanges:
    changed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.changed or self.added or self.removed)


# ConfigChange.status and Cause.change values.
CHANGED = "changed"  # content differs
RENAMED = "renamed"  # same content, another name (the two renders chose differently)
ADDED = "added"  # only in NEW
REMOVED = "removed"  # only in OLD
NOW_USED = "now used"  # in both, used by this workload only in NEW
NO_LONGER_USED = "no longer used"  # in both, used by this workload only in OLD

VIA_NAME = "name"  # a rewritten reference: the new name is in the pod template
VIA_HASH = ANNOTATION_CONFIG_HASH  # the object keeps its name; a hash over it changes
VIA_REFS = ANNOTATION_REFS  # only the record of versions in use (--keep-previous, --retain) names it
# kustomize's generator output (needsHashSuffix): kustomize suffixes the name
# with the content hash after postrender ran and rewrites the reference.
VIA_KUSTOMIZE_SUFFIX = "kustomize hash suffix"


@dataclass
class ConfigChange:
    """A ConfigMap or Secret, matched across the sides by kind, namespace and base name."""

    kind: str
    namespace: str | None
    name: str  # the base (unversioned) name
    old_name: str | None  # the name it ends with in OLD (kustomize's suffix included); None: not in OLD
    new_name: str | None
    status: str
    keys: KeyChanges = field(default_factory=KeyChanges)
    notes: list[str] = field(default_factory=list)  # e.g. a Secret's type change
    kept: str | None = None  # why it keeps its name in NEW (the plan's reason)
    values: list[ValueChange] | None = None  # ConfigMaps with --show-values only
    # kustomize's generator output in NEW (needsHashSuffix): kustomize gives
    # it new_name, its hash suffix, after postrender, and rewrites references.
    suffixed_by_kustomize: bool = False

    def describe(self) -> str:
        ns = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind}/{ns}{self.name}"


@dataclass
class Cause:
    """One entry of a roll's `because`: a config object and what happened to it."""

    config: ConfigChange
    change: str  # CHANGED, RENAMED, ADDED, REMOVED, NOW_USED, NO_LONGER_USED
    via: str | None  # how the change reaches the pod template: VIA_NAME, VIA_HASH, VIA_REFS, VIA_KUSTOMIZE_SUFFIX;
    # None: the use itself changed


@dataclass
class Roll:
    """A workload whose pod template changes (or, in `updated`, an object
    without one that changes with its config)."""

    workload: ObjectRef
    because: list[Cause] = field(default_factory=list)
    direct: list[str] = field(default_factory=list)  # fields changed in the pod template itself


@dataclass
class Held:
    """Config changed, but this workload does not roll (or no pod template uses it);
    or its pod template changed, but its pods are not replaced by that alone
    (config None: `direct` names the fields; Referrer.waits)."""

    workload: ObjectRef | None  # None: nothing in the stream uses the object
    config: ConfigChange | None
    reason: str
    direct: list[str] = field(default_factory=list)  # fields of the pod template itself that changed


@dataclass(frozen=True)
class VersionRef:
    kind: str
    namespace: str | None
    name: str  # the versioned name
    base: str


@dataclass
class Report:
    does_not_roll: list[Held] = field(default_factory=list)
    rolls: list[Roll] = field(default_factory=list)
    updated: list[Roll] = field(default_factory=list)
    config_changes: list[ConfigChange] = field(default_factory=list)
    versions_created: list[VersionRef] = field(default_factory=list)
    versions_unreferenced: list[VersionRef] = field(default_factory=list)
    show_values: bool = False
    # What the diff itself found about comparing the sides (pairing.py): shown
    # in the report, not only on stderr, which a CI comment never shows.
    warnings: list[str] = field(default_factory=list)
    # ConfigMaps and Secrets stored under the same name on both sides whose
    # update the API server refuses (refused.py): the deploy fails. Each is
    # also a warning; --exit-code fails for them.
    refused: list[str] = field(default_factory=list)
    # Objects that could pair with more than one on the other side: whether
    # they roll is unknown, so --exit-code fails as if they did.
    unpaired: list[str] = field(default_factory=list)
    # Workloads whose pod template changes, though that replaces none of
    # their pods (listed in does_not_roll): --exit-code fails for them too.
    waiting: list[Roll] = field(default_factory=list)
    # Workloads whose immutable pod template changes only where an update
    # may change it (side.UPDATED_IN_PLACE: a bare Pod's images): no new
    # pod, a container restarts. --exit-code fails for them too.
    in_place: list[Roll] = field(default_factory=list)

    @property
    def template_changes(self) -> bool:
        """Whether any pod template changes: what --exit-code reports."""
        return bool(self.rolls or self.waiting or self.in_place)

    @property
    def held_directly(self) -> bool:
        """Whether a held workload's own pod template changed."""
        return any(held.config is None for held in self.does_not_roll)

    @property
    def rolls_config(self) -> list[Roll]:
        return [r for r in self.rolls if r.because]

    @property
    def rolls_direct(self) -> list[Roll]:
        return [r for r in self.rolls if r.direct]
