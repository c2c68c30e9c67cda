"""The render pipeline: read → index → graph → plan → rewrite → write."""

from __future__ import annotations

from dataclasses import dataclass

from . import fieldspecs
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


@dataclass
class Result:
    output: str
    analysis: Analysis
    rewrite: Rewrite


def analyse(sources: list[Source], options: RenderOptions) -> Analysis:
    stream = read(sources, options.limits)
    extra = list(options.inline_configs)
    for path in options.config_files:
        for i, data in enumerate(fieldspecs.load_config_file(path)):
            extra.append((f"{path} (document {i + 1})", data))
    table = fieldspecs.load_table(extra)
    index = ObjectIndex(stream.objects, options.namespace, frozenset(table.cluster_scoped))
    graph = build(index, table)
    the_plan = plan(graph, PlanOptions(keep_original=options.keep_original))
    return Analysis(stream, table, graph, the_plan)


def render(sources: list[Source], options: RenderOptions, reporter: Reporter) -> Result:
    analysis = analyse(sources, options)
    result = rewrite(analysis.graph, analysis.plan, RewriteOptions(mutable=options.mutable))
    _report(analysis.graph, result, reporter, options)
    return Result(write(analysis.stream, result), analysis, result)


def _report(graph: Graph, result: Rewrite, reporter: Reporter, options: RenderOptions) -> None:
    for version in result.renamed:
        obj = version.obj
        reporter.info(f"renamed {obj.describe()} -> {version.name}")
    for ref, new_value in result.rewritten:
        reporter.info(
            f"rewrote {ref.referrer.describe()} {ref.field_path}: {ref.prefix}{ref.name} -> {new_value}"
        )
    for ref in graph.references:
        where = f"{ref.referrer.describe()} {ref.field_path}"
        if ref.resolution is Resolution.CROSS_NAMESPACE and ref.target is not None:
            reporter.warn(
                f"{where}: {ref.target_kind} {ref.name!r} matched only across namespaces "
                f"({ref.target.describe()}, one side without metadata.namespace); "
                "rewritten on the assumption they deploy together; pass --namespace to be exact"
            )
        elif ref.resolution is Resolution.AMBIGUOUS:
            reporter.warn(
                f"{where}: {ref.target_kind} {ref.name!r} matches several objects "
                f"({', '.join(c.describe() for c in ref.candidates)}); left as is"
            )
        elif ref.resolution is Resolution.DANGLING and not ref.optional:
            reporter.warn(f"{where}: {ref.target_kind} {ref.name!r} is not in the stream; left as is")
