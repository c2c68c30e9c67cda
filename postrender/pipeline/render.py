"""The render pipeline: read → index → graph → plan → rewrite → write."""

from __future__ import annotations

from collections.abc import Callable

from ..printable import quoted
from ..records import field, record
from .plan import config_hash, keep, reloader
from .plan.copies import Repointed, repointed_copies
from .check import broken, guard
from .. import fieldspecs
from ..fieldspecs.walk import SpecIndex
from .graph.byname import ByName, find_readers, may_name_config, pod_string_specs
from .graph.dependencies import Dependency, find_dependencies
from ..errors import PostrenderError, UsageError
from .graph.producers import Productions, find_productions
from .graph.references import (Found, Graph, Reference, Resolution, build, created_before_every_apply,
                                in_immutable_template, is_hook, is_config_object, runs_before_apply, shown_value)
from .index.configs import says_immutable
from .index.objects import IMPLICIT, ObjectIndex
from .needs import Needs
from .packed import PackedLines
from ..options import RenderOptions, Spelling, check_cluster, check_strategy, spelling
from .plan.versions import Options as PlanOptions
from .plan.versions import EMPTY, UNREFERENCED, Plan, opted_in, plan
from .read import Stream, read
from .read.documents import KubeObject, Source
from ..report import Diagnostic, Reporter
from .rewrite import Options as RewriteOptions
from .rewrite import (Prepared, RetentionAhead, Rewrite, TemplatesAhead, prepare, prepare_templates, rewrite,
                      template_keys)
from ..syntax.nodes import MappingNode
from ..vocabulary import STRATEGIES
from .write import Output, write


@record
class Analysis:
    stream: Stream
    table: fieldspecs.ReferenceTable
    graph: Graph
    plan: Plan
    productions: Productions = field(default_factory=Productions)
    dependencies: list[Dependency] = field(default_factory=list)
    policy: reloader.Policy = field(default_factory=reloader.Policy)
    config_hashes: list[config_hash.Place] = field(default_factory=list)
    retention: keep.Retention = field(default_factory=keep.Retention)
    # Read's own about the objects they name (a KRM result's resourceRef).
    warnings: list[str | Diagnostic] = field(default_factory=list)
    by_name: ByName = field(default_factory=ByName)
    notes: list[str] = field(default_factory=list)  # shown with -v
    # Copies a previous run wrote whose version is renamed (plan/copies.py).
    repointed: tuple[Repointed, ...] = ()


@record
class Result:
    # The stream part by part, for writing out as it is spliced; `output` joins it.
    written: Output | list[str]
    analysis: Analysis
    rewrite: Rewrite
    # Fields that still name a renamed object (guard.py); `graph` shows them.
    findings: list[guard.Finding] = field(default_factory=list)

    @property
    def output(self) -> str:
        written = self.written
        return written.text() if isinstance(written, Output) else "".join(written)


@record(eq=False)
class ReadStream:
    """A stream read for a render with `options` (read_for), pruned for
    them, with the field-spec table and pod-string specs it was read with
    (what the read found is memoised on the table: references.pod_templates)
    and what the field-spec walk found in each object as it was read, until
    the graph is built from it."""

    stream: Stream
    options: RenderOptions
    table: fieldspecs.ReferenceTable
    scanned: SpecIndex
    found_in: Callable[[KubeObject], Found | None] | None


