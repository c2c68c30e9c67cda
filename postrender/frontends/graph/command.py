"""`postrender graph`: run the render, build the view, write it."""

from __future__ import annotations

from ...errors import UsageError
from ...options import RenderOptions, cluster_flag_given
from ...records import replace
from ...pipeline.read.documents import Source
from ...report import Reporter
from . import formats
from .view import build_view


def check(options: RenderOptions, fmt: str) -> None:
    """Refuses what graph cannot do, before any input is read."""
    given = cluster_flag_given(options)
    if given is not None:
        raise UsageError(f"graph: {given} reads a cluster; graph shows one render's references and reads none")
    formats.check(fmt)


def show(sources: list[Source], options: RenderOptions, fmt: str, reporter: Reporter | None = None,
         krm: bool = False) -> str:
    """The graph of the render these options make. The render runs in full,
    so every option counts and its warnings (on stderr, as a render prints
    them) are the same; where the render fails on its input, graph fails the
    same way. A KRM ResourceList the render takes as one (--krm: `krm`, or
    detected on standard input) is rendered with its functionConfig
    applied, as the function renders it. A name the render would leave on a removed object is the one
    exception: graph is where one goes to see those, so it shows them (status
    `broken`, and as warnings) instead of failing, as with
    --allow-broken-references; --strict still fails."""
    check(options, fmt)
    from ...pipeline.render import render
    from .. import as_rendered

    reporter = reporter if reporter is not None else Reporter()
    options, read = as_rendered(sources, options, reporter, forced=krm)
    result = render(sources, replace(options, show_broken=True), reporter, read)
    view = build_view(result.analysis, result, [w.message for w in reporter.warnings])
    return formats.write(view, fmt)
