"""References left on a name that no longer exists once the render is applied.

postrender leaves some names as written: a reference matching several
objects (ambiguous), one Reloader annotations hold, a flag or environment
value or a ConfigMap's data naming an object a program reads by name, a
field only the guard sees. When the object it names is renamed and no copy
keeps the old name, that name points at nothing after the deploy: the
program fails or silently runs with defaults. A warning is not enough (Helm
hides a post-renderer's stderr), so such a render fails, one line per
problem, unless --allow-broken-references turns them into warnings.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ...printable import quoted
from ...records import record
from . import guard
from ..graph.byname import Reader
from ...errors import PostrenderError, Problems
from ..graph.references import Graph, Path, Resolution, shown_value
from ...syntax.nodes import Node, ScalarNode
from ..plan.versions import Plan, Version, suffixed_later_by_kustomize
from ...fieldspecs import KustomizeFields, kustomize_rewrites
from ...options import Spelling
from ...vocabulary import ANNOTATION_KEEP_ORIGINAL
from ..read.documents import KubeObject
from ...report import Reporter


def _fixes(spelling: Spelling) -> str:
    keep = spelling.named("keep_original")
    return f'keep the old name as well ({ANNOTATION_KEEP_ORIGINAL}: "true" on the object, or {keep})'


def _override(spelling: Spelling, only_strict: bool, from_guard: bool, allow_broken: bool, strict: bool) -> str:
    """The advice that really gets this render through, given the options it
    failed under. --strict keeps the guard's findings fatal whatever
    --allow-broken-references says, so the way through is different there:
    only dropping --strict (and, where it is not given already, allowing
    broken references) renders."""
    if only_strict or strict and from_guard and allow_broken:
        changes: tuple[tuple[str, bool], ...] = (("strict", False),)
    elif strict and from_guard:
        changes = (("strict", False), ("allow_broken", True))
    else:
        changes = (("allow_broken", True),)
    return f"; or {spelling.setting(*changes)} to render anyway"


@record(frozen=True)
class Broken:
    referrer: KubeObject
    node: Node
    path: Path
    field_path: str
    name: str  # as written
    message: str
    from_guard: bool = False
    # A warning unless --strict: postrender may not see every
    # `configurations:` file kustomize reads (a remote one; none as a KRM
    # function), one of which may have kustomize rewrite the field.
    only_strict: bool = False

    def error(self, fatal: bool = True, allow_broken: bool = False, strict: bool = False,
              spelling: Spelling = Spelling()) -> PostrenderError:
        """fatal: with the advice that really gets this render through,
        given the options it failed under, as they are written there."""
        advice = _override(spelling, self.only_strict, self.from_guard, allow_broken, strict) if fatal else ""
        return PostrenderError(f"{self.field_path}: {self.message}{advice}", self.referrer.location(self.node),
                               self.field_path, shown_value(self.referrer, self.path, self.name))

    @property
    def about(self) -> tuple[Any, str, str | None]:
        return (self.referrer, self.field_path, shown_value(self.referrer, self.path, self.name))


def find(graph: Graph, the_plan: Plan, held: dict[int, str], readers: list[Reader],
         findings: list[guard.Finding], configured: KustomizeFields | None = None,
         spelling: Spelling = Spelling()) -> list[Broken]:
    """Every name postrender leaves on an object it renames without a copy.
    `configured`: the fields the kustomization's `configurations:` have
    kustomize rewrite (where postrender runs as its exec transformer);
    `spelling`: how the advice names the options (flags, or a config's fields)."""
    problems: list[Broken] = []
    fixes = _fixes(spelling)
    # Sets of the nodes and objects themselves (they hash by identity), not
    # their ids, an int object each (25,000 workloads with two flags naming
    # a Secret: 6 MiB at a render's peak).
    rewritten = {ref.node for ref in graph.references if ref.target is not None or ref.spec.grants}
    for ref in graph.references:
        if ref.spec.grants:
            continue  # the versioned name is added, the original kept (rewrite.py)
        if ref.resolution is Resolution.AMBIGUOUS:
            lost = _lost(the_plan, ref.candidates)
            if lost:
                problems.append(Broken(ref.referrer, ref.node, ref.path, ref.field_path, ref.name, (
                    f"{ref.target_kind} {quoted(ref.name)} matches several objects "
                    f"({', '.join(graph.index.describe(c) for c in ref.candidates)}), so it is left as is, "
                    f"but {_renamed(graph, lost)}: it would name nothing. Give the referrer or the objects "
                    f"a namespace (or {spelling.setting(('namespace', None))}), or {fixes}")))
        elif ref.target is not None and id(ref) in held:
            lost = _lost(the_plan, [ref.target])
            if lost:
                problems.append(Broken(ref.referrer, ref.node, ref.path, ref.field_path, ref.name, (
                    f"left as written ({held[id(ref)]}), but {_renamed(graph, lost)}: it would name nothing; "
                    + fixes)))
    for ref in graph.references:
        # kustomize generator output keeps its name here and gets kustomize's
        # hash suffix after postrender; kustomize then rewrites only the
        # fields of its own table (fieldspecs/kustomize.yaml) and of the
        # kustomization's configurations:.
        target = ref.target
        if target is None or ref.resolution is not Resolution.RESOLVED or not suffixed_later_by_kustomize(target):
            continue
        path = guard.kustomize_path(ref.path)
        referrer = ref.referrer
        if kustomize_rewrites(ref.target_kind, referrer.kind, referrer.group, path, configured,
                              referrer.api_version.rpartition("/")[2]):
            continue
        problems.append(Broken(ref.referrer, ref.node, ref.path, ref.field_path, ref.name, (
            f"names {ref.target_kind} {quoted(ref.name)}, kustomize generator output that kustomize renames "
            f"{ref.name}-<hash> after postrender, rewriting only the fields of its own table, not this one: "
            f"it would name nothing unless the kustomization's configurations: list it (nameReference: "
            f"[{{kind: {ref.target_kind}, fieldSpecs: [{{kind: {ref.referrer.kind}"
            + (f", group: {ref.referrer.group}" if ref.referrer.group else "")
            + f", path: {path}}}]}}]); none that postrender read does (it reads them as kustomize's exec"
            " transformer: the kustomization's and its local bases'; none as a KRM function)"), only_strict=True))
    # The guard's finding on the same field says it better: it names the row to add.
    # By place: a finding's node belongs to a graph of its document composed again (guard.check).
    guarded = {(f.referrer.document.index, f.node.start_mark) for f in findings if f.node is not None}
    # Only a reader whose target is lost is remembered as seen: most name
    # one that keeps its name (25,000 workloads with two flags naming a
    # Secret: a pair and a set entry each, 6.6 MiB at a render's peak).
    seen: set[tuple[ScalarNode, KubeObject]] = set()
    for reader in readers:
        if reader.node in rewritten or (reader.referrer.document.index, reader.node.start_mark) in guarded:
            continue
        lost = _lost(the_plan, [reader.target])
        if lost and (reader.node, reader.target) not in seen:
            seen.add((reader.node, reader.target))
            problems.append(Broken(reader.referrer, reader.node, reader.path, reader.field_path, reader.name, (
                f"names {reader.target.kind} {quoted(reader.name)}, which a program reads by that name, but it is "
                f"versioned anyway (opted in, or {spelling.named('version_all')}) and {_renamed(graph, lost)}: "
                f"it would name nothing; {fixes}")))
    for finding in findings:
        problems.append(Broken(finding.referrer, finding.node if finding.node is not None else finding.referrer.node,
                               finding.path, finding.field_path, finding.version.base_name,
                               _guard_message(finding, spelling),
                               from_guard=True))
    problems.sort(key=lambda b: (b.referrer.document.index, b.node.start_mark))
    return problems


def reported_readers(the_plan: Plan, readers: list[Reader]) -> list[Reader]:
    """The readers `find` may report, in their order: those whose target is
    renamed with no copy keeping its name (whatever else it asks of a
    reader, it reports none whose target keeps it)."""
    return [reader for reader in readers if _lost(the_plan, [reader.target])]


def report(problems: list[Broken], reporter: Reporter, allow_broken: bool, strict: bool, shown: bool = False,
           spelling: Spelling = Spelling()) -> None:
    """Fail naming every problem; with --allow-broken-references, warn instead
    (--strict keeps the guard's findings fatal). `shown` (graph, diff): warn
    as that flag would, but where --strict still fails, advise what the
    render itself needs: without the flag, dropping --strict is not enough."""
    warned = allow_broken or shown
    fatal = [p for p in problems
             if p.only_strict and strict or not p.only_strict and (not warned or strict and p.from_guard)]
    for problem in problems:
        if problem not in fatal:
            reporter.warn(str(problem.error(fatal=False)), problem.about)
    if fatal:
        raise Problems([p.error(allow_broken=allow_broken, strict=strict, spelling=spelling) for p in fatal])


def _lost(the_plan: Plan, objects: Collection[KubeObject]) -> list[Version]:
    """The objects renamed with no copy keeping their current name."""
    lost = []
    for obj in objects:
        version = the_plan.of(obj)
        if version is not None and version.renamed and not version.keep_original:
            lost.append(version)
    return lost


def _renamed(graph: Graph, lost: list[Version]) -> str:
    parts = [f"{graph.index.describe(v.obj)} is renamed to {quoted(v.name)}" for v in lost]
    return ", and ".join(parts) + " with no copy keeping the old name"


def _guard_message(finding: guard.Finding, spelling: Spelling) -> str:
    # The finding's message starts with where it is; the error line says that already.
    text = finding.message(spelling)
    prefix = f"{finding.where} {finding.field_path}: "
    return text[len(prefix):] if text.startswith(prefix) else text
