"""Two sides in, one report out: what rolls, why, and what does not though it should."""

from __future__ import annotations

from ...pipeline.graph.references import Path
from ...pipeline.index.hashing import go_json
from ...pipeline.index.objects import IMPLICIT, ObjectKey
from ...syntax.nodes import format_path
from .model import (
    ADDED,
    CHANGED,
    NO_LONGER_USED,
    NOW_USED,
    REMOVED,
    RENAMED,
    VIA_HASH,
    VIA_KUSTOMIZE_SUFFIX,
    VIA_NAME,
    VIA_REFS,
    Cause,
    ConfigChange,
    Held,
    KeyChanges,
    Report,
    Roll,
    ValueChange,
    VersionRef,
)
from .refused import refusals
from .side import Config, ConfigId, Referrer, Shape, Side

UNCHANGED = "unchanged"


def compare(old: Side, new: Side, show_values: bool = False) -> Report:
    report = Report(show_values=show_values)
    changes = {
        cid: _config_change(cid, old.configs.get(cid), new.configs.get(cid), show_values)
        for cid in sorted(old.configs.keys() | new.configs.keys())
    }
    for refusal in refusals(old, new):
        report.refused.append(refusal.message)
        if refusal.config in changes:
            changes[refusal.config].notes.append(f"the API server refuses the update of {refusal.name} "
                                                 "(see the warnings)")
    report.config_changes = [c for c in changes.values() if c.status != UNCHANGED]

    moved: set[ObjectKey] = set()  # rolled, or (without a pod template) updated
    # Waiting, with the configs its causes name: another config it uses,
    # whose reference was left as written, still gets its own row below.
    waited: dict[ObjectKey, set[int]] = {}  # ids of the ConfigChanges of `changes`
    for key in sorted(old.referrers.keys() & new.referrers.keys(), key=_order):
        before, after = old.referrers[key], new.referrers[key]
        if before.templates or after.templates:
            changed = [p for p in sorted(before.templates.keys() | after.templates.keys(), key=_path_order)
                       if _exact(before.templates.get(p)) != _exact(after.templates.get(p))]
            causes = _causes(before, after, changes)
            if not changed:
                # The template the render writes is the same, but kustomize
                # suffixes its generator's output after the render, and the
                # template it writes names the new suffix.
                causes = [c for c in causes if c.via == VIA_KUSTOMIZE_SUFFIX]
                if causes:
                    report.rolls.append(Roll(after.ref, causes))
                    moved.add(key)
                continue
            pairs = [(before.templates.get(p), after.templates.get(p)) for p in changed]
            direct = _direct(pairs, bool(causes))
            if after.waits is not None and not causes and _updated_in_place(pairs, after.in_place):
                # Refused as a whole, but every field that changes is one
                # the API server lets an update change (a bare Pod's image).
                report.in_place.append(Roll(after.ref, [], direct))
                moved.add(key)
                continue
            if after.waits is not None:
                # The template changes, but no pod is replaced for it: the
                # dangerous case, listed first for each config and for the
                # template's own fields.
                report.waiting.append(Roll(after.ref, causes, direct))
                report.does_not_roll.extend(Held(after.ref, cause.config, after.waits) for cause in causes)
                if direct:
                    report.does_not_roll.append(Held(after.ref, None, after.waits, direct))
                waited[key] = {id(cause.config) for cause in causes}
                continue
            report.rolls.append(Roll(after.ref, causes, direct))
            moved.add(key)
        else:
            causes = _causes(before, after, changes)
            if _exact(before.whole) == _exact(after.whole):
                causes = [c for c in causes if c.via == VIA_KUSTOMIZE_SUFFIX]  # as above
            if causes:
                # Only config-driven updates belong here; other edits to, say, an
                # Ingress are the reviewer's ordinary diff.
                report.updated.append(Roll(after.ref, causes, _direct([(before.whole, after.whole)], True)))
                moved.add(key)

    users_of = _users(new)
    for cid, change in changes.items():
        if change.status != CHANGED:
            continue
        users = users_of.get(cid, ())
        if not users and not _carried_by_configs(cid, new, changes):
            report.does_not_roll.append(Held(None, change, _unused(change)))
        for user in users:
            # A workload the change reaches rolls; one new in NEW starts with it.
            if user.key in moved or id(change) in waited.get(user.key, ()) or user.key not in old.referrers:
                continue
            report.does_not_roll.append(Held(user.ref, change, _why_not(user, cid, change)))
    report.does_not_roll.sort(key=lambda h: (h.workload is not None, _ref_order(h.workload),
                                             h.config.describe() if h.config else ""))

    for kind, namespace, name in sorted(new.versions.keys() - old.versions.keys()):
        report.versions_created.append(VersionRef(kind, _ns(namespace), name, new.versions[(kind, namespace, name)]))
    for kind, namespace, name in sorted(old.versions.keys() - new.versions.keys()):
        report.versions_unreferenced.append(
            VersionRef(kind, _ns(namespace), name, old.versions[(kind, namespace, name)]))
    return report