def analyse(sources: list[Source], options: RenderOptions, stream: Stream | ReadStream | None = None) -> Analysis:
    """`stream`: `sources` as read already: read whole (read.read, which
    any options can render), or for a render (read_for: a KRM ResourceList
    is read to be recognised), read again unless it reads alike for these
    options."""
    if isinstance(stream, ReadStream) and _read_as(stream.options) != _read_as(options):
        stream = None
    if isinstance(stream, Stream):
        table = _table(options)
        stream = ReadStream(stream, options, table, pod_string_specs(table), None)
    read_as = stream if stream is not None else read_for(sources, options)
    spelled = spelling(options)
    if options.require_objects and not read_as.stream.objects:
        raise PostrenderError(f"the input holds no Kubernetes object ({spelled.named('require_objects')}): a"
                              " deployer that prunes would delete everything it deployed before")
    table, scanned, found_in = read_as.table, read_as.scanned, read_as.found_in
    read_as.found_in = None  # its records, built into the graph below, would be held to the end
    plan_options = _plan_options(options)
    index = ObjectIndex(read_as.stream.objects, options.namespace, frozenset(table.cluster_scoped))
    graph, pod_strings = build(index, table, scanned, may_name_config(index), found_in)
    # What read found, with every pod string's node, is built into the graph
    # now; held to the end of this function, it set a render's peak (25,000
    # Deployments whose flags name a Secret: 111 -> 86 MiB traced in analyse).
    del found_in
    productions = find_productions(graph)
    dependencies = find_dependencies(graph, table)
    renames = options.strategy != "annotate"
    policy = reloader.policy(graph, table, hold=renames, also_held=_holds(graph, table) if renames else None)
    # Why an object keeps its name, when several rules say so: the first rule
    # that names it wins, most specific first, since its reason is the one
    # that would still hold if the others did not (a produced object says so
    # even under --strategy=annotate, which keeps every name).
    by_strategy = config_hash.kept_by_strategy(spelled)
    kept = _first_reason([
        ("made by a producer in the stream", productions.excluded),
        ("a deployer's hook", _hooks_kept(graph, table)),
        ("Reloader annotations, or references left as written", policy.excluded),
        ("--strategy=annotate", config_hash.kept_names(graph, options.strategy, by_strategy)),
    ])
    by_name = find_readers(graph, pod_strings)
    del pod_strings  # as found_in above: the readers hold what they need of them
    the_plan = plan(graph, plan_options, kept, held=policy.held, fixed=by_name.fixed, read_by_name=by_name.read(),
                    copies=policy.copies)
    repointed = repointed_copies(graph, the_plan)
    copy_warnings, notes = reloader.copy_notes(policy, the_plan)
    warnings = [*read_as.stream.warnings, *copy_warnings, *_immutable_kept(graph, the_plan, spelled, by_strategy),
                *_hidden_hooks_uncopied(the_plan, options)]
    hashes = config_hash.config_hashes(graph, table, the_plan, productions, dependencies, policy, options.strategy,
                                    by_name.readers)
    retention = keep.decide(graph, the_plan, table, scope=options.scope, keep_previous=options.keep_previous,
                            record_refs=_records_refs(options), held=policy.held, spelled=spelled)
    return Analysis(read_as.stream, table, graph, the_plan, productions, dependencies, policy, hashes, retention,
                    warnings, by_name, notes, repointed)


def read_for(sources: list[Source], options: RenderOptions) -> ReadStream:
    """`sources` read as a render with `options` reads them. The field specs
    are walked as each document is read, and each document then keeps only
    what the stages after read read of it; a config's own edits are made
    then, from its whole tree."""
    table = _table(options)
    scanned = pod_string_specs(table)
    rewrite_options = _rewrite_options(options)
    plan_options = _plan_options(options)

    # A run that records what each version is kept for gives configs those
    # marks too: made ahead with their own (N=5000, --keep-previous=argocd:
    # 83 -> 66 MiB), but a List's item's, which keeps its tree for them.
    retention = (RetentionAhead(rewrite_options, options.scope, keep.policy_marks(options.keep_previous))
                 if _records_refs(options) else None)

    # The unsuffixed copies of a List's items made ahead, packed together
    # as they are made (rewrite.PreparedItem).
    item_copies = PackedLines()

    def prepare_config(obj: KubeObject, root: MappingNode, whole: bool) -> Prepared | None:
        if retention is not None and obj.item is not None:
            return None
        return prepare(obj, root, rewrite_options, plan_options.keeps_original(obj), whole, retention,
                       plan_options.versions_kustomized, item_copies)

    # The annotations the run gives pod templates: located as each workload
    # is read, so that no workload keeps its metadata for them (N=5000:
    # --strategy=annotate 73 -> 55 MiB, --keep-previous=argocd 101 -> 83).
    keys = template_keys(options.strategy == "annotate", _records_refs(options))

    def prepare_workload(obj: KubeObject, root: MappingNode, paths: list) -> TemplatesAhead | None:
        return prepare_templates(obj, root, paths, keys)

    # --strategy=annotate gives configs no keys (their workloads get a hash):
    # their marks are made ahead, and none of their tree kept, as in any
    # other render (N=5000: 92 -> 74 MiB).
    needs = Needs(table, scanned, edits_everywhere=_edits_everywhere(options),
                  prepare=prepare_config, copies=plan_options.copies_kind,
                  prepare_templates=prepare_workload if keys else None)
    return ReadStream(read(sources, options.limits, needs), options, table, scanned, needs.take_found)


