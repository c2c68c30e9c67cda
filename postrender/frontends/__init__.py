"""Ways in besides the plain stream: KRM functions, kustomize exec plugins,
`graph` and `diff`. Each module loads only when its way in is taken."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..pipeline.read import Source
from ..records import replace

if TYPE_CHECKING:
    from ..options import RenderOptions
    from ..pipeline.read import Stream
    from ..pipeline.render import ReadStream, Result
    from ..report import Reporter


def resource_list_text(sources: list[Source]) -> str:
    """Standard input's text when it is the only input and names a
    ResourceList somewhere, else "": the first, cheapest test of whether a
    run is a KRM function's (krm.detect), so that a plain stream's run need
    not even load the KRM front end."""
    text = sources[0].text if len(sources) == 1 and sources[0].name is None else ""
    return text if "ResourceList" in text else ""


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