def _users(side: Side) -> dict[ConfigId, list[Referrer]]:
    """Each config's users in NEW, in report order. A use is a reference, a
    declared dependency, a field the guard saw, or a config hash over it (a
    name read from a container flag, say). Indexed once: asked of every
    referrer per changed config, a chart of thousands of apps took minutes."""
    users: dict[ConfigId, list[Referrer]] = {}
    for key in sorted(side.referrers, key=_order):
        referrer = side.referrers[key]
        for cid in referrer.hashed | {link.config for link in referrer.links}:
            users.setdefault(cid, []).append(referrer)
    return users


def _ns(namespace: str) -> str | None:
    return None if namespace == IMPLICIT else namespace


def _order(key: ObjectKey) -> tuple[str, str, str, str]:
    return (key.namespace, key.kind, key.name, key.group)


def _ref_order(ref) -> tuple[str, str, str]:
    return ("", "", "") if ref is None else (ref.namespace or "", ref.kind, ref.name)


def _path_order(path: Path) -> tuple:
    return tuple((isinstance(p, int), str(p).zfill(12) if isinstance(p, int) else p) for p in path)


def _exact(shape: Shape | None) -> str | None:
    return None if shape is None else shape.exact


def _config_change(cid: ConfigId, old: Config | None, new: Config | None, show_values: bool) -> ConfigChange:
    change = ConfigChange(
        cid.kind, _ns(cid.namespace), cid.name,
        old.name if old else None, new.name if new else None, UNCHANGED,
        kept=new.excluded if new else None,
        suffixed_by_kustomize=new is not None and new.suffixed_by_kustomize,
    )
    if old is None:
        change.status = ADDED
    elif new is None:
        change.status = REMOVED
    elif old.hash != new.hash:
        change.status = CHANGED
    elif old.name != new.name:
        change.status = RENAMED
    before = old.entries if old else {}
    after = new.entries if new else {}
    if change.status in (CHANGED, ADDED, REMOVED):
        change.keys = KeyChanges(
            changed=sorted(k for k in before.keys() & after.keys() if before[k] != after[k]),
            added=sorted(after.keys() - before.keys()),
            removed=sorted(before.keys() - after.keys()),
        )
    if old is not None and new is not None and old.secret_type != new.secret_type:
        change.notes.append(f"type: {old.secret_type} -> {new.secret_type}")
    if change.status == CHANGED and not change.keys and not change.notes:
        change.notes.append("no key's value differs; only how the data is written (data, stringData, binaryData)")
    if show_values and cid.kind == "ConfigMap" and change.status in (CHANGED, ADDED, REMOVED):
        # ConfigMaps only: a Secret's Entry holds no text to show.
        # binaryData is not text; its keys say "changed" and that is all.
        change.values = [
            ValueChange(key, _text(before.get(key)), _text(after.get(key)))
            for key in sorted(change.keys.changed + change.keys.added + change.keys.removed)
            if _text(before.get(key)) is not None or _text(after.get(key)) is not None
        ]
    return change


def _text(entry) -> str | None:
    return None if entry is None else entry.text


def _causes(before: Referrer, after: Referrer, changes: dict[ConfigId, ConfigChange]) -> list[Cause]:
    used_before = {link.config for link in before.links if link.active} | before.hashed | before.recorded
    used_after = {link.config for link in after.links if link.active} | after.hashed | after.recorded
    named_after = {link.config for link in after.links if link.active and not link.declared}
    # kustomize rewrites a reference to its generator's output whatever
    # postrender would hold it for (a Reloader annotation, a hook): only a
    # field no field spec covers stays as written.
    named_for_kustomize = {link.config for link in after.links if not link.unrewritable and not link.declared}
    causes: list[Cause] = []
    for cid in sorted(used_before | used_after):
        change = changes[cid]
        if cid in used_before and cid in used_after:
            if change.status == UNCHANGED:
                continue
            if change.old_name != change.new_name and change.suffixed_by_kustomize and cid in named_for_kustomize:
                via = VIA_KUSTOMIZE_SUFFIX
            elif change.old_name != change.new_name and cid in named_after:
                via = VIA_NAME
            elif cid in after.hashed:
                via = VIA_HASH
            elif change.old_name != change.new_name and cid in after.recorded:
                via = VIA_REFS
            else:
                continue  # nothing carries this change into the template
            causes.append(Cause(change, change.status, via))
        elif cid in used_after:
            causes.append(Cause(change, ADDED if change.old_name is None else NOW_USED, None))
        else:
            causes.append(Cause(change, REMOVED if change.new_name is None else NO_LONGER_USED, None))
    return causes