def _read_as(options: RenderOptions) -> tuple:
    """What of the options decides how a stream is read for a render (read_for):
    two options alike in it read alike (a KRM functionConfig that sets only
    a namespace, say, need not read its ResourceList again)."""
    return (options.limits, options.config_files, options.inline_configs, options.kustomize_configurations,
            _edits_everywhere(options),
            _records_refs(options), options.keep_original, options.hooks_hidden, options.mutable)


def _table(options: RenderOptions) -> fieldspecs.ReferenceTable:
    # The options table checks flags and configs; this guards library callers,
    # before any input is read.
    if options.strategy not in STRATEGIES:
        raise UsageError(f"unknown strategy {quoted(options.strategy)} (choose from {', '.join(STRATEGIES)})")
    check_strategy(options)
    check_cluster(options)
    extra = [*options.inline_configs, *options.kustomize_configurations]
    for path in options.config_files:
        for i, data in enumerate(fieldspecs.load_config_file(path)):
            extra.append((f"{path} (document {i + 1})", data))
    return fieldspecs.load_table(extra)


def _plan_options(options: RenderOptions) -> PlanOptions:
    return PlanOptions(keep_original=options.keep_original, hooks_hidden=options.hooks_hidden,
                       version_all=options.version_all, versions_kustomized=_records_refs(options))


def _rewrite_options(options: RenderOptions) -> RewriteOptions:
    return RewriteOptions(mutable=options.mutable, kustomize_maps_names=options.kustomize_maps_names)


def _records_refs(options: RenderOptions) -> bool:
    """Whether each referrer gets a record of the versions it uses
    (postrender.io/refs, keep.py): --keep-previous and --retain read it."""
    return bool(options.keep_previous) or options.retain is not None


def _edits_everywhere(options: RenderOptions) -> bool:
    """Whether the run gives most workloads keys: a config hash on every pod
    template (--strategy=annotate), a record of what each uses."""
    return options.strategy == "annotate" or _records_refs(options)


