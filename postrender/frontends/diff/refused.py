"""The config updates the API server refuses: the deploy of such a change fails.

A ConfigMap or Secret stored under one name on both sides (it keeps its
name, an unsuffixed copy under --keep-original, a file postrender wrote
already) is updated in place. The API server refuses the update when the
old object says `immutable: true` and the data, or `immutable` itself,
changes, and when a Secret's `type` changes (ValidateConfigMapUpdate,
ValidateSecretUpdate: "field is immutable"). A version postrender names by
content never meets this: a new content is a new name. Said in the report
itself, since a CI comment never shows stderr, where the render's own
warning of such a config goes.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...pipeline.index.objects import IMPLICIT
from .side import ConfigId, Side, Stored

IMMUTABLE_SET = "field is immutable when `immutable` is set"


@dataclass(frozen=True)
class Refusal:
    config: ConfigId  # the config NEW stores under that name (a version's copy: the version's)
    name: str  # the name both sides store it under
    message: str


def refusals(old: Side, new: Side) -> list[Refusal]:
    found = []
    for key in sorted(old.stored.keys() & new.stored.keys()):
        before, after = old.stored[key], new.stored[key]
        refused = _refused(before, after)
        if refused:
            found.append(Refusal(after.config, after.name, _message(before, after, refused, new)))
    return found


def _refused(before: Stored, after: Stored) -> list[str]:
    """What of the update the API server refuses, with its reason."""
    refused = []
    if before.immutable and before.entries != after.entries:
        refused.append(f"its data ({IMMUTABLE_SET})")
    if before.immutable and not after.immutable:
        refused.append(f"`immutable` itself ({IMMUTABLE_SET})")
    if before.secret_type != after.secret_type:
        refused.append(f"its type, {before.secret_type} -> {after.secret_type} (field is immutable)")
    return refused


def _message(before: Stored, after: Stored, refused: list[str], new: Side) -> str:
    namespace = "" if after.config.namespace == IMPLICIT else f"{after.config.namespace}/"
    # No document number: OLD's raw and post-rendered forms number them
    # apart, and give the same report. The chart file is the same in both.
    where = [*([before.source] if before.source else []), *_why(after, new)]
    said = f" ({'; '.join(where)})" if where else ""
    immutable = " says immutable: true on OLD and" if before.immutable else ""
    return (f"{after.config.kind}/{namespace}{after.name}{said}{immutable} keeps its name, and the "
            f"API server refuses a change to {' and '.join(refused)}: the deploy fails, and nothing rolls for it. "
            "Delete the object before deploying, or give the new content a new name")


def _why(after: Stored, new: Side) -> list[str]:
    """Why NEW stores it under the same name: a version's copy, or the plan's reason."""
    config = new.configs.get(after.config)
    if config is None:
        return []
    if config.name != after.name:
        return [f"the unsuffixed copy of {config.name}, --keep-original"]
    return [config.excluded] if config.excluded else []
