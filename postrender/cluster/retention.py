"""Which previous versions a render carries forward (`--retain N`).

For each version being deployed, its group — namespace, kind, base name and
scope — is looked up among the live versions. Kept: every previous version
something still uses (a Pod, or a ReplicaSet or ControllerRevision that
`kubectl rollout undo` may return to), plus the newest N-1 others. The
deployer prunes the rest, because they are no longer in its manifest.
"""

from __future__ import annotations

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


def plan_retention(currents: list[Current], state: LiveState, retain: int) -> list[Retained]:
    """Previous versions to re-emit, in a fixed order (namespace, kind, name)."""
    in_stream = {(c.namespace, c.kind, c.name) for c in currents}
    groups = {c.group for c in currents}
    by_group: dict[tuple, list[LiveVersion]] = {}
    for version in state.versions:
        if not version.versioned or version.group not in groups:
            continue
        if (version.namespace, version.kind, version.name) in in_stream:
            continue  # the stream has it already (the same content came back)
        by_group.setdefault(version.group, []).append(version)
    kept: list[Retained] = []
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