def _immutable_kept(graph: Graph, the_plan: Plan, spelled: Spelling, by_strategy: str) -> list[str]:
    """Each object under a name that stays which says `immutable: true`
    itself, so that new data for it will fail to apply (the API server
    refuses a change to an immutable object, and to `immutable` itself):
    each config that keeps its name (any reason but a kustomize name, which
    follows its content) and that something in the stream uses (a reference
    reaches it, or the plan kept it for a use: opted out, read by a fixed
    name, a hook's, a producer's), under either strategy; and each
    unsuffixed copy a version keeps (--keep-original; under Helm 3, every
    one), which says what its object says. `postrender diff`, which sees
    both sides, says where a change to one is refused. `by_strategy`: the
    reason kept_by_strategy gives."""
    copies = [f"{v.obj.describe()} says immutable: true, and so does the unsuffixed copy it keeps"
              f" ({spelled.called('keep_original')}): a change to its data will fail to apply to the copy (take"
              " `immutable` out: postrender marks each version immutable itself)"
              for v in the_plan.versioned if v.keep_original and says_immutable(v.obj)]
    kept_names = [(obj, version) for obj in graph.config_objects if says_immutable(obj)
                  if (version := the_plan.of(obj)) is not None and not version.name_follows_content]
    if not kept_names:
        return copies  # most streams: no pass over the references for it
    reached = {id(ref.target) for ref in graph.references if ref.target is not None}
    kept = []
    for obj, version in kept_names:
        # Kept for no use, or for the strategy alone: a change to its data
        # is no render's business, so no warning.
        if id(obj) not in reached and version.excluded in (UNREFERENCED, by_strategy):
            continue
        if version.excluded == EMPTY:
            # A placeholder: what fills it in is refused (review61a: the
            # reason's own "kept mutable" read beside "says immutable").
            kept.append(f"{obj.describe()} says immutable: true and holds no data: whatever fills it in will fail"
                        " (remove `immutable`)")
        else:
            kept.append(f"{obj.describe()} says immutable: true and keeps its name, {version.excluded}: a change to"
                        " its data will fail to apply (remove `immutable`, or let postrender version it: it names"
                        " each content and marks each version immutable itself)")
    return copies + kept


def _hidden_hooks_uncopied(the_plan: Plan, options: RenderOptions) -> list[str]:
    """Under Helm 3, which never shows hooks (`helm test` pods among them)
    to a post-renderer, the renamed objects an explicit --keep-original
    leaves without an unsuffixed copy: a hook naming one as written names
    nothing (what `auto` keeps a copy of, there). Done as asked, and said."""
    if not options.hooks_hidden or options.keep_original not in ("none", "secrets"):
        return []
    uncopied = [v.obj.describe() for v in the_plan.versioned if v.renamed and not v.keep_original]
    if not uncopied:
        return []
    shown = ", ".join(uncopied[:3]) + (f" and {len(uncopied) - 3:,} more" if len(uncopied) > 3 else "")
    return [f"Helm 3 never shows hooks or `helm test` pods to a post-renderer: under --keep-original="
            f"{options.keep_original}, {shown} keep no unsuffixed copy, so a hook or test that names one names"
            " nothing; the default (--keep-original=auto) keeps a copy of each under Helm 3"]


def _first_reason(rules: list[tuple[str, dict[int, str]]]) -> dict[int, str]:
    """id(object) -> why it keeps its name, from the first of the named rules
    (name, id(object) -> why) that gives a reason for it."""
    reasons: dict[int, str] = {}
    for _rule, why_kept in rules:
        for key, why in why_kept.items():
            reasons.setdefault(key, why)
    return reasons


def _hooks_kept(graph: Graph, table: fieldspecs.ReferenceTable) -> dict[int, str]:
    """Configs that are themselves a deployer's hooks (helm.sh/hook,
    argocd.argoproj.io/hook) keep their names. The deployer creates and
    deletes a hook by its name, outside the release: a new name on each
    upgrade was a new object every time, which `before-hook-creation`
    never deleted and `helm uninstall` left behind, and a hook of a lower
    weight that reads it ran before its new version existed (Helm 4, seen
    against a real API server)."""
    return {id(obj): "a hook, which its deployer creates and deletes by this name"
            for obj in graph.config_objects if obj.annotations and is_hook(obj, table)}


