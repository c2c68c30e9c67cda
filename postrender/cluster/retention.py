"""Which previous versions a render carries forward (`--retain N`).

For each version being deployed, its group — namespace, kind, base name and
scope — is looked up among the live versions. Kept: every previous version
something still uses (a Pod, or a ReplicaSet or ControllerRevision that
`kubectl rollout undo` may return to), plus the newest N-1 others. The
deployer prunes the rest, because they are no longer in its manifest.

A group the render dropped (a ConfigMap of a feature switched off) has no
version in the stream, yet the old ReplicaSet and its Pods still mount
one: its versions in use are kept too, if the group is in a namespace and
scope the render deploys (other releases' groups are never touched). Only
those: an unused version of a dropped group is pruned at once, or it would
be carried forward for ever.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from .live import LiveState, LiveVersion, describe_users


@dataclass(frozen=True)
class Current:
    """A version in the stream being rendered."""

    namespace: str
    kind: str
    base: str  # the base-name label value
    scope: str
    name: str

    @property
    def group(self) -> tuple[str, str, str, str]:
        return (self.namespace, self.kind, self.base, self.scope)


@dataclass(frozen=True)
class Retained:
    version: LiveVersion
    reason: str


def plan_retention(currents: list[Current], state: LiveState, retain: int, *,
                   scopes: Collection[tuple[str, str]]) -> list[Retained]:
    """Previous versions to re-emit, in a fixed order (namespace, kind, name).
    `scopes`: the (namespace, scope) pairs the render deploys to."""
    in_stream = {(c.namespace, c.kind, c.name) for c in currents}
    groups = {c.group for c in currents}
    by_group: dict[tuple, list[LiveVersion]] = {}
    kept: list[Retained] = []
    for version in state.versions:
        if not version.versioned:
            continue
        if version.group not in groups:
            users = state.used_by(version)
            if users and (version.namespace, version.scope) in scopes:
                kept.append(Retained(version, f"in use by {describe_users(users)}; its group left the stream"))
            continue
        if (version.namespace, version.kind, version.name) in in_stream:
            continue  # the stream has it already (the same content came back)
        by_group.setdefault(version.group, []).append(version)
    for versions in by_group.values():
        others: list[LiveVersion] = []
        for version in versions:
            users = state.used_by(version)
            if users:
                kept.append(Retained(version, f"in use by {describe_users(users)}"))
            else:
                others.append(version)
        others.sort(key=lambda v: v.age_key(), reverse=True)
        for rank, version in enumerate(others[: max(retain - 1, 0)], start=2):
            kept.append(Retained(version, f"newest {rank} of --retain {retain}"))
    return sorted(kept, key=lambda r: (r.version.namespace, r.version.kind, r.version.name))