def _direct(pairs: list[tuple[Shape | None, Shape | None]], explained: bool) -> list[str]:
    """Fields changed in the templates themselves, not by a config change."""
    paths: list[Path] = []
    for before, after in pairs:
        if before is None or after is None:
            shape = before or after
            paths.append(shape.path)
            continue
        paths.extend(before.path + p for p in _differences(before.normalized, after.normalized))
    if not paths and not explained:
        # Nothing postrender knows of explains the change (say, a stale
        # postrender.io/refs in an already rendered input): show where it is.
        for before, after in pairs:
            if before is not None and after is not None:
                paths.extend(before.path + p for p in _differences(before.value, after.value))
    return [format_path(p) or "(the whole object)" for p in paths]


def _updated_in_place(pairs: list[tuple[Shape | None, Shape | None]],
                      fields: tuple[tuple[str | None, ...], ...]) -> bool:
    """Whether every change of the templates is within `fields` (path
    steps relative to the template; None: any item of a list)."""
    found = False
    for before, after in pairs:
        if before is None or after is None or not fields:
            return False
        for path in _differences(before.normalized, after.normalized):
            if not any(_within(path, steps) for steps in fields):
                return False
            found = True
    return found


def _within(path: Path, steps: tuple[str | None, ...]) -> bool:
    return len(path) >= len(steps) and all(
        isinstance(part, int) if step is None else part == step for part, step in zip(path, steps))


def _differences(a: object, b: object) -> list[Path]:
    """The paths where `a` and `b` differ, in key order, a list's own path
    after its items'. Walked with a stack of its own, not by recursion:
    --max-depth lets a template nest 1,000 levels, past Python's recursion
    limit."""
    out: list[Path] = []
    # Tasks, the next one last: a pair to compare at a path, or (path,) to report.
    tasks: list[tuple] = [((), a, b)]
    while tasks:
        task = tasks.pop()
        if len(task) == 1:
            out.append(task[0])
            continue
        path, a, b = task
        if isinstance(a, dict) and isinstance(b, dict):
            tasks.extend(reversed([((*path, key),) if key not in a or key not in b else ((*path, key), a[key], b[key])
                                   for key in sorted(a.keys() | b.keys())]))
        elif isinstance(a, list) and isinstance(b, list):
            tasks.extend(reversed(_list_tasks(path, a, b)))
        elif isinstance(a, (dict, list)) or isinstance(b, (dict, list)) or go_json(a) != go_json(b):
            out.append(path)  # a mapping, a list and a scalar never read alike
    return out


def _list_tasks(path: Path, a: list, b: list) -> list[tuple]:
    names_a, names_b = _names(a), _names(b)
    if names_a is not None and names_b is not None:
        # Containers, volumes, env: matched by name, so inserting one does
        # not make every later item look changed.
        tasks: list[tuple] = []
        for i, item in enumerate(b):
            j = names_a.get(item["name"])
            tasks.append(((*path, i),) if j is None else ((*path, i), a[j], item))
        removed = [j for name, j in names_a.items() if name not in names_b]
        if removed or [n for n in names_a if n in names_b] != [n for n in names_b if n in names_a]:
            tasks.append((path,))  # items removed or reordered: the list itself changed
        return tasks
    if len(a) != len(b):
        return [(path,)]
    return [((*path, i), x, y) for i, (x, y) in enumerate(zip(a, b))]


def _names(items: list) -> dict[str, int] | None:
    names: dict[str, int] = {}
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or item["name"] in names:
            return None
        names[item["name"]] = i
    return names


def _carried_by_configs(cid: ConfigId, new: Side, changes: dict[ConfigId, ConfigChange]) -> bool:
    """Whether another config's data names this one (a `--config` field
    spec) and changes with it: the workloads that use that one (by its new
    name, or a config hash over it) are reported for it, or it is listed
    itself as reaching none."""
    return any(holder in changes and changes[holder].status == CHANGED
               for holder in new.named_by_configs.get(cid, ()))


def _unused(change: ConfigChange) -> str:
    # "No reference" would contradict a reason such as "named by Alertmanager
    # spec.configSecret" or "read by a fixed name": something may read it,
    # but no pod template does, so nothing rolls for it.
    if change.kept:
        return f"no pod template postrender knows of uses it, and it keeps its name ({change.kept})"
    return "no pod template postrender knows of uses it"


def _why_not(user: Referrer, cid: ConfigId, change: ConfigChange) -> str:
    reasons: list[str] = []
    for link in user.links:
        if link.config != cid:
            continue
        if link.held is not None:
            reason = f"{link.field} is left as written: {link.held}"
        elif link.unrewritable:
            reason = (f"{link.field} names it, but no field spec covers that field, "
                      "so postrender cannot rewrite it")
        else:
            continue
        if reason not in reasons:
            reasons.append(reason)
    if not reasons and change.kept:
        reasons.append(f"it keeps its name ({change.kept}) and no postrender.io/config-hash over it "
                       "reaches this workload")
    if not reasons:
        reasons.append("its pod template does not change" if user.templates else "nothing in it changes")
    return "; ".join(reasons)