def _holds(graph: Graph, table: fieldspecs.ReferenceTable) -> dict[int, str]:
    """References that must keep naming what they name now, so the deployer
    never trips over them; reloader.policy then keeps their targets' names or
    unsuffixed copies, as for any hold:

    - in a pod template that can never change (a Job's, a bare Pod's):
      rewriting it to a new version would fail the next upgrade with
      `field is immutable`;
    - in a hook that runs before the release is applied (pre-upgrade), to an
      object that is no hook: the new version does not exist yet when it runs;
    - to a config that is itself a hook not created before the release's
      objects on every install and upgrade (a pre-install Secret): its new
      version would never be created on an upgrade;
    - at a field whose name must stay (keepsName): one also used as itself
      beyond it (the Prometheus Operator mounts `spec.secrets` at
      /etc/prometheus/secrets/<name>, a path scrape configurations name), where
      a new name would move the files; or one the API server never lets change
      (a StorageClass's parameters), where it would fail the next upgrade.
    """
    holds: dict[int, str] = {}
    for ref in graph.references:
        if ref.target is None:
            continue
        if in_immutable_template(ref.referrer, ref.path, table):
            holds[id(ref)] = f"{ref.referrer.describe()} has an immutable pod template"
        elif runs_before_apply(ref.referrer, table) and not is_hook(ref.target, table):
            holds[id(ref)] = f"{ref.referrer.describe()} is a hook that runs before the release is applied"
        # A config that is a hook; most carry no annotation at all, asked first.
        elif (ref.target.annotations and is_hook(ref.target, table)
              and not created_before_every_apply(ref.target, table)):
            holds[id(ref)] = (f"{ref.target.describe()} is a hook not created before the release's objects on every"
                              " install and upgrade")
        elif ref.keeps_name is not None:
            holds[id(ref)] = f"{ref.referrer.describe()} {ref.field_path}: {ref.keeps_name}"
    return holds


def render(sources: list[Source], options: RenderOptions, reporter: Reporter, stream: Stream | ReadStream | None = None,
           release: bool = False) -> Result:
    """`release`: the caller only writes the stream out, so what writing
    never reads is dropped before it writes (_drop_before_write: the graph,
    the plan) and each document's node graph once its edits are spliced
    (write.write): the result's analysis then holds neither. Not with
    --retain, which reads the analysis after writing."""
    analysis = analyse(sources, options, stream)
    release = release and options.retain is None
    if release:
        # Past analyse only broken.find reads the readers, and reports only
        # those whose target is renamed with no copy: few, where a workload's
        # flags name its Secret (25,000 of them held 50,000 readers and the
        # scalars they name, some 11 MiB, through rewrite). The graph view,
        # which is no release, shows them all.
        analysis.by_name.readers = broken.reported_readers(analysis.plan, analysis.by_name.readers)
    result = rewrite(analysis.graph, analysis.plan, _rewrite_options(options), held=analysis.policy.held,
                     config_hashes=analysis.config_hashes, retention=analysis.retention,
                     repointed=analysis.repointed, explain=reporter.wants_info)
    if analysis.retention.warning:
        reporter.warn(analysis.retention.warning)
    findings = guard.check(analysis.graph, analysis.plan)
    spelled = spelling(options)
    problems = broken.find(analysis.graph, analysis.plan, analysis.policy.held, analysis.by_name.readers, findings,
                           fieldspecs.kustomize_fields(options.kustomize_configurations), spelled)
    _report(analysis.graph, result, reporter, analysis.productions, {id(p.node) for p in problems}, spelled)
    _report_analysis(analysis, reporter)
    broken.report(problems, reporter, options.allow_broken, options.strict, options.show_broken, spelled)
    if release:
        _drop_before_write(analysis, result)
    written: Output | list[str] = write(analysis.stream, result, release)
    return Result(written, analysis, result, findings)


