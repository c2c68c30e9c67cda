"""Ways in besides the plain stream: KRM functions, kustomize exec plugins,
the Helm context, `graph` and `diff`. Each module loads only when its way in
is taken."""

from __future__ import annotations

from ..pipeline.read import Source


def resource_list_text(sources: list[Source]) -> str:
    """Standard input's text when it is the only input and names a
    ResourceList somewhere, else "": the first, cheapest test of whether a
    run is a KRM function's (krm.detect), so that a plain stream's run need
    not even load the KRM front end."""
    text = sources[0].text if len(sources) == 1 and sources[0].name is None else ""
    return text if "ResourceList" in text else ""
