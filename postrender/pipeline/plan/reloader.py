"""stakater Reloader's annotations, honoured at render time.

A chart written for Reloader then rolls the same way with no controller:

- `reloader.stakater.com/auto: "false"` on a workload: its references are
  left as written, so nothing postrender does rolls it;
- `reloader.stakater.com/search: "true"` on a workload: only referenced
  objects with `reloader.stakater.com/match: "true"` roll it, the others are
  left as written;
- `reloader.stakater.com/ignore: "true"` on a ConfigMap or Secret: it rolls
  nothing, so it keeps its name and feeds no hash.

(`*.reloader.stakater.com/reload` lists are dependencies.py's.)

A reference left as written still has to find its object. When nothing else
uses the object it simply keeps its name; when other referrers do, it is
versioned for them and also keeps an unsuffixed copy (as --keep-original
would) for the workload that must not roll. Either way postrender warns.

The same holds for references other rules leave as written (`also_held`:
those in an immutable pod template, render.py), only without the warning:
nothing unexpected happens to them.
"""

from __future__ import annotations


from ...records import field, record
from ...fieldspecs import ReferenceTable
from ..graph.references import Graph, Reference, is_config_object, pod_templates
from .versions import Plan
from ..read.documents import KubeObject

AUTO = "reloader.stakater.com/auto"
SEARCH = "reloader.stakater.com/search"
MATCH = "reloader.stakater.com/match"
IGNORE = "reloader.stakater.com/ignore"

IGNORED = f'{IGNORE}: "true" (Reloader never rolls anything for it)'


@record
class Policy:
    held: dict[int, str] = field(default_factory=dict)  # id(reference) -> why it is left as written
    quiet: set[int] = field(default_factory=set)  # ids of held references not worth a warning
    excluded: dict[int, str] = field(default_factory=dict)  # id(config object) -> why it keeps its name
    copies: dict[int, str] = field(default_factory=dict)  # id(config object) -> why it keeps a copy
    # id(object) -> its Reloader annotations (AUTO, SEARCH), a workload's pod
    # templates' included; only objects that have any.
    _workloads: dict[int, dict[str, str]] = field(default_factory=dict)

    def ignores(self, config: KubeObject) -> bool:
        return config.annotations.get(IGNORE) == "true"

    def leaves_alone(self, workload: KubeObject) -> bool:
        return self._annotations(workload).get(AUTO) == "false"

    def rolls_on(self, workload: KubeObject, config: KubeObject) -> bool:
        """Whether a change to a config object the workload references rolls it."""
        if self.ignores(config) or self.leaves_alone(workload):
            return False
        annotations = self._annotations(workload)
        if annotations.get(SEARCH) == "true" and annotations.get(AUTO) != "true":
            return config.annotations.get(MATCH) == "true"
        return True

    def _annotations(self, workload: KubeObject) -> dict[str, str]:
        # Not in _workloads: it has no Reloader annotation (or is no object
        # of the stream), so its own annotations answer the same.
        return self._workloads.get(id(workload), workload.annotations)


def policy(graph: Graph, table: ReferenceTable, hold: bool, also_held: dict[int, str] | None = None) -> Policy:
    """`hold` is False when nothing is renamed (--strategy=annotate): then
    no reference needs to be left as written. `also_held`: id(reference) ->
    why, for references other rules leave as written, quietly."""
    result = Policy()
    for obj in graph.index.objects:
        if is_config_object(obj):
            if result.ignores(obj):
                result.excluded[id(obj)] = IGNORED
            merged = obj.annotations  # a referrer too, with a user's field specs
        else:
            merged = {}
            # Reloader reads the workload's metadata; a pod template's
            # annotations count too, the workload's own winning.
            for template in pod_templates(obj, table):
                if template.path:
                    merged.update(template.annotations)
            merged.update(obj.annotations)
        if AUTO in merged or SEARCH in merged:
            result._workloads[id(obj)] = {key: merged[key] for key in (AUTO, SEARCH) if key in merged}
    if not hold:
        return result
    # Only a referrer with Reloader annotations holds its references.
    for ref in graph.references if result._workloads else ():
        target = ref.target
        if target is None or result.ignores(target) or result.rolls_on(ref.referrer, target):
            continue
        result.held[id(ref)] = _why_held(result, ref.referrer, target)
    for ref_id, why in (also_held or {}).items():
        if ref_id not in result.held:
            result.held[ref_id] = why
            result.quiet.add(ref_id)
    if not result.held:
        return result  # no reference left as written: every object is versioned as usual
    uses_of: dict[int, list[Reference]] = {}
    for ref in graph.references:
        target = ref.target
        if target is not None:
            uses_of.setdefault(id(target), []).append(ref)
    for config in graph.config_objects:
        if id(config) in result.excluded:
            continue
        uses = uses_of.get(id(config), [])
        held = [ref for ref in uses if id(ref) in result.held]
        if not held:
            continue
        loud = [ref for ref in held if id(ref) not in result.quiet]
        why = result.held[id((loud or held)[0])]
        if len(held) == len(uses):
            result.excluded[id(config)] = (
                f"only referenced where Reloader annotations forbid a roll ({why})" if loud
                else f"only referenced where it is left as written ({why})"
            )
        else:
            result.copies[id(config)] = why
        if not loud:
            result.quiet.add(id(config))
    return result


def copy_notes(result: Policy, the_plan: Plan) -> tuple[list[str], list[str]]:
    """What to say about objects a held reference still needs (the plan gave
    the renamed ones an unsuffixed copy, from `result.copies`): the warnings
    to show, and the notes for -v."""
    warnings: list[str] = []
    notes: list[str] = []
    # (Most runs have neither: no version made again for every config, Plan.)
    for version in the_plan.versions if result.copies or result.excluded else ():
        why = result.copies.get(id(version.obj))
        said = notes if id(version.obj) in result.quiet else warnings
        if why is not None and version.renamed:
            said.append(
                f"{why}: its reference to {version.obj.describe()} is left as written, so "
                f"{version.obj.describe()} is versioned for its other referrers and also keeps an "
                "unsuffixed copy" + ("" if said is notes else "; a change to it does not roll that workload")
            )
        why = result.excluded.get(id(version.obj))
        if why is not None and version.excluded == why and why != IGNORED:
            said.append(f"{version.obj.describe()} keeps its name: {why}")
    return warnings, notes


def _why_held(result: Policy, workload: KubeObject, config: KubeObject) -> str:
    if result.leaves_alone(workload):
        return f'{workload.describe()} has {AUTO}: "false"'
    return f'{workload.describe()} has {SEARCH}: "true" and {config.describe()} no {MATCH}: "true"'