def _drop_before_write(analysis: Analysis, result: Rewrite) -> None:
    """Drop what a render holds that writing never reads, for a caller that
    only writes the stream out: the graph (every reference, with its scalar:
    the edits hold the scalars they replace; the index), each workload's pod
    templates, and the plan (the edits hold the versions their documents
    still need, each let go once its document is written). These then make
    room for the stream's splices rather than adding to them: a render's
    peak is at the end of write (N=20000: 207 -> 189 MiB). So do the
    warnings, reported already (_report_analysis): read's own, and the lines
    its sources keep to warn of what they left out. The cuts themselves
    stay with each source (Source.cuts): the writer deletes them, and a KRM
    function's answer to a render refused as it is written echoes its items
    without them (Source.text_left_out). A generated stream can warn of
    every document (40,000 documents each holding a key twice: 12 MiB)."""
    analysis.graph = Graph(ObjectIndex([], None, frozenset()), [], [])
    analysis.table.object_facts.clear()
    analysis.plan = Plan(())
    result.renamed.clear()  # reported already (_report)
    analysis.warnings.clear()
    analysis.stream.warnings.clear()
    for source in analysis.stream.sources:
        source.forget_left_out()


def _report(graph: Graph, result: Rewrite, reporter: Reporter, productions: Productions,
            broken_nodes: set[int], spelled: Spelling = Spelling()) -> None:
    """`broken_nodes`: names broken.py reports; they are not warned about
    twice. `spelled`: how advice names an option where the render was asked for."""
    if reporter.wants_info:
        for version in result.renamed:
            reporter.info(f"renamed {version.obj.describe()} -> {version.name}")
        for ref, new_value in result.rewritten:
            reporter.info(
                f"rewrote {ref.referrer.describe()} {ref.field_path}: {ref.prefix}{ref.name} -> {new_value}"
            )
    # A name an RBAC rule grants for several resources (configmaps and
    # secrets) need name only one of them: found as one kind, it is not
    # missing as the other.
    granted = {id(ref.node) for ref in graph.references
               if ref.spec.grants and ref.resolution is not Resolution.DANGLING}
    assumed: dict[str, str] = {}  # _report_conflicting_assumptions
    for ref in graph.references:
        if ref.resolution is Resolution.RESOLVED:
            continue  # most references: nothing to say, so no text to build
        if ref.spec.grants and ref.resolution is Resolution.DANGLING and id(ref.node) in granted:
            continue
        where = f"{ref.referrer.describe()} {ref.field_path}"
        about = (ref.referrer, ref.field_path, shown_value(ref.referrer, ref.path, ref.prefix + ref.name))
        if ref.resolution is Resolution.CROSS_NAMESPACE and ref.target is not None:
            explicit = _assumed_namespace(graph.index, ref)
            if explicit:
                assumed.setdefault(explicit, where)
            reporter.warn(
                f"{where}: {ref.target_kind} {quoted(ref.name)} matched only across namespaces "
                f"({ref.target.describe()}, one side without metadata.namespace); "
                # Not "rewritten": a field whose name must stay (a StorageClass's
                # parameters) is matched so, and left as written.
                f"taken as that object, on the assumption they deploy together; {spelled.setting(('namespace', None))}"
                " to be exact",
                about,
            )
        elif ref.resolution is Resolution.AMBIGUOUS and not ref.spec.grants and id(ref.node) not in broken_nodes:
            reporter.warn(
                f"{where}: {ref.target_kind} {quoted(ref.name)} matches several objects "
                f"({', '.join(c.describe() for c in ref.candidates)}); left as is",
                about,
            )
        elif ref.resolution is Resolution.DANGLING and not ref.optional:
            made = productions.making(ref, graph.index)
            if made is not None:
                reporter.info(f"{where}: {ref.target_kind} {quoted(ref.name)} is made by {made.describe()}")
            elif ref.spec.grants:
                # A grant by name to an object a program makes at run time (a
                # leader-election lock, a key a controller generates) is what
                # most operator charts write: nothing for the user to do.
                reporter.info(f"{where}: grants {ref.target_kind} {quoted(ref.name)}, which is not in the stream"
                              " (a program may make it); left as is")
            else:
                reporter.warn(f"{where}: {ref.target_kind} {quoted(ref.name)} is not in {_where_not(graph.index, ref)};"
                              " left as is", about)
    _report_conflicting_assumptions(assumed, reporter, spelled)


