"""Marks that let previous versions outlive a rollout: the scope label,
keep-policies for deployers that prune, and the `postrender.io/refs` record.
Decided here, written by rewrite.py.

Nothing here talks to a cluster; `--retain` (cluster/retain.py) and
`postrender gc` (cluster/gc.py) read these marks back from live objects.
"""

from __future__ import annotations

from collections.abc import Collection

from ...options import Spelling
from ...printable import quoted
from ...records import record
from ...errors import UsageError
from ...fieldspecs import ReferenceTable
from ..graph.references import Graph, Path, Reference, template_holding
from ..index.objects import IMPLICIT
from .versions import Plan, Version, label_value
from ...syntax.nodes import format_path
from ...vocabulary import ANNOTATION_COPY_OF, ANNOTATION_REFS, INSTANCE_LABEL, KEEP_POLICIES, LABEL_SCOPE, OPTION_LISTS
from ..read.documents import KubeObject

def helm_keep_warning(spelled: Spelling) -> str:
    """Said of keep-previous helm; the way out, --retain, is a flag of the
    command line alone (it reads the cluster), which a config cannot set."""
    if spelled.takes("retain"):
        instead = f"Prefer {spelled.called('retain')} N, which keeps them in the release"
    else:
        instead = ("Prefer postrender as Helm's --post-renderer with --retain N, which keeps them in the release (a"
                   " flag of the command line alone: no config sets it)")
    return (f"{spelled.named('keep_previous', 'helm')}: Helm then keeps old versions but forgets them, and the first "
            "`helm rollback` fails (\"no ConfigMap with the name ... found\" or \"original object ... not found\";"
            f" only a second attempt succeeds). {instead}; run `postrender gc` to delete kept versions")


def scope_of(obj: KubeObject, explicit: str | None) -> str | None:
    """The group a version belongs to besides namespace and base name.

    A scope label already present wins over the instance label, so a second
    run over postrender's own output keeps what the first one chose.
    """
    if explicit:
        return explicit
    value = obj.labels.get(LABEL_SCOPE) or obj.labels.get(INSTANCE_LABEL)
    return label_value(value) if value else None


def policy_marks(keep_previous: str | None) -> tuple[tuple[str, str], ...]:
    """The annotations a --keep-previous policy gives each version."""
    if keep_previous is not None and keep_previous not in KEEP_POLICIES:
        # Flags are checked by argparse; plugin and KRM configs arrive here unchecked.
        raise UsageError(f"keep-previous {quoted(keep_previous)}: choose from {', '.join(sorted(KEEP_POLICIES))}")
    return tuple(KEEP_POLICIES[keep_previous].items()) if keep_previous else ()


@record(frozen=True)
class Mark:
    """What a versioned object carries so previous versions outlive a rollout."""

    obj: KubeObject
    scope: str | None  # the LABEL_SCOPE value
    keep: tuple[tuple[str, str], ...]  # the annotations a pruning deployer honours


def marks_of(obj: KubeObject, scope: str | None,
             keep: tuple[tuple[str, str], ...]) -> tuple[str | None, tuple[tuple[str, str], ...]] | None:
    """A Mark's scope and keep for a versioned object (`scope`: --scope;
    `keep`: policy_marks), or None when it carries none: rewrite locates
    them ahead by this rule too (rewrite.PreparedRetained), for every config
    as it is read, so no record is made there."""
    group_scope = scope_of(obj, scope)
    if keep and not OPTION_LISTS.isdisjoint(obj.annotations):
        keep = tuple((key, _with_option(obj.annotations[key], value) if key in OPTION_LISTS and key in obj.annotations
                      else value) for key, value in keep)
    return (group_scope, keep) if group_scope or keep else None


def _with_option(written: str, option: str) -> str:
    """An option list (`ServerSideApply=true,Replace=true`) with `option`
    (`Prune=false`) in it: in the place of the first option of its name, or
    last; any other of its name goes (`Prune=true,Prune=true` kept one
    `Prune=true` beside ours). The object's own options stay: Argo CD reads
    them all, and setting the annotation to ours alone dropped them (how it
    applies, compares)."""
    name = option.split("=", 1)[0]
    options: list[str] = []
    placed = False
    for part in (part.strip() for part in written.split(",")):
        if not part:
            continue
        if part.split("=", 1)[0].strip() != name:
            options.append(part)
        elif not placed:
            options.append(option)
            placed = True
    if not placed:
        options.append(option)
    return ",".join(options)


