"""Ways in besides the plain stream: KRM functions, kustomize exec plugins,
`graph` and `diff`. Each module loads only when its way in is taken."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..pipeline.read.documents import Source
from ..records import replace

if TYPE_CHECKING:
    from ..options import RenderOptions
    from ..pipeline.read import Stream
    from ..pipeline.render import ReadStream, Result
    from ..report import Reporter


def resource_list_text(sources: list[Source], named: bool = False) -> str:
    """Standard input's text (`named`: a file's too, as diff takes a side)
    when it is the only input and names a ResourceList somewhere, else "":
    the first, cheapest test of whether a run is a KRM function's
    (krm.detect), so that a plain stream's run need not even load the KRM
    front end."""
    text = sources[0].text if len(sources) == 1 and (named or sources[0].name is None) else ""
    return text if "ResourceList" in text else ""


def names_a_resource_list(sources: list[Source]) -> bool:
    """Whether any input names a ResourceList somewhere: the cheap test
    before a plain render looks for one whose functionConfig it leaves
    unapplied (krm.read_plainly)."""
    return any("ResourceList" in source.text for source in sources)


def as_rendered(sources: list[Source], options: RenderOptions, reporter: Reporter, forced: bool = False,
                named: bool = False) -> tuple[RenderOptions, ReadStream | Stream | None]:
    """The options the command line's render takes `sources` with, and the
    stream as read for them (None: the render reads it): graph and diff
    show what that render does. A KRM function's ResourceList (--krm:
    `forced`, or detected on standard input; `named`: in a file too) with
    its functionConfig applied (krm.taken_as_function)."""
    if not forced and not names_a_resource_list(sources):
        return options, None  # most runs: the KRM front end is not loaded
    from . import krm

    return krm.taken_as_function(sources, options, reporter, forced, named)


def render(sources: list[Source], options: RenderOptions, reporter: Reporter,
           stream: Stream | ReadStream | None = None, release: bool = False) -> Result:
    """The stream rendered as a way in that writes it out delivers it (the
    command line, the kustomize exec plugin, a KRM function): the pipeline's
    render, then with --retain the cluster's step, which appends the
    previous versions still in use to the written stream. The pipeline
    itself never reads a cluster, and a plain render never loads a cluster
    client. (`release` is not dropped under --retain: render keeps the
    analysis the cluster's step reads.)"""
    from ..pipeline.render import render as render_stream

    result = render_stream(sources, options, reporter, stream, release)
    if options.retain is None:
        return result
    from ..cluster.retain import carry_forward

    return replace(result, written=[carry_forward(result.analysis, options, reporter, result.output)])
