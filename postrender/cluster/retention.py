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

An original is the object under a group's base name that postrender did
not version: the ConfigMap a chart deployed before postrender ran for it,
or an unsuffixed copy (--keep-original) a later render no longer makes. The
first render with postrender names a new version instead, so the deployer
would prune the original while the ReplicaSets, Pods and ControllerRevisions
of every earlier rollout still name it. It is kept while something uses
it, as a previous version is, and never for --retain's N: unused, it is
what the deployer should prune. So is the original of a config the render
dropped at the same time (a feature switched off as the chart first goes
through postrender): no name in the stream leads to it, so it is kept only
where its owner marks (_owner) say the render's scope owns it, the
deployer's own record says it applied it (_applied_by_deployer), and no
controller made it (a producer's Secret, or one with an owner reference):
re-emitted, any other would be handed to the release (Helm refuses the
upgrade; kubectl apply --prune would adopt a hand-made object, then prune
it).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from ..pipeline.plan.versions import label_value
from ..vocabulary import INSTANCE_LABEL, LABEL_SCOPE
from .live import LiveState, LiveVersion, describe_users

# Helm's record of the release that owns an object.
HELM_RELEASE_ANNOTATION = "meta.helm.sh/release-name"
# A deployer's record of having applied an object, which its pruning reads:
# kubectl apply's, and Flux's labels (Helm's is the annotation above).
_APPLIED_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)
_APPLIED_LABELS = ("kustomize.toolkit.fluxcd.io/name", "helm.toolkit.fluxcd.io/name")
# A hook's: its deployer creates and deletes it outside the release.
_HOOK_ANNOTATIONS = ("helm.sh/hook", "argocd.argoproj.io/hook")


@dataclass(frozen=True)
class Current:
    """A version in the stream being rendered."""

    namespace: str
    kind: str
    base: str  # the base-name label value
    scope: str
    name: str
    # The name the stream gives it before postrender names the version: an
    # original's (below), if one is live.
    original: str = ""
    # The stream also holds an unsuffixed copy under that name
    # (--keep-original): the deployer keeps the original with it.
    copy_kept: bool = False

    @property
    def group(self) -> tuple[str, str, str, str]:
        return (self.namespace, self.kind, self.base, self.scope)


@dataclass(frozen=True)
class Retained:
    version: LiveVersion
    reason: str


def plan_retention(currents: list[Current], state: LiveState, retain: int, *,
                   scopes: Collection[tuple[str, str]], originals: Collection[LiveVersion] = (),
                   output: Collection[tuple[str, str, str]] = (), helm: bool = False) -> list[Retained]:
    """Previous versions to re-emit, in a fixed order (namespace, kind, name).
    `scopes`: the (namespace, scope) pairs the render deploys to.
    `originals`: the live objects that are not versions themselves under
    the base names of the versions in the stream, or of configs something
    uses that the output does not hold (`output`: its configs, as
    (namespace, kind, name), whatever made them). `helm`: Helm deploys the
    render, which takes into the release only what it made itself."""
    in_stream = {(c.namespace, c.kind, c.name) for c in currents}
    in_stream |= {(c.namespace, c.kind, c.original) for c in currents if c.copy_kept}
    groups = {c.group for c in currents}
    by_group: dict[tuple, list[LiveVersion]] = {}
    kept = _originals_in_use(originals, currents, in_stream, state, scopes, output, helm)
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


def _originals_in_use(originals: Collection[LiveVersion], currents: list[Current], in_stream: set[tuple[str, str, str]],
                      state: LiveState, scopes: Collection[tuple[str, str]], output: Collection[tuple[str, str, str]],
                      helm: bool) -> list[Retained]:
    """The originals something uses, and not another release's: of a group
    in the stream, one whose owner (_owner) names a scope other than its
    group's is left alone, as re-emitting it would hand it to this release
    (Helm refuses that upgrade; `kubectl apply --prune` would take it over,
    then prune it); of a config the output no longer holds, one whose owner
    is a scope the render deploys there, and no controller's."""
    scopes_by_name: dict[tuple[str, str, str], set[str]] = {}
    for current in currents:
        scopes_by_name.setdefault((current.namespace, current.kind, current.original), set()).add(current.scope)
    kept: list[Retained] = []
    for original in originals:
        where = (original.namespace, original.kind, original.name)
        if original.versioned or where in in_stream:
            continue
        owner = _owner(original)
        if where in scopes_by_name:
            if owner is not None and owner not in scopes_by_name[where]:
                continue
            what = "the unversioned original"
        elif where in output or owner is None or (original.namespace, owner) not in scopes or original.controlled \
                or not _applied_by_deployer(original, helm):
            continue
        else:
            what = "the unversioned original of a config that left the stream"
        users = state.used_by(original)
        if users:
            kept.append(Retained(original, f"{what}, in use by {describe_users(users)}"))
    return kept


def _applied_by_deployer(original: LiveVersion, helm: bool) -> bool:
    """Whether the deployer's own record says it applied the object, so its
    pruning would delete it: Helm's release annotation (under Helm, the
    only record: Helm refuses to take in anything else), kubectl apply's
    last-applied configuration, Flux's labels. Never a hook, which its
    deployer creates outside the release (a Helm 3 hook's Secret a
    Deployment reads: re-emitted, every upgrade failed)."""
    annotations = dict(original.annotations)
    if any(hook in annotations for hook in _HOOK_ANNOTATIONS):
        return False
    if HELM_RELEASE_ANNOTATION in annotations:
        return True
    if helm:
        return False
    return any(a in annotations for a in _APPLIED_ANNOTATIONS) or any(original.label(k) for k in _APPLIED_LABELS)


def _owner(original: LiveVersion) -> str | None:
    """The scope an original says it belongs to, as a render would name it:
    postrender's scope label (a copy a render made under --scope), else
    Helm's release annotation (Helm's objects, copies of its releases'
    included), else the chart's instance label; None when it says none."""
    owner = (original.label(LABEL_SCOPE) or dict(original.annotations).get(HELM_RELEASE_ANNOTATION)
             or original.label(INSTANCE_LABEL))
    return label_value(owner) if owner else None