def _where_not(index: ObjectIndex, ref: Reference) -> str:
    """Where a name that leads nowhere was looked for: the stream, or its
    namespace, where the stream holds the name in another (helm62: "not in
    the stream" of an object that is there, in another namespace)."""
    elsewhere = sorted({index.describe(obj) for obj in index.named("", ref.target_kind, ref.name)
                        if obj.api_version == "v1"})
    if not elsewhere:
        return "the stream"
    namespace = index.lookup_namespace(ref.referrer, ref.namespace)
    looked = f"namespace {quoted(namespace)}" if namespace else "its namespace"
    return f"{looked} (the stream holds {', '.join(elsewhere)})"


def _assumed_namespace(index: ObjectIndex, ref: Reference) -> str:
    """The explicit namespace a reference matched across namespaces assumes
    the implicit one to be: the one on its other side."""
    looked_up = index.lookup_namespace(ref.referrer, ref.namespace)
    return (index.namespace_of(ref.target)  # type: ignore[arg-type, return-value]
            if looked_up == IMPLICIT else looked_up)


def _report_conflicting_assumptions(assumed: dict[str, str], reporter: Reporter, spelled: Spelling) -> None:
    """`assumed`: each explicit namespace a reference matched across
    namespaces assumed the implicit one to be, and one such reference.
    Where two assume two different ones, the objects without a namespace
    deploy to one of them, and the references that assumed the other will
    name nothing there (oracle60): said once, beside each match's own
    warning."""
    if len(assumed) > 1:
        listed = "; ".join(f"{namespace} ({where})" for namespace, where in sorted(assumed.items()))
        reporter.warn(
            "the objects without metadata.namespace were matched with objects in more than one namespace: "
            f"{listed}; they deploy to one namespace, so the references matched with the others will name nothing"
            f" there; {spelled.setting(('namespace', None))}")


def _report_analysis(analysis: Analysis, reporter: Reporter) -> None:
    for warning in analysis.warnings:
        if isinstance(warning, str):
            reporter.warn(warning)
        else:
            reporter.warn(warning.message, warning.about)
    for note in analysis.notes:
        reporter.info(note)
    # Reloader's reasons were said already (reloader.copy_notes), but for
    # `ignore`, which is not worth a warning: -v says it as any other reason.
    warned = set(analysis.policy.excluded.values()) - {reloader.IGNORED}
    fixed = set(analysis.by_name.fixed.values())
    for version in analysis.plan.versions if fixed else ():
        if version.excluded in fixed and opted_in(version.obj):
            # Asked for by name and not done: said even without -v.
            reporter.warn(f"{version.obj.describe()} is opted in (postrender.io/versioned: \"true\") but keeps its"
                          f" name: {version.excluded}")
            warned.add(version.excluded)
    for version in analysis.plan.versions if reporter.wants_info else ():
        # Reloader's reasons are warnings already (above).
        if version.excluded is not None and version.excluded not in warned:
            reporter.info(f"{version.obj.describe()} keeps its name: {version.excluded}")
    for dep in analysis.dependencies:
        where = f"{dep.referrer.describe()} {dep.field_path}"
        if not dep.supported:
            reporter.info(f"{where}: {dep.kind}/{dep.name} is not a ConfigMap or Secret; not hashed")
        elif dep.target is None:
            reporter.warn(f"{where}: {dep.kind} {quoted(dep.name)} is not in the stream; not hashed")
    for record in analysis.retention.records if reporter.wants_info else ():
        reporter.info(f"set {record.referrer.describe()} {record.field_path}: {record.value}")
    for place in analysis.config_hashes if reporter.wants_info else ():
        # Each object by its place (Secret/a/tok, Secret/b/tok), where the
        # hash's items, kind and name, would say one twice (review62e).
        over = [obj.describe() if obj is not None else f"{item[0]}/{item[1]}" for item, obj in place.objects]
        reporter.info(f"set {place.obj.describe()} {place.field_path} over " + ", ".join(sorted(over)))