@record(frozen=True)
class Record:
    """A `postrender.io/refs` value and where it goes: the metadata of the
    referrer's pod template at `template`, or its own (the empty path)."""

    referrer: KubeObject
    template: Path
    value: str

    @property
    def field_path(self) -> str:
        """Where it goes, as messages and `graph` write a field."""
        return format_path((*self.template, "metadata", "annotations", ANNOTATION_REFS))


@record(frozen=True)
class Retention:
    """The retention decisions; rewrite.py turns them into edits."""

    marks: tuple[Mark, ...] = ()
    records: tuple[Record, ...] = ()
    warning: str | None = None


def decide(
    graph: Graph,
    the_plan: Plan,
    table: ReferenceTable,
    *,
    scope: str | None,
    keep_previous: str | None,
    record_refs: bool,
    held: Collection[int] = (),
    spelled: Spelling = Spelling(),
) -> Retention:
    """`held`: ids of references left as written; they use no version.
    `spelled`: how its warning names the options."""
    keep = policy_marks(keep_previous)
    marks = []
    for version in the_plan.versioned:
        carried = marks_of(version.obj, scope, keep)
        if carried is not None:
            marks.append(Mark(version.obj, *carried))
    records = _records(graph, the_plan, table, held) if record_refs else ()
    return Retention(tuple(marks), records, helm_keep_warning(spelled) if keep_previous == "helm" else None)


def _records(graph: Graph, the_plan: Plan, table: ReferenceTable, held: Collection[int]) -> tuple[Record, ...]:
    # Per referrer, then per place (a pod template, else the metadata).
    places: dict[tuple[int, Path], tuple[KubeObject, Path, set[str]]] = {}
    for ref in graph.references:
        # A grant that matched several objects records each version it names
        # then, as the second run, reading the names it holds, records them.
        versions = the_plan.versioned_by(ref)
        if not versions or id(ref) in held:
            continue
        referrer = ref.referrer
        if ANNOTATION_COPY_OF in referrer.annotations:
            # An unsuffixed copy a run wrote names what its version names, and
            # is written with no record (rewrite.DocumentEdits.copies): its
            # version's says it, and a second run must add none.
            continue
        template = _template(ref, table)
        entry = places.setdefault((id(referrer), template), (referrer, template, set()))
        entry[2].update(_ref_entry(graph, ref, version) for version in versions)
    return tuple(Record(referrer, template, ",".join(sorted(names))) for referrer, template, names in places.values())


def _template(ref: Reference, table: ReferenceTable) -> Path:
    """The pod template a reference sits in, so ReplicaSets and
    ControllerRevisions copy the record; the object itself (the empty
    path) otherwise."""
    found = template_holding(ref.referrer, ref.path, table)
    return found.path if found is not None else ()


def _ref_entry(graph: Graph, ref: Reference, version: Version) -> str:
    index = graph.index
    target_ns = index.namespace_of(version.obj)
    referrer_ns = index.namespace_of(ref.referrer)
    if target_ns != IMPLICIT and target_ns != referrer_ns:
        return f"{version.obj.kind}/{target_ns}/{version.name}"
    return f"{version.obj.kind}/{version.name}"


def parse_refs(value: str, namespace: str | None) -> set[tuple[str, str | None, str]]:
    """(kind, namespace, name) for each entry of a `postrender.io/refs`
    value; entries without a namespace are in the holder's."""
    found: set[tuple[str, str | None, str]] = set()
    for entry in value.split(","):
        parts = entry.strip().split("/")
        if len(parts) == 2 and all(parts):
            found.add((parts[0], namespace, parts[1]))
        elif len(parts) == 3 and all(parts):
            found.add((parts[0], parts[1], parts[2]))
    return found
