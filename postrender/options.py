"""Everything a render can be told, from flags, plugin config or functionConfig."""

from __future__ import annotations

from dataclasses import dataclass, field

from .limits import Limits


@dataclass
class RenderOptions:
    namespace: str | None = None
    mutable: bool = False
    keep_original: bool = False
    config_files: list[str] = field(default_factory=list)
    # Field-spec configuration given inline (kustomize plugin, KRM functionConfig).
    inline_configs: list[tuple[str, dict]] = field(default_factory=list)
    limits: Limits = field(default_factory=Limits)
