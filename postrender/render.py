"""The render pipeline: read → index → graph → plan → rewrite → write."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import annotate, fieldspecs, guard, keep, reloader
from .dependencies import Dependency, find_dependencies
from .errors import UsageError
from .producers import Productions, find_productions
from .graph import Graph, Resolution, build
from .index import ObjectIndex
from .options import RenderOptions
from .plan import Options as PlanOptions
from .plan import Plan, plan
from .read import Source, Stream, read
from .report import Reporter
from .rewrite import Options as RewriteOptions
from .rewrite import Rewrite, rewrite
from .write import write


@dataclass
class Analysis:
    stream: Stream
    table: fieldspecs.ReferenceTable
    graph: Graph
    plan: Plan
    productions: Productions = field(default_factory=Productions)
    dependencies: list[Dependency] = field(default_factory=list)
    policy: reloader.Policy = field(default_factory=reloader.Policy)
    config_hashes: list[annotate.Place] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass
class Result:
    output: str
    analysis: Analysis
    rewrite: Rewrite
    # Fields that still name a renamed object (guard.py); `graph` shows them.
    findings: list[guard.Finding] = field(default_factory=list)


def analyse(sources: list[Source], options: RenderOptions) -> Analysis:
    stream = read(sources, options.limits)
    extra = list(options.inline_configs)
    for path in options.config_files:
        for i, data in enumerate(fieldspecs.load_config_file(path)):
            extra.append((f"{path} (document {i + 1})", data))
    table = fieldspecs.load_table(extra)
    index = ObjectIndex(stream.objects, options.namespace, frozenset(table.cluster_scoped))
    graph = build(index, table)
    if options.strategy not in annotate.STRATEGIES:
        raise UsageError(f"unknown strategy {options.strategy!r} (choose from {', '.join(annotate.STRATEGIES)})")
    productions = find_productions(graph)
    dependencies = find_dependencies(graph, table)
    policy = reloader.policy(graph, table, hold=options.strategy != "annotate")
    # The most specific reason wins: a produced object says so even under annotate.
    kept = {**annotate.kept_names(graph, options.strategy), **policy.excluded, **productions.excluded}
    the_plan = plan(graph, PlanOptions(keep_original=options.keep_original), kept)
    warnings = reloader.keep_copies(policy, the_plan)
    hashes = annotate.config_hashes(graph, table, the_plan, productions, dependencies, policy, options.strategy)
    return Analysis(stream, table, graph, the_plan, productions, dependencies, policy, hashes, warnings)


def render(sources: list[Source], options: RenderOptions, reporter: Reporter) -> Result:
    analysis = analyse(sources, options)
    result = rewrite(analysis.graph, analysis.plan, RewriteOptions(mutable=options.mutable), held=analysis.policy.held)
    annotate.apply(analysis.config_hashes, result)
    keep.mark(
        analysis.graph, analysis.plan, analysis.table, result,
        scope=options.scope, keep_previous=options.keep_previous,
        record_refs=bool(options.keep_previous or options.retain is not None), reporter=reporter,
    )
    _report(analysis.graph, result, reporter, analysis.productions)
    _report_analysis(analysis, reporter)
    findings = guard.check(analysis.graph, analysis.plan)
    guard.report(findings, reporter, options.strict)
    output = write(analysis.stream, result)
    if options.retain is not None:
        # Imported only here: a plain render never loads a cluster client.
        from .cluster.retain import carry_forward

        output = carry_forward(analysis, options, reporter, output)
    return Result(output, analysis, result, findings)


def _report(graph: Graph, result: Rewrite, reporter: Reporter, productions: Productions) -> None:
    for version in result.renamed:
        obj = version.obj
        reporter.info(f"renamed {obj.describe()} -> {version.name}")
    for ref, new_value in result.rewritten:
        reporter.info(
            f"rewrote {ref.referrer.describe()} {ref.field_path}: {ref.prefix}{ref.name} -> {new_value}"
        )
    for ref in graph.references:
        where = f"{ref.referrer.describe()} {ref.field_path}"
        about = (ref.referrer, ref.field_path, ref.prefix + ref.name)
        if ref.resolution is Resolution.CROSS_NAMESPACE and ref.target is not None:
            reporter.warn(
                f"{where}: {ref.target_kind} {ref.name!r} matched only across namespaces "
                f"({ref.target.describe()}, one side without metadata.namespace); "
                "rewritten on the assumption they deploy together; pass --namespace to be exact",
                about,
            )
        elif ref.resolution is Resolution.AMBIGUOUS:
            reporter.warn(
                f"{where}: {ref.target_kind} {ref.name!r} matches several objects "
                f"({', '.join(c.describe() for c in ref.candidates)}); left as is",
                about,
            )
        elif ref.resolution is Resolution.DANGLING and not ref.optional:
            made = productions.making(ref, graph.index)
            if made is not None:
                reporter.info(f"{where}: {ref.target_kind} {ref.name!r} is made by {made.describe()}")
            else:
                reporter.warn(f"{where}: {ref.target_kind} {ref.name!r} is not in the stream; left as is", about)


def _report_analysis(analysis: Analysis, reporter: Reporter) -> None:
    for warning in analysis.warnings:
        reporter.warn(warning)
    for dep in analysis.dependencies:
        where = f"{dep.referrer.describe()} {dep.field_path}"
        if not dep.supported:
            reporter.info(f"{where}: {dep.kind}/{dep.name} is not a ConfigMap or Secret; not hashed")
        elif dep.target is None:
            reporter.warn(f"{where}: {dep.kind} {dep.name!r} is not in the stream; not hashed")
    for place in analysis.config_hashes:
        reporter.info(f"set {place.obj.describe()} {place.field_path} over "
                      + ", ".join(f"{kind}/{name}" for kind, name, _ in sorted(place.items)))
